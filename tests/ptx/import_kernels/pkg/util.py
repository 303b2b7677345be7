import triton

from .inner import cube


@triton.jit
def double_cube(x):
    return cube(x) * 2.0
