import triton
import triton.language as tl


@triton.jit
def oob_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs) # unmasked; out of bounds past the buffer
    tl.store(out_ptr + offs, x)


@triton.jit
def oob_store_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs, mask=offs < n) # mask is n, not the buffer


@triton.jit
def bad_arange_kernel(out_ptr):
    offs = tl.arange(0, 100) # not a power of two
    tl.store(out_ptr + offs, offs)


@triton.jit
def undefined_name_kernel(out_ptr):
    tl.store(out_ptr, undefined_thing)  # noqa: F821


@triton.jit
def dot_mismatch_kernel(out_ptr):
    a = tl.zeros([16, 32], dtype=tl.float32)
    b = tl.zeros([16, 16], dtype=tl.float32)
    tl.store(out_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], tl.dot(a, b))


@triton.jit
def static_assert_kernel(out_ptr, N: tl.constexpr):
    tl.static_assert(N % 16 == 0, "N must be a multiple of 16")
    tl.store(out_ptr + tl.arange(0, N), 0)
