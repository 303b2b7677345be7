"""``tl.extra.cuda.libdevice``: the same functions as ``tl.extra.libdevice``
(Triton's CUDA spelling of the module)."""

from .. import libdevice as _libdevice
from ..libdevice import *  # noqa: F401,F403  (every name of __all__, the same objects)

__all__ = list(_libdevice.__all__)
