// warp-specialize: a kernel with a loop marked tl.range(...,
// warp_specialize=True) whose operand rings fill through the tensor memory
// accelerator gets one more warp, a producer, that issues every tensor copy
// and waits for every slot's release. The warps that multiply (the
// consumers) then neither stop for a release nor issue a copy: they wait
// for data and arrive on the release barriers, nothing else. (One warp, not
// a warpgroup whose registers go to the consumers: emitWarpSpecialize says
// why.)
//
// Requires: the whole GPU pipeline before it (pipeline-dot-operands made
// the rings: tma_copy ops before and in the loops, release barriers that
// the copying thread waits on with `barrier_wait {first_thread = 1}`,
// which it makes for every loop marked so); layouts assigned.
// Guarantees: when a loop of the function is marked and every tensor copy
// of the function qualifies (below), the function body becomes
//   - the local_allocs and barrier_allocs that the copies use, and the
//     allocations of the body before them, moved to the
//     top (every thread initialises and publishes the barriers);
//   - `warp_specialize {producer_warps = 1}`: region 0 holds the rest of
//     the body less the tensor copies and the copying thread's release
//     waits (and the ops only those read); region 1, run by the producer
//     warp, holds the copies, the release waits, clones
//     of the scalar ops they read, and clones of the loops and branches
//     around them that carry only the values the copies need. There a release wait runs only where
//     a copy follows it
//     (`if` on that copy's `runs`), so that the producer never waits on a
//     barrier the consumers have invalidated after their last iteration;
//   - `return`.
// Qualifies: every op that a copy or release wait reads, directly or
// through the results of loops and branches, is a scalar pure op, a
// memdesc_index, a tensormap_create that nothing else reads, or a
// local_alloc or barrier_alloc of the function body; and the copies in
// loops are those of one marked loop (a rotated loop's peeled first
// iteration copies in a branch), which waits for its releases on barriers.
// A causal attention's two loops do not qualify: the rings move to the
// top, where two loops' rings would take their memory twice; nor does a
// kernel whose body frees shared memory (an earlier loop's rings) before
// the copies' rings are allocated, for the same reason. Nor does a
// program of 32 warps (a block has at most 1024 threads). Otherwise
// nothing changes, and the marked loop runs as an unmarked one would but
// for its slots' release: by mbarriers even with one warpgroup
// (pipeline-dot-operands cannot know this pass's answer).
// Preserves: what the program computes.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "codegen/ptx/gpu_passes.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {
namespace {

using Map = std::unordered_map<const Value *, Value *>;

bool isReleaseWait(const Operation &op) {
  return op.code == OpCode::BarrierWait && op.intAttr("first_thread") == 1;
}

// The `runs` operand of a tma_copy: (dst, barriers, slot, coords..., runs[, map]).
Value *copyRuns(const Operation &copy) {
  size_t fromEnd = copy.attr("tensormap") ? 1 : 2;
  return copy.operands[copy.operands.size() - fromEnd];
}

class WarpSpecializer {
 public:
  explicit WarpSpecializer(Function &fn) : fn_(fn) {}

  void run() {
    bool wanted = false;
    fn_.walk([&](Operation *op) { wanted = wanted || (op->code == OpCode::For && wants(*op)); });
    if (!wanted || !collect()) return;
    build();
  }

 private:
  // Only where the program asks: a producer warp may cost (D=64 attention,
  // 128x64 tiles on 4 warps: 439 -> 297 TFLOP/s), and with host descriptors
  // it did not gain (tutorial 06's D=128 forward, 8 warps, autotuned:
  // 585-597 against 581-599).
  static bool wants(const Operation &loop) { return loop.intAttr("warp_specialize") == 1; }

  // The copies, the release waits and what they read: false when something
  // does not qualify.
  bool collect() {
    std::vector<Operation *> roots;
    fn_.walk([&](Operation *op) {
      if (op->code == OpCode::TmaCopy || isReleaseWait(*op)) roots.push_back(op);
    });
    if (roots.empty()) return false;
    // One marked loop copies (a rotated loop's peeled first iteration
    // copies too, in a branch), and waits for its releases on barriers.
    std::set<Operation *> copying;
    for (Operation *r : roots)
      if (Operation *p = r->parent->parentOp; p && p->code == OpCode::For) copying.insert(p);
    if (copying.size() != 1) return false;
    Operation *loop = *copying.begin();
    bool waits = false;
    for (auto &op : loop->regions[0]->ops) waits = waits || isReleaseWait(*op);
    if (!waits || !wants(*loop)) return false;
    for (Operation *r : roots)
      if (!needOp(r)) return false;
    roots_.insert(roots.begin(), roots.end());
    if (!allocationsMayMove()) return false;
    // A map that the consumers read too stays theirs; two warps building
    // maps at once would share the staging buffer.
    std::unordered_map<const Value *, std::vector<Operation *>> users;
    fn_.walk([&](Operation *op) {
      for (Value *v : op->operands) users[v].push_back(op);
    });
    for (Operation *op : needed_)
      if (op->code == OpCode::TensormapCreate)
        for (Operation *user : users[op->result()])
          if (!needed_.count(user)) return false;
    return true;
  }

  // Whether the allocations build() hoists (those the copies use, and those
  // of the body before them) were all live there anyway: a buffer freed
  // before the copies' rings are allocated (an earlier loop's rings) would
  // live on beneath them, and the kernel would need both at once.
  bool allocationsMayMove() const {
    std::unordered_map<const Operation *, size_t> at;
    size_t i = 0, firstUsed = SIZE_MAX;
    for (auto &op : fn_.body.ops) {
      at[op.get()] = i;
      if (hoisted_.count(op.get())) firstUsed = std::min(firstUsed, i);
      ++i;
    }
    for (auto &op : fn_.body.ops) {
      bool frees = op->code == OpCode::LocalDealloc || op->code == OpCode::BarrierDealloc;
      const Operation *freed = frees ? op->operand(0)->def : nullptr;
      if (freed && at.count(freed) && at.at(freed) < firstUsed && at.at(op.get()) < firstUsed)
        return false;
    }
    return true;
  }

  bool needOp(Operation *op) {
    if (needed_.count(op) || hoisted_.count(op)) return true;
    if (op->code == OpCode::LocalAlloc || op->code == OpCode::BarrierAlloc) {
      if (op->parent != &fn_.body) return false;
      hoisted_.insert(op);
      return true;
    }
    bool scalarPure = isPureOp(*op) && op->regions.empty();
    for (auto &r : op->results) scalarPure = scalarPure && !r->type.isTile();
    for (Value *v : op->operands) scalarPure = scalarPure && !v->type.isTile();
    bool allowed = scalarPure || op->code == OpCode::MemDescIndex ||
                   op->code == OpCode::TensormapCreate || op->code == OpCode::TmaCopy ||
                   isReleaseWait(*op);
    if (!allowed) return false;
    if (op->code == OpCode::MemDescIndex && op->operand(0)->def &&
        op->operand(0)->def->code != OpCode::LocalAlloc)
      return false;
    needed_.insert(op);
    if (!needEnclosing(op)) return false;
    for (Value *v : op->operands)
      if (!needValue(v)) return false;
    return true;
  }

  // The loops and branches around `op`, up to the function body.
  bool needEnclosing(const Operation *op) {
    Operation *p = op->parent->parentOp;
    if (!p) return true;
    if (p->code == OpCode::For) return needLoop(p);
    if (p->code == OpCode::If) return needBranch(p);
    return false;
  }

  bool needLoop(Operation *loop) {
    if (!loops_.insert(loop).second) return true;
    carried_[loop];
    if (!needEnclosing(loop)) return false;
    for (int i = 0; i < 3; ++i)
      if (!needValue(loop->operand(i))) return false;
    return true;
  }

  bool needBranch(Operation *branch) {
    if (!branches_.insert(branch).second) return true;
    carried_[branch];
    return needEnclosing(branch) && needValue(branch->operand(0));
  }

  // Result k of a loop or branch (and so a loop's carried value k).
  bool needResult(Operation *op, unsigned k) {
    if (!(op->code == OpCode::For ? needLoop(op) : needBranch(op))) return false;
    if (!carried_[op].insert(k).second) return true;
    if (op->code == OpCode::For)
      return needValue(op->operand(3 + k)) && needValue(op->regions[0]->terminator()->operand(k));
    return needValue(op->regions[0]->terminator()->operand(k)) &&
           needValue(op->regions[1]->terminator()->operand(k));
  }

  bool needValue(Value *v) {
    if (Operation *d = v->def) {
      if (d->code == OpCode::For || d->code == OpCode::If) return needResult(d, v->index);
      return needOp(d);
    }
    if (v->owner == &fn_.body) return true;  // a kernel argument
    Operation *loop = v->owner->parentOp;
    if (!loop || loop->code != OpCode::For) return false;
    return v->index == 0 ? needLoop(loop) : needResult(loop, v->index - 1);
  }

  // ---- building ---------------------------------------------------------

  void build() {
    Block &body = fn_.body;
    Operation *ret = body.terminator();
    // The allocations go first, in their order, with every allocation of
    // the body before the last of them: the ring area is a stack, and a
    // buffer allocated before the rings (an operand staged before the loop)
    // must stay below them, or the rings' bytes are not free again for a
    // later loop's rings while it lives.
    std::vector<Operation *> hoist;
    size_t last = 0;
    for (auto &op : body.ops) {
      bool alloc = op->code == OpCode::LocalAlloc || op->code == OpCode::BarrierAlloc;
      if (alloc) hoist.push_back(op.get());
      if (hoisted_.count(op.get())) last = hoist.size();
    }
    hoist.resize(last);
    for (auto it = hoist.rbegin(); it != hoist.rend(); ++it)
      body.ops.splice(body.ops.begin(), body.ops, (*it)->self);
    Operation *first = std::next(body.ops.begin(), static_cast<long>(hoist.size()))->get();

    Builder b;
    b.setInsertionPointBefore(first);
    b.setLoc(first->loc);
    Operation *ws = b.create(OpCode::WarpSpecialize, {}, {}, {{"producer_warps", int64_t{1}}}, 2);
    // The consumers: everything after the split but the return.
    Block &consumers = *ws->regions[0];
    for (auto it = std::next(ws->self); it != body.ops.end() && it->get() != ret;) {
      auto next = std::next(it);
      consumers.ops.splice(consumers.ops.end(), body.ops, it);
      (*it)->parent = &consumers;
      it = next;
    }
    Builder(&consumers).create(OpCode::Yield, {}, {});
    Map map;
    Builder producer(ws->regions[1].get());
    cloneBlock(consumers, producer, map);
    producer.create(OpCode::Yield, {}, {});
    for (Operation *r : roots_) eraseOp(r);
    eraseUnused(consumers);
  }

  // The needed ops of `from` (not its terminator) into `b`'s block.
  void cloneBlock(Block &from, Builder &b, Map &map) {
    for (auto &o : from.ops) {
      Operation *op = o.get();
      if (hasFlag(op->code, opflags::Terminator)) break;
      b.setLoc(op->loc);
      if (loops_.count(op))
        cloneLoop(*op, b, map);
      else if (branches_.count(op))
        cloneBranch(*op, b, map);
      else if (isReleaseWait(*op))
        guardedWait(*op, from, b, map);
      else if (needed_.count(op))
        cloneOnce(*op, from, b, map);
    }
  }

  // Clones `op` of block `from` unless it was already (ahead of its place,
  // for a wait's guard), and first the ops of `from` it reads.
  void cloneOnce(Operation &op, Block &from, Builder &b, Map &map) {
    if (!op.results.empty() && map.count(op.result())) return;
    if (op.results.empty() && !cloned_.insert(&op).second) return;
    for (Value *v : op.operands) materialize(v, from, b, map);
    cloneOp(op, b, map);
  }

  // Clones the needed op of `from` that defines `v`, if not yet.
  void materialize(Value *v, Block &from, Builder &b, Map &map) {
    if (map.count(v) || !v->def || v->def->parent != &from || !needed_.count(v->def)) return;
    cloneOnce(*v->def, from, b, map);
  }

  // Yields the kept values of `from`'s terminator.
  void yieldKept(Block &from, const std::set<unsigned> &keep, Builder &b, Map &map) {
    std::vector<Value *> yielded;
    for (unsigned k : keep) yielded.push_back(mapped(map, from.terminator()->operand(k)));
    b.create(OpCode::Yield, yielded, {});
  }

  void cloneLoop(Operation &loop, Builder &b, Map &map) {
    const std::set<unsigned> &keep = carried_[&loop];
    std::vector<Value *> operands;
    for (int i = 0; i < 3; ++i) operands.push_back(mapped(map, loop.operand(i)));
    std::vector<Type> types;
    for (unsigned k : keep) {
      operands.push_back(mapped(map, loop.operand(3 + k)));
      types.push_back(loop.result(k)->type);
    }
    Operation *copy = b.create(OpCode::For, operands, types, {}, 1);
    Block &from = *loop.regions[0], &to = *copy->regions[0];
    map[from.args[0].get()] = to.addArg(from.args[0]->type);
    for (unsigned k : keep) map[from.args[1 + k].get()] = to.addArg(from.args[1 + k]->type);
    Builder in(&to);
    cloneBlock(from, in, map);
    yieldKept(from, keep, in, map);
    unsigned i = 0;
    for (unsigned k : keep) map[loop.result(k)] = copy->result(i++);
  }

  void cloneBranch(Operation &branch, Builder &b, Map &map) {
    const std::set<unsigned> &keep = carried_[&branch];
    std::vector<Type> types;
    for (unsigned k : keep) types.push_back(branch.result(k)->type);
    Operation *copy = b.create(OpCode::If, {mapped(map, branch.operand(0))}, types, {}, 2);
    for (int r = 0; r < 2; ++r) {
      Builder in(copy->regions[r].get());
      cloneBlock(*branch.regions[r], in, map);
      yieldKept(*branch.regions[r], keep, in, map);
    }
    unsigned i = 0;
    for (unsigned k : keep) map[branch.result(k)] = copy->result(i++);
  }

  // The release wait, run only when the copy after it does.
  void guardedWait(Operation &wait, Block &from, Builder &b, Map &map) {
    cloned_.insert(&wait);
    Operation *copy = nullptr;
    for (auto it = std::next(wait.self); it != from.ops.end() && !copy; ++it)
      if ((*it)->code == OpCode::TmaCopy) copy = it->get();
    if (!copy) return;  // nothing to refill: no wait
    Value *runs = copyRuns(*copy);
    materialize(runs, from, b, map);
    for (Value *v : wait.operands) materialize(v, from, b, map);
    Operation *guard = b.create(OpCode::If, {mapped(map, runs)}, {}, {}, 2);
    Builder then(guard->regions[0].get());
    then.setLoc(wait.loc);
    cloneOp(wait, then, map);
    then.create(OpCode::Yield, {}, {});
    Builder(guard->regions[1].get()).create(OpCode::Yield, {}, {});
  }

  // Ops of the consumers that only the copies read.
  void eraseUnused(Block &consumers) {
    for (bool changed = true; changed;) {
      auto uses = countUses(fn_);
      std::vector<Operation *> dead;
      std::function<void(Block &)> scan = [&](Block &blk) {
        for (auto &o : blk.ops) {
          Operation *op = o.get();
          for (auto &r : op->regions) scan(*r);
          bool removable =
              (isPureOp(*op) && op->regions.empty()) || op->code == OpCode::TensormapCreate;
          if (!removable || op->results.empty()) continue;
          bool used = false;
          for (auto &r : op->results) used = used || uses[r.get()] > 0;
          if (!used) dead.push_back(op);
        }
      };
      scan(consumers);
      for (auto it = dead.rbegin(); it != dead.rend(); ++it) eraseOp(*it);
      changed = !dead.empty();
    }
  }

  Function &fn_;
  std::unordered_set<Operation *> roots_;     // the copies and release waits
  std::unordered_set<Operation *> needed_;    // ops the producer clones
  std::unordered_set<Operation *> hoisted_;   // allocations both sides use
  std::unordered_set<Operation *> loops_;     // loops the producer clones
  std::unordered_set<Operation *> branches_;  // branches the producer clones
  // Per loop or branch, the results (a loop's carried values) kept.
  std::map<Operation *, std::set<unsigned>> carried_;
  std::unordered_set<const Operation *> cloned_;  // result-less ops cloned already
};

}  // namespace

void warpSpecialize(Module &m) {
  // A program of 32 warps has no room for another (1024 threads a block).
  if (m.numWarps >= 32) return;
  for (auto &fn : m.functions) WarpSpecializer(*fn).run();
}

}  // namespace tessera::ptx
