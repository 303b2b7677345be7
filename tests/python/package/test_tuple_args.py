"""Tuples as Triton has them: tuple and namedtuple kernel arguments (nested,
with compile-time elements), namedtuples built in kernels, list
comprehensions and for loops over tuples, tl.tuple, tuple + and ==. On the
interpreter here; tests/gpu/test_language_gpu.py runs the launch path on the
GPU."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

RNG = np.random.default_rng()


class View(NamedTuple):
    ptr: object
    shape: tuple
    strides: tuple


class Scale(NamedTuple):
    factor: float
    offset: float = 0.5


@triton.jit
def store_each_kernel(Ptrs, values):
    for i in tl.static_range(len(values)):
        tl.store(Ptrs[i], values[i] * 2)


@pytest.mark.parametrize("size", [0, 1, 3])
def test_tuple_of_pointers_and_scalars(size):
    values = tuple(int(v) for v in RNG.integers(-1000, 1000, size))
    outs = tuple(np.full(1, -99, np.int32) for _ in values)
    store_each_kernel[(1,)](outs, values)
    assert [int(o[0]) for o in outs] == [2 * v for v in values]


@triton.jit
def nested_kernel(out, t, C: tl.constexpr):
    tl.static_assert(t[1][1] is None)
    tl.static_assert(t[1][3] == 4)
    tl.store(out + 0, tl.load(t[0]))
    tl.store(out + 1, t[1][0])
    tl.store(out + 2, tl.load(t[1][2]) + C)


def test_nested_tuple_with_compile_time_elements():
    a, b = RNG.integers(-100, 100, 2)
    x0 = np.array([a], np.int32)
    x1 = np.array([b], np.int32)
    out = np.full(3, -99, np.int32)
    nested_kernel[(1,)](out, (x0, (7, None, x1, tl.constexpr(4))), 5)
    assert out.tolist() == [a, 7, b + 5]


@triton.jit
def copy_view_kernel(src, dst, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    m = tl.arange(0, BLOCK_M)[:, None]
    n = tl.arange(0, BLOCK_N)[None, :]
    inside = (m < src.shape[0]) & (n < src.shape[1])
    x = tl.load(src.ptr + m * src.strides[0] + n * src.strides[1], mask=inside, other=0.0)
    tl.store(dst.ptr + m * dst.strides[0] + n * dst.strides[1], x, mask=inside)


def test_namedtuple_arguments_read_by_field():
    x = RNG.standard_normal((13, 20)).astype(np.float32)
    y = np.full((13, 20), np.nan, np.float32)
    s = x.itemsize
    copy_view_kernel[(1,)](View(x, x.shape, (x.strides[0] // s, x.strides[1] // s)),
                           View(y, y.shape, (y.strides[0] // s, y.strides[1] // s)), 16, 32)
    np.testing.assert_array_equal(y, x)
    # A transposed view: the strides travel in the tuple.
    yt = np.full((20, 13), np.nan, np.float32)
    copy_view_kernel[(1,)](View(x, (13, 20), (20, 1)), View(yt, (13, 20), (1, 13)), 16, 32)
    np.testing.assert_array_equal(yt, x.T)


@triton.jit
def affine(x, s):
    return x * s.factor + s.offset


@triton.jit
def namedtuple_built_in_kernel(X, Y, n, f, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    plain = Scale(f)  # the default offset
    named = Scale(offset=1.5, factor=f * 2)
    y = affine(x, plain) + affine(x, named)
    tl.store(Y + offs, y, mask=mask)


def test_namedtuple_built_in_a_kernel_with_defaults_and_keywords():
    n = 50
    x = RNG.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    f = float(RNG.uniform(0.5, 2))
    namedtuple_built_in_kernel[(1,)](x, y, n, f, BLOCK=64)
    x64 = x.astype(np.float64)
    # The two terms may nearly cancel, so the tolerance is absolute in their magnitude.
    np.testing.assert_allclose(y, (x64 * f + 0.5) + (x64 * 2 * f + 1.5), rtol=1e-5, atol=1e-5)


@triton.jit
def comprehension_kernel(Ptrs, values, out):
    doubled = [v * 2 for v in values]
    odd_squares = [i * i for i in range(7) if i % 2 == 1]
    pairs = [a * 10 + b for a in range(3) for b in range(a)]
    total = 0
    for v in doubled:  # a loop over a tuple runs at compile time
        total += v
    tl.store(out + 0, total)
    for k, sq in tl.tuple([(0, odd_squares[0]), (1, odd_squares[1])]):
        tl.store(out + 1 + k, sq)
    tl.store(out + 3, len(pairs))
    tl.store(out + 4, pairs[2])
    for i in tl.static_range(len(values)):
        tl.store(Ptrs[i], doubled[i])


def test_list_comprehensions_and_loops_over_tuples():
    values = tuple(int(v) for v in RNG.integers(-50, 50, 3))
    outs = tuple(np.full(1, -99, np.int32) for _ in values)
    out = np.full(5, -99, np.int32)
    comprehension_kernel[(1,)](outs, values, out)
    pairs = [a * 10 + b for a in range(3) for b in range(a)]
    assert out.tolist() == [2 * sum(values), 1, 9, len(pairs), pairs[2]]
    assert [int(o[0]) for o in outs] == [2 * v for v in values]


@triton.jit
def comprehension_scope_kernel(out):
    v = 5
    squares = [v * v for v in range(3)]
    tl.store(out + 0, v)  # the comprehension's v is its own
    tl.store(out + 1, squares[2])


def test_comprehension_names_do_not_leak():
    out = np.full(2, -99, np.int32)
    comprehension_scope_kernel[(1,)](out)
    assert out.tolist() == [5, 4]


@triton.jit
def tuple_ops_kernel(X, out):
    x = tl.load(X)
    t = (x, x + 1) + tl.tuple((x + 2,))  # tuples of runtime values concatenate
    tl.store(out + 0, t[0] + t[1] + t[2])
    tl.store(out + 1, (1, 2) == (1, 2))
    tl.store(out + 2, tl.tuple((1, 2)) == (1, 3))
    tl.store(out + 3, len((0,) * 4 + (1, 2)))


def test_tuple_concatenation_and_equality():
    x = int(RNG.integers(-100, 100))
    out = np.full(4, -99, np.int32)
    tuple_ops_kernel[(1,)](np.array([x], np.int32), out)
    assert out.tolist() == [3 * x + 3, 1, 0, 6]


def test_tuple_launches_are_cached_per_shape():
    outs = (np.zeros(1, np.int32), np.zeros(1, np.int32))
    store_each_kernel[(1,)](outs, (7, 9))
    n = len(store_each_kernel._by_hash)
    for _ in range(3):
        store_each_kernel[(1,)](outs, (3, 4))
    assert len(store_each_kernel._by_hash) == n  # same shape: no new compile
    assert [int(o[0]) for o in outs] == [6, 8]
    # An element equal to 1 specialises (as Triton): a new kernel, same answer.
    store_each_kernel[(1,)](outs, (1, 5))
    assert [int(o[0]) for o in outs] == [2, 10]


def test_compiled_kernel_runs_with_the_tuples():
    outs = (np.zeros(1, np.int32), np.zeros(1, np.int32))
    k = store_each_kernel.warmup(outs, (5, 6), grid=(1,))
    outs[0][0], outs[1][0] = -99, -99
    k[(1,)](outs, (9, 10))
    assert [int(o[0]) for o in outs] == [18, 20]


@triton.jit
def constexpr_param_kernel(out, SHAPE: tl.constexpr):
    tl.store(out, SHAPE[0] * SHAPE[1])


def test_constexpr_tuple_parameter_stays_compile_time():
    out = np.zeros(1, np.int32)
    constexpr_param_kernel[(1,)](out, (6, 7))
    assert out[0] == 42


@triton.jit
def runtime_range_comprehension_kernel(out, n):
    xs = [i for i in range(n)]
    tl.store(out, len(xs))


@triton.jit
def bad_namedtuple_kernel(out):
    s = Scale(1.0, 2.0, 3.0)
    tl.store(out, s.factor)


@triton.jit
def tuple_break_kernel(out, values):
    for v in values:
        if v > 0:
            break
        tl.store(out, v)


@pytest.mark.parametrize("kernel, args, message", [
    (runtime_range_comprehension_kernel, (5,),
     r"a list comprehension range end must be a compile-time constant"),
    (bad_namedtuple_kernel, (), r"Scale\(\) takes 2 arguments but 3 were given"),
    (tuple_break_kernel, ((1, 2),), r"'break' is not supported in a loop over a tuple"),
])
def test_tuple_mistakes_are_diagnosed(kernel, args, message):
    out = np.zeros(1, np.float32)
    with pytest.raises(triton.CompilationError, match=message) as e:
        kernel[(1,)](out, *args)
    assert "test_tuple_args.py:" in str(e.value)  # the caret points into this file


def test_specialization_data_and_preload_of_tuple_arguments():
    # Triton's format: a tuple parameter's type is the tuple of its
    # elements' types; constants and attributes are keyed by element path.
    import json

    @triton.jit
    def k(out, t):
        tl.store(out, tl.load(t[0]) + t[1][0] + t[1][1])

    data = []
    with triton.knobs.runtime.scope() as runtime:
        runtime.jit_cache_hook = lambda **kw: data.append(kw["compile"]["specialization_data"])
        x = np.array([5], np.int32)
        out = np.zeros(1, np.int32)
        first = k.warmup(out, (x, (1, tl.constexpr(7))), grid=(1,))
    d = json.loads(data[0])
    assert d["signature"] == {"out": "*i32", "t": ["*i32", ["constexpr", "constexpr"]]}
    assert dict(zip(map(tuple, d["constant_keys"]), d["constant_vals"])) == {(1, 1, 0): 1,
                                                                             (1, 1, 1): 7}
    k.cache[0].clear()
    again = k.preload(data[0])
    assert again.hash == first.hash and again is not first
    out[0] = -99
    k[(1,)](out, (x, (1, tl.constexpr(7))))  # runs the preloaded kernel
    assert out[0] == 5 + 1 + 7 and len(k._by_hash) == 1


@triton.jit
def either_kernel(out, v):
    if isinstance(v, Scale):
        tl.store(out, v.factor * 100 + v.offset)
    elif isinstance(v, tl.tuple):
        tl.store(out, v[0] + v[1])
    else:
        tl.store(out, v)


def test_one_parameter_takes_scalars_tuples_and_namedtuples():
    # The C++ launcher declines tuples to the Python path and back.
    out = np.zeros(1, np.float32)
    launch = either_kernel[(1,)]
    for v, expect in [(5.0, 5.0), ((2.0, 3.0), 5.0), (Scale(2.0, 0.25), 200.25), (7.0, 7.0),
                      ((4.0, 4.0), 8.0)]:
        out[0] = np.nan
        launch(out, v)
        assert out[0] == expect, v


@triton.jit
def square(x):
    return x * x


@triton.jit
def shifted_square(x, shift):
    return square(x + shift)  # reaches another @jit function


@triton.jit
def apply_kernel(X, Y, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Y + offs, FN(tl.load(X + offs, mask=mask)), mask=mask)


class Closure(NamedTuple):
    fn: object
    captured: tuple


@triton.jit
def closure_kernel(X, Y, n, closure, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    y = closure.fn(tl.load(X + offs, mask=mask), *closure.captured)
    tl.store(Y + offs, y, mask=mask)


def test_jit_functions_as_compile_time_arguments():
    n = 40
    x = RNG.standard_normal(n).astype(np.float32)

    @triton.jit
    def negate(v):
        return -v

    for fn, expect in [(square, x * x), (negate, -x)]:
        y = np.full(n, np.nan, np.float32)
        apply_kernel[(1,)](x, y, n, fn, BLOCK=64)
        np.testing.assert_array_equal(y, expect)
    # In a tuple argument, with the tuple's other elements as its arguments.
    shift = float(RNG.uniform(-1, 1))
    y = np.full(n, np.nan, np.float32)
    closure_kernel[(1,)](x, y, n, Closure(shifted_square, (shift,)), BLOCK=64)
    np.testing.assert_allclose(y, (x.astype(np.float64) + shift) ** 2, rtol=1e-5, atol=1e-6)


@triton.jit
def unannotated_kernel(out, n, fn, D, name: tl.constexpr):
    # fn and D get compile-time values without a tl.constexpr annotation:
    # Triton specialises them as constexprs. (A string needs the annotation:
    # unannotated, it is refused as an argument, test_jit.py.)
    tl.static_assert(name == "twice")
    tl.store(out, fn(tl.full((1,), n, D)).sum() * 2)


def test_compile_time_values_given_to_unannotated_parameters():
    out = np.zeros(1, np.int64)
    launch = unannotated_kernel[(1,)]
    for n, fn, d in [(3, square, tl.int64), (4, square, tl.int64), (5, shifted_square, tl.int64),
                     (6, square, tl.int32)]:
        out[0] = -1
        if fn is shifted_square:
            with pytest.raises(triton.CompilationError, match="missing required argument 'shift'"):
                launch(out, n, fn, d, "twice")
            continue
        launch(out, n, fn, d, "twice")
        assert out[0] == 2 * n * n
    out[0] = -1
    launch(out, tl.constexpr(7), square, tl.int64, "twice")
    assert out[0] == 98


def test_strings_and_lists_for_runtime_parameters_say_what_to_do():
    out = np.zeros(1, np.int32)
    with pytest.raises(TypeError, match=r"argument 'values'.*annotate the parameter `values: "
                                        r"tl.constexpr`"):
        store_each_kernel[(1,)]((out,), "ab")
    with pytest.raises(TypeError, match=r"argument 'values'.*got list \(pass a tuple"):
        store_each_kernel[(1,)]((out,), [1])


@triton.must_use_result("It has no side effects.")
@triton.jit
def pure_cube(x):
    return x * x * x


@triton.jit
def uses_cube_kernel(out):
    y = pure_cube(tl.full((4,), 2.0, tl.float32))
    tl.store(out + tl.arange(0, 4), y)


@triton.jit
def drops_cube_kernel(out):
    pure_cube(tl.full((4,), 2.0, tl.float32))


def test_must_use_result():
    out = np.zeros(4, np.float32)
    uses_cube_kernel[(1,)](out)
    assert out.tolist() == [8.0] * 4
    with pytest.raises(triton.CompilationError,
                       match=r"the result of pure_cube is not being used. It has no side effects"):
        drops_cube_kernel[(1,)](out)
