"""``tl.extra.libdevice``: the functions of NVIDIA's libdevice that Tessera
supports, callable in kernels as ``libdevice.exp(x)`` after
``from triton.language.extra import libdevice`` (or ``...extra.cuda``).

The compiler resolves ``libdevice.<name>`` to its own builtin of that name,
else to ``tl.<name>``, so each function here computes what the ``tl``
function of the same name does. Stubs: calling one on the host raises
RuntimeError.
"""

from __future__ import annotations

from ..core import _host_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..core import TensorLike, tensor

__all__ = [
    "abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "floor", "fma", "log", "log2", "rsqrt",
    "sin", "sqrt", "sqrt_rn", "umulhi",
]


def abs(x: TensorLike) -> tensor:
    """Element-wise absolute value of ``x`` (integer or float)."""
    _host_call("libdevice.abs")


def ceil(x: TensorLike) -> tensor:
    """Element-wise smallest integral value not less than ``x``."""
    _host_call("libdevice.ceil")


def cos(x: TensorLike) -> tensor:
    """Element-wise cosine of ``x`` in radians (float32 or float64)."""
    _host_call("libdevice.cos")


def div_rn(x: TensorLike, y: TensorLike) -> tensor:
    """Element-wise ``x / y`` rounded to nearest even (IEEE 754)."""
    _host_call("libdevice.div_rn")


def erf(x: TensorLike) -> tensor:
    """Element-wise Gauss error function of ``x`` (float32 or float64)."""
    _host_call("libdevice.erf")


def exp(x: TensorLike) -> tensor:
    """Element-wise e raised to ``x`` (float32 or float64)."""
    _host_call("libdevice.exp")


def exp2(x: TensorLike) -> tensor:
    """Element-wise 2 raised to ``x`` (float32 or float64)."""
    _host_call("libdevice.exp2")


def floor(x: TensorLike) -> tensor:
    """Element-wise largest integral value not greater than ``x``."""
    _host_call("libdevice.floor")


def fma(x: TensorLike, y: TensorLike, z: TensorLike) -> tensor:
    """Element-wise fused multiply-add ``x * y + z`` with a single rounding."""
    _host_call("libdevice.fma")


def log(x: TensorLike) -> tensor:
    """Element-wise natural logarithm of ``x`` (float32 or float64)."""
    _host_call("libdevice.log")


def log2(x: TensorLike) -> tensor:
    """Element-wise base-2 logarithm of ``x`` (float32 or float64)."""
    _host_call("libdevice.log2")


def rsqrt(x: TensorLike) -> tensor:
    """Element-wise reciprocal square root of ``x`` (float32 or float64)."""
    _host_call("libdevice.rsqrt")


def sin(x: TensorLike) -> tensor:
    """Element-wise sine of ``x`` in radians (float32 or float64)."""
    _host_call("libdevice.sin")


def sqrt(x: TensorLike) -> tensor:
    """Element-wise square root of ``x`` (float32 or float64)."""
    _host_call("libdevice.sqrt")


def sqrt_rn(x: TensorLike) -> tensor:
    """Element-wise square root of ``x`` rounded to nearest even (IEEE 754)."""
    _host_call("libdevice.sqrt_rn")


def umulhi(x: TensorLike, y: TensorLike) -> tensor:
    """Element-wise high half of the double-width product of integers ``x`` and ``y``."""
    _host_call("libdevice.umulhi")
