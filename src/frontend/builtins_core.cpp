// Builtins: program ids, tile creation, casts, loads and stores, element-wise
// math, where/maximum/minimum/clamp, and the Python builtins allowed on
// compile-time values. Each entry declares Triton's parameter names so keyword
// calls and their diagnostics match Triton.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "frontend/builtin_util.h"

namespace tessera::frontend {

namespace {

using A = CallArgs;

SVal programId(Lowerer &l, A &a) {
  int64_t axis = l.constInt(a["axis"], a.locOf("axis"), "the axis of tl.program_id");
  if (axis < 0 || axis > 2)
    l.error(a.locOf("axis"), "program_id axis must be 0, 1, or 2 but got " + std::to_string(axis));
  return SVal::tensor(
      l.emit(OpCode::ProgramId, {}, Type::scalar(DType::I32), a.loc, {{"axis", axis}}));
}

SVal numPrograms(Lowerer &l, A &a) {
  int64_t axis = l.constInt(a["axis"], a.locOf("axis"), "the axis of tl.num_programs");
  if (axis < 0 || axis > 2)
    l.error(a.locOf("axis"),
            "num_programs axis must be 0, 1, or 2 but got " + std::to_string(axis));
  return SVal::tensor(
      l.emit(OpCode::NumPrograms, {}, Type::scalar(DType::I32), a.loc, {{"axis", axis}}));
}

SVal arange(Lowerer &l, A &a) {
  int64_t start = l.constInt(a["start"], a.locOf("start"), "the start of tl.arange");
  int64_t end = l.constInt(a["end"], a.locOf("end"), "the end of tl.arange");
  if (end <= start)
    l.error(a.loc, "tl.arange's end (" + std::to_string(end) +
                       ") must be greater than its start (" + std::to_string(start) + ")");
  if (start < INT32_MIN || end > INT32_MAX) l.error(a.loc, "tl.arange bounds must fit in int32");
  int64_t n = end - start;
  if (!isPowerOfTwo(n))
    l.error(a.loc, "tl.arange's range must be a power of two, got " + std::to_string(n),
            "round it up with triton.next_power_of_2() and mask the extra lanes");
  if (n > (1 << 20)) l.error(a.loc, "tl.arange's range is larger than 1048576 elements");
  return SVal::tensor(
      l.emit(OpCode::Arange, {}, tileOf({n}, DType::I32), a.loc, {{"end", end}, {"start", start}}));
}

SVal full(Lowerer &l, const SVal &shapeV, const SVal &value, DType d, SourceLoc loc) {
  std::vector<int64_t> shape = blockShape(l, shapeV, loc, "the shape");
  Type t = tileOf(shape, d);
  if (value.isNumber()) {
    l.builder().setLoc(loc);
    if (value.kind == SVal::Kind::Float) return SVal::tensor(l.constant(value.f, t));
    return SVal::tensor(l.constantInt(value.i, t));
  }
  Value *v = l.tensorArg(value, loc, "the fill value");
  if (v->type.isTile()) l.error(loc, "the fill value of tl.full must be a scalar");
  v = l.castTo(v, d, loc);
  return SVal::tensor(l.broadcastTo(v, shape, loc));
}

SVal zeros(Lowerer &l, A &a) {
  DType d = l.constDType(a["dtype"], a.locOf("dtype"), "the dtype of tl.zeros");
  return full(l, a["shape"], SVal::integer(0), d, a.loc);
}

SVal fullFn(Lowerer &l, A &a) {
  DType d = l.constDType(a["dtype"], a.locOf("dtype"), "the dtype of tl.full");
  return full(l, a["shape"], a["value"], d, a.loc);
}

SVal zerosLike(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the input of tl.zeros_like");
  DType d = a["dtype"].isNone() ? x->type.dtype : l.constDType(a["dtype"], a.loc, "dtype");
  std::vector<SVal> dims;
  for (int64_t s : x->type.shape) dims.push_back(SVal::integer(s));
  if (dims.empty()) return SVal::tensor(l.constantInt(0, Type::scalar(d)));
  return full(l, SVal::tuple(dims), SVal::integer(0), d, a.loc);
}

SVal castImpl(Lowerer &l, const SVal &input, const SVal &dtype, const SVal &rounding,
              const SVal &bitcast, SourceLoc loc) {
  if (dtype.kind != SVal::Kind::DType)
    l.error(loc, "the target of a cast must be a dtype such as tl.float16, got " + describe(dtype));
  Value *x = l.tensorArg(input, loc, "the value to cast");
  Type elem = dtype.i ? Type::ptr(dtype.dtype) : Type::scalar(dtype.dtype);
  std::string r = l.constStr(rounding, loc, "fp_downcast_rounding");
  if (!r.empty()) {
    if (r != "rtne" && r != "rtz")
      l.error(loc, "fp_downcast_rounding must be 'rtne' or 'rtz', got '" + r + "'");
    if (!(isFloat(x->type.dtype) && isFloat(dtype.dtype) &&
          bitWidth(dtype.dtype) < bitWidth(x->type.dtype)))
      l.error(loc, "fp_downcast_rounding applies only to float-to-narrower-float casts");
  }
  return SVal::tensor(l.cast(x, elem, loc, l.constBool(bitcast, loc, "bitcast"), r));
}

SVal castFn(Lowerer &l, A &a) {
  return castImpl(l, a["input"], a["dtype"], a["fp_downcast_rounding"], a["bitcast"], a.loc);
}

SVal toMethod(Lowerer &l, A &a) {
  return castImpl(l, a["self"], a["dtype"], a["fp_downcast_rounding"], a["bitcast"], a.loc);
}

SVal itemMethod(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["self"], a.loc, "the tensor of item()");
  if (!x->type.isTile()) return SVal::tensor(x);
  return SVal::tensor(oneElementScalar(l, x, a.loc, "item()"));
}

// ---- memory ----------------------------------------------------------------------------

void checkCache(Lowerer &l, const std::string &v, bool isLoad, SourceLoc loc) {
  static const char *kLoad[] = {"", ".ca", ".cg", ".cs", ".cv"};
  static const char *kStore[] = {"", ".wb", ".cg", ".cs", ".wt"};
  bool ok = false;
  if (isLoad) {
    for (const char *k : kLoad) ok |= v == k;
  } else {
    for (const char *k : kStore) ok |= v == k;
  }
  if (!ok)
    l.error(loc, "unknown cache_modifier '" + v + "'",
            isLoad ? "use one of '', '.ca', '.cg', '.cv'"
                   : "use one of '', '.wb', '.cg', '.cs', '.wt'");
}

void checkEviction(Lowerer &l, const std::string &v, SourceLoc loc) {
  if (v != "" && v != "evict_first" && v != "evict_last" && v != "evict_normal")
    l.error(loc, "unknown eviction_policy '" + v + "'",
            "use '', 'evict_first', 'evict_last' or 'evict_normal'");
}

Value *pointerArg(Lowerer &l, const SVal &p, SourceLoc loc, const std::string &fn) {
  if (!p.isTensor() || !p.v->type.isPtrLike())
    l.error(loc, fn + " expects a pointer or a tensor of pointers, got " + describe(p),
            "pass a kernel pointer argument plus offsets, e.g. x_ptr + offsets");
  return p.v;
}

SVal load(Lowerer &l, A &a) {
  if (a["pointer"].kind == SVal::Kind::BlockPtr) {
    if (!a["mask"].isNone() || !a["other"].isNone())
      l.error(a.loc, "`mask` and `other` arguments cannot be specified for loading block pointers",
              "use boundary_check= and padding_option= instead");
    SVal fn = SVal::builtin("tl._load_block_ptr");
    if (!findBuiltin(fn.s)) l.error(a.loc, "block pointers are not supported yet");
    return l.call(fn, {a["pointer"], a["boundary_check"], a["padding_option"]},
                  {a.loc, a.loc, a.loc}, {}, {}, a.loc);
  }
  Value *ptr = pointerArg(l, a["pointer"], a.locOf("pointer"), "tl.load");
  std::string cache = l.constStr(a["cache_modifier"], a.loc, "cache_modifier");
  std::string evict = l.constStr(a["eviction_policy"], a.loc, "eviction_policy");
  checkCache(l, cache, true, a.locOf("cache_modifier"));
  checkEviction(l, evict, a.locOf("eviction_policy"));
  if (a.has("boundary_check") &&
      !(a["boundary_check"].kind == SVal::Kind::Tuple && a["boundary_check"].elems.empty()))
    l.error(a.locOf("boundary_check"), "boundary_check is only valid for block pointers");
  DType elem = ptr->type.dtype;
  Value *mask = nullptr, *other = nullptr;
  if (!a["mask"].isNone()) {
    mask = l.cast(l.tensorArg(a["mask"], a.locOf("mask"), "the mask"), Type::scalar(DType::I1),
                  a.locOf("mask"));
    l.broadcastPair(ptr, mask, a.loc);
  }
  if (!a["other"].isNone()) {
    if (!mask) l.error(a.locOf("other"), "tl.load's other= needs a mask=", "pass mask= too");
    DType od = elem == DType::I1 ? DType::I8 : elem;
    other = l.broadcastTo(l.toValue(a["other"], a.locOf("other"), od), ptr->type.shape,
                          a.locOf("other"));
  }
  std::vector<Value *> ops{ptr};
  if (mask) ops.push_back(mask);
  if (other) ops.push_back(other);
  bool isBool = elem == DType::I1;
  if (isBool) {
    // Bools live in memory as bytes: load int8 and compare with zero.
    ops[0] = l.cast(ptr, Type::ptr(DType::I8, ptr->type.addrSpace), a.loc);
    elem = DType::I8;
  }
  Type rt = ptr->type.withElement(Type::scalar(elem));
  Value *r = l.emit(OpCode::Load, ops, rt, a.loc,
                    {{"cache", cache},
                     {"evict", evict},
                     {"volatile", int64_t{l.constBool(a["volatile"], a.loc, "volatile")}}});
  if (isBool) r = l.cast(r, Type::scalar(DType::I1), a.loc);
  return SVal::tensor(r);
}

SVal store(Lowerer &l, A &a) {
  if (a["pointer"].kind == SVal::Kind::BlockPtr) {
    if (!a["mask"].isNone())
      l.error(a.loc, "the `mask` argument cannot be specified for storing block pointers",
              "use boundary_check= instead");
    SVal fn = SVal::builtin("tl._store_block_ptr");
    if (!findBuiltin(fn.s)) l.error(a.loc, "block pointers are not supported yet");
    return l.call(fn, {a["pointer"], a["value"], a["boundary_check"]}, {a.loc, a.loc, a.loc}, {},
                  {}, a.loc);
  }
  Value *ptr = pointerArg(l, a["pointer"], a.locOf("pointer"), "tl.store");
  l.checkWritablePointer(ptr, a.locOf("pointer"), "tl.store");
  std::string cache = l.constStr(a["cache_modifier"], a.loc, "cache_modifier");
  std::string evict = l.constStr(a["eviction_policy"], a.loc, "eviction_policy");
  checkCache(l, cache, false, a.locOf("cache_modifier"));
  checkEviction(l, evict, a.locOf("eviction_policy"));
  DType elem = ptr->type.dtype;
  Value *val = l.tensorArg(a["value"], a.locOf("value"), "the stored value");
  // A pointer is stored as its address, into 64-bit integers (as Triton
  // casts the value to the pointee type).
  if (val->type.isPtrLike()) {
    if (elem != DType::I64 && elem != DType::U64)
      l.error(a.locOf("value"),
              std::string("storing pointers into ") + tritonName(elem) + " is not supported",
              "store them through a pointer to tl.int64 (the addresses)");
    val = l.cast(val, Type::scalar(elem), a.locOf("value"));
  }
  Value *mask = nullptr;
  if (!a["mask"].isNone())
    mask = l.cast(l.tensorArg(a["mask"], a.locOf("mask"), "the mask"), Type::scalar(DType::I1),
                  a.locOf("mask"));
  // The pointer decides the shape; a scalar pointer with a tile value is an error.
  if (!ptr->type.isTile() && val->type.isTile())
    l.error(a.loc, "cannot store a tensor (" + describe(a["value"]) + ") through a scalar pointer",
            "add offsets to the pointer so it has the value's shape, e.g. ptr + tl.arange(0, N)");
  if (mask && mask->type.isTile() && !ptr->type.isTile())
    ptr = l.broadcastTo(ptr, mask->type.shape, a.loc);
  val = l.broadcastTo(val, ptr->type.shape, a.locOf("value"));
  if (mask) mask = l.broadcastTo(mask, ptr->type.shape, a.locOf("mask"));
  if (elem == DType::I1) {
    ptr = l.cast(ptr, Type::ptr(DType::I8, ptr->type.addrSpace), a.loc);
    val = l.castTo(val, DType::I8, a.loc);
  } else {
    val = l.castTo(val, elem, a.locOf("value"));
  }
  std::vector<Value *> ops{ptr, val};
  if (mask) ops.push_back(mask);
  l.builder().setLoc(a.loc);
  l.builder().create(OpCode::Store, ops, {}, {{"cache", cache}, {"evict", evict}});
  return SVal::none();
}

// ---- element-wise math ----------------------------------------------------------------------

template <OpCode Code, bool FloatOnly>
SVal unaryMath(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["x"], a.locOf("x"), "the argument of " + a.name);
  if (FloatOnly) requireFloat32or64(l, x, a.name, a.locOf("x"));
  if (x->type.isPtrLike()) l.error(a.locOf("x"), a.name + " does not accept pointers");
  return SVal::tensor(l.emit(Code, {x}, x->type, a.loc));
}

SVal sqrtRn(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["x"], a.locOf("x"), "the argument of " + a.name);
  requireFloat32or64(l, x, a.name, a.locOf("x"));
  return SVal::tensor(l.emit(OpCode::Sqrt, {x}, x->type, a.loc, {{"precise", int64_t{1}}}));
}

SVal absFn(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["x"], a.locOf("x"), "the argument of abs");
  if (x->type.isPtrLike()) l.error(a.locOf("x"), "abs does not accept pointers");
  if (isUnsigned(x->type.dtype) || x->type.dtype == DType::I1) return SVal::tensor(x);
  return SVal::tensor(l.emit(OpCode::Abs, {x}, x->type, a.loc));
}

SVal sigmoid(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["x"], a.locOf("x"), "the argument of sigmoid");
  requireFloat32or64(l, x, a.name, a.locOf("x"));
  Value *nx = l.emit(OpCode::Neg, {x}, x->type, a.loc);
  Value *e = l.emit(OpCode::Exp, {nx}, x->type, a.loc);
  SVal den = l.binary(ast::BinOp::Add, SVal::integer(1), SVal::tensor(e), a.loc);
  return l.binary(ast::BinOp::Div, SVal::integer(1), den, a.loc);
}

SVal fdiv(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["x"], a.locOf("x"), "the dividend");
  Value *y = l.tensorArg(a["y"], a.locOf("y"), "the divisor");
  if (!isFloat(x->type.dtype) || !isFloat(y->type.dtype) || x->type.isPtrLike() ||
      y->type.isPtrLike())
    l.error(a.loc, a.name + " requires floating-point operands, got " + describe(a["x"]) + " and " +
                       describe(a["y"]));
  bool precise = a.name.find("div_rn") != std::string::npos ||
                 (a.params.size() > 2 && l.constBool(a["ieee_rounding"], a.loc, "ieee_rounding"));
  std::vector<Value *> v = promoteAll(l, {SVal::tensor(x), SVal::tensor(y)}, a.loc);
  return SVal::tensor(
      l.emit(OpCode::Div, {v[0], v[1]}, v[0]->type, a.loc, {{"precise", int64_t{precise}}}));
}

SVal fma(Lowerer &l, A &a) {
  std::vector<Value *> v = promoteAll(l, {a["x"], a["y"], a["z"]}, a.loc);
  if (!isFloat(v[0]->type.dtype)) l.error(a.loc, "tl.fma requires floating-point operands");
  return SVal::tensor(l.emit(OpCode::Fma, v, v[0]->type, a.loc));
}

SVal umulhi(Lowerer &l, A &a) {
  std::vector<Value *> v = promoteAll(l, {a["x"], a["y"]}, a.loc);
  if (!isInt(v[0]->type.dtype) || v[0]->type.isPtrLike())
    l.error(a.loc, "tl.umulhi requires integer operands");
  return SVal::tensor(l.emit(OpCode::Umulhi, v, v[0]->type, a.loc));
}

SVal cdiv(Lowerer &l, A &a) {
  SVal x = a[a.params[0]], d = a[a.params[1]];
  if (x.isIntLike() && d.isIntLike()) {
    // Exactly, as Python's (x + d - 1) // d: the sum may leave 64 bits.
    __int128 n = x.wide(), q = d.wide(), num = 0;
    if (q == 0) l.error(a.loc, "division by zero in a compile-time expression");
    // num == -2^127 would trap when divided by -1.
    if (__builtin_add_overflow(n, q - 1, &num) || num == kInt128Min)
      return l.exactInteger(0, a.loc, true);
    __int128 r = num / q;
    if (num % q != 0 && ((num < 0) != (q < 0))) --r;
    return l.exactInteger(r, a.loc);
  }
  SVal num =
      l.binary(ast::BinOp::Sub, l.binary(ast::BinOp::Add, x, d, a.loc), SVal::integer(1), a.loc);
  return l.binary(ast::BinOp::FloorDiv, num, d, a.loc);
}

int64_t propagateNan(Lowerer &l, const SVal &v, SourceLoc loc) {
  if (v.isNone()) return 0;
  return l.constInt(v, loc, "propagate_nan") != 0;
}

SVal minmax(Lowerer &l, A &a, OpCode code) {
  std::vector<Value *> v = promoteAll(l, {a["x"], a["y"]}, a.loc);
  if (v[0]->type.isPtrLike()) l.error(a.loc, a.name + " does not accept pointers");
  return SVal::tensor(l.emit(code, v, v[0]->type, a.loc,
                             {{"propagate_nan", propagateNan(l, a["propagate_nan"], a.loc)}}));
}
SVal maximum(Lowerer &l, A &a) {
  return minmax(l, a, OpCode::Max);
}
SVal minimum(Lowerer &l, A &a) {
  return minmax(l, a, OpCode::Min);
}

// tl.swizzle2d: (i, j) of an size_i x size_j grid renumbered so that groups
// of size_g rows are walked column by column (Triton's standard library
// function, for L2-friendly program orders). Compile-time when all
// arguments are.
SVal swizzle2d(Lowerer &l, A &a) {
  using B = ast::BinOp;
  auto bin = [&](B op, const SVal &x, const SVal &y) { return l.binary(op, x, y, a.loc); };
  SVal i = a["i"], j = a["j"], sizeI = a["size_i"], sizeJ = a["size_j"], sizeG = a["size_g"];
  SVal ij = bin(B::Add, bin(B::Mul, i, sizeJ), j);
  SVal sizeGJ = bin(B::Mul, sizeG, sizeJ);
  SVal offI = bin(B::Mul, bin(B::FloorDiv, ij, sizeGJ), sizeG);
  SVal rows = bin(B::Sub, sizeI, offI);
  SVal g;  // min(size_i - off_i, size_g)
  if (rows.isConst() && sizeG.isConst()) {
    g = l.compare(ast::CmpOp::Lt, rows, sizeG, a.loc).i ? rows : sizeG;
  } else {
    std::vector<Value *> v = promoteAll(l, {rows, sizeG}, a.loc);
    g = SVal::tensor(l.emit(OpCode::Min, v, v[0]->type, a.loc, {{"propagate_nan", int64_t{0}}}));
  }
  SVal inGroup = bin(B::Mod, ij, sizeGJ);
  return SVal::tuple({bin(B::Add, offI, bin(B::Mod, inGroup, g)), bin(B::FloorDiv, inGroup, g)});
}

SVal clamp(Lowerer &l, A &a) {
  std::vector<Value *> v = promoteAll(l, {a["x"], a["min"], a["max"]}, a.loc);
  if (!isFloat(v[0]->type.dtype)) l.error(a.loc, "tl.clamp requires floating-point operands");
  return SVal::tensor(l.emit(OpCode::Clamp, v, v[0]->type, a.loc,
                             {{"propagate_nan", propagateNan(l, a["propagate_nan"], a.loc)}}));
}

SVal where(Lowerer &l, A &a) {
  Value *c = l.tensorArg(a["condition"], a.locOf("condition"), "the condition");
  if (c->type.dtype != DType::I1)  // Triton's deprecation: it will become an error there
    l.warn(a.locOf("condition"),
           std::string("tl.where with a non-boolean condition (") + tritonName(c->type.dtype) +
               ") is deprecated in Triton and will be an error there",
           "compare explicitly, e.g. tl.where(c != 0, x, y)");
  c = l.cast(c, Type::scalar(DType::I1), a.locOf("condition"));
  SVal x = a["x"], y = a["y"];
  std::vector<Value *> v;
  bool xp = x.isTensor() && x.v->type.isPtrLike(), yp = y.isTensor() && y.v->type.isPtrLike();
  if (xp || yp) {
    if (!(xp && yp) || x.v->type.element() != y.v->type.element())
      l.error(a.loc, "tl.where on pointers needs two pointers of the same type");
    v = {x.v, y.v};
  } else {
    v = promoteAll(l, {x, y}, a.loc);
  }
  std::vector<int64_t> shape = l.broadcastShapes(c->type.shape, v[0]->type.shape, a.loc);
  shape = l.broadcastShapes(shape, v[1]->type.shape, a.loc);
  c = l.broadcastTo(c, shape, a.loc);
  Value *xv = l.broadcastTo(v[0], shape, a.loc), *yv = l.broadcastTo(v[1], shape, a.loc);
  return SVal::tensor(l.emit(OpCode::Select, {c, xv, yv}, xv->type, a.loc));
}

// ---- compile-time helpers ---------------------------------------------------------------------

SVal constexprFn(Lowerer &, A &a) {
  SVal v = a["value"];
  v.assigned = false;
  return v;
}

// tl.tuple(values): a tuple of the values of a tuple or list.
SVal tupleFn(Lowerer &l, A &a) {
  SVal v = a["args"];
  if (v.kind != SVal::Kind::Tuple)
    l.error(a.loc, "tl.tuple() takes a tuple or a list, got " + describe(v));
  v.s.clear();
  v.assigned = false;
  return v;
}

// list(xs) and tuple(xs): a kernel's lists are tuples, so both copy a tuple
// or list (a namedtuple becomes a plain tuple); with no argument, empty.
SVal pyListOrTuple(Lowerer &l, A &a) {
  if (!a.has("iterable")) return SVal::tuple({});
  SVal v = a["iterable"];
  if (v.kind != SVal::Kind::Tuple)
    l.error(a.locOf("iterable"),
            a.name + "() in a kernel takes a tuple or a list, got " + describe(v),
            "build it from values known when compiling");
  v.s.clear();
  v.assigned = false;
  return v;
}

SVal constexprTypeFn(Lowerer &l, A &a) {
  const SVal &v = a["value"];
  if (!v.isConst() || v.assigned)
    l.error(a.locOf("value"),
            "tl.constexpr_type takes a compile-time value, got " + describe(v) +
                (v.assigned ? " (a name bound by assignment holds a tensor in Triton)" : ""),
            "pass a tl.constexpr parameter or a literal");
  return SVal::constexprType(v);
}

SVal nextPow2(Lowerer &l, A &a) {
  int64_t n = l.constInt(a["n"], a.locOf("n"), "the argument of next_power_of_2");
  int64_t p = 1;
  while (p < n) p <<= 1;
  return SVal::integer(p);
}

std::string showConst(const SVal &v) {
  switch (v.kind) {
    case SVal::Kind::Int:
      return std::to_string(v.i);
    case SVal::Kind::Bool:
      return v.i ? "True" : "False";
    case SVal::Kind::Float: {
      char buf[64];
      snprintf(buf, sizeof buf, "%g", v.f);
      return buf;
    }
    case SVal::Kind::Str:
      return v.s;
    case SVal::Kind::None:
      return "None";
    case SVal::Kind::DType:
      return std::string(tritonName(v.dtype));
    case SVal::Kind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < v.elems.size(); ++i) s += (i ? ", " : "") + showConst(v.elems[i]);
      return s + (v.elems.size() == 1 ? ",)" : ")");
    }
    default:
      return describe(v);
  }
}

SVal staticPrint(Lowerer &l, A &a) {
  if (l.dryRun()) return SVal::none();
  std::string line;
  for (size_t i = 0; i < a.varargs.size(); ++i) line += (i ? " " : "") + showConst(a.varargs[i]);
  std::cout << line << std::endl;
  return SVal::none();
}

SVal staticAssert(Lowerer &l, A &a) {
  if (!a["cond"].isConst())
    l.error(a.locOf("cond"), "tl.static_assert needs a compile-time condition",
            "use tl.device_assert for runtime values");
  if (l.unary(ast::UnaryOp::Not, a["cond"], a.loc).i) {
    std::string msg = l.constStr(a["msg"], a.loc, "the message");
    l.error(a.loc, "static_assert failed" + (msg.empty() ? std::string() : ": " + msg));
  }
  return SVal::none();
}

SVal hint(Lowerer &l, A &a, const char *attr) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the input of " + a.name);
  std::vector<int64_t> vals = l.constInts(a["values"], a.locOf("values"), "the hint values");
  int rank = std::max(1, x->type.rank());
  if (static_cast<int>(vals.size()) != rank)
    l.error(a.locOf("values"), a.name + " needs one value per dimension (" + std::to_string(rank) +
                                   "), got " + std::to_string(vals.size()));
  for (int64_t v : vals)
    if (v <= 0) l.error(a.locOf("values"), a.name + " values must be positive");
  return SVal::tensor(l.emit(OpCode::Hint, {x}, x->type, a.loc, {{attr, vals}}));
}
SVal multipleOf(Lowerer &l, A &a) {
  return hint(l, a, "divisibility");
}
SVal maxContiguous(Lowerer &l, A &a) {
  return hint(l, a, "contiguity");
}
SVal maxConstancy(Lowerer &l, A &a) {
  return hint(l, a, "constancy");
}

// tl.condition(c, disable_licm=False): a loop condition with a scheduling
// hint. Tessera's loop-invariant code motion does not take per-loop hints,
// so the hint is checked and the condition is the value.
SVal condition(Lowerer &l, A &a) {
  l.constBool(a["disable_licm"], a.locOf("disable_licm"), "disable_licm");
  return a["arg"];
}

SVal assume(Lowerer &l, A &a) {
  SVal c = a["cond"];
  if (c.isConst()) {
    if (!l.constBool(c, a.loc, "the assumption"))
      l.error(a.loc, "tl.assume was given a condition that is false at compile time");
    return SVal::none();
  }
  Value *v = l.cast(l.tensorArg(c, a.loc, "the assumption"), Type::scalar(DType::I1), a.loc);
  l.builder().setLoc(a.loc);
  l.builder().create(OpCode::Assume, {v}, {});
  // The compiler acts on assumptions (descriptors-from-pointers reads a box
  // of rows assumed >= 0 with the copy engine), so a false one changes what
  // a kernel reads: with debug on it stops the kernel as device_assert does.
  if (l.options().debug)
    l.builder().create(OpCode::Assert, {v}, {},
                       {{"message", std::string("its condition is false, and the compiler may have "
                                                "relied on it")},
                        {"what", std::string("tl.assume")}});
  return SVal::none();
}

SVal debugBarrier(Lowerer &l, A &a) {
  l.builder().setLoc(a.loc);
  l.builder().create(OpCode::Barrier, {}, {});
  return SVal::none();
}

// ---- Python builtins on compile-time values -------------------------------------------------

SVal pyMinMax(Lowerer &l, A &a, bool isMax) {
  std::vector<SVal> vals = a.varargs;
  if (vals.size() == 1 && vals[0].kind == SVal::Kind::Tuple) vals = vals[0].elems;
  if (vals.empty()) l.error(a.loc, a.name + "() expects at least one argument");
  // Python's min/max of numbers depend on the order where a NaN or a -0.0
  // is among them; Triton refuses those (its builtin_min/builtin_max).
  if (std::all_of(vals.begin(), vals.end(), [](const SVal &v) { return v.isConst(); }))
    for (const SVal &v : vals)
      if (v.kind == SVal::Kind::Float && (std::isnan(v.f) || (v.f == 0 && std::signbit(v.f))))
        l.error(a.loc,
                std::string("compile-time ") + (isMax ? "max" : "min") + " does not support " +
                    (std::isnan(v.f) ? "NaN values" : "negative zero"),
                "the result would depend on the order of the arguments; use tl.minimum or "
                "tl.maximum with propagate_nan, or compare explicitly");
  SVal acc = vals[0];
  for (size_t i = 1; i < vals.size(); ++i) {
    if (acc.isConst() && vals[i].isConst()) {
      bool gt = l.compare(ast::CmpOp::Gt, vals[i], acc, a.loc).i != 0;
      bool lt = l.compare(ast::CmpOp::Lt, vals[i], acc, a.loc).i != 0;
      if (isMax ? gt : lt) acc = vals[i];
      continue;
    }
    std::vector<Value *> v = promoteAll(l, {acc, vals[i]}, a.loc);
    acc = SVal::tensor(l.emit(isMax ? OpCode::Max : OpCode::Min, v, v[0]->type, a.loc,
                              {{"propagate_nan", int64_t{0}}}));
  }
  return acc;
}
SVal pyMin(Lowerer &l, A &a) {
  return pyMinMax(l, a, false);
}
SVal pyMax(Lowerer &l, A &a) {
  return pyMinMax(l, a, true);
}

SVal pyLen(Lowerer &l, A &a) {
  const SVal &v = a["obj"];
  if (v.kind == SVal::Kind::Tuple) return SVal::integer(static_cast<int64_t>(v.elems.size()));
  if (v.kind == SVal::Kind::Str) return SVal::integer(static_cast<int64_t>(v.s.size()));
  if (v.isTensor() && v.v->type.isTile()) return SVal::integer(v.v->type.shape[0]);
  l.error(a.loc, "len() is not defined for " + describe(v));
}

SVal pyInt(Lowerer &l, A &a) {
  const SVal &v = a["x"];
  if (v.kind == SVal::Kind::Float) {
    if (std::isnan(v.f)) l.error(a.loc, "cannot convert float NaN to integer");
    if (std::isinf(v.f)) l.error(a.loc, "cannot convert float infinity to integer");
    // The bound keeps the cast to 128 bits defined.
    double t = std::trunc(v.f);
    if (std::fabs(t) >= 0x1p126) return l.exactInteger(0, a.loc, /*overflowed=*/true);
    return l.exactInteger(static_cast<__int128>(t), a.loc);
  }
  if (v.kind == SVal::Kind::Bool) return SVal::integer(v.i);
  if (v.isIntLike()) return v;  // keeps a uint64's value
  if (v.isTensor())
    l.error(a.loc, "int() needs a compile-time value", "use x.to(tl.int32) for tensors");
  l.error(a.loc, "int() is not defined for " + describe(v));
}

SVal pyFloat(Lowerer &l, A &a) {
  const SVal &v = a["x"];
  if (v.isNumber()) return SVal::floating(v.asDouble());
  if (v.kind == SVal::Kind::Str) {
    // float("inf"), float("-inf"), float("nan") and numeric strings, as Python.
    std::string t;
    for (char c : v.s) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t b = t.find_first_not_of(" \t"), e = t.find_last_not_of(" \t");
    t = b == std::string::npos ? "" : t.substr(b, e - b + 1);
    bool neg = !t.empty() && t[0] == '-';
    std::string body = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? t.substr(1) : t;
    if (body == "inf" || body == "infinity") return SVal::floating(neg ? -INFINITY : INFINITY);
    if (body == "nan") return SVal::floating(NAN);
    char *end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (!t.empty() && end && *end == 0) return SVal::floating(d);
    l.error(a.loc, "could not convert string to float: '" + v.s + "'");
  }
  if (v.isTensor())
    l.error(a.loc, "float() needs a compile-time value", "use x.to(tl.float32) for tensors");
  l.error(a.loc, "float() is not defined for " + describe(v));
}

SVal pyBool(Lowerer &l, A &a) {
  const SVal &v = a["x"];
  if (v.isConst()) return SVal::boolean(l.unary(ast::UnaryOp::Not, v, a.loc).i == 0);
  l.error(a.loc, "bool() needs a compile-time value", "use x != 0 for tensors");
}

SVal pyAbs(Lowerer &l, A &a) {
  const SVal &v = a["x"];
  if (v.kind == SVal::Kind::Float) return SVal::floating(std::fabs(v.f));
  if (v.isIntLike()) return l.exactInteger(v.wide() < 0 ? -v.wide() : v.wide(), a.loc);
  return absFn(l, a);
}

// range(), tl.range() and tl.static_range() are lowered by the for-loop
// statement (lower_control.cpp); anywhere else they are an error.
SVal pyRange(Lowerer &l, A &a) {
  std::string name = a.name.starts_with("builtins.") ? a.name.substr(9) : a.name;
  l.error(a.loc, name + "() can only be used as the iterable of a for loop",
          "write 'for i in " + name + "(...):'");
}

SVal pyPrint(Lowerer &l, A &a) {
  return staticPrint(l, a);
}

// getattr(obj, "name"[, default]) and hasattr(obj, "name"): the attribute
// lookup `obj.name` does, with a compile-time name. A lookup that fails is
// a compile error caught here; it emits nothing that stays live.
SVal pyGetattr(Lowerer &l, A &a) {
  const std::vector<SVal> &args = a.varargs;
  if (args.size() != 2 && args.size() != 3)
    l.error(a.loc, "getattr() takes 2 or 3 arguments, got " + std::to_string(args.size()));
  std::string name = l.constStr(args[1], a.loc, "the attribute name of getattr()");
  if (args.size() == 2) return l.attribute(args[0], name, a.loc);
  try {
    return l.attribute(args[0], name, a.loc);
  } catch (const CompileError &) {
    return args[2];
  }
}

SVal pyHasattr(Lowerer &l, A &a) {
  std::string name = l.constStr(a["name"], a.loc, "the attribute name of hasattr()");
  try {
    l.attribute(a["obj"], name, a.loc);
    return SVal::boolean(true);
  } catch (const CompileError &) {
    return SVal::boolean(false);
  }
}

// isinstance(obj, cls) decided at compile time: cls is tl.tensor,
// tl.tensor_descriptor, tl.constexpr, tl.constexpr_type, tl.dtype, int,
// float, bool, str, tuple (tl.tuple), a namedtuple class or a tuple of them (Triton's attention
// tutorial takes a descriptor or a pointer and tests which).
bool isInstance(Lowerer &l, const SVal &obj, const SVal &cls, SourceLoc loc) {
  if (cls.kind == SVal::Kind::Tuple) {
    for (const SVal &c : cls.elems)
      if (isInstance(l, obj, c, loc)) return true;
    return false;
  }
  using K = SVal::Kind;
  const std::string name = cls.kind == K::Builtin ? cls.s : std::string();
  // A number bound by a plain assignment is a scalar tensor in Triton.
  if (obj.assigned) return name == "tl.tensor";
  if (name == "tl.tensor") return obj.kind == K::Tensor;
  if (name == "tl.tensor_descriptor") return obj.kind == K::TensorDesc;
  if (name == "tl.constexpr") return obj.isConst() && obj.kind != K::Tensor;
  if (name == "tl.constexpr_type") return obj.kind == K::ConstexprType;
  if (name == "tl.dtype") return obj.kind == K::DType;
  if (name == "tl.pointer_type") return obj.kind == K::DType && obj.i != 0;
  if (name == "builtins.int") return obj.kind == K::Int || obj.kind == K::Bool;
  if (name == "builtins.float") return obj.kind == K::Float;
  if (name == "builtins.bool") return obj.kind == K::Bool;
  if (name == "builtins.str") return obj.kind == K::Str;
  if (name == "builtins.tuple" || name == "builtins.list" || name == "tl.tuple")
    return obj.kind == K::Tuple;
  // A namedtuple class: a tuple built by it (or passed as one of it).
  if (cls.kind == K::TupleType) return obj.kind == K::Tuple && obj.s == cls.s;
  l.error(
      loc, "isinstance() in a kernel cannot test against " + describe(cls),
      "test against tl.tensor, tl.tensor_descriptor, tl.constexpr, tl.constexpr_type, tl.dtype, "
      "tl.pointer_type, int, float, bool, str, tuple or a namedtuple class (decided when the "
      "kernel compiles)");
}

SVal pyIsinstance(Lowerer &l, A &a) {
  return SVal::boolean(isInstance(l, a["obj"], a["classinfo"], a.locOf("classinfo")));
}

// tl.pointer_type(dtype): the dtype of pointers to `element_ty` (a dtype
// SVal marked as a pointer, as `ptr.dtype` gives).
SVal pointerType(Lowerer &l, A &a) {
  SVal d = SVal::dtypeVal(l.constDType(a["element_ty"], a.locOf("element_ty"), "element_ty"));
  if (l.constInt(a["address_space"], a.locOf("address_space"), "address_space") != 1)
    l.error(a.locOf("address_space"), "only global pointers (address_space=1) are supported");
  d.i = 1;
  return d;
}

// tl.aggregate_replace(obj, field=value, ...): Triton's copy of an aggregate
// instance with some fields changed (instances are values, so `obj` keeps its own).
SVal aggregateReplace(Lowerer &l, A &a) {
  return l.replaceFields(a["obj"], a.locOf("obj"), a.extraKwargs, a.extraKwargLocs);
}

// tl.tensor and tl.tensor_descriptor name classes (for isinstance); kernels
// get their values from operations, never by constructing one.
SVal classCall(Lowerer &l, A &a) {
  l.error(a.loc, a.name + " cannot be constructed in a kernel",
          a.name == "tl.tensor" ? "make tensors with tl.arange, tl.full, tl.zeros or tl.load"
                                : "make descriptors with tl.make_tensor_descriptor");
}

}  // namespace

std::vector<BuiltinDef> coreBuiltins() {
  return {
      {"tl.program_id", {"axis"}, programId},
      {"tl.num_programs", {"axis"}, numPrograms},
      {"tl.arange", {"start", "end"}, arange},
      {"tl.zeros", {"shape", "dtype"}, zeros},
      {"tl.full", {"shape", "value", "dtype"}, fullFn},
      {"tl.zeros_like", {"input", "dtype=None"}, zerosLike},
      {"tl.cast", {"input", "dtype", "fp_downcast_rounding=None", "bitcast=False"}, castFn},
      {"tensor.to", {"self", "dtype", "fp_downcast_rounding=None", "bitcast=False"}, toMethod},
      {"tensor.item", {"self"}, itemMethod},
      {"tl.load",
       {"pointer", "mask=None", "other=None", "boundary_check=()", "padding_option=''",
        "cache_modifier=''", "eviction_policy=''", "volatile=False"},
       load},
      {"tl.store",
       {"pointer", "value", "mask=None", "boundary_check=()", "cache_modifier=''",
        "eviction_policy=''"},
       store},
      {"tl.exp", {"x"}, unaryMath<OpCode::Exp, true>},
      {"tl.exp2", {"x"}, unaryMath<OpCode::Exp2, true>},
      {"tl.log", {"x"}, unaryMath<OpCode::Log, true>},
      {"tl.log2", {"x"}, unaryMath<OpCode::Log2, true>},
      {"tl.sqrt", {"x"}, unaryMath<OpCode::Sqrt, true>},
      {"tl.sqrt_rn", {"x"}, sqrtRn},
      {"tl.rsqrt", {"x"}, unaryMath<OpCode::Rsqrt, true>},
      {"tl.sin", {"x"}, unaryMath<OpCode::Sin, true>},
      {"tl.cos", {"x"}, unaryMath<OpCode::Cos, true>},
      {"tl.erf", {"x"}, unaryMath<OpCode::Erf, true>},
      {"tl.floor", {"x"}, unaryMath<OpCode::Floor, true>},
      {"tl.ceil", {"x"}, unaryMath<OpCode::Ceil, true>},
      {"tl.abs", {"x"}, absFn},
      {"tl.sigmoid", {"x"}, sigmoid},
      {"tl.fdiv", {"x", "y", "ieee_rounding=False"}, fdiv},
      {"tl.div_rn", {"x", "y"}, fdiv},
      {"tl.fma", {"x", "y", "z"}, fma},
      {"tl.umulhi", {"x", "y"}, umulhi},
      {"tl.cdiv", {"x", "div"}, cdiv},
      {"tl.swizzle2d", {"i", "j", "size_i", "size_j", "size_g"}, swizzle2d},
      {"triton.cdiv", {"x", "y"}, cdiv},
      {"tl.maximum", {"x", "y", "propagate_nan=None"}, maximum},
      {"tl.minimum", {"x", "y", "propagate_nan=None"}, minimum},
      {"tl.clamp", {"x", "min", "max", "propagate_nan=None"}, clamp},
      {"tl.where", {"condition", "x", "y"}, where},
      {"tl.constexpr", {"value"}, constexprFn},
      {"tl.tuple", {"args", "type=None"}, tupleFn},
      {"tl.constexpr_type", {"value"}, constexprTypeFn},
      {"triton.next_power_of_2", {"n"}, nextPow2},
      {"tl.static_print", {"*values"}, staticPrint},
      {"tl.static_assert", {"cond", "msg=''"}, staticAssert},
      {"tl.multiple_of", {"input", "values"}, multipleOf},
      {"tl.max_contiguous", {"input", "values"}, maxContiguous},
      {"tl.max_constancy", {"input", "values"}, maxConstancy},
      {"tl.assume", {"cond"}, assume},
      {"tl.condition", {"arg", "disable_licm=False"}, condition},
      {"tl.debug_barrier", {}, debugBarrier},
      {"builtins.min", {"*args"}, pyMin},
      {"builtins.max", {"*args"}, pyMax},
      {"builtins.len", {"obj"}, pyLen},
      {"builtins.list", {"iterable=None"}, pyListOrTuple},
      {"builtins.tuple", {"iterable=None"}, pyListOrTuple},
      {"builtins.int", {"x"}, pyInt},
      {"builtins.float", {"x"}, pyFloat},
      {"builtins.bool", {"x"}, pyBool},
      {"builtins.abs", {"x"}, pyAbs},
      {"builtins.range", {"*args"}, pyRange},
      {"tl.range", {"*args"}, pyRange},
      {"tl.static_range", {"*args"}, pyRange},
      {"builtins.print", {"*values"}, pyPrint},
      {"builtins.isinstance", {"obj", "classinfo"}, pyIsinstance},
      {"tl.tensor", {"*args"}, classCall},
      {"tl.pointer_type", {"element_ty", "address_space=1", "const=False"}, pointerType},
      {"tl.aggregate_replace", {"obj", "**changes"}, aggregateReplace},
      {"tl.tensor_descriptor", {"*args"}, classCall},
      {"builtins.getattr", {"*args"}, pyGetattr},
      {"builtins.hasattr", {"obj", "name"}, pyHasattr},
  };
}

}  // namespace tessera::frontend
