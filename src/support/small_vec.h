// A vector of trivially copyable elements that keeps its first N in place and
// moves to the heap only beyond N.
//
// Why: analyses keep a few numbers per dimension for every value of a kernel
// (axis info: contiguity, divisibility and constancy of each dim) and copy
// them as they go from operands to results. With std::vector each copy was a
// malloc and a free, three per value per copy; tiles rarely have more than
// four dims, so in place they cost none (issue 13).
//
// The interface is the subset of std::vector the analyses use; it converts
// from and to std::vector, so shapes and attributes pass through unchanged.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera {

template <class T, size_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVec holds plain values");

 public:
  SmallVec() = default;
  SmallVec(size_t n, T v) { assign(n, v); }
  SmallVec(std::initializer_list<T> l) { assignRange(l.begin(), l.size()); }
  // Implicit, as shapes (std::vector) are assigned to per-dim fields.
  SmallVec(const std::vector<T> &v) { assignRange(v.data(), v.size()); }  // NOLINT
  SmallVec(const SmallVec &) = default;
  SmallVec &operator=(const SmallVec &) = default;
  SmallVec(SmallVec &&o) noexcept { *this = std::move(o); }
  SmallVec &operator=(SmallVec &&o) noexcept {
    if (this == &o) return *this;
    std::copy_n(o.inline_, N, inline_);
    heap_ = std::move(o.heap_);
    size_ = o.size_;
    o.heap_.clear();
    o.size_ = 0;
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T *data() { return size_ > N ? heap_.data() : inline_; }
  const T *data() const { return size_ > N ? heap_.data() : inline_; }
  T *begin() { return data(); }
  T *end() { return data() + size_; }
  const T *begin() const { return data(); }
  const T *end() const { return data() + size_; }
  T &operator[](size_t i) { return data()[i]; }
  const T &operator[](size_t i) const { return data()[i]; }
  T &back() { return data()[size_ - 1]; }

  void assign(size_t n, T v) {
    resize(n);
    std::fill_n(data(), n, v);
  }
  void push_back(T v) {
    resize(size_ + 1);
    back() = v;
  }
  void pop_back() { resize(size_ - 1); }
  void insert(const T *pos, T v) {
    size_t at = static_cast<size_t>(pos - begin());
    resize(size_ + 1);
    T *d = data();
    std::copy_backward(d + at, d + size_ - 1, d + size_);
    d[at] = v;
  }

  // New elements are value-initialised.
  void resize(size_t n) {
    if (n <= N) {
      if (size_ > N) std::copy_n(heap_.data(), n, inline_);
      heap_.clear();
      for (size_t i = size_; i < n; ++i) inline_[i] = T{};
    } else {
      if (size_ <= N) heap_.assign(inline_, inline_ + size_);
      heap_.resize(n);
    }
    size_ = n;
  }

  std::vector<T> toVector() const { return std::vector<T>(begin(), end()); }
  operator std::vector<T>() const { return toVector(); }  // NOLINT

  friend bool operator==(const SmallVec &a, const SmallVec &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  void assignRange(const T *p, size_t n) {
    resize(n);
    std::copy_n(p, n, data());
  }

  T inline_[N] = {};
  std::vector<T> heap_;  // the elements, when more than N
  size_t size_ = 0;
};

}  // namespace tessera
