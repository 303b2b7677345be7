// Values: conversion of compile-time values to IR constants, casts,
// broadcasting, Triton's type promotion, and the compile-time accessors the
// builtins use to read constexpr arguments.
#include <cmath>
#include <limits>
#include <set>

#include "frontend/lowering.h"

namespace tessera::frontend {

bool SVal::isConst() const {
  switch (kind) {
    case Kind::None:
    case Kind::Bool:
    case Kind::Int:
    case Kind::Float:
    case Kind::Str:
    case Kind::DType:
    case Kind::Ellipsis:
      return true;
    case Kind::Tuple:
    case Kind::Slice:
      for (const auto &e : elems)
        if (!e.isConst()) return false;
      return true;
    case Kind::Tensor:
    case Kind::BlockPtr:
    case Kind::TensorDesc:
      return false;
    case Kind::Function:
    case Kind::Builtin:
    case Kind::Module:
    case Kind::ConstexprType:
    case Kind::TupleType:
      return true;
  }
  return false;
}

std::string describe(const SVal &v) {
  switch (v.kind) {
    case SVal::Kind::None:
      return "None";
    case SVal::Kind::Bool:
      return v.i ? "constexpr bool True" : "constexpr bool False";
    case SVal::Kind::Int:
      return "constexpr int " + std::to_string(v.i);
    case SVal::Kind::Float:
      return "constexpr float";
    case SVal::Kind::Str:
      return "string '" + v.s + "'";
    case SVal::Kind::DType:
      return v.i ? std::string("pointer type to ") + tritonName(v.dtype)
                 : std::string("dtype ") + tritonName(v.dtype);
    case SVal::Kind::Tuple:
      return "tuple of " + std::to_string(v.elems.size());
    case SVal::Kind::Tensor: {
      const Type &t = v.v->type;
      if (t.isTile()) {
        std::string s = "tensor<";
        for (size_t i = 0; i < t.shape.size(); ++i)
          s += (i ? "x" : "") + std::to_string(t.shape[i]);
        return s + ", " +
               (t.elemIsPtr ? std::string("pointer<") + tritonName(t.dtype) + ">"
                            : std::string(tritonName(t.dtype))) +
               ">";
      }
      return t.isPtr() ? std::string("scalar pointer<") + tritonName(t.dtype) + ">"
                       : std::string("scalar ") + tritonName(t.dtype);
    }
    case SVal::Kind::Function:
      return "function '" + (v.fn ? v.fn->name : std::string()) + "'";
    case SVal::Kind::Builtin:
      return "builtin '" + v.s + "'";
    case SVal::Kind::Module:
      if (v.s.starts_with(kHostModulePrefix))
        return "module '" + v.s.substr(std::string_view(kHostModulePrefix).size()) + "'";
      return "module '" + v.s + "'";
    case SVal::Kind::BlockPtr:
      return "block pointer";
    case SVal::Kind::TensorDesc:
      return "tensor descriptor";
    case SVal::Kind::Slice:
      return "slice";
    case SVal::Kind::Ellipsis:
      return "Ellipsis";
    case SVal::Kind::ConstexprType:
      return "constexpr_type";
    case SVal::Kind::TupleType:
      return "namedtuple class " + v.s.substr(0, v.s.find('('));
  }
  return "value";
}

Value *Lowerer::emit(OpCode c, std::vector<Value *> operands, Type t, SourceLoc loc,
                     std::vector<NamedAttr> attrs) {
  b_.setLoc(loc);
  return b_.op1(c, std::move(operands), std::move(t), std::move(attrs));
}

bool Lowerer::fromConstPointer(const Value *v) const {
  if (constPointers_.empty()) return false;
  std::vector<const Value *> work{v};
  std::set<const Value *> seen;
  while (!work.empty()) {
    const Value *x = work.back();
    work.pop_back();
    if (!x->type.isPtrLike() || !seen.insert(x).second) continue;
    if (constPointers_.count(x)) return true;
    if (const Operation *d = x->def) {
      if (d->code == OpCode::If) {  // either branch's value
        for (const auto &r : d->regions)
          if (const Operation *y = r->terminator(); y && x->index < y->operands.size())
            work.push_back(y->operands[x->index]);
      } else {
        for (const Value *o : d->operands) work.push_back(o);
      }
    } else if (const Operation *loop = x->owner ? x->owner->parentOp : nullptr) {
      // A for loop's carried value: its initial value (argument 0 is the
      // induction variable; the operands are lb, ub, step, then the inits).
      if (loop->code == OpCode::For && x->index >= 1 && x->index + 2 < loop->operands.size())
        work.push_back(loop->operands[x->index + 2]);
    }
  }
  return false;
}

void Lowerer::checkWritablePointer(const Value *ptr, SourceLoc loc, const std::string &what) {
  if (fromConstPointer(ptr))
    error(loc, what + ": Cannot store to a constant pointer",
          "the pointer comes from a parameter annotated tl.const; drop the annotation to write");
}

Value *Lowerer::constant(double f, const Type &t) {
  if (isInt(t.dtype)) return constantInt(static_cast<int64_t>(f), t);
  return b_.constFloat(f, t);
}

Value *Lowerer::constantInt(int64_t i, const Type &t) {
  if (isFloat(t.dtype)) return b_.constFloat(static_cast<double>(i), t);
  return b_.constInt(i, t);
}

namespace {
// Triton's typing of a Python int literal.
DType literalIntType(int64_t v) {
  if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max())
    return DType::I32;
  if (v >= 0 && v <= static_cast<int64_t>(std::numeric_limits<uint32_t>::max())) return DType::U32;
  return DType::I64;
}

// Triton's typing of a Python float literal: fp32 where fp32 holds it as a
// normal number (or it is 0, inf or nan), else fp64 (1e50, 1e-40).
DType literalFloatType(double v) {
  double a = std::fabs(v);
  bool fp32 =
      a == 0.0 || std::isinf(a) || std::isnan(a) ||
      (a >= std::ldexp(1.0, -126) && a <= static_cast<double>(std::numeric_limits<float>::max()));
  return fp32 ? DType::F32 : DType::F64;
}

int kindRank(DType d) {
  return d == DType::I1 ? 0 : isFloat(d) ? 2 : 1;
}

DType integerPromote(DType a, DType b) {
  int ra = bitWidth(a), rb = bitWidth(b);
  bool ua = isUnsigned(a), ub = isUnsigned(b);
  if (ua == ub) return ra > rb ? a : b;
  if (ua) return ra >= rb ? a : b;
  return rb >= ra ? b : a;
}
}  // namespace

DType Lowerer::dtypeOf(const SVal &v) const {
  switch (v.kind) {
    case SVal::Kind::Bool:
      return DType::I1;
    case SVal::Kind::Int:
      return v.u64 ? DType::U64 : literalIntType(v.i);
    case SVal::Kind::Float:
      return literalFloatType(v.f);
    case SVal::Kind::Tensor:
      return v.v->type.dtype;
    default:
      return DType::I32;
  }
}

Value *Lowerer::toValue(const SVal &v, SourceLoc loc, std::optional<DType> want) {
  b_.setLoc(loc);
  switch (v.kind) {
    case SVal::Kind::Bool:
    case SVal::Kind::Int: {
      DType d = want ? *want : dtypeOf(v);
      return constantInt(v.i, Type::scalar(d));
    }
    case SVal::Kind::Float: {
      DType d = want ? *want : dtypeOf(v);
      if (isInt(d)) return castTo(constant(v.f, Type::scalar(DType::F32)), d, loc);
      return constant(v.f, Type::scalar(d));
    }
    case SVal::Kind::Tensor:
      if (want && !v.v->type.isPtrLike() && v.v->type.dtype != *want)
        return castTo(v.v, *want, loc);
      return v.v;
    default:
      error(loc, "expected a tensor or a number here, got " + describe(v));
  }
}

Value *Lowerer::tensorArg(const SVal &v, SourceLoc loc, const std::string &what) {
  if (v.isTensor()) return v.v;
  if (v.isNumber()) return toValue(v, loc);
  error(loc, what + " must be a tensor or a number, got " + describe(v));
}

Value *Lowerer::cast(Value *v, const Type &elem, SourceLoc loc, bool bitcast,
                     const std::string &rounding) {
  const Type &src = v->type;
  Type srcElem = src.element();
  if (srcElem == elem) return v;
  Type result = src.withElement(elem);
  if (bitcast) {
    int sb = srcElem.isPtr() ? 64 : bitWidth(srcElem.dtype);
    int db = elem.isPtr() ? 64 : bitWidth(elem.dtype);
    if (sb != db)
      error(loc,
            std::string("cannot bitcast ") + srcElem.str() + " to " + elem.str() +
                ": the bit widths differ (" + std::to_string(sb) + " vs " + std::to_string(db) +
                ")",
            "bitcast reinterprets bits; use .to(dtype) without bitcast=True to convert values");
    return emit(OpCode::Bitcast, {v}, result, loc);
  }
  if (elem.isScalar() && elem.dtype == DType::I1) {
    // Anything -> bool is `!= 0`.
    Value *zero = srcElem.isPtr() ? nullptr : constantInt(0, src.withElement(srcElem));
    if (!zero) error(loc, "cannot convert a pointer to int1");
    if (src.isTile()) zero = emit(OpCode::Splat, {constantInt(0, srcElem)}, src, loc);
    return emit(OpCode::Cmp, {v, zero}, result, loc, {{"pred", std::string("ne")}});
  }
  if (srcElem.isPtr() && elem.isScalar() && bitWidth(elem.dtype) != 64)
    error(loc, "a pointer can only be converted to a 64-bit integer, not " + elem.str());
  if (elem.isPtr() && srcElem.isScalar() && bitWidth(srcElem.dtype) != 64 && isInt(srcElem.dtype))
    error(loc, "only 64-bit integers can be converted to pointers");
  if (elem.isPtr() && srcElem.isScalar() && isFloat(srcElem.dtype))
    error(loc, "a float cannot be converted to a pointer");
  if (elem.isPtr() && srcElem.isPtr()) return emit(OpCode::Bitcast, {v}, result, loc);
  std::vector<NamedAttr> attrs;
  if (!rounding.empty()) attrs.push_back({"rounding", rounding});
  return emit(OpCode::Cast, {v}, result, loc, std::move(attrs));
}

std::vector<int64_t> Lowerer::broadcastShapes(const std::vector<int64_t> &a,
                                              const std::vector<int64_t> &b, SourceLoc loc) const {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i + a.size() >= n ? a[i + a.size() - n] : 1;
    int64_t db = i + b.size() >= n ? b[i + b.size() - n] : 1;
    if (da != db && da != 1 && db != 1) {
      auto str = [](const std::vector<int64_t> &s) {
        std::string r = "[";
        for (size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + std::to_string(s[k]);
        return r + "]";
      };
      error(
          loc,
          "shape mismatch: cannot broadcast shapes " + str(a) + " and " + str(b) + " (dimension " +
              std::to_string(i) + ": " + std::to_string(da) + " vs " + std::to_string(db) + ")",
          "make the shapes equal, or give one of them size 1 in that dimension (e.g. x[:, None])");
    }
    out[i] = std::max(da, db);
  }
  return out;
}

Value *Lowerer::broadcastTo(Value *v, const std::vector<int64_t> &shape, SourceLoc loc) {
  const Type &t = v->type;
  if (!t.isTile()) {
    if (shape.empty()) return v;
    return emit(OpCode::Splat, {v}, Type::tile(shape, t), loc);
  }
  if (t.shape == shape) return v;
  // Leading size-1 dims for a lower-rank tile, as numpy.
  while (static_cast<size_t>(v->type.rank()) < shape.size()) {
    std::vector<int64_t> s = v->type.shape;
    s.insert(s.begin(), 1);
    v = emit(OpCode::ExpandDims, {v}, v->type.withShape(s), loc, {{"axis", int64_t{0}}});
  }
  if (v->type.shape == shape) return v;
  broadcastShapes(v->type.shape, shape, loc);  // diagnoses mismatches
  if (static_cast<size_t>(v->type.rank()) != shape.size())
    error(loc, "cannot broadcast a tile of rank " + std::to_string(v->type.rank()) + " to rank " +
                   std::to_string(shape.size()));
  return emit(OpCode::Broadcast, {v}, v->type.withShape(shape), loc);
}

void Lowerer::broadcastPair(Value *&a, Value *&b, SourceLoc loc) {
  if (!a->type.isTile() && !b->type.isTile()) return;
  std::vector<int64_t> shape = broadcastShapes(a->type.shape, b->type.shape, loc);
  a = broadcastTo(a, shape, loc);
  b = broadcastTo(b, shape, loc);
}

DType Lowerer::promote(const SVal &a, const SVal &b, bool divOrMod, SourceLoc loc) const {
  DType ta = dtypeOf(a), tb = dtypeOf(b);
  bool sa = a.isNumber(), sb = b.isNumber();
  // A Python number of a kind no higher than the tensor's (bool < uint < int <
  // float) takes no part in promotion; the remaining rules still apply.
  if (sa != sb) {
    DType scalarTy = sa ? ta : tb, tensorTy = sa ? tb : ta;
    if (kindRank(scalarTy) <= kindRank(tensorTy)) ta = tb = tensorTy;
  }
  // Triton's order: fp64 wins; / and % of floats compute in fp32; fp32 wins;
  // then fp16 (so fp16 op bf16 is fp16); bf16 stays bf16 only against bf16.
  if (ta == DType::F64 || tb == DType::F64) return DType::F64;
  if (divOrMod && (isFloat(ta) || isFloat(tb))) return DType::F32;
  if (ta == DType::F32 || tb == DType::F32) return DType::F32;
  if (ta == DType::F16 || tb == DType::F16) return DType::F16;
  if (ta == DType::BF16 || tb == DType::BF16) return ta == tb ? DType::BF16 : DType::F32;
  if (isFp8(ta) && isFp8(tb)) return ta == tb ? ta : DType::F16;
  if (isFloat(ta) || isFloat(tb))
    error(loc,
          std::string("unsupported operand dtypes ") + tritonName(ta) + " and " + tritonName(tb),
          "convert the fp8 operand with .to(tl.float16) or .to(tl.float32) first");
  if (divOrMod && isUnsigned(ta) != isUnsigned(tb) && ta != DType::I1 && tb != DType::I1)
    error(loc,
          // Worded as Triton's message, which programs and tests match.
          std::string("Cannot use /, // or % with ") + tritonName(ta) + " and " + tritonName(tb) +
              " because they have different signedness",
          "cast one operand with .to() so both are signed or both unsigned");
  return integerPromote(ta, tb);
}

int64_t Lowerer::constInt(const SVal &v, SourceLoc loc, const std::string &what) const {
  if (v.kind == SVal::Kind::Int || v.kind == SVal::Kind::Bool) return v.i;
  if (v.isTensor())
    error(
        loc,
        what + " must be a compile-time constant, but it is a runtime value (" + describe(v) + ")",
        "pass it as a tl.constexpr argument or compute it from constexpr values; a name "
        "bound by plain assignment holds a tensor once arithmetic touches it, as in Triton "
        "(write `N: tl.constexpr = ...`)");
  error(loc, what + " must be an integer, got " + describe(v));
}

bool Lowerer::constBool(const SVal &v, SourceLoc loc, const std::string &what) const {
  if (v.kind == SVal::Kind::Bool || v.kind == SVal::Kind::Int) return v.i != 0;
  if (v.kind == SVal::Kind::None) return false;
  if (v.isTensor())
    error(loc, what + " must be a compile-time constant, but it is a runtime value",
          "pass it as a tl.constexpr argument");
  error(loc, what + " must be a bool, got " + describe(v));
}

std::vector<int64_t> Lowerer::constInts(const SVal &v, SourceLoc loc,
                                        const std::string &what) const {
  std::vector<int64_t> out;
  if (v.kind == SVal::Kind::Tuple) {
    for (const auto &e : v.elems) out.push_back(constInt(e, loc, what));
    return out;
  }
  out.push_back(constInt(v, loc, what));
  return out;
}

DType Lowerer::constDType(const SVal &v, SourceLoc loc, const std::string &what) const {
  if (v.kind == SVal::Kind::DType && !v.i) return v.dtype;
  error(loc, what + " must be a dtype such as tl.float32, got " + describe(v));
}

std::string Lowerer::constStr(const SVal &v, SourceLoc loc, const std::string &what) const {
  if (v.kind == SVal::Kind::Str) return v.s;
  if (v.kind == SVal::Kind::None) return {};
  error(loc, what + " must be a string, got " + describe(v));
}

void flattenRuntime(const SVal &v, std::vector<Value *> &out) {
  if (v.kind == SVal::Kind::Tensor) {
    out.push_back(v.v);
    return;
  }
  for (const auto &e : v.elems) flattenRuntime(e, out);
}

SVal rebuildRuntime(const SVal &shape, const std::vector<Value *> &vals, size_t &pos) {
  if (shape.kind == SVal::Kind::Tensor) return SVal::tensor(vals.at(pos++));
  SVal r = shape;
  for (auto &e : r.elems) e = rebuildRuntime(e, vals, pos);
  return r;
}

}  // namespace tessera::frontend
