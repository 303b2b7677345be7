"""The example matmul kernel at fixed block configs: Tessera against the same
source compiled by Triton and against torch.matmul (cuBLAS), one run, with
the error against cuBLAS checked before timing. A tuning driver: one call
tries many configs.

    python3 bench/matmul_configs.py [--size M,N,K] [--dtype fp16|bf16|fp32|fp8]
                                    [--configs BM,BN,BK,warps,stages ...] [--no-triton]

TFLOP/s are medians of CUDA-event timings (bench/gpu.py's `bench`).
"""
import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402

from gpu import bench, triton_module  # noqa: E402

import matmul as tessera_matmul  # noqa: E402  (examples/ is on sys.path through gpu)

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32,
          "fp8": torch.float8_e4m3fn}
DEFAULT_CONFIGS = ["128,256,64,8,3", "128,128,64,4,4", "128,128,32,4,4", "64,128,32,4,4",
                   "128,64,32,4,4"]


def launch(mod, a, b, c, cfg):
    BM, BN, BK, warps, stages = cfg
    M, K = a.shape
    N = b.shape[1]
    k = mod.matmul_kernel.fn if hasattr(mod.matmul_kernel, "fn") else mod.matmul_kernel
    grid = (((M + BM - 1) // BM) * ((N + BN - 1) // BN),)
    return lambda: k[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                           c.stride(0), c.stride(1), BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN,
                           BLOCK_SIZE_K=BK, GROUP_SIZE_M=8, num_warps=warps, num_stages=stages)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="4096,4096,4096")
    ap.add_argument("--dtype", default="fp16", choices=list(DTYPES))
    ap.add_argument("--configs", nargs="*", default=DEFAULT_CONFIGS)
    ap.add_argument("--no-triton", action="store_true")
    args = ap.parse_args()
    M, N, K = (int(x) for x in args.size.split(","))
    dt = DTYPES[args.dtype]
    a = torch.randn(M, K, device="cuda").to(dt)
    b = torch.randn(N, K, device="cuda").to(dt).t() if dt == torch.float8_e4m3fn else \
        torch.randn(K, N, device="cuda").to(dt)
    out_dt = torch.float16 if dt == torch.float8_e4m3fn else dt
    flops = 2 * M * N * K
    if dt == torch.float8_e4m3fn:
        one = torch.tensor(1.0, device="cuda")
        ref_fn = lambda: torch._scaled_mm(a, b, one, one, out_dtype=out_dt)  # noqa: E731
    else:
        ref_fn = lambda: a @ b  # noqa: E731
    ref = ref_fn()
    cublas = flops / bench(ref_fn) / 1e9
    print(f"{args.dtype} {M}x{N}x{K}: cuBLAS {cublas:.1f} TFLOP/s", flush=True)
    tri = None if args.no_triton else triton_module("matmul")
    for spec in args.configs:
        cfg = tuple(int(x) for x in spec.split(","))
        row = f"  {spec:18s}"
        rate = {}
        for name, mod in (("tessera", tessera_matmul), ("triton", tri)):
            if mod is None:
                continue
            c = torch.full((M, N), float("nan"), device="cuda", dtype=out_dt)
            try:
                f = launch(mod, a, b, c, cfg)
                f()
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001
                row += f" | {name} failed: {str(e).splitlines()[0][:80]}"
                continue
            err = ((c.double() - ref.double()).norm() / ref.double().norm()).item()
            tf = flops / bench(f) / 1e9
            rate[name] = tf
            row += f" | {name} {tf:6.1f} TFLOP/s ({tf / cublas:4.2f} of cuBLAS) err {err:.1e}"
        if len(rate) == 2:
            row += f" || tessera/triton {rate['tessera'] / rate['triton']:4.2f}"
        print(row, flush=True)


if __name__ == "__main__":
    main()
