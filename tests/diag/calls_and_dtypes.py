# Diagnostics for tl calls (argument counts, keywords) and unsupported dtypes.
# VERIFY: tesserac compile %s --kernel kernel --signature "*fp16, i32, *fp32" --split-input-file
import triton
import triton.language as tl

# -----
@triton.jit
def kernel(x_ptr, n, y_ptr):
    x = tl.load(x_ptr, mask=None, colour=3)  # expected-error {{tl.load() got an unexpected keyword argument 'colour'}}

# -----
@triton.jit
def kernel(x_ptr, n, y_ptr):
    pid = tl.program_id(0, 1)  # expected-error {{tl.program_id() takes 1 positional argument but 2 were given}}

# -----
@triton.jit
def kernel(x_ptr, n, y_ptr):
    x = tl.load()  # expected-error {{tl.load() missing required argument 'pointer'}}

# -----
@triton.jit
def kernel(x_ptr, n, y_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.exp(x)  # expected-error {{tl.exp does not support float16}}

# -----
@triton.jit
def kernel(x_ptr, n, y_ptr):
    y = tl.load(y_ptr + tl.arange(0, 16))
    z = y & 1  # expected-error {{invalid operands of type float32 and int32: operator & requires integer operands}}

# -----
@triton.jit
def kernel(x_ptr, n, y_ptr):
    y = tl.load(y_ptr + tl.arange(0, 16))
    z = y // 2  # expected-error {{the // operator is only defined on integers}}

# -----
@triton.jit
def kernel(x_ptr, n, y_ptr):
    u = tl.arange(0, 16).to(tl.uint32)
    z = u // n  # expected-error {{Cannot use /, // or % with uint32 and int32 because they have different signedness}}

# -----
@triton.jit
def kernel(x_ptr, n, y_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] + tl.arange(0, 16)[None, :])
    b = tl.load(y_ptr + tl.arange(0, 16)[:, None] + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b)  # expected-error {{tl.dot operands must have the same dtype, got float16 and float32}}

# -----
@triton.jit
def kernel(x_ptr, n, y_ptr):
    tl.store(n, 1.0)  # expected-error {{tl.store expects a pointer or a tensor of pointers}}

# -----
@triton.jit
def kernel(x_ptr, n, y_ptr):
    x = tl.load(x_ptr, cache_modifier=".zz")  # expected-error {{unknown cache_modifier '.zz'}}
