# Ops the GPU back end does not lower yet are diagnosed at the user's line
# with what to do instead, never a crash.
# VERIFY: tesserac compile %s --kernel kernel --signature "*fp32:16" --emit ptx --split-input-file
import triton
import triton.language as tl

# -----
@triton.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.atomic_max(x_ptr + tl.arange(0, 16), x)  # expected-error {{tl.atomic_max on floats is not supported by the GPU back end yet}}
