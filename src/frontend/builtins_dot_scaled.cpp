// Builtins: tl.dot_scaled, the matrix product of two microscaled blocks (OCP
// MX formats: fp4/fp6/fp8 elements sharing one e8m0 exponent per 32 elements
// along K).
//
// Contract: lowered to existing Tile IR only (integer bit operations, casts
// and bitcasts, join/permute/reshape, select, mul, and tl.dot), so every back
// end runs it without an op of its own. It is the software emulation Triton
// documents for targets with no native MX instructions:
//   1. each operand is decoded from its storage bits to fp32 by bit
//      manipulation (keeping NaN and infinity where the format has them);
//      e2m1 bytes are first unpacked into their two values, along K or, with
//      k_pack=False, along M (lhs) or N (rhs);
//   2. with a scale, each value is multiplied by 2^(s-127), s the uint8 e8m0
//      byte of its group of 32 elements along K; s == 255 encodes NaN and
//      makes its group NaN unless fast_math=True (then it reads as infinity,
//      which is what skipping Triton's NaN check leaves);
//   3. the scaled values are rounded once to the compute type: fp16 when
//      either format is fp16, bf16 otherwise (Triton's choice). Every MX
//      element format is exact in both, so only values scaled out of the
//      compute type's range round;
//   4. tl.dot multiplies the two with an fp32 accumulator (acc when given).
// The scale is applied in fp32, not in the 16-bit type as Triton's GPU path
// does: a scale that alone falls outside fp16's range then still scales a
// value into range instead of turning it into zero or infinity.
#include <cmath>

#include "frontend/builtin_util.h"

namespace tessera::frontend {

namespace {

using A = CallArgs;

// NaN and infinity encodings of the element formats.
enum class Special {
  None,     // every code is a finite number (e2m1, e2m3, e3m2)
  AllOnes,  // S.1111.111 is NaN, no infinity (e4m3)
  Ieee,     // the largest exponent is infinity (mantissa 0) or NaN (e5m2)
};

struct Format {
  const char *name;
  int ebits, mbits;  // 0, 0 for the 16-bit formats, which need no decoding
  Special special;
  DType typed;    // the float dtype an operand may already have (U8: none)
  DType storage;  // the integer dtype holding the bits
  bool packed;    // two values per byte, the first in the low nibble
};

// Triton 3.6 documents e2m1, e4m3, e5m2, bf16 and fp16; e2m3 and e3m2 (MX
// fp6, one value in the low 6 bits of a byte) are Tessera's additions.
constexpr Format kFormats[] = {
    {"e2m1", 2, 1, Special::None, DType::U8, DType::U8, true},
    {"e2m3", 2, 3, Special::None, DType::U8, DType::U8, false},
    {"e3m2", 3, 2, Special::None, DType::U8, DType::U8, false},
    {"e4m3", 4, 3, Special::AllOnes, DType::F8E4NV, DType::U8, false},
    {"e5m2", 5, 2, Special::Ieee, DType::F8E5, DType::U8, false},
    {"bf16", 0, 0, Special::None, DType::BF16, DType::U16, false},
    {"fp16", 0, 0, Special::None, DType::F16, DType::U16, false},
};

constexpr int64_t kGroup = 32;  // elements along K per e8m0 scale

std::string shapeStr(const std::vector<int64_t> &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// Element-wise emission on tiles of one shape, with constants splat to the
// operand's shape so no Triton promotion rule can widen or sign the bits.
struct Ops {
  Lowerer &l;
  SourceLoc loc;

  Type like(Value *x, DType d) const { return x->type.withElement(Type::scalar(d)); }
  Value *k(Value *x, int64_t v) {
    l.builder().setLoc(loc);
    return l.constantInt(v, x->type);
  }
  Value *kf(Value *x, double v) {
    l.builder().setLoc(loc);
    return l.constant(v, x->type);
  }
  Value *op(OpCode c, Value *a, Value *b) { return l.emit(c, {a, b}, a->type, loc); }
  Value *opK(OpCode c, Value *a, int64_t v) { return op(c, a, k(a, v)); }
  Value *eqK(Value *a, int64_t v) {
    return l.emit(OpCode::Cmp, {a, k(a, v)}, like(a, DType::I1), loc,
                  {{"pred", std::string("eq")}});
  }
  Value *select(Value *c, Value *a, Value *b) {
    return l.emit(OpCode::Select, {c, a, b}, a->type, loc);
  }
  Value *cast(Value *x, DType d) { return l.cast(x, Type::scalar(d), loc); }
  Value *bitcast(Value *x, DType d) { return l.cast(x, Type::scalar(d), loc, true); }
  Value *reshape(Value *x, std::vector<int64_t> shape) {
    return x->type.shape == shape ? x : l.emit(OpCode::Reshape, {x}, x->type.withShape(shape), loc);
  }
  Value *permute(Value *x, std::vector<int64_t> order) {
    std::vector<int64_t> shape;
    for (int64_t d : order) shape.push_back(x->type.shape[d]);
    return l.emit(OpCode::Permute, {x}, x->type.withShape(shape), loc, {{"order", order}});
  }
  // Order of the dims that swaps the two minor ones.
  static std::vector<int64_t> swapMinor(int rank) {
    std::vector<int64_t> order;
    for (int d = 0; d < rank; ++d) order.push_back(d);
    std::swap(order[rank - 1], order[rank - 2]);
    return order;
  }
};

// Codes of `fmt` (u32) -> their fp32 values. Bits above the code's sign
// (the top two of an fp6 byte) fall out of the shifts and masks. Normal
// numbers move their exponent and mantissa into fp32's fields; subnormals
// (exponent 0) are mantissa * 2^(1-bias-mbits), computed as a float product
// so that no fp32 subnormal appears (a back end may flush those).
Value *decodeMiniFloat(Ops &o, Value *code, const Format &fmt) {
  const int e = fmt.ebits, m = fmt.mbits, bias = (1 << (e - 1)) - 1;
  Value *mag = o.opK(OpCode::And, code, (int64_t{1} << (e + m)) - 1);
  Value *signBit = o.opK(OpCode::And, o.opK(OpCode::Shl, code, 31 - e - m), int64_t{1} << 31);
  Value *expField = o.opK(OpCode::Shr, mag, m);
  Value *normalBits =
      o.opK(OpCode::Add, o.opK(OpCode::Shl, mag, 23 - m), int64_t{127 - bias} << 23);
  Value *normal = o.bitcast(normalBits, DType::F32);
  Value *sub =
      o.op(OpCode::Mul, o.cast(mag, DType::F32), o.kf(normal, std::ldexp(1.0, 1 - bias - m)));
  Value *val = o.select(o.eqK(expField, 0), sub, normal);
  if (fmt.special == Special::AllOnes) {
    val = o.select(o.eqK(mag, (int64_t{1} << (e + m)) - 1), o.kf(val, NAN), val);
  } else if (fmt.special == Special::Ieee) {
    Value *inf =
        o.select(o.eqK(mag, int64_t{(1 << e) - 1} << m), o.kf(val, INFINITY), o.kf(val, NAN));
    val = o.select(o.eqK(expField, (1 << e) - 1), inf, val);
  }
  return o.bitcast(o.op(OpCode::Or, o.bitcast(val, DType::U32), signBit), DType::F32);
}

// Two u8 tiles -> one, interleaving them along `axis` (lo first): the
// unpacked order of e2m1 bytes.
Value *interleaveAlong(Ops &o, Value *lo, Value *hi, int axis) {
  std::vector<int64_t> shape = lo->type.shape;
  int rank = lo->type.rank();
  std::vector<int64_t> joined = shape;
  joined.push_back(2);
  Value *j = o.l.emit(OpCode::Join, {lo, hi}, lo->type.withShape(joined), o.loc);
  if (axis == rank - 2) {
    // [.., P, Q, 2] -> [.., P, 2, Q] so the pair sits right after dim P.
    std::vector<int64_t> order;
    for (int d = 0; d < rank - 1; ++d) order.push_back(d);
    order.push_back(rank);
    order.push_back(rank - 1);
    j = o.permute(j, order);
  }
  shape[axis] *= 2;
  return o.reshape(j, shape);
}

struct Operand {
  const char *side;  // "lhs" or "rhs"
  const Format *fmt;
  Value *v;  // the bits (u8) for the small formats, the 16-bit float otherwise
  bool kPack;
  int kDim;                    // rank-1 for lhs, rank-2 for rhs
  int otherDim;                // M (rank-2) for lhs, N (rank-1) for rhs
  std::vector<int64_t> shape;  // unpacked: [.., M, K] or [.., K, N]
};

// A pointer, not a reference: GCC 13 takes a reference returned from a call
// with a temporary argument (the std::string) for a dangling one.
const Format *lookupFormat(Lowerer &l, A &a, const std::string &param) {
  std::string name = l.constStr(a[param], a.locOf(param), param);
  for (const Format &f : kFormats)
    if (name == f.name) return &f;
  l.error(a.locOf(param), "tl.dot_scaled: unknown " + param + " '" + name + "'",
          "use one of 'e2m1', 'e4m3', 'e5m2', 'e2m3', 'e3m2', 'bf16', 'fp16'");
}

// Checks the operand's dtype against its format and brings it to the form
// decoding starts from (Triton's _bitcast_to_fp_type).
Operand prepareOperand(Lowerer &l, A &a, const char *side, const Format &fmt) {
  std::string p = side, fp = p + "_format", kp = p + "_k_pack";
  Value *v = l.tensorArg(a[p], a.locOf(p), "the " + p + " of tl.dot_scaled");
  if (!v->type.isTile() || v->type.isPtrLike() || (v->type.rank() != 2 && v->type.rank() != 3))
    l.error(a.locOf(p), "tl.dot_scaled: " + p + " must be a 2-D tensor (or 3-D, batched), got " +
                            describe(a[p]));
  DType d = v->type.dtype;
  std::string want = std::string(tritonName(fmt.storage));
  if (fmt.typed != DType::U8) want = std::string(tritonName(fmt.typed)) + " or " + want;
  if (d != fmt.storage && d != fmt.typed)
    l.error(a.locOf(p),
            "tl.dot_scaled: " + p + "_format '" + fmt.name + "' needs " + p + " as " + want +
                ", got " + describe(a[p]),
            fmt.packed ? "pack two fp4 values per byte, the first in the low nibble, and load "
                         "them as tl.uint8"
                       : "load the raw bits with that dtype, or reinterpret them with "
                         ".to(dtype, bitcast=True)");
  Ops o{l, a.locOf(p)};
  if (fmt.ebits == 0 && d != fmt.typed) v = o.bitcast(v, fmt.typed);
  if (fmt.ebits != 0 && d != DType::U8) v = o.bitcast(v, DType::U8);
  bool kPack = l.constBool(a[kp], a.locOf(kp), kp);
  if (!kPack && !fmt.packed)
    l.error(a.locOf(kp),
            "tl.dot_scaled: " + kp + "=False applies only to e2m1 operands (got " + fp + " '" +
                fmt.name + "')",
            "only fp4 values come two per byte; leave " + kp + " at True");
  int rank = v->type.rank();
  Operand op{side, &fmt, v, kPack, 0, 0, v->type.shape};
  bool isLhs = p == "lhs";
  op.kDim = isLhs ? rank - 1 : rank - 2;
  op.otherDim = isLhs ? rank - 2 : rank - 1;
  if (fmt.packed) op.shape[kPack ? op.kDim : op.otherDim] *= 2;
  return op;
}

// The scale of `op` as fp32 factors of the unpacked operand's shape, or
// null when the scale is None.
Value *scaleFactors(Lowerer &l, A &a, const Operand &op, bool fastMath) {
  std::string p = std::string(op.side) + "_scale";
  const SVal &sv = a[p];
  if (sv.isNone()) return nullptr;
  SourceLoc loc = a.locOf(p);
  int rank = static_cast<int>(op.shape.size());
  int64_t k = op.shape[op.kDim], rows = op.shape[op.otherDim];
  std::vector<int64_t> want(op.shape.begin(), op.shape.end() - 2);
  want.push_back(rows);
  want.push_back(k / kGroup);
  std::string hint = "pass one uint8 e8m0 exponent per " + std::to_string(kGroup) +
                     " elements along K: lhs_scale as [M, K//32], rhs_scale as [N, K//32] (not "
                     "transposed)";
  if (k % kGroup != 0)
    l.error(loc,
            "tl.dot_scaled: K (" + std::to_string(k) + ") must be a multiple of " +
                std::to_string(kGroup) + " when " + p + " is given",
            "use a K block of at least 32, or pass None for no scaling");
  Value *s = l.tensorArg(sv, loc, "the " + p + " of tl.dot_scaled");
  if (!s->type.isTile() || s->type.isPtrLike() ||
      (s->type.dtype != DType::U8 && s->type.dtype != DType::I8))
    l.error(
        loc,
        "tl.dot_scaled: " + p + " must be a uint8 tensor of e8m0 exponents, got " + describe(sv),
        hint);
  if (s->type.shape != want)
    l.error(loc,
            "tl.dot_scaled: " + p + " must have shape " + shapeStr(want) + ", got " +
                shapeStr(s->type.shape),
            hint);
  Ops o{l, loc};
  Value *s32 = o.cast(o.bitcast(s, DType::U8), DType::U32);
  // 2^(s-127) is s in fp32's exponent field; s == 0 is 2^-127, a subnormal.
  Value *bits = o.select(o.eqK(s32, 0), o.k(s32, int64_t{1} << 22), o.opK(OpCode::Shl, s32, 23));
  Value *f = o.bitcast(bits, DType::F32);
  if (!fastMath) f = o.select(o.eqK(s32, 255), o.kf(f, NAN), f);
  // [.., R, G] -> [.., R, G, 32] -> [.., R, K] (lhs); the rhs's scale is
  // first swapped to [.., G, N] and grows to [.., G, 32, N] -> [.., K, N].
  bool isLhs = op.kDim == rank - 1;
  if (!isLhs) f = o.permute(f, Ops::swapMinor(rank));
  int64_t axis = isLhs ? rank : rank - 1;
  std::vector<int64_t> expanded = f->type.shape;
  expanded.insert(expanded.begin() + axis, 1);
  f = o.l.emit(OpCode::ExpandDims, {f}, f->type.withShape(expanded), loc, {{"axis", axis}});
  expanded[axis] = kGroup;
  f = l.broadcastTo(f, expanded, loc);
  return o.reshape(f, op.shape);
}

// The operand in the compute type, decoded, unpacked and scaled.
Value *upcast(Lowerer &l, A &a, const Operand &op, DType compute, bool fastMath) {
  Value *scale = scaleFactors(l, a, op, fastMath);
  Ops o{l, a.locOf(op.side)};
  const Format &fmt = *op.fmt;
  Value *v;
  if (fmt.ebits == 0) {
    if (!scale) return o.cast(op.v, compute);
    v = o.cast(op.v, DType::F32);
  } else {
    Value *code = op.v;
    if (fmt.packed) {
      Value *lo = o.opK(OpCode::And, code, 0xF), *hi = o.opK(OpCode::Shr, code, 4);
      code = interleaveAlong(o, lo, hi, op.kPack ? op.kDim : op.otherDim);
    }
    v = decodeMiniFloat(o, o.cast(code, DType::U32), fmt);
  }
  if (scale) v = o.op(OpCode::Mul, v, scale);
  return o.cast(v, compute);
}

SVal dotScaled(Lowerer &l, A &a) {
  const Format &lf = *lookupFormat(l, a, "lhs_format");
  const Format &rf = *lookupFormat(l, a, "rhs_format");
  Operand lhs = prepareOperand(l, a, "lhs", lf);
  Operand rhs = prepareOperand(l, a, "rhs", rf);
  int rank = static_cast<int>(lhs.shape.size());
  if (static_cast<int>(rhs.shape.size()) != rank)
    l.error(a.loc, "tl.dot_scaled: lhs and rhs must both be 2-D or both 3-D, got " +
                       describe(a["lhs"]) + " and " + describe(a["rhs"]));
  if (rank == 3 && lhs.shape[0] != rhs.shape[0])
    l.error(a.loc, "tl.dot_scaled: the batch dimensions differ (" + std::to_string(lhs.shape[0]) +
                       " vs " + std::to_string(rhs.shape[0]) + ")");
  if (lhs.shape[lhs.kDim] != rhs.shape[rhs.kDim])
    l.error(a.loc,
            "tl.dot_scaled: the reduction dimensions hold different numbers of elements (lhs " +
                std::to_string(lhs.shape[lhs.kDim]) + ", rhs " +
                std::to_string(rhs.shape[rhs.kDim]) + ")",
            "pass lhs as [M, K] and rhs as [K, N] elements; an e2m1 operand packed along K has "
            "K/2 bytes there");
  DType out = a["out_dtype"].isNone()
                  ? DType::F32
                  : l.constDType(a["out_dtype"], a.locOf("out_dtype"), "out_dtype");
  if (out != DType::F32)
    l.error(
        a.locOf("out_dtype"),
        std::string("tl.dot_scaled supports only out_dtype=tl.float32, got tl.") + tritonName(out),
        "accumulate in float32 and convert the result with .to()");
  std::vector<int64_t> shape = lhs.shape;
  shape[rank - 1] = rhs.shape[rank - 1];
  if (!a["acc"].isNone()) {
    Value *acc = l.tensorArg(a["acc"], a.locOf("acc"), "the accumulator of tl.dot_scaled");
    if (acc->type.shape != shape || acc->type.isPtrLike() || acc->type.dtype != DType::F32)
      l.error(a.locOf("acc"),
              "tl.dot_scaled: the accumulator must be a float32 tensor of shape " +
                  shapeStr(shape) + ", got " + describe(a["acc"]),
              "make it with tl.zeros(" + shapeStr(shape) + ", dtype=tl.float32)");
  }
  bool fastMath = l.constBool(a["fast_math"], a.locOf("fast_math"), "fast_math");
  // Triton's compute type: fp16 when either side is fp16, else bf16.
  DType compute =
      std::string(lf.name) == "fp16" || std::string(rf.name) == "fp16" ? DType::F16 : DType::BF16;
  Value *x = upcast(l, a, lhs, compute, fastMath);
  Value *y = upcast(l, a, rhs, compute, fastMath);
  return l.call(SVal::builtin("tl.dot"), {SVal::tensor(x), SVal::tensor(y)},
                {a.locOf("lhs"), a.locOf("rhs")},
                {{"acc", a["acc"]}, {"out_dtype", SVal::dtypeVal(DType::F32)}},
                {a.locOf("acc"), a.loc}, a.loc);
}

}  // namespace

std::vector<BuiltinDef> dotScaledBuiltins() {
  return {
      {"tl.dot_scaled",
       {"lhs", "lhs_scale", "lhs_format", "rhs", "rhs_scale", "rhs_format", "acc=None",
        "fast_math=False", "lhs_k_pack=True", "rhs_k_pack=True", "out_dtype=tl.float32"},
       dotScaled},
  };
}

}  // namespace tessera::frontend
