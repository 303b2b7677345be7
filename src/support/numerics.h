// Software numerics shared by the interpreter, constant folding and tests:
// conversions to and from the narrow float formats (round to nearest even,
// as the GPU's cvt.rn), TF32 operand rounding, and Philox 4x32 as Triton
// defines tl.randint / tl.rand / tl.randn.
#pragma once

#include <cstdint>

namespace tessera::num {

// IEEE binary16. Overflow rounds to inf; NaN stays NaN.
uint16_t toF16(double x);
double fromF16(uint16_t bits);
// bfloat16 (8-bit exponent, 7-bit mantissa).
uint16_t toBF16(double x);
double fromBF16(uint16_t bits);
// float8e4nv (OCP E4M3FN: bias 7, no infinities, 0x7f/0xff are NaN, max 448).
// Out-of-range finite values saturate to +-448 (the GPU's cvt.rn.satfinite);
// inf saturates too; NaN -> NaN.
uint8_t toF8E4NV(double x);
double fromF8E4NV(uint8_t bits);
// float8e5 (E5M2: bias 15, has inf and NaN). Out-of-range finite values
// saturate to +-57344 (satfinite); inf stays inf; NaN -> NaN.
uint8_t toF8E5(double x);
double fromF8E5(uint8_t bits);
// Rounds a double to binary32 (to nearest even).
inline double roundF32(double x) { return static_cast<double>(static_cast<float>(x)); }

// TF32 operands of tl.dot(input_precision="tf32"): the fp32 value with its
// mantissa cut to 10 bits. `roundNearest` selects cvt.rna.tf32.f32 (to nearest,
// ties away from zero); otherwise the low 13 bits are dropped (what the tensor
// core does with raw fp32 registers).
float toTF32(float x, bool roundNearest);

// Philox 4x32 with `rounds` rounds, counter c[0..3] and key k[0..1], in place,
// with Triton's constants and round structure.
void philox4x32(uint32_t c[4], uint32_t k0, uint32_t k1, int rounds);

// Triton's uint_to_uniform_float for 32-bit inputs: a float in [0, 1).
float uint32ToUniformFloat(uint32_t x);

}  // namespace tessera::num
