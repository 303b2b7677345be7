"""Triton's other fp8 formats on the interpreter: float8e4b15 (E4M3FN's
layout with exponent bias 15) and the fnuz formats float8e4b8 / float8e5b16
(no infinities, no negative zero, 0x80 the one NaN), decoded and encoded
against PyTorch's own E4M3FN and fnuz conversions."""
import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

torch = pytest.importorskip("torch")

# tl name -> (torch dtype with the same bit layout, the factor between their
# values, the largest finite code, the NaN code an encoding gives)
FORMATS = {
    "float8e4b15": (torch.float8_e4m3fn, 2.0**-8, 0x7E, 0x7F),
    "float8e4b8": (torch.float8_e4m3fnuz, 1.0, 0x7F, 0x80),
    "float8e5b16": (torch.float8_e5m2fnuz, 1.0, 0x7F, 0x80),
}


@triton.jit
def decode_kernel(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(tl.float32))


@triton.jit
def encode_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m).to(y_ptr.dtype.element_ty), mask=m)


@triton.jit
def abs_kernel(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.abs(tl.load(x_ptr + offs)))


def reference_values(name):
    tdt, scale, _, _ = FORMATS[name]
    codes = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    return (codes.view(tdt).to(torch.float64) * scale).numpy()


def encode(name, x):
    out = np.full(x.size, 0x5A, np.uint8)  # poisoned
    encode_kernel[(triton.cdiv(x.size, 256),)](x, triton.reinterpret(out, getattr(tl, name)),
                                                x.size, 256)
    return out


@pytest.mark.parametrize("name", FORMATS)
def test_every_code_decodes_as_the_reference(name):
    codes = np.arange(256, dtype=np.uint8)
    out = np.full(256, 12345.0, np.float32)
    decode_kernel[(1,)](triton.reinterpret(codes, getattr(tl, name)), out, 256)
    np.testing.assert_array_equal(out, reference_values(name).astype(np.float32))


@pytest.mark.parametrize("name", FORMATS)
def test_encoding_rounds_to_nearest_even_as_the_reference(name):
    tdt, scale, max_code, _ = FORMATS[name]
    values = reference_values(name)
    finite = np.sort(values[np.isfinite(values) & (values >= 0)])
    # Every representable value, the midpoints between neighbours (ties) and
    # values just either side of them, and random values across the range.
    mids = (finite[:-1] + finite[1:]) / 2
    rng = np.random.default_rng(7)
    rand = rng.uniform(0, finite[-1], 512) * 2.0 ** rng.integers(-12, 1, 512)
    x = np.concatenate([finite, mids, mids * (1 + 2**-20), mids * (1 - 2**-20), rand])
    x = np.concatenate([x, -x]).astype(np.float32)
    x = x[np.abs(x) <= finite[-1]]
    ref = (torch.from_numpy(x).to(torch.float64) / scale).to(tdt).view(torch.uint8).numpy()
    np.testing.assert_array_equal(encode(name, x), ref)


@pytest.mark.parametrize("name", FORMATS)
def test_specials_saturate_and_nan(name):
    _, _, max_code, nan_code = FORMATS[name]
    fnuz = nan_code == 0x80
    x = np.array([np.inf, -np.inf, 1e30, -1e30, np.nan, 0.0, -0.0, -1e-30], np.float32)
    want = [max_code, 0x80 | max_code, max_code, 0x80 | max_code, nan_code, 0,
            0 if fnuz else 0x80, 0 if fnuz else 0x80]
    assert list(encode(name, x)) == want


@pytest.mark.parametrize("name", FORMATS)
def test_abs_clears_the_sign_and_keeps_nan(name):
    codes = np.arange(256, dtype=np.uint8)
    out = np.full(256, 0x5A, np.uint8)
    dt = getattr(tl, name)
    abs_kernel[(1,)](triton.reinterpret(codes, dt), triton.reinterpret(out, dt), 256)
    values = reference_values(name)
    for c in range(256):
        if np.isnan(values[c]):
            assert np.isnan(reference_values(name)[out[c]]), c
        else:
            assert reference_values(name)[out[c]] == abs(values[c]), c


@triton.jit
def encode_rtz_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty, fp_downcast_rounding="rtz"), mask=m)


@pytest.mark.parametrize("name", FORMATS)
def test_encoding_toward_zero(name):
    # The value of the code is the largest representable magnitude not above
    # |x|, with x's sign (+0 in the fnuz formats, whose 0x80 is the NaN).
    _, _, max_code, nan_code = FORMATS[name]
    values = reference_values(name)
    finite = np.sort(values[np.isfinite(values) & (values >= 0)])
    rng = np.random.default_rng(11)
    x = rng.uniform(0, finite[-1], 2048) * 2.0 ** rng.integers(-14, 1, 2048)
    x = np.concatenate([x, -x, finite, -finite]).astype(np.float32)
    out = np.full(x.size, 0x5A, np.uint8)
    encode_rtz_kernel[(triton.cdiv(x.size, 256),)](
        x, triton.reinterpret(out, getattr(tl, name)), x.size, 256)
    got = values[out]
    mags = finite[np.searchsorted(finite, np.abs(x).astype(np.float64), side="right") - 1]
    want = np.where(x < 0, -mags, mags)
    assert not np.isnan(got).any()
    np.testing.assert_array_equal(got, want)
    if nan_code == 0x80:  # no negative zero: a negative value cut to zero is +0
        assert (out[(x < 0) & (want == 0)] == 0).all()
