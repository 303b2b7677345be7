// Builtins: scans (cumsum, cumprod, associative_scan with a @jit combine
// function). All lower to one `scan` op whose region combines two elements;
// the result has the input's shape.
#include "frontend/builtin_util.h"

namespace tessera::frontend {

namespace {

using A = CallArgs;

std::vector<Value *> scanInputs(Lowerer &l, const SVal &v, SourceLoc loc, const std::string &fn) {
  std::vector<SVal> items = v.kind == SVal::Kind::Tuple ? v.elems : std::vector<SVal>{v};
  if (items.empty()) l.error(loc, fn + " needs at least one input tensor");
  std::vector<Value *> out;
  for (const SVal &item : items) {
    Value *x = l.tensorArg(item, loc, "the input of " + fn);
    if (!x->type.isTile())
      l.error(loc, fn + " needs a tensor, got " + describe(item), "scans apply to tiles");
    if (x->type.isPtrLike()) l.error(loc, fn + " does not accept pointers");
    if (!out.empty() && x->type.shape != out[0]->type.shape)
      l.error(loc, "all " + fn + " inputs must have the same shape, got " +
                       describe(SVal::tensor(out[0])) + " and " + describe(item));
    out.push_back(x);
  }
  return out;
}

std::vector<NamedAttr> reverseAttr(Lowerer &l, A &a) {
  return {{"reverse", int64_t{l.constBool(a["reverse"], a.locOf("reverse"), "reverse")}}};
}

// Triton promotes bfloat16 to float32 before cumsum/cumprod.
Value *promoteBf16(Lowerer &l, Value *x, SourceLoc loc) {
  return x->type.dtype == DType::BF16 ? l.castTo(x, DType::F32, loc) : x;
}

SVal cumsum(Lowerer &l, A &a) {
  Value *x = scanInputs(l, a["input"], a.locOf("input"), a.name)[0];
  x = promoteBf16(l, x, a.loc);
  // As tl.sum: narrow integers accumulate in 32 bits so the sums do not wrap.
  DType d = x->type.dtype;
  if (!a["dtype"].isNone())
    d = l.constDType(a["dtype"], a.locOf("dtype"), "dtype");
  else if (d == DType::I1 || (isSigned(d) && bitWidth(d) < 32))
    d = DType::I32;
  else if (isUnsigned(d) && bitWidth(d) < 32)
    d = DType::U32;
  x = l.castTo(x, d, a.loc);
  int64_t axis = normalizeAxis(l, a["axis"], x->type.rank(), a.locOf("axis"));
  return SVal::tensor(buildReduce(l, {x}, axis, simpleCombine(OpCode::Add), a.loc, OpCode::Scan,
                                  reverseAttr(l, a))[0]);
}

SVal cumprod(Lowerer &l, A &a) {
  Value *x = scanInputs(l, a["input"], a.locOf("input"), a.name)[0];
  x = promoteBf16(l, x, a.loc);
  int64_t axis = normalizeAxis(l, a["axis"], x->type.rank(), a.locOf("axis"));
  return SVal::tensor(buildReduce(l, {x}, axis, simpleCombine(OpCode::Mul), a.loc, OpCode::Scan,
                                  reverseAttr(l, a))[0]);
}

SVal associativeScan(Lowerer &l, A &a) {
  std::vector<Value *> in = scanInputs(l, a["input"], a.locOf("input"), a.name);
  const SVal &fn = a["combine_fn"];
  if (fn.kind != SVal::Kind::Function)
    l.error(a.locOf("combine_fn"),
            "the combine_fn of " + a.name + " must be a @jit function, got " + describe(fn),
            "define `@triton.jit def combine(a, b): return a + b` and pass `combine`");
  int64_t axis = normalizeAxis(l, a["axis"], in[0]->type.rank(), a.locOf("axis"));
  // The combine function takes the lhs elements then the rhs elements, and
  // returns one value per input (a tuple when there are several).
  CombineBuilder combine = [fn](Lowerer &l, const std::vector<Value *> &lhs,
                                const std::vector<Value *> &rhs, SourceLoc loc) {
    std::vector<SVal> args;
    for (Value *v : lhs) args.push_back(SVal::tensor(v));
    for (Value *v : rhs) args.push_back(SVal::tensor(v));
    SVal r = l.inlineFunction(fn, args, {}, loc);
    std::vector<SVal> items = r.kind == SVal::Kind::Tuple ? r.elems : std::vector<SVal>{r};
    std::vector<Value *> out;
    for (size_t i = 0; i < items.size(); ++i) {
      std::optional<DType> want;
      if (i < lhs.size()) want = lhs[i]->type.dtype;
      if (items[i].isNone())
        l.error(loc, "the combine function must return a value for each scanned input");
      Value *v = l.toValue(items[i], loc, items[i].isNumber() ? want : std::nullopt);
      if (v->type.isTile())
        l.error(loc, "the combine function returned a tensor " + describe(items[i]) +
                         " where a scalar element was expected");
      out.push_back(v);
    }
    return out;
  };
  std::vector<Value *> out =
      buildReduce(l, in, axis, combine, a.loc, OpCode::Scan, reverseAttr(l, a));
  if (a["input"].kind != SVal::Kind::Tuple) return SVal::tensor(out[0]);
  std::vector<SVal> res;
  for (Value *v : out) res.push_back(SVal::tensor(v));
  return SVal::tuple(res);
}

}  // namespace

std::vector<BuiltinDef> scanBuiltins() {
  return {
      {"tl.cumsum", {"input", "axis=0", "reverse=False", "dtype=None"}, cumsum},
      {"tl.cumprod", {"input", "axis=0", "reverse=False"}, cumprod},
      {"tl.associative_scan", {"input", "axis", "combine_fn", "reverse=False"}, associativeScan},
  };
}

}  // namespace tessera::frontend
