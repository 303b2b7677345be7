// The vocabulary of the libdevice compositions (builtins_libdevice.cpp and
// libdevice_*.cpp): element-wise IR over one shape, written with operators so
// that a numerical algorithm reads like its formulas.
//
// Contract: every float add, sub and mul is emitted with precise=1 (the PTX
// emitter writes .rn, which ptxas may not contract into an fma), divisions
// and square roots are the IEEE-rounded ones, and no op is an approximation.
// So a composition computes bit for bit the same on the interpreter and the
// GPU, and the error analysis of an algorithm (exact products by fma,
// error-free sums) holds on both. Comparisons never rely on the order of
// signed zeros, and max/min are not used (their NaN and zero rules differ
// between targets in corner cases); selects do that work.
#pragma once

#include <vector>

#include "frontend/lowering.h"

namespace tessera::frontend::ld {

class MathBuilder;

// A value under construction: an IR value and the builder that made it.
struct V {
  Value *v = nullptr;
  MathBuilder *m = nullptr;
  DType dtype() const { return v->type.dtype; }
  bool isF32() const { return dtype() == DType::F32; }
};

class MathBuilder {
 public:
  MathBuilder(Lowerer &l, SourceLoc loc, std::vector<int64_t> shape)
      : l_(l), loc_(loc), shape_(std::move(shape)) {}
  Lowerer &lowerer() { return l_; }
  SourceLoc loc() const { return loc_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  Type type(DType d) const;
  V wrap(Value *v) { return {v, this}; }
  // Constants of this shape.
  V f(double c, DType d = DType::F64);
  V i(int64_t c, DType d);
  // One op of this shape; float add/sub/mul get precise=1.
  V op(OpCode code, const std::vector<V> &in, DType result, std::vector<NamedAttr> attrs = {});

 private:
  Lowerer &l_;
  SourceLoc loc_;
  std::vector<int64_t> shape_;
};

// A constant with the dtype of `like`.
V lit(const V &like, double c);

// ---- arithmetic (float or integer, both operands of one dtype) ----------------
V operator+(const V &a, const V &b);
V operator-(const V &a, const V &b);
V operator*(const V &a, const V &b);
V operator/(const V &a, const V &b);  // float: IEEE division; int: C's
V operator-(const V &a);
V operator+(const V &a, double b);
V operator+(double a, const V &b);
V operator-(const V &a, double b);
V operator-(double a, const V &b);
V operator*(const V &a, double b);
V operator*(double a, const V &b);
V operator/(const V &a, double b);
V operator/(double a, const V &b);
V fma(const V &a, const V &b, const V &c);
V fma(const V &a, double b, const V &c);
V fma(const V &a, const V &b, double c);
V fma(const V &a, double b, double c);
V sqrt(const V &a);  // IEEE square root
V floor(const V &a);
V ceil(const V &a);
V abs(const V &a);

// ---- comparisons (int1 results; false when an operand is NaN, except ne) ---------
V operator<(const V &a, const V &b);
V operator<=(const V &a, const V &b);
V operator>(const V &a, const V &b);
V operator>=(const V &a, const V &b);
V operator<(const V &a, double b);
V operator<=(const V &a, double b);
V operator>(const V &a, double b);
V operator>=(const V &a, double b);
V eq(const V &a, const V &b);
V eq(const V &a, double b);
V ne(const V &a, const V &b);
V ne(const V &a, double b);

// ---- int1 logic and integer bits -----------------------------------------------
V operator&(const V &a, const V &b);
V operator|(const V &a, const V &b);
V operator^(const V &a, const V &b);
V lnot(const V &a);  // logical not (int1) / bitwise complement (ints)
V operator&(const V &a, int64_t b);
V operator|(const V &a, int64_t b);
V operator^(const V &a, int64_t b);
V operator<<(const V &a, int64_t b);
V operator>>(const V &a, int64_t b);  // arithmetic for signed, logical for unsigned
V operator<<(const V &a, const V &b);
V operator>>(const V &a, const V &b);
V addi(const V &a, int64_t b);  // integer a + b
V muli(const V &a, int64_t b);
V umulhi(const V &a, const V &b);

// ---- selection and conversion ------------------------------------------------------
V sel(const V &c, const V &a, const V &b);
V sel(const V &c, const V &a, double b);
V sel(const V &c, double a, const V &b);
V cvt(const V &a, DType d);      // numeric conversion (float -> int truncates, saturating)
V bitcast(const V &a, DType d);  // same width
V cvtRz(const V &a, DType d);    // float -> narrower float, toward zero

// ---- IEEE helpers (float32 or float64 operands) ----------------------------------
DType bitsType(DType f);  // i32 for f32, i64 for f64
int mantBits(DType f);    // 23 or 52
V isNan(const V &x);
V isInf(const V &x);
V isFinite(const V &x);
V signBit(const V &x);  // int1
V copySign(const V &mag, const V &sgn);
V rint(const V &x);  // to nearest even, IEEE's roundToIntegralTiesToEven
V trunc(const V &x);
// x * 2^k for an integral float64 k, correctly rounded (one rounding at most).
V scale2(const V &x, const V &k);
// The next float after x toward +inf (up) or -inf (down); NaN stays.
V nextUp(const V &x);
V nextDown(const V &x);

// ---- double-double arithmetic (value = hi + lo, |lo| <= ulp(hi) / 2) --------------
struct DD {
  V hi, lo;
};
DD twoSum(const V &a, const V &b);      // exact a + b
DD fastTwoSum(const V &a, const V &b);  // exact a + b when |a| >= |b| or a == 0
DD twoProd(const V &a, const V &b);     // exact a * b (fma)
DD ddAdd(const DD &a, const DD &b);
DD ddAdd(const DD &a, const V &b);
DD ddMul(const DD &a, const DD &b);
DD ddMul(const DD &a, const V &b);
DD ddDiv(const DD &a, const DD &b);
DD ddConst(const V &like, double hi, double lo = 0);  // a constant with like's shape
V ddRound(const DD &a);                               // hi + lo rounded to one float

// ---- rounding directions (libdevice_round.cpp) -------------------------------------
// Operands of float32 or float64 (one dtype); the result has that dtype.
enum class Rnd { RN, RZ, RD, RU };
V addRounded(const V &a, const V &b, Rnd mode);
V mulRounded(const V &a, const V &b, Rnd mode);
V divRounded(const V &a, const V &b, Rnd mode);
V sqrtRounded(const V &x, Rnd mode);
V fmaRounded(const V &a, const V &b, const V &c, Rnd mode);
V floatToFloatRounded(const V &x, DType to, Rnd mode);  // float64 -> float32
V intToFloatRounded(const V &x, DType to, Rnd mode);
V floatToIntRounded(const V &x, DType to, Rnd mode);  // saturating, NaN -> 0
V roundToF32(const DD &x);  // a double-double rounded to the nearest float32

// ---- integer functions (libdevice_int.cpp) ----------------------------------------
V popc(const V &x);  // int32 results
V clz(const V &x);
V ffs(const V &x);
V brev(const V &x);
V bytePerm(const V &x, const V &y, const V &s);
V mulhi(const V &x, const V &y);
V mul24(const V &x, const V &y);
V sad(const V &x, const V &y, const V &z);
V hadd(const V &x, const V &y, bool roundUp);

// ---- exact float functions (libdevice_misc.cpp), float32 or float64 --------------------
V roundHalfAway(const V &x);
V fmodOrRemainder(const V &x, const V &y, bool remainder);
V ilogb(const V &x);  // int32
V logb(const V &x);
V nextAfter(const V &x, const V &y);
V fdim(const V &x, const V &y);
V saturate(const V &x);
V ldexp(const V &x, const V &n);  // n: int32

// ---- float64 cores (libdevice_explog.cpp) -----------------------------------------
// Each takes and returns float64 values and handles every input, specials
// included, within the bound its definition states.
V expDD(const DD &x);  // e^(x.hi + x.lo)
V exp(const V &x);
V exp2(const V &x);
V exp10(const V &x);
V expm1(const V &x);
DD logDD(const V &x);  // ln x as a double-double, for finite x > 0
V log(const V &x);
V log2(const V &x);
V log10(const V &x);
V log1p(const V &x);
V pow(const V &x, const V &y);
V sinh(const V &x);
V cosh(const V &x);
V tanh(const V &x);
V asinh(const V &x);
V acosh(const V &x);
V atanh(const V &x);
V cbrt(const V &x);
V rcbrt(const V &x);

// ---- float64 cores (libdevice_trig.cpp) -------------------------------------------
// fromF32: x is a float32 value (a smaller table of 2/pi's bits suffices).
V sin(const V &x, bool fromF32);
V cos(const V &x, bool fromF32);
V tan(const V &x, bool fromF32);
V sinpi(const V &x);
V cospi(const V &x);
DD sinpiDD(const V &x);                                 // sin(pi x) for finite x, double-double
void sinCosDD(const V &x, bool fromF32, DD &s, DD &c);  // finite x
V atan(const V &x);
V asin(const V &x);
V acos(const V &x);
V atan2(const V &y, const V &x);
V hypot(const std::vector<V> &xs);  // sqrt(sum of squares), 2 to 4 operands
V rhypot(const std::vector<V> &xs);

// ---- float64 cores (libdevice_erf.cpp) ----------------------------------------------
V erf(const V &x);
V erfc(const V &x);
V erfcx(const V &x);
V normcdf(const V &x);
V erfinv(const V &y);
V erfcinv(const V &w);
V normcdfinv(const V &p);

// ---- float64 cores (libdevice_gamma.cpp) --------------------------------------------
V lgamma(const V &x);
V tgamma(const V &x);

// ---- float64 cores (libdevice_bessel.cpp) -------------------------------------------
V besselI0(const V &x);
V besselI1(const V &x);

// ---- float64 cores (libdevice_besselj.cpp) ------------------------------------------
V besselJ0(const V &x, bool fromF32);
V besselJ1(const V &x, bool fromF32);
V besselY0(const V &x, bool fromF32);
V besselY1(const V &x, bool fromF32);

}  // namespace tessera::frontend::ld
