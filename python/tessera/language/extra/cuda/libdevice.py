"""``tl.extra.cuda.libdevice``: the same functions as ``tl.extra.libdevice``
(Triton's CUDA spelling of the module)."""

from ..libdevice import (abs, ceil, cos, div_rn, erf, exp, exp2, floor, fma, log, log2, rsqrt,
                         sin, sqrt, sqrt_rn, umulhi)

__all__ = [
    "abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "floor", "fma", "log", "log2", "rsqrt",
    "sin", "sqrt", "sqrt_rn", "umulhi",
]
