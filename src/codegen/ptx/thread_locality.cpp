// thread-locality: a reduction whose result only updates a loop-carried
// accumulator (acc' = acc OP reduce(x, axis), OP the reduction's combine)
// keeps per-thread partials in the loop and reduces across threads once,
// after it.
//
// Requires: layouts assigned (assign-layouts).
// Guarantees: for every such reduce directly in the body of a `for`
// (innermost loops first), the loop's iter arg becomes a partial tile `part`
// initialised to OP's identity. With x's layout L, the bits of `axis` split
// into a low run held in registers (S elements), the thread bits (H) and a
// high run held in registers (R): in the loop, x is reshaped to dims
// [R,] H [, S] in place of `axis` (a register alias: the result's layout is
// L.reshaped), reduced along S and R (in-thread only), and
// part' = part OP that; with R = S = 1 it is part' = part OP x. After the
// loop, reduce(part, axis), the convert_layout the loop applied to the
// reduce's result (if any), then init OP that replace the loop's result.
// A reduce is left alone when the combine or the update is anything else,
// the reduce's result or the accumulator has another use, they sit under an
// `if` or in a `while`, the axis has no lane or warp bit (nothing to defer),
// the partial would take more than kMaxPartialRegs registers, or an fmax /
// fmin that drops NaN starts from a value not known to be a number.
// The layout rules of assign-layouts still hold: a reduce's result is its
// operand's layout sliced, L.reshaped(...).sliced(...).sliced(axis) is
// L.sliced(axis) exactly, and carried values keep one layout.
// Preserves: what the program computes, except that float add and mul are
// reassociated (as Triton's reduction lowering does); max, min and the
// integer ops combine the same values, so their results are exact.
//
// Why: the shuffles, barriers and shared-memory round trip of a reduction
// across threads, and the convert_layout of its result into the
// accumulator's layout, ran on every iteration of a loop like
// `acc += tl.sum(x, 1)`; only the last one is needed. The row sum of a
// 32x256 fp32 tile over 4 warps lost 80 shuffles, 4 barriers and 65
// shared-memory accesses per iteration. emitReduce chooses its steps from
// the operand's layout, so an IR rewrite with existing ops (reshape, reduce,
// convert_layout and the combine) says all of it: the interpreter and the
// verifier see an ordinary program.
//
// Not done: updates through a cast or any other op, multi-value reduces
// (argmax), accumulators used twice (attention's m_i and l_i).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/layout.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {
namespace {

using namespace passes;

// 32-bit registers per thread the partial may take. The loop's prefetched
// x tiles are live beside it, so this stays well under what a thread has;
// a guess, to revisit with bench/ before raising.
constexpr int kMaxPartialRegs = 64;

// The combine op of a single-value reduce whose region is exactly
// `c = OP(lhs, rhs)` (either order) and `yield c`; null otherwise.
const Operation *combineOf(const Operation &red) {
  if (red.operands.size() != 1 || red.results.size() != 1 || red.regions.size() != 1)
    return nullptr;
  const Block &r = *red.regions[0];
  if (r.args.size() != 2 || r.ops.size() != 2) return nullptr;
  const Operation &c = *r.ops.front();
  const Operation *y = r.terminator();
  if (!y || y->operands.size() != 1 || c.results.size() != 1 || c.operands.size() != 2 ||
      !c.regions.empty() || y->operand(0) != c.result())
    return nullptr;
  const Value *a = r.args[0].get(), *b = r.args[1].get();
  bool args = (c.operand(0) == a && c.operand(1) == b) || (c.operand(0) == b && c.operand(1) == a);
  return args ? &c : nullptr;
}

// The identity of the combine `c`: what a partial starts from, so that a
// loop that never runs still returns its initial value (init OP identity ==
// init). Float add uses -0.0, since init + 0.0 would turn a -0.0 into 0.0.
std::optional<Scalar> identityOf(const Operation &c) {
  DType d = c.result()->type.dtype;
  if (d == DType::I1 || isFp8(d)) return std::nullopt;
  bool f = isFloat(d);
  int bits = bitWidth(d);
  int64_t smin = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
  int64_t smax = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
  int64_t ones = wrapInt(~uint64_t{0}, d);
  switch (c.code) {
    case OpCode::Add:
      return f ? Scalar::ofFloat(-0.0) : Scalar::ofInt(0);
    case OpCode::Mul:
      return f ? Scalar::ofFloat(1.0) : Scalar::ofInt(1);
    case OpCode::Max:
      return f ? Scalar::ofFloat(-INFINITY) : Scalar::ofInt(isSigned(d) ? smin : 0);
    case OpCode::Min:
      return f ? Scalar::ofFloat(INFINITY) : Scalar::ofInt(isSigned(d) ? smax : ones);
    case OpCode::And:
      return f ? std::nullopt : std::optional(Scalar::ofInt(ones));
    case OpCode::Or:
    case OpCode::Xor:
      return f ? std::nullopt : std::optional(Scalar::ofInt(0));
    default:
      return std::nullopt;
  }
}

Type withLayout(Type t, const LinearLayout &l) {
  t.layout = l.str();
  return t;
}

// How a reduction along `axis` of a tile in layout `l` splits (design §3):
// the axis becomes dims [R,] H [, S] of `shape`, S the run of register-held
// bits from bit 0, R the run of register-held bits ending at the top bit.
// Register bits in between (mma layouts) stay in H, as registers: still
// correct, only fewer registers saved.
struct AxisSplit {
  std::vector<int64_t> shape;
  int rAxis = -1, sAxis = -1;  // -1 when R (S) is 1
  LinearLayout reshaped;       // l.reshaped(shape): the same registers
  LinearLayout partial;        // reshaped without S and R: the loop's partial
};

// nullopt when no lane or warp holds a bit of the axis: the reduce is then
// in-thread already and there is nothing to defer.
std::optional<AxisSplit> splitAxis(const LinearLayout &l, int axis) {
  int64_t k = l.shape[axis];
  if (!std::has_single_bit(static_cast<uint64_t>(k))) return std::nullopt;
  int nbits = std::countr_zero(static_cast<uint64_t>(k));
  std::vector<bool> inReg(nbits, false);
  for (const Basis &b : l.reg)
    if (b.dim == axis) inReg[std::countr_zero(static_cast<uint64_t>(b.value))] = true;
  bool crossThread = false;
  for (const auto *bases : {&l.lane, &l.warp})
    for (const Basis &b : *bases) crossThread |= b.dim == axis;
  if (!crossThread) return std::nullopt;
  int lo = 0, hi = 0;
  while (lo < nbits && inReg[lo]) ++lo;
  while (hi < nbits - lo && inReg[nbits - 1 - hi]) ++hi;
  int64_t s = int64_t{1} << lo, r = int64_t{1} << hi;
  AxisSplit out;
  for (int d = 0; d < axis; ++d) out.shape.push_back(l.shape[d]);
  if (r > 1) {
    out.rAxis = static_cast<int>(out.shape.size());
    out.shape.push_back(r);
  }
  out.shape.push_back(k / (r * s));
  if (s > 1) {
    out.sAxis = static_cast<int>(out.shape.size());
    out.shape.push_back(s);
  }
  for (size_t d = axis + 1; d < l.shape.size(); ++d) out.shape.push_back(l.shape[d]);
  out.reshaped = l.reshaped(out.shape);
  out.partial = out.reshaped;
  // S comes after R, so slicing it first leaves rAxis where it is.
  if (out.sAxis >= 0) out.partial = out.partial.sliced(out.sAxis);
  if (out.rAxis >= 0) out.partial = out.partial.sliced(out.rAxis);
  return out;
}

class ThreadLocality {
 public:
  explicit ThreadLocality(Function &fn) : fn_(fn) {}

  // Rewrites one reduce; false when none matches. Uses are counted afresh
  // each time, since a rewrite changes them (and frees values).
  bool rewriteOne() {
    std::vector<Operation *> reduces;
    fn_.walk([&](Operation *op) {
      if (op->code == OpCode::Reduce && op->parent->parentOp &&
          op->parent->parentOp->code == OpCode::For)
        reduces.push_back(op);
    });
    if (reduces.empty()) return false;  // (the use lists cost more than the rest)
    users_.clear();
    fn_.walk([&](Operation *op) {
      for (Value *v : op->operands) users_[v].push_back(op);
    });
    // Innermost first: a reduce nested deeper comes later in a pre-order
    // walk. An outer loop then sees the inner loop's rewritten result.
    for (auto it = reduces.rbegin(); it != reduces.rend(); ++it)
      if (tryRewrite(*it)) return true;
    return false;
  }

 private:
  size_t numUses(Value *v) const {
    auto it = users_.find(v);
    return it == users_.end() ? 0 : it->second.size();
  }
  Operation *onlyUser(Value *v) const {
    auto it = users_.find(v);
    return it != users_.end() && it->second.size() == 1 ? it->second[0] : nullptr;
  }

  // A clone of `red` (its region included) reducing `v` along `axis` into
  // `type`, at `b`'s point.
  static Value *reduceLike(const Operation &red, Builder &b, Value *v, int axis, const Type &type) {
    std::unordered_map<const Value *, Value *> mapping{{red.operand(0), v}};
    Operation *c = cloneOp(red, b, mapping);
    c->setAttr("axis", int64_t{axis});
    c->results[0]->type = type;
    return c->result();
  }

  static Type slicedType(const Value *v, const LinearLayout &l, int axis) {
    std::vector<int64_t> shape = v->type.shape;
    shape.erase(shape.begin() + axis);
    return withLayout(v->type.withShape(shape), l.sliced(axis));
  }

  bool tryRewrite(Operation *red) {
    // The reduce, the update and the yield are all directly in a for's body.
    Block *body = red->parent;
    Operation *loop = body->parentOp;
    if (!loop || loop->code != OpCode::For) return false;
    Operation *yield = forYield(loop);
    if (!yield) return false;
    const Operation *comb = combineOf(*red);
    if (!comb) return false;
    std::optional<Scalar> identity = identityOf(*comb);
    if (!identity) return false;
    Value *x = red->operand(0);
    if (!x->type.isTile() || x->type.isPtrLike()) return false;

    // red -> [convert_layout ->] update -> yield, each the only use.
    Operation *conv = nullptr, *upd = onlyUser(red->result());
    if (upd && upd->code == OpCode::ConvertLayout && upd->parent == body) {
      conv = upd;
      upd = onlyUser(conv->result());
    }
    if (!upd || upd->parent != body || upd->code != comb->code || upd->operands.size() != 2 ||
        !sameAttrs(*upd, *comb))
      return false;
    Value *r = conv ? conv->result() : red->result();
    Value *acc = upd->operand(0) == r ? upd->operand(1) : upd->operand(0);
    if (acc == r || acc->owner != body || numUses(acc) != 1 || onlyUser(upd->result()) != yield ||
        !yieldsBackInto(upd->result(), acc))
      return false;
    unsigned i = acc->index - 1;
    Value *init = loop->operand(3 + i);
    // fmax/fmin drop a NaN; a NaN init would then survive only a loop that
    // never runs (max(NaN, -inf) is -inf), so the init must be a number.
    if (isFloat(comb->result()->type.dtype) &&
        (comb->code == OpCode::Max || comb->code == OpCode::Min) &&
        !comb->intAttr("propagate_nan")) {
      std::optional<Scalar> c = constantOf(init);
      if (!c || std::isnan(c->f)) return false;
    }

    int axis = static_cast<int>(red->intAttr("axis"));
    std::optional<LinearLayout> lx = LinearLayout::parse(x->type.layout.str(), x->type.shape);
    if (!lx) return false;
    std::optional<AxisSplit> split = splitAxis(*lx, axis);
    if (!split) return false;
    int words = std::max(1, bitWidth(x->type.dtype) / 32);
    if (split->partial.numRegs() * words > kMaxPartialRegs) return false;
    // The reduce after the loop must give the layout the old one gave.
    const Type &redType = red->result()->type;
    if (redType.isTile() &&
        LinearLayout::parse(redType.layout.str(), redType.shape) != split->partial.sliced(axis))
      return false;

    // In the loop: part' = part OP (x reduced along its register-only dims).
    Builder b;
    b.setInsertionPointBefore(red);
    b.setLoc(red->loc);
    Value *p = x;
    if (split->shape != x->type.shape)
      p = b.op1(OpCode::Reshape, {x}, withLayout(x->type.withShape(split->shape), split->reshaped));
    if (split->sAxis >= 0)
      p = reduceLike(*red, b, p, split->sAxis, slicedType(p, split->reshaped, split->sAxis));
    if (split->rAxis >= 0) {
      LinearLayout l = split->sAxis >= 0 ? split->reshaped.sliced(split->sAxis) : split->reshaped;
      p = reduceLike(*red, b, p, split->rAxis, slicedType(p, l, split->rAxis));
    }
    Type partType = p->type;
    Type accType = acc->type;
    yield->operands[i] = b.create(upd->code, {acc, p}, {partType}, upd->attrs)->result();
    acc->type = partType;
    loop->result(i)->type = partType;
    Builder pre;
    pre.setInsertionPointBefore(loop);
    pre.setLoc(loop->loc);
    loop->operands[3 + i] = makeConstant(pre, partType, *identity);

    // After the loop: across threads once, then the initial value. A
    // constant init is cloned here rather than held across the loop.
    Builder post;
    post.setInsertionPoint(loop->parent, std::next(loop->self));
    post.setLoc(red->loc);
    Value *part = loop->result(i);
    Value *total = reduceLike(*red, post, part, axis, redType);
    Operation *totalOp = total->def;
    if (conv) total = post.op1(OpCode::ConvertLayout, {total}, conv->result()->type);
    Value *first = init;
    if (init->def && init->def->code == OpCode::Constant) {
      std::unordered_map<const Value *, Value *> none;
      first = cloneOp(*init->def, post, none)->result();
    }
    Value *fin = post.create(upd->code, {first, total}, {accType}, upd->attrs)->result();
    replaceAllUsesWith(fn_.body, part, fin);
    totalOp->operands[0] = part;

    eraseOp(upd);
    if (conv) eraseOp(conv);
    eraseOp(red);
    if (first != init && numUses(init) == 1) eraseOp(init->def);  // the loop was its only user
    return true;
  }

  Function &fn_;
  std::unordered_map<Value *, std::vector<Operation *>> users_;
};

}  // namespace

void optimizeThreadLocality(Module &m) {
  for (auto &fn : m.functions) {
    ThreadLocality t(*fn);
    while (t.rewriteOne()) {
    }
  }
}

}  // namespace tessera::ptx
