# Diagnostics for names, unsupported syntax and calls to non-@jit functions.
# VERIFY: tesserac compile %s --kernel kernel --signature "*fp32, i32" --split-input-file
import triton
import triton.language as tl


def plain_python(x):
    return x


@triton.jit
def helper(x):
    return x * 2

# -----
@triton.jit
def kernel(x_ptr, n):
    y = undefined_thing + 1  # expected-error {{undefined name 'undefined_thing'}}

# -----
@triton.jit
def kernel(x_ptr, n):
    f = lambda v: v  # expected-error {{unsupported Python syntax in a kernel: lambda}}

# -----
@triton.jit
def kernel(x_ptr, n):
    xs = [i for i in range(n)]  # expected-error {{a list comprehension range end must be a compile-time}}

# -----
@triton.jit
def kernel(x_ptr, n):
    v = plain_python(n)  # expected-error {{calling 'plain_python', which is not a @jit function}}

# -----
@triton.jit
def kernel(x_ptr, n):
    v = helper(n, n)  # expected-error {{helper() takes 1 positional argument but 2 were given}}

# -----
@triton.jit
def kernel(x_ptr, n):
    x = tl.load(x_ptr)
    x[0] = 1.0  # expected-error {{assignment to a subscript is not supported}}

# -----
@triton.jit
def kernel(x_ptr, n):
    v = tl.no_such_function(n)  # expected-error {{has no attribute 'no_such_function'}}

# -----
@triton.jit
def kernel(x_ptr, n):
    if n > 0  # expected-error {{expected ':'}}
        pass

# -----
@triton.jit
def kernel(x_ptr, n):
    break  # expected-error {{'break' outside a loop}}
