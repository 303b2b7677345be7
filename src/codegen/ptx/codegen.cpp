// The GPU passes by name and in order, the target parser, and PTX emission
// of a module the GPU passes have run on. The compile pipeline
// (runtime/compiler.cpp) runs the passes through runPasses.
#include "codegen/ptx/emitter.h"
#include "ir/verifier.h"
#include "support/diagnostics.h"

namespace tessera::ptx {

const std::vector<PassInfo> &gpuPasses() {
  static const std::vector<PassInfo> passes = {
      {"persistent-programs",
       "on sm_90a, run a kernel of one tile a program as one program an SM looping over tiles "
       "(flatten), where its dot operands then load through the copy engine",
       &persistentPrograms},
      {"descriptors-from-pointers",
       "on sm_90a, load a dot operand's box of pointers as a tensor-descriptor load",
       &descriptorsFromPointers},
      {"flatten-loops",
       "fuse a loop marked flatten (tl.range(..., flatten=True)) with its inner loop, so that "
       "the pipeline spans the outer iterations",
       &flattenLoops},
      {"expand-descriptor-loads",
       "turn each tensor-descriptor load into the masked pointer load it means",
       &expandDescriptorLoadsPass},
      {"pipeline-dot-operands",
       "stage tensor-core dot operands through a ring of cp.async copies (num_stages)",
       &pipelineDotOperands},
      {"rotate-dot-loops",
       "on sm_90a, run a loop's second dot (attention's P V) one iteration late, during the "
       "next softmax",
       &rotateDotLoops},
      {"stage-dot-operands",
       "on sm_90a, copy a dot's loaded operands outside loops to shared memory for wgmma",
       &stageDotOperands},
      {"pipeline-loads", "prefetch loads of later loop iterations (num_stages)", &pipelineLoads},
      {"rematerialize-indices",
       "recompute after a loop, or in the body of a loop over tiles, the index and address tiles "
       "computed before it",
       &rematerializeIndices},
      {"assign-layouts", "give every tile a distributed layout; coalesce global accesses",
       &assignLayouts},
      {"thread-locality",
       "carry per-thread partials of a loop's reduction; reduce across threads once after it",
       &optimizeThreadLocality},
      {"contract-fp",
       "fuse a float product and the sum that uses it into an fma (enable_fp_fusion)",
       &contractFloatOps},
      {"warp-specialize",
       "on sm_90a, issue the tensor copies of a loop marked warp_specialize from a producer "
       "warp of their own",
       &warpSpecialize},
  };
  return passes;
}

const std::vector<std::string> &gpuPipeline() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const PassInfo &p : gpuPasses()) out.push_back(p.name);
    return out;
  }();
  return names;
}

namespace {

// The fnuz fp8 formats (AMD's) have no conversions on NVIDIA GPUs; Triton
// refuses them there too. A kernel that uses one, even only through a
// pointer, gets an error at the first op that does.
void refuseFnuz(Function &fn) {
  fn.walk([](Operation *op) {
    auto check = [&](const Value *v) {
      DType d = v->type.dtype;
      if (d != DType::F8E4B8 && d != DType::F8E5B16) return;
      fail(op->loc,
           std::string("tl.") + tritonName(d) +
               " (an fnuz fp8 format) is not supported on NVIDIA GPUs",
           "run the kernel on the interpreter (TRITON_INTERPRET=1), or use tl.float8e4nv or "
           "tl.float8e5");
    };
    for (const Value *v : op->operands) check(v);
    for (const auto &r : op->results) check(r.get());
  });
}

}  // namespace

void prepareModule(Module &m, const PtxOptions &opts) {
  if (m.functions.size() != 1)
    internalError("emit-ptx", "expected one kernel after inlining, found " +
                                  std::to_string(m.functions.size()) + " functions");
  refuseFnuz(*m.functions[0]);
  m.numWarps = opts.numWarps;
  m.numStages = opts.numStages;
  m.targetSm = opts.target.sm;
  m.archSpecific = opts.target.archSpecific;
  m.globalScratch = opts.globalScratch;
  m.fpFusion = opts.fpFusion;
  m.reflectFtz = opts.reflectFtz;
}

namespace {

// The targets Tessera compiles for and the PTX ISA version that introduced
// each (the PTX ISA manual's "PTX Target Architecture" table). The `a`
// variants need the same version as their base target.
struct KnownTarget {
  int sm;
  bool hasArchSpecific;
  int ptxVersion;
};
constexpr KnownTarget kTargets[] = {
    {80, false, 70}, {86, false, 71}, {87, false, 74}, {88, false, 90},
    {89, false, 78}, {90, true, 78},  {100, true, 86}, {101, true, 86},
    {103, true, 88}, {110, true, 90}, {120, true, 87}, {121, true, 88},
};

const KnownTarget *findTarget(int sm) {
  for (const KnownTarget &k : kTargets)
    if (k.sm == sm) return &k;
  return nullptr;
}

}  // namespace

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
  const KnownTarget *k = findTarget(r.sm);
  if (!k || (r.archSpecific && !k->hasArchSpecific)) return false;
  out = r;
  return true;
}

std::string knownTargets() {
  std::string out;
  for (const KnownTarget &k : kTargets) {
    out += (out.empty() ? "sm_" : ", sm_") + std::to_string(k.sm);
    if (k.hasArchSpecific) out += ", sm_" + std::to_string(k.sm) + "a";
  }
  return out;
}

int minPtxVersion(const Target &t) {
  const KnownTarget *k = findTarget(t.sm);
  return k ? k->ptxVersion : 80;
}

PtxKernel emitPtx(Module &m, const PtxOptions &opts) {
  if (m.functions.size() != 1 || m.numWarps != opts.numWarps || m.targetSm != opts.target.sm)
    internalError("emit-ptx", "the module was not prepared for this target (prepareModule)");
  Function &fn = *m.functions.front();
  Emitter e(fn, opts);
  e.axis = analyzeMemoryAxisInfo(fn);
  return e.run();
}

}  // namespace tessera::ptx
