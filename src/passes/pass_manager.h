// Passes over Tile IR. Each pass is a free function in its own file with a
// contract comment (what it requires, what it guarantees, what it preserves);
// passes.def lists them once, so tessera-opt and the compile pipeline find
// them by name.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tessera {

using PassFn = void (*)(Module &);

struct PassInfo {
  const char *name;         // command-line name, e.g. "cse"
  const char *description;  // one line
  PassFn run;
};

// Every registered pass, in passes.def order.
const std::vector<PassInfo> &allPasses();
const PassInfo *findPass(std::string_view name);
// Adds the passes of another component (the GPU code generator's table) to
// the registry, so tools find them by name. Call before running passes.
void registerPasses(const std::vector<PassInfo> &more);

struct PassPipelineOptions {
  bool verifyEach = true;  // run the verifier after every pass
  // Called after each pass with its name (for --print-after / IR snapshots).
  std::function<void(const std::string &pass, Module &)> afterPass;
};

// Runs the named passes in order. A verifier failure after a pass is reported
// as an internal error naming that pass.
void runPasses(Module &m, const std::vector<std::string> &names, const PassPipelineOptions &opts);

}  // namespace tessera
