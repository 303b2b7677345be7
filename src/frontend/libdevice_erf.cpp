// The error function family of the libdevice compositions, in float64
// (float32 callers round once): erf, erfc, erfcx, normcdf, erfinv, erfcinv,
// normcdfinv.
//
//   erf |x| < 1/2: its Taylor series, the leading term in double-double.
//   erfcx x >= 1/2: Chebyshev interpolants on [2^j, 2^(j+1)), j = -1..4
//     (22 terms each, from erfcx at the Chebyshev nodes in 150-bit
//     arithmetic: 2^-53 relative before the coefficients' own rounding),
//     evaluated by Clenshaw's recurrence in the exact variable
//     x 2^(1-j) - 3; beyond 32 the asymptotic series (9 terms).
//   erfc = e^(-x^2) erfcx for x >= 1/2 (x^2 exact in double-double), 1 - erf
//     inside, 2 - erfc(-x) below; erf = 1 - erfc outside (1/2, 1/2).
//   normcdf(x) = erfc(-x / sqrt(2)) / 2 with the argument in double-double
//     (its rounding would cost 2 z^2 ulps in the far tail).
//   erfinv, erfcinv: a Chebyshev interpolant (2^-29 or better: erfinv y / y
//     in y^2 centrally, erfcinv w / s in 1/s, s = sqrt(-ln w), in the tail)
//     and one Halley step on erf or erfc, which cubes the error; the tail
//     step uses erfcx and w e^(x^2) = e^(ln w + x^2), so nothing under- or
//     overflows down to the smallest subnormal w.
// Errors measured within 2 ulp (erf, erfc, erfcx), 1.5 (the inverses).
#include <cmath>

#include "frontend/libdevice_math.h"

namespace tessera::frontend::ld {
namespace {

// Chebyshev coefficients (generated with mpmath at 150 bits: the
// interpolants at the Chebyshev nodes of each interval).
constexpr double kErfcxCheb[6][22] = {
    {0x1.074c4de1c1e21p-1,  -0x1.7f1de3005c3c1p-4,  0x1.e1a8e143d32bap-8,  -0x1.0f126d3546595p-11,
     0x1.1721493ab0d3ep-15, -0x1.0acaf226b13c2p-19, 0x1.de56ca99bb4a3p-24, -0x1.955a242ece359p-28,
     0x1.46b2a1d04c714p-32, -0x1.f74eebd45041cp-37, 0x1.740832a7cadeap-41, -0x1.08c587b854375p-45,
     0x1.6be444a656d71p-50, -0x1.e4133e4a0210ap-55, 0x1.384f04630f823p-59, -0x1.879be30dadf2cp-64,
     0x1.ddf8915290468p-69, -0x1.1c56a3a6f311cp-73, 0x1.4a3473419d7a6p-78, -0x1.76bcf64077892p-83,
     0x1.a009a3b3d7466p-88, -0x1.c3cda7d405a3ap-93},
    {0x1.5361ac5e93132p-2,  -0x1.5c2b3398a6184p-4,  0x1.46141b3eb5f93p-7,  -0x1.1b66a455fc3d1p-10,
     0x1.ce592d5eea8d0p-14, -0x1.64e9adacc813cp-17, 0x1.0665602a88e46p-20, -0x1.71472963d64e6p-24,
     0x1.f36ee0e516f2ep-28, -0x1.45a677ddd7286p-31, 0x1.9aa2dc95d3dc2p-35, -0x1.f5e34a85c21cfp-39,
     0x1.29e63d5f2572bp-42, -0x1.581ada2bf92a4p-46, 0x1.835ff7fb1559dp-50, -0x1.a99a53f250615p-54,
     0x1.c8f04989af828p-58, -0x1.dfefcf1cc256cp-62, 0x1.eda90a3b9de0fp-66, -0x1.f1bb3c28574aap-70,
     0x1.ec5233873d812p-74, -0x1.dc7462edbbc81p-78},
    {0x1.7fdb12ea2b05cp-3,  -0x1.dab2adc8a65e5p-5,  0x1.19a6293706e21p-7,  -0x1.4208a58812ad3p-10,
     0x1.63fa6fee96a6fp-13, -0x1.7d7c61809576dp-16, 0x1.8d437a7cbaeb5p-19, -0x1.92cc880862addp-22,
     0x1.8e56edca9b7c5p-25, -0x1.80caa9382c857p-28, 0x1.6b8ff728f7453p-31, -0x1.505fe1c70ce9ap-34,
     0x1.3114901f960cap-37, -0x1.0f7ed65636722p-40, 0x1.da895afe91577p-44, -0x1.97949a837a072p-47,
     0x1.584be0545df34p-50, -0x1.1e3a0dbc57e10p-53, 0x1.d4a35f527b314p-57, -0x1.7a00d5a693320p-60,
     0x1.2c8a181a21404p-63, -0x1.d30fc9b85e9f7p-67},
    {0x1.9163cf0384d34p-4,  -0x1.0b3325bc9f077p-5,  0x1.5ee8ac1260f35p-8,  -0x1.c6d30736d1aa7p-11,
     0x1.230ccd30a9bf7p-13, -0x1.6ffa958b0bcabp-16, 0x1.cbcabbdaf24a3p-19, -0x1.1c00985f348d6p-21,
     0x1.5afe62c63a10cp-24, -0x1.a372688d80040p-27, 0x1.f5cb3569a145fp-30, -0x1.2924869722b65p-32,
     0x1.5c7abb2224666p-35, -0x1.94cdf8cf94e45p-38, 0x1.d1e22b1ef48bcp-41, -0x1.09abce793fa97p-43,
     0x1.2c552f4bbecbfp-46, -0x1.50997dc4680a5p-49, 0x1.7614450cee68ep-52, -0x1.9c517d8d5bf1cp-55,
     0x1.c2ad9ac6b4efap-58, -0x1.e0432d2d9df09p-61},
    {0x1.96a7136488236p-5,  -0x1.14da8b42445d1p-6,  0x1.778d87480c703p-9,  -0x1.fb8b9a1e2b8ebp-12,
     0x1.55b43d1a111cap-14, -0x1.ca6e9d5172105p-17, 0x1.3269b3b0b4569p-19, -0x1.9827430c76086p-22,
     0x1.0ee1e4886a36dp-24, -0x1.664ea5c53b27ep-27, 0x1.d8512dbf0c2c6p-30, -0x1.363df987ab051p-32,
     0x1.96314784f15cbp-35, -0x1.0905a8ed564d0p-37, 0x1.58b011c1803f5p-40, -0x1.bed5d38cf74a7p-43,
     0x1.20b076a29d4a6p-45, -0x1.73d58b1c44688p-48, 0x1.dd67808e84260p-51, -0x1.318153b160943p-53,
     0x1.858d7b97d0860p-56, -0x1.e362445bd4879p-59},
    {0x1.980b8ca8d8159p-6,  -0x1.1778271872a06p-7,  0x1.7e72253029cdfp-10, -0x1.056e4e986737fp-12,
     0x1.651282e39b2d3p-15, -0x1.e73c55b4dc575p-18, 0x1.4c1b2ba223698p-20, -0x1.c44def7506d83p-23,
     0x1.33b5dd037e79fp-25, -0x1.a248eb116b1c5p-28, 0x1.1c074aff3451dp-30, -0x1.815d8b619057dp-33,
     0x1.052efce610036p-35, -0x1.61b4b8645340ap-38, 0x1.de8e8d7e9b4d8p-41, -0x1.437008a79f52cp-43,
     0x1.b4cab90dd4a30p-46, -0x1.26a9ecf1593bep-48, 0x1.8d32e873f5c56p-51, -0x1.0b7474cc82b30p-53,
     0x1.67954d55c9b7fp-56, -0x1.d62375e7c9465p-59},
};

constexpr double kErfinvCentral[9] = {
    0x1.d6633410cc88cp-1,  0x1.148cdd452daabp-5,  0x1.5a34f3552cedfp-10,
    0x1.0c9b40cecf612p-14, 0x1.cddf262f39f1dp-19, 0x1.a5c04ce428672p-23,
    0x1.90ab2a7f854a4p-27, 0x1.8770e421ba233p-31, 0x1.84e76b3f42b57p-35};

constexpr double kErfcinvTail[2][15] = {
    {0x1.ecaa23c418245p-1, -0x1.4889f48c1757ap-5, -0x1.15a7f44390bf4p-8, 0x1.34f41e16ecabfp-11,
     -0x1.2335d17173489p-14, 0x1.a44f51431bc37p-17, -0x1.9028f412a4bc1p-19, 0x1.b026e59c5cf75p-21,
     -0x1.fdcb5a568ca45p-23, 0x1.420662a5690cfp-24, -0x1.acc6dc8f7ae9ep-26, 0x1.295065496e7abp-27,
     -0x1.a913e1f6ad391p-29, 0x1.3315910d10853p-30, -0x1.924fb8038ae1fp-32},
    {0x1.79d7413937565p-1, -0x1.65b94cb05c591p-3, 0x1.0dff23cdc39c1p-7, 0x1.d756222378b43p-10,
     -0x1.24b8f42499bf5p-11, 0x1.712c7cc5d9a17p-14, -0x1.4fef10c65fbe5p-17, 0x1.33466adc38727p-20,
     -0x1.f045a82ebd645p-23, 0x1.1cd440d7ad9fcp-24, -0x1.36937b3793a67p-26, 0x1.381e7ae92b4d6p-28,
     -0x1.34944dd075a65p-30, 0x1.383e27a6d492fp-32, -0x1.3181b99adcf72p-34},
};

constexpr double kTwoOverSqrtPi[2] = {0x1.20dd750429b6dp+0, 0x1.1ae3a914fed80p-56};
constexpr double kOneOverSqrtPi = 0x1.20dd750429b6dp-1;
constexpr double kSqrtPiOver2 = 0x1.c5bf891b4ef6bp-1;
constexpr double kSqrt2[2] = {0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54};
constexpr double kOneOverSqrt2[2] = {0x1.6a09e667f3bcdp-1, -0x1.bdd3413b26456p-55};
// The two intervals in 1/s of kErfcinvTail.
constexpr double kTailV[3] = {1 / 27.5, 0.3, 0x1.337cc2183b050p+0};

DD dd(const V &like, const double (&c)[2]) {
  return ddConst(like, c[0], c[1]);
}
V horner(const V &x, const std::vector<double> &c) {
  V p = lit(x, c[0]);
  for (size_t i = 1; i < c.size(); ++i) p = fma(p, x, c[i]);
  return p;
}

// sum c_k T_k(u) by Clenshaw's recurrence; c(k) gives the coefficients.
template <class C>
V clenshaw(const V &u, int n, C c) {
  V b1 = lit(u, 0.0), b2 = lit(u, 0.0);
  V u2 = u * 2.0;
  for (int k = n - 1; k >= 1; --k) {
    V b = fma(u2, b1, c(k) - b2);
    b2 = b1;
    b1 = b;
  }
  return fma(u, b1, c(0) - b2);
}

// erf x for |x| < 1/2 as a double-double: (2/sqrt(pi)) x (1 + z Q(z)).
DD erfSmall(const V &x) {
  V z = x * x;
  std::vector<double> c;
  double f = 1;
  for (int n = 1; n <= 14; ++n) f *= n;
  for (int n = 14; n >= 1; --n) {
    c.push_back((n % 2 ? -1.0 : 1.0) / (f * (2 * n + 1)));
    f /= n;
  }
  DD s = fastTwoSum(x, (x * z) * horner(z, c));
  return ddMul(s, dd(x, kTwoOverSqrtPi));
}

// erfcx x for x >= 1/2 (garbage below; NaN stays NaN).
V erfcxLarge(const V &x) {
  MathBuilder &m = *x.m;
  V xc = sel(x < 0.5, lit(x, 0.5), sel(x > 63.0, lit(x, 63.0), x));
  V j = addi((bitcast(xc, DType::I64) >> 52) & 2047, -1023);  // -1 .. 5
  j = sel(j > m.i(4, DType::I64), m.i(4, DType::I64), j);
  V u = xc * bitcast((m.i(1024, DType::I64) - j) << 52, DType::F64) - 3.0;  // exact
  V cheb = clenshaw(u, 22, [&](int k) {
    V c = lit(x, kErfcxCheb[0][k]);
    for (int r = 1; r < 6; ++r) c = sel(eq(j, m.i(r - 1, DType::I64)), lit(x, kErfcxCheb[r][k]), c);
    return c;
  });
  // x >= 32: (1 / (x sqrt(pi))) sum (-1)^k (2k-1)!! s^k, s = 1 / (2 x^2).
  V s = 0.5 / (x * x);
  V asym = horner(s, {2027025, -135135, 10395, -945, 105, -15, 3, -1, 1}) * (kOneOverSqrtPi / x);
  return sel(x >= 32.0, asym, cheb);
}

// erfc x for x >= 1/2: e^(-x^2) erfcx x.
V erfcLarge(const V &x) {
  DD sq = twoProd(x, x);
  return expDD({-sq.hi, -sq.lo}) * erfcxLarge(x);
}

}  // namespace

V erf(const V &x) {
  V a = abs(x);
  V small = ddRound(erfSmall(sel(a < 0.5, x, lit(x, 0.0))));
  V big = copySign(1.0 - erfcLarge(a), x);
  return sel(a < 0.5, small, sel(isNan(x), x, big));
}

V erfc(const V &x) {
  V a = abs(x);
  DD e = erfSmall(sel(a < 0.5, x, lit(x, 0.0)));
  V small = ddRound(ddAdd(DD{-e.hi, -e.lo}, lit(x, 1.0)));
  V tail = erfcLarge(a);
  V r = sel(x < 0.0, 2.0 - tail, tail);
  return sel(a < 0.5, small, sel(isNan(x), x, r));
}

V erfcx(const V &x) {
  // Below 1/2: e^(x^2) erfc x (overflowing, as erfcx does, below -26.6).
  DD sq = twoProd(x, x);
  V below = expDD(sq) * erfc(sel(x < 0.5, x, lit(x, 0.0)));
  return sel(x >= 0.5, erfcxLarge(x), sel(isNan(x), x, below));
}

V normcdf(const V &x) {
  // z = -x / sqrt(2) in double-double; erfc z / 2.
  DD c = dd(x, kOneOverSqrt2);
  // Beyond |z| = 40 erfc z is 0 or 2 exactly (and z^2 would overflow).
  V xc = sel(abs(x) > 60.0, copySign(lit(x, 60.0), x), x);
  DD z = ddMul(c, -xc);
  V a = abs(z.hi);
  DD sq = ddMul(z, z);
  V tail = expDD({-sq.hi, -sq.lo}) * erfcxLarge(a);
  V r = sel(z.hi < 0.0, 2.0 - tail, tail);
  // |z| < 1/2: 1 - erf(z.hi) - z.lo erf'(z.hi), erf' = (2/sqrt(pi)) e^(-z^2) ~ (2/sqrt(pi)) (1 -
  // z^2).
  DD e = erfSmall(sel(a < 0.5, z.hi, lit(x, 0.0)));
  V slope = (kTwoOverSqrtPi[0] * z.lo) * (1.0 - z.hi * z.hi);
  V small = ddRound(ddAdd(ddAdd(DD{-e.hi, -e.lo}, lit(x, 1.0)), -slope));
  r = sel(a < 0.5, small, r) * 0.5;
  return sel(isNan(x), x, r);
}

namespace {
// erfinv y for 0 <= y <= 1/2.
V erfinvCentral(const V &y) {
  V t = y * y;
  V x0 = y * clenshaw(t * 8.0 - 1.0, 9, [&](int k) { return lit(y, kErfinvCentral[k]); });
  // Halley: x - d / (1 + x d), d = (erf x - y) / erf'(x).
  DD e = erfSmall(sel(x0 < 0.5, x0, lit(x0, 0.0)));
  V f = ddRound(ddAdd(e, -y));
  DD sq = twoProd(x0, x0);
  V d = f / (kTwoOverSqrtPi[0] * expDD({-sq.hi, -sq.lo}));
  return x0 - d / fma(x0, d, 1.0);
}

// erfcinv w for 0 < w <= 1/2.
V erfcinvTail(const V &w) {
  V s = sqrt(-log(w));
  V v = 1.0 / s;
  V second = v >= kTailV[1];
  V lo = sel(second, lit(v, kTailV[1]), lit(v, kTailV[0]));
  V hi = sel(second, lit(v, kTailV[2]), lit(v, kTailV[1]));
  V u = (v * 2.0 - lo - hi) / (hi - lo);
  V x0 = s * clenshaw(u, 15, [&](int k) {
           return sel(second, lit(v, kErfcinvTail[1][k]), lit(v, kErfcinvTail[0][k]));
         });
  // Halley on erfc: d = (erfc x - w) / erfc'(x) = -(erfcx x - w e^(x^2)) sqrt(pi)/2.
  DD lw = ddAdd(logDD(w), twoProd(x0, x0));
  V d = (expDD(lw) - erfcx(x0)) * kSqrtPiOver2;
  return x0 - d / fma(x0, d, 1.0);
}
}  // namespace

V erfinv(const V &y) {
  V a = abs(y);
  V central = erfinvCentral(sel(a <= 0.5, a, lit(a, 0.0)));
  V tail = erfcinvTail(sel(a > 0.5, 1.0 - a, lit(a, 0.5)));  // 1 - a exact
  V r = copySign(sel(a <= 0.5, central, tail), y);
  r = sel(eq(a, 1.0), copySign(lit(y, INFINITY), y), sel(a > 1.0, lit(y, NAN), r));
  return sel(eq(y, 0.0) | isNan(y), y, r);
}

V erfcinv(const V &w) {
  // w < 1/2 or w > 3/2: the tail (2 - w exact); else erfinv(1 - w) (exact).
  V low = w<0.5, high = w> 1.5;
  V t = erfcinvTail(sel(low, w, sel(high, 2.0 - w, lit(w, 0.5))));
  V mid = 1.0 - w;
  V c = copySign(erfinvCentral(sel(low | high, lit(w, 0.0), abs(mid))), mid);
  V r = sel(low, t, sel(high, -t, c));
  r = sel(eq(w, 0.0), lit(w, INFINITY), sel(eq(w, 2.0), lit(w, -INFINITY), r));
  return sel((w < 0.0) | (w > 2.0) | isNan(w), lit(w, NAN), r);
}

V normcdfinv(const V &p) {
  V r = erfcinv(p * 2.0);
  return sel(isFinite(r), ddRound(ddMul(dd(p, kSqrt2), -r)), -r);
}

}  // namespace tessera::frontend::ld
