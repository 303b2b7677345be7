"""``tl.extra.cuda``: the CUDA libraries of the kernel language
(``tl.extra.cuda.libdevice``)."""

from . import libdevice

__all__ = ["libdevice"]
