"""Core of the kernel language: ``tensor`` and the builtins for program ids,
tile creation, casts, memory, shapes, dot products, debugging and compiler
hints; the dtypes and ``constexpr`` (types.py) are re-exported here.

Every function here is a typed *stub*. Tessera's C++ front end reads a
kernel's source and implements these builtins itself; the Python bodies exist
so that editors and type checkers know the names, parameters and meaning.
Calling one from host Python raises ``RuntimeError``. The parameter names and
defaults are those of the compiler's builtin tables (src/frontend/builtins_*.cpp),
which follow Triton's.
"""

from __future__ import annotations

from .types import (  # noqa: F401  (re-exported: tl.core.X is tl.X)
    PropagateNan, bfloat16, block_type, const, constexpr, constexpr_type, dtype, float8e4b8,
    float8e4b15, float8e4m3fn, float8e4nv, float8e5, float8e5b16, float8e5m2, float16, float32,
    float64, int1, int8, int16, int32, int64, pi32_t, pointer_type, str_to_ty, uint8, uint16,
    uint32, uint64)

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for annotations only; nothing is imported at run time
    from typing import Any, Callable, Iterator, NoReturn, Sequence, Tuple, Union

    TensorLike = Union["tensor", int, float, bool, "constexpr"]
    IntLike = Union[int, "constexpr"]
    ShapeLike = Union[Sequence[IntLike], IntLike]

__all__ = [
    "TRITON_MAX_TENSOR_NUMEL", "PropagateNan", "constexpr", "constexpr_type", "const", "dtype",
    "pointer_type", "block_type", "tensor", "range", "static_range",
    "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float8e4nv", "float8e5", "float8e4m3fn", "float8e5m2", "float16", "bfloat16", "float32",
    "float64", "pi32_t",
    "program_id", "num_programs", "arange", "full", "cast", "load", "store",
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
    "atomic_xchg", "atomic_cas", "make_block_ptr", "advance", "where", "maximum", "minimum",
    "clamp", "dot", "reduce", "associative_scan", "reshape", "view", "expand_dims",
    "broadcast_to", "broadcast", "trans", "permute", "join", "split", "cat", "gather",
    "histogram", "static_print", "static_assert", "device_print", "device_assert",
    "multiple_of", "max_contiguous", "max_constancy", "assume", "condition", "debug_barrier",
    "inline_asm_elementwise", "map_elementwise", "aggregate_replace",
]

# The largest number of elements a tensor may have (tl.arange's limit).
TRITON_MAX_TENSOR_NUMEL = 1048576


def _aggregate(cls):
    """Triton's tl.core._aggregate: tessera.aggregate (imported on use, as
    tessera.runtime costs tessera.language's import time)."""
    from ..runtime.aggregate import aggregate
    return aggregate(cls)


def builtin(fn):
    """Triton's tl.core.builtin (a function taking `_semantic` that Triton's
    front end runs): compiled as a @jit function, its `_semantic` receiving
    None, so its body must be kernel code (as Tessera compiles aggregates'
    builtin-style methods)."""
    from ..runtime.jit import JITFunction
    return JITFunction(fn)


def aggregate_replace(obj: Any, **changes: Any) -> Any:
    """A copy of the @triton.aggregate instance ``obj`` with the named fields
    changed (``obj`` is unchanged): in kernels, and on the host."""
    from ..runtime.aggregate import replace
    return replace(obj, **changes)


def _host_call(name: str) -> NoReturn:
    """Raises the error of a kernel-language builtin called from host code."""
    raise RuntimeError(f"{name} can only be called inside a @tessera.jit kernel")


# ---------------------------------------------------------------------------- tensor

# `tensor` has a `dtype` property; its annotations name the class through this alias.
_dtype = dtype


class tensor:
    """A value inside a kernel: a scalar or a block of elements of one dtype
    (or pointers). Exists only in kernels; this class serves annotations,
    ``isinstance`` in host-side helpers and editor completion. Operators
    follow Triton's type promotion; the methods mirror the ``tl`` functions
    with the tensor as their first argument."""

    def __init__(self, *args, **kwargs) -> None:
        _host_call("tl.tensor")

    # ---- attributes
    @property
    def dtype(self) -> _dtype:
        """The element dtype (a pointer_type for tensors of pointers)."""
        _host_call("tensor.dtype")

    @property
    def shape(self) -> Tuple[int, ...]:
        """The shape as a tuple of ints (``()`` for a scalar)."""
        _host_call("tensor.shape")

    @property
    def numel(self) -> int:
        """The number of elements (1 for a scalar)."""
        _host_call("tensor.numel")

    @property
    def ndim(self) -> int:
        """The rank (0 for a scalar)."""
        _host_call("tensor.ndim")

    @property
    def T(self) -> tensor:
        """The transpose (tl.trans(self)): the two dimensions of a 2-D tensor swapped."""
        _host_call("tensor.T")

    # ---- operators
    def __add__(self, other: TensorLike) -> tensor:
        """Element-wise ``self + other``; a pointer plus integer offsets gives pointers."""
        _host_call("tensor.__add__")

    def __radd__(self, other: TensorLike) -> tensor:
        """Element-wise ``other + self``."""
        _host_call("tensor.__radd__")

    def __sub__(self, other: TensorLike) -> tensor:
        """Element-wise ``self - other`` (pointer minus integer offsets allowed)."""
        _host_call("tensor.__sub__")

    def __rsub__(self, other: TensorLike) -> tensor:
        """Element-wise ``other - self``."""
        _host_call("tensor.__rsub__")

    def __mul__(self, other: TensorLike) -> tensor:
        """Element-wise ``self * other``."""
        _host_call("tensor.__mul__")

    def __rmul__(self, other: TensorLike) -> tensor:
        """Element-wise ``other * self``."""
        _host_call("tensor.__rmul__")

    def __truediv__(self, other: TensorLike) -> tensor:
        """Element-wise true division; integer operands give float32, as in Triton."""
        _host_call("tensor.__truediv__")

    def __rtruediv__(self, other: TensorLike) -> tensor:
        """Element-wise ``other / self``."""
        _host_call("tensor.__rtruediv__")

    def __floordiv__(self, other: TensorLike) -> tensor:
        """Element-wise integer division, rounding toward zero like C (Triton's semantics)."""
        _host_call("tensor.__floordiv__")

    def __rfloordiv__(self, other: TensorLike) -> tensor:
        """Element-wise ``other // self`` (rounding toward zero)."""
        _host_call("tensor.__rfloordiv__")

    def __mod__(self, other: TensorLike) -> tensor:
        """Element-wise remainder with the sign of the dividend, like C (Triton's semantics)."""
        _host_call("tensor.__mod__")

    def __rmod__(self, other: TensorLike) -> tensor:
        """Element-wise ``other % self``."""
        _host_call("tensor.__rmod__")

    def __neg__(self) -> tensor:
        """Element-wise negation."""
        _host_call("tensor.__neg__")

    def __pos__(self) -> tensor:
        """The tensor itself."""
        _host_call("tensor.__pos__")

    def __invert__(self) -> tensor:
        """Element-wise bitwise not of an integer tensor."""
        _host_call("tensor.__invert__")

    def __and__(self, other: TensorLike) -> tensor:
        """Element-wise bitwise and (logical and for int1)."""
        _host_call("tensor.__and__")

    def __rand__(self, other: TensorLike) -> tensor:
        """Element-wise ``other & self``."""
        _host_call("tensor.__rand__")

    def __or__(self, other: TensorLike) -> tensor:
        """Element-wise bitwise or (logical or for int1)."""
        _host_call("tensor.__or__")

    def __ror__(self, other: TensorLike) -> tensor:
        """Element-wise ``other | self``."""
        _host_call("tensor.__ror__")

    def __xor__(self, other: TensorLike) -> tensor:
        """Element-wise bitwise exclusive or."""
        _host_call("tensor.__xor__")

    def __rxor__(self, other: TensorLike) -> tensor:
        """Element-wise ``other ^ self``."""
        _host_call("tensor.__rxor__")

    def __lshift__(self, other: TensorLike) -> tensor:
        """Element-wise left shift."""
        _host_call("tensor.__lshift__")

    def __rlshift__(self, other: TensorLike) -> tensor:
        """Element-wise ``other << self``."""
        _host_call("tensor.__rlshift__")

    def __rshift__(self, other: TensorLike) -> tensor:
        """Element-wise right shift: arithmetic for signed, logical for unsigned integers."""
        _host_call("tensor.__rshift__")

    def __rrshift__(self, other: TensorLike) -> tensor:
        """Element-wise ``other >> self``."""
        _host_call("tensor.__rrshift__")

    def __lt__(self, other: TensorLike) -> tensor:
        """Element-wise ``self < other`` as int1."""
        _host_call("tensor.__lt__")

    def __le__(self, other: TensorLike) -> tensor:
        """Element-wise ``self <= other`` as int1."""
        _host_call("tensor.__le__")

    def __gt__(self, other: TensorLike) -> tensor:
        """Element-wise ``self > other`` as int1."""
        _host_call("tensor.__gt__")

    def __ge__(self, other: TensorLike) -> tensor:
        """Element-wise ``self >= other`` as int1."""
        _host_call("tensor.__ge__")

    def __eq__(self, other: TensorLike) -> tensor:  # type: ignore[override]
        """Element-wise ``self == other`` as int1."""
        _host_call("tensor.__eq__")

    def __ne__(self, other: TensorLike) -> tensor:  # type: ignore[override]
        """Element-wise ``self != other`` as int1."""
        _host_call("tensor.__ne__")

    __hash__ = object.__hash__

    def __getitem__(self, index) -> tensor:
        """Indexing with ``:`` and ``None`` only: ``x[:, None]`` adds a dimension of size 1."""
        _host_call("tensor.__getitem__")

    def __bool__(self) -> bool:
        """Truth of a scalar; in kernels only valid where a runtime condition is allowed."""
        _host_call("tensor.__bool__")

    # ---- casts
    def to(self, dtype: _dtype, fp_downcast_rounding: str | None = None,
           bitcast: bool = False) -> tensor:
        """Converts to ``dtype`` (see tl.cast): ``fp_downcast_rounding`` is None, 'rtne' or
        'rtz' for narrowing float casts; ``bitcast=True`` reinterprets the bits."""
        _host_call("tensor.to")

    def item(self) -> tensor:
        """The element of a one-element tensor, as a scalar."""
        _host_call("tensor.item")

    def cast(self, dtype: _dtype, fp_downcast_rounding: str | None = None,
             bitcast: bool = False) -> tensor:
        """Same as ``self.to(...)``: see tl.cast."""
        _host_call("tensor.cast")

    # ---- memory (on pointer tensors)
    def load(self, mask: TensorLike | None = None, other: TensorLike | None = None,
             boundary_check: Tuple[int, ...] = (), padding_option: str = '',
             cache_modifier: str = '', eviction_policy: str = '',
             volatile: bool = False) -> tensor:
        """``tl.load(self, ...)``: loads the elements these pointers address."""
        _host_call("tensor.load")

    def store(self, value: TensorLike, mask: TensorLike | None = None,
              boundary_check: Tuple[int, ...] = (), cache_modifier: str = '',
              eviction_policy: str = '') -> None:
        """``tl.store(self, value, ...)``: stores ``value`` where these pointers point."""
        _host_call("tensor.store")

    def atomic_add(self, val: TensorLike, mask: TensorLike | None = None, sem: str | None = None,
                   scope: str | None = None) -> tensor:
        """``tl.atomic_add(self, ...)``: atomically adds ``val``; returns the old values."""
        _host_call("tensor.atomic_add")

    def atomic_max(self, val: TensorLike, mask: TensorLike | None = None, sem: str | None = None,
                   scope: str | None = None) -> tensor:
        """``tl.atomic_max(self, ...)``: atomic maximum; returns the old values."""
        _host_call("tensor.atomic_max")

    def atomic_min(self, val: TensorLike, mask: TensorLike | None = None, sem: str | None = None,
                   scope: str | None = None) -> tensor:
        """``tl.atomic_min(self, ...)``: atomic minimum; returns the old values."""
        _host_call("tensor.atomic_min")

    def atomic_and(self, val: TensorLike, mask: TensorLike | None = None, sem: str | None = None,
                   scope: str | None = None) -> tensor:
        """``tl.atomic_and(self, ...)``: atomic bitwise and; returns the old values."""
        _host_call("tensor.atomic_and")

    def atomic_or(self, val: TensorLike, mask: TensorLike | None = None, sem: str | None = None,
                  scope: str | None = None) -> tensor:
        """``tl.atomic_or(self, ...)``: atomic bitwise or; returns the old values."""
        _host_call("tensor.atomic_or")

    def atomic_xor(self, val: TensorLike, mask: TensorLike | None = None, sem: str | None = None,
                   scope: str | None = None) -> tensor:
        """``tl.atomic_xor(self, ...)``: atomic bitwise xor; returns the old values."""
        _host_call("tensor.atomic_xor")

    def atomic_xchg(self, val: TensorLike, mask: TensorLike | None = None, sem: str | None = None,
                    scope: str | None = None) -> tensor:
        """``tl.atomic_xchg(self, ...)``: atomic exchange; returns the old values."""
        _host_call("tensor.atomic_xchg")

    def atomic_cas(self, cmp: TensorLike, val: TensorLike, sem: str | None = None,
                   scope: str | None = None) -> tensor:
        """``tl.atomic_cas(self, ...)``: atomic compare-and-swap; returns the old values."""
        _host_call("tensor.atomic_cas")

    def advance(self, offsets: Sequence[TensorLike]) -> tensor:
        """``tl.advance(self, offsets)``: a block pointer moved by ``offsets``."""
        _host_call("tensor.advance")

    # ---- element-wise math
    def exp(self) -> tensor:
        """``tl.exp(self)``: element-wise e**x."""
        _host_call("tensor.exp")

    def exp2(self) -> tensor:
        """``tl.exp2(self)``: element-wise 2**x."""
        _host_call("tensor.exp2")

    def log(self) -> tensor:
        """``tl.log(self)``: element-wise natural logarithm."""
        _host_call("tensor.log")

    def log2(self) -> tensor:
        """``tl.log2(self)``: element-wise base-2 logarithm."""
        _host_call("tensor.log2")

    def sqrt(self) -> tensor:
        """``tl.sqrt(self)``: element-wise square root."""
        _host_call("tensor.sqrt")

    def sqrt_rn(self) -> tensor:
        """``tl.sqrt_rn(self)``: square root rounded to nearest (IEEE)."""
        _host_call("tensor.sqrt_rn")

    def rsqrt(self) -> tensor:
        """``tl.rsqrt(self)``: element-wise 1 / sqrt(x)."""
        _host_call("tensor.rsqrt")

    def sin(self) -> tensor:
        """``tl.sin(self)``: element-wise sine."""
        _host_call("tensor.sin")

    def cos(self) -> tensor:
        """``tl.cos(self)``: element-wise cosine."""
        _host_call("tensor.cos")

    def erf(self) -> tensor:
        """``tl.erf(self)``: element-wise error function."""
        _host_call("tensor.erf")

    def floor(self) -> tensor:
        """``tl.floor(self)``: element-wise floor."""
        _host_call("tensor.floor")

    def ceil(self) -> tensor:
        """``tl.ceil(self)``: element-wise ceiling."""
        _host_call("tensor.ceil")

    def abs(self) -> tensor:
        """``tl.abs(self)``: element-wise absolute value."""
        _host_call("tensor.abs")

    def sigmoid(self) -> tensor:
        """``tl.sigmoid(self)``: element-wise 1 / (1 + exp(-x))."""
        _host_call("tensor.sigmoid")

    def fdiv(self, y: TensorLike, ieee_rounding: bool = False) -> tensor:
        """``tl.fdiv(self, y)``: float division, fast unless ``ieee_rounding``."""
        _host_call("tensor.fdiv")

    def div_rn(self, y: TensorLike) -> tensor:
        """``tl.div_rn(self, y)``: float division rounded to nearest (IEEE)."""
        _host_call("tensor.div_rn")

    def fma(self, y: TensorLike, z: TensorLike) -> tensor:
        """``tl.fma(self, y, z)``: fused self * y + z."""
        _host_call("tensor.fma")

    def umulhi(self, y: TensorLike) -> tensor:
        """``tl.umulhi(self, y)``: high half of the integer product."""
        _host_call("tensor.umulhi")

    def cdiv(self, div: TensorLike) -> tensor:
        """``tl.cdiv(self, div)``: ceiling division."""
        _host_call("tensor.cdiv")

    # ---- reductions and scans
    def sum(self, axis: IntLike | None = None, keep_dims: bool = False,
            dtype: _dtype | None = None) -> tensor:
        """``tl.sum(self, ...)``: sum along ``axis`` (all elements when None)."""
        _host_call("tensor.sum")

    def xor_sum(self, axis: IntLike | None = None, keep_dims: bool = False) -> tensor:
        """``tl.xor_sum(self, ...)``: bitwise xor of the elements along ``axis``."""
        _host_call("tensor.xor_sum")

    def max(self, axis: IntLike | None = None, return_indices: bool = False,
            return_indices_tie_break_left: bool = True, keep_dims: bool = False) -> TensorOrPair:
        """``tl.max(self, ...)``: maximum along ``axis`` (and its index with return_indices)."""
        _host_call("tensor.max")

    def min(self, axis: IntLike | None = None, return_indices: bool = False,
            return_indices_tie_break_left: bool = True, keep_dims: bool = False) -> TensorOrPair:
        """``tl.min(self, ...)``: minimum along ``axis`` (and its index with return_indices)."""
        _host_call("tensor.min")

    def argmax(self, axis: IntLike, tie_break_left: bool = True, keep_dims: bool = False) -> tensor:
        """``tl.argmax(self, axis)``: index of the maximum along ``axis``."""
        _host_call("tensor.argmax")

    def argmin(self, axis: IntLike, tie_break_left: bool = True, keep_dims: bool = False) -> tensor:
        """``tl.argmin(self, axis)``: index of the minimum along ``axis``."""
        _host_call("tensor.argmin")

    def reduce(self, axis: IntLike | None, combine_fn: Callable,
               keep_dims: bool = False) -> tensor:
        """``tl.reduce(self, axis, combine_fn)``: reduction with a @jit combine function."""
        _host_call("tensor.reduce")

    def softmax(self, dim: IntLike | None = None, keep_dims: bool = False,
                ieee_rounding: bool = False) -> tensor:
        """``tl.softmax(self, ...)``: exp(x - max) / sum(exp(x - max)) along ``dim``."""
        _host_call("tensor.softmax")

    def cumsum(self, axis: IntLike = 0, reverse: bool = False, dtype: _dtype | None = None) -> tensor:
        """``tl.cumsum(self, ...)``: inclusive prefix sum along ``axis``."""
        _host_call("tensor.cumsum")

    def cumprod(self, axis: IntLike = 0, reverse: bool = False) -> tensor:
        """``tl.cumprod(self, ...)``: inclusive prefix product along ``axis``."""
        _host_call("tensor.cumprod")

    def associative_scan(self, axis: IntLike, combine_fn: Callable,
                         reverse: bool = False) -> tensor:
        """``tl.associative_scan(self, axis, combine_fn)``: inclusive scan with a @jit function."""
        _host_call("tensor.associative_scan")

    def sort(self, dim: IntLike | None = None, descending: bool = False) -> tensor:
        """``tl.sort(self, ...)``: sorts along ``dim`` (the last when None)."""
        _host_call("tensor.sort")

    def flip(self, dim: IntLike | None = None) -> tensor:
        """``tl.flip(self, ...)``: reverses the order along ``dim`` (the last when None)."""
        _host_call("tensor.flip")

    def histogram(self, num_bins: IntLike, mask: TensorLike | None = None) -> tensor:
        """``tl.histogram(self, num_bins)``: counts of the values 0..num_bins-1."""
        _host_call("tensor.histogram")

    # ---- shapes
    def reshape(self, *shape: IntLike, can_reorder: bool = False) -> tensor:
        """``tl.reshape(self, *shape)``: the same elements in a new shape."""
        _host_call("tensor.reshape")

    def view(self, *shape: IntLike) -> tensor:
        """``tl.view(self, *shape)``: the same as reshape."""
        _host_call("tensor.view")

    def ravel(self, can_reorder: bool = False) -> tensor:
        """``tl.ravel(self)``: flattened to 1-D."""
        _host_call("tensor.ravel")

    def expand_dims(self, axis: IntLike | Sequence[IntLike]) -> tensor:
        """``tl.expand_dims(self, axis)``: inserts dimensions of size 1."""
        _host_call("tensor.expand_dims")

    def broadcast_to(self, *shape: IntLike) -> tensor:
        """``tl.broadcast_to(self, *shape)``: broadcast to ``shape``."""
        _host_call("tensor.broadcast_to")

    def broadcast(self, other: TensorLike) -> Tuple[tensor, tensor]:
        """``tl.broadcast(self, other)``: both broadcast to their common shape."""
        _host_call("tensor.broadcast")

    def trans(self, *dims: IntLike) -> tensor:
        """``tl.trans(self, *dims)``: dimensions permuted (2-D: swapped)."""
        _host_call("tensor.trans")

    def permute(self, *dims: IntLike) -> tensor:
        """``tl.permute(self, *dims)``: dimensions in the order ``dims``."""
        _host_call("tensor.permute")

    def join(self, b: TensorLike) -> tensor:
        """``tl.join(self, b)``: stacked along a new last dimension of size 2."""
        _host_call("tensor.join")

    def split(self) -> Tuple[tensor, tensor]:
        """``tl.split(self)``: the two halves of a last dimension of size 2."""
        _host_call("tensor.split")

    def interleave(self, b: TensorLike) -> tensor:
        """``tl.interleave(self, b)``: the elements of both interleaved along the last dimension."""
        _host_call("tensor.interleave")

    def cat(self, other: tensor, can_reorder: bool = False, dim: IntLike = 0) -> tensor:
        """``tl.cat(self, other, can_reorder, dim)``: both concatenated along ``dim``."""
        _host_call("tensor.cat")

    def gather(self, index: tensor, axis: IntLike) -> tensor:
        """``tl.gather(self, index, axis)``: elements picked along ``axis`` by ``index``."""
        _host_call("tensor.gather")


if TYPE_CHECKING:
    class TensorOrPair(tensor):
        """What tl.max/tl.min return: a tensor, or (values, indices) with
        return_indices=True, so both uses type-check."""

        def __iter__(self) -> Iterator[tensor]: ...


# ---------------------------------------------------------------------------- loops


class range:
    """The iterable of a runtime ``for`` loop, like Python's range:
    ``range(end)``, ``range(start, end)`` or ``range(start, end, step)``.
    ``num_stages``, ``loop_unroll_factor``, ``warp_specialize``,
    ``disallow_acc_multi_buffer`` and ``flatten`` are scheduling hints
    that Tessera accepts and may ignore."""

    def __init__(self, arg1: TensorLike, arg2: TensorLike | None = None,
                 step: TensorLike | None = None, num_stages: int | None = None,
                 loop_unroll_factor: int | None = None, warp_specialize: bool = False,
                 disallow_acc_multi_buffer: bool = False, flatten: bool = False) -> None:
        _host_call("tl.range")

    def __iter__(self) -> Iterator[tensor]:
        _host_call("tl.range")


class static_range:
    """The iterable of a ``for`` loop the compiler unrolls: the bounds and
    step must be compile-time integers (at most 4096 iterations)."""

    def __init__(self, arg1: IntLike, arg2: IntLike | None = None,
                 step: IntLike | None = None) -> None:
        _host_call("tl.static_range")

    def __iter__(self) -> Iterator[constexpr]:
        _host_call("tl.static_range")


# ---------------------------------------------------------------------------- programs, creation


def program_id(axis: IntLike) -> tensor:
    """The index (int32) of the running program along launch-grid ``axis`` (0, 1 or 2)."""
    _host_call("tl.program_id")


def num_programs(axis: IntLike) -> tensor:
    """The number of programs (int32) of the launch grid along ``axis`` (0, 1 or 2)."""
    _host_call("tl.num_programs")


def arange(start: IntLike, end: IntLike) -> tensor:
    """The int32 values start, start+1, ..., end-1 as a 1-D tensor; ``start`` and
    ``end`` are compile-time and ``end - start`` must be a power of two."""
    _host_call("tl.arange")


def full(shape: ShapeLike, value: TensorLike, dtype: dtype) -> tensor:
    """A tensor of compile-time ``shape`` and element type ``dtype`` with every
    element set to the scalar ``value``."""
    _host_call("tl.full")


def cast(input: TensorLike, dtype: dtype, fp_downcast_rounding: str | None = None,
         bitcast: bool = False) -> tensor:
    """``input`` converted to ``dtype``; ``fp_downcast_rounding`` ('rtne' or 'rtz')
    rounds float-to-narrower-float casts, ``bitcast=True`` reinterprets the bits
    (same bit width)."""
    _host_call("tl.cast")


# ---------------------------------------------------------------------------- memory


def load(pointer: tensor, mask: TensorLike | None = None, other: TensorLike | None = None,
         boundary_check: Tuple[int, ...] = (), padding_option: str = '',
         cache_modifier: str = '', eviction_policy: str = '', volatile: bool = False) -> tensor:
    """Loads the elements addressed by ``pointer`` (a pointer, a tensor of pointers
    or a block pointer). Lanes where ``mask`` is false are not read and take
    ``other`` (undefined when None); block pointers use ``boundary_check``
    (dimensions to bounds-check) and ``padding_option`` ('', 'zero' or 'nan')
    instead. ``cache_modifier`` ('', '.ca', '.cg', '.cv'), ``eviction_policy``
    and ``volatile`` are memory hints."""
    _host_call("tl.load")


def store(pointer: tensor, value: TensorLike, mask: TensorLike | None = None,
          boundary_check: Tuple[int, ...] = (), cache_modifier: str = '',
          eviction_policy: str = '') -> None:
    """Stores ``value`` (broadcast, cast to the pointee type) where ``pointer``
    points, skipping lanes where ``mask`` is false; block pointers use
    ``boundary_check`` instead of a mask. ``cache_modifier`` ('', '.wb', '.cg',
    '.cs', '.wt') and ``eviction_policy`` are hints."""
    _host_call("tl.store")


def atomic_add(pointer: tensor, val: TensorLike, mask: TensorLike | None = None,
               sem: str | None = None, scope: str | None = None) -> tensor:
    """Atomically adds ``val`` at ``pointer`` where ``mask`` holds and returns the
    previous values; ``sem`` is the memory ordering ('acq_rel' by default,
    'acquire', 'release', 'relaxed') and ``scope`` 'gpu', 'cta' or 'sys'."""
    _host_call("tl.atomic_add")


def atomic_max(pointer: tensor, val: TensorLike, mask: TensorLike | None = None,
               sem: str | None = None, scope: str | None = None) -> tensor:
    """Atomically stores max(old, ``val``) at ``pointer`` where ``mask`` holds and
    returns the previous values (``sem``/``scope`` as in tl.atomic_add)."""
    _host_call("tl.atomic_max")


def atomic_min(pointer: tensor, val: TensorLike, mask: TensorLike | None = None,
               sem: str | None = None, scope: str | None = None) -> tensor:
    """Atomically stores min(old, ``val``) at ``pointer`` where ``mask`` holds and
    returns the previous values (``sem``/``scope`` as in tl.atomic_add)."""
    _host_call("tl.atomic_min")


def atomic_and(pointer: tensor, val: TensorLike, mask: TensorLike | None = None,
               sem: str | None = None, scope: str | None = None) -> tensor:
    """Atomically stores old & ``val`` (integers) at ``pointer`` where ``mask`` holds
    and returns the previous values (``sem``/``scope`` as in tl.atomic_add)."""
    _host_call("tl.atomic_and")


def atomic_or(pointer: tensor, val: TensorLike, mask: TensorLike | None = None,
              sem: str | None = None, scope: str | None = None) -> tensor:
    """Atomically stores old | ``val`` (integers) at ``pointer`` where ``mask`` holds
    and returns the previous values (``sem``/``scope`` as in tl.atomic_add)."""
    _host_call("tl.atomic_or")


def atomic_xor(pointer: tensor, val: TensorLike, mask: TensorLike | None = None,
               sem: str | None = None, scope: str | None = None) -> tensor:
    """Atomically stores old ^ ``val`` (integers) at ``pointer`` where ``mask`` holds
    and returns the previous values (``sem``/``scope`` as in tl.atomic_add)."""
    _host_call("tl.atomic_xor")


def atomic_xchg(pointer: tensor, val: TensorLike, mask: TensorLike | None = None,
                sem: str | None = None, scope: str | None = None) -> tensor:
    """Atomically replaces the values at ``pointer`` by ``val`` where ``mask`` holds
    and returns the previous values (``sem``/``scope`` as in tl.atomic_add)."""
    _host_call("tl.atomic_xchg")


def atomic_cas(pointer: tensor, cmp: TensorLike, val: TensorLike, sem: str | None = None,
               scope: str | None = None) -> tensor:
    """Atomic compare-and-swap: where the value at ``pointer`` equals ``cmp`` it
    becomes ``val``; returns the previous values (``sem``/``scope`` as in
    tl.atomic_add)."""
    _host_call("tl.atomic_cas")


def make_block_ptr(base: tensor, shape: Sequence[TensorLike], strides: Sequence[TensorLike],
                   offsets: Sequence[TensorLike], block_shape: Sequence[IntLike],
                   order: Sequence[IntLike]) -> tensor:
    """A block pointer to the ``block_shape`` tile at ``offsets`` of the tensor of
    ``shape`` and ``strides`` (in elements) at ``base``; ``order`` lists the
    dimensions from fastest- to slowest-varying. Use it with tl.load/tl.store
    and tl.advance."""
    _host_call("tl.make_block_ptr")


def advance(base: tensor, offsets: Sequence[TensorLike]) -> tensor:
    """The block pointer ``base`` moved by ``offsets`` (one per dimension, in elements)."""
    _host_call("tl.advance")


# ---------------------------------------------------------------------------- selection


def where(condition: TensorLike, x: TensorLike, y: TensorLike) -> tensor:
    """Element-wise ``x`` where ``condition`` is true, else ``y`` (broadcast and
    promoted to a common type); both sides are evaluated."""
    _host_call("tl.where")


def maximum(x: TensorLike, y: TensorLike, propagate_nan: int | None = None) -> tensor:
    """Element-wise maximum of ``x`` and ``y``; ``propagate_nan`` is a
    tl.PropagateNan value (default NONE: a NaN loses to a number)."""
    _host_call("tl.maximum")


def minimum(x: TensorLike, y: TensorLike, propagate_nan: int | None = None) -> tensor:
    """Element-wise minimum of ``x`` and ``y``; ``propagate_nan`` is a
    tl.PropagateNan value (default NONE: a NaN loses to a number)."""
    _host_call("tl.minimum")


def clamp(x: TensorLike, min: TensorLike, max: TensorLike,
          propagate_nan: int | None = None) -> tensor:
    """Element-wise ``x`` limited to [``min``, ``max``] (floating point);
    ``propagate_nan`` as in tl.maximum."""
    _host_call("tl.clamp")


# ---------------------------------------------------------------------------- dot, generic reduce


def dot(input: tensor, other: tensor, acc: tensor | None = None, input_precision: str | None = None,
        allow_tf32: bool | None = None, max_num_imprecise_acc: int | None = None,
        out_dtype: dtype | None = None) -> tensor:
    """Matrix product of ``input`` [M, K] and ``other`` [K, N] (or batched 3-D),
    plus ``acc`` when given. ``input_precision`` for float32 inputs is 'tf32'
    (default), 'tf32x3', 'bf16x3' or 'bf16x6' (each operand as 2 or 3 bf16
    parts, 3 or 6 bf16 products) or 'ieee' (``allow_tf32=False`` means 'ieee');
    ``out_dtype`` is the result type (default float32, int32 for int8 inputs)."""
    _host_call("tl.dot")


def dot_scaled(lhs: tensor, lhs_scale: tensor | None, lhs_format: str, rhs: tensor,
               rhs_scale: tensor | None, rhs_format: str, acc: tensor | None = None,
               fast_math: bool = False, lhs_k_pack: bool = True, rhs_k_pack: bool = True,
               out_dtype: dtype = float32) -> tensor:
    """Matrix product of two microscaled (OCP MX) blocks, ``lhs`` [M, K] and
    ``rhs`` [K, N] (or batched 3-D), plus ``acc`` (float32) when given.

    Formats: 'e2m1' (fp4, two values per uint8, the first in the low nibble,
    packed along K, or along M / N with ``lhs_k_pack`` / ``rhs_k_pack``
    False), 'e4m3' and 'e5m2' (fp8 as uint8 or tl.float8e4nv / tl.float8e5),
    'e2m3' and 'e3m2' (fp6, one per uint8 in the low 6 bits; Tessera's
    additions), 'bf16' and 'fp16' (or their bits as uint16). A scale is a
    uint8 tensor of e8m0 exponents, 2**(s - 127), one per 32 elements along
    K: ``lhs_scale`` is [M, K // 32], ``rhs_scale`` [N, K // 32] (not
    transposed); None means no scaling. A scale of 255 is NaN and makes its
    32 values NaN unless ``fast_math`` is True. Emulated on every back end:
    the operands are decoded, scaled in float32, rounded to fp16 when either
    format is 'fp16' (else bf16) and multiplied by tl.dot into float32, the
    only ``out_dtype``."""
    _host_call("tl.dot_scaled")


def reduce(input: TensorLike, axis: IntLike | None, combine_fn: Callable,
           keep_dims: bool = False) -> tensor:
    """Reduces ``input`` (a tensor or a tuple of tensors) along ``axis`` (all
    elements when None) with ``combine_fn``, a @jit function combining two
    values; ``keep_dims`` keeps the reduced dimension with size 1."""
    _host_call("tl.reduce")


def associative_scan(input: TensorLike, axis: IntLike, combine_fn: Callable,
                     reverse: bool = False) -> tensor:
    """Inclusive scan of ``input`` (a tensor or a tuple of tensors) along
    ``axis`` with the associative @jit function ``combine_fn``; ``reverse``
    scans from the end."""
    _host_call("tl.associative_scan")


# ---------------------------------------------------------------------------- shapes


def reshape(input: TensorLike, *shape: IntLike, can_reorder: bool = False) -> tensor:
    """``input``'s elements in row-major order with a new ``shape`` (given as
    ints or one tuple) of the same number of elements; ``can_reorder`` lets the
    compiler permute elements."""
    _host_call("tl.reshape")


def view(input: TensorLike, *shape: IntLike) -> tensor:
    """``input`` with a new ``shape`` of the same number of elements (the
    element order is not guaranteed in Triton; Tessera keeps row-major order)."""
    _host_call("tl.view")


def expand_dims(input: TensorLike, axis: IntLike | Sequence[IntLike]) -> tensor:
    """``input`` with a dimension of size 1 inserted at ``axis`` (an int or a
    sequence of ints; negative counts from the end)."""
    _host_call("tl.expand_dims")


def broadcast_to(input: TensorLike, *shape: IntLike) -> tensor:
    """``input`` broadcast to ``shape`` (ints or one tuple) by NumPy's rules."""
    _host_call("tl.broadcast_to")


def broadcast(input: TensorLike, other: TensorLike) -> Tuple[tensor, tensor]:
    """``input`` and ``other`` broadcast to their common shape, as a pair."""
    _host_call("tl.broadcast")


def trans(input: tensor, *dims: IntLike) -> tensor:
    """``input`` with its dimensions permuted by ``dims`` (ints or one tuple);
    without ``dims`` a 2-D tensor is transposed."""
    _host_call("tl.trans")


def permute(input: tensor, *dims: IntLike) -> tensor:
    """``input`` with dimension ``dims[i]`` moved to position i (ints or one tuple)."""
    _host_call("tl.permute")


def join(a: TensorLike, b: TensorLike) -> tensor:
    """``a`` and ``b`` (same shape after broadcasting) stacked along a new last
    dimension of size 2."""
    _host_call("tl.join")


def split(a: tensor) -> Tuple[tensor, tensor]:
    """The two halves of ``a`` along its last dimension, which must have size 2
    (the inverse of tl.join)."""
    _host_call("tl.split")


def cat(input: tensor, other: tensor, can_reorder: bool = False, dim: IntLike = 0) -> tensor:
    """Two tensors of one shape concatenated along ``dim`` (in order: Tessera
    keeps it even with ``can_reorder=True``); the concatenated dimension
    must stay a power of two."""
    _host_call("tl.cat")


def gather(src: tensor, index: tensor, axis: IntLike) -> tensor:
    """``out[i][j] = src[index[i][j]][j]`` for ``axis=0`` (generally: indices
    along ``axis`` taken from ``index``, which has src's rank)."""
    _host_call("tl.gather")


def histogram(input: tensor, num_bins: IntLike, mask: TensorLike | None = None) -> tensor:
    """An int32 tensor of ``num_bins`` counts of the values 0..num_bins-1 in the
    1-D integer tensor ``input`` (lanes where ``mask`` is false are skipped)."""
    _host_call("tl.histogram")


# ---------------------------------------------------------------------------- debugging


def static_print(*values: Any) -> None:
    """Prints compile-time ``values`` when the kernel is compiled (once per
    specialisation, not at run time)."""
    _host_call("tl.static_print")


def static_assert(cond: Any, msg: str = '') -> None:
    """Fails compilation with ``msg`` unless the compile-time ``cond`` is true."""
    _host_call("tl.static_assert")


def device_print(prefix: str, *args: TensorLike, hex: bool = False) -> None:
    """Prints ``prefix`` and the values of ``args`` from every program at run time
    (with the program and element indices); ``hex`` prints integers in hex."""
    _host_call("tl.device_print")


def inline_asm_elementwise(asm: str, constraints: str, args: Sequence[TensorLike],
                           dtype: dtype | Sequence[dtype], is_pure: bool,
                           pack: int) -> tensor | tuple[tensor, ...]:
    """Runs the PTX text ``asm`` element-wise over ``args`` (broadcast to one
    shape), ``pack`` elements per call, and returns a tensor of ``dtype`` (a
    tuple of tensors when ``dtype`` is a tuple). ``constraints`` lists the
    registers in LLVM's syntax, outputs first (``"=r,=r,r,r"``: r .b32, h .b16,
    l .b64, f .f32, d .f64); ``$0``, ``$1``... name them in that order.
    Elements narrower than 32 bits are packed into 32-bit registers (four
    int8 in one ``r`` with pack=4). An asm with ``is_pure=False`` is never
    merged, moved or removed. Runs on the GPU only: the CPU interpreter
    reports the call as an error."""
    _host_call("tl.inline_asm_elementwise")


def map_elementwise(scalar_fn: Callable[..., Any], *args: TensorLike,
                    pack: int = 1) -> tensor | tuple[tensor, ...]:
    """Applies the @jit function ``scalar_fn`` to every element of ``args``
    (broadcast to one shape), so it may branch per element (``if x > 0:
    return ...``). With ``pack=k`` one call takes k elements of each
    argument (``fn(a0, a1, b0, b1)``) and returns k values of each result
    (``r0, r1, s0, s1``). Returns a tensor, or a tuple of tensors when the
    function returns a tuple."""
    _host_call("tl.map_elementwise")


def device_assert(cond: TensorLike, msg: str = '', mask: TensorLike | None = None) -> None:
    """Stops the kernel with ``msg`` where ``cond`` is false (lanes where ``mask``
    is false are not checked); checked only when the kernel is compiled with
    debug=True."""
    _host_call("tl.device_assert")


# ---------------------------------------------------------------------------- compiler hints


def multiple_of(input: tensor, values: IntLike | Sequence[IntLike]) -> tensor:
    """``input`` unchanged, with the promise that its values (per dimension) are
    multiples of ``values``, which lets the compiler vectorise memory accesses."""
    _host_call("tl.multiple_of")


def max_contiguous(input: tensor, values: IntLike | Sequence[IntLike]) -> tensor:
    """``input`` unchanged, with the promise that runs of ``values`` consecutive
    elements (per dimension) are contiguous."""
    _host_call("tl.max_contiguous")


def max_constancy(input: tensor, values: IntLike | Sequence[IntLike]) -> tensor:
    """``input`` unchanged, with the promise that runs of ``values`` consecutive
    elements (per dimension) are equal."""
    _host_call("tl.max_constancy")


def condition(arg: TensorLike, disable_licm: bool = False) -> TensorLike:
    """A while loop's condition with Triton's ``disable_licm`` hint
    (``while tl.condition(i < n, disable_licm=True)``); the hint is accepted
    and Tessera's loop-invariant code motion runs as usual."""
    _host_call("tl.condition")


def assume(cond: TensorLike) -> None:
    """Lets the compiler assume the scalar condition ``cond`` holds (not checked)."""
    _host_call("tl.assume")


def debug_barrier() -> None:
    """A barrier that synchronises all threads of the program."""
    _host_call("tl.debug_barrier")
