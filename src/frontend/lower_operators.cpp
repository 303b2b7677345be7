// Python operators: on two compile-time values they are evaluated here with
// Python's semantics (floor division, arbitrary-sign modulo); with a runtime
// operand they lower to Tile IR with Triton's semantics (type promotion,
// broadcasting, C-style integer division, pointer arithmetic).
#include <cmath>

#include "frontend/lowering.h"

namespace tessera::frontend {

using ast::BinOp;
using ast::CmpOp;
using ast::UnaryOp;

namespace {

// The signed (or unsigned) integer type as wide as `d`.
DType counterpartOfWidth(DType d, bool wantSigned) {
  switch (bitWidth(d)) {
    case 8:
      return wantSigned ? DType::I8 : DType::U8;
    case 16:
      return wantSigned ? DType::I16 : DType::U16;
    case 32:
      return wantSigned ? DType::I32 : DType::U32;
    default:
      return wantSigned ? DType::I64 : DType::U64;
  }
}

bool isBitwise(BinOp op) {
  return op == BinOp::BitAnd || op == BinOp::BitOr || op == BinOp::BitXor || op == BinOp::LShift ||
         op == BinOp::RShift;
}

SVal foldConst(const Lowerer &l, BinOp op, const SVal &a, const SVal &b, SourceLoc loc) {
  std::string opname = ast::spelling(op);
  if (a.kind == SVal::Kind::Tuple && b.kind == SVal::Kind::Tuple && op == BinOp::Add) {
    SVal r = a;
    r.s.clear();  // a namedtuple's concatenation is a plain tuple
    r.elems.insert(r.elems.end(), b.elems.begin(), b.elems.end());
    return r;
  }
  if (op == BinOp::Mul && ((a.kind == SVal::Kind::Tuple && b.isIntLike()) ||
                           (b.kind == SVal::Kind::Tuple && a.isIntLike()))) {
    // Python's repetition: `[0] * rank`, `(x,) * 3`; a count below one is empty.
    const SVal &t = a.kind == SVal::Kind::Tuple ? a : b;
    int64_t count = std::max<int64_t>(0, a.kind == SVal::Kind::Tuple ? b.i : a.i);
    constexpr int64_t kMaxElems = 1 << 16;
    if (!t.elems.empty() && count > kMaxElems / static_cast<int64_t>(t.elems.size()))
      l.error(loc,
              "a tuple repeated " + std::to_string(count) + " times has more than " +
                  std::to_string(kMaxElems) + " elements",
              "repeat it fewer times");
    SVal r = t;
    r.s.clear();
    r.elems.clear();
    for (int64_t i = 0; i < count; ++i)
      r.elems.insert(r.elems.end(), t.elems.begin(), t.elems.end());
    return r;
  }
  if (a.kind == SVal::Kind::Str && b.kind == SVal::Kind::Str && op == BinOp::Add)
    return SVal::string(a.s + b.s);
  if (!a.isNumber() || !b.isNumber())
    l.error(loc,
            "unsupported operand types for " + opname + ": " + describe(a) + " and " + describe(b));
  bool anyFloat = a.kind == SVal::Kind::Float || b.kind == SVal::Kind::Float;
  if (anyFloat) {
    double x = a.asDouble(), y = b.asDouble();
    switch (op) {
      case BinOp::Add:
        return SVal::floating(x + y);
      case BinOp::Sub:
        return SVal::floating(x - y);
      case BinOp::Mul:
        return SVal::floating(x * y);
      case BinOp::Div:
        if (y == 0) l.error(loc, "division by zero in a compile-time expression");
        return SVal::floating(x / y);
      case BinOp::FloorDiv:
        if (y == 0) l.error(loc, "division by zero in a compile-time expression");
        return SVal::floating(std::floor(x / y));
      case BinOp::Mod: {
        if (y == 0) l.error(loc, "modulo by zero in a compile-time expression");
        double r = std::fmod(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return SVal::floating(r);
      }
      case BinOp::Pow:
        return SVal::floating(std::pow(x, y));
      default:
        l.error(loc, "unsupported operand types for " + opname + ": float");
    }
  }
  // Exact in 128 bits, as Python computes; a result outside [-2^63, 2^64)
  // is big (an error once it leaves the expression, as Triton's). No value
  // is -2^127 (exactInteger), so neither x / -1 nor x % -1 can trap.
  __int128 x = a.wide(), y = b.wide();
  auto exact = [&](__int128 v, bool overflowed) { return l.exactInteger(v, loc, overflowed); };
  __int128 r = 0;
  switch (op) {
    case BinOp::Add:
      return exact(r, __builtin_add_overflow(x, y, &r));
    case BinOp::Sub:
      return exact(r, __builtin_sub_overflow(x, y, &r));
    case BinOp::Mul:
      return exact(r, __builtin_mul_overflow(x, y, &r));
    case BinOp::Div:
      if (y == 0) l.error(loc, "division by zero in a compile-time expression");
      return SVal::floating(static_cast<double>(x) / static_cast<double>(y));
    case BinOp::FloorDiv: {
      if (y == 0) l.error(loc, "division by zero in a compile-time expression");
      // INT64_MIN // -1 is 2^63, a uint64.
      __int128 q = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
      return exact(q, false);
    }
    case BinOp::Mod: {
      if (y == 0) l.error(loc, "modulo by zero in a compile-time expression");
      __int128 m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return exact(m, false);
    }
    case BinOp::Pow: {
      if (y < 0) return SVal::floating(std::pow(static_cast<double>(x), static_cast<double>(y)));
      if (x == 0 || x == 1) return exact(y == 0 ? 1 : x, false);
      if (x == -1) return exact(y % 2 == 0 ? 1 : -1, false);
      __int128 p = 1;
      bool over = y >= 128;  // |x| >= 2: 2^128 and beyond
      for (__int128 k = 0; k < y && !over; ++k) over = __builtin_mul_overflow(p, x, &p);
      return exact(p, over);
    }
    case BinOp::LShift: {
      if (y < 0) l.error(loc, "negative shift count");
      if (x == 0) return SVal::integer(0);
      if (y >= 127) return exact(0, true);  // |x| >= 1: at least 2^127
      __int128 s = static_cast<__int128>(static_cast<unsigned __int128>(x) << y);
      return exact(s, (s >> y) != x);
    }
    case BinOp::RShift:
      if (y < 0) l.error(loc, "negative shift count");
      return exact(y >= 127 ? (x < 0 ? -1 : 0) : x >> y, false);
    case BinOp::BitAnd:
      return a.kind == SVal::Kind::Bool && b.kind == SVal::Kind::Bool ? SVal::boolean(x & y)
                                                                      : exact(x & y, false);
    case BinOp::BitOr:
      return a.kind == SVal::Kind::Bool && b.kind == SVal::Kind::Bool ? SVal::boolean(x | y)
                                                                      : exact(x | y, false);
    case BinOp::BitXor:
      return a.kind == SVal::Kind::Bool && b.kind == SVal::Kind::Bool ? SVal::boolean(x ^ y)
                                                                      : exact(x ^ y, false);
    case BinOp::MatMul:
      break;
  }
  l.error(loc, "unsupported operand types for " + opname + ": int");
}

// The decimal digits of `v`.
std::string decimal(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  for (; u != 0; u /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
  return neg ? "-" + s : s;
}

}  // namespace

namespace {
const char *const kRepresentableHint =
    "a kernel's integers must fit in 64 bits (int64, or uint64 for [2**63, 2**64)); only the "
    "arithmetic of one expression may leave that range";
}  // namespace

SVal Lowerer::exactInteger(__int128 v, SourceLoc loc, bool overflowed) const {
  // -2^127 counts as overflowed: negating or dividing it by -1 would trap.
  if (overflowed || v == kInt128Min)
    error(loc, "Nonrepresentable integer (more than 127 bits in a compile-time expression).",
          kRepresentableHint);
  return SVal::wideInteger(v);
}

void Lowerer::requireRepresentable(const SVal &v, SourceLoc loc) const {
  if (v.isBig) error(loc, "Nonrepresentable integer " + decimal(v.big) + ".", kRepresentableHint);
}

SVal Lowerer::binary(BinOp op, const SVal &a, const SVal &b, SourceLoc loc) {
  // Arithmetic on a name bound by plain assignment is arithmetic on the
  // scalar tensor Triton holds there: int32 wraps, // and % truncate
  // toward zero (x = -7; x // 2 is -3, not Python's -4). The IR computes
  // it (canonicalize folds it), so the result is a tensor, as in Triton.
  if ((a.assigned || b.assigned) && a.isNumber() && b.isNumber() && op != BinOp::Pow &&
      op != BinOp::MatMul) {
    auto lifted = [&](const SVal &v) { return v.assigned ? SVal::tensor(toValue(v, loc)) : v; };
    return binary(op, lifted(a), lifted(b), loc);
  }
  // Tuples concatenate and repeat whatever they hold (tensors included).
  if ((a.isConst() && b.isConst()) || a.kind == SVal::Kind::Tuple || b.kind == SVal::Kind::Tuple)
    return foldConst(*this, op, a, b, loc);
  requireRepresentable(a, loc);
  requireRepresentable(b, loc);
  std::string opname = ast::spelling(op);
  auto isOperand = [](const SVal &v) { return v.isTensor() || v.isNumber(); };
  if (!isOperand(a) || !isOperand(b))
    error(loc,
          "unsupported operand types for " + opname + ": " + describe(a) + " and " + describe(b));
  if (op == BinOp::Pow)
    error(loc, "the ** operator is not supported on tensors",
          "use tl.exp2(y * tl.log2(x)) or libdevice.pow(x, y)");
  if (op == BinOp::MatMul) error(loc, "the @ operator is not supported; use tl.dot(a, b)");

  // Pointer arithmetic: ptr + int, int + ptr, ptr - int.
  bool aPtr = a.isTensor() && a.v->type.isPtrLike();
  bool bPtr = b.isTensor() && b.v->type.isPtrLike();
  if (aPtr || bPtr) {
    if (aPtr && bPtr) error(loc, "unsupported operand types for " + opname + ": two pointers");
    const SVal &ptr = aPtr ? a : b;
    const SVal &off = aPtr ? b : a;
    if (!(op == BinOp::Add || (op == BinOp::Sub && aPtr)))
      error(loc, "operator " + opname + " is not defined on pointers",
            "pointers support only + and - with an integer offset");
    Value *o = toValue(off, loc);
    if (!isInt(o->type.dtype) || o->type.isPtrLike())
      error(loc, "a pointer offset must be an integer, got " + describe(off));
    if (op == BinOp::Sub) o = emit(OpCode::Neg, {o}, o->type, loc);
    Value *p = ptr.v;
    broadcastPair(p, o, loc);
    return SVal::tensor(emit(OpCode::AddPtr, {p, o}, p->type, loc));
  }

  bool divOrMod = op == BinOp::Div || op == BinOp::FloorDiv || op == BinOp::Mod;
  DType d;
  if (isBitwise(op)) {
    DType ta = dtypeOf(a), tb = dtypeOf(b);
    if (isFloat(ta) || isFloat(tb))
      error(loc,
            std::string("invalid operands of type ") + tritonName(ta) + " and " + tritonName(tb) +
                ": operator " + opname + " requires integer operands",
            "bitwise operators and shifts work on integer tensors; bitcast floats with "
            ".to(tl.int32, bitcast=True)");
    d = promote(a, b, false, loc);
  } else {
    d = promote(a, b, divOrMod, loc);
  }
  auto negLiteral = [](const SVal &v) { return v.isNumber() && v.asDouble() < 0; };
  if (isUnsigned(d) && (negLiteral(a) || negLiteral(b)))
    error(loc, "cannot combine an unsigned tensor with a negative constant",
          "cast one of them explicitly with .to()");
  // A constant that the computation type cannot hold is an error, not a
  // silent wrap (Triton's binary_op_type_checking_impl).
  for (const SVal *lit : {&a, &b})
    if (lit->kind == SVal::Kind::Int && isInt(d) && d != DType::I1) {
      int bits = bitWidth(d);
      __int128 lo = isUnsigned(d) ? 0 : -(static_cast<__int128>(1) << (bits - 1));
      __int128 hi = (static_cast<__int128>(1) << (isUnsigned(d) ? bits : bits - 1)) - 1;
      __int128 v = lit->wide();
      if (v < lo || v > hi) {
        std::string text =
            lit->u64 ? std::to_string(static_cast<uint64_t>(lit->i)) : std::to_string(lit->i);
        error(loc, "Scalar " + text + " is out of range for type " + tritonName(d),
              "cast the tensor to a wider type first, e.g. x.to(tl.int64)");
      }
    }
  if ((op == BinOp::LShift || op == BinOp::RShift) && a.isTensor() && b.kind == SVal::Kind::Int) {
    const int bits = bitWidth(dtypeOf(a));  // Triton's check_bit_width: the shifted tensor's
    if (b.wide() >= bits)
      warn(loc,
           "shifting a " + std::string(tritonName(dtypeOf(a))) + " tensor by " +
               std::to_string(b.i) + " bits, its width or more: Triton leaves the result undefined",
           "shift by less than " + std::to_string(bits) +
               ", or widen the operand first, e.g. x.to(tl.int64)");
  }
  if (op == BinOp::Div && isInt(d)) d = DType::F32;  // int / int is float32 in Triton
  if (op == BinOp::FloorDiv && isFloat(d))
    error(loc, "the // operator is only defined on integers in Triton kernels",
          "use tl.floor(a / b) for floats");
  Value *x = toValue(a, loc, d), *y = toValue(b, loc, d);
  broadcastPair(x, y, loc);
  OpCode code = OpCode::Add;
  switch (op) {
    case BinOp::Add:
      code = OpCode::Add;
      break;
    case BinOp::Sub:
      code = OpCode::Sub;
      break;
    case BinOp::Mul:
      code = OpCode::Mul;
      break;
    case BinOp::Div:
    case BinOp::FloorDiv:
      code = OpCode::Div;
      break;
    case BinOp::Mod:
      code = OpCode::Rem;
      break;
    case BinOp::LShift:
      code = OpCode::Shl;
      break;
    case BinOp::RShift:
      code = OpCode::Shr;
      break;
    case BinOp::BitAnd:
      code = OpCode::And;
      break;
    case BinOp::BitOr:
      code = OpCode::Or;
      break;
    case BinOp::BitXor:
      code = OpCode::Xor;
      break;
    case BinOp::Pow:
    case BinOp::MatMul:
      break;
  }
  if (op == BinOp::RShift && isInt(d) && d != DType::I1) {
    // Triton picks the shift by the left operand's signedness before the
    // operands are promoted: int8 >> uint8 promotes to uint8 but shifts
    // arithmetically. Shr follows its type's signedness, so shift in the
    // counterpart type of the same width and reinterpret back.
    DType left = dtypeOf(a);
    bool wantArith = a.isTensor() ? isSigned(left) : !isUnsigned(left);
    if (wantArith != isSigned(d)) {
      DType twin = counterpartOfWidth(d, wantArith);
      Value *xs = emit(OpCode::Bitcast, {x}, x->type.withElement(Type::scalar(twin)), loc);
      Value *ys = emit(OpCode::Bitcast, {y}, y->type.withElement(Type::scalar(twin)), loc);
      Value *r = emit(OpCode::Shr, {xs, ys}, xs->type, loc);
      return SVal::tensor(emit(OpCode::Bitcast, {r}, x->type, loc));
    }
  }
  return SVal::tensor(emit(code, {x, y}, x->type, loc));
}

SVal Lowerer::compare(CmpOp op, const SVal &a, const SVal &b, SourceLoc loc) {
  if (op == CmpOp::Is || op == CmpOp::IsNot) {
    bool same;
    if (a.isNone() || b.isNone())
      same = a.isNone() && b.isNone();
    else if (a.isConst() && b.isConst())
      return compare(op == CmpOp::Is ? CmpOp::Eq : CmpOp::NotEq, a, b, loc);
    else
      error(loc, "'is' can only compare with None or compile-time values");
    return SVal::boolean(op == CmpOp::Is ? same : !same);
  }
  if (op == CmpOp::In || op == CmpOp::NotIn) {
    if (b.kind != SVal::Kind::Tuple || !a.isConst())
      error(loc, "'in' is only supported on compile-time tuples");
    bool found = false;
    for (const auto &e : b.elems)
      if (e.isConst() && compare(CmpOp::Eq, a, e, loc).i) found = true;
    return SVal::boolean(op == CmpOp::In ? found : !found);
  }
  if (a.isConst() && b.isConst()) {
    bool eq;
    if (a.isNumber() && b.isNumber()) {
      bool anyF = a.kind == SVal::Kind::Float || b.kind == SVal::Kind::Float;
      auto cmp3 = [&](auto x, auto y) {
        switch (op) {
          case CmpOp::Eq:
            return x == y;
          case CmpOp::NotEq:
            return x != y;
          case CmpOp::Lt:
            return x < y;
          case CmpOp::LtE:
            return x <= y;
          case CmpOp::Gt:
            return x > y;
          case CmpOp::GtE:
            return x >= y;
          default:
            return false;
        }
      };
      return SVal::boolean(anyF ? cmp3(a.asDouble(), b.asDouble()) : cmp3(a.wide(), b.wide()));
    }
    if (op != CmpOp::Eq && op != CmpOp::NotEq)
      error(loc, std::string("operator ") + ast::spelling(op) + " is not defined on " +
                     describe(a) + " and " + describe(b));
    if (a.kind != b.kind)
      eq = false;
    else if (a.kind == SVal::Kind::Str)
      eq = a.s == b.s;
    else if (a.kind == SVal::Kind::DType)
      eq = a.dtype == b.dtype && a.i == b.i;
    else if (a.kind == SVal::Kind::None)
      eq = true;
    else if (a.kind == SVal::Kind::ConstexprType)
      eq = compare(CmpOp::Eq, a.elems[0], b.elems[0], loc).i != 0;
    else if (a.kind == SVal::Kind::Tuple) {
      eq = a.elems.size() == b.elems.size();
      for (size_t k = 0; eq && k < a.elems.size(); ++k)
        eq = compare(CmpOp::Eq, a.elems[k], b.elems[k], loc).i != 0;
    } else
      eq = a.fn == b.fn && a.s == b.s;
    return SVal::boolean(op == CmpOp::Eq ? eq : !eq);
  }
  if (!(a.isTensor() || a.isNumber()) || !(b.isTensor() || b.isNumber()))
    error(loc, std::string("operator ") + ast::spelling(op) + " is not defined on " + describe(a) +
                   " and " + describe(b));
  requireRepresentable(a, loc);
  requireRepresentable(b, loc);
  Value *x, *y;
  bool aPtr = a.isTensor() && a.v->type.isPtrLike();
  bool bPtr = b.isTensor() && b.v->type.isPtrLike();
  if (aPtr || bPtr) {
    if (!(aPtr && bPtr)) error(loc, "a pointer can only be compared with another pointer");
    x = a.v;
    y = b.v;
  } else {
    DType d = promote(a, b, false, loc);
    x = toValue(a, loc, d);
    y = toValue(b, loc, d);
  }
  broadcastPair(x, y, loc);
  const char *pred = "eq";
  switch (op) {
    case CmpOp::Eq:
      pred = "eq";
      break;
    case CmpOp::NotEq:
      pred = "ne";
      break;
    case CmpOp::Lt:
      pred = "lt";
      break;
    case CmpOp::LtE:
      pred = "le";
      break;
    case CmpOp::Gt:
      pred = "gt";
      break;
    case CmpOp::GtE:
      pred = "ge";
      break;
    default:
      break;
  }
  return SVal::tensor(emit(OpCode::Cmp, {x, y}, x->type.withElement(Type::scalar(DType::I1)), loc,
                           {{"pred", std::string(pred)}}));
}

SVal Lowerer::unary(UnaryOp op, const SVal &a, SourceLoc loc) {
  // As in binary: a name bound by plain assignment holds a scalar tensor.
  if (a.assigned && a.isNumber() && (op == UnaryOp::Neg || op == UnaryOp::Invert))
    return unary(op, SVal::tensor(toValue(a, loc)), loc);
  if (a.isConst()) {
    switch (op) {
      case UnaryOp::Not:
        if (a.isNumber()) return SVal::boolean(a.asDouble() == 0);
        if (a.isNone()) return SVal::boolean(true);
        if (a.kind == SVal::Kind::Tuple) return SVal::boolean(a.elems.empty());
        if (a.kind == SVal::Kind::Str) return SVal::boolean(a.s.empty());
        return SVal::boolean(false);
      case UnaryOp::Neg:
        if (a.kind == SVal::Kind::Float) return SVal::floating(-a.f);
        if (a.isIntLike()) return exactInteger(-a.wide(), loc);
        break;
      case UnaryOp::Pos:
        if (a.isNumber()) return a.kind == SVal::Kind::Bool ? SVal::integer(a.i) : a;
        break;
      case UnaryOp::Invert:
        if (a.isIntLike()) return exactInteger(~a.wide(), loc);
        break;
    }
    error(loc, std::string("bad operand type for unary ") + ast::spelling(op) + ": " + describe(a));
  }
  if (!a.isTensor() || a.v->type.isPtrLike())
    error(loc, std::string("bad operand type for unary ") + ast::spelling(op) + ": " + describe(a));
  Value *v = a.v;
  switch (op) {
    case UnaryOp::Pos:
      return a;
    case UnaryOp::Neg:
      return SVal::tensor(emit(OpCode::Neg, {v}, v->type, loc));
    case UnaryOp::Invert:
      if (isFloat(v->type.dtype))
        error(loc, "operator ~ requires an integer operand, got " +
                       std::string(tritonName(v->type.dtype)));
      return SVal::tensor(emit(OpCode::Not, {v}, v->type, loc));
    case UnaryOp::Not:
      return compare(CmpOp::Eq, a, SVal::integer(0), loc);
  }
  return a;
}

}  // namespace tessera::frontend
