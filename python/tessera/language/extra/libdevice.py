"""``tl.extra.libdevice``: NVIDIA libdevice's math functions, callable in
kernels as ``libdevice.asin(x)`` after ``from triton.language.extra import
libdevice`` (or ``...extra.cuda``), with Triton's names, parameters and
argument dtypes.

The compiler builds each function from exact Tile IR operations, so the
interpreter and the GPU compute the same values, within libdevice's
documented ulp bounds (float32 functions are computed in float64 and
rounded once). The ``fast_*`` functions are the hardware approximations, as
CUDA's fast intrinsics are. Stubs: calling one on the host raises
RuntimeError.
"""

from __future__ import annotations

from ..core import _host_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..core import TensorLike, tensor

__all__ = [
    "abs", "acos", "acosh", "add_rd", "add_rn", "add_ru", "add_rz", "asin", "asinh", "atan",
    "atan2", "atanh", "brev", "byte_perm", "cbrt", "ceil", "clz", "copysign", "cos", "cosh",
    "cospi", "cyl_bessel_i0", "cyl_bessel_i1", "div_rd", "div_rn", "div_ru", "div_rz",
    "double2float_rd", "double2float_rn", "double2float_ru", "double2float_rz", "double2hiint",
    "double2int_rd", "double2int_rn", "double2int_ru", "double2int_rz", "double2ll_rd",
    "double2ll_rn", "double2ll_ru", "double2ll_rz", "double2loint", "double2uint_rd",
    "double2uint_rn", "double2uint_ru", "double2uint_rz", "double2ull_rd", "double2ull_rn",
    "double2ull_ru", "double2ull_rz", "double_as_longlong", "erf", "erfc", "erfcinv", "erfcx",
    "erfinv", "exp", "exp10", "exp2", "expm1", "fast_cosf", "fast_dividef", "fast_exp10f",
    "fast_expf", "fast_log10f", "fast_log2f", "fast_logf", "fast_powf", "fast_sinf",
    "fast_tanf", "fdim", "ffs", "finitef", "float2int_rd", "float2int_rn", "float2int_ru",
    "float2int_rz", "float2ll_rd", "float2ll_rn", "float2ll_ru", "float2ll_rz", "float2uint_rd",
    "float2uint_rn", "float2uint_ru", "float2uint_rz", "float2ull_rd", "float2ull_rn",
    "float2ull_ru", "float2ull_rz", "float_as_int", "float_as_uint", "floor", "fma", "fma_rd",
    "fma_rn", "fma_ru", "fma_rz", "fmod", "hadd", "hiloint2double", "hypot", "ilogb",
    "int2double_rn", "int2float_rd", "int2float_rn", "int2float_ru", "int2float_rz",
    "int_as_float", "isfinited", "isinf", "isnan", "j0", "j1", "ldexp", "lgamma",
    "ll2double_rd", "ll2double_rn", "ll2double_ru", "ll2double_rz", "ll2float_rd",
    "ll2float_rn", "ll2float_ru", "ll2float_rz", "llrint", "llround", "log", "log10", "log1p",
    "log2", "logb", "longlong_as_double", "mul24", "mul_rd", "mul_rn", "mul_ru", "mul_rz",
    "mulhi", "nearbyint", "nextafter", "norm3d", "norm4d", "normcdf", "normcdfinv", "popc",
    "pow", "rcbrt", "rcp_rd", "rcp_rn", "rcp_ru", "rcp_rz", "remainder", "rhadd", "rhypot",
    "rint", "rnorm3d", "rnorm4d", "round", "rsqrt", "rsqrt_rn", "sad", "saturatef", "scalbn",
    "signbit", "sin", "sinh", "sinpi", "sqrt", "sqrt_rd", "sqrt_rn", "sqrt_ru", "sqrt_rz",
    "sub_rd", "sub_rn", "sub_ru", "sub_rz", "tan", "tanh", "tgamma", "trunc", "uint2double_rn",
    "uint2float_rd", "uint2float_rn", "uint2float_ru", "uint2float_rz", "uint_as_float",
    "ull2double_rd", "ull2double_rn", "ull2double_ru", "ull2double_rz", "ull2float_rd",
    "ull2float_rn", "ull2float_ru", "ull2float_rz", "umulhi", "y0", "y1",
]


def abs(arg0: TensorLike) -> tensor:
    """Absolute value of ``arg0`` (int32, int64, float32 or float64)."""
    _host_call("libdevice.abs")


def acos(arg0: TensorLike) -> tensor:
    """Arc cosine of ``arg0`` in radians (float32 or float64)."""
    _host_call("libdevice.acos")


def acosh(arg0: TensorLike) -> tensor:
    """Inverse hyperbolic cosine of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.acosh")


def add_rd(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 + arg1`` rounded down (float32 or float64)."""
    _host_call("libdevice.add_rd")


def add_rn(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 + arg1`` rounded to nearest even (float32 or float64)."""
    _host_call("libdevice.add_rn")


def add_ru(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 + arg1`` rounded up (float32 or float64)."""
    _host_call("libdevice.add_ru")


def add_rz(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 + arg1`` rounded toward zero (float32 or float64)."""
    _host_call("libdevice.add_rz")


def asin(arg0: TensorLike) -> tensor:
    """Arc sine of ``arg0`` in radians (float32 or float64)."""
    _host_call("libdevice.asin")


def asinh(arg0: TensorLike) -> tensor:
    """Inverse hyperbolic sine of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.asinh")


def atan(arg0: TensorLike) -> tensor:
    """Arc tangent of ``arg0`` in radians (float32 or float64)."""
    _host_call("libdevice.atan")


def atan2(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """Arc tangent of ``arg0 / arg1`` in the quadrant of ``(arg1, arg0)`` (float32 or float64)."""
    _host_call("libdevice.atan2")


def atanh(arg0: TensorLike) -> tensor:
    """Inverse hyperbolic tangent of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.atanh")


def brev(arg0: TensorLike) -> tensor:
    """The bits of ``arg0`` reversed (int32 or int64)."""
    _host_call("libdevice.brev")


def byte_perm(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike) -> tensor:
    """Four bytes selected from the eight of ``arg1:arg0`` by the nibbles of ``arg2`` (int32)."""
    _host_call("libdevice.byte_perm")


def cbrt(arg0: TensorLike) -> tensor:
    """Cube root of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.cbrt")


def ceil(arg0: TensorLike) -> tensor:
    """Smallest integral value not less than ``arg0`` (float32 or float64)."""
    _host_call("libdevice.ceil")


def clz(arg0: TensorLike) -> tensor:
    """Number of leading zero bits of ``arg0`` (int32 or int64), as int32."""
    _host_call("libdevice.clz")


def copysign(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """The magnitude of ``arg0`` with the sign of ``arg1`` (float32 or float64)."""
    _host_call("libdevice.copysign")


def cos(arg0: TensorLike) -> tensor:
    """Cosine of ``arg0`` in radians (float32 or float64)."""
    _host_call("libdevice.cos")


def cosh(arg0: TensorLike) -> tensor:
    """Hyperbolic cosine of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.cosh")


def cospi(arg0: TensorLike) -> tensor:
    """``cos(pi * arg0)`` (float32 or float64)."""
    _host_call("libdevice.cospi")


def cyl_bessel_i0(arg0: TensorLike) -> tensor:
    """Modified Bessel function of the first kind of order 0 (float32 or float64)."""
    _host_call("libdevice.cyl_bessel_i0")


def cyl_bessel_i1(arg0: TensorLike) -> tensor:
    """Modified Bessel function of the first kind of order 1 (float32 or float64)."""
    _host_call("libdevice.cyl_bessel_i1")


def div_rd(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 / arg1`` rounded down (float32 or float64)."""
    _host_call("libdevice.div_rd")


def div_rn(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 / arg1`` rounded to nearest even (float32 or float64)."""
    _host_call("libdevice.div_rn")


def div_ru(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 / arg1`` rounded up (float32 or float64)."""
    _host_call("libdevice.div_ru")


def div_rz(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 / arg1`` rounded toward zero (float32 or float64)."""
    _host_call("libdevice.div_rz")


def double2float_rd(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as float32, rounded down."""
    _host_call("libdevice.double2float_rd")


def double2float_rn(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as float32, rounded to nearest even."""
    _host_call("libdevice.double2float_rn")


def double2float_ru(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as float32, rounded up."""
    _host_call("libdevice.double2float_ru")


def double2float_rz(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as float32, rounded toward zero."""
    _host_call("libdevice.double2float_rz")


def double2hiint(arg0: TensorLike) -> tensor:
    """The high 32 bits of float64 ``arg0`` as int32."""
    _host_call("libdevice.double2hiint")


def double2int_rd(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as int32, rounded down (saturating, NaN -> 0)."""
    _host_call("libdevice.double2int_rd")


def double2int_rn(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as int32, rounded to nearest even (saturating, NaN -> 0)."""
    _host_call("libdevice.double2int_rn")


def double2int_ru(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as int32, rounded up (saturating, NaN -> 0)."""
    _host_call("libdevice.double2int_ru")


def double2int_rz(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as int32, rounded toward zero (saturating, NaN -> 0)."""
    _host_call("libdevice.double2int_rz")


def double2ll_rd(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as int64, rounded down (saturating, NaN -> 0)."""
    _host_call("libdevice.double2ll_rd")


def double2ll_rn(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as int64, rounded to nearest even (saturating, NaN -> 0)."""
    _host_call("libdevice.double2ll_rn")


def double2ll_ru(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as int64, rounded up (saturating, NaN -> 0)."""
    _host_call("libdevice.double2ll_ru")


def double2ll_rz(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as int64, rounded toward zero (saturating, NaN -> 0)."""
    _host_call("libdevice.double2ll_rz")


def double2loint(arg0: TensorLike) -> tensor:
    """The low 32 bits of float64 ``arg0`` as int32."""
    _host_call("libdevice.double2loint")


def double2uint_rd(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as uint32, rounded down, in an int32 (saturating, NaN -> 0)."""
    _host_call("libdevice.double2uint_rd")


def double2uint_rn(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as uint32, rounded to nearest even, in an int32 (saturating, NaN -> 0)."""
    _host_call("libdevice.double2uint_rn")


def double2uint_ru(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as uint32, rounded up, in an int32 (saturating, NaN -> 0)."""
    _host_call("libdevice.double2uint_ru")


def double2uint_rz(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as uint32, rounded toward zero, in an int32 (saturating, NaN -> 0)."""
    _host_call("libdevice.double2uint_rz")


def double2ull_rd(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as uint64, rounded down, in an int64 (saturating, NaN -> 0)."""
    _host_call("libdevice.double2ull_rd")


def double2ull_rn(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as uint64, rounded to nearest even, in an int64 (saturating, NaN -> 0)."""
    _host_call("libdevice.double2ull_rn")


def double2ull_ru(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as uint64, rounded up, in an int64 (saturating, NaN -> 0)."""
    _host_call("libdevice.double2ull_ru")


def double2ull_rz(arg0: TensorLike) -> tensor:
    """float64 ``arg0`` as uint64, rounded toward zero, in an int64 (saturating, NaN -> 0)."""
    _host_call("libdevice.double2ull_rz")


def double_as_longlong(arg0: TensorLike) -> tensor:
    """The bits of float64 ``arg0`` as int64."""
    _host_call("libdevice.double_as_longlong")


def erf(arg0: TensorLike) -> tensor:
    """Error function of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.erf")


def erfc(arg0: TensorLike) -> tensor:
    """Complementary error function ``1 - erf(arg0)`` (float32 or float64)."""
    _host_call("libdevice.erfc")


def erfcinv(arg0: TensorLike) -> tensor:
    """Inverse complementary error function of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.erfcinv")


def erfcx(arg0: TensorLike) -> tensor:
    """Scaled complementary error function ``exp(arg0**2) * erfc(arg0)`` (float32 or float64)."""
    _host_call("libdevice.erfcx")


def erfinv(arg0: TensorLike) -> tensor:
    """Inverse error function of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.erfinv")


def exp(arg0: TensorLike) -> tensor:
    """e raised to ``arg0`` (float32 or float64)."""
    _host_call("libdevice.exp")


def exp10(arg0: TensorLike) -> tensor:
    """10 raised to ``arg0`` (float32 or float64)."""
    _host_call("libdevice.exp10")


def exp2(arg0: TensorLike) -> tensor:
    """2 raised to ``arg0`` (float32 or float64)."""
    _host_call("libdevice.exp2")


def expm1(arg0: TensorLike) -> tensor:
    """``e**arg0 - 1``, accurate for small ``arg0`` (float32 or float64)."""
    _host_call("libdevice.expm1")


def fast_cosf(arg0: TensorLike) -> tensor:
    """The hardware approximation of the cosine of ``arg0`` (float32), as CUDA's fast intrinsics."""
    _host_call("libdevice.fast_cosf")


def fast_dividef(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 / arg1`` by the fast approximate division (float32)."""
    _host_call("libdevice.fast_dividef")


def fast_exp10f(arg0: TensorLike) -> tensor:
    """The hardware approximation of the 10 raised to ``arg0`` (float32), as CUDA's fast intrinsics."""
    _host_call("libdevice.fast_exp10f")


def fast_expf(arg0: TensorLike) -> tensor:
    """The hardware approximation of the e raised to ``arg0`` (float32), as CUDA's fast intrinsics."""
    _host_call("libdevice.fast_expf")


def fast_log10f(arg0: TensorLike) -> tensor:
    """The hardware approximation of the base-10 logarithm of ``arg0`` (float32), as CUDA's fast intrinsics."""
    _host_call("libdevice.fast_log10f")


def fast_log2f(arg0: TensorLike) -> tensor:
    """The hardware approximation of the base-2 logarithm of ``arg0`` (float32), as CUDA's fast intrinsics."""
    _host_call("libdevice.fast_log2f")


def fast_logf(arg0: TensorLike) -> tensor:
    """The hardware approximation of the natural logarithm of ``arg0`` (float32), as CUDA's fast intrinsics."""
    _host_call("libdevice.fast_logf")


def fast_powf(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """The hardware approximation of the ``arg0`` raised to ``arg1`` (float32), as CUDA's fast intrinsics."""
    _host_call("libdevice.fast_powf")


def fast_sinf(arg0: TensorLike) -> tensor:
    """The hardware approximation of the sine of ``arg0`` (float32), as CUDA's fast intrinsics."""
    _host_call("libdevice.fast_sinf")


def fast_tanf(arg0: TensorLike) -> tensor:
    """The hardware approximation of the tangent of ``arg0`` (float32), as CUDA's fast intrinsics."""
    _host_call("libdevice.fast_tanf")


def fdim(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 - arg1`` when positive, else +0 (float32 or float64)."""
    _host_call("libdevice.fdim")


def ffs(arg0: TensorLike) -> tensor:
    """Position (from 1) of the least significant set bit of ``arg0``, 0 for 0, as int32."""
    _host_call("libdevice.ffs")


def finitef(arg0: TensorLike) -> tensor:
    """1 when ``arg0`` is finite, else 0, as int32 (float32)."""
    _host_call("libdevice.finitef")


def float2int_rd(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as int32, rounded down (saturating, NaN -> 0)."""
    _host_call("libdevice.float2int_rd")


def float2int_rn(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as int32, rounded to nearest even (saturating, NaN -> 0)."""
    _host_call("libdevice.float2int_rn")


def float2int_ru(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as int32, rounded up (saturating, NaN -> 0)."""
    _host_call("libdevice.float2int_ru")


def float2int_rz(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as int32, rounded toward zero (saturating, NaN -> 0)."""
    _host_call("libdevice.float2int_rz")


def float2ll_rd(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as int64, rounded down (saturating, NaN -> 0)."""
    _host_call("libdevice.float2ll_rd")


def float2ll_rn(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as int64, rounded to nearest even (saturating, NaN -> 0)."""
    _host_call("libdevice.float2ll_rn")


def float2ll_ru(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as int64, rounded up (saturating, NaN -> 0)."""
    _host_call("libdevice.float2ll_ru")


def float2ll_rz(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as int64, rounded toward zero (saturating, NaN -> 0)."""
    _host_call("libdevice.float2ll_rz")


def float2uint_rd(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as uint32, rounded down, in an int32 (saturating, NaN -> 0)."""
    _host_call("libdevice.float2uint_rd")


def float2uint_rn(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as uint32, rounded to nearest even, in an int32 (saturating, NaN -> 0)."""
    _host_call("libdevice.float2uint_rn")


def float2uint_ru(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as uint32, rounded up, in an int32 (saturating, NaN -> 0)."""
    _host_call("libdevice.float2uint_ru")


def float2uint_rz(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as uint32, rounded toward zero, in an int32 (saturating, NaN -> 0)."""
    _host_call("libdevice.float2uint_rz")


def float2ull_rd(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as uint64, rounded down, in an int64 (saturating, NaN -> 0)."""
    _host_call("libdevice.float2ull_rd")


def float2ull_rn(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as uint64, rounded to nearest even, in an int64 (saturating, NaN -> 0)."""
    _host_call("libdevice.float2ull_rn")


def float2ull_ru(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as uint64, rounded up, in an int64 (saturating, NaN -> 0)."""
    _host_call("libdevice.float2ull_ru")


def float2ull_rz(arg0: TensorLike) -> tensor:
    """float32 ``arg0`` as uint64, rounded toward zero, in an int64 (saturating, NaN -> 0)."""
    _host_call("libdevice.float2ull_rz")


def float_as_int(arg0: TensorLike) -> tensor:
    """The bits of float32 ``arg0`` as int32."""
    _host_call("libdevice.float_as_int")


def float_as_uint(arg0: TensorLike) -> tensor:
    """The bits of float32 ``arg0`` as int32 (Triton's result dtype)."""
    _host_call("libdevice.float_as_uint")


def floor(arg0: TensorLike) -> tensor:
    """Largest integral value not greater than ``arg0`` (float32 or float64)."""
    _host_call("libdevice.floor")


def fma(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike) -> tensor:
    """``arg0 * arg1 + arg2`` with a single rounding (float32 or float64)."""
    _host_call("libdevice.fma")


def fma_rd(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike) -> tensor:
    """``arg0 * arg1 + arg2`` rounded down (float32 or float64)."""
    _host_call("libdevice.fma_rd")


def fma_rn(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike) -> tensor:
    """``arg0 * arg1 + arg2`` rounded to nearest even (float32 or float64)."""
    _host_call("libdevice.fma_rn")


def fma_ru(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike) -> tensor:
    """``arg0 * arg1 + arg2`` rounded up (float32 or float64)."""
    _host_call("libdevice.fma_ru")


def fma_rz(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike) -> tensor:
    """``arg0 * arg1 + arg2`` rounded toward zero (float32 or float64)."""
    _host_call("libdevice.fma_rz")


def fmod(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """Remainder of ``arg0 / arg1`` rounded toward zero, exact (float32 or float64)."""
    _host_call("libdevice.fmod")


def hadd(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``(arg0 + arg1) >> 1`` without overflow (int32 or uint32)."""
    _host_call("libdevice.hadd")


def hiloint2double(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """The float64 whose high and low 32 bits are ``arg0`` and ``arg1`` (int32)."""
    _host_call("libdevice.hiloint2double")


def hypot(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``sqrt(arg0**2 + arg1**2)`` without undue overflow (float32 or float64)."""
    _host_call("libdevice.hypot")


def ilogb(arg0: TensorLike) -> tensor:
    """Unbiased exponent of ``arg0`` as int32 (float32 or float64)."""
    _host_call("libdevice.ilogb")


def int2double_rn(arg0: TensorLike) -> tensor:
    """int32 ``arg0`` as float64 (exact)."""
    _host_call("libdevice.int2double_rn")


def int2float_rd(arg0: TensorLike) -> tensor:
    """int32 ``arg0`` as float32, rounded down."""
    _host_call("libdevice.int2float_rd")


def int2float_rn(arg0: TensorLike) -> tensor:
    """int32 ``arg0`` as float32, rounded to nearest even."""
    _host_call("libdevice.int2float_rn")


def int2float_ru(arg0: TensorLike) -> tensor:
    """int32 ``arg0`` as float32, rounded up."""
    _host_call("libdevice.int2float_ru")


def int2float_rz(arg0: TensorLike) -> tensor:
    """int32 ``arg0`` as float32, rounded toward zero."""
    _host_call("libdevice.int2float_rz")


def int_as_float(arg0: TensorLike) -> tensor:
    """The bits of int32 ``arg0`` as float32."""
    _host_call("libdevice.int_as_float")


def isfinited(arg0: TensorLike) -> tensor:
    """1 when ``arg0`` is finite, else 0, as int32 (float64)."""
    _host_call("libdevice.isfinited")


def isinf(arg0: TensorLike) -> tensor:
    """Whether ``arg0`` is infinite, as int1 (float32 or float64)."""
    _host_call("libdevice.isinf")


def isnan(arg0: TensorLike) -> tensor:
    """Whether ``arg0`` is NaN, as int1 (float32 or float64)."""
    _host_call("libdevice.isnan")


def j0(arg0: TensorLike) -> tensor:
    """Bessel function of the first kind of order 0 (float32 or float64)."""
    _host_call("libdevice.j0")


def j1(arg0: TensorLike) -> tensor:
    """Bessel function of the first kind of order 1 (float32 or float64)."""
    _host_call("libdevice.j1")


def ldexp(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 * 2**arg1`` for an int32 ``arg1`` (float32 or float64)."""
    _host_call("libdevice.ldexp")


def lgamma(arg0: TensorLike) -> tensor:
    """Natural logarithm of the absolute value of the gamma function (float32 or float64)."""
    _host_call("libdevice.lgamma")


def ll2double_rd(arg0: TensorLike) -> tensor:
    """int64 ``arg0`` as float64, rounded down."""
    _host_call("libdevice.ll2double_rd")


def ll2double_rn(arg0: TensorLike) -> tensor:
    """int64 ``arg0`` as float64, rounded to nearest even."""
    _host_call("libdevice.ll2double_rn")


def ll2double_ru(arg0: TensorLike) -> tensor:
    """int64 ``arg0`` as float64, rounded up."""
    _host_call("libdevice.ll2double_ru")


def ll2double_rz(arg0: TensorLike) -> tensor:
    """int64 ``arg0`` as float64, rounded toward zero."""
    _host_call("libdevice.ll2double_rz")


def ll2float_rd(arg0: TensorLike) -> tensor:
    """int64 ``arg0`` as float32, rounded down."""
    _host_call("libdevice.ll2float_rd")


def ll2float_rn(arg0: TensorLike) -> tensor:
    """int64 ``arg0`` as float32, rounded to nearest even."""
    _host_call("libdevice.ll2float_rn")


def ll2float_ru(arg0: TensorLike) -> tensor:
    """int64 ``arg0`` as float32, rounded up."""
    _host_call("libdevice.ll2float_ru")


def ll2float_rz(arg0: TensorLike) -> tensor:
    """int64 ``arg0`` as float32, rounded toward zero."""
    _host_call("libdevice.ll2float_rz")


def llrint(arg0: TensorLike) -> tensor:
    """``arg0`` rounded to the nearest integer, halfway cases to even, as int64."""
    _host_call("libdevice.llrint")


def llround(arg0: TensorLike) -> tensor:
    """``arg0`` rounded to the nearest integer, halfway cases away from zero, as int64."""
    _host_call("libdevice.llround")


def log(arg0: TensorLike) -> tensor:
    """Natural logarithm of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.log")


def log10(arg0: TensorLike) -> tensor:
    """Base-10 logarithm of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.log10")


def log1p(arg0: TensorLike) -> tensor:
    """``log(1 + arg0)``, accurate for small ``arg0`` (float32 or float64)."""
    _host_call("libdevice.log1p")


def log2(arg0: TensorLike) -> tensor:
    """Base-2 logarithm of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.log2")


def logb(arg0: TensorLike) -> tensor:
    """Unbiased exponent of ``arg0`` as a float (float32 or float64)."""
    _host_call("libdevice.logb")


def longlong_as_double(arg0: TensorLike) -> tensor:
    """The bits of int64 ``arg0`` as float64."""
    _host_call("libdevice.longlong_as_double")


def mul24(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """Product of the low 24 bits of ``arg0`` and ``arg1``, low 32 bits (int32 or uint32)."""
    _host_call("libdevice.mul24")


def mul_rd(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 * arg1`` rounded down (float32 or float64)."""
    _host_call("libdevice.mul_rd")


def mul_rn(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 * arg1`` rounded to nearest even (float32 or float64)."""
    _host_call("libdevice.mul_rn")


def mul_ru(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 * arg1`` rounded up (float32 or float64)."""
    _host_call("libdevice.mul_ru")


def mul_rz(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 * arg1`` rounded toward zero (float32 or float64)."""
    _host_call("libdevice.mul_rz")


def mulhi(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """High half of the double-width product ``arg0 * arg1`` (int32, uint32, int64, uint64)."""
    _host_call("libdevice.mulhi")


def nearbyint(arg0: TensorLike) -> tensor:
    """``arg0`` rounded to an integral value, halfway cases to even (float32 or float64)."""
    _host_call("libdevice.nearbyint")


def nextafter(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """The next representable value after ``arg0`` toward ``arg1`` (float32 or float64)."""
    _host_call("libdevice.nextafter")


def norm3d(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike) -> tensor:
    """``sqrt(arg0**2 + arg1**2 + arg2**2)`` (float32 or float64)."""
    _host_call("libdevice.norm3d")


def norm4d(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike, arg3: TensorLike) -> tensor:
    """``sqrt(arg0**2 + arg1**2 + arg2**2 + arg3**2)`` (float32 or float64)."""
    _host_call("libdevice.norm4d")


def normcdf(arg0: TensorLike) -> tensor:
    """Standard normal cumulative distribution function of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.normcdf")


def normcdfinv(arg0: TensorLike) -> tensor:
    """Inverse of the standard normal cumulative distribution function (float32 or float64)."""
    _host_call("libdevice.normcdfinv")


def popc(arg0: TensorLike) -> tensor:
    """Number of set bits of ``arg0`` (int32 or int64), as int32."""
    _host_call("libdevice.popc")


def pow(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0`` raised to ``arg1`` (float32 or float64; ``arg1`` may be int32)."""
    _host_call("libdevice.pow")


def rcbrt(arg0: TensorLike) -> tensor:
    """Reciprocal cube root of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.rcbrt")


def rcp_rd(arg0: TensorLike) -> tensor:
    """``1 / arg0`` rounded down (float32 or float64)."""
    _host_call("libdevice.rcp_rd")


def rcp_rn(arg0: TensorLike) -> tensor:
    """``1 / arg0`` rounded to nearest even (float32 or float64)."""
    _host_call("libdevice.rcp_rn")


def rcp_ru(arg0: TensorLike) -> tensor:
    """``1 / arg0`` rounded up (float32 or float64)."""
    _host_call("libdevice.rcp_ru")


def rcp_rz(arg0: TensorLike) -> tensor:
    """``1 / arg0`` rounded toward zero (float32 or float64)."""
    _host_call("libdevice.rcp_rz")


def remainder(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """IEEE remainder of ``arg0 / arg1`` (quotient rounded to even), exact (float32 or float64)."""
    _host_call("libdevice.remainder")


def rhadd(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``(arg0 + arg1 + 1) >> 1`` without overflow (int32 or uint32)."""
    _host_call("libdevice.rhadd")


def rhypot(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``1 / sqrt(arg0**2 + arg1**2)`` (float32 or float64)."""
    _host_call("libdevice.rhypot")


def rint(arg0: TensorLike) -> tensor:
    """``arg0`` rounded to an integral value, halfway cases to even (float32 or float64)."""
    _host_call("libdevice.rint")


def rnorm3d(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike) -> tensor:
    """``1 / sqrt(arg0**2 + arg1**2 + arg2**2)`` (float32 or float64)."""
    _host_call("libdevice.rnorm3d")


def rnorm4d(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike, arg3: TensorLike) -> tensor:
    """``1 / sqrt(arg0**2 + arg1**2 + arg2**2 + arg3**2)`` (float32 or float64)."""
    _host_call("libdevice.rnorm4d")


def round(arg0: TensorLike) -> tensor:
    """``arg0`` rounded to an integral value, halfway cases away from zero (float32 or float64)."""
    _host_call("libdevice.round")


def rsqrt(arg0: TensorLike) -> tensor:
    """Reciprocal square root of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.rsqrt")


def rsqrt_rn(arg0: TensorLike) -> tensor:
    """Reciprocal square root of float32 ``arg0``, correctly rounded."""
    _host_call("libdevice.rsqrt_rn")


def sad(arg0: TensorLike, arg1: TensorLike, arg2: TensorLike) -> tensor:
    """``|arg0 - arg1| + arg2`` (int32 or uint32 operands, uint32 ``arg2``)."""
    _host_call("libdevice.sad")


def saturatef(arg0: TensorLike) -> tensor:
    """``arg0`` clamped to [0, 1], NaN to 0 (float32)."""
    _host_call("libdevice.saturatef")


def scalbn(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 * 2**arg1`` for an int32 ``arg1`` (float32 or float64)."""
    _host_call("libdevice.scalbn")


def signbit(arg0: TensorLike) -> tensor:
    """1 when the sign bit of ``arg0`` is set, else 0, as int32 (float32 or float64)."""
    _host_call("libdevice.signbit")


def sin(arg0: TensorLike) -> tensor:
    """Sine of ``arg0`` in radians (float32 or float64)."""
    _host_call("libdevice.sin")


def sinh(arg0: TensorLike) -> tensor:
    """Hyperbolic sine of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.sinh")


def sinpi(arg0: TensorLike) -> tensor:
    """``sin(pi * arg0)`` (float32 or float64)."""
    _host_call("libdevice.sinpi")


def sqrt(arg0: TensorLike) -> tensor:
    """Square root of ``arg0``, correctly rounded (float32 or float64)."""
    _host_call("libdevice.sqrt")


def sqrt_rd(arg0: TensorLike) -> tensor:
    """Square root of ``arg0`` rounded down (float32 or float64)."""
    _host_call("libdevice.sqrt_rd")


def sqrt_rn(arg0: TensorLike) -> tensor:
    """Square root of ``arg0`` rounded to nearest even (float32 or float64)."""
    _host_call("libdevice.sqrt_rn")


def sqrt_ru(arg0: TensorLike) -> tensor:
    """Square root of ``arg0`` rounded up (float32 or float64)."""
    _host_call("libdevice.sqrt_ru")


def sqrt_rz(arg0: TensorLike) -> tensor:
    """Square root of ``arg0`` rounded toward zero (float32 or float64)."""
    _host_call("libdevice.sqrt_rz")


def sub_rd(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 - arg1`` rounded down (float32 or float64)."""
    _host_call("libdevice.sub_rd")


def sub_rn(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 - arg1`` rounded to nearest even (float32 or float64)."""
    _host_call("libdevice.sub_rn")


def sub_ru(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 - arg1`` rounded up (float32 or float64)."""
    _host_call("libdevice.sub_ru")


def sub_rz(arg0: TensorLike, arg1: TensorLike) -> tensor:
    """``arg0 - arg1`` rounded toward zero (float32 or float64)."""
    _host_call("libdevice.sub_rz")


def tan(arg0: TensorLike) -> tensor:
    """Tangent of ``arg0`` in radians (float32 or float64)."""
    _host_call("libdevice.tan")


def tanh(arg0: TensorLike) -> tensor:
    """Hyperbolic tangent of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.tanh")


def tgamma(arg0: TensorLike) -> tensor:
    """Gamma function of ``arg0`` (float32 or float64)."""
    _host_call("libdevice.tgamma")


def trunc(arg0: TensorLike) -> tensor:
    """``arg0`` rounded toward zero to an integral value (float32 or float64)."""
    _host_call("libdevice.trunc")


def uint2double_rn(arg0: TensorLike) -> tensor:
    """uint32 ``arg0`` as float64 (exact)."""
    _host_call("libdevice.uint2double_rn")


def uint2float_rd(arg0: TensorLike) -> tensor:
    """uint32 ``arg0`` as float32, rounded down."""
    _host_call("libdevice.uint2float_rd")


def uint2float_rn(arg0: TensorLike) -> tensor:
    """uint32 ``arg0`` as float32, rounded to nearest even."""
    _host_call("libdevice.uint2float_rn")


def uint2float_ru(arg0: TensorLike) -> tensor:
    """uint32 ``arg0`` as float32, rounded up."""
    _host_call("libdevice.uint2float_ru")


def uint2float_rz(arg0: TensorLike) -> tensor:
    """uint32 ``arg0`` as float32, rounded toward zero."""
    _host_call("libdevice.uint2float_rz")


def uint_as_float(arg0: TensorLike) -> tensor:
    """The bits of uint32 ``arg0`` as float32."""
    _host_call("libdevice.uint_as_float")


def ull2double_rd(arg0: TensorLike) -> tensor:
    """uint64 ``arg0`` as float64, rounded down."""
    _host_call("libdevice.ull2double_rd")


def ull2double_rn(arg0: TensorLike) -> tensor:
    """uint64 ``arg0`` as float64, rounded to nearest even."""
    _host_call("libdevice.ull2double_rn")


def ull2double_ru(arg0: TensorLike) -> tensor:
    """uint64 ``arg0`` as float64, rounded up."""
    _host_call("libdevice.ull2double_ru")


def ull2double_rz(arg0: TensorLike) -> tensor:
    """uint64 ``arg0`` as float64, rounded toward zero."""
    _host_call("libdevice.ull2double_rz")


def ull2float_rd(arg0: TensorLike) -> tensor:
    """uint64 ``arg0`` as float32, rounded down."""
    _host_call("libdevice.ull2float_rd")


def ull2float_rn(arg0: TensorLike) -> tensor:
    """uint64 ``arg0`` as float32, rounded to nearest even."""
    _host_call("libdevice.ull2float_rn")


def ull2float_ru(arg0: TensorLike) -> tensor:
    """uint64 ``arg0`` as float32, rounded up."""
    _host_call("libdevice.ull2float_ru")


def ull2float_rz(arg0: TensorLike) -> tensor:
    """uint64 ``arg0`` as float32, rounded toward zero."""
    _host_call("libdevice.ull2float_rz")


def umulhi(x: TensorLike, y: TensorLike) -> tensor:
    """High half of the double-width product of integers ``x`` and ``y`` (``tl.umulhi``)."""
    _host_call("libdevice.umulhi")


def y0(arg0: TensorLike) -> tensor:
    """Bessel function of the second kind of order 0 (float32 or float64)."""
    _host_call("libdevice.y0")


def y1(arg0: TensorLike) -> tensor:
    """Bessel function of the second kind of order 1 (float32 or float64)."""
    _host_call("libdevice.y1")
