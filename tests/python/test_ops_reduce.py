"""Reductions with axis / keep_dims, index-returning reductions, tl.reduce
with @jit combine functions."""

from __future__ import annotations

import numpy as np
import pytest

import tessera_testing as tt
from tessera_testing import assert_close, compile_kernel, poisoned, run

AXES = [None, 0, 1]
SHAPES = [(4, 16), (8, 32), (1, 8)]


def out_shape(m: int, n: int, axis: int | None, keep: bool) -> tuple[int, ...]:
    if axis is None:
        return (1, 1) if keep else ()
    if axis == 0:
        return (1, n) if keep else (n,)
    return (m, 1) if keep else (m,)


def np_reduce(op: str, x: np.ndarray, axis: int | None, keep: bool) -> np.ndarray:
    if op == "sum":
        r = x.astype(np.float64).sum(axis=axis, keepdims=keep) if x.dtype.kind == "f" else x.sum(axis=axis, keepdims=keep, dtype=x.dtype)
    elif op in ("max", "max_idx"):
        r = x.max(axis=axis, keepdims=keep)
    elif op in ("min", "min_idx"):
        r = x.min(axis=axis, keepdims=keep)
    elif op == "argmax":
        r = np.argmax(x, axis=axis, keepdims=keep).astype(np.int32)
    elif op == "argmin":
        r = np.argmin(x, axis=axis, keepdims=keep).astype(np.int32)
    elif op == "xor_sum":
        r = np.bitwise_xor.reduce(x, axis=axis, keepdims=keep) if axis is not None else np.bitwise_xor.reduce(x.ravel(), keepdims=False)
        if axis is None and keep:
            r = np.reshape(r, (1, 1))
    elif op == "reduce_add":
        return np_reduce("sum", x, axis, keep)
    else:
        raise ValueError(op)
    return np.asarray(r)


def run_reduce(op: str, x: np.ndarray, axis: int | None, keep: bool, out_dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    m, n = x.shape
    s = tt.sig_name(x.dtype)
    k = compile_kernel("reductions.py", "reduce_kernel",
                       f"*{s}, *{tt.sig_name(out_dtype)}, *i32, {m}, {n}, '{op}', {axis}, {keep}")
    out = poisoned(out_shape(m, n, axis, keep) or (1,), out_dtype)
    idx = poisoned(max(m, n), np.int32)
    run(k, 1, x, out, idx)
    shape = out_shape(m, n, axis, keep)
    return (out.reshape(shape) if shape else out.reshape(())), idx


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("op", ["sum", "max", "min", "reduce_add"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_reduce(rng: np.random.Generator, op: str, dtype: str, shape: tuple[int, int], axis: int | None,
                keep: bool) -> None:
    if dtype == "float32":
        x = rng.standard_normal(shape).astype(np.float32)
    else:
        x = rng.integers(-1000, 1000, shape).astype(np.int32)
    out, _ = run_reduce(op, x, axis, keep, x.dtype)
    ref = np_reduce(op, x, axis, keep)
    if dtype == "float32" and op in ("sum", "reduce_add"):
        assert_close(out, ref, np.float32, rtol=1e-5, atol=1e-5)
    else:
        assert_close(out, ref.astype(x.dtype), rtol=0, atol=0)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_arg_reduce(rng: np.random.Generator, op: str, dtype: str, shape: tuple[int, int], axis: int | None,
                    keep: bool) -> None:
    # Small integers make ties: the lowest index wins (tie_break_left), as in NumPy.
    x = rng.integers(-5, 5, shape).astype(dtype)
    out, _ = run_reduce(op, x, axis, keep, np.dtype(np.int32))
    assert_close(out, np_reduce(op, x, axis, keep))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", ["max_idx", "min_idx"])
def test_max_min_return_indices(rng: np.random.Generator, op: str, axis: int) -> None:
    m, n = 8, 16
    x = rng.integers(-5, 5, (m, n)).astype(np.float32)
    out, idx = run_reduce(op, x, axis, False, np.dtype(np.float32))
    assert_close(out, np_reduce(op, x, axis, False), rtol=0, atol=0)
    arg = np.argmax(x, axis=axis) if op == "max_idx" else np.argmin(x, axis=axis)
    assert_close(idx[: arg.size], arg.astype(np.int32))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reduce_tuple_combine(rng: np.random.Generator, axis: int | None) -> None:
    # tl.reduce over (value, flat index) with a two-result combine function.
    m, n = 4, 16
    x = rng.integers(-4, 4, (m, n)).astype(np.float32)
    out, idx = run_reduce("reduce_tuple", x, axis, False, np.dtype(np.float32))
    flat = np.arange(m * n).reshape(m, n)
    if axis is None:
        best = int(np.argmax(x.ravel()))
        assert out == x.ravel()[best] and idx[0] == best
    else:
        a = np.argmax(x, axis=axis)
        want_idx = flat[a, np.arange(n)] if axis == 0 else flat[np.arange(m), a]
        assert_close(out, x.max(axis=axis), rtol=0, atol=0)
        assert_close(idx[: want_idx.size], want_idx.astype(np.int32))


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64"])
def test_xor_sum(rng: np.random.Generator, axis: int | None, keep: bool, dtype: str) -> None:
    info = np.iinfo(dtype)
    x = rng.integers(int(info.min), int(info.max), (4, 16), endpoint=True, dtype=np.int64 if dtype != "uint64" else np.uint64).astype(dtype)
    out, _ = run_reduce("xor_sum", x, axis, keep, np.dtype(dtype))
    assert_close(out, np_reduce("xor_sum", x, axis, keep).astype(dtype))


def test_xor_sum_rejects_float() -> None:
    with pytest.raises(tt.CompilationError, match="integer"):
        compile_kernel("reductions.py", "reduce_kernel", "*fp32, *fp32, *i32, 4, 16, 'xor_sum', 0, False", cache=False)


@pytest.mark.parametrize("src,dt,np_out", [("i8", "tl.int32", np.int32), ("fp16", "tl.float32", np.float32),
                                            ("i32", "tl.int64", np.int64)])
def test_sum_dtype(rng: np.random.Generator, src: str, dt: str, np_out: type) -> None:
    n = 64
    x = (rng.integers(-100, 100, n) if src != "fp16" else rng.standard_normal(n) * 100).astype(
        {"i8": np.int8, "fp16": np.float16, "i32": np.int32}[src])
    if src == "i32":
        x = (x.astype(np.int64) * 40_000_000).astype(np.int32)  # would overflow in int32
    k = compile_kernel("reductions.py", "sum_dtype_kernel", f"*{src}, *{tt.sig_name(np_out)}, {n}, {dt}")
    out = poisoned(1, np_out)
    run(k, 1, x, out)
    ref = x.astype(np.float64).sum() if src == "fp16" else x.astype(np_out).sum()
    assert_close(out[0], np.asarray(ref), np_out, rtol=1e-6, atol=1e-3)
