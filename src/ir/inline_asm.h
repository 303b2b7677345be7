// The operand plan of an inline_asm op (tl.inline_asm_elementwise), shared by
// the front end (which reports a mismatch at the call), the verifier and the
// PTX emitter, so that the three agree on what `$N` means.
//
// One asm invocation handles `pack` elements of every argument and result.
// Elements narrower than 32 bits travel packed into 32-bit registers, up to
// `pack` of them per register (four int8 in one "r"); wider ones take one
// register each. The asm's operands are numbered outputs first: $0 .. the
// registers of result 0, then those of result 1, ..., then the inputs in the
// order of the arguments. This is Triton's numbering, so kernels written for
// Triton keep their asm text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/types.h"

namespace tessera {

// One comma-separated entry of the constraint string ("=r", "l", "0").
struct AsmConstraint {
  bool output = false;
  char cls = 'r';    // r (.b32), h (.b16), l (.b64), f (.f32), d (.f64); 0 when tied
  int tiedTo = -1;   // an input written "N": it shares output N's register
  int bits() const;  // the register's width: 16, 32 or 64
};

struct AsmPlan {
  std::vector<AsmConstraint> outputs, inputs;
  // Per result / per argument: elements per register, registers per call.
  std::vector<int> resultPerReg, argPerReg;
  int numOutputRegs = 0, numInputRegs = 0;
};

// Bits one element of `elem` (a scalar or pointer type) counts as for
// packing: pointers 64, i1 8 (its width in memory), others their dtype's.
int asmElementBits(const Type &elem);

// Parses `constraints` and matches it against the element types of the
// arguments and results and `pack`. On a mismatch returns nullopt and sets
// `error` to a sentence (what is wrong) and `hint` (what to write instead).
std::optional<AsmPlan> planInlineAsm(const std::string &asmText, const std::string &constraints,
                                     const std::vector<Type> &argElems,
                                     const std::vector<Type> &resultElems, int64_t pack,
                                     std::string &error, std::string &hint);

}  // namespace tessera
