// Constant evaluation of one op on constant operands, with the dtype
// semantics of ops.def: integers wrap at their width, signed division and
// remainder truncate toward zero (C), floats round to the result dtype after
// each op (numerics.h for f16/bf16/fp8). Anything whose result the target
// does not define the same way everywhere is *not* folded: division or
// remainder by zero, INT_MIN / -1, shifts by the width or more, float->int
// conversions out of range or of NaN, NaN bit patterns from bitcasts.
#pragma once

#include <optional>
#include <vector>

#include "ir/ir.h"
#include "passes/pass_utils.h"

namespace tessera::passes {

// The value of `op`'s single result when its operands hold `args` (one per
// operand, in order), or nullopt when the op is not folded. Handles every
// elementwise op; for shape ops (splat, broadcast, ...) the value of every
// element of the result.
std::optional<Scalar> foldOp(const Operation &op, const std::vector<Scalar> &args);

// Bitwise equality of two constants of the same dtype (tells -0.0 from 0.0).
bool sameScalar(const Scalar &a, const Scalar &b);

}  // namespace tessera::passes
