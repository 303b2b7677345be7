// dce: dead-code elimination.
//
// Requires: valid Tile IR.
// Guarantees, iterated to a fixed point:
//   - a pure op whose results are unused is erased (this includes reduce and
//     scan, whose regions are pure);
//   - an unused load (it only reads memory) is erased;
//   - a for/if/while whose results are unused and whose regions hold no op
//     that writes memory (store, atomics, print, assert, barrier, assume) or
//     calls is erased;
//   - an unused result of an `if` is dropped with its yielded operands;
//   - an unused loop-carried value of a `for` is dropped (its init, its
//     region argument, its yielded operand and its result) when its result
//     is unused and, in the body, it only flows through pure ops (and the
//     results of ifs that yield it) into its own yielded operand (`acc = acc
//     + x` with acc never read afterwards).
// Preserves: every op that writes memory, terminators, op order, locations.
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "passes/pass_utils.h"

namespace tessera {
namespace {

using namespace passes;

class DCE {
 public:
  DCE(Function &fn, Graveyard &gy) : fn_(fn), gy_(gy) {}

  bool run() {
    changed_ = false;
    uses_ = countUses(fn_);
    sweep(fn_.body);
    return changed_;
  }

 private:
  bool unused(const Operation *op) {
    for (auto &r : op->results)
      if (uses_[r.get()] > 0) return false;
    return true;
  }

  void erase(Operation *op) {
    // Uses made by the op and everything nested in it go away with it.
    op->walk([&](Operation *o) {
      for (Value *v : o->operands) --uses_[v];
    });
    gy_.bury(op);
    changed_ = true;
  }

  void sweep(Block &b) {
    std::vector<Operation *> ops;
    for (auto &o : b.ops) ops.push_back(o.get());
    // Last to first, so that erasing a user can make its operands' defs dead.
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      Operation *op = *it;
      if (unused(op) && isRemovableWhenUnused(op)) {
        erase(op);
        continue;
      }
      if (op->code == OpCode::If) dropUnusedIfResults(op);
      if (op->code == OpCode::For) dropDeadIterArgs(op);
      for (auto &r : op->regions) sweep(*r);
    }
  }

  static void removeResult(Operation *op, size_t i) {
    op->results.erase(op->results.begin() + static_cast<std::ptrdiff_t>(i));
    for (size_t k = 0; k < op->results.size(); ++k)
      op->results[k]->index = static_cast<unsigned>(k);
  }

  void dropUnusedIfResults(Operation *op) {
    if (op->regions.size() != 2) return;
    Operation *t0 = op->regions[0]->terminator(), *t1 = op->regions[1]->terminator();
    if (!t0 || !t1 || t0->operands.size() != op->results.size() ||
        t1->operands.size() != op->results.size())
      return;
    for (size_t i = op->results.size(); i-- > 0;) {
      if (uses_[op->result(i)] > 0) continue;
      for (Operation *t : {t0, t1}) {
        --uses_[t->operands[i]];
        t->operands.erase(t->operands.begin() + static_cast<std::ptrdiff_t>(i));
      }
      removeResult(op, i);
      changed_ = true;
    }
  }

  // The `if` whose result `o` yields, when `o` is the yield of one of its
  // branches.
  static Operation *ifYielding(const Operation *o) {
    if (o->code != OpCode::Yield || !o->parent || !o->parent->parentOp) return nullptr;
    Operation *branch = o->parent->parentOp;
    return branch->code == OpCode::If ? branch : nullptr;
  }

  // Whether iter arg `i` of `loop` only flows into its own yielded operand
  // (through pure ops, and through ifs that yield it: a flattened loop's
  // tile coordinates, recomputed as a tile starts).
  bool iterArgIsDead(Operation *loop, size_t i) {
    Block &body = *loop->regions[0];
    Operation *yield = body.terminator();
    Value *arg = body.args[1 + i].get();
    std::unordered_set<const Value *> slice{arg};
    bool ok = true;
    // Pre-order is program order, so a value joins the slice before its uses.
    for (auto &top : body.ops)
      top->walk([&](Operation *o) {
        bool usesSlice = false;
        for (size_t k = 0; k < o->operands.size(); ++k) {
          if (!slice.count(o->operands[k])) continue;
          usesSlice = true;
          if (o == yield && k != i) ok = false;  // carried into another value
        }
        if (!usesSlice || o == yield) return;
        if (Operation *branch = ifYielding(o)) {
          // Handed on as the if's result: that joins the slice.
          for (size_t k = 0; k < o->operands.size(); ++k)
            if (slice.count(o->operands[k])) slice.insert(branch->result(static_cast<unsigned>(k)));
          return;
        }
        if (!isPureOp(*o) || !o->regions.empty() || hasFlag(o->code, opflags::Terminator)) {
          ok = false;  // stored, passed to a region op, yielded elsewhere...
          return;
        }
        for (auto &r : o->results) slice.insert(r.get());
      });
    if (!ok) return false;
    // Nothing outside the slice may use a slice value (e.g. a store).
    for (auto &top : body.ops)
      top->walk([&](Operation *o) {
        if (o == yield || ifYielding(o)) return;
        bool inSlice = false;
        for (auto &r : o->results) inSlice |= slice.count(r.get()) > 0;
        if (inSlice) return;
        for (Value *v : o->operands)
          if (slice.count(v)) ok = false;
      });
    return ok;
  }

  void dropDeadIterArgs(Operation *loop) {
    Operation *yield = forYield(loop);
    if (!yield) return;
    Block &body = *loop->regions[0];
    size_t n = loop->results.size();
    for (size_t i = n; i-- > 0;) {
      if (uses_[loop->result(i)] > 0 || !iterArgIsDead(loop, i)) continue;
      --uses_[yield->operands[i]];
      yield->operands.erase(yield->operands.begin() + static_cast<std::ptrdiff_t>(i));
      --uses_[loop->operands[3 + i]];
      loop->operands.erase(loop->operands.begin() + static_cast<std::ptrdiff_t>(3 + i));
      removeResult(loop, i);
      // The argument's users are dead now; the next round erases them, and
      // until then they keep pointing at the argument, so it must stay alive.
      deadArgs_.push_back(std::move(body.args[1 + i]));
      body.args.erase(body.args.begin() + static_cast<std::ptrdiff_t>(1 + i));
      for (size_t k = 0; k < body.args.size(); ++k) body.args[k]->index = static_cast<unsigned>(k);
      changed_ = true;
    }
  }

  Function &fn_;
  Graveyard &gy_;
  PtrMap<const Value *, int> uses_;
  std::vector<std::unique_ptr<Value>> deadArgs_;
  bool changed_ = false;
};

}  // namespace

void dce(Module &m) {
  for (auto &fn : m.functions) {
    Graveyard gy;
    DCE d(*fn, gy);
    for (int i = 0; i < 1000 && d.run(); ++i) {
    }
  }
}

}  // namespace tessera
