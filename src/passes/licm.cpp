// licm: loop-invariant code motion.
//
// Requires: valid Tile IR.
// Guarantees: a pure, region-free op placed directly in the body of a `for`
// (or in either region of a `while`) whose operands are all defined outside
// the loop is moved to just before the loop; chains of such ops move
// together, and inner loops are treated first so an op can leave several
// loops. Integer division and remainder move only with a constant non-zero
// divisor, since the loop may run zero times and the division was guarded by
// that.
// Preserves: ops with side effects and loads (a store in the loop may change
// what they read), ops nested in an `if` inside the loop (hoisting them
// would execute them unconditionally), op order among the moved ops,
// locations.
#include "passes/pass_utils.h"

namespace tessera {
namespace {

using namespace passes;

bool mayTrapIfHoisted(Operation *op) {
  if (op->code != OpCode::Div && op->code != OpCode::Rem) return false;
  if (op->operands.size() != 2 || !op->result(0)->type.isIntLike()) return false;
  auto c = constantOf(op->operand(1));
  return !c || c->i == 0;
}

bool isInvariant(Operation *op, Operation *loop) {
  if (!isPureOp(*op) || !op->regions.empty() || mayTrapIfHoisted(op)) return false;
  for (Value *v : op->operands)
    if (isDefinedInside(v, loop)) return false;
  return true;
}

void hoistFrom(Operation *loop, Block &body) {
  std::vector<Operation *> ops;
  for (auto &o : body.ops) ops.push_back(o.get());
  // Program order: an op whose operands were just hoisted is seen after them.
  for (Operation *op : ops)
    if (isInvariant(op, loop)) moveBefore(op, loop);
}

void processBlock(Block &b) {
  std::vector<Operation *> ops;
  for (auto &o : b.ops) ops.push_back(o.get());
  for (Operation *op : ops) {
    for (auto &r : op->regions) processBlock(*r);  // inner loops first
    if (isLoop(*op))
      for (auto &r : op->regions) hoistFrom(op, *r);
  }
}

}  // namespace

void licm(Module &m) {
  for (auto &fn : m.functions) processBlock(fn->body);
}

}  // namespace tessera
