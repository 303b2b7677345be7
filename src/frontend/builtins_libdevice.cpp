// Builtins: the functions of tl.extra.libdevice (Triton's
// python/triton/language/extra/cuda/libdevice.py), with Triton's names,
// parameters (arg0, arg1, ...) and argument dtypes.
//
// Contract: each function lowers to a composition of exact Tile IR ops
// (libdevice_math.h), so the interpreter and the GPU compute the same bits
// and no back end knows libdevice. float32 functions are computed in
// float64 and rounded once; the float64 algorithms keep their results within
// libdevice's documented ulp bounds (the CUDA Math API appendix), most by
// double-double arithmetic. The fast_* functions are the exception: they
// are the hardware approximations tl.exp & co. use (the interpreter computes
// them exactly), as CUDA's __expf & co. are.
//
// Argument dtypes follow Triton's extern_elementwise: the operands'
// dtypes must match one of the function's signatures exactly, or else match
// one after Triton's usual promotion; anything else is an error that lists
// the signatures.
#include <cmath>
#include <string>

#include "frontend/builtin_util.h"
#include "frontend/libdevice_math.h"

namespace tessera::frontend {

namespace {

using namespace ld;

struct Overload {
  std::vector<DType> args;
  DType result;
};
using Sig = std::vector<Overload>;
// An implementation gets the operands (broadcast, in the matched dtypes)
// and the result dtype.
using Impl = V (*)(MathBuilder &, const std::vector<V> &, DType);

constexpr DType F32 = DType::F32, F64 = DType::F64, I32 = DType::I32, I64 = DType::I64,
                U32 = DType::U32, U64 = DType::U64, I1 = DType::I1;

const Sig kF1 = {{{F32}, F32}, {{F64}, F64}};
const Sig kF2 = {{{F32, F32}, F32}, {{F64, F64}, F64}};
const Sig kF3 = {{{F32, F32, F32}, F32}, {{F64, F64, F64}, F64}};
const Sig kF4 = {{{F32, F32, F32, F32}, F32}, {{F64, F64, F64, F64}, F64}};
const Sig kF32 = {{{F32}, F32}};
const Sig kF32x2 = {{{F32, F32}, F32}};
const Sig kAbs = {{{I32}, I32}, {{I64}, I64}, {{F32}, F32}, {{F64}, F64}};
const Sig kPow = {{{F32, I32}, F32}, {{F64, I32}, F64}, {{F32, F32}, F32}, {{F64, F64}, F64}};
const Sig kLdexp = {{{F32, I32}, F32}, {{F64, I32}, F64}};
const Sig kFtoI32 = {{{F32}, I32}, {{F64}, I32}};
const Sig kFtoI64 = {{{F32}, I64}, {{F64}, I64}};
const Sig kFtoI1 = {{{F32}, I1}, {{F64}, I1}};
const Sig kF32toI32 = {{{F32}, I32}};
const Sig kF32toI64 = {{{F32}, I64}};
const Sig kF64toF32 = {{{F64}, F32}};
const Sig kF64toI32 = {{{F64}, I32}};
const Sig kF64toI64 = {{{F64}, I64}};
const Sig kI32toF32 = {{{I32}, F32}};
const Sig kU32toF32 = {{{U32}, F32}};
const Sig kI32toF64 = {{{I32}, F64}};
const Sig kU32toF64 = {{{U32}, F64}};
const Sig kI64toF32 = {{{I64}, F32}};
const Sig kU64toF32 = {{{U64}, F32}};
const Sig kI64toF64 = {{{I64}, F64}};
const Sig kU64toF64 = {{{U64}, F64}};
const Sig kHiLo = {{{I32, I32}, F64}};
const Sig kIntBits = {{{I32}, I32}, {{I64}, I32}};
const Sig kBrev = {{{I32}, I32}, {{I64}, I64}};
const Sig kBytePerm = {{{I32, I32, I32}, I32}};
const Sig kMulhi = {{{I32, I32}, I32}, {{U32, U32}, U32}, {{I64, I64}, I64}, {{U64, U64}, U64}};
const Sig kMul24 = {{{I32, I32}, I32}, {{U32, U32}, U32}};
const Sig kSad = {{{I32, I32, U32}, I32}, {{U32, U32, U32}, U32}};

std::string sigText(const std::vector<DType> &d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::string(signatureName(d[i]));
  return s + ")";
}

const Overload *match(const Sig &sig, const std::vector<Value *> &vals) {
  for (const Overload &o : sig) {
    bool ok = o.args.size() == vals.size();
    for (size_t i = 0; ok && i < vals.size(); ++i)
      ok = !vals[i]->type.isPtrLike() && vals[i]->type.dtype == o.args[i];
    if (ok) return &o;
  }
  return nullptr;
}

SVal dispatch(Lowerer &l, CallArgs &a, const Sig &sig, Impl impl) {
  std::vector<Value *> vals;
  for (size_t i = 0; i < a.values.size(); ++i)
    vals.push_back(
        l.tensorArg(a.values[i], a.locs[i], "argument " + a.params[i] + " of " + a.name));
  const Overload *o = match(sig, vals);
  if (!o) {
    // Triton promotes the operands to a common dtype and tries again.
    bool anyPtr = false;
    for (Value *v : vals) anyPtr |= v->type.isPtrLike();
    if (!anyPtr) {
      std::vector<SVal> svals;
      for (Value *v : vals) svals.push_back(SVal::tensor(v));
      std::vector<Value *> promoted = promoteAll(l, svals, a.loc);
      if ((o = match(sig, promoted))) vals = promoted;
    }
  }
  if (!o) {
    std::vector<DType> got;
    for (Value *v : vals) got.push_back(v->type.dtype);
    std::string expected;
    for (const Overload &s : sig) expected += (expected.empty() ? "" : ", ") + sigText(s.args);
    l.error(a.loc,
            a.name + ": input arg type does not match: got " + sigText(got) + ", expected one of " +
                expected,
            "convert the arguments first, e.g. x.to(tl.float32)");
  }
  std::vector<int64_t> shape;
  for (Value *v : vals) shape = l.broadcastShapes(shape, v->type.shape, a.loc);
  MathBuilder m(l, a.loc, shape);
  std::vector<V> args;
  for (Value *v : vals) args.push_back(m.wrap(l.broadcastTo(v, shape, a.loc)));
  V r = cvt(impl(m, args, o->result), o->result);
  return SVal::tensor(r.v);
}

template <const Sig &S, Impl F>
SVal call(Lowerer &l, CallArgs &a) {
  return dispatch(l, a, S, F);
}

// ---- implementation shapes ------------------------------------------------------------------

// A float64 algorithm, float32 operands converted to it and the result back.
template <V (*F)(const V &)>
V viaF64(MathBuilder &, const std::vector<V> &a, DType r) {
  return cvt(F(cvt(a[0], F64)), r);
}
template <V (*F)(const V &, const V &)>
V viaF64x2(MathBuilder &, const std::vector<V> &a, DType r) {
  return cvt(F(cvt(a[0], F64), cvt(a[1], F64)), r);
}
template <V (*F)(const V &, bool)>
V trig(MathBuilder &, const std::vector<V> &a, DType r) {
  return cvt(F(cvt(a[0], F64), a[0].isF32()), r);
}
template <V (*F)(const std::vector<V> &)>
V norm(MathBuilder &, const std::vector<V> &a, DType r) {
  std::vector<V> xs;
  for (const V &v : a) xs.push_back(cvt(v, F64));
  return cvt(F(xs), r);
}

// A function computed in the operands' own dtype.
template <V (*F)(const V &)>
V same(MathBuilder &, const std::vector<V> &a, DType) {
  return F(a[0]);
}
template <V (*F)(const V &, const V &)>
V same2(MathBuilder &, const std::vector<V> &a, DType) {
  return F(a[0], a[1]);
}
template <V (*F)(const V &, const V &, const V &)>
V same3(MathBuilder &, const std::vector<V> &a, DType) {
  return F(a[0], a[1], a[2]);
}

// ---- arithmetic ----------------------------------------------------------------------------

template <Rnd R>
V add(MathBuilder &, const std::vector<V> &a, DType) {
  return addRounded(a[0], a[1], R);
}
template <Rnd R>
V sub(MathBuilder &, const std::vector<V> &a, DType) {
  return addRounded(a[0], -a[1], R);
}
template <Rnd R>
V mul(MathBuilder &, const std::vector<V> &a, DType) {
  return mulRounded(a[0], a[1], R);
}
template <Rnd R>
V div(MathBuilder &, const std::vector<V> &a, DType) {
  return divRounded(a[0], a[1], R);
}
template <Rnd R>
V rcp(MathBuilder &, const std::vector<V> &a, DType) {
  return divRounded(lit(a[0], 1.0), a[0], R);
}
template <Rnd R>
V sqrtR(MathBuilder &, const std::vector<V> &a, DType) {
  return sqrtRounded(a[0], R);
}
template <Rnd R>
V fmaR(MathBuilder &, const std::vector<V> &a, DType) {
  return fmaRounded(a[0], a[1], a[2], R);
}

// The fast functions: Tile IR's approximate ops (the GPU's ex2/lg2/sin/cos
// .approx and div.full, as CUDA's __expf & co.), no precise flag.
V approx(MathBuilder &m, OpCode c, const std::vector<V> &in) {
  std::vector<Value *> vals;
  for (const V &v : in) vals.push_back(v.v);
  return m.wrap(m.lowerer().emit(c, vals, in[0].v->type, m.loc()));
}
template <OpCode C>
V fast(MathBuilder &m, const std::vector<V> &a, DType) {
  return approx(m, C, {a[0]});
}
template <OpCode C>
V fast2(MathBuilder &m, const std::vector<V> &a, DType) {
  return approx(m, C, {a[0], a[1]});
}
V fastExp10(MathBuilder &m, const std::vector<V> &a, DType) {
  return approx(m, OpCode::Exp2, {approx(m, OpCode::Mul, {a[0], lit(a[0], 0x1.a934f0p+1)})});
}
V fastLog10(MathBuilder &m, const std::vector<V> &a, DType) {
  return approx(m, OpCode::Mul, {approx(m, OpCode::Log2, {a[0]}), lit(a[0], 0x1.344136p-2)});
}
V fastTan(MathBuilder &m, const std::vector<V> &a, DType) {
  return approx(m, OpCode::Div, {approx(m, OpCode::Sin, {a[0]}), approx(m, OpCode::Cos, {a[0]})});
}
V fastPow(MathBuilder &m, const std::vector<V> &a, DType) {
  V l = approx(m, OpCode::Log2, {a[0]});
  return approx(m, OpCode::Exp2, {approx(m, OpCode::Mul, {a[1], l})});
}

V absImpl(MathBuilder &m, const std::vector<V> &a, DType r) {
  return m.op(OpCode::Abs, {a[0]}, r);
}

V powImpl(MathBuilder &, const std::vector<V> &a, DType r) {
  return cvt(ld::pow(cvt(a[0], F64), cvt(a[1], F64)), r);
}

V ldexpImpl(MathBuilder &, const std::vector<V> &a, DType) {
  return ld::ldexp(a[0], a[1]);
}

template <bool Remainder>
V fmodImpl(MathBuilder &, const std::vector<V> &a, DType) {
  return fmodOrRemainder(a[0], a[1], Remainder);
}

V rsqrtDD(const V &x) {
  // 1 / sqrt(x) in double-double: within 0.5 ulp and a hair.
  V s = sqrt(x);
  DD sq = {s, fma(-s, s, x) / (s * 2.0)};
  V r = ddRound(ddDiv(ddConst(x, 1.0), sq));
  r = sel(eq(x, 0.0), copySign(lit(x, INFINITY), x), r);
  r = sel(eq(x, INFINITY), lit(x, 0.0), r);
  return sel(x < 0.0, lit(x, NAN), r);
}

V rsqrtRn(MathBuilder &, const std::vector<V> &a, DType) {
  // float32, correctly rounded: 1 / sqrt(x) in double-double, rounded once.
  V x = cvt(a[0], F64);
  V s = sqrt(x);
  DD q = ddDiv(ddConst(x, 1.0), DD{s, fma(-s, s, x) / (s * 2.0)});
  V r = roundToF32(q);
  r = sel(eq(x, 0.0), copySign(lit(r, INFINITY), a[0]), r);
  r = sel(eq(x, INFINITY), lit(r, 0.0), r);
  return sel(x < 0.0, lit(r, NAN), sel(isNan(x), a[0], r));
}

// ---- classification ---------------------------------------------------------------------------

V isNanImpl(MathBuilder &, const std::vector<V> &a, DType) {
  return isNan(a[0]);
}
V isInfImpl(MathBuilder &, const std::vector<V> &a, DType) {
  return isInf(a[0]);
}
V isFiniteImpl(MathBuilder &, const std::vector<V> &a, DType) {
  return cvt(isFinite(a[0]), I32);
}
V signBitImpl(MathBuilder &, const std::vector<V> &a, DType) {
  return cvt(signBit(a[0]), I32);
}

// ---- conversions -------------------------------------------------------------------------------

template <Rnd R>
V d2f(MathBuilder &, const std::vector<V> &a, DType) {
  return floatToFloatRounded(a[0], F32, R);
}
// float -> integer of dtype To, returned as the (same width) result dtype.
template <Rnd R, DType To>
V f2i(MathBuilder &, const std::vector<V> &a, DType r) {
  return bitcast(floatToIntRounded(a[0], To, R), r);
}
template <Rnd R>
V i2f(MathBuilder &, const std::vector<V> &a, DType r) {
  return intToFloatRounded(a[0], r, R);
}
V llround(MathBuilder &, const std::vector<V> &a, DType) {
  return cvt(roundHalfAway(a[0]), I64);
}
template <DType To>
V reinterpret(MathBuilder &, const std::vector<V> &a, DType r) {
  return bitcast(bitcast(a[0], To), r);
}
V hiLoToDouble(MathBuilder &, const std::vector<V> &a, DType) {
  V hi = cvt(a[0], I64) << 32;
  V lo = cvt(bitcast(a[1], U32), I64);
  return bitcast(hi | lo, F64);
}
V doubleHi(MathBuilder &, const std::vector<V> &a, DType) {
  return cvt(bitcast(a[0], I64) >> 32, I32);
}
V doubleLo(MathBuilder &, const std::vector<V> &a, DType) {
  return cvt(bitcast(a[0], I64), I32);  // the low 32 bits
}

// ---- integers ---------------------------------------------------------------------------------

V bytePermImpl(MathBuilder &, const std::vector<V> &a, DType) {
  return bytePerm(a[0], a[1], a[2]);
}
V sadImpl(MathBuilder &, const std::vector<V> &a, DType) {
  return sad(a[0], a[1], a[2]);
}
template <bool Up>
V haddImpl(MathBuilder &, const std::vector<V> &a, DType) {
  return hadd(a[0], a[1], Up);
}

}  // namespace

std::vector<BuiltinDef> libdeviceBuiltins() {
  return {
      // exponentials and logarithms
      {"libdevice.exp", {"arg0"}, call<kF1, viaF64<ld::exp>>},
      {"libdevice.exp2", {"arg0"}, call<kF1, viaF64<ld::exp2>>},
      {"libdevice.exp10", {"arg0"}, call<kF1, viaF64<ld::exp10>>},
      {"libdevice.expm1", {"arg0"}, call<kF1, viaF64<ld::expm1>>},
      {"libdevice.log", {"arg0"}, call<kF1, viaF64<ld::log>>},
      {"libdevice.log2", {"arg0"}, call<kF1, viaF64<ld::log2>>},
      {"libdevice.log10", {"arg0"}, call<kF1, viaF64<ld::log10>>},
      {"libdevice.log1p", {"arg0"}, call<kF1, viaF64<ld::log1p>>},
      {"libdevice.pow", {"arg0", "arg1"}, call<kPow, powImpl>},
      {"libdevice.sinh", {"arg0"}, call<kF1, viaF64<ld::sinh>>},
      {"libdevice.cosh", {"arg0"}, call<kF1, viaF64<ld::cosh>>},
      {"libdevice.tanh", {"arg0"}, call<kF1, viaF64<ld::tanh>>},
      {"libdevice.asinh", {"arg0"}, call<kF1, viaF64<ld::asinh>>},
      {"libdevice.acosh", {"arg0"}, call<kF1, viaF64<ld::acosh>>},
      {"libdevice.atanh", {"arg0"}, call<kF1, viaF64<ld::atanh>>},
      {"libdevice.cbrt", {"arg0"}, call<kF1, viaF64<ld::cbrt>>},
      {"libdevice.rcbrt", {"arg0"}, call<kF1, viaF64<ld::rcbrt>>},
      // circular functions and norms
      {"libdevice.sin", {"arg0"}, call<kF1, trig<ld::sin>>},
      {"libdevice.cos", {"arg0"}, call<kF1, trig<ld::cos>>},
      {"libdevice.tan", {"arg0"}, call<kF1, trig<ld::tan>>},
      {"libdevice.sinpi", {"arg0"}, call<kF1, viaF64<ld::sinpi>>},
      {"libdevice.cospi", {"arg0"}, call<kF1, viaF64<ld::cospi>>},
      {"libdevice.asin", {"arg0"}, call<kF1, viaF64<ld::asin>>},
      {"libdevice.acos", {"arg0"}, call<kF1, viaF64<ld::acos>>},
      {"libdevice.atan", {"arg0"}, call<kF1, viaF64<ld::atan>>},
      {"libdevice.atan2", {"arg0", "arg1"}, call<kF2, viaF64x2<ld::atan2>>},
      {"libdevice.hypot", {"arg0", "arg1"}, call<kF2, norm<ld::hypot>>},
      {"libdevice.rhypot", {"arg0", "arg1"}, call<kF2, norm<ld::rhypot>>},
      {"libdevice.norm3d", {"arg0", "arg1", "arg2"}, call<kF3, norm<ld::hypot>>},
      {"libdevice.rnorm3d", {"arg0", "arg1", "arg2"}, call<kF3, norm<ld::rhypot>>},
      {"libdevice.norm4d", {"arg0", "arg1", "arg2", "arg3"}, call<kF4, norm<ld::hypot>>},
      {"libdevice.rnorm4d", {"arg0", "arg1", "arg2", "arg3"}, call<kF4, norm<ld::rhypot>>},
      // the error function family
      {"libdevice.erf", {"arg0"}, call<kF1, viaF64<ld::erf>>},
      {"libdevice.erfc", {"arg0"}, call<kF1, viaF64<ld::erfc>>},
      {"libdevice.erfcx", {"arg0"}, call<kF1, viaF64<ld::erfcx>>},
      {"libdevice.normcdf", {"arg0"}, call<kF1, viaF64<ld::normcdf>>},
      {"libdevice.erfinv", {"arg0"}, call<kF1, viaF64<ld::erfinv>>},
      {"libdevice.erfcinv", {"arg0"}, call<kF1, viaF64<ld::erfcinv>>},
      {"libdevice.normcdfinv", {"arg0"}, call<kF1, viaF64<ld::normcdfinv>>},
      {"libdevice.lgamma", {"arg0"}, call<kF1, viaF64<ld::lgamma>>},
      {"libdevice.tgamma", {"arg0"}, call<kF1, viaF64<ld::tgamma>>},
      {"libdevice.cyl_bessel_i0", {"arg0"}, call<kF1, viaF64<ld::besselI0>>},
      {"libdevice.cyl_bessel_i1", {"arg0"}, call<kF1, viaF64<ld::besselI1>>},
      {"libdevice.j0", {"arg0"}, call<kF1, trig<ld::besselJ0>>},
      {"libdevice.j1", {"arg0"}, call<kF1, trig<ld::besselJ1>>},
      {"libdevice.y0", {"arg0"}, call<kF1, trig<ld::besselY0>>},
      {"libdevice.y1", {"arg0"}, call<kF1, trig<ld::besselY1>>},
      {"libdevice.sqrt", {"arg0"}, call<kF1, sqrtR<Rnd::RN>>},
      {"libdevice.rsqrt", {"arg0"}, call<kF1, viaF64<rsqrtDD>>},
      {"libdevice.rsqrt_rn", {"arg0"}, call<kF32, rsqrtRn>},
      // rounding to integers and exact float functions
      {"libdevice.floor", {"arg0"}, call<kF1, same<ld::floor>>},
      {"libdevice.ceil", {"arg0"}, call<kF1, same<ld::ceil>>},
      {"libdevice.trunc", {"arg0"}, call<kF1, same<ld::trunc>>},
      {"libdevice.round", {"arg0"}, call<kF1, same<roundHalfAway>>},
      {"libdevice.rint", {"arg0"}, call<kF1, same<ld::rint>>},
      {"libdevice.nearbyint", {"arg0"}, call<kF1, same<ld::rint>>},
      {"libdevice.llrint", {"arg0"}, call<kFtoI64, f2i<Rnd::RN, I64>>},
      {"libdevice.llround", {"arg0"}, call<kFtoI64, llround>},
      {"libdevice.abs", {"arg0"}, call<kAbs, absImpl>},
      {"libdevice.copysign", {"arg0", "arg1"}, call<kF2, same2<copySign>>},
      {"libdevice.fdim", {"arg0", "arg1"}, call<kF2, same2<fdim>>},
      {"libdevice.fmod", {"arg0", "arg1"}, call<kF2, fmodImpl<false>>},
      {"libdevice.remainder", {"arg0", "arg1"}, call<kF2, fmodImpl<true>>},
      {"libdevice.nextafter", {"arg0", "arg1"}, call<kF2, same2<nextAfter>>},
      {"libdevice.ldexp", {"arg0", "arg1"}, call<kLdexp, ldexpImpl>},
      {"libdevice.scalbn", {"arg0", "arg1"}, call<kLdexp, ldexpImpl>},
      {"libdevice.ilogb", {"arg0"}, call<kFtoI32, same<ilogb>>},
      {"libdevice.logb", {"arg0"}, call<kF1, same<logb>>},
      {"libdevice.saturatef", {"arg0"}, call<kF32, same<saturate>>},
      {"libdevice.isnan", {"arg0"}, call<kFtoI1, isNanImpl>},
      {"libdevice.isinf", {"arg0"}, call<kFtoI1, isInfImpl>},
      {"libdevice.signbit", {"arg0"}, call<kFtoI32, signBitImpl>},
      {"libdevice.finitef", {"arg0"}, call<kF32toI32, isFiniteImpl>},
      {"libdevice.isfinited", {"arg0"}, call<kF64toI32, isFiniteImpl>},
      // arithmetic with a rounding direction
      {"libdevice.add_rn", {"arg0", "arg1"}, call<kF2, add<Rnd::RN>>},
      {"libdevice.add_rz", {"arg0", "arg1"}, call<kF2, add<Rnd::RZ>>},
      {"libdevice.add_rd", {"arg0", "arg1"}, call<kF2, add<Rnd::RD>>},
      {"libdevice.add_ru", {"arg0", "arg1"}, call<kF2, add<Rnd::RU>>},
      {"libdevice.sub_rn", {"arg0", "arg1"}, call<kF2, sub<Rnd::RN>>},
      {"libdevice.sub_rz", {"arg0", "arg1"}, call<kF2, sub<Rnd::RZ>>},
      {"libdevice.sub_rd", {"arg0", "arg1"}, call<kF2, sub<Rnd::RD>>},
      {"libdevice.sub_ru", {"arg0", "arg1"}, call<kF2, sub<Rnd::RU>>},
      {"libdevice.mul_rn", {"arg0", "arg1"}, call<kF2, mul<Rnd::RN>>},
      {"libdevice.mul_rz", {"arg0", "arg1"}, call<kF2, mul<Rnd::RZ>>},
      {"libdevice.mul_rd", {"arg0", "arg1"}, call<kF2, mul<Rnd::RD>>},
      {"libdevice.mul_ru", {"arg0", "arg1"}, call<kF2, mul<Rnd::RU>>},
      {"libdevice.div_rn", {"arg0", "arg1"}, call<kF2, div<Rnd::RN>>},
      {"libdevice.div_rz", {"arg0", "arg1"}, call<kF2, div<Rnd::RZ>>},
      {"libdevice.div_rd", {"arg0", "arg1"}, call<kF2, div<Rnd::RD>>},
      {"libdevice.div_ru", {"arg0", "arg1"}, call<kF2, div<Rnd::RU>>},
      {"libdevice.rcp_rn", {"arg0"}, call<kF1, rcp<Rnd::RN>>},
      {"libdevice.rcp_rz", {"arg0"}, call<kF1, rcp<Rnd::RZ>>},
      {"libdevice.rcp_rd", {"arg0"}, call<kF1, rcp<Rnd::RD>>},
      {"libdevice.rcp_ru", {"arg0"}, call<kF1, rcp<Rnd::RU>>},
      {"libdevice.sqrt_rn", {"arg0"}, call<kF1, sqrtR<Rnd::RN>>},
      {"libdevice.sqrt_rz", {"arg0"}, call<kF1, sqrtR<Rnd::RZ>>},
      {"libdevice.sqrt_rd", {"arg0"}, call<kF1, sqrtR<Rnd::RD>>},
      {"libdevice.sqrt_ru", {"arg0"}, call<kF1, sqrtR<Rnd::RU>>},
      {"libdevice.fma", {"arg0", "arg1", "arg2"}, call<kF3, fmaR<Rnd::RN>>},
      {"libdevice.fma_rn", {"arg0", "arg1", "arg2"}, call<kF3, fmaR<Rnd::RN>>},
      {"libdevice.fma_rz", {"arg0", "arg1", "arg2"}, call<kF3, fmaR<Rnd::RZ>>},
      {"libdevice.fma_rd", {"arg0", "arg1", "arg2"}, call<kF3, fmaR<Rnd::RD>>},
      {"libdevice.fma_ru", {"arg0", "arg1", "arg2"}, call<kF3, fmaR<Rnd::RU>>},
      // the fast approximations (float32)
      {"libdevice.fast_dividef", {"arg0", "arg1"}, call<kF32x2, fast2<OpCode::Div>>},
      {"libdevice.fast_expf", {"arg0"}, call<kF32, fast<OpCode::Exp>>},
      {"libdevice.fast_exp10f", {"arg0"}, call<kF32, fastExp10>},
      {"libdevice.fast_logf", {"arg0"}, call<kF32, fast<OpCode::Log>>},
      {"libdevice.fast_log2f", {"arg0"}, call<kF32, fast<OpCode::Log2>>},
      {"libdevice.fast_log10f", {"arg0"}, call<kF32, fastLog10>},
      {"libdevice.fast_sinf", {"arg0"}, call<kF32, fast<OpCode::Sin>>},
      {"libdevice.fast_cosf", {"arg0"}, call<kF32, fast<OpCode::Cos>>},
      {"libdevice.fast_tanf", {"arg0"}, call<kF32, fastTan>},
      {"libdevice.fast_powf", {"arg0", "arg1"}, call<kF32x2, fastPow>},
      // conversions
      {"libdevice.double2float_rn", {"arg0"}, call<kF64toF32, d2f<Rnd::RN>>},
      {"libdevice.double2float_rz", {"arg0"}, call<kF64toF32, d2f<Rnd::RZ>>},
      {"libdevice.double2float_rd", {"arg0"}, call<kF64toF32, d2f<Rnd::RD>>},
      {"libdevice.double2float_ru", {"arg0"}, call<kF64toF32, d2f<Rnd::RU>>},
      {"libdevice.double2int_rn", {"arg0"}, call<kF64toI32, f2i<Rnd::RN, I32>>},
      {"libdevice.double2int_rz", {"arg0"}, call<kF64toI32, f2i<Rnd::RZ, I32>>},
      {"libdevice.double2int_rd", {"arg0"}, call<kF64toI32, f2i<Rnd::RD, I32>>},
      {"libdevice.double2int_ru", {"arg0"}, call<kF64toI32, f2i<Rnd::RU, I32>>},
      {"libdevice.double2uint_rn", {"arg0"}, call<kF64toI32, f2i<Rnd::RN, U32>>},
      {"libdevice.double2uint_rz", {"arg0"}, call<kF64toI32, f2i<Rnd::RZ, U32>>},
      {"libdevice.double2uint_rd", {"arg0"}, call<kF64toI32, f2i<Rnd::RD, U32>>},
      {"libdevice.double2uint_ru", {"arg0"}, call<kF64toI32, f2i<Rnd::RU, U32>>},
      {"libdevice.float2int_rn", {"arg0"}, call<kF32toI32, f2i<Rnd::RN, I32>>},
      {"libdevice.float2int_rz", {"arg0"}, call<kF32toI32, f2i<Rnd::RZ, I32>>},
      {"libdevice.float2int_rd", {"arg0"}, call<kF32toI32, f2i<Rnd::RD, I32>>},
      {"libdevice.float2int_ru", {"arg0"}, call<kF32toI32, f2i<Rnd::RU, I32>>},
      {"libdevice.float2uint_rn", {"arg0"}, call<kF32toI32, f2i<Rnd::RN, U32>>},
      {"libdevice.float2uint_rz", {"arg0"}, call<kF32toI32, f2i<Rnd::RZ, U32>>},
      {"libdevice.float2uint_rd", {"arg0"}, call<kF32toI32, f2i<Rnd::RD, U32>>},
      {"libdevice.float2uint_ru", {"arg0"}, call<kF32toI32, f2i<Rnd::RU, U32>>},
      {"libdevice.float2ll_rn", {"arg0"}, call<kF32toI64, f2i<Rnd::RN, I64>>},
      {"libdevice.float2ll_rz", {"arg0"}, call<kF32toI64, f2i<Rnd::RZ, I64>>},
      {"libdevice.float2ll_rd", {"arg0"}, call<kF32toI64, f2i<Rnd::RD, I64>>},
      {"libdevice.float2ll_ru", {"arg0"}, call<kF32toI64, f2i<Rnd::RU, I64>>},
      {"libdevice.float2ull_rn", {"arg0"}, call<kF32toI64, f2i<Rnd::RN, U64>>},
      {"libdevice.float2ull_rz", {"arg0"}, call<kF32toI64, f2i<Rnd::RZ, U64>>},
      {"libdevice.float2ull_rd", {"arg0"}, call<kF32toI64, f2i<Rnd::RD, U64>>},
      {"libdevice.float2ull_ru", {"arg0"}, call<kF32toI64, f2i<Rnd::RU, U64>>},
      {"libdevice.double2ll_rn", {"arg0"}, call<kF64toI64, f2i<Rnd::RN, I64>>},
      {"libdevice.double2ll_rz", {"arg0"}, call<kF64toI64, f2i<Rnd::RZ, I64>>},
      {"libdevice.double2ll_rd", {"arg0"}, call<kF64toI64, f2i<Rnd::RD, I64>>},
      {"libdevice.double2ll_ru", {"arg0"}, call<kF64toI64, f2i<Rnd::RU, I64>>},
      {"libdevice.double2ull_rn", {"arg0"}, call<kF64toI64, f2i<Rnd::RN, U64>>},
      {"libdevice.double2ull_rz", {"arg0"}, call<kF64toI64, f2i<Rnd::RZ, U64>>},
      {"libdevice.double2ull_rd", {"arg0"}, call<kF64toI64, f2i<Rnd::RD, U64>>},
      {"libdevice.double2ull_ru", {"arg0"}, call<kF64toI64, f2i<Rnd::RU, U64>>},
      {"libdevice.int2float_rn", {"arg0"}, call<kI32toF32, i2f<Rnd::RN>>},
      {"libdevice.int2float_rz", {"arg0"}, call<kI32toF32, i2f<Rnd::RZ>>},
      {"libdevice.int2float_rd", {"arg0"}, call<kI32toF32, i2f<Rnd::RD>>},
      {"libdevice.int2float_ru", {"arg0"}, call<kI32toF32, i2f<Rnd::RU>>},
      {"libdevice.uint2float_rn", {"arg0"}, call<kU32toF32, i2f<Rnd::RN>>},
      {"libdevice.uint2float_rz", {"arg0"}, call<kU32toF32, i2f<Rnd::RZ>>},
      {"libdevice.uint2float_rd", {"arg0"}, call<kU32toF32, i2f<Rnd::RD>>},
      {"libdevice.uint2float_ru", {"arg0"}, call<kU32toF32, i2f<Rnd::RU>>},
      {"libdevice.int2double_rn", {"arg0"}, call<kI32toF64, i2f<Rnd::RN>>},
      {"libdevice.uint2double_rn", {"arg0"}, call<kU32toF64, i2f<Rnd::RN>>},
      {"libdevice.ll2float_rn", {"arg0"}, call<kI64toF32, i2f<Rnd::RN>>},
      {"libdevice.ll2float_rz", {"arg0"}, call<kI64toF32, i2f<Rnd::RZ>>},
      {"libdevice.ll2float_rd", {"arg0"}, call<kI64toF32, i2f<Rnd::RD>>},
      {"libdevice.ll2float_ru", {"arg0"}, call<kI64toF32, i2f<Rnd::RU>>},
      {"libdevice.ull2float_rn", {"arg0"}, call<kU64toF32, i2f<Rnd::RN>>},
      {"libdevice.ull2float_rz", {"arg0"}, call<kU64toF32, i2f<Rnd::RZ>>},
      {"libdevice.ull2float_rd", {"arg0"}, call<kU64toF32, i2f<Rnd::RD>>},
      {"libdevice.ull2float_ru", {"arg0"}, call<kU64toF32, i2f<Rnd::RU>>},
      {"libdevice.ll2double_rn", {"arg0"}, call<kI64toF64, i2f<Rnd::RN>>},
      {"libdevice.ll2double_rz", {"arg0"}, call<kI64toF64, i2f<Rnd::RZ>>},
      {"libdevice.ll2double_rd", {"arg0"}, call<kI64toF64, i2f<Rnd::RD>>},
      {"libdevice.ll2double_ru", {"arg0"}, call<kI64toF64, i2f<Rnd::RU>>},
      {"libdevice.ull2double_rn", {"arg0"}, call<kU64toF64, i2f<Rnd::RN>>},
      {"libdevice.ull2double_rz", {"arg0"}, call<kU64toF64, i2f<Rnd::RZ>>},
      {"libdevice.ull2double_rd", {"arg0"}, call<kU64toF64, i2f<Rnd::RD>>},
      {"libdevice.ull2double_ru", {"arg0"}, call<kU64toF64, i2f<Rnd::RU>>},
      {"libdevice.int_as_float", {"arg0"}, call<kI32toF32, reinterpret<F32>>},
      {"libdevice.float_as_int", {"arg0"}, call<kF32toI32, reinterpret<I32>>},
      {"libdevice.uint_as_float", {"arg0"}, call<kU32toF32, reinterpret<F32>>},
      {"libdevice.float_as_uint", {"arg0"}, call<kF32toI32, reinterpret<I32>>},
      {"libdevice.longlong_as_double", {"arg0"}, call<kI64toF64, reinterpret<F64>>},
      {"libdevice.double_as_longlong", {"arg0"}, call<kF64toI64, reinterpret<I64>>},
      {"libdevice.hiloint2double", {"arg0", "arg1"}, call<kHiLo, hiLoToDouble>},
      {"libdevice.double2hiint", {"arg0"}, call<kF64toI32, doubleHi>},
      {"libdevice.double2loint", {"arg0"}, call<kF64toI32, doubleLo>},
      // integers
      {"libdevice.clz", {"arg0"}, call<kIntBits, same<clz>>},
      {"libdevice.popc", {"arg0"}, call<kIntBits, same<popc>>},
      {"libdevice.ffs", {"arg0"}, call<kIntBits, same<ffs>>},
      {"libdevice.brev", {"arg0"}, call<kBrev, same<brev>>},
      {"libdevice.byte_perm", {"arg0", "arg1", "arg2"}, call<kBytePerm, bytePermImpl>},
      {"libdevice.mulhi", {"arg0", "arg1"}, call<kMulhi, same2<mulhi>>},
      {"libdevice.mul24", {"arg0", "arg1"}, call<kMul24, same2<mul24>>},
      {"libdevice.sad", {"arg0", "arg1", "arg2"}, call<kSad, sadImpl>},
      {"libdevice.hadd", {"arg0", "arg1"}, call<kMul24, haddImpl<false>>},
      {"libdevice.rhadd", {"arg0", "arg1"}, call<kMul24, haddImpl<true>>},
  };
}

}  // namespace tessera::frontend
