#include "pass_test_util.h"
#include "passes/passes.h"

namespace tessera::testing {
namespace {

using OC = OpCode;
const Type i32 = S(DType::I32), f32 = S(DType::F32), i1 = S(DType::I1);

Value *yieldArg(Operation *loop, unsigned i) {
  return loop->regions[0]->args.at(i).get();
}

// ---- CSE ----------------------------------------------------------------------

TEST(CSE, MergesIdenticalPureOps) {
  Fn f({i32, i32});
  Value *a = f.bin(OC::Add, f.arg(0), f.arg(1));
  Value *b = f.bin(OC::Add, f.arg(0), f.arg(1));
  Value *c = f.bin(OC::Add, f.arg(1), f.arg(0));  // commutative
  Value *d = f.bin(OC::Sub, f.arg(0), f.arg(1));
  Value *e = f.bin(OC::Sub, f.arg(1), f.arg(0));  // not commutative
  f.finish({a, b, c, d, e});
  cse(f.m);
  EXPECT_EQ(f.ret(1), a);
  EXPECT_EQ(f.ret(2), a);
  EXPECT_NE(f.ret(4), f.ret(3));
  EXPECT_EQ(countOps(*f.fn, OC::Add), 1);
  EXPECT_EQ(countOps(*f.fn, OC::Sub), 2);
}

TEST(CSE, AttributesAndTypesMustMatch) {
  Fn f({i32, i32});
  Value *lt = f.cmp("lt", f.arg(0), f.arg(1));
  Value *gt = f.cmp("gt", f.arg(0), f.arg(1));
  Value *c0 = f.cf(0.0);
  Value *c1 = f.cf(-0.0);  // differs from 0.0 bitwise
  Value *c2 = f.cf(0.0);
  Value *i0 = f.ci(0);
  Value *i1v = f.ci(0, S(DType::I64));
  f.finish({lt, gt, c0, c1, c2, i0, i1v});
  cse(f.m);
  EXPECT_NE(f.ret(0), f.ret(1));
  EXPECT_NE(f.ret(2), f.ret(3));
  EXPECT_EQ(f.ret(4), c0);
  EXPECT_NE(f.ret(5), f.ret(6));
}

TEST(CSE, LoadsAreNeverMerged) {
  Fn f({P(DType::F32)});
  Value *a = f.un(OC::Load, f.arg(0), f32);
  f.store(f.arg(0), f.cf(1));
  Value *b = f.un(OC::Load, f.arg(0), f32);
  f.finish({a, b});
  cse(f.m);
  EXPECT_NE(f.ret(0), f.ret(1));
  EXPECT_EQ(countOps(*f.fn, OC::Load), 2);
}

TEST(CSE, OuterValueReplacesNestedOne) {
  Fn f({i32, i32, P(DType::I32)});
  Value *outer = f.bin(OC::Mul, f.arg(0), f.arg(1));
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(1), {});
  Value *inner = nullptr;
  inside(f, loop->regions[0].get(), [&] {
    inner = f.bin(OC::Mul, f.arg(0), f.arg(1));
    f.store(f.arg(2), inner);
    f.b.create(OC::Yield, {}, {});
  });
  f.finish({outer});
  cse(f.m);
  EXPECT_EQ(countOps(*f.fn, OC::Mul), 1);
  Operation *st = loop->regions[0]->ops.front().get();
  ASSERT_EQ(st->code, OC::Store);
  EXPECT_EQ(st->operand(1), outer);
}

TEST(CSE, NestedValueDoesNotReplaceOuterOrSiblingOne) {
  Fn f({i32, i32, i1, P(DType::I32)});
  Operation *ifop = f.ifOp(f.arg(2), {});
  Value *inThen = nullptr, *inElse = nullptr;
  inside(f, ifop->regions[0].get(), [&] {
    inThen = f.bin(OC::Mul, f.arg(0), f.arg(1));
    f.store(f.arg(3), inThen);
    f.b.create(OC::Yield, {}, {});
  });
  inside(f, ifop->regions[1].get(), [&] {
    inElse = f.bin(OC::Mul, f.arg(0), f.arg(1));
    f.store(f.arg(3), inElse);
    f.b.create(OC::Yield, {}, {});
  });
  Value *after = f.bin(OC::Mul, f.arg(0), f.arg(1));
  f.finish({after});
  cse(f.m);
  EXPECT_EQ(countOps(*f.fn, OC::Mul), 3);
  EXPECT_EQ(f.ret(), after);
}

TEST(CSE, ChainsMergeInOnePass) {
  Fn f({i32});
  Value *a = f.bin(OC::Add, f.arg(0), f.ci(1));
  Value *b = f.bin(OC::Mul, a, a);
  Value *a2 = f.bin(OC::Add, f.arg(0), f.ci(1));
  Value *b2 = f.bin(OC::Mul, a2, a2);
  f.finish({b, b2});
  cse(f.m);
  EXPECT_EQ(f.ret(0), f.ret(1));
  EXPECT_EQ(countAllOps(*f.fn), 4);  // one constant, add, mul, return
}

// ---- DCE ----------------------------------------------------------------------

TEST(DCE, RemovesUnusedPureOpsAndLoads) {
  Fn f({P(DType::F32), f32});
  Value *a = f.bin(OC::Add, f.arg(1), f.arg(1));
  f.bin(OC::Mul, a, a);
  f.un(OC::Load, f.arg(0), f32);
  f.finish();
  dce(f.m);
  EXPECT_EQ(countAllOps(*f.fn), 1);
}

TEST(DCE, KeepsSideEffects) {
  Fn f({P(DType::F32), f32, i1});
  f.store(f.arg(0), f.arg(1));
  f.b.create(OC::AtomicRmw, {f.arg(0), f.arg(1)}, {f32}, {{"kind", std::string("add")}});
  f.b.create(OC::Assert, {f.arg(2)}, {}, {{"message", std::string("m")}});
  f.b.create(OC::Print, {f.arg(1)}, {}, {{"prefix", std::string("p")}});
  f.b.create(OC::Barrier, {}, {});
  f.finish();
  int before = countAllOps(*f.fn);
  dce(f.m);
  EXPECT_EQ(countAllOps(*f.fn), before);
}

Operation *loopWithBody(Fn &f, bool withStore) {
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(1), {f.arg(2)});
  inside(f, loop->regions[0].get(), [&] {
    Value *v = f.bin(OC::Add, yieldArg(loop, 1), f.cf(1));
    if (withStore) f.store(f.arg(0), v);
    f.b.create(OC::Yield, {v}, {});
  });
  return loop;
}

TEST(DCE, RemovesLoopsWithoutEffectsWhoseResultsAreUnused) {
  Fn f({P(DType::F32), i32, f32});
  loopWithBody(f, false);
  f.finish();
  dce(f.m);
  EXPECT_EQ(countOps(*f.fn, OC::For), 0);
  EXPECT_EQ(countAllOps(*f.fn), 1);
}

TEST(DCE, KeepsLoopsThatStore) {
  Fn f({P(DType::F32), i32, f32});
  Operation *loop = loopWithBody(f, true);
  f.finish();
  dce(f.m);
  EXPECT_EQ(countOps(*f.fn, OC::For), 1);
  // The loop-carried value feeds the store, so it stays.
  EXPECT_EQ(loop->results.size(), 1u);
}

TEST(DCE, RemovesIfWithoutEffectsAndUnusedIfResults) {
  Fn f({P(DType::F32), i1, f32});
  Operation *pureIf = f.ifOp(f.arg(1), {f32});
  inside(f, pureIf->regions[0].get(), [&] { f.b.create(OC::Yield, {f.arg(2)}, {}); });
  inside(f, pureIf->regions[1].get(), [&] { f.b.create(OC::Yield, {f.cf(0)}, {}); });
  Operation *effIf = f.ifOp(f.arg(1), {f32, f32});
  inside(f, effIf->regions[0].get(), [&] {
    f.store(f.arg(0), f.arg(2));
    f.b.create(OC::Yield, {f.arg(2), f.bin(OC::Mul, f.arg(2), f.arg(2))}, {});
  });
  inside(f, effIf->regions[1].get(), [&] { f.b.create(OC::Yield, {f.cf(1), f.cf(2)}, {}); });
  f.finish({effIf->result(0)});
  dce(f.m);
  EXPECT_EQ(countOps(*f.fn, OC::If), 1);
  EXPECT_EQ(effIf->results.size(), 1u);
  EXPECT_EQ(effIf->regions[0]->terminator()->operands.size(), 1u);
  EXPECT_EQ(countOps(*f.fn, OC::Mul), 0);
  EXPECT_EQ(countOps(*f.fn, OC::Store), 1);
}

TEST(DCE, RemovesDeadLoopCarriedValues) {
  // Iter args: acc (flows only into its own next value), same (yielded
  // unchanged), other (unused in the body), live (stored).
  Fn f({P(DType::F32), i32, f32});
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(1), {f.arg(2), f.arg(2), f.arg(2), f.arg(2)});
  inside(f, loop->regions[0].get(), [&] {
    Value *acc = yieldArg(loop, 1), *same = yieldArg(loop, 2), *other = yieldArg(loop, 3),
          *live = yieldArg(loop, 4);
    Value *acc2 = f.bin(OC::Add, acc, f.cf(1));
    Value *acc3 = f.bin(OC::Mul, acc2, acc2);  // flows only into its own yield
    Value *live2 = f.bin(OC::Add, live, f.cf(2));
    f.store(f.arg(0), live2);
    (void)other;
    f.b.create(OC::Yield, {acc3, same, live2, live2}, {});
  });
  f.finish();
  dce(f.m);
  // acc (only into itself) and same (yielded unchanged) go. `other` is not
  // used in the body and its result is unused, so it goes too; live stays.
  ASSERT_EQ(loop->results.size(), 1u);
  EXPECT_EQ(loop->regions[0]->args.size(), 2u);
  EXPECT_EQ(loop->operands.size(), 4u);
  EXPECT_EQ(countOps(*f.fn, OC::Mul), 0);
  EXPECT_EQ(countOps(*f.fn, OC::Add), 1);
  Operation *y = loop->regions[0]->terminator();
  ASSERT_EQ(y->operands.size(), 1u);
  EXPECT_EQ(y->operand(0)->def->code, OC::Add);
  EXPECT_EQ(y->operand(0)->def->operand(0), loop->regions[0]->args[1].get());
}

TEST(DCE, KeepsLoopCarriedValuesThatAreUsed) {
  Fn f({P(DType::F32), i32, f32});
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(1), {f.arg(2), f.arg(2)});
  inside(f, loop->regions[0].get(), [&] {
    Value *a = yieldArg(loop, 1), *b = yieldArg(loop, 2);
    // b feeds a's next value: a's result is used, so b stays too.
    Value *a2 = f.bin(OC::Add, a, b);
    f.b.create(OC::Yield, {a2, b}, {});
  });
  f.finish({loop->result(0)});
  dce(f.m);
  EXPECT_EQ(loop->results.size(), 2u);
}

TEST(DCE, LoopCarriedValueStoredIsKept) {
  Fn f({P(DType::F32), i32, f32});
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(1), {f.arg(2)});
  inside(f, loop->regions[0].get(), [&] {
    Value *a = yieldArg(loop, 1);
    f.store(f.arg(0), a);
    f.b.create(OC::Yield, {f.bin(OC::Add, a, f.cf(1))}, {});
  });
  f.finish();
  dce(f.m);
  EXPECT_EQ(loop->results.size(), 1u);
  EXPECT_EQ(countOps(*f.fn, OC::Add), 1);
}

}  // namespace
}  // namespace tessera::testing
