#include "passes/pass_manager.h"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include "ir/verifier_diagnostics.h"
#include "support/diagnostics.h"

namespace tessera {

#define PASS(fn, name, desc) void fn(Module &);
#include "passes/passes.def"

namespace {

std::mutex registryMutex;

std::vector<PassInfo> &registry() {
  static std::vector<PassInfo> passes = {
#define PASS(fn, name, desc) {name, desc, &fn},
#include "passes/passes.def"
  };
  return passes;
}

}  // namespace

const std::vector<PassInfo> &allPasses() {
  return registry();
}

// Registration happens once per component before any compile uses the names
// (compileKernel and the tools call it first), so readers need no lock.
void registerPasses(const std::vector<PassInfo> &more) {
  std::lock_guard<std::mutex> lock(registryMutex);
  for (const PassInfo &p : more)
    if (!findPass(p.name)) registry().push_back(p);
}

const PassInfo *findPass(std::string_view name) {
  for (const auto &p : allPasses())
    if (name == p.name) return &p;
  return nullptr;
}

std::string checkPassNames(const std::vector<std::string> &names) {
  for (const auto &n : names) {
    if (findPass(n)) continue;
    std::string known;
    for (const auto &p : allPasses()) known += std::string(known.empty() ? "" : ", ") + p.name;
    return "unknown pass '" + n + "'; the passes are: " + known;
  }
  return {};
}

bool verifyEachByDefault() {
#ifndef NDEBUG
  return true;
#else
  // Read once: the pipeline asks for every compile, the environment does not
  // change under it.
  static const bool fromEnv = [] {
    const char *env = std::getenv("TESSERA_VERIFY_EACH");
    return env && std::string_view(env) == "1";
  }();
  return fromEnv;
#endif
}

void runPasses(Module &m, const std::vector<std::string> &names, const PassPipelineOptions &opts) {
  using Clock = std::chrono::steady_clock;
  for (const auto &n : names) {
    const PassInfo *p = findPass(n);
    if (!p) internalError("pass manager", "unknown pass '" + n + "'");
    Clock::time_point start = Clock::now();
    p->run(m);
    if (opts.timings)
      opts.timings->push_back(
          {n, std::chrono::duration<double, std::milli>(Clock::now() - start).count()});
    if (opts.verifyEach) {
      std::vector<Diagnostic> broken = collectVerifierErrors(m, 1);
      if (!broken.empty())
        internalError(n, "the pass produced invalid IR: " + broken[0].message, broken[0].loc);
    }
    if (opts.print && (opts.printAfterAll || opts.printAfter.count(n))) opts.print(n, m);
  }
}

}  // namespace tessera
