// Interpreter elementwise ops against independent C++ references: integer
// wrap-around per dtype, division and shift semantics, float ops with
// rounding per dtype, comparisons with NaN, select, fma, math functions and
// casts (including fp16/bf16/fp8 rounding, saturation and rtz).
#include <gtest/gtest.h>

#include <cmath>

#include "kernel_builder.h"
#include "support/numerics.h"

namespace tessera::testing {
namespace {

using interp::ArgValue;
using interp::HostBuffer;
__extension__ using I128 = __int128;

constexpr int64_t kN = 64;

// out[i] = code(a[i], b[i]) over kN elements of dtype `d` (result dtype rd).
std::vector<uint8_t> runEw(OpCode code, DType d, const std::vector<uint8_t> &a,
                           const std::vector<uint8_t> &bv, std::vector<NamedAttr> attrs = {},
                           DType rd = DType::I1, bool unaryOp = false, DType outD = DType::I1,
                           bool useOut = false) {
  DType res = useOut ? outD : (code == OpCode::Cmp ? DType::I1 : d);
  (void)rd;
  KB k("ew");
  Value *pa = k.arg(ptr(d), "a"), *pb = k.arg(ptr(d), "b"), *po = k.arg(ptr(res), "out");
  Value *offs = k.arange(kN);
  Value *x = k.load(k.addptr(pa, offs));
  Value *y = k.load(k.addptr(pb, offs));
  Value *r;
  if (unaryOp)
    r = k.op(code, {x}, tile({kN}, res), attrs);
  else
    r = k.op(code, {x, y}, tile({kN}, res), attrs);
  k.store(k.addptr(po, offs), r);
  k.ret();
  std::vector<uint8_t> out(kN * byteSize(res));
  poison(out);
  std::vector<ArgValue> args{ArgValue::pointer(a.data()), ArgValue::pointer(bv.data()),
                             ArgValue::pointer(out.data())};
  std::vector<HostBuffer> bufs{buf(a, "a"), buf(bv, "b"), buf(out, "out")};
  interp::run(k.fn, args, bufs, {1, 1, 1});
  return out;
}

I128 getInt(const std::vector<uint8_t> &v, int64_t i, DType d) {
  int w = bitWidth(d), bytes = byteSize(d);
  uint64_t bits = 0;
  std::memcpy(&bits, v.data() + i * bytes, bytes);
  if (w < 64) bits &= (uint64_t(1) << w) - 1;
  if (isSigned(d) && w < 64 && (bits >> (w - 1) & 1)) return I128(bits) - (I128(1) << w);
  if (isSigned(d) && w == 64) return I128(int64_t(bits));
  return I128(bits);
}
// Canonical value of x wrapped to d's width.
I128 wrap(I128 x, DType d) {
  int w = bitWidth(d);
  I128 m = I128(1) << w;
  I128 r = ((x % m) + m) % m;
  if (isSigned(d) && r >= m / 2) r -= m;
  return r;
}

std::vector<uint8_t> randomInts(DType d) {
  std::vector<uint8_t> v(kN * byteSize(d));
  for (auto &c : v) c = static_cast<uint8_t>(randBits());
  // Edge values in the first lanes: 0, 1, -1, min, max.
  int bytes = byteSize(d), w = bitWidth(d);
  uint64_t edges[] = {0, 1, ~uint64_t(0), uint64_t(1) << (w - 1), (uint64_t(1) << (w - 1)) - 1};
  for (int i = 0; i < 5; ++i) std::memcpy(v.data() + i * bytes, &edges[i], bytes);
  return v;
}

I128 refInt(OpCode c, I128 a, I128 b, DType d) {
  int w = bitWidth(d);
  auto bitsOf = [&](I128 x) {
    return uint64_t(x) & (w == 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1);
  };
  uint64_t sa = bitsOf(b);  // shift amount as an unsigned w-bit number
  switch (c) {
    case OpCode::Add:
      return wrap(a + b, d);
    case OpCode::Sub:
      return wrap(a - b, d);
    case OpCode::Mul:
      return wrap(I128(bitsOf(a) * bitsOf(b)), d);
    case OpCode::Div:
      return b == 0 ? wrap(-1, d) : wrap(a / b, d);
    case OpCode::Rem:
      return b == 0 ? a : wrap(a % b, d);
    case OpCode::And:
      return wrap(I128(bitsOf(a) & bitsOf(b)), d);
    case OpCode::Or:
      return wrap(I128(bitsOf(a) | bitsOf(b)), d);
    case OpCode::Xor:
      return wrap(I128(bitsOf(a) ^ bitsOf(b)), d);
    case OpCode::Shl:
      return sa >= uint64_t(w) ? 0 : wrap(I128(bitsOf(a) << sa), d);
    case OpCode::Shr:
      if (isSigned(d)) {
        if (sa >= uint64_t(w)) return a < 0 ? -1 : 0;
        I128 p = I128(1) << sa;
        return a >= 0 ? a / p : -((-a + p - 1) / p);  // floor division
      }
      return sa >= uint64_t(w) ? 0 : I128(bitsOf(a) >> sa);
    case OpCode::Max:
      return a > b ? a : b;
    case OpCode::Min:
      return a < b ? a : b;
    case OpCode::Umulhi: {
      __extension__ using U128 = unsigned __int128;
      return wrap(I128((U128(bitsOf(a)) * U128(bitsOf(b))) >> w), d);
    }
    default:
      return 0;
  }
}

TEST(InterpElementwise, IntegerBinaryOpsWrapPerDtype) {
  const DType types[] = {DType::I8, DType::I16, DType::I32, DType::I64,
                         DType::U8, DType::U16, DType::U32, DType::U64};
  const OpCode ops[] = {OpCode::Add, OpCode::Sub, OpCode::Mul,   OpCode::Div, OpCode::Rem,
                        OpCode::And, OpCode::Or,  OpCode::Xor,   OpCode::Shl, OpCode::Shr,
                        OpCode::Max, OpCode::Min, OpCode::Umulhi};
  for (DType d : types) {
    for (OpCode c : ops) {
      std::vector<uint8_t> a = randomInts(d), b = randomInts(d);
      // Small shift amounts on half the lanes so shifts do not always saturate.
      if (c == OpCode::Shl || c == OpCode::Shr)
        for (int64_t i = kN / 2; i < kN; ++i)
          b[i * byteSize(d)] = static_cast<uint8_t>(i % bitWidth(d));
      // Lane 5: INT_MIN / -1; lane 6: x / 0.
      int bytes = byteSize(d);
      uint64_t mn = uint64_t(1) << (bitWidth(d) - 1), m1 = ~uint64_t(0), z = 0;
      std::memcpy(a.data() + 5 * bytes, &mn, bytes);
      std::memcpy(b.data() + 5 * bytes, &m1, bytes);
      std::memcpy(b.data() + 6 * bytes, &z, bytes);
      std::vector<uint8_t> out = runEw(c, d, a, b);
      for (int64_t i = 0; i < kN; ++i) {
        I128 want = refInt(c, getInt(a, i, d), getInt(b, i, d), d);
        I128 got = getInt(out, i, d);
        ASSERT_TRUE(want == got) << opInfo(c).mnemonic << " " << irName(d) << " lane " << i
                                 << " a=" << int64_t(getInt(a, i, d))
                                 << " b=" << int64_t(getInt(b, i, d)) << " got " << int64_t(got)
                                 << " want " << int64_t(want);
      }
    }
  }
}

TEST(InterpElementwise, DivisionSemanticsI32) {
  std::vector<int32_t> a{7, -7, 7, -7, INT32_MIN, 5, -5, 0}, b{2, 2, -2, -2, -1, 0, 0, 0};
  a.resize(kN, 1);
  b.resize(kN, 1);
  auto bytes = [](const std::vector<int32_t> &v) {
    std::vector<uint8_t> r(v.size() * 4);
    std::memcpy(r.data(), v.data(), r.size());
    return r;
  };
  auto div = runEw(OpCode::Div, DType::I32, bytes(a), bytes(b));
  auto rem = runEw(OpCode::Rem, DType::I32, bytes(a), bytes(b));
  int32_t d[8], r[8];
  std::memcpy(d, div.data(), 32);
  std::memcpy(r, rem.data(), 32);
  EXPECT_EQ(d[0], 3);
  EXPECT_EQ(d[1], -3);
  EXPECT_EQ(d[2], -3);
  EXPECT_EQ(d[3], 3);
  EXPECT_EQ(d[4], INT32_MIN);
  EXPECT_EQ(d[5], -1);
  EXPECT_EQ(d[6], -1);
  EXPECT_EQ(r[0], 1);
  EXPECT_EQ(r[1], -1);
  EXPECT_EQ(r[2], 1);
  EXPECT_EQ(r[3], -1);
  EXPECT_EQ(r[4], 0);
  EXPECT_EQ(r[5], 5);
  EXPECT_EQ(r[6], -5);
}

// Float elements of dtype d as double, and back (rounding to d).
double getF(const std::vector<uint8_t> &v, int64_t i, DType d) {
  switch (d) {
    case DType::F32: {
      float f;
      std::memcpy(&f, v.data() + i * 4, 4);
      return f;
    }
    case DType::F64: {
      double f;
      std::memcpy(&f, v.data() + i * 8, 8);
      return f;
    }
    case DType::F16: {
      uint16_t h;
      std::memcpy(&h, v.data() + i * 2, 2);
      return num::fromF16(h);
    }
    case DType::BF16: {
      uint16_t h;
      std::memcpy(&h, v.data() + i * 2, 2);
      return num::fromBF16(h);
    }
    case DType::F8E4NV:
      return num::fromF8E4NV(v[i]);
    case DType::F8E5:
      return num::fromF8E5(v[i]);
    default:
      return 0;
  }
}
void putF(std::vector<uint8_t> &v, int64_t i, DType d, double x) {
  switch (d) {
    case DType::F32: {
      float f = static_cast<float>(x);
      std::memcpy(v.data() + i * 4, &f, 4);
      break;
    }
    case DType::F64:
      std::memcpy(v.data() + i * 8, &x, 8);
      break;
    case DType::F16: {
      uint16_t h = num::toF16(x);
      std::memcpy(v.data() + i * 2, &h, 2);
      break;
    }
    case DType::BF16: {
      uint16_t h = num::toBF16(x);
      std::memcpy(v.data() + i * 2, &h, 2);
      break;
    }
    case DType::F8E4NV:
      v[i] = num::toF8E4NV(x);
      break;
    case DType::F8E5:
      v[i] = num::toF8E5(x);
      break;
    default:
      break;
  }
}
double roundTo(double x, DType d) {
  std::vector<uint8_t> t(8);
  putF(t, 0, d, x);
  return getF(t, 0, d);
}
std::vector<uint8_t> randomFloats(DType d, double lo = -8, double hi = 8) {
  std::vector<uint8_t> v(kN * byteSize(d));
  for (int64_t i = 0; i < kN; ++i)
    putF(v, i, d, std::uniform_real_distribution<double>(lo, hi)(rng()));
  return v;
}
bool sameFloat(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

TEST(InterpElementwise, FloatArithmeticRoundsToDtype) {
  const DType types[] = {DType::F32,  DType::F64,    DType::F16,
                         DType::BF16, DType::F8E4NV, DType::F8E5};
  const OpCode ops[] = {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Div,
                        OpCode::Rem, OpCode::Max, OpCode::Min};
  for (DType d : types)
    for (OpCode c : ops) {
      auto a = randomFloats(d), b = randomFloats(d);
      auto out = runEw(c, d, a, b);
      for (int64_t i = 0; i < kN; ++i) {
        double x = getF(a, i, d), y = getF(b, i, d), r = 0;
        switch (c) {
          case OpCode::Add:
            r = x + y;
            break;
          case OpCode::Sub:
            r = x - y;
            break;
          case OpCode::Mul:
            r = x * y;
            break;
          case OpCode::Div:
            r = x / y;
            break;
          case OpCode::Rem:
            r = std::fmod(x, y);
            break;
          case OpCode::Max:
            r = std::max(x, y);
            break;
          default:
            r = std::min(x, y);
            break;
        }
        ASSERT_TRUE(sameFloat(getF(out, i, d), roundTo(r, d)))
            << opInfo(c).mnemonic << " " << irName(d) << " " << x << " " << y << " -> "
            << getF(out, i, d) << " want " << roundTo(r, d);
      }
    }
}

TEST(InterpElementwise, MaxMinNanPropagation) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a(kN, 1.0f), b(kN, 2.0f);
  a[0] = nan;
  b[1] = nan;
  std::vector<uint8_t> ab(kN * 4), bb(kN * 4);
  std::memcpy(ab.data(), a.data(), ab.size());
  std::memcpy(bb.data(), b.data(), bb.size());
  auto ignore = runEw(OpCode::Max, DType::F32, ab, bb, {{"propagate_nan", int64_t(0)}});
  auto prop = runEw(OpCode::Min, DType::F32, ab, bb, {{"propagate_nan", int64_t(1)}});
  EXPECT_EQ(getF(ignore, 0, DType::F32), 2.0);
  EXPECT_EQ(getF(ignore, 1, DType::F32), 1.0);
  EXPECT_EQ(getF(ignore, 2, DType::F32), 2.0);
  EXPECT_TRUE(std::isnan(getF(prop, 0, DType::F32)));
  EXPECT_TRUE(std::isnan(getF(prop, 1, DType::F32)));
  EXPECT_EQ(getF(prop, 2, DType::F32), 1.0);
}

TEST(InterpElementwise, CompareSignednessAndNaN) {
  // i8: -1 < 1 signed; u8: 255 > 1.
  std::vector<uint8_t> a(kN, 0xFF), b(kN, 1);
  auto s = runEw(OpCode::Cmp, DType::I8, a, b, {{"pred", std::string("lt")}});
  auto u = runEw(OpCode::Cmp, DType::U8, a, b, {{"pred", std::string("lt")}});
  EXPECT_EQ(s[0], 1);
  EXPECT_EQ(u[0], 0);
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> fa(kN, nan), fb(kN, 1.0f);
  std::vector<uint8_t> xa(kN * 4), xb(kN * 4);
  std::memcpy(xa.data(), fa.data(), xa.size());
  std::memcpy(xb.data(), fb.data(), xb.size());
  const char *preds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  int want[] = {0, 1, 0, 0, 0, 0};
  for (int p = 0; p < 6; ++p) {
    auto r = runEw(OpCode::Cmp, DType::F32, xa, xb, {{"pred", std::string(preds[p])}});
    EXPECT_EQ(r[3], want[p]) << preds[p];
  }
}

TEST(InterpElementwise, UnaryMathMatchesDoubleReference) {
  const OpCode ops[] = {OpCode::Exp,   OpCode::Exp2, OpCode::Log, OpCode::Log2, OpCode::Sqrt,
                        OpCode::Rsqrt, OpCode::Sin,  OpCode::Cos, OpCode::Abs,  OpCode::Erf,
                        OpCode::Floor, OpCode::Ceil, OpCode::Neg};
  for (DType d : {DType::F32, DType::F16, DType::BF16, DType::F64})
    for (OpCode c : ops) {
      auto a = randomFloats(d, 0.01, 6);
      for (int64_t i = 0; i < kN; i += 2) putF(a, i, d, -getF(a, i, d));  // negatives too
      auto out = runEw(c, d, a, a, {}, DType::I1, /*unaryOp=*/true);
      for (int64_t i = 0; i < kN; ++i) {
        double x = getF(a, i, d), r = 0;
        switch (c) {
          case OpCode::Exp:
            r = std::exp(x);
            break;
          case OpCode::Exp2:
            r = std::exp2(x);
            break;
          case OpCode::Log:
            r = std::log(x);
            break;
          case OpCode::Log2:
            r = std::log2(x);
            break;
          case OpCode::Sqrt:
            r = std::sqrt(x);
            break;
          case OpCode::Rsqrt:
            r = 1 / std::sqrt(x);
            break;
          case OpCode::Sin:
            r = std::sin(x);
            break;
          case OpCode::Cos:
            r = std::cos(x);
            break;
          case OpCode::Abs:
            r = std::fabs(x);
            break;
          case OpCode::Erf:
            r = std::erf(x);
            break;
          case OpCode::Floor:
            r = std::floor(x);
            break;
          case OpCode::Ceil:
            r = std::ceil(x);
            break;
          default:
            r = -x;
            break;
        }
        ASSERT_TRUE(sameFloat(getF(out, i, d), roundTo(r, d)))
            << opInfo(c).mnemonic << " " << irName(d) << " x=" << x;
      }
    }
}

TEST(InterpElementwise, IntegerUnaryWraps) {
  std::vector<uint8_t> a(kN * 4);
  int32_t v[] = {INT32_MIN, -5, 5, 0};
  std::memcpy(a.data(), v, sizeof v);
  auto abs = runEw(OpCode::Abs, DType::I32, a, a, {}, DType::I1, true);
  auto neg = runEw(OpCode::Neg, DType::I32, a, a, {}, DType::I1, true);
  auto nt = runEw(OpCode::Not, DType::I32, a, a, {}, DType::I1, true);
  int32_t r[4];
  std::memcpy(r, abs.data(), 16);
  EXPECT_EQ(r[0], INT32_MIN);
  EXPECT_EQ(r[1], 5);
  std::memcpy(r, neg.data(), 16);
  EXPECT_EQ(r[0], INT32_MIN);
  EXPECT_EQ(r[1], 5);
  EXPECT_EQ(r[2], -5);
  std::memcpy(r, nt.data(), 16);
  EXPECT_EQ(r[2], ~5);
  std::vector<uint8_t> bools(kN, 0);
  bools[1] = 1;
  auto bn = runEw(OpCode::Not, DType::I1, bools, bools, {}, DType::I1, true);
  EXPECT_EQ(bn[0], 1);
  EXPECT_EQ(bn[1], 0);
}

// Runs cast src -> dst over kN elements.
std::vector<uint8_t> runCast(DType src, DType dst, const std::vector<uint8_t> &a,
                             std::vector<NamedAttr> attrs = {}) {
  return runEw(OpCode::Cast, src, a, a, std::move(attrs), DType::I1, true, dst, true);
}

TEST(InterpElementwise, CastFloatToNarrowFloatsRoundsToNearestEven) {
  for (DType dst : {DType::F16, DType::BF16, DType::F8E4NV, DType::F8E5}) {
    auto a = randomFloats(DType::F32, -300, 300);
    float specials[] = {1e9f,
                        -1e9f,
                        std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN(),
                        0.0f,
                        -0.0f,
                        1e-30f};
    std::memcpy(a.data(), specials, sizeof specials);
    auto out = runCast(DType::F32, dst, a);
    for (int64_t i = 0; i < kN; ++i)
      ASSERT_TRUE(sameFloat(getF(out, i, dst), roundTo(getF(a, i, DType::F32), dst)))
          << irName(dst) << " " << getF(a, i, DType::F32);
  }
  // 1 + 2^-11 is a tie in f16: rounds to even (1.0); 1 + 3*2^-11 -> 1 + 2^-9.
  std::vector<uint8_t> a(kN * 4, 0);
  float ties[] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65520.0f};
  std::memcpy(a.data(), ties, sizeof ties);
  auto out = runCast(DType::F32, DType::F16, a);
  EXPECT_EQ(getF(out, 0, DType::F16), 1.0);
  EXPECT_EQ(getF(out, 1, DType::F16), 1.0 + 0x1p-9);
  EXPECT_TRUE(std::isinf(getF(out, 2, DType::F16)));
}

TEST(InterpElementwise, CastRoundTowardZero) {
  std::vector<uint8_t> a(kN * 4, 0);
  float v[] = {1.0f + 3 * 0x1p-11f, -(1.0f + 3 * 0x1p-11f), 1e6f};
  std::memcpy(a.data(), v, sizeof v);
  auto out = runCast(DType::F32, DType::F16, a, {{"rounding", std::string("rtz")}});
  EXPECT_EQ(getF(out, 0, DType::F16), 1.0 + 0x1p-10);
  EXPECT_EQ(getF(out, 1, DType::F16), -(1.0 + 0x1p-10));
  EXPECT_EQ(getF(out, 2, DType::F16), 65504.0);  // max finite, not inf
}

TEST(InterpElementwise, CastFloatToIntTruncatesAndSaturates) {
  std::vector<uint8_t> a(kN * 4, 0);
  float v[] = {2.9f, -2.9f, 1e20f, -1e20f, std::numeric_limits<float>::quiet_NaN(), 300.0f, -1.0f};
  std::memcpy(a.data(), v, sizeof v);
  auto i32 = runCast(DType::F32, DType::I32, a);
  int32_t r[7];
  std::memcpy(r, i32.data(), sizeof r);
  EXPECT_EQ(r[0], 2);
  EXPECT_EQ(r[1], -2);
  EXPECT_EQ(r[2], INT32_MAX);
  EXPECT_EQ(r[3], INT32_MIN);
  EXPECT_EQ(r[4], 0);
  auto u8 = runCast(DType::F32, DType::U8, a);
  EXPECT_EQ(u8[5], 255);
  EXPECT_EQ(u8[6], 0);
  auto b = runCast(DType::F32, DType::I1, a);
  EXPECT_EQ(b[0], 1);
  EXPECT_EQ(b[4], 1);  // NaN != 0
}

TEST(InterpElementwise, CastIntToIntWrapsAndExtends) {
  auto a = randomInts(DType::I32);
  for (DType dst : {DType::I8, DType::U8, DType::I16, DType::I64, DType::U64, DType::U32}) {
    auto out = runCast(DType::I32, dst, a);
    for (int64_t i = 0; i < kN; ++i)
      ASSERT_TRUE(getInt(out, i, dst) == wrap(getInt(a, i, DType::I32), dst)) << irName(dst);
  }
  auto u = randomInts(DType::U16);
  auto out = runCast(DType::U16, DType::I64, u);
  for (int64_t i = 0; i < kN; ++i)
    ASSERT_TRUE(getInt(out, i, DType::I64) == getInt(u, i, DType::U16));
  auto toF = runCast(DType::I32, DType::F32, a);
  for (int64_t i = 0; i < kN; ++i)
    ASSERT_EQ(getF(toF, i, DType::F32), static_cast<float>(int64_t(getInt(a, i, DType::I32))));
  auto toH = runCast(DType::I32, DType::BF16, a);
  for (int64_t i = 0; i < kN; ++i)
    ASSERT_EQ(getF(toH, i, DType::BF16),
              roundTo(double(int64_t(getInt(a, i, DType::I32))), DType::BF16));
}

TEST(InterpElementwise, SelectFmaClampUmulhiOnScalars) {
  KB k("misc");
  Value *po = k.arg(ptr(DType::F32), "out");
  Value *x = k.cf(1.5f, sc(DType::F32)), *y = k.cf(-2.0f, sc(DType::F32));
  Value *c = k.cmp("gt", x, y);
  Value *s = k.op(OpCode::Select, {c, x, y}, sc(DType::F32));
  Value *f = k.op(OpCode::Fma, {x, y, s}, sc(DType::F32));  // 1.5*-2+1.5
  Value *cl =
      k.op(OpCode::Clamp, {f, k.cf(-1, sc(DType::F32)), k.cf(1, sc(DType::F32))}, sc(DType::F32));
  Value *offs = k.arange(4);
  Value *vals = k.op(OpCode::Join, {k.splat(s, {2}), k.splat(f, {2})}, tile({2, 2}, DType::F32));
  Value *flat = k.op(OpCode::Reshape, {vals}, tile({4}, DType::F32));
  k.store(k.addptr(po, offs), flat);
  k.store(po, cl);
  k.ret();
  std::vector<float> out(4);
  poisonNaN(out);
  std::vector<ArgValue> args{ArgValue::pointer(out.data())};
  std::vector<HostBuffer> bufs{buf(out, "out")};
  interp::run(k.fn, args, bufs, {});
  EXPECT_EQ(out[0], -1.0f);  // clamp(-1.5) stored last at out[0]
  EXPECT_EQ(out[1], -1.5f);
  EXPECT_EQ(out[2], 1.5f);
  EXPECT_EQ(out[3], -1.5f);
}

}  // namespace
}  // namespace tessera::testing
