"""`@triton.aggregate` classes as Triton has them: kernels build instances
(the class's __init__, or the fields in order), read fields, call @jit,
static and plain methods, index through __getitem__, and pass instances to
functions, out of them and around loops. On the interpreter here;
tests/gpu/test_language_gpu.py runs one on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

RNG = np.random.default_rng()


@triton.aggregate
class Pair:
    first: tl.tensor
    second: tl.tensor

    @triton.jit
    def total(self):
        return self.first + self.second

    @triton.jit
    def swapped(self):
        return Pair(self.second, self.first)

    @staticmethod
    @triton.jit
    def around(x, d):
        return Pair(x - d, x + d)

    # Triton's builtin-style method: plain Python taking `_semantic`.
    def get_second(self, _semantic=None):
        return self.second

    def __getitem__(self, index: tl.constexpr, _semantic=None):
        if index == 0:
            return self.first
        return self.second


@triton.aggregate
class Tiling:
    scale: tl.tensor
    BLOCK: tl.constexpr
    HALF: tl.constexpr

    @triton.constexpr_function
    def __init__(self, scale, BLOCK):
        self.scale = scale
        self.BLOCK = tl.constexpr(BLOCK)
        self.HALF = tl.constexpr(BLOCK // 2)


@triton.jit
def store_scaled(out_ptr, p, tiling):
    i = tl.arange(0, tiling.BLOCK)
    tl.store(out_ptr + i, p.total() * tiling.scale)


@triton.jit
def methods_kernel(x_ptr, out_ptr, s, d, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    p = Pair.around(x, d)
    tiling = Tiling(s, BLOCK)
    tl.static_assert(tiling.HALF == BLOCK // 2)
    tl.static_assert(isinstance(p, Pair))
    store_scaled(out_ptr, p, tiling)  # 2 x * s
    q = p.swapped()
    tl.store(out_ptr + BLOCK + i, q[0] - q.get_second())  # 2 d
    tl.store(out_ptr + 2 * BLOCK + i, p[1])  # x + d


def test_methods_fields_and_constructors():
    n = 32
    x = RNG.standard_normal(n).astype(np.float32)
    s, d = (float(v) for v in RNG.uniform(0.5, 2.0, 2))
    out = np.full(3 * n, np.nan, np.float32)
    methods_kernel[(1,)](x, out, s, d, BLOCK=n)
    lo, hi = x - np.float32(d), x + np.float32(d)  # float32, as the kernel computes them
    np.testing.assert_allclose(out[:n], (lo + hi) * np.float32(s), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out[n:2 * n], hi - lo, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(out[2 * n:], hi)


@triton.jit
def step(p, x):
    return Pair(p.first + x, p.second * 0.5)


@triton.jit
def loop_kernel(x_ptr, out_ptr, n_steps, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    p = Pair(tl.zeros([BLOCK], tl.float32), x)
    for _ in range(n_steps):  # the instance is carried by the loop
        p = step(p, x)
    if tl.sum(p.first) > 0:  # and merged after a run-time if
        p = p.swapped()
    tl.store(out_ptr + i, p.first)
    tl.store(out_ptr + BLOCK + i, p.second)


def test_instances_flow_through_calls_loops_and_ifs():
    n = 16
    x = RNG.standard_normal(n).astype(np.float32)
    steps = int(RNG.integers(2, 6))
    first, second = steps * x, x * np.float32(0.5**steps)
    if first.sum() > 0:
        first, second = second, first
    out = np.full(2 * n, np.nan, np.float32)
    loop_kernel[(1,)](x, out, steps, BLOCK=n)
    np.testing.assert_allclose(out[:n], first, rtol=1e-5)
    np.testing.assert_allclose(out[n:], second, rtol=1e-5)


@triton.aggregate
class Partial:
    a: tl.tensor
    b: tl.tensor

    @triton.constexpr_function
    def __init__(self, a):
        self.a = a


@triton.aggregate
class Counter:
    value: tl.tensor

    @triton.jit
    def bump(self):
        self.value = self.value + 1
        return self


@triton.jit
def partial_kernel(out):
    p = Partial(tl.full([4], 1.0, tl.float32))
    tl.store(out + tl.arange(0, 4), p.a)


@triton.jit
def bump_kernel(out):
    c = Counter(tl.full([4], 1, tl.int32)).bump()
    tl.store(out + tl.arange(0, 4), c.value)


@triton.jit
def unknown_field_kernel(out):
    p = Pair(tl.full([4], 1.0, tl.float32), tl.full([4], 2.0, tl.float32))
    tl.store(out + tl.arange(0, 4), p.third)


@pytest.mark.parametrize("kernel, message", [
    (partial_kernel, r"Partial.__init__ did not set field 'b'"),
    (bump_kernel, r"an aggregate's fields are set only in its __init__"),
    (unknown_field_kernel, r"Pair has no field or method 'third'"),
])
def test_mistakes_are_compile_errors(kernel, message):
    out = np.zeros(4, np.float32)
    with pytest.raises(triton.CompilationError, match=message):
        kernel[(1,)](out)


def test_host_side_instances_and_bad_classes():
    @triton.aggregate
    class State:
        x: tl.constexpr
        y: tl.tensor

    @tl.core._aggregate  # Triton's spelling
    class Other:
        z: tl.tensor

    assert Other(5).z == 5
    state = State(3, y=7)
    assert isinstance(state.x, tl.constexpr) and state.x.value == 3 and state.y == 7
    with pytest.raises(TypeError, match="missing required argument 'y'"):
        State(3)
    with pytest.raises(ValueError, match="cannot be a @triton.jit function"):
        @triton.aggregate
        class JitInit:
            x: tl.tensor

            @triton.jit
            def __init__(self, x):
                self.x = x


@triton.aggregate
class Square:
    x: tl.tensor

    @triton.must_use_result
    @triton.jit
    def compute(self):
        return self.x * self.x


@triton.jit
def dropped_result_kernel(out):
    a = Square(tl.full([4], 3.0, tl.float32))
    a.compute()
    tl.store(out + tl.arange(0, 4), a.x)


def test_a_dropped_must_use_result_is_named_as_called():
    out = np.zeros(4, np.float32)
    with pytest.raises(triton.CompilationError, match="the result of a.compute is not being used"):
        dropped_result_kernel[(1,)](out)


def _box_class(factor):
    @triton.aggregate
    class Box:
        v: tl.tensor

        @triton.jit
        def get(self):
            return self.v * factor

    return Box


BoxA, BoxB = _box_class(2.0), _box_class(3.0)


@triton.jit
def two_boxes_kernel(out):
    a = BoxA(tl.full([4], 1.0, tl.float32))
    b = BoxB(tl.full([4], 1.0, tl.float32))
    tl.store(out + tl.arange(0, 4), a.get() + b.get())


def _scale_class(default):
    @triton.aggregate
    class Scale:
        v: tl.tensor
        s: tl.constexpr = default

    return Scale


ScaleA, ScaleB = _scale_class(2), _scale_class(3)


@triton.jit
def two_scales_kernel(out):
    a = ScaleA(tl.full([4], 1.0, tl.float32))
    b = ScaleB(tl.full([4], 1.0, tl.float32))
    tl.store(out + tl.arange(0, 4), a.v * a.s + b.v * b.s)


def test_two_classes_of_one_name_and_fields_are_refused():
    # Instances know their class by name and fields: using both would give
    # one's methods (or defaults) to the other's instances.
    out = np.zeros(4, np.float32)
    with pytest.raises(triton.CompilationError, match="two different aggregate classes Box"):
        two_boxes_kernel[(1,)](out)
    with pytest.raises(triton.CompilationError, match="two different aggregate classes Scale"):
        two_scales_kernel[(1,)](out)


@triton.aggregate
class Offset:
    v: tl.tensor

    @triton.constexpr_function
    def __init__(self, v, by):
        self.v = v
        self.v += by  # augmented assignment to a field, in __init__


@triton.jit
def offset_kernel(x_ptr, out_ptr, by, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    o = Offset(tl.load(x_ptr + i), by)
    tl.store(out_ptr + i, o.v)


@triton.jit
def offset_outside_init_kernel(out):
    o = Offset(tl.full([4], 1.0, tl.float32), 1.0)
    o.v += 1
    tl.store(out + tl.arange(0, 4), o.v)


def test_augmented_assignment_to_fields():
    x = RNG.standard_normal(8).astype(np.float32)
    by = float(RNG.uniform(1, 2))
    out = np.full(8, np.nan, np.float32)
    offset_kernel[(1,)](x, out, by, BLOCK=8)
    np.testing.assert_array_equal(out, x + np.float32(by))
    with pytest.raises(triton.CompilationError, match="fields are set only in its __init__"):
        offset_outside_init_kernel[(1,)](np.zeros(4, np.float32))


# ---------------------------------------------------------------- inheritance, defaults, replace


@triton.aggregate
class Shifted:
    data: tl.tensor
    BLOCK: tl.constexpr
    shift: tl.constexpr = 3  # a default, wrapped in tl.constexpr on the host

    @triton.jit
    def moved(self):
        return self.data + self.shift


@triton.aggregate
class ScaledShift(Shifted):  # fields data, BLOCK, shift, then scale; moved() inherited
    scale: tl.tensor

    @triton.jit
    def result(self):
        return self.moved() * self.scale


@triton.jit
def inherited_kernel(x_ptr, out_ptr, f, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    s = ScaledShift(x, BLOCK, scale=f)  # `shift` from the base's default
    tl.static_assert(s.shift == 3 and s.BLOCK == BLOCK)
    t = tl.aggregate_replace(s, shift=5, data=x * 2)  # a copy: `s` keeps its fields
    tl.store(out_ptr + offs, s.result())
    tl.store(out_ptr + BLOCK + offs, t.result())
    tl.store(out_ptr + 2 * BLOCK + offs, Shifted(x, BLOCK).moved())


def test_inheritance_defaults_and_replace_in_kernels():
    n = 16
    x = RNG.standard_normal(n).astype(np.float32)
    f = np.float32(RNG.uniform(0.5, 2))
    out = np.full(3 * n, np.nan, np.float32)
    inherited_kernel[(1,)](x, out, f, BLOCK=n)
    np.testing.assert_allclose(out[:n], (x + 3) * f, rtol=1e-6)
    np.testing.assert_allclose(out[n:2 * n], (x * 2 + 5) * f, rtol=1e-6)
    np.testing.assert_allclose(out[2 * n:], x + 3, rtol=1e-6)


@triton.jit
def replace_unknown_field_kernel(out):
    s = Shifted(tl.full([4], 1.0, tl.float32), 4)
    t = tl.aggregate_replace(s, bogus=1)
    tl.store(out + tl.arange(0, 4), t.data)


@triton.jit
def replace_non_aggregate_kernel(out):
    t = tl.aggregate_replace(tl.full([4], 1.0, tl.float32), data=1)
    tl.store(out + tl.arange(0, 4), t)


@triton.jit
def missing_field_kernel(out):
    s = ScaledShift(tl.full([4], 1.0, tl.float32), 4)
    tl.store(out + tl.arange(0, 4), s.data)


@pytest.mark.parametrize("kernel, message", [
    (replace_unknown_field_kernel, r"Shifted has no field 'bogus'"),
    (replace_non_aggregate_kernel, r"tl.aggregate_replace expects an aggregate instance"),
    (missing_field_kernel, r"ScaledShift\(\) missing required argument 'scale'"),
])
def test_replace_and_default_mistakes(kernel, message):
    with pytest.raises(triton.CompilationError, match=message):
        kernel[(1,)](np.zeros(4, np.float32))


def test_host_inheritance_defaults_replace_and_immutability():
    @triton.aggregate
    class Base:
        x: tl.constexpr = tl.constexpr(100)

    @triton.aggregate
    class Child(Base):
        y: "tl.constexpr"  # a string annotation, as under PEP 563
        z: tl.constexpr = 42

    c = Child(y=7)
    assert (c.x.value, c.y.value, c.z.value) == (100, 7, 42)
    assert all(isinstance(v, tl.constexpr) for v in (c.x, c.y, c.z))
    d = tl.aggregate_replace(c, x=1)
    assert (d.x.value, d.y.value, c.x.value) == (1, 7, 100) and isinstance(d.x, tl.constexpr)
    with pytest.raises(AttributeError, match="cannot assign to field 'x' on immutable aggregate"):
        c.x = tl.constexpr(5)
    assert c.x.value == 100
    with pytest.raises(TypeError, match="has no field 'w'"):
        tl.aggregate_replace(c, w=1)
    with pytest.raises(TypeError, match="expects an aggregate instance"):
        tl.aggregate_replace(42, x=1)
    with pytest.raises(TypeError, match="Aggregates can only inherit from other aggregates"):
        class Plain:
            pass

        @triton.aggregate
        class Bad(Plain):
            x: tl.constexpr

    @triton.aggregate
    class WithInit:
        x: tl.constexpr

        def __init__(self, x):
            self.x = x + 1  # __init__ may set fields; they freeze when it returns

    w = WithInit(10)
    assert w.x.value == 11

    @triton.aggregate
    class WithMethod(Base):
        @triton.constexpr_function
        def get_x(self):  # called on a host instance: bound, as a plain method is
            return self.x

    assert WithMethod(x=5).get_x().value == 5
    with pytest.raises(AttributeError, match="immutable"):
        w.x = 3
