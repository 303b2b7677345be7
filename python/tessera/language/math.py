"""Element-wise math of the kernel language (``tl.math``; also re-exported as
``tl.exp``, ``tl.sqrt``, ...).

Stubs: the compiler implements them; calling one on the host raises
RuntimeError. Transcendental functions (exp, log, sin, ...) need float32 or
float64 inputs, as in Triton; cast float16/bfloat16 values up first.
"""

from __future__ import annotations

from .core import _host_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .core import TensorLike, tensor

__all__ = [
    "exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "erf", "floor",
    "ceil", "abs", "fdiv", "div_rn", "fma", "umulhi",
]


def exp(x: TensorLike) -> tensor:
    """Element-wise e raised to ``x`` (float32 or float64)."""
    _host_call("tl.exp")


def exp2(x: TensorLike) -> tensor:
    """Element-wise 2 raised to ``x`` (float32 or float64)."""
    _host_call("tl.exp2")


def log(x: TensorLike) -> tensor:
    """Element-wise natural logarithm of ``x`` (float32 or float64)."""
    _host_call("tl.log")


def log2(x: TensorLike) -> tensor:
    """Element-wise base-2 logarithm of ``x`` (float32 or float64)."""
    _host_call("tl.log2")


def sqrt(x: TensorLike) -> tensor:
    """Element-wise square root of ``x`` (float32 or float64; may be approximate)."""
    _host_call("tl.sqrt")


def sqrt_rn(x: TensorLike) -> tensor:
    """Element-wise square root of ``x`` rounded to nearest, as IEEE 754 specifies."""
    _host_call("tl.sqrt_rn")


def rsqrt(x: TensorLike) -> tensor:
    """Element-wise reciprocal square root 1 / sqrt(``x``) (float32 or float64)."""
    _host_call("tl.rsqrt")


def sin(x: TensorLike) -> tensor:
    """Element-wise sine of ``x`` in radians (float32 or float64)."""
    _host_call("tl.sin")


def cos(x: TensorLike) -> tensor:
    """Element-wise cosine of ``x`` in radians (float32 or float64)."""
    _host_call("tl.cos")


def erf(x: TensorLike) -> tensor:
    """Element-wise Gauss error function of ``x`` (float32 or float64)."""
    _host_call("tl.erf")


def floor(x: TensorLike) -> tensor:
    """Element-wise largest integral value not greater than ``x`` (same float dtype)."""
    _host_call("tl.floor")


def ceil(x: TensorLike) -> tensor:
    """Element-wise smallest integral value not less than ``x`` (same float dtype)."""
    _host_call("tl.ceil")


def abs(x: TensorLike) -> tensor:
    """Element-wise absolute value of ``x`` (integers, floats; unsigned values unchanged)."""
    _host_call("tl.abs")


def fdiv(x: TensorLike, y: TensorLike, ieee_rounding: bool = False) -> tensor:
    """Element-wise float division ``x / y``; a fast approximation unless
    ``ieee_rounding`` asks for correctly rounded results."""
    _host_call("tl.fdiv")


def div_rn(x: TensorLike, y: TensorLike) -> tensor:
    """Element-wise float division ``x / y`` rounded to nearest, as IEEE 754 specifies."""
    _host_call("tl.div_rn")


def fma(x: TensorLike, y: TensorLike, z: TensorLike) -> tensor:
    """Element-wise fused multiply-add ``x * y + z`` with a single rounding."""
    _host_call("tl.fma")


def umulhi(x: TensorLike, y: TensorLike) -> tensor:
    """Element-wise most significant half of the double-width product of the
    integers ``x`` and ``y`` (32-bit or 64-bit)."""
    _host_call("tl.umulhi")
