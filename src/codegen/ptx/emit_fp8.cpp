// fp8 (float8e4nv = E4M3FN, float8e5 = E5M2) conversions for targets below
// sm_89 (sm_80), which lack the fp8 cvt instructions that emit_arith.cpp uses
// on sm_89 and newer: the same results, bit for bit, from integer and f16/f32
// instructions. float8e4b15 (E4M3FN with bias 15), which no GPU converts,
// takes the same sequences on every target. The hardware semantics being
// reproduced:
//   * fp8 -> f16 (cvt.rn.f16x2.{e4m3x2,e5m2x2}) is exact, and every fp8 NaN
//     becomes the f16 NaN kF16NaN (0x7FFF, sign dropped; the PTX ISA does
//     not say which NaN, an H100 gives this one). Both paths then widen to
//     f32 with the same cvt.f32.f16.
//   * f32 -> fp8 (cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32) rounds to nearest
//     even, once, from the f32 value. The PTX ISA on `.satfinite`: "if the
//     input value is NaN, then the result is NaN in the specified destination
//     format. If the absolute value of input (ignoring sign) is greater than
//     MAX_NORM of the specified destination format, then the result is
//     sign-preserved MAX_NORM of the destination format." So finite overflow
//     and +-inf give +-448 (E4M3FN) or +-57344 (E5M2), never inf, and any NaN
//     gives kFp8NaN (0x7F, sign dropped, as an H100 does).
// Both sequences were compared with an H100's cvt instructions on every fp8
// code and every f32 bit pattern: no difference.
#include <bit>
#include <cstdio>

#include "codegen/ptx/emitter.h"
#include "codegen/ptx/fp8_format.h"

namespace tessera::ptx {
namespace {

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%X", v);
  return buf;
}

}  // namespace

// fp8 code (low byte of b16 register `r`) -> f16 bits:
//   m = r & 0x7F               exponent and fraction fields
//   h = m << (10 - manBits)    the same fields in f16's places: an f16 whose
//                              value is the fp8 value times 2^(bias - 15),
//                              for subnormals too (both formats' subnormals
//                              are fraction * 2^(1 - bias - manBits))
//   h = h * 2^(15 - bias)      mul.rn.f16, exact (every E4M3FN value is an
//                              f16 normal); E5M2 has f16's bias: no multiply
//   h = h | (r & 0x80) << 8    sign
//   h = m > lastNonNaN ? kF16NaN : h
// E5M2's inf (m = 0x7C) lands on f16's inf by the placement.
std::string Emitter::fp8ToF16Soft(const std::string &r, DType from) {
  const Fp8Format &fmt = fp8Format(from);
  std::string m = reg(RegClass::B16), h = reg(RegClass::B16), s = reg(RegClass::B16);
  std::string nan = reg(RegClass::Pred);
  ins("and.b16 " + m + ", " + r + ", 0x7F");
  ins("shl.b16 " + h + ", " + m + ", " + std::to_string(10 - fmt.manBits));
  if (fmt.bias != 15) {
    std::string k = reg(RegClass::B16);
    ins("mov.b16 " + k + ", " + hex(static_cast<uint32_t>(15 + 15 - fmt.bias) << 10));
    ins("mul.rn.f16 " + h + ", " + h + ", " + k);
  }
  ins("and.b16 " + s + ", " + r + ", 0x80");
  ins("shl.b16 " + s + ", " + s + ", 8");
  ins("or.b16 " + h + ", " + h + ", " + s);
  ins("setp.gt.u16 " + nan + ", " + m + ", " + hex(fmt.lastNonNaN()));
  ins("selp.b16 " + h + ", " + hex(kF16NaN) + ", " + h + ", " + nan);
  return h;
}

// f32 register `f` -> fp8 code (b16 register, high byte zero), rounded to
// nearest even once from the f32 value, with satfinite. On the f32 bits x,
// a = x & 0x7FFFFFFF, d = 23 - manBits:
//   normal    = ((a + 2^(d-1) - 1 + ((a >> d) & 1)) >> d) - rebias
//       integer round-to-nearest-even of the magnitude to manBits fraction
//       bits (a fraction carry moves into the exponent field), with the
//       exponent field rebiased from 127 to `bias`; right for |x| >= 2^(1-bias)
//   subnormal = bits(|x| + C) - bits(C),  C = 2^(24 - bias - manBits)
//       |x| < 2^(1-bias) is added to a float whose ulp is the fp8 subnormal
//       step, so add.rn.f32 rounds |x| to a multiple of that step (to even),
//       and the sum's low bits count the steps; rounding up to 2^manBits steps
//       is the smallest normal's code, as it should be
//   code = min(a < bits(2^(1-bias)) ? subnormal : normal, maxCode)
//       satfinite: overflow (including inf, whose `normal` is past maxCode)
//       clamps to the largest finite code
//   code = a > 0x7F800000 ? kFp8NaN : code | (x >> 24 & 0x80)
// Toward zero (`rtz`, fp_downcast_rounding="rtz", which no cvt to fp8 has):
// `normal` drops the fraction bits without the rounding add, and the
// subnormal add rounds toward zero (add.rz.f32); satfinite is unchanged.
std::string Emitter::f32ToFp8Soft(const std::string &f, DType to, bool rtz) {
  const Fp8Format &fmt = fp8Format(to);
  const int d = 23 - fmt.manBits;
  auto b32 = [&] { return reg(RegClass::B32); };
  std::string x = b32(), a = b32(), t = b32(), normal = b32(), sub = b32(), code = b32(), s = b32();
  std::string ax = reg(RegClass::F32), y = reg(RegClass::F32);
  std::string small = reg(RegClass::Pred), nan = reg(RegClass::Pred);
  ins("mov.b32 " + x + ", " + f);
  ins("and.b32 " + a + ", " + x + ", 0x7FFFFFFF");
  if (rtz) {
    ins("shr.u32 " + t + ", " + a + ", " + std::to_string(d));
  } else {
    ins("shr.u32 " + t + ", " + a + ", " + std::to_string(d));
    ins("and.b32 " + t + ", " + t + ", 1");
    ins("add.u32 " + t + ", " + t + ", " + hex((1u << (d - 1)) - 1));
    ins("add.u32 " + t + ", " + a + ", " + t);
    ins("shr.u32 " + t + ", " + t + ", " + std::to_string(d));
  }
  ins("sub.u32 " + normal + ", " + t + ", " + hex(fmt.rebias()));
  ins("abs.f32 " + ax + ", " + f);
  ins(std::string(rtz ? "add.rz.f32 " : "add.rn.f32 ") + y + ", " + ax + ", " +
      f32Imm(std::bit_cast<float>(fmt.subnormalMagicF32Bits())));
  ins("mov.b32 " + sub + ", " + y);
  ins("sub.u32 " + sub + ", " + sub + ", " + hex(fmt.subnormalMagicF32Bits()));
  ins("setp.lt.u32 " + small + ", " + a + ", " + hex(fmt.minNormalF32Bits()));
  ins("selp.b32 " + code + ", " + sub + ", " + normal + ", " + small);
  ins("min.u32 " + code + ", " + code + ", " + hex(fmt.maxCode()));
  ins("shr.u32 " + s + ", " + x + ", 24");
  ins("and.b32 " + s + ", " + s + ", 0x80");
  ins("or.b32 " + code + ", " + code + ", " + s);
  ins("setp.gt.u32 " + nan + ", " + a + ", 0x7F800000");
  ins("selp.b32 " + code + ", " + hex(kFp8NaN) + ", " + code + ", " + nan);
  std::string h = reg(RegClass::B16);
  ins("cvt.u16.u32 " + h + ", " + code);
  return h;
}

}  // namespace tessera::ptx
