import triton
import triton.language as tl


@triton.jit
def load_other_kernel(x_ptr, out_ptr, n, OTHER: tl.constexpr, BLOCK: tl.constexpr):
    # The whole block is stored; lanes past n read OTHER (or 0 without other=).
    offs = tl.arange(0, BLOCK)
    if OTHER is None:
        x = tl.load(x_ptr + offs, mask=offs < n)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=OTHER)
    tl.store(out_ptr + offs, x)


@triton.jit
def scalar_ptr_kernel(x_ptr, out_ptr, i):
    # Scalar loads and stores through pointers; program p writes out[p].
    pid = tl.program_id(0)
    a = tl.load(x_ptr + i)
    b = tl.load(x_ptr + pid)
    tl.store(out_ptr + pid, a * 10 + b)


@triton.jit
def masked_store_2d_kernel(out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    val = (rm[:, None] * 1000 + rn[None, :]).to(tl.float32)
    tl.store(out_ptr + rm[:, None] * stride + rn[None, :], val, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def grid_ids_kernel(out_ptr):
    # Each program writes its (x, y, z) ids and the grid size.
    px = tl.program_id(0)
    py = tl.program_id(1)
    pz = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    nz = tl.num_programs(2)
    lin = (pz * ny + py) * nx + px
    base = out_ptr + lin * 6
    tl.store(base + 0, px)
    tl.store(base + 1, py)
    tl.store(base + 2, pz)
    tl.store(base + 3, nx)
    tl.store(base + 4, ny)
    tl.store(base + 5, nz)


@triton.jit
def full_kernel(out_ptr, V: tl.constexpr, DT: tl.constexpr, N: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, N), tl.full([N], V, DT))


@triton.jit
def hints_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, cache_modifier=".cg", eviction_policy="evict_last")
    tl.debug_barrier()
    tl.store(out_ptr + offs, x + 1, mask=mask, cache_modifier=".cs")
