#!/usr/bin/env python3
"""Core benchmarks (CPU): compile time and interpreter throughput, with peers.

    python3 bench/core.py            # after scripts/test.sh or a build in build/

Prints medians over repeated runs, and ratios against the peer timed in the
same run:
  - compile: the tiled matmul example, source -> verified, optimised Tile IR
    (target: under 5 ms);
  - vector add, 2^24 fp32, BLOCK 1024, interpreter vs NumPy (target: 100 M
    elements/s or more on 2 cores);
  - row softmax 4096x1024 fp32, interpreter vs NumPy (target: under 1 s);
  - compile time against kernel length: 10k, 50k and 100k statements, source
    -> optimised Tile IR and -> PTX (linear; target: 100k under 2 s).
"""

import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "python"))
import tessera_testing as tt  # noqa: E402

MATMUL_SIG = ("*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, "
              "64, 64, 32, 8")


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_compile():
    path = REPO / "examples" / "matmul.py"
    compile_once = lambda: tt.compile_kernel(path, "matmul_kernel", MATMUL_SIG, cache=False)
    compile_once()  # first call loads the library
    t = median_time(compile_once, 50)
    print(f"compile matmul (source -> optimised Tile IR): {t * 1e3:.2f} ms median of 50 "
          f"(target < 5 ms)")


def bench_vector_add():
    n = 1 << 24
    k = tt.compile_kernel(REPO / "examples" / "vector_add.py", "add_kernel",
                          "*fp32:16, *fp32:16, *fp32:16, i32, 1024")
    rng = np.random.default_rng()
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    ref = np.empty_like(out)
    t_tess = median_time(lambda: tt.run(k, (tt.cdiv(n, 1024),), x, y, out, n), 5)
    t_np = median_time(lambda: np.add(x, y, out=ref), 5)
    assert np.array_equal(out, ref), "vector add result differs from NumPy"
    print(f"vector add 2^24 fp32: tessera {t_tess * 1e3:.1f} ms ({n / t_tess / 1e6:.0f} M elem/s, "
          f"target >= 100), numpy {t_np * 1e3:.1f} ms; tessera/numpy time ratio {t_tess / t_np:.1f}x")


def bench_softmax():
    rows, cols = 4096, 1024
    k = tt.compile_kernel(REPO / "examples" / "softmax.py", "softmax_kernel",
                          "*fp32:16, *fp32:16, i32, i32, i32, 1024")
    rng = np.random.default_rng()
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    out = np.full_like(x, np.nan)

    def numpy_softmax():
        z = x - x.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    t_tess = median_time(lambda: tt.run(k, (rows,), out, x, cols, cols, cols), 5)
    t_np = median_time(numpy_softmax, 5)
    np.testing.assert_allclose(out, numpy_softmax(), rtol=1e-5, atol=1e-7)
    print(f"softmax 4096x1024 fp32: tessera {t_tess * 1e3:.0f} ms (target < 1000), numpy "
          f"{t_np * 1e3:.0f} ms; tessera/numpy time ratio {t_tess / t_np:.1f}x")


def long_kernel(statements):
    """A kernel of `statements` elementwise statements on one tile."""
    body = "".join(f"    x = x * {i % 7 + 2} + n\n" for i in range(statements))
    return ("import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(p, n):\n"
            "    x = tl.load(p + tl.arange(0, 16))\n" + body +
            "    tl.store(p + tl.arange(0, 16), x)\n")


def bench_compile_scaling():
    tesserac = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", REPO / "build")) / "tesserac"
    if not tesserac.exists():
        print(f"compile scaling: skipped ({tesserac} is not built)")
        return
    for n in (10_000, 50_000, 100_000):
        path = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / f"tessera_long_{n}.py"
        path.write_text(long_kernel(n))
        times = {}
        for emit in ("ttir", "ptx"):
            cmd = [str(tesserac), "compile", str(path), "--kernel", "k", "--signature",
                   "*fp32, i32", "--emit", emit]
            times[emit] = median_time(
                lambda: subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL), 3)
        print(f"compile {n} statements: -> optimised Tile IR {times['ttir']:.2f} s "
              f"({times['ttir'] / n * 1e6:.0f} us per statement), -> PTX {times['ptx']:.2f} s "
              "(target: 100k < 2 s)")


def main():
    print(f"cores: {os.cpu_count()}")
    bench_compile()
    bench_vector_add()
    bench_softmax()
    bench_compile_scaling()


if __name__ == "__main__":
    main()
