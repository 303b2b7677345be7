// Builtins: Triton's counter-based random numbers (randint, randint4x, rand,
// rand4x, randn, randn4x, philox), exactly as support/numerics.h states them.
// randint* lower to the `philox` op; the uint -> uniform float conversion and
// Box-Muller are built from ordinary IR ops, so the interpreter and the GPU
// evaluate the same operations in the same order.
#include <cstdint>

#include "frontend/builtin_util.h"
#include "support/numerics.h"

namespace tessera::frontend {

namespace {

using A = CallArgs;

// seed.to(uint64) with Triton's integer cast (extends by the source's sign).
Value *seed64(Lowerer &l, A &a) {
  const SVal &s = a["seed"];
  SourceLoc loc = a.locOf("seed");
  l.builder().setLoc(loc);
  if (s.isIntLike()) return l.constantInt(s.i, Type::scalar(DType::U64));
  if (!s.isTensor() || s.v->type.isPtrLike() || !isInt(s.v->type.dtype))
    l.error(loc, "the seed of " + a.name + " must be an integer, got " + describe(s),
            "pass an integer seed, e.g. a kernel argument `seed` of type int");
  if (s.v->type.isTile())
    l.error(loc, "the seed of " + a.name + " must be a scalar, got " + describe(s),
            "use one seed per program and vary the offset instead");
  return l.castTo(s.v, DType::U64, loc);
}

int64_t rounds(Lowerer &l, A &a) {
  int64_t n = l.constInt(a["n_rounds"], a.locOf("n_rounds"), "n_rounds");
  if (n <= 0) l.error(a.locOf("n_rounds"), "n_rounds must be positive, got " + std::to_string(n));
  return n;
}

// The four uint32 words of Philox4x32 with counter (offset_lo, offset_hi, 0, 0).
std::vector<Value *> randint4xImpl(Lowerer &l, A &a) {
  Value *seed = seed64(l, a);
  const SVal &o = a["offset"];
  SourceLoc loc = a.locOf("offset");
  Value *off = l.tensorArg(o, loc, "the offset of " + a.name);
  if (off->type.isPtrLike() || !isInt(off->type.dtype))
    l.error(loc,
            "the offset of " + a.name + " must be an integer tensor or scalar, got " + describe(o),
            "offsets are usually `pid * BLOCK + tl.arange(0, BLOCK)`");
  // The op reads the offset's raw bits as (low, high) words; narrower offsets
  // extend by their own sign first, as offset.to(tl.uint32) does.
  if (bitWidth(off->type.dtype) < 32) off = l.castTo(off, DType::U32, loc);
  Type t = off->type.withElement(Type::scalar(DType::U32));
  l.builder().setLoc(a.loc);
  Operation *op =
      l.builder().create(OpCode::Philox, {seed, off}, {t, t, t, t}, {{"rounds", rounds(l, a)}});
  return {op->result(0), op->result(1), op->result(2), op->result(3)};
}

// Triton's uint_to_uniform_float: fold negatives with ~s (as a signed
// integer of x's width), then one int->float conversion and one fp32
// multiply by the largest scale that keeps the result below 1.
Value *uniform(Lowerer &l, Value *x, SourceLoc loc) {
  bool wide = bitWidth(x->type.dtype) == 64;
  DType sd = wide ? DType::I64 : DType::I32;
  Type si = x->type.withElement(Type::scalar(sd));
  Type f32 = x->type.withElement(Type::scalar(DType::F32));
  Value *s = l.cast(x, Type::scalar(sd), loc, /*bitcast=*/true);
  l.builder().setLoc(loc);
  Value *zero = l.constantInt(0, si);
  Value *neg = l.emit(OpCode::Cmp, {s, zero}, x->type.withElement(Type::scalar(DType::I1)), loc,
                      {{"pred", std::string("lt")}});
  Value *folded = l.emit(OpCode::Select, {neg, l.emit(OpCode::Not, {s}, si, loc), s}, si, loc);
  Value *f = l.castTo(folded, DType::F32, loc);
  l.builder().setLoc(loc);
  float scale = wide ? 1.0842020432385337e-19f : 4.6566127342e-10f;
  return l.emit(OpCode::Mul, {f, l.constant(static_cast<double>(scale), f32)}, f32, loc);
}

// Triton's pair_uniform_to_normal (Box-Muller), all in fp32.
std::pair<Value *, Value *> pairToNormal(Lowerer &l, Value *u1, Value *u2, SourceLoc loc) {
  Type t = u1->type;
  l.builder().setLoc(loc);
  Value *tiny = l.constant(static_cast<double>(1.0e-7f), t);
  u1 = l.emit(OpCode::Max, {tiny, u1}, t, loc, {{"propagate_nan", int64_t{0}}});
  l.builder().setLoc(loc);
  Value *twoPi = l.constant(static_cast<double>(6.283185307179586f), t);
  Value *th = l.emit(OpCode::Mul, {twoPi, u2}, t, loc);
  l.builder().setLoc(loc);
  Value *minus2 = l.constant(-2.0, t);
  Value *lg = l.emit(OpCode::Log, {u1}, t, loc);
  Value *r = l.emit(OpCode::Sqrt, {l.emit(OpCode::Mul, {minus2, lg}, t, loc)}, t, loc);
  Value *n1 = l.emit(OpCode::Mul, {r, l.emit(OpCode::Cos, {th}, t, loc)}, t, loc);
  Value *n2 = l.emit(OpCode::Mul, {r, l.emit(OpCode::Sin, {th}, t, loc)}, t, loc);
  return {n1, n2};
}

SVal tuple4(const std::vector<Value *> &v) {
  return SVal::tuple(
      {SVal::tensor(v[0]), SVal::tensor(v[1]), SVal::tensor(v[2]), SVal::tensor(v[3])});
}

SVal randint(Lowerer &l, A &a) {
  return SVal::tensor(randint4xImpl(l, a)[0]);
}
SVal randint4x(Lowerer &l, A &a) {
  return tuple4(randint4xImpl(l, a));
}

SVal rand(Lowerer &l, A &a) {
  return SVal::tensor(uniform(l, randint4xImpl(l, a)[0], a.loc));
}

SVal rand4x(Lowerer &l, A &a) {
  std::vector<Value *> r = randint4xImpl(l, a);
  for (Value *&v : r) v = uniform(l, v, a.loc);
  return tuple4(r);
}

SVal randn(Lowerer &l, A &a) {
  std::vector<Value *> r = randint4xImpl(l, a);
  Value *u1 = uniform(l, r[0], a.loc), *u2 = uniform(l, r[1], a.loc);
  return SVal::tensor(pairToNormal(l, u1, u2, a.loc).first);
}

SVal randn4x(Lowerer &l, A &a) {
  std::vector<Value *> r = randint4xImpl(l, a);
  for (Value *&v : r) v = uniform(l, v, a.loc);
  auto [n1, n2] = pairToNormal(l, r[0], r[1], a.loc);
  auto [n3, n4] = pairToNormal(l, r[2], r[3], a.loc);
  return tuple4({n1, n2, n3, n4});
}

// tl.uint_to_uniform_float: what tl.rand applies to tl.randint's output, for
// 32- and 64-bit integers.
SVal uintToUniformFloat(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["x"], a.locOf("x"), "the random integers");
  DType d = x->type.dtype;
  if (x->type.isPtrLike() ||
      !(d == DType::I32 || d == DType::U32 || d == DType::I64 || d == DType::U64))
    l.error(a.locOf("x"),
            "tl.uint_to_uniform_float takes 32- or 64-bit integers, got " + describe(a["x"]),
            "pass what tl.randint or tl.randint4x returned");
  return SVal::tensor(uniform(l, x, a.loc));
}

// tl.pair_uniform_to_normal: Box-Muller on two uniform tensors (fp32).
SVal pairUniformToNormal(Lowerer &l, A &a) {
  Value *u1 = l.tensorArg(a["u1"], a.locOf("u1"), "u1");
  Value *u2 = l.tensorArg(a["u2"], a.locOf("u2"), "u2");
  for (auto [v, n] : {std::pair{u1, "u1"}, std::pair{u2, "u2"}})
    if (v->type.isPtrLike() || !isFloat(v->type.dtype))
      l.error(a.locOf(n), std::string("tl.pair_uniform_to_normal: ") + n +
                              " must be a float tensor of uniform values, got " + describe(a[n]));
  u1 = l.castTo(u1, DType::F32, a.loc);
  u2 = l.castTo(u2, DType::F32, a.loc);
  l.broadcastPair(u1, u2, a.loc);
  auto [n1, n2] = pairToNormal(l, u1, u2, a.loc);
  return SVal::tuple({SVal::tensor(n1), SVal::tensor(n2)});
}

// tl.philox with arbitrary counters: the rounds written out with umulhi,
// mul, xor and add (the `philox` op only covers counters (lo, hi, 0, 0)).
SVal philox(Lowerer &l, A &a) {
  Value *seed = seed64(l, a);
  const char *names[] = {"c0", "c1", "c2", "c3"};
  Value *c0 = l.tensorArg(a["c0"], a.locOf("c0"), "the counter c0");
  if (c0->type.isPtrLike()) l.error(a.locOf("c0"), "tl.philox counters must be integers");
  int w = bitWidth(c0->type.dtype);
  if (w != 32 && w != 64)
    l.error(a.locOf("c0"),
            "bitwidth not supported in philox: the counters must be 32 or 64 bits, got " +
                describe(a["c0"]));
  DType ud = w == 32 ? DType::U32 : DType::U64;
  std::vector<Value *> c;
  std::vector<int64_t> shape;
  for (const char *n : names) {
    const SVal &v = a[n];
    Value *x;
    if (v.isIntLike()) {
      x = l.toValue(v, a.locOf(n), ud);
    } else {
      x = l.tensorArg(v, a.locOf(n), std::string("the counter ") + n);
      if (x->type.isPtrLike() || bitWidth(x->type.dtype) != w)
        l.error(a.locOf(n), std::string("tl.philox counter ") + n + " must be a " +
                                std::to_string(w) + "-bit value like c0, got " + describe(v));
      x = l.cast(x, Type::scalar(ud), a.locOf(n), /*bitcast=*/true);
    }
    shape = l.broadcastShapes(shape, x->type.shape, a.loc);
    c.push_back(x);
  }
  for (Value *&x : c) x = l.broadcastTo(x, shape, a.loc);
  SourceLoc loc = a.loc;
  Type st = Type::scalar(ud), t = tileOf(shape, ud);
  l.builder().setLoc(loc);
  Value *k0, *k1;
  if (w == 32) {
    k0 = l.castTo(seed, DType::U32, loc);
    l.builder().setLoc(loc);
    Value *sh =
        l.emit(OpCode::Shr, {seed, l.constantInt(32, Type::scalar(DType::U64))}, seed->type, loc);
    k1 = l.castTo(sh, DType::U32, loc);
  } else {
    k0 = seed;
    k1 = l.constantInt(0, st);
  }
  auto bits = [&](uint64_t v32, uint64_t v64) {
    l.builder().setLoc(loc);
    return l.constantInt(static_cast<int64_t>(w == 32 ? v32 : v64), t);
  };
  auto scalarBits = [&](uint64_t v32, uint64_t v64) {
    l.builder().setLoc(loc);
    return l.constantInt(static_cast<int64_t>(w == 32 ? v32 : v64), st);
  };
  Value *ra = bits(num::kPhilox32RoundA, num::kPhilox64RoundA);
  Value *rb = bits(num::kPhilox32RoundB, num::kPhilox64RoundB);
  Value *ka = scalarBits(num::kPhilox32KeyA, num::kPhilox64KeyA);
  Value *kb = scalarBits(num::kPhilox32KeyB, num::kPhilox64KeyB);
  int64_t n = rounds(l, a);
  for (int64_t r = 0; r < n; ++r) {
    Value *key0 = l.broadcastTo(k0, shape, loc), *key1 = l.broadcastTo(k1, shape, loc);
    Value *hiB = l.emit(OpCode::Umulhi, {rb, c[2]}, t, loc);
    Value *hiA = l.emit(OpCode::Umulhi, {ra, c[0]}, t, loc);
    Value *n0 = l.emit(OpCode::Xor, {l.emit(OpCode::Xor, {hiB, c[1]}, t, loc), key0}, t, loc);
    Value *n2 = l.emit(OpCode::Xor, {l.emit(OpCode::Xor, {hiA, c[3]}, t, loc), key1}, t, loc);
    Value *n1 = l.emit(OpCode::Mul, {rb, c[2]}, t, loc);
    Value *n3 = l.emit(OpCode::Mul, {ra, c[0]}, t, loc);
    c = {n0, n1, n2, n3};
    k0 = l.emit(OpCode::Add, {k0, ka}, st, loc);
    k1 = l.emit(OpCode::Add, {k1, kb}, st, loc);
  }
  return tuple4(c);
}

}  // namespace

std::vector<BuiltinDef> randomBuiltins() {
  return {
      {"tl.randint", {"seed", "offset", "n_rounds=10"}, randint},
      {"tl.randint4x", {"seed", "offset", "n_rounds=10"}, randint4x},
      {"tl.rand", {"seed", "offset", "n_rounds=10"}, rand},
      {"tl.rand4x", {"seed", "offset", "n_rounds=10"}, rand4x},
      {"tl.randn", {"seed", "offset", "n_rounds=10"}, randn},
      {"tl.randn4x", {"seed", "offset", "n_rounds=10"}, randn4x},
      {"tl.philox", {"seed", "c0", "c1", "c2", "c3", "n_rounds=10"}, philox},
      {"tl.uint_to_uniform_float", {"x"}, uintToUniformFloat},
      {"tl.pair_uniform_to_normal", {"u1", "u2"}, pairUniformToNormal},
  };
}

}  // namespace tessera::frontend
