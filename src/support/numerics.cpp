#include "support/numerics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace tessera::num {
namespace {

// Rounds a finite, positive, nonzero double to a binary format with `manBits`
// fraction bits and exponent bias `bias`, to nearest even, in one step from
// the double's exact value (rounding through float first would round twice and
// get ties wrong). The exponent range is unbounded above, so the caller sees
// overflow as an encoding at or past the format's top and decides between inf
// and saturation. Returns the magnitude encoding (exponent field << manBits |
// fraction); a subnormal that rounds up to 2^manBits naturally becomes the
// smallest normal, and a significand that rounds up to 2^(manBits+1) carries
// into the exponent field, because the encoding is formed by addition.
int64_t roundMagnitude(double ax, int manBits, int bias) {
  const uint64_t bits = std::bit_cast<uint64_t>(ax);
  const int biasedExp = static_cast<int>(bits >> 52);  // sign is 0
  uint64_t sig = bits & ((uint64_t{1} << 52) - 1);
  int sigExp;  // ax == sig * 2^sigExp exactly
  if (biasedExp == 0) {
    sigExp = -1074;
  } else {
    sig |= uint64_t{1} << 52;
    sigExp = biasedExp - 1075;
  }
  const int log2Floor = 63 - std::countl_zero(sig) + sigExp;
  const int minNormalExp = 1 - bias;
  const bool subnormal = log2Floor < minNormalExp;
  // Exponent of the target's unit in the last place for this value.
  const int ulpExp = (subnormal ? minNormalExp : log2Floor) - manBits;
  const int shift = ulpExp - sigExp;
  uint64_t n;
  if (shift <= 0) {
    // Value is coarser than the target ulp: exact (and < 2^(manBits+1)).
    n = sig << -shift;
  } else if (shift >= 64) {
    n = 0;  // sig < 2^53 is below half an ulp: rounds to zero
  } else {
    n = sig >> shift;
    const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (n & 1))) ++n;
  }
  if (subnormal) return static_cast<int64_t>(n);
  // n is in [2^manBits, 2^(manBits+1)]; adding it to (exp - 1) << manBits puts
  // its implicit bit into the exponent field.
  return (static_cast<int64_t>(log2Floor + bias - 1) << manBits) + static_cast<int64_t>(n);
}

// 2^k as a double, for k a normal double's exponent (-1022..1023): the
// formats here need -150..128. Multiplying by it is exact, as ldexp is, and
// several times faster (the interpreter decodes every fp8 element it loads
// through decodeFinite).
double pow2(int k) {
  return std::bit_cast<double>(static_cast<uint64_t>(k + 1023) << 52);
}

// Decodes a sign/exponent/fraction pattern with no special encodings (the
// callers handle inf/NaN first).
double decodeFinite(uint32_t bits, int expBits, int manBits, int bias) {
  const bool neg = (bits >> (expBits + manBits)) & 1;
  const int e = static_cast<int>((bits >> manBits) & ((1u << expBits) - 1));
  const uint32_t frac = bits & ((1u << manBits) - 1);
  double mag;
  if (e == 0) {
    mag = static_cast<double>(frac) * pow2(1 - bias - manBits);
  } else {
    mag = static_cast<double>(frac | (1u << manBits)) * pow2(e - bias - manBits);
  }
  return neg ? -mag : mag;
}

struct Split {
  bool neg;
  double mag;
};
Split split(double x) {
  return {std::signbit(x), std::fabs(x)};
}

uint64_t mulHi64(uint64_t a, uint64_t b) {
  // Schoolbook 32x32 partial products: portable, no __int128 (which is an
  // extension under -std=c++20).
  const uint64_t aLo = a & 0xFFFFFFFFu, aHi = a >> 32;
  const uint64_t bLo = b & 0xFFFFFFFFu, bHi = b >> 32;
  const uint64_t ll = aLo * bLo, lh = aLo * bHi, hl = aHi * bLo, hh = aHi * bHi;
  const uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

}  // namespace

// NaN results use NVIDIA's canonical NaN patterns (what cvt produces), so
// folded constants match what the GPU would store.
uint16_t wideToF16(double x) {
  if (std::isnan(x)) return 0x7FFF;
  const auto [neg, mag] = split(x);
  const uint16_t sign = neg ? 0x8000 : 0;
  if (mag == 0) return sign;
  if (std::isinf(mag)) return sign | 0x7C00;
  const int64_t m = roundMagnitude(mag, 10, 15);
  return sign | static_cast<uint16_t>(m >= 0x7C00 ? 0x7C00 : m);
}

uint16_t wideToBF16(double x) {
  if (std::isnan(x)) return 0x7FFF;
  const auto [neg, mag] = split(x);
  const uint16_t sign = neg ? 0x8000 : 0;
  if (mag == 0) return sign;
  if (std::isinf(mag)) return sign | 0x7F80;
  const int64_t m = roundMagnitude(mag, 7, 127);
  return sign | static_cast<uint16_t>(m >= 0x7F80 ? 0x7F80 : m);
}

namespace {

// E4M3FN's layout (no infinities, 0x7F/0xFF NaN) with exponent bias `bias`.
// satfinite: anything past the largest finite value (0x7E, including inf,
// which the layout cannot encode) clamps to it; rounding first matters only
// below the clamp.
uint8_t toE4M3Layout(double x, int bias) {
  if (std::isnan(x)) return 0x7F;
  const auto [neg, mag] = split(x);
  const uint8_t sign = neg ? 0x80 : 0;
  if (mag == 0) return sign;
  if (std::isinf(mag)) return sign | 0x7E;
  const int64_t m = roundMagnitude(mag, 3, bias);
  return sign | static_cast<uint8_t>(m > 0x7E ? 0x7E : m);
}

double fromE4M3Layout(uint8_t bits, int bias) {
  if ((bits & 0x7F) == 0x7F) return std::nan("");
  return decodeFinite(bits, 4, 3, bias);
}

}  // namespace

uint8_t toF8E4NV(double x) {
  return toE4M3Layout(x, 7);
}
double fromF8E4NV(uint8_t bits) {
  return fromE4M3Layout(bits, 7);
}

uint8_t toF8E5(double x) {
  if (std::isnan(x)) return 0x7F;
  const auto [neg, mag] = split(x);
  const uint8_t sign = neg ? 0x80 : 0;
  if (mag == 0) return sign;
  // satfinite, as cvt.rn.satfinite on the GPU: inf clamps to 57344 like any
  // finite value past it, although E5M2 can encode inf.
  if (std::isinf(mag)) return sign | 0x7B;
  const int64_t m = roundMagnitude(mag, 2, 15);
  return sign | static_cast<uint8_t>(m > 0x7B ? 0x7B : m);
}

double fromF8E5(uint8_t bits) {
  if ((bits & 0x7C) == 0x7C) {
    if (bits & 0x03) return std::nan("");
    return (bits & 0x80) ? -INFINITY : INFINITY;
  }
  return decodeFinite(bits, 5, 2, 15);
}

uint8_t toF8E4B15(double x) {
  return toE4M3Layout(x, 15);
}
double fromF8E4B15(uint8_t bits) {
  return fromE4M3Layout(bits, 15);
}

namespace {

// An fnuz format: every code but 0x80 finite, the largest magnitude 0x7F.
uint8_t toFnuz(double x, int manBits, int bias) {
  if (std::isnan(x)) return 0x80;
  const auto [neg, mag] = split(x);
  if (mag == 0) return 0;
  const int64_t m =
      std::isinf(mag) ? 0x7F : std::min<int64_t>(roundMagnitude(mag, manBits, bias), 0x7F);
  if (m == 0) return 0;  // underflow: +0 whatever the sign
  return static_cast<uint8_t>((neg ? 0x80 : 0) | m);
}

double fromFnuz(uint8_t bits, int expBits, int manBits, int bias) {
  if (bits == 0x80) return std::nan("");
  return decodeFinite(bits, expBits, manBits, bias);
}

}  // namespace

uint8_t toF8E4B8(double x) {
  return toFnuz(x, 3, 8);
}
double fromF8E4B8(uint8_t bits) {
  return fromFnuz(bits, 4, 3, 8);
}
uint8_t toF8E5B16(double x) {
  return toFnuz(x, 2, 16);
}
double fromF8E5B16(uint8_t bits) {
  return fromFnuz(bits, 5, 2, 16);
}

float toTF32(float x, bool roundNearest) {
  uint32_t u = std::bit_cast<uint32_t>(x);
  constexpr uint32_t kKeep = 0xFFFFE000u;  // sign, exponent, top 10 fraction bits
  if (std::isnan(x)) {
    // Dropping fraction bits could turn a NaN into inf; keep it a (quiet) NaN.
    return std::bit_cast<float>((u & kKeep) | 0x00400000u);
  }
  // Adding half of the dropped range to the magnitude rounds ties away from
  // zero; a carry out of the fraction correctly bumps the exponent (and the
  // largest finite values round up to inf, as rounding to nearest requires).
  if (roundNearest) u += 0x1000u;
  return std::bit_cast<float>(u & kKeep);
}

void philox4x32(uint32_t c[4], uint32_t k0, uint32_t k1, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    const uint64_t pa = uint64_t{kPhilox32RoundA} * c[0];
    const uint64_t pb = uint64_t{kPhilox32RoundB} * c[2];
    const uint32_t n0 = static_cast<uint32_t>(pb >> 32) ^ c[1] ^ k0;
    const uint32_t n1 = static_cast<uint32_t>(pb);
    const uint32_t n2 = static_cast<uint32_t>(pa >> 32) ^ c[3] ^ k1;
    const uint32_t n3 = static_cast<uint32_t>(pa);
    c[0] = n0;
    c[1] = n1;
    c[2] = n2;
    c[3] = n3;
    k0 += kPhilox32KeyA;
    k1 += kPhilox32KeyB;
  }
}

void philox4x64(uint64_t c[4], uint64_t k0, uint64_t k1, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    const uint64_t n0 = mulHi64(kPhilox64RoundB, c[2]) ^ c[1] ^ k0;
    const uint64_t n1 = kPhilox64RoundB * c[2];
    const uint64_t n2 = mulHi64(kPhilox64RoundA, c[0]) ^ c[3] ^ k1;
    const uint64_t n3 = kPhilox64RoundA * c[0];
    c[0] = n0;
    c[1] = n1;
    c[2] = n2;
    c[3] = n3;
    k0 += kPhilox64KeyA;
    k1 += kPhilox64KeyB;
  }
}

// Triton materialises its Python-double scale literal as an fp32 constant
// (double -> float, round to nearest), so do the same conversion here rather
// than writing a float literal, which would round the decimal directly.
float uint32ToUniformFloat(uint32_t x) {
  static constexpr float kScale = static_cast<float>(4.6566127342e-10);
  int32_t s = std::bit_cast<int32_t>(x);
  if (s < 0) s = ~s;  // Triton's -s - 1 (wrapping), folding negatives onto [0, 2^31)
  return static_cast<float>(s) * kScale;
}

float uint64ToUniformFloat(uint64_t x) {
  static constexpr float kScale = static_cast<float>(1.0842020432385337e-19);
  int64_t s = std::bit_cast<int64_t>(x);
  if (s < 0) s = ~s;
  return static_cast<float>(s) * kScale;
}

void tritonPhilox32(uint64_t seed64, uint32_t c[4], int rounds) {
  philox4x32(c, static_cast<uint32_t>(seed64), static_cast<uint32_t>(seed64 >> 32), rounds);
}

void tritonPhilox64(uint64_t seed64, uint64_t c[4], int rounds) {
  philox4x64(c, seed64, 0, rounds);
}

void randint4x(uint64_t seed64, uint32_t offsetLo, uint32_t offsetHi, uint32_t out[4], int rounds) {
  out[0] = offsetLo;
  out[1] = offsetHi;
  out[2] = out[3] = 0;
  tritonPhilox32(seed64, out, rounds);
}

void pairUniformToNormal(float u1, float u2, float *n1, float *n2) {
  static constexpr float kMinU = static_cast<float>(1.0e-7);
  static constexpr float kTwoPi = static_cast<float>(6.283185307179586);
  u1 = std::fmax(kMinU, u1);
  const float th = kTwoPi * u2;
  const float r = std::sqrt(-2.0f * std::log(u1));
  *n1 = r * std::cos(th);
  *n2 = r * std::sin(th);
}

}  // namespace tessera::num
