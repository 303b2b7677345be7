// unroll-loops: `tl.range(..., loop_unroll_factor=F)` runs its body F times
// per iteration.
//
// Requires: valid Tile IR.
// Guarantees: a `for` with attribute loop_unroll_factor = F > 1, a constant
// positive step s and an i32 or i64 induction variable becomes
//   - a loop over [lb, lb + m s) with step F s, where trips is the original
//     trip count and m = trips - trips % F (computed in 64 bits, so no bound
//     overflows), whose body is F copies of the original body in order, copy
//     k reading the induction variable plus k s and the values copy k-1
//     yielded (the block arguments for k = 0);
//   - then the original loop, from lb + m s to ub, starting from the first
//     loop's results: the at most F-1 iterations left. Its results stay the
//     loop's results.
// Both loops keep the original's other attributes (num_stages); neither has
// loop_unroll_factor any more. Other loops, and these with another step,
// lose the attribute only.
// Preserves: what the program computes, in the same order of operations;
// locations (the copies keep their ops' locations).
#include "passes/pass_utils.h"

namespace tessera {
namespace {

using namespace passes;

void unroll(Operation *loop, int64_t factor) {
  Value *lb = loop->operand(0), *ub = loop->operand(1);
  auto s = positiveConstantStep(*loop);
  const DType ivType = lb->type.dtype;
  if (!s || (ivType != DType::I32 && ivType != DType::I64)) return;
  const Type iv = Type::scalar(ivType), i64 = Type::scalar(DType::I64);
  Builder b;
  b.setInsertionPointBefore(loop);
  b.setLoc(loop->loc);
  auto wide = [&](Value *v) { return ivType == DType::I64 ? v : b.op1(OpCode::Cast, {v}, i64); };
  // trips = ub > lb ? (ub - lb - 1) / s + 1 : 0; main = trips - trips % F.
  Value *lb64 = wide(lb);
  Value *span = b.op1(OpCode::Sub, {wide(ub), lb64}, i64);
  Value *one = b.constInt(1, i64), *zero = b.constInt(0, i64);
  Value *runs =
      b.op1(OpCode::Cmp, {span, zero}, Type::scalar(DType::I1), {{"pred", std::string("gt")}});
  Value *perStep = b.op1(
      OpCode::Add,
      {b.op1(OpCode::Div, {b.op1(OpCode::Sub, {span, one}, i64), b.constInt(*s, i64)}, i64), one},
      i64);
  Value *trips = b.op1(OpCode::Select, {runs, perStep, zero}, i64);
  Value *f = b.constInt(factor, i64);
  Value *main = b.op1(OpCode::Sub, {trips, b.op1(OpCode::Rem, {trips, f}, i64)}, i64);
  Value *mainEnd =
      b.op1(OpCode::Add, {lb64, b.op1(OpCode::Mul, {main, b.constInt(*s, i64)}, i64)}, i64);
  if (ivType != DType::I64) mainEnd = b.op1(OpCode::Cast, {mainEnd}, iv);

  std::vector<Value *> operands{lb, mainEnd, b.constInt(*s * factor, iv)};
  std::vector<Type> types;
  for (size_t i = 3; i < loop->operands.size(); ++i) {
    operands.push_back(loop->operand(i));
    types.push_back(loop->operand(i)->type);
  }
  Operation *unrolled = b.create(OpCode::For, operands, types);
  for (const NamedAttr &a : loop->attrs) unrolled->setAttr(a.name, a.value);
  Block &from = *loop->regions[0];
  Block &body = *unrolled->regions[0];
  Value *newIv = body.addArg(iv, from.args[0]->nameHint);
  std::vector<Value *> carried;
  for (size_t i = 1; i < from.args.size(); ++i)
    carried.push_back(body.addArg(from.args[i]->type, from.args[i]->nameHint));
  Builder in(&body);
  in.setLoc(loop->loc);
  Operation *yield = from.terminator();
  for (int64_t k = 0; k < factor; ++k) {
    std::unordered_map<const Value *, Value *> mapping;
    mapping[from.args[0].get()] =
        k == 0 ? newIv : in.op1(OpCode::Add, {newIv, in.constInt(k * *s, iv)}, iv);
    for (size_t i = 1; i < from.args.size(); ++i) mapping[from.args[i].get()] = carried[i - 1];
    for (auto &op : from.ops)
      if (op.get() != yield) cloneOp(*op, in, mapping);
    for (size_t i = 0; i < carried.size(); ++i) {
      Value *y = yield->operand(static_cast<unsigned>(i));
      auto it = mapping.find(y);
      carried[i] = it == mapping.end() ? y : it->second;
    }
  }
  in.create(OpCode::Yield, carried, {});
  // The rest: the original loop, from where the unrolled one stopped.
  loop->operands[0] = mainEnd;
  for (size_t i = 0; i < unrolled->results.size(); ++i)
    loop->operands[3 + i] = unrolled->result(static_cast<unsigned>(i));
}

void processBlock(Block &block) {
  std::vector<Operation *> ops;
  for (auto &o : block.ops) ops.push_back(o.get());
  for (Operation *op : ops) {
    for (auto &r : op->regions) processBlock(*r);  // inner loops first
    if (op->code != OpCode::For || !op->attr("loop_unroll_factor")) continue;
    int64_t factor = op->intAttr("loop_unroll_factor");
    op->removeAttr("loop_unroll_factor");
    if (factor > 1) unroll(op, factor);
  }
}

}  // namespace

void unrollLoops(Module &m) {
  for (auto &fn : m.functions) processBlock(fn->body);
}

}  // namespace tessera
