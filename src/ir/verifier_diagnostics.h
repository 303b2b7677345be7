// Structured form of the verifier (verifier.h): every error found, each with
// the location of the op (or function) it is about, so that tools can render
// `file:line:col: error: ...` with a caret (support/diagnostics.h render()).
//
// verify() in verifier.h returns the first of these as one string.
#pragma once

#include <cstddef>
#include <vector>

#include "ir/ir.h"
#include "support/diagnostics.h"

namespace tessera {

// All errors of `m`, in program order, at most `maxErrors` of them.
std::vector<Diagnostic> collectVerifierErrors(const Module &m, size_t maxErrors = 100);
// All errors of `f`; `module` (optional) lets calls be checked against their callee.
std::vector<Diagnostic> collectVerifierErrors(const Function &f, const Module *module,
                                              size_t maxErrors = 100);

}  // namespace tessera
