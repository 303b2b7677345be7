// The integer functions of libdevice (clz, popc, ffs, brev, byte_perm,
// mulhi, mul24, sad, hadd, rhadd) as compositions of shifts, masks and
// selects, exact for every input. Operands arrive in their own dtype (int32,
// uint32, int64 or uint64); bit manipulations run on the unsigned type of
// the same width, where shifts are logical.
#include "frontend/libdevice_math.h"

namespace tessera::frontend::ld {
namespace {

bool wide(const V &x) {
  return bitWidth(x.dtype()) == 64;
}
DType unsignedOf(const V &x) {
  return wide(x) ? DType::U64 : DType::U32;
}
// A mask of the low `bytes` repeated: 0x5555... and friends.
int64_t repeat(const V &x, uint64_t pattern8) {
  uint64_t p = pattern8 * 0x0101010101010101ull;
  return static_cast<int64_t>(wide(x) ? p : (p & 0xFFFFFFFFull));
}

}  // namespace

V popc(const V &x) {
  // Bits counted in pairs, nibbles and bytes, then the bytes summed by a
  // multiply whose top byte collects them.
  V u = bitcast(x, unsignedOf(x));
  u = u - ((u >> 1) & repeat(u, 0x55));
  u = (u & repeat(u, 0x33)) + ((u >> 2) & repeat(u, 0x33));
  u = (u + (u >> 4)) & repeat(u, 0x0F);
  V n = muli(u, repeat(u, 0x01)) >> (wide(x) ? 56 : 24);
  return cvt(n, DType::I32);
}

V clz(const V &x) {
  // Binary search for the highest set bit: each step tests the top half of
  // what is left and shifts it out when it is zero.
  MathBuilder &m = *x.m;
  V u = bitcast(x, unsignedOf(x));
  int width = wide(x) ? 64 : 32;
  V n = m.i(0, DType::I32);
  for (int half = width / 2; half >= 1; half /= 2) {
    V zero = eq(u >> (width - half), lit(u, 0));
    n = sel(zero, addi(n, half), n);
    u = sel(zero, u << half, u);
  }
  // After the steps u has its top bit set unless x was 0.
  return sel(eq(u, lit(u, 0)), m.i(width, DType::I32), n);
}

V ffs(const V &x) {
  // The lowest set bit alone is x & -x; its position is popc(that - 1) + 1.
  V u = bitcast(x, unsignedOf(x));
  V low = u & (lit(u, 0) - u);
  V pos = addi(popc(low - lit(u, 1)), 1);
  return sel(eq(u, lit(u, 0)), lit(pos, 0), pos);
}

V brev(const V &x) {
  // Swap adjacent bits, pairs and nibbles, then reverse the bytes.
  V u = bitcast(x, unsignedOf(x));
  u = ((u >> 1) & repeat(u, 0x55)) | ((u & repeat(u, 0x55)) << 1);
  u = ((u >> 2) & repeat(u, 0x33)) | ((u & repeat(u, 0x33)) << 2);
  u = ((u >> 4) & repeat(u, 0x0F)) | ((u & repeat(u, 0x0F)) << 4);
  int64_t bytes = wide(x) ? 0x00FF00FF00FF00FF : 0x00FF00FF;
  u = ((u >> 8) & bytes) | ((u & bytes) << 8);
  if (wide(x)) {
    u = ((u >> 16) & 0x0000FFFF0000FFFF) | ((u & 0x0000FFFF0000FFFF) << 16);
    u = (u >> 32) | (u << 32);
  } else {
    u = (u >> 16) | (u << 16);
  }
  return bitcast(u, x.dtype());
}

V bytePerm(const V &x, const V &y, const V &s) {
  // Byte n of the result is byte (s >> 4n) & 7 of the eight bytes y:x.
  MathBuilder &m = *x.m;
  V v = (cvt(bitcast(y, DType::U32), DType::U64) << 32) | cvt(bitcast(x, DType::U32), DType::U64);
  V sel64 = cvt(bitcast(s, DType::U32), DType::U64);
  V r = m.i(0, DType::U64);
  for (int n = 0; n < 4; ++n) {
    V which = (sel64 >> (4 * n)) & 7;
    V byte = (v >> muli(which, 8)) & 0xFF;
    r = r | (byte << (8 * n));
  }
  return bitcast(cvt(r, DType::U32), DType::I32);
}

V mulhi(const V &x, const V &y) {
  switch (x.dtype()) {
    case DType::I32:
      return cvt((cvt(x, DType::I64) * cvt(y, DType::I64)) >> 32, DType::I32);
    case DType::I64: {
      // The unsigned high half, corrected for each negative operand (its
      // unsigned reading is 2^64 too large).
      V ux = bitcast(x, DType::U64), uy = bitcast(y, DType::U64);
      V h = umulhi(ux, uy);
      V zero = lit(ux, 0);
      h = h - sel(x < lit(x, 0), uy, zero) - sel(y < lit(y, 0), ux, zero);
      return bitcast(h, DType::I64);
    }
    default:  // uint32, uint64
      return umulhi(x, y);
  }
}

V mul24(const V &x, const V &y) {
  if (x.dtype() == DType::I32) return ((x << 8) >> 8) * ((y << 8) >> 8);  // sign-extended
  return (x & 0xFFFFFF) * (y & 0xFFFFFF);
}

V sad(const V &x, const V &y, const V &z) {
  // |x - y| + z with the difference exact in 64 bits, wrapped to 32.
  V d = cvt(x, DType::I64) - cvt(y, DType::I64);
  V ad = sel(d < lit(d, 0), lit(d, 0) - d, d);
  V r = ad + cvt(z, DType::I64);
  return cvt(r, x.dtype());
}

V hadd(const V &x, const V &y, bool roundUp) {
  // (x + y) >> 1 without overflow: the sum in 64 bits.
  DType w = isSigned(x.dtype()) ? DType::I64 : DType::U64;
  V s = cvt(x, w) + cvt(y, w);
  if (roundUp) s = addi(s, 1);
  return cvt(s >> 1, x.dtype());
}

}  // namespace tessera::frontend::ld
