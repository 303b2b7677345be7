#include "passes/fold.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "ir/op_groups.h"
#include "support/numerics.h"

namespace tessera::passes {
namespace {

using u64 = uint64_t;

u64 u(const Scalar &s) {
  return static_cast<u64>(s.i);
}

// The smallest value of a signed dtype, sign-extended.
int64_t signedMin(DType t) {
  int w = bitWidth(t);
  return w >= 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
}

// Less-than on canonical integers of dtype t.
bool intLess(const Scalar &a, const Scalar &b, DType t) {
  return isSigned(t) ? a.i < b.i : u(a) < u(b);
}

// The storage bits of a float value of dtype t; nullopt for NaN (the payload
// is not kept in a double) and for dtypes that are not floats.
std::optional<u64> floatBits(double x, DType t) {
  if (std::isnan(x)) return std::nullopt;
  if (t == DType::F64) return std::bit_cast<u64>(x);
  if (t == DType::F32) return std::bit_cast<uint32_t>(static_cast<float>(x));
  if (auto nf = narrowFloat(t)) return nf->encode(x);
  return std::nullopt;
}

// The float value of storage bits; nullopt for NaN encodings.
std::optional<double> floatFromBits(u64 bits, DType t) {
  double v;
  if (t == DType::F64)
    v = std::bit_cast<double>(bits);
  else if (t == DType::F32)
    v = std::bit_cast<float>(static_cast<uint32_t>(bits));
  else if (auto nf = narrowFloat(t))
    v = nf->decode(static_cast<uint16_t>(bits));
  else
    return std::nullopt;
  if (std::isnan(v)) return std::nullopt;
  return v;
}

std::optional<Scalar> foldCast(const Operation &op, const Scalar &a, DType from, DType to) {
  const bool rtz = op.strAttr("rounding") == "rtz";
  if (dclass(to) == DClass::Bool) {
    // Triton's cast to int1 is a comparison with zero (NaN counts as true).
    bool nz = isFloat(from) ? (std::isnan(a.f) || a.f != 0) : a.i != 0;
    return Scalar::ofInt(nz ? 1 : 0);
  }
  if (isInt(to)) {
    if (isInt(from)) return Scalar::ofInt(wrapInt(u(a), to));
    if (std::isnan(a.f)) return std::nullopt;
    double t = std::trunc(a.f);
    int w = bitWidth(to);
    double lo = isSigned(to) ? -std::ldexp(1.0, w - 1) : 0.0;
    double hiExcl = isSigned(to) ? std::ldexp(1.0, w - 1) : std::ldexp(1.0, w);
    if (t < lo || t >= hiExcl) return std::nullopt;  // the targets disagree out of range
    if (t >= std::ldexp(1.0, 63)) return Scalar::ofInt(wrapInt(static_cast<u64>(t), to));
    return Scalar::ofInt(wrapInt(static_cast<u64>(static_cast<int64_t>(t)), to));
  }
  // To a float.
  double exact;
  double r;
  if (isInt(from)) {
    bool neg = isSigned(from) && a.i < 0;
    u64 mag = neg ? 0 - u(a) : u(a);
    if (mag < (u64{1} << 53)) {
      exact = neg ? -static_cast<double>(mag) : static_cast<double>(mag);
      r = roundToFloat(exact, to);
    } else if (to == DType::F64 || to == DType::F32) {
      // One correctly rounded conversion straight from the integer.
      r = to == DType::F64 ? (isSigned(from) ? static_cast<double>(a.i) : static_cast<double>(u(a)))
                           : (isSigned(from) ? static_cast<double>(static_cast<float>(a.i))
                                             : static_cast<double>(static_cast<float>(u(a))));
      if (rtz) return std::nullopt;
      return Scalar::ofFloat(r);
    } else {
      return std::nullopt;  // would round twice (through double)
    }
  } else {
    exact = a.f;
    r = roundToFloat(exact, to);
  }
  // Round-toward-zero is only folded when the value is exact in the target.
  if (rtz && !(r == exact || (std::isnan(r) && std::isnan(exact)))) return std::nullopt;
  return Scalar::ofFloat(r);
}

std::optional<Scalar> foldBitcast(const Scalar &a, DType from, DType to) {
  if (bitWidth(from) != bitWidth(to)) return std::nullopt;
  std::optional<u64> bits;
  if (isFloat(from))
    bits = floatBits(a.f, from);
  else
    bits = u(a) & (bitWidth(from) >= 64 ? ~u64{0} : (u64{1} << bitWidth(from)) - 1);
  if (!bits) return std::nullopt;
  if (isInt(to)) return Scalar::ofInt(wrapInt(*bits, to));
  auto v = floatFromBits(*bits, to);
  if (!v) return std::nullopt;
  return Scalar::ofFloat(*v);
}

std::optional<Scalar> foldCmp(const Operation &op, const Scalar &a, const Scalar &b, DType t) {
  std::string p = op.strAttr("pred");
  bool lt, eq, unordered = false;
  if (isFloat(t)) {
    unordered = std::isnan(a.f) || std::isnan(b.f);
    lt = a.f < b.f;
    eq = a.f == b.f;
  } else {
    lt = intLess(a, b, t);
    eq = a.i == b.i;
  }
  bool r;
  if (p == "eq")
    r = eq;
  else if (p == "ne")
    r = unordered || !eq;  // Triton's != is unordered-or-not-equal
  else if (p == "lt")
    r = lt;
  else if (p == "le")
    r = lt || eq;
  else if (p == "gt")
    r = !unordered && !lt && !eq;
  else if (p == "ge")
    r = !unordered && !lt;
  else
    return std::nullopt;
  return Scalar::ofInt(r ? 1 : 0);
}

std::optional<Scalar> foldMinMax(const Operation &op, const Scalar &a, const Scalar &b, DType t,
                                 bool isMax) {
  if (isInt(t)) return intLess(a, b, t) == isMax ? b : a;
  bool an = std::isnan(a.f), bn = std::isnan(b.f);
  if (an || bn) {
    if (op.intAttr("propagate_nan", 0) || (an && bn)) return Scalar::ofFloat(NAN);
    return an ? b : a;
  }
  // -0.0 orders below +0.0, as on both targets (PTX min/max, the interpreter).
  if (a.f == b.f) return std::signbit(a.f) == isMax ? b : a;
  return Scalar::ofFloat(isMax ? std::max(a.f, b.f) : std::min(a.f, b.f));
}

std::optional<Scalar> foldUmulhi(const Scalar &a, const Scalar &b, DType t) {
  int w = bitWidth(t);
  if (w >= 64) {
    unsigned __int128 p = static_cast<unsigned __int128>(u(a)) * u(b);
    return Scalar::ofInt(wrapInt(static_cast<u64>(p >> 64), t));
  }
  u64 mask = (u64{1} << w) - 1;
  u64 p = (u(a) & mask) * (u(b) & mask);  // fits: 2w <= 64
  return Scalar::ofInt(wrapInt(p >> w, t));
}

}  // namespace

bool sameScalar(const Scalar &a, const Scalar &b) {
  if (a.isFloat != b.isFloat) return false;
  if (a.isFloat) return std::bit_cast<u64>(a.f) == std::bit_cast<u64>(b.f);
  return a.i == b.i;
}

std::optional<Scalar> foldOp(const Operation &op, const std::vector<Scalar> &args) {
  if (op.results.size() != 1 || args.size() != op.operands.size()) return std::nullopt;
  const Type &rt = op.result(0)->type;
  if (rt.isPtrLike() || !(rt.isScalar() || rt.isTile())) return std::nullopt;
  for (Value *v : op.operands)
    if (v->type.isPtrLike()) return std::nullopt;
  const DType r = rt.dtype;
  const DType t = op.operands.empty() ? r : op.operand(0)->type.dtype;
  const bool fl = isFloat(t);
  auto I = [&](u64 v) { return std::optional<Scalar>(Scalar::ofInt(wrapInt(v, r))); };
  auto F = [&](double v) { return std::optional<Scalar>(Scalar::ofFloat(roundToFloat(v, r))); };
  // Operand dtypes must agree with the result for ops that keep the dtype;
  // anything else is invalid IR that the verifier reports, not ours to fold.
  auto n = args.size();
  const Scalar &a = n > 0 ? args[0] : Scalar{};
  const Scalar &b = n > 1 ? args[1] : Scalar{};
  const Scalar &c = n > 2 ? args[2] : Scalar{};
  switch (op.code) {
    // Shape ops: every element of the result is the operand's one value.
    case OpCode::Splat:
    case OpCode::Broadcast:
    case OpCode::ExpandDims:
    case OpCode::Reshape:
    case OpCode::Permute:
    case OpCode::Flip:
    case OpCode::Sort:
      if (n != 1 || a.isFloat != isFloat(r)) return std::nullopt;
      return a;
    case OpCode::Join:
    case OpCode::Cat:
      if (n != 2 || !sameScalar(a, b) || a.isFloat != isFloat(r)) return std::nullopt;
      return a;
    case OpCode::Gather:
      if (n != 2 || a.isFloat != isFloat(r)) return std::nullopt;
      return a;
    case OpCode::Add:
      if (n != 2) return std::nullopt;
      return fl ? F(a.f + b.f) : I(u(a) + u(b));
    case OpCode::Sub:
      if (n != 2) return std::nullopt;
      return fl ? F(a.f - b.f) : I(u(a) - u(b));
    case OpCode::Mul:
      if (n != 2) return std::nullopt;
      return fl ? F(a.f * b.f) : I(u(a) * u(b));
    case OpCode::Div:
    case OpCode::Rem: {
      if (n != 2) return std::nullopt;
      bool div = op.code == OpCode::Div;
      if (fl) {
        if (b.f == 0) return std::nullopt;  // division by zero is never folded
        return div ? F(a.f / b.f) : F(std::fmod(a.f, b.f));
      }
      if (b.i == 0) return std::nullopt;
      if (isSigned(t)) {
        if (a.i == signedMin(t) && b.i == -1) return std::nullopt;  // overflows
        return div ? I(static_cast<u64>(a.i / b.i)) : I(static_cast<u64>(a.i % b.i));
      }
      return div ? I(u(a) / u(b)) : I(u(a) % u(b));
    }
    case OpCode::Neg:
      if (n != 1) return std::nullopt;
      return fl ? F(-a.f) : I(0 - u(a));
    case OpCode::Not:
      if (n != 1 || fl) return std::nullopt;
      return I(~u(a));  // i1: wrapInt keeps the low bit, a logical not
    case OpCode::And:
      if (n != 2 || fl) return std::nullopt;
      return I(u(a) & u(b));
    case OpCode::Or:
      if (n != 2 || fl) return std::nullopt;
      return I(u(a) | u(b));
    case OpCode::Xor:
      if (n != 2 || fl) return std::nullopt;
      return I(u(a) ^ u(b));
    case OpCode::Shl:
    case OpCode::Shr: {
      if (n != 2 || fl) return std::nullopt;
      const DType st = op.operand(1)->type.dtype;
      if ((isSigned(st) && b.i < 0) || u(b) >= static_cast<u64>(bitWidth(t)))
        return std::nullopt;  // out-of-range shifts differ between targets
      if (op.code == OpCode::Shl) return I(u(a) << u(b));
      return isSigned(t) ? I(static_cast<u64>(a.i >> u(b))) : I(u(a) >> u(b));
    }
    case OpCode::Max:
    case OpCode::Min:
      if (n != 2) return std::nullopt;
      return foldMinMax(op, a, b, t, op.code == OpCode::Max);
    case OpCode::Cmp:
      if (n != 2) return std::nullopt;
      return foldCmp(op, a, b, t);
    case OpCode::Select:
      if (n != 3) return std::nullopt;
      return a.i != 0 ? b : c;
    case OpCode::Fma:
      if (n != 3) return std::nullopt;
      if (!fl) return I(u(a) * u(b) + u(c));
      // One rounding: exact for f32 (fmaf) and f64; narrower formats would
      // round twice, so they are left to run time.
      if (r == DType::F64) return Scalar::ofFloat(std::fma(a.f, b.f, c.f));
      if (r == DType::F32)
        return Scalar::ofFloat(
            std::fmaf(static_cast<float>(a.f), static_cast<float>(b.f), static_cast<float>(c.f)));
      return std::nullopt;
    case OpCode::Umulhi:
      if (n != 2 || fl) return std::nullopt;
      return foldUmulhi(a, b, t);
    case OpCode::Clamp: {
      if (n != 3) return std::nullopt;
      if (!fl) {
        Scalar lo = intLess(a, b, t) ? b : a;
        return intLess(c, lo, t) ? c : lo;
      }
      if (std::isnan(a.f) || std::isnan(b.f) || std::isnan(c.f) || b.f > c.f) return std::nullopt;
      if ((a.f == b.f && std::signbit(a.f) != std::signbit(b.f)) ||
          (a.f == c.f && std::signbit(a.f) != std::signbit(c.f)))
        return std::nullopt;
      return F(std::min(std::max(a.f, b.f), c.f));
    }
    TESSERA_UNARY_MATH_CASES : {
      if (n != 1) return std::nullopt;
      const OpCode k = op.code;
      if (k == OpCode::Floor || k == OpCode::Ceil) {
        if (!fl) return I(u(a));
        return F(k == OpCode::Floor ? std::floor(a.f) : std::ceil(a.f));
      }
      if (!fl) return std::nullopt;
      const double x = a.f;
      double y = k == OpCode::Exp     ? std::exp(x)
                 : k == OpCode::Exp2  ? (t == DType::F64 ? std::exp2(x) : num::exp2Ftz(x))
                 : k == OpCode::Log   ? std::log(x)
                 : k == OpCode::Log2  ? std::log2(x)
                 : k == OpCode::Sqrt  ? std::sqrt(x)
                 : k == OpCode::Rsqrt ? 1.0 / std::sqrt(x)
                 : k == OpCode::Sin   ? std::sin(x)
                 : k == OpCode::Cos   ? std::cos(x)
                                      : std::erf(x);
      return F(y);
    }
    case OpCode::Abs:
      if (n != 1) return std::nullopt;
      if (fl) return F(std::fabs(a.f));
      return isSigned(t) && a.i < 0 ? I(0 - u(a)) : I(u(a));
    case OpCode::Cast:
      if (n != 1) return std::nullopt;
      return foldCast(op, a, t, r);
    case OpCode::Bitcast:
      if (n != 1) return std::nullopt;
      return foldBitcast(a, t, r);
    // Not folded: no constant operands, pointers, memory, multi-result or
    // region ops, hints (kept for axis info), and control flow.
    case OpCode::Constant:
    case OpCode::ProgramId:
    case OpCode::NumPrograms:
    case OpCode::Arange:
    case OpCode::Split:
    case OpCode::Histogram:
    case OpCode::AddPtr:
    case OpCode::Load:
    case OpCode::DescriptorLoad:
    case OpCode::DescriptorStore:
    case OpCode::Store:
    case OpCode::AtomicRmw:
    case OpCode::AtomicCas:
    case OpCode::Dot:
    case OpCode::Reduce:
    case OpCode::Scan:
    case OpCode::MapElementwise:
    case OpCode::Philox:
    case OpCode::InlineAsm:
    case OpCode::ReadSreg:
    case OpCode::Print:
    case OpCode::Assert:
    case OpCode::Barrier:
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
    case OpCode::Hint:
    case OpCode::ConvertLayout:
    case OpCode::Assume:
    case OpCode::For:
    case OpCode::If:
    case OpCode::While:
    case OpCode::WarpSpecialize:
    case OpCode::Yield:
    case OpCode::Condition:
    case OpCode::Return:
    case OpCode::Call:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace tessera::passes
