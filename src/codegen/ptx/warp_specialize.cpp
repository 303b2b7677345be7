// warp-specialize: a kernel with a loop marked tl.range(...,
// warp_specialize=True) whose operand rings fill through the tensor memory
// accelerator gets one more warp, a producer, that issues every tensor copy
// and waits for every slot's release. The warps that multiply (the
// consumers) then neither stop for a release nor issue a copy: they wait
// for data and arrive on the release barriers, nothing else. (A warpgroup
// whose registers go to the consumers where a rotated loop needs them:
// producerAttrs says when.)
//
// Requires: the whole GPU pipeline before it (pipeline-dot-operands made
// the rings: tma_copy ops before and in the loops, release barriers that
// the copying thread waits on with `barrier_wait {first_thread = 1}`,
// which it makes for every loop marked so); layouts assigned.
// Guarantees: when a loop of the function is marked (or unaskedLoops finds
// some, which are then marked) and every tensor copy of the function
// qualifies (below), the function body becomes
//   - the local_allocs and barrier_allocs that the copies use, and the
//     allocations of the body before them, moved to the top (every thread
//     initialises and publishes the barriers);
//   - `warp_specialize {producer_warps = 1}` (or 4, with producer_registers
//     and consumer_registers, see producerAttrs): region 0 holds the rest of the
//     body less the tensor copies and the copying thread's release waits
//     (and the ops only those read); region 1, run by the producer warp,
//     holds the copies, the release waits, clones of the scalar ops they
//     read, and clones of the loops and branches around them that carry
//     only the values the copies need. There a release wait runs only where
//     a copy follows it (`if` on that copy's `runs`), so that the producer
//     never waits on a barrier the consumers have invalidated after their
//     last iteration;
//   - `return`.
// Loops one after the other (a causal attention's two) copy into the first
// loop's rings (each loop's own, hoisted, would take their memory once
// more). Where a later loop's rings were allocated, the consumers arrive on
// a barrier of that loop (`arrivals` = the consumers' threads, one phase),
// which the producer waits for before the loop's first copy, under that
// copy's `runs`; the consumers free it with the loop's own barriers. Each
// loop keeps its own full and release barriers.
// Qualifies: every op that a copy or release wait reads, directly or
// through the results of loops and branches, is a scalar pure op, a
// memdesc_index, a tensormap_create that nothing else reads, or a
// local_alloc or barrier_alloc of the function body; the copies in loops
// are those of marked loops (a rotated loop's peeled first iteration copies
// in a branch), each waiting for its releases on barriers, or of a loop
// over tiles around one whose rings outlive it (pipeline-dot-operands: a
// persistent kernel; the producer runs that loop too); several such
// loops each have rings of their own, allocated in the function body after
// the previous loop's are freed, of the same types in the same order, and
// a first copy in the body before any loop or branch. Not a kernel whose
// body frees shared memory before the last of the hoisted allocations (an
// earlier unmarked loop's rings, or an unmarked loop's between two marked
// ones): hoisted too, it would take its memory beside the rings. Nor a
// program of 32 warps (a block has at most 1024 threads). Otherwise nothing
// changes, and the marked loop runs as an unmarked one would but for its
// slots' release: by mbarriers even with one warpgroup
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
#include "support/diagnostics.h"

namespace tessera::ptx {
namespace {

using Map = std::unordered_map<const Value *, Value *>;

// Consumers that are whole warpgroups, two or more: setmaxnreg moves a
// warpgroup's registers, and one consumer warpgroup has room enough.
bool twoConsumerWarpgroups(int64_t numWarps) {
  return numWarps >= 8 && numWarps % 4 == 0;
}

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
  WarpSpecializer(Function &fn, int64_t numWarps, bool mayGoUnasked)
      : fn_(fn), numWarps_(numWarps), mayGoUnasked_(mayGoUnasked) {}

  void run() {
    bool wanted = false;
    fn_.walk([&](Operation *op) { wanted = wanted || (op->code == OpCode::For && wants(*op)); });
    std::vector<Operation *> unasked;
    if (!wanted && mayGoUnasked_) unasked = unaskedLoops();
    for (Operation *loop : unasked) loop->setAttr("warp_specialize", int64_t{1});
    if ((!wanted && unasked.empty()) || !collect()) {
      for (Operation *loop : unasked) loop->removeAttr("warp_specialize");
      return;
    }
    build();
  }

 private:
  // Where the program asks; a producer warp may cost (D=64 attention,
  // 128x64 tiles on 4 warps: 439 -> 297 TFLOP/s), and with host descriptors
  // it did not gain (tutorial 06's D=128 forward, 8 warps, autotuned:
  // 585-597 against 581-599). Unasked, see unaskedLoops.
  static bool wants(const Operation &loop) { return loop.intAttr("warp_specialize") == 1; }

  // The largest S a rotated loop in `loop` holds, in registers a thread
  // (its Q K^T's result, that dot's A in shared memory).
  int64_t rotatedSRegisters(Operation &loop) const {
    int64_t regs = 0;
    loop.walk([&](Operation *d) {
      if (d->code == OpCode::Dot && d->intAttr("wait_on_use") == 1 &&
          d->operand(0)->type.isMemDesc())
        regs = std::max(regs, packedRegistersPerThread(d->result()->type, numWarps_));
    });
    return regs;
  }

  bool handsRegistersOver(int64_t sRegs) const {
    return sRegs > kSmallRotatedS && twoConsumerWarpgroups(numWarps_);
  }

  // Loops specialised though the program did not ask: the loops that copy
  // by tensor copies, one or several one after the other (a causal
  // attention's two), where no loop of the function says either way (the
  // unspecialised twin says 0) and one of them is rotated with a large S on
  // two consumer warpgroups or more -- where the producer warpgroup measured
  // faster (producerAttrs; tutorial 06's kernel with warp_specialize=False
  // and True, host descriptors both). Causal, 128x128 on 8 warps, 3 stages,
  // D 128, H200, TFLOP/s at N 4096 / 16384: 490-491 / 582-593 split against
  // 485 / 560-566 not. Not a copy inside a loop inside another (a persistent
  // kernel's): not measured. (With two warpgroups pipeline-dot-operands
  // releases every tensor-copy ring's slots by mbarriers, as it does a
  // marked loop's.)
  std::vector<Operation *> unaskedLoops() const {
    bool said = false, nested = false;
    std::set<Operation *> copying;
    fn_.walk([&](Operation *op) {
      said = said || (op->code == OpCode::For && op->attr("warp_specialize"));
      if (op->code != OpCode::TmaCopy) return;
      int loopsAround = 0;
      for (Operation *p = op->parent->parentOp; p; p = p->parent->parentOp) {
        if (p->code != OpCode::For) continue;
        copying.insert(p);
        ++loopsAround;
      }
      nested = nested || loopsAround > 1;
    });
    if (said || nested || copying.empty()) return {};
    int64_t sRegs = 0;
    for (Operation *loop : copying) sRegs = std::max(sRegs, rotatedSRegisters(*loop));
    if (!handsRegistersOver(sRegs)) return {};
    return {copying.begin(), copying.end()};
  }

  // One producer warp, the consumers keeping ptxas's even share of the
  // registers; but a producer warpgroup that hands its registers to the
  // consumers (setmaxnreg: 24 a thread for it, what is left of the SM's
  // 65536 for them) where a loop rotated on two consumer warpgroups or more
  // holds an S of more than 32 registers a thread (rotate-dot-loops' large
  // S): S, P and the accumulator held at once then need more than the even
  // share (128x128 attention tiles on 8 warps: 211 registers against 168,
  // which spilled). Measured on tutorial 06's D=128 forward, 128x128 on 8
  // warps, 3 stages, H200, TFLOP/s at N 4096 / 8192 (SDPA in the same
  // process 613-619 / 594-604): 616 / 637-646 against 594-595 / 587-603
  // unspecialised. Unrotated (2 stages) the hand-over lost: 555-557 /
  // 563-573 against 579-582 / 584-602 with one producer warp.
  std::vector<NamedAttr> producerAttrs() const {
    int64_t sRegs = 0;
    fn_.walk([&](Operation *op) {
      if (op->code == OpCode::For && wants(*op)) sRegs = std::max(sRegs, rotatedSRegisters(*op));
    });
    if (!handsRegistersOver(sRegs)) return {{"producer_warps", int64_t{1}}};
    const int64_t producerRegs = 24;
    const int64_t consumerRegs =
        std::min<int64_t>(256, (65536 - 128 * producerRegs) / (32 * numWarps_) / 8 * 8);
    return {{"producer_warps", int64_t{4}},
            {"producer_registers", producerRegs},
            {"consumer_registers", consumerRegs}};
  }

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
    if (copying.empty()) return false;
    // A persistent kernel's loop over tiles whose loop over K keeps its
    // rings (pipeline-dot-operands' ringsOutlive) copies each tile's first
    // iterations, waiting for their slots' release: the producer runs it
    // too, and so goes on to the next tile's copies while the consumers
    // finish this one. (The loop over K may sit in a branch: a rotated
    // loop's, rotate-dot-loops.)
    std::set<Operation *> around;
    for (Operation *loop : copying) {
      Operation *p = loop->parent->parentOp;
      while (p && p->code == OpCode::If) p = p->parent->parentOp;
      if (p && copying.count(p)) around.insert(p);
    }
    for (Operation *p : around) copying.erase(p);
    for (Operation *loop : copying) {
      bool waits = false;
      for (auto &op : loop->regions[0]->ops) waits = waits || isReleaseWait(*op);
      if (!waits || !wants(*loop)) return false;
    }
    // Loops one after the other share one set of rings (below).
    if (copying.size() > 1 && !shareRings(roots, copying.size())) return false;
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

  // Whether the allocations build() hoists (those the copies use, and every
  // allocation of the body before the last of them) were all live there
  // anyway: a buffer freed before the last of them (an earlier loop's
  // rings, a buffer between two loops that share rings) would live on
  // beneath or between the hoisted ones, and the kernel would need both at
  // once. The frees of hoisted allocations and of the later loops' rings
  // (which become the first loop's) do not count.
  bool allocationsMayMove() const {
    std::unordered_map<const Operation *, size_t> at;
    size_t i = 0, lastUsed = 0;
    for (auto &op : fn_.body.ops) {
      at[op.get()] = i;
      if (hoisted_.count(op.get())) lastUsed = i;
      ++i;
    }
    for (auto &op : fn_.body.ops) {
      bool frees = op->code == OpCode::LocalDealloc || op->code == OpCode::BarrierDealloc;
      Operation *freed = frees ? op->operand(0)->def : nullptr;
      if (!freed || !at.count(freed) || hoisted_.count(freed) || sharedRing_.count(freed)) continue;
      if (at.at(freed) < lastUsed && at.at(op.get()) < lastUsed) return false;
    }
    return true;
  }

  // Sequential copying loops (a causal attention's two): each loop's rings
  // are allocated after the previous loop's are freed, in the same bytes.
  // Hoisted, they would take their memory once for each loop; instead the
  // later loops copy into the first loop's rings (build() rewrites them),
  // which needs as many rings of the same types, in order, for every loop.
  // Each loop keeps its own barriers (phases start afresh).
  bool shareRings(const std::vector<Operation *> &roots, size_t loops) {
    std::unordered_set<Operation *> rings;
    for (Operation *r : roots) {
      if (r->code != OpCode::TmaCopy) continue;
      Operation *slot = r->operand(0)->def;
      if (!slot || slot->code != OpCode::MemDescIndex || !slot->operand(0)->def) return false;
      rings.insert(slot->operand(0)->def);
    }
    // Generations: the rings allocated between frees of rings, in order.
    std::vector<std::vector<Operation *>> generations(1);
    for (auto &o : fn_.body.ops) {
      Operation *op = o.get();
      if (rings.count(op)) {
        generations.back().push_back(op);
      } else if (op->code == OpCode::LocalDealloc && rings.count(op->operand(0)->def) &&
                 !generations.back().empty()) {
        generations.emplace_back();
      }
    }
    if (generations.back().empty()) generations.pop_back();
    if (generations.size() != loops) return false;
    const std::vector<Operation *> &first = generations[0];
    for (size_t g = 1; g < generations.size(); ++g) {
      if (generations[g].size() != first.size()) return false;
      for (size_t i = 0; i < first.size(); ++i) {
        if (generations[g][i]->result()->type != first[i]->result()->type) return false;
        sharedRing_[generations[g][i]] = first[i];
      }
      // The producer's wait for the rings runs under the loop's first
      // copy's `runs` (zero trips: no copy, no wait): a copy of the body.
      Operation *copy = nullptr;
      for (auto it = generations[g][0]->self; it != fn_.body.ops.end() && !copy; ++it) {
        if ((*it)->code == OpCode::TmaCopy) copy = it->get();
        if (!(*it)->regions.empty()) return false;
      }
      if (!copy) return false;
      laterGenerations_.push_back(generations[g][0]);
    }
    return true;
  }

  bool needOp(Operation *op) {
    if (needed_.count(op) || hoisted_.count(op)) return true;
    if (op->code == OpCode::LocalAlloc || op->code == OpCode::BarrierAlloc) {
      if (op->parent != &fn_.body) return false;
      if (auto it = sharedRing_.find(op); it != sharedRing_.end()) return needOp(it->second);
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
    if (!sharedRing_.empty()) shareRingsAcrossLoops();
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
    Operation *ws = b.create(OpCode::WarpSpecialize, {}, {}, producerAttrs(), 2);
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

  // The later loops' rings become the first loop's: their allocations go,
  // and only the last frees of the first loop's rings stay. In place of a
  // later loop's allocations, the consumers arrive on a barrier of its own
  // (they have read the rings for the last time: the previous loop's
  // wgmma groups end at its exit), on which the producer waits before that
  // loop's first copy (cloneBlock).
  void shareRingsAcrossLoops() {
    Block &body = fn_.body;
    for (auto [later, first] : sharedRing_)
      replaceAllUsesWith(body, later->result(), first->result());
    std::unordered_map<Operation *, Operation *> lastFree;
    for (auto &o : body.ops)
      if (o->code == OpCode::LocalDealloc && o->operand(0)->def &&
          hoisted_.count(o->operand(0)->def))
        lastFree[o->operand(0)->def] = o.get();
    std::vector<Operation *> dead;
    for (auto &o : body.ops)
      if (o->code == OpCode::LocalDealloc && lastFree.count(o->operand(0)->def) &&
          lastFree[o->operand(0)->def] != o.get())
        dead.push_back(o.get());
    // Freed (invalidated) with the loop's own barriers: by then the
    // producer has waited, or it never will (its wait runs under the loop's
    // first copy, which the consumers waited for).
    Type i32 = Type::scalar(DType::I32);
    for (Operation *at : laterGenerations_) {
      Builder here;
      here.setInsertionPointBefore(at);
      here.setLoc(at->loc);
      Value *ready = here.op1(OpCode::BarrierAlloc, {}, i32,
                              {{"count", int64_t{1}}, {"arrivals", int64_t{32} * numWarps_}});
      hoisted_.insert(ready->def);
      Operation *arrive = here.create(OpCode::BarrierArrive, {ready, here.constInt(0, i32)}, {});
      handoffs_.insert(arrive);
      Value *bars = nextCopy(*arrive, body)->operand(1);
      Operation *freeBars = nullptr;
      for (auto &o : body.ops)
        if (o->code == OpCode::BarrierDealloc && o->operand(0) == bars) freeBars = o.get();
      if (!freeBars)
        internalError("warp-specialize", "a later loop's barriers are not freed in the body");
      Builder free;
      free.setInsertionPointBefore(freeBars);
      free.setLoc(freeBars->loc);
      free.create(OpCode::BarrierDealloc, {ready}, {});
    }
    for (auto [later, first] : sharedRing_) dead.push_back(later);
    for (Operation *op : dead) eraseOp(op);
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
      else if (handoffs_.count(op))
        handoffWait(*op, from, b, map);
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

  // The first tensor copy after `op` in its block, or null.
  static Operation *nextCopy(Operation &op, Block &from) {
    for (auto it = std::next(op.self); it != from.ops.end(); ++it)
      if ((*it)->code == OpCode::TmaCopy) return it->get();
    return nullptr;
  }

  // `wait` (cloned by `make`) in an `if` on `copy`'s runs.
  void underRuns(Operation &copy, Operation &wait, Block &from, Builder &b, Map &map,
                 const std::function<void(Builder &)> &make) {
    Value *runs = copyRuns(copy);
    materialize(runs, from, b, map);
    for (Value *v : wait.operands) materialize(v, from, b, map);
    Operation *guard = b.create(OpCode::If, {mapped(map, runs)}, {}, {}, 2);
    Builder then(guard->regions[0].get());
    then.setLoc(wait.loc);
    make(then);
    then.create(OpCode::Yield, {}, {});
    Builder(guard->regions[1].get()).create(OpCode::Yield, {}, {});
  }

  // The producer's side of the consumers' arrival on a later loop's
  // barrier: it waits for the barrier's first phase before the loop's
  // first copy, and only where that copy runs.
  void handoffWait(Operation &arrive, Block &from, Builder &b, Map &map) {
    underRuns(*nextCopy(arrive, from), arrive, from, b, map, [&](Builder &then) {
      Value *zero = then.constInt(0, Type::scalar(DType::I32));
      then.create(OpCode::BarrierWait, {arrive.operand(0), zero, zero}, {},
                  {{"first_thread", int64_t{1}}});
    });
  }

  // The release wait, run only when the copy after it does.
  void guardedWait(Operation &wait, Block &from, Builder &b, Map &map) {
    cloned_.insert(&wait);
    Operation *copy = nextCopy(wait, from);
    if (!copy) return;  // nothing to refill: no wait
    underRuns(*copy, wait, from, b, map, [&](Builder &then) { cloneOp(wait, then, map); });
  }

  // Ops of the consumers that only the copies read.
  void eraseUnused(Block &consumers) {
    passes::eraseUnusedOps(fn_, consumers, /*nested=*/true, [](const Operation &op) {
      return (isPureOp(op) && op.regions.empty()) || op.code == OpCode::TensormapCreate;
    });
  }

  Function &fn_;
  int64_t numWarps_;
  bool mayGoUnasked_;                      // mayWarpSpecializeUnasked
  std::unordered_set<Operation *> roots_;  // the copies and release waits
  // A later loop's ring -> the first loop's that it becomes; the first ring
  // of each later loop; the consumers' arrivals on each later loop's
  // "rings are free" barrier.
  std::unordered_map<Operation *, Operation *> sharedRing_;
  std::vector<Operation *> laterGenerations_;
  std::unordered_set<Operation *> handoffs_;
  std::unordered_set<Operation *> needed_;    // ops the producer clones
  std::unordered_set<Operation *> hoisted_;   // allocations both sides use
  std::unordered_set<Operation *> loops_;     // loops the producer clones
  std::unordered_set<Operation *> branches_;  // branches the producer clones
  // Per loop or branch, the results (a loop's carried values) kept.
  std::map<Operation *, std::set<unsigned>> carried_;
  std::unordered_set<const Operation *> cloned_;  // result-less ops cloned already
};

}  // namespace

bool mayWarpSpecializeUnasked(int sm, bool archSpecific, int64_t numWarps) {
  return sm == 90 && archSpecific && twoConsumerWarpgroups(numWarps);
}

void warpSpecialize(Module &m) {
  // A program of 32 warps has no room for another (1024 threads a block).
  if (m.numWarps >= 32) return;
  const bool mayGoUnasked = mayWarpSpecializeUnasked(m.targetSm, m.archSpecific, m.numWarps);
  for (auto &fn : m.functions) WarpSpecializer(*fn, m.numWarps, mayGoUnasked).run();
}

}  // namespace tessera::ptx
