// The GPU pipeline: pipeline-loads, assign-layouts, then PTX emission.
#include "codegen/ptx/emitter.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/diagnostics.h"

namespace tessera::ptx {

const std::vector<PassInfo> &gpuPasses() {
  static const std::vector<PassInfo> passes = {
      {"pipeline-loads", "prefetch loads of later loop iterations (num_stages)", &pipelineLoads},
      {"assign-layouts", "give every tile a distributed layout; coalesce global accesses",
       &assignLayouts},
  };
  return passes;
}

bool parseTarget(const std::string &s, Target &out) {
  std::string t = s.rfind("sm_", 0) == 0 ? s.substr(3) : s;
  Target r;
  if (!t.empty() && t.back() == 'a') {
    r.archSpecific = true;
    t.pop_back();
  }
  if (t.empty() || t.size() > 3 || t.find_first_not_of("0123456789") != std::string::npos)
    return false;
  r.sm = std::stoi(t);
  if (r.sm < 80) return false;
  if (r.archSpecific && r.sm != 90 && r.sm < 100) return false;
  out = r;
  return true;
}

PtxKernel emitPtx(Module &m, const PtxOptions &opts) {
  if (m.functions.size() != 1)
    internalError("emit-ptx", "expected one kernel after inlining, found " +
                                  std::to_string(m.functions.size()) + " functions");
  m.numWarps = opts.numWarps;
  m.numStages = opts.numStages;
  m.targetSm = opts.target.sm;
  for (const PassInfo &p : gpuPasses()) p.run(m);
  Function &fn = *m.functions.front();
  std::string ttgir = printModule(m);
  Emitter e(fn, opts);
  e.axis = analyzeAxisInfo(fn);
  PtxKernel k = e.run();
  k.ttgir = std::move(ttgir);
  return k;
}

}  // namespace tessera::ptx
