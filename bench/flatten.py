"""A persistent matmul on tensor descriptors, its loop over tiles marked
flatten=True or not, timed per configuration at M = N = 8192 and several K
(fp16, TFLOP/s, do_bench medians; cuBLAS in the same run).

    python3 -m tessera bench/flatten.py     # Tessera (fused / nested)
    python3 bench/flatten.py                # Triton, for comparison

Environment: KS=512,2048,8192  CFGS=128x256x64s3w8,128x128x64s4w8
The fused loop (flatten-loops) pipelines the operand copies across tiles,
so its gain is largest where a tile has few K steps.
"""
import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def _grouped(tile, per_group, tiles_m, GROUP: tl.constexpr):
    first_m = (tile // per_group) * GROUP
    rows = min(tiles_m - first_m, GROUP)
    return first_m + tile % rows, (tile % per_group) // rows


@triton.jit
def persistent_matmul(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr, PROGRAMS: tl.constexpr, FLATTEN: tl.constexpr):
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = 8 * tiles_n
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, PROGRAMS, flatten=FLATTEN):
        pm, pn = _grouped(tile, per_group, tiles_m, 8)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            acc = tl.dot(a_desc.load([pm * BM, k * BK]), b_desc.load([pn * BN, k * BK]).T, acc)
        c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


def main():
    who = "tessera" if "tessera" in triton.__file__ else "triton"
    programs = torch.cuda.get_device_properties("cuda").multi_processor_count
    M = N = 8192
    for K in [int(k) for k in os.environ.get("KS", "512,2048,8192").split(",")]:
        a = torch.randn((M, K), device="cuda", dtype=torch.float16)
        b = torch.randn((N, K), device="cuda", dtype=torch.float16)
        ref = (a.float() @ b.float().T)
        flops = 2 * M * N * K
        cublas = flops / triton.testing.do_bench(lambda: a @ b.T) * 1e-9
        print(f"{who} K={K} cuBLAS {cublas:.1f}", flush=True)
        for cfg in os.environ.get("CFGS", "128x256x64s3w8,128x128x64s4w8").split(","):
            bm, bn, rest = cfg.split("x")
            bk, rest = rest.split("s")
            stages, warps = (int(x) for x in rest.split("w"))
            bm, bn, bk = int(bm), int(bn), int(bk)
            times = []
            for flatten in (True, False):
                c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
                descs = (TensorDescriptor.from_tensor(a, [bm, bk]),
                         TensorDescriptor.from_tensor(b, [bn, bk]),
                         TensorDescriptor.from_tensor(c, [bm, bn]))
                grid = (min(programs, triton.cdiv(M, bm) * triton.cdiv(N, bn)),)

                def run():
                    persistent_matmul[grid](*descs, M, N, K, bm, bn, bk, programs, flatten,
                                            num_warps=warps, num_stages=stages)

                run()
                torch.cuda.synchronize()
                err = (c.float() - ref).abs().max().item()
                assert err < 1e-2 * ref.abs().max().item(), f"{cfg} wrong: {err}"
                times.append(flops / triton.testing.do_bench(run) * 1e-9)
            print(f"{who} K={K} {cfg}: fused {times[0]:.1f} nested {times[1]:.1f} "
                  f"({times[0] / times[1]:.2f}x), {times[0] / cublas:.2f} of cuBLAS", flush=True)


if __name__ == "__main__":
    main()
