// What a `for` loop's loads and carried values depend on, for
// pipeline-dot-operands, which copies a later iteration's operands and so
// needs their addresses at that iteration: the body ops an address is made
// by, carried values that advance themselves (a pointer's `p = p + inc`),
// and groups of carried values closed under their updates (a flattened
// loop's position and tile coordinates).
#pragma once

#include <optional>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"

namespace tessera::ptx {

// A loop-carried value that advances itself: arg = yield(update(arg)).
struct Advancing {
  Value *arg;
  unsigned index;                   // among the carried values (yield operand, loop result)
  std::vector<Operation *> update;  // body ops from arg to the yielded value, in program order
};

// Carried values that the copies' addresses read and the body reads too (a
// flattened loop's position and tile coordinates, flatten-loops), closed
// under their updates (pure ops, and ifs of pure ops: the coordinates are
// recomputed as a tile starts). A copy of them runs S-1 iterations ahead
// for the copies; the body keeps its own.
struct Shadowed {
  std::vector<Value *> args;        // in argument order
  std::vector<unsigned> indices;    // among the carried values
  std::vector<Operation *> update;  // body ops from args to their yields, in program order
};

// Appends a carried value to `loop` (an operand, a body argument, a
// result), starting at `init`; returns the body argument. The caller adds
// its operand to the body's yield.
Value *appendCarried(Operation *loop, Value *init);

class LoopSlices {
 public:
  explicit LoopSlices(Operation *loop) : loop_(loop), body_(*loop->regions[0]) {}

  // Collects the pure body ops `v` depends on, which must lead only to the
  // induction variable, values from before the loop, and carried values
  // (recorded in `carried`). With `ifs`, an `if` whose regions hold pure
  // ops only counts as pure.
  bool collect(Value *v, std::unordered_set<Operation *> &seen,
               std::unordered_set<Value *> &carried, bool ifs = false) const;
  // `set`'s ops in the body's order.
  std::vector<Operation *> inProgramOrder(const std::unordered_set<Operation *> &set) const;
  // `arg` when it advances itself by pure ops and the loop's result for it
  // is unused (`resultUsed` false).
  std::optional<Advancing> advancing(Value *arg, bool resultUsed) const;
  // Whether every body op that depends on `a.arg` is in `allowed` or is one
  // of `loads` (whose values the copies replace), and the yield passes it
  // on only as its own next value.
  bool onlyUsedBy(const Advancing &a, const std::unordered_set<Operation *> &allowed,
                  const std::unordered_set<Operation *> &loads) const;
  // The carried values `seeds` and those their updates read, when every
  // update is pure (ifs of pure ops allowed).
  std::optional<Shadowed> shadow(const std::unordered_set<Value *> &seeds) const;

 private:
  Value *iv() const { return body_.args[0].get(); }

  Operation *loop_;
  Block &body_;
};

}  // namespace tessera::ptx
