"""The kernel language through the Python API, parametrised over dtypes and
shapes, against NumPy (float64 where it matters), with fresh random inputs
and poisoned outputs."""
import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

ml_dtypes = pytest.importorskip("ml_dtypes")

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "float32", "float64", "bfloat16"]


def np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def random_array(rng, name, shape, positive=False):
    dt = np_dtype(name)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo = 1 if positive else max(info.min, -100)
        return rng.integers(lo, min(info.max, 100), shape, endpoint=True).astype(dt)
    x = rng.standard_normal(shape) * 3
    if positive:
        x = np.abs(x) + 0.5
    return x.astype(dt)


def poisoned(shape, name):
    dt = np_dtype(name)
    if dt.kind in "iu":
        return np.full(shape, np.iinfo(dt).max, dtype=dt)
    return np.full(shape, np.nan, dtype=dt)


@triton.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    if OP == "add":
        r = x + y
    elif OP == "sub":
        r = x - y
    elif OP == "mul":
        r = x * y
    elif OP == "max":
        r = tl.maximum(x, y)
    elif OP == "min":
        r = tl.minimum(x, y)
    elif OP == "and":
        r = x & y
    elif OP == "xor":
        r = x ^ y
    elif OP == "floordiv":
        r = x // y
    elif OP == "mod":
        r = x % y
    else:
        r = tl.where(x < y, x, y)
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=mask)


def c_div(a, b):  # C's truncating division, as Triton's // on integers
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "max", "min", "and", "xor", "floordiv", "mod", "where"])
@pytest.mark.parametrize("n", [1, 77, 300])
def test_integer_binary(rng, dtype, op, n):
    x = random_array(rng, dtype, n)
    y = random_array(rng, dtype, n, positive=op in ("floordiv", "mod"))
    out = poisoned(n, dtype)
    binary_kernel[(triton.cdiv(n, 128),)](x, y, out, n, OP=op, BLOCK=128)
    dt = np_dtype(dtype)
    with np.errstate(over="ignore"):
        a, b = x.astype(object), y.astype(object)
        ref = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
               "max": lambda: np.maximum(a, b), "min": lambda: np.minimum(a, b),
               "and": lambda: a & b, "xor": lambda: a ^ b, "floordiv": lambda: c_div(a, b),
               "mod": lambda: a - c_div(a, b) * b, "where": lambda: np.where(a < b, a, b)}[op]()
    bits = dt.itemsize * 8
    ref = np.array([int(v) % (1 << bits) for v in ref], dtype=np.uint64).astype(dt.str.replace("i", "u"))
    np.testing.assert_array_equal(out.view(ref.dtype), ref)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "max", "min", "where"])
@pytest.mark.parametrize("n", [5, 128, 1000])
def test_float_binary(rng, dtype, op, n):
    x = random_array(rng, dtype, n)
    y = random_array(rng, dtype, n)
    out = poisoned(n, dtype)
    binary_kernel[(triton.cdiv(n, 128),)](x, y, out, n, OP=op, BLOCK=128)
    a, b = x.astype(np.float64), y.astype(np.float64)
    ref = {"add": a + b, "sub": a - b, "mul": a * b, "max": np.maximum(a, b), "min": np.minimum(a, b),
           "where": np.where(a < b, a, b)}[op]
    # Each op rounds once to the dtype: compare after the same rounding.
    np.testing.assert_array_equal(out.astype(np.float64), ref.astype(np_dtype(dtype)).astype(np.float64))


@triton.jit
def unary_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    if FN == "exp":
        r = tl.exp(x)
    elif FN == "log":
        r = tl.log(x)
    elif FN == "sqrt":
        r = tl.sqrt(x)
    elif FN == "sin":
        r = tl.sin(x)
    elif FN == "cos":
        r = tl.cos(x)
    elif FN == "sigmoid":
        r = tl.sigmoid(x)
    elif FN == "erf":
        r = tl.math.erf(x)
    elif FN == "abs":
        r = tl.abs(x)
    elif FN == "floor":
        r = tl.floor(x)
    else:
        r = tl.rsqrt(x)
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=mask)


def np_unary(fn, x):
    from math import erf
    return {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
            "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "erf": np.vectorize(erf), "abs": np.abs,
            "floor": np.floor, "rsqrt": lambda v: 1 / np.sqrt(v)}[fn](x)


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-6), ("float16", 1e-3), ("bfloat16", 8e-3)])
@pytest.mark.parametrize("fn", ["exp", "log", "sqrt", "sin", "cos", "sigmoid", "erf", "abs", "floor", "rsqrt"])
def test_unary_math(rng, dtype, tol, fn):
    n = 257
    positive = fn in ("log", "sqrt", "rsqrt")
    x = random_array(rng, dtype, n, positive=positive)
    if fn == "exp":
        x = (x.astype(np.float64) / 2).astype(np_dtype(dtype))
    out = poisoned(n, dtype)
    unary_kernel[(3,)](x, out, n, FN=fn, BLOCK=128)
    ref = np_unary(fn, x.astype(np.float64))
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=tol, atol=tol)


@triton.jit
def reduce_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    if OP == "sum":
        r = tl.sum(x, axis=AXIS)
    elif OP == "max":
        r = tl.max(x, axis=AXIS)
    elif OP == "min":
        r = tl.min(x, axis=AXIS)
    elif OP == "argmax":
        r = tl.argmax(x, axis=AXIS)
    else:
        r = x.sum(axis=AXIS)  # the tensor method
    if AXIS == 0:
        tl.store(out_ptr + cols, r.to(out_ptr.dtype.element_ty))
    else:
        tl.store(out_ptr + rows, r.to(out_ptr.dtype.element_ty))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float16"])
@pytest.mark.parametrize("shape", [(1, 16), (8, 32), (64, 4)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", ["sum", "max", "min", "argmax", "method_sum"])
def test_reductions(rng, dtype, shape, axis, op):
    x = random_array(rng, dtype, shape)
    out_dtype = "int32" if op == "argmax" else ("float32" if dtype == "float16" and "sum" in op else dtype)
    out = poisoned(shape[1 - axis], out_dtype)
    reduce_kernel[(1,)](x, out, M=shape[0], N=shape[1], AXIS=axis, OP=op)
    x64 = x.astype(np.float64)
    ref = {"sum": x64.sum(axis), "method_sum": x64.sum(axis), "max": x64.max(axis), "min": x64.min(axis),
           "argmax": x.argmax(axis)}[op]
    # Sums accumulate in the input dtype (fp16 stays fp16, as in Triton): the
    # error grows with the sum of magnitudes and, as rounding errors of a
    # random walk, with the square root of the terms' count (twice that
    # spread: 1e-3 alone failed one seed in a few thousand at 64 terms).
    eps = 1e-3 if dtype == "float16" else 1e-6
    terms = shape[axis]
    spread = 2 * np.sqrt(terms) * 2.0**-11 if dtype == "float16" else eps
    atol = spread * np.abs(x64).sum(axis).max() if "sum" in op else 0.0
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=eps, atol=atol)


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               PRECISION: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, input_precision=PRECISION, out_dtype=tl.float32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("mnk", [(16, 16, 16), (32, 64, 16), (64, 16, 32)])
def test_dot(rng, dtype, mnk):
    m, n, k = mnk
    a = random_array(rng, dtype, (m, k))
    b = random_array(rng, dtype, (k, n))
    c = poisoned((m, n), "float32")
    dot_kernel[(1,)](a, b, c, M=m, N=n, K=k, PRECISION="ieee")
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-4 * k)


@pytest.mark.parametrize("precision,per_term", [("bf16x3", 4e-5), ("bf16x6", 1e-6)])
def test_dot_split_into_bf16_products(rng, precision, per_term):
    # fp32 operands as sums of 2 or 3 bf16 parts: each term is within
    # per_term of its exact product (one bf16 alone: 2^-8), plus fp32 sums.
    m, n, k = 32, 64, 32
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    a[5, 7] = np.inf  # row 5 is what ieee gives: inf or nan, not nan everywhere
    c = poisoned((m, n), "float32")
    dot_kernel[(1,)](a, b, c, M=m, N=n, K=k, PRECISION=precision)
    ieee = poisoned((m, n), "float32")
    dot_kernel[(1,)](a, b, ieee, M=m, N=n, K=k, PRECISION="ieee")
    np.testing.assert_array_equal(c[5], ieee[5])
    rows = np.arange(m) != 5
    a64, b64 = a[rows].astype(np.float64), b.astype(np.float64)
    bound = (per_term + k * 2.0**-24) * (np.abs(a64) @ np.abs(b64))
    assert np.all(np.abs(c[rows] - a64 @ b64) <= bound)


@triton.jit
def cast_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(out_ptr.dtype.element_ty), mask=mask)


@pytest.mark.parametrize("src,dst", [("float32", "float16"), ("float32", "bfloat16"), ("float16", "float32"),
                                     ("float32", "int32"), ("int32", "float32"), ("int64", "int8"),
                                     ("uint8", "float32"), ("float64", "float32")])
def test_casts(rng, src, dst):
    n = 100
    x = random_array(rng, src, n)
    out = poisoned(n, dst)
    cast_kernel[(1,)](x, out, n, BLOCK=128)
    if np_dtype(dst).kind in "iu" and np_dtype(src).kind == "f":
        ref = np.trunc(x.astype(np.float64)).astype(np_dtype(dst))
    else:
        ref = x.astype(np_dtype(dst))
    np.testing.assert_array_equal(out, ref)


@triton.jit
def atomic_add_kernel(counter_ptr, x_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(counter_ptr, tl.sum(tl.load(x_ptr + offs), axis=0))


def test_atomics_across_programs(rng):
    x = rng.integers(-50, 50, 64 * 64).astype(np.int32)
    counter = np.zeros(1, dtype=np.int32)
    atomic_add_kernel[(64,)](counter, x, BLOCK=64)
    assert counter[0] == x.sum()


def spread_floats(rng, n, name):
    """Signed values from the subnormals to near the overflow threshold, with
    zeros, infinities and NaN among them."""
    dt = np_dtype(name)
    info = ml_dtypes.finfo(dt) if name == "bfloat16" else np.finfo(dt)
    lo, hi = np.log2(float(info.smallest_normal)) - 8, np.log2(float(info.max)) - 1
    v = np.exp2(rng.uniform(lo, hi, n)) * rng.choice([-1.0, 1.0], n)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -3.0])
    pick = rng.integers(0, n, n // 20)
    v[pick] = special[rng.integers(0, len(special), len(pick))]
    return v.astype(dt)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_float_mod_is_exact(rng, dtype):
    # C's fmod bit for bit (the GPU runs an exact long division too):
    # quotients up to 2^250, infinite divisors, zero divisors, signed zeros.
    n = 2000
    x, y = spread_floats(rng, n, dtype), spread_floats(rng, n, dtype)
    y[: n // 4] = (x[: n // 4].astype(np.float64) * rng.uniform(0, 1, n // 4)).astype(x.dtype)
    out = poisoned(n, dtype)
    binary_kernel[(triton.cdiv(n, 128),)](x, y, out, n, OP="mod", BLOCK=128)
    wide = np.float64 if dtype == "float64" else np.float32
    with np.errstate(invalid="ignore"):
        ref = np.fmod(x.astype(wide), y.astype(wide)).astype(x.dtype)
    got, want = out.astype(np.float64), ref.astype(np.float64)
    same = ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)[:5]
    assert not len(bad), [(x[i], y[i], out[i], ref[i]) for i in bad]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("op", ["max", "min"])
def test_min_max_order_signed_zeros(dtype, op):
    # -0.0 below +0.0 whatever the operand order, as PTX's min and max.
    x = np.array([0.0, -0.0, -0.0, 0.0, 1.0, -1.0], dtype=np_dtype(dtype))
    y = np.array([-0.0, 0.0, -0.0, 0.0, -0.0, 0.0], dtype=np_dtype(dtype))
    out = poisoned(len(x), dtype)
    binary_kernel[(1,)](x, y, out, len(x), OP=op, BLOCK=8)
    want = np.array([0.0, 0.0, -0.0, 0.0, 1.0, 0.0] if op == "max" else
                    [-0.0, -0.0, -0.0, 0.0, -0.0, -1.0])
    got = out.astype(np.float64)
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want)), got


@triton.jit
def atomic_max_min_kernel(hi_ptr, lo_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.atomic_max(hi_ptr + offs, x, mask=m)
    tl.atomic_min(lo_ptr + offs, x, mask=m)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_atomic_max_min_order(dtype):
    # Signed zeros order as numbers (-0.0 below +0.0); a NaN in memory (a
    # positive quiet NaN, bits above every positive number's) stays under
    # max and gives way under min, as the GPU's integer atomics order them.
    dt = np.dtype(dtype)
    mem = np.array([0.0, -0.0, -0.0, 0.0, np.nan, np.nan, np.nan, np.nan, 2.0, -2.0], dtype=dt)
    x = np.array([-0.0, 0.0, -0.0, 0.0, 1.0, -1.0, 1.0, -1.0, -3.0, -1.0], dtype=dt)
    hi, lo = mem.copy(), mem.copy()
    atomic_max_min_kernel[(1,)](hi, lo, x, len(x), BLOCK=16)
    want_hi = np.array([0.0, 0.0, -0.0, 0.0, np.nan, np.nan, np.nan, np.nan, 2.0, -1.0])
    want_lo = np.array([-0.0, -0.0, -0.0, 0.0, 1.0, -1.0, 1.0, -1.0, -3.0, -2.0])
    for got, want in ((hi, want_hi), (lo, want_lo)):
        g = got.astype(np.float64)
        same = ((g == want) & (np.signbit(g) == np.signbit(want))) | (np.isnan(g) & np.isnan(want))
        assert same.all(), (got, want)


@triton.jit
def nan_then_atomic_kernel(out_ptr, x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x - x)  # inf - inf: the arithmetic's own NaN
    tl.debug_barrier()
    tl.atomic_max(out_ptr + offs, tl.full((BLOCK,), 1.0, tl.float32))
    tl.atomic_min(out_ptr + BLOCK + offs, x - x)


def test_arithmetic_nan_orders_above_numbers_in_atomics():
    # The GPU's NaN from arithmetic has the sign bit clear (x86's has it
    # set); atomic max keeps it against 1.0 and atomic min writes it over
    # nothing smaller, on both backends alike.
    x = np.full(8, np.inf, dtype=np.float32)
    out = np.concatenate([np.zeros(8, np.float32), np.full(8, 5.0, np.float32)])
    nan_then_atomic_kernel[(1,)](out, x, BLOCK=8)
    assert np.isnan(out[:8]).all(), out
    assert (out[8:] == 5.0).all(), out


@triton.jit
def topk_kernel(x_ptr, top_ptr, low_ptr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, 4)[:, None]
    x = tl.load(x_ptr + rows * N + tl.arange(0, N)[None, :])
    top = tl.topk(x, K)
    low = tl.topk(x, K, descending=False)
    out = rows * K + tl.arange(0, K)[None, :]
    tl.store(top_ptr + out, top)
    tl.store(low_ptr + out, low)


@pytest.mark.parametrize("dtype", ["float32", "int32", "float16"])
@pytest.mark.parametrize("n,k", [(64, 8), (32, 32), (16, 1)])
def test_topk(rng, dtype, n, k):
    x = random_array(rng, dtype, (4, n))
    top, low = poisoned((4, k), dtype), poisoned((4, k), dtype)
    topk_kernel[(1,)](x, top, low, N=n, K=k)
    np.testing.assert_array_equal(top, np.sort(x, axis=1)[:, ::-1][:, :k])
    np.testing.assert_array_equal(low, np.sort(x, axis=1)[:, :k])
    if k == 1:
        with pytest.raises(triton.CompilationError, match="k must be a power of two from 1 to 16, got 3"):
            topk_kernel[(1,)](x, top, low, N=n, K=3)


@triton.jit
def random_parts_kernel(seed, u_ptr, n_ptr, ref_u_ptr, ref_n_ptr, BLOCK: tl.constexpr):
    # tl.rand and tl.randn are these helpers applied to tl.randint4x's output.
    offs = tl.arange(0, BLOCK)
    a, b, _, _ = tl.randint4x(seed, offs)
    u1 = tl.uint_to_uniform_float(a)
    n1, _ = tl.random.pair_uniform_to_normal(u1, tl.uint_to_uniform_float(b))  # Triton's module
    tl.store(u_ptr + offs, u1)
    tl.store(n_ptr + offs, n1)
    tl.store(ref_u_ptr + offs, tl.rand(seed, offs))
    tl.store(ref_n_ptr + offs, tl.randn(seed, offs))


def test_random_building_blocks():
    outs = [poisoned(1024, "float32") for _ in range(4)]
    random_parts_kernel[(1,)](1234, *outs, BLOCK=1024)
    u, n, ref_u, ref_n = outs
    np.testing.assert_array_equal(u, ref_u)
    np.testing.assert_array_equal(n, ref_n)
    assert 0 <= u.min() and u.max() < 1 and abs(n.mean()) < 0.2 and 0.8 < n.std() < 1.2


@triton.jit
def uniform_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.random.uint_to_uniform_float(tl.load(x_ptr + offs)))


@pytest.mark.parametrize("dtype,scale", [("uint32", 4.6566127342e-10), ("int64", 1.0842020432385337e-19),
                                         ("uint64", 1.0842020432385337e-19)])
def test_uint_to_uniform_float_widths(rng, dtype, scale):
    # Triton's rule: as a signed integer of the same width, negatives folded
    # to -x - 1, converted to fp32 and scaled into [0, 1).
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, 256, dtype=dtype, endpoint=True)
    out = poisoned(256, "float32")
    uniform_kernel[(1,)](x, out, BLOCK=256)
    s = x.view(np.int32 if x.itemsize == 4 else np.int64)
    folded = np.where(s < 0, -(s + 1), s)
    ref = folded.astype(np.float32) * np.float32(scale)
    np.testing.assert_array_equal(out, ref)
    assert 0 <= out.min() and out.max() < 1


# A matrix product written as a broadcast multiply and a sum (PyTorch's
# inductor writes them so): combine-broadcast-dot makes it a dot, and
# combine-dot-add chains it into the loop's accumulator. The GPU suite
# (tests/gpu/test_dot_gpu.py) runs it too.
@triton.jit
def broadcast_product_kernel(z_ptr, x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr,
                             K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                             BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=z_ptr.dtype.element_ty)
    for k0 in range(0, K, BK):
        x = tl.load(x_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        y = tl.load(y_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc += tl.sum(tl.expand_dims(x, 2) * tl.expand_dims(y, 0), axis=1)
    tl.store(z_ptr + rm[:, None] * N + rn[None, :], acc)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_broadcast_product_becomes_a_dot(rng, dtype):
    # sum(x[:, :, None] * y[None, :, :], axis=1) compiles to a dot: no
    # BM x BK x BN tile (its reduce is gone from the IR), same product.
    m, n, k, bm, bn, bk = 64, 48, 96, 32, 16, 32
    x = rng.standard_normal((m, k)).astype(dtype)
    y = rng.standard_normal((k, n)).astype(dtype)
    z = poisoned((m, n), dtype)
    h = broadcast_product_kernel[(m // bm, n // bn)](z, x, y, M=m, N=n, K=k, BM=bm, BN=bn, BK=bk)
    assert "dot" in h.asm["ttir"] and "reduce" not in h.asm["ttir"]
    ref = x.astype(np.float64) @ y.astype(np.float64)
    np.testing.assert_allclose(z, ref, rtol=1e-5 if dtype == "float32" else 1e-12,
                               atol=1e-5 if dtype == "float32" else 1e-12)


@triton.jit
def squeeze_kernel(x_ptr, out_ptr, S0: tl.constexpr, S1: tl.constexpr, S2: tl.constexpr,
                   DIM: tl.constexpr):
    offs = tl.arange(0, S0 * S1 * S2)
    x = tl.reshape(tl.load(x_ptr + offs), (S0, S1, S2))
    y = tl.squeeze(x, DIM)  # rank 2
    z = tl.unsqueeze(y, DIM)  # back to rank 3, then rank 4 at the end
    w = tl.unsqueeze(z, -1)
    tl.store(out_ptr + offs, tl.ravel(w) * 3)
    tl.store(out_ptr + S0 * S1 * S2 + offs, tl.ravel(tl.sum(w, 3)) + tl.ravel(y))


@pytest.mark.parametrize("shape, dim", [((1, 4, 8), 0), ((4, 1, 8), 1), ((4, 8, 1), 2),
                                        ((4, 8, 1), -1), ((1, 1, 16), -3)])
def test_squeeze_and_unsqueeze(rng, shape, dim):
    n = int(np.prod(shape))
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    out = np.full(2 * n, -7, np.int32)
    squeeze_kernel[(1,)](x, out, *shape, DIM=dim)
    y = np.squeeze(x.reshape(shape), dim)
    np.testing.assert_array_equal(out[:n], x * 3)
    np.testing.assert_array_equal(out[n:], (y + y).ravel())


@pytest.mark.parametrize("call, message", [
    ("tl.squeeze(x, 1)", "dimension 1 of .* has size 4, not 1"),
    ("tl.squeeze(x, 3)", "dim 3 is out of range for rank 3"),
    ("tl.unsqueeze(x, 4)", "dim 4 is out of range for rank 4"),
    ("tl.squeeze(tl.program_id(0), 0)", "needs a tensor"),
])
def test_squeeze_errors_point_at_the_call(tmp_path, call, message):
    src = tmp_path / "bad_squeeze.py"
    src.write_text("import tessera as triton\nimport tessera.language as tl\n\n\n@triton.jit\n"
                   "def k(out):\n    x = tl.reshape(tl.arange(0, 16), (1, 4, 4))\n"
                   f"    y = {call}\n    tl.store(out, tl.sum(tl.ravel(y)))\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("bad_squeeze", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(triton.CompilationError, match=message) as e:
        mod.k[(1,)](np.zeros(1, np.int32))
    assert "bad_squeeze.py:8:" in str(e.value)
