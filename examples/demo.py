"""Runs every example on the best back end available and prints, per
example, its error against a float64 reference and its time against the
reference library's (medians): on a CUDA GPU (PyTorch present) the kernels
run on CUDA tensors against PyTorch; elsewhere on the CPU interpreter
against NumPy. TESSERA_BACKEND=cpu forces the CPU.

    python3 examples/demo.py [--quick]
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import tessera  # noqa: F401  (installed with pip install .)
except ImportError:  # a source checkout: use python/ and the build tree
    sys.path.insert(0, os.path.join(HERE, "..", "python"))

EXAMPLES = ["vector_add", "gelu", "softmax", "softmax_online", "matmul", "layer_norm", "dropout",
            "attention"]


def median_ms(fn, reps=5):
    fn()  # warm: compile, autotune, caches
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def max_rel_error(out, ref):
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if out.shape != ref.shape or not np.isfinite(out).all():
        return float("inf")
    return float(np.max(np.abs(out - ref)) / max(np.max(np.abs(ref)), 1e-30))


def report(case, reps):
    err = max_rel_error(case["out"], case["ref"])
    ok = err <= case["tolerance"]
    t_tessera = median_ms(case["tessera"], reps)
    t_numpy = median_ms(case["numpy"], reps)
    print(f"{case['name']:<22} {case['size']:<18} {'ok' if ok else 'WRONG':<6} {err:<10.2e} "
          f"{t_tessera:>10.2f} {t_numpy:>10.2f} {t_tessera / t_numpy:>8.2f}x", flush=True)
    return ok


def header(backend, peer="numpy"):
    print(f"Tessera examples on the {backend} (times: median ms; ratio = Tessera / {peer})\n")
    print(f"{'example':<22} {'size':<18} {'result':<6} {'max error':<10} {'tessera':>10} "
          f"{peer:>10} {'ratio':>9}")


def run_one(demo, reps=5):
    """Runs one example's demo() (used by each example's __main__)."""
    header("CPU interpreter")
    cases = demo(np.random.default_rng())
    ok = all(report(c, reps) for c in (cases if isinstance(cases, list) else [cases]))
    sys.exit(0 if ok else 1)


def cuda_torch():
    """PyTorch with a usable CUDA device, or None."""
    if os.environ.get("TESSERA_BACKEND", "").lower() in ("cpu", "interpreter"):
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def gpu_cases(torch, quick):
    """The examples' kernels on CUDA tensors, against PyTorch."""
    import tessera as triton
    import attention
    import gelu
    import layer_norm
    import matmul
    import softmax
    import vector_add

    def timed(fn):
        def run():
            fn()
            torch.cuda.synchronize()
        return run

    cases = []
    n = 1 << (22 if quick else 26)
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    add = timed(lambda: vector_add.add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024))
    add()
    cases.append({"name": "vector_add", "size": f"2^{n.bit_length() - 1} fp32",
                  "out": out.cpu().numpy(), "ref": (x.double() + y.double()).cpu().numpy(),
                  "tolerance": 1e-6, "tessera": add, "numpy": timed(lambda: torch.add(x, y))})
    g_out = torch.full_like(x, float("nan"))
    run_gelu = timed(lambda: gelu.gelu_kernel[(triton.cdiv(n, 1024),)](x, g_out, n, BLOCK_SIZE=1024))
    run_gelu()
    ref = torch.nn.functional.gelu(x.double(), approximate="tanh")
    cases.append({"name": "gelu", "size": f"2^{n.bit_length() - 1} fp32",
                  "out": g_out.cpu().numpy(), "ref": ref.cpu().numpy(), "tolerance": 1e-5,
                  "tessera": run_gelu,
                  "numpy": timed(lambda: torch.nn.functional.gelu(x, approximate="tanh"))})
    rows, cols = (1024, 1024) if quick else (4096, 4096)
    a = torch.randn(rows, cols, device="cuda")
    s_out = torch.full_like(a, float("nan"))
    run_sm = timed(lambda: softmax.softmax_kernel[(rows,)](s_out, a, cols, cols, cols,
                                                           BLOCK_SIZE=cols, num_warps=8))
    run_sm()
    cases.append({"name": "softmax", "size": f"{rows}x{cols} fp32", "out": s_out.cpu().numpy(),
                  "ref": torch.softmax(a.double(), 1).cpu().numpy(), "tolerance": 1e-5,
                  "tessera": run_sm, "numpy": timed(lambda: torch.softmax(a, 1))})
    w = torch.randn(cols, device="cuda")
    b = torch.randn(cols, device="cuda")
    ln_out = torch.full_like(a, float("nan"))
    mean = torch.empty(rows, device="cuda")
    rstd = torch.empty(rows, device="cuda")
    run_ln = timed(lambda: layer_norm.layer_norm_fwd_kernel[(rows,)](
        a, ln_out, w, b, mean, rstd, cols, cols, 1e-5, BLOCK_SIZE=1024, num_warps=8))
    run_ln()
    ref = torch.nn.functional.layer_norm(a.double(), (cols,), w.double(), b.double(), 1e-5)
    cases.append({"name": "layer_norm", "size": f"{rows}x{cols} fp32", "out": ln_out.cpu().numpy(),
                  "ref": ref.cpu().numpy(), "tolerance": 1e-5, "tessera": run_ln,
                  "numpy": timed(lambda: torch.nn.functional.layer_norm(a, (cols,), w, b, 1e-5))})
    m = 512
    p = torch.randn(m, m, device="cuda")
    q = torch.randn(m, m, device="cuda")
    c = torch.full((m, m), float("nan"), device="cuda")
    kern = matmul.matmul_kernel.fn
    run_mm = timed(lambda: kern[(triton.cdiv(m, 64) ** 2,)](
        p, q, c, m, m, m, m, 1, m, 1, m, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32,
        GROUP_SIZE_M=8))
    run_mm()
    cases.append({"name": "matmul (FMA)", "size": f"{m}x{m}x{m} fp32", "out": c.cpu().numpy(),
                  "ref": (p.double() @ q.double()).cpu().numpy(), "tolerance": 1e-5,
                  "tessera": run_mm, "numpy": timed(lambda: p @ q)})
    shape = (2, 8, 1024, 64) if quick else (4, 16, 4096, 64)
    aq, ak, av = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(3))
    a_out = torch.full_like(aq, float("nan"))
    run_att = timed(lambda: attention.attention(aq, ak, av, causal=True, o=a_out))
    run_att()
    ref = torch.nn.functional.scaled_dot_product_attention(aq.double(), ak.double(), av.double(),
                                                           is_causal=True)
    cases.append({"name": "attention (causal)", "size": "x".join(map(str, shape)) + " fp16",
                  "out": a_out.float().cpu().numpy(), "ref": ref.cpu().numpy(), "tolerance": 1e-2,
                  "tessera": run_att,
                  "numpy": timed(lambda: torch.nn.functional.scaled_dot_product_attention(
                      aq, ak, av, is_causal=True))})
    return cases


def main():
    quick = "--quick" in sys.argv
    rng = np.random.default_rng()
    torch = cuda_torch()
    if torch is not None:
        header(f"GPU ({torch.cuda.get_device_name()})", "torch")
        failures = sum(not report(c, 2 if quick else 5) for c in gpu_cases(torch, quick))
        print("\nall examples correct" if not failures else f"\n{failures} example(s) FAILED")
        return 1 if failures else 0
    header("CPU interpreter")
    failures = 0
    for name in EXAMPLES:
        module = __import__(name)
        try:
            cases = module.demo(rng)
        except Exception as e:  # report and go on: one broken example must not hide the rest
            failures += 1
            print(f"{name:<22} FAILED: {type(e).__name__}: {e}")
            continue
        for case in cases if isinstance(cases, list) else [cases]:
            failures += not report(case, 2 if quick else 5)
    print("\nall examples correct" if not failures else f"\n{failures} example(s) FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
