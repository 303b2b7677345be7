// The Tile IR parser: reads the textual form that printer.h writes (the
// grammar is documented there).
//
// Contract: parseIR() reads the whole buffer `fileId` of `sm` and returns the
// module, or throws CompileError (through tessera::fail) whose location points
// into that buffer, in the buffer's own line numbering (SourceFile::firstLine
// is honoured, so a chunk of a larger file reports the larger file's lines).
// It never crashes, hangs or aborts on bad input.
//
// Locations: an op or function with `loc("file":line:col)` gets that
// location; the file name is looked up among the files of `sm` (the parsed
// buffer first) and registered (with no text) when absent. An op without one
// gets the position of its first character in the IR text, so that verifier
// errors point into the IR file.
//
// The parser resolves value names but checks no types: run verify() on the
// result. A use of a value defined inside an earlier region parses (so that
// the verifier can say why it is not visible); a use before any definition is
// a parse error.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ir/ir.h"
#include "support/source.h"

namespace tessera {

std::unique_ptr<Module> parseIR(SourceManager &sm, uint32_t fileId);

// Convenience: registers `text` under `name` in `sm` and parses it.
std::unique_ptr<Module> parseIRString(SourceManager &sm, std::string name, std::string text);

}  // namespace tessera
