// Declarations of every pass in passes.def, for direct calls (tests, the
// compile pipeline). Each pass's contract is in its own file.
#pragma once

#include "ir/ir.h"

namespace tessera {

#define PASS(fn, name, desc) void fn(Module &);
#include "passes/passes.def"

}  // namespace tessera
