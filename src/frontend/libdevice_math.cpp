// The MathBuilder vocabulary (libdevice_math.h): element-wise ops, IEEE
// helpers and double-double arithmetic, from which the libdevice functions
// are composed. Everything here is exact or correctly rounded; the
// double-double algorithms are the classic error-free transformations
// (Knuth's TwoSum, Dekker's Fast2Sum, the fma product) and their usual
// compositions (Bailey's QD library), accurate to about 2^-104 relative.
#include "frontend/libdevice_math.h"

#include <cmath>
#include <limits>

namespace tessera::frontend::ld {

Type MathBuilder::type(DType d) const {
  return shape_.empty() ? Type::scalar(d) : Type::tile(shape_, Type::scalar(d));
}

V MathBuilder::f(double c, DType d) {
  l_.builder().setLoc(loc_);
  return {l_.builder().constFloat(c, type(d)), this};
}

V MathBuilder::i(int64_t c, DType d) {
  l_.builder().setLoc(loc_);
  return {l_.builder().constInt(c, type(d)), this};
}

V MathBuilder::op(OpCode code, const std::vector<V> &in, DType result,
                  std::vector<NamedAttr> attrs) {
  std::vector<Value *> operands;
  for (const V &v : in) operands.push_back(v.v);
  bool floatArith =
      (code == OpCode::Add || code == OpCode::Sub || code == OpCode::Mul) && isFloat(result);
  if (floatArith || ((code == OpCode::Div || code == OpCode::Sqrt) && isFloat(result)))
    attrs.push_back({"precise", int64_t{1}});
  return {l_.emit(code, std::move(operands), type(result), loc_, std::move(attrs)), this};
}

V lit(const V &like, double c) {
  if (isFloat(like.dtype())) return like.m->f(c, like.dtype());
  return like.m->i(static_cast<int64_t>(c), like.dtype());
}

namespace {
V bin(OpCode c, const V &a, const V &b) {
  return a.m->op(c, {a, b}, a.dtype());
}
V cmp(const char *pred, const V &a, const V &b) {
  return a.m->op(OpCode::Cmp, {a, b}, DType::I1, {{"pred", std::string(pred)}});
}
V ilit(const V &like, int64_t c) {
  return like.m->i(c, like.dtype());
}
}  // namespace

// ---- arithmetic -----------------------------------------------------------------------

V operator+(const V &a, const V &b) {
  return bin(OpCode::Add, a, b);
}
V operator-(const V &a, const V &b) {
  return bin(OpCode::Sub, a, b);
}
V operator*(const V &a, const V &b) {
  return bin(OpCode::Mul, a, b);
}
V operator/(const V &a, const V &b) {
  return bin(OpCode::Div, a, b);
}
V operator-(const V &a) {
  return a.m->op(OpCode::Neg, {a}, a.dtype());
}
V operator+(const V &a, double b) {
  return a + lit(a, b);
}
V operator+(double a, const V &b) {
  return lit(b, a) + b;
}
V operator-(const V &a, double b) {
  return a - lit(a, b);
}
V operator-(double a, const V &b) {
  return lit(b, a) - b;
}
V operator*(const V &a, double b) {
  return a * lit(a, b);
}
V operator*(double a, const V &b) {
  return lit(b, a) * b;
}
V operator/(const V &a, double b) {
  return a / lit(a, b);
}
V operator/(double a, const V &b) {
  return lit(b, a) / b;
}
V fma(const V &a, const V &b, const V &c) {
  return a.m->op(OpCode::Fma, {a, b, c}, a.dtype());
}
V fma(const V &a, double b, const V &c) {
  return fma(a, lit(a, b), c);
}
V fma(const V &a, const V &b, double c) {
  return fma(a, b, lit(a, c));
}
V fma(const V &a, double b, double c) {
  return fma(a, lit(a, b), lit(a, c));
}
V sqrt(const V &a) {
  return a.m->op(OpCode::Sqrt, {a}, a.dtype());
}
V floor(const V &a) {
  return a.m->op(OpCode::Floor, {a}, a.dtype());
}
V ceil(const V &a) {
  return a.m->op(OpCode::Ceil, {a}, a.dtype());
}
V abs(const V &a) {
  return a.m->op(OpCode::Abs, {a}, a.dtype());
}

// ---- comparisons ----------------------------------------------------------------------

V operator<(const V &a, const V &b) {
  return cmp("lt", a, b);
}
V operator<=(const V &a, const V &b) {
  return cmp("le", a, b);
}
V operator>(const V &a, const V &b) {
  return cmp("gt", a, b);
}
V operator>=(const V &a, const V &b) {
  return cmp("ge", a, b);
}
V operator<(const V &a, double b) {
  return a < lit(a, b);
}
V operator<=(const V &a, double b) {
  return a <= lit(a, b);
}
V operator>(const V &a, double b) {
  return a > lit(a, b);
}
V operator>=(const V &a, double b) {
  return a >= lit(a, b);
}
V eq(const V &a, const V &b) {
  return cmp("eq", a, b);
}
V eq(const V &a, double b) {
  return eq(a, lit(a, b));
}
V ne(const V &a, const V &b) {
  return cmp("ne", a, b);
}
V ne(const V &a, double b) {
  return ne(a, lit(a, b));
}

// ---- logic and bits -----------------------------------------------------------------------

V operator&(const V &a, const V &b) {
  return bin(OpCode::And, a, b);
}
V operator|(const V &a, const V &b) {
  return bin(OpCode::Or, a, b);
}
V operator^(const V &a, const V &b) {
  return bin(OpCode::Xor, a, b);
}
V lnot(const V &a) {
  return a.m->op(OpCode::Not, {a}, a.dtype());
}
V operator&(const V &a, int64_t b) {
  return a & ilit(a, b);
}
V operator|(const V &a, int64_t b) {
  return a | ilit(a, b);
}
V operator^(const V &a, int64_t b) {
  return a ^ ilit(a, b);
}
V operator<<(const V &a, int64_t b) {
  return bin(OpCode::Shl, a, ilit(a, b));
}
V operator>>(const V &a, int64_t b) {
  return bin(OpCode::Shr, a, ilit(a, b));
}
V operator<<(const V &a, const V &b) {
  return bin(OpCode::Shl, a, b);
}
V operator>>(const V &a, const V &b) {
  return bin(OpCode::Shr, a, b);
}
V addi(const V &a, int64_t b) {
  return a + ilit(a, b);
}
V muli(const V &a, int64_t b) {
  return a * ilit(a, b);
}
V umulhi(const V &a, const V &b) {
  return bin(OpCode::Umulhi, a, b);
}

// ---- selection and conversion ----------------------------------------------------------------

V sel(const V &c, const V &a, const V &b) {
  return c.m->op(OpCode::Select, {c, a, b}, a.dtype());
}
V sel(const V &c, const V &a, double b) {
  return sel(c, a, lit(a, b));
}
V sel(const V &c, double a, const V &b) {
  return sel(c, lit(b, a), b);
}
V cvt(const V &a, DType d) {
  if (a.dtype() == d) return a;
  return a.m->op(OpCode::Cast, {a}, d);
}
V bitcast(const V &a, DType d) {
  if (a.dtype() == d) return a;
  return a.m->op(OpCode::Bitcast, {a}, d);
}
V cvtRz(const V &a, DType d) {
  return a.m->op(OpCode::Cast, {a}, d, {{"rounding", std::string("rtz")}});
}

// ---- IEEE helpers ------------------------------------------------------------------------------

DType bitsType(DType f) {
  return f == DType::F64 ? DType::I64 : DType::I32;
}
int mantBits(DType f) {
  return f == DType::F64 ? 52 : 23;
}
V isNan(const V &x) {
  return ne(x, x);
}
V isInf(const V &x) {
  return eq(abs(x), INFINITY);
}
V isFinite(const V &x) {
  return abs(x) < INFINITY;
}
V signBit(const V &x) {
  return bitcast(x, bitsType(x.dtype())) < 0;
}
V copySign(const V &mag, const V &sgn) {
  DType it = bitsType(mag.dtype());
  int64_t signMask = it == DType::I64 ? std::numeric_limits<int64_t>::min() : INT32_MIN;
  V m = bitcast(mag, it) & ~signMask;
  V s = bitcast(sgn, it) & signMask;
  return bitcast(m | s, mag.dtype());
}
V rint(const V &x) {
  // Adding and removing 2^p (p = mantissa bits) leaves |x| rounded to an
  // integer by the addition's own rounding: to nearest even. Larger values
  // are integers already (and NaN and inf fail the test).
  double big = std::ldexp(1.0, mantBits(x.dtype()));
  V ax = abs(x);
  V r = copySign((ax + big) - big, x);
  return sel(ax < big, r, x);
}
V trunc(const V &x) {
  double big = std::ldexp(1.0, mantBits(x.dtype()));
  V ax = abs(x);
  return sel(ax < big, copySign(floor(ax), x), x);
}

namespace {
// 2^e for an i64 e in [-1022, 1023], as a float64.
V pow2(const V &e) {
  return bitcast(addi(e, 1023) << 52, DType::F64);
}
}  // namespace

V scale2(const V &x, const V &k) {
  // x = m 2^e with m in [1, 2) (subnormals scaled up first); the result is
  // m 2^(e + k) = (m 2^e1) 2^e2 where the first product is exact and normal
  // and the second rounds once: e2 = -200 below the normal range, e2 = E -
  // 1023 above it (the result overflows), else 0.
  MathBuilder &m = *x.m;
  V ax = abs(x);
  V sub = ax < 0x1p-1022;
  V xs = sel(sub, x * 0x1p54, x);
  V bits = bitcast(xs, DType::I64);
  V e = addi((bits >> 52) & 2047, -1023);
  e = e - sel(sub, m.i(54, DType::I64), m.i(0, DType::I64));
  V mant = bitcast((bits & ~(int64_t{2047} << 52)) | (int64_t{1023} << 52), DType::F64);
  V kc = sel(k > 2200.0, m.f(2200), sel(k < -2200.0, m.f(-2200), k));
  V total = e + cvt(kc, DType::I64);
  V i0 = m.i(0, DType::I64);
  V e2 = sel(total < m.i(-1022, DType::I64), m.i(-200, DType::I64),
             sel(total > m.i(1023, DType::I64), addi(total, -1023), i0));
  e2 = sel(e2 > m.i(1023, DType::I64), m.i(1023, DType::I64), e2);
  V e1 = total - e2;
  e1 = sel(e1 > m.i(1023, DType::I64), m.i(1023, DType::I64), e1);
  e1 = sel(e1 < m.i(-1022, DType::I64), m.i(-1022, DType::I64), e1);  // underflows to 0 anyway
  V r = (mant * pow2(e1)) * pow2(e2);
  // Zeros, infinities and NaN are their own scaling.
  V special = eq(ax, 0.0) | lnot(ax < INFINITY);
  return sel(special, x, copySign(r, x));
}

V nextUp(const V &x) {
  DType it = bitsType(x.dtype());
  V b = bitcast(x, it);
  V up = bitcast(sel(x > 0.0, addi(b, 1), addi(b, -1)), x.dtype());
  V tiny = lit(x, x.isF32() ? 0x1p-149 : 0x1p-1074);
  V r = sel(eq(x, 0.0), tiny, up);
  return sel(isNan(x) | eq(x, INFINITY), x, r);
}
V nextDown(const V &x) {
  return -nextUp(-x);
}

// ---- double-double -----------------------------------------------------------------------------

DD twoSum(const V &a, const V &b) {
  V s = a + b;
  V bb = s - a;
  V e = (a - (s - bb)) + (b - bb);
  return {s, e};
}
DD fastTwoSum(const V &a, const V &b) {
  V s = a + b;
  return {s, b - (s - a)};
}
DD twoProd(const V &a, const V &b) {
  V p = a * b;
  return {p, fma(a, b, -p)};
}
DD ddAdd(const DD &a, const DD &b) {
  DD s = twoSum(a.hi, b.hi);
  DD t = twoSum(a.lo, b.lo);
  DD r = fastTwoSum(s.hi, s.lo + t.hi);
  return fastTwoSum(r.hi, t.lo + r.lo);
}
DD ddAdd(const DD &a, const V &b) {
  DD s = twoSum(a.hi, b);
  return fastTwoSum(s.hi, s.lo + a.lo);
}
DD ddMul(const DD &a, const DD &b) {
  DD p = twoProd(a.hi, b.hi);
  V t = fma(a.hi, b.lo, a.lo * b.hi);
  return fastTwoSum(p.hi, p.lo + t);
}
DD ddMul(const DD &a, const V &b) {
  DD p = twoProd(a.hi, b);
  return fastTwoSum(p.hi, fma(a.lo, b, p.lo));
}
DD ddDiv(const DD &a, const DD &b) {
  V q1 = a.hi / b.hi;
  DD p = ddMul(b, q1);
  DD r = ddAdd(a, DD{-p.hi, -p.lo});
  V q2 = r.hi / b.hi;
  return fastTwoSum(q1, q2);
}
DD ddConst(const V &like, double hi, double lo) {
  return {lit(like, hi), lit(like, lo)};
}
V ddRound(const DD &a) {
  return a.hi + a.lo;
}

}  // namespace tessera::frontend::ld
