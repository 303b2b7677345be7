#include "pass_test_util.h"
#include "passes/passes.h"
#include "support/diagnostics.h"

namespace tessera::testing {
namespace {

using OC = OpCode;
const Type i32 = S(DType::I32), f32 = S(DType::F32), i1 = S(DType::I1);

Value *arg(Operation *loop, unsigned i) {
  return loop->regions[0]->args.at(i).get();
}

// The block holding `v`'s defining op.
Block *blockOf(Value *v) {
  return v->def->parent;
}

// ---- LICM ---------------------------------------------------------------------

TEST(LICM, HoistsInvariantChainsButNotVariantOps) {
  Fn f({P(DType::I32), i32, i32});
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(1), {f.arg(2)});
  Value *inv1 = nullptr, *inv2 = nullptr, *ivDep = nullptr, *iterDep = nullptr, *ld = nullptr;
  inside(f, loop->regions[0].get(), [&] {
    inv1 = f.bin(OC::Mul, f.arg(1), f.arg(2));
    inv2 = f.bin(OC::Add, inv1, f.ci(3));  // its constant is defined in the loop, and moves too
    ivDep = f.bin(OC::Add, arg(loop, 0), inv2);
    iterDep = f.bin(OC::Add, arg(loop, 1), inv2);
    ld = f.un(OC::Load, f.arg(0), i32);  // not pure: a store may change it
    f.store(f.arg(0), f.bin(OC::Add, ivDep, ld));
    f.b.create(OC::Yield, {iterDep}, {});
  });
  f.finish({loop->result()});
  licm(f.m);
  EXPECT_EQ(blockOf(inv1), &f.fn->body);
  EXPECT_EQ(blockOf(inv2), &f.fn->body);
  EXPECT_EQ(blockOf(inv2->def->operand(1)), &f.fn->body);
  EXPECT_EQ(blockOf(ivDep), loop->regions[0].get());
  EXPECT_EQ(blockOf(iterDep), loop->regions[0].get());
  EXPECT_EQ(blockOf(ld), loop->regions[0].get());
  // Hoisted ops come before the loop, in their original order.
  auto it = passes::iteratorOf(loop);
  bool sawInv1 = false;
  for (auto i = f.fn->body.ops.begin(); i != it; ++i) {
    if (i->get() == inv1->def) sawInv1 = true;
    if (i->get() == inv2->def) {
      EXPECT_TRUE(sawInv1);
    }
  }
  EXPECT_TRUE(sawInv1);
}

TEST(LICM, DoesNotHoistDivisionByUnknownOrOpsUnderIf) {
  Fn f({P(DType::I32), i32, i32, i1});
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(1), {});
  Value *div = nullptr, *divConst = nullptr, *guarded = nullptr;
  inside(f, loop->regions[0].get(), [&] {
    div = f.bin(OC::Div, f.arg(1), f.arg(2));  // arg 2 may be 0 when the loop does not run
    divConst = f.bin(OC::Div, f.arg(1), f.ci(4));
    Operation *ifop = f.ifOp(f.arg(3), {});
    inside(f, ifop->regions[0].get(), [&] {
      guarded = f.bin(OC::Mul, f.arg(1), f.arg(2));
      f.store(f.arg(0), guarded);
      f.b.create(OC::Yield, {}, {});
    });
    inside(f, ifop->regions[1].get(), [&] { f.b.create(OC::Yield, {}, {}); });
    f.store(f.arg(0), f.bin(OC::Add, div, divConst));
    f.b.create(OC::Yield, {}, {});
  });
  f.finish();
  licm(f.m);
  EXPECT_EQ(blockOf(div), loop->regions[0].get());
  EXPECT_EQ(blockOf(divConst), &f.fn->body);
  EXPECT_NE(blockOf(guarded), &f.fn->body);
  EXPECT_NE(blockOf(guarded), loop->regions[0].get());
}

TEST(LICM, HoistsOutOfNestedLoops) {
  Fn f({P(DType::I32), i32});
  Operation *outer = f.forOp(f.ci(0), f.arg(1), f.ci(1), {});
  Value *invAll = nullptr, *invInner = nullptr;
  Operation *inner = nullptr;
  inside(f, outer->regions[0].get(), [&] {
    inner = f.forOp(f.ci(0), f.arg(1), f.ci(1), {});
    inside(f, inner->regions[0].get(), [&] {
      invAll = f.bin(OC::Mul, f.arg(1), f.arg(1));
      invInner = f.bin(OC::Add, arg(outer, 0), invAll);
      f.store(f.arg(0), f.bin(OC::Add, invInner, arg(inner, 0)));
      f.b.create(OC::Yield, {}, {});
    });
    f.b.create(OC::Yield, {}, {});
  });
  f.finish();
  licm(f.m);
  EXPECT_EQ(blockOf(invAll), &f.fn->body);
  EXPECT_EQ(blockOf(invInner), outer->regions[0].get());
}

TEST(LICM, HoistsFromWhileRegions) {
  Fn f({i32, i32});
  Operation *w = f.b.create(OC::While, {f.arg(0)}, {i32});
  Block &before = *w->regions[0], &after = *w->regions[1];
  Value *x = before.addArg(i32);
  Value *y = after.addArg(i32);
  Value *inv = nullptr;
  inside(f, &before, [&] {
    inv = f.bin(OC::Mul, f.arg(1), f.arg(1));
    f.b.create(OC::Condition, {f.cmp("lt", x, inv), x}, {});
  });
  inside(f, &after, [&] { f.b.create(OC::Yield, {f.bin(OC::Add, y, f.ci(1))}, {}); });
  f.finish({w->result()});
  licm(f.m);
  EXPECT_EQ(blockOf(inv), &f.fn->body);
  EXPECT_EQ(countOps(*f.fn, OC::Add), 1);
}

// ---- inline -------------------------------------------------------------------

Function *addFunction(Module &m, const char *name, std::vector<Type> params) {
  m.functions.push_back(std::make_unique<Function>());
  Function *fn = m.functions.back().get();
  fn->name = name;
  for (auto &t : params) fn->body.addArg(t);
  fn->paramAttrs.resize(params.size());
  return fn;
}

TEST(Inline, ReplacesCallsAndRemovesCallees) {
  Fn f({f32, f32});
  // @square(x) = x * x; @sumsq(a, b) = square(a) + square(b)
  Function *sq = addFunction(f.m, "square", {f32});
  {
    Builder b(&sq->body);
    Value *x = sq->body.args[0].get();
    b.create(OC::Return, {b.op1(OC::Mul, {x, x}, f32)}, {});
    sq->resultTypes = {f32};
  }
  Function *ss = addFunction(f.m, "sumsq", {f32, f32});
  {
    Builder b(&ss->body);
    std::vector<NamedAttr> callee{{"callee", std::string("square")}};
    Value *a = b.create(OC::Call, {ss->body.args[0].get()}, {f32}, callee)->result();
    Value *c = b.create(OC::Call, {ss->body.args[1].get()}, {f32}, callee)->result();
    b.create(OC::Return, {b.op1(OC::Add, {a, c}, f32)}, {});
    ss->resultTypes = {f32};
  }
  addFunction(f.m, "unused", {});
  Value *r = f.b.create(OC::Call, {f.arg(0), f.arg(1)}, {f32}, {{"callee", std::string("sumsq")}})
                 ->result();
  f.finish({r});
  inlineCalls(f.m);
  ASSERT_EQ(f.m.functions.size(), 1u);
  EXPECT_EQ(countOps(*f.fn, OC::Call), 0);
  EXPECT_EQ(countOps(*f.fn, OC::Mul), 2);
  Operation *add = f.ret()->def;
  ASSERT_EQ(add->code, OC::Add);
  EXPECT_EQ(add->operand(0)->def->operand(0), f.arg(0));
  EXPECT_EQ(add->operand(1)->def->operand(0), f.arg(1));
}

TEST(Inline, InlinesCallsInsideRegions) {
  Fn f({P(DType::I32), i32});
  Function *inc = addFunction(f.m, "inc", {i32});
  {
    Builder b(&inc->body);
    b.create(OC::Return, {b.op1(OC::Add, {inc->body.args[0].get(), b.constInt(1, i32)}, i32)}, {});
  }
  Operation *loop = f.forOp(f.ci(0), f.arg(1), f.ci(1), {});
  inside(f, loop->regions[0].get(), [&] {
    Value *v =
        f.b.create(OC::Call, {arg(loop, 0)}, {i32}, {{"callee", std::string("inc")}})->result();
    f.store(f.arg(0), v);
    f.b.create(OC::Yield, {}, {});
  });
  f.finish();
  inlineCalls(f.m);
  EXPECT_EQ(countOps(*f.fn, OC::Call), 0);
  Operation *st = nullptr;
  f.fn->walk([&](Operation *o) {
    if (o->code == OC::Store) st = o;
  });
  ASSERT_TRUE(st);
  EXPECT_EQ(st->operand(1)->def->code, OC::Add);
  EXPECT_EQ(st->operand(1)->def->operand(0), arg(loop, 0));
}

TEST(Inline, RecursionIsAnInternalError) {
  Fn f({i32});
  Function *g = addFunction(f.m, "g", {i32});
  {
    Builder b(&g->body);
    Value *r = b.create(OC::Call, {g->body.args[0].get()}, {i32}, {{"callee", std::string("g")}})
                   ->result();
    b.create(OC::Return, {r}, {});
  }
  f.finish({f.b.create(OC::Call, {f.arg(0)}, {i32}, {{"callee", std::string("g")}})->result()});
  EXPECT_THROW(inlineCalls(f.m), CompileError);
}

TEST(Inline, UnknownCalleeIsAnInternalError) {
  Fn f({i32});
  f.b.create(OC::Call, {f.arg(0)}, {}, {{"callee", std::string("nope")}});
  f.finish();
  EXPECT_THROW(inlineCalls(f.m), CompileError);
}

}  // namespace
}  // namespace tessera::testing
