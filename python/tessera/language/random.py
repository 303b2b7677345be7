"""Counter-based random numbers (Philox 4x32), as in Triton: the same ``seed``
and ``offset`` always give the same values, so programs draw independent
streams by using distinct offsets (e.g. ``pid * BLOCK + tl.arange(0, BLOCK)``).

Stubs: the compiler implements them; calling one on the host raises
RuntimeError.
"""

from __future__ import annotations

from .core import _host_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Tuple

    from .core import IntLike, TensorLike, tensor

__all__ = ["randint", "randint4x", "rand", "rand4x", "randn", "randn4x", "philox"]


def randint(seed: TensorLike, offset: TensorLike, n_rounds: IntLike = 10) -> tensor:
    """One block of random uint32 values for the scalar ``seed`` and the integer
    tensor ``offset``, from ``n_rounds`` Philox rounds."""
    _host_call("tl.randint")


def randint4x(seed: TensorLike, offset: TensorLike,
              n_rounds: IntLike = 10) -> Tuple[tensor, tensor, tensor, tensor]:
    """Four blocks of random uint32 values for ``seed`` and ``offset`` (all four
    Philox outputs; cheaper than four randint calls)."""
    _host_call("tl.randint4x")


def rand(seed: TensorLike, offset: TensorLike, n_rounds: IntLike = 10) -> tensor:
    """float32 values uniform in [0, 1) for ``seed`` and ``offset``."""
    _host_call("tl.rand")


def rand4x(seed: TensorLike, offset: TensorLike,
           n_rounds: IntLike = 10) -> Tuple[tensor, tensor, tensor, tensor]:
    """Four blocks of float32 values uniform in [0, 1) for ``seed`` and ``offset``."""
    _host_call("tl.rand4x")


def randn(seed: TensorLike, offset: TensorLike, n_rounds: IntLike = 10) -> tensor:
    """float32 values from the standard normal distribution (Box-Muller) for
    ``seed`` and ``offset``."""
    _host_call("tl.randn")


def randn4x(seed: TensorLike, offset: TensorLike,
            n_rounds: IntLike = 10) -> Tuple[tensor, tensor, tensor, tensor]:
    """Four blocks of standard-normal float32 values for ``seed`` and ``offset``."""
    _host_call("tl.randn4x")


def philox(seed: TensorLike, c0: TensorLike, c1: TensorLike, c2: TensorLike, c3: TensorLike,
           n_rounds: IntLike = 10) -> Tuple[tensor, tensor, tensor, tensor]:
    """The Philox 4x32 block cipher: the four counters ``c0``..``c3`` (uint32)
    encrypted with the key from ``seed`` in ``n_rounds`` rounds."""
    _host_call("tl.philox")


def uint_to_uniform_float(x: tensor) -> tensor:
    """float32 values uniform in [0, 1) from random 32- or 64-bit integers (what
    tl.rand applies to tl.randint's output)."""
    _host_call("tl.uint_to_uniform_float")


def pair_uniform_to_normal(u1: tensor, u2: tensor) -> Tuple[tensor, tensor]:
    """Two float32 tensors from the standard normal distribution, from two
    uniform ones (Box-Muller, as tl.randn)."""
    _host_call("tl.pair_uniform_to_normal")
