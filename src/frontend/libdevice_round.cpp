// Arithmetic and conversions with a rounding direction (libdevice's _rn,
// _rz, _rd and _ru functions). The IR has round-to-nearest arithmetic only,
// so each function computes its exact result as an unevaluated sum
// (s + e) 2^k, s = round-to-nearest of the value, e of a known sign (an
// error-free transformation: TwoSum, the fma product, the remainder of a
// division or a square root), and then steps s to the neighbouring float
// when the exact value lies on the other side of it than the direction asks.
// float32 operations get their exact values in float64 (products of two
// float32 are exact there); float64 operations scale their operands into
// [1, 2) first, so the error terms never underflow, and scale the result
// back with one rounding. IEEE 754's rules for the sign of an exact zero
// sum (-0 when rounding down) are applied explicitly.
#include <cmath>
#include <limits>

#include "frontend/libdevice_math.h"

namespace tessera::frontend::ld {
namespace {

// Exponent e and m = |x| 2^-e in [1, 2) of a finite nonzero float64
// (subnormals included); e as an integral float64.
struct Frexp {
  V m, e;
};
Frexp normalize(const V &x) {
  MathBuilder &m = *x.m;
  V sub = abs(x) < 0x1p-1022;
  V xs = sel(sub, x * 0x1p54, x);
  V bits = bitcast(xs, DType::I64);
  V e = addi((bits >> 52) & 2047, -1023);
  V ef = cvt(e, DType::F64) - sel(sub, 54.0, m.f(0.0));
  V mant = bitcast((bits & ((int64_t{1} << 52) - 1)) | (int64_t{1023} << 52), DType::F64);
  return {mant, ef};
}

// The largest finite float of x's dtype, with x's sign.
V maxFinite(const V &x, DType d) {
  double mx =
      d == DType::F32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  return copySign(x.m->f(mx, d), x);
}

// Rounds r0 (the nearest float of dtype d to the exact value) in direction
// `mode`, given whether the exact value lies below or above it.
V step(const V &r0, const V &below, const V &above, Rnd mode) {
  switch (mode) {
    case Rnd::RN:
      return r0;
    case Rnd::RD:
      return sel(below, nextDown(r0), r0);
    case Rnd::RU:
      return sel(above, nextUp(r0), r0);
    case Rnd::RZ:
      return sel((r0 > 0.0) & below, nextDown(r0), sel((r0 < 0.0) & above, nextUp(r0), r0));
  }
  return r0;
}

// (s + e) 2^k rounded to dtype `d` in direction `mode`, where s is float64
// and e's sign (its value need not be exact) tells on which side of s the
// exact value lies. Overflow rounds to the largest finite float or infinity
// as the direction says; a NaN or infinite s passes through.
V roundExact(const V &s, const V &e, const V &k, DType d, Rnd mode) {
  V scaled = scale2(s, k);
  V r0 = cvt(scaled, d);
  // The exact distance of s from r0, in s's scale (scaling back is exact).
  V back = scale2(cvt(r0, DType::F64), -k);
  V dist = s - back;
  V zero = lit(e, 0.0);
  V below = (dist < 0.0) | (eq(dist, 0.0) & (e < zero));
  V above = (dist > 0.0) | (eq(dist, 0.0) & (e > zero));
  // Overflow: r0 is infinite but s is not; the exact value lies below it
  // (for a positive r0) by more than the distance can say.
  V ovf = isInf(r0) & isFinite(s);
  below = sel(ovf, r0 > 0.0, below);
  above = sel(ovf, r0 < 0.0, above);
  V r = step(r0, below, above, mode);
  // Overflow toward zero gives the largest finite float.
  if (mode == Rnd::RZ) r = sel(ovf, maxFinite(r0, d), r);
  if (mode == Rnd::RD) r = sel(ovf & (r0 > 0.0), maxFinite(r0, d), r);
  if (mode == Rnd::RU) r = sel(ovf & (r0 < 0.0), maxFinite(r0, d), r);
  return sel(isFinite(s), r, cvt(s, d));
}

V roundExact(const V &s, const V &e, DType d, Rnd mode) {
  return roundExact(s, e, lit(s, 0.0), d, mode);
}

// Rounding down, an exact zero sum is -0 unless both addends are +0.
V zeroSign(const V &r, const V &a, const V &b, Rnd mode) {
  if (mode != Rnd::RD) return r;
  V bothPlus = eq(a, 0.0) & lnot(signBit(a)) & eq(b, 0.0) & lnot(signBit(b));
  return sel(eq(r, 0.0) & lnot(bothPlus), -lit(r, 0.0), r);
}

V nonzeroFinite(const V &x) {
  return ne(x, 0.0) & isFinite(x);
}

}  // namespace

V addRounded(const V &a, const V &b, Rnd mode) {
  if (mode == Rnd::RN) return a + b;
  DType d = a.dtype();
  V a64 = cvt(a, DType::F64), b64 = cvt(b, DType::F64);
  DD s = twoSum(a64, b64);
  // A float64 sum that overflowed: beyond the largest float, on s's side.
  V ovf = isInf(s.hi) & isFinite(a64) & isFinite(b64);
  V big = copySign(lit(s.hi, std::numeric_limits<double>::max()), s.hi);
  V r = roundExact(sel(ovf, big, s.hi), sel(ovf, copySign(lit(s.hi, 1.0), s.hi), s.lo), d, mode);
  // Infinite or NaN operands: the sum itself (inf - inf is NaN).
  r = sel(isFinite(a64) & isFinite(b64), r, a + b);
  return zeroSign(r, a, b, mode);
}

V mulRounded(const V &a, const V &b, Rnd mode) {
  if (mode == Rnd::RN) return a * b;
  DType d = a.dtype();
  V a64 = cvt(a, DType::F64), b64 = cvt(b, DType::F64);
  V r;
  if (d == DType::F32) {
    r = roundExact(a64 * b64, lit(a64, 0.0), d, mode);  // exact in float64
  } else {
    Frexp fa = normalize(a64), fb = normalize(b64);
    DD p = twoProd(copySign(fa.m, a64 * b64), fb.m);
    r = roundExact(p.hi, p.lo, fa.e + fb.e, d, mode);
  }
  return sel(nonzeroFinite(a64) & nonzeroFinite(b64), r, a * b);
}

V divRounded(const V &a, const V &b, Rnd mode) {
  if (mode == Rnd::RN) return a / b;
  DType d = a.dtype();
  Frexp fa = normalize(cvt(a, DType::F64)), fb = normalize(cvt(b, DType::F64));
  // |a| / |b| = (q + rem / mb) 2^(ea - eb) with q in (1/2, 2) and the
  // remainder rem = ma - q mb exact.
  V q = fa.m / fb.m;
  V rem = fma(-q, fb.m, fa.m);
  V a64 = cvt(a, DType::F64), b64 = cvt(b, DType::F64);
  V sgn = copySign(lit(q, 1.0), a64 * b64);
  V r = roundExact(q * sgn, rem * sgn, fa.e - fb.e, d, mode);
  return sel(nonzeroFinite(a64) & nonzeroFinite(b64), r, a / b);
}

V sqrtRounded(const V &x, Rnd mode) {
  if (mode == Rnd::RN) return sqrt(x);
  DType d = x.dtype();
  V x64 = cvt(x, DType::F64);
  Frexp f = normalize(x64);
  // An even exponent: x = m' 2^(2j), m' in [1, 4).
  V odd = ne(floor(f.e * 0.5) * 2.0, f.e);
  V mm = sel(odd, f.m * 2.0, f.m);
  V j = floor(f.e * 0.5);
  V s = sqrt(mm);
  V rem = fma(-s, s, mm);
  V r = roundExact(s, rem, j, d, mode);
  return sel((x64 > 0.0) & isFinite(x64), r, sqrt(x));
}

V fmaRounded(const V &a, const V &b, const V &c, Rnd mode) {
  if (mode == Rnd::RN) return fma(a, b, c);
  DType d = a.dtype();
  V a64 = cvt(a, DType::F64), b64 = cvt(b, DType::F64), c64 = cvt(c, DType::F64);
  Frexp fa = normalize(a64), fb = normalize(b64);
  V pe = fa.e + fb.e;
  DD p = twoProd(copySign(fa.m, a64 * b64), fb.m);  // a b = p 2^pe
  V cs = scale2(c64, -pe);
  // c far above the product: the result is c, pushed by the product's sign.
  V cBig = abs(cs) > 0x1p600;
  // Otherwise the exact sum p + cs (cs may have underflowed, but then it is
  // far below p's last bit, and only its sign matters; c's sign is kept).
  DD s = twoSum(p.hi, cs);
  DD t = twoSum(s.lo, p.lo);
  DD u = fastTwoSum(s.hi, t.hi);
  V tail = u.lo + t.lo;
  tail = sel(eq(tail, 0.0) & ne(c64, 0.0) & eq(cs, 0.0), copySign(lit(cs, 0x1p-1074), c64), tail);
  V r = roundExact(u.hi, tail, pe, d, mode);
  V rBig = roundExact(c64, copySign(lit(c64, 1.0), a64 * b64), d, mode);
  r = sel(cBig, rBig, r);
  // Zero, infinite or NaN factors: the plain fma (exact then), c = 0: the product.
  V plain = fma(a, b, c);
  r = sel(nonzeroFinite(a64) & nonzeroFinite(b64) & isFinite(c64), r, plain);
  r = sel(eq(c64, 0.0) & nonzeroFinite(a64) & nonzeroFinite(b64), mulRounded(a, b, mode), r);
  // Rounding down, an exact zero is -0 unless a b and c are both +0.
  if (mode == Rnd::RD) {
    V prodPlusZero = (eq(a64, 0.0) | eq(b64, 0.0)) & lnot(signBit(a64 * b64));
    V bothPlus = prodPlusZero & eq(c64, 0.0) & lnot(signBit(c64));
    r = sel(eq(r, 0.0) & lnot(bothPlus), -lit(r, 0.0), r);
  }
  return r;
}

// ---- conversions -----------------------------------------------------------------------------

V floatToFloatRounded(const V &x, DType to, Rnd mode) {
  // float64 -> float32: the value is exact in float64.
  if (mode == Rnd::RN) return cvt(x, to);
  if (mode == Rnd::RZ) return cvtRz(x, to);
  return roundExact(x, lit(x, 0.0), to, mode);
}

V intToFloatRounded(const V &x, DType to, Rnd mode) {
  if (mode == Rnd::RN) return cvt(x, to);
  // x = hi 2^32 + lo, both parts exact in float64, summed exactly.
  MathBuilder &m = *x.m;
  V s, e;
  if (bitWidth(x.dtype()) == 64) {
    V hi = cvt(x >> 32, DType::F64) * 0x1p32;
    V lo = cvt(cvt(x, DType::U32), DType::F64);
    DD sum = twoSum(hi, lo);
    s = sum.hi;
    e = sum.lo;
  } else {
    s = cvt(x, DType::F64);
    e = m.f(0.0);
  }
  return roundExact(s, e, to, mode);
}

V floatToIntRounded(const V &x, DType to, Rnd mode) {
  // Round to an integral float first; the conversion then truncates exactly
  // (saturating, NaN -> 0).
  V r = x;
  switch (mode) {
    case Rnd::RN:
      r = rint(x);
      break;
    case Rnd::RD:
      r = floor(x);
      break;
    case Rnd::RU:
      r = ceil(x);
      break;
    case Rnd::RZ:
      break;
  }
  return cvt(r, to);
}

V roundToF32(const DD &x) {
  // hi rounded, unless hi lies exactly halfway between two floats and lo
  // pushes it past the middle.
  V r0 = cvt(x.hi, DType::F32);
  V d = x.hi - cvt(r0, DType::F64);
  V nb = sel(d > 0.0, nextUp(r0), nextDown(r0));
  V half = eq(d * 2.0, cvt(nb, DType::F64) - cvt(r0, DType::F64));
  return sel(half & (x.lo * d > 0.0), nb, r0);
}

}  // namespace tessera::frontend::ld
