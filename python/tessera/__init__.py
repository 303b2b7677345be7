"""Tessera: a compiler for tile-based GPU kernels written in the Triton kernel
language, with the C++ core doing all compilation.

    import tessera as triton            # Triton code runs unchanged
    import tessera.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
                 mask=mask)

    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

Importing is cheap: NumPy, PyTorch and the compiler extension load only
when first needed.
"""

__version__ = "0.1.0"

from .runtime.errors import CompilationError, KernelError, InterpreterError, OutOfResources, TesseraError
from .runtime.jit import JITFunction, KernelInterface, constexpr_function, jit, must_use_result
from .runtime.aggregate import aggregate
from .runtime.arrays import MockTensor, TensorWrapper, reinterpret
from .runtime.autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .runtime.driver import GPUTarget
from . import runtime
from . import language
from . import testing
from . import compiler
from .compiler import compile
from . import knobs
from .runtime._allocation import set_allocator

TritonError = TesseraError


def cdiv(x, y):
    """Ceiling division: the number of blocks of size y that cover x."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


__all__ = [
    "Autotuner", "CompilationError", "Config", "GPUTarget", "Heuristics", "InterpreterError",
    "JITFunction", "KernelError", "KernelInterface", "MockTensor", "OutOfResources", "TensorWrapper",
    "TesseraError", "TritonError", "aggregate", "autotune", "cdiv", "compile", "compiler", "constexpr_function",
    "must_use_result",
    "heuristics", "jit",
    "knobs",
    "language",
    "next_power_of_2", "reinterpret", "runtime", "set_allocator", "testing",
]
