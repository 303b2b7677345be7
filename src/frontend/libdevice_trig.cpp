// Circular functions of the libdevice compositions, in float64 (float32
// callers round once): sin, cos, tan, sinpi, cospi, asin, acos, atan, atan2,
// and the Euclidean norms (hypot, rhypot, norm3d, norm4d and reciprocals).
//
//   Argument reduction: x = k pi/2 + r, |r| <= pi/4, r as a double-double.
//     |x| < 2^20: Cody-Waite with pi/2 in four parts, the first three of 33
//     bits so that k times each is exact (pi/2 to 2^-150: r keeps 80 bits
//     even where x is closest to a multiple of pi/2). Beyond: Payne-Hanek,
//     x 2/pi mod 4 in integer arithmetic: the 53-bit significand times a
//     192-bit window of 2/pi's bits chosen by the exponent (32-bit limbs in
//     64-bit products), whose top 128 fraction bits give r to 2^-75 relative.
//   sin r and cos r by their Taylor series (to r^23 and r^22) in
//     double-double at the leading terms; tan = sin / cos in double-double.
//   atan u, u in [0, 1]: u = c + (u - c), c = j/8 nearest u, atan u = atan c
//     + atan((u - c) / (1 + uc)), the quotient in double-double and below
//     1/16, its series to t^17; atan(j/8) tabulated in double-double.
//     asin, acos and atan2 go through atan2(n, d) of double-double n, d >= 0
//     (the smaller over the larger), with sqrt(1 - x^2) in double-double.
//   Norms: the squares summed in double-double after scaling by a power of
//     two, the square root in double-double, one rounding, the scale undone.
// All results are within about 0.6 ulp; special values follow C99 Annex F.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "frontend/libdevice_math.h"

namespace tessera::frontend::ld {
namespace {

// pi/2 = kP1 + kP2 + kP3 + kP4, the first three with 33 significant bits.
constexpr double kP1 = 0x1.921fb544p+0, kP2 = 0x1.0b4611a6p-34, kP3 = 0x1.3198a2ep-69,
                 kP4 = 0x1.b839a252049c1p-104;
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
constexpr double kPi[2] = {0x1.921fb54442d18p+1, 0x1.1a62633145c07p-53};
constexpr double kPiOver2[2] = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54};
constexpr double kPiOver4[2] = {0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55};
// atan(j / 8), j = 0..8, in double-double.
constexpr double kAtanTable[9][2] = {
    {0, 0},
    {0x1.fd5ba9aac2f6ep-4, -0x1.cd37686760c17p-59},
    {0x1.f5b75f92c80ddp-3, 0x1.8ab6e3cf7afbdp-57},
    {0x1.6f61941e4def1p-2, -0x1.c63aae6f6e918p-56},
    {0x1.dac670561bb4fp-2, 0x1.a2b7f222f65e2p-56},
    {0x1.1e00babdefeb4p-1, -0x1.928df287a668fp-58},
    {0x1.4978fa3269ee1p-1, 0x1.2419a87f2a458p-56},
    {0x1.700a7c5784634p-1, -0x1.8c34d25aadef6p-56},
    {0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55},
};
// The bits of 2/pi after 34 zero bits, most significant first: bit i of
// the fraction (weight 2^-i) is bit 33 + i of this string.
constexpr int kPad = 34;
constexpr int kWords = 19;
constexpr uint64_t kTwoOverPiBits[kWords] = {
    0x0000000028be60db, 0x9391054a7f09d5f4, 0x7d4d377036d8a566, 0x4f10e4107f9458ea,
    0xf7aef1586dc91b8e, 0x909374b801924bba, 0x827464873f877ac7, 0x2c4a69cfba208d7d,
    0x4baed1213a671c09, 0xad17df904e64758e, 0x60d4ce7d272117e2, 0xef7e4a0ec7fe25ff,
    0xf7816603fbcbc462, 0xd6829b47db4d9fb3, 0xc9f2c26dd3d18fd9, 0xa797fa8b5d49eeb1,
    0xfaf97c5ecf41ce7d, 0xe294a4ba9afed7ec, 0x47e357421580cc11,
};

DD dd(const V &like, const double (&c)[2]) {
  return ddConst(like, c[0], c[1]);
}
DD neg(const DD &a) {
  return {-a.hi, -a.lo};
}
DD selDD(const V &c, const DD &a, const DD &b) {
  return {sel(c, a.hi, b.hi), sel(c, a.lo, b.lo)};
}
V horner(const V &x, const std::vector<double> &c) {
  V p = lit(x, c[0]);
  for (size_t i = 1; i < c.size(); ++i) p = fma(p, x, c[i]);
  return p;
}
double fact(int n) {
  double f = 1;
  for (int i = 2; i <= n; ++i) f *= i;
  return f;
}

// table[index] for an integer index in [0, size), by a tree of selects on
// the index bits (the table is padded with its last entry).
V lookup(const V &index, const uint64_t *table, int size) {
  MathBuilder &m = *index.m;
  std::vector<V> level;
  for (int i = 0; i < size; ++i) level.push_back(m.i(static_cast<int64_t>(table[i]), DType::U64));
  for (int bit = 0; level.size() > 1; ++bit) {
    V b = ne((index >> bit) & 1, lit(index, 0));
    std::vector<V> next;
    for (size_t i = 0; i < level.size(); i += 2)
      next.push_back(i + 1 < level.size() ? sel(b, level[i + 1], level[i]) : level[i]);
    level = next;
  }
  return level[0];
}

struct Reduced {
  DD r;  // x - n pi/2, |r| <= pi/4 (and a hair)
  V n;   // the quadrant, int32 in [0, 4)
};

// Cody-Waite for |x| < 2^20.
Reduced reduceSmall(const V &x) {
  V k = floor(fma(x, kTwoOverPi, 0.5));
  DD s = twoSum(fma(-k, kP1, x), -k * kP2);  // both exact
  s = ddAdd(s, -k * kP3);                    // exact product
  s = ddAdd(s, -k * kP4);
  V n = cvt(k - floor(k * 0.25) * 4.0, DType::I32);
  return {s, n};
}

// Payne-Hanek for finite |x| >= 2^20 (other lanes compute garbage that the
// caller does not select). maxExp: the largest binary exponent of x.
Reduced reduceLarge(const V &x, int maxExp) {
  MathBuilder &m = *x.m;
  V bits = bitcast(abs(x), DType::I64);
  V mant = bitcast((bits & ((int64_t{1} << 52) - 1)) | (int64_t{1} << 52), DType::U64);
  V e = addi((bits >> 52) & 2047, -1075);  // |x| = mant 2^e
  // x 2/pi = mant 2^e sum b_i 2^-i; bits i < e - 1 give multiples of 4.
  // The window W = bits e-1 .. e+190, so x 2/pi = mant W 2^-190 (mod 4),
  // short by less than mant 2^-190 < 2^-137: relative to the fraction,
  // never below 2^-62 for a float64 (the closest approach of one to a
  // multiple of pi/2), 2^-75.
  V t = addi(e, kPad - 2);  // the window's first bit in the padded string
  V q = t >> 6, o = bitcast(t & 63, DType::U64);
  int words = std::min(kWords, (kPad + maxExp - 52 + 63) / 64 + 4);
  V word[4];
  for (int i = 0; i < 4; ++i) word[i] = lookup(addi(q, i), kTwoOverPiBits, words);
  V inv = m.i(64, DType::U64) - o;  // a shift of 64 gives 0
  uint32_t mask = 0xFFFFFFFF;
  V w[6];
  for (int i = 0; i < 3; ++i) {
    V part = (word[i] << o) | (word[i + 1] >> inv);
    w[5 - 2 * i] = part >> 32;
    w[4 - 2 * i] = part & mask;
  }
  V mh = mant >> 32, ml = mant & mask;
  // P = mant W mod 2^192 in 32-bit columns (each 64-bit product split).
  V col[6];
  for (V &c : col) c = m.i(0, DType::U64);
  auto add = [&](const V &p, int k) {
    col[k] = col[k] + (p & mask);
    if (k < 5) col[k + 1] = col[k + 1] + (p >> 32);
  };
  for (int j = 0; j < 6; ++j) add(ml * w[j], j);
  for (int j = 0; j < 5; ++j) add(mh * w[j], j + 1);
  V limb[6];
  V carry = m.i(0, DType::U64);
  for (int k = 0; k < 6; ++k) {
    V s = col[k] + carry;
    limb[k] = s & mask;
    carry = s >> 32;
  }
  V q2 = (limb[5] << 32) | limb[4], q1 = (limb[3] << 32) | limb[2];
  V q0 = (limb[1] << 32) | limb[0];
  // Bits 191-190 are the quadrant; the next 128, shifted to the top, the
  // fraction, taken as signed (a fraction >= 1/2 is one quadrant on, minus).
  V fh = (q2 << 2) | (q1 >> 62), fl = (q1 << 2) | (q0 >> 62);
  V n = (cvt(q2 >> 62, DType::I32) + cvt(fh >> 63, DType::I32)) & 3;
  V sh = bitcast(fh, DType::I64);
  // f = (sh 2^64 + fl) 2^-128 as a double-double, from three exact parts.
  V c1 = cvt(sh >> 11, DType::F64) * 0x1p75;
  V mid = ((sh & 2047) << 42) | bitcast(fl >> 22, DType::I64);
  V c2 = cvt(mid, DType::F64) * 0x1p22;
  V c3 = cvt(fl & ((int64_t{1} << 22) - 1), DType::F64);
  DD f = ddAdd(twoSum(c1, c2), c3);
  f = {f.hi * 0x1p-128, f.lo * 0x1p-128};
  return {ddMul(f, dd(x, kPiOver2)), n};
}

Reduced reduce(const V &x, bool fromF32) {
  V ax = abs(x);
  Reduced small = reduceSmall(x);
  Reduced large = reduceLarge(x, fromF32 ? 128 : 1024);
  // Payne-Hanek reduces |x|; for negative x the quadrant and r flip.
  V negX = x < 0.0;
  large.r = selDD(negX, neg(large.r), large.r);
  large.n = sel(negX, (lit(large.n, 4) - large.n) & 3, large.n);
  V isSmall = ax < 0x1p20;
  return {selDD(isSmall, small.r, large.r), sel(isSmall, small.n, large.n)};
}

// sin r and cos r for |r| <= pi/4, double-double.
DD sinDD(const DD &r) {
  V z = r.hi * r.hi;
  std::vector<double> c;
  for (int n = 23; n >= 3; n -= 2) c.push_back((n % 4 == 3 ? -1.0 : 1.0) / fact(n));
  V tail = fma(r.hi * z, horner(z, c), fma(r.lo * -0.5, z, r.lo));
  return fastTwoSum(r.hi, tail);
}
DD cosDD(const DD &r) {
  V z = r.hi * r.hi;
  std::vector<double> c;
  for (int n = 22; n >= 4; n -= 2) c.push_back((n % 4 == 2 ? -1.0 : 1.0) / fact(n));
  DD half = ddMul(r, r);
  half = {half.hi * 0.5, half.lo * 0.5};
  DD one = ddAdd(ddConst(z, 1.0), neg(half));
  return ddAdd(one, (z * z) * horner(z, c));
}

// sin, cos of the reduced argument in quadrant n (cos is sin one quadrant on).
DD sinQuadrant(const DD &s, const DD &c, const V &n) {
  V odd = ne(n & 1, lit(n, 0));
  V negative = ne(n & 2, lit(n, 0));
  DD v = selDD(odd, c, s);
  return selDD(negative, neg(v), v);
}

// atan u for a double-double u in [0, 1].
DD atanUnit(const DD &u) {
  V j = floor(fma(u.hi, 8.0, 0.5));
  V c = j * 0.125;
  DD num = ddAdd(u, -c);
  DD den = ddAdd(ddMul(u, c), lit(c, 1.0));
  DD t = ddDiv(num, den);
  V z = t.hi * t.hi;
  std::vector<double> coef;
  for (int k = 8; k >= 1; --k) coef.push_back((k % 2 ? -1.0 : 1.0) / (2 * k + 1));
  DD p = fastTwoSum(t.hi, fma(t.hi * z, horner(z, coef), t.lo));
  DD base = ddConst(u.hi, 0, 0);
  for (int i = 1; i <= 8; ++i)
    base = selDD(eq(j, static_cast<double>(i)), dd(u.hi, kAtanTable[i]), base);
  return ddAdd(base, p);
}

// atan(n / d) in [0, pi/2] for double-doubles n, d >= 0, not both 0 or inf.
DD atan2Core(const DD &n, const DD &d) {
  V swap = n.hi > d.hi;
  DD a = selDD(swap, d, n), b = selDD(swap, n, d);
  DD t = atanUnit(ddDiv(a, b));
  return selDD(swap, ddAdd(dd(t.hi, kPiOver2), neg(t)), t);
}

DD fromV(const V &x) {
  return {x, lit(x, 0.0)};
}

// sqrt(1 - x^2) for |x| <= 1, double-double.
DD cosOfAsin(const V &a) {
  DD sq = twoProd(a, a);
  DD w = ddAdd(ddConst(a, 1.0), neg(sq));
  V s = sqrt(w.hi);
  V e = fma(-s, s, w.hi) + w.lo;
  return fastTwoSum(s, sel(eq(s, 0.0), lit(s, 0.0), e / (s * 2.0)));
}

}  // namespace

void sinCosDD(const V &x, bool fromF32, DD &s, DD &c) {
  Reduced red = reduce(x, fromF32);
  DD sr = sinDD(red.r), cr = cosDD(red.r);
  s = sinQuadrant(sr, cr, red.n);
  c = sinQuadrant(sr, cr, addi(red.n, 1) & 3);
}

V sin(const V &x, bool fromF32) {
  Reduced red = reduce(x, fromF32);
  V r = ddRound(sinQuadrant(sinDD(red.r), cosDD(red.r), red.n));
  return sel(eq(x, 0.0), x, sel(isFinite(x), r, lit(x, NAN)));
}

V cos(const V &x, bool fromF32) {
  Reduced red = reduce(x, fromF32);
  V r = ddRound(sinQuadrant(sinDD(red.r), cosDD(red.r), addi(red.n, 1) & 3));
  return sel(isFinite(x), r, lit(x, NAN));
}

V tan(const V &x, bool fromF32) {
  Reduced red = reduce(x, fromF32);
  DD s = sinDD(red.r), c = cosDD(red.r);
  V odd = ne(red.n & 1, lit(red.n, 0));
  DD q = ddDiv(selDD(odd, neg(c), s), selDD(odd, s, c));
  return sel(eq(x, 0.0), x, sel(isFinite(x), ddRound(q), lit(x, NAN)));
}

namespace {
// sin(pi x) and cos(pi x) from x = n/2 + t, |t| <= 1/4, both exact.
struct PiReduced {
  DD r;  // pi t
  V n;   // quadrant
  V t;
};
PiReduced reducePi(const V &x) {
  // Beyond 2^52, x is an integer: reduce it mod 4 first (exact there).
  V big = abs(x) >= 0x1p52;
  V xr = sel(big, x - floor(x * 0.25) * 4.0, x);
  V n = rint(xr * 2.0);
  V t = xr - n * 0.5;
  DD r = twoProd(t, lit(t, kPi[0]));
  r = fastTwoSum(r.hi, fma(t, kPi[1], r.lo));
  V nq = cvt(n - floor(n * 0.25) * 4.0, DType::I32);
  return {r, nq, t};
}
}  // namespace

DD sinpiDD(const V &x) {
  PiReduced p = reducePi(x);
  return sinQuadrant(sinDD(p.r), cosDD(p.r), p.n);
}

V sinpi(const V &x) {
  PiReduced p = reducePi(sel(isFinite(x), x, lit(x, 0.0)));
  V r = ddRound(sinQuadrant(sinDD(p.r), cosDD(p.r), p.n));
  r = sel(eq(p.t, 0.0), copySign(lit(x, 0.0), x), r);  // sinpi(+-n) = +-0
  return sel(isFinite(x), r, lit(x, NAN));
}

V cospi(const V &x) {
  PiReduced p = reducePi(sel(isFinite(x), x, lit(x, 0.0)));
  V r = ddRound(sinQuadrant(sinDD(p.r), cosDD(p.r), addi(p.n, 1) & 3));
  r = sel(eq(r, 0.0), lit(x, 0.0), r);  // cospi(n + 1/2) = +0
  return sel(isFinite(x), r, lit(x, NAN));
}

V atan(const V &x) {
  V a = abs(x);
  V ac = sel(a > 0x1p900, lit(a, 0x1p900), a);  // atan is pi/2 there; 1/inf is no help
  V r = ddRound(atan2Core(fromV(ac), ddConst(a, 1.0)));
  return sel(eq(a, 0.0) | isNan(x), x, copySign(r, x));
}

V asin(const V &x) {
  V a = abs(x);
  V ac = sel(a > 1.0, lit(a, 1.0), a);
  V r = ddRound(atan2Core(fromV(ac), cosOfAsin(ac)));
  r = sel(a > 1.0, lit(a, NAN), copySign(r, x));
  return sel(eq(a, 0.0) | isNan(x), x, r);
}

V acos(const V &x) {
  V a = abs(x);
  V ac = sel(a > 1.0, lit(a, 1.0), a);
  DD t = atan2Core(cosOfAsin(ac), fromV(ac));
  t = selDD(x < 0.0, ddAdd(dd(x, kPi), neg(t)), t);
  V r = ddRound(t);
  return sel(a > 1.0, lit(a, NAN), sel(isNan(x), x, r));
}

V atan2(const V &y, const V &x) {
  V ay = abs(y), ax = abs(x);
  // Tiny operands scaled up, so the quotient's error terms stay normal.
  V tiny = (ay < 0x1p-900) & (ax < 0x1p-900);
  V sy = sel(tiny, ay * 0x1p600, ay), sx = sel(tiny, ax * 0x1p600, ax);
  V fin = isFinite(ay) & isFinite(ax) & (ne(ay, 0.0) | ne(ax, 0.0));
  DD t = atan2Core(fromV(sel(fin, sy, lit(sy, 1.0))), fromV(sel(fin, sx, lit(sx, 1.0))));
  // Zeros and infinities.
  DD zero = ddConst(x, 0.0);
  t = selDD(eq(ay, 0.0) & eq(ax, 0.0), zero, t);
  t = selDD(isInf(ay) & isInf(ax), dd(x, kPiOver4), t);
  t = selDD(isInf(ay) & isFinite(ax), dd(x, kPiOver2), t);
  t = selDD(isFinite(ay) & isInf(ax), zero, t);
  // The left half plane (x < 0 or x = -0): pi - t.
  t = selDD(signBit(x), ddAdd(dd(x, kPi), neg(t)), t);
  V r = copySign(ddRound(t), y);
  return sel(isNan(x) | isNan(y), x + y, r);
}

namespace {
// sqrt(sum x_i^2) (or its reciprocal) without overflow or underflow.
V norm(const std::vector<V> &xs, bool reciprocal) {
  MathBuilder &m = *xs[0].m;
  std::vector<V> a;
  for (const V &x : xs) a.push_back(abs(x));
  V big = a[0], anyInf = isInf(a[0]), anyNan = isNan(a[0]);
  for (size_t i = 1; i < a.size(); ++i) {
    big = sel(a[i] > big, a[i], big);
    anyInf = anyInf | isInf(a[i]);
    anyNan = anyNan | isNan(a[i]);
  }
  // Scale by 2^-e, e the exponent of the largest (tiny ones scaled up first).
  V tiny = big < 0x1p-900;
  V pre = sel(tiny, m.f(0x1p600), m.f(1.0));
  V e = addi((bitcast(big * pre, DType::I64) >> 52) & 2047, -1023);
  e = sel(e > lit(e, 1022), lit(e, 1022), e);  // 2^-1023 is not normal
  V scale = bitcast(addi(-e, 1023) << 52, DType::F64);
  DD sum = ddConst(big, 0.0);
  for (const V &v : a) sum = ddAdd(sum, twoProd((v * pre) * scale, (v * pre) * scale));
  V s = sqrt(sum.hi);
  DD root = fastTwoSum(s, (fma(-s, s, sum.hi) + sum.lo) / (s * 2.0));
  V ef = cvt(e, DType::F64) - sel(tiny, m.f(600.0), m.f(0.0));
  V r = reciprocal ? scale2(ddRound(ddDiv(ddConst(s, 1.0), root)), -ef) : scale2(ddRound(root), ef);
  V zero = eq(big, 0.0);
  r = sel(zero, m.f(reciprocal ? INFINITY : 0.0), r);
  r = sel(anyNan, m.f(NAN), r);
  return sel(anyInf, m.f(reciprocal ? 0.0 : INFINITY), r);
}
}  // namespace

V hypot(const std::vector<V> &xs) {
  return norm(xs, false);
}
V rhypot(const std::vector<V> &xs) {
  return norm(xs, true);
}

}  // namespace tessera::frontend::ld
