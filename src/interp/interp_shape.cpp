// Shape ops of the interpreter: splat, broadcast, expand_dims/reshape/hint,
// permute, join, split, cat, flip and gather.
//
// They move bits only, so they dispatch on the element size, not the dtype,
// and most reduce to one strided copy (source and destination strides in
// elements, any rank) over the row-major tiles.
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

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

template <class T>
void copyDim(const T *src, const int64_t *sstr, T *dst, const int64_t *dstr, const int64_t *shape,
             int rank, int d) {
  int64_t n = shape[d], ss = sstr[d], ds = dstr[d];
  if (d == rank - 1) {
    if (ss == 1 && ds == 1) {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    copyDim(src + i * ss, sstr, dst + i * ds, dstr, shape, rank, d + 1);
}

// dst[idx * dstr] = src[idx * sstr] for every idx in the box `shape`.
void stridedCopy(int esize, const char *src, const std::vector<int64_t> &sstr, char *dst,
                 const std::vector<int64_t> &dstr, const std::vector<int64_t> &shape) {
  if (shape.empty()) {
    std::memcpy(dst, src, static_cast<size_t>(esize));
    return;
  }
  withSize(esize, [&](auto t) {
    using T = decltype(t);
    copyDim(reinterpret_cast<const T *>(src), sstr.data(), reinterpret_cast<T *>(dst), dstr.data(),
            shape.data(), static_cast<int>(shape.size()), 0);
  });
}

}  // namespace

std::string indexStr(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string s = "(";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + ")";
}

void execSplat(Frame &f, const Inst &in) {
  const SlotInfo &r = f.info(in.out[0]);
  const int64_t n = r.numel;
  withSize(r.esize, [&](auto t) {
    using T = decltype(t);
    const T v = *f.at<T>(in.in[0]);
    T *__restrict o = f.at<T>(in.out[0]);
    std::fill(o, o + n, v);  // locals only: the loop vectorises
  });
}

void execBroadcast(Frame &f, const Inst &in) {
  const SlotInfo &x = f.info(in.in[0]), &r = f.info(in.out[0]);
  // Operand dims are aligned to the result's minor dims; size-1 dims repeat.
  std::vector<int64_t> xs = rowMajorStrides(x.shape), sstr(r.shape.size(), 0);
  int off = r.rank() - x.rank();
  for (int i = 0; i < x.rank(); ++i) sstr[i + off] = x.shape[i] == 1 ? 0 : xs[i];
  stridedCopy(r.esize, f.at(in.in[0]), sstr, f.at(in.out[0]), rowMajorStrides(r.shape), r.shape);
}

void execCopy(Frame &f, const Inst &in) {
  const SlotInfo &r = f.info(in.out[0]);
  std::memcpy(f.at(in.out[0]), f.at(in.in[0]), static_cast<size_t>(r.numel) * r.esize);
}

void execPermute(Frame &f, const Inst &in) {
  const SlotInfo &x = f.info(in.in[0]), &r = f.info(in.out[0]);
  std::vector<int64_t> xs = rowMajorStrides(x.shape), sstr(r.shape.size());
  for (int i = 0; i < r.rank(); ++i) sstr[i] = xs[in.ints[i]];
  stridedCopy(r.esize, f.at(in.in[0]), sstr, f.at(in.out[0]), rowMajorStrides(r.shape), r.shape);
}

void execJoin(Frame &f, const Inst &in) {
  const SlotInfo &x = f.info(in.in[0]), &r = f.info(in.out[0]);
  std::vector<int64_t> rs = rowMajorStrides(r.shape);
  rs.pop_back();  // the destination skips every other element
  std::vector<int64_t> xs = rowMajorStrides(x.shape);
  for (int j = 0; j < 2; ++j)
    stridedCopy(r.esize, f.at(in.in[j]), xs, f.at(in.out[0]) + j * r.esize, rs, x.shape);
}

void execSplit(Frame &f, const Inst &in) {
  const SlotInfo &x = f.info(in.in[0]), &r = f.info(in.out[0]);
  std::vector<int64_t> xs = rowMajorStrides(x.shape);
  xs.pop_back();
  std::vector<int64_t> rs = rowMajorStrides(r.shape);
  for (int j = 0; j < 2; ++j)
    stridedCopy(r.esize, f.at(in.in[0]) + j * r.esize, xs, f.at(in.out[j]), rs, r.shape);
}

void execCat(Frame &f, const Inst &in) {
  const SlotInfo &a = f.info(in.in[0]), &b = f.info(in.in[1]);
  size_t na = static_cast<size_t>(a.numel) * a.esize, nb = static_cast<size_t>(b.numel) * b.esize;
  std::memcpy(f.at(in.out[0]), f.at(in.in[0]), na);
  std::memcpy(f.at(in.out[0]) + na, f.at(in.in[1]), nb);
}

void execFlip(Frame &f, const Inst &in) {
  const SlotInfo &r = f.info(in.out[0]);
  std::vector<int64_t> rs = rowMajorStrides(r.shape), sstr = rs;
  sstr[in.a] = -rs[in.a];
  const char *src = f.at(in.in[0]) + (r.shape[in.a] - 1) * rs[in.a] * r.esize;
  stridedCopy(r.esize, src, sstr, f.at(in.out[0]), rs, r.shape);
}

void execGather(Frame &f, const Inst &in) {
  const SlotInfo &x = f.info(in.in[0]), &r = f.info(in.out[0]);
  std::vector<int64_t> xs = rowMajorStrides(x.shape);
  int rank = r.rank();
  int64_t axis = in.a, dim = x.shape[axis];
  std::vector<int64_t> idx(rank, 0);
  withSize(r.esize, [&](auto t) {
    using T = decltype(t);
    const T *src = f.at<T>(in.in[0]);
    T *o = f.at<T>(in.out[0]);
    for (int64_t i = 0; i < r.numel; ++i) {
      int64_t k = readInt(f, in.in[1], i);
      if (k < 0 || k >= dim)
        runtimeFail(f, in,
                    "gather index " + std::to_string(k) + " is out of range for dim " +
                        std::to_string(axis) + " of size " + std::to_string(dim) + " in kernel " +
                        f.prog->fn->name + ": program " + programStr(f) + ", index element " +
                        indexStr(r.shape, i));
      int64_t off = 0;
      for (int d = 0; d < rank; ++d) off += (d == axis ? k : idx[d]) * xs[d];
      o[i] = src[off];
      for (int d = rank - 1; d >= 0; --d) {  // next row-major index
        if (++idx[d] < r.shape[d]) break;
        idx[d] = 0;
      }
    }
  });
}

}  // namespace tessera::interp::detail
