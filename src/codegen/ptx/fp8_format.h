// The fp8 formats as parameters of the software conversions that
// emit_fp8.cpp writes for GPUs without the sm_89 cvt instructions, and for
// float8e4b15 on every GPU (shared with the unit test that replays those
// instruction sequences in C++).
#pragma once

#include <cstdint>

#include "ir/types.h"

namespace tessera::ptx {

struct Fp8Format {
  int expBits;  // exponent field width
  int manBits;  // fraction field width
  int bias;
  bool hasInf;  // E5M2 keeps IEEE inf (0x7C); E4M3FN has none

  // Largest finite magnitude code (what satfinite clamps to): 0x7E (448) for
  // E4M3FN, whose 0x7F is NaN; 0x7B (57344) for E5M2, below inf at 0x7C.
  constexpr uint32_t maxCode() const {
    return hasInf ? ((1u << expBits) - 1) * (1u << manBits) - 1 : (1u << (expBits + manBits)) - 2;
  }
  // Magnitude codes above this are NaN.
  constexpr uint32_t lastNonNaN() const { return hasInf ? maxCode() + 1 : maxCode(); }
  // The f32 bit pattern of the smallest normal, 2^(1 - bias).
  constexpr uint32_t minNormalF32Bits() const {
    return static_cast<uint32_t>(127 + 1 - bias) << 23;
  }
  // The f32 bit pattern of 2^(24 - bias - manBits): a float whose ulp is the
  // fp8 subnormal step 2^(1 - bias - manBits).
  constexpr uint32_t subnormalMagicF32Bits() const {
    return static_cast<uint32_t>(127 + 24 - bias - manBits) << 23;
  }
  // What the exponent field loses going from f32 (bias 127) to this format,
  // in place in a magnitude code.
  constexpr uint32_t rebias() const { return static_cast<uint32_t>(127 - bias) << manBits; }
};

// What cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 writes for any NaN input, in
// both formats (sign and payload dropped; read off an H100).
inline constexpr uint32_t kFp8NaN = 0x7F;
// What cvt.rn.f16x2.{e4m3x2,e5m2x2} writes for any fp8 NaN (likewise).
inline constexpr uint16_t kF16NaN = 0x7FFF;

inline constexpr Fp8Format kF8E4NV{4, 3, 7, false};    // float8e4nv (OCP E4M3FN)
inline constexpr Fp8Format kF8E5{5, 2, 15, true};      // float8e5 (E5M2)
inline constexpr Fp8Format kF8E4B15{4, 3, 15, false};  // float8e4b15: E4M3FN, bias 15

// The software formats: the two above, and float8e4b15, which no GPU
// converts in hardware (the fnuz formats, float8e4b8 and float8e5b16, are
// refused on the GPU before emission).
inline const Fp8Format &fp8Format(DType d) {
  return d == DType::F8E4NV ? kF8E4NV : d == DType::F8E4B15 ? kF8E4B15 : kF8E5;
}

}  // namespace tessera::ptx
