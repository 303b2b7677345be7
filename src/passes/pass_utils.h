// Small helpers shared by the passes in this directory: reading constants,
// value substitution without use lists, moving ops between blocks, and the
// side-effect queries that DCE, CSE and LICM agree on.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace tessera::passes {

// The value of a `constant` op (a scalar, or every element of a splat tile).
// Integers are held sign-extended for signed dtypes and zero-extended for
// unsigned ones and i1 (a u64 above INT64_MAX keeps its bit pattern).
struct Scalar {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
  static Scalar ofInt(int64_t v) { return {false, v, 0}; }
  static Scalar ofFloat(double v) { return {true, 0, v}; }
};

// Wraps `v` to the width of integer dtype `t` in the canonical form above.
int64_t wrapInt(uint64_t v, DType t);
// Rounds `x` to the nearest value of float dtype `t` (to nearest even).
double roundToFloat(double x, DType t);
// The storage codec of a float narrower than f32 (f16, bf16, the fp8
// formats): a double's bits in it, rounded once as the GPU converts
// (support/numerics.h), and the value of such bits. nullopt for other dtypes.
struct NarrowFloat {
  uint16_t (*encode)(double);
  double (*decode)(uint16_t);
};
std::optional<NarrowFloat> narrowFloat(DType t);

// The constant held by `v` when it is the result of a `constant` op with an
// integer or float element type; nullopt otherwise (pointers, non-constants).
std::optional<Scalar> constantOf(const Value *v);
// A new `constant` op of type `t` holding `s`, inserted at `b`'s point.
Value *makeConstant(Builder &b, const Type &t, const Scalar &s);

// Substitution of values, applied lazily: passes record `from -> to` and
// rewrite operands on the fly (defs precede uses in a pre-order walk) and once
// more over the whole function at the end.
class ValueMap {
 public:
  void map(Value *from, Value *to) { map_[from] = to; }
  Value *lookup(Value *v) const;
  // Rewrites the operands of `op` (not of its nested ops).
  bool remapOperands(Operation *op) const;
  // Rewrites the operands of every op in `fn`.
  void apply(Function &fn) const;
  bool empty() const { return map_.empty(); }

 private:
  PtrMap<Value *, Value *> map_;
};

// Ops removed from the IR are parked here rather than destroyed until the
// pass ends, so that a Value* never gets reused for a new value while a
// ValueMap or a use count still mentions the old one.
class Graveyard {
 public:
  void bury(Operation *op);  // unlinks `op` from its block and keeps it
 private:
  std::vector<std::unique_ptr<Operation>> dead_;
};

// Walks `fn` in program order (an op's regions before the ops after it);
// where `rewrite(op)` returns a value, every use of op's single result reads
// that value instead and op leaves the IR. `rewrite` may create and move
// ops; operands it sees are already remapped. Ops removed stay allocated
// until the walk ends, so their addresses are not reused meanwhile.
void replaceResults(Function &fn, const std::function<Value *(Operation *)> &rewrite);

// Whether `op` or anything nested in it writes memory or may do so (calls,
// whose callee we do not look at). Ops that only read memory do not count.
bool hasWriteEffects(Operation *op);
// hasWriteEffects less the GPU back end's shared-memory staging (cp.async
// and tensor copies, their commits, waits and mbarriers, shared-memory
// buffers, CTA barriers, tensor maps built in the program's own scratch):
// whether a load from global memory issued before `op` could miss what it
// writes.
bool writesGlobalMemory(Operation *op);
// Whether the op can be removed when its results are unused: pure ops,
// loads that only read, and region ops with no write effects inside.
bool isRemovableWhenUnused(Operation *op);
// Erases the ops of `block` (and of blocks nested in it, with `nested`)
// that `removable` accepts, that have results, and whose results nothing in
// `fn` reads, nor any op erased with them (an erased op may have been its
// operands' last reader). For GPU passes that leave dead code behind: the
// GPU pipeline runs no DCE.
void eraseUnusedOps(Function &fn, Block &block, bool nested,
                    const std::function<bool(const Operation &)> &removable);
// The yield of `loop`, a `for` whose n carried values line up (n + 3
// operands, n results, n + 1 body arguments, a yield of n), else null.
Operation *forYield(Operation *loop);
// The step of `loop` (a `for`) where it is a positive integer constant.
std::optional<int64_t> positiveConstantStep(const Operation &loop);
// Whether `loop`'s induction variable is an i32.
bool i32Loop(const Operation &loop);
// Whether `arg` is a carried block argument of a `for` loop (not its
// induction variable) whose yield feeds `next` back into it: `arg` at the
// next iteration is `next`.
bool yieldsBackInto(const Value *next, const Value *arg);
// Whether `a` and `b` have the same attributes (doubles compared bit for
// bit, so NaN equals NaN and -0.0 differs from 0.0): what cse compares.
bool sameAttrs(const Operation &a, const Operation &b);
// Whether `v` is defined inside `op` (a result of an op nested in one of its
// regions, or an argument of one of those regions' blocks).
bool isDefinedInside(const Value *v, const Operation *op);
// Moves `op` from its block to just before `before` (which may be in
// another block).
void moveBefore(Operation *op, Operation *before);
// Iterator of `op` in its parent block.
OpList::iterator iteratorOf(Operation *op);

}  // namespace tessera::passes
