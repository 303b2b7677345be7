# The fnuz fp8 formats (float8e4b8, float8e5b16) have no conversions on
# NVIDIA GPUs: a GPU target refuses a kernel at its first op that uses one
# (the interpreter runs them).
# VERIFY: tesserac compile %s --kernel kernel --signature "*fp32, *fp32" --emit ptx --target sm_90a --split-input-file
import triton
import triton.language as tl

# -----
@triton.jit
def kernel(x_ptr, y_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = x.to(tl.float8e4b8)  # expected-error {{tl.float8e4b8 (an fnuz fp8 format) is not supported on NVIDIA GPUs}}
    tl.store(y_ptr + tl.arange(0, 16), y.to(tl.float32))

# -----
@triton.jit
def kernel(x_ptr, y_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = x.to(tl.float8e5b16)  # expected-error {{tl.float8e5b16 (an fnuz fp8 format) is not supported on NVIDIA GPUs}}
    tl.store(y_ptr + tl.arange(0, 16), y.to(tl.float32))
