import triton
import triton.language as tl

SCALE = 2  # overridden by a global constant in the tests


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * SCALE, mask=mask)


@triton.jit
def alias_kernel(out_ptr):
    # `lang` is provided as a module alias global for triton.language.
    offs = lang.arange(0, 16)  # noqa: F821
    tl.store(out_ptr + offs, offs)


@triton.jit
def constexpr_kinds_kernel(out_ptr, I: tl.constexpr, F: tl.constexpr, B: tl.constexpr,
                           S: tl.constexpr, D: tl.constexpr, T: tl.constexpr, NONE: tl.constexpr):
    # Stores [I, F, B, S == "yes", element size of D, T[0] + T[1], NONE is None] as fp32.
    v0 = I * 1.0
    v1 = F
    v2 = 1.0 if B else 0.0
    v3 = 1.0 if S == "yes" else 0.0
    v4 = tl.zeros([1], dtype=D).to(tl.float32) + (8.0 if D == tl.float64 else 2.0)
    v5 = (T[0] + T[1]) * 1.0
    v6 = 1.0 if NONE is None else 0.0
    tl.store(out_ptr + 0, v0)
    tl.store(out_ptr + 1, v1)
    tl.store(out_ptr + 2, v2)
    tl.store(out_ptr + 3, v3)
    tl.store(out_ptr + 4 + tl.arange(0, 1), v4)
    tl.store(out_ptr + 5, v5)
    tl.store(out_ptr + 6, v6)


@triton.jit
def scalar_types_kernel(out_ptr, a, b, c):
    # a: i64, b: fp64, c: u32
    tl.store(out_ptr + 0, a.to(tl.float64))
    tl.store(out_ptr + 1, b)
    tl.store(out_ptr + 2, c.to(tl.float64))
