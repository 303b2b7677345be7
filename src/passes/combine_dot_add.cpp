// combine-dot-add: `acc + tl.dot(a, b)` becomes `tl.dot(a, b, acc)`.
//
// Requires: valid Tile IR whose definitions dominate their uses; constants
// folded (canonicalize), so a dot without an accumulator reads a zero
// `constant`.
// Guarantees: an `add` (either operand order) of a value `d` and the result
// of a dot whose accumulator is a constant zero, whose result has no other
// use, that sits in the same block as the add and whose
// max_num_imprecise_acc is 0, is replaced by that dot accumulating into `d`
// (the dot moves to just before the add, where `d` is defined). The
// zero constant is left for dce.
// Preserves: every other op, op order otherwise, locations.
//
// Why: a loop written `acc += tl.dot(a, b)` (Triton's grouped GEMM tutorial
// does) otherwise computes each product from zero and adds it afterwards,
// which on tensor cores means waiting for every product before the add and
// an extra add per element per iteration; chained into one accumulator,
// the products overlap the next iteration's loads as `tl.dot(a, b, acc)`
// does. Triton combines the same pattern. The result differs from the
// separate add only by rounding order (the product is added to `d` inside
// the instruction rather than rounded first), as Triton's does.
#include "passes/pass_utils.h"

namespace tessera {
namespace {

using namespace passes;

bool isZero(const Value *v) {
  auto c = constantOf(v);
  return c && (c->isFloat ? c->f == 0 : c->i == 0);
}

// The dot defining `v` when it can absorb the add `add`, else null.
Operation *combinable(Operation *add, Value *v, PtrMap<const Value *, int> &uses) {
  Operation *dot = v->def;
  if (!dot || dot->code != OpCode::Dot || dot->parent != add->parent) return nullptr;
  if (uses[v] != 1 || !isZero(dot->operand(2))) return nullptr;
  if (dot->result(0)->type != add->result(0)->type) return nullptr;
  if (dot->intAttr("max_num_imprecise_acc") != 0) return nullptr;
  return dot;
}

}  // namespace

void combineDotAdd(Module &m) {
  for (auto &fn : m.functions) {
    PtrMap<const Value *, int> uses = countUses(*fn);
    replaceResults(*fn, [&](Operation *op) -> Value * {
      if (op->code != OpCode::Add || !op->result(0)->type.isTile()) return nullptr;
      for (unsigned i = 0; i < 2; ++i)
        if (Operation *dot = combinable(op, op->operand(i), uses)) {
          dot->operands[2] = op->operand(1 - i);
          moveBefore(dot, op);
          return dot->result(0);
        }
      return nullptr;
    });
  }
}

}  // namespace tessera
