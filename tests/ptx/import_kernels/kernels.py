# Kernels calling @jit helpers of other files, every way Python imports
# them: a name (renamed), a module bound to a name, a package's module whose
# own helper comes by a relative import.
import triton
import triton.language as tl

import helpers as h
from helpers import broken
from helpers import scale as sc
from missing_module import thing
from pkg import util


@triton.jit
def uses_helpers(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < N)
    y = util.double_cube(h.add_one(sc(x, 3.0)))
    tl.store(Y + offs, y, mask=offs < N)


@triton.jit
def uses_host_function(X, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, h.host_only(offs))


@triton.jit
def uses_missing_module(X, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, thing(offs))


@triton.jit
def uses_broken_helper(X, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, broken(offs))
