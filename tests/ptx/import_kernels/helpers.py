# A module of @jit helpers that tests/ptx/imports.py's kernels import.
import triton


@triton.jit
def scale(x, s):
    return x * s


@triton.jit
def add_one(x):
    return x + 1.0


@triton.jit
def broken(x):
    return x + undefined_thing  # noqa: F821


def host_only():
    pass
