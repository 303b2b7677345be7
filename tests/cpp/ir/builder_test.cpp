// The Builder and IR utilities: op creation, attributes kept sorted,
// regions, cloning and use rewriting.
#include <gtest/gtest.h>

#include "ir/ir.h"
#include "ir/printer.h"

namespace tessera {
namespace {

const Type kI32 = Type::scalar(DType::I32);

TEST(Builder, CreatesOpsWithSortedAttributesAndLocations) {
  Function fn;
  fn.name = "f";
  Value *n = fn.body.addArg(kI32, "n");
  Builder b(&fn.body);
  b.setLoc({1, 3, 5});
  Operation *op = b.create(OpCode::Arange, {}, {Type::tile({16}, kI32)},
                           {{"start", int64_t{0}}, {"end", int64_t{16}}});
  ASSERT_EQ(op->attrs.size(), 2u);
  EXPECT_EQ(op->attrs[0].name, "end");
  EXPECT_EQ(op->intAttr("start", -1), 0);
  EXPECT_EQ(op->loc, (SourceLoc{1, 3, 5}));
  EXPECT_EQ(op->parent, &fn.body);
  EXPECT_EQ(op->result()->def, op);
  Value *sum = b.op1(OpCode::Add, {n, n}, kI32);
  EXPECT_EQ(sum->def->operand(0), n);
  EXPECT_EQ(fn.body.ops.size(), 2u);
}

TEST(Builder, RegionsAndInsertionPoints) {
  Function fn;
  Value *n = fn.body.addArg(kI32);
  Builder b(&fn.body);
  Operation *loop = b.create(OpCode::For, {n, n, n}, {});
  ASSERT_EQ(loop->regions.size(), 1u);
  EXPECT_EQ(loop->regions[0]->parentOp, loop);
  Value *iv = loop->regions[0]->addArg(kI32, "i");
  Builder inner(loop->regions[0].get());
  inner.create(OpCode::Yield, {}, {});
  EXPECT_NE(loop->regions[0]->terminator(), nullptr);
  b.setInsertionPointBefore(loop);
  Value *c = b.constInt(4, kI32);
  EXPECT_EQ(fn.body.ops.front()->result(), c);
  EXPECT_EQ(iv->owner, loop->regions[0].get());
}

TEST(Builder, CloneAndReplaceUses) {
  Function fn;
  Value *n = fn.body.addArg(kI32, "n");
  Builder b(&fn.body);
  Value *one = b.constInt(1, kI32);
  Value *sum = b.op1(OpCode::Add, {n, one}, kI32);
  b.create(OpCode::Return, {}, {});
  std::unordered_map<const Value *, Value *> mapping{{n, one}};
  Block copy;
  cloneOpsInto(fn.body, copy, mapping);
  ASSERT_EQ(copy.ops.size(), 3u);
  auto it = std::next(copy.ops.begin());
  EXPECT_EQ((*it)->operand(0), one);
  EXPECT_EQ((*it)->operand(1), copy.ops.front()->result());
  replaceAllUsesWith(fn.body, one, n);
  EXPECT_EQ(sum->def->operand(1), n);
  EXPECT_EQ(countUses(fn)[n], 2);
}

}  // namespace
}  // namespace tessera
