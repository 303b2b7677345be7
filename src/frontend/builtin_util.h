// Helpers shared by the builtins_*.cpp tables.
#pragma once

#include <string>
#include <vector>

#include "frontend/lowering.h"

namespace tessera::frontend {

// Tile shapes must be compile-time powers of two; numel within Triton's limit.
std::vector<int64_t> blockShape(Lowerer &l, const SVal &v, SourceLoc loc, const std::string &what);
bool isPowerOfTwo(int64_t v);

// Reduces `operands` along `axis` with a region built by `combine`, which is
// given the builder positioned in the region and the lhs/rhs arguments and
// returns the combined values. Returns the reduced values (scalars when the
// input is 1-D).
using CombineBuilder = std::function<std::vector<Value *>(
    Lowerer &, const std::vector<Value *> &lhs, const std::vector<Value *> &rhs, SourceLoc)>;
std::vector<Value *> buildReduce(Lowerer &l, const std::vector<Value *> &operands, int64_t axis,
                                 const CombineBuilder &combine, SourceLoc loc,
                                 OpCode code = OpCode::Reduce,
                                 std::vector<NamedAttr> extraAttrs = {});
CombineBuilder simpleCombine(OpCode op, std::vector<NamedAttr> attrs = {});
// The one element of a tile of one element, as a scalar (x.item(), an `if`
// on such a tile); `what` names the value for the error on other tiles.
Value *oneElementScalar(Lowerer &l, Value *tile, SourceLoc loc, const std::string &what);

// Normalises a possibly negative axis against `rank`.
int64_t normalizeAxis(Lowerer &l, const SVal &axis, int rank, SourceLoc loc);

// The element dtype check of Triton's math functions.
void requireFloat32or64(Lowerer &l, Value *v, const std::string &fn, SourceLoc loc);

// A tensor argument with the others broadcast and promoted to a common
// dtype (Triton's binary_op_type_checking_impl over several operands).
std::vector<Value *> promoteAll(Lowerer &l, const std::vector<SVal> &vals, SourceLoc loc,
                                bool divOrMod = false);

Type tileOf(const std::vector<int64_t> &shape, DType d);

// A block of a strided tensor: block pointers and tensor descriptors. shape
// and strides are i64 scalars, offsets i32 scalars (one per dim of `block`).
struct BlockParts {
  Value *base;
  std::vector<Value *> shape, strides, offsets;
  std::vector<int64_t> block;
};

// The pointers of every element of the block and, for the `checked` dims,
// the mask 0 <= offset_d + i_d < shape_d (null when no dim is checked).
void blockAddresses(Lowerer &l, const BlockParts &p, const std::vector<int64_t> &checked,
                    SourceLoc loc, Value *&ptrs, Value *&mask);

}  // namespace tessera::frontend
