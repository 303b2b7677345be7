"""``TensorDescriptor``: a kernel argument naming a strided tensor and the
block shape the kernel reads and writes it in (Triton's
``triton.tools.tensor_descriptor.TensorDescriptor``).

    desc = TensorDescriptor.from_tensor(x, block_shape=[64, 64])
    kernel[grid](desc, ...)          # in the kernel: desc.load([m, n]), desc.store(...)

The kernel sees a ``tl.tensor_descriptor``. Its base must be 16-byte aligned,
every stride but the last a multiple of 16 bytes, and the last stride 1 (the
rules of the GPU's tensor memory accelerator, kept on every back end so a
kernel that runs on the CPU runs on the GPU). ``block_shape`` is part of the
kernel's specialisation and may change between launches (autotuner pre-hooks
set it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List

__all__ = ["TensorDescriptor"]

_MAX_NUMEL = 1048576  # the largest tile


def _address_and_itemsize(base) -> tuple[int, int]:
    from ..runtime import arrays
    address = arrays.resolver(base)[1]
    itemsize = getattr(getattr(base, "dtype", None), "itemsize", None)
    if itemsize is None:
        itemsize = base.element_size()
    return int(address), int(itemsize)


def _check_block_shape(block_shape) -> None:
    numel = 1
    for i, d in enumerate(block_shape):
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"block_shape[{i}] must be an int, got {type(d).__name__}")
        if d < 1 or d & (d - 1):
            raise ValueError(f"block_shape[{i}] must be a power of 2, got {d}")
        numel *= d
    if numel > _MAX_NUMEL:
        raise ValueError(f"the block has {numel} elements, more than {_MAX_NUMEL}")


@dataclass
class TensorDescriptor:
    """A strided tensor (``base`` of ``shape`` and ``strides`` in elements)
    read and written by kernels in blocks of ``block_shape``; out-of-bounds
    elements read ``padding`` ("zero" or "nan")."""

    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        rank = len(self.shape)
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"rank mismatch: shape {list(self.shape)}, strides "
                             f"{list(self.strides)}, block_shape {list(self.block_shape)}")
        if not 1 <= rank <= 5:
            raise ValueError(f"a tensor descriptor has 1 to 5 dimensions, got {rank}")
        _check_block_shape(self.block_shape)
        address, itemsize = _address_and_itemsize(self.base)
        if address % 16:
            raise ValueError("base must be 16-byte aligned")
        for stride in list(self.strides)[:-1]:
            if (stride * itemsize) % 16:
                raise ValueError(f"strides must be 16-byte aligned: stride {stride} of "
                                 f"{itemsize}-byte elements is {stride * itemsize} bytes")
        if self.strides[-1] != 1:
            raise ValueError(f"Last dimension must be contiguous (stride 1), got {self.strides[-1]}")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"Illegal value for padding: {self.padding!r} (use 'zero' or 'nan')")

    @staticmethod
    def from_tensor(tensor: Any, block_shape: List[int], padding: str = "zero") -> "TensorDescriptor":
        """The descriptor of a whole tensor or array (strides in elements)."""
        shape = list(tensor.shape)
        if callable(getattr(tensor, "stride", None)):
            strides = list(tensor.stride())
        else:  # NumPy: strides in bytes
            strides = [s // tensor.itemsize for s in tensor.strides]
        return TensorDescriptor(tensor, shape, strides, block_shape, padding)
