# tl.extra.libdevice compositions: float32 functions computed in float64,
# their error-free sums and products written with .rn (never contracted into
# an fma by ptxas), and no approximate instruction.
# RUN: tesserac compile %s --kernel exact_sum --signature "*fp32:16, *fp32:16, 128" --emit ptx | FileCheck %s --check-prefix=SUM
# RUN: tesserac compile %s --kernel accurate_exp --signature "*fp32:16, 128" --emit ptx | FileCheck %s --check-prefix=EXP
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def exact_sum(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(x_ptr + offs, libdevice.add_rd(x, y))

# SUM: cvt.f64.f32
# SUM: add.rn.f64
# SUM: sub.rn.f64
# SUM-NOT: add.f64
# SUM-NOT: sub.f64


@triton.jit
def accurate_exp(x_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, libdevice.exp(x))

# EXP: cvt.f64.f32
# EXP: fma.rn.f64
# EXP: cvt.rn.f32.f64
# EXP-NOT: ex2.approx
# EXP-NOT: mul.f64
