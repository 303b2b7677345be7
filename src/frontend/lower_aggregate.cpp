// Aggregates: Triton's `@triton.aggregate` classes in kernels.
//
// An aggregate is a namedtuple with methods. The host hands the class in as
// a TupleType constant whose last elements are its class attributes: @jit
// methods (bound to the instance they are read from, unless static),
// static functions, and the class's own __init__ where it defines one.
// An instance is a Tuple whose s names the class, so it flows through
// calls, returns, loops and tuple unpacking as any tuple does; reading
// `obj.field` takes an element, `obj.method(...)` inlines the method with
// `obj` first, and `Cls(...)` runs __init__ on an instance whose fields are
// all unset, each `self.field = v` rebinding `self` to a copy with that
// field replaced (values are immutable; the instance __init__ leaves is the
// result). Setting a field anywhere else is an error, as in Triton: Python
// would change the object for every holder of it, which a value cannot do.
// Without an __init__ the fields are taken in order, as a namedtuple's are,
// a missing one from its default (a class attribute named as the field);
// tl.aggregate_replace copies an instance with fields changed (replaceFields).
#include <bit>
#include <cstdint>

#include "frontend/lowering.h"

namespace tessera::frontend {

namespace {

// A field __init__ has not set yet. Ellipsis is a value no kernel can put
// in a field through an assignment that reads as intended.
SVal unsetField() {
  SVal v;
  v.kind = SVal::Kind::Ellipsis;
  return v;
}

std::string className(const std::string &s) {
  return s.substr(0, s.find('('));
}

// The index of `field` among the fields of the instance `obj`, or the
// user's error at `loc`.
size_t fieldIndex(Lowerer &l, const SVal &obj, const std::string &field, SourceLoc loc) {
  if (auto type = parseTupleType(obj.s))
    for (size_t j = 0; j < type->fields.size(); ++j)
      if (type->fields[j] == field) return j;
  l.error(loc, className(obj.s) + " has no field '" + field + "'",
          "its fields are " + obj.s.substr(obj.s.find('(')));
}

}  // namespace

size_t Lowerer::classAttributeCount(const SVal &type) {
  return type.kind == SVal::Kind::TupleType && type.i > 0 ? static_cast<size_t>(type.i - 1) : 0;
}

// Whether two class attributes are the same: the same function, or equal
// compile-time values (floats compared bit for bit).
static bool sameConstant(const SVal &a, const SVal &b) {
  if (a.kind != b.kind || a.fn != b.fn || a.i != b.i || a.s != b.s ||
      std::bit_cast<uint64_t>(a.f) != std::bit_cast<uint64_t>(b.f) ||
      a.elems.size() != b.elems.size())
    return false;
  for (size_t k = 0; k < a.elems.size(); ++k)
    if (!sameConstant(a.elems[k], b.elems[k])) return false;
  return true;
}

// Whether two aggregate classes handed in are the same class: the same
// attributes, methods the same functions, defaults the same values.
static bool sameClass(const SVal &a, const SVal &b) {
  if (a.elems.size() != b.elems.size() || a.i != b.i) return false;
  for (size_t k = 0; k < a.elems.size(); ++k) {
    const SVal &x = a.elems[k], &y = b.elems[k];
    if (x.kind != y.kind || x.elems.size() != y.elems.size()) return false;
    if (x.kind != SVal::Kind::Tuple || x.elems.size() != 3) continue;  // a default
    if (x.elems[0].s != y.elems[0].s || x.elems[1].i != y.elems[1].i ||
        !sameConstant(x.elems[2], y.elems[2]))  // a method, or a field's default
      return false;
  }
  return true;
}

void Lowerer::registerAggregates(const SVal &v, SourceLoc loc) {
  if (v.kind == SVal::Kind::TupleType && v.i > 0) {
    auto [it, added] = aggregates_.emplace(v.s, v);
    // Instances know their class by "Name(field,...)" alone.
    if (!added && !sameClass(it->second, v))
      error(loc, "two different aggregate classes " + v.s + " are used in one kernel",
            "rename one of them (instances are told apart by class name and fields)");
  }
  for (const SVal &e : v.elems) registerAggregates(e, loc);
}

const SVal *Lowerer::aggregateClass(const std::string &s) const {
  if (s.empty()) return nullptr;
  auto it = aggregates_.find(s);
  return it == aggregates_.end() ? nullptr : &it->second;
}

std::optional<SVal> Lowerer::classAttribute(const SVal &cls, const std::string &name,
                                            const SVal *self) const {
  const size_t n = classAttributeCount(cls);
  for (size_t k = cls.elems.size() - n; k < cls.elems.size(); ++k) {
    const SVal &attr = cls.elems[k];  // (name, binds self, value)
    if (attr.elems[0].s != name) continue;
    SVal value = attr.elems[2];
    if (self && attr.elems[1].i && value.kind == SVal::Kind::Function) value.elems = {*self};
    return value;
  }
  return std::nullopt;
}

SVal Lowerer::newAggregate(const SVal &cls, std::vector<SVal> args,
                           std::vector<std::pair<std::string, SVal>> kwargs, SourceLoc loc) {
  auto init = classAttribute(cls, "__init__", nullptr);
  if (!init) return newNamedTuple(cls, args, kwargs, loc);
  auto type = parseTupleType(cls.s);
  if (!type) error(loc, "internal error: an aggregate class '" + cls.s + "'");
  if (init->kind != SVal::Kind::Function)
    error(loc, className(cls.s) + ".__init__ is not a function");
  SVal self = SVal::tuple(std::vector<SVal>(type->fields.size(), unsetField()));
  self.s = cls.s;
  args.insert(args.begin(), self);
  SVal built;
  nextCallIsInit_ = true;
  inlineFunction(*init, std::move(args), std::move(kwargs), loc, &built);
  if (built.kind != SVal::Kind::Tuple || built.s != cls.s)
    error(loc, className(cls.s) + ".__init__ rebound 'self' to " + describe(built),
          "set its fields with self.field = value");
  for (size_t j = 0; j < type->fields.size(); ++j)
    if (built.elems[j].kind == SVal::Kind::Ellipsis)
      error(loc, className(cls.s) + ".__init__ did not set field '" + type->fields[j] + "'",
            "assign every field the class declares (self." + type->fields[j] + " = ...)");
  return built;
}

void Lowerer::assignField(const ast::Expr &target, const SVal &value) {
  const ast::Expr *base = target.a.get();
  auto it = base && base->kind == ast::ExprKind::Name ? env_->find(base->str) : env_->end();
  if (it == env_->end() || it->second.kind != SVal::Kind::Tuple || !aggregateClass(it->second.s))
    error(target.loc, "assignment to an attribute is not supported in kernels");
  // Python would change the one object every holder of it sees; instances
  // here are values, so a change outside __init__ would reach only this
  // name. Triton refuses it too.
  if (initEnvs_.empty() || initEnvs_.back() != env_)
    error(target.loc, "an aggregate's fields are set only in its __init__",
          "build a new instance instead, e.g. " + className(it->second.s) + "(...)");
  SVal &obj = it->second;
  SVal copy = obj;
  copy.elems[fieldIndex(*this, obj, target.str, target.loc)] = value;
  obj = std::move(copy);
}

SVal Lowerer::replaceFields(const SVal &obj, SourceLoc objLoc,
                            const std::vector<std::pair<std::string, SVal>> &changes,
                            const std::vector<SourceLoc> &changeLocs) {
  if (obj.kind != SVal::Kind::Tuple || !aggregateClass(obj.s))
    error(objLoc, "tl.aggregate_replace expects an aggregate instance, got " + describe(obj),
          "pass an instance of a @triton.aggregate class");
  SVal copy = obj;
  for (size_t k = 0; k < changes.size(); ++k)
    copy.elems[fieldIndex(*this, obj, changes[k].first, changeLocs[k])] = changes[k].second;
  return copy;
}

}  // namespace tessera::frontend
