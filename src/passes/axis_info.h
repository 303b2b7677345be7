// Axis info: what is known about the values of every integer or pointer
// value, per dimension, for vectorised and coalesced memory accesses (the
// facts Triton's AxisInfo computes, derived independently here).
//
// For a value of shape S (a scalar counts as shape [1]) and each dim d, split
// the dim into aligned blocks (index ranges [j*n, (j+1)*n)):
//   contiguity[d] = n: within each block of n along d, consecutive elements
//     are consecutive values (+1 for integers, +sizeof(pointee) bytes for
//     pointers);
//   divisibility[d] = m: the first element of each contiguity block along d
//     is a multiple of m (pointers: its address in bytes);
//   constancy[d] = n: within each block of n along d, all elements are equal.
// All three are powers of two; contiguity and constancy are at most S[d];
// divisibility is capped at kMaxDivisibility (also the divisibility of 0).
// When contiguity[d] == 1 every element is a block start, so every element is
// a multiple of divisibility[d].
//
// Assumption shared with Triton: integer division and remainder by a power
// of two are analysed as if their dividends were non-negative (offsets), so
// `offs // 4` has constancy 4; a kernel dividing negative offsets could be
// vectorised wrongly.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "support/small_vec.h"

namespace tessera {

constexpr int64_t kMaxDivisibility = int64_t{1} << 30;

// One number per dim, in place for up to four dims: the analysis copies these
// for every value it sees, and a heap vector made each copy three mallocs.
using AxisDims = SmallVec<int64_t, 4>;

struct AxisInfo {
  AxisDims contiguity, divisibility, constancy;  // one per dim
  std::optional<int64_t> constant;               // every element equals this (integers)

  int rank() const { return static_cast<int>(contiguity.size()); }
  // Nothing known: every entry 1.
  static AxisInfo unknown(int rank);
  bool operator==(const AxisInfo &) const = default;
};

class AxisInfoMap {
 public:
  // The info of `v`, or null when the analysis did not see `v` (valid until
  // the next set()).
  const AxisInfo *lookup(const Value *v) const;
  // The info of `v`, or unknown() of v's rank when the analysis did not see it.
  AxisInfo get(const Value *v) const;
  void set(const Value *v, AxisInfo info);

 private:
  // The infos sit in one vector and the map holds their indices: an AxisInfo
  // is 200 bytes, and a map of them rehashed (and page-faulted) tens of
  // megabytes each time it doubled on a long kernel.
  PtrMap<const Value *, uint32_t> index_;
  std::vector<AxisInfo> infos_;
};

// Analyses every value of `fn` (nested regions included). Values of float
// type get contiguity and divisibility 1 but a meaningful constancy.
AxisInfoMap analyzeAxisInfo(Function &fn);

// The same facts, computed only for the values that the pointer and mask
// (i1) operands of memory ops (loads, stores, copies, atomics) depend on;
// every other value reads as unknown. The code generators ask about nothing
// else (the vector width of an access), and most of a long kernel is
// arithmetic on loaded floats that never reaches an address: analysing it
// was a fifth of the time to compile one to PTX (issue 13).
AxisInfoMap analyzeMemoryAxisInfo(Function &fn);

// The largest power of two dividing v (kMaxDivisibility for 0), capped.
int64_t highestPow2Divisor(int64_t v);

}  // namespace tessera
