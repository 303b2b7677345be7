// Structured control flow: if/else, for loops (runtime and static_range),
// while loops. Names reassigned inside a region flow out of it as results
// (if) or loop-carried values (for/while), exactly as Triton's code generator
// does; a compile-time `if` lowers only the taken branch.
#include <set>
#include <utility>

#include "frontend/builtin_util.h"
#include "frontend/lowering.h"

namespace tessera::frontend {

namespace {

using Env = std::map<std::string, SVal>;

bool sameSVal(const SVal &a, const SVal &b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case SVal::Kind::Tensor:
      return a.v == b.v;
    case SVal::Kind::Bool:
    case SVal::Kind::Int:
      return a.i == b.i;
    case SVal::Kind::Float:
      return a.f == b.f || (a.f != a.f && b.f != b.f);
    case SVal::Kind::Str:
      return a.s == b.s;
    case SVal::Kind::DType:
      return a.dtype == b.dtype && a.i == b.i;
    case SVal::Kind::None:
    case SVal::Kind::Ellipsis:
      return true;
    case SVal::Kind::Function:
      return a.fn == b.fn;
    case SVal::Kind::Builtin:
    case SVal::Kind::Module:
    case SVal::Kind::TupleType:
      return a.s == b.s && a.elems.size() == b.elems.size();
    case SVal::Kind::Tuple:
    case SVal::Kind::Slice:
    case SVal::Kind::BlockPtr:
    case SVal::Kind::TensorDesc:
    case SVal::Kind::ConstexprType:
      if (a.elems.size() != b.elems.size() || a.ints != b.ints || a.ints2 != b.ints2) return false;
      for (size_t k = 0; k < a.elems.size(); ++k)
        if (!sameSVal(a.elems[k], b.elems[k])) return false;
      return true;
  }
  return false;
}

// Same structure with the same runtime types (so the two can merge).
bool sameStructure(const SVal &a, const SVal &b) {
  if (a.kind != b.kind) return false;
  if (a.kind == SVal::Kind::Tensor) return a.v->type == b.v->type;
  if (a.kind == SVal::Kind::Tuple || a.kind == SVal::Kind::BlockPtr ||
      a.kind == SVal::Kind::TensorDesc) {
    if (a.elems.size() != b.elems.size() || a.ints != b.ints || a.ints2 != b.ints2) return false;
    for (size_t k = 0; k < a.elems.size(); ++k)
      if (!sameStructure(a.elems[k], b.elems[k])) return false;
    return true;
  }
  return sameSVal(a, b);
}

// Every path through `body` ends in return, break or continue.
bool alwaysEnds(const ast::Body &body) {
  if (body.empty()) return false;
  const ast::Stmt &last = *body.back();
  if (last.kind == ast::StmtKind::Return || last.kind == ast::StmtKind::Break ||
      last.kind == ast::StmtKind::Continue)
    return true;
  if (last.kind == ast::StmtKind::If) return alwaysEnds(last.body) && alwaysEnds(last.orelse);
  return false;
}

// A `break` that belongs to this loop (not to a nested one).
bool containsBreak(const ast::Body &body) {
  for (const auto &s : body) {
    if (s->kind == ast::StmtKind::Break) return true;
    if (s->kind == ast::StmtKind::For || s->kind == ast::StmtKind::While) continue;
    if (containsBreak(s->body) || containsBreak(s->orelse)) return true;
  }
  return false;
}

// A loop body: one level deeper, and nothing after it is its continuation
// (a return cannot sit in a loop; break and continue move only the rest of
// the body).
struct LoopDepthGuard {
  Lowerer &l;
  std::vector<Lowerer::Segment> savedContinuation;
  explicit LoopDepthGuard(Lowerer &l) : l(l), savedContinuation(std::move(l.continuation())) {
    l.continuation().clear();
    ++l.loopDepth();
  }
  ~LoopDepthGuard() {
    --l.loopDepth();
    l.continuation() = std::move(savedContinuation);
  }
};

// A merge of a pointer from a tl.const parameter with a writable one: Triton
// types them differently, so the merge is an error.
bool constnessDiffers(const Lowerer &l, const SVal &a, const SVal &b) {
  return a.isTensor() && b.isTensor() && a.v->type.isPtrLike() && b.v->type.isPtrLike() &&
         l.fromConstPointer(a.v) != l.fromConstPointer(b.v);
}

void collectAssigned(const ast::Expr &t, std::set<std::string> &out) {
  if (t.kind == ast::ExprKind::Name) out.insert(t.str);
  if (t.kind == ast::ExprKind::Tuple || t.kind == ast::ExprKind::List)
    for (const auto &e : t.list) collectAssigned(*e, out);
}

void collectAssigned(const ast::Body &body, std::set<std::string> &out) {
  for (const auto &s : body) {
    for (const auto &t : s->targets) collectAssigned(*t, out);
    if (const ast::Expr *hinted = hintStatementTarget(*s)) out.insert(hinted->str);
    collectAssigned(s->body, out);
    collectAssigned(s->orelse, out);
  }
}

// Converts `v` to the runtime type of `like` (a constant number to a value of
// like's dtype, splatted to its shape). Returns false when it cannot.
bool convertLike(Lowerer &l, SVal &v, const SVal &like, SourceLoc loc) {
  if (sameStructure(v, like)) return true;
  if (like.kind != SVal::Kind::Tensor) return false;
  const Type &t = like.v->type;
  if (t.isPtrLike()) return false;
  if (v.isNumber()) {
    Value *c = l.toValue(v, loc, t.dtype);
    v = SVal::tensor(l.broadcastTo(c, t.shape, loc));
    return true;
  }
  return false;
}

using Segment = Lowerer::Segment;

// Whether a `return` of this function may run in `body` (loops cannot hold
// one; nested defs are not statements here).
bool mayReturn(const ast::Body &body) {
  for (const auto &s : body) {
    if (s->kind == ast::StmtKind::Return) return true;
    if (s->kind == ast::StmtKind::If && (mayReturn(s->body) || mayReturn(s->orelse))) return true;
  }
  return false;
}

// Sets the lowerer's continuation for a scope and restores it on exit.
class ContinuationScope {
 public:
  ContinuationScope(Lowerer &l, std::vector<Segment> next)
      : l_(l), saved_(std::exchange(l.continuation(), std::move(next))) {}
  ~ContinuationScope() { l_.continuation() = std::move(saved_); }
  ContinuationScope(const ContinuationScope &) = delete;
  ContinuationScope &operator=(const ContinuationScope &) = delete;

 private:
  Lowerer &l_;
  std::vector<Segment> saved_;
};

// A region's lowering: statements `segments` (each a body and a start index)
// in a copy of the environment; each segment's continuation is the segments
// after it.
Lowerer::FlowResult lowerSegments(Lowerer &l, const std::vector<Segment> &segments) {
  Lowerer::FlowResult flow;
  for (size_t k = 0; k < segments.size(); ++k) {
    ContinuationScope next(l, {segments.begin() + static_cast<ptrdiff_t>(k + 1), segments.end()});
    Lowerer::FlowResult f = l.lowerBody(*segments[k].body, segments[k].from);
    if (f.returned || f.exited) return f;
  }
  return flow;
}

// What runs after statement `index` of `body`: the rest of `body`, then the
// lowerer's continuation.
std::vector<Segment> restAfter(Lowerer &l, const ast::Body &body, size_t index) {
  std::vector<Segment> rest;
  if (index + 1 < body.size()) rest.push_back({&body, index + 1});
  rest.insert(rest.end(), l.continuation().begin(), l.continuation().end());
  return rest;
}

}  // namespace

void lowerIf(Lowerer &l, const ast::Stmt &s, const ast::Body &body, size_t index,
             Lowerer::FlowResult &flow, bool &consumedRest) {
  SVal cond = l.expr(*s.a);
  if (cond.isConst()) {
    bool truth = l.unary(ast::UnaryOp::Not, cond, s.loc).i == 0;
    ContinuationScope next(l, restAfter(l, body, index));
    Lowerer::FlowResult f = l.lowerBody(truth ? s.body : s.orelse);
    if (f.returned || f.exited) {
      flow = f;
      consumedRest = true;
    }
    return;
  }
  Value *c = l.tensorArg(cond, s.a->loc, "an if condition");
  if (c->type.isTile() && c->type.numel() == 1) {  // Triton takes a one-element tensor, warning
    l.warn(
        s.a->loc,
        "an if condition that is a one-element tensor (" + describe(cond) + ") instead of a scalar",
        "write `if (cond).item():`");
    c = oneElementScalar(l, c, s.a->loc, "an if condition");
  }
  if (c->type.isTile())
    l.error(s.a->loc, "an if condition must be a scalar, not a tensor (" + describe(cond) + ")",
            "use tl.where(cond, a, b) to select per element, or reduce the condition first");
  c = l.cast(c, Type::scalar(DType::I1), s.a->loc);

  bool thenRet = alwaysEnds(s.body), elseRet = alwaysEnds(s.orelse);
  bool restFollows = index + 1 < body.size();
  std::vector<Segment> thenSegs{{&s.body, 0}}, elseSegs{{&s.orelse, 0}};
  std::vector<Segment> rest = restAfter(l, body, index);
  if ((mayReturn(s.body) || mayReturn(s.orelse)) && !rest.empty()) {
    // A return in a branch (at any depth): everything after the if, up to
    // the end of the function, moves into each branch that can fall
    // through, so the code after it runs only on the paths that did not
    // return. The branches then end the function on every path.
    if (!thenRet) thenSegs.insert(thenSegs.end(), rest.begin(), rest.end());
    if (!elseRet) elseSegs.insert(elseSegs.end(), rest.begin(), rest.end());
    consumedRest = true;
  } else if (thenRet != elseRet && restFollows) {
    // `if c: break` (or continue) moves the rest of the loop body into the
    // other branch.
    (thenRet ? elseSegs : thenSegs).push_back({&body, index + 1});
    consumedRest = true;
  }

  Builder &b = l.builder();
  b.setLoc(s.loc);
  Operation *ifOp = b.create(OpCode::If, {c}, {});
  Block *saveBlock = b.block();
  Env *outer = l.env();

  Env envs[2] = {*outer, *outer};
  Lowerer::FlowResult flows[2];
  for (int k = 0; k < 2; ++k) {
    b.setInsertionPointToEnd(ifOp->regions[k].get());
    l.setEnv(&envs[k]);
    flows[k] = lowerSegments(l, k == 0 ? thenSegs : elseSegs);
  }
  l.setEnv(outer);

  // What flows out: return values when both branches return; otherwise the
  // names either branch changed (or both defined).
  std::vector<std::string> names;
  std::vector<SVal> outs[2];
  bool bothReturn = flows[0].returned && flows[1].returned;
  bool anyReturn = flows[0].returned || flows[1].returned;
  if (anyReturn && !bothReturn) {
    // One branch returns and nothing follows the if: falling off the end of
    // the function returns None.
    int fall = flows[0].returned ? 1 : 0;
    flows[fall].returned = true;
    flows[fall].returnValues = {SVal::none()};
    bothReturn = true;
    consumedRest = true;
  }
  if (bothReturn) {
    SVal r0 = flows[0].returnValues.empty() ? SVal::none() : flows[0].returnValues[0];
    SVal r1 = flows[1].returnValues.empty() ? SVal::none() : flows[1].returnValues[0];
    outs[0] = {r0};
    outs[1] = {r1};
    names = {"<return>"};
  } else {
    std::set<std::string> candidates;
    for (int k = 0; k < 2; ++k)
      for (const auto &[n, v] : envs[k]) {
        auto it = outer->find(n);
        if (it == outer->end() ? envs[1 - k].count(n) != 0 : !sameSVal(it->second, v))
          candidates.insert(n);
      }
    for (const auto &n : candidates) {
      names.push_back(n);
      outs[0].push_back(envs[0].at(n));
      outs[1].push_back(envs[1].at(n));
    }
    if (flows[0].exited && flows[1].exited) {
      flow.exited = true;
      consumedRest = true;
    }
  }

  // Reconcile types (a constant on one side takes the other side's type),
  // then yield the runtime parts.
  std::vector<SVal> merged;
  for (size_t i = 0; i < names.size(); ++i) {
    SVal &a = outs[0][i];
    SVal &bv = outs[1][i];
    if (a.isConst() && bv.isConst() && sameSVal(a, bv)) {
      merged.push_back(a);
      continue;
    }
    if (a.isNumber() && bv.isNumber()) {
      // Two different constants (`return -1` / `return 1`): each becomes a
      // tensor with Triton's literal typing, as Triton's returns do.
      b.setInsertionPointToEnd(ifOp->regions[0].get());
      a = SVal::tensor(l.toValue(a, s.loc));
      b.setInsertionPointToEnd(ifOp->regions[1].get());
      bv = SVal::tensor(l.toValue(bv, s.loc));
    }
    b.setInsertionPointToEnd(ifOp->regions[0].get());
    bool ok = convertLike(l, a, bv, s.loc);
    b.setInsertionPointToEnd(ifOp->regions[1].get());
    ok = convertLike(l, bv, a, s.loc) || ok;
    if (!sameStructure(a, bv) && l.dryRun() && a.isTensor() && bv.isTensor() &&
        !a.v->type.isPtrLike() && !bv.v->type.isPtrLike()) {
      // While discovering loop-carried types, a value that is still the
      // loop's provisional scalar in one branch merges as the other's type.
      bool aSmaller = a.v->type.numel() < bv.v->type.numel();
      SVal &small = aSmaller ? a : bv;
      const SVal &big = aSmaller ? bv : a;
      b.setInsertionPointToEnd(ifOp->regions[aSmaller ? 0 : 1].get());
      Value *c = l.cast(small.v, big.v->type.element(), s.loc);
      if (!c->type.isTile() || c->type.rank() == big.v->type.rank())
        small = SVal::tensor(l.broadcastTo(c, big.v->type.shape, s.loc));
      ok = sameStructure(a, bv);
    }
    if (!ok || !sameStructure(a, bv)) {
      std::string what = names[i] == "<return>" ? "the returned value" : "'" + names[i] + "'";
      l.error(s.loc,
              "the branches of this if give " + what + " different types: " + describe(a) +
                  " and " + describe(bv),
              "make both branches produce the same type and shape, e.g. with .to() or "
              "tl.broadcast_to()");
    }
    if (constnessDiffers(l, a, bv)) {
      bool ret = names[i] == "<return>";
      l.error(
          s.loc,
          (ret ? std::string("Return type mismatch: ") : "Mismatched type for " + names[i] + ": ") +
              "a tl.const pointer in one branch and a writable pointer in the other",
          "a pointer from a tl.const parameter stays read-only; choose it with a "
          "tl.constexpr condition or drop the annotation");
    }
    merged.push_back(a);
  }
  std::vector<Value *> yields[2];
  for (size_t i = 0; i < names.size(); ++i) {
    flattenRuntime(outs[0][i], yields[0]);
    flattenRuntime(outs[1][i], yields[1]);
  }
  for (int k = 0; k < 2; ++k) {
    b.setInsertionPointToEnd(ifOp->regions[k].get());
    b.setLoc(s.loc);
    b.create(OpCode::Yield, yields[k], {});
  }
  for (size_t i = 0; i < yields[0].size(); ++i) {
    auto v = std::make_unique<Value>();
    v->type = yields[0][i]->type;
    v->def = ifOp;
    v->index = static_cast<unsigned>(i);
    ifOp->results.push_back(std::move(v));
  }
  b.setInsertionPointToEnd(saveBlock);
  std::vector<Value *> results;
  for (auto &r : ifOp->results) results.push_back(r.get());
  size_t pos = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    SVal v = merged[i].isConst() ? merged[i] : rebuildRuntime(outs[0][i], results, pos);
    if (names[i] == "<return>") {
      flow.returned = true;
      flow.returnValues = {v};
    } else {
      (*outer)[names[i]] = v;
    }
  }
}

SVal lowerIfExp(Lowerer &l, const ast::Expr &e, const SVal &cond) {
  // `a if c else b` with a run-time c: an if whose branches compute a or b,
  // so only the chosen side runs (it may load or divide).
  Value *c = l.tensorArg(cond, e.a->loc, "a conditional expression's condition");
  if (c->type.isTile() && c->type.numel() == 1)
    c = oneElementScalar(l, c, e.a->loc, "a conditional expression's condition");
  if (c->type.isTile())
    l.error(
        e.a->loc,
        "a conditional expression needs a scalar condition, not a tensor (" + describe(cond) + ")",
        "use tl.where(cond, a, b) to select per element");
  c = l.cast(c, Type::scalar(DType::I1), e.a->loc);
  Builder &b = l.builder();
  b.setLoc(e.loc);
  Operation *ifOp = b.create(OpCode::If, {c}, {});
  Block *saveBlock = b.block();
  SVal side[2];
  for (int k = 0; k < 2; ++k) {
    b.setInsertionPointToEnd(ifOp->regions[k].get());
    side[k] = l.expr(k == 0 ? *e.b : *e.c);
  }
  // Two calls that return nothing (`tl.store(a) if c else tl.store(b)`):
  // an if statement, as in Triton.
  if (side[0].isNone() && side[1].isNone()) {
    for (int k = 0; k < 2; ++k) {
      b.setInsertionPointToEnd(ifOp->regions[k].get());
      b.setLoc(e.loc);
      b.create(OpCode::Yield, {}, {});
    }
    b.setInsertionPointToEnd(saveBlock);
    return SVal::none();
  }
  for (int k = 0; k < 2; ++k)
    if (!side[k].isTensor() && !side[k].isNumber())
      l.error(k == 0 ? e.b->loc : e.c->loc,
              "a conditional expression with a run-time condition needs values on both sides, "
              "got " +
                  describe(side[k]));
  // Numbers take the other side's type; two numbers their promoted one.
  if (side[0].isNumber() && side[1].isNumber()) {
    DType d = l.promote(side[0], side[1], false, e.loc);
    for (int k = 0; k < 2; ++k) {
      b.setInsertionPointToEnd(ifOp->regions[k].get());
      side[k] = SVal::tensor(l.toValue(side[k], e.loc, d));
    }
  }
  for (int k = 0; k < 2; ++k) {
    b.setInsertionPointToEnd(ifOp->regions[k].get());
    convertLike(l, side[k], side[1 - k], e.loc);
  }
  if (!sameStructure(side[0], side[1]))
    l.error(e.loc,
            "the two sides of this conditional expression have different types: " +
                describe(side[0]) + " and " + describe(side[1]),
            "make both the same type and shape, e.g. with .to() or tl.broadcast_to()");
  if (constnessDiffers(l, side[0], side[1]))
    l.error(e.loc,
            "Ternary expression with dynamic condition has inconsistent type: a tl.const pointer "
            "and a writable pointer",
            "choose between them with a tl.constexpr condition, or drop the tl.const annotation");
  for (int k = 0; k < 2; ++k) {
    b.setInsertionPointToEnd(ifOp->regions[k].get());
    b.setLoc(e.loc);
    b.create(OpCode::Yield, {side[k].v}, {});
  }
  auto v = std::make_unique<Value>();
  v->type = side[0].v->type;
  v->def = ifOp;
  v->index = 0;
  ifOp->results.push_back(std::move(v));
  b.setInsertionPointToEnd(saveBlock);
  return SVal::tensor(ifOp->result(0));
}

namespace {

struct LoopCarried {
  std::vector<std::string> names;
  std::vector<SVal> inits;  // converted to their loop types
};

// Decides which names a loop carries and their types: the names the body
// assigns that exist before the loop, plus `forced` ones (the loop's own
// state). A name initialised with a Python number and reassigned a tensor in
// the body takes the body's type, found by lowering the body once into a
// scratch block (`bindLoopVars` binds per-iteration names there).
LoopCarried planCarried(Lowerer &l, const ast::Body &body, const ast::Expr *extraCond,
                        const std::function<void(Block &)> &bindLoopVars, SourceLoc loc,
                        const std::vector<std::string> &forced = {}) {
  std::set<std::string> assigned(forced.begin(), forced.end());
  collectAssigned(body, assigned);
  LoopCarried lc;
  Env *outer = l.env();
  for (const auto &n : assigned) {
    auto it = outer->find(n);
    if (it == outer->end()) continue;
    const SVal &v = it->second;
    if (v.kind == SVal::Kind::Function || v.kind == SVal::Kind::Module ||
        v.kind == SVal::Kind::Builtin)
      continue;
    lc.names.push_back(n);
    lc.inits.push_back(v);
  }
  bool needTrial = false;
  for (const auto &v : lc.inits) needTrial |= v.isConst();
  if (!needTrial) return lc;

  Builder &b = l.builder();
  Block *saveBlock = b.block();
  for (int attempt = 0; attempt < 4; ++attempt) {
    Lowerer::DryRunGuard guard(l);
    LoopDepthGuard depth(l);
    Block scratch;
    b.setInsertionPointToEnd(&scratch);
    std::vector<SVal> provisional = lc.inits;
    for (auto &v : provisional)
      if (v.isNumber()) v = SVal::tensor(l.toValue(v, loc));
    Env env = *outer;
    for (size_t i = 0; i < lc.names.size(); ++i) {
      std::vector<Value *> flat;
      flattenRuntime(provisional[i], flat);
      std::vector<Value *> args;
      for (Value *f : flat) args.push_back(scratch.addArg(f->type));
      size_t pos = 0;
      env[lc.names[i]] =
          provisional[i].isConst() ? provisional[i] : rebuildRuntime(provisional[i], args, pos);
    }
    l.setEnv(&env);
    bindLoopVars(scratch);
    if (extraCond) l.expr(*extraCond);
    l.lowerBody(body);
    l.setEnv(outer);
    bool changed = false;
    for (size_t i = 0; i < lc.names.size(); ++i) {
      const SVal &end = env.at(lc.names[i]);
      SVal &init = lc.inits[i];
      if (!init.isNumber() || sameStructure(end, provisional[i])) continue;
      if (end.isTensor() && !end.v->type.isPtrLike()) {
        b.setInsertionPointToEnd(saveBlock);
        Value *c = l.toValue(init, loc, end.v->type.dtype);
        init = SVal::tensor(l.broadcastTo(c, end.v->type.shape, loc));
        changed = true;
      }
    }
    b.setInsertionPointToEnd(saveBlock);
    if (!changed) break;
  }
  b.setInsertionPointToEnd(saveBlock);
  for (auto &v : lc.inits)
    if (v.isNumber()) v = SVal::tensor(l.toValue(v, loc));
  return lc;
}

void checkCarried(Lowerer &l, const LoopCarried &lc, std::vector<SVal> &ends, SourceLoc loc) {
  for (size_t i = 0; i < lc.names.size(); ++i) {
    if (sameStructure(ends[i], lc.inits[i])) continue;
    // A float constant would be truncated into an integer carried value;
    // Triton rejects the type change (a float is fp32), so does this.
    const SVal &init = lc.inits[i];
    if (ends[i].kind == SVal::Kind::Float && init.isTensor() && !init.v->type.isPtrLike() &&
        !isFloat(init.v->type.dtype))
      l.error(loc,
              "Loop-carried variable " + lc.names[i] + " has initial type " +
                  tritonName(init.v->type.dtype) +
                  " but is re-assigned to fp32 in loop! Please make sure that the type stays "
                  "consistent.",
              "initialise it as a float (e.g. " + lc.names[i] +
                  " = 0.0) or convert the value with .to()");
    if (!convertLike(l, ends[i], lc.inits[i], loc) || !sameStructure(ends[i], lc.inits[i]))
      l.error(loc,
              "loop-carried variable '" + lc.names[i] + "' has type " + describe(lc.inits[i]) +
                  " before the loop but " + describe(ends[i]) + " at the end of an iteration",
              "keep its type and shape the same in every iteration (initialise it with the "
              "right dtype, e.g. tl.zeros([...], dtype=tl.float32))");
  }
}

// Binds the carried names to `vals` (region arguments or op results).
void bindCarried(const LoopCarried &lc, Env &env, const std::vector<Value *> &vals) {
  size_t p = 0;
  for (size_t i = 0; i < lc.names.size(); ++i)
    env[lc.names[i]] = lc.inits[i].isConst() ? lc.inits[i] : rebuildRuntime(lc.inits[i], vals, p);
}

std::vector<Value *> addRegionArgs(Block &blk, const std::vector<Type> &types) {
  std::vector<Value *> args;
  for (const Type &t : types) args.push_back(blk.addArg(t));
  return args;
}

std::vector<Value *> resultsOf(Operation *op) {
  std::vector<Value *> out;
  for (auto &r : op->results) out.push_back(r.get());
  return out;
}

// Lowers the body of a loop region whose carried values are bound in `env`
// and yields their values at the end of the iteration. `beforeYield` may
// update env (e.g. advance the induction variable) first.
void lowerLoopBody(Lowerer &l, const ast::Stmt &s, Block &region, Env &env, const LoopCarried &lc,
                   const std::function<void()> &beforeYield = {}) {
  Builder &b = l.builder();
  b.setInsertionPointToEnd(&region);
  {
    LoopDepthGuard depth(l);
    Lowerer::FlowResult f = l.lowerBody(s.body);
    if (f.returned)
      l.error(s.loc, "return inside a loop is not supported",
              "set a flag and mask the remaining work, or break out of the loop");
  }
  b.setInsertionPointToEnd(&region);
  if (beforeYield) beforeYield();
  std::vector<SVal> ends;
  for (const auto &n : lc.names) ends.push_back(env.at(n));
  checkCarried(l, lc, ends, s.loc);
  std::vector<Value *> yields;
  for (const auto &v : ends) flattenRuntime(v, yields);
  b.setLoc(s.loc);
  b.create(OpCode::Yield, yields, {});
}

struct RangeArgs {
  SVal lo = SVal::integer(0), hi, step = SVal::integer(1);
  std::string kind;             // builtins.range, tl.range, tl.static_range
  int64_t numStages = 0;        // tl.range(..., num_stages=N); 0: the kernel's
  int64_t unroll = 0;           // tl.range(..., loop_unroll_factor=F); 0: none
  bool flatten = false;         // tl.range(..., flatten=True): fuse with its inner loop (GPU)
  bool warpSpecialize = false;  // tl.range(..., warp_specialize=True): a producer warp copies (GPU)
};

RangeArgs rangeArgs(Lowerer &l, const ast::Expr &iter) {
  if (iter.kind != ast::ExprKind::Call)
    l.error(iter.loc, "a for loop must iterate over range(), tl.range() or tl.static_range()");
  SVal fn = l.expr(*iter.a);
  if (fn.kind != SVal::Kind::Builtin ||
      (fn.s != "builtins.range" && fn.s != "tl.range" && fn.s != "tl.static_range"))
    l.error(iter.loc, "a for loop must iterate over range(), tl.range() or tl.static_range()",
            "iterating over tuples or tensors is not supported");
  RangeArgs r;
  r.kind = fn.s;
  std::vector<SVal> pos;
  SVal stepKw, endKw;
  for (const auto &a : iter.list) pos.push_back(l.expr(*a));
  for (const auto &k : iter.keywords) {
    SVal v = l.expr(*k.value);
    if (k.name == "step")
      stepKw = v;
    else if (k.name == "arg2" || k.name == "end")
      endKw = v;
    else if (k.name == "arg1" || k.name == "start")
      pos.insert(pos.begin(), v);
    else if (k.name == "num_stages" && v.isNone()) {
      // num_stages=None: the kernel's own, as Triton reads it.
    } else if (k.name == "num_stages") {
      r.numStages = l.constInt(v, k.value->loc, "num_stages");
      if (r.numStages < 1 || r.numStages > 16)
        l.error(k.value->loc,
                "num_stages must be from 1 to 16, got " + std::to_string(r.numStages));
    } else if (k.name == "loop_unroll_factor" && !v.isNone()) {
      r.unroll = l.constInt(v, k.value->loc, "loop_unroll_factor");
      if (r.unroll < 1)
        l.error(k.value->loc,
                "loop_unroll_factor must be at least 1, got " + std::to_string(r.unroll));
    } else if (k.name == "flatten" && !v.isNone()) {
      r.flatten = l.constBool(v, k.value->loc, "flatten");
    } else if (k.name == "warp_specialize" && !v.isNone()) {
      r.warpSpecialize = l.constBool(v, k.value->loc, "warp_specialize");
    } else if (k.name != "loop_unroll_factor" && k.name != "warp_specialize" &&
               k.name != "disallow_acc_multi_buffer" && k.name != "flatten" &&
               k.name != "num_warps" && k.name != "disable_licm")
      l.error(k.loc, "unexpected keyword argument '" + k.name + "' to " +
                         (r.kind == "builtins.range" ? std::string("range") : r.kind) + "()");
    // The other keywords are scheduling hints.
  }
  if (pos.empty() || pos.size() > 3) l.error(iter.loc, "range() takes 1 to 3 positional arguments");
  if (pos.size() == 1)
    r.hi = pos[0];
  else {
    r.lo = pos[0];
    r.hi = pos[1];
    if (pos.size() == 3) r.step = pos[2];
  }
  if (!endKw.isNone()) r.hi = endKw;
  if (!stepKw.isNone()) r.step = stepKw;
  if (r.step.isConst() && l.constInt(r.step, iter.loc, "the range step") == 0)
    l.error(iter.loc, "range() step must not be zero");
  return r;
}

// A `for` loop with a `break` becomes a while loop carrying the induction
// variable and a "$broken" flag.
void lowerForWithBreak(Lowerer &l, const ast::Stmt &s, const std::string &target, Value *lb,
                       Value *ub, Value *st, const SVal &stepSVal) {
  Env *outer = l.env();
  Builder &b = l.builder();
  (*outer)["$iv"] = SVal::tensor(lb);
  b.setLoc(s.loc);
  (*outer)["$broken"] = SVal::tensor(l.constantInt(0, Type::scalar(DType::I1)));
  auto bindTarget = [&](Block &) { (*l.env())[target] = l.env()->at("$iv"); };
  LoopCarried lc = planCarried(l, s.body, nullptr, bindTarget, s.loc, {"$iv", "$broken"});
  std::vector<Value *> inits;
  for (const auto &v : lc.inits) flattenRuntime(v, inits);
  std::vector<Type> types;
  for (Value *v : inits) types.push_back(v->type);
  b.setLoc(s.loc);
  Operation *w = b.create(OpCode::While, inits, types);
  Block *save = b.block();
  Type i1 = Type::scalar(DType::I1);
  // before: continue while in range and not broken.
  Env condEnv = *outer;
  std::vector<Value *> beforeArgs = addRegionArgs(*w->regions[0], types);
  bindCarried(lc, condEnv, beforeArgs);
  b.setInsertionPointToEnd(w->regions[0].get());
  Value *iv = condEnv.at("$iv").v;
  Value *inRange;
  if (stepSVal.isConst()) {
    bool up = stepSVal.i > 0;
    inRange = l.emit(OpCode::Cmp, {iv, ub}, i1, s.loc, {{"pred", std::string(up ? "lt" : "gt")}});
  } else {
    Value *zero = l.constantInt(0, st->type);
    Value *up = l.emit(OpCode::Cmp, {st, zero}, i1, s.loc, {{"pred", std::string("gt")}});
    Value *lt = l.emit(OpCode::Cmp, {iv, ub}, i1, s.loc, {{"pred", std::string("lt")}});
    Value *gt = l.emit(OpCode::Cmp, {iv, ub}, i1, s.loc, {{"pred", std::string("gt")}});
    inRange = l.emit(OpCode::Select, {up, lt, gt}, i1, s.loc);
  }
  Value *notBroken = l.emit(OpCode::Not, {condEnv.at("$broken").v}, i1, s.loc);
  Value *cond = l.emit(OpCode::And, {inRange, notBroken}, i1, s.loc);
  std::vector<Value *> condOps{cond};
  condOps.insert(condOps.end(), beforeArgs.begin(), beforeArgs.end());
  b.create(OpCode::Condition, condOps, {});
  // after: the body, then iv += step.
  Env env = *outer;
  std::vector<Value *> afterArgs = addRegionArgs(*w->regions[1], types);
  bindCarried(lc, env, afterArgs);
  Value *ivStart = env.at("$iv").v;
  env[target] = SVal::tensor(ivStart);
  l.setEnv(&env);
  lowerLoopBody(l, s, *w->regions[1], env, lc, [&] {
    env["$iv"] = SVal::tensor(l.emit(OpCode::Add, {ivStart, st}, ivStart->type, s.loc));
  });
  l.setEnv(outer);
  b.setInsertionPointToEnd(save);
  bindCarried(lc, *outer, resultsOf(w));
  outer->erase("$iv");
  outer->erase("$broken");
}

}  // namespace

// The most iterations a constexpr_function's loop (while or range) runs at
// compile time before it is refused as endless.
constexpr int64_t kCompileTimeIterations = 100000;

namespace {

// Whether `iter` calls range(), tl.range() or tl.static_range().
bool isRangeCall(Lowerer &l, const ast::Expr &iter) {
  if (iter.kind != ast::ExprKind::Call) return false;
  SVal fn = l.expr(*iter.a);
  return fn.kind == SVal::Kind::Builtin &&
         (fn.s == "builtins.range" || fn.s == "tl.range" || fn.s == "tl.static_range");
}

// `for x in t` over a tuple: the body once per element, at compile time
// (as Triton unrolls it).
void lowerForOverTuple(Lowerer &l, const ast::Stmt &s, const std::vector<SVal> &items) {
  if (containsBreak(s.body))
    l.error(s.loc, "'break' is not supported in a loop over a tuple",
            "the loop is unrolled at compile time; test a flag instead");
  for (const SVal &item : items) {
    l.assign(*s.targets[0], item);
    LoopDepthGuard depth(l);
    Lowerer::FlowResult f = l.lowerBody(s.body);
    if (f.returned) l.error(s.loc, "return inside a loop is not supported");
  }
}

}  // namespace

std::vector<SVal> compileTimeItems(Lowerer &l, const ast::Expr &iter, const std::string &what,
                                   int64_t limit) {
  std::vector<SVal> items;
  if (isRangeCall(l, iter)) {
    RangeArgs r = rangeArgs(l, iter);
    int64_t a = l.constInt(r.lo, iter.loc, what + " range start");
    int64_t z = l.constInt(r.hi, iter.loc, what + " range end");
    int64_t st = l.constInt(r.step, iter.loc, what + " range step");
    for (int64_t v = a; st > 0 ? v < z : v > z;) {
      if (static_cast<int64_t>(items.size()) >= limit)
        l.error(iter.loc, what + " runs more than " + std::to_string(limit) + " iterations");
      items.push_back(SVal::integer(v));
      if (__builtin_add_overflow(v, st, &v)) break;
    }
    return items;
  }
  SVal v = l.expr(iter);
  if (v.kind != SVal::Kind::Tuple)
    l.error(iter.loc, what + " must iterate over a tuple or a range(), got " + describe(v),
            "it runs at compile time; use a for loop over range() for runtime iteration");
  if (static_cast<int64_t>(v.elems.size()) > limit)
    l.error(iter.loc, what + " runs more than " + std::to_string(limit) + " iterations");
  return v.elems;
}

void lowerFor(Lowerer &l, const ast::Stmt &s) {
  const ast::Expr &iter = *s.a;
  const ast::Expr &target = *s.targets[0];
  if (!s.orelse.empty()) l.error(s.loc, "for/else is not supported in kernels");
  if (!isRangeCall(l, iter)) {
    // Anything else must be a tuple (a list display is one).
    SVal items = l.expr(iter);
    if (items.kind != SVal::Kind::Tuple)
      l.error(iter.loc,
              "a for loop must iterate over range(), tl.range(), tl.static_range() or a tuple, "
              "got " +
                  describe(items),
              "iterating over tensors is not supported");
    return lowerForOverTuple(l, s, items.elems);
  }
  RangeArgs r = rangeArgs(l, iter);
  if (target.kind != ast::ExprKind::Name)
    l.error(target.loc, "the loop variable must be a single name");
  Env *outer = l.env();

  // In a constexpr_function every range runs at compile time, as Python
  // would run it.
  if (r.kind == "tl.static_range" || l.inConstexprFunction()) {
    const bool unrolled = r.kind == "tl.static_range";
    const std::string what = unrolled ? "tl.static_range" : "a constexpr_function's range()";
    int64_t a = l.constInt(r.lo, iter.loc, what + " start");
    int64_t z = l.constInt(r.hi, iter.loc, what + " end");
    int64_t st = l.constInt(r.step, iter.loc, what + " step");
    if (containsBreak(s.body))
      l.error(s.loc, "'break' is not supported in " + what + " loops",
              unrolled ? "use range() for a loop that breaks"
                       : "put the exit test in a while loop's condition");
    int64_t count = 0, limit = unrolled ? 4096 : kCompileTimeIterations;
    // A next value past int64 is past z too: the loop ends there, as
    // Python's range does, without overflowing.
    for (int64_t v = a; st > 0 ? v < z : v > z;) {
      if (++count > limit)
        l.error(iter.loc, what + " runs more than " + std::to_string(limit) + " iterations",
                unrolled ? "use range() for long loops"
                         : "a loop that long does not belong in a compile-time helper");
      (*outer)[target.str] = SVal::integer(v);
      LoopDepthGuard depth(l);
      Lowerer::FlowResult f = l.lowerBody(s.body);
      if (f.returned) l.error(s.loc, "return inside a loop is not supported");
      if (__builtin_add_overflow(v, st, &v)) break;
    }
    return;
  }

  // The induction variable is i64 when any bound is, else i32.
  auto boundType = [&](const SVal &v) {
    if (v.isTensor()) {
      if (v.v->type.isTile() || !isInt(v.v->type.dtype) || v.v->type.isPtrLike())
        l.error(iter.loc, "range() bounds must be integer scalars, got " + describe(v));
      return v.v->type.dtype;
    }
    if (!v.isIntLike()) l.error(iter.loc, "range() bounds must be integers, got " + describe(v));
    return l.dtypeOf(v);
  };
  DType ivType = DType::I32;
  for (const SVal *v : {&r.lo, &r.hi, &r.step})
    if (bitWidth(boundType(*v)) == 64) ivType = DType::I64;
  Builder &b = l.builder();
  Value *lb = l.toValue(r.lo, iter.loc, ivType);
  Value *ub = l.toValue(r.hi, iter.loc, ivType);
  Value *st = l.toValue(r.step, iter.loc, ivType);
  if (containsBreak(s.body)) return lowerForWithBreak(l, s, target.str, lb, ub, st, r.step);

  auto bindIv = [&](Block &blk) {
    Value *iv = blk.addArg(Type::scalar(ivType), target.str);
    (*l.env())[target.str] = SVal::tensor(iv);
  };
  LoopCarried lc = planCarried(l, s.body, nullptr, bindIv, s.loc);
  std::vector<Value *> operands{lb, ub, st};
  std::vector<Value *> flatInits;
  for (const auto &v : lc.inits) flattenRuntime(v, flatInits);
  operands.insert(operands.end(), flatInits.begin(), flatInits.end());
  std::vector<Type> types;
  for (Value *v : flatInits) types.push_back(v->type);
  b.setLoc(s.loc);
  Operation *forOp = b.create(OpCode::For, operands, types);
  if (r.numStages > 0) forOp->setAttr("num_stages", r.numStages);
  if (r.unroll > 1) forOp->setAttr("loop_unroll_factor", r.unroll);
  if (r.flatten) forOp->setAttr("flatten", int64_t{1});
  if (r.warpSpecialize) forOp->setAttr("warp_specialize", int64_t{1});
  Block *saveBlock = b.block();
  Block &region = *forOp->regions[0];
  Env env = *outer;
  l.setEnv(&env);
  bindIv(region);
  bindCarried(lc, env, addRegionArgs(region, types));
  lowerLoopBody(l, s, region, env, lc);
  l.setEnv(outer);
  b.setInsertionPointToEnd(saveBlock);
  bindCarried(lc, *outer, resultsOf(forOp));
}

// A while loop of a constexpr_function, run at compile time: its condition
// must be a compile-time value on every test.
void lowerCompileTimeWhile(Lowerer &l, const ast::Stmt &s) {
  if (containsBreak(s.body))
    l.error(s.loc, "'break' is not supported in a constexpr_function's while loop",
            "put the exit test in the loop's condition");
  for (int64_t count = 0;; ++count) {
    SVal cond = l.expr(*s.a);
    if (!cond.isConst())
      l.error(s.a->loc,
              "a constexpr_function's while condition must be a compile-time value, got " +
                  describe(cond),
              "a constexpr_function runs at compile time on constexpr arguments");
    if (l.unary(ast::UnaryOp::Not, cond, s.a->loc).i) return;  // false
    if (count == kCompileTimeIterations)
      l.error(s.loc,
              "a constexpr_function's while loop ran " + std::to_string(kCompileTimeIterations) +
                  " times",
              "a loop that long (or endless) does not belong in a compile-time helper");
    LoopDepthGuard depth(l);
    Lowerer::FlowResult f = l.lowerBody(s.body);
    if (f.returned) l.error(s.loc, "return inside a loop is not supported");
  }
}

void lowerWhile(Lowerer &l, const ast::Stmt &s) {
  if (!s.orelse.empty()) l.error(s.loc, "while/else is not supported in kernels");
  if (l.inConstexprFunction()) return lowerCompileTimeWhile(l, s);
  Env *outer = l.env();
  Builder &b = l.builder();
  bool hasBreak = containsBreak(s.body);
  std::vector<std::string> forced;
  if (hasBreak) {
    b.setLoc(s.loc);
    (*outer)["$broken"] = SVal::tensor(l.constantInt(0, Type::scalar(DType::I1)));
    forced.push_back("$broken");
  }
  LoopCarried lc = planCarried(
      l, s.body, s.a.get(), [](Block &) {}, s.loc, forced);
  std::vector<Value *> flatInits;
  for (const auto &v : lc.inits) flattenRuntime(v, flatInits);
  std::vector<Type> types;
  for (Value *v : flatInits) types.push_back(v->type);
  b.setLoc(s.loc);
  Operation *whileOp = b.create(OpCode::While, flatInits, types);
  Block *saveBlock = b.block();

  // before: evaluate the condition, forward the carried values.
  Env condEnv = *outer;
  Block &before = *whileOp->regions[0];
  std::vector<Value *> beforeArgs = addRegionArgs(before, types);
  bindCarried(lc, condEnv, beforeArgs);
  b.setInsertionPointToEnd(&before);
  l.setEnv(&condEnv);
  SVal cond = l.expr(*s.a);
  if (cond.isConst())
    l.error(s.a->loc, "a while condition must be a runtime value",
            "a compile-time condition would loop forever or never; use a for loop");
  Value *c = l.tensorArg(cond, s.a->loc, "the while condition");
  if (c->type.isTile()) l.error(s.a->loc, "a while condition must be a scalar, not a tensor");
  c = l.cast(c, Type::scalar(DType::I1), s.a->loc);
  if (hasBreak) {
    Type i1 = Type::scalar(DType::I1);
    Value *notBroken = l.emit(OpCode::Not, {condEnv.at("$broken").v}, i1, s.loc);
    c = l.emit(OpCode::And, {c, notBroken}, i1, s.loc);
  }
  std::vector<Value *> condOperands{c};
  condOperands.insert(condOperands.end(), beforeArgs.begin(), beforeArgs.end());
  b.setLoc(s.loc);
  b.create(OpCode::Condition, condOperands, {});
  // after: the body.
  Env env = *outer;
  Block &after = *whileOp->regions[1];
  bindCarried(lc, env, addRegionArgs(after, types));
  l.setEnv(&env);
  lowerLoopBody(l, s, after, env, lc);
  l.setEnv(outer);
  b.setInsertionPointToEnd(saveBlock);
  bindCarried(lc, *outer, resultsOf(whileOp));
  outer->erase("$broken");
}

}  // namespace tessera::frontend
