// descriptor_load (ops.def): the block of a tensor descriptor at run-time
// offsets, as desc.load reads it. The op keeps the descriptor's parts
// together so that a GPU pass can hand the copy to the tensor memory
// accelerator (cp.async.bulk.tensor), which needs the descriptor, not a
// tile of pointers. Its meaning is defined once, here, as the masked pointer
// load it expands to; the interpreter runs that expansion, and the GPU
// passes expand every descriptor_load that the copy engine does not serve.
// descriptor_store (desc.store) is the same block written, its meaning the
// masked store it expands to.
#pragma once

#include <functional>
#include <string>

#include "ir/ir.h"

namespace tessera {

// The operands of a descriptor_load of rank n: base, then n shapes (i32; a
// block pointer's are i64), n strides (i64) and n offsets (i32).
struct DescriptorLoadParts {
  Value *base = nullptr;
  std::vector<Value *> shape, strides, offsets;
  std::vector<int64_t> block;
  bool nanPadding = false;
  // The dims whose bounds the load checks (attribute `checks`; every dim
  // when absent). A block pointer's tl.load checks only its
  // boundary_check dims: reading past the others is undefined, which the
  // tensor memory accelerator refines to reading the padding.
  std::vector<bool> checked;
  // The checked dims whose coordinate may be negative and is then read
  // without a lower bound, as the pointer load that descriptors-from-
  // pointers made the op from reads it (attribute `unbounded_below`): the
  // expansion masks only `offset + i < shape` there, and the copy engine,
  // which reads the padding below 0, traps on a negative coordinate.
  std::vector<bool> unboundedBelow;
  // The descriptor itself: base, shapes, strides (what its tensor map is
  // made of, and what must be defined before a loop that makes it).
  std::vector<Value *> descriptor() const;
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
// shape[d] in every checked dim (no lower bound in an unbounded_below dim),
// else the padding (0 or NaN); with no dim checked, an unmasked load. The
// new ops carry the op's location.
void expandDescriptorLoad(Operation &op);

// Replaces descriptor_store `op` by the masked store it means: element i of
// the value goes to the address expandDescriptorLoad reads it from, where
// that load would not read the padding.
void expandDescriptorStore(Operation &op);

// Replaces rank-2 `op` by the load of the transposed block (dims, strides,
// offsets and checks swapped) and a permute back to `op`'s result: the form
// whose last dim is contiguous when `op`'s first stride is 1. The new ops
// carry the op's location; returns the permute's result, which replaced
// `op`'s.
Value *transposeDescriptorLoad(Operation &op);

// Whether `fn` has a descriptor_load or a descriptor_store.
bool hasDescriptorLoads(const Function &fn);

// Expands every descriptor_load and descriptor_store of `fn`, nested regions
// included, that `keep` (where given) does not keep; returns how many it
// expanded.
int expandDescriptorLoads(Function &fn, const std::function<bool(const Operation &)> &keep = {});

}  // namespace tessera
