"""The kernel language's compile-time values and types: ``constexpr``, the
dtypes (``dtype``, ``pointer_type``, ``block_type`` and the instances
``tl.float16`` ...), ``str_to_ty`` and ``PropagateNan``. core.py re-exports
every name; kernels see them as ``tl.<name>``.
"""

from __future__ import annotations

import builtins as _builtins

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for annotations only; nothing is imported at run time
    from typing import Any, Sequence

__all__ = [
    "const",
    "constexpr",
    "dtype",
    "pointer_type",
    "block_type",
    "int1",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float8e4nv",
    "float8e5",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "float8e4m3fn",
    "float8e4b15",
    "float8e4b8",
    "float8e5b16",
    "pi32_t",
    "str_to_ty",
    "float8e5m2",
    "PropagateNan",
]


def _unwrap(v):
    return v.value if isinstance(v, constexpr) else v


# ---------------------------------------------------------------------------- constexpr


class const:
    """An annotation of a pointer parameter the kernel only reads
    (``in_ptr: tl.const``): a store or atomic through it, or through a pointer
    computed from it, is a compile error, as is merging it with a writable
    pointer under a run-time condition."""


class constexpr_type:
    """The type of a compile-time constant, which in Triton is its value:
    ``tl.constexpr(5).type == constexpr_type(5)``. In a kernel, a
    ``tl.constexpr`` parameter's ``.type`` is one; a name bound by a plain
    assignment (``x = 5``) holds a scalar tensor in Triton, so its ``.type``
    is the dtype (``tl.int32``)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value.value if isinstance(value, constexpr) else value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self) -> int:
        return hash(("constexpr_type", self.value))

    def __repr__(self) -> str:
        return f"constexpr_type[{self.value!r}]"


class constexpr:
    """A compile-time constant. As an annotation (``BLOCK: tl.constexpr``) it
    makes a kernel parameter part of the specialisation; ``tl.constexpr(v)``
    wraps a value. On the host it behaves like its ``value``."""

    __slots__ = ("value",)
    value: Any

    def __init__(self, value: Any) -> None:
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr[{self.value}]"

    def __hash__(self) -> int:
        return hash(self.value)

    def __bool__(self) -> bool:
        return _builtins.bool(self.value)

    def __index__(self) -> int:
        return self.value.__index__()

    def __int__(self) -> int:
        return int(self.value)

    def __float__(self) -> float:
        return float(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    @property
    def type(self) -> "constexpr_type":
        """The type of a compile-time constant: ``constexpr_type(value)``."""
        return constexpr_type(self.value)

    # arithmetic: the result is a constexpr of the value's result
    def __add__(self, other):
        return constexpr(self.value + _unwrap(other))

    def __radd__(self, other):
        return constexpr(_unwrap(other) + self.value)

    def __sub__(self, other):
        return constexpr(self.value - _unwrap(other))

    def __rsub__(self, other):
        return constexpr(_unwrap(other) - self.value)

    def __mul__(self, other):
        return constexpr(self.value * _unwrap(other))

    def __rmul__(self, other):
        return constexpr(_unwrap(other) * self.value)

    def __truediv__(self, other):
        return constexpr(self.value / _unwrap(other))

    def __rtruediv__(self, other):
        return constexpr(_unwrap(other) / self.value)

    def __floordiv__(self, other):
        return constexpr(self.value // _unwrap(other))

    def __rfloordiv__(self, other):
        return constexpr(_unwrap(other) // self.value)

    def __mod__(self, other):
        return constexpr(self.value % _unwrap(other))

    def __rmod__(self, other):
        return constexpr(_unwrap(other) % self.value)

    def __pow__(self, other):
        return constexpr(self.value ** _unwrap(other))

    def __rpow__(self, other):
        return constexpr(_unwrap(other) ** self.value)

    def __lshift__(self, other):
        return constexpr(self.value << _unwrap(other))

    def __rlshift__(self, other):
        return constexpr(_unwrap(other) << self.value)

    def __rshift__(self, other):
        return constexpr(self.value >> _unwrap(other))

    def __rrshift__(self, other):
        return constexpr(_unwrap(other) >> self.value)

    def __and__(self, other):
        return constexpr(self.value & _unwrap(other))

    def __rand__(self, other):
        return constexpr(_unwrap(other) & self.value)

    def __or__(self, other):
        return constexpr(self.value | _unwrap(other))

    def __ror__(self, other):
        return constexpr(_unwrap(other) | self.value)

    def __xor__(self, other):
        return constexpr(self.value ^ _unwrap(other))

    def __rxor__(self, other):
        return constexpr(_unwrap(other) ^ self.value)

    def __neg__(self):
        return constexpr(-self.value)

    def __pos__(self):
        return constexpr(+self.value)

    def __invert__(self):
        return constexpr(~self.value)

    def __abs__(self):
        return constexpr(_builtins.abs(self.value))

    # comparisons: a constexpr bool, as in Triton (truthiness is the value's)
    def __eq__(self, other):
        return constexpr(self.value == _unwrap(other))

    def __ne__(self, other):
        return constexpr(self.value != _unwrap(other))

    def __lt__(self, other):
        return constexpr(self.value < _unwrap(other))

    def __le__(self, other):
        return constexpr(self.value <= _unwrap(other))

    def __gt__(self, other):
        return constexpr(self.value > _unwrap(other))

    def __ge__(self, other):
        return constexpr(self.value >= _unwrap(other))

    def logical_and(self, other):
        return constexpr(self.value and _unwrap(other))

    def logical_or(self, other):
        return constexpr(self.value or _unwrap(other))

    def logical_not(self):
        return constexpr(not self.value)


# ---------------------------------------------------------------------------- dtypes

# name -> (class, bits, attribute name, mantissa bits, exponent bias). Triton
# counts int1 among the unsigned integer types.
_DTYPES = {
    "int1": ("u", 1, "int1", 0, 0),
    "int8": ("s", 8, "int8", 0, 0),
    "int16": ("s", 16, "int16", 0, 0),
    "int32": ("s", 32, "int32", 0, 0),
    "int64": ("s", 64, "int64", 0, 0),
    "uint8": ("u", 8, "uint8", 0, 0),
    "uint16": ("u", 16, "uint16", 0, 0),
    "uint32": ("u", 32, "uint32", 0, 0),
    "uint64": ("u", 64, "uint64", 0, 0),
    "fp8e4nv": ("f", 8, "float8e4nv", 3, 7),
    "fp8e5": ("f", 8, "float8e5", 2, 15),
    "fp16": ("f", 16, "float16", 10, 15),
    "bf16": ("f", 16, "bfloat16", 7, 127),
    "fp32": ("f", 32, "float32", 23, 127),
    "fp64": ("f", 64, "float64", 52, 1023),
    # Triton's other fp8 formats: E4M3FN's layout with bias 15 (both back
    # ends), and the fnuz formats (the interpreter; a GPU target refuses them).
    "fp8e4b15": ("f", 8, "float8e4b15", 3, 15),
    "fp8e4b8": ("f", 8, "float8e4b8", 3, 8),
    "fp8e5b16": ("f", 8, "float8e5b16", 2, 16),
}


# The package a dtype's repr names: "triton" under `python -m tessera`, where
# `triton.language.int8` is what evaluates to the dtype in the program.
REPR_PACKAGE = "tessera"


class dtype:
    """An element type, named as in Triton: ``str(tl.float32) == 'fp32'``.
    Instances are the module attributes (``tl.int32``, ``tl.bfloat16``, ...);
    they compare and hash by name."""

    __slots__ = ("name", "primitive_bitwidth")

    # Triton's lists of type names (programs and tests iterate over them);
    # the fp8 variants Tessera does not implement are listed as Triton has
    # them (they exist as names; kernels refuse them).
    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    def __init__(self, name: str) -> None:
        if name not in _DTYPES:
            raise ValueError(f"unknown dtype name {name!r}; expected one of {', '.join(_DTYPES)}")
        self.name = name
        self.primitive_bitwidth = _DTYPES[name][1]

    @property
    def itemsize(self) -> int:
        """Bytes per element in memory (int1 is stored as a byte)."""
        return (self.primitive_bitwidth + 7) // 8

    @property
    def int_bitwidth(self) -> int:
        """Bits of an integer type (0 for floating-point types)."""
        return self.primitive_bitwidth if _DTYPES[self.name][0] != "f" else 0

    @property
    def fp_mantissa_width(self) -> int:
        """Explicit mantissa bits of a floating-point type (0 for integers)."""
        return _DTYPES[self.name][3]

    @property
    def exponent_bias(self) -> int:
        """Exponent bias of a floating-point type (0 for integers)."""
        return _DTYPES[self.name][4]

    @property
    def scalar(self) -> dtype:
        """The scalar type: the dtype itself."""
        return self

    def is_floating(self) -> bool:
        return _DTYPES[self.name][0] == "f"

    def is_standard_floating(self) -> bool:
        return self.name in ("fp16", "bf16", "fp32", "fp64")

    def is_int(self) -> bool:
        return _DTYPES[self.name][0] in "su"

    def is_int_signed(self) -> bool:
        return _DTYPES[self.name][0] == "s"

    def is_int_unsigned(self) -> bool:
        return _DTYPES[self.name][0] == "u"

    def is_bool(self) -> bool:
        return self.name == "int1"

    def is_int1(self) -> bool:
        return self.name == "int1"

    def is_int8(self) -> bool:
        return self.name == "int8"

    def is_int16(self) -> bool:
        return self.name == "int16"

    def is_int32(self) -> bool:
        return self.name == "int32"

    def is_int64(self) -> bool:
        return self.name == "int64"

    def is_uint8(self) -> bool:
        return self.name == "uint8"

    def is_uint16(self) -> bool:
        return self.name == "uint16"

    def is_uint32(self) -> bool:
        return self.name == "uint32"

    def is_uint64(self) -> bool:
        return self.name == "uint64"

    def is_fp8(self) -> bool:
        return self.name.startswith("fp8")

    def is_fp8e4b15(self) -> bool:
        return self.name == "fp8e4b15"

    def is_fp8e4b8(self) -> bool:
        return self.name == "fp8e4b8"

    def is_fp8e5b16(self) -> bool:
        return self.name == "fp8e5b16"

    def is_fp8e4nv(self) -> bool:
        return self.name == "fp8e4nv"

    def is_fp8e5(self) -> bool:
        return self.name == "fp8e5"

    def is_fp16(self) -> bool:
        return self.name == "fp16"

    def is_bf16(self) -> bool:
        return self.name == "bf16"

    def is_fp32(self) -> bool:
        return self.name == "fp32"

    def is_fp64(self) -> bool:
        return self.name == "fp64"

    def is_ptr(self) -> bool:
        return False

    def is_block(self) -> bool:
        return False

    def __eq__(self, other) -> bool:
        if not isinstance(other, dtype):
            return NotImplemented
        return type(self) is type(other) and self.name == other.name

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"{REPR_PACKAGE}.language.{_DTYPES[self.name][2]}"

    def __reduce__(self):
        return (dtype, (self.name,))


class pointer_type(dtype):
    """The type of a pointer to ``element_ty`` (the dtype of a kernel's
    tensor arguments); ``address_space`` 1 is global memory."""

    __slots__ = ("element_ty", "address_space", "const")

    def __init__(self, element_ty: dtype, address_space: int = 1, const: bool = False) -> None:
        if not isinstance(element_ty, dtype):
            raise TypeError(f"pointer_type needs a tl.dtype, got {element_ty!r}")
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        self.name = f"pointer<{element_ty}>"
        self.primitive_bitwidth = 64

    @property
    def itemsize(self) -> int:
        return 8

    @property
    def int_bitwidth(self) -> int:
        return 0

    @property
    def fp_mantissa_width(self) -> int:
        return 0

    @property
    def exponent_bias(self) -> int:
        return 0

    def is_floating(self) -> bool:
        return False

    def is_standard_floating(self) -> bool:
        return False

    def is_int(self) -> bool:
        return False

    def is_int_signed(self) -> bool:
        return False

    def is_int_unsigned(self) -> bool:
        return False

    def is_ptr(self) -> bool:
        return True

    def is_const(self) -> bool:
        return self.const

    def __eq__(self, other) -> bool:
        if not isinstance(other, dtype):
            return NotImplemented
        return (type(other) is pointer_type and self.element_ty == other.element_ty
                and self.address_space == other.address_space and self.const == other.const)

    def __hash__(self) -> int:
        return hash((self.name, self.address_space, self.const))

    def __repr__(self) -> str:
        return f"pointer_type({self.element_ty!r})"

    def __reduce__(self):
        return (pointer_type, (self.element_ty, self.address_space, self.const))


class block_type(dtype):
    """The type of a tensor: ``shape`` (powers of two) of ``element_ty``
    elements (a dtype or a pointer_type)."""

    __slots__ = ("element_ty", "shape", "numel")

    def __init__(self, element_ty: dtype, shape: Sequence[int]) -> None:
        if not isinstance(element_ty, dtype):
            raise TypeError(f"block_type needs a tl.dtype, got {element_ty!r}")
        self.element_ty = element_ty
        self.shape = tuple(int(_unwrap(s)) for s in shape)
        if not self.shape:
            raise TypeError("0-d block_type is not allowed")
        n = 1
        for s in self.shape:
            n *= s
        self.numel = n
        self.name = f"<{list(self.shape)}, {element_ty}>"
        self.primitive_bitwidth = element_ty.primitive_bitwidth

    @property
    def scalar(self) -> dtype:
        return self.element_ty

    @property
    def itemsize(self) -> int:
        return self.element_ty.itemsize

    def is_floating(self) -> bool:
        return self.element_ty.is_floating()

    def is_int(self) -> bool:
        return self.element_ty.is_int()

    def is_ptr(self) -> bool:
        return False

    def is_block(self) -> bool:
        return True

    def __eq__(self, other) -> bool:
        if not isinstance(other, dtype):
            return NotImplemented
        return type(other) is block_type and self.shape == other.shape \
            and self.element_ty == other.element_ty

    def __hash__(self) -> int:
        return hash((self.element_ty, self.shape))

    def __repr__(self) -> str:
        return f"block_type({self.element_ty!r}, {list(self.shape)})"

    def __reduce__(self):
        return (block_type, (self.element_ty, self.shape))


int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e4nv = dtype("fp8e4nv")
float8e5 = dtype("fp8e5")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
# OCP names of the fp8 formats, as the compiler accepts them.
float8e4m3fn = float8e4nv
float8e4b15 = dtype("fp8e4b15")
float8e4b8 = dtype("fp8e4b8")
float8e5b16 = dtype("fp8e5b16")
# Triton's name of the pointer-to-int32 type (`x.to(tl.pi32_t)`).
pi32_t = pointer_type(int32)

# Signature names ("fp16", "i32", "*fp32") -> dtypes, as Triton's str_to_ty.
_SIGNATURE_NAMES = {"i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
                    "u1": "int1", "u8": "uint8", "u16": "uint16", "u32": "uint32",
                    "u64": "uint64", "B": "int1"}


def str_to_ty(name: str, c=None) -> dtype:
    """The dtype of a signature name: ``"fp16"``, ``"i32"``, ``"*fp32"`` (a
    pointer_type), ``"*kfp32"`` (a pointer to constant data), or
    ``"constexpr"`` (the constexpr ``c``), as Triton's of the same name."""
    if name.startswith("*"):
        const = name.startswith("*k")
        return pointer_type(str_to_ty(name[2:] if const else name[1:], c), const=const)
    if name == "constexpr":
        return constexpr(c)
    return dtype(_SIGNATURE_NAMES.get(name, name))
float8e5m2 = float8e5


class PropagateNan:
    """Values of the ``propagate_nan`` argument of tl.maximum, tl.minimum and
    tl.clamp: ``NONE`` (a NaN operand is ignored when the other is a number)
    or ``ALL`` (any NaN operand gives NaN)."""

    NONE = 0x0000
    ALL = 0xFFFF


class tuple(_builtins.tuple):  # noqa: A001  (Triton's name)
    """Triton's tuple: ``tl.tuple(values)`` in a kernel is the tuple of
    ``values`` (a tuple or a list, a list comprehension's result say). On the
    host it is that tuple too. ``type`` is accepted for Triton's signature and
    ignored."""

    def __new__(cls, args, type=None):
        return super().__new__(cls, args)
