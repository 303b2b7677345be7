import triton
import triton.language as tl


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               PREC: tl.constexpr, OUT_DTYPE: tl.constexpr, USE_ACC: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if USE_ACC:
        c = tl.load(c_ptr + rm[:, None] * N + rn[None, :]).to(OUT_DTYPE)
        r = tl.dot(a, b, acc=c, input_precision=PREC, out_dtype=OUT_DTYPE)
    else:
        r = tl.dot(a, b, input_precision=PREC, out_dtype=OUT_DTYPE)
    tl.static_assert(r.dtype == OUT_DTYPE)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], r)


@triton.jit
def dot3d_kernel(a_ptr, b_ptr, out_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                 K: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rka = tl.arange(0, K)[None, None, :]
    rkb = tl.arange(0, K)[None, :, None]
    a = tl.load(a_ptr + rb * M * K + rm * K + rka)
    b = tl.load(b_ptr + rb * K * N + rkb * N + rn)
    r = tl.dot(a, b, input_precision="ieee")
    tl.store(out_ptr + rb * M * N + rm * N + rn, r)
