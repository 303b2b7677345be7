// Tests for support/numerics: narrow-float conversions against independent
// references (an exact nearest-value oracle and bit-manipulation float paths),
// TF32 rounding, and Philox against the Random123 known-answer vectors.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "support/numerics.h"

namespace tessera::num {
namespace {

// ---------------------------------------------------------------------------
// Format descriptions for the generic checks.

enum class Overflow { kInf, kSatFinite };

struct Format {
  const char *name;
  int bits;  // 16 or 8
  int expBits;
  int manBits;
  int bias;
  Overflow overflow;
  uint32_t maxFinite;  // magnitude encoding of the largest finite value
  std::function<uint32_t(double)> encode;
  std::function<double(uint32_t)> decode;
  std::function<bool(uint32_t)> isNaN;
  std::function<bool(uint32_t)> isInf;
  // fnuz formats (float8e4b8, float8e5b16): 0x80 is the only NaN, so there
  // is no negative zero (a value rounding to zero encodes as +0).
  bool fnuz = false;
};

std::vector<Format> formats() {
  return {
      {"f16", 16, 5, 10, 15, Overflow::kInf, 0x7BFF, [](double x) { return uint32_t{toF16(x)}; },
       [](uint32_t b) { return fromF16(static_cast<uint16_t>(b)); },
       [](uint32_t b) { return (b & 0x7C00) == 0x7C00 && (b & 0x3FF); },
       [](uint32_t b) { return (b & 0x7FFF) == 0x7C00; }},
      {"bf16", 16, 8, 7, 127, Overflow::kInf, 0x7F7F, [](double x) { return uint32_t{toBF16(x)}; },
       [](uint32_t b) { return fromBF16(static_cast<uint16_t>(b)); },
       [](uint32_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x7F); },
       [](uint32_t b) { return (b & 0x7FFF) == 0x7F80; }},
      {"f8e4nv", 8, 4, 3, 7, Overflow::kSatFinite, 0x7E,
       [](double x) { return uint32_t{toF8E4NV(x)}; },
       [](uint32_t b) { return fromF8E4NV(static_cast<uint8_t>(b)); },
       [](uint32_t b) { return (b & 0x7F) == 0x7F; }, [](uint32_t) { return false; }},
      {"f8e5", 8, 5, 2, 15, Overflow::kSatFinite, 0x7B,
       [](double x) { return uint32_t{toF8E5(x)}; },
       [](uint32_t b) { return fromF8E5(static_cast<uint8_t>(b)); },
       [](uint32_t b) { return (b & 0x7C) == 0x7C && (b & 3); },
       [](uint32_t b) { return (b & 0x7F) == 0x7C; }},
      {"f8e4b15", 8, 4, 3, 15, Overflow::kSatFinite, 0x7E,
       [](double x) { return uint32_t{toF8E4B15(x)}; },
       [](uint32_t b) { return fromF8E4B15(static_cast<uint8_t>(b)); },
       [](uint32_t b) { return (b & 0x7F) == 0x7F; }, [](uint32_t) { return false; }},
      {"f8e4b8", 8, 4, 3, 8, Overflow::kSatFinite, 0x7F,
       [](double x) { return uint32_t{toF8E4B8(x)}; },
       [](uint32_t b) { return fromF8E4B8(static_cast<uint8_t>(b)); },
       [](uint32_t b) { return b == 0x80; }, [](uint32_t) { return false; }, true},
      {"f8e5b16", 8, 5, 2, 16, Overflow::kSatFinite, 0x7F,
       [](double x) { return uint32_t{toF8E5B16(x)}; },
       [](uint32_t b) { return fromF8E5B16(static_cast<uint8_t>(b)); },
       [](uint32_t b) { return b == 0x80; }, [](uint32_t) { return false; }, true},
  };
}

uint32_t signBit(const Format &f) {
  return 1u << (f.bits - 1);
}

// ---------------------------------------------------------------------------
// Reference 1: exact nearest-value oracle. Enumerates the format's finite
// non-negative values; for x between neighbours a < b the midpoint (a + b) / 2
// is exact in double (the formats have at most 11 significant bits), so
// comparing x with it decides round-to-nearest-even without any rounding of
// our own. Independent of the implementation's bit arithmetic.
class Oracle {
 public:
  explicit Oracle(const Format &f) : f_(f) {
    for (uint32_t b = 0; b <= f.maxFinite; ++b) values_.push_back(f.decode(b));
  }

  uint32_t encode(double x) const {
    const uint32_t sign = std::signbit(x) && !(f_.fnuz && roundsToZero(x)) ? signBit(f_) : 0;
    const double ax = std::fabs(x);
    const double maxV = values_.back();
    if (ax >= maxV) {
      if (f_.overflow == Overflow::kSatFinite) return sign | f_.maxFinite;
      // Round with an unbounded exponent: the next value up would be
      // maxV + ulp(maxV), which is the overflow threshold's other side. The
      // max encoding has an all-ones fraction (odd), so a tie goes up to inf.
      const double ulp = maxV - values_[values_.size() - 2];
      const double mid = maxV + ulp / 2;
      return sign | (ax >= mid ? f_.maxFinite + 1 : f_.maxFinite);
    }
    // First value strictly greater than ax.
    const auto it = std::upper_bound(values_.begin(), values_.end(), ax);
    const uint32_t hi = static_cast<uint32_t>(it - values_.begin());
    const uint32_t lo = hi - 1;
    const double mid = (values_[lo] + values_[hi]) / 2;
    if (ax < mid) return sign | lo;
    if (ax > mid) return sign | hi;
    return sign | ((lo & 1) ? hi : lo);
  }

  const std::vector<double> &values() const { return values_; }

 private:
  // Whether |x| rounds to 0 (to even at half the smallest step).
  bool roundsToZero(double x) const { return std::fabs(x) <= values_[1] / 2; }

  const Format &f_;
  std::vector<double> values_;
};

// ---------------------------------------------------------------------------
// Reference 2: float32 -> format by bit manipulation on the float's bits,
// written separately (guard/sticky style, 32-bit only) from the double-based
// implementation.
uint32_t refFromFloatBits(const Format &f, float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t sign = (u >> 31) ? signBit(f) : 0;
  const uint32_t a = u & 0x7FFFFFFFu;
  const uint32_t expAllOnes = ((1u << f.expBits) - 1) << f.manBits;
  if (a > 0x7F800000u) return f.fnuz ? signBit(f) : signBit(f) - 1;  // NaN: all-ones magnitude
  if (a == 0x7F800000u)  // inf: kept where the format rounds to inf, else satfinite
    return sign | (f.overflow == Overflow::kInf ? expAllOnes : f.maxFinite);
  if (a == 0) return f.fnuz ? 0 : sign;
  int e = static_cast<int>(a >> 23);
  uint32_t m = a & 0x7FFFFFu;
  if (e == 0) {
    e = 1;  // float subnormal: same scale as exponent 1, no implicit bit
  } else {
    m |= 0x800000u;
  }
  // Value = m * 2^(e - 150). Target exponent field if normal:
  int te = e - 127 + f.bias;
  int drop = 23 - f.manBits;  // fraction bits to drop for a normal result
  if (te < 1) {
    drop += 1 - te;  // subnormal target: shift further, exponent field 0
    te = 0;
  }
  uint32_t kept, guard, sticky;
  if (drop >= 32) {
    kept = 0;
    guard = 0;
    sticky = m != 0;
  } else {
    kept = m >> drop;
    guard = (m >> (drop - 1)) & 1;
    sticky = (m & ((1u << (drop - 1)) - 1)) != 0;
  }
  if (guard && (sticky || (kept & 1))) ++kept;
  // kept holds the significand with implicit bit (normal) or the fraction
  // (subnormal); recombine with the exponent, letting carries propagate.
  uint32_t mag;
  if (te == 0) {
    mag = kept;
  } else {
    mag = (static_cast<uint32_t>(te) << f.manBits) + kept - (1u << f.manBits);
  }
  if (f.overflow == Overflow::kInf) {
    if (te >= (1 << f.expBits) - 1 || mag >= expAllOnes) mag = expAllOnes;
  } else if (te >= (1 << f.expBits) || mag > f.maxFinite) {
    mag = f.maxFinite;
  }
  return f.fnuz && mag == 0 ? 0 : sign | mag;
}

// The classic bf16 rounding trick, a third, unrelated formulation.
uint16_t refBF16Trick(float x) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  if (std::isnan(x)) return 0x7FFF;
  u += 0x7FFFu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

bool sameEncoding(const Format &f, uint32_t got, uint32_t want) {
  if (f.isNaN(want)) return f.isNaN(got);
  return got == want;
}

// ---------------------------------------------------------------------------
// Decoding and round trips.

TEST(NumericsFormats, EveryPatternDecodesAndReencodesToItself) {
  for (const Format &f : formats()) {
    SCOPED_TRACE(f.name);
    int nans = 0;
    for (uint32_t b = 0; b < (1u << f.bits); ++b) {
      const double v = f.decode(b);
      const uint32_t back = f.encode(v);
      if (f.isNaN(b)) {
        ++nans;
        EXPECT_TRUE(std::isnan(v)) << b;
        EXPECT_TRUE(f.isNaN(back)) << b;
      } else {
        EXPECT_FALSE(std::isnan(v)) << b;
        // satfinite formats clamp their own inf (e5) to the largest finite value
        const bool clampedInf = f.isInf(b) && f.overflow == Overflow::kSatFinite;
        EXPECT_EQ(back, clampedInf ? (b & signBit(f)) | f.maxFinite : b) << b;
        EXPECT_EQ(std::signbit(v), (b & signBit(f)) != 0) << b;
      }
    }
    // f16: 2 * (2^10 - 1); bf16: 2 * (2^7 - 1); e4nv, e4b15: 0x7F, 0xFF; e5:
    // 2 * 3; fnuz: 0x80.
    const int expectNaNs = f.overflow == Overflow::kInf ? 2 * ((1 << f.manBits) - 1)
                           : f.fnuz                     ? 1
                           : f.expBits == 4             ? 2
                                                        : 6;
    EXPECT_EQ(nans, expectNaNs);
  }
}

TEST(NumericsFormats, DecodedValuesAreStrictlyIncreasing) {
  for (const Format &f : formats()) {
    SCOPED_TRACE(f.name);
    Oracle o(f);
    for (size_t i = 1; i < o.values().size(); ++i) EXPECT_LT(o.values()[i - 1], o.values()[i]);
  }
}

TEST(NumericsFormats, KnownValues) {
  EXPECT_EQ(fromF16(0x3C00), 1.0);
  EXPECT_EQ(fromF16(0x7BFF), 65504.0);
  EXPECT_EQ(fromF16(0x0400), std::ldexp(1.0, -14));
  EXPECT_EQ(fromF16(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(fromF16(0xC000), -2.0);
  EXPECT_EQ(fromF16(0x7C00), INFINITY);
  EXPECT_EQ(fromF16(0xFC00), -INFINITY);
  EXPECT_TRUE(std::signbit(fromF16(0x8000)));

  EXPECT_EQ(fromBF16(0x3F80), 1.0);
  EXPECT_EQ(fromBF16(0x7F7F), std::ldexp(255.0, 120));
  EXPECT_EQ(fromBF16(0x0001), std::ldexp(1.0, -133));
  EXPECT_EQ(fromBF16(0xFF80), -INFINITY);

  EXPECT_EQ(fromF8E4NV(0x38), 1.0);
  EXPECT_EQ(fromF8E4NV(0x7E), 448.0);
  EXPECT_EQ(fromF8E4NV(0xFE), -448.0);
  EXPECT_EQ(fromF8E4NV(0x08), std::ldexp(1.0, -6));
  EXPECT_EQ(fromF8E4NV(0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(fromF8E4NV(0x78), 256.0);  // exponent field 15 is normal in E4M3FN
  EXPECT_TRUE(std::isnan(fromF8E4NV(0x7F)));
  EXPECT_TRUE(std::isnan(fromF8E4NV(0xFF)));

  EXPECT_EQ(fromF8E5(0x3C), 1.0);
  EXPECT_EQ(fromF8E5(0x7B), 57344.0);
  EXPECT_EQ(fromF8E5(0x01), std::ldexp(1.0, -16));
  EXPECT_EQ(fromF8E5(0x7C), INFINITY);
  EXPECT_TRUE(std::isnan(fromF8E5(0x7D)));
}

// ---------------------------------------------------------------------------
// Encoding from double: exact oracle.

// Every midpoint between neighbours, and one double ulp either side of it.
// The +-1ulp cases are the ones a detour through float would get wrong
// (float rounds them onto the midpoint, which then ties to even).
TEST(NumericsEncode, AllMidpointsAndTheirNeighbours) {
  for (const Format &f : formats()) {
    SCOPED_TRACE(f.name);
    Oracle o(f);
    const auto &v = o.values();
    for (size_t i = 0; i + 1 < v.size(); ++i) {
      const double mid = (v[i] + v[i + 1]) / 2;
      for (double x : {v[i], mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY)}) {
        for (double s : {x, -x}) {
          ASSERT_EQ(f.encode(s), o.encode(s)) << s;
        }
      }
    }
  }
}

TEST(NumericsEncode, NoDoubleRoundingThroughFloat) {
  // 1 + 2^-11 + 2^-40: float rounds it to 1 + 2^-11, exactly halfway between
  // f16 1.0 and 1 + 2^-10, which would tie down to 1.0. The true value is
  // above the midpoint.
  const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(static_cast<double>(static_cast<float>(x)), 1.0 + std::ldexp(1.0, -11));
  EXPECT_EQ(toF16(x), 0x3C01);
  EXPECT_EQ(toBF16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3F81);
  EXPECT_EQ(toF8E4NV(1.0 + std::ldexp(1.0, -4) + std::ldexp(1.0, -40)), 0x39);
  EXPECT_EQ(toF8E5(1.0 + std::ldexp(1.0, -3) + std::ldexp(1.0, -40)), 0x3D);
  // Just below the f16 subnormal midpoint 2^-25 (float would round it up to
  // the midpoint, then tie to 0).
  EXPECT_EQ(toF16(std::ldexp(1.0, -25) + std::ldexp(1.0, -60)), 0x0001);
  EXPECT_EQ(toF16(std::ldexp(1.0, -25)), 0x0000);
}

TEST(NumericsEncode, RandomDoublesMatchOracle) {
  std::mt19937_64 rng(12345);
  std::vector<Oracle> oracles;
  const auto fs = formats();
  for (const Format &f : fs) oracles.emplace_back(f);
  for (int i = 0; i < 400000; ++i) {
    // Random sign and significand, exponent spread over every format's range
    // plus well past both ends.
    const uint64_t r = rng();
    const int e = static_cast<int>(rng() % 340) - 170;
    const double x =
        std::ldexp(1.0 + static_cast<double>(r >> 12) * 0x1p-52, e) * ((r & 1) ? -1.0 : 1.0);
    for (size_t k = 0; k < fs.size(); ++k) {
      ASSERT_EQ(fs[k].encode(x), oracles[k].encode(x)) << fs[k].name << " " << x;
    }
  }
}

TEST(NumericsEncode, DoubleSubnormalsAndHugeValues) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(toF16(tiny), 0x0000);
  EXPECT_EQ(toF16(-tiny), 0x8000);
  EXPECT_EQ(toBF16(-tiny), 0x8000);
  EXPECT_EQ(toF8E4NV(tiny), 0x00);
  EXPECT_EQ(toF8E5(-tiny), 0x80);
  const double huge = std::numeric_limits<double>::max();
  EXPECT_EQ(toF16(huge), 0x7C00);
  EXPECT_EQ(toBF16(-huge), 0xFF80);
  EXPECT_EQ(toF8E4NV(huge), 0x7E);
  EXPECT_EQ(toF8E5(-huge), 0xFB);
}

TEST(NumericsEncode, OverflowAndSaturation) {
  // f16: 65504 is max; 65520 is the midpoint to 65536 and ties up to inf.
  EXPECT_EQ(toF16(65504.0), 0x7BFF);
  EXPECT_EQ(toF16(std::nextafter(65520.0, 0.0)), 0x7BFF);
  EXPECT_EQ(toF16(65520.0), 0x7C00);
  EXPECT_EQ(toF16(-65520.0), 0xFC00);
  EXPECT_EQ(toF16(INFINITY), 0x7C00);
  EXPECT_EQ(toF16(-INFINITY), 0xFC00);
  // bf16: max (2 - 2^-7) * 2^127; midpoint to 2^128 ties up to inf.
  EXPECT_EQ(toBF16(std::ldexp(255.0, 120)), 0x7F7F);
  EXPECT_EQ(toBF16(std::nextafter(std::ldexp(511.0, 119), 0.0)), 0x7F7F);
  EXPECT_EQ(toBF16(std::ldexp(511.0, 119)), 0x7F80);
  EXPECT_EQ(toBF16(static_cast<double>(std::numeric_limits<float>::max())), 0x7F80);
  // e4nv: satfinite to 448 (0x7E); 0x7F is NaN and must never be produced.
  for (double x : {448.0, 449.0, 464.0, 465.0, 480.0, 1e6, 1e300, double(INFINITY)}) {
    EXPECT_EQ(toF8E4NV(x), 0x7E) << x;
    EXPECT_EQ(toF8E4NV(-x), 0xFE) << x;
  }
  // 432 is halfway between 416 (0x7D, odd) and 448 (0x7E, even).
  EXPECT_EQ(toF8E4NV(432.0), 0x7E);
  EXPECT_EQ(toF8E4NV(431.0), 0x7D);
  // e5: satfinite to 57344 (0x7B), inf too (as the GPU's cvt does).
  for (double x : {57344.0, 61439.0, 61440.0, 65536.0, 1e300, double(INFINITY)}) {
    EXPECT_EQ(toF8E5(x), 0x7B) << x;
    EXPECT_EQ(toF8E5(-x), 0xFB) << x;
  }
}

TEST(NumericsEncode, NaNAndZeros) {
  const double qnan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(fromF16(toF16(qnan))));
  EXPECT_TRUE(std::isnan(fromF16(toF16(-qnan))));
  EXPECT_TRUE(std::isnan(fromBF16(toBF16(qnan))));
  EXPECT_TRUE(std::isnan(fromF8E4NV(toF8E4NV(qnan))));
  EXPECT_TRUE(std::isnan(fromF8E5(toF8E5(qnan))));
  EXPECT_EQ(toF16(0.0), 0x0000);
  EXPECT_EQ(toF16(-0.0), 0x8000);
  EXPECT_EQ(toBF16(-0.0), 0x8000);
  EXPECT_EQ(toF8E4NV(-0.0), 0x80);
  EXPECT_EQ(toF8E5(-0.0), 0x80);
}

TEST(NumericsEncode, SubnormalTargets) {
  // Smallest subnormals and the halfway points around them.
  EXPECT_EQ(toF16(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(toF16(std::ldexp(3.0, -26)), 0x0001);     // 0.75 ulp
  EXPECT_EQ(toF16(std::ldexp(3.0, -25)), 0x0002);     // 1.5 ulp ties to even 2
  EXPECT_EQ(toF16(std::ldexp(5.0, -25)), 0x0002);     // 2.5 ulp ties to even 2
  EXPECT_EQ(toF16(std::ldexp(1023.5, -24)), 0x0400);  // rounds up into normal
  EXPECT_EQ(toF8E4NV(std::ldexp(1.0, -10)), 0x00);    // half of min subnormal
  EXPECT_EQ(toF8E4NV(std::ldexp(3.0, -11)), 0x01);
  EXPECT_EQ(toF8E4NV(std::ldexp(7.5, -9)), 0x08);  // up into the min normal
  EXPECT_EQ(toF8E5(std::ldexp(1.0, -17)), 0x00);
  EXPECT_EQ(toF8E5(std::ldexp(3.0, -18)), 0x01);
  EXPECT_EQ(toBF16(std::ldexp(1.0, -134)), 0x0000);
  EXPECT_EQ(toBF16(std::ldexp(3.0, -135)), 0x0001);
}

// ---------------------------------------------------------------------------
// Encoding from float: independent bit-manipulation reference.

void checkFloat(const std::vector<Format> &fs, float x) {
  for (const Format &f : fs) {
    const uint32_t got = f.encode(static_cast<double>(x));
    const uint32_t want = refFromFloatBits(f, x);
    ASSERT_TRUE(sameEncoding(f, got, want))
        << f.name << " x=" << x << " bits=" << std::hex << std::bit_cast<uint32_t>(x)
        << " got=" << got << " want=" << want;
  }
  const uint16_t trick = refBF16Trick(x);
  if (!std::isnan(x)) {
    ASSERT_EQ(toBF16(x), trick) << x;
  }
}

TEST(NumericsFloatPath, StructuredSweep) {
  // Every sign/exponent/top-11-fraction-bit prefix (2^21 of them) with low
  // bits chosen to hit exact ties and both sides of them for every format
  // (the round bits of all four formats lie inside the prefix).
  const auto fs = formats();
  const uint32_t lows[] = {0x000, 0x001, 0x7FF, 0x800, 0x801, 0xFFF};
  for (uint32_t prefix = 0; prefix < (1u << 21); ++prefix) {
    for (uint32_t low : lows) checkFloat(fs, std::bit_cast<float>((prefix << 11) | low));
  }
}

TEST(NumericsFloatPath, RandomFloats) {
  const auto fs = formats();
  std::mt19937 rng(777);
  for (int i = 0; i < 2000000; ++i)
    checkFloat(fs, std::bit_cast<float>(static_cast<uint32_t>(rng())));
}

TEST(NumericsFloatPath, StridedFloatsNearFp8Range) {
  // Every 37th float with |x| in [2^-20, 2^17) (about 8 million): dense over
  // all fp8 subnormals, normals and the saturation boundaries; exact ties come
  // from StructuredSweep.
  const auto fs = formats();
  const uint32_t lo = std::bit_cast<uint32_t>(0x1p-20f);
  const uint32_t hi = std::bit_cast<uint32_t>(0x1p17f);
  for (uint32_t u = lo; u < hi; u += 37) {
    const float x = std::bit_cast<float>(u);
    for (const Format &f : fs) {
      if (f.bits != 8) continue;
      ASSERT_EQ(f.encode(x), refFromFloatBits(f, x)) << f.name << " " << x;
      ASSERT_EQ(f.encode(-x), refFromFloatBits(f, -x)) << f.name << " " << -x;
    }
  }
}

TEST(NumericsFloatPath, FloatAndWidePathsAgree) {
  // toF16 (toBF16) takes floatToF16's (floatToBF16's) bit operations for
  // values a float holds and wideToF16's (wideToBF16's) general rounding for
  // the rest: every 251st float pattern
  // (NaNs, infinities, subnormals, ties and the overflow boundary among
  // them; all 2^32 agreed, for both formats, when the float paths were
  // written).
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 251) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(u));
    ASSERT_EQ(floatToF16(x), wideToF16(static_cast<double>(x))) << std::hex << u;
    ASSERT_EQ(floatToBF16(x), wideToBF16(static_cast<double>(x))) << std::hex << u;
  }
  for (float x : {65504.0f, 65519.99f, 65520.0f, 0x1p-25f, 0x1.000002p-25f, 0x1p-24f, 0x1.8p-24f,
                  0x1p-14f, 0x1.ffcp-15f, INFINITY, -0.0f, 0x1.fffffep127f, 0x1p-149f})
    ASSERT_EQ(floatToF16(x), wideToF16(static_cast<double>(x))) << x;
  for (float x : {0x1.fffffep127f, 0x1.ff8p127f, 0x1.ff7fffep127f, 0x1p-149f, 0x1.008p0f})
    ASSERT_EQ(floatToBF16(x), wideToBF16(static_cast<double>(x))) << x;
}

// ---------------------------------------------------------------------------
// TF32.

float bitsF(uint32_t u) {
  return std::bit_cast<float>(u);
}
uint32_t fBits(float x) {
  return std::bit_cast<uint32_t>(x);
}

TEST(NumericsTF32, RoundingModes) {
  const float tie = 1.0f + 0x1p-11f;              // halfway between 1 and 1 + 2^-10
  EXPECT_EQ(toTF32(tie, true), 1.0f + 0x1p-10f);  // ties away (not to even)
  EXPECT_EQ(toTF32(tie, false), 1.0f);
  EXPECT_EQ(toTF32(-tie, true), -(1.0f + 0x1p-10f));
  EXPECT_EQ(toTF32(-tie, false), -1.0f);
  EXPECT_EQ(toTF32(1.0f + 0x1p-12f, true), 1.0f);
  EXPECT_EQ(toTF32(1.0f + 0x1p-11f + 0x1p-23f, false), 1.0f);
  EXPECT_EQ(toTF32(1.0f + 0x1p-10f, true), 1.0f + 0x1p-10f);
  // Carry into the exponent.
  EXPECT_EQ(toTF32(bitsF(0x3FFFF000u), true), 2.0f);
  EXPECT_EQ(fBits(toTF32(bitsF(0x3FFFF000u), false)), 0x3FFFE000u);
  // Largest float rounds up to inf under rna; truncation keeps it finite.
  const float fmax = std::numeric_limits<float>::max();
  EXPECT_EQ(toTF32(fmax, true), INFINITY);
  EXPECT_EQ(fBits(toTF32(fmax, false)), 0x7F7FE000u);
  // Specials.
  EXPECT_EQ(toTF32(INFINITY, true), INFINITY);
  EXPECT_EQ(toTF32(-INFINITY, false), -INFINITY);
  EXPECT_TRUE(std::isnan(toTF32(bitsF(0x7F800001u), false)));  // low-bit payload
  EXPECT_TRUE(std::isnan(toTF32(bitsF(0xFF800001u), true)));
  EXPECT_TRUE(std::isnan(toTF32(std::numeric_limits<float>::quiet_NaN(), true)));
  // Subnormals.
  EXPECT_EQ(fBits(toTF32(bitsF(0x00001FFFu), false)), 0u);
  EXPECT_EQ(fBits(toTF32(bitsF(0x00001FFFu), true)), 0x2000u);
  EXPECT_EQ(fBits(toTF32(bitsF(0x00000FFFu), true)), 0u);
  EXPECT_EQ(fBits(toTF32(-0.0f, true)), 0x80000000u);
}

TEST(NumericsTF32, RandomPropertiesAgainstDoubleArithmetic) {
  std::mt19937 rng(99);
  for (int i = 0; i < 1000000; ++i) {
    const float x = bitsF(static_cast<uint32_t>(rng()));
    if (!std::isfinite(x)) continue;
    const float t = toTF32(x, false);
    const float n = toTF32(x, true);
    ASSERT_EQ(fBits(t) & 0x1FFFu, 0u);
    ASSERT_EQ(fBits(n) & 0x1FFFu, 0u);
    // Truncation is toward zero by less than one tf32 ulp.
    ASSERT_LE(std::fabs(static_cast<double>(t)), std::fabs(static_cast<double>(x)));
    const double ulp = static_cast<double>(bitsF((fBits(std::fabs(t)) & 0x7F800000u) + 0x2000u)) -
                       static_cast<double>(bitsF(fBits(std::fabs(t)) & 0x7F800000u));
    ASSERT_LT(std::fabs(static_cast<double>(x) - t), ulp);
    // rna: nearest of the two tf32 neighbours, ties away from zero.
    if (!std::isfinite(n)) continue;
    const double up = std::fabs(static_cast<double>(t)) + ulp;
    const double dx = std::fabs(static_cast<double>(x));
    const double want = (dx - std::fabs(static_cast<double>(t)) >= up - dx)
                            ? up
                            : std::fabs(static_cast<double>(t));
    ASSERT_EQ(std::fabs(static_cast<double>(n)), want) << x;
  }
}

// ---------------------------------------------------------------------------
// Philox: Random123 tests/kat_vectors (counter[4], key[2] -> output[4]).

struct Kat32 {
  int rounds;
  uint32_t ctr[4];
  uint32_t key[2];
  uint32_t out[4];
};

TEST(NumericsPhilox, Random123Kat4x32) {
  const Kat32 kats[] = {
      {10, {0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {10,
       {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {10,
       {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
      // 7-round vectors check that `rounds` is honoured.
      {7,
       {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
      {7,
       {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
  };
  for (const Kat32 &k : kats) {
    uint32_t c[4] = {k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]};
    philox4x32(c, k.key[0], k.key[1], k.rounds);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(c[i], k.out[i]) << "word " << i;
  }
}

struct Kat64 {
  int rounds;
  uint64_t ctr[4];
  uint64_t key[2];
  uint64_t out[4];
};

TEST(NumericsPhilox, Random123Kat4x64) {
  const uint64_t ones = ~uint64_t{0};
  const Kat64 kats[] = {
      {10,
       {0, 0, 0, 0},
       {0, 0},
       {0x16554d9eca36314cull, 0xdb20fe9d672d0fdcull, 0xd7e772cee186176bull,
        0x7e68b68aec7ba23bull}},
      {10,
       {ones, ones, ones, ones},
       {ones, ones},
       {0x87b092c3013fe90bull, 0x438c3c67be8d0224ull, 0x9cc7d7c69cd777b6ull,
        0xa09caebf594f0ba0ull}},
      {10,
       {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull},
       {0x452821e638d01377ull, 0xbe5466cf34e90c6cull},
       {0xa528f45403e61d95ull, 0x38c72dbd566e9788ull, 0xa5a1610e72fd18b5ull,
        0x57bd43b5e52b7fe6ull}},
      {7,
       {0, 0, 0, 0},
       {0, 0},
       {0x5dc8ee6268ec62cdull, 0x139bc570b6c125a0ull, 0x84d6deb4fb65f49eull,
        0xaff7583376d378c2ull}},
  };
  for (const Kat64 &k : kats) {
    uint64_t c[4] = {k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]};
    philox4x64(c, k.key[0], k.key[1], k.rounds);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(c[i], k.out[i]) << "word " << i;
  }
}

TEST(NumericsPhilox, RandintBuildsCounterAndKeyLikeTriton) {
  // Counter (offset_lo, offset_hi, 0, 0); key (seed_lo, seed_hi).
  const uint64_t seed = 0x0123456789ABCDEFull;
  uint32_t got[4];
  randint4x(seed, 42u, 7u, got);
  uint32_t want[4] = {42u, 7u, 0, 0};
  philox4x32(want, 0x89ABCDEFu, 0x01234567u, 10);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], want[i]);
  // The round count is forwarded.
  randint4x(seed, 42u, 7u, got, 7);
  uint32_t want7[4] = {42u, 7u, 0, 0};
  philox4x32(want7, 0x89ABCDEFu, 0x01234567u, 7);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], want7[i]);
  // tl.philox with 64-bit counters: Philox4x64 with key (seed, 0).
  uint64_t c64[4] = {1, 2, 3, 4};
  tritonPhilox64(seed, c64);
  uint64_t want64[4] = {1, 2, 3, 4};
  philox4x64(want64, seed, 0, 10);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(c64[i], want64[i]);
}

// Known answers recorded from Triton 3.9's own random.py run by its CPU
// interpreter (TRITON_INTERPRET=1), with device_print of the results (floats
// printed through a uint32 bitcast so they are exact).
struct TritonCase {
  uint64_t seed64;              // the seed after Triton's cast to uint64
  uint32_t r0I32[4], r1I32[4];  // randint4x words 0 and 1, int32 offsets 0..3
  uint32_t randBits[4];         // tl.rand, int32 offsets 0..3
  uint32_t randnBits[4];        // tl.randn, int32 offsets 0..3
  int64_t off64Base;            // int64 offsets off64Base + 0..3
  uint32_t r0I64[4], r3I64[4], rand64Bits[4];
  uint32_t r0I16[4];          // randint, int16 offsets -2, -1, 0, 1
  uint64_t philox64[4];       // tl.philox word 0, uint64 counters (7..10, 0, 0, 0)
  uint32_t uniform64Bits[4];  // uint_to_uniform_float of those
};

const TritonCase kTritonCases[] = {
    {0x0123456789ABCDEFull,
     {3092259374u, 2915701862u, 4157483423u, 2888857840u},
     {3314331723u, 1379798405u, 2185022272u, 2143193250u},
     {1057972155u, 1059351510u, 1032002917u, 1059561229u},
     {3213147807u, 3205929197u, 1075127875u, 1064014748u},
     (int64_t{1} << 40) - 2,
     {2582269468u, 1071615932u, 1024019184u, 1590438526u},
     {1646957634u, 4082669174u, 565791388u, 1442521036u},
     {1061956451u, 1056931390u, 1056187691u, 1061001300u},
     {4105383707u, 120849060u, 3092259374u, 2915701862u},
     {9679307290301920270ull, 16317734955981737267ull, 2882803161236429596ull,
      562278044809053483ull},
     {1064523873u, 1047289362u, 1050674968u, 1031386011u}},
    // Python int seed -1 is an int32 argument, sign-extended to all ones.
    {~uint64_t{0},
     {1923381001u, 436131089u, 392319618u, 2391789588u},
     {356992825u, 1265098804u, 1866302998u, 2924605043u},
     {1063602413u, 1045427880u, 1044058771u, 1063444575u},
     {1047625864u, 3217139703u, 1067486565u, 3198331811u},
     -2,
     {3282148464u, 1293473746u, 1923381001u, 436131089u},
     {2581218990u, 184213773u, 578394714u, 2682804148u},
     {1056012685u, 1058681263u, 1063602413u, 1045427880u},
     {1145509578u, 3260445406u, 1923381001u, 436131089u},
     {13460784892878252590ull, 12664908465135092885ull, 17509521831975063549ull,
      10925945655839957010ull},
     {1057645406u, 1059093097u, 1037048553u, 1062256251u}},
};

TEST(NumericsPhilox, MatchesTritonInterpreter) {
  for (const TritonCase &t : kTritonCases) {
    for (int o = 0; o < 4; ++o) {
      SCOPED_TRACE(o);
      uint32_t r[4];
      // int32 offset o: lo = o, hi = 0.
      randint4x(t.seed64, static_cast<uint32_t>(o), 0, r);
      EXPECT_EQ(r[0], t.r0I32[o]);
      EXPECT_EQ(r[1], t.r1I32[o]);
      EXPECT_EQ(fBits(uint32ToUniformFloat(r[0])), t.randBits[o]);
      float n1, n2;
      pairUniformToNormal(uint32ToUniformFloat(r[0]), uint32ToUniformFloat(r[1]), &n1, &n2);
      // log/cos differ by an ulp or so between math libraries.
      EXPECT_NEAR(n1, bitsF(t.randnBits[o]), 1e-5f * std::fabs(n1) + 1e-6f);
      // int64 offset: lo = low 32 bits, hi = bits 32..63.
      const uint64_t off = static_cast<uint64_t>(t.off64Base + o);
      randint4x(t.seed64, static_cast<uint32_t>(off), static_cast<uint32_t>(off >> 32), r);
      EXPECT_EQ(r[0], t.r0I64[o]);
      EXPECT_EQ(r[3], t.r3I64[o]);
      EXPECT_EQ(fBits(uint32ToUniformFloat(r[0])), t.rand64Bits[o]);
      // int16 offset o - 2: sign-extended into lo, hi = 0.
      randint4x(t.seed64, static_cast<uint32_t>(static_cast<int32_t>(o - 2)), 0, r);
      EXPECT_EQ(r[0], t.r0I16[o]);
      // tl.philox on uint64 counters.
      uint64_t c[4] = {static_cast<uint64_t>(o) + 7, 0, 0, 0};
      tritonPhilox64(t.seed64, c);
      EXPECT_EQ(c[0], t.philox64[o]);
      EXPECT_EQ(fBits(uint64ToUniformFloat(c[0])), t.uniform64Bits[o]);
    }
  }
}

// ---------------------------------------------------------------------------
// uint -> uniform float.

TEST(NumericsUniform, ScaleConstantsAndEndpoints) {
  // The scales, as Triton materialises them in fp32.
  EXPECT_EQ(fBits(static_cast<float>(4.6566127342e-10)), 0x2FFFFFFFu);
  EXPECT_EQ(fBits(static_cast<float>(1.0842020432385337e-19)), 0x1FFFFFFEu);
  EXPECT_EQ(uint32ToUniformFloat(0u), 0.0f);
  EXPECT_EQ(uint32ToUniformFloat(0xFFFFFFFFu), 0.0f);  // -1 folds to 0
  EXPECT_EQ(uint32ToUniformFloat(0x7FFFFFFFu), 1.0f - 0x1p-24f);
  EXPECT_EQ(uint32ToUniformFloat(0x80000000u), 1.0f - 0x1p-24f);  // INT_MIN folds to INT_MAX
  EXPECT_EQ(uint32ToUniformFloat(1u), 0x1p-31f * (1.0f - 0x1p-24f));
  EXPECT_EQ(uint64ToUniformFloat(0u), 0.0f);
  EXPECT_EQ(uint64ToUniformFloat(~uint64_t{0}), 0.0f);
  EXPECT_EQ(uint64ToUniformFloat(0x7FFFFFFFFFFFFFFFull), 1.0f - 0x1p-23f);
  EXPECT_EQ(uint64ToUniformFloat(0x8000000000000000ull), 1.0f - 0x1p-23f);
}

TEST(NumericsUniform, RangeAndSymmetry) {
  // Strided sweep of all 32-bit inputs: always in [0, 1), and x and ~x map to
  // the same value (Triton folds negatives with ~x).
  float prev = -1.0f;
  for (uint64_t v = 0; v <= 0x7FFFFFFFull; v += 997) {
    const uint32_t x = static_cast<uint32_t>(v);
    const float u = uint32ToUniformFloat(x);
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    ASSERT_GE(u, prev);  // monotone on the non-negative half
    prev = u;
    ASSERT_EQ(u, uint32ToUniformFloat(~x));
    // One fp32 product of two exact floats, rounded once.
    const double exact = static_cast<double>(static_cast<float>(static_cast<int32_t>(x))) *
                         static_cast<double>(0x1p-31f * (1.0f - 0x1p-24f));
    ASSERT_EQ(u, static_cast<float>(exact));
  }
  std::mt19937_64 rng(5);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const float u = uint64ToUniformFloat(rng());
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    sum += u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.01);
}

TEST(NumericsUniform, BoxMuller) {
  float n1, n2;
  // u1 = 0 is clamped to 1e-7: r = sqrt(-2 ln 1e-7) ~= 5.678.
  pairUniformToNormal(0.0f, 0.0f, &n1, &n2);
  EXPECT_NEAR(n1, 5.6777, 1e-3);
  EXPECT_EQ(n2, 0.0f);
  // u1 = e^-1/2 gives r = 1; th = pi/2.
  pairUniformToNormal(std::exp(-0.5f), 0.25f, &n1, &n2);
  EXPECT_NEAR(n1, 0.0, 1e-6);
  EXPECT_NEAR(n2, 1.0, 1e-6);
  // Rough moments over the rand pipeline.
  double s = 0, s2 = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    uint32_t r[4];
    randint4x(1234, static_cast<uint32_t>(i), 0, r);
    pairUniformToNormal(uint32ToUniformFloat(r[0]), uint32ToUniformFloat(r[1]), &n1, &n2);
    s += n1;
    s2 += double(n1) * n1;
  }
  EXPECT_NEAR(s / n, 0.0, 0.02);
  EXPECT_NEAR(s2 / n, 1.0, 0.03);
}

}  // namespace
}  // namespace tessera::num
