"""Tessera's runtime: launching, caching and autotuning kernels (Triton's
`triton.runtime`)."""

from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .driver import driver
from . import _allocation
from .errors import CompilationError, InterpreterError, KernelError, OutOfResources
from .jit import JITFunction, KernelInterface  # not `jit`: triton.runtime.jit is the module
from .arrays import MockTensor, TensorWrapper, reinterpret
