"""Elementwise operators and tl math functions, per dtype, against NumPy.

Integer results wrap at the dtype's width; // and % are C-style (truncating);
result dtypes follow Triton's promotion rules, checked in the kernel with
tl.static_assert(z.dtype == OUT_DTYPE)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tessera_testing as tt
from tessera_testing import BF16, assert_close, cdiv, compile_kernel, poisoned, run

BLOCK = 64
N_SIZES = [1, 100, 257]

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]

TL_NAME = {"bool": "int1", "bfloat16": "bfloat16"}


def np_dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        if BF16 is None:
            pytest.skip("ml_dtypes is not installed (bfloat16)")
        return BF16
    return np.dtype(name)


def tl_dtype(name: str) -> str:
    return "tl." + TL_NAME.get(name, name)


def sig(name: str) -> str:
    return tt.sig_name(np_dtype(name))


def is_float(name: str) -> bool:
    return name in FLOAT_DTYPES


def random_values(rng: np.random.Generator, n: int, name: str, *, nonzero: bool = False,
                  small: bool = False) -> np.ndarray:
    dt = np_dtype(name)
    if is_float(name):
        v = rng.standard_normal(n) * 3
        if nonzero:
            v = np.where(v >= 0, 1, -1) * (0.5 + np.abs(v))
        return v.astype(np.float32).astype(dt)
    info = np.iinfo(dt)
    lo, hi = (int(info.min), int(info.max)) if not small else (max(int(info.min), -20), 20)
    v = rng.integers(lo, hi, size=n, endpoint=True, dtype=np.int64 if info.min < 0 or info.max < 2**63 else np.uint64)
    v = v.astype(dt)
    if nonzero:
        v[v == 0] = 1
        if info.min < 0:  # avoid MIN // -1 (undefined in C)
            v[v == -1] = 3
    return v


def c_floordiv(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    q = np.floor_divide(x, y)
    r = np.remainder(x, y)
    adjust = (r != 0) & ((x < 0) != (y < 0))
    return (q + adjust.astype(q.dtype)).astype(x.dtype)


def c_mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return (x - c_floordiv(x, y) * y).astype(x.dtype)


def reference(op: str, x: np.ndarray, y: np.ndarray, out: np.dtype) -> np.ndarray:
    """NumPy reference for a binary op computed in dtype `out` (inputs already
    converted to the computation dtype for arithmetic ops)."""
    with np.errstate(all="ignore"):
        if op in ("lt", "le", "gt", "ge", "eq", "ne"):
            return {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
                    "eq": np.equal, "ne": np.not_equal}[op](x, y)
        if op == "truediv":
            return (x.astype(np.float64) / y.astype(np.float64)).astype(out)
        if op in ("fdiv", "div_rn"):
            return (x.astype(np.float64) / y.astype(np.float64)).astype(out)
        if op == "floordiv":
            return c_floordiv(x, y)
        if op == "mod":
            if is_float_np(x.dtype):
                return np.fmod(x.astype(np.float64), y.astype(np.float64)).astype(out)
            return c_mod(x, y)
        if op == "cdiv":
            return c_floordiv((x + y - 1).astype(x.dtype), y)
        if op == "umulhi":
            bits = x.dtype.itemsize * 8
            ux = x.view(np.dtype(f"uint{bits}")).astype(object)
            uy = y.view(np.dtype(f"uint{bits}")).astype(object)
            return np.array([(a * b) >> bits for a, b in zip(ux, uy)], dtype=np.dtype(f"uint{bits}")).view(x.dtype)
        if op in ("add", "sub", "mul") and is_float_np(x.dtype):
            f = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op]
            return f(x.astype(np.float64), y.astype(np.float64)).astype(out)
        f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor, "lshift": np.left_shift,
             "rshift": np.right_shift, "maximum": np.maximum, "minimum": np.minimum}[op]
        return f(x, y).astype(out)


def is_float_np(dt: np.dtype) -> bool:
    return tt.is_float_dtype(dt)


ARITH = ["add", "sub", "mul"]
CMP = ["lt", "le", "gt", "ge", "eq", "ne"]
INT_OPS = ARITH + ["floordiv", "mod", "and", "or", "xor", "lshift", "rshift", "maximum", "minimum", "truediv"] + CMP
FLOAT_OPS = ARITH + ["truediv", "mod", "maximum", "minimum"] + CMP


def result_dtype(op: str, a: str) -> str:
    """Triton's result dtype of `op` on two tensors of dtype `a`."""
    if op in CMP:
        return "bool"
    if op == "truediv":
        return "float64" if a == "float64" else "float32"
    if op == "mod" and a in ("float16", "bfloat16"):
        return "float32"
    return a


def run_binary(rng: np.random.Generator, op: str, a: str, b: str, out_name: str, n: int,
               shift_small: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k = compile_kernel("binary_ops.py", "binary_kernel",
                       f"*{sig(a)}, *{sig(b)}, *{'i1' if out_name == 'bool' else sig(out_name)}, i32, "
                       f"'{op}', {tl_dtype(out_name)}, {BLOCK}")
    divlike = op in ("floordiv", "mod", "truediv", "cdiv")
    small = out_name in FLOAT_DTYPES
    x = random_values(rng, n, a, small=small)
    y = random_values(rng, n, b, nonzero=divlike, small=small)
    if op in ("lshift", "rshift"):
        y = rng.integers(0, np_dtype(b).itemsize * 8, size=n).astype(np_dtype(b))
    if op in CMP and n > 4:
        y[: n // 4] = x[: n // 4].astype(np_dtype(b))  # some equal pairs
    out = poisoned(n, np.bool_ if out_name == "bool" else np_dtype(out_name))
    run(k, cdiv(n, BLOCK), x, y, out, n)
    return x, y, out


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("op", INT_OPS)
def test_int_binary(rng: np.random.Generator, op: str, dtype: str) -> None:
    n = 257
    out_name = result_dtype(op, dtype)
    x, y, out = run_binary(rng, op, dtype, dtype, out_name, n)
    ref = reference(op, x, y, np.dtype(np.bool_) if out_name == "bool" else np_dtype(out_name))
    if op == "truediv":
        assert_close(out, ref, np.float32, rtol=1e-6, atol=0)
    else:
        assert_close(out, ref)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("op", FLOAT_OPS)
def test_float_binary(rng: np.random.Generator, op: str, dtype: str) -> None:
    n = 100
    out_name = result_dtype(op, dtype)
    x, y, out = run_binary(rng, op, dtype, dtype, out_name, n)
    comp = np_dtype(out_name) if out_name != "bool" else np_dtype(dtype)
    ref = reference(op, x.astype(comp) if op not in CMP else x, y.astype(comp) if op not in CMP else y,
                    np.dtype(np.bool_) if out_name == "bool" else np_dtype(out_name))
    if out_name == "bool":
        assert_close(out, ref)
    else:
        # add/sub/mul/div/fmod are correctly rounded: exact against a float64
        # reference rounded once to the result dtype.
        assert_close(out, ref, out_name, rtol=0, atol=0)


@pytest.mark.parametrize("op", ["fdiv", "div_rn"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fdiv(rng: np.random.Generator, op: str, dtype: str) -> None:
    x, y, out = run_binary(rng, op, dtype, dtype, dtype, 100)
    ref = x.astype(np.float64) / y.astype(np.float64)
    # fdiv may be approximate (2 ulp on a GPU); div_rn is correctly rounded.
    if op == "div_rn":
        assert_close(out, ref.astype(dtype), rtol=0, atol=0)
    else:
        assert_close(out, ref, dtype, rtol=3e-7 if dtype == "float32" else 1e-15, atol=0)


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32"])
def test_cdiv(rng: np.random.Generator, dtype: str) -> None:
    n = 100
    k = compile_kernel("binary_ops.py", "binary_kernel", f"*{sig(dtype)}, *{sig(dtype)}, *{sig(dtype)}, i32, 'cdiv', {tl_dtype(dtype)}, {BLOCK}")
    x = rng.integers(0, 10000, n).astype(dtype)
    y = rng.integers(1, 300, n).astype(dtype)
    out = poisoned(n, dtype)
    run(k, cdiv(n, BLOCK), x, y, out, n)
    assert_close(out, ((x + y - 1) // y).astype(dtype))


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_umulhi(rng: np.random.Generator, dtype: str) -> None:
    x, y, out = run_binary(rng, "umulhi", dtype, dtype, dtype, 100)
    assert_close(out, reference("umulhi", x, y, np.dtype(dtype)))


# (lhs, rhs, op, Triton's result dtype)
MIXED = [
    ("int8", "int16", "add", "int16"),
    ("int32", "uint32", "add", "uint32"),
    ("uint8", "int32", "add", "int32"),
    ("int64", "uint8", "mul", "int64"),
    ("uint16", "int16", "sub", "uint16"),
    ("int32", "float16", "add", "float16"),
    ("int64", "float32", "mul", "float32"),
    ("float16", "float32", "add", "float32"),
    ("float16", "bfloat16", "add", "float16"),  # fp16 ranks above bf16 in Triton
    ("bfloat16", "float16", "mul", "float16"),
    ("float16", "bfloat16", "truediv", "float32"),
    ("bfloat16", "int8", "add", "float32"),
    ("bfloat16", "bfloat16", "truediv", "float32"),
    ("float16", "float16", "truediv", "float32"),
    ("float16", "float16", "mod", "float32"),
    ("int8", "int8", "truediv", "float32"),
    ("int16", "int16", "floordiv", "int16"),
    ("float32", "float64", "sub", "float64"),
    ("int8", "uint32", "lt", "bool"),
    ("int16", "float16", "maximum", "float16"),
]


@pytest.mark.parametrize("a,b,op,out_name", MIXED)
def test_promotion(rng: np.random.Generator, a: str, b: str, op: str, out_name: str) -> None:
    n = 100
    x, y, out = run_binary(rng, op, a, b, out_name, n)
    if op in CMP:
        comp = np_dtype("uint32")  # Triton compares after promoting to uint32
        ref = reference(op, x.astype(comp), y.astype(comp), np.dtype(np.bool_))
        assert_close(out, ref)
        return
    comp = np_dtype(out_name)
    ref = reference(op, x.astype(comp), y.astype(comp), comp)
    if is_float(out_name):
        assert_close(out, ref, out_name, rtol=0, atol=0)
    else:
        assert_close(out, ref)


def test_mixed_signedness_division_is_an_error() -> None:
    with pytest.raises(tt.CompilationError, match="(?i)signedness|sign"):
        compile_kernel("binary_ops.py", "binary_kernel", f"*i32, *u32, *i32, i32, 'floordiv', tl.int32, {BLOCK}", cache=False)


# Tensor op runtime scalar argument: the scalar is a typed tensor, full promotion.
@pytest.mark.parametrize("a,s,op,out_name", [
    ("int8", "i32", "add", "int32"),
    ("float16", "fp32", "mul", "float32"),
    ("int32", "i64", "sub", "int64"),
    ("uint8", "u8", "add", "uint8"),
])
def test_runtime_scalar(rng: np.random.Generator, a: str, s: str, op: str, out_name: str) -> None:
    n = 100
    k = compile_kernel("binary_ops.py", "binary_scalar_kernel",
                       f"*{sig(a)}, {s}, *{sig(out_name)}, i32, '{op}', {tl_dtype(out_name)}, {BLOCK}")
    x = random_values(rng, n, a, small=True)
    y = 3 if s[0] in "iu" else 1.25
    out = poisoned(n, np_dtype(out_name))
    run(k, cdiv(n, BLOCK), x, y, out, n)
    comp = np_dtype(out_name)
    ref = reference(op, x.astype(comp), np.full(n, y).astype(comp), comp)
    assert_close(out, ref, out_name if is_float(out_name) else None, rtol=0, atol=0)


# Tensor op Python constant: the constant does not promote a tensor of the same
# or a higher kind (Triton's scalar rule).
@pytest.mark.parametrize("a,c,op,out_name", [
    ("int8", "3", "add", "int8"),
    ("uint8", "3", "mul", "uint8"),
    ("int16", "7", "floordiv", "int16"),
    ("int16", "-7", "mod", "int16"),
    ("float16", "2.5", "mul", "float16"),
    ("bfloat16", "1.5", "add", "bfloat16"),
    ("int32", "2.5", "add", "float32"),
    ("float16", "2.0", "truediv", "float32"),
    ("int8", "2", "truediv", "float32"),
    ("float64", "0.1", "add", "float64"),
])
def test_python_constant(rng: np.random.Generator, a: str, c: str, op: str, out_name: str) -> None:
    n = 100
    k = compile_kernel("binary_ops.py", "binary_const_kernel",
                       f"*{sig(a)}, *{sig(out_name)}, i32, {c}, '{op}', {tl_dtype(out_name)}, {BLOCK}")
    x = random_values(rng, n, a)
    out = poisoned(n, np_dtype(out_name))
    run(k, cdiv(n, BLOCK), x, out, n)
    comp = np_dtype(out_name)
    cv = float(c) if "." in c else int(c)
    ref = reference(op, x.astype(comp), np.full(n, cv).astype(comp), comp)
    assert_close(out, ref, out_name if is_float(out_name) else None, rtol=0, atol=0)


def test_unsigned_minus_negative_constant_is_an_error() -> None:
    with pytest.raises(tt.CompilationError):
        compile_kernel("binary_ops.py", "binary_const_kernel", f"*u8, *u8, i32, -1, 'add', tl.uint8, {BLOCK}", cache=False)


@pytest.mark.parametrize("dtype", INT_DTYPES + FLOAT_DTYPES)
@pytest.mark.parametrize("op", ["neg", "invert"])
def test_unary_operators(rng: np.random.Generator, op: str, dtype: str) -> None:
    if op == "invert" and is_float(dtype):
        with pytest.raises(tt.CompilationError):
            compile_kernel("binary_ops.py", "unary_operator_kernel", f"*{sig(dtype)}, *{sig(dtype)}, i32, '{op}', {BLOCK}", cache=False)
        return
    n = 100
    k = compile_kernel("binary_ops.py", "unary_operator_kernel", f"*{sig(dtype)}, *{sig(dtype)}, i32, '{op}', {BLOCK}")
    x = random_values(rng, n, dtype)
    out = poisoned(n, np_dtype(dtype))
    run(k, cdiv(n, BLOCK), x, out, n)
    with np.errstate(all="ignore"):
        ref = -x if op == "neg" else ~x
    assert_close(out, ref.astype(np_dtype(dtype)), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("n", [3, 130])
def test_where(rng: np.random.Generator, dtype: str, n: int) -> None:
    k = compile_kernel("binary_ops.py", "ternary_kernel", f"*{sig(dtype)}, *{sig(dtype)}, *{sig(dtype)}, *{sig(dtype)}, i32, 'where', {BLOCK}")
    x, y, z = (random_values(rng, n, dtype) for _ in range(3))
    out = poisoned(n, np_dtype(dtype))
    run(k, cdiv(n, BLOCK), x, y, z, out, n)
    assert_close(out, np.where(x > 0, y, z), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_clamp_and_fma(rng: np.random.Generator, dtype: str) -> None:
    n = 100
    x, y, z = (random_values(rng, n, dtype) for _ in range(3))
    k = compile_kernel("binary_ops.py", "ternary_kernel", f"*{sig(dtype)}, *{sig(dtype)}, *{sig(dtype)}, *{sig(dtype)}, i32, 'clamp', {BLOCK}")
    out = poisoned(n, np_dtype(dtype))
    run(k, cdiv(n, BLOCK), x, y, z, out, n)
    assert_close(out, np.clip(x, np.minimum(y, z), np.maximum(y, z)), rtol=0, atol=0)
    k = compile_kernel("binary_ops.py", "ternary_kernel", f"*{sig(dtype)}, *{sig(dtype)}, *{sig(dtype)}, *{sig(dtype)}, i32, 'fma', {BLOCK}")
    out = poisoned(n, np_dtype(dtype))
    run(k, cdiv(n, BLOCK), x, y, z, out, n)
    ref = x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64)
    # fused: one rounding (exact for fp16/fp32 from the float64 product-sum)
    tol = {"float16": 0, "float32": 0, "float64": 1e-15}[dtype]
    assert_close(out, ref.astype(dtype) if dtype != "float64" else ref, dtype, rtol=tol, atol=0)


# ---------------------------------------------------------------------------
# math functions

def math_inputs(rng: np.random.Generator, op: str, n: int, dtype: str) -> np.ndarray:
    if op in ("log", "log2", "sqrt", "sqrt_rn", "rsqrt"):
        v = rng.uniform(0.01, 100, n)
    elif op in ("exp", "exp2"):
        v = rng.uniform(-20, 20, n)
    elif op in ("floor", "ceil"):
        v = rng.uniform(-50, 50, n)
        v[: n // 4] = np.round(v[: n // 4])  # integral values too
    else:
        v = rng.uniform(-8, 8, n)
    return v.astype(dtype)


MATH_REF = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
    "sqrt_rn": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos,
    "abs": np.abs, "erf": np.vectorize(math.erf), "floor": np.floor, "ceil": np.ceil,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", list(MATH_REF))
@pytest.mark.parametrize("n", [1, 200])
def test_math(rng: np.random.Generator, op: str, dtype: str, n: int) -> None:
    k = compile_kernel("unary_math.py", "unary_math_kernel", f"*{sig(dtype)}, *{sig(dtype)}, i32, '{op}', {BLOCK}")
    x = math_inputs(rng, op, n, dtype)
    out = poisoned(n, dtype)
    run(k, cdiv(n, BLOCK), x, out, n)
    ref = MATH_REF[op](x.astype(np.float64))
    if op in ("abs", "floor", "ceil", "sqrt_rn"):
        assert_close(out, ref.astype(dtype), rtol=0, atol=0)
    elif dtype == "float32":
        assert_close(out, ref, dtype, rtol=2e-6, atol=1e-7)
    else:
        assert_close(out, ref, dtype, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "float16"])
def test_abs_other_dtypes(rng: np.random.Generator, dtype: str) -> None:
    n = 100
    k = compile_kernel("unary_math.py", "unary_math_kernel", f"*{sig(dtype)}, *{sig(dtype)}, i32, 'abs', {BLOCK}")
    x = random_values(rng, n, dtype)
    if not is_float(dtype):
        x[x == np.iinfo(dtype).min] = 0
    out = poisoned(n, dtype)
    run(k, cdiv(n, BLOCK), x, out, n)
    assert_close(out, np.abs(x), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_math_rejects_half(dtype: str) -> None:
    # Triton's math functions take fp32/fp64 only.
    with pytest.raises(tt.CompilationError):
        compile_kernel("unary_math.py", "unary_math_kernel", f"*{sig(dtype)}, *{sig(dtype)}, i32, 'exp', {BLOCK}", cache=False)


@pytest.mark.parametrize("n", [8, 32])
def test_softmax_builtin(rng: np.random.Generator, n: int) -> None:
    k = compile_kernel("unary_math.py", "softmax_row_kernel", f"*fp32, *fp32, {n}")
    x = (rng.standard_normal((4, n)) * 3).astype(np.float32)
    out = poisoned((4, n), np.float32)
    run(k, 1, x, out)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    assert_close(out, e / e.sum(axis=1, keepdims=True), np.float32, rtol=1e-5, atol=1e-7)
