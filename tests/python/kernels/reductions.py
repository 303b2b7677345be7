import triton
import triton.language as tl


@triton.jit
def add_combine(a, b):
    return a + b


@triton.jit
def max_with_index_combine(v1, i1, v2, i2):
    take1 = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


@triton.jit
def reduce_kernel(x_ptr, out_ptr, idx_ptr, M: tl.constexpr, N: tl.constexpr, OP: tl.constexpr,
                  AXIS: tl.constexpr, KEEP: tl.constexpr):
    # Reduces an [M, N] tile; the result (shape depends on AXIS/KEEP) is stored
    # flat, row-major.
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    idx = tl.zeros([1], dtype=tl.int32)
    if OP == "sum":
        r = tl.sum(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "max":
        r = tl.max(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "min":
        r = tl.min(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "argmax":
        r = tl.argmax(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "argmin":
        r = tl.argmin(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "xor_sum":
        r = tl.xor_sum(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "reduce_add":
        r = tl.reduce(x, AXIS, add_combine, keep_dims=KEEP)
    elif OP == "max_idx":
        r, idx = tl.max(x, axis=AXIS, return_indices=True, keep_dims=KEEP)
    elif OP == "min_idx":
        r, idx = tl.min(x, axis=AXIS, return_indices=True, keep_dims=KEEP)
    elif OP == "reduce_tuple":
        ii = rm[:, None] * N + rn[None, :]  # flat index
        r, idx = tl.reduce((x, ii), AXIS, max_with_index_combine, keep_dims=KEEP)
    else:
        tl.static_assert(False, "unknown OP")
    if AXIS is None:
        if KEEP:
            tl.store(out_ptr + tl.arange(0, 1)[:, None] + tl.arange(0, 1)[None, :], r)
        else:
            tl.store(out_ptr, r)
    elif AXIS == 0:
        if KEEP:
            tl.store(out_ptr + tl.arange(0, 1)[:, None] + rn[None, :], r)
        else:
            tl.store(out_ptr + rn, r)
    else:
        if KEEP:
            tl.store(out_ptr + rm[:, None] + tl.arange(0, 1)[None, :], r)
        else:
            tl.store(out_ptr + rm, r)
    if OP == "max_idx" or OP == "min_idx" or OP == "reduce_tuple":
        if AXIS is None:
            tl.store(idx_ptr, idx)
        elif AXIS == 0:
            tl.store(idx_ptr + rn, idx)
        else:
            tl.store(idx_ptr + rm, idx)


@triton.jit
def sum_dtype_kernel(x_ptr, out_ptr, N: tl.constexpr, DT: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    s = tl.sum(x, axis=0, dtype=DT)
    tl.static_assert(s.dtype == DT)
    tl.store(out_ptr, s)
