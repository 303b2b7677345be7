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
