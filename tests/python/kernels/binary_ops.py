import triton
import triton.language as tl


@triton.jit
def apply_binary(x, y, OP: tl.constexpr):
    if OP == "add":
        z = x + y
    elif OP == "sub":
        z = x - y
    elif OP == "mul":
        z = x * y
    elif OP == "truediv":
        z = x / y
    elif OP == "floordiv":
        z = x // y
    elif OP == "mod":
        z = x % y
    elif OP == "and":
        z = x & y
    elif OP == "or":
        z = x | y
    elif OP == "xor":
        z = x ^ y
    elif OP == "lshift":
        z = x << y
    elif OP == "rshift":
        z = x >> y
    elif OP == "lt":
        z = x < y
    elif OP == "le":
        z = x <= y
    elif OP == "gt":
        z = x > y
    elif OP == "ge":
        z = x >= y
    elif OP == "eq":
        z = x == y
    elif OP == "ne":
        z = x != y
    elif OP == "maximum":
        z = tl.maximum(x, y)
    elif OP == "minimum":
        z = tl.minimum(x, y)
    elif OP == "fdiv":
        z = tl.fdiv(x, y)
    elif OP == "div_rn":
        z = tl.div_rn(x, y)
    elif OP == "cdiv":
        z = tl.cdiv(x, y)
    elif OP == "umulhi":
        z = tl.umulhi(x, y)
    else:
        tl.static_assert(False, "unknown OP")
    return z


@triton.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr, OUT_DTYPE: tl.constexpr,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = apply_binary(x, y, OP)
    tl.static_assert(z.dtype == OUT_DTYPE, "unexpected result dtype")
    tl.store(out_ptr + offs, z, mask=mask)


@triton.jit
def binary_scalar_kernel(x_ptr, y, out_ptr, n, OP: tl.constexpr, OUT_DTYPE: tl.constexpr,
                         BLOCK: tl.constexpr):
    # Tensor op runtime scalar argument.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    z = apply_binary(x, y, OP)
    tl.static_assert(z.dtype == OUT_DTYPE, "unexpected result dtype")
    tl.store(out_ptr + offs, z, mask=mask)


@triton.jit
def binary_const_kernel(x_ptr, out_ptr, n, C: tl.constexpr, OP: tl.constexpr,
                        OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    # Tensor op Python constant: the constant takes the tensor's type.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    z = apply_binary(x, C, OP)
    tl.static_assert(z.dtype == OUT_DTYPE, "unexpected result dtype")
    tl.store(out_ptr + offs, z, mask=mask)


@triton.jit
def unary_operator_kernel(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if OP == "neg":
        z = -x
    elif OP == "pos":
        z = +x
    elif OP == "invert":
        z = ~x
    elif OP == "not":
        z = (x == 0) == False  # noqa: E712
    else:
        tl.static_assert(False, "unknown OP")
    tl.store(out_ptr + offs, z, mask=mask)


@triton.jit
def ternary_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.load(z_ptr + offs, mask=mask)
    if OP == "where":
        r = tl.where(x > 0, y, z)
    elif OP == "clamp":
        r = tl.clamp(x, tl.minimum(y, z), tl.maximum(y, z))
    elif OP == "fma":
        r = tl.fma(x, y, z)
    else:
        tl.static_assert(False, "unknown OP")
    tl.store(out_ptr + offs, r, mask=mask)
