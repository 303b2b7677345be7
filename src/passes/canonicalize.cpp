// canonicalize: constant folding and exact algebraic simplification.
//
// Requires: structurally valid Tile IR (ops.def operand/result counts) whose
// definitions dominate their uses (the verifier's rule), so one walk in
// program order meets every replaced value's uses after its replacement.
// Guarantees, at a fixed point:
//   - every pure op (not a hint) whose operands are all constants and whose
//     value fold.h defines is a `constant` (scalars and splat tiles), including
//     casts, bitcasts, cmp and the shape ops (splat, broadcast, expand_dims,
//     reshape, permute, flip, join, cat, gather of a constant source);
//   - select with a constant condition is its chosen operand;
//   - exact identities are applied: x+0, x-0, x*1, x/1, x|0, x&-1, x^0,
//     shifts by 0, min/max/and/or of x with itself, integer x*0 -> 0,
//     x&0 -> 0, x|-1 -> -1, integer x-x and x^x -> 0, integer cmp of x with
//     itself; for floats only x+(-0.0), x-(+0.0), x*1.0 and x/1.0 (x*0.0 and
//     x+0.0 are not identities under IEEE: NaN, inf and -0.0);
//   - cast/bitcast to the operand's own type, broadcast/reshape to the same
//     shape and identity permutes are removed; reshape of reshape and permute
//     of permute are composed; a shape op of a splat is a splat; a reshape
//     that only inserts size-1 dims becomes expand_dims;
//   - `if` with a constant condition is replaced by its taken region's ops;
//     `for` whose trip count is provably zero is replaced by its inits;
//   - pure ops left without uses are erased.
// Preserves: hint ops, ops with side effects, op order otherwise, source
// locations (new constants take the location of the op they replace).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

#include "ir/op_groups.h"
#include "passes/fold.h"
#include "passes/pass_utils.h"

namespace tessera {
namespace {

using namespace passes;

bool isConstInt(const Value *v, int64_t k) {
  auto c = constantOf(v);
  return c && !c->isFloat && c->i == wrapInt(static_cast<uint64_t>(k), v->type.dtype);
}

// A float constant equal to `k` with the given sign bit (so -0.0 != +0.0).
bool isConstFloat(const Value *v, double k, bool negative = false) {
  auto c = constantOf(v);
  return c && c->isFloat && c->f == k && std::signbit(c->f) == negative;
}

class Canonicalizer {
 public:
  Canonicalizer(Function &fn, Graveyard &gy) : fn_(fn), gy_(gy) {}

  // One sweep over the function; true when anything changed.
  bool sweep() {
    changed_ = false;
    vm_ = ValueMap();
    // No ValueMap::apply afterwards: only op results are mapped, and every
    // use of a result comes after its op in this walk (the IR is verified, so
    // definitions dominate uses), where sweepBlock remaps it; a second walk
    // over the whole function found nothing left to rewrite.
    sweepBlock(fn_.body);
    // One removal leaves no dead pure op behind (it walks backwards, so a
    // chain dies in one go); a sweep that changed nothing has nothing new
    // for it, and on a long kernel it is a full walk and a use count.
    if (changed_ || !deadOpsRemoved_) removeDeadOps(fn_.body);
    deadOpsRemoved_ = true;
    return changed_;
  }

 private:
  void sweepBlock(Block &b) {
    for (auto it = b.ops.begin(); it != b.ops.end();) {
      Operation *op = (it++)->get();  // advance first: op may be moved or buried
      vm_.remapOperands(op);
      if (op->code == OpCode::For) forwardInvariantIterArgs(op);
      for (auto &r : op->regions) sweepBlock(*r);
      visit(op);
    }
  }

  void replace(Operation *op, Value *v) {
    vm_.map(op->result(0), v);
    gy_.bury(op);
    changed_ = true;
  }

  Builder builderBefore(Operation *op) {
    Builder b;
    b.setInsertionPointBefore(op);
    b.setLoc(op->loc);
    return b;
  }

  void visit(Operation *op) {
    if (op->code == OpCode::If) return foldIf(op);
    if (op->code == OpCode::For) return foldFor(op);
    // Hints stay: axis info reads them. Constants are already folded.
    if (op->code == OpCode::Hint || op->code == OpCode::Constant) return;
    if (!isPureOp(*op) || !op->regions.empty()) return;
    if (op->code == OpCode::Split) {
      foldSplit(op);
      return;
    }
    if (op->results.size() != 1) return;
    std::vector<Scalar> args;
    for (Value *v : op->operands) {
      auto c = constantOf(v);
      if (!c) break;
      args.push_back(*c);
    }
    if (args.size() == op->operands.size()) {
      if (auto s = foldOp(*op, args)) {
        Builder b = builderBefore(op);
        replace(op, makeConstant(b, op->result(0)->type, *s));
        return;
      }
    }
    if (Value *v = simplify(op)) {
      if (v->type == op->result(0)->type) replace(op, v);
    }
  }

  Value *constLike(Operation *op, Scalar s) {
    Builder b = builderBefore(op);
    return makeConstant(b, op->result(0)->type, s);
  }

  // A new splat of `scalar` to op's result type, before op.
  Value *splatLike(Operation *op, Value *scalar) {
    Builder b = builderBefore(op);
    return b.op1(OpCode::Splat, {scalar}, op->result(0)->type);
  }

  // The scalar operand of `v` when `v` is produced by a splat.
  static Value *splatSource(Value *v) {
    if (v->def && v->def->code == OpCode::Splat && v->def->operands.size() == 1 &&
        !v->def->operand(0)->type.isTile())
      return v->def->operand(0);
    return nullptr;
  }

  // Exact identities; returns the replacement for op's single result or null.
  Value *simplify(Operation *op) {
    const Type &rt = op->result(0)->type;
    const bool intLike = rt.isIntLike();
    const bool floatLike = rt.isFloatLike();
    auto opnd = [&](unsigned i) { return op->operands.size() > i ? op->operand(i) : nullptr; };
    Value *x = opnd(0), *y = opnd(1);
    auto bin = [&] { return op->operands.size() == 2; };
    switch (op->code) {
      case OpCode::Add:
        if (!bin()) return nullptr;
        if (intLike) {
          if (isConstInt(y, 0)) return x;
          if (isConstInt(x, 0)) return y;
        } else if (floatLike) {
          if (isConstFloat(y, 0, true)) return x;  // x + (-0.0) == x for every x
          if (isConstFloat(x, 0, true)) return y;
        }
        return nullptr;
      case OpCode::Sub:
        if (!bin()) return nullptr;
        if (intLike && isConstInt(y, 0)) return x;
        if (floatLike && isConstFloat(y, 0, false)) return x;  // x - (+0.0) == x
        if (intLike && x == y) return constLike(op, Scalar::ofInt(0));
        return nullptr;
      case OpCode::Mul:
        if (!bin()) return nullptr;
        if (intLike) {
          if (isConstInt(y, 1)) return x;
          if (isConstInt(x, 1)) return y;
          if (isConstInt(y, 0)) return y;  // the zero itself, no new constant
          if (isConstInt(x, 0)) return x;
        } else if (floatLike) {
          if (isConstFloat(y, 1)) return x;
          if (isConstFloat(x, 1)) return y;
        }
        return nullptr;
      case OpCode::Div:
        if (!bin()) return nullptr;
        if ((intLike && isConstInt(y, 1)) || (floatLike && isConstFloat(y, 1))) return x;
        return nullptr;
      case OpCode::And:
        if (!bin() || !intLike) return nullptr;
        if (isConstInt(y, -1)) return x;
        if (isConstInt(x, -1)) return y;
        if (isConstInt(y, 0)) return y;
        if (isConstInt(x, 0)) return x;
        if (x == y) return x;
        return nullptr;
      case OpCode::Or:
        if (!bin() || !intLike) return nullptr;
        if (isConstInt(y, 0)) return x;
        if (isConstInt(x, 0)) return y;
        if (isConstInt(y, -1)) return y;
        if (isConstInt(x, -1)) return x;
        if (x == y) return x;
        return nullptr;
      case OpCode::Xor:
        if (!bin() || !intLike) return nullptr;
        if (isConstInt(y, 0)) return x;
        if (isConstInt(x, 0)) return y;
        if (x == y) return constLike(op, Scalar::ofInt(0));
        return nullptr;
      case OpCode::Shl:
      case OpCode::Shr:
        if (bin() && intLike && isConstInt(y, 0)) return x;
        return nullptr;
      case OpCode::Max:
      case OpCode::Min:
        if (bin() && x == y) return x;
        return nullptr;
      case OpCode::Cmp: {
        if (!bin() || x != y || !x->type.isIntLike()) return nullptr;
        std::string p = op->strAttr("pred");
        if (p == "eq" || p == "le" || p == "ge") return constLike(op, Scalar::ofInt(1));
        if (p == "ne" || p == "lt" || p == "gt") return constLike(op, Scalar::ofInt(0));
        return nullptr;
      }
      case OpCode::Select: {
        if (op->operands.size() != 3) return nullptr;
        if (auto c = constantOf(x); c && !c->isFloat) return c->i ? op->operand(1) : op->operand(2);
        if (op->operand(1) == op->operand(2)) return op->operand(1);
        return nullptr;
      }
      case OpCode::Cast:
      case OpCode::Bitcast:
        if (x && x->type == rt) return x;
        return nullptr;
      case OpCode::Broadcast:
      case OpCode::ExpandDims:
      case OpCode::Reshape:
      case OpCode::Splat:
        if (!x) return nullptr;
        if (x->type == rt) return x;
        if (Value *s = splatSource(x)) return splatLike(op, s);
        if (op->code == OpCode::Reshape && x->def && x->def->code == OpCode::Reshape &&
            !x->def->operands.empty()) {
          // reshape(reshape(y)) == reshape(y): row-major order is kept by both.
          op->operands[0] = x->def->operand(0);
          changed_ = true;
          return op->operand(0)->type == rt ? op->operand(0) : nullptr;
        }
        if (op->code == OpCode::Reshape) return reshapeAsExpandDims(op);
        return nullptr;
      case OpCode::Permute:
        return simplifyPermute(op);
      case OpCode::Gather:
        // Every element of a constant source is the same, whatever the index.
        if (auto c = constantOf(x); c && !rt.isPtrLike() && c->isFloat == floatLike)
          return constLike(op, *c);
        return nullptr;
      // No identity is known for these.
      case OpCode::Constant:
      case OpCode::ProgramId:
      case OpCode::NumPrograms:
      case OpCode::Arange:
      case OpCode::Join:
      case OpCode::Split:
      case OpCode::Cat:
      case OpCode::Flip:
      case OpCode::Sort:
      case OpCode::Histogram:
      case OpCode::Rem:
      case OpCode::Neg:
      case OpCode::Not:
      case OpCode::Fma:
      case OpCode::Umulhi:
      case OpCode::Clamp:
      TESSERA_UNARY_MATH_CASES:
      case OpCode::Abs:
      case OpCode::AddPtr:
      case OpCode::Load:
      case OpCode::DescriptorLoad:
      case OpCode::DescriptorStore:
      case OpCode::Store:
      case OpCode::AtomicRmw:
      case OpCode::AtomicCas:
      case OpCode::Dot:
      case OpCode::Reduce:
      case OpCode::Scan:
      case OpCode::MapElementwise:
      case OpCode::Philox:
      case OpCode::InlineAsm:
      case OpCode::ReadSreg:
      case OpCode::Print:
      case OpCode::Assert:
      case OpCode::Barrier:
      case OpCode::LocalAlloc:
      case OpCode::LocalDealloc:
      case OpCode::MemDescIndex:
      case OpCode::MemDescTrans:
      case OpCode::AsyncCopy:
      case OpCode::LocalStore:
      case OpCode::AsyncCommit:
      case OpCode::AsyncWait:
      case OpCode::BarrierAlloc:
      case OpCode::BarrierDealloc:
      case OpCode::TmaCopy:
      case OpCode::BarrierWait:
      case OpCode::BarrierArrive:
      case OpCode::TensormapCreate:
      case OpCode::Hint:
      case OpCode::ConvertLayout:
      case OpCode::Assume:
      case OpCode::For:
      case OpCode::If:
      case OpCode::While:
      case OpCode::WarpSpecialize:
      case OpCode::Yield:
      case OpCode::Condition:
      case OpCode::Return:
      case OpCode::Call:
        return nullptr;
    }
    return nullptr;
  }

  // A reshape that only inserts size-1 dims ([n] -> [1, n]) as expand_dims:
  // the same elements in the same order, but expand_dims is a layout
  // relation the GPU back end resolves in registers, where a reshape moves
  // the tile through shared memory (two barriers). Descriptor accesses and
  // `x.reshape(1, n)` in user code both write it so.
  Value *reshapeAsExpandDims(Operation *op) {
    Value *x = op->operand(0);
    if (!x->type.isTile()) return nullptr;
    const std::vector<int64_t> &from = x->type.shape, &to = op->result(0)->type.shape;
    if (to.size() <= from.size()) return nullptr;
    std::vector<int64_t> inserted;
    size_t i = 0;
    for (size_t j = 0; j < to.size(); ++j) {
      if (i < from.size() && to[j] == from[i])
        ++i;
      else if (to[j] == 1)
        inserted.push_back(static_cast<int64_t>(j));
      else
        return nullptr;
    }
    if (i != from.size()) return nullptr;
    Builder b = builderBefore(op);
    Value *v = x;
    for (int64_t axis : inserted) {
      Type t = v->type;
      t.shape.insert(t.shape.begin() + axis, 1);
      v = b.op1(OpCode::ExpandDims, {v}, t, {{"axis", axis}});
    }
    return v;
  }

  Value *simplifyPermute(Operation *op) {
    if (op->operands.size() != 1) return nullptr;
    Value *x = op->operand(0);
    if (Value *s = splatSource(x)) return splatLike(op, s);
    std::vector<int64_t> order = op->intsAttr("order");
    if (x->def && x->def->code == OpCode::Permute && x->def->operands.size() == 1) {
      // Result dim i of the outer permute is inner dim order[i], which is
      // dim inner[order[i]] of the inner operand.
      std::vector<int64_t> inner = x->def->intsAttr("order");
      if (inner.size() != order.size()) return nullptr;
      std::vector<int64_t> composed;
      for (int64_t o : order) {
        if (o < 0 || o >= static_cast<int64_t>(inner.size())) return nullptr;
        composed.push_back(inner[o]);
      }
      op->operands[0] = x->def->operand(0);
      op->setAttr("order", composed);
      order = composed;
      x = op->operand(0);
      changed_ = true;
    }
    for (size_t i = 0; i < order.size(); ++i)
      if (order[i] != static_cast<int64_t>(i)) return nullptr;
    return x->type == op->result(0)->type ? x : nullptr;
  }

  void foldSplit(Operation *op) {
    if (op->operands.size() != 1 || op->results.size() != 2) return;
    auto c = constantOf(op->operand(0));
    if (!c) return;
    for (auto &r : op->results)
      if (r->type.isPtrLike() || r->type.isFloatLike() != c->isFloat) return;
    Builder b = builderBefore(op);
    for (auto &r : op->results) vm_.map(r.get(), makeConstant(b, r->type, *c));
    gy_.bury(op);
    changed_ = true;
  }

  void foldIf(Operation *op) {
    if (op->operands.size() != 1 || op->regions.size() != 2) return;
    auto c = constantOf(op->operand(0));
    if (!c || c->isFloat) return;
    Block &taken = *op->regions[c->i ? 0 : 1];
    Operation *term = taken.terminator();
    std::vector<Value *> yielded;
    if (term) {
      for (Value *v : term->operands) yielded.push_back(vm_.lookup(v));
    }
    if (yielded.size() != op->results.size()) return;
    for (size_t i = 0; i < yielded.size(); ++i)
      if (yielded[i]->type != op->result(i)->type) return;
    // Move the taken region's ops (not its yield) in front of the if.
    while (!taken.ops.empty() && taken.ops.front().get() != term)
      moveBefore(taken.ops.front().get(), op);
    for (size_t i = 0; i < yielded.size(); ++i) vm_.map(op->result(i), yielded[i]);
    gy_.bury(op);
    changed_ = true;
  }

  // An iter arg that the body yields unchanged is its initial value in
  // every iteration and after the loop: its uses read that value instead
  // (then dce drops the arg). A block pointer carried through a loop keeps
  // its base, shape and strides this way, and they become loop-invariant.
  void forwardInvariantIterArgs(Operation *op) {
    Operation *yield = forYield(op);
    if (!yield) return;
    Block &body = *op->regions[0];
    for (size_t i = 0; i < op->results.size(); ++i) {
      Value *arg = body.args[i + 1].get(), *init = op->operand(3 + i);
      if (yield->operands[i] != arg || init->type != arg->type) continue;
      vm_.map(arg, init);
      vm_.map(op->result(i), init);
      changed_ = true;
    }
  }

  void foldFor(Operation *op) {
    if (op->operands.size() < 3 || op->operands.size() - 3 != op->results.size()) return;
    Value *lb = op->operand(0), *ub = op->operand(1), *step = op->operand(2);
    bool zeroTrip = lb == ub;
    if (!zeroTrip) {
      auto l = constantOf(lb), u = constantOf(ub), s = constantOf(step);
      // Only with a known positive step: the loop runs while iv < ub.
      if (l && u && s && !l->isFloat && !u->isFloat && !s->isFloat) {
        DType t = lb->type.dtype;
        bool stepPositive = isSigned(step->type.dtype) ? s->i > 0 : s->i != 0;
        bool ge =
            isSigned(t) ? l->i >= u->i : static_cast<uint64_t>(l->i) >= static_cast<uint64_t>(u->i);
        zeroTrip = stepPositive && ge;
      }
    }
    if (!zeroTrip) return;
    for (size_t i = 0; i < op->results.size(); ++i)
      if (op->operand(3 + i)->type != op->result(i)->type) return;
    for (size_t i = 0; i < op->results.size(); ++i) vm_.map(op->result(i), op->operand(3 + i));
    gy_.bury(op);
    changed_ = true;
  }

  // Erases pure, region-free ops whose results are unused (innermost and
  // last first, so chains of dead ops go in one pass). Every user of a value
  // comes after its definition in this order's reverse, so a value is live
  // exactly when an op kept before reaching it reads it: one set of those,
  // instead of counting every use of the kernel first.
  void removeDeadOps(Block &top) {
    PtrSet<const Value *> read;
    std::function<void(Block &)> walk = [&](Block &b) {
      std::vector<Operation *> ops;
      ops.reserve(b.ops.size());
      for (auto &o : b.ops) ops.push_back(o.get());
      for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
        Operation *op = *it;
        for (auto &r : op->regions) walk(*r);
        if (isPureOp(*op) && op->regions.empty()) {
          bool used = false;
          for (auto &r : op->results) used = used || read.contains(r.get());
          if (!used) {
            gy_.bury(op);
            continue;
          }
        }
        for (Value *v : op->operands) read.insert(v);
      }
    };
    walk(top);
  }

  Function &fn_;
  Graveyard &gy_;
  ValueMap vm_;
  bool changed_ = false;
  bool deadOpsRemoved_ = false;
};

}  // namespace

void canonicalize(Module &m) {
  for (auto &fn : m.functions) {
    Graveyard gy;
    Canonicalizer c(*fn, gy);
    // Each sweep folds everything whose operands were already folded; the
    // bound only guards against a rule that undoes another.
    for (int i = 0; i < 64 && c.sweep(); ++i) {
    }
  }
}

}  // namespace tessera
