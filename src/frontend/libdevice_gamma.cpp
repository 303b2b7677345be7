// The gamma function of the libdevice compositions, in float64 (float32
// callers round once): lgamma (ln |gamma|) and tgamma.
//
//   x > 0: ln gamma(x) = ln gamma(x + n) - ln(x (x+1) ... (x+n-1)) with n
//     bringing x + n to 10 or more, where Stirling's series (to the term
//     in B20, 2^-64 of the result at 10) applies; the product, the
//     logarithms and (x + n - 1/2) ln(x + n) in double-double.
//   Near the zeros 1 and 2, lgamma by its Taylor series there (coefficients
//     (-1)^k zeta(k) / k, and (zeta(k) - 1) / k at 2), so its relative
//     error stays small where the difference above would cancel.
//   x < 0: the reflection gamma(x) = pi / (sin(pi x) gamma(1 - x)), 1 - x
//     and sin(pi x) in double-double.
//   tgamma = e^(ln gamma) with the sign of sin(pi x) for negative x.
// Errors measured within 1 ulp except lgamma next to its negative zeros,
// where libdevice's bound does not apply either. Poles: lgamma +inf,
// tgamma +-inf at +-0 and NaN at the negative integers.
#include <cmath>

#include "frontend/libdevice_math.h"

namespace tessera::frontend::ld {
namespace {

// Coefficients generated with mpmath at 150 bits.
constexpr double kLgammaAt1[25] = {
    0x1.a51a6625307d3p-1, -0x1.9a4d55beab2d7p-2, 0x1.151322ac7d848p-2, -0x1.a8b9c17aa6149p-3,
    0x1.5b40cb100c306p-3, -0x1.2703a1dcea3aep-3, 0x1.010b36af86397p-3, -0x1.c806706d57db4p-4,
    0x1.9a01e385d5f8fp-4, -0x1.748c33114c6d6p-4, 0x1.556ad63243bc4p-4, -0x1.3b1d971fc5985p-4,
    0x1.2496df8320c5fp-4, -0x1.11133476e7fe0p-4, 0x1.00010064cdeb2p-4, -0x1.e1e2d311e8abdp-5,
    0x1.c71ce3a20b419p-5, -0x1.af28a1b5688a0p-5, 0x1.9999b3352d5bap-5, -0x1.86186db77bfbfp-5,
    0x1.745d1d1778df9p-5, -0x1.642c88591b66dp-5, 0x1.555556aaafdcdp-5, -0x1.47ae151eb9fb7p-5,
    0x1.3b13b189d925ep-5};
constexpr double kLgammaAt2[25] = {
    0x1.4a34cc4a60fa6p-2,  -0x1.13e001a557607p-4,  0x1.51322ac7d8483p-6,  -0x1.e404fc218f5f2p-8,
    0x1.7add6eadb6c30p-9,  -0x1.38ac5c2bf8e08p-10, 0x1.0b36af86396e9p-11, -0x1.d3fd4c76d2fc8p-13,
    0x1.a127b0f17d65ap-14, -0x1.78de5bd7c81efp-15, 0x1.580dcee66eb02p-16, -0x1.3cbc963ce2243p-17,
    0x1.2597a39f34aacp-18, -0x1.11b2eb7679541p-19, 0x1.0064cdeb22f0fp-20, -0x1.e2600d93cfd2fp-22,
    0x1.c76bbb3f07a4dp-23, -0x1.af5a6cbbf8a97p-24, 0x1.99b93c2070b0fp-25, -0x1.862c734df3eacp-26,
    0x1.7469daccfadcdp-27, -0x1.6434a8447aeadp-28, 0x1.555a877ffd2c3p-29, -0x1.47b1679258d0ep-30,
    0x1.3b15d2b2fc10cp-31};
constexpr double kStirling[10] = {
    0x1.5555555555555p-4,  -0x1.6c16c16c16c17p-9,  0x1.a01a01a01a01ap-11, -0x1.3813813813814p-11,
    0x1.b951e2b18ff23p-11, -0x1.f6ab0d9993c7dp-10, 0x1.a41a41a41a41ap-8,  -0x1.e4286cb0f5398p-6,
    0x1.6fe96381e0680p-3,  -0x1.6476701181f3ap+0};

constexpr double kEuler[2] = {0x1.2788cfc6fb619p-1, -0x1.6cb90701fbfabp-58};
constexpr double kOneMinusEuler[2] = {0x1.b0ee6072093cep-2, 0x1.6cb90701fbfabp-58};
constexpr double kHalfLog2Pi[2] = {0x1.d67f1c864beb5p-1, -0x1.65b5a1b7ff5dfp-55};
constexpr double kLogPi[2] = {0x1.250d048e7a1bdp+0, 0x1.7abf2ad8d5088p-57};

DD dd(const V &like, const double (&c)[2]) {
  return ddConst(like, c[0], c[1]);
}
DD neg(const DD &a) {
  return {-a.hi, -a.lo};
}
V horner(const V &x, const double *c, int n) {
  // c[0] + c[1] x + ... + c[n-1] x^(n-1)
  V p = lit(x, c[n - 1]);
  for (int i = n - 2; i >= 0; --i) p = fma(p, x, c[i]);
  return p;
}
DD logOf(const DD &x) {
  return ddAdd(logDD(x.hi), x.lo / x.hi);
}

// ln gamma(y) for y >= 10 (double-double y) by Stirling's series.
DD stirling(const DD &y) {
  V inv = 1.0 / y.hi;
  V series = horner(inv * inv, kStirling, 10) * inv;
  DD t = ddMul(ddAdd(y, lit(y.hi, -0.5)), logOf(y));
  t = ddAdd(t, neg(y));
  t = ddAdd(t, dd(y.hi, kHalfLog2Pi));
  return ddAdd(t, series);
}

// ln gamma(x) for a double-double x > 0, finite.
DD lgammaPositive(const DD &x) {
  // n = ceil(10 - x) steps up (at most 10), their product divided out.
  V n = ceil(10.0 - x.hi);
  n = sel(n < 0.0, lit(n, 0.0), n);
  DD p = ddConst(x.hi, 1.0);
  for (int k = 0; k < 10; ++k) {
    DD f = ddAdd(x, lit(x.hi, k));
    p = ddMul(p, DD{sel(n > k, f.hi, lit(f.hi, 1.0)), sel(n > k, f.lo, lit(f.lo, 0.0))});
  }
  DD l = ddAdd(stirling(ddAdd(x, n)), neg(logOf(p)));
  // Past 1e300 the product y ln y overflows where lgamma does.
  V huge = x.hi * (log(sel(x.hi > 1e300, x.hi, lit(x.hi, 1.0))) - 1.0);
  V big = x.hi > 1e300;
  return {sel(big, huge, l.hi), sel(big, lit(l.lo, 0.0), l.lo)};
}

// ln gamma(x) near 1 and 2 by the Taylor series there (|x - a| < 0.2).
DD lgammaNear(const V &x, double a, const double (&lin)[2], const double *c) {
  V e = x - a;  // exact
  DD t = ddMul(dd(x, lin), e);
  if (a == 1) t = neg(t);  // -euler e at 1, (1 - euler) e at 2
  return ddAdd(t, (e * e) * horner(e, c, 25));
}

struct Parts {
  DD l;      // ln |gamma(x)|
  V negSin;  // for x < 0: sin(pi x) < 0
  V pole;    // x is 0 or a negative integer
};

Parts lnGamma(const V &x) {
  V pos = x > 0.0;
  V safe = sel(isFinite(x) & ne(x, 0.0), x, lit(x, 1.0));
  DD lp = lgammaPositive({sel(pos, safe, lit(x, 1.0)), lit(x, 0.0)});
  DD l1 = lgammaNear(safe, 1, kEuler, kLgammaAt1);
  DD l2 = lgammaNear(safe, 2, kOneMinusEuler, kLgammaAt2);
  V near1 = abs(x - 1.0) < 0.2, near2 = abs(x - 2.0) < 0.2;
  DD l = {sel(near1, l1.hi, sel(near2, l2.hi, lp.hi)), sel(near1, l1.lo, sel(near2, l2.lo, lp.lo))};
  // x < 0: ln pi - ln |sin(pi x)| - ln gamma(1 - x).
  V negx = sel(pos, lit(x, -0.5), safe);
  DD s = sinpiDD(negx);
  V negSin = s.hi < 0.0;
  DD as = {sel(negSin, -s.hi, s.hi), sel(negSin, -s.lo, s.lo)};
  DD reflected = lgammaPositive(twoSum(lit(x, 1.0), -negx));
  DD ln = ddAdd(ddAdd(dd(x, kLogPi), neg(logOf(as))), neg(reflected));
  // -1 < x < 0: gamma(x) = gamma(1 + x) / x (sin(pi x) would be subnormal
  // for the tiniest x).
  V unit = (x > -1.0) & (x < 0.0);
  DD l01 = ddAdd(lgammaPositive(twoSum(lit(x, 1.0), sel(unit, x, lit(x, -0.5)))),
                 neg(logDD(sel(unit, -x, lit(x, 0.5)))));
  ln = {sel(unit, l01.hi, ln.hi), sel(unit, l01.lo, ln.lo)};
  DD r = {sel(pos, l.hi, ln.hi), sel(pos, l.lo, ln.lo)};
  V pole = eq(x, 0.0) | ((x < 0.0) & eq(floor(x), x));
  return {r, negSin, pole};
}

}  // namespace

V lgamma(const V &x) {
  Parts p = lnGamma(x);
  V r = ddRound(p.l);
  r = sel(p.pole | isInf(x), lit(x, INFINITY), r);
  return sel(isNan(x), x, r);
}

V tgamma(const V &x) {
  Parts p = lnGamma(x);
  V g = expDD(p.l);
  g = sel((x < 0.0) & p.negSin, -g, g);
  g = sel(eq(x, 0.0), copySign(lit(x, INFINITY), x), g);
  g = sel((x < 0.0) & p.pole, lit(x, NAN), g);
  g = sel(eq(x, INFINITY), x, sel(eq(x, -INFINITY), lit(x, NAN), g));
  return sel(isNan(x), x, g);
}

}  // namespace tessera::frontend::ld
