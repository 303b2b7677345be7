"""Dropout with a seed: element i is kept when tl.rand(seed, i) > p and then
scaled by 1 / (1 - p); dropped elements are 0. The same seed gives the same
mask, so no mask tensor needs to be stored for the backward pass.
"""
import triton
import triton.language as tl


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    r = tl.rand(seed, offsets)
    keep = r > p
    out = tl.where(keep, x / (1 - p), 0.0)
    tl.store(out_ptr + offsets, out, mask=mask)
