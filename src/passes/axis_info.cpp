// Axis-info analysis (see axis_info.h for what the numbers mean).
//
// One forward walk in program order; structured loops iterate their
// loop-carried values to a fixed point of the meet (element-wise minimum),
// which terminates because every entry only decreases and is a power of two.
#include "passes/axis_info.h"

#include <algorithm>
#include <bit>

#include "ir/op_groups.h"
#include "passes/fold.h"
#include "passes/pass_utils.h"

namespace tessera {

AxisInfo AxisInfo::unknown(int rank) {
  AxisInfo a;
  a.contiguity.assign(rank, 1);
  a.divisibility.assign(rank, 1);
  a.constancy.assign(rank, 1);
  return a;
}

const AxisInfo *AxisInfoMap::lookup(const Value *v) const {
  const uint32_t *i = index_.find(v);
  return i ? &infos_[*i] : nullptr;
}

void AxisInfoMap::set(const Value *v, AxisInfo info) {
  if (const uint32_t *i = index_.find(v)) {
    infos_[*i] = std::move(info);
    return;
  }
  index_[v] = static_cast<uint32_t>(infos_.size());
  infos_.push_back(std::move(info));
}

int64_t highestPow2Divisor(int64_t v) {
  if (v == 0) return kMaxDivisibility;
  uint64_t u = static_cast<uint64_t>(v);
  uint64_t low = u & (~u + 1);
  return low >= static_cast<uint64_t>(kMaxDivisibility) ? kMaxDivisibility
                                                        : static_cast<int64_t>(low);
}

namespace {

using namespace passes;
using I64 = int64_t;

// In place (AxisDims): asked for each operand and result of every op.
AxisDims shapeOf(const Type &t) {
  if (t.isTile() && !t.shape.empty()) return AxisDims(t.shape);
  return AxisDims(1, 1);
}

int rankOf(const Type &t) {
  return static_cast<int>(shapeOf(t).size());
}

AxisInfo unknownFor(const Value *v) {
  return AxisInfo::unknown(rankOf(v->type));
}

// Bytes between consecutive elements of a contiguous run.
I64 unitOf(const Type &t) {
  return t.isPtrLike() ? std::max(1, byteSize(t.dtype)) : 1;
}

I64 capDiv(I64 v) {
  return std::clamp<I64>(v, 1, kMaxDivisibility);
}
I64 mulDiv(I64 a, I64 b) {
  // Both are powers of two no larger than 2^30, so the product fits.
  return capDiv(a * b);
}

// Divisibility of the elements at positions that are multiples of r along d.
// Positions inside a contiguous run of length c > r hold start + m*r*unit.
I64 divAt(const AxisInfo &a, int d, I64 r, I64 unit) {
  I64 c = a.contiguity[d], v = a.divisibility[d];
  if (c <= r) return v;
  return std::min(v, capDiv(r * unit));
}

// Divisibility of every element along d.
I64 elemDiv(const AxisInfo &a, int d, I64 unit) {
  return divAt(a, d, 1, unit);
}

// Divisibility of every element of the value (each dim's claim holds).
I64 elemDivAll(const AxisInfo &a, I64 unit) {
  I64 best = 1;
  for (int d = 0; d < a.rank(); ++d) best = std::max(best, elemDiv(a, d, unit));
  return best;
}

AxisInfo meet(const AxisInfo &a, const AxisInfo &b) {
  if (a.rank() != b.rank()) return AxisInfo::unknown(a.rank());
  AxisInfo r = a;
  for (int d = 0; d < a.rank(); ++d) {
    r.contiguity[d] = std::min(a.contiguity[d], b.contiguity[d]);
    r.divisibility[d] = std::min(a.divisibility[d], b.divisibility[d]);
    r.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
  }
  if (a.constant != b.constant) r.constant.reset();
  return r;
}

// Every element equal to `c` (an integer of a value of shape `shape`).
AxisInfo constantInfo(I64 c, const AxisDims &shape) {
  AxisInfo a = AxisInfo::unknown(static_cast<int>(shape.size()));
  a.constant = c;
  a.divisibility.assign(shape.size(), highestPow2Divisor(c));
  a.constancy = shape;
  return a;
}

// A scalar's info spread over `shape`.
AxisInfo splatInfo(const AxisInfo &s, I64 unit, const AxisDims &shape) {
  AxisInfo a = AxisInfo::unknown(static_cast<int>(shape.size()));
  a.divisibility.assign(shape.size(), elemDivAll(s, unit));
  a.constancy = shape;
  a.constant = s.constant;
  return a;
}

bool isPow2(I64 v) {
  return v > 0 && std::has_single_bit(static_cast<uint64_t>(v));
}

class Analysis {
 public:
  AxisInfoMap map;

  void analyzeFunction(Function &fn) {
    analyzeArgs(fn);
    analyzeBlock(fn.body);
  }

  void analyzeArgs(Function &fn) {
    for (size_t i = 0; i < fn.body.args.size(); ++i) {
      Value *a = fn.body.args[i].get();
      ParamAttrs pa = i < fn.paramAttrs.size() ? fn.paramAttrs[i] : ParamAttrs{};
      AxisInfo info = AxisInfo::unknown(rankOf(a->type));
      if (pa.equalToOne && a->type.isIntLike())
        info = constantInfo(1, shapeOf(a->type));
      else
        info.divisibility.assign(info.rank(), capDiv(highestPow2Divisor(pa.divisibility)));
      map.set(a, finalize(info, a->type));
    }
  }

  void analyzeOp(Operation *op);

 private:
  AxisInfo get(const Value *v) const {
    const AxisInfo *a = map.lookup(v);
    return a ? *a : unknownFor(v);
  }

  // The info of operand `v` seen at the shape of `rt` (a scalar operand of a
  // tile op counts as its splat).
  AxisInfo operandAs(const Value *v, const Type &rt) const {
    AxisInfo a = get(v);
    AxisDims shape = shapeOf(rt);
    if (a.rank() == static_cast<int>(shape.size()) && shapeOf(v->type) == shape) return a;
    if (!v->type.isTile()) return splatInfo(a, unitOf(v->type), shape);
    return AxisInfo::unknown(static_cast<int>(shape.size()));
  }

  // Clamps to the shape, and forgets what is meaningless for floats.
  static AxisInfo finalize(AxisInfo a, const Type &t) {
    AxisDims shape = shapeOf(t);
    if (a.rank() != static_cast<int>(shape.size())) a = AxisInfo::unknown(shape.size());
    bool tracked = t.isIntLike() || t.isPtrLike();
    if (!tracked) a.constant.reset();
    if (a.constant && t.isIntLike()) {
      a = constantInfo(*a.constant, shape);
      return a;
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      I64 n = std::max<I64>(shape[d], 1);
      a.contiguity[d] = tracked ? std::clamp<I64>(a.contiguity[d], 1, n) : 1;
      a.constancy[d] = std::clamp<I64>(a.constancy[d], 1, n);
      a.divisibility[d] = tracked ? capDiv(a.divisibility[d]) : 1;
    }
    return a;
  }

  void setResult(Operation *op, unsigned i, AxisInfo a) {
    if (i < op->results.size()) map.set(op->result(i), finalize(std::move(a), op->result(i)->type));
  }

  void analyzeBlock(Block &b) {
    for (auto &op : b.ops) analyzeOp(op.get());
  }

  void unknownResults(Operation *op) {
    for (unsigned i = 0; i < op->results.size(); ++i)
      setResult(op, i, AxisInfo::unknown(rankOf(op->result(i)->type)));
  }

  // The constant every element holds, through fold.h, when all operands
  // hold known integer constants.
  std::optional<I64> foldConstant(Operation *op) {
    if (op->results.size() != 1 || op->operands.empty() || !op->result(0)->type.isIntLike())
      return std::nullopt;
    std::vector<Scalar> args;
    for (Value *v : op->operands) {
      const AxisInfo *a = map.lookup(v);
      if (!a || !a->constant || !v->type.isIntLike()) return std::nullopt;
      args.push_back(Scalar::ofInt(*a->constant));
    }
    auto r = foldOp(*op, args);
    if (!r || r->isFloat) return std::nullopt;
    return r->i;
  }

  AxisInfo binary(Operation *op);
  AxisInfo cmpInfo(Operation *op, const AxisInfo &l, const AxisInfo &r);
  AxisInfo castInfo(Operation *op);
  AxisInfo reshapeInfo(Operation *op);
  void analyzeFor(Operation *op);
  void analyzeWhile(Operation *op);
  void analyzeIf(Operation *op);
};

// Add/sub of two operands already scaled to the result's unit.
AxisInfo addSub(const AxisInfo &l, const AxisInfo &r, I64 unit, bool isSub) {
  AxisInfo o = AxisInfo::unknown(l.rank());
  for (int d = 0; d < l.rank(); ++d) {
    // Contiguous plus constant over the same blocks stays contiguous; for a
    // difference only on the left (x - arange runs downward).
    I64 run = std::min(l.contiguity[d], r.constancy[d]);
    if (!isSub) run = std::max(run, std::min(l.constancy[d], r.contiguity[d]));
    o.contiguity[d] = run;
    o.divisibility[d] = std::min(divAt(l, d, run, unit), divAt(r, d, run, unit));
    o.constancy[d] = std::min(l.constancy[d], r.constancy[d]);
  }
  return o;
}

// x // p, x >> log2(p), x % p and x & (p-1) for a power of two p.
AxisInfo pow2DivRem(const AxisInfo &l, const AxisInfo &r, I64 p, bool isDiv) {
  AxisInfo o = AxisInfo::unknown(l.rank());
  for (int d = 0; d < l.rank(); ++d) {
    I64 c = l.contiguity[d], v = l.divisibility[d], k = std::min(l.constancy[d], r.constancy[d]);
    if (isDiv) {
      // A run starting at a multiple of p splits into groups of p equal
      // quotients; a whole run shorter than p is one group.
      I64 group = v >= p ? std::min(c, p) : 1;
      o.constancy[d] = std::max(k, std::min(group, r.constancy[d]));
      o.divisibility[d] = (c == 1 || c <= p) && v >= p ? v / p : 1;
    } else {
      // Remainders restart at multiples of p, which are multiples of the
      // run's alignment min(v, p).
      I64 run = std::min({c, v, p});
      o.contiguity[d] = std::min(run, r.constancy[d]);
      o.divisibility[d] = std::min(divAt(l, d, o.contiguity[d], 1), p);
      o.constancy[d] = k;
    }
  }
  return o;
}

AxisInfo Analysis::binary(Operation *op) {
  const Type &rt = op->result(0)->type;
  AxisInfo l = operandAs(op->operand(0), rt), r = operandAs(op->operand(1), rt);
  const int R = l.rank();
  AxisInfo o = AxisInfo::unknown(R);
  auto minConst = [&] {
    for (int d = 0; d < R; ++d) o.constancy[d] = std::min(l.constancy[d], r.constancy[d]);
  };
  std::optional<I64> rc = r.constant, lc = l.constant;
  const OpCode k = op->code;
  if (k == OpCode::Add) return addSub(l, r, 1, false);
  if (k == OpCode::Sub) return addSub(l, r, 1, true);
  if (k == OpCode::AddPtr) {
    // Offsets count elements; in bytes they step by the element size.
    I64 unit = unitOf(rt);
    for (int d = 0; d < R; ++d) r.divisibility[d] = mulDiv(r.divisibility[d], unit);
    return addSub(l, r, unit, false);
  }
  if (k == OpCode::Mul) {
    if (rc == 1) return l;
    if (lc == 1) return r;
    minConst();
    for (int d = 0; d < R; ++d) o.divisibility[d] = mulDiv(elemDiv(l, d, 1), elemDiv(r, d, 1));
    return o;
  }
  if (k == OpCode::Div || k == OpCode::Rem || k == OpCode::Shr || k == OpCode::And) {
    if (k == OpCode::Div && rc == 1) return l;
    if (k == OpCode::Shr && rc == 0) return l;
    std::optional<I64> p;  // the power of two the op divides by / masks at
    if (rc && k == OpCode::Shr && *rc >= 0 && *rc < 31) p = I64{1} << *rc;
    if (rc && (k == OpCode::Div || k == OpCode::Rem) && isPow2(*rc)) p = *rc;
    if (rc && k == OpCode::And && *rc >= 0 && *rc < kMaxDivisibility && isPow2(*rc + 1))
      p = *rc + 1;
    if (p) return pow2DivRem(l, r, *p, k == OpCode::Div || k == OpCode::Shr);
    minConst();
    for (int d = 0; d < R; ++d) {
      I64 a = elemDiv(l, d, 1), b = elemDiv(r, d, 1);
      // x % y is a multiple of what divides both; x & y keeps the trailing
      // zeros of either; nothing is known of a quotient.
      o.divisibility[d] = k == OpCode::Rem ? std::min(a, b) : k == OpCode::And ? std::max(a, b) : 1;
      if (k == OpCode::Rem) {
        // x % m with m the same along a run: remainders restart at multiples
        // of m, hence of m's divisibility b, so a run aligned to min(its
        // alignment, b) wraps nowhere inside (offsets are non-negative, as
        // Triton assumes). The matmul tutorial's (pid * BLOCK + arange) % N.
        I64 run = std::min({l.contiguity[d], l.divisibility[d], b});
        o.contiguity[d] = std::min(run, r.constancy[d]);
        // Each run starts at a multiple of both its alignment and b.
        if (o.contiguity[d] > 1) o.divisibility[d] = std::min(divAt(l, d, o.contiguity[d], 1), b);
      }
    }
    return o;
  }
  if (k == OpCode::Shl) {
    if (rc == 0) return l;
    minConst();
    for (int d = 0; d < R; ++d) {
      I64 a = elemDiv(l, d, 1);
      o.divisibility[d] = rc && *rc > 0 && *rc < 31 ? mulDiv(a, I64{1} << *rc) : a;
    }
    return o;
  }
  if ((k == OpCode::Or || k == OpCode::Xor) && rc == 0) return l;
  if ((k == OpCode::Or || k == OpCode::Xor) && lc == 0) return r;
  // or, xor, max, min: the result's trailing zeros are at least the fewer of
  // the operands'.
  minConst();
  for (int d = 0; d < R; ++d) o.divisibility[d] = std::min(elemDiv(l, d, 1), elemDiv(r, d, 1));
  return o;
}

AxisInfo Analysis::cmpInfo(Operation *op, const AxisInfo &l, const AxisInfo &r) {
  const int R = l.rank();
  AxisInfo o = AxisInfo::unknown(R);
  std::string p = op->strAttr("pred");
  for (int d = 0; d < R; ++d) {
    I64 k = std::min(l.constancy[d], r.constancy[d]);
    // `offs < n` over a run of offsets starting at a multiple of g, with n a
    // multiple of g, changes value only at a multiple of g: constant over
    // blocks of g. Only lt/ge (run on the left) and gt/le (on the right)
    // put the change at a block start.
    if (p == "lt" || p == "ge") {
      I64 g = std::min({l.contiguity[d], l.divisibility[d], elemDiv(r, d, 1), r.constancy[d]});
      if (l.contiguity[d] > 1) k = std::max(k, g);
    } else if (p == "gt" || p == "le") {
      I64 g = std::min({r.contiguity[d], r.divisibility[d], elemDiv(l, d, 1), l.constancy[d]});
      if (r.contiguity[d] > 1) k = std::max(k, g);
    }
    o.constancy[d] = k;
  }
  return o;
}

AxisInfo Analysis::castInfo(Operation *op) {
  const Type &rt = op->result(0)->type;
  Value *x = op->operand(0);
  AxisInfo a = operandAs(x, rt);
  AxisInfo o = AxisInfo::unknown(a.rank());
  o.constancy = a.constancy;
  const Type &st = x->type;
  bool srcTracked = st.isIntLike() || st.isPtrLike();
  bool dstTracked = rt.isIntLike() || rt.isPtrLike();
  if (!srcTracked || !dstTracked) return o;
  if (rt.isIntLike() && dclass(rt.dtype) == DClass::Bool) return o;
  I64 su = unitOf(st), du = unitOf(rt);
  if (su != du) {
    // int <-> pointer: steps of one unit no longer line up.
    for (int d = 0; d < a.rank(); ++d) o.divisibility[d] = elemDiv(a, d, su);
    return o;
  }
  if (op->code == OpCode::Bitcast || st.isPtrLike() || rt.isPtrLike()) return a;
  int sw = bitWidth(st.dtype), dw = bitWidth(rt.dtype);
  if (dw >= sw) {
    a.constant = foldConstant(op);
    return a;
  }
  // Truncation wraps at 2^w (at 2^(w-1) between signs for a signed result).
  I64 wrap = dw - (isSigned(rt.dtype) ? 1 : 0) >= 30
                 ? kMaxDivisibility
                 : I64{1} << (dw - (isSigned(rt.dtype) ? 1 : 0));
  for (int d = 0; d < a.rank(); ++d) {
    o.contiguity[d] = std::min({a.contiguity[d], a.divisibility[d], wrap});
    o.divisibility[d] = std::min(divAt(a, d, o.contiguity[d], 1), wrap);
  }
  o.constant = foldConstant(op);
  return o;
}

AxisInfo Analysis::reshapeInfo(Operation *op) {
  Value *x = op->operand(0);
  const Type &rt = op->result(0)->type;
  AxisInfo a = get(x);
  AxisDims in = shapeOf(x->type), out = shapeOf(rt);
  AxisInfo o = AxisInfo::unknown(static_cast<int>(out.size()));
  I64 unit = unitOf(rt);
  I64 ed = elemDivAll(a, unit);
  o.divisibility.assign(out.size(), ed);
  o.constant = a.constant;
  // Dims other than size-1 ones keep their order under a row-major reshape
  // that only adds or drops size-1 dims.
  std::vector<int> inDims, outDims;
  for (size_t d = 0; d < in.size(); ++d)
    if (in[d] != 1) inDims.push_back(static_cast<int>(d));
  for (size_t d = 0; d < out.size(); ++d)
    if (out[d] != 1) outDims.push_back(static_cast<int>(d));
  bool same = inDims.size() == outDims.size();
  for (size_t i = 0; same && i < inDims.size(); ++i) same = in[inDims[i]] == out[outDims[i]];
  if (same) {
    for (size_t i = 0; i < inDims.size(); ++i) {
      o.contiguity[outDims[i]] = a.contiguity[inDims[i]];
      o.divisibility[outDims[i]] = a.divisibility[inDims[i]];
      o.constancy[outDims[i]] = a.constancy[inDims[i]];
    }
    return o;
  }
  bool allConst = true;
  for (size_t d = 0; d < in.size() && d < static_cast<size_t>(a.rank()); ++d)
    allConst &= a.constancy[d] >= in[d];
  if (allConst) o.constancy = out;
  return o;
}

void Analysis::analyzeIf(Operation *op) {
  for (auto &r : op->regions) analyzeBlock(*r);
  int taken = -1;  // the region a constant condition selects
  if (!op->operands.empty()) {
    AxisInfo c = get(op->operand(0));
    if (c.constant) taken = *c.constant ? 0 : 1;
  }
  for (unsigned i = 0; i < op->results.size(); ++i) {
    AxisInfo acc;
    bool first = true;
    for (size_t k = 0; k < op->regions.size(); ++k) {
      if (taken >= 0 && static_cast<size_t>(taken) != k) continue;
      Operation *t = op->regions[k]->terminator();
      AxisInfo y = t && i < t->operands.size() ? operandAs(t->operand(i), op->result(i)->type)
                                               : AxisInfo::unknown(rankOf(op->result(i)->type));
      acc = first ? y : meet(acc, y);
      first = false;
    }
    setResult(op, i, first ? AxisInfo::unknown(rankOf(op->result(i)->type)) : acc);
  }
}

void Analysis::analyzeFor(Operation *op) {
  if (op->regions.size() != 1 || op->operands.size() < 3) return unknownResults(op);
  Block &body = *op->regions[0];
  size_t n = op->results.size();
  if (body.args.size() != n + 1 || op->operands.size() != n + 3) {
    for (auto &a : body.args) map.set(a.get(), AxisInfo::unknown(rankOf(a->type)));
    analyzeBlock(body);
    return unknownResults(op);
  }
  // The induction variable is lb + i*step.
  AxisInfo lb = get(op->operand(0)), step = get(op->operand(2));
  AxisInfo iv = AxisInfo::unknown(rankOf(body.args[0]->type));
  iv.divisibility.assign(iv.rank(), std::min(elemDivAll(lb, 1), elemDivAll(step, 1)));
  map.set(body.args[0].get(), finalize(iv, body.args[0]->type));
  std::vector<AxisInfo> state;
  for (size_t i = 0; i < n; ++i)
    state.push_back(operandAs(op->operand(3 + i), op->result(i)->type));
  for (int iter = 0;; ++iter) {
    for (size_t i = 0; i < n; ++i)
      map.set(body.args[1 + i].get(), finalize(state[i], body.args[1 + i]->type));
    analyzeBlock(body);
    Operation *y = body.terminator();
    bool stable = true;
    for (size_t i = 0; i < n; ++i) {
      AxisInfo yi = y && i < y->operands.size() ? operandAs(y->operand(i), op->result(i)->type)
                                                : AxisInfo::unknown(state[i].rank());
      AxisInfo next = finalize(meet(state[i], yi), op->result(i)->type);
      if (!(next == state[i])) stable = false;
      state[i] = next;
    }
    if (stable) break;
    if (iter == 64) {  // cannot happen for a monotone meet; be safe anyway
      for (size_t i = 0; i < n; ++i) state[i] = AxisInfo::unknown(state[i].rank());
      for (size_t i = 0; i < n; ++i) map.set(body.args[1 + i].get(), state[i]);
      analyzeBlock(body);
      break;
    }
  }
  for (size_t i = 0; i < n; ++i) setResult(op, static_cast<unsigned>(i), state[i]);
}

void Analysis::analyzeWhile(Operation *op) {
  size_t n = op->operands.size();
  if (op->regions.size() != 2 || op->regions[0]->args.size() != n) {
    for (auto &r : op->regions) {
      for (auto &a : r->args) map.set(a.get(), AxisInfo::unknown(rankOf(a->type)));
      analyzeBlock(*r);
    }
    return unknownResults(op);
  }
  Block &before = *op->regions[0], &after = *op->regions[1];
  std::vector<AxisInfo> state;
  for (size_t i = 0; i < n; ++i) state.push_back(get(op->operand(i)));
  for (int iter = 0;; ++iter) {
    bool giveUp = iter == 64;
    for (size_t i = 0; i < n; ++i) {
      if (giveUp) state[i] = AxisInfo::unknown(rankOf(before.args[i]->type));
      map.set(before.args[i].get(), finalize(state[i], before.args[i]->type));
    }
    analyzeBlock(before);
    Operation *c = before.terminator();
    // condition(cond, forwarded...) feeds the after region and the results.
    for (size_t i = 0; i < after.args.size(); ++i) {
      AxisInfo f = c && i + 1 < c->operands.size()
                       ? operandAs(c->operand(i + 1), after.args[i]->type)
                       : AxisInfo::unknown(rankOf(after.args[i]->type));
      map.set(after.args[i].get(), finalize(f, after.args[i]->type));
    }
    analyzeBlock(after);
    Operation *y = after.terminator();
    bool stable = true;
    for (size_t i = 0; i < n; ++i) {
      AxisInfo yi = y && i < y->operands.size() ? operandAs(y->operand(i), before.args[i]->type)
                                                : AxisInfo::unknown(state[i].rank());
      AxisInfo next = finalize(meet(state[i], yi), before.args[i]->type);
      if (!(next == state[i])) stable = false;
      state[i] = next;
    }
    if (stable || giveUp) break;
  }
  Operation *c = before.terminator();
  for (unsigned i = 0; i < op->results.size(); ++i) {
    AxisInfo f = c && i + 1 < c->operands.size() ? operandAs(c->operand(i + 1), op->result(i)->type)
                                                 : AxisInfo::unknown(rankOf(op->result(i)->type));
    setResult(op, i, f);
  }
}

void Analysis::analyzeOp(Operation *op) {
  auto nOps = op->operands.size();
  auto res = [&](AxisInfo a) { setResult(op, 0, std::move(a)); };
  // A reference: after assign-layouts a type carries its layout's text, and
  // copying it for every op was a string allocation each.
  static const Type kVoid = Type::voidTy();
  const Type &rt = op->results.empty() ? kVoid : op->result(0)->type;
  const AxisDims shape = shapeOf(rt);
  const int R = static_cast<int>(shape.size());
  // Elementwise ops outside the integer rules: equal operands give equal results.
  auto elementwiseConstancy = [&] {
    AxisInfo o = AxisInfo::unknown(R);
    o.constancy = shape;
    for (Value *v : op->operands) {
      AxisInfo a = operandAs(v, rt);
      for (int d = 0; d < R; ++d) o.constancy[d] = std::min(o.constancy[d], a.constancy[d]);
    }
    o.constant = foldConstant(op);
    return o;
  };
  switch (op->code) {
    case OpCode::Constant: {
      AxisInfo a = AxisInfo::unknown(R);
      a.constancy = shape;
      if (auto c = constantOf(op->result(0)); c && !c->isFloat) a = constantInfo(c->i, shape);
      return res(a);
    }
    case OpCode::ProgramId:
    case OpCode::NumPrograms:
      return res(AxisInfo::unknown(R));
    case OpCode::Arange: {
      AxisInfo a = AxisInfo::unknown(R);
      I64 start = op->intAttr("start", 0), end = op->intAttr("end", 0);
      a.contiguity[0] = std::max<I64>(1, end - start);
      a.divisibility[0] = highestPow2Divisor(start);
      return res(a);
    }
    case OpCode::Splat:
      if (nOps != 1) return unknownResults(op);
      return res(splatInfo(get(op->operand(0)), unitOf(op->operand(0)->type), shape));
    case OpCode::Broadcast: {
      if (nOps != 1) return unknownResults(op);
      AxisInfo a = get(op->operand(0));
      AxisDims in = shapeOf(op->operand(0)->type);
      if (a.rank() != R || in.size() != shape.size()) return res(operandAs(op->operand(0), rt));
      for (int d = 0; d < R; ++d)
        if (in[d] != shape[d]) {  // a size-1 dim, stretched
          a.contiguity[d] = 1;
          a.constancy[d] = shape[d];
        }
      return res(a);
    }
    case OpCode::ExpandDims: {
      if (nOps != 1) return unknownResults(op);
      Value *x = op->operand(0);
      AxisInfo a = get(x);
      I64 ed = elemDivAll(a, unitOf(x->type));
      if (!x->type.isTile()) return res(splatInfo(a, unitOf(x->type), shape));
      I64 axis = op->intAttr("axis", 0);
      if (axis < 0 || axis > a.rank() || a.rank() + 1 != R) return unknownResults(op);
      a.contiguity.insert(a.contiguity.begin() + axis, 1);
      a.divisibility.insert(a.divisibility.begin() + axis, ed);
      a.constancy.insert(a.constancy.begin() + axis, 1);
      return res(a);
    }
    case OpCode::Reshape:
      if (nOps != 1) return unknownResults(op);
      return res(reshapeInfo(op));
    case OpCode::Permute: {
      if (nOps != 1) return unknownResults(op);
      AxisInfo a = get(op->operand(0));
      std::vector<I64> order = op->intsAttr("order");
      if (static_cast<int>(order.size()) != R || a.rank() != R) return unknownResults(op);
      AxisInfo o = a;
      for (int d = 0; d < R; ++d) {
        if (order[d] < 0 || order[d] >= R) return unknownResults(op);
        o.contiguity[d] = a.contiguity[order[d]];
        o.divisibility[d] = a.divisibility[order[d]];
        o.constancy[d] = a.constancy[order[d]];
      }
      return res(o);
    }
    case OpCode::Flip: {
      if (nOps != 1) return unknownResults(op);
      AxisInfo a = operandAs(op->operand(0), rt);
      I64 axis = op->intAttr("axis", 0);
      if (axis >= 0 && axis < R) {
        a.divisibility[axis] = elemDivAll(a, unitOf(rt));
        a.contiguity[axis] = 1;  // runs now go downward
      }
      return res(a);
    }
    case OpCode::Join: {
      if (nOps != 2 || R < 1) return unknownResults(op);
      AxisInfo a = get(op->operand(0)), b = get(op->operand(1));
      if (a.rank() != b.rank() || a.rank() + 1 != R || !op->operand(0)->type.isTile())
        return unknownResults(op);
      I64 unit = unitOf(rt);
      AxisInfo o = meet(a, b);
      for (int d = 0; d < a.rank(); ++d)
        o.divisibility[d] =
            std::min(divAt(a, d, o.contiguity[d], unit), divAt(b, d, o.contiguity[d], unit));
      o.contiguity.push_back(1);
      o.constancy.push_back(1);
      o.divisibility.push_back(std::min(elemDivAll(a, unit), elemDivAll(b, unit)));
      return res(o);
    }
    case OpCode::Split: {
      if (nOps != 1) return unknownResults(op);
      AxisInfo a = get(op->operand(0));
      if (a.rank() < 2) return unknownResults(op);
      a.contiguity.pop_back();
      a.divisibility.pop_back();
      a.constancy.pop_back();
      for (unsigned i = 0; i < op->results.size(); ++i) setResult(op, i, a);
      return;
    }
    case OpCode::Cat: {
      if (nOps != 2) return unknownResults(op);
      AxisInfo a = operandAs(op->operand(0), op->operand(0)->type);
      AxisInfo b = operandAs(op->operand(1), op->operand(1)->type);
      if (a.rank() != R || b.rank() != R) return unknownResults(op);
      I64 unit = unitOf(rt);
      AxisInfo o = meet(a, b);
      o.constant.reset();
      if (a.constant && a.constant == b.constant) o.constant = a.constant;
      for (int d = 0; d < R; ++d)
        o.divisibility[d] =
            std::min(divAt(a, d, o.contiguity[d], unit), divAt(b, d, o.contiguity[d], unit));
      return res(o);
    }
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Mul:
    case OpCode::Div:
    case OpCode::Rem:
    TESSERA_BITWISE_CASES:
    case OpCode::Max:
    case OpCode::Min:
    case OpCode::AddPtr: {
      if (nOps != 2) return unknownResults(op);
      AxisInfo o = binary(op);
      o.constant = foldConstant(op);
      return res(o);
    }
    case OpCode::Cmp: {
      if (nOps != 2) return unknownResults(op);
      const Type &ot = op->operand(0)->type;
      Type at = ot.isTile() || !rt.isTile() ? ot : rt.withElement(ot.element());
      AxisInfo l = operandAs(op->operand(0), at), r = operandAs(op->operand(1), at);
      if (l.rank() != R) return unknownResults(op);
      AxisInfo o = cmpInfo(op, l, r);
      o.constant = foldConstant(op);
      return res(o);
    }
    case OpCode::Select: {
      if (nOps != 3) return unknownResults(op);
      AxisInfo c = operandAs(op->operand(0), rt.withElement(Type::scalar(DType::I1)));
      AxisInfo a = operandAs(op->operand(1), rt), b = operandAs(op->operand(2), rt);
      if (c.constant) return res(*c.constant ? a : b);
      I64 unit = unitOf(rt);
      AxisInfo o = AxisInfo::unknown(R);
      for (int d = 0; d < R; ++d) {
        o.contiguity[d] = std::min({a.contiguity[d], b.contiguity[d], c.constancy[d]});
        o.divisibility[d] =
            std::min(divAt(a, d, o.contiguity[d], unit), divAt(b, d, o.contiguity[d], unit));
        o.constancy[d] = std::min({a.constancy[d], b.constancy[d], c.constancy[d]});
      }
      if (a.constant && a.constant == b.constant) o.constant = a.constant;
      return res(o);
    }
    case OpCode::Neg:
    case OpCode::Abs:
    case OpCode::Not: {
      if (nOps != 1) return unknownResults(op);
      AxisInfo a = operandAs(op->operand(0), rt);
      AxisInfo o = AxisInfo::unknown(R);
      o.constancy = a.constancy;
      // -x and |x| have the trailing zeros of x; ~x has none known.
      if (op->code != OpCode::Not)
        for (int d = 0; d < R; ++d) o.divisibility[d] = elemDiv(a, d, 1);
      o.constant = foldConstant(op);
      return res(o);
    }
    case OpCode::Cast:
    case OpCode::Bitcast:
      if (nOps != 1) return unknownResults(op);
      return res(castInfo(op));
    case OpCode::ConvertLayout:
      if (nOps != 1) return unknownResults(op);
      return res(operandAs(op->operand(0), rt));
    case OpCode::Hint: {
      if (nOps != 1) return unknownResults(op);
      AxisInfo a = operandAs(op->operand(0), rt);
      auto apply = [&](const char *name, AxisDims &field) {
        std::vector<I64> h = op->intsAttr(name);
        if (h.size() == 1 && R > 1) h.assign(R, h[0]);
        if (static_cast<int>(h.size()) != R) return;
        // A hint is a fact like the analysis' own; keep the stronger one.
        for (int d = 0; d < R; ++d)
          if (h[d] > 0)
            field[d] =
                std::max(field[d], static_cast<I64>(std::bit_floor(static_cast<uint64_t>(h[d]))));
      };
      apply("divisibility", a.divisibility);
      apply("contiguity", a.contiguity);
      apply("constancy", a.constancy);
      return res(a);
    }
    case OpCode::Fma:
    case OpCode::Umulhi:
    case OpCode::Clamp:
    TESSERA_UNARY_MATH_CASES:
      return res(elementwiseConstancy());
    case OpCode::For:
      return analyzeFor(op);
    case OpCode::If:
      return analyzeIf(op);
    case OpCode::While:
      return analyzeWhile(op);
    case OpCode::WarpSpecialize:
      for (auto &r : op->regions) analyzeBlock(*r);
      return;
    case OpCode::Reduce:
    case OpCode::Scan:
    case OpCode::MapElementwise:
      // Region arguments are combiner inputs: nothing known about them.
      for (auto &r : op->regions) {
        for (auto &a : r->args) map.set(a.get(), AxisInfo::unknown(rankOf(a->type)));
        analyzeBlock(*r);
      }
      return unknownResults(op);
    // Results about which nothing is known: values read from memory, the
    // results of data-dependent ops, calls.
    case OpCode::Gather:
    case OpCode::Sort:
    case OpCode::Histogram:
    case OpCode::Load:
    case OpCode::DescriptorLoad:
    case OpCode::AtomicRmw:
    case OpCode::AtomicCas:
    case OpCode::Dot:
    case OpCode::Philox:
    case OpCode::InlineAsm:
    case OpCode::ReadSreg:
    case OpCode::Call:
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
      return unknownResults(op);
    // No results.
    case OpCode::Store:
    case OpCode::DescriptorStore:
    case OpCode::Print:
    case OpCode::Assert:
    case OpCode::Barrier:
    case OpCode::Assume:
    case OpCode::Yield:
    case OpCode::Condition:
    case OpCode::Return:
      return unknownResults(op);
  }
}

}  // namespace

AxisInfo AxisInfoMap::get(const Value *v) const {
  const AxisInfo *a = lookup(v);
  return a ? *a : unknownFor(v);
}

AxisInfoMap analyzeAxisInfo(Function &fn) {
  Analysis a;
  a.analyzeFunction(fn);
  return std::move(a.map);
}

namespace {

// The ops whose results the addresses and masks of memory ops depend on:
// the backward slice through operands, from the pointer and i1 operands of
// every op that reads or writes memory (the stored value, often a long chain
// of float arithmetic, is not asked about). An op's info depends only on its operands' and,
// for ops with regions, on what their regions compute (loop-carried values
// iterate to a fixed point over the whole body), so a needed op brings in
// every op nested in it, and a needed block argument brings in the op that
// owns its region. An op nested in a region whose owner is not needed
// depends on nothing that the owner's iteration changes.
class MemorySlice {
 public:
  PtrSet<const Operation *> ops;
  // Every op of the function in program order (pre-order), so that the
  // analysis visits the slice without touching the ops outside it again.
  std::vector<Operation *> order;

  explicit MemorySlice(Function &fn) {
    fn.walk([&](Operation *op) {
      order.push_back(op);
      if (!hasFlag(op->code, opflags::ReadsMem | opflags::WritesMem)) return;
      for (const Value *v : op->operands)
        if (v->type.isPtrLike() || v->type.dtype == DType::I1) push(v);
    });
    while (!work_.empty()) {
      const Value *v = work_.back();
      work_.pop_back();
      if (v->def)
        add(v->def);
      else if (v->owner && v->owner->parentOp)
        add(v->owner->parentOp);
    }
  }

 private:
  void push(const Value *v) {
    if (seen_.insert(v)) work_.push_back(v);
  }
  void add(Operation *op) {
    if (!ops.insert(op)) return;
    for (const Value *v : op->operands) push(v);
    for (auto &r : op->regions)
      for (auto &nested : r->ops) add(nested.get());
  }

  PtrSet<const Value *> seen_;
  std::vector<const Value *> work_;
};

}  // namespace

AxisInfoMap analyzeMemoryAxisInfo(Function &fn) {
  MemorySlice slice(fn);
  Analysis a;
  a.analyzeArgs(fn);
  // The outermost ops of the slice, in program order, as the full walk
  // meets them; each analyses its regions whole. An op whose parent op is
  // in the slice is analysed by it (every ancestor of it is then in too).
  for (Operation *op : slice.order) {
    if (!slice.ops.contains(op)) continue;
    const Operation *owner = op->parent ? op->parent->parentOp : nullptr;
    if (!owner || !slice.ops.contains(owner)) a.analyzeOp(op);
  }
  return std::move(a.map);
}

}  // namespace tessera
