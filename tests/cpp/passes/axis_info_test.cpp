#include "passes/axis_info.h"

#include "pass_test_util.h"
#include "passes/passes.h"

namespace tessera::testing {
namespace {

using OC = OpCode;
using V = std::vector<int64_t>;
const Type i32 = S(DType::I32), f32 = S(DType::F32), i1 = S(DType::I1);
constexpr int64_t kMax = kMaxDivisibility;

ParamAttrs div16() {
  return ParamAttrs{16, false};
}

struct Expect {
  V contiguity, divisibility, constancy;
};

void expectInfo(const AxisInfoMap &m, Value *v, const Expect &e) {
  AxisInfo a = m.get(v);
  EXPECT_EQ(a.contiguity, e.contiguity);
  EXPECT_EQ(a.divisibility, e.divisibility);
  EXPECT_EQ(a.constancy, e.constancy);
}

Value *arange(Fn &f, int64_t start, int64_t end) {
  return f.b.op1(OC::Arange, {}, T({end - start}, DType::I32), {{"start", start}, {"end", end}});
}
Value *splat(Fn &f, Value *x, V shape) {
  return f.un(OC::Splat, x, x->type.withShape(shape));
}

TEST(AxisInfo, ConstantsAndArange) {
  Fn f;
  Value *c = f.ci(48);
  Value *z = f.ci(0);
  Value *t = f.ci(12, T({4, 8}, DType::I32));
  Value *a = arange(f, 0, 128);
  Value *a2 = arange(f, 64, 96);
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, c, {{1}, {16}, {1}});
  expectInfo(m, z, {{1}, {kMax}, {1}});
  expectInfo(m, t, {{1, 1}, {4, 4}, {4, 8}});
  expectInfo(m, a, {{128}, {kMax}, {1}});
  expectInfo(m, a2, {{32}, {64}, {1}});
  EXPECT_EQ(m.get(c).constant, 48);
}

// offs = pid * 128 + arange(0, 128); ptrs = x + offs (f32, x 16-byte aligned)
TEST(AxisInfo, ProgramIdTimesBlockPlusArange) {
  Fn f({P(DType::F32), i32}, {div16(), div16()});
  Value *pid = f.b.op1(OC::ProgramId, {}, i32, {{"axis", int64_t{0}}});
  Value *start = f.bin(OC::Mul, pid, f.ci(128));
  Value *offs = f.bin(OC::Add, splat(f, start, {128}), arange(f, 0, 128));
  Value *ptrs = f.b.op1(OC::AddPtr, {splat(f, f.arg(0), {128}), offs}, TP({128}, DType::F32));
  Value *mask = f.cmp("lt", offs, splat(f, f.arg(1), {128}));
  Value *ld = f.b.op1(OC::Load, {ptrs, mask}, T({128}, DType::F32));
  f.finish({ld});
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, pid, {{1}, {1}, {1}});
  expectInfo(m, start, {{1}, {128}, {1}});
  expectInfo(m, offs, {{128}, {128}, {1}});
  expectInfo(m, ptrs, {{128}, {16}, {1}});
  // offs < n changes only at multiples of 16 (n is a multiple of 16).
  expectInfo(m, mask, {{1}, {1}, {16}});
}

TEST(AxisInfo, PointerDivisibilityIsInBytes) {
  Fn f({P(DType::F16)}, {ParamAttrs{256, false}});
  Value *offs = f.bin(OC::Mul, arange(f, 0, 64), f.ci(4, T({64}, DType::I32)));
  Value *p1 =
      f.b.op1(OC::AddPtr, {splat(f, f.arg(0), {64}), arange(f, 0, 64)}, TP({64}, DType::F16));
  Value *p2 = f.b.op1(OC::AddPtr, {splat(f, f.arg(0), {64}), offs}, TP({64}, DType::F16));
  Value *one = f.b.op1(OC::AddPtr, {f.arg(0), f.ci(8)}, P(DType::F16));
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, p1, {{64}, {256}, {1}});
  expectInfo(m, p2, {{1}, {8}, {1}});  // each address a multiple of 4 elements = 8 bytes
  expectInfo(m, one, {{1}, {16}, {1}});
}

// offs = rows[:, None] * stride + cols[None, :]
TEST(AxisInfo, TwoDimensionalRowsTimesStridePlusCols) {
  Fn f({P(DType::F32), i32}, {div16(), div16()});
  Value *rows = arange(f, 0, 32), *cols = arange(f, 0, 64);
  Value *r2 = f.un(OC::ExpandDims, rows, T({32, 1}, DType::I32), {{"axis", int64_t{1}}});
  Value *c2 = f.un(OC::ExpandDims, cols, T({1, 64}, DType::I32), {{"axis", int64_t{0}}});
  Value *stride = splat(f, f.arg(1), {32, 1});
  Value *rs = f.bin(OC::Mul, r2, stride);
  Value *rsb = f.un(OC::Broadcast, rs, T({32, 64}, DType::I32));
  Value *cb = f.un(OC::Broadcast, c2, T({32, 64}, DType::I32));
  Value *offs = f.bin(OC::Add, rsb, cb);
  Value *ptrs = f.b.op1(OC::AddPtr, {splat(f, f.arg(0), {32, 64}), offs}, TP({32, 64}, DType::F32));
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, r2, {{32, 1}, {kMax, 1}, {1, 1}});
  expectInfo(m, c2, {{1, 64}, {1, kMax}, {1, 1}});
  expectInfo(m, rs, {{1, 1}, {16, 16}, {1, 1}});
  expectInfo(m, rsb, {{1, 1}, {16, 16}, {1, 64}});
  expectInfo(m, offs, {{1, 64}, {1, 16}, {1, 1}});
  expectInfo(m, ptrs, {{1, 64}, {4, 16}, {1, 1}});
}

TEST(AxisInfo, StrideEqualToOneIsTheConstantOne) {
  Fn f({i32}, {ParamAttrs{1, true}});
  Value *x = f.bin(OC::Mul, arange(f, 0, 16), splat(f, f.arg(0), {16}));
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  EXPECT_EQ(m.get(f.arg(0)).constant, 1);
  expectInfo(m, x, {{16}, {kMax}, {1}});
}

TEST(AxisInfo, DivRemShiftAndMask) {
  Fn f;
  Value *a = arange(f, 0, 64);
  auto c = [&](int64_t v) { return f.ci(v, T({64}, DType::I32)); };
  Value *q = f.bin(OC::Div, a, c(4));
  Value *r = f.bin(OC::Rem, a, c(8));
  Value *sh = f.bin(OC::Shr, a, c(2));
  Value *mk = f.bin(OC::And, a, c(15));
  Value *sl = f.bin(OC::Shl, a, c(3));
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, q, {{1}, {1}, {4}});
  expectInfo(m, r, {{8}, {8}, {1}});
  expectInfo(m, sh, {{1}, {1}, {4}});
  expectInfo(m, mk, {{16}, {15 + 1}, {1}});
  expectInfo(m, sl, {{1}, {8}, {1}});
}

// The matmul tutorial's offs = (pid * 128 + arange(0, 128)) % N with N a
// multiple of 16: runs of 16 never wrap; an unaligned N keeps no run.
TEST(AxisInfo, RemainderByARuntimeMultipleKeepsAlignedRuns) {
  Fn f({i32, i32}, {div16(), ParamAttrs{1, false}});
  Value *pid = f.b.op1(OC::ProgramId, {}, i32, {{"axis", int64_t{0}}});
  Value *start = f.bin(OC::Mul, pid, f.ci(128));
  Value *offs = f.bin(OC::Add, splat(f, start, {128}), arange(f, 0, 128));
  Value *wrapped = f.bin(OC::Rem, offs, splat(f, f.arg(0), {128}));
  Value *unaligned = f.bin(OC::Rem, offs, splat(f, f.arg(1), {128}));
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, wrapped, {{16}, {16}, {1}});
  expectInfo(m, unaligned, {{1}, {1}, {1}});
}

TEST(AxisInfo, SubtractionIsNotContiguousFromTheRight) {
  Fn f({i32}, {div16()});
  Value *a = arange(f, 0, 32);
  Value *n = splat(f, f.arg(0), {32});
  Value *x = f.bin(OC::Sub, a, n);
  Value *y = f.bin(OC::Sub, n, a);
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, x, {{32}, {16}, {1}});
  expectInfo(m, y, {{1}, {1}, {1}});
}

TEST(AxisInfo, AddOfTwoRunsSplitsDivisibility) {
  // arange(0, 128) + arange(0, 128) // 64: runs of 64 starting at 0 and 65,
  // so nothing divides every run start.
  Fn f;
  Value *a = arange(f, 0, 128);
  Value *q = f.bin(OC::Div, a, f.ci(64, T({128}, DType::I32)));  // constancy 64
  Value *s = f.bin(OC::Add, a, q);
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, q, {{1}, {1}, {64}});
  expectInfo(m, s, {{64}, {1}, {1}});
}

TEST(AxisInfo, HintsRaiseTheFacts) {
  Fn f({i32});
  Value *h = f.un(OC::Hint, f.arg(0), i32, {{"divisibility", V{16}}});
  Value *t =
      f.un(OC::Load,
           f.b.op1(OC::Splat, {f.b.op1(OC::Constant, {}, P(DType::I32), {{"value", int64_t{0}}})},
                   TP({64}, DType::I32)),
           T({64}, DType::I32));
  Value *ht =
      f.un(OC::Hint, t, T({64}, DType::I32), {{"contiguity", V{64}}, {"divisibility", V{64}}});
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, h, {{1}, {16}, {1}});
  expectInfo(m, t, {{1}, {1}, {1}});
  expectInfo(m, ht, {{64}, {64}, {1}});
}

TEST(AxisInfo, SelectAndIfMeet) {
  Fn f({i1, i32}, {{}, div16()});
  Value *a = arange(f, 0, 32);
  Value *b = f.bin(OC::Add, a, splat(f, f.arg(1), {32}));
  Value *sel = f.b.op1(OC::Select, {splat(f, f.arg(0), {32}), a, b}, T({32}, DType::I32));
  Operation *ifop = f.ifOp(f.arg(0), {T({32}, DType::I32)});
  inside(f, ifop->regions[0].get(), [&] { f.b.create(OC::Yield, {a}, {}); });
  inside(f, ifop->regions[1].get(), [&] { f.b.create(OC::Yield, {b}, {}); });
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, sel, {{32}, {16}, {1}});
  expectInfo(m, ifop->result(), {{32}, {16}, {1}});
}

// for k in range(0, K, 32): ptrs += 32 (f16 pointers), a loop-carried pointer
// tile that stays contiguous and 16-byte aligned.
TEST(AxisInfo, LoopCarriedPointerIncrement) {
  Fn f({P(DType::F16), i32}, {div16(), div16()});
  Value *ptrs0 =
      f.b.op1(OC::AddPtr, {splat(f, f.arg(0), {32}), arange(f, 0, 32)}, TP({32}, DType::F16));
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(32), {ptrs0});
  Value *iv = loop->regions[0]->args[0].get(), *p = loop->regions[0]->args[1].get();
  Value *next = nullptr, *odd = nullptr;
  inside(f, loop->regions[0].get(), [&] {
    next = f.b.op1(OC::AddPtr, {p, f.ci(32, T({32}, DType::I32))}, TP({32}, DType::F16));
    odd = f.b.op1(OC::AddPtr, {p, f.ci(1, T({32}, DType::I32))}, TP({32}, DType::F16));
    f.b.create(OC::Yield, {next}, {});
  });
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, p, {{32}, {16}, {1}});
  expectInfo(m, next, {{32}, {16}, {1}});
  expectInfo(m, odd, {{32}, {2}, {1}});
  expectInfo(m, loop->result(), {{32}, {16}, {1}});
  expectInfo(m, iv, {{1}, {32}, {1}});  // 0 + i * 32
}

TEST(AxisInfo, LoopCarriedValueThatLosesAlignment) {
  Fn f({i32}, {div16()});
  Operation *loop = f.forOp(f.ci(0), f.arg(0), f.ci(1), {f.ci(0, T({16}, DType::I32))});
  Value *x = loop->regions[0]->args[1].get();
  inside(f, loop->regions[0].get(),
         [&] { f.b.create(OC::Yield, {f.bin(OC::Add, x, f.ci(2, T({16}, DType::I32)))}, {}); });
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, x, {{1}, {2}, {16}});
  EXPECT_FALSE(m.get(x).constant.has_value());
}

TEST(AxisInfo, PermuteReshapeAndFloats) {
  Fn f;
  Value *a = f.un(OC::ExpandDims, arange(f, 0, 16), T({1, 16}, DType::I32), {{"axis", int64_t{0}}});
  Value *b = f.un(OC::Broadcast, a, T({8, 16}, DType::I32));
  Value *p = f.un(OC::Permute, b, T({16, 8}, DType::I32), {{"order", V{1, 0}}});
  Value *r = f.un(OC::Reshape, a, T({16}, DType::I32));
  Value *fl = f.un(OC::Cast, b, T({8, 16}, DType::F32));
  f.finish();
  AxisInfoMap m = analyzeAxisInfo(*f.fn);
  expectInfo(m, p, {{16, 1}, {kMax, 1}, {1, 8}});
  expectInfo(m, r, {{16}, {kMax}, {1}});
  expectInfo(m, fl, {{1, 1}, {1, 1}, {8, 1}});
}

TEST(AxisInfo, AnnotatePassWritesAttributes) {
  Fn f({P(DType::F32)}, {div16()});
  Value *offs = arange(f, 0, 64);
  Value *ptrs = f.b.op1(OC::AddPtr, {splat(f, f.arg(0), {64}), offs}, TP({64}, DType::F32));
  Value *x = f.un(OC::Load, ptrs, T({64}, DType::F32));
  f.finish();
  annotateAxisInfo(f.m);
  EXPECT_EQ(ptrs->def->intsAttr("axis_contiguity"), V{64});
  EXPECT_EQ(ptrs->def->intsAttr("axis_divisibility"), V{16});
  EXPECT_EQ(ptrs->def->intsAttr("axis_constancy"), V{1});
  EXPECT_EQ(offs->def->intsAttr("axis_contiguity"), V{64});
  EXPECT_EQ(x->def->attr("axis_contiguity"), nullptr);  // floats are not annotated
}

// The memory slice (analyzeMemoryAxisInfo) gives the full analysis' facts
// for what a load's pointer and mask depend on, through a loop-carried
// pointer (the loop is analysed whole), and skips what no address or mask
// depends on.
TEST(AxisInfo, MemorySliceMatchesTheFullAnalysis) {
  Fn f({P(DType::F16), i32}, {div16(), div16()});
  Value *ptrs0 =
      f.b.op1(OC::AddPtr, {splat(f, f.arg(0), {32}), arange(f, 0, 32)}, TP({32}, DType::F16));
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(32), {ptrs0});
  Value *p = loop->regions[0]->args[1].get();
  Value *mask = nullptr, *scaled = nullptr, *twice = nullptr;
  inside(f, loop->regions[0].get(), [&] {
    mask = f.cmp("lt", arange(f, 0, 32), splat(f, f.arg(1), {32}));
    Value *x = f.b.op1(OC::Load, {p, mask}, T({32}, DType::F16));
    // i32 arithmetic that only reaches memory as a stored value.
    scaled = f.bin(OC::Mul, arange(f, 0, 32), f.ci(4, T({32}, DType::I32)));
    twice = f.bin(OC::Add, scaled, scaled);
    f.b.create(OC::Store, {p, x}, {});
    f.b.create(
        OC::Store,
        {f.b.op1(OC::AddPtr, {splat(f, f.arg(0), {32}), twice}, TP({32}, DType::F16)), twice}, {});
    Value *next = f.b.op1(OC::AddPtr, {p, f.ci(32, T({32}, DType::I32))}, TP({32}, DType::F16));
    f.b.create(OC::Yield, {next}, {});
  });
  Value *unrelated = f.bin(OC::Mul, f.ci(3), f.ci(4));
  f.finish();
  AxisInfoMap full = analyzeAxisInfo(*f.fn);
  AxisInfoMap slice = analyzeMemoryAxisInfo(*f.fn);
  for (Value *v : {p, mask, scaled, twice, loop->result()}) EXPECT_EQ(slice.get(v), full.get(v));
  expectInfo(slice, p, {{32}, {16}, {1}});
  EXPECT_EQ(slice.lookup(unrelated), nullptr);
  EXPECT_TRUE(full.get(unrelated).constant.has_value());
}

}  // namespace
}  // namespace tessera::testing
