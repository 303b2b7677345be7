"""``tl.extra.cuda``: the CUDA specials of the kernel language, with
Triton's names: ``smid()``, ``globaltimer()``, ``num_threads()``,
``num_warps()``, and ``tl.extra.cuda.libdevice``. Stubs: calling one on the
host raises RuntimeError."""

from __future__ import annotations

from ...core import _host_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...core import tensor
from . import libdevice

__all__ = ["libdevice", "smid", "globaltimer", "num_threads", "num_warps"]


def smid() -> tensor:
    """The index of the streaming multiprocessor running the program (int32;
    0 on the CPU interpreter)."""
    _host_call("cuda.smid")


def globaltimer() -> tensor:
    """The GPU's global nanosecond timer (int64), read anew at each call; on
    the CPU interpreter the host's steady clock in nanoseconds."""
    _host_call("cuda.globaltimer")


def num_threads() -> int:
    """Threads per program, 32 * num_warps of the launch: a compile-time
    constant (the interpreter uses the launch's num_warps too)."""
    _host_call("cuda.num_threads")


def num_warps() -> int:
    """The launch's num_warps, a compile-time constant."""
    _host_call("cuda.num_warps")
