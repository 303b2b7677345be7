"""Runs every example on the best back end available and prints, per
example, its error against a float64 NumPy reference and its time against
NumPy's (medians).

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

EXAMPLES = ["vector_add", "gelu", "softmax", "softmax_online", "matmul", "layer_norm", "dropout"]


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


def header(backend):
    print(f"Tessera examples on the {backend} (times: median ms; ratio = Tessera / NumPy)\n")
    print(f"{'example':<22} {'size':<18} {'result':<6} {'max error':<10} {'tessera':>10} "
          f"{'numpy':>10} {'ratio':>9}")


def run_one(demo, reps=5):
    """Runs one example's demo() (used by each example's __main__)."""
    header("CPU interpreter")
    cases = demo(np.random.default_rng())
    ok = all(report(c, reps) for c in (cases if isinstance(cases, list) else [cases]))
    sys.exit(0 if ok else 1)


def main():
    quick = "--quick" in sys.argv
    rng = np.random.default_rng()
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
