# Warnings: code that compiles but is likely a mistake, where Triton warns
# too. The kernel still compiles (tesserac exits 0) and each warning names
# its line.
# VERIFY: tesserac compile %s --kernel kernel --signature "*i32, *i32" --split-input-file
import triton
import triton.language as tl

# -----
@triton.jit
def kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(out_ptr + tl.arange(0, 16), tl.where(x, x, 0))  # expected-warning {{tl.where with a non-boolean condition (int32)}}

# -----
@triton.jit
def kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    both = (x > 0) or (x < -5)  # expected-warning {{'and' and 'or' on tensors that are not scalars}}
    tl.store(out_ptr + tl.arange(0, 16), both.to(tl.int32))

# -----
@triton.jit
def kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(out_ptr + tl.arange(0, 16), x >> 32)  # expected-warning {{shifting a int32 tensor by 32 bits}}

# -----
@triton.jit
def kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    if tl.sum(x, 0, keep_dims=True) > 0:  # expected-warning {{an if condition that is a one-element tensor}}
        x = x + 1
    tl.store(out_ptr + tl.arange(0, 16), x)

# -----
@triton.jit
def kernel(x_ptr, out_ptr):
    # The intended forms: no warning.
    x = tl.load(x_ptr + tl.arange(0, 16))
    both = (x > 0) | (x < -5)
    if tl.sum(x, 0) > 0:
        x = x + 1
    tl.store(out_ptr + tl.arange(0, 16), tl.where(both, x >> 31, x << 3))
