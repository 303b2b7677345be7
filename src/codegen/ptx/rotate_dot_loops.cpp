// rotate-dot-loops: a loop whose second dot multiplies what the first one
// made (attention: S = Q K^T, softmax, acc = P V + acc * alpha) runs the
// second dot of iteration j in iteration j+1, issued right after that
// iteration's first dot. The tensor cores then multiply P_j V_j while the
// warps compute softmax(S_{j+1}), and the softmax waits only for S:
// FlashAttention-3's overlap of the two GEMMs with the softmax, within one
// warpgroup. (Without it each iteration waits for P V before the next
// Q K^T, and the tensor cores idle through every softmax.)
//
// Requires: sm_90a (wgmma, whose groups the emitter leaves running until a
// reader waits); after pipeline-dot-operands, which asked findDotRotation
// before placing its copies: in a loop that rotates, the copies refilling a
// ring slot go after the dots, behind the barrier that releases the slot,
// so the slot the delayed dot reads is refilled only after it has ended.
// Guarantees: a `for` loop (signed i32/i64 induction variable, constant
// positive step) for which findDotRotation finds dots D1 and D2, both on
// wgmma, with D2's B operand in shared memory (a ring slot's memdesc_index,
// or a memdesc_trans of one) and no ring copy before D2 in the body,
// becomes
//   if lb < ub:
//     A(0)                       the body less D2, at iv = lb, from the inits
//     for iv in [lb + step, ub): carries A's values and X, not D2's
//       A(j) up to D1; D2(j-1) from X; the rest of A(j), reading D2(j-1)'s
//       result where the body read D2's carried value
//       yield A's values and X(j)
//     D2(n-1) from the loop's X
//     yield the loop's results, D2(n-1)'s for D2's
//   else: yield the inits
// X are the values D2 and the shared-memory views it reads take from the
// body (P, the rescaled accumulator, the ring slot): they cross one
// iteration. Views D2 reads are made again next to it. The new loop keeps
// the old one's attributes.
// Preserves: what the program computes, in the same order of operations
// per value.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/mma.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {

using passes::forYield;

int64_t packedRegistersPerThread(const Type &t, int64_t numWarps) {
  return t.numel() * bitWidth(t.dtype) / 32 / (32 * numWarps);
}

std::optional<DotRotation> findDotRotation(Operation &loop, const Module &m) {
  if (loop.code != OpCode::For || m.targetSm != 90 || !m.archSpecific) return std::nullopt;
  Operation *yield = forYield(&loop);
  if (!yield) return std::nullopt;
  const DType ivType = loop.operand(0)->type.dtype;
  if ((ivType != DType::I32 && ivType != DType::I64) || !passes::positiveConstantStep(loop))
    return std::nullopt;
  Block &body = *loop.regions[0];
  std::unordered_map<const Value *, int> uses;
  std::unordered_map<const Operation *, size_t> order;  // body ops' positions
  for (auto &op : body.ops) {
    order[op.get()] = order.size();
    if (passes::writesGlobalMemory(op.get())) return std::nullopt;
    op->walk([&](Operation *o) {
      for (const Value *v : o->operands) ++uses[v];
    });
  }
  auto inBody = [&](const Value *v) { return v->def && v->def->parent == &body; };
  for (auto &op : body.ops) {
    Operation *second = op.get();
    if (second->code != OpCode::Dot || uses[second->result()] != 1) continue;
    // Its result is the carried accumulator, which it reads rescaled (a
    // value made in the body), with A made in the body (registers).
    const Value *acc = second->operand(2), *a = second->operand(0);
    if (!inBody(acc) || !inBody(a) || a->type.isMemDesc() || second->result()->type.rank() != 2)
      continue;
    auto at = std::find(yield->operands.begin(), yield->operands.end(), second->result());
    if (at == yield->operands.end()) continue;
    unsigned k = static_cast<unsigned>(at - yield->operands.begin());
    if (std::count(yield->operands.begin(), yield->operands.end(), second->result()) != 1) continue;
    // The first dot: the last one in the body that A depends on.
    Operation *first = nullptr;
    std::unordered_set<const Value *> seen;
    std::vector<const Value *> work{a};
    while (!work.empty()) {
      const Value *v = work.back();
      work.pop_back();
      if (!inBody(v) || !seen.insert(v).second) continue;
      Operation *d = v->def;
      if (d->code == OpCode::Dot && (!first || order[d] > order[first])) first = d;
      d->walk([&](Operation *o) {
        for (const Value *w : o->operands) work.push_back(w);
      });
    }
    if (!first || order[first] > order[second]) continue;
    bool firstCarried = std::find(yield->operands.begin(), yield->operands.end(),
                                  first->result()) != yield->operands.end();
    // Every reader of the carried accumulator follows the first dot and
    // precedes the second (they will read the delayed dot's result), and
    // none is nested or is the second dot itself.
    const Value *arg = body.args[1 + k].get();
    int readers = 0;
    bool placed = true;
    for (auto &o : body.ops)
      for (const Value *v : o->operands)
        if (v == arg) {
          ++readers;
          placed = placed && o.get() != second && o->code != OpCode::Yield &&
                   order[o.get()] > order[first] && order[o.get()] < order[second];
        }
    if (firstCarried || readers == 0 || readers != uses[arg] || !placed) continue;
    // The rotated loop holds S_j, P_{j-1} and the accumulator at once, and
    // its delayed dot keeps P V's ring slot one Q K^T longer (the slot is
    // refilled that much later). So it rotates only with three stages or
    // more: with two, the refill starts a whole iteration late. An S of up
    // to 32 registers a thread rotates; a larger one only where the three
    // take at most 160 registers a thread and Q K^T reduces over at least
    // 128 (its product long enough to cover the softmax's extra moves).
    // Measured on tutorial 06's forward, H200, TFLOP/s rotated against not:
    //   D 128, 128x64 on 4 warps, 3 stages: 480 against 523 (the three 224
    //     registers; 255 used against 254).
    //   64x64 on 4 warps: 454 against 442 with 3 stages, 352 against 319
    //     with 4 (at D 64 too).
    //   128x64 on 8 warps, 2 stages (S 32 registers): D 128 N 4096 / 16384
    //     346-348 / 386-387 against 569-570 / 602-603; D 64 N 4096 365-366
    //     against 440-442.
    //   D 128, 128x128 on 8 warps (the three 160; 211 registers against
    //     168), N 4096 / 8192 / 16384: with 3 stages 573-575 / 581-599 /
    //     613-614 against 562-564 / 581-586 / 593 (causal 491-493 / 580-587
    //     against 483-489 / 568-569 at 4096 / 16384); with 2 stages 402 /
    //     422 against 558-566 / 578-584.
    //   D 128, 64x128 on 4 warps, 3 stages (160): 416-424 against 409-413.
    //   D 64, 128x64 on 4 warps, 3 stages (160): 417-418 against 424-434.
    const int64_t stages = loop.intAttr("num_stages", m.numStages);
    if (stages < 3) continue;
    const Type &s = first->result()->type;
    const Type &q = first->operand(0)->type;
    if (s.rank() != 2 || q.rank() != 2) continue;
    const int64_t sRegs = packedRegistersPerThread(s, m.numWarps);
    const int64_t held = sRegs + packedRegistersPerThread(second->operand(0)->type, m.numWarps) +
                         packedRegistersPerThread(second->result()->type, m.numWarps);
    if (sRegs > kSmallRotatedS && (held > 160 || q.shape[1] < 128)) continue;
    return DotRotation{first, second, k};
  }
  return std::nullopt;
}

namespace {

using Mapping = std::unordered_map<const Value *, Value *>;

class Rotator {
 public:
  Rotator(Function &fn, Operation *loop, const DotRotation &r, const Module &m)
      : fn_(fn), module_(m), loop_(loop), body_(*loop->regions[0]), r_(r) {}

  bool run() {
    // B: the second dot and the shared-memory views it reads that the body
    // makes (the ring slot's memdesc_index, a memdesc_trans of it).
    std::vector<Value *> work{r_.second->operand(1)};
    if (!r_.second->operand(1)->type.isMemDesc()) return false;  // V in registers: not worth it
    // Both products on wgmma (mma.sync runs as it is issued: nothing would
    // overlap, and its prefetching form keeps fragments that a peeled copy
    // would not hand on).
    const Module &m = module_;
    for (const Operation *dot : {r_.first, r_.second})
      if (!selectWgmma(*dot, m.numWarps, m.targetSm, m.archSpecific)) return false;
    // The slot P V reads is refilled only after P V (pipeline-dot-operands
    // put the copies last, having asked findDotRotation): else the copies
    // of iteration j would overwrite what the delayed P V of j-1 reads.
    for (auto &op : body_.ops) {
      if (op.get() == r_.second) break;
      if (op->code == OpCode::AsyncCopy || op->code == OpCode::TmaCopy) return false;
    }
    std::unordered_set<const Operation *> inB{r_.second};
    while (!work.empty()) {
      Value *v = work.back();
      work.pop_back();
      if (!v->def || v->def->parent != &body_) continue;
      if (v->def->code != OpCode::MemDescIndex && v->def->code != OpCode::MemDescTrans)
        return false;
      inB.insert(v->def);
      for (Value *w : v->def->operands) work.push_back(w);
    }
    // B in program order: the views, then the dot.
    for (auto &op : body_.ops)
      if (inB.count(op.get())) bOps_.push_back(op.get());
    // X: what B reads from the body.
    for (Operation *op : bOps_)
      for (Value *v : op->operands) {
        bool fromBody =
            (v->def && v->def->parent == &body_ && !inB.count(v->def)) || v->owner == &body_;
        if (fromBody && std::find(crossing_.begin(), crossing_.end(), v) == crossing_.end())
          crossing_.push_back(v);
      }
    // A: the body less the second dot and the views only B reads.
    std::unordered_map<const Value *, int> outsideB;
    for (auto &op : body_.ops)
      if (!inB.count(op.get()))
        op->walk([&](Operation *o) {
          for (const Value *v : o->operands) ++outsideB[v];
        });
    for (auto &op : body_.ops)
      if (op->code != OpCode::Yield && op.get() != r_.second &&
          !(inB.count(op.get()) && !outsideB[op->result()]))
        aOps_.push_back(op.get());
    build();
    return true;
  }

 private:
  // B's ops cloned at `b`, X read from `x`; returns the dot's result.
  Value *cloneB(Builder &b, const std::vector<Value *> &x) {
    Mapping m;
    for (size_t i = 0; i < crossing_.size(); ++i) m[crossing_[i]] = x[i];
    for (Operation *op : bOps_) cloneOp(*op, b, m);
    Value *dot = mapped(m, r_.second->result());
    dot->def->setAttr("wait_on_use", int64_t{1});
    return dot;
  }

  void build() {
    r_.first->setAttr("wait_on_use", int64_t{1});  // (its copies have it too)
    Operation *yield = body_.terminator();
    const unsigned k = r_.carried, n = static_cast<unsigned>(loop_->results.size());
    Value *lb = loop_->operand(0), *ub = loop_->operand(1), *step = loop_->operand(2);
    Builder b;
    b.setInsertionPointBefore(loop_);
    b.setLoc(loop_->loc);
    Value *runs =
        b.op1(OpCode::Cmp, {lb, ub}, Type::scalar(DType::I1), {{"pred", std::string("lt")}});
    std::vector<Type> types;
    for (auto &r : loop_->results) types.push_back(r->type);
    Operation *guard = b.create(OpCode::If, {runs}, types, {}, 2);
    Block &then = *guard->regions[0], &otherwise = *guard->regions[1];

    // A(0): the first iteration's A, from the inits.
    Builder t(&then);
    t.setLoc(loop_->loc);
    Mapping first;
    first[body_.args[0].get()] = lb;
    for (unsigned i = 0; i < n; ++i) first[body_.args[1 + i].get()] = loop_->operand(3 + i);
    for (Operation *op : aOps_) cloneOp(*op, t, first);

    // The loop from the second iteration: A's carried values, then X.
    std::vector<Value *> operands{t.op1(OpCode::Add, {lb, step}, lb->type), ub, step};
    std::vector<Type> loopTypes;
    std::vector<unsigned> kept;  // the old carried index of each new one before X
    for (unsigned i = 0; i < n; ++i)
      if (i != k) {
        kept.push_back(i);
        operands.push_back(mapped(first, yield->operand(i)));
        loopTypes.push_back(yield->operand(i)->type);
      }
    for (Value *x : crossing_) {
      operands.push_back(mapped(first, x));
      loopTypes.push_back(x->type);
    }
    Operation *rotated = t.create(OpCode::For, operands, loopTypes);
    for (const NamedAttr &a : loop_->attrs) rotated->setAttr(a.name, a.value);
    Block &nb = *rotated->regions[0];
    Mapping next;
    next[body_.args[0].get()] = nb.addArg(body_.args[0]->type, body_.args[0]->nameHint);
    for (unsigned i : kept)
      next[body_.args[1 + i].get()] =
          nb.addArg(body_.args[1 + i]->type, body_.args[1 + i]->nameHint);
    std::vector<Value *> x;
    for (Value *c : crossing_) x.push_back(nb.addArg(c->type));
    Builder in(&nb);
    in.setLoc(loop_->loc);
    for (Operation *op : aOps_) {
      cloneOp(*op, in, next);
      if (op == r_.first) next[body_.args[1 + k].get()] = cloneB(in, x);
    }
    std::vector<Value *> yielded;
    for (unsigned i : kept) yielded.push_back(mapped(next, yield->operand(i)));
    for (Value *c : crossing_) yielded.push_back(mapped(next, c));
    in.create(OpCode::Yield, yielded, {});

    // The last iteration's B, after the loop.
    std::vector<Value *> last;
    for (size_t i = 0; i < crossing_.size(); ++i)
      last.push_back(rotated->result(static_cast<unsigned>(kept.size() + i)));
    Value *lastDot = cloneB(t, last);
    std::vector<Value *> results(n);
    for (size_t i = 0; i < kept.size(); ++i)
      results[kept[i]] = rotated->result(static_cast<unsigned>(i));
    results[k] = lastDot;
    t.create(OpCode::Yield, results, {});
    std::vector<Value *> inits;
    for (unsigned i = 0; i < n; ++i) inits.push_back(loop_->operand(3 + i));
    Builder e(&otherwise);
    e.setLoc(loop_->loc);
    e.create(OpCode::Yield, inits, {});

    for (unsigned i = 0; i < n; ++i)
      replaceAllUsesWith(fn_.body, loop_->result(i), guard->result(i));
    eraseOp(loop_);
  }

  Function &fn_;
  const Module &module_;
  Operation *loop_;
  Block &body_;
  DotRotation r_;
  std::vector<Value *> crossing_;
  std::vector<Operation *> aOps_, bOps_;
};

void rotateIn(Function &fn, Block &block, const Module &m) {
  std::vector<Operation *> ops;
  for (auto &o : block.ops) ops.push_back(o.get());
  for (Operation *op : ops) {
    for (auto &r : op->regions) rotateIn(fn, *r, m);  // inner loops first
    if (auto r = findDotRotation(*op, m)) Rotator(fn, op, *r, m).run();
  }
}

}  // namespace

void rotateDotLoops(Module &m) {
  for (auto &fn : m.functions) rotateIn(*fn, fn->body, m);
}

}  // namespace tessera::ptx
