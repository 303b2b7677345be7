// Builtins: reductions (sum, max, min, argmax, argmin, xor_sum, reduce with
// a @jit combine function), softmax, and tl.dot.
#include "frontend/builtin_util.h"

namespace tessera::frontend {

namespace {

using A = CallArgs;

struct Reduced {
  std::vector<Value *> inputs;
  int64_t axis = 0;
  bool keepDims = false;
  std::vector<int64_t> inShape;
  bool allAxes = false;
};

// Common argument handling: axis=None flattens; negative axes count from the end.
Reduced prepare(Lowerer &l, std::vector<Value *> inputs, const SVal &axis, const SVal &keepDims,
                SourceLoc loc, const std::string &fn) {
  Reduced r;
  r.keepDims = l.constBool(keepDims, loc, "keep_dims");
  for (Value *v : inputs)
    if (!v->type.isTile())
      l.error(loc, fn + " needs a tensor, got a scalar", "reductions apply to tiles");
  r.inShape = inputs[0]->type.shape;
  if (axis.isNone()) {
    r.allAxes = true;
    for (Value *&v : inputs)
      if (v->type.rank() != 1)
        v = l.emit(OpCode::Reshape, {v}, v->type.withShape({v->type.numel()}), loc);
    r.axis = 0;
  } else {
    r.axis = normalizeAxis(l, axis, inputs[0]->type.rank(), loc);
  }
  r.inputs = std::move(inputs);
  return r;
}

Value *finish(Lowerer &l, const Reduced &r, Value *v, SourceLoc loc) {
  if (!r.keepDims) return v;
  if (r.allAxes) {
    std::vector<int64_t> ones(r.inShape.size(), 1);
    Value *t = v->type.isTile() ? v : l.emit(OpCode::Splat, {v}, Type::tile({1}, v->type), loc);
    return l.emit(OpCode::Reshape, {t}, t->type.withShape(ones), loc);
  }
  std::vector<int64_t> s = r.inShape;
  s[r.axis] = 1;
  if (!v->type.isTile()) return l.emit(OpCode::Splat, {v}, Type::tile(s, v->type), loc);
  return l.emit(OpCode::ExpandDims, {v}, v->type.withShape(s), loc, {{"axis", r.axis}});
}

SVal sum(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the input of " + a.name);
  if (x->type.isPtrLike()) l.error(a.loc, a.name + " does not accept pointers");
  DType d = x->type.dtype;
  if (!a["dtype"].isNone())
    d = l.constDType(a["dtype"], a.locOf("dtype"), "dtype");
  else if (d == DType::I1 || (isSigned(d) && bitWidth(d) < 32))
    d = DType::I32;
  else if (isUnsigned(d) && bitWidth(d) < 32)
    d = DType::U32;
  else if (d == DType::BF16)
    d = DType::F32;  // as Triton: bfloat16 sums accumulate (and return) in float32
  x = l.castTo(x, d, a.loc);
  Reduced r = prepare(l, {x}, a["axis"], a["keep_dims"], a.loc, a.name);
  Value *out = buildReduce(l, r.inputs, r.axis, simpleCombine(OpCode::Add), a.loc)[0];
  return SVal::tensor(finish(l, r, out, a.loc));
}

SVal xorSum(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the input of " + a.name);
  if (!isInt(x->type.dtype) || x->type.isPtrLike())
    l.error(a.loc, "tl.xor_sum requires an integer tensor, got " + describe(a["input"]));
  Reduced r = prepare(l, {x}, a["axis"], a["keep_dims"], a.loc, a.name);
  Value *out = buildReduce(l, r.inputs, r.axis, simpleCombine(OpCode::Xor), a.loc)[0];
  return SVal::tensor(finish(l, r, out, a.loc));
}

// tl.reduce_or: bitwise or of integer elements along an axis (Triton's
// reduce(input, axis, _or_combine)).
SVal reduceOr(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the input of " + a.name);
  if (!isInt(x->type.dtype) || x->type.isPtrLike())
    l.error(a.loc, "tl.reduce_or requires an integer tensor, got " + describe(a["input"]),
            "compare floats first (x != 0) to or their truth values");
  Reduced r = prepare(l, {x}, a["axis"], a["keep_dims"], a.loc, a.name);
  Value *out = buildReduce(l, r.inputs, r.axis, simpleCombine(OpCode::Or), a.loc)[0];
  return SVal::tensor(finish(l, r, out, a.loc));
}

// (value, index) pairs: the winner is the larger (smaller) value, ties to
// the lower index, as Triton's _argmax_combine_tie_break_left. A NaN value
// never wins against a number (Triton's JIT and interpreter answer as
// np.nanargmax: [3, 5, nan] gives 1, [nan, 6, 8, 1] gives 2), which makes the
// result independent of the order the reduction combines in.
CombineBuilder argCombine(bool isMax, bool tieBreakLeft) {
  return [isMax, tieBreakLeft](Lowerer &l, const std::vector<Value *> &lhs,
                               const std::vector<Value *> &rhs, SourceLoc loc) {
    Type i1 = Type::scalar(DType::I1);
    auto cmp = [&](Value *a, Value *b, const char *pred) {
      return l.emit(OpCode::Cmp, {a, b}, i1, loc, {{"pred", std::string(pred)}});
    };
    auto both = [&](OpCode op, Value *a, Value *b) { return l.emit(op, {a, b}, i1, loc); };
    Value *better = cmp(lhs[0], rhs[0], isMax ? "gt" : "lt");
    Value *same = cmp(lhs[0], rhs[0], "eq");
    if (isFloat(lhs[0]->type.dtype)) {
      // x != x only for NaN: a number beats a NaN, and two NaNs tie.
      Value *lnan = cmp(lhs[0], lhs[0], "ne"), *rnan = cmp(rhs[0], rhs[0], "ne");
      Value *lnum = l.emit(OpCode::Not, {lnan}, i1, loc);
      better = both(OpCode::Or, better, both(OpCode::And, lnum, rnan));
      same = both(OpCode::Or, same, both(OpCode::And, lnan, rnan));
    }
    if (tieBreakLeft)
      better = both(OpCode::Or, better, both(OpCode::And, same, cmp(lhs[1], rhs[1], "lt")));
    Value *v = l.emit(OpCode::Select, {better, lhs[0], rhs[0]}, lhs[0]->type, loc);
    Value *i = l.emit(OpCode::Select, {better, lhs[1], rhs[1]}, lhs[1]->type, loc);
    return std::vector<Value *>{v, i};
  };
}

SVal minMaxReduce(Lowerer &l, A &a, bool isMax, bool indicesOnly) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the input of " + a.name);
  if (x->type.isPtrLike()) l.error(a.loc, a.name + " does not accept pointers");
  bool withIndices = indicesOnly || l.constBool(a["return_indices"], a.loc, "return_indices");
  bool tieLeft = l.constBool(a[indicesOnly ? "tie_break_left" : "return_indices_tie_break_left"],
                             a.loc, "tie_break_left");
  if (x->type.dtype == DType::I1) x = l.castTo(x, DType::I32, a.loc);
  // As Triton: bfloat16 is reduced in float32, and a plain max/min of a
  // narrower-than-32-bit input returns float32 / int32.
  if (x->type.dtype == DType::BF16) x = l.castTo(x, DType::F32, a.loc);
  if (!withIndices && bitWidth(x->type.dtype) < 32)
    x = l.castTo(x, isFloat(x->type.dtype) ? DType::F32 : DType::I32, a.loc);
  if (!withIndices) {
    Reduced r = prepare(l, {x}, a["axis"], a["keep_dims"], a.loc, a.name);
    Value *out = buildReduce(
        l, r.inputs, r.axis,
        simpleCombine(isMax ? OpCode::Max : OpCode::Min, {{"propagate_nan", int64_t{0}}}),
        a.loc)[0];
    return SVal::tensor(finish(l, r, out, a.loc));
  }
  if (!x->type.isTile()) l.error(a.loc, a.name + " needs a tensor");
  Reduced r = prepare(l, {x}, a["axis"], a["keep_dims"], a.loc, a.name);
  Value *v = r.inputs[0];
  // Indices along the reduced axis, broadcast to the input's shape.
  int64_t n = v->type.shape[r.axis];
  Value *idx = l.emit(OpCode::Arange, {}, tileOf({n}, DType::I32), a.loc,
                      {{"end", n}, {"start", int64_t{0}}});
  std::vector<int64_t> s(v->type.rank(), 1);
  s[r.axis] = n;
  if (v->type.rank() > 1) idx = l.emit(OpCode::Reshape, {idx}, idx->type.withShape(s), a.loc);
  idx = l.broadcastTo(idx, v->type.shape, a.loc);
  std::vector<Value *> out = buildReduce(l, {v, idx}, r.axis, argCombine(isMax, tieLeft), a.loc);
  Value *vals = finish(l, r, out[0], a.loc), *inds = finish(l, r, out[1], a.loc);
  if (indicesOnly) return SVal::tensor(inds);
  return SVal::tuple({SVal::tensor(vals), SVal::tensor(inds)});
}
SVal maxFn(Lowerer &l, A &a) {
  return minMaxReduce(l, a, true, false);
}
SVal minFn(Lowerer &l, A &a) {
  return minMaxReduce(l, a, false, false);
}
SVal argmax(Lowerer &l, A &a) {
  return minMaxReduce(l, a, true, true);
}
SVal argmin(Lowerer &l, A &a) {
  return minMaxReduce(l, a, false, true);
}

// Calls a @jit combine function on region arguments.
CombineBuilder userCombine(const SVal &fn) {
  return [fn](Lowerer &l, const std::vector<Value *> &lhs, const std::vector<Value *> &rhs,
              SourceLoc loc) {
    if (fn.kind != SVal::Kind::Function)
      l.error(loc, "the combine function must be a @jit function, got " + describe(fn));
    std::vector<SVal> args;
    for (Value *v : lhs) args.push_back(SVal::tensor(v));
    for (Value *v : rhs) args.push_back(SVal::tensor(v));
    SVal r = l.inlineFunction(fn, args, {}, loc);
    std::vector<Value *> out;
    std::vector<SVal> items = r.kind == SVal::Kind::Tuple ? r.elems : std::vector<SVal>{r};
    for (size_t i = 0; i < items.size(); ++i) {
      Value *v = l.tensorArg(items[i], loc, "a combine function result");
      if (i < lhs.size() && v->type != lhs[i]->type && !v->type.isTile())
        v = l.cast(v, lhs[i]->type, loc);
      out.push_back(v);
    }
    return out;
  };
}

std::vector<Value *> tensorsOf(Lowerer &l, const SVal &v, SourceLoc loc, const std::string &what) {
  std::vector<Value *> out;
  if (v.kind == SVal::Kind::Tuple)
    for (const auto &e : v.elems) out.push_back(l.tensorArg(e, loc, what));
  else
    out.push_back(l.tensorArg(v, loc, what));
  return out;
}

SVal reduceFn(Lowerer &l, A &a) {
  std::vector<Value *> in = tensorsOf(l, a["input"], a.locOf("input"), "a reduce input");
  for (Value *v : in)
    if (v->type.shape != in[0]->type.shape)
      l.error(a.locOf("input"), "all tl.reduce inputs must have the same shape");
  Reduced r = prepare(l, in, a["axis"], a["keep_dims"], a.loc, a.name);
  std::vector<Value *> out = buildReduce(l, r.inputs, r.axis, userCombine(a["combine_fn"]), a.loc);
  std::vector<SVal> res;
  for (Value *v : out) res.push_back(SVal::tensor(finish(l, r, v, a.loc)));
  if (a["input"].kind == SVal::Kind::Tuple) return SVal::tuple(res);
  return res[0];
}

SVal softmax(Lowerer &l, A &a) {
  SVal x = a["x"];
  SVal dim = a["dim"].isNone() ? SVal::integer(0) : a["dim"];
  SVal keep = a["keep_dims"];
  auto callB = [&](const char *name, std::vector<SVal> args,
                   std::vector<std::pair<std::string, SVal>> kw) {
    std::vector<SourceLoc> locs(args.size(), a.loc), kwl(kw.size(), a.loc);
    return l.call(SVal::builtin(name), args, locs, kw, kwl, a.loc);
  };
  SVal m = callB("tl.max", {x, dim}, {{"keep_dims", keep}});
  SVal z = l.binary(ast::BinOp::Sub, x, m, a.loc);
  SVal num = callB("tl.exp", {z}, {});
  SVal den = callB("tl.sum", {num, dim}, {{"keep_dims", keep}});
  return callB("tl.fdiv", {num, den}, {{"ieee_rounding", a["ieee_rounding"]}});
}

// ---- dot ---------------------------------------------------------------------------------

// input_precision "bf16x3" / "bf16x6": an fp32 product from bf16 tensor-core
// products. Each operand is split into `parts` bf16 values whose sum is
// (nearly) the fp32 value: hi = bf16(x), mid = bf16(x - hi), lo = bf16(x -
// hi - mid). The cross products of 2 parts (3 dots) or 3 parts (6 dots)
// are summed in fp32, the smallest first; where an operand is infinite the
// parts after hi are NaN, so NaNs of the small products become 0 before
// hi * hi adds the true result. The accumulator is added last. The dots
// are ordinary bf16 dots, so every back end runs them as it runs bf16.
Value *splitBf16Dot(Lowerer &l, Value *x, Value *y, Value *acc, int parts, SourceLoc loc) {
  auto split = [&](Value *v) {
    std::vector<Value *> out;
    Value *rest = v;
    for (int k = 0; k < parts; ++k) {
      out.push_back(l.castTo(rest, DType::BF16, loc));
      if (k + 1 < parts)
        rest = l.emit(OpCode::Sub, {rest, l.castTo(out.back(), DType::F32, loc)}, v->type, loc);
    }
    return out;
  };
  std::vector<Value *> xs = split(x), ys = split(y);
  const Type &t = acc->type;
  auto dotInto = [&](int i, int j, Value *into) {
    return l.emit(
        OpCode::Dot, {xs[i], ys[j], into}, t, loc,
        {{"input_precision", std::string("ieee")}, {"max_num_imprecise_acc", int64_t{0}}});
  };
  l.builder().setLoc(loc);
  Value *small = l.constantInt(0, t);
  // (i, j) with i + j from largest to 1: the terms smallest first.
  for (int s = parts - 1; s >= 1; --s)
    for (int i = s; i >= 0; --i) small = dotInto(i, s - i, small);
  Value *nan = l.emit(OpCode::Cmp, {small, small}, t.withElement(Type::scalar(DType::I1)), loc,
                      {{"pred", std::string("ne")}});
  Value *zero = l.constantInt(0, t);
  small = l.emit(OpCode::Select, {nan, zero, small}, t, loc);
  Value *product = dotInto(0, 0, small);
  return l.emit(OpCode::Add, {acc, product}, t, loc);
}

SVal dot(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the first operand of tl.dot");
  Value *y = l.tensorArg(a["other"], a.locOf("other"), "the second operand of tl.dot");
  int rank = x->type.rank();
  if (rank < 2 || y->type.rank() != rank)
    l.error(a.loc,
            "tl.dot needs two 2-D tensors, or two batched ones of one rank, got " +
                describe(a["input"]) + " and " + describe(a["other"]),
            "batched operands are [..., M, K] and [..., K, N] with the same leading dims");
  const auto &xs = x->type.shape, &ys = y->type.shape;
  int64_t k1 = xs[rank - 1], k2 = ys[rank - 2];
  if (k1 != k2)
    l.error(a.loc,
            "tl.dot: the inner dimensions differ (" + std::to_string(k1) + " vs " +
                std::to_string(k2) + ")",
            "the first operand is [M, K] and the second [K, N]");
  for (int d = 0; d + 2 < rank; ++d)
    if (xs[d] != ys[d]) l.error(a.loc, "tl.dot: the batch dimensions differ");
  DType dx = x->type.dtype, dy = y->type.dtype;
  if (x->type.isPtrLike() || y->type.isPtrLike()) l.error(a.loc, "tl.dot does not accept pointers");
  bool fp8 = isFp8(dx) && isFp8(dy);
  if (dx != dy && !fp8)
    l.error(a.loc,
            std::string("tl.dot operands must have the same dtype, got ") + tritonName(dx) +
                " and " + tritonName(dy),
            "convert one operand with .to()");
  if (dx == DType::I1 || (isInt(dx) && bitWidth(dx) != 8))
    l.error(a.loc, std::string("tl.dot does not support ") + tritonName(dx) + " operands",
            "supported: float32, float16, bfloat16, float8, int8 (and float64)");
  std::string precision = "ieee";
  if (dx == DType::F32) {
    precision = "tf32";
    if (!a["allow_tf32"].isNone() && !l.constBool(a["allow_tf32"], a.loc, "allow_tf32"))
      precision = "ieee";
    if (!a["input_precision"].isNone())
      precision = l.constStr(a["input_precision"], a.locOf("input_precision"), "input_precision");
    if (precision != "tf32" && precision != "tf32x3" && precision != "bf16x3" &&
        precision != "bf16x6" && precision != "ieee")
      l.error(a.locOf("input_precision"),
              "input_precision must be 'tf32', 'tf32x3', 'bf16x3', 'bf16x6' or 'ieee', got '" +
                  precision + "'");
  }
  // The result type, as Triton picks it: integers accumulate in int32 and
  // fp32/bf16 in fp32, fp64 in fp64, whatever out_dtype says; fp16 and fp8
  // in out_dtype (fp32 by default).
  DType asked = a["out_dtype"].isNone()
                    ? DType::F32
                    : l.constDType(a["out_dtype"], a.locOf("out_dtype"), "out_dtype");
  if (!isInt(dx) && asked == DType::BF16)
    l.error(a.locOf("out_dtype"), "out_dtype=bfloat16 is unsupported",
            "use out_dtype=tl.float32 (or tl.float16) and cast with .to(tl.bfloat16)");
  DType out = isInt(dx)                               ? DType::I32
              : dx == DType::F32 || dx == DType::BF16 ? DType::F32
              : dx == DType::F64                      ? DType::F64
                                                      : asked;
  if (!isInt(dx) && !isFloat(out)) l.error(a.loc, "a float tl.dot needs a float out_dtype");
  std::vector<int64_t> shape = xs;
  shape[rank - 1] = ys[rank - 1];
  Type rt = tileOf(shape, out);
  Value *acc;
  if (a["acc"].isNone()) {
    l.builder().setLoc(a.loc);
    acc = l.constantInt(0, rt);
  } else {
    acc = l.tensorArg(a["acc"], a.locOf("acc"), "the accumulator");
    if (acc->type.shape != shape)
      l.error(a.locOf("acc"), "the accumulator's shape does not match the product's [" +
                                  std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + "]");
    rt = acc->type;
  }
  // max_num_imprecise_acc: for fp8 products, how many K products the
  // tensor cores may sum in their reduced-precision accumulator before the
  // sum is added into the fp32 one (0: no limit). Other types ignore it.
  int64_t imprecise = 0;
  if (!a["max_num_imprecise_acc"].isNone() && isFp8(x->type.dtype) && isFp8(y->type.dtype)) {
    imprecise = l.constInt(a["max_num_imprecise_acc"], a.loc, "max_num_imprecise_acc");
    int64_t K = x->type.shape[rank - 1];
    if (imprecise > K)
      l.error(a.locOf("max_num_imprecise_acc"),
              "max_num_imprecise_acc (" + std::to_string(imprecise) + ") must be <= K (" +
                  std::to_string(K) + "): pass at most the dot's K, or None for no limit");
    if (imprecise < 0)
      l.error(a.locOf("max_num_imprecise_acc"),
              "max_num_imprecise_acc must not be negative: pass a count of K products, or None");
  }
  // More than one batch dim (Triton's N-D dot): the batch dims, row-major,
  // become one, and the product takes them back.
  auto toRank3 = [&](Value *v) {
    const auto &s = v->type.shape;
    int64_t batch = 1;
    for (int d = 0; d + 2 < rank; ++d) batch *= s[d];
    return l.emit(OpCode::Reshape, {v}, v->type.withShape({batch, s[rank - 2], s[rank - 1]}),
                  a.loc);
  };
  Type full = rt;
  if (rank > 3) {
    x = toRank3(x);
    y = toRank3(y);
    acc = toRank3(acc);
    rt = acc->type;
  }
  Value *product;
  if (precision == "bf16x3" || precision == "bf16x6")
    product = splitBf16Dot(l, x, y, acc, precision == "bf16x6" ? 3 : 2, a.loc);
  else
    product = l.emit(OpCode::Dot, {x, y, acc}, rt, a.loc,
                     {{"input_precision", precision}, {"max_num_imprecise_acc", imprecise}});
  if (rank > 3) product = l.emit(OpCode::Reshape, {product}, full, a.loc);
  return SVal::tensor(product);
}

}  // namespace

std::vector<BuiltinDef> reduceBuiltins() {
  return {
      {"tl.sum", {"input", "axis=None", "keep_dims=False", "dtype=None"}, sum},
      {"tl.xor_sum", {"input", "axis=None", "keep_dims=False"}, xorSum},
      {"tl.reduce_or", {"input", "axis", "keep_dims=False"}, reduceOr},
      {"tl.max",
       {"input", "axis=None", "return_indices=False", "return_indices_tie_break_left=True",
        "keep_dims=False"},
       maxFn},
      {"tl.min",
       {"input", "axis=None", "return_indices=False", "return_indices_tie_break_left=True",
        "keep_dims=False"},
       minFn},
      {"tl.argmax", {"input", "axis", "tie_break_left=True", "keep_dims=False"}, argmax},
      {"tl.argmin", {"input", "axis", "tie_break_left=True", "keep_dims=False"}, argmin},
      {"tl.reduce", {"input", "axis", "combine_fn", "keep_dims=False"}, reduceFn},
      {"tl.softmax", {"x", "dim=None", "keep_dims=False", "ieee_rounding=False"}, softmax},
      {"tl.dot",
       {"input", "other", "acc=None", "input_precision=None", "allow_tf32=None",
        "max_num_imprecise_acc=None", "out_dtype=None"},
       dot},
  };
}

}  // namespace tessera::frontend
