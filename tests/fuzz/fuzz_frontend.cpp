// libFuzzer target for the front end's lexer and parser.
//
// Contract checked: on arbitrary bytes, parseModule() returns without
// throwing (a CompileError escaping it is a bug and crashes the run), and
// parseModuleStrict() either returns or throws CompileError; neither crashes,
// hangs, overflows the stack or trips a sanitizer. Successful parses are also
// dumped and failed ones rendered, to exercise those paths on odd ASTs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/parser.h"
#include "support/diagnostics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  tessera::SourceManager sm;
  // Vary the user line/column offsets a little so location arithmetic is
  // exercised with non-default values too.
  uint32_t firstLine = 1 + static_cast<uint32_t>(size % 7);
  uint32_t colOffset = static_cast<uint32_t>(size % 5);
  uint32_t id = sm.addFile("fuzz.py", text, firstLine, colOffset);

  tessera::ast::Module lenient = tessera::frontend::parseModule(sm, id);
  (void)tessera::ast::dump(lenient);
  for (const auto &broken : lenient.brokenDefs) (void)tessera::render(sm, broken.diag);

  try {
    tessera::ast::Module strict = tessera::frontend::parseModuleStrict(sm, id);
    (void)tessera::ast::dump(strict);
  } catch (const tessera::CompileError &e) {
    (void)tessera::render(sm, e.diag);
  }
  return 0;
}
