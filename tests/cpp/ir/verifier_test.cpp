// The verifier on IR built in memory: cases the text parser cannot express
// (null operands, an op using its own result, broken back pointers), the
// string and structured APIs, and error collection.
#include "ir/verifier.h"

#include <gtest/gtest.h>

#include "ir/ir_parser.h"
#include "ir/verifier_diagnostics.h"

namespace tessera {
namespace {

const Type kI32 = Type::scalar(DType::I32);

std::unique_ptr<Module> moduleWith(std::unique_ptr<Function> fn) {
  auto m = std::make_unique<Module>();
  m->functions.push_back(std::move(fn));
  return m;
}

TEST(Verifier, AcceptsAValidFunction) {
  SourceManager sm;
  auto m = parseIRString(sm, "ok.tir",
                         "func @f(%a: i32) -> i32 {\n  %b = add %a, %a : i32\n  return %b\n}\n");
  EXPECT_EQ(verify(*m), "");
  EXPECT_EQ(verify(*m->functions[0]), "");
  EXPECT_TRUE(collectVerifierErrors(*m).empty());
}

TEST(Verifier, StringFormIsPrefixedWithTheLocation) {
  SourceManager sm;
  auto m =
      parseIRString(sm, "bad.tir", "func @f(%a: i32) {\n  %b = add %a, %a : f32\n  return\n}\n");
  EXPECT_EQ(verify(*m), "2:3: add: operand #0 has type i32, expected f32 (the result type)");
  auto errors = collectVerifierErrors(*m);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].loc.line, 2u);
}

TEST(Verifier, CollectsEveryBrokenOp) {
  SourceManager sm;
  auto m = parseIRString(sm, "bad.tir",
                         "func @f(%a: i32) {\n  %b = exp %a : i32\n  %c = neg %a : f32\n"
                         "  return\n}\n");
  EXPECT_EQ(collectVerifierErrors(*m).size(), 2u);
  EXPECT_EQ(collectVerifierErrors(*m, 1).size(), 1u);
}

TEST(Verifier, NullOperandAndMissingTerminator) {
  auto fn = std::make_unique<Function>();
  fn->name = "f";
  Value *a = fn->body.addArg(kI32);
  Builder b(&fn->body);
  b.op1(OpCode::Add, {a, nullptr}, kI32);
  auto m = moduleWith(std::move(fn));
  auto errors = collectVerifierErrors(*m);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].message, "add: operand #1 is null");
  EXPECT_EQ(errors[1].message,
            "the body of function @f must end in 'return', but it ends in 'add'");
}

TEST(Verifier, RegionCannotUseItsOwnOpsResult) {
  auto fn = std::make_unique<Function>();
  fn->name = "f";
  Value *n = fn->body.addArg(kI32);
  Builder b(&fn->body);
  Operation *loop = b.create(OpCode::For, {n, n, n, n}, {kI32});
  Block &body = *loop->regions[0];
  body.addArg(kI32);
  body.addArg(kI32);
  Builder(&body).create(OpCode::Yield, {loop->result()}, {});
  b.create(OpCode::Return, {}, {});
  auto m = moduleWith(std::move(fn));
  EXPECT_NE(verify(*m).find("yield: operand #0 is used before it is defined"), std::string::npos)
      << verify(*m);
}

TEST(Verifier, NullOperandsOfTerminatorsDoNotCrashTheParentsRule) {
  auto fn = std::make_unique<Function>();
  fn->name = "f";
  Value *n = fn->body.addArg(kI32);
  Builder b(&fn->body);
  Operation *loop = b.create(OpCode::For, {n, n, n, n}, {kI32});
  loop->regions[0]->addArg(kI32);
  loop->regions[0]->addArg(kI32);
  Builder(loop->regions[0].get()).create(OpCode::Yield, {nullptr}, {});
  Operation *whileOp = b.create(OpCode::While, {n}, {kI32});
  whileOp->regions[0]->addArg(kI32);
  Builder(whileOp->regions[0].get()).create(OpCode::Condition, {nullptr, n}, {});
  whileOp->regions[1]->addArg(kI32);
  Builder(whileOp->regions[1].get()).create(OpCode::Yield, {n}, {});
  b.create(OpCode::Return, {}, {});
  auto m = moduleWith(std::move(fn));
  auto errors = collectVerifierErrors(*m);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].message, "yield: operand #0 is null");
  EXPECT_EQ(errors[1].message, "condition: operand #0 is null");
}

TEST(Verifier, BrokenBackPointersAndCounts) {
  auto fn = std::make_unique<Function>();
  fn->name = "f";
  fn->paramAttrs.resize(3);
  Value *a = fn->body.addArg(kI32);
  Builder b(&fn->body);
  Value *s = b.op1(OpCode::Add, {a, a}, kI32);
  s->index = 4;
  b.create(OpCode::Return, {}, {});
  auto m = moduleWith(std::move(fn));
  auto errors = collectVerifierErrors(*m);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].message, "function @f has 3 parameter attribute entries for 1 parameters");
  EXPECT_EQ(errors[1].message, "add: result #0 does not point back to its op");
}

TEST(Verifier, DuplicateFunctionNames) {
  auto m = std::make_unique<Module>();
  for (int i = 0; i < 2; ++i) {
    auto fn = std::make_unique<Function>();
    fn->name = "twice";
    Builder(&fn->body).create(OpCode::Return, {}, {});
    m->functions.push_back(std::move(fn));
  }
  EXPECT_EQ(verify(*m), "function @twice is defined twice");
}

TEST(Verifier, RankZeroTilesAndHugeDimsAreRejected) {
  auto fn = std::make_unique<Function>();
  fn->name = "f";
  fn->body.addArg(Type::tile({}, kI32));
  fn->body.addArg(Type::tile({int64_t{1} << 62, int64_t{1} << 62}, kI32));
  Builder(&fn->body).create(OpCode::Return, {}, {});
  auto m = moduleWith(std::move(fn));
  auto errors = collectVerifierErrors(*m);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].message.find("a tile needs at least one dimension"), std::string::npos);
  EXPECT_NE(errors[1].message.find("a tile holds at most 1048576 elements"), std::string::npos);
}

}  // namespace
}  // namespace tessera
