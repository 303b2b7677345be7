// The exponential and logarithm family of the libdevice compositions, in
// float64 (float32 callers round the result once, which is within half an
// ulp plus 2^-29 ulp of the exact value). Built from the exact operations of
// libdevice_math.h only, so the interpreter and the GPU agree bit for bit.
//
//   exp:  k = rint(x log2 e), r = x - k ln 2 with a Cody-Waite two-part ln 2
//         (k ln2hi is exact for |k| < 2^11, so x - k ln2hi is too), e^r by
//         its Taylor series to r^14 (|r| <= ln2 / 2; remainder < 2^-63),
//         summed as 1 + r + (r^2 Q(r)) in double-double, then scaled by 2^k
//         with a single rounding (scale2). The result is within about 0.52 ulp.
//   log:  x = m 2^e, m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact),
//         s = f / (2 + f) as a double-double, log(1 + f) = 2 atanh(s) =
//         2s + 2s^3/3 + s^5 R(s^2), the first two terms in double-double, and
//         e ln 2 added in double-double: ln x to about 2^-64 relative, so
//         log, log2, log10 and log1p round correctly but for rare ties, and
//         pow = exp(y ln x) keeps its error under 1 ulp.
//   expm1: e^x = 2^k y as above, 2^k (y - 2^-k) in double-double.
//   sinh, cosh, tanh: e^|x| in double-double (or a series, or expm1, where
//         e^x - e^-x would cancel); asinh, acosh, atanh: ln of a
//         double-double argument (ln(h + l) = ln h + l / h), so none loses
//         digits near its zeros; cbrt: exp(ln|x| / 3) in double-double.
//
// Special values follow C99 Annex F, which is what libdevice returns.
#include <cmath>

#include "frontend/libdevice_math.h"

namespace tessera::frontend::ld {
namespace {

constexpr double kLn2Hi = 0x1.62e42feep-1;  // ln 2, 32 significant bits
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
constexpr double kLog2e = 0x1.71547652b82fep+0;
// Double-double constants: value = first + second.
constexpr double kLn2[2] = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};
constexpr double kLog2eDD[2] = {0x1.71547652b82fep+0, 0x1.777d0ffda0d24p-56};
constexpr double kLog10e[2] = {0x1.bcb7b1526e50ep-2, 0x1.95355baaafad3p-57};
constexpr double kLog10of2[2] = {0x1.34413509f79ffp-2, -0x1.9dc1da994fd21p-59};
constexpr double kLn10[2] = {0x1.26bb1bbb55516p+1, -0x1.f48ad494ea3e9p-53};
constexpr double kThird[2] = {0x1.5555555555555p-2, 0x1.5555555555555p-56};

DD dd(const V &like, const double (&c)[2]) {
  return ddConst(like, c[0], c[1]);
}

V clampTo(const V &x, double lo, double hi) {
  return sel(x > hi, lit(x, hi), sel(x < lo, lit(x, lo), x));  // NaN stays NaN
}

// Horner's scheme, coefficients from the highest degree down.
V horner(const V &x, const std::vector<double> &c) {
  V p = lit(x, c[0]);
  for (size_t i = 1; i < c.size(); ++i) p = fma(p, x, c[i]);
  return p;
}

// 1 / n!
double invFact(int n) {
  double f = 1;
  for (int i = 2; i <= n; ++i) f *= i;
  return 1.0 / f;
}

// Q(r) = (e^r - 1 - r) / r^2 = 1/2! + r/3! + ... + r^12/14!.
V expQ(const V &r) {
  std::vector<double> c;
  for (int n = 14; n >= 2; --n) c.push_back(invFact(n));
  return horner(r, c);
}

// e^(r + rc) - 1 - r for |r| <= ln2 / 2 and |rc| <= ulp(r): r^2 Q(r) + rc (1 + r).
V expm1Tail(const V &r, const V &rc) {
  return fma(r * r, expQ(r), fma(rc, r, rc));
}

// x = k ln 2 + r + rc: k an integral float64, |r| <= ln2 / 2 (slightly more).
struct Reduced {
  V k, r, rc;
};
Reduced reduceLn2(const DD &x) {
  V k = floor(fma(x.hi, kLog2e, 0.5));
  V hi = fma(-k, kLn2Hi, x.hi);  // exact: k ln2hi has at most 43 bits, and Sterbenz
  V t = fma(-k, kLn2Lo, x.lo);
  DD r = twoSum(hi, t);
  return {k, r.hi, r.lo};
}

// e^x = 2^k * y, y as a double-double near [0.7, 1.42].
struct ExpParts {
  V k;
  DD y;
};
ExpParts expParts(const DD &x) {
  Reduced red = reduceLn2(x);
  DD one = fastTwoSum(lit(red.r, 1.0), red.r);
  return {red.k, fastTwoSum(one.hi, one.lo + expm1Tail(red.r, red.rc))};
}

// A finite double-double argument for expParts: the ends clamped where the
// result is 0 or inf anyway (and a huge high part drops its low part).
DD clampExpArg(const DD &x) {
  V hi = clampTo(x.hi, -800, 800);
  return {hi, sel(abs(x.hi) < 800.0, x.lo, 0.0)};
}

// ln x = e ln2 + log1p(f): the two parts.
struct LogParts {
  V e;     // integral float64
  DD l1p;  // log(m), m in [sqrt(1/2), sqrt(2))
};
LogParts logParts(const V &x) {
  MathBuilder &m = *x.m;
  V sub = x < 0x1p-1022;
  V xs = sel(sub, x * 0x1p54, x);
  V bits = bitcast(xs, DType::I64);
  V e = addi((bits >> 52) & 2047, -1023) - sel(sub, m.i(54, DType::I64), m.i(0, DType::I64));
  V mant = bitcast((bits & ((int64_t{1} << 52) - 1)) | (int64_t{1023} << 52), DType::F64);
  V big = mant > 0x1.6a09e667f3bcdp+0;  // sqrt(2)
  mant = sel(big, mant * 0.5, mant);
  V ef = cvt(e, DType::F64) + sel(big, 1.0, m.f(0.0));
  V f = mant - 1.0;  // exact (Sterbenz)
  DD u = fastTwoSum(lit(f, 2.0), f);
  // s = f / (2 + f) as a double-double.
  V sh = f / u.hi;
  V rem = fma(-sh, u.lo, fma(-sh, u.hi, f));
  DD s = {sh, rem / u.hi};
  // 2 atanh(s) = 2s + (2/3) s^3 + s^5 R(s^2), R = 2/5 + 2/7 s^2 + ... + 2/29 s^24.
  V z = sh * sh;
  std::vector<double> c;
  for (int n = 29; n >= 5; n -= 2) c.push_back(2.0 / n);
  V tail = (sh * (z * z)) * horner(z, c);
  DD s3 = ddMul(ddMul(s, s), s);
  DD t3 = ddMul(s3, ddConst(sh, 2 * kThird[0], 2 * kThird[1]));
  DD l = ddAdd(DD{sh * 2.0, s.lo * 2.0}, t3);
  return {ef, ddAdd(l, tail)};
}

// ln(h + l) for a double-double h + l > 0 with h finite and positive.
DD logOfDD(const DD &x) {
  return ddAdd(logDD(x.hi), x.lo / x.hi);
}

// NaN, 0, inf and negative arguments of a logarithm.
V logSpecials(const V &x, const V &r) {
  V out = sel(eq(x, 0.0), lit(x, -INFINITY), r);
  out = sel(x < 0.0, lit(x, NAN), out);
  return sel(eq(x, INFINITY) | isNan(x), x, out);
}

DD sqrtDD(const DD &w) {
  V s = sqrt(w.hi);
  V e = fma(-s, s, w.hi) + w.lo;
  V c = sel(eq(s, 0.0), lit(s, 0.0), e / (s * 2.0));
  return fastTwoSum(s, c);
}

// expm1 for |x| <= 36 (so |k| <= 53): (2^k - 1) + 2^k r + 2^k tail, where
// 2^k - 1 and 2^k r are exact and summed without error.
DD expm1Small(const V &x) {
  Reduced red = reduceLn2({x, lit(x, 0.0)});
  V ki = cvt(clampTo(red.k, -60, 60), DType::I64);
  V p2k = bitcast(addi(ki, 1023) << 52, DType::F64);
  DD s = twoSum(p2k - 1.0, p2k * red.r);
  return fastTwoSum(s.hi, s.lo + p2k * expm1Tail(red.r, red.rc));
}

}  // namespace

// ---- exponentials ------------------------------------------------------------------------

V expDD(const DD &x) {
  ExpParts p = expParts(clampExpArg(x));
  return scale2(ddRound(p.y), p.k);
}

V exp(const V &x) {
  return expDD({x, lit(x, 0.0)});
}

V exp2(const V &x) {
  V xc = clampTo(x, -1100, 1100);
  V k = rint(xc);
  V f = xc - k;  // exact, |f| <= 1/2
  DD r = twoProd(f, lit(f, kLn2[0]));
  r = fastTwoSum(r.hi, fma(f, kLn2[1], r.lo));
  DD one = fastTwoSum(lit(f, 1.0), r.hi);
  DD y = fastTwoSum(one.hi, one.lo + expm1Tail(r.hi, r.lo));
  return scale2(ddRound(y), k);
}

V exp10(const V &x) {
  V xc = clampTo(x, -400, 400);
  DD y = twoProd(xc, lit(xc, kLn10[0]));
  return expDD(fastTwoSum(y.hi, fma(xc, kLn10[1], y.lo)));
}

V expm1(const V &x) {
  // 2^k y - 1 = 2^k (y - 2^-k): y - 2^-k in double-double (exact for the
  // k that matter), then one rounding and an exact scaling. Below -45 the
  // result is -1 within half an ulp.
  ExpParts p = expParts({clampTo(x, -45, 710), lit(x, 0.0)});
  V kk = clampTo(p.k, -70, 1022);  // beyond, the 1 is far below an ulp
  V minus = -bitcast(addi(cvt(-kk, DType::I64), 1023) << 52, DType::F64);  // -2^-k
  V r = scale2(ddRound(ddAdd(p.y, minus)), p.k);
  return sel(eq(x, 0.0), x, r);  // keeps -0
}

// ---- logarithms ----------------------------------------------------------------------------

DD logDD(const V &x) {
  LogParts p = logParts(x);
  DD eln2 = twoProd(p.e, lit(p.e, kLn2[0]));
  eln2 = fastTwoSum(eln2.hi, fma(p.e, kLn2[1], eln2.lo));
  return ddAdd(eln2, p.l1p);
}

V log(const V &x) {
  return logSpecials(x, ddRound(logDD(x)));
}

V log2(const V &x) {
  LogParts p = logParts(x);
  DD r = ddAdd(ddMul(p.l1p, dd(x, kLog2eDD)), p.e);  // e exactly, so log2(2^n) = n
  return logSpecials(x, ddRound(r));
}

V log10(const V &x) {
  LogParts p = logParts(x);
  DD r = ddAdd(ddMul(p.l1p, dd(x, kLog10e)), ddMul(dd(x, kLog10of2), p.e));
  return logSpecials(x, ddRound(r));
}

V log1p(const V &x) {
  DD u = twoSum(lit(x, 1.0), x);
  V r = ddRound(logOfDD(u));
  V out = logSpecials(u.hi, r);  // u.hi is 0 exactly when x = -1
  out = sel(x < -1.0, lit(x, NAN), out);
  return sel(eq(x, 0.0) | eq(x, INFINITY) | isNan(x), x, out);
}

V pow(const V &x, const V &y) {
  MathBuilder &m = *x.m;
  V ax = abs(x);
  V finiteY = isFinite(y);
  V yInt = finiteY & eq(floor(y), y);
  V half = y * 0.5;
  V yOdd = yInt & ne(floor(half), half);
  V negX = signBit(x);
  // |x|^y = e^(y ln|x|), the product in double-double.
  V safeX = sel(eq(ax, 0.0) | lnot(isFinite(ax)), lit(ax, 1.0), ax);
  // A product past the exp range keeps its high part only (the low part of
  // an overflowing product is NaN).
  DD l = logDD(safeX);
  DD ly = ddMul(l, y);
  V prod = l.hi * y;
  V big = lnot(abs(prod) < 1000.0);
  V r = expDD({sel(big, prod, ly.hi), sel(big, lit(y, 0.0), ly.lo)});
  r = sel(negX & yOdd, -r, r);
  r = sel((x < 0.0) & lnot(yInt), lit(r, NAN), r);
  // x = +-0 or +-inf: 0 or inf by the signs, negative for odd y and x's sign.
  V mag = sel(eq(eq(ax, INFINITY), y > 0.0), lit(r, INFINITY), m.f(0.0));
  V zeroInf = sel(negX & yOdd, -mag, mag);
  r = sel(eq(ax, 0.0) | eq(ax, INFINITY), zeroInf, r);
  // y = +-inf, x finite and not 0: 1 for |x| = 1, else 0 or inf.
  V inf = sel(eq(ax < 1.0, y < 0.0), lit(r, INFINITY), m.f(0.0));
  inf = sel(eq(ax, 1.0), m.f(1.0), inf);
  r = sel(lnot(finiteY) & lnot(isNan(y)) & isFinite(ax) & ne(ax, 0.0), inf, r);
  r = sel(isNan(x) | isNan(y), lit(r, NAN), r);
  return sel(eq(y, 0.0) | eq(x, 1.0), m.f(1.0), r);
}

// ---- hyperbolic functions -------------------------------------------------------------------

V sinh(const V &x) {
  V a = abs(x);
  // a < 1/2: a + a^3/3! + ... + a^17/17! (remainder < 2^-60 relative).
  V z = a * a;
  std::vector<double> c;
  for (int n = 17; n >= 3; n -= 2) c.push_back(invFact(n));
  V series = fma(a * z, horner(z, c), a);
  // 1/2 <= a < 22: (e^a - e^-a) / 2 in double-double (no cancellation there).
  ExpParts p = expParts({clampTo(a, 0, 22), lit(a, 0.0)});
  DD t = {scale2(p.y.hi, p.k), scale2(p.y.lo, p.k)};
  DD inv = ddDiv(ddConst(a, 1.0), t);
  V mid = ddRound(ddAdd(t, DD{-inv.hi, -inv.lo})) * 0.5;
  // a >= 22: e^(a - ln 2) (e^-a is below an ulp).
  V big = expDD(ddAdd(ddConst(a, -kLn2[0], -kLn2[1]), clampTo(a, 0, 800)));
  V r = sel(a < 0.5, series, sel(a < 22.0, mid, big));
  return copySign(r, x);
}

V cosh(const V &x) {
  V a = abs(x);
  ExpParts p = expParts({clampTo(a, 0, 22), lit(a, 0.0)});
  DD t = {scale2(p.y.hi, p.k), scale2(p.y.lo, p.k)};
  DD inv = ddDiv(ddConst(a, 1.0), t);
  V mid = ddRound(ddAdd(t, inv)) * 0.5;
  V big = expDD(ddAdd(ddConst(a, -kLn2[0], -kLn2[1]), clampTo(a, 0, 800)));
  return sel(a < 22.0, mid, big);
}

V tanh(const V &x) {
  V a = abs(x);
  // a < 0.55: E / (E + 2) with E = e^2a - 1.
  DD e = expm1Small(clampTo(a * 2.0, 0, 1.1));
  V small = ddRound(ddDiv(e, ddAdd(e, lit(a, 2.0))));
  // 0.55 <= a < 22: 1 - 2 / (e^2a + 1); beyond, 1 within half an ulp.
  ExpParts p = expParts({clampTo(a * 2.0, 0, 44), lit(a, 0.0)});
  DD t = {scale2(p.y.hi, p.k), scale2(p.y.lo, p.k)};
  DD q = ddDiv(ddConst(a, 2.0), ddAdd(t, lit(a, 1.0)));
  V mid = ddRound(ddAdd(DD{-q.hi, -q.lo}, lit(a, 1.0)));
  V r = sel(a < 0.55, small, sel(a < 22.0, mid, lit(a, 1.0)));
  return sel(isNan(x), x, copySign(r, x));
}

V asinh(const V &x) {
  V a = abs(x);
  // ln(a + sqrt(a^2 + 1)) with the argument in double-double.
  V ac = clampTo(a, 0, 0x1p28);
  DD w = ddAdd(twoProd(ac, ac), lit(ac, 1.0));
  DD v = ddAdd(sqrtDD(w), ac);
  V mid = ddRound(logOfDD(v));
  // a > 2^28: ln(2a), the 1/(4a^2) term below an ulp.
  V big = ddRound(ddAdd(logDD(sel(isFinite(a), a, lit(a, 1.0))), ddConst(a, kLn2[0], kLn2[1])));
  V r = sel(a <= 0x1p28, mid, big);
  return sel(eq(a, 0.0) | lnot(isFinite(a)), x, copySign(r, x));
}

V acosh(const V &x) {
  V xc = clampTo(x, 1, 0x1p28);
  DD w = ddAdd(twoProd(xc, xc), lit(xc, -1.0));
  DD v = ddAdd(sqrtDD(w), xc);
  V mid = ddRound(logOfDD(v));
  V big = ddRound(ddAdd(logDD(sel(isFinite(x), x, lit(x, 1.0))), ddConst(x, kLn2[0], kLn2[1])));
  V r = sel(x <= 0x1p28, mid, big);
  r = sel(x < 1.0, lit(x, NAN), r);
  return sel(eq(x, INFINITY) | isNan(x), x, r);
}

V atanh(const V &x) {
  V a = abs(x);
  V ac = sel(a < 1.0, a, lit(a, 0.5));
  // (1/2) ln((1 + a) / (1 - a)), the quotient in double-double.
  DD q = ddDiv(twoSum(lit(ac, 1.0), ac), twoSum(lit(ac, 1.0), -ac));
  V r = ddRound(logOfDD(q)) * 0.5;
  r = sel(eq(a, 1.0), lit(a, INFINITY), sel(a > 1.0, lit(a, NAN), r));
  return sel(eq(a, 0.0) | isNan(a), x, copySign(r, x));
}

V cbrt(const V &x) {
  V a = abs(x);
  V safe = sel(eq(a, 0.0) | lnot(isFinite(a)), lit(a, 1.0), a);
  V r = expDD(ddMul(logDD(safe), dd(a, kThird)));
  return sel(eq(a, 0.0) | lnot(isFinite(a)), x, copySign(r, x));
}

V rcbrt(const V &x) {
  V a = abs(x);
  V safe = sel(eq(a, 0.0) | lnot(isFinite(a)), lit(a, 1.0), a);
  DD l = ddMul(logDD(safe), dd(a, kThird));
  V r = expDD({-l.hi, -l.lo});
  r = sel(eq(a, 0.0), lit(a, INFINITY), sel(eq(a, INFINITY), lit(a, 0.0), r));
  return sel(isNan(x), x, copySign(r, x));
}

}  // namespace tessera::frontend::ld
