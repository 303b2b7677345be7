// The software fp8 conversions that the PTX emitter writes for sm_80
// (emit_fp8.cpp), replayed instruction by instruction in C++ with the same
// constants, against the exact reference conversions of support/numerics
// (round to nearest even once from the exact value) and the satfinite policy
// of the PTX ISA (NaN -> NaN, |x| > MAX_NORM including inf -> +-MAX_NORM).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "codegen/ptx/fp8_format.h"
#include "support/numerics.h"

namespace {

using tessera::DType;
using tessera::ptx::Fp8Format;
namespace num = tessera::num;
namespace ptx = tessera::ptx;

// Fp8Format::... constants against the formats' definitions.
TEST(Fp8Soft, Constants) {
  EXPECT_EQ(ptx::kF8E4NV.maxCode(), 0x7Eu);
  EXPECT_EQ(ptx::kF8E5.maxCode(), 0x7Bu);
  EXPECT_EQ(ptx::kF8E4NV.lastNonNaN(), 0x7Eu);
  EXPECT_EQ(ptx::kF8E5.lastNonNaN(), 0x7Cu);
  EXPECT_EQ(std::bit_cast<float>(ptx::kF8E4NV.minNormalF32Bits()), std::ldexp(1.0f, -6));
  EXPECT_EQ(std::bit_cast<float>(ptx::kF8E5.minNormalF32Bits()), std::ldexp(1.0f, -14));
  EXPECT_EQ(num::fromF8E4NV(0x7E), 448.0);
  EXPECT_EQ(num::fromF8E5(0x7B), 57344.0);
}

// fp8ToF16Soft, one line per instruction.
uint16_t decode(uint16_t r, const Fp8Format &fmt) {
  uint16_t m = r & 0x7F;
  uint16_t h = static_cast<uint16_t>(m << (10 - fmt.manBits));
  if (fmt.bias != 15)  // mul.rn.f16 by 2^(15 - bias)
    h = num::toF16(num::fromF16(h) * std::ldexp(1.0, 15 - fmt.bias));
  uint16_t s = r & 0x80;
  s = static_cast<uint16_t>(s << 8);
  h |= s;
  return m > fmt.lastNonNaN() ? ptx::kF16NaN : h;
}

// f32 addition toward zero (add.rz.f32): the exact sum in double, cut.
float addTowardZero(float a, float b) {
  double exact = static_cast<double>(a) + b;
  float r = static_cast<float>(exact);
  return std::fabs(static_cast<double>(r)) > std::fabs(exact) ? std::nextafter(r, 0.0f) : r;
}

// f32ToFp8Soft, one line per instruction.
uint8_t encode(float f, const Fp8Format &fmt, bool rtz = false) {
  const int d = 23 - fmt.manBits;
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t a = x & 0x7FFFFFFFu;
  uint32_t t = a >> d;
  if (!rtz) {
    t &= 1;
    t += (1u << (d - 1)) - 1;
    t = a + t;
    t >>= d;
  }
  uint32_t normal = t - fmt.rebias();
  float ax = std::fabs(f);
  const float magic = std::bit_cast<float>(fmt.subnormalMagicF32Bits());
  float y = rtz ? addTowardZero(ax, magic) : ax + magic;  // add.rz.f32 / add.rn.f32
  uint32_t sub = std::bit_cast<uint32_t>(y) - fmt.subnormalMagicF32Bits();
  uint32_t code = a < fmt.minNormalF32Bits() ? sub : normal;
  code = std::min(code, fmt.maxCode());
  uint32_t s = (x >> 24) & 0x80;
  code |= s;
  code = a > 0x7F800000u ? ptx::kFp8NaN : code;
  return static_cast<uint8_t>(code);
}

// The reference: numerics' exact rounding, with satfinite taking inf to the
// largest finite value (numerics keeps E5M2's inf, which the GPU's satfinite
// does not).
uint8_t reference(float f, DType d) {
  if (std::isinf(f)) return (f < 0 ? 0x80 : 0) | ptx::fp8Format(d).maxCode();
  return d == DType::F8E4NV    ? num::toF8E4NV(f)
         : d == DType::F8E4B15 ? num::toF8E4B15(f)
                               : num::toF8E5(f);
}

double valueOf(uint8_t b, DType d) {
  return d == DType::F8E4NV    ? num::fromF8E4NV(b)
         : d == DType::F8E4B15 ? num::fromF8E4B15(b)
                               : num::fromF8E5(b);
}

// Toward zero: the nearest encoding, one code toward zero where it lies
// beyond the value (the interpreter's rule); satfinite as before.
uint8_t referenceTowardZero(float f, DType d) {
  uint8_t c = reference(f, d);
  if (!std::isnan(f) && !std::isinf(f) && std::fabs(valueOf(c, d)) > std::fabs(f)) --c;
  return c;
}

class Fp8SoftFormat : public testing::TestWithParam<DType> {};

TEST_P(Fp8SoftFormat, DecodesEveryCodeExactly) {
  const DType d = GetParam();
  const Fp8Format &fmt = ptx::fp8Format(d);
  for (uint32_t b = 0; b < 256; ++b) {
    double v = valueOf(static_cast<uint8_t>(b), d);
    // High byte set: only the low byte is the value.
    uint16_t h = decode(static_cast<uint16_t>(0xA500 | b), fmt);
    if (std::isnan(v)) {
      EXPECT_EQ(h, ptx::kF16NaN) << b;
    } else {
      EXPECT_EQ(h, num::toF16(v)) << b;
      EXPECT_EQ(num::fromF16(h), v) << b;  // exact, signed zero included
      EXPECT_EQ(std::signbit(num::fromF16(h)), std::signbit(v)) << b;
    }
  }
}

TEST_P(Fp8SoftFormat, EncodesLikeOneRoundingWithSatfinite) {
  const DType d = GetParam();
  const Fp8Format &fmt = ptx::fp8Format(d);
  // Every sign, exponent and top 11 fraction bits, with low bits that make
  // exact values, ties (both fp8 formats drop 20 or 21 bits, so ties and
  // their neighbours fall among these) and sticky bits.
  const uint32_t lows[] = {0x000, 0x001, 0x7FF, 0x800, 0x801, 0xFFF};
  int bad = 0;
  for (uint32_t hi = 0; hi < (1u << 20) && bad < 10; ++hi) {
    for (uint32_t lo : lows) {
      float f = std::bit_cast<float>(hi << 12 | lo);
      uint8_t got = encode(f, fmt);
      uint8_t want = std::isnan(f) ? ptx::kFp8NaN : reference(f, d);
      if (got != want) {
        ADD_FAILURE() << std::hex << "f32 0x" << (hi << 12 | lo) << ": 0x" << int{got}
                      << ", want 0x" << int{want};
        ++bad;
      }
    }
  }
}

TEST_P(Fp8SoftFormat, EncodesTowardZeroAsTheInterpreter) {
  const DType d = GetParam();
  const Fp8Format &fmt = ptx::fp8Format(d);
  const uint32_t lows[] = {0x000, 0x001, 0x7FF, 0x800, 0x801, 0xFFF};
  int bad = 0;
  for (uint32_t hi = 0; hi < (1u << 20) && bad < 10; ++hi) {
    for (uint32_t lo : lows) {
      float f = std::bit_cast<float>(hi << 12 | lo);
      uint8_t got = encode(f, fmt, true);
      uint8_t want = std::isnan(f) ? ptx::kFp8NaN : referenceTowardZero(f, d);
      if (got != want) {
        ADD_FAILURE() << std::hex << "f32 0x" << (hi << 12 | lo) << ": 0x" << int{got}
                      << ", want 0x" << int{want};
        ++bad;
      }
    }
  }
}

TEST_P(Fp8SoftFormat, SpecialValues) {
  const DType d = GetParam();
  const Fp8Format &fmt = ptx::fp8Format(d);
  const uint8_t max = static_cast<uint8_t>(fmt.maxCode());
  EXPECT_EQ(encode(INFINITY, fmt), max);
  EXPECT_EQ(encode(-INFINITY, fmt), 0x80 | max);
  EXPECT_EQ(encode(1e30f, fmt), max);
  EXPECT_EQ(encode(-1e30f, fmt), 0x80 | max);
  EXPECT_EQ(encode(NAN, fmt), ptx::kFp8NaN);
  EXPECT_EQ(encode(-NAN, fmt), ptx::kFp8NaN);
  EXPECT_EQ(encode(0.0f, fmt), 0x00);
  EXPECT_EQ(encode(-0.0f, fmt), 0x80);
  EXPECT_EQ(encode(-1e-30f, fmt), 0x80);  // underflow keeps the sign
  EXPECT_EQ(encode(std::ldexp(1.0f, -149), fmt), 0x00);
  // Half the smallest subnormal ties to even (0); a bit more rounds up.
  const int minSubExp = 1 - fmt.bias - fmt.manBits;
  EXPECT_EQ(encode(std::ldexp(1.0f, minSubExp - 1), fmt), 0x00);
  EXPECT_EQ(encode(std::ldexp(1.0f + 0x1p-23f, minSubExp - 1), fmt), 0x01);
  EXPECT_EQ(encode(std::ldexp(3.0f, minSubExp - 1), fmt), 0x02);  // 1.5 steps: to even
  // Just below the smallest normal rounds up into it.
  const uint32_t minNormal = 1u << fmt.manBits;
  EXPECT_EQ(encode(std::nextafter(std::bit_cast<float>(fmt.minNormalF32Bits()), 0.0f), fmt),
            minNormal);
}

INSTANTIATE_TEST_SUITE_P(Formats, Fp8SoftFormat,
                         testing::Values(DType::F8E4NV, DType::F8E5, DType::F8E4B15),
                         [](const testing::TestParamInfo<DType> &i) {
                           return i.param == DType::F8E4NV    ? "E4NV"
                                  : i.param == DType::F8E4B15 ? "E4B15"
                                                              : "E5";
                         });

}  // namespace
