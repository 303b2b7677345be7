"""The Triton kernel language as Tessera supports it: ``import tessera.language as tl``.

Kernels are compiled by Tessera's C++ front end from their source text; the
names here are typed stubs that document each builtin for editors and type
checkers. Calling one from host Python raises ``RuntimeError``; the classes
(``tl.constexpr``, ``tl.dtype`` and the dtype instances such as
``tl.float16``, ``tl.pointer_type``) work on the host too.

Submodules: ``tl.math`` (element-wise math), ``tl.random`` (Philox random
numbers), ``tl.descriptor`` (tensor descriptors), ``tl.standard``, ``tl.core``, ``tl.extra.libdevice`` and
``tl.extra.cuda`` (``smid``, ``globaltimer``, ``num_threads``, ``num_warps``,
``libdevice``).
"""

from . import core, descriptor, math, random, standard, extra
from .types import tuple  # noqa: A004  (Triton's tl.tuple; shadows the builtin only here)
from .core import (
    TRITON_MAX_TENSOR_NUMEL, PropagateNan, constexpr, constexpr_type, const, dtype, pointer_type,
    block_type, tensor, range, static_range,
    int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float8e4nv, float8e5,
    float8e4m3fn, float8e5m2, float16, bfloat16, float32, float64,
    float8e4b15, float8e4b8, float8e5b16, pi32_t, str_to_ty,
    program_id, num_programs, arange, full, cast, load, store,
    atomic_add, atomic_max, atomic_min, atomic_and, atomic_or, atomic_xor, atomic_xchg, atomic_cas,
    make_block_ptr, advance, where, maximum, minimum, clamp, dot, dot_scaled, reduce,
    associative_scan,
    reshape, view, expand_dims, broadcast_to, broadcast, trans, permute, join, split, cat, gather,
    histogram, static_print, static_assert, device_print, device_assert,
    multiple_of, max_contiguous, max_constancy, assume, condition, debug_barrier,
    inline_asm_elementwise, map_elementwise, aggregate_replace,
)
from .math import (
    exp, exp2, log, log2, sqrt, sqrt_rn, rsqrt, sin, cos, erf, floor, ceil, abs, fdiv, div_rn, fma,
    umulhi,
)
from .standard import (
    zeros, zeros_like, sigmoid, softmax, cdiv, ravel, squeeze, unsqueeze, sum, xor_sum, reduce_or,
    swizzle2d, max, min, argmax, argmin, cumsum, cumprod, sort, topk, flip, interleave,
)
from .random import (
    randint, randint4x, rand, rand4x, randn, randn4x, philox, uint_to_uniform_float,
    pair_uniform_to_normal,
)
from .descriptor import (
    tensor_descriptor, make_tensor_descriptor, load_tensor_descriptor, store_tensor_descriptor,
)

# `tl.bool` is the compiler's spelling of int1 (shadows the builtin only here).
bool = int1

__all__ = [
    # modules
    "core", "descriptor", "math", "random", "standard", "extra",
    # types and constants
    "TRITON_MAX_TENSOR_NUMEL", "PropagateNan", "constexpr", "constexpr_type", "const", "dtype",
    "pointer_type", "block_type", "tensor", "range", "static_range", "tuple",
    "bool", "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float8e4nv", "float8e5", "float8e4m3fn", "float8e5m2", "float16", "bfloat16", "float32",
    "float64", "float8e4b15", "float8e4b8", "float8e5b16", "pi32_t",
    # core
    "program_id", "num_programs", "arange", "full", "cast", "load", "store",
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
    "atomic_xchg", "atomic_cas", "make_block_ptr", "advance", "where", "maximum", "minimum",
    "clamp", "dot", "dot_scaled", "reduce", "associative_scan", "reshape", "view", "expand_dims",
    "broadcast_to", "broadcast", "trans", "permute", "join", "split", "cat", "gather", "histogram",
    "static_print", "static_assert", "device_print", "device_assert",
    "multiple_of", "max_contiguous", "max_constancy", "assume", "condition", "debug_barrier",
    "inline_asm_elementwise", "map_elementwise", "aggregate_replace",
    # math
    "exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "erf", "floor", "ceil",
    "abs", "fdiv", "div_rn", "fma", "umulhi",
    # standard
    "zeros", "zeros_like", "sigmoid", "softmax", "cdiv", "ravel", "squeeze", "unsqueeze", "sum",
    "xor_sum", "reduce_or", "swizzle2d", "max", "min", "argmax", "argmin", "cumsum", "cumprod",
    "sort", "topk", "flip", "interleave",
    # random
    "randint", "randint4x", "rand", "rand4x", "randn", "randn4x", "philox", "uint_to_uniform_float",
    "pair_uniform_to_normal",
    # tensor descriptors
    "tensor_descriptor", "make_tensor_descriptor", "load_tensor_descriptor",
    "store_tensor_descriptor",
]
