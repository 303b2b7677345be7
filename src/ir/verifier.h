// The Tile IR verifier: structural rules (terminators, region arity, operand
// counts from ops.def) and each op's type rules. Returns an empty string when
// the module is valid, else a message naming the op and its location.
#pragma once

#include <string>

#include "ir/ir.h"

namespace tessera {

std::string verify(const Module &m);
std::string verify(const Function &f);

}  // namespace tessera
