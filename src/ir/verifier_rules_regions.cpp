// The Tile IR verifier, type half (see verifier_rules.cpp): the rules of the
// ops with regions (for, if, while, warp_specialize), of calls, and of the
// shared-memory ops the GPU passes make.
#include "ir/verifier_rules_impl.h"

namespace tessera::verifier_detail {

// The region's terminator yields values of types `want`.
bool Rules::yieldMatches(const Block &region, const std::vector<Type> &want,
                         const std::string &where) {
  const Operation &yield = *region.ops.back();
  // A null operand is reported by the terminator's own check.
  for (const Value *v : yield.operands)
    if (!v) return false;
  if (yield.operands.size() != want.size())
    return fail(where + " yields " + std::to_string(yield.operands.size()) +
                " value(s), expected " + std::to_string(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    if (!sameType(yield.operands[i]->type, want[i]))
      return fail(where + " yields " + ty(yield.operands[i]->type) + " as value #" +
                  std::to_string(i) + ", expected " + ty(want[i]));
  return true;
}

void Rules::forOp() {
  const Type &lb = in(0);
  if (!lb.isScalar() || !isIntTy(lb) || lb.dtype == DType::I1)
    return (void)fail("lower bound must be an integer scalar, got " + ty(lb));
  for (size_t i = 1; i < 3; ++i)
    if (!requireSameType(in(i), lb, i == 1 ? "upper bound" : "step", "the lower bound's type"))
      return;
  size_t iters = op_.operands.size() - 3;
  if (op_.results.size() != iters)
    return (void)fail("has " + std::to_string(iters) + " iteration argument(s) but " +
                      std::to_string(op_.results.size()) + " result(s); they must match");
  const Block &body = *op_.regions[0];
  if (body.args.size() != iters + 1)
    return (void)fail("the body takes the induction variable and " + std::to_string(iters) +
                      " iteration argument(s), got " + std::to_string(body.args.size()) +
                      " argument(s)");
  if (!(body.args[0]->type == lb))
    return (void)fail("induction variable has type " + ty(body.args[0]->type) + ", expected " +
                      ty(lb));
  std::vector<Type> types;
  for (size_t i = 0; i < iters; ++i) {
    const Type &init = in(3 + i);
    if (!requireSameType(out(i), init, "result #" + std::to_string(i), "its initial value's type"))
      return;
    if (!requireSameType(body.args[i + 1]->type, init, "body argument #" + std::to_string(i + 1),
                         "its initial value's type"))
      return;
    types.push_back(init);
  }
  yieldMatches(body, types, "the body");
}

void Rules::ifOp() {
  if (!(in(0) == Type::scalar(DType::I1)))
    return (void)fail("condition must be an i1 scalar, got " + ty(in(0)));
  std::vector<Type> types;
  for (const auto &r : op_.results) types.push_back(r->type);
  const char *names[] = {"the then-region", "the else-region"};
  for (size_t i = 0; i < 2; ++i) {
    if (!op_.regions[i]->args.empty())
      return (void)fail(std::string(names[i]) + " takes no arguments");
    if (!yieldMatches(*op_.regions[i], types, names[i])) return;
  }
}

void Rules::warpSpecialize() {
  int64_t warps = 0;
  if (!requireIntAttr("producer_warps", warps)) return;
  if (warps < 1 || warps > 4)
    return (void)fail("producer_warps must be from 1 to 4, got " + std::to_string(warps));
  // setmaxnreg's counts: multiples of 8 from 24 to 256, for whole warpgroups.
  for (const char *name : {"producer_registers", "consumer_registers"}) {
    if (!op_.attr(name)) continue;
    int64_t regs = op_.intAttr(name, 0);
    if (regs < 24 || regs > 256 || regs % 8 != 0)
      return (void)fail(std::string(name) + " must be a multiple of 8 from 24 to 256, got " +
                        std::to_string(regs));
    if (warps != 4)
      return (void)fail(std::string(name) + " needs a producer warpgroup (producer_warps = 4)");
  }
  const char *names[] = {"the consumer region", "the producer region"};
  for (size_t i = 0; i < 2; ++i) {
    if (!op_.regions[i]->args.empty())
      return (void)fail(std::string(names[i]) + " takes no arguments");
    if (!yieldMatches(*op_.regions[i], {}, names[i])) return;
  }
}

void Rules::whileOp() {
  const Block &before = *op_.regions[0], &after = *op_.regions[1];
  std::vector<Type> inits, results;
  for (const Value *v : op_.operands) inits.push_back(v->type);
  for (const auto &r : op_.results) results.push_back(r->type);
  auto argsMatch = [&](const Block &b, const std::vector<Type> &want, const char *which) {
    if (b.args.size() != want.size())
      return fail(std::string(which) + " takes " + std::to_string(want.size()) +
                  " argument(s), got " + std::to_string(b.args.size()));
    for (size_t i = 0; i < want.size(); ++i)
      if (!sameType(b.args[i]->type, want[i]))
        return fail(std::string(which) + " argument #" + std::to_string(i) + " has type " +
                    ty(b.args[i]->type) + ", expected " + ty(want[i]));
    return true;
  };
  if (!argsMatch(before, inits, "the before-region")) return;
  const Operation &cond = *before.ops.back();
  // A malformed condition (no operands, a null one) is reported by its own check.
  if (cond.operands.empty() ||
      std::find(cond.operands.begin(), cond.operands.end(), nullptr) != cond.operands.end())
    return;
  if (cond.operands.size() != results.size() + 1)
    return (void)fail("'condition' forwards " + std::to_string(cond.operands.size() - 1) +
                      " value(s), but the loop has " + std::to_string(results.size()) +
                      " result(s)");
  for (size_t i = 0; i < results.size(); ++i)
    if (!sameType(cond.operands[i + 1]->type, results[i]))
      return (void)fail("'condition' forwards " + ty(cond.operands[i + 1]->type) + " as result #" +
                        std::to_string(i) + ", expected " + ty(results[i]));
  if (!argsMatch(after, results, "the after-region")) return;
  yieldMatches(after, inits, "the after-region");
}

void Rules::call() {
  const Attr *callee = op_.attr("callee");
  const std::string *name = callee ? std::get_if<std::string>(callee) : nullptr;
  if (!name) return (void)fail("missing string attribute 'callee'");
  if (!module_) return;
  const Function *fn = module_->lookup(*name);
  if (!fn) return (void)fail("calls @" + *name + ", which is not in the module");
  if (fn->body.args.size() != op_.operands.size())
    return (void)fail("@" + *name + " takes " + std::to_string(fn->body.args.size()) +
                      " argument(s), got " + std::to_string(op_.operands.size()));
  for (size_t i = 0; i < op_.operands.size(); ++i)
    if (!requireSameType(in(i), fn->body.args[i]->type, "argument #" + std::to_string(i),
                         "the parameter type of @" + *name))
      return;
  if (fn->resultTypes.size() != op_.results.size())
    return (void)fail("@" + *name + " returns " + std::to_string(fn->resultTypes.size()) +
                      " value(s), but the call has " + std::to_string(op_.results.size()) +
                      " result(s)");
  for (size_t i = 0; i < op_.results.size(); ++i)
    if (!requireSameType(out(i), fn->resultTypes[i], "result #" + std::to_string(i),
                         "the return type of @" + *name))
      return;
}

// Shared-memory rings and asynchronous copies (GPU passes only): a ring is a
// memdesc of rank 3 (slot, rows, columns); an index of it one 2-D buffer.
void Rules::sharedMemory() {
  auto ring = [&](const Type &t, const std::string &what) {
    return (t.isMemDesc() && t.rank() == 3) ||
           fail(what + " must be a ring (memdesc of rank 3), got " + ty(t));
  };
  switch (op_.code) {
    case OpCode::LocalAlloc:
      ring(out(), "result");
      return;
    case OpCode::LocalDealloc:
      ring(in(0), "operand");
      return;
    case OpCode::MemDescIndex: {
      if (!ring(in(0), "operand")) return;
      if (!(in(1) == Type::scalar(DType::I32)))
        return (void)fail("slot must be i32, got " + ty(in(1)));
      std::vector<int64_t> want(in(0).shape.begin() + 1, in(0).shape.end());
      if (!out().isMemDesc() || out().shape != want || out().dtype != in(0).dtype)
        fail("result must be one buffer of the ring, memdesc<" + shapeStr(want) + ">, got " +
             ty(out()));
      return;
    }
    case OpCode::MemDescTrans: {
      const Type &from = in(0);
      if (!from.isMemDesc() || from.rank() != 2)
        return (void)fail("operand must be a 2-D memdesc, got " + ty(from));
      std::vector<int64_t> want = {from.shape[1], from.shape[0]};
      if (!out().isMemDesc() || out().shape != want || out().dtype != from.dtype)
        fail("result must be the operand transposed, memdesc<" + shapeStr(want) + ">, got " +
             ty(out()));
      return;
    }
    case OpCode::AsyncCopy: {
      if (op_.operands.size() < 2 || op_.operands.size() > 4)
        return (void)fail("takes (destination, pointers[, mask[, limit]])");
      const Type &dst = in(0), &ptr = in(1);
      if (!dst.isMemDesc() || dst.rank() != 2)
        return (void)fail("destination must be a 2-D memdesc, got " + ty(dst));
      if (!ptr.isTile() || !ptr.elemIsPtr || ptr.shape != dst.shape || ptr.dtype != dst.dtype)
        return (void)fail("pointers must be a tile of pointers to the destination's elements " +
                          std::string("with its shape, got ") + ty(ptr));
      if (op_.operands.size() >= 3) requireMask(2, ptr);
      // A prefix-masked copy (mask_prefix.h): each aligned run of
      // prefix_run elements along the contiguous dim keeps its first
      // min(limit, n) elements (limit + 1 when inclusive) where the mask's
      // first element is on.
      if (op_.operands.size() == 4) {
        const Type &limit = in(3);
        if (!limit.isTile() || limit.elemIsPtr || !isInt(limit.dtype) || limit.shape != ptr.shape)
          return (void)fail("limit must be an integer tile of the pointers' shape, got " +
                            ty(limit));
        int64_t run = 0, inclusive = 0;
        if (requireIntAttr("prefix_run", run) && (run < 2 || (run & (run - 1)) != 0))
          fail("prefix_run must be a power of two of at least 2, got " + std::to_string(run));
        if (requireIntAttr("inclusive", inclusive) && inclusive != 0 && inclusive != 1)
          fail("inclusive must be 0 or 1, got " + std::to_string(inclusive));
      }
      return;
    }
    case OpCode::LocalStore: {
      const Type &dst = in(0), &v = in(1);
      if (!dst.isMemDesc() || dst.rank() != 2)
        return (void)fail("destination must be a 2-D memdesc, got " + ty(dst));
      if (!v.isTile() || v.elemIsPtr || v.shape != dst.shape || v.dtype != dst.dtype)
        fail("value must be a tile of the destination's shape and element type, got " + ty(v));
      return;
    }
    case OpCode::AsyncCommit:
      return;
    case OpCode::AsyncWait: {
      int64_t pending = 0;
      if (requireIntAttr("pending", pending) && pending < 0)
        fail("pending must be at least 0, got " + std::to_string(pending));
      return;
    }
    default:
      return;
  }
}

}  // namespace tessera::verifier_detail
