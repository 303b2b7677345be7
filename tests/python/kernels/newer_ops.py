"""Kernels for tl functions being added to the front end (shape ops, scans,
sort, atomics, random numbers, block pointers)."""
import triton
import triton.language as tl


@triton.jit
def shape_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, OP: tl.constexpr):
    # x is [M, N]; results are stored flat, row-major.
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    if OP == "trans":
        y = tl.trans(x)
    elif OP == "permute":
        y = tl.permute(x, (1, 0))
    elif OP == "reshape":
        y = tl.reshape(x, (N, M))
    elif OP == "ravel":
        y = tl.ravel(x)
    elif OP == "flip":
        y = tl.flip(x, 1)
    elif OP == "expand_broadcast":
        y = tl.broadcast_to(tl.expand_dims(tl.sum(x, axis=1), 1), (M, N))
    elif OP == "join_ravel":
        y = tl.ravel(tl.join(x, x + 1))
    elif OP == "interleave":
        y = tl.ravel(tl.interleave(x, x * 10))
    else:
        tl.static_assert(False, "unknown OP")
    tl.store(out_ptr + tl.arange(0, M * N * (2 if OP == "join_ravel" or OP == "interleave" else 1)), tl.ravel(y))


@triton.jit
def split_kernel(x_ptr, a_ptr, b_ptr, N: tl.constexpr):
    # x is [N, 2]; split along the last axis.
    rn = tl.arange(0, N)
    r2 = tl.arange(0, 2)
    x = tl.load(x_ptr + rn[:, None] * 2 + r2[None, :])
    a, b = tl.split(x)
    tl.store(a_ptr + rn, a)
    tl.store(b_ptr + rn, b)


@triton.jit
def mul_combine(a, b):
    return a * b


@triton.jit
def scan_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, OP: tl.constexpr, AXIS: tl.constexpr,
                REVERSE: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    if OP == "cumsum":
        y = tl.cumsum(x, axis=AXIS, reverse=REVERSE)
    elif OP == "cumprod":
        y = tl.cumprod(x, axis=AXIS, reverse=REVERSE)
    else:
        y = tl.associative_scan(x, AXIS, mul_combine, reverse=REVERSE)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], y)


@triton.jit
def sort_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], tl.sort(x, dim=1, descending=DESC))


@triton.jit
def atomic_kernel(counter_ptr, hist_ptr, x_ptr, max_ptr, n, BLOCK: tl.constexpr, NBINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(counter_ptr, 1)
    tl.atomic_add(hist_ptr + (x % NBINS), 1, mask=mask)
    tl.atomic_max(max_ptr, tl.max(tl.where(mask, x, -1), axis=0))


@triton.jit
def atomic_cas_lock_kernel(lock_ptr, total_ptr):
    # A spin lock from atomic_cas / atomic_xchg guarding a non-atomic update.
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    t = tl.load(total_ptr)
    tl.store(total_ptr, t + tl.program_id(0))
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def rand_kernel(seed, out_ptr, iout_ptr, nout_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.rand(seed, offs), mask=mask)
    tl.store(iout_ptr + offs, tl.randint(seed, offs), mask=mask)
    tl.store(nout_ptr + offs, tl.randn(seed, offs), mask=mask)


@triton.jit
def block_ptr_kernel(x_ptr, out_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    # Copies an M x N matrix through block pointers with boundary checks.
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    src = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(pm * BM, pn * BN),
                            block_shape=(BM, BN), order=(1, 0))
    dst = tl.make_block_ptr(out_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(pm * BM, pn * BN),
                            block_shape=(BM, BN), order=(1, 0))
    x = tl.load(src, boundary_check=(0, 1), padding_option="zero")
    tl.store(dst, x * 2, boundary_check=(0, 1))


@triton.jit
def block_ptr_advance_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # Row sums of a [1, N] row through an advancing block pointer.
    p = tl.make_block_ptr(x_ptr, shape=(1, N), strides=(N, 1), offsets=(0, 0), block_shape=(1, BLOCK),
                          order=(1, 0))
    acc = tl.zeros([1, BLOCK], dtype=tl.float32)
    for _ in range(0, N, BLOCK):
        acc += tl.load(p, boundary_check=(1,), padding_option="zero")
        p = tl.advance(p, (0, BLOCK))
    tl.store(out_ptr, tl.sum(tl.sum(acc, axis=1), axis=0))
