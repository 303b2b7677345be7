// tl.dot in the interpreter: [M,K] x [K,N] + [M,N], and the batched 3-D form.
//
// Operands are first decoded into float (or double, when anything is f64)
// scratch arrays, fp32 operands cut to TF32 for input_precision "tf32"
// (tf32x3 splits each operand into a TF32 head and a TF32 tail and sums three
// products, as Triton does). Every output accumulates sequentially over k
// with a fused multiply-add, then rounds once to the result dtype. Integer
// dots accumulate in 32 bits (64 when the accumulator is 64-bit), wrapping.
// max_num_imprecise_acc only matters for fp8 on Hopper and is ignored here.
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

struct DotShape {
  int64_t batch = 1, M = 1, K = 1, N = 1;
};

// Decodes `n` elements of `slot` into T (a float type or an unsigned
// accumulator type for integer dots).
template <class T>
void decode(const Frame &f, uint32_t slot, T *dst, int64_t n) {
  withCodec(f.info(slot).dtype, [&](auto k) {
    using K = decltype(k);
    const typename K::S *src = f.at<typename K::S>(slot);
    // fp16 and bf16 straight to float, not through double.
    if constexpr (std::is_same_v<T, float> && std::is_same_v<K, F16K>) {
      for (int64_t i = 0; i < n; ++i) dst[i] = num::f16ToFloat(src[i]);
      return;
    }
    if constexpr (std::is_same_v<T, float> && std::is_same_v<K, BF16K>) {
      for (int64_t i = 0; i < n; ++i) dst[i] = num::bf16ToFloat(src[i]);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>)
        dst[i] = static_cast<T>(K::get(src[i]));
      else if constexpr (K::isFloat)
        dst[i] = static_cast<T>(satFromDouble<int64_t>(K::get(src[i])));
      else
        dst[i] = static_cast<T>(static_cast<int64_t>(K::get(src[i])));  // sign-extends
    }
  });
}

template <class T>
void encode(Frame &f, uint32_t slot, const T *src, int64_t n) {
  withCodec(f.info(slot).dtype, [&](auto k) {
    using K = decltype(k);
    using C = typename K::C;
    typename K::S *dst = f.at<typename K::S>(slot);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        if constexpr (K::isFloat) dst[i] = K::put(static_cast<C>(src[i]));
      } else {
        // Wrap the accumulator to the result's width.
        dst[i] = K::put(static_cast<C>(static_cast<std::make_signed_t<T>>(src[i])));
      }
    }
  });
}

// acc[b,m,:] += a[b,m,k] * b[b,k,:], k in order; one fma per step. Inlined
// into gemmF32/gemmF64, which are built twice (with and without FMA
// instructions) and picked at load time, so the inner loop vectorises where
// the CPU has FMA. (The clones are on the plain functions: Clang has no
// target_clones on templates.)
template <class T>
__attribute__((always_inline)) inline void gemmFma(const T *a, const T *b, T *acc, DotShape s) {
  for (int64_t bt = 0; bt < s.batch; ++bt)
    for (int64_t m = 0; m < s.M; ++m) {
      T *row = acc + (bt * s.M + m) * s.N;
      for (int64_t k = 0; k < s.K; ++k) {
        T x = a[(bt * s.M + m) * s.K + k];
        const T *brow = b + (bt * s.K + k) * s.N;
        for (int64_t n = 0; n < s.N; ++n) row[n] = std::fma(x, brow[n], row[n]);
      }
    }
}

__attribute__((target_clones("fma", "default"))) void gemmF32(const float *a, const float *b,
                                                              float *acc, DotShape s) {
  gemmFma<float>(a, b, acc, s);
}
__attribute__((target_clones("fma", "default"))) void gemmF64(const double *a, const double *b,
                                                              double *acc, DotShape s) {
  gemmFma<double>(a, b, acc, s);
}

template <class T>
void gemmInt(const T *a, const T *b, T *acc, DotShape s) {
  for (int64_t bt = 0; bt < s.batch; ++bt)
    for (int64_t m = 0; m < s.M; ++m) {
      T *row = acc + (bt * s.M + m) * s.N;
      for (int64_t k = 0; k < s.K; ++k) {
        T x = a[(bt * s.M + m) * s.K + k];
        const T *brow = b + (bt * s.K + k) * s.N;
        for (int64_t n = 0; n < s.N; ++n) row[n] = static_cast<T>(row[n] + x * brow[n]);
      }
    }
}

template <class T>
T *scratchOf(Frame &f, int i, int64_t n) {
  return reinterpret_cast<T *>(f.scratchBytes(i, static_cast<size_t>(n) * sizeof(T)));
}

template <class T>
void dotFloat(Frame &f, const Inst &in, DotShape s) {
  int64_t na = s.batch * s.M * s.K, nb = s.batch * s.K * s.N, nc = s.batch * s.M * s.N;
  DotPrec prec = static_cast<DotPrec>(in.sub);
  bool tf32 = std::is_same_v<T, float> && prec != DotPrec::Ieee;
  // Scratch 0/1: a and b heads (and tails for tf32x3), scratch 2: acc.
  T *a = scratchOf<T>(f, 0, tf32 ? 2 * na : na);
  T *b = scratchOf<T>(f, 1, tf32 ? 2 * nb : nb);
  T *acc = scratchOf<T>(f, 2, nc);
  decode(f, in.in[0], a, na);
  decode(f, in.in[1], b, nb);
  decode(f, in.in[2], acc, nc);
  auto gemm = [&](const T *x, const T *y) {
    if constexpr (std::is_same_v<T, float>)
      gemmF32(x, y, acc, s);
    else
      gemmF64(x, y, acc, s);
  };
  if (tf32) {
    if constexpr (std::is_same_v<T, float>) {
      bool fa = f.info(in.in[0]).dtype == DType::F32, fb = f.info(in.in[1]).dtype == DType::F32;
      auto split = [&](float *x, int64_t n, bool isF32) {
        for (int64_t i = 0; i < n; ++i) {
          float head = isF32 ? num::toTF32(x[i], false) : x[i];
          x[n + i] = isF32 ? num::toTF32(x[i] - head, false) : 0.0f;
          x[i] = head;
        }
      };
      split(a, na, fa);
      split(b, nb, fb);
      if (prec == DotPrec::Tf32x3) {
        gemm(a + na, b);  // tail x head
        gemm(a, b + nb);  // head x tail
      }
    }
  }
  gemm(a, b);
  encode(f, in.out[0], acc, nc);
}

template <class T>
void dotInt(Frame &f, const Inst &in, DotShape s) {
  int64_t na = s.batch * s.M * s.K, nb = s.batch * s.K * s.N, nc = s.batch * s.M * s.N;
  T *a = scratchOf<T>(f, 0, na);
  T *b = scratchOf<T>(f, 1, nb);
  T *acc = scratchOf<T>(f, 2, nc);
  decode(f, in.in[0], a, na);
  decode(f, in.in[1], b, nb);
  decode(f, in.in[2], acc, nc);
  gemmInt(a, b, acc, s);
  encode(f, in.out[0], acc, nc);
}

}  // namespace

void execDot(Frame &f, const Inst &in) {
  const SlotInfo &A = f.info(in.in[0]), &B = f.info(in.in[1]), &Cc = f.info(in.in[2]),
                 &R = f.info(in.out[0]);
  DotShape s;
  int o = A.rank() - 2;
  if (o) s.batch = A.shape[0];
  s.M = A.shape[o];
  s.K = A.shape[o + 1];
  s.N = B.shape[o + 1];
  if (isFloat(A.dtype)) {
    bool wide = A.dtype == DType::F64 || B.dtype == DType::F64 || Cc.dtype == DType::F64 ||
                R.dtype == DType::F64;
    if (wide)
      dotFloat<double>(f, in, s);
    else
      dotFloat<float>(f, in, s);
  } else {
    bool wide = bitWidth(Cc.dtype) == 64 || bitWidth(R.dtype) == 64;
    if (wide)
      dotInt<uint64_t>(f, in, s);
    else
      dotInt<uint32_t>(f, in, s);
  }
}

}  // namespace tessera::interp::detail
