"""Software pipelining (num_stages) on the GPU: the layer norm forward
example at 4096x8192 fp32 (its mean and variance loops are pipelined; the
normalising loop stores, so it is not) with num_stages 1-4, Tessera and
Triton on the same kernel source, in one run. TB/s counts one read and one
write of x; medians of CUDA events (bench/gpu.py's method).

    python3 bench/num_stages.py
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402

import gpu  # noqa: E402  (bench/gpu.py: paths, bench(), triton_module())


def main():
    import layer_norm as t_ln
    tr_ln = gpu.triton_module("layer_norm")
    m, k = 4096, 8192
    a = torch.randn(m, k, device="cuda")
    w = torch.randn(k, device="cuda")
    b = torch.randn(k, device="cuda")
    y = torch.empty_like(a)
    mean = torch.empty(m, device="cuda")
    rstd = torch.empty(m, device="cuda")
    ref = torch.nn.functional.layer_norm(a, (k,), w, b, 1e-5)
    nbytes = 2 * a.numel() * 4
    for stages in (1, 2, 3, 4):
        res = {}
        for name, mod in (("tessera", t_ln), ("triton", tr_ln)):
            def run(mod=mod):
                mod.layer_norm_fwd_kernel[(m,)](a, y, w, b, mean, rstd, a.stride(0), k, 1e-5,
                                                BLOCK_SIZE=1024, num_warps=8, num_stages=stages)
            y.fill_(float("nan"))
            run()
            err = ((y - ref).norm() / ref.norm()).item()
            assert err < 1e-5, f"{name} num_stages={stages}: relative error {err}"
            res[name] = gpu.bench(run)
        t, tr = (nbytes / res[n] / 1e9 for n in ("tessera", "triton"))
        print(f"layer norm fwd {m}x{k} num_stages={stages}: tessera {t:5.2f} TB/s | "
              f"triton {tr:5.2f} TB/s || tessera/triton {t / tr:5.2f}x", flush=True)


if __name__ == "__main__":
    main()
