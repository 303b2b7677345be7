// Exact float functions of libdevice: round, fmod, remainder, ilogb, logb,
// nextafter, fdim, saturatef, ldexp. Every result is exact (or correctly
// rounded, for ldexp into the subnormals), as libdevice's are.
#include <climits>
#include <cmath>

#include "frontend/libdevice_math.h"

namespace tessera::frontend::ld {

V roundHalfAway(const V &x) {
  // floor(|x|) plus one when the fraction (exact below 2^p) is at least 1/2.
  double big = std::ldexp(1.0, mantBits(x.dtype()));
  V ax = abs(x);
  V t = floor(ax);
  V r = t + sel(ax - t >= 0.5, lit(x, 1.0), lit(x, 0.0));
  return sel(ax < big, copySign(r, x), x);
}

V fmodOrRemainder(const V &x, const V &y, bool remainder) {
  // Long division by chunks (float64; float32 operands are exact in it).
  // A step divides r by b' = b 2^j, where j = exponent(r) - exponent(b) - 50
  // (or 0) keeps the quotient q below 2^51; then r - q b' is a multiple of
  // ulp(b') below 2 b' in magnitude, so the fma computes it exactly, and a
  // correction by b' leaves 0 <= r < b'. Each step removes at least 49 bits
  // of the exponent difference: 44 steps cover float64's 2098, 7 float32's.
  MathBuilder &m = *x.m;
  int steps = x.isF32() ? 7 : 44;
  V x64 = cvt(x, DType::F64), y64 = cvt(y, DType::F64);
  V b = abs(y64);
  V r = abs(x64);
  // Operands that the steps must not see: inf, NaN, zero divisor.
  V bad = lnot(isFinite(r)) | lnot(isFinite(b)) | eq(b, 0.0);
  r = sel(bad, m.f(0.0), r);
  b = sel(bad, m.f(1.0), b);
  auto i64 = [&](int64_t v) { return m.i(v, DType::I64); };
  auto expOf = [&](const V &v) { return addi((bitcast(v, DType::I64) >> 52) & 2047, -1023); };
  // The exponent of a positive float64, subnormals included.
  auto exponent = [&](const V &v) {
    V sub = v < 0x1p-1022;
    return expOf(sel(sub, v * 0x1p54, v)) - sel(sub, i64(54), i64(0));
  };
  V eb = exponent(b);
  auto pow2 = [&](const V &e) { return bitcast(addi(e, 1023) << 52, DType::F64); };
  V odd = m.i(0, DType::I1);
  for (int i = 0; i < steps; ++i) {
    V j = exponent(r) - eb - i64(50);
    V big = j > i64(0);
    j = sel(big, j, i64(0));
    V j1 = sel(j > i64(1000), i64(1000), j);
    V j2 = sel(j - j1 > i64(1000), i64(1000), j - j1);
    V bp = ((b * pow2(j1)) * pow2(j2)) * pow2(j - j1 - j2);
    V qq = floor(r / bp);
    r = fma(-qq, bp, r);
    V neg = r < 0.0;
    r = sel(neg, r + bp, r);
    qq = sel(neg, qq - 1.0, qq);
    V over = r >= bp;
    r = sel(over, r - bp, r);
    qq = sel(over, qq + 1.0, qq);
    if (remainder) {
      // Only the last step (j = 0) decides the quotient's parity: the
      // earlier ones take even multiples of b.
      V qOdd = ne(floor(qq * 0.5) * 2.0, qq);
      odd = sel(lnot(big) & ne(qq, 0.0), qOdd, odd);
    }
  }
  if (remainder) {
    // To nearest: r - b when r > b/2, or r = b/2 and the quotient is odd.
    V twice = r * 2.0;
    V down = (twice > b) | (eq(twice, b) & odd);
    r = sel(down, r - b, r);
  }
  V out = sel(signBit(x64), -r, r);
  out = sel(bad, m.f(NAN), out);
  // fmod(x, +-inf) = x for finite x; and zero dividends stay.
  V keep = (isFinite(x64) & isInf(y64)) | (eq(x64, 0.0) & ne(y64, 0.0) & lnot(isNan(y64)));
  out = sel(keep, x64, out);
  return cvt(out, x.dtype());
}

V ilogb(const V &x) {
  MathBuilder &m = *x.m;
  V x64 = cvt(x, DType::F64);
  V sub = abs(x64) < 0x1p-1022;
  V xs = sel(sub, x64 * 0x1p54, x64);
  V e = addi((bitcast(xs, DType::I64) >> 52) & 2047, -1023);
  e = cvt(e - sel(sub, m.i(54, DType::I64), m.i(0, DType::I64)), DType::I32);
  e = sel(eq(x64, 0.0) | isNan(x64), m.i(INT_MIN, DType::I32), e);
  return sel(isInf(x64), m.i(INT_MAX, DType::I32), e);
}

V logb(const V &x) {
  V e = cvt(ilogb(x), x.dtype());
  V r = sel(eq(x, 0.0), lit(x, -INFINITY), e);
  r = sel(isInf(x), abs(x), r);
  return sel(isNan(x), x, r);
}

V nextAfter(const V &x, const V &y) {
  V r = sel(x < y, nextUp(x), nextDown(x));
  r = sel(eq(x, y), y, r);
  return sel(isNan(x) | isNan(y), x + y, r);
}

V fdim(const V &x, const V &y) {
  V r = sel(x > y, x - y, lit(x, 0.0));
  return sel(isNan(x) | isNan(y), x + y, r);
}

V saturate(const V &x) {
  // NaN -> 0 (both comparisons are false).
  return sel(x > 0.0, sel(x < 1.0, x, lit(x, 1.0)), lit(x, 0.0));
}

V ldexp(const V &x, const V &n) {
  // n clamped where the result has over- or underflowed anyway; float32
  // operands scale exactly in float64 and round once on the way back.
  double lim = x.isF32() ? 400 : 2200;
  V k = cvt(n, DType::F64);
  k = sel(k > lim, lit(k, lim), sel(k < -lim, lit(k, -lim), k));
  return cvt(scale2(cvt(x, DType::F64), k), x.dtype());
}

}  // namespace tessera::frontend::ld
