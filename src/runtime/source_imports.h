// The source units of a kernel file that imports @jit helpers from other
// files, for the tools that compile one file (tesserac, tesserac aot),
// where no Python interpreter resolves the imports for us.
//
// Contract: followImports reads the top-level `from M import name [as b]`
// and `import M [as b]` statements of `file` and, recursively, of the files
// they name. A module is the Python file Python would find for a script
// next to the importing file: `M.py` or `M/__init__.py` in its folder
// (leading dots of a relative import climb folders), dotted names through
// sub-folders. Each file found is one unit, once; the importing unit gets
// a global per imported @jit function (`b` for `from M import f as b`,
// `b.f` for a module bound as `b`, which the front end reads as a host
// module's attribute). Names it cannot resolve stay unbound (the front end
// reports them where a kernel uses them), triton and tessera are never
// looked for on disk, and it never fails: at worst units[0] alone. At most
// 64 units. A file in which no line but `import triton...`-style ones
// says `import` is units[0] alone without being parsed here.
#pragma once

#include <string>
#include <vector>

#include "runtime/compiler.h"

namespace tessera {

std::vector<SourceUnit> followImports(const std::string &file, const std::string &source);

}  // namespace tessera
