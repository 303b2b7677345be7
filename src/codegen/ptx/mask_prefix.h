// Masks that cut a run of elements short: the shape of a bounds check
// along a contiguous dim whose bound axis info cannot align (a K read from
// memory, a tensor descriptor's shape made in the kernel).
//
// A mask is a prefix mask over runs of n along dim d when, in every aligned
// block of n elements along d, it is true for the first k elements and
// false for the rest (k from 0 to n): the AND of terms constant over each
// block and one comparison `x < b` (or `x <= b`, `b > x`, `b >= x`) of
// integers where x counts up by one along the block and b is constant over
// it, reached from the mask through expand_dims and broadcast. A cp.async
// copies such a block in one piece: it reads the first k elements
// (src-size) and fills the rest with zeros, so a masked load whose
// constancy alone would cut it to single elements still moves 16 bytes.
#pragma once

#include <optional>
#include <vector>

#include "ir/ir.h"
#include "passes/axis_info.h"

namespace tessera::ptx {

struct PrefixMask {
  Operation *cmp = nullptr;  // the comparison that ends each run
  Value *x = nullptr;        // its counting operand
  Value *bound = nullptr;    // its constant operand
  bool inclusive = false;    // x <= b: the run keeps b - x0 + 1 elements, else b - x0
  int64_t run = 1;           // n
  // The expand_dims and broadcast ops from the comparison's result to the
  // mask, in that order.
  std::vector<Operation *> path;
};

// The prefix structure of `mask` (an i1 tile) along `dim`, when runs of at
// least 2 elements have one; nullopt otherwise.
std::optional<PrefixMask> prefixMask(const AxisInfoMap &info, Value *mask, int dim);

// Builds, at b's point, `bound - x` carried along p.path to the mask's
// shape: for the first element of each run, the number of elements the run
// keeps (for a strict comparison; one fewer for an inclusive one),
// computed modulo 2^width, which is exact wherever the mask is true.
Value *buildPrefixLimit(Builder &b, const PrefixMask &p);

}  // namespace tessera::ptx
