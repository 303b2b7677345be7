"""Many small matrix products as one batched (rank-3) tl.dot per program:
BATCH products of M x K by K x N, each program taking B of them, timed
against torch.bmm (cuBLAS) in the same run (fp16 in, fp32 accumulation, fp16
out; TFLOP/s, do_bench medians; each result checked against float32 bmm).

    python3 -m tessera bench/batched_dot.py     # Tessera
    python3 bench/batched_dot.py                # Triton, the same source

Environment: SHAPES=4096x64x64x64,16384x32x32x32,1024x128x128x64 (BATCH x M
x N x K), CFGS=8kw4,16kw4,16kw8,32kw8 (accumulator elements per program, as
entries of M x N, and warps: 16kw4 is 16384 elements on 4 warps, 128 fp32
registers a thread).
"""
import os

import torch
import triton
import triton.language as tl


@triton.jit
def batched_matmul(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                   K: tl.constexpr, BK: tl.constexpr):
    rb = (tl.program_id(0) * B + tl.arange(0, B))[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rk = tl.arange(0, BK)
    acc = tl.zeros((B, M, N), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rb * (M * K) + rm * K + (k + rk)[None, None, :])
        b = tl.load(b_ptr + rb * (K * N) + (k + rk)[None, :, None] * N + rn)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rb * (M * N) + rm * N + rn, acc.to(tl.float16))


def main():
    who = "tessera" if "tessera" in triton.__file__ else "triton"
    shapes = os.environ.get("SHAPES", "4096x64x64x64,16384x32x32x32,1024x128x128x64")
    for shape in shapes.split(","):
        batch, M, N, K = (int(x) for x in shape.split("x"))
        a = torch.randn((batch, M, K), device="cuda", dtype=torch.float16)
        b = torch.randn((batch, K, N), device="cuda", dtype=torch.float16)
        ref = torch.bmm(a.float(), b.float())
        flops = 2 * batch * M * N * K
        cublas = flops / triton.testing.do_bench(lambda: torch.bmm(a, b)) * 1e-9
        for cfg in os.environ.get("CFGS", "8kw4,16kw4,16kw8,32kw8").split(","):
            elems, warps = cfg.split("w")
            per, warps = max(1, int(elems.rstrip("k")) * 1024 // (M * N)), int(warps)
            BK = min(K, 64)
            c = torch.full((batch, M, N), float("nan"), device="cuda", dtype=torch.float16)
            grid = (batch // per,)

            def run():
                batched_matmul[grid](a, b, c, B=per, M=M, N=N, K=K, BK=BK, num_warps=warps)

            try:
                run()
                torch.cuda.synchronize()
                err = ((c.float() - ref).norm() / ref.norm()).item()
                tflops = flops / triton.testing.do_bench(run) * 1e-9
                print(f"{who} batched {shape} {per} entries/program w{warps}: {tflops:7.1f} "
                      f"TFLOP/s | cuBLAS bmm {cublas:7.1f} || {tflops / cublas:.2f} of cuBLAS, "
                      f"rel err {err:.1e}", flush=True)
            except Exception as e:  # a configuration out of shared memory or registers
                print(f"{who} batched {shape} {per} entries/program w{warps}: "
                      f"FAIL {str(e).splitlines()[0][:160]}", flush=True)


if __name__ == "__main__":
    main()
