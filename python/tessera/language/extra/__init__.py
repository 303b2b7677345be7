"""``tl.extra``: vendor libraries. ``tl.extra.libdevice`` and
``tl.extra.cuda.libdevice`` hold the libdevice math functions the compiler
supports."""

from . import libdevice
from . import cuda

__all__ = ["libdevice", "cuda"]
