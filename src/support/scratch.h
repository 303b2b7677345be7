// Scratch<T, N>: per-call working arrays of a size known at run time that
// are small in practice (one entry per kernel argument), kept on the stack up
// to N entries so that a launch allocates nothing.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace tessera {

// A buffer of `n` elements: on the stack when n <= N, else on the heap.
template <typename T, size_t N>
class Scratch {
 public:
  explicit Scratch(size_t n) : data_(n <= N ? inline_.data() : (heap_.resize(n), heap_.data())) {}
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  T *data() { return data_; }
  const T *data() const { return data_; }
  T &operator[](size_t i) { return data_[i]; }
  const T &operator[](size_t i) const { return data_[i]; }

 private:
  std::array<T, N> inline_;
  std::vector<T> heap_;
  T *data_;
};

}  // namespace tessera
