"""@jit helpers in a file of their own: callees from another unit, with
their own globals."""
import tessera as triton
import tessera.language as tl

SCALE = 3


@triton.jit
def scaled(x):
    return x * SCALE


@triton.jit
def combine_max(a, b):
    return tl.maximum(a, b)


@triton.jit
def twice_scaled(x):
    return scaled(x) + scaled(x)
