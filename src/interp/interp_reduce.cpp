// Reductions and friends: reduce, scan (inclusive, optionally reversed),
// sort and histogram.
//
// reduce/scan combine sequentially along the axis (acc = f(acc, x[k]), k in
// order), one rounding per combine, on both paths so the fast path and the
// generic path agree bit for bit. The fast path covers a combine region that
// is one add/mul/max/min/and/or/xor of its two arguments; anything else
// (argmax, tuples, custom combines) runs the region per pair with the
// arguments bound in the frame.
// The element loops need GCC's full vectoriser (-O2 only vectorises loops
// whose trip count is known); clang vectorises them at -O2 already.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#include <algorithm>
#include <cstring>

#include "interp/interp_impl.h"
#include "interp/interp_scalar.h"

namespace tessera::interp::detail {

namespace {

// A tile seen as [outer, n, inner] around `axis`.
struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
};

AxisView viewOf(const std::vector<int64_t> &shape, int64_t axis) {
  AxisView v;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < axis) v.outer *= shape[d];
    if (d == axis) v.n = shape[d];
    if (d > axis) v.inner *= shape[d];
  }
  return v;
}

template <class K, Bin B, bool NP>
void reduceFast(const typename K::S *__restrict x, typename K::S *__restrict out, AxisView v) {
  using C = typename K::C;
  for (int64_t o = 0; o < v.outer; ++o) {
    const typename K::S *row = x + o * v.n * v.inner;
    if (v.inner == 1) {
      C acc = K::get(row[0]);
      for (int64_t k = 1; k < v.n; ++k) acc = K::round(applyBin<K, B, NP>(acc, K::get(row[k])));
      out[o] = K::put(acc);
    } else {
      typename K::S *dst = out + o * v.inner;
      std::memcpy(dst, row, static_cast<size_t>(v.inner) * sizeof(*dst));
      for (int64_t k = 1; k < v.n; ++k)
        for (int64_t i = 0; i < v.inner; ++i)
          dst[i] = K::put(applyBin<K, B, NP>(K::get(dst[i]), K::get(row[k * v.inner + i])));
    }
  }
}

template <class K, Bin B, bool NP>
void scanFast(const typename K::S *__restrict x, typename K::S *__restrict out, AxisView v,
              bool reverse) {
  using C = typename K::C;
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      int64_t base = o * v.n * v.inner + i;
      C acc{};
      for (int64_t j = 0; j < v.n; ++j) {
        int64_t k = reverse ? v.n - 1 - j : j;
        C x1 = K::get(x[base + k * v.inner]);
        acc = j == 0 ? x1 : K::round(applyBin<K, B, NP>(acc, x1));
        out[base + k * v.inner] = K::put(acc);
      }
    }
}

template <bool Scan, Bin B, bool NP>
void fastPath(Frame &f, const Inst &in, AxisView v, bool reverse) {
  withCodec(f.info(in.in[0]).dtype, [&](auto k) {
    using K = decltype(k);
    using S = typename K::S;
    if constexpr (Scan)
      scanFast<K, B, NP>(f.at<S>(in.in[0]), f.at<S>(in.out[0]), v, reverse);
    else
      reduceFast<K, B, NP>(f.at<S>(in.in[0]), f.at<S>(in.out[0]), v);
  });
}

template <bool Scan>
void dispatchFast(Frame &f, const Inst &in, AxisView v, bool reverse) {
  bool np = in.b != 0;
  switch (static_cast<Bin>(in.sub)) {
    case Bin::Add:
      return fastPath<Scan, Bin::Add, false>(f, in, v, reverse);
    case Bin::Mul:
      return fastPath<Scan, Bin::Mul, false>(f, in, v, reverse);
    case Bin::Max:
      return np ? fastPath<Scan, Bin::Max, true>(f, in, v, reverse)
                : fastPath<Scan, Bin::Max, false>(f, in, v, reverse);
    case Bin::Min:
      return np ? fastPath<Scan, Bin::Min, true>(f, in, v, reverse)
                : fastPath<Scan, Bin::Min, false>(f, in, v, reverse);
    case Bin::And:
      return fastPath<Scan, Bin::And, false>(f, in, v, reverse);
    case Bin::Or:
      return fastPath<Scan, Bin::Or, false>(f, in, v, reverse);
    case Bin::Xor:
      return fastPath<Scan, Bin::Xor, false>(f, in, v, reverse);
    case Bin::Sub:
    case Bin::Div:
    case Bin::Rem:
    case Bin::Shl:
    case Bin::Shr:
    case Bin::Umulhi:
      break;  // never chosen as fast paths
  }
}

// Runs the combine region per pair, the lhs arguments holding the
// accumulator. Scan writes the accumulator at every step, reduce once per
// lane.
void genericPath(Frame &f, const Inst &in, AxisView v, bool scan, bool reverse) {
  const CBlock &body = f.prog->blocks[in.regions[0]];
  size_t N = in.in.size();
  const uint32_t *lhs = body.args.data(), *rhs = body.args.data() + N;
  const uint32_t *yield = body.term->in.data();
  int es[64];
  int64_t tmpBytes = 0;
  std::vector<int> esv;
  if (N > 64) esv.resize(N);
  int *esz = N > 64 ? esv.data() : es;
  for (size_t j = 0; j < N; ++j) {
    esz[j] = f.info(in.in[j]).esize;
    tmpBytes += esz[j];
  }
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      for (int64_t jj = 0; jj < v.n; ++jj) {
        int64_t k = reverse ? v.n - 1 - jj : jj;
        int64_t pos = (o * v.n + k) * v.inner + i;
        const uint32_t *dst = jj == 0 ? lhs : rhs;
        for (size_t j = 0; j < N; ++j)
          std::memcpy(f.at(dst[j]), f.at(in.in[j]) + pos * esz[j], esz[j]);
        if (jj > 0) {
          if (execBlock(f, body) == Flow::Return)
            runtimeFail(f, in, "'return' inside a combine region");
          // Stage through tmp: a yield may forward another argument. (Taken
          // after the region ran: nested ops may have grown the scratch.)
          char *tmp = f.scratchBytes(3, static_cast<size_t>(tmpBytes));
          char *t = tmp;
          for (size_t j = 0; j < N; t += esz[j], ++j) std::memcpy(t, f.at(yield[j]), esz[j]);
          t = tmp;
          for (size_t j = 0; j < N; t += esz[j], ++j) std::memcpy(f.at(lhs[j]), t, esz[j]);
        }
        if (scan)
          for (size_t j = 0; j < N; ++j)
            std::memcpy(f.at(in.out[j]) + pos * esz[j], f.at(lhs[j]), esz[j]);
      }
      if (!scan)
        for (size_t j = 0; j < N; ++j)
          std::memcpy(f.at(in.out[j]) + (o * v.inner + i) * esz[j], f.at(lhs[j]), esz[j]);
    }
}

}  // namespace

void execReduce(Frame &f, const Inst &in) {
  AxisView v = viewOf(f.info(in.in[0]).shape, in.a);
  if (in.flag)
    dispatchFast<false>(f, in, v, false);
  else
    genericPath(f, in, v, false, false);
}

void execScan(Frame &f, const Inst &in) {
  AxisView v = viewOf(f.info(in.in[0]).shape, in.a);
  bool reverse = !in.ints.empty() && in.ints[0] != 0;
  if (in.flag)
    dispatchFast<true>(f, in, v, reverse);
  else
    genericPath(f, in, v, true, reverse);
}

// Runs the region once per `pack` elements (a last, partial group repeats
// its first element; the extra results are dropped).
void execMapElementwise(Frame &f, const Inst &in) {
  const CBlock &body = f.prog->blocks[in.regions[0]];
  const int64_t pack = in.a, n = f.info(in.out[0]).numel;
  const uint32_t *yield = body.term->in.data();
  for (int64_t base = 0; base < n; base += pack) {
    for (size_t i = 0; i < in.in.size(); ++i) {
      int es = f.info(in.in[i]).esize;
      for (int64_t j = 0; j < pack; ++j) {
        int64_t e = base + j < n ? base + j : base;
        std::memcpy(f.at(body.args[i * pack + j]), f.at(in.in[i]) + e * es, es);
      }
    }
    if (execBlock(f, body) == Flow::Return)
      runtimeFail(f, in, "'return' inside a map_elementwise region");
    for (size_t r = 0; r < in.out.size(); ++r) {
      int es = f.info(in.out[r]).esize;
      for (int64_t j = 0; j < pack && base + j < n; ++j)
        std::memcpy(f.at(in.out[r]) + (base + j) * es, f.at(yield[r * pack + j]), es);
    }
  }
}

void execSort(Frame &f, const Inst &in) {
  const SlotInfo &x = f.info(in.in[0]);
  AxisView v = viewOf(x.shape, in.a);
  bool desc = in.flag;
  withCodec(x.dtype, [&](auto k) {
    using K = decltype(k);
    using S = typename K::S;
    const S *src = f.at<S>(in.in[0]);
    S *dst = f.at<S>(in.out[0]);
    S *lane = reinterpret_cast<S *>(f.scratchBytes(0, static_cast<size_t>(v.n) * sizeof(S)));
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.inner; ++i) {
        int64_t base = o * v.n * v.inner + i;
        for (int64_t j = 0; j < v.n; ++j) lane[j] = src[base + j * v.inner];
        // A strict weak order even with NaNs (they sort last ascending).
        if (desc)
          std::stable_sort(lane, lane + v.n,
                           [](S a, S b) { return lessForSort(K::get(b), K::get(a)); });
        else
          std::stable_sort(lane, lane + v.n,
                           [](S a, S b) { return lessForSort(K::get(a), K::get(b)); });
        for (int64_t j = 0; j < v.n; ++j) dst[base + j * v.inner] = lane[j];
      }
  });
}

void execHistogram(Frame &f, const Inst &in) {
  const SlotInfo &x = f.info(in.in[0]);
  int64_t bins = in.a, n = x.numel;
  int64_t *count =
      reinterpret_cast<int64_t *>(f.scratchBytes(0, static_cast<size_t>(bins) * sizeof(int64_t)));
  std::fill(count, count + bins, 0);
  const uint8_t *mask = in.in.size() > 1 ? f.at<uint8_t>(in.in[1]) : nullptr;
  int64_t sm = mask && f.info(in.in[1]).numel == n ? 1 : 0;
  withCodec(x.dtype, [&](auto k) {
    using K = decltype(k);
    using S = typename K::S;
    if constexpr (!K::isFloat) {
      const S *vals = f.at<S>(in.in[0]);
      for (int64_t i = 0; i < n; ++i) {
        if (mask && !mask[i * sm]) continue;
        S val = vals[i];
        if constexpr (K::isSigned)
          if (val < 0) continue;
        if (static_cast<uint64_t>(val) < static_cast<uint64_t>(bins)) ++count[val];
      }
    }
  });
  for (int64_t b = 0; b < bins; ++b) writeInt(f, in.out[0], b, count[b]);
}

}  // namespace tessera::interp::detail
