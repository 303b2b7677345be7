// combine-broadcast-dot: `tl.sum(a[:, :, None] * b[None, :, :], axis=1)`
// becomes `tl.dot(a, b, input_precision="ieee")`.
//
// Requires: valid Tile IR; constants folded (canonicalize), so expand_dims
// and reduce axes are non-negative.
// Guarantees: a `reduce` over axis 1 of one float32 or float64 rank-3 tile,
// whose combine region is one `add` of its two arguments, of a `mul` (either
// operand order) of broadcast(expand_dims(a, axis=2)) and
// broadcast(expand_dims(b, axis=0)), with a M x K and b K x N and M, N, K at
// least 16, is replaced by a dot of a and b accumulating into a new zero
// constant, "ieee" precision, placed just before the reduce. The mul,
// broadcasts and expand_dims are left for dce.
// Preserves: every other op, op order otherwise, locations.
//
// Why: the broadcast product is an M x K x N tile (128 x 32 x 32 fp32 is
// 512 KiB: far past the registers of a thread block, so it spills, and on
// the interpreter it is a tile allocated per iteration) where the dot
// needs none; code generators (PyTorch's inductor among them) write matrix
// products this way. Triton combines the same pattern. "ieee" keeps the
// products exact in the input type, as the multiply was; the sum differs
// only by rounding order (a fused multiply-add per product rather than a
// rounded product, then the add).
#include "passes/pass_utils.h"

namespace tessera {
namespace {

using namespace passes;

// `v` as broadcast(expand_dims(x, axis)) of a rank-2 x: x, else null.
Value *broadcastOfExpanded(Value *v, int64_t axis) {
  Operation *bc = v->def;
  if (!bc || bc->code != OpCode::Broadcast) return nullptr;
  Operation *ex = bc->operand(0)->def;
  if (!ex || ex->code != OpCode::ExpandDims || ex->intAttr("axis", -1) != axis) return nullptr;
  Value *x = ex->operand(0);
  return x->type.isTile() && x->type.rank() == 2 ? x : nullptr;
}

// Whether the reduce's combine region is `yield add(arg0, arg1)`.
bool combinesByAdding(const Operation &reduce) {
  if (reduce.regions.size() != 1) return false;
  const Block &body = *reduce.regions[0];
  if (body.args.size() != 2 || body.ops.size() != 2) return false;
  const Operation &add = *body.ops.front(), &yield = *body.ops.back();
  if (add.code != OpCode::Add || yield.code != OpCode::Yield || yield.operands.size() != 1 ||
      yield.operand(0) != add.result(0))
    return false;
  const Value *x = body.args[0].get(), *y = body.args[1].get();
  return (add.operand(0) == x && add.operand(1) == y) ||
         (add.operand(0) == y && add.operand(1) == x);
}

// The dot replacing reduce `op`, created before it, or null.
Value *asDot(Operation *op) {
  if (op->code != OpCode::Reduce || op->operands.size() != 1 || op->results.size() != 1 ||
      op->intAttr("axis", -1) != 1 || !combinesByAdding(*op))
    return nullptr;
  const Type &t = op->operand(0)->type;
  if (!t.isTile() || t.rank() != 3 || (t.dtype != DType::F32 && t.dtype != DType::F64))
    return nullptr;
  Operation *mul = op->operand(0)->def;
  if (!mul || mul->code != OpCode::Mul) return nullptr;
  for (unsigned i = 0; i < 2; ++i) {
    Value *a = broadcastOfExpanded(mul->operand(i), 2);
    Value *b = broadcastOfExpanded(mul->operand(1 - i), 0);
    if (!a || !b || a->type.dtype != t.dtype || b->type.dtype != t.dtype) continue;
    int64_t M = a->type.shape[0], K = a->type.shape[1], N = b->type.shape[1];
    if (b->type.shape[0] != K || t.shape != std::vector<int64_t>{M, K, N}) continue;
    if (M < 16 || N < 16 || K < 16) return nullptr;
    Builder builder;
    builder.setInsertionPointBefore(op);
    builder.setLoc(op->loc);
    Type rt = op->result(0)->type;
    Value *zero = builder.constFloat(0.0, rt);
    return builder.op1(
        OpCode::Dot, {a, b, zero}, rt,
        {{"input_precision", std::string("ieee")}, {"max_num_imprecise_acc", int64_t{0}}});
  }
  return nullptr;
}

}  // namespace

void combineBroadcastDot(Module &m) {
  for (auto &fn : m.functions) replaceResults(*fn, asDot);
}

}  // namespace tessera
