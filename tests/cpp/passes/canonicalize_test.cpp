#include <cmath>

#include "pass_test_util.h"
#include "passes/passes.h"
#include "support/numerics.h"

namespace tessera::testing {
namespace {

using OC = OpCode;
const Type i32 = S(DType::I32), i8 = S(DType::I8), u8 = S(DType::U8), u32 = S(DType::U32),
           i64 = S(DType::I64), f32 = S(DType::F32), f16 = S(DType::F16), i1 = S(DType::I1),
           bf16 = S(DType::BF16), f64 = S(DType::F64), u64 = S(DType::U64);

// Folds `c(x, y)` of two constants and returns the folded integer.
std::optional<int64_t> foldInt(OC c, int64_t x, int64_t y, Type t) {
  Fn f;
  Value *r = f.bin(c, f.ci(x, t), f.ci(y, t));
  f.finish({r});
  canonicalize(f.m);
  return constInt(f.ret());
}

std::optional<double> foldFloat(OC c, double x, double y, Type t,
                                std::vector<NamedAttr> attrs = {}) {
  Fn f;
  Value *r = f.bin(c, f.cf(x, t), f.cf(y, t), attrs);
  f.finish({r});
  canonicalize(f.m);
  return constFloat(f.ret());
}

TEST(Canonicalize, IntegerArithmeticWrapsAtWidth) {
  EXPECT_EQ(foldInt(OC::Add, 3, 4, i32), 7);
  EXPECT_EQ(foldInt(OC::Add, 100, 100, i8), -56);
  EXPECT_EQ(foldInt(OC::Add, 200, 100, u8), 44);
  EXPECT_EQ(foldInt(OC::Sub, 0, 1, u32), 0xFFFFFFFFll);
  EXPECT_EQ(foldInt(OC::Mul, 0x10000, 0x10000, i32), 0);
  EXPECT_EQ(foldInt(OC::Mul, INT64_MAX, 2, i64), -2);
  EXPECT_EQ(foldInt(OC::Sub, INT32_MIN, 1, i32), INT32_MAX);
}

TEST(Canonicalize, IntegerDivisionIsCStyle) {
  EXPECT_EQ(foldInt(OC::Div, -7, 2, i32), -3);
  EXPECT_EQ(foldInt(OC::Rem, -7, 2, i32), -1);
  EXPECT_EQ(foldInt(OC::Rem, 7, -2, i32), 1);
  EXPECT_EQ(foldInt(OC::Div, 250, 7, u8), 35);
  EXPECT_EQ(foldInt(OC::Div, -1, 2, u32), 0x7FFFFFFF);
}

TEST(Canonicalize, DivisionByZeroAndOverflowAreNotFolded) {
  EXPECT_EQ(foldInt(OC::Div, 7, 0, i32), std::nullopt);
  EXPECT_EQ(foldInt(OC::Rem, 7, 0, u32), std::nullopt);
  EXPECT_EQ(foldInt(OC::Div, INT32_MIN, -1, i32), std::nullopt);
  EXPECT_EQ(foldInt(OC::Rem, -128, -1, i8), std::nullopt);
  EXPECT_EQ(foldFloat(OC::Div, 1.0, 0.0, f32), std::nullopt);
  EXPECT_EQ(foldFloat(OC::Rem, 1.0, 0.0, f32), std::nullopt);
}

TEST(Canonicalize, Shifts) {
  EXPECT_EQ(foldInt(OC::Shl, 1, 31, i32), INT32_MIN);
  EXPECT_EQ(foldInt(OC::Shr, -8, 1, i32), -4);     // arithmetic
  EXPECT_EQ(foldInt(OC::Shr, 0xF0, 4, u8), 0x0F);  // logical
  EXPECT_EQ(foldInt(OC::Shl, 1, 32, i32), std::nullopt);
  EXPECT_EQ(foldInt(OC::Shr, 1, -1, i32), std::nullopt);
}

TEST(Canonicalize, BitwiseAndMinMax) {
  EXPECT_EQ(foldInt(OC::And, 0xF0, 0x3C, i32), 0x30);
  EXPECT_EQ(foldInt(OC::Or, 0xF0, 0x0F, u8), 0xFF);
  EXPECT_EQ(foldInt(OC::Xor, -1, 1, i8), -2);
  EXPECT_EQ(foldInt(OC::Max, -1, 1, i32), 1);
  EXPECT_EQ(foldInt(OC::Max, 0xFF, 1, u8), 0xFF);  // unsigned compare
  EXPECT_EQ(foldInt(OC::Min, 0xFF, 1, u8), 1);
  EXPECT_EQ(foldInt(OC::Umulhi, 0x7FFFFFFF, 4, i32), 1);
}

TEST(Canonicalize, FloatsRoundToTheirDtype) {
  EXPECT_EQ(foldFloat(OC::Add, 0.1, 0.2, f32),
            num::roundF32(num::roundF32(0.1) + num::roundF32(0.2)));
  EXPECT_EQ(foldFloat(OC::Add, 1.0, 0.0001, f16), 1.0);
  EXPECT_EQ(foldFloat(OC::Add, 2048, 1, f16), 2048);  // tie to even
  EXPECT_EQ(foldFloat(OC::Add, 2048, 3, f16), 2052);
  EXPECT_EQ(foldFloat(OC::Add, 1, 1.0 / 256, bf16), 1.0);  // tie to even
  EXPECT_EQ(foldFloat(OC::Add, 1, 3.0 / 256, bf16), 1.015625);
  EXPECT_EQ(foldFloat(OC::Add, 400, 100, S(DType::F8E4NV)), 448);  // satfinite
  EXPECT_EQ(foldFloat(OC::Mul, 60000, 2, f16), INFINITY);
  EXPECT_EQ(foldFloat(OC::Div, 1, 3, f64), 1.0 / 3.0);
}

TEST(Canonicalize, FloatMinMaxNaNAndSignedZeros) {
  EXPECT_EQ(foldFloat(OC::Max, NAN, 1, f32), 1);
  auto p = foldFloat(OC::Max, NAN, 1, f32, {{"propagate_nan", int64_t{1}}});
  ASSERT_TRUE(p);
  EXPECT_TRUE(std::isnan(*p));
  // -0.0 orders below +0.0 (PTX min/max and the interpreter alike).
  auto z = foldFloat(OC::Max, -0.0, 0.0, f32);
  ASSERT_TRUE(z);
  EXPECT_FALSE(std::signbit(*z));
  z = foldFloat(OC::Max, 0.0, -0.0, f32);
  ASSERT_TRUE(z);
  EXPECT_FALSE(std::signbit(*z));
  z = foldFloat(OC::Min, 0.0, -0.0, f32);
  ASSERT_TRUE(z);
  EXPECT_TRUE(std::signbit(*z));
  EXPECT_EQ(foldFloat(OC::Min, -2, 3, f32), -2);
}

TEST(Canonicalize, Compare) {
  auto cmp = [](const char *p, double x, double y, Type t) {
    Fn f;
    Value *a = t.isFloatLike() ? f.cf(x, t) : f.ci(static_cast<int64_t>(x), t);
    Value *b = t.isFloatLike() ? f.cf(y, t) : f.ci(static_cast<int64_t>(y), t);
    f.finish({f.cmp(p, a, b)});
    canonicalize(f.m);
    return constInt(f.ret());
  };
  EXPECT_EQ(cmp("lt", -1, 1, i32), 1);
  EXPECT_EQ(cmp("lt", -1, 1, u32), 0);  // 0xFFFFFFFF < 1 is false
  EXPECT_EQ(cmp("ge", 3, 3, i32), 1);
  EXPECT_EQ(cmp("ne", NAN, NAN, f32), 1);
  EXPECT_EQ(cmp("eq", NAN, NAN, f32), 0);
  EXPECT_EQ(cmp("lt", NAN, 1, f32), 0);
  EXPECT_EQ(cmp("ge", NAN, 1, f32), 0);
  EXPECT_EQ(cmp("gt", 2.5, 1, f32), 1);
}

std::optional<double> castF(double x, Type from, Type to, std::vector<NamedAttr> a = {}) {
  Fn f;
  Value *c = from.isFloatLike() ? f.cf(x, from) : f.ci(static_cast<int64_t>(x), from);
  f.finish({f.un(OC::Cast, c, to, a)});
  canonicalize(f.m);
  if (auto i = constInt(f.ret())) return static_cast<double>(*i);
  return constFloat(f.ret());
}

TEST(Canonicalize, Casts) {
  EXPECT_EQ(castF(-2.7, f32, i32), -2);
  EXPECT_EQ(castF(3e9, f32, i32), std::nullopt);  // out of range
  EXPECT_EQ(castF(NAN, f32, i32), std::nullopt);
  EXPECT_EQ(castF(-1, f32, u8), std::nullopt);
  EXPECT_EQ(castF(2049, i32, f16), 2048);
  EXPECT_EQ(castF(5, i32, i1), 1);
  EXPECT_EQ(castF(0.5, f32, i1), 1);
  EXPECT_EQ(castF(0, f32, i1), 0);
  EXPECT_EQ(castF(200, u8, i32), 200);
  EXPECT_EQ(castF(-1, i8, u32), 0xFFFFFFFFu);
  EXPECT_EQ(castF(300, i32, i8), 44);
  EXPECT_EQ(castF(0.1, f32, f16), num::fromF16(num::toF16(num::roundF32(0.1))));
  EXPECT_EQ(castF(0.1, f32, f16, {{"rounding", std::string("rtz")}}), std::nullopt);
  EXPECT_EQ(castF(0.5, f32, f16, {{"rounding", std::string("rtz")}}), 0.5);
  EXPECT_EQ(castF(1, i1, f32), 1.0);
  EXPECT_EQ(castF(1000, f32, S(DType::F8E4NV)), 448);
}

TEST(Canonicalize, Bitcasts) {
  EXPECT_EQ(castF(0, f32, f32), 0);  // sanity of the helper
  Fn f;
  Value *a = f.un(OC::Bitcast, f.cf(1.0, f32), i32);
  Value *b = f.un(OC::Bitcast, f.ci(0x3c00, S(DType::I16)), f16);
  Value *c = f.un(OC::Bitcast, f.ci(-1, i32), u32);
  Value *d = f.un(OC::Bitcast, f.ci(0x7fc00000, i32), f32);  // NaN: not folded
  Value *e = f.un(OC::Bitcast, f.cf(-0.0, f64), i64);
  f.finish({a, b, c, d, e});
  canonicalize(f.m);
  EXPECT_EQ(constInt(f.ret(0)), 0x3f800000);
  EXPECT_EQ(constFloat(f.ret(1)), 1.0);
  EXPECT_EQ(constInt(f.ret(2)), 0xFFFFFFFFll);
  EXPECT_EQ(f.ret(3)->def->code, OC::Bitcast);
  EXPECT_EQ(constInt(f.ret(4)), INT64_MIN);
}

TEST(Canonicalize, ShapeOpsOfConstantsAreConstants) {
  Fn f;
  Value *s = f.b.op1(OC::Splat, {f.ci(3)}, T({4}, DType::I32));
  Value *e = f.b.op1(OC::ExpandDims, {s}, T({1, 4}, DType::I32), {{"axis", int64_t{0}}});
  Value *br = f.b.op1(OC::Broadcast, {e}, T({8, 4}, DType::I32));
  Value *r = f.b.op1(OC::Reshape, {br}, T({32}, DType::I32));
  Value *p =
      f.b.op1(OC::Permute, {br}, T({4, 8}, DType::I32), {{"order", std::vector<int64_t>{1, 0}}});
  f.finish({r, p});
  canonicalize(f.m);
  EXPECT_EQ(constInt(f.ret(0)), 3);
  EXPECT_EQ(f.ret(0)->type, T({32}, DType::I32));
  EXPECT_EQ(constInt(f.ret(1)), 3);
  EXPECT_EQ(countAllOps(*f.fn), 3);  // two constants and the return
}

TEST(Canonicalize, ElementwiseOnSplatTiles) {
  Fn f;
  Type t = T({16}, DType::F16);
  f.finish({f.bin(OC::Mul, f.cf(3, t), f.cf(0.5, t))});
  canonicalize(f.m);
  EXPECT_EQ(constFloat(f.ret()), 1.5);
  EXPECT_EQ(f.ret()->type, t);
}

TEST(Canonicalize, MultiOperandShapeOpsOfConstants) {
  Fn f({T({4}, DType::I32)});
  Type t4 = T({4}, DType::I32);
  Value *j = f.b.op1(OC::Join, {f.ci(5, t4), f.ci(5, t4)}, T({4, 2}, DType::I32));
  Value *jd = f.b.op1(OC::Join, {f.ci(5, t4), f.ci(6, t4)}, T({4, 2}, DType::I32));
  Value *c = f.b.op1(OC::Cat, {f.ci(7, t4), f.ci(7, t4)}, T({8}, DType::I32));
  Operation *sp = f.b.create(OC::Split, {f.ci(9, T({4, 2}, DType::I32))}, {t4, t4});
  Value *g = f.b.op1(OC::Gather, {f.ci(3, t4), f.arg(0)}, t4, {{"axis", int64_t{0}}});
  f.finish({j, jd, c, sp->result(0), sp->result(1), g});
  canonicalize(f.m);
  EXPECT_EQ(constInt(f.ret(0)), 5);
  EXPECT_EQ(f.ret(1)->def->code, OC::Join);  // different halves are not a splat
  EXPECT_EQ(constInt(f.ret(2)), 7);
  EXPECT_EQ(constInt(f.ret(3)), 9);
  EXPECT_EQ(constInt(f.ret(4)), 9);
  EXPECT_EQ(constInt(f.ret(5)), 3);
}

TEST(Canonicalize, MathFmaClampAndUnaryOps) {
  Fn f;
  Value *e = f.un(OC::Exp, f.cf(0), f32);
  Value *sq = f.un(OC::Sqrt, f.cf(2), f32);
  Value *fm = f.b.op1(OC::Fma, {f.cf(2), f.cf(3), f.cf(1)}, f32);
  Value *fm16 = f.b.op1(OC::Fma, {f.cf(2, f16), f.cf(3, f16), f.cf(1, f16)}, f16);
  Value *cl = f.b.op1(OC::Clamp, {f.cf(5), f.cf(0), f.cf(1)}, f32);
  Value *ab = f.un(OC::Abs, f.ci(INT32_MIN), i32);
  Value *ng = f.un(OC::Neg, f.ci(5, u8), u8);
  Value *nt = f.un(OC::Not, f.ci(1, i1), i1);
  Value *fl = f.un(OC::Floor, f.cf(-1.5), f32);
  f.finish({e, sq, fm, fm16, cl, ab, ng, nt, fl});
  canonicalize(f.m);
  EXPECT_EQ(constFloat(f.ret(0)), 1.0);
  EXPECT_EQ(constFloat(f.ret(1)), num::roundF32(std::sqrt(2.0)));
  EXPECT_EQ(constFloat(f.ret(2)), 7.0);
  EXPECT_EQ(f.ret(3)->def->code, OC::Fma);  // would round twice: left to run time
  EXPECT_EQ(constFloat(f.ret(4)), 1.0);
  EXPECT_EQ(constInt(f.ret(5)), INT32_MIN);
  EXPECT_EQ(constInt(f.ret(6)), 251);
  EXPECT_EQ(constInt(f.ret(7)), 0);
  EXPECT_EQ(constFloat(f.ret(8)), -2.0);
}

TEST(Canonicalize, ChainsFoldToAFixedPoint) {
  Fn f;
  Value *x = f.bin(OC::Add, f.ci(2), f.ci(3));
  Value *y = f.bin(OC::Mul, x, f.ci(4));
  Value *z = f.bin(OC::Sub, y, f.ci(1));
  Value *m = f.b.op1(OC::Splat, {z}, T({8}, DType::I32));
  f.finish({f.bin(OC::Shl, m, f.b.op1(OC::Splat, {f.ci(1)}, T({8}, DType::I32)))});
  canonicalize(f.m);
  EXPECT_EQ(constInt(f.ret()), 38);
  EXPECT_EQ(countAllOps(*f.fn), 2);
}

Value *simplifyWith(Fn &f, Value *x, OC c, Value *k, bool left) {
  Value *r = left ? f.bin(c, k, x) : f.bin(c, x, k);
  f.finish({r});
  canonicalize(f.m);
  return f.ret();
}

TEST(Canonicalize, IntegerIdentities) {
  struct Case {
    OC code;
    int64_t k;
    bool left;
  };
  for (Case c : {Case{OC::Add, 0, false}, Case{OC::Add, 0, true}, Case{OC::Sub, 0, false},
                 Case{OC::Mul, 1, false}, Case{OC::Mul, 1, true}, Case{OC::Div, 1, false},
                 Case{OC::Or, 0, false}, Case{OC::Or, 0, true}, Case{OC::And, -1, false},
                 Case{OC::And, -1, true}, Case{OC::Xor, 0, false}, Case{OC::Shl, 0, false},
                 Case{OC::Shr, 0, false}}) {
    Fn f({T({16}, DType::I32)});
    Value *k = f.b.op1(OC::Splat, {f.ci(c.k)}, T({16}, DType::I32));
    EXPECT_EQ(simplifyWith(f, f.arg(0), c.code, k, c.left), f.arg(0))
        << opInfo(c.code).mnemonic << " " << c.k;
    EXPECT_EQ(countAllOps(*f.fn), 1);
  }
}

TEST(Canonicalize, IntegerAbsorbingIdentities) {
  for (auto [code, k, expect] :
       {std::tuple{OC::Mul, int64_t{0}, int64_t{0}}, std::tuple{OC::And, int64_t{0}, int64_t{0}},
        std::tuple{OC::Or, int64_t{-1}, int64_t{255}}}) {
    Fn f({u8});
    EXPECT_EQ(constInt(simplifyWith(f, f.arg(0), code, f.ci(k, u8), false)), expect);
  }
  Fn f({i32});
  f.finish({f.bin(OC::Sub, f.arg(0), f.arg(0)), f.bin(OC::Xor, f.arg(0), f.arg(0)),
            f.bin(OC::And, f.arg(0), f.arg(0)), f.bin(OC::Max, f.arg(0), f.arg(0)),
            f.cmp("le", f.arg(0), f.arg(0)), f.cmp("ne", f.arg(0), f.arg(0))});
  canonicalize(f.m);
  EXPECT_EQ(constInt(f.ret(0)), 0);
  EXPECT_EQ(constInt(f.ret(1)), 0);
  EXPECT_EQ(f.ret(2), f.arg(0));
  EXPECT_EQ(f.ret(3), f.arg(0));
  EXPECT_EQ(constInt(f.ret(4)), 1);
  EXPECT_EQ(constInt(f.ret(5)), 0);
}

TEST(Canonicalize, FloatIdentitiesOnlyWhenExact) {
  auto run = [](OC c, double k, bool left) {
    Fn f({f32});
    Value *r = simplifyWith(f, f.arg(0), c, f.cf(k), left);
    return r == f.arg(0);
  };
  EXPECT_TRUE(run(OC::Mul, 1.0, false));
  EXPECT_TRUE(run(OC::Mul, 1.0, true));
  EXPECT_TRUE(run(OC::Div, 1.0, false));
  EXPECT_TRUE(run(OC::Add, -0.0, false));  // x + -0.0 == x, even for x = -0.0
  EXPECT_TRUE(run(OC::Add, -0.0, true));
  EXPECT_TRUE(run(OC::Sub, 0.0, false));
  // Not identities under IEEE: -0.0 + 0.0 = +0.0, NaN * 0 = NaN, inf * 0 = NaN.
  EXPECT_FALSE(run(OC::Add, 0.0, false));
  EXPECT_FALSE(run(OC::Sub, -0.0, false));
  EXPECT_FALSE(run(OC::Mul, 0.0, false));
  EXPECT_FALSE(run(OC::Mul, 0.0, true));
  EXPECT_FALSE(run(OC::Div, 1.0, true));
  Fn f({f32});
  f.finish({f.bin(OC::Sub, f.arg(0), f.arg(0))});  // inf - inf is NaN
  canonicalize(f.m);
  EXPECT_EQ(f.ret()->def->code, OC::Sub);
}

TEST(Canonicalize, SelectWithConstantCondition) {
  Fn f({i32, i32, i1});
  Value *t = f.b.op1(OC::Select, {f.ci(1, i1), f.arg(0), f.arg(1)}, i32);
  Value *e = f.b.op1(OC::Select, {f.ci(0, i1), f.arg(0), f.arg(1)}, i32);
  Value *same = f.b.op1(OC::Select, {f.arg(2), f.arg(0), f.arg(0)}, i32);
  Value *keep = f.b.op1(OC::Select, {f.arg(2), f.arg(0), f.arg(1)}, i32);
  f.finish({t, e, same, keep});
  canonicalize(f.m);
  EXPECT_EQ(f.ret(0), f.arg(0));
  EXPECT_EQ(f.ret(1), f.arg(1));
  EXPECT_EQ(f.ret(2), f.arg(0));
  EXPECT_EQ(f.ret(3)->def->code, OC::Select);
}

TEST(Canonicalize, NoOpShapeAndTypeChanges) {
  Type t = T({4, 8}, DType::F32);
  Fn f({t});
  Value *x = f.arg(0);
  Value *c = f.un(OC::Cast, x, t);
  Value *bc = f.un(OC::Bitcast, x, t);
  Value *br = f.un(OC::Broadcast, x, t);
  Value *rs = f.un(OC::Reshape, x, t);
  Value *pi = f.un(OC::Permute, x, t, {{"order", std::vector<int64_t>{0, 1}}});
  Value *p1 = f.un(OC::Permute, x, T({8, 4}, DType::F32), {{"order", std::vector<int64_t>{1, 0}}});
  Value *p2 = f.un(OC::Permute, p1, t, {{"order", std::vector<int64_t>{1, 0}}});
  Value *r1 = f.un(OC::Reshape, x, T({32}, DType::F32));
  Value *r2 = f.un(OC::Reshape, r1, t);
  f.finish({c, bc, br, rs, pi, p2, r2});
  canonicalize(f.m);
  for (unsigned i = 0; i < 7; ++i) EXPECT_EQ(f.ret(i), x) << i;
  EXPECT_EQ(countAllOps(*f.fn), 1);
}

TEST(Canonicalize, DoublePermuteComposes) {
  Type t = T({2, 4, 8}, DType::I32);
  Fn f({t});
  Value *p1 = f.un(OC::Permute, f.arg(0), T({4, 8, 2}, DType::I32),
                   {{"order", std::vector<int64_t>{1, 2, 0}}});
  Value *p2 =
      f.un(OC::Permute, p1, T({8, 4, 2}, DType::I32), {{"order", std::vector<int64_t>{1, 0, 2}}});
  f.finish({p2});
  canonicalize(f.m);
  Operation *op = f.ret()->def;
  ASSERT_EQ(op->code, OC::Permute);
  EXPECT_EQ(op->operand(0), f.arg(0));
  EXPECT_EQ(op->intsAttr("order"), (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(countOps(*f.fn, OC::Permute), 1);
}

TEST(Canonicalize, ShapeOpsOfASplatAreSplats) {
  Fn f({f32});
  Value *s = f.un(OC::Splat, f.arg(0), T({1, 8}, DType::F32));
  Value *b = f.un(OC::Broadcast, s, T({4, 8}, DType::F32));
  Value *r = f.un(OC::Reshape, b, T({32}, DType::F32));
  Value *e = f.un(OC::ExpandDims, r, T({1, 32}, DType::F32), {{"axis", int64_t{0}}});
  f.finish({b, e});
  canonicalize(f.m);
  for (unsigned i = 0; i < 2; ++i) {
    ASSERT_EQ(f.ret(i)->def->code, OC::Splat);
    EXPECT_EQ(f.ret(i)->def->operand(0), f.arg(0));
  }
  EXPECT_EQ(f.ret(1)->type, T({1, 32}, DType::F32));
  EXPECT_EQ(countOps(*f.fn, OC::Splat), 2);
}

TEST(Canonicalize, HintsAreKept) {
  Fn f;
  Value *h = f.un(OC::Hint, f.ci(16), i32, {{"divisibility", std::vector<int64_t>{16}}});
  f.finish({h});
  canonicalize(f.m);
  EXPECT_EQ(f.ret()->def->code, OC::Hint);
}

TEST(Canonicalize, IfWithConstantCondition) {
  for (int cond : {0, 1}) {
    Fn f({P(DType::F32), f32});
    Operation *ifop = f.ifOp(f.ci(cond, i1), {f32});
    inside(f, ifop->regions[0].get(), [&] {
      Value *v = f.bin(OC::Add, f.arg(1), f.arg(1));
      f.store(f.arg(0), v);
      f.b.create(OC::Yield, {v}, {});
    });
    inside(f, ifop->regions[1].get(), [&] { f.b.create(OC::Yield, {f.arg(1)}, {}); });
    f.finish({ifop->result()});
    canonicalize(f.m);
    EXPECT_EQ(countOps(*f.fn, OC::If), 0);
    EXPECT_EQ(countOps(*f.fn, OC::Store), cond);
    if (cond)
      EXPECT_EQ(f.ret()->def->code, OC::Add);
    else
      EXPECT_EQ(f.ret(), f.arg(1));
  }
}

TEST(Canonicalize, IfWithUnknownConditionStays) {
  Fn f({i1, f32});
  Operation *ifop = f.ifOp(f.arg(0), {f32});
  inside(f, ifop->regions[0].get(), [&] { f.b.create(OC::Yield, {f.arg(1)}, {}); });
  inside(f, ifop->regions[1].get(), [&] { f.b.create(OC::Yield, {f.cf(0)}, {}); });
  f.finish({ifop->result()});
  canonicalize(f.m);
  EXPECT_EQ(countOps(*f.fn, OC::If), 1);
}

TEST(Canonicalize, ZeroTripForIsItsInits) {
  auto run = [](int64_t lb, int64_t ub, int64_t step, bool sameBounds) {
    Fn f({P(DType::F32), f32, i32});
    Value *l = f.ci(lb);
    Value *u = sameBounds ? l : (ub == 999 ? f.arg(2) : f.ci(ub));
    Operation *loop = f.forOp(l, u, f.ci(step), {f.arg(1)});
    inside(f, loop->regions[0].get(), [&] {
      f.store(f.arg(0), loop->regions[0]->args[1].get());
      f.b.create(OC::Yield, {loop->regions[0]->args[1].get()}, {});
    });
    f.finish({loop->result()});
    canonicalize(f.m);
    return countOps(*f.fn, OC::For) == 0 && f.ret() == f.arg(1);
  };
  EXPECT_TRUE(run(4, 4, 1, false));
  EXPECT_TRUE(run(8, 4, 1, false));
  EXPECT_TRUE(run(0, 0, 0, true));      // lb and ub the same value
  EXPECT_TRUE(run(0, 999, 1, true));    // same value, unknown
  EXPECT_FALSE(run(0, 4, 1, false));    // runs
  EXPECT_FALSE(run(0, 999, 1, false));  // unknown ub
  EXPECT_FALSE(run(8, 4, -1, false));   // negative step: not provable here
}

TEST(Canonicalize, UnusedPureOpsAreErasedButEffectsStay) {
  Fn f({P(DType::F32), f32});
  f.bin(OC::Add, f.arg(1), f.arg(1));  // unused
  f.store(f.arg(0), f.bin(OC::Mul, f.arg(1), f.cf(2)));
  f.finish();
  canonicalize(f.m);
  EXPECT_EQ(countOps(*f.fn, OC::Add), 0);
  EXPECT_EQ(countOps(*f.fn, OC::Mul), 1);
  EXPECT_EQ(countOps(*f.fn, OC::Store), 1);
}

TEST(Canonicalize, FoldsInsideRegions) {
  Fn f({P(DType::I32), i32});
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(1), {});
  inside(f, loop->regions[0].get(), [&] {
    f.store(f.arg(0), f.bin(OC::Add, f.ci(20), f.ci(22)));
    f.b.create(OC::Yield, {}, {});
  });
  f.finish();
  canonicalize(f.m);
  Operation *st = nullptr;
  f.fn->walk([&](Operation *o) {
    if (o->code == OC::Store) st = o;
  });
  ASSERT_TRUE(st);
  EXPECT_EQ(constInt(st->operand(1)), 42);
}

}  // namespace
}  // namespace tessera::testing
