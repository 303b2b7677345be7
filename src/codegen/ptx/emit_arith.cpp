// Scalar arithmetic: one element of an elementwise op (also the ops of
// reduce and scan regions), casts, and constants.
//
// Floats of 16 bits or fewer are computed in f32 and rounded to their type
// after each op, which is what the interpreter defines (for +, -, *, / and
// sqrt, f32 holds enough bits that the double rounding is exact). Math
// follows Triton's lowering: exp/exp2/log/log2 through the ex2/lg2
// approximations, `sqrt` and `/` approximate unless their `precise`
// attribute asks for the IEEE forms (sqrt_rn, div_rn, fdiv(ieee_rounding)).
#include <bit>
#include <cmath>
#include <cstdio>

#include "codegen/ptx/emitter.h"
#include "passes/pass_utils.h"
#include "support/diagnostics.h"
#include "support/numerics.h"

namespace tessera::ptx {
namespace {

bool is64(DType d) {
  return bitWidth(d) == 64;
}
// PTX integer type of an integer dtype as held in its register.
std::string ity(DType d) {
  if (is64(d)) return isUnsigned(d) ? "u64" : "s64";
  return isUnsigned(d) ? "u32" : "s32";
}
std::string bty(DType d) {
  return is64(d) ? "b64" : "b32";
}

// The elementwise ops that are one PTX instruction on their operands, per
// class of the result type (floats are computed in f32, or f64). In a
// template, %t is the type (f32, f64; s32, u32, s64, u64), %b its untyped
// form (b32, b64), %u and %s the unsigned and signed integer types of its
// width, %d the result and %0 %1 %2 the operands. Where attributes change
// the instruction an op has several rows: the first whose condition holds
// is taken (F64 for float64, Precise under {precise = 1}, Nan under
// {propagate_nan}); ops not here take several instructions (scalarOp).
enum class OperandClass { Float, Int, Bool };
enum class When { Always, F64, Precise, Nan };
struct InstrRow {
  OpCode code;
  OperandClass cls;
  When when;
  const char *text;
};
constexpr InstrRow kInstrRows[] = {
    // precise = 1 (the libdevice compositions): .rn, which ptxas never
    // contracts into an fma, so error-free transformations stay exact.
    {OpCode::Add, OperandClass::Float, When::Precise, "add.rn.%t %d, %0, %1"},
    {OpCode::Add, OperandClass::Float, When::Always, "add.%t %d, %0, %1"},
    {OpCode::Sub, OperandClass::Float, When::Precise, "sub.rn.%t %d, %0, %1"},
    {OpCode::Sub, OperandClass::Float, When::Always, "sub.%t %d, %0, %1"},
    {OpCode::Mul, OperandClass::Float, When::Precise, "mul.rn.%t %d, %0, %1"},
    {OpCode::Mul, OperandClass::Float, When::Always, "mul.%t %d, %0, %1"},
    {OpCode::Div, OperandClass::Float, When::F64, "div.rn.%t %d, %0, %1"},
    {OpCode::Div, OperandClass::Float, When::Precise, "div.rn.%t %d, %0, %1"},
    {OpCode::Div, OperandClass::Float, When::Always, "div.full.%t %d, %0, %1"},
    {OpCode::Neg, OperandClass::Float, When::Always, "neg.%t %d, %0"},
    {OpCode::Abs, OperandClass::Float, When::Always, "abs.%t %d, %0"},
    {OpCode::Max, OperandClass::Float, When::Nan, "max.NaN.%t %d, %0, %1"},
    {OpCode::Max, OperandClass::Float, When::Always, "max.%t %d, %0, %1"},
    {OpCode::Min, OperandClass::Float, When::Nan, "min.NaN.%t %d, %0, %1"},
    {OpCode::Min, OperandClass::Float, When::Always, "min.%t %d, %0, %1"},
    {OpCode::Fma, OperandClass::Float, When::Always, "fma.rn.%t %d, %0, %1, %2"},
    {OpCode::Sqrt, OperandClass::Float, When::F64, "sqrt.rn.%t %d, %0"},
    {OpCode::Sqrt, OperandClass::Float, When::Precise, "sqrt.rn.%t %d, %0"},
    {OpCode::Sqrt, OperandClass::Float, When::Always, "sqrt.approx.%t %d, %0"},
    {OpCode::Rsqrt, OperandClass::Float, When::Always, "rsqrt.approx.%t %d, %0"},
    {OpCode::Floor, OperandClass::Float, When::Always, "cvt.rmi.%t.%t %d, %0"},
    {OpCode::Ceil, OperandClass::Float, When::Always, "cvt.rpi.%t.%t %d, %0"},
    {OpCode::Add, OperandClass::Int, When::Always, "add.%t %d, %0, %1"},
    {OpCode::Sub, OperandClass::Int, When::Always, "sub.%t %d, %0, %1"},
    {OpCode::Mul, OperandClass::Int, When::Always, "mul.lo.%t %d, %0, %1"},
    {OpCode::Neg, OperandClass::Int, When::Always, "neg.%s %d, %0"},
    {OpCode::Not, OperandClass::Int, When::Always, "not.%b %d, %0"},
    {OpCode::And, OperandClass::Int, When::Always, "and.%b %d, %0, %1"},
    {OpCode::Or, OperandClass::Int, When::Always, "or.%b %d, %0, %1"},
    {OpCode::Xor, OperandClass::Int, When::Always, "xor.%b %d, %0, %1"},
    {OpCode::Max, OperandClass::Int, When::Always, "max.%t %d, %0, %1"},
    {OpCode::Min, OperandClass::Int, When::Always, "min.%t %d, %0, %1"},
    {OpCode::Umulhi, OperandClass::Int, When::Always, "mul.hi.%u %d, %0, %1"},
    {OpCode::Fma, OperandClass::Int, When::Always, "mad.lo.%t %d, %0, %1, %2"},
    // int1: and is min and product, or is max, xor is sum and difference.
    {OpCode::And, OperandClass::Bool, When::Always, "and.pred %d, %0, %1"},
    {OpCode::Min, OperandClass::Bool, When::Always, "and.pred %d, %0, %1"},
    {OpCode::Mul, OperandClass::Bool, When::Always, "and.pred %d, %0, %1"},
    {OpCode::Or, OperandClass::Bool, When::Always, "or.pred %d, %0, %1"},
    {OpCode::Max, OperandClass::Bool, When::Always, "or.pred %d, %0, %1"},
    {OpCode::Xor, OperandClass::Bool, When::Always, "xor.pred %d, %0, %1"},
    {OpCode::Add, OperandClass::Bool, When::Always, "xor.pred %d, %0, %1"},
    {OpCode::Sub, OperandClass::Bool, When::Always, "xor.pred %d, %0, %1"},
    {OpCode::Not, OperandClass::Bool, When::Always, "not.pred %d, %0"},
};

// The row for `op` on operands of class `cls` (`dtype` the type they are
// computed in), or null when the op takes more than one instruction there.
const InstrRow *instrRow(const Operation &op, OperandClass cls, DType dtype) {
  auto holds = [&](When w) {
    switch (w) {
      case When::Always:
        return true;
      case When::F64:
        return dtype == DType::F64;
      case When::Precise:
        return op.intAttr("precise") != 0;
      case When::Nan:
        return op.intAttr("propagate_nan") != 0;
    }
    return false;
  };
  for (const InstrRow &row : kInstrRows)
    if (row.code == op.code && row.cls == cls && holds(row.when)) return &row;
  return nullptr;
}

// `row`'s instruction with its placeholders filled in.
std::string instrText(const InstrRow &row, DType dtype, const std::string &result,
                      const std::vector<std::string> &operands) {
  std::string out;
  for (const char *c = row.text; *c; ++c) {
    if (*c != '%') {
      out += *c;
      continue;
    }
    switch (*++c) {
      case 't':
        out += isFloat(dtype) ? (dtype == DType::F64 ? "f64" : "f32") : ity(dtype);
        break;
      case 'b':
        out += bty(dtype);
        break;
      case 'u':
        out += is64(dtype) ? "u64" : "u32";
        break;
      case 's':
        out += is64(dtype) ? "s64" : "s32";
        break;
      case 'd':
        out += result;
        break;
      default:
        out += operands.at(static_cast<size_t>(*c - '0'));
    }
  }
  return out;
}
}  // namespace

std::string f32Imm(float f) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0f%08X", std::bit_cast<uint32_t>(f));
  return buf;
}

std::string f64Imm(double f) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0d%016llX",
                static_cast<unsigned long long>(std::bit_cast<uint64_t>(f)));
  return buf;
}

std::string Emitter::movImm(RegClass c, const std::string &imm) {
  std::string r = reg(c);
  ins(std::string("mov.") + movType(c) + " " + r + ", " + imm);
  return r;
}

std::string Emitter::constant(const Type &elem, const Attr &value) {
  double f = std::holds_alternative<double>(value) ? std::get<double>(value)
                                                   : static_cast<double>(std::get<int64_t>(value));
  int64_t i =
      std::holds_alternative<int64_t>(value) ? std::get<int64_t>(value) : static_cast<int64_t>(f);
  if (elem.isPtr()) return movImm(RegClass::B64, std::to_string(i));
  DType d = elem.dtype;
  switch (regClassOf(elem)) {
    case RegClass::Pred: {
      std::string p = reg(RegClass::Pred);
      // setp needs a register operand: compare the lane id with itself.
      ins(std::string(i ? "setp.eq.u32 " : "setp.ne.u32 ") + p + ", " + lane() + ", " + lane());
      return p;
    }
    case RegClass::B16: {
      uint16_t bits = passes::narrowFloat(d)->encode(f);
      return movImm(RegClass::B16, std::to_string(bits));
    }
    case RegClass::B32: {
      // Keep the register form: sign- or zero-extended from the dtype's width.
      int bits = bitWidth(d);
      int64_t v = i;
      if (bits < 32) {
        uint64_t m = (uint64_t{1} << bits) - 1;
        uint64_t u = static_cast<uint64_t>(v) & m;
        v = isSigned(d) && (u >> (bits - 1)) ? static_cast<int64_t>(u | ~m)
                                             : static_cast<int64_t>(u);
      }
      return movImm(RegClass::B32, std::to_string(static_cast<int32_t>(v)));
    }
    case RegClass::B64:
      return movImm(RegClass::B64, std::to_string(i));
    case RegClass::F32:
      return movImm(RegClass::F32, f32Imm(static_cast<float>(f)));
    case RegClass::F64:
      return movImm(RegClass::F64, f64Imm(f));
  }
  return {};
}

// ---- conversions ----------------------------------------------------------

std::string Emitter::toF32(const std::string &r, DType from) {
  std::string f = reg(RegClass::F32);
  switch (from) {
    case DType::F32:
      return r;
    case DType::F16:
      ins("cvt.f32.f16 " + f + ", " + r);
      return f;
    case DType::BF16: {
      std::string w = reg(RegClass::B32);
      ins("cvt.u32.u16 " + w + ", " + r);
      ins("shl.b32 " + w + ", " + w + ", 16");
      ins("mov.b32 " + f + ", " + w);
      return f;
    }
    case DType::F64:
      ins("cvt.rn.f32.f64 " + f + ", " + r);
      return f;
    case DType::F8E4B15:  // no GPU converts it in hardware
      ins("cvt.f32.f16 " + f + ", " + fp8ToF16Soft(r, from));
      return f;
    case DType::F8E4NV:
    case DType::F8E5: {
      if (opts_.target.sm < 89) {  // no fp8 cvt: the same f16 in software
        ins("cvt.f32.f16 " + f + ", " + fp8ToF16Soft(r, from));
        return f;
      }
      std::string w = reg(RegClass::B32), lo = reg(RegClass::B16), hi = reg(RegClass::B16);
      ins(std::string("cvt.rn.f16x2.") + (from == DType::F8E4NV ? "e4m3x2" : "e5m2x2") + " " + w +
          ", " + r);
      ins("mov.b32 {" + lo + ", " + hi + "}, " + w);
      ins("cvt.f32.f16 " + f + ", " + lo);
      return f;
    }
    default:
      internalError("emit-ptx", "toF32 of a non-float");
  }
}

std::string Emitter::fromF32(const std::string &f, DType to, bool rtz) {
  std::string mode = rtz ? "rz" : "rn";
  switch (to) {
    case DType::F32:
      return f;
    case DType::F16: {
      std::string h = reg(RegClass::B16);
      ins("cvt." + mode + ".f16.f32 " + h + ", " + f);
      return h;
    }
    case DType::BF16: {
      std::string h = reg(RegClass::B16);
      ins("cvt." + mode + ".bf16.f32 " + h + ", " + f);
      return h;
    }
    case DType::F64: {
      std::string d = reg(RegClass::F64);
      ins("cvt.f64.f32 " + d + ", " + f);
      return d;
    }
    case DType::F8E4B15:  // no GPU converts it in hardware
      return f32ToFp8Soft(f, to, rtz);
    case DType::F8E4NV:
    case DType::F8E5: {
      // No fp8 cvt below sm_89, and none toward zero anywhere: in software.
      if (opts_.target.sm < 89 || rtz) return f32ToFp8Soft(f, to, rtz);
      std::string h = reg(RegClass::B16), z = reg(RegClass::F32);
      ins("mov.f32 " + z + ", 0f00000000");
      ins(std::string("cvt.rn.satfinite.") + (to == DType::F8E4NV ? "e4m3x2" : "e5m2x2") + ".f32 " +
          h + ", " + z + ", " + f);
      ins("and.b16 " + h + ", " + h + ", 255");
      return h;
    }
    default:
      internalError("emit-ptx", "fromF32 to a non-float");
  }
}

static std::string normalizeInt(Emitter &e, const std::string &r, DType d) {
  int bits = bitWidth(d);
  if (bits >= 32 || d == DType::I1) return r;
  std::string o = e.reg(RegClass::B32);
  if (isSigned(d))
    e.ins("bfe.s32 " + o + ", " + r + ", 0, " + std::to_string(bits));
  else
    e.ins("and.b32 " + o + ", " + r + ", " + std::to_string((1 << bits) - 1));
  return o;
}

std::string Emitter::convert(const std::string &r, DType from, DType to, bool rtz) {
  if (from == to) return r;
  // i1 source: 0 or 1 first.
  if (from == DType::I1) {
    if (isFloat(to)) {
      std::string f = reg(RegClass::F32);
      ins("selp.f32 " + f + ", 0f3F800000, 0f00000000, " + r);
      return isFloat(to) && to != DType::F32 ? fromF32(f, to) : f;
    }
    RegClass c = is64(to) ? RegClass::B64 : RegClass::B32;
    std::string o = reg(c);
    ins(std::string("selp.") + (is64(to) ? "b64 " : "b32 ") + o + ", 1, 0, " + r);
    return o;
  }
  if (to == DType::I1) {
    std::string p = reg(RegClass::Pred);
    if (isFloat(from)) {
      if (from == DType::F64)
        ins("setp.neu.f64 " + p + ", " + r + ", 0d0000000000000000");
      else
        ins("setp.neu.f32 " + p + ", " + toF32(r, from) + ", 0f00000000");
    } else {
      ins("setp.ne." + bty(from) + " " + p + ", " + r + ", 0");
    }
    return p;
  }
  if (isFloat(from) && isFloat(to)) {
    if (from == DType::F64) {
      if (to == DType::F32) return toF32(r, from);
      std::string f = reg(RegClass::F32);
      ins(std::string("cvt.") + (rtz ? "rz" : "rn") + ".f32.f64 " + f + ", " + r);
      return fromF32(f, to, rtz);  // double rounding through f32: within the 16-bit result's ulp
    }
    if (to == DType::F64) {
      std::string d = reg(RegClass::F64);
      ins("cvt.f64.f32 " + d + ", " + toF32(r, from));
      return d;
    }
    return fromF32(toF32(r, from), to, rtz);
  }
  if (isFloat(from)) {  // float -> int: truncation toward zero, saturating like cvt.rzi
    std::string src = from == DType::F64 ? r : toF32(r, from);
    std::string ft = from == DType::F64 ? "f64" : "f32";
    std::string o = reg(is64(to) ? RegClass::B64 : RegClass::B32);
    std::string dt = bitWidth(to) >= 32 ? ity(to) : (isUnsigned(to) ? "u32" : "s32");
    ins("cvt.rzi." + dt + "." + ft + " " + o + ", " + src);
    return normalizeInt(*this, o, to);
  }
  if (isFloat(to)) {  // int -> float
    std::string st = ity(from);
    std::string src = r;
    if (from == DType::U32) {
      // In two 16-bit halves, hi * 2^16 + lo with one rounding (both halves
      // and the product are exact): ptxas turns cvt.rn.f32.u32 of a bfe.s32
      // (int8 -> uint32), and a detour through cvt.u64.u32 too, into a
      // signed I2F.S8, so -100 converted as -100, not 2^32 - 100.
      bool wide = to == DType::F64;
      RegClass fc = wide ? RegClass::F64 : RegClass::F32;
      std::string ft = wide ? "f64" : "f32";
      std::string lo = reg(RegClass::B32), hi = reg(RegClass::B32);
      std::string flo = reg(fc), fhi = reg(fc), f = reg(fc);
      ins("and.b32 " + lo + ", " + r + ", 65535");
      ins("shr.u32 " + hi + ", " + r + ", 16");
      ins("cvt.rn." + ft + ".u32 " + flo + ", " + lo);
      ins("cvt.rn." + ft + ".u32 " + fhi + ", " + hi);
      ins("fma.rn." + ft + " " + f + ", " + fhi + ", " +
          (wide ? "0d40F0000000000000" : "0f47800000") + ", " + flo);
      return wide ? f : fromF32(f, to);
    }
    if (to == DType::F64) {
      std::string d = reg(RegClass::F64);
      ins("cvt.rn.f64." + st + " " + d + ", " + src);
      return d;
    }
    std::string f = reg(RegClass::F32);
    ins("cvt.rn.f32." + st + " " + f + ", " + src);
    return fromF32(f, to);  // large ints: rounded twice, as rare as it is small
  }
  // int -> int
  if (is64(from) && !is64(to)) {
    std::string o = reg(RegClass::B32);
    ins("cvt.u32.u64 " + o + ", " + r);
    return normalizeInt(*this, o, to);
  }
  if (!is64(from) && is64(to)) {
    std::string o = reg(RegClass::B64);
    ins("cvt." + ity(to) + "." + ity(from) + " " + o + ", " + r);
    return o;
  }
  if (is64(from)) return r;
  return normalizeInt(*this, r, to);
}

// ---- elementwise ops -----------------------------------------------------------

static std::string floatPred(const std::string &p) {
  if (p == "ne") return "neu";  // Python's != is true when either side is NaN
  return p;
}

std::string Emitter::scalarOp(const Operation &op, const std::vector<std::string> &in) {
  const Type rt = op.result()->type.element();
  const DType rd = rt.dtype;
  auto operandDType = [&](size_t i) { return op.operand(i)->type.element().dtype; };
  auto out = [&](RegClass c) { return reg(c); };

  switch (op.code) {
    case OpCode::AddPtr: {
      int64_t bytes = byteSize(op.operand(0)->type.element().dtype);
      DType od = operandDType(1);
      std::string d = out(RegClass::B64);
      if (is64(od)) {
        ins("mad.lo.s64 " + d + ", " + in[1] + ", " + std::to_string(bytes) + ", " + in[0]);
      } else {
        std::string t = out(RegClass::B64);
        ins(std::string(isUnsigned(od) ? "mul.wide.u32 " : "mul.wide.s32 ") + t + ", " + in[1] +
            ", " + std::to_string(bytes));
        ins("add.s64 " + d + ", " + in[0] + ", " + t);
      }
      return d;
    }
    case OpCode::Cast:
      if (op.operand(0)->type.isPtrLike() || rt.isPtr()) return in[0];  // ptr <-> int64
      return convert(in[0], operandDType(0), rd, op.strAttr("rounding") == "rtz");
    case OpCode::Bitcast: {
      const Type st = op.operand(0)->type.element();
      RegClass sc = regClassOf(st), dc = regClassOf(rt);
      // Narrow ints live sign- or zero-extended in 32-bit registers: int8
      // <-> uint8 keeps the bits but re-extends for the new signedness.
      if (sc == dc) return sc == RegClass::B32 ? normalizeInt(*this, in[0], rd) : in[0];
      std::string d = out(dc);
      if (sc == RegClass::B16 && dc == RegClass::B32) {
        ins("cvt.u32.u16 " + d + ", " + in[0]);
        return normalizeInt(*this, d, rd);
      }
      if (sc == RegClass::B32 && dc == RegClass::B16) {
        ins("cvt.u16.u32 " + d + ", " + in[0]);
        return d;
      }
      ins(std::string("mov.") + (dc == RegClass::F64 || dc == RegClass::B64 ? "b64 " : "b32 ") + d +
          ", " + in[0]);
      return d;
    }
    case OpCode::Select: {
      if (rd == DType::I1 && !rt.isPtr()) {
        std::string a = out(RegClass::Pred), nc = out(RegClass::Pred), b = out(RegClass::Pred),
                    d = out(RegClass::Pred);
        ins("and.pred " + a + ", " + in[0] + ", " + in[1]);
        ins("not.pred " + nc + ", " + in[0]);
        ins("and.pred " + b + ", " + nc + ", " + in[2]);
        ins("or.pred " + d + ", " + a + ", " + b);
        return d;
      }
      RegClass c = regClassOf(rt);
      std::string d = out(c);
      ins(std::string("selp.") + movType(c) + " " + d + ", " + in[1] + ", " + in[2] + ", " + in[0]);
      return d;
    }
    case OpCode::Cmp: {
      DType od = operandDType(0);
      std::string pred = op.strAttr("pred");
      std::string p = out(RegClass::Pred);
      if (op.operand(0)->type.isPtrLike()) {
        ins("setp." + pred + ".u64 " + p + ", " + in[0] + ", " + in[1]);
        return p;
      }
      if (od == DType::I1) {
        std::string a = convert(in[0], DType::I1, DType::U32),
                    b = convert(in[1], DType::I1, DType::U32);
        ins("setp." + pred + ".u32 " + p + ", " + a + ", " + b);
        return p;
      }
      if (isFloat(od)) {
        if (od == DType::F64) {
          ins("setp." + floatPred(pred) + ".f64 " + p + ", " + in[0] + ", " + in[1]);
        } else {
          ins("setp." + floatPred(pred) + ".f32 " + p + ", " + toF32(in[0], od) + ", " +
              toF32(in[1], od));
        }
        return p;
      }
      ins("setp." + pred + "." + ity(od) + " " + p + ", " + in[0] + ", " + in[1]);
      return p;
    }
    default:
      break;
  }

  // Floating point: computed in f32 (f64 for f64).
  if (isFloat(rd)) {
    bool dbl = rd == DType::F64;
    std::string ft = dbl ? "f64" : "f32";
    RegClass wc = dbl ? RegClass::F64 : RegClass::F32;
    std::vector<std::string> a;
    for (size_t i = 0; i < in.size(); ++i) a.push_back(dbl ? in[i] : toF32(in[i], operandDType(i)));
    std::string d = !dbl && !inPlaceResult_.empty() ? inPlaceResult_ : out(wc);
    bool nan = op.intAttr("propagate_nan") != 0;
    if ((op.code == OpCode::Max || op.code == OpCode::Min) && dbl && nan)
      unsupported(op, std::string("tl.") + (op.code == OpCode::Max ? "maximum" : "minimum") +
                          "(propagate_nan=ALL) on float64");
    if (const InstrRow *row = instrRow(op, OperandClass::Float, dbl ? DType::F64 : DType::F32)) {
      ins(instrText(*row, dbl ? DType::F64 : DType::F32, d, a));
      return dbl ? d : fromF32(d, rd);
    }
    switch (op.code) {
      case OpCode::Rem:
        ins("mov." + ft + " " + d + ", " + exactFmod(a[0], a[1], dbl));
        break;
      case OpCode::Clamp: {
        std::string t = out(wc);
        std::string mx = nan ? "max.NaN." : "max.";
        std::string mn = nan ? "min.NaN." : "min.";
        ins(mx + ft + " " + t + ", " + a[0] + ", " + a[1]);
        ins(mn + ft + " " + d + ", " + t + ", " + a[2]);
        break;
      }
      case OpCode::Exp: {
        if (dbl) return exp64(a[0], false);
        std::string t = out(wc);
        ins("mul.f32 " + t + ", " + a[0] + ", 0f3FB8AA3B");  // log2(e)
        ins("ex2.approx.f32 " + d + ", " + t);
        break;
      }
      case OpCode::Exp2:
        // As Triton lowers it: subnormal results flush to zero, which spares
        // ptxas's rescaling around MUFU.EX2 (three instructions per
        // element in attention's inner loop).
        if (dbl) return exp64(a[0], true);
        ins(std::string(opts_.reflectFtz ? "ex2.approx.ftz.f32 " : "ex2.approx.f32 ") + d + ", " +
            a[0]);
        break;
      case OpCode::Log: {
        if (dbl) return log64(a[0], false);
        std::string t = out(wc);
        ins("lg2.approx.f32 " + t + ", " + a[0]);
        ins("mul.f32 " + d + ", " + t + ", 0f3F317218");  // ln(2)
        break;
      }
      case OpCode::Log2:
        if (dbl) return log64(a[0], true);
        ins("lg2.approx.f32 " + d + ", " + a[0]);
        break;
      case OpCode::Sin:
      case OpCode::Cos: {
        if (dbl) return trig64(a[0], op.code == OpCode::Cos);
        // Reduce to [-pi, pi] with a two-part 2*pi, then the hardware
        // approximation: r = x - k*hi + k*(hi - 2pi), hi = float(2pi) =
        // 0x40C90FDB, hi - 2pi = 1.7484555e-7 (0x343BBD2E), so r is exact to
        // about 1e-7 for |x| up to 1e7 (it was pi's remainder, half as
        // large: an error of k * 8.7e-8, 1.4e-4 at |x| = 1e4).
        std::string k = out(wc), r = out(wc);
        ins("mul.f32 " + k + ", " + a[0] + ", 0f3E22F983");  // 1 / (2 pi)
        ins("cvt.rni.f32.f32 " + k + ", " + k);
        ins("fma.rn.f32 " + r + ", " + k + ", 0fC0C90FDB, " + a[0]);  // - k * hi
        ins("fma.rn.f32 " + r + ", " + k + ", 0f343BBD2E, " + r);     // + k * (hi - 2pi)
        ins(std::string(op.code == OpCode::Sin ? "sin" : "cos") + ".approx.f32 " + d + ", " + r);
        break;
      }
      case OpCode::Erf: {
        if (dbl) return erf64(a[0]);
        // |x| < 0.5: the Taylor series of erf; else Abramowitz & Stegun 7.1.26
        // (absolute error 1.5e-7, relative below 3e-7 there), sign restored.
        std::string x = a[0], ax = out(wc), x2 = out(wc), s = out(wc), small = out(wc),
                    big = out(wc), t = out(wc), poly = out(wc), e = out(wc);
        std::string p = out(RegClass::Pred);
        ins("abs.f32 " + ax + ", " + x);
        ins("mul.f32 " + x2 + ", " + x + ", " + x);
        // series: x * 2/sqrt(pi) * (1 - x2/3 + x2^2/10 - x2^3/42 + x2^4/216 - x2^5/1320)
        ins("mov.f32 " + s + ", " + f32Imm(-1.0f / 1320));
        for (float c : {1.0f / 216, -1.0f / 42, 1.0f / 10, -1.0f / 3, 1.0f})
          ins("fma.rn.f32 " + s + ", " + s + ", " + x2 + ", " + f32Imm(c));
        ins("mul.f32 " + small + ", " + s + ", " + x);
        ins("mul.f32 " + small + ", " + small + ", " + f32Imm(1.1283791670955126f));
        // 1 - (a1 t + a2 t^2 + ... + a5 t^5) exp(-x^2), t = 1 / (1 + p |x|)
        ins("fma.rn.f32 " + t + ", " + ax + ", " + f32Imm(0.3275911f) + ", 0f3F800000");
        ins("rcp.rn.f32 " + t + ", " + t);
        ins("mov.f32 " + poly + ", " + f32Imm(1.061405429f));
        for (float c : {-1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f})
          ins("fma.rn.f32 " + poly + ", " + poly + ", " + t + ", " + f32Imm(c));
        ins("mul.f32 " + poly + ", " + poly + ", " + t);
        ins("mul.f32 " + e + ", " + x2 + ", 0fBFB8AA3B");  // -x^2 * log2(e)
        ins("ex2.approx.f32 " + e + ", " + e);
        ins("mul.f32 " + poly + ", " + poly + ", " + e);
        ins("sub.f32 " + big + ", 0f3F800000, " + poly);
        ins("copysign.f32 " + big + ", " + x + ", " + big);
        ins("setp.lt.f32 " + p + ", " + ax + ", 0f3F000000");
        ins("selp.f32 " + d + ", " + small + ", " + big + ", " + p);
        break;
      }
      default:
        unsupported(op, std::string("'") + op.info().mnemonic + "' on floats");
    }
    return dbl ? d : fromF32(d, rd);
  }

  // Booleans.
  if (rd == DType::I1) {
    std::string d = out(RegClass::Pred);
    if (const InstrRow *row = instrRow(op, OperandClass::Bool, rd)) {
      ins(instrText(*row, rd, d, in));
      return d;
    }
    switch (op.code) {
      case OpCode::Neg:
      case OpCode::Abs:
        return in[0];
      default:
        unsupported(op, std::string("'") + op.info().mnemonic + "' on int1");
    }
  }

  // Integers: computed at 32 or 64 bits, then brought back to the dtype's width.
  std::string it = ity(rd), bt = bty(rd);
  RegClass c = is64(rd) ? RegClass::B64 : RegClass::B32;
  std::string d = out(c);
  if (const InstrRow *row = instrRow(op, OperandClass::Int, rd)) {
    ins(instrText(*row, rd, d, in));
    return normalizeInt(*this, d, rd);
  }
  auto shiftAmount = [&]() {
    if (!is64(operandDType(1))) return in[1];
    std::string s = out(RegClass::B32);
    ins("cvt.u32.u64 " + s + ", " + in[1]);
    return s;
  };
  switch (op.code) {
    case OpCode::Div:
    case OpCode::Rem:
      if (auto q = divideByConstant(op, in, rd)) return *q;
      if (auto q = divideByInvariant(op, in, rd)) return *q;
      ins(std::string(op.code == OpCode::Div ? "div." : "rem.") + it + " " + d + ", " + in[0] +
          ", " + in[1]);
      break;
    case OpCode::Abs:
      if (isUnsigned(rd)) return in[0];
      ins("abs." + it + " " + d + ", " + in[0]);
      break;
    case OpCode::Shl:
      ins("shl." + bt + " " + d + ", " + in[0] + ", " + shiftAmount());
      break;
    case OpCode::Shr:
      ins("shr." + it + " " + d + ", " + in[0] + ", " + shiftAmount());
      break;
    case OpCode::Clamp: {
      std::string t = out(c);
      ins("max." + it + " " + t + ", " + in[0] + ", " + in[1]);
      ins("min." + it + " " + d + ", " + t + ", " + in[2]);
      break;
    }
    default:
      unsupported(op, std::string("'") + op.info().mnemonic + "' on integers");
  }
  return normalizeInt(*this, d, rd);
}

std::string Emitter::exactFmod(const std::string &a, const std::string &b, bool dbl) {
  // C's fmod, exactly (as the interpreter's std::fmod): a - trunc(a / b) * b
  // in floating point loses the low bits once the quotient passes 2^24 and
  // gives NaN for an infinite b. Binary long division instead: t = |b| 2^k,
  // the largest such t <= |a|, then while t >= |b|: subtract t where it fits
  // and halve it. Each subtraction has t <= x < 2t, so it is exact
  // (Sterbenz), and so is each doubling and halving of t (t >= |b|). Steps:
  // twice log2 of the quotient, a few for the usual x % 1.0 or x % 2 pi.
  std::string ft = dbl ? "f64" : "f32";
  RegClass c = dbl ? RegClass::F64 : RegClass::F32;
  std::string inf = dbl ? "0d7FF0000000000000" : "0f7F800000";
  std::string zero = dbl ? "0d0000000000000000" : "0f00000000";
  std::string half = dbl ? "0d3FE0000000000000" : "0f3F000000";
  std::string nanImm = dbl ? "0d7FF8000000000000" : "0f7FC00000";
  std::string x = reg(c), y = reg(c), t = reg(c), t2 = reg(c), r = reg(c);
  std::string skip = reg(RegClass::Pred), p = reg(RegClass::Pred), bad = reg(RegClass::Pred);
  ins("abs." + ft + " " + x + ", " + a);
  ins("abs." + ft + " " + y + ", " + b);
  // Only finite |a| and finite, nonzero |b| enter the loops (an infinite t
  // would never halve down to |b|).
  ins("setp.geu." + ft + " " + skip + ", " + x + ", " + inf);
  ins("setp.geu.or." + ft + " " + skip + ", " + y + ", " + inf + ", " + skip);
  ins("setp.equ.or." + ft + " " + skip + ", " + y + ", " + zero + ", " + skip);
  std::string grow = newLabel(), shrink = newLabel(), done = newLabel();
  ins("@" + skip + " bra " + done);
  ins("mov." + ft + " " + t + ", " + y);
  label(grow);  // t = |b| 2^k <= x < 2t (2t may round to inf: then it stops)
  ins("add.rn." + ft + " " + t2 + ", " + t + ", " + t);
  ins("setp.le." + ft + " " + p + ", " + t2 + ", " + x);
  ins("@" + p + " mov." + ft + " " + t + ", " + t2);
  ins("@" + p + " bra " + grow);
  label(shrink);  // x < 2t on entry; x < t after the subtraction
  ins("setp.ge." + ft + " " + p + ", " + x + ", " + t);
  ins("@" + p + " sub.rn." + ft + " " + x + ", " + x + ", " + t);
  ins("setp.gt." + ft + " " + p + ", " + t + ", " + y);
  ins("@" + p + " mul.rn." + ft + " " + t + ", " + t + ", " + half);
  ins("@" + p + " bra " + shrink);
  label(done);
  // The sign of a; |b| infinite leaves x = |a|, so a itself (C's fmod).
  ins("copysign." + ft + " " + r + ", " + a + ", " + x);
  // NaN for a NaN operand, an infinite a or a zero b.
  ins("setp.nan." + ft + " " + bad + ", " + a + ", " + b);
  ins("setp.eq.or." + ft + " " + bad + ", " + b + ", " + zero + ", " + bad);
  ins("setp.eq.or." + ft + " " + bad + ", " + x + ", " + inf + ", " + bad);
  ins("selp." + ft + " " + r + ", " + nanImm + ", " + r + ", " + bad);
  return r;
}

// Division by a loop-invariant divisor d: before the loop, |d|'s multiplier
// m and shifts (Granlund and Montgomery's round-up method, exact for every
// 32-bit dividend): with l = ceil(log2 |d|), m = 2^32 (2^l - |d|) / |d| + 1,
// then x / |d| = (t + ((x - t) >> min(l, 1))) >> max(l - 1, 0) where t is
// the high word of m x. In the loop that is five instructions instead of
// div's software sequence (a reciprocal and corrections, some twenty), and
// a persistent kernel's tile coordinates divide by invariants every
// iteration once its loops are flattened.
void Emitter::prepareInvariantDivisors(Operation &loop) {
  invariantDivisors_.emplace_back();
  auto &known = invariantDivisors_.back();
  loop.walk([&](Operation *op) {
    if (op->code != OpCode::Div && op->code != OpCode::Rem) return;
    DType t = op->result()->type.dtype;
    const Value *d = op->operand(1);
    // (A constant divisor is divideByConstant's.)
    if ((t != DType::I32 && t != DType::U32) || passes::isDefinedInside(d, &loop) ||
        passes::constantOf(d))
      return;
    Regs *const *regs = regs_.find(d);
    if (!regs || (*regs)->empty()) return;
    const std::string &r = (**regs)[0];
    for (const std::string &x : **regs)
      if (x != r) return;  // a tile of divisors: not one value
    // By register and signedness: a cast between i32 and u32 keeps the
    // register, and the two divide differently.
    const std::string key = r + (t == DType::I32 ? "|s" : "|u");
    for (const auto &scope : invariantDivisors_)
      if (scope.count(key)) return;
    InvariantDivisor v;
    std::string absolute = r;
    if (t == DType::I32) {
      absolute = reg(RegClass::B32);
      ins("abs.s32 " + absolute + ", " + r);
    }
    std::string dm1 = reg(RegClass::B32), lz = reg(RegClass::B32), l = reg(RegClass::B32);
    ins("sub.u32 " + dm1 + ", " + absolute + ", 1");
    ins("clz.b32 " + lz + ", " + dm1);
    ins("sub.u32 " + l + ", 32, " + lz);
    std::string pow = reg(RegClass::B64), d64 = reg(RegClass::B64), num = reg(RegClass::B64),
                q64 = reg(RegClass::B64);
    ins("shl.b64 " + pow + ", 1, " + l);
    ins("cvt.u64.u32 " + d64 + ", " + absolute);
    ins("sub.u64 " + num + ", " + pow + ", " + d64);
    ins("shl.b64 " + num + ", " + num + ", 32");
    ins("div.u64 " + q64 + ", " + num + ", " + d64);
    v.magic = reg(RegClass::B32);
    ins("cvt.u32.u64 " + v.magic + ", " + q64);
    ins("add.u32 " + v.magic + ", " + v.magic + ", 1");
    v.shift1 = reg(RegClass::B32);
    v.shift2 = reg(RegClass::B32);
    ins("min.u32 " + v.shift1 + ", " + l + ", 1");
    ins("sub.u32 " + v.shift2 + ", " + l + ", " + v.shift1);
    known[key] = v;
  });
}

std::optional<std::string> Emitter::divideByInvariant(const Operation &op,
                                                      const std::vector<std::string> &in,
                                                      DType rd) {
  if (rd != DType::I32 && rd != DType::U32) return std::nullopt;
  const bool sign = rd == DType::I32;
  const InvariantDivisor *v = nullptr;
  for (const auto &scope : invariantDivisors_)
    if (auto it = scope.find(in[1] + (sign ? "|s" : "|u")); it != scope.end()) v = &it->second;
  if (!v) return std::nullopt;
  return divideByMultiplier(op, in, sign, *v);
}

// Division by a constant. ptxas does not strength-reduce one (it divides
// by 64 as by any register: a float reciprocal and corrections, some
// fifteen instructions with a MUFU's latency), and tl.cdiv(n, BLOCK) or
// `pid % GROUP` put one in most index computations. A power of two is a
// shift (signed: the dividend biased by 2^k - 1 when negative, so that the
// quotient rounds toward zero as div.s32 does), 1 is the dividend itself,
// and another positive 32-bit divisor takes the multiplier above with the
// multiplier and shifts known now. Negative and zero divisors, 64-bit
// divisors other than powers of two, and narrower types keep div/rem.
std::optional<std::string> Emitter::divideByConstant(const Operation &op,
                                                     const std::vector<std::string> &in, DType rd) {
  if (rd != DType::I32 && rd != DType::U32 && rd != DType::I64 && rd != DType::U64)
    return std::nullopt;
  auto c = passes::constantOf(op.operand(1));
  if (!c || c->isFloat) return std::nullopt;
  const bool sign = rd == DType::I32 || rd == DType::I64, wide = is64(rd);
  const int bits = wide ? 64 : 32;
  const uint64_t mask = wide ? ~uint64_t{0} : 0xffffffffu;
  const uint64_t d = static_cast<uint64_t>(c->i) & mask;
  if (d == 0 || (sign && d >> (bits - 1))) return std::nullopt;  // zero, or negative
  const bool isDiv = op.code == OpCode::Div;
  const RegClass rc = wide ? RegClass::B64 : RegClass::B32;
  const std::string b = std::to_string(bits), x = in[0];
  std::string r = reg(rc);
  if (d == 1) {
    ins(isDiv ? "mov.b" + b + " " + r + ", " + x : "mov.b" + b + " " + r + ", 0");
    return r;
  }
  if (std::has_single_bit(d)) {
    const int k = std::countr_zero(d);
    const std::string ks = std::to_string(k);
    std::string biased = x;
    if (sign) {  // x + (x < 0 ? d - 1 : 0)
      std::string s = reg(rc);
      biased = reg(rc);
      ins("shr.s" + b + " " + s + ", " + x + ", " + std::to_string(bits - 1));
      ins("shr.u" + b + " " + s + ", " + s + ", " + std::to_string(bits - k));
      ins("add.s" + b + " " + biased + ", " + x + ", " + s);
    }
    if (isDiv) {
      ins("shr." + std::string(sign ? "s" : "u") + b + " " + r + ", " + biased + ", " + ks);
      return r;
    }
    if (!sign) {
      ins("and.b" + b + " " + r + ", " + x + ", " + std::to_string(d - 1));
      return r;
    }
    std::string multiple = reg(rc);  // the quotient times d
    ins("and.b" + b + " " + multiple + ", " + biased + ", -" + std::to_string(d));
    ins("sub.s" + b + " " + r + ", " + x + ", " + multiple);
    return r;
  }
  if (wide) return std::nullopt;
  // Granlund and Montgomery's round-up method, as prepareInvariantDivisors.
  const int l = std::bit_width(d - 1);
  InvariantDivisor v;
  v.magic = std::to_string(((((uint64_t{1} << l) - d) << 32) / d + 1) & 0xffffffffu);
  v.shift1 = std::to_string(std::min(l, 1));
  v.shift2 = std::to_string(l - std::min(l, 1));
  return divideByMultiplier(op, in, sign, v);
}

// x / d (or x % d) for a 32-bit d > 0 with multiplier and shifts `v`;
// in[1] holds d.
std::string Emitter::divideByMultiplier(const Operation &op, const std::vector<std::string> &in,
                                        bool sign, const InvariantDivisor &v) {
  std::string x = in[0];
  if (sign) {
    x = reg(RegClass::B32);
    ins("abs.s32 " + x + ", " + in[0]);
  }
  std::string t = reg(RegClass::B32), u = reg(RegClass::B32), q = reg(RegClass::B32);
  ins("mul.hi.u32 " + t + ", " + v.magic + ", " + x);
  ins("sub.u32 " + u + ", " + x + ", " + t);
  ins("shr.b32 " + u + ", " + u + ", " + v.shift1);
  ins("add.u32 " + u + ", " + u + ", " + t);
  ins("shr.b32 " + q + ", " + u + ", " + v.shift2);
  if (sign) {  // the quotient's sign: negative when the operands' differ
    std::string s = reg(RegClass::B32);
    ins("xor.b32 " + s + ", " + in[0] + ", " + in[1]);
    ins("shr.s32 " + s + ", " + s + ", 31");
    ins("xor.b32 " + q + ", " + q + ", " + s);
    ins("sub.s32 " + q + ", " + q + ", " + s);
  }
  if (op.code == OpCode::Div) return q;
  std::string r = reg(RegClass::B32);
  ins("mul.lo.s32 " + r + ", " + q + ", " + in[1]);
  ins("sub.s32 " + r + ", " + in[0] + ", " + r);
  return r;
}

}  // namespace tessera::ptx
