// Passes over Tile IR. Each pass is a free function in its own file with a
// contract comment (what it requires, what it guarantees, what it preserves);
// passes.def lists the Tile IR passes once and the GPU code generator adds
// its own (registerPasses), so the compile pipeline and tessera-opt find
// every pass by name.
//
// runPasses is the one place passes run: the compile pipeline (Tile IR passes
// on the kernel, then the GPU passes on a copy of it) and tessera-opt both go
// through it, so the verifier, the --print-after hooks and the timings apply
// to every pass, GPU ones included.
#pragma once

#include <functional>
#include <set>
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

// Every registered pass, in passes.def order, then the registered extras.
const std::vector<PassInfo> &allPasses();
const PassInfo *findPass(std::string_view name);
// Adds the passes of another component (the GPU code generator's table) to
// the registry, so tools find them by name. Idempotent and thread-safe.
void registerPasses(const std::vector<PassInfo> &more);

// "" when every name is a registered pass; otherwise a message naming the
// first unknown one and listing the known ones, for the user who typed it.
std::string checkPassNames(const std::vector<std::string> &names);

struct PassTiming {
  std::string pass;
  double ms = 0;
};

// Whether the verifier runs after every pass unless a caller says otherwise:
// in builds without NDEBUG, and where the environment sets
// TESSERA_VERIFY_EACH=1 (the test suite does). Release builds skip it: it
// walks the whole module once per pass, and the passes are tested with it on.
bool verifyEachByDefault();

struct PassPipelineOptions {
  // Run the verifier after every pass; a failure is an internal error that
  // names the pass and the op's location.
  bool verifyEach = verifyEachByDefault();
  // IR snapshots: after the passes named here (or every pass), `print` is
  // called with the pass's name and the module.
  std::set<std::string, std::less<>> printAfter;
  bool printAfterAll = false;
  std::function<void(const std::string &pass, const Module &)> print;
  // When set, each pass's wall time is appended here.
  std::vector<PassTiming> *timings = nullptr;
};

// Runs the named passes in order. Unknown names are an internal error here:
// callers that take names from users check them with checkPassNames first.
void runPasses(Module &m, const std::vector<std::string> &names, const PassPipelineOptions &opts);

}  // namespace tessera
