"""The example kernels of examples/ against NumPy references, on the interpreter."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tessera_testing as tt
from tessera_testing import assert_close, cdiv, compile_kernel, next_power_of_2, poisoned, run


@pytest.mark.parametrize("n", [1, 17, 1000, 1024, 4099])
def test_vector_add(rng: np.random.Generator, n: int) -> None:
    k = compile_kernel("examples/vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256")
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = poisoned(n, np.float32)
    run(k, cdiv(n, 256), x, y, out, n)
    assert_close(out, x + y, np.float32, rtol=0, atol=0)


def test_vector_add_params_and_ir() -> None:
    k = compile_kernel("examples/vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256")
    assert k.name == "add_kernel"
    assert k.params == [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n_elements", "i32")]
    assert k.stages == ["ttir-initial", "ttir"]
    assert "add_kernel" in k.ir("ttir") and "add_kernel" in k.ir("ttir-initial")
    with pytest.raises(tt.InvalidArgument, match="no IR stage 'ptx'"):
        k.ir("ptx")


def gelu_ref(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


@pytest.mark.parametrize("n", [5, 512, 3001])
def test_gelu(rng: np.random.Generator, n: int) -> None:
    k = compile_kernel("examples/gelu.py", "gelu_kernel", "*fp32, *fp32, i32, 128")
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    out = poisoned(n, np.float32)
    run(k, cdiv(n, 128), x, out, n)
    assert_close(out, gelu_ref(x), np.float32, rtol=1e-5, atol=1e-6)


def softmax_ref(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("rows,cols", [(1, 1), (7, 33), (16, 128), (5, 781)])
def test_softmax(rng: np.random.Generator, rows: int, cols: int) -> None:
    block = next_power_of_2(cols)
    k = compile_kernel("examples/softmax.py", "softmax_kernel", f"*fp32, *fp32, i32, i32, i32, {block}")
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
    out = poisoned((rows, cols), np.float32)
    run(k, rows, out, x, cols, cols, cols)
    assert_close(out, softmax_ref(x), np.float32, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("rows,cols,block", [(3, 1000, 128), (4, 64, 64), (2, 257, 32), (5, 10, 16)])
def test_softmax_online(rng: np.random.Generator, rows: int, cols: int, block: int) -> None:
    k = compile_kernel("examples/softmax_online.py", "softmax_online_kernel",
                       f"*fp32, *fp32, i32, i32, i32, {block}")
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
    x[0, -1] = 30.0  # the maximum in the last block forces a rescale
    out = poisoned((rows, cols), np.float32)
    run(k, rows, out, x, cols, cols, cols)
    assert_close(out, softmax_ref(x), np.float32, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("rows,cols,block", [(4, 100, 32), (3, 1024, 256), (2, 7, 8), (1, 513, 128)])
def test_layer_norm(rng: np.random.Generator, rows: int, cols: int, block: int) -> None:
    k = compile_kernel("examples/layer_norm.py", "layer_norm_fwd_kernel",
                       f"*fp32, *fp32, *fp32, *fp32, *fp32, *fp32, i32, i32, fp32, {block}")
    x = (rng.standard_normal((rows, cols)) * 2 + 0.5).astype(np.float32)
    w = rng.standard_normal(cols).astype(np.float32)
    b = rng.standard_normal(cols).astype(np.float32)
    y = poisoned((rows, cols), np.float32)
    mean = poisoned(rows, np.float32)
    rstd = poisoned(rows, np.float32)
    eps = 1e-5
    run(k, rows, x, y, w, b, mean, rstd, cols, cols, eps)
    x64 = x.astype(np.float64)
    m = x64.mean(axis=1)
    v = x64.var(axis=1)
    r = 1 / np.sqrt(v + eps)
    assert_close(mean, m, np.float32, rtol=1e-5, atol=1e-6)
    assert_close(rstd, r, np.float32, rtol=1e-5, atol=1e-6)
    assert_close(y, (x64 - m[:, None]) * r[:, None] * w + b, np.float32, rtol=1e-5, atol=1e-5)


def tf32(a: np.ndarray) -> np.ndarray:
    """fp32 with the low 13 mantissa bits dropped (the interpreter's TF32)."""
    return (a.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


MATMUL_SIG = "*{a}, *{a}, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, {bm}, {bn}, {bk}, {g}, '{prec}'"


@pytest.mark.parametrize(
    "m,n,k,bm,bn,bk,g",
    [(16, 16, 16, 16, 16, 16, 1), (33, 47, 70, 16, 32, 16, 2), (64, 40, 9, 32, 16, 8, 4), (1, 100, 37, 16, 64, 32, 8)],
)
@pytest.mark.parametrize("dtype,prec", [("fp32", "ieee"), ("fp32", "tf32"), ("fp16", "ieee")])
def test_matmul(rng: np.random.Generator, m: int, n: int, k: int, bm: int, bn: int, bk: int, g: int,
                dtype: str, prec: str) -> None:
    npdt = np.float32 if dtype == "fp32" else np.float16
    kern = compile_kernel("examples/matmul.py", "matmul_kernel",
                          MATMUL_SIG.format(a=dtype, bm=bm, bn=bn, bk=bk, g=g, prec=prec))
    a = rng.standard_normal((m, k)).astype(npdt)
    b = rng.standard_normal((k, n)).astype(npdt)
    c = poisoned((m, n), np.float32)
    run(kern, cdiv(m, bm) * cdiv(n, bn), a, b, c, m, n, k, k, 1, n, 1, n, 1)
    if prec == "tf32":
        ref = tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)
        # Operands are exact after truncation; only fp32 accumulation differs.
        assert_close(c, ref, np.float32, rtol=1e-5, atol=1e-5 * math.sqrt(k))
        # and ieee would be measurably different from tf32 for random data
        exact = a.astype(np.float64) @ b.astype(np.float64)
        assert_close(c, exact, "tf32", rtol=3e-3, atol=3e-3 * math.sqrt(k))
    else:
        ref = a.astype(np.float64) @ b.astype(np.float64)
        assert_close(c, ref, np.float32, rtol=1e-5, atol=1e-5 * math.sqrt(k))


def test_matmul_transposed_strides(rng: np.random.Generator) -> None:
    m, n, k = 24, 20, 40
    kern = compile_kernel("examples/matmul.py", "matmul_kernel",
                          MATMUL_SIG.format(a="fp32", bm=16, bn=16, bk=16, g=2, prec="ieee"))
    at = rng.standard_normal((k, m)).astype(np.float32)  # A stored column-major
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = poisoned((m, n), np.float32)
    run(kern, cdiv(m, 16) * cdiv(n, 16), at, b, c, m, n, k, 1, m, n, 1, n, 1)
    assert_close(c, at.T.astype(np.float64) @ b, np.float32, rtol=1e-5, atol=1e-4)


def philox_rand_ref(seed: int, offsets: np.ndarray) -> np.ndarray:
    """tl.rand(seed, offsets) for int32 offsets: Philox 4x32-10, first word,
    to a uniform float in [0, 1) (numerics.h states Triton's definition)."""
    M = 0xFFFFFFFF
    seed &= (1 << 64) - 1
    k0 = np.full(offsets.shape, seed & M, np.uint64)
    k1 = np.full(offsets.shape, seed >> 32, np.uint64)
    c0 = offsets.astype(np.int64).astype(np.uint64) & np.uint64(M)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    A, B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(10):
        pb = B * c2
        pa = A * c0
        n0 = (pb >> np.uint64(32)) ^ c1 ^ k0
        n2 = (pa >> np.uint64(32)) ^ c3 ^ k1
        c1 = pb & np.uint64(M)
        c3 = pa & np.uint64(M)
        c0, c2 = n0, n2
        k0 = (k0 + np.uint64(0x9E3779B9)) & np.uint64(M)
        k1 = (k1 + np.uint64(0xBB67AE85)) & np.uint64(M)
    s = c0.astype(np.uint32).view(np.int32)
    s = np.where(s < 0, -s - 1, s)
    return s.astype(np.float32) * np.float32(4.6566127342e-10)


@pytest.mark.parametrize("n,p", [(1000, 0.5), (4096, 0.2), (77, 0.9)])
def test_dropout(rng: np.random.Generator, n: int, p: float) -> None:
    k = compile_kernel("examples/dropout.py", "dropout_kernel", "*fp32, *fp32, i32, fp32, i32, 256", pending=True)
    x = (rng.random(n) + 0.5).astype(np.float32)  # never 0, so kept elements are nonzero
    seed = int(rng.integers(0, 2**31 - 1))
    out = poisoned(n, np.float32)
    run(k, cdiv(n, 256), x, out, n, p, seed)
    kept = out != 0
    assert not np.isnan(out).any()
    # kept fraction: binomial(n, 1-p), allow 5 standard deviations
    sd = math.sqrt(n * p * (1 - p))
    assert abs(kept.sum() - n * (1 - p)) <= 5 * sd + 1
    p32 = np.float32(p)
    assert_close(out[kept], x[kept] / (np.float32(1) - p32), np.float32, rtol=1e-6, atol=0)
    # determinism: same seed, same output; the mask matches Philox
    out2 = poisoned(n, np.float32)
    run(k, cdiv(n, 256), x, out2, n, p, seed)
    assert np.array_equal(out, out2)
    r = philox_rand_ref(seed, np.arange(n))
    assert np.array_equal(kept, r > p32)
    # another seed, another mask
    out3 = poisoned(n, np.float32)
    run(k, cdiv(n, 256), x, out3, n, p, seed + 1)
    if n >= 1000:
        assert not np.array_equal(out3 != 0, kept)
