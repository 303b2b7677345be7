"""tl.dot (2-D/3-D, acc, out_dtype, input_precision), loads/stores."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tessera_testing as tt
from tessera_testing import BF16, assert_close, cdiv, compile_kernel, compile_specs, poisoned, run


def tf32(a: np.ndarray) -> np.ndarray:
    return (a.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


DOTS = [
    # (operand dtype, out_dtype, precision)
    ("float32", "float32", "ieee"),
    ("float32", "float32", "tf32"),
    ("float16", "float32", "ieee"),
    ("float16", "float16", "ieee"),
    ("bfloat16", "float32", "ieee"),
    ("int8", "int32", "ieee"),
    ("float64", "float64", "ieee"),
]


@pytest.mark.parametrize("mnk", [(16, 16, 16), (32, 16, 64), (16, 32, 32)])
@pytest.mark.parametrize("dtype,out,prec", DOTS)
@pytest.mark.parametrize("use_acc", [False, True])
def test_dot_2d(rng: np.random.Generator, mnk: tuple[int, int, int], dtype: str, out: str, prec: str,
                use_acc: bool) -> None:
    m, n, k = mnk
    ndt = BF16 if dtype == "bfloat16" else np.dtype(dtype)
    if ndt is None:
        pytest.skip("ml_dtypes is not installed")
    if dtype == "int8":
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
        c = rng.integers(-10000, 10000, (m, n)).astype(np.int32)
    else:
        a = rng.standard_normal((m, k)).astype(np.float32).astype(ndt)
        b = rng.standard_normal((k, n)).astype(np.float32).astype(ndt)
        c = rng.standard_normal((m, n)).astype(np.dtype(out))
    o = poisoned((m, n), np.dtype(out))
    kern = compile_kernel("dots.py", "dot_kernel",
                          f"*{tt.sig_name(ndt)}, *{tt.sig_name(ndt)}, *{tt.sig_name(c.dtype)}, *{tt.sig_name(o.dtype)}, "
                          f"{m}, {n}, {k}, '{prec}', tl.{out}, {use_acc}")
    run(kern, 1, a, b, c, o)
    if dtype == "int8":
        ref = a.astype(np.int64) @ b.astype(np.int64) + (c if use_acc else 0)
        assert_close(o, ref.astype(np.int32))
        return
    if prec == "tf32":
        a64, b64 = tf32(a).astype(np.float64), tf32(b).astype(np.float64)
    else:
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64 + (c.astype(np.float64) if use_acc else 0)
    scale = math.sqrt(k)
    if out == "float64":
        assert_close(o, ref, out, rtol=1e-12, atol=1e-12 * scale)
    elif out == "float16":
        assert_close(o, ref, out, rtol=2e-3, atol=2e-3 * scale)
    else:
        assert_close(o, ref, np.float32, rtol=1e-5, atol=1e-5 * scale)


@pytest.mark.parametrize("bmnk", [(2, 16, 16, 16), (4, 16, 32, 16)])
def test_dot_3d(rng: np.random.Generator, bmnk: tuple[int, int, int, int]) -> None:
    bsz, m, n, k = bmnk
    a = rng.standard_normal((bsz, m, k)).astype(np.float32)
    b = rng.standard_normal((bsz, k, n)).astype(np.float32)
    o = poisoned((bsz, m, n), np.float32)
    kern = compile_kernel("dots.py", "dot3d_kernel", f"*fp32, *fp32, *fp32, {bsz}, {m}, {n}, {k}")
    run(kern, 1, a, b, o)
    assert_close(o, a.astype(np.float64) @ b.astype(np.float64), np.float32, rtol=1e-5, atol=1e-5 * math.sqrt(k))


def test_one_load_read_by_two_dots(rng: np.random.Generator) -> None:
    # kt feeds one dot as it is and another transposed (attention's backward).
    bm, bn, d, steps = 32, 16, 16, 3
    a = (rng.standard_normal((bm, d)) * 0.5).astype(np.float16)
    k = (rng.standard_normal((steps * bn, d)) * 0.5).astype(np.float16)
    o = poisoned((bm, d), np.float32)
    kern = compile_kernel("dots.py", "shared_operand_kernel", f"*fp16, *fp16, *fp32, i32, {bm}, {bn}, {d}")
    run(kern, 1, a, k, o, steps)
    ref = np.zeros((bm, d))
    for i in range(steps):
        ki = k[i * bn:(i + 1) * bn].astype(np.float64)
        s = (a.astype(np.float64) @ ki.T).astype(np.float16).astype(np.float64)
        ref += s @ ki
    assert_close(o, ref, np.float32, rtol=2e-2, atol=5e-2)  # s rounds to fp16 from fp32 or float64


def test_products_combined_elementwise(rng: np.random.Generator) -> None:
    bm, bn, bk, steps = 32, 16, 16, 3
    a = rng.standard_normal((bm, bk)).astype(np.float16)
    b = rng.standard_normal((steps, bk, bn)).astype(np.float16)
    c = rng.standard_normal((steps, bk, bn)).astype(np.float16)
    o = poisoned((bm, bn), np.float32)
    kern = compile_kernel("dots.py", "mixed_tensor_core_kernel",
                          f"*fp16, *fp16, *fp16, *fp32, i32, {bm}, {bn}, {bk}")
    run(kern, 1, a, b, c, o, steps)
    a64, b64, c64 = a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)
    ref = sum((a64 @ b64[i]) * (a64 @ c64[i]) + b64[i].sum(axis=0)[None, :] for i in range(steps))
    assert_close(o, ref, np.float32, rtol=1e-4, atol=1e-3)


def test_accumulator_from_before_the_loop(rng: np.random.Generator) -> None:
    # dot(a_j, b_j, c) with c loaded once: each product starts from c.
    m, n, k, steps = 32, 16, 16, 3
    a = rng.standard_normal((steps * m, k)).astype(np.float16)
    b = rng.standard_normal((steps * k, n)).astype(np.float16)
    c = rng.standard_normal((m, n)).astype(np.float32)
    o = poisoned((m, n), np.float32)
    kern = compile_kernel("dots.py", "invariant_accumulator_kernel",
                          f"*fp16, *fp16, *fp32, *fp32, i32, {m}, {n}, {k}")
    run(kern, 1, a, b, c, o, steps)
    ref = sum(a[j * m:(j + 1) * m].astype(np.float64) @ b[j * k:(j + 1) * k].astype(np.float64) +
              c.astype(np.float64) for j in range(steps)) * 0.5
    assert_close(o, ref, np.float32, rtol=1e-4, atol=1e-3)


def test_streamed_attention(rng: np.random.Generator) -> None:
    # Online softmax over key blocks, Q read again each iteration (the shape
    # rotate-dot-loops rewrites on the GPU), against float64 with P rounded
    # to fp16 as the kernel does.
    bm, bn, d, steps = 32, 16, 16, 4
    n = steps * bn
    q = rng.standard_normal((n + bm, d)).astype(np.float16)
    k = rng.standard_normal((n, d)).astype(np.float16)
    v = rng.standard_normal((bn, d)).astype(np.float16)
    o = poisoned((bm, d), np.float32)
    kern = compile_kernel("dots.py", "streamed_attention_kernel",
                          f"*fp16, *fp16, *fp16, *fp32, i32, {bm}, {bn}, {d}")
    run(kern, 1, q, k, v, o, n)
    m_i = np.full(bm, -np.inf)
    l_i = np.zeros(bm)
    acc = np.zeros((bm, d))
    for j in range(0, n, bn):
        s = q[j:j + bm].astype(np.float64) @ k[j:j + bn].astype(np.float64).T
        m_new = np.maximum(m_i, s.max(axis=1))
        p = np.exp(s - m_new[:, None])
        alpha = np.exp(m_i - m_new)
        l_i = l_i * alpha + p.sum(axis=1)
        acc = acc * alpha[:, None] + p.astype(np.float16).astype(np.float64) @ v.astype(np.float64)
        m_i = m_new
    assert_close(o, acc / l_i[:, None], np.float32, rtol=5e-3, atol=5e-3)


def heads_attention(q, k, v, heads: int, n: int, scale: float) -> np.ndarray:
    # softmax(Q K^T * scale) V in float64 for each head's n rows.
    out = []
    for h in range(heads):
        rows = slice(h * n, (h + 1) * n)
        s = q[rows].astype(np.float64) @ k[rows].astype(np.float64).T * scale
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out.append(p / p.sum(axis=1, keepdims=True) @ v[rows].astype(np.float64))
    return np.concatenate(out)


@pytest.mark.parametrize("ws", [1, 0])
def test_descriptor_attention(rng: np.random.Generator, ws: int) -> None:
    # Attention whose K and V come through descriptors made in the kernel, its
    # loop marked warp_specialize (a GPU schedule: the interpreter runs it as
    # any loop), two heads of n rows; against float64 softmax.
    heads, n, bm, bn, d = 2, 64, 32, 16, 16
    q, k, v = (rng.standard_normal((heads * n, d)).astype(np.float16) for _ in range(3))
    o = poisoned((heads * n, d), np.float16)
    kern = compile_kernel("dots.py", "descriptor_attention_kernel",
                          f"*fp16, *fp16, *fp16, *fp16, i32, fp32, {bm}, {bn}, {d}, {ws}")
    run(kern, (n // bm, heads), q, k, v, o, n, 0.3)
    assert_close(o, heads_attention(q, k, v, heads, n, 0.3), np.float16, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("programs", [1, 4, 16])
def test_tiled_attention(rng: np.random.Generator, programs: int) -> None:
    # The same attention written persistent (a loop over (query block, head)
    # tiles in each program, Q through a descriptor too): fewer programs than
    # tiles (6), as many, and more.
    heads, n, bm, bn, d = 2, 96, 32, 16, 16
    q, k, v = (rng.standard_normal((heads * n, d)).astype(np.float16) for _ in range(3))
    o = poisoned((heads * n, d), np.float16)
    kern = compile_kernel("dots.py", "tiled_attention_kernel",
                          f"*fp16, *fp16, *fp16, *fp16, i32, i32, fp32, {bm}, {bn}, {d}, 1, {programs}")
    run(kern, programs, q, k, v, o, n, heads, 0.3)
    assert_close(o, heads_attention(q, k, v, heads, n, 0.3), np.float16, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("programs", [1, 5])
def test_tiled_matmul(rng: np.random.Generator, programs: int) -> None:
    # Tutorial 09's loop over tiles marked warp_specialize with the K loop in
    # it; M and N ragged (the descriptor pads, the store masks).
    m, n, k = 45, 37, 48
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((n, k)).astype(np.float16)
    c = poisoned((m, n), np.float32)
    kern = compile_kernel("dots.py", "tiled_matmul_kernel",
                          f"*fp16, *fp16, *fp32, i32, i32, i32, 16, 16, 16, 1, {programs}")
    run(kern, programs, a, b, c, m, n, k)
    assert_close(c, a.astype(np.float64) @ b.astype(np.float64).T, np.float32, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_accumulating_sum_of_dots(rng: np.random.Generator, dtype: type) -> None:
    # acc += tl.dot(a, b) in a loop, which compiles to one chained dot.
    bm, bn, bk, steps = 32, 16, 16, 4
    a = rng.standard_normal((bm, steps * bk)).astype(dtype)
    b = rng.standard_normal((steps * bk, bn)).astype(dtype)
    o = poisoned((bm, bn), np.float32)
    t = "fp16" if dtype == np.float16 else "fp32"
    kern = compile_kernel("dots.py", "accumulate_kernel", f"*{t}, *{t}, *fp32, i32, {bm}, {bn}, {bk}")
    run(kern, 1, a, b, o, steps)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if dtype == np.float32:  # tl.dot's default precision for fp32 is tf32
        a64, b64 = tf32(a).astype(np.float64), tf32(b).astype(np.float64)
    assert_close(o, a64 @ b64, np.float32, rtol=1e-4, atol=1e-3)


def test_dot_tf32_differs_from_ieee(rng: np.random.Generator) -> None:
    # Guards against "tf32" silently computing in full precision.
    a = rng.standard_normal((16, 16)).astype(np.float32)
    b = rng.standard_normal((16, 16)).astype(np.float32)
    res = {}
    for prec in ("ieee", "tf32"):
        o = poisoned((16, 16), np.float32)
        kern = compile_kernel("dots.py", "dot_kernel", f"*fp32, *fp32, *fp32, *fp32, 16, 16, 16, '{prec}', tl.float32, False")
        run(kern, 1, a, b, a, o)
        res[prec] = o
    assert not np.array_equal(res["ieee"], res["tf32"])
    assert_close(res["tf32"], res["ieee"], "tf32", rtol=3e-3, atol=3e-3 * 4)


# ---------------------------------------------------------------------------
# memory


@pytest.mark.parametrize("other", [None, 0, 7, -1.5])
@pytest.mark.parametrize("n", [0, 5, 16])
def test_load_mask_other(rng: np.random.Generator, other: float | None, n: int) -> None:
    x = rng.standard_normal(max(n, 1)).astype(np.float32)[:n].copy()
    out = poisoned(16, np.float32)
    k = compile_kernel("memory_ops.py", "load_other_kernel", f"*fp32, *fp32, i32, {other}, 16")
    run(k, 1, x, out, n)
    want = np.full(16, 0.0 if other is None else other, np.float32)
    want[:n] = x
    assert_close(out, want, rtol=0, atol=0)


def test_load_other_minus_inf_via_specs(rng: np.random.Generator) -> None:
    # -inf cannot be written in a signature string; the arg-spec API passes it.
    x = rng.standard_normal(5).astype(np.float32)
    out = poisoned(16, np.float32)
    k = compile_specs("memory_ops.py", "load_other_kernel",
                      [("ptr", "fp32", 16), ("ptr", "fp32"), ("scalar", "i32"), ("constexpr", float("-inf")),
                       ("constexpr", 16)])
    run(k, 1, x, out, 5)
    want = np.full(16, -np.inf, np.float32)
    want[:5] = x
    assert np.array_equal(out, want)


def test_scalar_pointer_load_store(rng: np.random.Generator) -> None:
    x = rng.integers(0, 10, 37).astype(np.int32)
    out = poisoned(37, np.int32)
    k = compile_kernel("memory_ops.py", "scalar_ptr_kernel", "*i32, *i32, i32")
    run(k, 37, x, out, 3)
    assert_close(out, x[3] * 10 + x)


@pytest.mark.parametrize("mn", [(1, 1), (33, 17), (64, 64), (50, 70)])
def test_masked_store_2d(mn: tuple[int, int]) -> None:
    m, n = mn
    stride = n + 3
    out = poisoned((m, stride), np.float32)
    k = compile_kernel("memory_ops.py", "masked_store_2d_kernel", "*fp32, i32, i32, i32, 16, 32")
    run(k, (cdiv(m, 16), cdiv(n, 32)), out, m, n, stride)
    want = (np.arange(m)[:, None] * 1000 + np.arange(n)[None, :]).astype(np.float32)
    assert_close(out[:, :n], want, rtol=0, atol=0)
    assert np.isnan(out[:, n:]).all()  # the padding is never written


@pytest.mark.parametrize("grid", [(1,), (3, 2), (2, 3, 4)])
def test_program_ids(grid: tuple[int, ...]) -> None:
    g = list(grid) + [1] * (3 - len(grid))
    total = g[0] * g[1] * g[2]
    out = poisoned((total, 6), np.int32)
    run(compile_kernel("memory_ops.py", "grid_ids_kernel", "*i32"), grid, out)
    want = np.array([[x, y, z, *g] for z in range(g[2]) for y in range(g[1]) for x in range(g[0])], np.int32)
    assert_close(out, want)


@pytest.mark.parametrize("value,dt,np_dt", [(3, "tl.int32", np.int32), (2.5, "tl.float16", np.float16),
                                            (-1, "tl.int8", np.int8), (1e-3, "tl.float64", np.float64)])
def test_full(value: float, dt: str, np_dt: type) -> None:
    out = poisoned(32, np_dt)
    run(compile_kernel("memory_ops.py", "full_kernel", f"*{tt.sig_name(np_dt)}, {value}, {dt}, 32"), 1, out)
    assert_close(out, np.full(32, value, np_dt), rtol=0, atol=0)


@pytest.mark.parametrize("n", [1, 300])
def test_hints_and_cache_modifiers(rng: np.random.Generator, n: int) -> None:
    x = rng.standard_normal(n).astype(np.float32)
    out = poisoned(n, np.float32)
    run(compile_kernel("memory_ops.py", "hints_kernel", "*fp32:16, *fp32:16, i32, 64"), cdiv(n, 64), x, out, n)
    assert_close(out, x + np.float32(1), rtol=0, atol=0)
