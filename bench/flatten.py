"""A persistent matmul, its loop over tiles marked flatten=True or not,
timed per configuration at M = N = 8192 and several K (fp16, TFLOP/s,
do_bench medians; cuBLAS in the same run): on tensor descriptors, and with
the example matmul's masked pointer loads (pointers carried by the K loop),
which Tessera reads through maps made before the tile loop on sm_90a; the
example itself (one program a tile) beside them.

    python3 -m tessera bench/flatten.py     # Tessera (fused / nested)
    python3 bench/flatten.py                # Triton, for comparison

Environment: KS=512,2048,8192  CFGS=128x256x64s3w8,128x128x64s4w8
KINDS=descriptor,pointer
The fused loop (flatten-loops) pipelines the operand copies across tiles,
so its gain is largest where a tile has few K steps.
"""
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

from gpu import triton_module  # noqa: E402
from matmul_configs import launch  # noqa: E402


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


@triton.jit
def pointer_persistent_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                              PROGRAMS: tl.constexpr, FLATTEN: tl.constexpr):
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = 8 * tiles_n
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, PROGRAMS, flatten=FLATTEN):
        pm, pn = _grouped(tile, per_group, tiles_m, 8)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
        b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            k_left = K - k * BK
            a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BK
            b_ptrs += BK * stride_bk
        tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


def main():
    who = "tessera" if "tessera" in triton.__file__ else "triton"
    # The example's source, compiled by whichever of the two runs this.
    if who == "tessera":
        import matmul as example  # examples/ is on sys.path through gpu
    else:
        example = triton_module("matmul")
    programs = torch.cuda.get_device_properties("cuda").multi_processor_count
    M = N = 8192
    for K in [int(k) for k in os.environ.get("KS", "512,2048,8192").split(",")]:
        a = torch.randn((M, K), device="cuda", dtype=torch.float16)
        b = torch.randn((N, K), device="cuda", dtype=torch.float16)
        ref = (a.float() @ b.float().T)
        flops = 2 * M * N * K
        cublas = flops / triton.testing.do_bench(lambda: a @ b.T) * 1e-9
        print(f"{who} K={K} cuBLAS {cublas:.1f}", flush=True)
        kinds = os.environ.get("KINDS", "descriptor,pointer").split(",")
        bkn = b.T.contiguous() if "pointer" in kinds else None
        for cfg in os.environ.get("CFGS", "128x256x64s3w8,128x128x64s4w8").split(","):
            bm, bn, rest = cfg.split("x")
            bk, rest = rest.split("s")
            stages, warps = (int(x) for x in rest.split("w"))
            bm, bn, bk = int(bm), int(bn), int(bk)
            grid = (min(programs, triton.cdiv(M, bm) * triton.cdiv(N, bn)),)
            for kind in kinds:
                times = []
                for flatten in (True, False, None):
                    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
                    if kind == "descriptor" and flatten is None:
                        break
                    if kind == "descriptor":
                        descs = (TensorDescriptor.from_tensor(a, [bm, bk]),
                                 TensorDescriptor.from_tensor(b, [bn, bk]),
                                 TensorDescriptor.from_tensor(c, [bm, bn]))

                        def run():
                            persistent_matmul[grid](*descs, M, N, K, bm, bn, bk, programs,
                                                    flatten, num_warps=warps, num_stages=stages)
                    elif flatten is not None:
                        def run():
                            pointer_persistent_matmul[grid](
                                a, bkn, c, M, N, K, a.stride(0), bkn.stride(0), c.stride(0), bm,
                                bn, bk, programs, flatten, num_warps=warps, num_stages=stages)
                    else:  # the example matmul: one program a tile
                        run = launch(example, a, bkn, c, (bm, bn, bk, warps, stages))
                    run()
                    torch.cuda.synchronize()
                    err = (c.float() - ref).abs().max().item()
                    assert err < 1e-2 * ref.abs().max().item(), f"{kind} {cfg} wrong: {err}"
                    times.append(flops / triton.testing.do_bench(run) * 1e-9)
                line = (f"{who} K={K} {cfg} {kind}: fused {times[0]:.1f} nested {times[1]:.1f} "
                        f"({times[0] / times[1]:.2f}x), {times[0] / cublas:.2f} of cuBLAS")
                if len(times) > 2:
                    line += f"; the example {times[2]:.1f} ({times[2] / cublas:.2f})"
                print(line, flush=True)

if __name__ == "__main__":
    main()
