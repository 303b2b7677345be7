#include "passes/pass_manager.h"

#include "ir/verifier.h"
#include "support/diagnostics.h"

namespace tessera {

#define PASS(fn, name, desc) void fn(Module &);
#include "passes/passes.def"

static std::vector<PassInfo> &registry() {
  static std::vector<PassInfo> passes = {
#define PASS(fn, name, desc) {name, desc, &fn},
#include "passes/passes.def"
  };
  return passes;
}

const std::vector<PassInfo> &allPasses() {
  return registry();
}

void registerPasses(const std::vector<PassInfo> &more) {
  for (const PassInfo &p : more)
    if (!findPass(p.name)) registry().push_back(p);
}

const PassInfo *findPass(std::string_view name) {
  for (const auto &p : allPasses())
    if (name == p.name) return &p;
  return nullptr;
}

void runPasses(Module &m, const std::vector<std::string> &names, const PassPipelineOptions &opts) {
  for (const auto &n : names) {
    const PassInfo *p = findPass(n);
    if (!p) internalError("pass manager", "unknown pass '" + n + "'");
    p->run(m);
    if (opts.verifyEach) {
      std::string err = verify(m);
      if (!err.empty()) internalError(n, "IR invalid after pass: " + err);
    }
    if (opts.afterPass) opts.afterPass(n, m);
  }
}

}  // namespace tessera
