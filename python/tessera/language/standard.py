"""Higher-level kernel-language functions: zeros, sigmoid, softmax, cdiv,
reductions (sum, max, argmax, ...), scans, sort, flip, ravel, interleave.

Stubs: the compiler implements them; calling one on the host raises
RuntimeError.
"""

from __future__ import annotations

from .core import _host_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .core import IntLike, ShapeLike, TensorLike, TensorOrPair, dtype, tensor

__all__ = [
    "zeros", "zeros_like", "sigmoid", "softmax", "cdiv", "ravel", "sum", "xor_sum", "reduce_or",
    "swizzle2d", "max", "min",
    "argmax", "argmin", "cumsum", "cumprod", "sort", "flip", "interleave",
]


def zeros(shape: ShapeLike, dtype: dtype) -> tensor:
    """A tensor of compile-time ``shape`` and element type ``dtype`` filled with zeros."""
    _host_call("tl.zeros")


def zeros_like(input: tensor, dtype: dtype | None = None) -> tensor:
    """Zeros with the shape of ``input`` and its dtype (or ``dtype`` when given)."""
    _host_call("tl.zeros_like")


def sigmoid(x: TensorLike) -> tensor:
    """Element-wise logistic function 1 / (1 + exp(-``x``))."""
    _host_call("tl.sigmoid")


def softmax(x: tensor, dim: IntLike | None = None, keep_dims: bool = False,
            ieee_rounding: bool = False) -> tensor:
    """exp(x - max(x)) / sum(exp(x - max(x))) along ``dim`` (0 when None, as in
    Triton); ``ieee_rounding`` makes the division correctly rounded."""
    _host_call("tl.softmax")


def cdiv(x: TensorLike, div: TensorLike) -> tensor:
    """Ceiling division ``(x + div - 1) // div`` of integers."""
    _host_call("tl.cdiv")


def ravel(x: tensor, can_reorder: bool = False) -> tensor:
    """``x`` flattened to 1-D in row-major order (``can_reorder`` lets the compiler
    choose the order)."""
    _host_call("tl.ravel")


def squeeze(x: tensor, dim: IntLike) -> tensor:
    """``x`` without its dimension ``dim`` (negative counts from the end),
    which must have size 1."""
    _host_call("tl.squeeze")


def unsqueeze(x: tensor, dim: IntLike) -> tensor:
    """``x`` with a dimension of size 1 inserted at ``dim`` (0 to its rank;
    negative counts from the end of the result), as ``tl.expand_dims``."""
    _host_call("tl.unsqueeze")


def sum(input: tensor, axis: IntLike | None = None, keep_dims: bool = False,
        dtype: dtype | None = None) -> tensor:
    """Sum of ``input`` along ``axis`` (all elements when None); ``keep_dims`` keeps
    the reduced dimension with size 1 and ``dtype`` sets the accumulation type
    (default: integers narrower than 32 bits sum in int32/uint32, as in Triton)."""
    _host_call("tl.sum")


def reduce_or(input: tensor, axis: IntLike, keep_dims: bool = False) -> tensor:
    """Bitwise or of the integer elements of ``input`` along ``axis``."""
    _host_call("tl.reduce_or")


def swizzle2d(i: TensorLike, j: TensorLike, size_i: TensorLike, size_j: TensorLike,
              size_g: TensorLike) -> tuple:
    """Renumbers (i, j) of a size_i x size_j grid so that groups of ``size_g``
    rows are walked column by column: the program order Triton's matmul
    tutorial uses for L2 reuse. Returns (new_i, new_j)."""
    _host_call("tl.swizzle2d")


def xor_sum(input: tensor, axis: IntLike | None = None, keep_dims: bool = False) -> tensor:
    """Bitwise exclusive or of the integer elements of ``input`` along ``axis``
    (all elements when None)."""
    _host_call("tl.xor_sum")


def max(input: tensor, axis: IntLike | None = None, return_indices: bool = False,
        return_indices_tie_break_left: bool = True, keep_dims: bool = False) -> TensorOrPair:
    """Maximum of ``input`` along ``axis`` (all elements when None); with
    ``return_indices`` also its index, the first one among equal values when
    ``return_indices_tie_break_left``."""
    _host_call("tl.max")


def min(input: tensor, axis: IntLike | None = None, return_indices: bool = False,
        return_indices_tie_break_left: bool = True, keep_dims: bool = False) -> TensorOrPair:
    """Minimum of ``input`` along ``axis`` (all elements when None); with
    ``return_indices`` also its index, the first one among equal values when
    ``return_indices_tie_break_left``."""
    _host_call("tl.min")


def argmax(input: tensor, axis: IntLike, tie_break_left: bool = True,
           keep_dims: bool = False) -> tensor:
    """Index (int32) of the maximum of ``input`` along ``axis``; ties go to the
    lowest index when ``tie_break_left``."""
    _host_call("tl.argmax")


def argmin(input: tensor, axis: IntLike, tie_break_left: bool = True,
           keep_dims: bool = False) -> tensor:
    """Index (int32) of the minimum of ``input`` along ``axis``; ties go to the
    lowest index when ``tie_break_left``."""
    _host_call("tl.argmin")


def cumsum(input: tensor, axis: IntLike = 0, reverse: bool = False,
           dtype: dtype | None = None) -> tensor:
    """Inclusive prefix sum of ``input`` along ``axis``; ``reverse`` accumulates
    from the end and ``dtype`` sets the accumulation type."""
    _host_call("tl.cumsum")


def cumprod(input: tensor, axis: IntLike = 0, reverse: bool = False) -> tensor:
    """Inclusive prefix product of ``input`` along ``axis``; ``reverse``
    accumulates from the end."""
    _host_call("tl.cumprod")


def sort(x: tensor, dim: IntLike | None = None, descending: bool = False) -> tensor:
    """``x`` sorted along ``dim`` (only the last dimension, the default when None),
    ascending unless ``descending``."""
    _host_call("tl.sort")


def topk(x: tensor, k: IntLike, dim: IntLike | None = None, descending: bool = True) -> tensor:
    """The ``k`` largest elements of ``x`` along ``dim`` (only the last
    dimension, the default when None), largest first; the ``k`` smallest,
    smallest first, when not ``descending``. ``k`` is a power of two."""
    _host_call("tl.topk")


def flip(x: tensor, dim: IntLike | None = None) -> tensor:
    """``x`` with the order of its elements reversed along ``dim`` (the last
    dimension when None)."""
    _host_call("tl.flip")


def interleave(a: TensorLike, b: TensorLike) -> tensor:
    """The elements of ``a`` and ``b`` alternated along the last dimension, which
    doubles in size (``tl.join(a, b)`` reshaped)."""
    _host_call("tl.interleave")
