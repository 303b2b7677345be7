// descriptor_load (ops.def): the block of a tensor descriptor at run-time
// offsets, as desc.load reads it. The op keeps the descriptor's parts
// together so that a GPU pass can hand the copy to the tensor memory
// accelerator (cp.async.bulk.tensor), which needs the descriptor, not a
// tile of pointers. Its meaning is defined once, here, as the masked pointer
// load it expands to; the interpreter runs that expansion, and the GPU
// passes expand every descriptor_load that the copy engine does not serve.
#pragma once

#include <functional>
#include <string>

#include "ir/ir.h"

namespace tessera {

// The operands of a descriptor_load of rank n: base, then n shapes (i32),
// n strides (i64) and n offsets (i32).
struct DescriptorLoadParts {
  Value *base = nullptr;
  std::vector<Value *> shape, strides, offsets;
  std::vector<int64_t> block;
  bool nanPadding = false;
};
DescriptorLoadParts descriptorLoadParts(const Operation &op);

// The verifier's rule for the op: "" when well formed, else the problem
// (without the mnemonic).
std::string checkDescriptorLoad(const Operation &op);

// The rule of the ops a descriptor_load becomes on the tensor memory
// accelerator (barrier_alloc, barrier_dealloc, tma_copy, barrier_wait,
// tensormap_create).
std::string checkTmaOp(const Operation &op);

// Replaces `op` by the masked load it means: element i of the block reads
// base[sum_d (offsets[d] + i_d) * strides[d]] where 0 <= offsets[d] + i_d <
// shape[d] in every dim, else the padding (0 or NaN). The new ops carry the
// op's location.
void expandDescriptorLoad(Operation &op);

bool hasDescriptorLoads(const Function &fn);

// Expands every descriptor_load of `fn`, nested regions included, that
// `keep` (where given) does not keep; returns how many it expanded.
int expandDescriptorLoads(Function &fn, const std::function<bool(const Operation &)> &keep = {});

}  // namespace tessera
