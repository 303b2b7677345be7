// Software numerics shared by the interpreter, constant folding and tests:
// conversions to and from the narrow float formats (round to nearest even,
// as the GPU's cvt.rn), TF32 operand rounding, and Philox 4x32 as Triton
// defines tl.randint / tl.rand / tl.randn.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace tessera::num {

// The to* encoders round the double's exact value once (no detour through
// float) and return NVIDIA's canonical NaN for any NaN input: 0x7FFF for
// f16/bf16, 0x7F for the fp8 formats but the fnuz ones (whose NaN is 0x80).
// IEEE binary16. Overflow rounds to inf; NaN stays NaN.
inline uint16_t toF16(double x);
// The same for a float, by bit operations (the interpreter's f32 -> f16
// casts), and for a double that no float holds exactly.
inline uint16_t floatToF16(float f);
uint16_t wideToF16(double x);
inline double fromF16(uint16_t bits);
inline float f16ToFloat(uint16_t bits);  // the same value as a float
// bfloat16 (8-bit exponent, 7-bit mantissa); the float and wide paths as
// for binary16.
inline uint16_t toBF16(double x);
inline uint16_t floatToBF16(float f);
uint16_t wideToBF16(double x);
inline double fromBF16(uint16_t bits);
inline float bf16ToFloat(uint16_t bits);  // the same value as a float
// float8e4nv (OCP E4M3FN: bias 7, no infinities, 0x7f/0xff are NaN, max 448).
// Out-of-range finite values saturate to +-448 (the GPU's cvt.rn.satfinite);
// inf saturates too; NaN -> NaN.
uint8_t toF8E4NV(double x);
double fromF8E4NV(uint8_t bits);
// float8e5 (E5M2: bias 15, has inf and NaN). Out-of-range values, inf
// included, saturate to +-57344 (the GPU's cvt.rn.satfinite); NaN -> NaN.
uint8_t toF8E5(double x);
double fromF8E5(uint8_t bits);
// float8e4b15 (E4M3FN's layout with bias 15: no infinities, 0x7f/0xff are
// NaN, max 1.75). Out-of-range values, inf included, saturate to +-1.75.
uint8_t toF8E4B15(double x);
double fromF8E4B15(uint8_t bits);
// The "fnuz" formats float8e4b8 (E4M3, bias 8, max 240) and float8e5b16
// (E5M2, bias 16, max 57344): no infinities, no negative zero (it encodes
// as +0), and one NaN, 0x80, which every NaN becomes. Out-of-range values,
// inf included, saturate.
uint8_t toF8E4B8(double x);
double fromF8E4B8(uint8_t bits);
uint8_t toF8E5B16(double x);
double fromF8E5B16(uint8_t bits);
// Rounds a double to binary32 (to nearest even).
inline double roundF32(double x) {
  return static_cast<double>(static_cast<float>(x));
}

// tl.exp2 of a float narrower than f64, as the GPU computes it
// (ex2.approx.ftz.f32, as Triton lowers it): a result below the smallest
// normal binary32 (2^-126) flushes to +0, so the interpreter, constant
// folding and the GPU agree where it matters (a bf16 keeps such values).
inline double exp2Ftz(double x) {
  double r = std::exp2(x);
  return r < 0x1p-126 ? 0.0 : r;
}

// TF32 operands of tl.dot(input_precision="tf32"): the fp32 value with its
// mantissa cut to 10 bits. `roundNearest` selects cvt.rna.tf32.f32 (to nearest,
// ties away from zero); otherwise the low 13 bits are dropped (what the tensor
// core does with raw fp32 registers).
float toTF32(float x, bool roundNearest);

// ---------------------------------------------------------------------------
// Triton's random numbers (python/triton/language/random.py), stated exactly so
// the front end can build tl.randint / randint4x / rand / rand4x / randn /
// randn4x from these primitives.
//
// Philox round (both widths; W = 32 or 64, all arithmetic mod 2^W):
//     c0' = umulhi(ROUND_B, c2) ^ c1 ^ k0      c1' = ROUND_B * c2  (low W bits)
//     c2' = umulhi(ROUND_A, c0) ^ c3 ^ k1      c3' = ROUND_A * c0  (low W bits)
//     then the key is raised: k0 += KEY_A, k1 += KEY_B
//   repeated n_rounds times (default N_ROUNDS_DEFAULT = 10); the output is the
//   final (c0, c1, c2, c3). This is Random123's philox4xW_R, so its KAT vectors
//   apply. Constants:
//     W = 32: KEY_A 0x9E3779B9, KEY_B 0xBB67AE85,
//             ROUND_A 0xD2511F53, ROUND_B 0xCD9E8D57
//     W = 64: KEY_A 0x9E3779B97F4A7C15, KEY_B 0xBB67AE8584CAA73B,
//             ROUND_A 0xD2E7470EE14C6C93, ROUND_B 0xCA5A826395121157
//
// Seed: every entry point first does seed = to_tensor(seed), requires an
//   integer dtype, and casts it to uint64 with Triton's integer cast, which
//   extends by the SOURCE type's signedness: an int32 seed of -1 becomes
//   0xFFFFFFFFFFFFFFFF, a uint32 seed 0xFFFFFFFF becomes 0x00000000FFFFFFFF.
//   (A Python int kernel argument is typed i32 when it fits in [-2^31, 2^31),
//   u64 when >= 2^63, else i64; so for Python ints seed64 = seed mod 2^64.)
//
// philox(seed, c0, c1, c2, c3, n_rounds=10) (public as tl.philox): W is the bit
//   width of c0's dtype, 32 or 64 (anything else is a compile error); c0..c3
//   are bitcast to uintW.
//   * W = 32: key = (seed_lo, seed_hi) = (low, high 32 bits of seed64);
//             Philox4x32; results uint32.
//   * W = 64: key = (seed64, 0); Philox4x64; results uint64.
//
// randint4x(seed, offset, n_rounds=10) -> (r0, r1, r2, r3), always uint32 and
//   always Philox4x32 (Triton 3.9; some earlier releases instead ran
//   Philox4x64 on 64-bit offsets):
//     offset_lo = offset.to(uint32)   // integer cast: truncates 64-bit offsets,
//                                     // extends narrower ones by their sign
//     offset_hi = (offset >> 32).to(uint32)  if offset's width > 32 (bits 32..63)
//                 0                          otherwise
//     (r0..r3) = philox(seed, offset_lo, offset_hi, 0, 0, n_rounds)
//   i.e. counter = (offset_lo, offset_hi, 0, 0), key = (seed_lo, seed_hi).
//   So int32 offset -1 gives counter (0xFFFFFFFF, 0, 0, 0), int64 offset -1
//   gives (0xFFFFFFFF, 0xFFFFFFFF, 0, 0), int16 offset -2 gives
//   (0xFFFFFFFE, 0, 0, 0). The zero words are `offset_lo * 0` (offset's shape).
// randint(seed, offset, n_rounds) = r0 of randint4x.
//
// uint_to_uniform_float(x) -> float32 in [0, 1):
//   W = 32: s = bitcast<int32>(x); s = s < 0 ? -s - 1 : s  (i.e. ~s, wrapping);
//           return float32(s) * float32(4.6566127342e-10)
//   W = 64: s = bitcast<int64>(x); same fold;
//           return float32(s) * float32(1.0842020432385337e-19)
//   (Current Triton writes the fold as ~s; older releases as -s - 1: equal.)
//   W = 64 is reached only by tl.philox with 64-bit counters, since randint
//   now always yields uint32. float32(s) is a round-to-nearest-even int->float
//   conversion; the product is one fp32 multiply (RNE). The scale literals are Python doubles
//   rounded to fp32: 0x2FFFFFFF = 2^-31 * (1 - 2^-24) and 0x1FFFFFFE = 2^-63 * (1 - 2^-23), so the
//   largest results are 1 - 2^-24 (W = 32) and 1 - 2^-23 (W = 64).
// rand(seed, offset, n_rounds)   = uint_to_uniform_float(randint(...)).
// rand4x(seed, offset, n_rounds) = uint_to_uniform_float of each of r0..r3.
//
// pair_uniform_to_normal(u1, u2) (Box-Muller, all fp32):
//   u1 = maximum(float32(1.0e-7), u1)        // keeps log(u1) finite
//   th = float32(6.283185307179586) * u2     // 6.2831855f
//   r  = sqrt(-2.0f * log(u1))
//   return (r * cos(th), r * sin(th))
// randn(seed, offset, n_rounds): (r0, r1) = randint4x(...)[0:2];
//   u1 = uint_to_uniform_float(r0), u2 = uint_to_uniform_float(r1);
//   return the FIRST output, r * cos(th). (Old Triton versions picked n1 or n2
//   by offset parity; current Triton always returns n1.)
// randn4x: (u1..u4) = rand4x(...); (n1, n2) = pair(u1, u2), (n3, n4) = pair(u3, u4).
// log/sin/cos are the target's fp32 library functions, so randn is only
// reproducible to a few ulp; everything before them is bit-exact.
// ---------------------------------------------------------------------------

inline constexpr int kPhiloxDefaultRounds = 10;
inline constexpr uint32_t kPhilox32KeyA = 0x9E3779B9u;
inline constexpr uint32_t kPhilox32KeyB = 0xBB67AE85u;
inline constexpr uint32_t kPhilox32RoundA = 0xD2511F53u;
inline constexpr uint32_t kPhilox32RoundB = 0xCD9E8D57u;
inline constexpr uint64_t kPhilox64KeyA = 0x9E3779B97F4A7C15ull;
inline constexpr uint64_t kPhilox64KeyB = 0xBB67AE8584CAA73Bull;
inline constexpr uint64_t kPhilox64RoundA = 0xD2E7470EE14C6C93ull;
inline constexpr uint64_t kPhilox64RoundB = 0xCA5A826395121157ull;

// Philox 4x32 with `rounds` rounds, counter c[0..3] and key k[0..1], in place,
// with Triton's constants and round structure.
void philox4x32(uint32_t c[4], uint32_t k0, uint32_t k1, int rounds);
// Philox 4x64: tl.philox with 64-bit counters.
void philox4x64(uint64_t c[4], uint64_t k0, uint64_t k1, int rounds);

// Triton's uint_to_uniform_float for 32-bit inputs: a float in [0, 1).
float uint32ToUniformFloat(uint32_t x);
// Triton's uint_to_uniform_float for 64-bit inputs: a float in [0, 1).
float uint64ToUniformFloat(uint64_t x);

// tl.randint4x: counter (offsetLo, offsetHi, 0, 0), key (low, high half of
// seed64), where seed64 and offsetLo/offsetHi are derived from the seed and
// offset as described above. Writes r0..r3 to out.
void randint4x(uint64_t seed64, uint32_t offsetLo, uint32_t offsetHi, uint32_t out[4],
               int rounds = kPhiloxDefaultRounds);
// tl.philox with 32-bit counters (key = halves of seed64) and with 64-bit
// counters (key = (seed64, 0)); c is updated in place.
void tritonPhilox32(uint64_t seed64, uint32_t c[4], int rounds = kPhiloxDefaultRounds);
void tritonPhilox64(uint64_t seed64, uint64_t c[4], int rounds = kPhiloxDefaultRounds);

// Triton's pair_uniform_to_normal (Box-Muller in fp32, u1 clamped to 1e-7f).
// Uses the host's logf/sinf/cosf: not bit-identical to the GPU's.
void pairUniformToNormal(float u1, float u2, float *n1, float *n2);

// The 16-bit decoders are inline and call no libm function: the
// interpreter decodes every element of an fp16 or bf16 tile it loads or
// multiplies. Every value of either format is a float, so they decode to
// float exactly (the dot's operands are decoded to float) and widen to
// double. Any NaN decodes to the positive quiet NaN, as the narrower
// formats' do.
inline float f16ToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16, mag = bits & 0x7FFF;
  const uint32_t normal = (mag << 13) + 0x38000000u;  // exponent rebiased by 127 - 15
  const uint32_t subnormal = std::bit_cast<uint32_t>(static_cast<float>(mag) * 0x1p-24f);
  uint32_t out = sign | (mag < 0x400 ? subnormal : normal);
  out = mag == 0x7C00 ? (sign | 0x7F800000u) : out;
  out = mag > 0x7C00 ? 0x7FC00000u : out;
  return std::bit_cast<float>(out);
}

// n + 1 where the dropped bits `rem` are above `half` or equal to it with
// n odd: round to nearest, ties to even.
inline uint32_t roundToNearestEven(uint32_t n, uint32_t rem, uint32_t half) {
  return n + (rem > half || (rem == half && (n & 1)) ? 1 : 0);
}

inline uint16_t floatToF16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f), a = bits & 0x7FFFFFFFu;
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  if (a > 0x7F800000u) return 0x7FFF;          // NaN
  if (a >= 0x477FF000u) return sign | 0x7C00;  // 65520 and up (inf too) round to inf
  if (a <= 0x33000000u) return sign;           // 2^-25 and below round to zero
  if (a < 0x38800000u) {                       // below 2^-14: a subnormal half, in units of 2^-24
    const uint32_t e = a >> 23, m = (a & 0x7FFFFFu) | 0x800000u, shift = 126 - e;
    return sign | static_cast<uint16_t>(
                      roundToNearestEven(m >> shift, m & ((1u << shift) - 1), 1u << (shift - 1)));
  }
  // Rebias the exponent (127 -> 15) and keep 10 of the 23 fraction bits; a
  // fraction that rounds up carries into the exponent, as it should.
  return sign |
         static_cast<uint16_t>(roundToNearestEven((a - (112u << 23)) >> 13, a & 0x1FFFu, 0x1000u));
}

// bfloat16 keeps a float's exponent: the low 16 fraction bits are rounded
// off, a carry moving into the exponent (past the largest finite, to inf).
inline uint16_t floatToBF16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f), a = bits & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return 0x7FFF;  // NaN
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  return sign | static_cast<uint16_t>(roundToNearestEven(a >> 16, a & 0xFFFFu, 0x8000u));
}

// Every value a float holds exactly (a kernel's f32) takes the float path.
inline uint16_t toF16(double x) {
  const float f = static_cast<float>(x);
  return static_cast<double>(f) == x ? floatToF16(f) : wideToF16(x);
}
inline uint16_t toBF16(double x) {
  const float f = static_cast<float>(x);
  return static_cast<double>(f) == x ? floatToBF16(f) : wideToBF16(x);
}

// A bfloat16's bits are a float's top half.
inline float bf16ToFloat(uint16_t bits) {
  return std::bit_cast<float>((bits & 0x7FFF) > 0x7F80 ? 0x7FC00000u
                                                       : static_cast<uint32_t>(bits) << 16);
}

inline double fromF16(uint16_t bits) {
  return f16ToFloat(bits);
}

inline double fromBF16(uint16_t bits) {
  return bf16ToFloat(bits);
}

}  // namespace tessera::num
