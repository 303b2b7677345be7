#include "codegen/ptx/affine_tiles.h"

#include <algorithm>
#include <cstdint>

#include "passes/pass_utils.h"

namespace tessera::ptx {

namespace {

// Past these a product is kept as a leaf: the polynomials stay small, and so
// does the code made from them.
constexpr size_t kMaxTerms = 32;
constexpr int kMaxDegree = 4;

}  // namespace

Poly Poly::constant(int64_t c) {
  Poly p;
  p.add({}, c);
  return p;
}

Poly Poly::leaf(int id) {
  Poly p;
  p.add({id}, 1);
  return p;
}

void Poly::add(const Monomial &m, int64_t c) {
  if (c == 0) return;
  auto [it, fresh] = terms_.emplace(m, c);
  if (fresh) return;
  if (__builtin_add_overflow(it->second, c, &it->second)) overflowed_ = true;
  if (it->second == 0) terms_.erase(it);
}

std::optional<int64_t> Poly::constantValue() const {
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_.begin()->first.empty()) return terms_.begin()->second;
  return std::nullopt;
}

Poly Poly::operator+(const Poly &o) const {
  Poly r = *this;
  r.overflowed_ = overflowed_ || o.overflowed_;
  for (const auto &[m, c] : o.terms_) r.add(m, c);
  return r;
}

Poly Poly::operator-(const Poly &o) const {
  return *this + o.scaled(-1);
}

Poly Poly::scaled(int64_t c) const {
  Poly r;
  r.overflowed_ = overflowed_;
  for (const auto &[m, k] : terms_) {
    int64_t p = 0;
    if (__builtin_mul_overflow(k, c, &p)) r.overflowed_ = true;
    r.add(m, p);
  }
  return r;
}

Poly Poly::operator*(const Poly &o) const {
  Poly r;
  r.overflowed_ = overflowed_ || o.overflowed_;
  for (const auto &[m1, c1] : terms_)
    for (const auto &[m2, c2] : o.terms_) {
      Monomial m = m1;
      m.insert(m.end(), m2.begin(), m2.end());
      std::sort(m.begin(), m.end());
      int64_t p = 0;
      if (__builtin_mul_overflow(c1, c2, &p)) r.overflowed_ = true;
      r.add(m, p);
    }
  return r;
}

std::optional<Poly> Poly::dividedBy(const Poly &d) const {
  if (d.terms_.size() != 1 || overflowed_ || d.overflowed_) return std::nullopt;
  const auto &[dm, dc] = *d.terms_.begin();
  Poly r;
  for (const auto &[m, c] : terms_) {
    if (dc == -1 && c == INT64_MIN) return std::nullopt;
    if (c % dc != 0) return std::nullopt;
    Monomial rest = m;
    for (int leaf : dm) {
      auto it = std::find(rest.begin(), rest.end(), leaf);
      if (it == rest.end()) return std::nullopt;
      rest.erase(it);
    }
    r.add(rest, c / dc);
  }
  return r;
}

Poly Poly::termsWithLeaf(const std::function<bool(int)> &keep, bool with) const {
  Poly r;
  r.overflowed_ = overflowed_;
  for (const auto &[m, c] : terms_)
    if (std::any_of(m.begin(), m.end(), keep) == with) r.add(m, c);
  return r;
}

int Poly::degree() const {
  size_t d = 0;
  for (const auto &[m, c] : terms_) d = std::max(d, m.size());
  return static_cast<int>(d);
}

int LeafTable::idOf(Value *v) {
  if (const int *id = ids_.find(v)) return *id;
  int id = static_cast<int>(leaves_.size());
  leaves_.push_back(v);
  ids_[v] = id;
  return id;
}

bool AffineTile::overflowed() const {
  return base.overflowed() ||
         std::any_of(coef.begin(), coef.end(), [](const Poly &c) { return c.overflowed(); }) ||
         std::any_of(exactBelow.begin(), exactBelow.end(),
                     [](const std::optional<Poly> &e) { return e && e->overflowed(); });
}

bool AffineTile::wrapped() const {
  return std::any_of(exactBelow.begin(), exactBelow.end(),
                     [](const std::optional<Poly> &e) { return e.has_value(); });
}

bool AffineTile::uniform() const {
  return std::all_of(coef.begin(), coef.end(), [](const Poly &c) { return c.isZero(); });
}

namespace {

bool widensInt(const Operation *op) {
  if (op->code != OpCode::Cast) return false;
  DType from = op->operand(0)->type.dtype, to = op->result()->type.dtype;
  return !op->operand(0)->type.isPtrLike() && isInt(from) && isInt(to) && isSigned(from) &&
         isSigned(to) && bitWidth(to) >= bitWidth(from);
}

// Arithmetic the analysis reads as exact integer arithmetic: signed, 32 or
// 64 bits (offsets and sizes). Narrower types wrap at sizes a kernel
// reaches, so their results are leaves.
bool exactInt(DType t) {
  return isSigned(t) && bitWidth(t) >= 32;
}

int rankOf(const Value *v) {
  return v->type.isTile() ? static_cast<int>(v->type.shape.size()) : 0;
}

// The exactBelow of a sum: each dim's bound from whichever operand has one
// (false when both do: a sum of two wrapped indices is not followed).
bool mergeExactBelow(AffineTile &a, const AffineTile &b, int rank) {
  if (!b.wrapped()) return true;
  if (a.exactBelow.empty()) a.exactBelow.assign(rank, std::nullopt);
  for (int i = 0; i < rank; ++i) {
    if (!b.exactBelow[i]) continue;
    if (a.exactBelow[i]) return false;
    a.exactBelow[i] = b.exactBelow[i];
  }
  return true;
}

}  // namespace

Poly AffineAnalysis::scalarPoly(Value *v) {
  Operation *d = v->def;
  if (d && !v->type.isPtrLike()) {
    if (auto c = passes::constantOf(v); c && !c->isFloat && isSigned(v->type.dtype))
      return Poly::constant(c->i);
    if (d->code == OpCode::Hint || widensInt(d)) return scalarPoly(d->operand(0));
    if (d->code == OpCode::Neg && exactInt(v->type.dtype))
      if (Poly p = scalarPoly(d->operand(0)).scaled(-1); !p.overflowed()) return p;
    if ((d->code == OpCode::Add || d->code == OpCode::Sub || d->code == OpCode::Mul) &&
        exactInt(v->type.dtype)) {
      Poly a = scalarPoly(d->operand(0)), b = scalarPoly(d->operand(1));
      Poly p = d->code == OpCode::Add ? a + b : d->code == OpCode::Sub ? a - b : a * b;
      if (!p.overflowed() && p.size() <= kMaxTerms && p.degree() <= kMaxDegree) return p;
    }
  }
  return Poly::leaf(leaves_.idOf(v));
}

std::optional<AffineTile> AffineAnalysis::of(Value *v) {
  if (const auto *known = memo_.find(v)) return *known;
  memo_[v] = std::nullopt;  // a cycle through a loop's carried value finds nothing
  std::optional<AffineTile> r = compute(v);
  if (r && r->overflowed()) r = std::nullopt;
  memo_[v] = r;
  return r;
}

std::optional<AffineTile> AffineAnalysis::compute(Value *v) {
  int rank = rankOf(v);
  Operation *d = v->def;
  if (!v->type.isTile()) {
    if (v->type.isPtr()) {
      if (d && d->code == OpCode::AddPtr) {
        std::optional<AffineTile> p = of(d->operand(0));
        if (!p) return std::nullopt;
        p->base = p->base + scalarPoly(d->operand(1));
        return p;
      }
      return AffineTile{v, Poly(), {}, {}};
    }
    if (!isInt(v->type.dtype)) return std::nullopt;
    return AffineTile{nullptr, scalarPoly(v), {}, {}};
  }
  if (!d) return carried(v);
  auto zeros = [&](AffineTile t) {
    t.coef.assign(rank, Poly());
    t.exactBelow.clear();
    return t;
  };
  switch (d->code) {
    case OpCode::Constant: {
      auto c = passes::constantOf(v);
      if (!c || c->isFloat || !isSigned(v->type.dtype)) return std::nullopt;
      return zeros({nullptr, Poly::constant(c->i), {}, {}});
    }
    case OpCode::Splat: {
      std::optional<AffineTile> s = of(d->operand(0));
      if (!s) return std::nullopt;
      return zeros(*s);
    }
    case OpCode::Arange:
      if (rank != 1) return std::nullopt;
      return AffineTile{nullptr, Poly::constant(d->intAttr("start")), {Poly::constant(1)}, {}};
    case OpCode::ExpandDims: {
      std::optional<AffineTile> s = of(d->operand(0));
      int64_t axis = d->intAttr("axis");
      if (!s || axis < 0 || axis > static_cast<int64_t>(s->coef.size())) return std::nullopt;
      s->coef.insert(s->coef.begin() + axis, Poly());
      if (!s->exactBelow.empty()) s->exactBelow.insert(s->exactBelow.begin() + axis, std::nullopt);
      return s;
    }
    case OpCode::Broadcast: {
      std::optional<AffineTile> s = of(d->operand(0));
      if (!s || static_cast<int>(s->coef.size()) != rank) return std::nullopt;
      for (int i = 0; i < rank; ++i)
        if (d->operand(0)->type.shape[i] == 1) {
          s->coef[i] = Poly();  // its index is always 0
          if (!s->exactBelow.empty() && s->exactBelow[i]) return std::nullopt;
        }
      return s;
    }
    case OpCode::Hint:
      return of(d->operand(0));
    case OpCode::Cast:
      if (!widensInt(d)) return std::nullopt;
      return of(d->operand(0));
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::AddPtr: {
      if (d->code != OpCode::AddPtr && !exactInt(v->type.dtype)) return std::nullopt;
      std::optional<AffineTile> a = of(d->operand(0)), b = of(d->operand(1));
      if (!a || !b || b->pointer || (d->code != OpCode::AddPtr && a->pointer)) return std::nullopt;
      int64_t sign = d->code == OpCode::Sub ? -1 : 1;
      a->base = a->base + b->base.scaled(sign);
      for (int i = 0; i < rank; ++i) a->coef[i] = a->coef[i] + b->coef[i].scaled(sign);
      if (!mergeExactBelow(*a, *b, rank)) return std::nullopt;
      return a;
    }
    case OpCode::Mul: {
      if (!exactInt(v->type.dtype)) return std::nullopt;
      std::optional<AffineTile> a = of(d->operand(0)), b = of(d->operand(1));
      if (!a || !b) return std::nullopt;
      if (!b->uniform()) std::swap(a, b);
      if (!b->uniform()) return std::nullopt;
      if (b->wrapped()) return std::nullopt;
      a->base = a->base * b->base;
      for (Poly &c : a->coef) c = c * b->base;
      for (const Poly *p : {&a->base, &b->base})
        if (p->size() > kMaxTerms || p->degree() > kMaxDegree) return std::nullopt;
      return a;
    }
    case OpCode::Rem: {
      // (x0 + i) % m, m the same for every element: x0 + i below m - x0,
      // when x0 >= 0 (a remainder takes the dividend's sign).
      if (!exactInt(v->type.dtype)) return std::nullopt;
      std::optional<AffineTile> x = of(d->operand(0)), m = of(d->operand(1));
      if (!x || !m || x->pointer || m->pointer || !m->uniform() || x->wrapped() || m->wrapped() ||
          !nonNegative(x->base, d))
        return std::nullopt;
      int dim = -1;
      for (int i = 0; i < rank; ++i) {
        if (x->coef[i].isZero()) continue;
        if (x->coef[i].constantValue() != 1 || dim >= 0) return std::nullopt;
        dim = i;
      }
      if (dim < 0) return std::nullopt;
      // As a mask's bound: a sum of the kernel's values, not a product,
      // which may wrap in the kernel's int32.
      Poly bound = m->base - x->base;
      if (bound.degree() > 1) return std::nullopt;
      x->exactBelow.assign(rank, std::nullopt);
      x->exactBelow[dim] = bound;
      return x;
    }
    default:
      return std::nullopt;
  }
}

// A carried value `x` of a for loop (lb, ub, step) with `yield x + u`, u
// uniform and defined before the loop: x = init + (iv - lb) / step * u.
std::optional<AffineTile> AffineAnalysis::carried(Value *arg) {
  Operation *loop = arg->owner ? arg->owner->parentOp : nullptr;
  if (!loop || loop->code != OpCode::For || arg->index == 0) return std::nullopt;
  Operation *yield = passes::forYield(loop);
  if (!yield) return std::nullopt;
  unsigned n = arg->index - 1;
  Operation *next = yield->operand(n)->def;
  if (!next || (next->code != OpCode::AddPtr && next->code != OpCode::Add)) return std::nullopt;
  Value *step = nullptr;
  if (next->operand(0) == arg)
    step = next->operand(1);
  else if (next->code == OpCode::Add && next->operand(1) == arg)
    step = next->operand(0);
  if (!step || passes::isDefinedInside(step, loop)) return std::nullopt;
  std::optional<AffineTile> init = of(loop->operand(3 + n)), inc = of(step);
  if (!init || !inc || !inc->uniform() || inc->pointer) return std::nullopt;
  auto loopStep = passes::positiveConstantStep(*loop);
  if (!loopStep) return std::nullopt;
  std::optional<Poly> perIteration = inc->base.dividedBy(Poly::constant(*loopStep));
  if (!perIteration) return std::nullopt;
  Poly iv = Poly::leaf(leaves_.idOf(arg->owner->args[0].get()));
  init->base = init->base + (iv - scalarPoly(loop->operand(0))) * *perIteration;
  return init;
}

AffineAnalysis::AffineAnalysis(Function &fn) {
  for (size_t i = 0; i < fn.paramAttrs.size() && i < fn.body.args.size(); ++i)
    if (fn.paramAttrs[i].gridAxis >= 0) gridParams_.insert(fn.body.args[i].get());
  fn.walk([&](Operation *op) {
    if (op->code == OpCode::Assume) assume(op->operand(0), op);
  });
}

// Records what `cond` (a scalar condition the kernel assumes) says as
// polynomials that are >= 0: a comparison of exact integers, or a
// conjunction of such.
void AffineAnalysis::assume(Value *cond, const Operation *where) {
  Operation *d = cond->def;
  if (!d || cond->type.isTile()) return;
  if (d->code == OpCode::And) {
    assume(d->operand(0), where);
    assume(d->operand(1), where);
    return;
  }
  if (d->code != OpCode::Cmp || !exactInt(d->operand(0)->type.dtype) ||
      d->operand(0)->type.isTile() || d->operand(1)->type.isTile())
    return;
  Poly a = scalarPoly(d->operand(0)), b = scalarPoly(d->operand(1));
  std::string pred = d->strAttr("pred");
  std::optional<Poly> fact;
  if (pred == "ge") fact = a - b;
  if (pred == "gt") fact = a - b - Poly::constant(1);
  if (pred == "le") fact = b - a;
  if (pred == "lt") fact = b - a - Poly::constant(1);
  // A sum of the kernel's values only, as a mask's bound: a product
  // compared in the kernel's int32 may have wrapped where the polynomial,
  // read as exact, did not (x * y >= 0 holds of a wrapped product).
  if (fact && !fact->overflowed() && !fact->isZero() && fact->degree() <= 1)
    assumed_.push_back({*fact, where});
}

namespace {

// Whether `a` runs before `b` whenever `b` runs: `a` precedes, in its
// block, the op of that block that holds `b`. (Tile IR's control flow is
// structured: a block runs from its first op to its last.)
bool dominates(const Operation *a, const Operation *b) {
  while (b && b->parent != a->parent) b = b->parent ? b->parent->parentOp : nullptr;
  if (!b || !a->linked || !b->linked) return false;
  for (auto it = a->self; it != a->parent->ops.end(); ++it)
    if (it->get() == b) return it != a->self;
  return false;
}

}  // namespace

bool AffineAnalysis::nonNegative(const Poly &p, const Operation *at, int depth) {
  if (nonNegativeTerms(p, at, depth)) return true;
  // p = k * fact + rest, k > 0: the multiple read off a term they share.
  for (const Assumed &a : assumed_) {
    if (!dominates(a.where, at)) continue;
    for (const auto &[m, c] : a.nonNegative.terms()) {
      auto it = p.terms().find(m);
      if (c <= 0 || it == p.terms().end() || it->second % c != 0 || it->second / c <= 0) continue;
      Poly rest = p - a.nonNegative.scaled(it->second / c);
      if (!rest.overflowed() && nonNegativeTerms(rest, at, depth)) return true;
    }
  }
  return false;
}

bool AffineAnalysis::nonNegativeTerms(const Poly &p, const Operation *at, int depth) {
  for (const auto &[m, c] : p.terms()) {
    if (c < 0) return false;
    for (int id : m) {
      Value *v = leaves_.value(id);
      if (v->def) {
        if (v->def->code == OpCode::ProgramId || v->def->code == OpCode::NumPrograms) continue;
        if (!nonNegativeLeaf(*v->def, at, depth, false)) return false;
        continue;
      }
      if (gridParams_.count(v)) continue;  // a grid's size, which the launcher passes
      const Operation *loop = v->owner ? v->owner->parentOp : nullptr;
      if (!loop || loop->code != OpCode::For || v->index != 0 || depth > 4) return false;
      const Operation *stepDef = loop->operand(2)->def;
      bool programs = stepDef && stepDef->code == OpCode::NumPrograms;  // at least 1
      if (!programs && !passes::positiveConstantStep(*loop)) return false;
      std::optional<AffineTile> lb = of(loop->operand(0));
      if (!lb || lb->pointer || !nonNegative(lb->base, at, depth + 1)) return false;
    }
  }
  return true;
}

// A leaf the polynomials do not see into, non-negative by its operands'
// signs: a signed remainder takes its dividend's sign, a quotient of two
// non-negative values and the minimum of two are non-negative, and a
// maximum is where one operand is (a grouped tile order's `first_m + tile %
// rows`). With `barDivisors`, the operands need be so only but for a
// negative divisor (nonNegativeBarDivisors), a quotient's divisor not at
// all, and no maximum is taken.
bool AffineAnalysis::nonNegativeLeaf(const Operation &def, const Operation *at, int depth,
                                     bool barDivisors) {
  if (depth > 4 || def.results.size() != 1 || !isSigned(def.result()->type.dtype) ||
      def.result()->type.isTile())
    return false;
  auto operand = [&](unsigned i) {
    std::optional<AffineTile> x = of(def.operand(i));
    return x && !x->pointer &&
           (barDivisors ? nonNegativeBarDivisors(x->base, at, depth + 1)
                        : nonNegative(x->base, at, depth + 1));
  };
  switch (def.code) {
    case OpCode::Rem:
      return operand(0);
    case OpCode::Div:
      return operand(0) && (barDivisors || operand(1));
    case OpCode::Min:
      return operand(0) && operand(1);
    case OpCode::Max:
      return !barDivisors && (operand(0) || operand(1));
    default:
      return false;
  }
}

bool AffineAnalysis::nonNegativeBarDivisors(const Poly &p, const Operation *at, int depth) {
  if (nonNegative(p, at)) return true;
  for (const auto &[m, c] : p.terms()) {
    if (c < 0) return false;
    for (int id : m) {
      if (nonNegativeTerms(Poly::leaf(id), at, 0)) continue;
      const Operation *d = leaves_.value(id)->def;
      if (!d || !nonNegativeLeaf(*d, at, depth, true)) return false;
    }
  }
  return true;
}

Value *materialize(Builder &b, const Poly &p, const LeafTable &leaves, DType t) {
  Type ty = Type::scalar(t);
  Value *sum = nullptr;
  for (const auto &[m, c] : p.terms()) {
    Value *term = nullptr;
    for (int id : m) {
      Value *leaf = leaves.value(id);
      if (leaf->type.dtype != t) leaf = b.op1(OpCode::Cast, {leaf}, ty);
      term = term ? b.op1(OpCode::Mul, {term, leaf}, ty) : leaf;
    }
    if (!term)
      term = b.constInt(c, ty);
    else if (c != 1)
      term = b.op1(OpCode::Mul, {term, b.constInt(c, ty)}, ty);
    sum = sum ? b.op1(OpCode::Add, {sum, term}, ty) : term;
  }
  return sum ? sum : b.constInt(0, ty);
}

}  // namespace tessera::ptx
