# Ops the GPU back end does not lower yet are diagnosed at the user's line
# with what to do instead, never a crash.
# VERIFY: tesserac compile %s --kernel kernel --signature "*fp32:16" --emit ptx --target sm_80 --split-input-file
import triton
import triton.language as tl

# -----
@triton.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = x.to(tl.float8e4nv)  # expected-error {{fp8 arithmetic and conversion for sm_80 is not supported by the GPU back end yet}}
    tl.store(x_ptr + tl.arange(0, 16), y.to(tl.float32))
