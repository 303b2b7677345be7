"""x.to(dtype) casts, bitcasts and fp8 rounding against NumPy references."""

from __future__ import annotations

import numpy as np
import pytest

import tessera_testing as tt
from tessera_testing import BF16, assert_close, cdiv, compile_kernel, poisoned, run
from test_ops_elementwise import np_dtype, sig, tl_dtype

BLOCK = 64

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def values_for(rng: np.random.Generator, src: str, dst: str, n: int) -> np.ndarray:
    """Inputs whose conversion is defined in C and exact or RNE in NumPy."""
    sdt = np_dtype(src)
    if src in FLOATS:
        lim = 1e4
        if dst in INTS:
            info = np.iinfo(np_dtype(dst))
            lim = min(lim, float(info.max) * 0.9)
            lo = 0.0 if info.min == 0 else -lim
        else:
            lo = -lim
        if dst in ("float16",):
            lim, lo = 6e4, -6e4
        v = rng.uniform(lo, lim, n)
        v[: n // 4] = rng.standard_normal(n // 4) * 1e-3  # small values
        if dst in INTS and lo == 0.0:
            v = np.abs(v)
        # generate in fp32 so wider destinations see no double rounding
        return v.astype(np.float32).astype(sdt)
    info = np.iinfo(sdt)
    if dst in ("float16", "bfloat16"):
        return rng.integers(max(int(info.min), -1000), 1000, n, endpoint=True).astype(sdt)
    hi_t = np.int64 if info.max < 2**63 else np.uint64
    return rng.integers(int(info.min), int(info.max), n, endpoint=True, dtype=hi_t).astype(sdt)


def np_cast(x: np.ndarray, dst: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        if dst == "bool":
            return x != 0
        if x.dtype == np.bool_:
            return x.astype(np_dtype(dst))
        return x.astype(np_dtype(dst))


@pytest.mark.parametrize("src", INTS + FLOATS)
@pytest.mark.parametrize("dst", INTS + FLOATS)
def test_cast(rng: np.random.Generator, src: str, dst: str) -> None:
    n = 100
    k = compile_kernel("casts.py", "cast_kernel", f"*{sig(src)}, *{sig(dst)}, i32, {tl_dtype(dst)}, False, {BLOCK}")
    x = values_for(rng, src, dst, n)
    out = poisoned(n, np_dtype(dst))
    run(k, cdiv(n, BLOCK), x, out, n)
    if src in FLOATS and dst in FLOATS:
        # one rounding from the source value (float64 is exact for all sources)
        ref = x.astype(np.float64).astype(np_dtype(dst))
    elif src in FLOATS:
        ref = np.trunc(x.astype(np.float64)).astype(np_dtype(dst))  # toward zero
    else:
        ref = np_cast(x, dst)
    assert_close(out, ref, dst if dst in FLOATS else None, rtol=0, atol=0)


@pytest.mark.parametrize("src", ["int32", "uint8", "float32", "int64"])
def test_cast_to_bool(rng: np.random.Generator, src: str) -> None:
    n = 100
    k = compile_kernel("casts.py", "cast_kernel", f"*{sig(src)}, *i1, i32, tl.int1, False, {BLOCK}")
    x = rng.integers(-2, 3, n).astype(src) if src != "uint8" else rng.integers(0, 3, n).astype(src)
    out = poisoned(n, np.bool_)
    run(k, cdiv(n, BLOCK), x, out, n)
    assert_close(out.view(np.uint8), (x != 0).astype(np.uint8))


@pytest.mark.parametrize("dst", ["int32", "float32", "uint8"])
def test_cast_from_bool(rng: np.random.Generator, dst: str) -> None:
    n = 70
    k = compile_kernel("casts.py", "cast_kernel", f"*i1, *{sig(dst)}, i32, {tl_dtype(dst)}, False, {BLOCK}")
    x = rng.integers(0, 2, n).astype(np.bool_)
    out = poisoned(n, np_dtype(dst))
    run(k, cdiv(n, BLOCK), x, out, n)
    assert_close(out, x.astype(dst), rtol=0, atol=0)


BITCASTS = [("float32", "int32"), ("int32", "float32"), ("float32", "uint32"), ("float16", "int16"),
            ("int16", "float16"), ("bfloat16", "uint16"), ("uint16", "bfloat16"), ("float64", "int64"),
            ("int64", "float64"), ("int8", "uint8"), ("uint64", "int64")]


@pytest.mark.parametrize("src,dst", BITCASTS)
def test_bitcast(rng: np.random.Generator, src: str, dst: str) -> None:
    n = 100
    k = compile_kernel("casts.py", "cast_kernel", f"*{sig(src)}, *{sig(dst)}, i32, {tl_dtype(dst)}, True, {BLOCK}")
    if src in FLOATS:
        x = (rng.standard_normal(n) * 100).astype(np.float32).astype(np_dtype(src))
    else:
        # bit patterns that are not NaN when read as a float
        x = (rng.standard_normal(n) * 100).astype(np.float32).astype(
            {"int32": np.float32, "int16": np.float16, "uint16": BF16 if BF16 is not None else np.float16,
             "int64": np.float64, "int8": np.int8, "uint64": np.uint64}.get(src, np.float32))
        x = x.view(np_dtype(src)) if x.dtype.itemsize == np_dtype(src).itemsize else x.astype(np_dtype(src))
    out = poisoned(n, np_dtype(dst))
    run(k, cdiv(n, BLOCK), x, out, n)
    assert np.array_equal(out.view(np.uint8), x.view(np_dtype(dst)).view(np.uint8))


def test_bitcast_size_mismatch_is_an_error() -> None:
    with pytest.raises(tt.CompilationError):
        compile_kernel("casts.py", "cast_kernel", f"*fp32, *i16, i32, tl.int16, True, {BLOCK}", cache=False)


def test_cast_function_and_zeros_like(rng: np.random.Generator) -> None:
    n = 50
    k = compile_kernel("casts.py", "cast_fn_kernel", f"*fp32, *i32, i32, {BLOCK}")
    x = (rng.standard_normal(n) * 50).astype(np.float32)
    out = poisoned(n, np.int32)
    run(k, 1, x, out, n)
    assert_close(out, np.trunc(x).astype(np.int32))


# ---------------------------------------------------------------------------
# fp8: our own reference (round to nearest even, satfinite)

FP8 = {
    # name: (exponent bits, mantissa bits, bias, largest finite)
    "fp8e4nv": (4, 3, 7, 448.0),
    "fp8e5": (5, 2, 15, 57344.0),
}


def fp8_round(x: np.ndarray, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """(value after rounding, byte encoding) of fp32 `x` in fp8 format `fmt`."""
    _, m, bias, vmax = FP8[fmt]
    # Past 4 * max everything saturates alike: clamping there first keeps
    # the arithmetic below finite for inf.
    a = np.minimum(np.abs(x.astype(np.float64)), 4 * vmax)
    sign = np.signbit(x)
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.maximum(e, 1 - bias)  # subnormals share the smallest exponent
    q = np.exp2(e - m)  # spacing of representable values at this exponent
    r = np.round(a / q) * q  # np.round: half to even; a/q is exact
    r = np.minimum(r, vmax)  # satfinite
    # encode
    with np.errstate(divide="ignore"):
        er = np.floor(np.log2(np.where(r > 0, r, 1.0)))
    normal = (r >= 2.0 ** (1 - bias))
    exp_field = np.where(normal, er + bias, 0)
    mant = np.where(normal, r / np.exp2(er - m) - 2**m, r / 2.0 ** (1 - bias - m))
    bits = (sign.astype(np.int64) << 7) | (exp_field.astype(np.int64) << m) | mant.astype(np.int64)
    val = np.where(sign, -r, r)
    return val, bits.astype(np.uint8)


def fp8_grid(fmt: str) -> np.ndarray:
    """All finite non-negative values of the format, ascending."""
    _, m, bias, vmax = FP8[fmt]
    vals = {0.0}
    for e in range(1 - bias, 40):
        for k in range(2**m):
            v = (1 + k / 2**m) * 2.0**e
            if v <= vmax:
                vals.add(v)
    for k in range(1, 2**m):
        vals.add(k / 2**m * 2.0 ** (1 - bias))
    return np.array(sorted(vals))


def test_fp8_reference_self_check() -> None:
    # The reference encodes every grid value exactly and decodes back to itself.
    for fmt in FP8:
        g = fp8_grid(fmt)
        v, b = fp8_round(g.astype(np.float32), fmt)
        assert np.array_equal(v, g)
        assert len(set(b.tolist())) == len(g)
    assert fp8_round(np.array([448.0], np.float32), "fp8e4nv")[1][0] == 0x7E
    assert fp8_round(np.array([57344.0], np.float32), "fp8e5")[1][0] == 0x7B
    assert fp8_round(np.array([-1.0], np.float32), "fp8e4nv")[1][0] == 0xB8
    assert fp8_round(np.array([-np.inf], np.float32), "fp8e5")[1][0] == 0xFB


@pytest.mark.parametrize("fmt", list(FP8))
def test_fp8_round_to_nearest_even(rng: np.random.Generator, fmt: str) -> None:
    g = fp8_grid(fmt)
    mids = (g[:-1] + g[1:]) / 2  # exact ties: must round to the even neighbour
    rand = np.exp2(rng.uniform(-12 if fmt == "fp8e4nv" else -18, np.log2(g[-1]) + 0.5, 300))
    # Past the max, infinities included, saturates (cvt.rn.satfinite on the GPU).
    x = np.concatenate([g, mids, rand, [g[-1] * 1.3, 1e6, np.inf]])
    x = np.concatenate([x, -x]).astype(np.float32)
    rng.shuffle(x)
    n = x.size
    k = compile_kernel("casts.py", "fp8_roundtrip_kernel", f"*fp32, *u8, *fp32, i32, tl.{'float8e4nv' if fmt == 'fp8e4nv' else 'float8e5'}, {BLOCK}")
    bits = poisoned(n, np.uint8)
    back = poisoned(n, np.float32)
    run(k, cdiv(n, BLOCK), x, bits, back, n)
    val, ref_bits = fp8_round(x, fmt)
    assert_close(back, val.astype(np.float32), rtol=0, atol=0)
    assert_close(bits, ref_bits)
