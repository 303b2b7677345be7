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
// masked with "its iteration runs" (iv' < ub), so no address is read that the
// original program would not read.
// Candidates: non-volatile loads placed directly in the loop body (not under
// an `if`) whose pointer, mask and other are computed only from values
// defined before the loop, the induction variable and pure ops of the body.
// Preserves: what the program computes. Loops that write memory (stores,
// atomics, anywhere inside) are left alone, since an early load could miss
// a value the loop writes; so are loops with a non-constant or negative step,
// unsigned induction variables, and prefetches past a register budget.
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "codegen/ptx/gpu_passes.h"
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

// The body ops `v` depends on, if they are all pure and region-free and lead
// only to the induction variable or to values defined outside the loop.
bool collectSlice(Value *v, Operation *loop, Value *iv, std::unordered_set<Operation *> &seen) {
  if (v == iv || !passes::isDefinedInside(v, loop)) return true;
  Operation *def = v->def;
  if (!def || def->parent != loop->regions[0].get()) return false;  // a carried value
  if (seen.count(def)) return true;
  if (!hasFlag(def->code, opflags::Pure) || !def->regions.empty()) return false;
  seen.insert(def);
  for (Value *o : def->operands)
    if (!collectSlice(o, loop, iv, seen)) return false;
  return true;
}

bool writesMemory(Block &body) {
  for (auto &op : body.ops)
    if (passes::hasWriteEffects(op.get()) || op->code == OpCode::Barrier) return true;
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
    if (stages_ < 2 || writesMemory(body_)) return;
    Value *lb = loop_->operand(0);
    if (lb->type.isTile() || !isInt(lb->type.dtype) || !isSigned(lb->type.dtype)) return;
    auto step = constantStep(loop_->operand(2));
    if (!step || *step <= 0) return;
    std::vector<Candidate> cands = candidates();
    if (cands.empty()) return;
    int64_t perIteration = 0;
    for (const Candidate &c : cands)
      perIteration += registersPerThread(c.load->result()->type, numWarps_);
    int64_t k = std::min<int64_t>(stages_ - 1, kPrefetchRegisterBudget / perIteration);
    if (k < 1) return;
    pipeline(cands, static_cast<int>(k), *step);
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
      for (Value *v : op->operands) ok = ok && collectSlice(v, loop_, iv, seen);
      if (!ok) continue;
      Candidate c{op, {}};
      for (auto &p : body_.ops)  // program order
        if (seen.count(p.get())) c.slice.push_back(p.get());
      out.push_back(std::move(c));
    }
    return out;
  }

  // An iteration to load for: its induction value and whether it runs.
  struct Iteration {
    Value *at;
    Value *runs;  // i1: at < ub
  };

  // At b's insertion point: the iteration `offset` steps after `base`.
  // Whether it runs is decided in 64 bits for an i32 loop, so that the
  // last iterations' look-ahead cannot wrap around to a small index.
  Iteration iteration(Builder &b, Value *base, int64_t offset) {
    const Type &t = base->type;
    const Type i1 = Type::scalar(DType::I1);
    const std::vector<NamedAttr> lt = {{"pred", std::string("lt")}};
    Value *ub = loop_->operand(1);
    if (offset == 0) return {base, b.op1(OpCode::Cmp, {base, ub}, i1, lt)};
    Value *at = b.op1(OpCode::Add, {base, b.constInt(offset, t)}, t);
    if (bitWidth(t.dtype) == 64) return {at, b.op1(OpCode::Cmp, {at, ub}, i1, lt)};
    const Type i64 = Type::scalar(DType::I64);
    Value *wide =
        b.op1(OpCode::Add, {b.op1(OpCode::Cast, {base}, i64), b.constInt(offset, i64)}, i64);
    return {at, b.op1(OpCode::Cmp, {wide, b.op1(OpCode::Cast, {ub}, i64)}, i1, lt)};
  }

  // At b's insertion point: the load of `c` for iteration `it`, masked
  // with "it runs".
  Value *loadAt(Builder &b, const Candidate &c, const Iteration &it) {
    std::unordered_map<const Value *, Value *> map{{body_.args[0].get(), it.at}};
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
    Value *runs = rt.isTile() ? b.op1(OpCode::Splat, {it.runs}, maskType) : it.runs;
    std::vector<Value *> operands = {mapped(ld.operand(0))};
    operands.push_back(ld.operands.size() > 1
                           ? b.op1(OpCode::And, {mapped(ld.operand(1)), runs}, maskType)
                           : runs);
    if (ld.operands.size() > 2) operands.push_back(mapped(ld.operand(2)));
    return b.op1(OpCode::Load, operands, rt, ld.attrs);
  }

  void pipeline(const std::vector<Candidate> &cands, int k, int64_t step) {
    // Prologue: iterations 0 .. k-1, before the loop.
    Builder pre;
    pre.setInsertionPointBefore(loop_);
    pre.setLoc(loop_->loc);
    std::vector<std::vector<Value *>> initial(cands.size());
    for (int j = 0; j < k; ++j) {
      Iteration it = iteration(pre, loop_->operand(0), j * step);
      for (size_t c = 0; c < cands.size(); ++c) initial[c].push_back(loadAt(pre, cands[c], it));
    }
    // Carried values: k per candidate, appended to the loop's.
    Operation *yield = body_.terminator();
    std::vector<std::vector<Value *>> carried(cands.size());
    for (size_t c = 0; c < cands.size(); ++c)
      for (int j = 0; j < k; ++j) {
        const Type &t = cands[c].load->result()->type;
        loop_->operands.push_back(initial[c][j]);
        carried[c].push_back(body_.addArg(t));
        auto r = std::make_unique<Value>();
        r->type = t;
        r->def = loop_;
        r->index = static_cast<unsigned>(loop_->results.size());
        loop_->results.push_back(std::move(r));
      }
    // In the body: the load of iteration iv+k*step replaces the original
    // load, whose value is now the first carried one.
    Builder head;
    head.setInsertionPointBefore(cands.front().load);
    head.setLoc(loop_->loc);
    Iteration ahead = iteration(head, body_.args[0].get(), k * step);
    for (size_t c = 0; c < cands.size(); ++c) {
      Operation *ld = cands[c].load;
      Builder b;
      b.setInsertionPointBefore(ld);
      Value *next = loadAt(b, cands[c], ahead);
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
    std::vector<Operation *> order;
    std::unordered_set<Operation *> seen;
    for (const Candidate &c : cands)
      for (Operation *op : c.slice)
        if (seen.insert(op).second) order.push_back(op);
    // Later ops first, so an op's users are gone before it is looked at.
    std::sort(order.begin(), order.end(),
              [&](Operation *a, Operation *b) { return position(a) > position(b); });
    for (Operation *op : order) {
      bool used = false;
      for (auto &r : op->results) used = used || uses[r.get()] > 0;
      if (used) continue;
      for (Value *v : op->operands) --uses[v];
      eraseOp(op);
    }
  }

  size_t position(Operation *op) {
    if (positions_.empty()) {
      size_t i = 0;
      for (auto &o : body_.ops) positions_[o.get()] = i++;
    }
    return positions_.at(op);
  }

  std::unordered_map<const Operation *, size_t> positions_;
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
