// Shared-memory buffers as the GPU passes build them (memdesc.h).
#include "codegen/ptx/memdesc.h"

namespace tessera::ptx {

OneSlot allocateOneSlot(Builder &b, const Type &tile, const SharedLayout &layout) {
  const std::string l = layout.str();
  OneSlot s;
  s.alloc = b.op1(OpCode::LocalAlloc, {},
                  Type::memdesc({1, tile.shape[0], tile.shape[1]}, tile.dtype, l));
  s.slot = b.op1(OpCode::MemDescIndex, {s.alloc, b.constInt(0, Type::scalar(DType::I32))},
                 Type::memdesc(tile.shape, tile.dtype, l));
  return s;
}

Value *transposedView(Builder &b, Value *buffer, const SharedLayout &layout) {
  const Type &t = buffer->type;
  SharedLayout flipped = layout;
  flipped.contig = 1 - flipped.contig;
  return b.op1(OpCode::MemDescTrans, {buffer},
               Type::memdesc({t.shape[1], t.shape[0]}, t.dtype, flipped.str()));
}

}  // namespace tessera::ptx
