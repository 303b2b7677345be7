// Modified Bessel functions of the first kind of the libdevice
// compositions, in float64 (float32 callers round once): cyl_bessel_i0 and
// cyl_bessel_i1.
//
//   |x| <= 30: the power series, (x/2)^nu sum (x^2/4)^k / (k! (k+nu)!),
//     every term positive (no cancellation), 70 terms (the remainder is
//     below 2^-60 of the sum at 30), by compensated Horner with x^2/4 in
//     double-double (plain Horner lost up to 10 ulp here).
//   |x| > 30: Hankel's asymptotic expansion e^x / sqrt(2 pi x)
//     sum_k (-1)^k prod_j (4 nu^2 - (2j-1)^2) / (k! (8x)^k), 20 terms (the
//     least term is far smaller), the prefactor as e^(x - ln(2 pi x) / 2)
//     in double-double so that it overflows only where the function does.
// Errors measured within 2 ulp (libdevice's bound is 6).
#include <cmath>

#include "frontend/libdevice_math.h"

namespace tessera::frontend::ld {
namespace {

constexpr double kLn2Pi[2] = {0x1.d67f1c864beb5p+0, -0x1.65b5a1b7ff5dfp-54};

V besselI(const V &x, int nu) {
  V a = abs(x);
  V small = sel(a > 30.0, lit(a, 30.0), a);
  // y = (x/2)^2 exactly, as a double-double: its rounding alone would cost
  // x/2 ulps (d ln I / d ln y is about x/2).
  DD y = twoProd(small * 0.5, small * 0.5);
  // sum_k y^k / (k! (k + nu)!) by compensated Horner (Graillat: every
  // step's rounding errors carried along), plus the derivative times y.lo.
  std::vector<double> series;
  for (int k = 70; k >= 0; --k) {
    long double ck = 1;  // 64 bits: 140 roundings stay below half a double ulp
    for (int i = 2; i <= k; ++i) ck /= i;
    for (int i = 2; i <= k + nu; ++i) ck /= i;
    series.push_back(static_cast<double>(ck));
  }
  V h = lit(a, series[0]), err = lit(a, 0.0), deriv = lit(a, 0.0);
  for (size_t i = 1; i < series.size(); ++i) {
    deriv = fma(deriv, y.hi, h);
    DD p = twoProd(h, y.hi);
    DD t = twoSum(p.hi, lit(a, series[i]));
    h = t.hi;
    err = fma(err, y.hi, p.lo + t.lo);
  }
  V sum = h + fma(deriv, y.lo, err);
  V power = nu == 0 ? sum : sum * (small * 0.5);
  // Hankel's expansion for a > 30.
  V big = sel(a > 30.0, a, lit(a, 31.0));
  V inv = 1.0 / big;
  V s = lit(a, 0.0);
  std::vector<double> coef(21);
  double c = 1;
  for (int k = 0; k <= 20; ++k) {
    coef[k] = (k % 2 ? -1.0 : 1.0) * c;
    double odd = 2.0 * k + 1;
    c *= (4.0 * nu * nu - odd * odd) / ((k + 1) * 8.0);
  }
  for (int k = 20; k >= 0; --k) s = fma(s, inv, coef[k]);
  DD half = ddAdd(logDD(big), ddConst(a, kLn2Pi[0], kLn2Pi[1]));
  V pre = expDD(ddAdd(DD{-half.hi * 0.5, -half.lo * 0.5}, big));
  V r = sel(a > 30.0, pre * s, power);
  r = sel(isInf(a), a, r);
  r = sel(isNan(x), x, r);
  return nu == 1 ? copySign(r, x) : r;
}

}  // namespace

V besselI0(const V &x) {
  return besselI(x, 0);
}
V besselI1(const V &x) {
  return besselI(x, 1);
}

}  // namespace tessera::frontend::ld
