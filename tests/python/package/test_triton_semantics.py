"""Triton's semantics where a plainer reading gives another answer: each case
was once a silent wrong result (early returns in nested ifs, the signedness
of >>, bfloat16 accumulation, NaN in argmax/argmin, uint64 constants past
2^63). The same cases run on the GPU in tests/gpu/test_semantics_gpu.py."""

from __future__ import annotations

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

try:
    import ml_dtypes

    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    BF16 = None


@triton.jit
def nested_return_kernel(c, out):
    if c >= 0:
        if c > 0:
            return
        tl.store(out + 1, 7)
    tl.store(out, 1)


@triton.jit
def nested_return_constexpr_kernel(c, out, OUTER: tl.constexpr):
    if OUTER:
        if c > 0:
            return
    tl.store(out, 1)


@triton.jit
def return_in_else_kernel(c, out):
    if c < 5:
        if c < 2:
            tl.store(out + 1, 2)
        else:
            return
    else:
        tl.store(out + 1, 3)
    tl.store(out, 1)


@pytest.mark.parametrize("c", [-3, 0, 4])
def test_return_nested_in_ifs_keeps_what_follows(c):
    out = np.full(2, -99, np.int32)
    nested_return_kernel[(1,)](c, out)
    # c > 0 returns before anything is stored; otherwise the store after the
    # outer if runs (and the one inside it when c == 0).
    expect = [-99, -99] if c > 0 else [1, 7 if c == 0 else -99]
    assert out.tolist() == expect


@pytest.mark.parametrize("c,outer", [(0, True), (1, True), (1, False)])
def test_return_nested_under_constexpr_if(c, outer):
    out = np.full(1, -99, np.int32)
    nested_return_constexpr_kernel[(1,)](c, out, OUTER=outer)
    assert out[0] == (-99 if (outer and c > 0) else 1)


@pytest.mark.parametrize("c", [0, 3, 7])
def test_return_in_an_inner_else(c):
    out = np.full(2, -99, np.int32)
    return_in_else_kernel[(1,)](c, out)
    expect = {0: [1, 2], 3: [-99, -99], 7: [1, 3]}[c]
    assert out.tolist() == expect


@triton.jit
def shr_kernel(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.load(x_ptr + i) >> tl.load(y_ptr + i))


@pytest.mark.parametrize("xt,yt", [(np.int8, np.uint8), (np.int16, np.uint16), (np.int32, np.uint32),
                                   (np.uint8, np.int8), (np.uint32, np.int32), (np.int64, np.uint64)])
def test_shift_right_follows_the_left_operand(rng, xt, yt):
    # Triton promotes int8 >> uint8 to uint8 but shifts arithmetically
    # because the left operand is signed (and logically when it is unsigned).
    n = 64
    bits = np.dtype(xt).itemsize * 8
    x = rng.integers(np.iinfo(xt).min, np.iinfo(xt).max, n, dtype=xt, endpoint=True)
    y = rng.integers(0, bits, n).astype(yt)
    # Same widths: the promoted type is the unsigned one.
    out_t = xt if np.issubdtype(xt, np.unsignedinteger) else yt
    out = np.full(n, 0x55, out_t)
    shr_kernel[(1,)](x, y, out, N=n)
    # Python's >> on the left operand's value is arithmetic for negative
    # values and logical for unsigned ones; compare the bits.
    ref = [int(a) >> int(b) for a, b in zip(x.astype(object), y.astype(object))]
    mask = (1 << bits) - 1
    got = [int(v) & mask for v in out.astype(object)]
    assert got == [r & mask for r in ref]


@triton.jit
def sum_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr, tl.sum(tl.load(x_ptr + i)))


@triton.jit
def max_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    m = tl.max(tl.load(x_ptr + i), axis=0)
    tl.static_assert(m.dtype == tl.float32)
    tl.store(out_ptr, m)


@pytest.mark.skipif(BF16 is None, reason="needs ml_dtypes for bfloat16 arrays")
def test_bfloat16_sum_accumulates_in_float32(rng):
    # 1,024 ones: a bfloat16 accumulator stops at 256.
    x = np.ones(1024, BF16)
    out = np.full(1, -1, np.float32)
    sum_kernel[(1,)](x, out, N=1024)
    assert out[0] == 1024
    x = rng.standard_normal(2048).astype(BF16)
    sum_kernel[(1,)](x, out, N=2048)
    ref = x.astype(np.float64).sum()
    assert abs(out[0] - ref) <= 1e-4 * np.abs(x.astype(np.float64)).sum()


@pytest.mark.skipif(BF16 is None, reason="needs ml_dtypes for bfloat16 arrays")
@pytest.mark.parametrize("dt", ["bf16", np.float16])
def test_max_of_16_bit_floats_is_float32(rng, dt):
    dt = BF16 if dt == "bf16" else np.dtype(dt)
    x = rng.standard_normal(256).astype(dt)
    out = np.full(1, np.nan, np.float32)
    max_kernel[(1,)](x, out, N=256)
    assert out[0] == x.astype(np.float32).max()


@triton.jit
def arg_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    v = tl.load(x_ptr + i)
    tl.store(out_ptr, tl.argmax(v, 0))
    tl.store(out_ptr + 1, tl.argmin(v, 0))


def test_argmax_argmin_nan_rule():
    x = np.array([np.nan, 6, 8, 1], np.float32)
    out = np.full(2, -1, np.int32)
    arg_kernel[(1,)](x, out, N=4)
    # Triton: a NaN never wins (np.nanargmax's answer): argmax 2, argmin 3
    # (torch.argmax would say 0).
    assert out.tolist() == [2, 3]


@pytest.mark.parametrize("values", [[3, 5, np.nan, 1], [3, 1, np.nan, 5], [np.nan, np.nan, 2, 7],
                                    [4, np.nan, 4, np.nan]])
def test_argmax_argmin_ignore_nan_wherever_it_is(values):
    """Whatever the NaN's position: a left-to-right fold of the pairwise rule
    would let anything after a NaN win ([3, 5, nan, 1] would give 3)."""
    x = np.array(values, np.float32)
    out = np.full(2, -1, np.int32)
    arg_kernel[(1,)](x, out, N=4)
    assert out.tolist() == [int(np.nanargmax(x)), int(np.nanargmin(x))]


def test_argmax_argmin_with_random_nans(rng):
    x = rng.integers(-5, 5, 128).astype(np.float32)
    x[rng.choice(128, 20, replace=False)] = np.nan
    out = np.full(2, -1, np.int32)
    arg_kernel[(1,)](x, out, N=128)
    assert out.tolist() == [int(np.nanargmax(x)), int(np.nanargmin(x))]


def test_argmax_argmin_without_nan_match_numpy(rng):
    x = rng.integers(-5, 5, 128).astype(np.float32)  # many ties: the lowest index wins
    out = np.full(2, -1, np.int32)
    arg_kernel[(1,)](x, out, N=128)
    assert out.tolist() == [int(np.argmax(x)), int(np.argmin(x))]


@triton.jit
def add_const_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.load(x_ptr + i) + (1 << 63))


@triton.jit
def const_types_kernel(out_ptr):
    # tl.constexpr: a plain `a = ...` would hold a uint64 tensor, as in
    # Triton, whose arithmetic static_assert cannot check.
    a: tl.constexpr = 0xFFFFFFFFFFFFFFFF
    tl.static_assert((1 << 63) > 0)
    tl.static_assert(a - 1 == 2**63 + (2**63 - 2))
    tl.static_assert(a // 2 == (1 << 63) - 1)
    tl.store(out_ptr + tl.arange(0, 1), tl.full((1,), a, tl.uint64))


def test_uint64_constant_past_int64(rng):
    x = rng.integers(0, 1 << 62, 16, dtype=np.uint64)
    out = np.zeros(16, np.uint64)
    add_const_kernel[(1,)](x, out, N=16)
    assert (out == x + np.uint64(1 << 63)).all()
    one = np.zeros(1, np.uint64)
    const_types_kernel[(1,)](one)
    assert int(one[0]) == 2**64 - 1


@triton.jit
def atomic_use_result_kernel(x_ptr, out_ptr, N: tl.constexpr, OP: tl.constexpr):
    # An Nx1 tile of pointers: most threads hold copies of its elements, and
    # each element must be updated once with every copy seeing the old value.
    rows = tl.arange(0, N)[:, None]
    cols = tl.arange(0, N)[None, :]
    if OP == "add":
        old = tl.atomic_add(x_ptr + rows, 1)
    else:
        old = tl.atomic_cas(x_ptr + rows, 0, 2)
    tl.store(out_ptr + rows * N + cols, tl.broadcast_to(old, (N, N)))


@pytest.mark.parametrize("op,dt", [("add", np.int32), ("add", np.float16), ("cas", np.int32)])
@pytest.mark.parametrize("n", [1, 4, 32])
def test_atomic_result_reaches_every_copy(rng, op, dt, n):
    x = rng.integers(0, 2, n).astype(dt)
    before = x.copy()
    out = np.full((n, n), -7, dt)
    atomic_use_result_kernel[(1,)](x, out, N=n, OP=op)
    assert (out == before[:, None]).all()
    assert (x == (before + 1 if op == "add" else np.where(before == 0, 2, before))).all()


@triton.jit
def histogram_mask_kernel(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, 2 * M)
    x = tl.load(x_ptr + offs)
    tl.store(z_ptr + tl.arange(0, N), tl.histogram(x, N, offs < M))


@pytest.mark.parametrize("m,n", [(256, 512), (8, 2), (64, 16)])
def test_histogram_mask(rng, m, n):
    half = rng.integers(0, n, m).astype(np.int32)
    x = np.concatenate([half, rng.integers(0, n, m).astype(np.int32)])
    z = np.full(n, -1, np.int32)
    histogram_mask_kernel[(1,)](x, z, M=m, N=n)
    assert (z == np.bincount(half, minlength=n)).all()


@triton.jit
def reduce_or_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(out_ptr + tl.arange(0, M), tl.reduce_or(x, axis=1))


def test_reduce_or(rng):
    x = (1 << rng.integers(0, 31, (8, 16))).astype(np.int32) * (rng.random((8, 16)) < 0.3)
    x = x.astype(np.int32)
    out = np.full(8, -1, np.int32)
    reduce_or_kernel[(1,)](x, out, M=8, N=16)
    assert (out == np.bitwise_or.reduce(x, axis=1)).all()


@triton.jit
def swizzle2d_kernel(out_ptr, SI: tl.constexpr, SJ: tl.constexpr, SG: tl.constexpr):
    i = tl.arange(0, SI)[:, None]
    j = tl.arange(0, SJ)[None, :]
    ni, nj = tl.swizzle2d(i, j, SI, SJ, SG)
    tl.store(out_ptr + (i * SJ + j) * 2, ni)
    tl.store(out_ptr + (i * SJ + j) * 2 + 1, nj)
    ci, cj = tl.swizzle2d(5, 3, SI, SJ, SG)  # compile-time arguments fold
    tl.static_assert(ci >= 0)


def swizzle_ref(i, j, size_i, size_j, size_g):
    ij = i * size_j + j
    group = ij // (size_g * size_j)
    off_i = group * size_g
    g = min(size_i - off_i, size_g)
    ij %= size_g * size_j
    return off_i + ij % g, ij // g


@pytest.mark.parametrize("si,sj,sg", [(8, 4, 2), (16, 8, 3), (8, 8, 8)])
def test_swizzle2d(si, sj, sg):
    out = np.full((si, sj, 2), -1, np.int32)
    swizzle2d_kernel[(1,)](out, SI=si, SJ=sj, SG=sg)
    ref = np.array([[swizzle_ref(i, j, si, sj, sg) for j in range(sj)] for i in range(si)])
    assert (out == ref).all()
    # A permutation of the grid.
    assert len({tuple(p) for p in out.reshape(-1, 2)}) == si * sj


@triton.jit
def named_like_options(out_ptr, num_stages, num_warps: tl.constexpr, debug):
    tl.store(out_ptr, num_stages * 100 + num_warps * 10 + debug)


def test_parameters_named_like_launch_options():
    # Tutorial 02's softmax kernel takes `num_stages`; Triton binds it as a
    # parameter (and uses it as the option too).
    out = np.zeros(1, np.int32)
    k = named_like_options[(1,)](out, 3, 2, 1)
    assert out[0] == 321
    assert k.metadata.num_warps == 2 and k.metadata.num_stages == 3
    named_like_options[(1,)](out, num_stages=2, num_warps=4, debug=0)
    assert out[0] == 240


@triton.jit
def template_kernel(x_ptr, z_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(z_ptr, tl.OP(x, axis=0))


def patch_by_src(template, op):
    # Triton's test_core, on the GPU path: a fresh JITFunction whose source is
    # the template's with a name replaced.
    kernel = triton.JITFunction(template.fn)
    kernel._unsafe_update_src(kernel.src.replace("OP", op))
    return kernel


def patch_by_exec(template, op):
    # Triton's test_core, on the interpreter path: the replaced source exec'd.
    import inspect
    import textwrap
    src = textwrap.dedent(inspect.getsource(template.fn)).replace("OP", op)
    namespace = {}
    exec(src, template.fn.__globals__, namespace)
    return namespace[template.fn.__name__]


@pytest.mark.parametrize("patch", [patch_by_src, patch_by_exec])
@pytest.mark.parametrize("op,ref", [("sum", np.sum), ("max", np.max), ("min", np.min)])
def test_kernels_from_patched_source(rng, patch, op, ref):
    x = rng.standard_normal(64).astype(np.float32)
    z = np.full(1, np.nan, np.float32)
    patch(template_kernel, op)[(1,)](x, z, N=64)
    assert abs(z[0] - ref(x)) <= 1e-5 * max(1.0, abs(ref(x)))


def test_src_setter_recompiles():
    k = triton.JITFunction(template_kernel.fn)
    x = np.arange(8, dtype=np.float32)
    z = np.zeros(1, np.float32)
    k.src = k.src.replace("OP", "max")
    k[(1,)](x, z, N=8)
    assert z[0] == 7
    k.src = k.src.replace("tl.max", "tl.min")
    k[(1,)](x, z, N=8)
    assert z[0] == 0
    with pytest.raises(ValueError, match="must define"):
        k.src = "def other(): pass"


def test_dtype_name_lists():
    assert tl.dtype.SINT_TYPES == ["int8", "int16", "int32", "int64"]
    assert "uint64" in tl.dtype.UINT_TYPES and "bf16" in tl.dtype.FP_TYPES
    for name in tl.dtype.SINT_TYPES + tl.dtype.UINT_TYPES + tl.dtype.STANDARD_FP_TYPES:
        assert str(tl.dtype(name)) == name


@triton.jit
def ifexp_kernel(x_ptr, out_ptr, c, n):
    i = tl.arange(0, 8)
    # Only the chosen side runs: the load reads x only when c > 0.
    v = tl.load(x_ptr + i, mask=i < n) if c > 0 else tl.zeros((8,), tl.float32) - 1
    s = 1.5 if c > 1 else 2  # two numbers: promoted to float32
    tl.store(out_ptr + i, v * s)


@triton.jit
def one_element_kernel(x_ptr, out_ptr):
    t = tl.load(x_ptr + tl.arange(0, 1))
    if t > 0:  # a one-element tensor as a condition, as Triton takes it
        tl.store(out_ptr, t.item() * 2)
    else:
        tl.store(out_ptr, -1)


@pytest.mark.parametrize("c", [0, 1, 2])
def test_runtime_conditional_expression(rng, c):
    x = rng.standard_normal(8).astype(np.float32)
    out = np.full(8, np.nan, np.float32)
    ifexp_kernel[(1,)](x, out, c, 8)
    ref = (x if c > 0 else -np.ones(8, np.float32)) * (1.5 if c > 1 else 2)
    assert np.allclose(out, ref)


@pytest.mark.filterwarnings("ignore:.*one-element tensor")  # Triton warns too; tested elsewhere
@pytest.mark.parametrize("v", [3, -2])
def test_one_element_condition_and_item(v):
    out = np.zeros(1, np.int32)
    one_element_kernel[(1,)](np.array([v], np.int32), out)
    assert out[0] == (2 * v if v > 0 else -1)


@triton.jit
def dot_types_kernel(a_ptr, b_ptr, c_ptr, OUT: tl.constexpr, EXPECT: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    c = tl.dot(a, b, out_dtype=OUT)
    tl.static_assert(c.dtype == EXPECT)
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], c)


@pytest.mark.parametrize("dt,out,expect", [
    (np.int8, tl.int8, tl.int32),        # integers accumulate in int32, whatever out_dtype
    (np.float32, tl.float16, tl.float32),  # fp32 inputs: fp32
    (np.float16, tl.float16, tl.float16),  # fp16 inputs: out_dtype
])
def test_dot_result_types(rng, dt, out, expect):
    a = rng.integers(-3, 4, (16, 16)).astype(dt)
    b = rng.integers(-3, 4, (16, 16)).astype(dt)
    c = np.zeros((16, 16), np.int32 if expect == tl.int32 else dt)
    dot_types_kernel[(1,)](a, b, c, OUT=out, EXPECT=expect)
    assert (c.astype(np.int64) == a.astype(np.int64) @ b.astype(np.int64)).all()


def test_dot_bfloat16_out_dtype_is_refused():
    a = np.zeros((16, 16), np.float32)
    with pytest.raises(triton.CompilationError, match="out_dtype=bfloat16 is unsupported"):
        dot_types_kernel[(1,)](a, a, a, OUT=tl.bfloat16, EXPECT=tl.float32)


@triton.jit
def imprecise_dot_kernel(a_ptr, b_ptr, c_ptr, Q: tl.constexpr):
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
    tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot(a, b, max_num_imprecise_acc=Q))


@pytest.mark.parametrize("q", [None, 0, 16, 32])
@pytest.mark.parametrize("fp8", [True, False])
def test_dot_max_num_imprecise_acc(rng, q, fp8):
    # Exact small integers: fp8 products sum exactly whatever the promotion.
    codes = rng.integers(-4, 5, (2, 32, 32)).astype(np.float16)
    c = np.full((32, 32), np.nan, np.float32)
    if fp8:
        enc = np.zeros((2, 32, 32), np.uint8)
        for i in range(2):  # float16 -> e5m2 is the float16's high byte
            enc[i] = codes[i].view(np.uint16) >> 8
        a, b = (triton.reinterpret(enc[i], tl.float8e5) for i in range(2))
    else:
        a, b = codes
    imprecise_dot_kernel[(1,)](a, b, c, Q=q)
    np.testing.assert_array_equal(c, codes[0].astype(np.float64) @ codes[1].astype(np.float64))


def test_dot_max_num_imprecise_acc_beyond_k_is_refused():
    a = triton.reinterpret(np.zeros((32, 32), np.uint8), tl.float8e4nv)
    c = np.zeros((32, 32), np.float32)
    with pytest.raises(triton.CompilationError, match=r"max_num_imprecise_acc \(64\) must be <= K \(32\)"):
        imprecise_dot_kernel[(1,)](a, a, c, Q=64)
    # Other types ignore it, as in Triton.
    imprecise_dot_kernel[(1,)](np.zeros((32, 32), np.float16), np.zeros((32, 32), np.float16), c, Q=64)


@triton.jit
def attrs_kernel(out_ptr, X: tl.constexpr):
    i = tl.arange(0, 4)
    t = tl.zeros((4,), tl.float32)
    tl.static_assert(hasattr(tl, "load") and not hasattr(tl, "no_such_function"))
    tl.static_assert(hasattr(t, "dtype") and not hasattr(t, "no_such_attribute"))
    bits = getattr(tl, "float16").primitive_bitwidth + getattr(tl, "nothing", 100)
    tl.store(out_ptr + i, i * 0 + bits + X)


def test_getattr_hasattr_on_compile_time_objects():
    out = np.zeros(4, np.int32)
    attrs_kernel[(1,)](out, X=5)
    assert (out == 16 + 100 + 5).all()  # fp16 bits, the default, X


def test_compiled_kernel_metadata_fields():
    out = np.zeros(4, np.int32)
    k = fill_like_kernel[(1,)](out, V=3)
    m = k.metadata
    assert m.target == triton.GPUTarget("cpu", "interpreter", 32)
    assert m.name == "fill_like_kernel" and m.num_ctas == 1 and m.cluster_dims == (1, 1, 1)
    assert m.global_scratch_size == 0 and m.backend_name == "cpu"
    assert "num_warps" in m._asdict()


@triton.jit
def fill_like_kernel(out_ptr, V: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, 4), tl.full((4,), V, tl.int32))


# ---------------------------------------------------------------------------- names in kernels


@triton.jit
def propagate_nan_kernel(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    a = tl.load(a_ptr + i)
    b = tl.load(b_ptr + i)
    tl.store(out_ptr + i, tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + N + i, tl.maximum(a, b, propagate_nan=tl.PropagateNan.NONE))


def test_propagate_nan_names(rng):
    a = rng.standard_normal(16).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    a[::3] = np.nan
    out = np.full(32, -1, np.float32)
    propagate_nan_kernel[(1,)](a, b, out, N=16)
    np.testing.assert_array_equal(out[:16], np.minimum(a, b))  # NaN wins
    np.testing.assert_array_equal(out[16:], np.fmax(a, b))  # NaN ignored


@triton.jit
def literal_dtype_kernel(x_ptr, out_ptr, N: tl.constexpr):
    one = 1
    big = 1 << 40
    half = 0.5
    tl.static_assert(one.dtype == tl.int32 and big.dtype == tl.int64 and half.dtype == tl.float32)
    tl.static_assert(isinstance(x_ptr.dtype, tl.pointer_type))
    tl.static_assert(not isinstance(one.dtype, tl.pointer_type))
    tl.static_assert(x_ptr.dtype == tl.pointer_type(tl.float32))
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i, cache_modifier=".cs")
    tl.store(out_ptr + i, x * half.to(tl.float16) + tl.full([N], one, dtype=one.dtype))


def test_literal_dtypes_and_pointer_types(rng):
    x = rng.standard_normal(16).astype(np.float32)
    out = np.zeros(16, np.float32)
    literal_dtype_kernel[(1,)](x, out, N=16)
    np.testing.assert_allclose(out, x * 0.5 + 1, rtol=1e-6)


@triton.jit
def add_offsets(x, offs: tl.constexpr, scale: tl.constexpr):
    return x + offs * scale


@triton.jit
def constexpr_hint_kernel(out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    # A tile for a parameter annotated tl.constexpr: the annotation is a
    # hint for callees, as in Triton.
    tl.store(out_ptr + i, add_offsets(tl.zeros([N], tl.int32), i, 3))


def test_constexpr_annotation_of_a_callee_is_a_hint():
    out = np.full(8, -1, np.int32)
    constexpr_hint_kernel[(1,)](out, N=8)
    assert out.tolist() == [3 * i for i in range(8)]


@triton.jit
def type_attr_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.static_assert(x.type.element_ty == tl.float32 and x.type.scalar == tl.float32)
    tl.store(out_ptr + tl.arange(0, N), (x * 2).to(out_ptr.type.element_ty))


def test_type_attribute_of_tensors_and_pointers(rng):
    x = rng.standard_normal(16).astype(np.float32)
    out = np.zeros(16, np.float16)
    type_attr_kernel[(1,)](x, out, N=16)
    np.testing.assert_array_equal(out, (x * 2).astype(np.float16))


@triton.jit
def constexpr_type_kernel(out_ptr, LIT: tl.constexpr, TENSOR_TY: tl.constexpr):
    from_annotation: tl.constexpr = LIT
    tl.static_assert(LIT.type == tl.core.constexpr_type(LIT))
    tl.static_assert(from_annotation.type == tl.core.constexpr_type(LIT))
    # A plain assignment holds a scalar tensor in Triton: its type is the
    # literal's dtype. It stays usable as a compile-time value here.
    plain = LIT
    tl.static_assert(plain.type == TENSOR_TY)
    tl.static_assert(isinstance(plain, tl.tensor) and not isinstance(plain, tl.constexpr))
    tl.static_assert(isinstance(LIT, tl.constexpr) and not isinstance(LIT, tl.tensor))
    tl.static_assert(isinstance(LIT.type, tl.constexpr_type))
    unpacked, other = LIT, 2
    tl.static_assert(unpacked.type == TENSOR_TY and other.type == tl.int32)
    tl.store(out_ptr, plain)


@pytest.mark.parametrize("lit,tensor_ty,want", [
    (10, tl.int32, 10.0), (2**40, tl.int64, 2.0**40), (32.5, tl.float32, 32.5),
    (1e50, tl.float64, np.inf), (True, tl.int1, 1.0)])
def test_type_of_constexpr_and_of_assigned_constants(lit, tensor_ty, want):
    out = np.zeros(1, np.float32)
    constexpr_type_kernel[(1,)](out, LIT=lit, TENSOR_TY=tensor_ty)
    assert out[0] == want


def test_constexpr_type_on_the_host():
    from tessera.language.core import constexpr_type
    assert tl.constexpr(5).type == constexpr_type(5)
    assert constexpr_type(tl.constexpr(5)) == constexpr_type(5)
    assert constexpr_type(5) != constexpr_type(6) and constexpr_type(5) != 5
    assert repr(constexpr_type("x")) == "constexpr_type['x']"


@triton.jit
def constexpr_type_of_runtime_kernel(out_ptr, n, ASSIGNED: tl.constexpr):
    x = 3
    tl.static_assert(tl.core.constexpr_type(x if ASSIGNED else n) == tl.core.constexpr_type(3))
    tl.store(out_ptr, n)


@pytest.mark.parametrize("assigned", [False, True])
def test_constexpr_type_of_a_runtime_value_is_refused(assigned):
    out = np.zeros(1, np.int32)
    with pytest.raises(triton.CompilationError, match="tl.constexpr_type takes a compile-time value"):
        constexpr_type_of_runtime_kernel[(1,)](out, 3, ASSIGNED=assigned)


@triton.jit
def assigned_arithmetic_kernel(out_ptr):
    # Triton holds a scalar int32 tensor in each name: // and % truncate
    # toward zero, int32 wraps; a constexpr keeps Python's integers.
    x = -7
    big = 2147483647
    tl.store(out_ptr + 0, x // 2)
    tl.store(out_ptr + 1, x % 2)
    tl.store(out_ptr + 2, big + 1)
    tl.store(out_ptr + 3, -x)
    tl.store(out_ptr + 4, x << 2)
    c: tl.constexpr = -7
    tl.store(out_ptr + 5, c // 2)
    tl.store(out_ptr + 6, c % 2)
    low = -2147483648
    tl.store(out_ptr + 7, -low)


def test_arithmetic_on_assigned_names_is_tensor_arithmetic():
    out = np.zeros(8, np.int64)
    assigned_arithmetic_kernel[(1,)](out)
    assert out.tolist() == [-3, -1, -(2**31), 7, -28, -4, 1, -(2**31)]


@triton.jit
def float_literal_kernel(out_ptr, n):
    tiny = 1e-40  # below fp32's normal range: fp64, as in Triton
    for _ in range(n):
        tiny = tiny * 2.0
    tl.static_assert(tiny.dtype == tl.float64)
    tl.store(out_ptr, tiny)


def test_float_literal_out_of_fp32_range_is_fp64():
    out = np.zeros(1, np.float64)
    float_literal_kernel[(1,)](out, 3)
    assert out[0] == 8e-40


@triton.jit
def void_ifexp_kernel(x_ptr, y_ptr, out_ptr):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, tl.load(x_ptr)) if pid % 2 == 0 else tl.store(out_ptr + pid,
                                                                          tl.load(y_ptr))


def test_conditional_expression_of_two_stores():
    """Only the chosen side runs: even programs store x, odd ones y."""
    out = np.full(4, -1, np.int32)
    void_ifexp_kernel[(4,)](np.array([5], np.int32), np.array([9], np.int32), out)
    assert out.tolist() == [5, 9, 5, 9]


@triton.jit
def int_to_pointer_kernel(addrs, x_unused, out, N: tl.constexpr):
    # Triton's grouped GEMM tutorial: addresses in an int64 tensor, made
    # pointers with .to(tl.pointer_type(...)).
    p = tl.load(addrs + 1).to(tl.pointer_type(tl.float32))
    tl.store(out + tl.arange(0, N), tl.load(p + tl.arange(0, N)) * 2)


def test_integers_become_pointers(rng):
    x = rng.standard_normal(8).astype(np.float32)
    out = np.full(8, np.nan, np.float32)
    addrs = np.array([0, x.ctypes.data], np.int64)
    int_to_pointer_kernel[(1,)](addrs, x, out, N=8)
    np.testing.assert_array_equal(out, x * 2)
    # As on the GPU, a pointer made from an integer may reach memory that was
    # not passed to the kernel (the tutorial passes only the address table).
    other = rng.standard_normal(8).astype(np.float32)
    addrs[1] = other.ctypes.data
    out[:] = np.nan
    int_to_pointer_kernel[(1,)](addrs, x, out, N=8)
    np.testing.assert_array_equal(out, other * 2)


@triton.jit
def pointer_select_kernel(cond_ptr, a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    # Triton's test_where with pointers: int64 addresses made tl.pi32_t
    # pointers, chosen by tl.where, stored back as their addresses.
    i = tl.arange(0, N)
    pa = tl.load(a_ptr + i).to(tl.pi32_t)
    pb = tl.load(b_ptr + i).to(tl.pi32_t)
    tl.store(out_ptr + i, tl.where(tl.load(cond_ptr + i), pa, pb))


def test_pointers_selected_and_stored_as_addresses(rng):
    cond = rng.random(16) < 0.5
    a = rng.integers(-2**62, 2**62, 16, dtype=np.int64)
    b = rng.integers(-2**62, 2**62, 16, dtype=np.int64)
    out = np.zeros(16, np.int64)
    pointer_select_kernel[(1,)](cond, a, b, out, N=16)
    assert (out == np.where(cond, a, b)).all()
    assert tl.pi32_t == tl.pointer_type(tl.int32)


@triton.jit
def pointer_into_int32_kernel(x_ptr, out_ptr):
    tl.store(out_ptr, x_ptr)


def test_storing_pointers_into_int32_is_refused():
    with pytest.raises(triton.CompilationError, match="storing pointers into int32 is not supported"):
        pointer_into_int32_kernel[(1,)](np.zeros(1, np.float32), np.zeros(1, np.int32))


def test_integer_made_pointer_to_nowhere_is_an_error_not_a_crash():
    out = np.full(8, np.nan, np.float32)
    for bad in (16, 2**47 + 64):
        addrs = np.array([0, bad], np.int64)
        with pytest.raises(triton.KernelError,
                           match="out-of-bounds load.*outside every buffer passed to the kernel "
                           "and outside the process's readable memory"):
            int_to_pointer_kernel[(1,)](addrs, out, out, N=8)
    assert np.isnan(out).all()


@triton.jit
def grouped_matmul_kernel(a_ptrs, b_ptrs, c_ptrs, sizes, lds, G: tl.constexpr,
                          BLOCK: tl.constexpr):
    # The shape of Triton's grouped GEMM tutorial: per-group matrices reached
    # only through int64 address tables, one program per output tile.
    tile = tl.program_id(0)
    done = 0
    for g in range(G):
        m = tl.load(sizes + 3 * g)
        n = tl.load(sizes + 3 * g + 1)
        k = tl.load(sizes + 3 * g + 2)
        tiles_m = tl.cdiv(m, BLOCK)
        tiles = tiles_m * tl.cdiv(n, BLOCK)
        if tile >= done and tile < done + tiles:
            a = tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))
            b = tl.load(b_ptrs + g).to(tl.pointer_type(tl.float16))
            c = tl.load(c_ptrs + g).to(tl.pointer_type(tl.float16))
            lda = tl.load(lds + 3 * g)
            ldb = tl.load(lds + 3 * g + 1)
            ldc = tl.load(lds + 3 * g + 2)
            rm = ((tile - done) % tiles_m) * BLOCK + tl.arange(0, BLOCK)
            rn = ((tile - done) // tiles_m) * BLOCK + tl.arange(0, BLOCK)
            rk = tl.arange(0, BLOCK)
            acc = tl.zeros((BLOCK, BLOCK), tl.float32)
            for k0 in range(0, tl.cdiv(k, BLOCK)):
                kk = k0 * BLOCK + rk
                x = tl.load(a + rm[:, None] * lda + kk[None, :],
                            mask=(rm[:, None] < m) & (kk[None, :] < k), other=0.0)
                y = tl.load(b + kk[:, None] * ldb + rn[None, :],
                            mask=(kk[:, None] < k) & (rn[None, :] < n), other=0.0)
                acc += tl.dot(x, y)
            tl.store(c + rm[:, None] * ldc + rn[None, :], acc.to(tl.float16),
                     mask=(rm[:, None] < m) & (rn[None, :] < n))
        done += tiles


def test_grouped_matmul_through_address_tables(rng):
    shapes = [(40, 24, 56), (16, 48, 16), (33, 17, 70)]
    block = 16
    a = [rng.standard_normal((m, k)).astype(np.float16) for m, n, k in shapes]
    b = [rng.standard_normal((k, n)).astype(np.float16) for m, n, k in shapes]
    c = [np.full((m, n), np.nan, np.float16) for m, n, k in shapes]
    table = lambda arrays: np.array([x.ctypes.data for x in arrays], np.int64)  # noqa: E731
    sizes = np.array(shapes, np.int32).ravel()
    lds = np.array([(x.shape[1], y.shape[1], z.shape[1]) for x, y, z in zip(a, b, c)],
                   np.int32).ravel()
    tiles = sum(-(-m // block) * -(-n // block) for m, n, k in shapes)
    grouped_matmul_kernel[(tiles,)](table(a), table(b), table(c), sizes, lds, G=len(shapes),
                                    BLOCK=block)
    for x, y, z in zip(a, b, c):
        want = x.astype(np.float64) @ y.astype(np.float64)
        np.testing.assert_allclose(z.astype(np.float64), want, rtol=2e-3, atol=2e-2)


@triton.jit
def repeat_kernel(x_ptr, out, RANK: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[8] * RANK, strides=[8, 1], block_shape=[8, 8])
    tile = desc.load([0] * RANK)  # Triton's test_cat_nd writes offsets so
    pair = (3, 4) * 2
    empty = (1,) * 0 * 5
    tl.static_assert(len(pair) == 4 and len(empty) == 0 and len(2 * [7]) == 2)
    rows = tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :]
    tl.store(out + rows, tile + pair[3] + len(3 * (1, 2)))


def test_sequence_repetition(rng):
    x = rng.integers(-100, 100, (8, 8)).astype(np.int32)
    out = np.full((8, 8), -1, np.int32)
    repeat_kernel[(1,)](x, out, RANK=2)
    np.testing.assert_array_equal(out, x + 4 + 6)


@triton.jit
def repeat_too_long_kernel(out):
    t = (0, 1) * 100000
    tl.store(out, len(t))


def test_sequence_repetition_has_a_bound():
    with pytest.raises(triton.CompilationError,
                       match="a tuple repeated 100000 times has more than 65536 elements"):
        repeat_too_long_kernel[(1,)](np.zeros(1, np.int32))


@triton.jit
def cat_dim_kernel(x_ptr, y_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                   DIM: tl.constexpr):
    i = tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C + \
        tl.arange(0, C)[None, None, :]
    z = tl.cat(tl.load(x_ptr + i), tl.load(y_ptr + i), dim=DIM)
    sa: tl.constexpr = A * 2 if DIM == 0 else A
    sb: tl.constexpr = B * 2 if DIM == 1 else B
    sc: tl.constexpr = C * 2 if DIM == 2 else C
    o = tl.arange(0, sa)[:, None, None] * (sb * sc) + tl.arange(0, sb)[None, :, None] * sc + \
        tl.arange(0, sc)[None, None, :]
    tl.store(out_ptr + o, z)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cat_along_a_dim_keeps_the_order(rng, dim):
    # Triton 3.6's tl.cat(x, y, dim=...): np.concatenate's answer.
    x = rng.standard_normal((2, 4, 8)).astype(np.float32)
    y = rng.standard_normal((2, 4, 8)).astype(np.float32)
    want = np.concatenate([x, y], axis=dim)
    out = np.full(want.shape, np.nan, np.float32)
    cat_dim_kernel[(1,)](x, y, out, A=2, B=4, C=8, DIM=dim % 3)
    np.testing.assert_array_equal(out, want)


@triton.jit
def batched_dot_kernel(x_ptr, y_ptr, z_ptr, RANK: tl.constexpr, TRANS_A: tl.constexpr,
                       TRANS_B: tl.constexpr):
    n: tl.constexpr = 64 << RANK  # 2^(RANK-2) matrices of 16 x 16
    x = tl.load(x_ptr + tl.arange(0, n)).reshape([2] * (RANK - 2) + [16, 16])
    y = tl.load(y_ptr + tl.arange(0, n)).reshape([2] * (RANK - 2) + [16, 16])
    if TRANS_A:
        x = tl.trans(x)  # no dims: the last two swap, whatever the rank
    if TRANS_B:
        y = tl.trans(y)
    tl.store(z_ptr + tl.arange(0, n), tl.dot(x, y).reshape([n]))


@pytest.mark.parametrize("rank", [2, 3, 4, 5])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True)])
def test_dot_over_several_batch_dims(rng, rank, trans_a, trans_b):
    # Triton 3.6's N-D dot: every leading dim is a batch dim.
    shape = (2,) * (rank - 2) + (16, 16)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    z = np.full(shape, np.nan, np.float32)
    batched_dot_kernel[(1,)](x.ravel(), y.ravel(), z.ravel(), RANK=rank, TRANS_A=trans_a,
                             TRANS_B=trans_b)
    a = np.swapaxes(x, -1, -2) if trans_a else x
    b = np.swapaxes(y, -1, -2) if trans_b else y
    np.testing.assert_allclose(z, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-2,
                               atol=1e-2)


@triton.jit
def pick_second(a, b, second):
    if second:
        return b
    return a


@triton.jit
def const_pointer_kernel(in_ptr: tl.const, out, c_out: tl.const, choose, N: tl.constexpr,
                         MODE: tl.constexpr):
    o = tl.arange(0, N)
    val = tl.load(in_ptr + o)  # reading through tl.const is fine
    if MODE == "if":
        if choose:
            final = c_out
        else:
            final = out
    elif MODE == "ternary":
        final = c_out if choose else out
    elif MODE == "call":
        final = pick_second(out, c_out, choose)
    elif MODE == "loop":
        final = out
        p = c_out
        for i in range(2):
            p += 0
        tl.atomic_add(p + o, val)
    else:
        final = c_out + 1 - 1
    tl.store(final + o, val)


@triton.jit
def const_pointer_pick_kernel(in_ptr: tl.const, out, c_out: tl.const, N: tl.constexpr,
                              CHOOSE: tl.constexpr):
    o = tl.arange(0, N)
    # A compile-time choice: only the chosen pointer is typed.
    final = c_out if CHOOSE else out
    tl.store(final + o, tl.load(in_ptr + o))


def test_const_pointer_chosen_at_compile_time(rng):
    x = rng.standard_normal(8).astype(np.float32)
    out, c_out = np.full(8, np.nan, np.float32), np.zeros(8, np.float32)
    const_pointer_pick_kernel[(1,)](x, out, c_out, N=8, CHOOSE=False)
    np.testing.assert_array_equal(out, x)
    assert not c_out.any()
    with pytest.raises(triton.CompilationError, match="Cannot store to a constant pointer"):
        const_pointer_pick_kernel[(1,)](x, out, c_out, N=8, CHOOSE=True)


@pytest.mark.parametrize("mode,error", [
    ("if", "Mismatched type for final: a tl.const pointer in one branch"),
    ("ternary", "Ternary expression with dynamic condition has inconsistent type"),
    ("call", "Return type mismatch: "),
    ("loop", "tl.atomic_add: Cannot store to a constant pointer"),
    ("direct", "tl.store: Cannot store to a constant pointer"),
])
def test_const_pointer_parameters(rng, mode, error):
    # Triton's tl.const: a read-only pointer parameter; writes through it,
    # or merging it with a writable pointer at run time, do not compile.
    x = rng.standard_normal(8).astype(np.float32)
    out, c_out = np.full(8, np.nan, np.float32), np.zeros(8, np.float32)
    with pytest.raises(triton.CompilationError) as e:
        const_pointer_kernel[(1,)](x, out, c_out, 2, N=8, MODE=mode)
    assert error in e.value.error_message


@triton.jit
def licm_hint_kernel(out, n):
    i = 0
    total = 0
    while tl.condition(i < n, disable_licm=True):
        total += i * 3
        i += 1
    for j in tl.range(0, n, disable_licm=True):
        total += j
    tl.store(out, total)


def test_loop_condition_and_licm_hints():
    # Triton's tl.condition(c, disable_licm=...) and tl.range(disable_licm=):
    # scheduling hints; the loops compute as written.
    out = np.zeros(1, np.int32)
    licm_hint_kernel[(1,)](out, 7)
    assert out[0] == sum(3 * i for i in range(7)) + sum(range(7))


@triton.jit
def sign_of(x):
    # Different constants returned from the branches of a run-time if become
    # int32 tensors, as Triton's returns do.
    if x > 0:
        return 1
    else:
        return -1


@triton.jit
def sign_kernel(X, Out):
    tl.store(Out, sign_of(tl.load(X)))


@pytest.mark.parametrize("v,want", [(3.5, 1), (-2.0, -1), (0.0, -1)])
def test_constants_returned_from_runtime_branches(v, want):
    out = np.full(1, 99, np.int32)
    sign_kernel[(1,)](np.array([v], np.float32), out)
    assert out[0] == want


# tl.exp2 below f64 is the GPU's ex2.approx.ftz.f32 (as Triton lowers it): a
# result below 2^-126 is +0, on the interpreter and in constant folding too,
# so a bfloat16 (which keeps such values) reads the same on both back ends.
EXP2_INPUTS = [-120.0, -125.5, -126.0, -127.0, -130.0, -149.0, -200.0, 0.0, 3.5]  # exact in bf16


def exp2_flushed(x):
    r = np.exp2(np.asarray(x, np.float64))
    return np.where(r < 2.0 ** -126, 0.0, r)


@triton.jit
def exp2_kernel(x_ptr, out_ptr, folded_ptr, N: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    tl.store(out_ptr + r, tl.exp2(x.to(tl.float32)).to(x.dtype))
    tl.store(folded_ptr + r, tl.exp2(tl.full((N,), C, tl.float32)).to(x.dtype))


def exp2_case(dtype):
    """(inputs, expected) as float64 NumPy arrays for a 16-element launch."""
    x = np.array(EXP2_INPUTS + [0.0] * (16 - len(EXP2_INPUTS)), np.float64)
    return x, exp2_flushed(x)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_exp2_flushes_subnormal_results(dtype):
    if dtype == "bfloat16" and BF16 is None:
        pytest.skip("needs ml_dtypes for bfloat16 arrays")
    np_dtype = np.float32 if dtype == "float32" else BF16
    x, want = exp2_case(dtype)
    out = np.full(16, np.nan, np_dtype)
    folded = np.full(16, np.nan, np_dtype)
    exp2_kernel[(1,)](x.astype(np_dtype), out, folded, N=16, C=-130.0)
    np.testing.assert_array_equal(out.astype(np.float64), want.astype(np_dtype).astype(np.float64))
    assert (folded.astype(np.float64) == 0).all()
    # The normal range is untouched: 2^-120 and 2^-126 are exact.
    assert float(out[0]) == 2.0 ** -120 and float(out[2]) == 2.0 ** -126


@triton.jit
def strided_copy_kernel(x_ptr, out_ptr, start, stride, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.load(x_ptr + start + i * stride))


def test_only_positive_multiples_of_16_specialise_as_divisible():
    # A row stride specialised as divisible by 16 may be read through the
    # tensor memory accelerator, which takes no zero (broadcast) or negative
    # stride: those compile a specialisation of their own.
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(4, np.float32)
    irs = {}
    for start, stride in ((0, 16), (0, 0), (48, -16)):
        k = strided_copy_kernel[(1,)](x, out, start, stride, N=4)
        np.testing.assert_array_equal(out, x[start + np.arange(4) * stride])
        irs[stride] = k.asm["ttir"].splitlines()[0]
    assert "%stride: i32 {divisibility = 16}" in irs[16]
    for stride in (0, -16):
        assert "%stride: i32 {" not in irs[stride], irs[stride]


@triton.jit
def bad_axis_kernel(out):
    tl.store(out, tl.program_id(20))


def test_compile_error_cause_is_its_sentence():
    # Triton programs read the front end's error off __cause__.
    with pytest.raises(triton.TritonError) as e:
        bad_axis_kernel[(1,)](np.zeros(1, np.int32))
    cause = e.value.__cause__
    assert isinstance(cause, ValueError)
    assert str(cause) == "program_id axis must be 0, 1, or 2 but got 20"
    assert "^" in str(e.value)  # the error itself is still the rendered diagnostic
    # A cause given with `raise ... from` is kept.
    try:
        raise triton.CompilationError("x.py:1:1: error: outer") from KeyError("inner")
    except triton.CompilationError as err:
        assert isinstance(err.__cause__, KeyError)


def test_compile_error_under_triton_interpret_is_an_interpreter_error(monkeypatch):
    # Triton runs kernels as Python under TRITON_INTERPRET=1 and reports
    # their errors as InterpreterError; ours is that and a CompilationError.
    from tessera.runtime.errors import InterpreterError
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    with pytest.raises(InterpreterError) as e:
        bad_axis_kernel[(1,)](np.zeros(1, np.int32))
    assert isinstance(e.value, triton.CompilationError)
    assert str(e.value.__cause__) == "program_id axis must be 0, 1, or 2 but got 20"
    monkeypatch.delenv("TRITON_INTERPRET")
    with pytest.raises(triton.CompilationError) as e:
        bad_axis_kernel[(1,)](np.zeros(1, np.int32))
    assert not isinstance(e.value, InterpreterError)


@triton.jit
def named_expression_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if (count := tl.sum((m := offs < n).to(tl.int32), 0)) > 0:  # the walrus operator
        x = tl.load(x_ptr + offs, mask=m, other=0.0)
    else:
        x = tl.zeros([BLOCK], tl.float32)
    z = (y := x * 2) + count
    tl.store(out_ptr + offs, z + y + (half := BLOCK // 2), mask=m)


def test_named_expressions(rng):
    x = rng.standard_normal(16).astype(np.float32)
    out = np.full(16, np.nan, np.float32)
    n = int(rng.integers(1, 16))
    named_expression_kernel[(1,)](x, out, n, BLOCK=16)
    np.testing.assert_allclose(out[:n], 4 * x[:n] + n + 8, rtol=1e-6)
    assert np.isnan(out[n:]).all()


@triton.jit
def constexpr_min_max_kernel(out_ptr, A: tl.constexpr, B: tl.constexpr):
    lo: tl.constexpr = min(A, B, 3)
    hi: tl.constexpr = max(A, B)
    tl.store(out_ptr, lo)
    tl.store(out_ptr + 1, hi)


def test_builtin_min_max_of_constants():
    out = np.full(2, np.nan, np.float32)
    constexpr_min_max_kernel[(1,)](out, A=1.5, B=-2.0)
    assert out.tolist() == [-2.0, 1.5]
    # The result of Python's min/max would depend on the argument order.
    for a, b, what in ((1.0, float("nan"), "NaN values"), (1.0, -0.0, "negative zero")):
        with pytest.raises(triton.CompilationError, match=f"compile-time min does not support {what}"):
            constexpr_min_max_kernel[(1,)](out, A=a, B=b)


@triton.constexpr_function
def plus_one(v):
    return v + 1


@triton.jit
def declared_constexpr_kernel(out_ptr):
    y: tl.constexpr  # declared: later assignments keep y constexpr
    x, y = 0, plus_one(4)
    tl.static_assert(y.type == tl.constexpr_type(5) and x.dtype == tl.int32)
    z: tl.constexpr = 2
    if (z := plus_one(z)) != 3:  # the walrus keeps it too
        tl.static_assert(False)
    tl.store(out_ptr + tl.arange(0, 2), tl.full((2,), y * z, tl.int32) + x)


@triton.jit
def declared_constexpr_runtime_kernel(out_ptr, n):
    m: tl.constexpr
    m = n * 2
    tl.store(out_ptr, m)


def test_declared_constexpr_names_stay_constexpr():
    out = np.zeros(2, np.int32)
    declared_constexpr_kernel[(1,)](out)
    assert out.tolist() == [15, 15]
    with pytest.raises(triton.CompilationError, match="'m' is declared tl.constexpr but is assigned"):
        declared_constexpr_runtime_kernel[(1,)](out, 3)
