# Diagnostics for shapes, compile-time values and block sizes.
# VERIFY: tesserac compile %s --kernel kernel --signature "*fp32, i32" --split-input-file
import triton
import triton.language as tl

# -----
@triton.jit
def kernel(x_ptr, n):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    c = a + b  # expected-error {{cannot broadcast shapes [16] and [32]}}

# -----
@triton.jit
def kernel(x_ptr, n):
    offs = tl.arange(0, n)  # expected-error {{the end of tl.arange must be a compile-time constant}}

# -----
@triton.jit
def kernel(x_ptr, n):
    offs = tl.arange(0, 100)  # expected-error {{tl.arange's range must be a power of two, got 100}}

# -----
@triton.jit
def kernel(x_ptr, n):
    acc = tl.zeros((n, 16), dtype=tl.float32)  # expected-error {{must be a compile-time constant}}

# -----
@triton.jit
def kernel(x_ptr, n):
    acc = tl.zeros((24,), dtype=tl.float32)  # expected-error {{power-of-two dimensions, got 24}}

# -----
@triton.jit
def kernel(x_ptr, n):
    x = tl.load(x_ptr + tl.arange(0, 16))
    if x > 0:  # expected-error {{an if condition must be a scalar, not a tensor}}
        n = n + 1

# -----
@triton.jit
def kernel(x_ptr, n):
    acc = tl.zeros((16,), dtype=tl.float32)
    for i in range(n):
        acc = tl.zeros((32,), dtype=tl.float32)  # expected-error@-1 {{loop-carried variable 'acc'}}

# -----
@triton.jit
def kernel(x_ptr, n):
    tl.static_assert(n > 0)  # expected-error {{tl.static_assert needs a compile-time condition}}

# -----
@triton.jit
def kernel(x_ptr, n):
    tl.static_assert(1 > 2, "one is not greater")  # expected-error {{static_assert failed: one is not greater}}

# -----
@triton.jit
def kernel(x_ptr, n):
    y = 0
    for i in range(n):
        y = 1.5  # expected-error@-1 {{Loop-carried variable y has initial type int32 but is re-assigned to fp32 in loop!}}

# -----
@triton.jit
def kernel(x_ptr, n):
    big = 1 << 100  # expected-error {{Nonrepresentable integer 1267650600228229401496703205376.}}

# -----
@triton.jit
def kernel(x_ptr, n):
    m = n + (1 << 64)  # expected-error {{Nonrepresentable integer 18446744073709551616.}}

# -----
@triton.jit
def kernel(x_ptr, n):
    m = 3 ** 100  # expected-error {{Nonrepresentable integer (more than 127 bits}}

# -----
@triton.jit
def kernel(x_ptr, n):
    m = (1 << 64) - 1  # in range again: a uint64
    tl.static_assert(m == 18446744073709551615)
    tl.static_assert(-(-9223372036854775807 - 1) // -1 == -9223372036854775808)
    tl.static_assert((-9223372036854775807 - 1) // -1 == 9223372036854775808)
    tl.static_assert(abs(-2**63) == 2**63)

# -----
@triton.jit
def kernel(x_ptr, n):
    BLOCK = 64  # a plain assignment: usable as a constant itself...
    offs = tl.arange(0, BLOCK)
    TWICE = BLOCK * 2  # ...but arithmetic on it is tensor arithmetic, as in Triton
    wide = tl.arange(0, TWICE)  # expected-error {{the end of tl.arange must be a compile-time constant}}
