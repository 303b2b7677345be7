// pipeline-loads: software pipelining of global loads in `for` loops, the
// GPU meaning of `num_stages`. A loop run with S stages has, while it works
// on iteration i, the loads of iterations i+1 .. i+S-1 already in flight:
// their values travel to the iteration that uses them as loop-carried
// registers, so memory latency overlaps S-1 iterations of work.
//
// Requires: verified Tile IR with calls inlined, before assign-layouts;
// Module::numStages set (a loop's own `num_stages` attribute, from
// tl.range(..., num_stages=N), overrides it).
// Guarantees: for a pipelined loop with K = S-1 (K >= 1), each candidate load
// L(iv) is replaced by K carried values: before the loop, L(lb), ...,
// L(lb+(K-1)*step) are loaded; in the body the use of L(iv) reads the first
// carried value and L(iv+K*step) is loaded where L was, the carried values
// shifting by one at the yield. Every issued load is the original one
// masked with "its iteration runs" (iv + d < ub; where iv + d could wrap
// around, ub > MAX - d, checked once before the loop, the look-ahead is off),
// so no address is read that the original program would not read.
// Candidates: non-volatile loads placed directly in the loop body (not under
// an `if`) whose pointer, mask and other are computed only from values
// defined before the loop, the induction variable, carried integers that
// advance by a loop-invariant amount (`c = c + inc`: c + d * inc at
// iteration iv + d) and pure ops of the body. In a loop with a
// pipeline-dot-operands ring, K is 1.
// Preserves: what the program computes. Loops that write global memory
// (stores, atomics, calls, anywhere inside) are left alone, since an early
// load could miss a value the loop writes (the rings' shared-memory copies
// and barriers do not count); so are loops with a non-constant or negative
// step, unsigned induction variables, and prefetches past a register budget.
#include <algorithm>
#include <climits>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/loop_carried.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {
namespace {

// 32-bit registers per thread that the prefetched tiles of one loop may take.
constexpr int64_t kPrefetchRegisterBudget = 64;

struct Candidate {
  Operation *load;
  std::vector<Operation *> slice;  // body ops it depends on, in program order
};

std::optional<int64_t> constantStep(const Value *step) {
  auto c = passes::constantOf(step);
  if (!c || c->isFloat) return std::nullopt;
  return c->i;
}

// Carried integer scalars that only advance by a loop-invariant amount
// (`c = c + inc`, yielded back): at iteration i + d, c + d * inc (integer
// adds wrap, so d adds and one multiply agree).
// (block argument, inc), in argument order.
using Advancing = std::vector<std::pair<const Value *, Value *>>;

Advancing advancingValues(Operation *loop) {
  Advancing out;
  Block &body = *loop->regions[0];
  Operation *yield = passes::forYield(loop);
  if (!yield) return out;
  for (size_t j = 1; j < body.args.size(); ++j) {
    Value *arg = body.args[j].get();
    const Operation *add = yield->operand(j - 1)->def;
    if (arg->type.isTile() || !isInt(arg->type.dtype) || !add || add->code != OpCode::Add ||
        add->parent != &body)
      continue;
    Value *a = add->operand(0), *b = add->operand(1);
    Value *inc = a == arg ? b : b == arg ? a : nullptr;
    if (inc && !passes::isDefinedInside(inc, loop)) out.push_back({arg, inc});
  }
  return out;
}

// The body ops `v` depends on, if they are all pure and region-free and lead
// only to the induction variable, advancing values (recorded in `used`) or
// values defined outside the loop.
bool collectSlice(Value *v, Operation *loop, Value *iv, const Advancing &advancing,
                  std::unordered_set<Operation *> &seen, std::unordered_set<const Value *> &used) {
  if (v == iv || !passes::isDefinedInside(v, loop)) return true;
  Operation *def = v->def;
  if (!def) {  // another carried value
    for (const auto &a : advancing)
      if (a.first == v) return used.insert(v), true;
    return false;
  }
  if (def->parent != loop->regions[0].get()) return false;
  if (seen.count(def)) return true;
  if (!isPureOp(*def) || !def->regions.empty()) return false;
  seen.insert(def);
  for (Value *o : def->operands)
    if (!collectSlice(o, loop, iv, advancing, seen, used)) return false;
  return true;
}

// Whether the loop writes global memory (or calls anything). The rings of
// pipeline-dot-operands write only shared memory and synchronise the CTA:
// a global load issued early cannot miss what they write.
bool loopWritesGlobalMemory(Block &body) {
  for (auto &op : body.ops)
    if (passes::writesGlobalMemory(op.get())) return true;
  return false;
}

// Whether pipeline-dot-operands gave the loop a ring of shared-memory copies.
bool hasRing(Block &body) {
  for (auto &op : body.ops)
    if (op->code == OpCode::AsyncCopy || op->code == OpCode::TmaCopy) return true;
  return false;
}

// 32-bit registers per thread a value of type `t` takes (tiles spread over
// the program's threads).
int64_t registersPerThread(const Type &t, int numWarps) {
  const int64_t bytes = t.isPtrLike() ? 8 : byteSize(t.dtype);
  const int64_t words = std::max<int64_t>(1, (bytes + 3) / 4);
  if (!t.isTile()) return words;
  return std::max<int64_t>(1, t.numel() / (32 * numWarps)) * words;
}

class Pipeliner {
 public:
  Pipeliner(Operation *loop, int stages, int numWarps)
      : loop_(loop), body_(*loop->regions[0]), stages_(stages), numWarps_(numWarps) {}

  void run() {
    if (stages_ < 2 || loopWritesGlobalMemory(body_)) return;
    Value *lb = loop_->operand(0);
    if (lb->type.isTile() || !isSigned(lb->type.dtype) ||
        (bitWidth(lb->type.dtype) != 32 && bitWidth(lb->type.dtype) != 64))
      return;
    auto step = constantStep(loop_->operand(2));
    if (!step || *step <= 0) return;
    step_ = *step;
    advancing_ = advancingValues(loop_);
    std::vector<Candidate> cands = candidates();
    if (cands.empty()) return;
    int64_t perIteration = 0;
    for (const Candidate &c : cands)
      perIteration += registersPerThread(c.load->result()->type, numWarps_);
    int64_t k = std::min<int64_t>(stages_ - 1, kPrefetchRegisterBudget / perIteration);
    // A loop whose dot operands arrive through a ring (pipeline-dot-operands)
    // holds accumulators in most of its registers, and one iteration of
    // tensor-core work already covers a global load's latency: look one
    // iteration ahead only. (Tutorial 06's backward with m and Di four
    // iterations ahead spilled and ran 15% slower; one ahead, 1% faster.)
    if (hasRing(body_)) k = std::min<int64_t>(k, 1);
    if (k < 1) return;
    pipeline(cands, static_cast<int>(k));
  }

 private:
  std::vector<Candidate> candidates() {
    std::vector<Candidate> out;
    Value *iv = body_.args[0].get();
    for (auto &o : body_.ops) {
      Operation *op = o.get();
      if (op->code != OpCode::Load || op->intAttr("volatile") != 0) continue;
      std::unordered_set<Operation *> seen;
      bool ok = true;
      for (Value *v : op->operands)
        ok = ok && collectSlice(v, loop_, iv, advancing_, seen, usedAdvancing_);
      if (!ok) continue;
      Candidate c{op, {}};
      for (auto &p : body_.ops)  // program order
        if (seen.count(p.get())) c.slice.push_back(p.get());
      out.push_back(std::move(c));
    }
    return out;
  }

  // An iteration to load for: its induction value, and the bound it runs
  // below (at < bound).
  struct Iteration {
    Value *at;
    Value *bound;
  };

  // At b's insertion point: the iteration `times` steps after `base`. Its bound,
  // computed before the loop, is ub where base + offset cannot wrap around
  // for any base < ub (ub <= max - offset), else the type's minimum, which
  // turns the look-ahead off. One compare against a loop-invariant bound
  // per iteration: ptxas schedules that form best.
  Iteration iteration(Builder &b, Value *base, int64_t times) {
    Value *ub = loop_->operand(1);
    if (times == 0) return {base, ub};
    const int64_t offset = times * step_;
    const Type &t = ub->type;
    const bool wide = bitWidth(t.dtype) == 64;
    const int64_t max = wide ? std::numeric_limits<int64_t>::max() : INT32_MAX;
    const int64_t min = wide ? std::numeric_limits<int64_t>::min() : INT32_MIN;
    Value *noWrap = pre_.op1(OpCode::Cmp, {ub, pre_.constInt(max - offset, t)},
                             Type::scalar(DType::I1), {{"pred", std::string("le")}});
    Value *bound = pre_.op1(OpCode::Select, {noWrap, ub, pre_.constInt(min, t)}, t);
    Value *step = loop_->operand(2);
    Value *off = pre_.op1(OpCode::Mul, {step, pre_.constInt(times, t)}, t);
    return {b.op1(OpCode::Add, {base, off}, t), bound};
  }

  // At b's insertion point: the advancing values the candidates read,
  // `times` iterations after `base` (each one's own block argument, or its
  // initial value).
  std::unordered_map<const Value *, Value *> advanced(Builder &b, bool fromInitial, int64_t times) {
    std::unordered_map<const Value *, Value *> out;
    for (auto [arg, inc] : advancing_) {
      if (!usedAdvancing_.count(arg)) continue;
      Value *base = fromInitial ? loop_->operand(3 + arg->index - 1) : const_cast<Value *>(arg);
      const Type &t = arg->type;
      if (times == 0) {
        out[arg] = base;
        continue;
      }
      // times * inc is loop-invariant: computed once, before the loop.
      Value *delta = pre_.op1(OpCode::Mul, {inc, pre_.constInt(times, t)}, t);
      out[arg] = b.op1(OpCode::Add, {base, delta}, t);
    }
    return out;
  }

  // At b's insertion point: the load of `c` for iteration `it` (where the
  // advancing values are `at`), masked with "it runs".
  Value *loadAt(Builder &b, const Candidate &c, const Iteration &it,
                std::unordered_map<const Value *, Value *> map) {
    map[body_.args[0].get()] = it.at;
    for (Operation *op : c.slice) cloneOp(*op, b, map);
    auto mapped = [&](Value *v) {
      auto found = map.find(v);
      return found == map.end() ? v : found->second;
    };
    const Operation &ld = *c.load;
    const Type &rt = ld.result()->type;
    b.setLoc(ld.loc);
    Type maskType =
        rt.isTile() ? Type::tile(rt.shape, Type::scalar(DType::I1)) : Type::scalar(DType::I1);
    // Whether the iteration runs, next to the load that needs it.
    Value *runs = b.op1(OpCode::Cmp, {it.at, it.bound}, Type::scalar(DType::I1),
                        {{"pred", std::string("lt")}});
    if (rt.isTile()) runs = b.op1(OpCode::Splat, {runs}, maskType);
    std::vector<Value *> operands = {mapped(ld.operand(0))};
    operands.push_back(ld.operands.size() > 1
                           ? b.op1(OpCode::And, {mapped(ld.operand(1)), runs}, maskType)
                           : runs);
    if (ld.operands.size() > 2) operands.push_back(mapped(ld.operand(2)));
    return b.op1(OpCode::Load, operands, rt, ld.attrs);
  }

  void pipeline(const std::vector<Candidate> &cands, int k) {
    // Prologue: iterations 0 .. k-1, before the loop.
    Builder &pre = pre_;
    pre.setInsertionPointBefore(loop_);
    pre.setLoc(loop_->loc);
    std::vector<std::vector<Value *>> initial(cands.size());
    for (int j = 0; j < k; ++j) {
      Iteration it = iteration(pre, loop_->operand(0), j);
      auto at = advanced(pre, true, j);
      for (size_t c = 0; c < cands.size(); ++c) initial[c].push_back(loadAt(pre, cands[c], it, at));
    }
    // Carried values: k per candidate, appended to the loop's.
    Operation *yield = body_.terminator();
    std::vector<std::vector<Value *>> carried(cands.size());
    for (size_t c = 0; c < cands.size(); ++c)
      for (int j = 0; j < k; ++j) carried[c].push_back(appendCarried(loop_, initial[c][j]));
    // In the body: the load of iteration iv+k*step replaces the original
    // load, whose value is now the first carried one.
    Builder head;
    head.setInsertionPointBefore(cands.front().load);
    head.setLoc(loop_->loc);
    Iteration ahead = iteration(head, body_.args[0].get(), k);
    auto aheadAt = advanced(head, false, k);
    for (size_t c = 0; c < cands.size(); ++c) {
      Operation *ld = cands[c].load;
      Builder b;
      b.setInsertionPointBefore(ld);
      Value *next = loadAt(b, cands[c], ahead, aheadAt);
      replaceAllUsesWith(body_, ld->result(), carried[c][0]);
      for (int j = 1; j < k; ++j) yield->operands.push_back(carried[c][j]);
      yield->operands.push_back(next);
      eraseOp(ld);
    }
    eraseDeadSlices(cands);
  }

  // The original address computations, now often unused (the GPU pipeline
  // runs no DCE after this pass, and each is an op per tile element).
  void eraseDeadSlices(const std::vector<Candidate> &cands) {
    std::unordered_map<const Value *, int> uses;
    for (auto &o : body_.ops)
      o->walk([&](Operation *op) {
        for (Value *v : op->operands) ++uses[v];
      });
    std::unordered_set<Operation *> slices;
    for (const Candidate &c : cands) slices.insert(c.slice.begin(), c.slice.end());
    std::vector<Operation *> order;  // program order
    for (auto &o : body_.ops)
      if (slices.count(o.get())) order.push_back(o.get());
    // Later ops first, so an op's users are gone before it is looked at.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Operation *op = *it;
      bool used = false;
      for (auto &r : op->results) used = used || uses[r.get()] > 0;
      if (used) continue;
      for (Value *v : op->operands) --uses[v];
      eraseOp(op);
    }
  }

  Builder pre_;       // before the loop
  int64_t step_ = 1;  // the loop's constant step
  Advancing advancing_;
  std::unordered_set<const Value *> usedAdvancing_;  // the advancing values candidates read
  Operation *loop_;
  Block &body_;
  int stages_;
  int numWarps_;
};

void visit(Block &b, int defaultStages, int numWarps) {
  std::vector<Operation *> ops;
  for (auto &o : b.ops) ops.push_back(o.get());
  for (Operation *op : ops) {
    for (auto &r : op->regions) visit(*r, defaultStages, numWarps);  // inner loops first
    if (op->code == OpCode::For) {
      int stages = static_cast<int>(op->intAttr("num_stages", defaultStages));
      Pipeliner(op, stages, numWarps).run();
    }
  }
}

}  // namespace

void pipelineLoads(Module &m) {
  for (auto &fn : m.functions) visit(fn->body, m.numStages, m.numWarps);
}

}  // namespace tessera::ptx
