// Internal to the interpreter: per-dtype storage codecs and the scalar
// semantics of every arithmetic op, shared by the elementwise loops, the
// reduce/scan fast paths, dot and the atomics so that one definition of
// "add on f16" or "shr on i8" serves them all.
//
// A codec K describes one dtype: K::S is how an element is stored in a frame
// and in memory, K::C the type arithmetic is done in (the storage type for
// integers and f32/f64, double for the narrow floats, whose results are
// rounded back by K::put after every op).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "interp/interp_impl.h"
#include "support/numerics.h"

namespace tessera::interp::detail {

template <class S_>
struct IntK {
  using S = S_;
  using C = S_;
  static constexpr bool isFloat = false;
  static constexpr bool isSigned = std::is_signed_v<S_>;
  static constexpr int bits = sizeof(S_) * 8;
  static C get(S s) { return s; }
  static S put(C c) { return c; }
  static C round(C c) { return c; }
};

// i1 lives in one byte holding 0 or 1; put() wraps results to one bit.
struct BoolK {
  using S = uint8_t;
  using C = uint8_t;
  static constexpr bool isFloat = false;
  static constexpr bool isSigned = false;
  static constexpr int bits = 1;
  static C get(S s) { return s; }
  static S put(C c) { return static_cast<S>(c & 1); }
  static C round(C c) { return static_cast<C>(c & 1); }
};

template <class F>
struct NativeFloatK {
  using S = F;
  using C = F;
  static constexpr bool isFloat = true;
  static constexpr bool isSigned = true;
  static constexpr int bits = sizeof(F) * 8;
  static C get(S s) { return s; }
  static S put(C c) { return c; }
  static C round(C c) { return c; }
};
using F32K = NativeFloatK<float>;
using F64K = NativeFloatK<double>;

// Narrow floats: stored as bits, computed in double, rounded on every put.
template <class S_, double (*Get)(S_), S_ (*Put)(double)>
struct NarrowFloatK {
  using S = S_;
  using C = double;
  static constexpr bool isFloat = true;
  static constexpr bool isSigned = true;
  static constexpr int bits = sizeof(S_) * 8;
  static C get(S s) { return Get(s); }
  static S put(C c) { return Put(c); }
  static C round(C c) { return Get(Put(c)); }
};
using F16K = NarrowFloatK<uint16_t, num::fromF16, num::toF16>;
using BF16K = NarrowFloatK<uint16_t, num::fromBF16, num::toBF16>;
using F8E4K = NarrowFloatK<uint8_t, num::fromF8E4NV, num::toF8E4NV>;
using F8E5K = NarrowFloatK<uint8_t, num::fromF8E5, num::toF8E5>;
using F8E4B15K = NarrowFloatK<uint8_t, num::fromF8E4B15, num::toF8E4B15>;
using F8E4B8K = NarrowFloatK<uint8_t, num::fromF8E4B8, num::toF8E4B8>;
using F8E5B16K = NarrowFloatK<uint8_t, num::fromF8E5B16, num::toF8E5B16>;

// Calls f(K{}) with the codec of `dt`. Pointers use U64 (their addresses).
template <class F>
decltype(auto) withCodec(DType dt, F &&f) {
  switch (dt) {
    case DType::I1:
      return f(BoolK{});
    case DType::I8:
      return f(IntK<int8_t>{});
    case DType::I16:
      return f(IntK<int16_t>{});
    case DType::I32:
      return f(IntK<int32_t>{});
    case DType::I64:
      return f(IntK<int64_t>{});
    case DType::U8:
      return f(IntK<uint8_t>{});
    case DType::U16:
      return f(IntK<uint16_t>{});
    case DType::U32:
      return f(IntK<uint32_t>{});
    case DType::U64:
      return f(IntK<uint64_t>{});
    case DType::F8E4NV:
      return f(F8E4K{});
    case DType::F8E5:
      return f(F8E5K{});
    case DType::F8E4B15:
      return f(F8E4B15K{});
    case DType::F8E4B8:
      return f(F8E4B8K{});
    case DType::F8E5B16:
      return f(F8E5B16K{});
    case DType::F16:
      return f(F16K{});
    case DType::BF16:
      return f(BF16K{});
    case DType::F32:
      return f(F32K{});
    case DType::F64:
      return f(F64K{});
  }
  return f(IntK<uint64_t>{});  // unreachable for valid enum values
}

// Calls f(T{}) with an unsigned integer type of `bytes` bytes (1, 2, 4, 8):
// for ops that only move bits (select, shape ops, loads and stores).
template <class F>
decltype(auto) withSize(int bytes, F &&f) {
  switch (bytes) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    default:
      return f(uint64_t{});
  }
}

// Unsigned type at least as wide as int, so narrow arithmetic never promotes
// to signed int (whose overflow would be undefined).
template <class C>
using Wide = std::conditional_t<(sizeof(C) < 4), uint32_t, std::make_unsigned_t<C>>;

// double -> integer C: truncation toward zero, saturating, NaN -> 0.
template <class C>
C satFromDouble(double d) {
  if (std::isnan(d)) return 0;
  if constexpr (std::is_same_v<C, uint8_t> || std::is_same_v<C, bool>) {
    if (d <= 0) return 0;
    if (d >= 255.0) return 255;
    return static_cast<C>(d);
  } else {
    constexpr double lo = static_cast<double>(std::numeric_limits<C>::min());
    // max+1 is a power of two, exactly representable.
    constexpr double hiExcl = static_cast<double>(std::numeric_limits<C>::max() / 2 + 1) * 2.0;
    if (d <= lo) return std::numeric_limits<C>::min();
    if (d >= hiExcl) return std::numeric_limits<C>::max();
    return static_cast<C>(d);
  }
}

// Result of a float-valued math function, converted to the codec's compute
// type (integer codecs only reach this through malformed IR; stay defined).
template <class C>
C fromDouble(double d) {
  if constexpr (std::is_floating_point_v<C>)
    return static_cast<C>(d);
  else
    return satFromDouble<C>(d);
}

// ---- binary ops -----------------------------------------------------------------
template <class K, Bin B, bool NanProp = false>
inline typename K::C applyBin(typename K::C a, typename K::C b) {
  using C = typename K::C;
  if constexpr (K::isFloat) {
    if constexpr (B == Bin::Add) return a + b;
    if constexpr (B == Bin::Sub) return a - b;
    if constexpr (B == Bin::Mul) return a * b;
    if constexpr (B == Bin::Div) return a / b;
    if constexpr (B == Bin::Rem) return std::fmod(a, b);
    if constexpr (B == Bin::Max || B == Bin::Min) {
      if (std::isnan(a) || std::isnan(b)) {
        if constexpr (NanProp) return a + b;  // a quiet NaN
        return std::isnan(a) ? b : a;
      }
      // -0.0 orders below +0.0, as PTX's min and max order them.
      if (a == b) return std::signbit(a) == (B == Bin::Max) ? b : a;
      if constexpr (B == Bin::Max) return a > b ? a : b;
      return a < b ? a : b;
    }
    // Bitwise ops, shifts and umulhi are rejected for floats before running.
    return a;
  } else {
    using W = Wide<C>;
    constexpr int width = K::bits;
    if constexpr (B == Bin::Add) return static_cast<C>(W(a) + W(b));
    if constexpr (B == Bin::Sub) return static_cast<C>(W(a) - W(b));
    if constexpr (B == Bin::Mul) return static_cast<C>(W(a) * W(b));
    if constexpr (B == Bin::Div || B == Bin::Rem) {
      // No trap: masked-off lanes divide garbage. x/0 = all ones, x%0 = x,
      // INT_MIN / -1 wraps to INT_MIN (and INT_MIN % -1 = 0).
      if (b == 0) return B == Bin::Div ? static_cast<C>(~W(0)) : a;
      if constexpr (K::isSigned) {
        if (a == std::numeric_limits<C>::min() && b == static_cast<C>(-1))
          return B == Bin::Div ? a : C(0);
      }
      if constexpr (B == Bin::Div)
        return static_cast<C>(a / b);
      else
        return static_cast<C>(a % b);
    }
    if constexpr (B == Bin::And) return static_cast<C>(a & b);
    if constexpr (B == Bin::Or) return static_cast<C>(a | b);
    if constexpr (B == Bin::Xor) return static_cast<C>(a ^ b);
    if constexpr (B == Bin::Shl || B == Bin::Shr) {
      // The shift amount as an unsigned number: negative amounts are huge.
      uint64_t s = static_cast<uint64_t>(static_cast<std::make_unsigned_t<C>>(b));
      if constexpr (B == Bin::Shl) {
        if (s >= static_cast<uint64_t>(width)) return 0;
        return static_cast<C>(W(a) << s);
      } else if constexpr (K::isSigned) {
        if (s >= static_cast<uint64_t>(width)) return a < 0 ? C(-1) : C(0);
        return static_cast<C>(a >> s);
      } else {
        if (s >= static_cast<uint64_t>(width)) return 0;
        return static_cast<C>(W(a) >> s);
      }
    }
    if constexpr (B == Bin::Max) return a > b ? a : b;
    if constexpr (B == Bin::Min) return a < b ? a : b;
    if constexpr (B == Bin::Umulhi) {
      using U = std::make_unsigned_t<C>;
      if constexpr (sizeof(C) == 8) {
        __extension__ using U128 = unsigned __int128;
        return static_cast<C>((U128(U(a)) * U128(U(b))) >> 64);
      } else {
        // Multiply in the next wider type; the product of two w-bit
        // unsigned values fits in 2w bits.
        using P = std::conditional_t<(sizeof(C) < 4), uint32_t, uint64_t>;
        P prod = static_cast<P>(static_cast<P>(U(a)) * static_cast<P>(U(b)));
        return static_cast<C>(prod >> width);
      }
    }
    return a;
  }
}

// ---- unary ops ------------------------------------------------------------------
template <class K, Un U>
inline typename K::C applyUn(typename K::C a) {
  using C = typename K::C;
  if constexpr (U == Un::Neg) {
    if constexpr (K::isFloat)
      return -a;
    else
      return static_cast<C>(Wide<C>(0) - Wide<C>(a));
  } else if constexpr (U == Un::Not) {
    if constexpr (K::isFloat)
      return a;  // rejected before running
    else
      return static_cast<C>(~Wide<C>(a));
  } else if constexpr (U == Un::Abs) {
    if constexpr (K::isFloat)
      return std::fabs(a);
    else if constexpr (K::isSigned)
      return a < 0 ? static_cast<C>(Wide<C>(0) - Wide<C>(a)) : a;
    else
      return a;
  } else {
    double d = static_cast<double>(a);
    double r = 0;
    if constexpr (U == Un::Exp) r = std::exp(d);
    if constexpr (U == Un::Exp2) r = K::bits == 64 ? std::exp2(d) : num::exp2Ftz(d);
    if constexpr (U == Un::Log) r = std::log(d);
    if constexpr (U == Un::Log2) r = std::log2(d);
    if constexpr (U == Un::Sqrt) r = std::sqrt(d);
    if constexpr (U == Un::Rsqrt) r = 1.0 / std::sqrt(d);
    if constexpr (U == Un::Sin) r = std::sin(d);
    if constexpr (U == Un::Cos) r = std::cos(d);
    if constexpr (U == Un::Erf) r = std::erf(d);
    if constexpr (U == Un::Floor) r = std::floor(d);
    if constexpr (U == Un::Ceil) r = std::ceil(d);
    return fromDouble<C>(r);
  }
}

// Fused multiply-add with one rounding (for integers: wrapping a*b+c).
template <class K>
inline typename K::C applyFma(typename K::C a, typename K::C b, typename K::C c) {
  using C = typename K::C;
  if constexpr (std::is_same_v<C, float>)
    return std::fmaf(a, b, c);
  else if constexpr (std::is_same_v<C, double>)
    return std::fma(a, b, c);
  else
    return static_cast<C>(Wide<C>(a) * Wide<C>(b) + Wide<C>(c));
}

// Total order used by sort: NaN sorts after every number.
template <class C>
inline bool lessForSort(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

template <class T>
inline T loadBits(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace tessera::interp::detail
