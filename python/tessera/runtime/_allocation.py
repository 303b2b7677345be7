"""`triton.set_allocator` and `triton.runtime._allocation`: the function a
kernel calls on the host for global scratch memory (Triton's TMA
descriptors and some reductions need it). Tessera's runtime provides the
scratch of kernels that build tensor maps itself (one buffer per stream,
and a pool for launches captured into CUDA graphs), so the allocator is
kept for programs that set and read it, and never called."""

from __future__ import annotations

import threading


class NullAllocator:
    """The default: a kernel that needed scratch memory would say so."""

    def __call__(self, size: int, alignment: int, stream):
        raise RuntimeError("the kernel needs global scratch memory, but no allocator is set; "
                           "call triton.set_allocator(fn) with fn(size, alignment, stream)")


_local = threading.local()


def set_allocator(allocator) -> None:
    """Sets fn(size, alignment, stream) -> buffer for this thread."""
    if not callable(allocator):
        raise TypeError("set_allocator takes a callable: fn(size, alignment, stream)")
    _local.allocator = allocator


def get_allocator():
    return getattr(_local, "allocator", None) or NullAllocator()
