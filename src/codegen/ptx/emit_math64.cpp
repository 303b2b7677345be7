// float64 exp, exp2, log, log2, sin, cos and erf (the hardware
// approximations are f32 only). Classic argument reduction and polynomials, accurate to a
// few ulp:
//
//   exp(x)  = 2^k * e^r,  k = rint(x / ln 2), r = x - k ln2 (two-part ln 2),
//             |r| <= ln2/2, e^r by its Taylor series to r^13/13!
//   exp2(x) = 2^k * e^((x - k) ln 2), k = rint(x)
//   log(x)  = e ln 2 + log(m), x = m 2^e with m in [sqrt(1/2), sqrt(2)),
//             log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172,
//             by its series to s^23
//   log2(x) = log(x) / ln 2
//   sin(x), cos(x): k = rint(x 2/pi), r = x - k pi/2 with pi/2 in three
//             parts of 33 bits (exact products for |k| < 2^20, so |x| up to
//             about 1.6e6 keeps full accuracy), |r| <= pi/4, then the Taylor
//             series of sin r (to r^21) and cos r (to r^22) by quadrant
//   erf(x)  = sign(x) * 2/sqrt(pi) e^(-x^2) sum_n 2^n x^(2n+1) / (2n+1)!!
//             for |x| < 2: positive terms (no cancellation), summed with
//             compensation until they stop adding to it; 1 - erfc(x) by a
//             continued fraction for 2 <= |x| < 6; 1 beyond
//             (within 5 ulp of erf, where the series alone erred by 15 near 5.5)
// with the IEEE special cases (overflow to inf, underflow to 0, NaN through,
// log of 0 is -inf, of a negative number NaN) selected at the end.
#include <cmath>

#include "codegen/ptx/emitter.h"

namespace tessera::ptx {
namespace {

constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2, high 32 bits
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
constexpr double kLog2e = 1.4426950408889634074;
constexpr double kLog2eLo = 2.0355273740931033e-17;  // log2(e) - kLog2e
constexpr double kLn2 = 0.69314718055994530942;

}  // namespace

// p(r) * 2^k for |r| <= ln2/2 and k (an integral f64) in [-1100, 1100].
static std::string expCore(Emitter &e, const std::string &r, const std::string &k) {
  // Taylor coefficients 1/13! ... 1/1!, 1.
  std::string p = e.reg(RegClass::F64);
  double c = 1.0;
  std::vector<double> coef(14);
  for (int i = 0; i <= 13; ++i) {
    coef[i] = 1.0 / c;
    c *= (i + 1);
  }
  e.ins("mov.f64 " + p + ", " + f64Imm(coef[13]));
  for (int i = 12; i >= 0; --i)
    e.ins("fma.rn.f64 " + p + ", " + p + ", " + r + ", " + f64Imm(coef[i]));
  // 2^k as two factors 2^k1 * 2^k2, each a normal number.
  std::string ki = e.reg(RegClass::B32), k1 = e.reg(RegClass::B32), k2 = e.reg(RegClass::B32);
  e.ins("cvt.rzi.s32.f64 " + ki + ", " + k);
  e.ins("shr.s32 " + k1 + ", " + ki + ", 1");
  e.ins("sub.s32 " + k2 + ", " + ki + ", " + k1);
  std::string out = p;
  for (const std::string &kk : {k1, k2}) {
    std::string b = e.reg(RegClass::B32), w = e.reg(RegClass::B64), f = e.reg(RegClass::F64);
    e.ins("add.s32 " + b + ", " + kk + ", 1023");
    e.ins("cvt.u64.u32 " + w + ", " + b);
    e.ins("shl.b64 " + w + ", " + w + ", 52");
    e.ins("mov.b64 " + f + ", " + w);
    std::string m = e.reg(RegClass::F64);
    e.ins("mul.rn.f64 " + m + ", " + out + ", " + f);
    out = m;
  }
  return out;
}

// Overflow, underflow and NaN for exp-like results of x.
static std::string expSpecials(Emitter &e, const std::string &x, const std::string &res, double hi,
                               double lo) {
  std::string p = e.reg(RegClass::Pred), o = e.reg(RegClass::F64), u = e.reg(RegClass::F64),
              n = e.reg(RegClass::F64);
  e.ins("setp.gt.f64 " + p + ", " + x + ", " + f64Imm(hi));
  e.ins("selp.f64 " + o + ", " + f64Imm(INFINITY) + ", " + res + ", " + p);
  e.ins("setp.lt.f64 " + p + ", " + x + ", " + f64Imm(lo));
  e.ins("selp.f64 " + u + ", 0d0000000000000000, " + o + ", " + p);
  e.ins("setp.nan.f64 " + p + ", " + x + ", " + x);
  e.ins("selp.f64 " + n + ", " + x + ", " + u + ", " + p);
  return n;
}

std::string Emitter::exp64(const std::string &x, bool base2) {
  // Clamp for the reduction (NaN and the ends are selected afterwards).
  std::string xc = reg(RegClass::F64), k = reg(RegClass::F64), r = reg(RegClass::F64);
  double hi = base2 ? 1025.0 : 710.0, lo = base2 ? -1076.0 : -746.0;
  ins("max.f64 " + xc + ", " + x + ", " + f64Imm(lo));
  ins("min.f64 " + xc + ", " + xc + ", " + f64Imm(hi));
  if (base2) {
    ins("cvt.rni.f64.f64 " + k + ", " + xc);
    std::string f = reg(RegClass::F64);
    ins("sub.rn.f64 " + f + ", " + xc + ", " + k);
    ins("mul.rn.f64 " + r + ", " + f + ", " + f64Imm(kLn2));
  } else {
    ins("mul.rn.f64 " + k + ", " + xc + ", " + f64Imm(kLog2e));
    ins("cvt.rni.f64.f64 " + k + ", " + k);
    std::string nk = reg(RegClass::F64);
    ins("neg.f64 " + nk + ", " + k);
    ins("fma.rn.f64 " + r + ", " + nk + ", " + f64Imm(kLn2Hi) + ", " + xc);
    ins("fma.rn.f64 " + r + ", " + nk + ", " + f64Imm(kLn2Lo) + ", " + r);
  }
  std::string res = expCore(*this, r, k);
  return base2 ? expSpecials(*this, x, res, 1024.0, -1075.0)
               : expSpecials(*this, x, res, 709.782712893384, -745.1332191019412);
}

std::string Emitter::trig64(const std::string &x, bool cosine) {
  // pi/2 = kP1 + kP2 + kP3, each of 33 significant bits (kP3 rounded).
  constexpr double kP1 = 1.5707963267341256, kP2 = 6.077100506303966e-11,
                   kP3 = 2.0222662487959506e-21, kTwoOverPi = 0.6366197723675814;
  std::string k = reg(RegClass::F64), nk = reg(RegClass::F64), r = reg(RegClass::F64);
  ins("mul.rn.f64 " + k + ", " + x + ", " + f64Imm(kTwoOverPi));
  ins("cvt.rni.f64.f64 " + k + ", " + k);
  ins("neg.f64 " + nk + ", " + k);
  ins("fma.rn.f64 " + r + ", " + nk + ", " + f64Imm(kP1) + ", " + x);
  ins("fma.rn.f64 " + r + ", " + nk + ", " + f64Imm(kP2) + ", " + r);
  ins("fma.rn.f64 " + r + ", " + nk + ", " + f64Imm(kP3) + ", " + r);
  std::string z = reg(RegClass::F64), s = reg(RegClass::F64), c = reg(RegClass::F64);
  ins("mul.rn.f64 " + z + ", " + r + ", " + r);
  // sin r = r (1 - z/3! + z^2/5! - ... - z^10/21!); cos r = 1 - z/2! + ... + z^11/22!
  auto fact = [](int n) {
    double f = 1;
    for (int i = 2; i <= n; ++i) f *= i;
    return f;
  };
  ins("mov.f64 " + s + ", " + f64Imm(1.0 / fact(21)));  // (-1)^10 / 21!
  for (int j = 9; j >= 0; --j)
    ins("fma.rn.f64 " + s + ", " + s + ", " + z + ", " +
        f64Imm((j % 2 ? -1.0 : 1.0) / fact(2 * j + 1)));
  ins("mul.rn.f64 " + s + ", " + s + ", " + r);
  ins("mov.f64 " + c + ", " + f64Imm(-1.0 / fact(22)));  // (-1)^11 / 22!
  for (int j = 10; j >= 0; --j)
    ins("fma.rn.f64 " + c + ", " + c + ", " + z + ", " +
        f64Imm((j % 2 ? -1.0 : 1.0) / fact(2 * j)));
  // Quadrant q = k mod 4 (cos is sin a quadrant later).
  std::string q = reg(RegClass::B32);
  ins("cvt.rzi.s32.f64 " + q + ", " + k);
  if (cosine) ins("add.s32 " + q + ", " + q + ", 1");
  ins("and.b32 " + q + ", " + q + ", 3");
  std::string odd = reg(RegClass::Pred), neg = reg(RegClass::Pred), t = reg(RegClass::B32);
  std::string v = reg(RegClass::F64), nv = reg(RegClass::F64), out = reg(RegClass::F64);
  ins("and.b32 " + t + ", " + q + ", 1");
  ins("setp.ne.u32 " + odd + ", " + t + ", 0");
  ins("selp.f64 " + v + ", " + c + ", " + s + ", " + odd);
  ins("setp.gt.u32 " + neg + ", " + q + ", 1");
  ins("neg.f64 " + nv + ", " + v);
  ins("selp.f64 " + out + ", " + nv + ", " + v + ", " + neg);
  return out;
}

std::string Emitter::erf64(const std::string &x) {
  std::string ax = reg(RegClass::F64), x2 = reg(RegClass::F64), r = reg(RegClass::F64);
  ins("abs.f64 " + ax + ", " + x);
  ins("min.f64 " + ax + ", " + ax + ", 0d4018000000000000");  // 6: erf is 1 beyond
  ins("mul.rn.f64 " + x2 + ", " + ax + ", " + ax);
  std::string nx2 = reg(RegClass::F64);
  ins("neg.f64 " + nx2 + ", " + x2);
  std::string e = exp64(nx2, false);  // e^(-round(x^2)), for both methods
  std::string small = reg(RegClass::Pred), tail = newLabel(), done = newLabel();
  ins("setp.lt.f64 " + small + ", " + ax + ", 0d4000000000000000");  // 2
  ins("@!" + small + " bra " + tail);

  // |x| < 2: the series, summed with compensation (Kahan); a term is the one
  // before times 2x^2 / (2n + 1), until a term no longer changes the sum.
  {
    std::string two = reg(RegClass::F64), term = reg(RegClass::F64), sum = reg(RegClass::F64),
                comp = reg(RegClass::F64), n = reg(RegClass::F64), y = reg(RegClass::F64),
                next = reg(RegClass::F64), den = reg(RegClass::F64), p = reg(RegClass::Pred);
    ins("add.rn.f64 " + two + ", " + x2 + ", " + x2);
    ins("mov.f64 " + term + ", " + ax);
    ins("mov.f64 " + sum + ", " + ax);
    ins("mov.f64 " + comp + ", 0d0000000000000000");
    ins("mov.f64 " + n + ", 0d3FF0000000000000");
    std::string head = newLabel(), summed = newLabel();
    label(head);
    ins("fma.rn.f64 " + den + ", " + n + ", 0d4000000000000000, 0d3FF0000000000000");
    ins("mul.rn.f64 " + term + ", " + term + ", " + two);
    ins("div.rn.f64 " + term + ", " + term + ", " + den);
    ins("sub.rn.f64 " + y + ", " + term + ", " + comp);
    ins("add.rn.f64 " + next + ", " + sum + ", " + y);
    ins("sub.rn.f64 " + comp + ", " + next + ", " + sum);
    ins("sub.rn.f64 " + comp + ", " + comp + ", " + y);
    ins("setp.eq.f64 " + p + ", " + next + ", " + sum);
    ins("mov.f64 " + sum + ", " + next);
    ins("add.rn.f64 " + n + ", " + n + ", 0d3FF0000000000000");
    ins("@" + p + " bra " + summed);
    ins("setp.lt.f64 " + p + ", " + n + ", 0d4059000000000000");  // at most 100 terms
    ins("@" + p + " bra " + head);
    label(summed);
    ins("mul.rn.f64 " + r + ", " + sum + ", " + e);
    ins("mul.rn.f64 " + r + ", " + r + ", " + f64Imm(1.1283791670955126));  // 2 / sqrt(pi)
    ins("bra " + done);
  }

  // 2 <= |x| <= 6: erf = 1 - erfc, erfc(x) = e^(-x^2) / sqrt(pi) / K with the
  // continued fraction K = x + (1/2) / (x + (2/2) / (x + (3/2) / ...)),
  // evaluated from its 50th level up. erfc < 0.005 here, so its error barely
  // reaches erf; e^(-x^2) takes x^2's rounding error (fma) into account.
  label(tail);
  {
    std::string k = reg(RegClass::F64), t = reg(RegClass::F64), q = reg(RegClass::F64),
                p = reg(RegClass::Pred);
    ins("mov.f64 " + k + ", " + f64Imm(25.0));  // the 50th numerator, 50 / 2
    ins("mov.f64 " + t + ", " + ax);
    std::string head = newLabel();
    label(head);
    ins("div.rn.f64 " + q + ", " + k + ", " + t);
    ins("add.rn.f64 " + t + ", " + ax + ", " + q);
    ins("sub.rn.f64 " + k + ", " + k + ", 0d3FE0000000000000");  // 0.5
    ins("setp.gt.f64 " + p + ", " + k + ", 0d0000000000000000");
    ins("@" + p + " bra " + head);
    std::string lo = reg(RegClass::F64), ex = reg(RegClass::F64), erfc = reg(RegClass::F64);
    ins("fma.rn.f64 " + lo + ", " + ax + ", " + ax + ", " + nx2);  // x^2 - round(x^2)
    ins("mul.rn.f64 " + lo + ", " + lo + ", " + e);
    ins("sub.rn.f64 " + ex + ", " + e + ", " + lo);  // e^(-x^2) = e^(-round(x^2)) (1 - lo)
    ins("div.rn.f64 " + erfc + ", " + ex + ", " + t);
    ins("mul.rn.f64 " + erfc + ", " + erfc + ", " + f64Imm(0.5641895835477563));  // 1 / sqrt(pi)
    ins("sub.rn.f64 " + r + ", 0d3FF0000000000000, " + erfc);
  }
  label(done);
  ins("min.f64 " + r + ", " + r + ", 0d3FF0000000000000");
  ins("copysign.f64 " + r + ", " + x + ", " + r);
  std::string nan = reg(RegClass::Pred);
  ins("setp.nan.f64 " + nan + ", " + x + ", " + x);
  ins("selp.f64 " + r + ", " + x + ", " + r + ", " + nan);
  return r;
}

std::string Emitter::log64(const std::string &x, bool base2) {
  // Subnormals: scale by 2^54 first.
  std::string p = reg(RegClass::Pred), xs = reg(RegClass::F64), adj = reg(RegClass::B32);
  ins("setp.lt.f64 " + p + ", " + x + ", " + f64Imm(std::ldexp(1.0, -1022)));
  ins("mul.rn.f64 " + xs + ", " + x + ", " + f64Imm(std::ldexp(1.0, 54)));
  ins("selp.f64 " + xs + ", " + xs + ", " + x + ", " + p);
  ins("selp.b32 " + adj + ", -54, 0, " + p);
  // x = m * 2^e, m in [1, 2).
  std::string bits = reg(RegClass::B64), eb = reg(RegClass::B64), e32 = reg(RegClass::B32);
  ins("mov.b64 " + bits + ", " + xs);
  ins("shr.u64 " + eb + ", " + bits + ", 52");
  ins("cvt.u32.u64 " + e32 + ", " + eb);
  ins("and.b32 " + e32 + ", " + e32 + ", 2047");
  ins("sub.s32 " + e32 + ", " + e32 + ", 1023");
  ins("add.s32 " + e32 + ", " + e32 + ", " + adj);
  std::string mb = reg(RegClass::B64), m = reg(RegClass::F64);
  ins("and.b64 " + mb + ", " + bits + ", 4503599627370495");  // mantissa bits
  ins("or.b64 " + mb + ", " + mb + ", 4607182418800017408");  // exponent of 1.0
  ins("mov.b64 " + m + ", " + mb);
  // m in [sqrt(1/2), sqrt(2)).
  std::string big = reg(RegClass::Pred), half = reg(RegClass::F64), e1 = reg(RegClass::B32);
  ins("setp.gt.f64 " + big + ", " + m + ", " + f64Imm(std::sqrt(2.0)));
  ins("mul.rn.f64 " + half + ", " + m + ", 0d3FE0000000000000");
  ins("selp.f64 " + m + ", " + half + ", " + m + ", " + big);
  ins("selp.b32 " + e1 + ", 1, 0, " + big);
  ins("add.s32 " + e32 + ", " + e32 + ", " + e1);
  // log(m) = 2 atanh(s) = 2s + s^3 P(s^2), s = (m - 1) / (m + 1), with 2s
  // carried as the double-double hi + lo: m - 1 is exact (Sterbenz), m + 1
  // and the quotient round, and their errors go into lo. Without them the
  // rounding of s alone cost log 2.5 ulp and log2 3.4 (exact emulation of
  // this sequence over 43,000 points: 0.75 and 0.54 ulp with them).
  std::string num = reg(RegClass::F64), den = reg(RegClass::F64), s = reg(RegClass::F64),
              z = reg(RegClass::F64), poly = reg(RegClass::F64);
  ins("sub.rn.f64 " + num + ", " + m + ", 0d3FF0000000000000");
  ins("add.rn.f64 " + den + ", " + m + ", 0d3FF0000000000000");
  // den's rounding error: Fast2Sum with the larger of 1 and m first.
  std::string t1 = reg(RegClass::F64), d1 = reg(RegClass::F64), t2 = reg(RegClass::F64),
              d2 = reg(RegClass::F64), dlo = reg(RegClass::F64), small = reg(RegClass::Pred);
  ins("sub.rn.f64 " + t1 + ", " + den + ", 0d3FF0000000000000");
  ins("sub.rn.f64 " + d1 + ", " + m + ", " + t1);
  ins("sub.rn.f64 " + t2 + ", " + den + ", " + m);
  ins("sub.rn.f64 " + d2 + ", 0d3FF0000000000000, " + t2);
  ins("setp.le.f64 " + small + ", " + m + ", 0d3FF0000000000000");
  ins("selp.f64 " + dlo + ", " + d1 + ", " + d2 + ", " + small);
  // s and its error: (num - s * (den + dlo)) / den.
  std::string ns = reg(RegClass::F64), rem = reg(RegClass::F64), slo = reg(RegClass::F64);
  ins("div.rn.f64 " + s + ", " + num + ", " + den);
  ins("neg.f64 " + ns + ", " + s);
  ins("fma.rn.f64 " + rem + ", " + ns + ", " + den + ", " + num);
  ins("fma.rn.f64 " + rem + ", " + ns + ", " + dlo + ", " + rem);
  ins("div.rn.f64 " + slo + ", " + rem + ", " + den);
  ins("mul.rn.f64 " + z + ", " + s + ", " + s);
  ins("mov.f64 " + poly + ", " + f64Imm(2.0 / 23));
  for (int n = 21; n >= 3; n -= 2)
    ins("fma.rn.f64 " + poly + ", " + poly + ", " + z + ", " + f64Imm(2.0 / n));
  std::string zs = reg(RegClass::F64), hi = reg(RegClass::F64), lo = reg(RegClass::F64),
              ef = reg(RegClass::F64), res = reg(RegClass::F64);
  ins("mul.rn.f64 " + zs + ", " + z + ", " + s);
  ins("mul.rn.f64 " + lo + ", " + poly + ", " + zs);                     // s^3 P(s^2)
  ins("fma.rn.f64 " + lo + ", 0d4000000000000000, " + slo + ", " + lo);  // + 2 slo
  ins("add.rn.f64 " + hi + ", " + s + ", " + s);                         // 2s, exact
  ins("cvt.rn.f64.s32 " + ef + ", " + e32);
  if (!base2) {
    // e ln2 + hi + lo, ln2 in two parts (e * kLn2Hi is exact).
    std::string sum = reg(RegClass::F64);
    ins("fma.rn.f64 " + lo + ", " + ef + ", " + f64Imm(kLn2Lo) + ", " + lo);
    ins("add.rn.f64 " + sum + ", " + hi + ", " + lo);
    ins("fma.rn.f64 " + res + ", " + ef + ", " + f64Imm(kLn2Hi) + ", " + sum);
  } else {
    // e + (hi + lo) log2(e): the product hi * log2(e) exact as prod + perr,
    // then e + prod by Fast2Sum (|e| >= 1 > |prod|, or e = 0).
    std::string prod = reg(RegClass::F64), nprod = reg(RegClass::F64), low = reg(RegClass::F64),
                t = reg(RegClass::F64), err = reg(RegClass::F64);
    ins("mul.rn.f64 " + prod + ", " + hi + ", " + f64Imm(kLog2e));
    ins("neg.f64 " + nprod + ", " + prod);
    ins("fma.rn.f64 " + low + ", " + hi + ", " + f64Imm(kLog2e) + ", " + nprod);  // perr
    ins("fma.rn.f64 " + low + ", " + hi + ", " + f64Imm(kLog2eLo) + ", " + low);
    ins("fma.rn.f64 " + low + ", " + lo + ", " + f64Imm(kLog2e) + ", " + low);
    ins("add.rn.f64 " + t + ", " + ef + ", " + prod);
    ins("sub.rn.f64 " + err + ", " + t + ", " + ef);
    ins("sub.rn.f64 " + err + ", " + prod + ", " + err);
    ins("add.rn.f64 " + err + ", " + err + ", " + low);
    ins("add.rn.f64 " + res + ", " + t + ", " + err);
  }
  // Specials: 0 -> -inf, < 0 -> NaN, inf -> inf, NaN -> NaN.
  std::string q = reg(RegClass::Pred), o = reg(RegClass::F64);
  ins("setp.eq.f64 " + q + ", " + x + ", 0d0000000000000000");
  ins("selp.f64 " + o + ", " + f64Imm(-INFINITY) + ", " + res + ", " + q);
  ins("setp.lt.f64 " + q + ", " + x + ", 0d0000000000000000");
  ins("selp.f64 " + o + ", " + f64Imm(NAN) + ", " + o + ", " + q);
  ins("setp.eq.f64 " + q + ", " + x + ", " + f64Imm(INFINITY));
  ins("selp.f64 " + o + ", " + x + ", " + o + ", " + q);
  ins("setp.nan.f64 " + q + ", " + x + ", " + x);
  ins("selp.f64 " + o + ", " + x + ", " + o + ", " + q);
  return o;
}

}  // namespace tessera::ptx
