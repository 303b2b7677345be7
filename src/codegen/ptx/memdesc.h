// Shared-memory buffers as the GPU passes build them in the IR: what the
// passes that stage dot operands (pipeline-dot-operands,
// stage-dot-operands) both write.
#pragma once

#include "codegen/ptx/layout.h"
#include "ir/ir.h"

namespace tessera::ptx {

// A buffer of one slot for a tile of `tile`'s shape and dtype in `layout`:
// `alloc` is the local_alloc of {1, rows, cols} (what local_dealloc frees),
// `slot` its memdesc_index 0 (what copies, stores and dots use).
struct OneSlot {
  Value *alloc = nullptr, *slot = nullptr;
};
OneSlot allocateOneSlot(Builder &b, const Type &tile, const SharedLayout &layout);

// `buffer`, a 2-D memdesc in `layout`, read transposed: a memdesc_trans
// whose shape is swapped and whose contiguous dim is the other one. No data
// moves; a dot reads the same bytes the other way round.
Value *transposedView(Builder &b, Value *buffer, const SharedLayout &layout);

}  // namespace tessera::ptx
