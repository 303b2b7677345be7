# Diagnostics for tl.inline_asm_elementwise: constraints that do not match
# the arguments, results and pack, and operands the asm text cannot have.
# VERIFY: tesserac compile %s --kernel kernel --signature "*i32, *i8, *i64" --split-input-file
import triton
import triton.language as tl

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise("add.s32 $0, $1, $2;", "=r,r", [x, x], tl.int32, True, 1)  # expected-error {{tl.inline_asm_elementwise: the constraints declare 1 input register(s), but the arguments with pack=1 need 2 (1 for i32, 1 for i32)}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    b = tl.load(b_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r,r,r", [b], tl.int8, True, 4)  # expected-error {{the constraints declare 4 input register(s), but the arguments with pack=4 need 1 (1 for i8)}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    b = tl.load(b_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,=r,r", [b], tl.int8, True, 4)  # expected-error {{the constraints declare 2 output register(s), but the result dtype(s) with pack=4 need 1 (1 for i8)}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    v = tl.load(l_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise("mov.b64 $0, $1;", "=l,r", [v], tl.int64, True, 1)  # expected-error {{$1 holds 64 bits (i64) but its constraint gives a 32-bit register}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise("mov.b32 $0, $2;", "=r,r", [x], tl.int32, True, 1)  # expected-error {{the asm names $2 but has only 2 operands ($0..$1)}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,m", [x], tl.int32, True, 1)  # expected-error {{unsupported inline asm constraint "m"}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "r,=r", [x], tl.int32, True, 1)  # expected-error {{output constraint "=r" comes after an input}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], (), True, 1)  # expected-error {{tl.inline_asm_elementwise must return at least one tensor; dtype is empty}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], tl.int32, True, 0)  # expected-error {{pack must be between 1 and 64, got 0}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise(x, "=r,r", [x], tl.int32, True, 1)  # expected-error {{the asm of tl.inline_asm_elementwise must be a string}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], tl.int32, x > 0, 1)  # expected-error {{is_pure}}

# -----
@triton.jit
def kernel(x_ptr, b_ptr, l_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.extra.cuda.clock()  # expected-error {{module 'tl.extra.cuda' has no attribute 'clock' that Tessera supports}}
