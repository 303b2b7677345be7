// Internal to the verifier: the per-op type rules (verifier_rules.cpp and
// verifier_rules_regions.cpp, sharing verifier_rules_impl.h), called
// by the structural walk (verifier.cpp) once an op has passed the structural
// checks (operand, result and region counts; operands non-null; regions end
// in the right terminator), so rules may index operands, results and region
// terminators without bounds checks.
#pragma once

#include <string>

#include "ir/ir.h"

namespace tessera::verifier_detail {

// Receives each error of one op; the message must already name the mnemonic.
class OpErrorSink {
 public:
  virtual ~OpErrorSink() = default;
  virtual void error(const Operation &op, std::string message) = 0;
};

// Checks `op`'s type rules; `module` (may be null) resolves call targets.
void checkOpTypes(const Operation &op, const Module *module, OpErrorSink &sink);

// Whether a value of type `t` is well formed (tile dims powers of two, ...);
// returns the problem, or "" when none.
std::string checkValueType(const Type &t);

}  // namespace tessera::verifier_detail
