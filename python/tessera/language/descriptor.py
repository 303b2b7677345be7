"""Tensor descriptors in kernels: ``tl.make_tensor_descriptor``,
``tl.load_tensor_descriptor``, ``tl.store_tensor_descriptor`` and the
``tl.tensor_descriptor`` a host ``TensorDescriptor`` argument becomes.

A descriptor names a strided tensor (base pointer, shape, strides with the
last equal to 1) and a compile-time block shape. ``desc.load(offsets)`` reads
the block whose first element is at ``offsets``; elements outside the tensor
read the padding value (0, or NaN with ``padding_option="nan"``), and stores
and atomics skip them. Offsets may be negative or run past the end.
"""

from __future__ import annotations

from typing import Sequence

from .core import _host_call, dtype as _dtype, tensor

TensorLike = "tensor | int"

__all__ = ["tensor_descriptor", "make_tensor_descriptor", "load_tensor_descriptor",
           "store_tensor_descriptor"]


class tensor_descriptor:
    """A tensor descriptor inside a kernel (made by tl.make_tensor_descriptor,
    or a host TensorDescriptor argument). Exists only in kernels; this class
    serves annotations and editor completion."""

    def __init__(self, *args, **kwargs) -> None:
        _host_call("tl.tensor_descriptor")

    @property
    def block_shape(self) -> tuple:
        """The compile-time block shape (a tuple of ints)."""
        _host_call("tensor_descriptor.block_shape")

    @property
    def shape(self) -> tuple:
        """The tensor's shape (int32 scalars)."""
        _host_call("tensor_descriptor.shape")

    @property
    def strides(self) -> tuple:
        """The tensor's strides in elements (int64 scalars; the last is 1)."""
        _host_call("tensor_descriptor.strides")

    @property
    def dtype(self) -> _dtype:
        """The element dtype."""
        _host_call("tensor_descriptor.dtype")

    def load(self, offsets: Sequence[TensorLike]) -> tensor:
        """The block at ``offsets`` (one int32 per dimension); elements
        outside the tensor read the padding value."""
        _host_call("tensor_descriptor.load")

    def store(self, offsets: Sequence[TensorLike], value: tensor) -> None:
        """Writes ``value`` (a tile of the block shape, converted to the
        descriptor's dtype) to the block at ``offsets``, skipping elements
        outside the tensor."""
        _host_call("tensor_descriptor.store")

    def atomic_add(self, offsets: Sequence[TensorLike], value: tensor) -> None:
        """Adds ``value`` to the block at ``offsets`` element-wise, atomically."""
        _host_call("tensor_descriptor.atomic_add")

    def atomic_min(self, offsets: Sequence[TensorLike], value: tensor) -> None:
        """Element-wise atomic minimum of the block at ``offsets`` and ``value``."""
        _host_call("tensor_descriptor.atomic_min")

    def atomic_max(self, offsets: Sequence[TensorLike], value: tensor) -> None:
        """Element-wise atomic maximum of the block at ``offsets`` and ``value``."""
        _host_call("tensor_descriptor.atomic_max")

    def atomic_and(self, offsets: Sequence[TensorLike], value: tensor) -> None:
        """Element-wise atomic bitwise and of the block at ``offsets`` with ``value``."""
        _host_call("tensor_descriptor.atomic_and")

    def atomic_or(self, offsets: Sequence[TensorLike], value: tensor) -> None:
        """Element-wise atomic bitwise or of the block at ``offsets`` with ``value``."""
        _host_call("tensor_descriptor.atomic_or")

    def atomic_xor(self, offsets: Sequence[TensorLike], value: tensor) -> None:
        """Element-wise atomic bitwise xor of the block at ``offsets`` with ``value``."""
        _host_call("tensor_descriptor.atomic_xor")

    def gather(self, x_offsets: tensor, y_offset: TensorLike) -> tensor:
        """Rows ``x_offsets`` (a 1-D tile of at least 8) of a 2-D descriptor
        whose block is one row, columns ``y_offset`` onwards."""
        _host_call("tensor_descriptor.gather")

    def scatter(self, value: tensor, x_offsets: tensor, y_offset: TensorLike) -> None:
        """Writes the rows of ``value`` to rows ``x_offsets``, columns
        ``y_offset`` onwards (the inverse of gather)."""
        _host_call("tensor_descriptor.scatter")


def make_tensor_descriptor(base: tensor, shape: Sequence[TensorLike],
                           strides: Sequence[TensorLike], block_shape: Sequence[int],
                           padding_option: str = "zero") -> tensor_descriptor:
    """A descriptor of the tensor at ``base`` (16-byte aligned) with ``shape``
    and ``strides`` (in elements; the last must be the constant 1), read and
    written in blocks of ``block_shape`` (powers of two, at least 16 bytes in
    the last dimension, 1 to 5 dimensions)."""
    _host_call("tl.make_tensor_descriptor")


def load_tensor_descriptor(desc: tensor_descriptor, offsets: Sequence[TensorLike]) -> tensor:
    """``desc.load(offsets)``."""
    _host_call("tl.load_tensor_descriptor")


def store_tensor_descriptor(desc: tensor_descriptor, offsets: Sequence[TensorLike],
                            value: tensor) -> None:
    """``desc.store(offsets, value)``."""
    _host_call("tl.store_tensor_descriptor")
