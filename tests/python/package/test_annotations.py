"""Parameter annotations as Triton reads them: a runtime parameter annotated
with a type (tl.float16, tl.uint8, "fp32", int, tl.pointer_type(tl.float16),
"*fp16") is that type in the kernel, whatever the argument's own type.
Arguments the type cannot hold are errors that say so. On the interpreter
here; tests/gpu/test_language_gpu.py runs the launch path on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

RNG = np.random.default_rng()


@triton.jit
def scalars_kernel(out, a: tl.float16, b: tl.uint8, c: tl.int8, d: tl.int64, e: int,
                   f: "fp32", g: tl.int1, h: "tl.bfloat16"):
    tl.static_assert(a.dtype == tl.float16)
    tl.static_assert(b.dtype == tl.uint8)
    tl.static_assert(c.dtype == tl.int8)
    tl.static_assert(d.dtype == tl.int64)
    tl.static_assert(e.dtype == tl.int32)
    tl.static_assert(f.dtype == tl.float32)
    tl.static_assert(g.dtype == tl.int1)
    tl.static_assert(h.dtype == tl.bfloat16)
    tl.store(out + 0, a.to(tl.float64))
    tl.store(out + 1, b.to(tl.float64))
    tl.store(out + 2, c.to(tl.float64))
    tl.store(out + 3, d.to(tl.float64))
    tl.store(out + 4, e.to(tl.float64))
    tl.store(out + 5, f.to(tl.float64))
    tl.store(out + 6, g.to(tl.float64))
    tl.store(out + 7, h.to(tl.float64))


def _bf16(x: float) -> float:
    # Round to nearest even on the upper 16 bits of the float32.
    bits = int(np.array([x], np.float32).view(np.uint32)[0])
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return float(np.array([bits], np.uint32).view(np.float32)[0])


def test_scalar_annotations_convert_the_argument():
    a, f, h = RNG.uniform(-10, 10, 3)
    b = int(RNG.integers(0, 256))
    c = int(RNG.integers(-128, 128))
    d = int(RNG.integers(2**33, 2**40))
    e = int(RNG.integers(-2**31, 2**31))
    g = bool(RNG.integers(0, 2))
    out = np.full(8, np.nan)
    scalars_kernel[(1,)](out, a, b, c, d, e, f, g, h)
    want = [float(np.float16(a)), b, c, d, e, float(np.float32(f)), float(g), _bf16(h)]
    assert out.tolist() == want


def test_unsigned_and_signed_narrow_types_read_their_bits():
    # -1 for a u8 is 255, 200 for an i8 is -56: the value's low bits, read
    # as the annotated type (the range accepted is the signed and the
    # unsigned reading together).
    out = np.full(8, np.nan)
    scalars_kernel[(1,)](out, 0.0, -1, 200, 0, 0, 0.0, False, 0.0)
    assert out[1] == 255 and out[2] == -56


@pytest.mark.parametrize("bad, message", [
    (dict(b=300), "('b', u8) of kernel 'scalars_kernel' is 300, which u8 cannot hold"),
    (dict(c=-129), "is -129, which i8 cannot hold"),
    (dict(e=2**32), "which i32 cannot hold: pass a value in its range or give the parameter a "
     "wider type (annotate it tl.int64)"),
    (dict(g=2), "is 2, which i1 cannot hold: pass 0 or 1"),
])
def test_integers_out_of_the_annotated_range_are_refused(bad, message):
    args = dict(a=1.0, b=1, c=1, d=1, e=1, f=1.0, g=False, h=1.0)
    args.update(bad)
    out = np.full(8, np.nan)
    with pytest.raises(Exception, match=message.replace("(", r"\(").replace(")", r"\)")):
        scalars_kernel[(1,)](out, **args)
    assert np.isnan(out).all()


def test_a_float_for_an_integer_annotation_is_a_type_error():
    out = np.full(8, np.nan)
    with pytest.raises(TypeError, match="'b' is annotated u8, an integer type, but got a float; "
                       "pass an int or annotate a float type"):
        scalars_kernel[(1,)](out, 1.0, 1.5, 1, 1, 1, 1.0, False, 1.0)


@triton.jit
def pointer_kernel(x: tl.pointer_type(tl.float16), y: "*fp32", n, BLOCK: tl.constexpr):
    tl.static_assert(x.dtype.element_ty == tl.float16)
    tl.static_assert(y.dtype.element_ty == tl.float32)
    i = tl.arange(0, BLOCK)
    tl.store(y + i, tl.load(x + i, mask=i < n).to(tl.float32) * 2, mask=i < n)


def test_pointer_annotations_name_the_element_type():
    n = 37
    x = RNG.standard_normal(n).astype(np.float16)
    y = np.full(n, np.nan, np.float32)
    pointer_kernel[(1,)](x, y, n, BLOCK=64)
    np.testing.assert_array_equal(y, x.astype(np.float32) * 2)


def test_pointer_annotation_on_a_scalar_is_a_type_error():
    y = np.full(4, np.nan, np.float32)
    with pytest.raises(TypeError, match="'x' is annotated [*]fp16, a pointer, but got a scalar"):
        pointer_kernel[(1,)](3, y, 4, BLOCK=4)


@triton.jit
def int_annotated_count(out, n: int, m: tl.int64):
    tl.static_assert(n.dtype == tl.int32)
    tl.static_assert(m.dtype == tl.int64)
    tl.store(out, n + m)


def test_annotations_keep_specialisation_on_value():
    # An int-annotated 1 is still the constant 1 to the compiler; the
    # result must not depend on it.
    for n in (1, 16, int(RNG.integers(2, 1000))):
        m = int(RNG.integers(2**33, 2**40))
        out = np.zeros(1, np.int64)
        int_annotated_count[(1,)](out, n, m)
        assert out[0] == n + m


def _annotated(**types):
    # Annotations as objects, as a module without `from __future__ import
    # annotations` has them (this one's are source text).
    def wrap(fn):
        fn.__annotations__ = dict(types)
        return fn
    return wrap


@triton.jit
@_annotated(x=tl.pointer_type(tl.float16), y="*fp32", s=tl.float16, k=tl.uint16,
            BLOCK=tl.constexpr)
def object_annotated_kernel(x, y, s, k, BLOCK: tl.constexpr):
    tl.static_assert(x.dtype.element_ty == tl.float16)
    tl.static_assert(s.dtype == tl.float16)
    tl.static_assert(k.dtype == tl.uint16)
    i = tl.arange(0, BLOCK)
    tl.store(y + i, tl.load(x + i).to(tl.float32) * s + k)


def test_annotations_given_as_objects():
    x = RNG.standard_normal(16).astype(np.float16)
    y = np.full(16, np.nan, np.float32)
    s = float(RNG.uniform(1, 2))
    k = int(RNG.integers(0, 1000))
    object_annotated_kernel[(1,)](x, y, s, k, BLOCK=16)
    # s arrives rounded to fp16, then fp32 * fp16 computes in fp32.
    want = x.astype(np.float32) * np.float32(np.float16(s)) + np.float32(k)
    np.testing.assert_allclose(y, want, rtol=1e-6)  # x * s + k may fuse to one fma
