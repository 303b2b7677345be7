// Elementwise ops of the interpreter: arithmetic, comparisons, select, math
// functions, casts, pointer arithmetic, constants and Philox.
//
// Every op switches on the dtype once and then runs a typed loop over the
// tile (the scalar semantics come from interp_scalar.h). An operand with a
// single element is read with stride 0, which is how scalars combine with
// tiles when IR was built without an explicit splat.
// The element loops need GCC's full vectoriser (-O2 only vectorises loops
// whose trip count is known); clang vectorises them at -O2 already.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#include <cmath>
#include <cstring>

#include "interp/interp_impl.h"
#include "interp/interp_scalar.h"

namespace tessera::interp::detail {

namespace {

inline int64_t strideOf(const Frame &f, uint32_t operand, int64_t n) {
  return f.info(operand).numel == n ? 1 : 0;
}

template <class K, Bin B, bool NP>
void binLoop(const typename K::S *__restrict a, int64_t sa, const typename K::S *__restrict b,
             int64_t sb, typename K::S *__restrict o, int64_t n) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = K::put(applyBin<K, B, NP>(K::get(a[i]), K::get(b[i])));
  } else {
    for (int64_t i = 0; i < n; ++i)
      o[i] = K::put(applyBin<K, B, NP>(K::get(a[i * sa]), K::get(b[i * sb])));
  }
}

template <Bin B, bool NP>
void binary(Frame &f, const Inst &in) {
  int64_t n = f.info(in.out[0]).numel;
  withCodec(f.info(in.out[0]).dtype, [&](auto k) {
    using K = decltype(k);
    using S = typename K::S;
    binLoop<K, B, NP>(f.at<S>(in.in[0]), strideOf(f, in.in[0], n), f.at<S>(in.in[1]),
                      strideOf(f, in.in[1], n), f.at<S>(in.out[0]), n);
  });
}

template <class K, Pred P>
inline bool cmpOne(typename K::S a, typename K::S b) {
  auto x = K::get(a);
  auto y = K::get(b);
  // C++'s operators are IEEE's: ordered, except != which is true for NaN.
  if constexpr (P == Pred::Eq) return x == y;
  if constexpr (P == Pred::Ne) return x != y;
  if constexpr (P == Pred::Lt) return x < y;
  if constexpr (P == Pred::Le) return x <= y;
  if constexpr (P == Pred::Gt) return x > y;
  if constexpr (P == Pred::Ge) return x >= y;
  return false;
}

template <class K, Pred P>
void cmpLoop(const typename K::S *__restrict a, int64_t sa, const typename K::S *__restrict b,
             int64_t sb, uint8_t *__restrict o, int64_t n) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = cmpOne<K, P>(a[i], b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = cmpOne<K, P>(a[i * sa], b[i * sb]);
  }
}

template <class K, Un U>
void unLoop(const typename K::S *__restrict a, int64_t sa, typename K::S *__restrict o, int64_t n) {
  if (sa == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = K::put(applyUn<K, U>(K::get(a[i])));
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = K::put(applyUn<K, U>(K::get(a[i * sa])));
  }
}

template <class S>
void addPtrLoop(const uint64_t *__restrict p, int64_t sp, const S *__restrict off, int64_t so,
                uint64_t *__restrict o, int64_t n, unsigned shift) {
  // Offsets are sign-extended by dtype, then the address wraps mod 2^64.
  // Element sizes are powers of two: a shift, which vectorises without
  // 64-bit multiplies.
  if constexpr (sizeof(S) == 8) {
    // A 64-bit offset can leave the address space: p + 2^62 * 4 would wrap
    // to p itself and pass every bounds check. Such an address becomes
    // kOverflowedAddress-tagged (never inside a buffer: user addresses are
    // below 2^63), an error only if an unmasked access uses it.
    for (int64_t i = 0; i < n; ++i) {
      int64_t e = static_cast<int64_t>(off[i * so]), addr = 0;
      const uint64_t base = p[i * sp];
      bool over =
          e > (INT64_MAX >> shift) || e < (INT64_MIN >> shift) || base >= kOverflowedAddress ||
          __builtin_add_overflow(static_cast<int64_t>(base), e * (int64_t{1} << shift), &addr) ||
          addr < 0;
      o[i] = over ? kOverflowedAddress | (base & 0xFFFF'FFFF'FFFFu) : static_cast<uint64_t>(addr);
    }
  } else if (sp == 1 && so == 1) {
    for (int64_t i = 0; i < n; ++i)
      o[i] = p[i] + (static_cast<uint64_t>(static_cast<int64_t>(off[i])) << shift);
  } else {
    for (int64_t i = 0; i < n; ++i)
      o[i] = p[i * sp] + (static_cast<uint64_t>(static_cast<int64_t>(off[i * so])) << shift);
  }
}

template <Un U>
void unary(Frame &f, const Inst &in) {
  int64_t n = f.info(in.out[0]).numel;
  withCodec(f.info(in.out[0]).dtype, [&](auto k) {
    using K = decltype(k);
    using S = typename K::S;
    unLoop<K, U>(f.at<S>(in.in[0]), strideOf(f, in.in[0], n), f.at<S>(in.out[0]), n);
  });
}

// Integer -> double for the narrow float targets: exact below 2^53, and
// rounded to odd above, so the second rounding (to f16/bf16/fp8) is correct.
inline double u64ToDoubleOdd(uint64_t m) {
  if (m < (uint64_t(1) << 53)) return static_cast<double>(m);
  int sh = 64 - __builtin_clzll(m) - 53;
  uint64_t kept = m >> sh;
  if (m & ((uint64_t(1) << sh) - 1)) kept |= 1;
  return std::ldexp(static_cast<double>(kept), sh);
}
template <class C>
inline double intToDouble(C x) {
  if constexpr (sizeof(C) < 8) {
    return static_cast<double>(x);
  } else if constexpr (std::is_signed_v<C>) {
    if (x < 0) return -u64ToDoubleOdd(uint64_t(0) - static_cast<uint64_t>(x));
    return u64ToDoubleOdd(static_cast<uint64_t>(x));
  } else {
    return u64ToDoubleOdd(x);
  }
}

// Rounds `d` to the float codec KD toward zero.
template <class KD>
typename KD::S roundTowardZero(double d) {
  if constexpr (std::is_same_v<KD, F64K>) {
    return d;
  } else if constexpr (std::is_same_v<KD, F32K>) {
    float r = static_cast<float>(d);
    if (std::fabs(static_cast<double>(r)) > std::fabs(d)) r = std::nextafter(r, 0.0f);
    return r;
  } else {
    typename KD::S bits = KD::put(d);
    // The formats are sign-magnitude: one step down in the magnitude bits is
    // one step toward zero (and turns an overflow to inf into the max finite).
    if (!std::isnan(d) && std::fabs(KD::get(bits)) > std::fabs(d))
      bits = static_cast<typename KD::S>(bits - 1);
    // ...but in the fnuz formats the code below 0x81 is the NaN, 0x80: a
    // negative value that truncates to zero is +0 there.
    if constexpr (std::is_same_v<KD, F8E4B8K> || std::is_same_v<KD, F8E5B16K>)
      if (bits == 0x80 && !std::isnan(d)) bits = 0;
    return bits;
  }
}

template <class KS, class KD>
inline typename KD::S convert(typename KS::S sv, bool rtz) {
  using CD = typename KD::C;
  auto x = KS::get(sv);
  if constexpr (std::is_same_v<KD, BoolK>) {
    return x != 0 ? 1 : 0;
  } else if constexpr (KD::isFloat) {
    if constexpr (KS::isFloat) {
      double d = static_cast<double>(x);
      if (rtz) return roundTowardZero<KD>(d);
      return KD::put(static_cast<CD>(d));
    } else if constexpr (std::is_same_v<KD, F32K> || std::is_same_v<KD, F64K>) {
      return static_cast<CD>(x);  // the hardware conversion rounds to nearest even
    } else {
      return KD::put(intToDouble(x));
    }
  } else if constexpr (KS::isFloat) {
    return KD::put(satFromDouble<CD>(static_cast<double>(x)));
  } else {
    return KD::put(static_cast<CD>(x));  // wraps (C++20 conversions are modular)
  }
}

}  // namespace

void execBinary(Frame &f, const Inst &in) {
  switch (static_cast<Bin>(in.sub)) {
    case Bin::Add:
      return binary<Bin::Add, false>(f, in);
    case Bin::Sub:
      return binary<Bin::Sub, false>(f, in);
    case Bin::Mul:
      return binary<Bin::Mul, false>(f, in);
    case Bin::Div:
      return binary<Bin::Div, false>(f, in);
    case Bin::Rem:
      return binary<Bin::Rem, false>(f, in);
    case Bin::And:
      return binary<Bin::And, false>(f, in);
    case Bin::Or:
      return binary<Bin::Or, false>(f, in);
    case Bin::Xor:
      return binary<Bin::Xor, false>(f, in);
    case Bin::Shl:
      return binary<Bin::Shl, false>(f, in);
    case Bin::Shr:
      return binary<Bin::Shr, false>(f, in);
    case Bin::Max:
      return in.flag ? binary<Bin::Max, true>(f, in) : binary<Bin::Max, false>(f, in);
    case Bin::Min:
      return in.flag ? binary<Bin::Min, true>(f, in) : binary<Bin::Min, false>(f, in);
    case Bin::Umulhi:
      return binary<Bin::Umulhi, false>(f, in);
  }
}

void execUnary(Frame &f, const Inst &in) {
  switch (static_cast<Un>(in.sub)) {
    case Un::Neg:
      return unary<Un::Neg>(f, in);
    case Un::Not:
      return unary<Un::Not>(f, in);
    case Un::Exp:
      return unary<Un::Exp>(f, in);
    case Un::Exp2:
      return unary<Un::Exp2>(f, in);
    case Un::Log:
      return unary<Un::Log>(f, in);
    case Un::Log2:
      return unary<Un::Log2>(f, in);
    case Un::Sqrt:
      return unary<Un::Sqrt>(f, in);
    case Un::Rsqrt:
      return unary<Un::Rsqrt>(f, in);
    case Un::Sin:
      return unary<Un::Sin>(f, in);
    case Un::Cos:
      return unary<Un::Cos>(f, in);
    case Un::Abs:
      return unary<Un::Abs>(f, in);
    case Un::Erf:
      return unary<Un::Erf>(f, in);
    case Un::Floor:
      return unary<Un::Floor>(f, in);
    case Un::Ceil:
      return unary<Un::Ceil>(f, in);
  }
}

void execCmp(Frame &f, const Inst &in) {
  int64_t n = f.info(in.out[0]).numel;
  withCodec(f.info(in.in[0]).arith(), [&](auto k) {
    using K = decltype(k);
    using S = typename K::S;
    const S *a = f.at<S>(in.in[0]);
    const S *b = f.at<S>(in.in[1]);
    int64_t sa = strideOf(f, in.in[0], n), sb = strideOf(f, in.in[1], n);
    uint8_t *o = f.at<uint8_t>(in.out[0]);
    switch (static_cast<Pred>(in.sub)) {
      case Pred::Eq:
        return cmpLoop<K, Pred::Eq>(a, sa, b, sb, o, n);
      case Pred::Ne:
        return cmpLoop<K, Pred::Ne>(a, sa, b, sb, o, n);
      case Pred::Lt:
        return cmpLoop<K, Pred::Lt>(a, sa, b, sb, o, n);
      case Pred::Le:
        return cmpLoop<K, Pred::Le>(a, sa, b, sb, o, n);
      case Pred::Gt:
        return cmpLoop<K, Pred::Gt>(a, sa, b, sb, o, n);
      case Pred::Ge:
        return cmpLoop<K, Pred::Ge>(a, sa, b, sb, o, n);
    }
  });
}

void execSelect(Frame &f, const Inst &in) {
  int64_t n = f.info(in.out[0]).numel;
  const uint8_t *c = f.at<uint8_t>(in.in[0]);
  int64_t sc = strideOf(f, in.in[0], n), sa = strideOf(f, in.in[1], n),
          sb = strideOf(f, in.in[2], n);
  withSize(f.info(in.out[0]).esize, [&](auto t) {
    using T = decltype(t);
    const T *__restrict a = f.at<T>(in.in[1]);
    const T *__restrict b = f.at<T>(in.in[2]);
    T *__restrict o = f.at<T>(in.out[0]);
    if (sc == 1 && sa == 1 && sb == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? a[i] : b[i];
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = c[i * sc] ? a[i * sa] : b[i * sb];
    }
  });
}

void execFma(Frame &f, const Inst &in) {
  int64_t n = f.info(in.out[0]).numel;
  withCodec(f.info(in.out[0]).dtype, [&](auto k) {
    using K = decltype(k);
    using S = typename K::S;
    const S *a = f.at<S>(in.in[0]), *b = f.at<S>(in.in[1]), *c = f.at<S>(in.in[2]);
    int64_t sa = strideOf(f, in.in[0], n), sb = strideOf(f, in.in[1], n),
            sc = strideOf(f, in.in[2], n);
    S *o = f.at<S>(in.out[0]);
    for (int64_t i = 0; i < n; ++i)
      o[i] = K::put(applyFma<K>(K::get(a[i * sa]), K::get(b[i * sb]), K::get(c[i * sc])));
  });
}

void execClamp(Frame &f, const Inst &in) {
  int64_t n = f.info(in.out[0]).numel;
  withCodec(f.info(in.out[0]).dtype, [&](auto k) {
    using K = decltype(k);
    using S = typename K::S;
    const S *x = f.at<S>(in.in[0]), *lo = f.at<S>(in.in[1]), *hi = f.at<S>(in.in[2]);
    int64_t sx = strideOf(f, in.in[0], n), sl = strideOf(f, in.in[1], n),
            sh = strideOf(f, in.in[2], n);
    S *o = f.at<S>(in.out[0]);
    auto body = [&](auto np) {
      constexpr bool NP = decltype(np)::value;
      for (int64_t i = 0; i < n; ++i) {
        auto v = applyBin<K, Bin::Max, NP>(K::get(x[i * sx]), K::get(lo[i * sl]));
        o[i] = K::put(applyBin<K, Bin::Min, NP>(v, K::get(hi[i * sh])));
      }
    };
    if (in.flag)
      body(std::true_type{});
    else
      body(std::false_type{});
  });
}

void execCast(Frame &f, const Inst &in) {
  int64_t n = f.info(in.out[0]).numel;
  bool rtz = in.flag;
  withCodec(f.info(in.in[0]).arith(), [&](auto ks) {
    using KS = decltype(ks);
    withCodec(f.info(in.out[0]).arith(), [&](auto kd) {
      using KD = decltype(kd);
      const typename KS::S *__restrict s = f.at<typename KS::S>(in.in[0]);
      typename KD::S *__restrict d = f.at<typename KD::S>(in.out[0]);
      for (int64_t i = 0; i < n; ++i) d[i] = convert<KS, KD>(s[i], rtz);
    });
  });
}

void execBitcast(Frame &f, const Inst &in) {
  const SlotInfo &r = f.info(in.out[0]);
  std::memcpy(f.at(in.out[0]), f.at(in.in[0]), static_cast<size_t>(r.numel) * r.esize);
}

void execAddPtr(Frame &f, const Inst &in) {
  const SlotInfo &r = f.info(in.out[0]);
  int64_t n = r.numel;
  unsigned shift = static_cast<unsigned>(__builtin_ctz(static_cast<unsigned>(byteSize(r.dtype))));
  const uint64_t *p = f.at<uint64_t>(in.in[0]);
  int64_t sp = strideOf(f, in.in[0], n), so = strideOf(f, in.in[1], n);
  uint64_t *o = f.at<uint64_t>(in.out[0]);
  withCodec(f.info(in.in[1]).dtype, [&](auto k) {
    using K = decltype(k);
    using S = typename K::S;
    if constexpr (!K::isFloat) addPtrLoop<S>(p, sp, f.at<S>(in.in[1]), so, o, n, shift);
  });
}

uint64_t constantBits(DType dt, bool isIntValue, int64_t iv, double fv) {
  return withCodec(dt, [&](auto k) -> uint64_t {
    using K = decltype(k);
    using S = typename K::S;
    using C = typename K::C;
    S s;
    if constexpr (std::is_same_v<K, BoolK>) {
      s = isIntValue ? (iv != 0) : (fv != 0);
    } else if constexpr (K::isFloat) {
      s = isIntValue ? convert<IntK<int64_t>, K>(iv, false) : K::put(static_cast<C>(fv));
    } else {
      s = isIntValue ? static_cast<S>(iv) : satFromDouble<C>(fv);
    }
    uint64_t bits = 0;
    std::memcpy(&bits, &s, sizeof(S));
    return bits;
  });
}

void execConstant(Frame &f, const Inst &in) {
  const SlotInfo &r = f.info(in.out[0]);
  withSize(r.esize, [&](auto t) {
    using T = decltype(t);
    T v = static_cast<T>(in.bits);
    T *o = f.at<T>(in.out[0]);
    for (int64_t i = 0; i < r.numel; ++i) o[i] = v;
  });
}

void execArange(Frame &f, const Inst &in) {
  const SlotInfo &r = f.info(in.out[0]);
  for (int64_t i = 0; i < r.numel; ++i) writeInt(f, in.out[0], i, in.a + i);
}

int64_t readInt(const Frame &f, uint32_t slot, int64_t i) {
  return withCodec(f.info(slot).arith(), [&](auto k) -> int64_t {
    using K = decltype(k);
    auto v = K::get(f.at<typename K::S>(slot)[i]);
    if constexpr (K::isFloat)
      return satFromDouble<int64_t>(static_cast<double>(v));
    else
      return static_cast<int64_t>(v);
  });
}

void writeInt(Frame &f, uint32_t slot, int64_t i, int64_t v) {
  withCodec(f.info(slot).arith(), [&](auto k) {
    using K = decltype(k);
    f.at<typename K::S>(slot)[i] = convert<IntK<int64_t>, K>(v, false);
  });
}

void execPhilox(Frame &f, const Inst &in) {
  int64_t n = f.info(in.out[0]).numel;
  int64_t ss = strideOf(f, in.in[0], n), so = strideOf(f, in.in[1], n);
  int es = f.info(in.in[0]).esize, eo = f.info(in.in[1]).esize;
  const char *seed = f.at(in.in[0]);
  const char *off = f.at(in.in[1]);
  uint32_t *out[4];
  for (int j = 0; j < 4; ++j) out[j] = f.at<uint32_t>(in.out[j]);
  int rounds = static_cast<int>(in.a);
  for (int64_t i = 0; i < n; ++i) {
    // Raw bits, zero-extended: a 32-bit seed or offset has high word 0.
    uint64_t s = 0, o = 0;
    std::memcpy(&s, seed + i * ss * es, static_cast<size_t>(es));
    std::memcpy(&o, off + i * so * eo, static_cast<size_t>(eo));
    uint32_t c[4] = {static_cast<uint32_t>(o), static_cast<uint32_t>(o >> 32), 0, 0};
    num::philox4x32(c, static_cast<uint32_t>(s), static_cast<uint32_t>(s >> 32), rounds);
    for (int j = 0; j < 4; ++j) out[j][i] = c[j];
  }
}

}  // namespace tessera::interp::detail
