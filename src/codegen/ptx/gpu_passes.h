// The GPU code generator's entry points: its passes over Tile IR and PTX
// emission. See DESIGN.md, "GPU code generation".
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/ptx/layout.h"
#include "ir/ir.h"
#include "passes/pass_manager.h"
#include "support/source.h"

namespace tessera::ptx {

// persistent_programs.cpp
void persistentPrograms(Module &m);
// flatten_loops.cpp
void flattenLoops(Module &m);
// descriptors_from_pointers.cpp
void descriptorsFromPointers(Module &m);
// expand_descriptor_loads.cpp: the pass, and the expansion of every
// descriptor_load that `keep` (null: none) does not keep, followed by the
// clean-up passes when there was one.
void expandDescriptorLoadsPass(Module &m);
using KeepDescriptorLoad = std::function<bool(const Operation &, const Function &)>;
void expandDescriptorLoads(Module &m, const KeepDescriptorLoad &keep);
// pipeline_dot_operands.cpp
void pipelineDotOperands(Module &m);
// rotate_dot_loops.cpp: the pass, and the loops it rotates, which
// pipeline-dot-operands asks before placing its copies. `carried` is the
// second dot's index among the loop's carried values.
struct DotRotation {
  Operation *first;
  Operation *second;
  unsigned carried;
};
std::optional<DotRotation> findDotRotation(Operation &loop, const Module &m);
// The 32-bit registers a thread holds of tile `t` spread over `numWarps`
// warps, 16-bit elements packed two to a register (as wgmma reads them).
int64_t packedRegistersPerThread(const Type &t, int64_t numWarps);
// An S (the first dot's result) of more than this many registers a thread
// rotates only under findDotRotation's further conditions, and gets a
// producer warpgroup under warp-specialize.
constexpr int64_t kSmallRotatedS = 32;
void rotateDotLoops(Module &m);
// stage_dot_operands.cpp
void stageDotOperands(Module &m);
// pipeline_loads.cpp
void pipelineLoads(Module &m);
// Bytes one element of `d` takes in shared memory (its register's width;
// i1 as one byte): what a layout conversion stages (emit_tile.cpp).
int sharedElemBytes(DType d);

// rematerialize_indices.cpp
void rematerializeIndices(Module &m);
// assign_layouts.cpp: the pass, and the layout of a reshape's, permute's,
// split's (each half's) or join's result in which the op moves no data,
// given its (first) operand's: the emitter renames registers where the
// result has it. nullopt for other ops and for a split whose last dim lanes
// or warps hold.
void assignLayouts(Module &m);
std::optional<LinearLayout> renamingLayout(const Operation &op, const LinearLayout &operand);
// thread_locality.cpp
void optimizeThreadLocality(Module &m);
// contract_fp.cpp
void contractFloatOps(Module &m);
// warp_specialize.cpp
void warpSpecialize(Module &m);
// Whether warp-specialize may split a loop the program did not mark, in a
// kernel of `numWarps` warps for sm_`sm` (`a` if archSpecific): a loop
// rotate-dot-loops rotated (sm_90a) on two consumer warpgroups or more. The
// compiler makes an unspecialised twin wherever this holds.
bool mayWarpSpecializeUnasked(int sm, bool archSpecific, int64_t numWarps);

// The GPU passes (registered with the pass manager by their users), and
// their names in pipeline order.
const std::vector<PassInfo> &gpuPasses();
const std::vector<std::string> &gpuPipeline();

// A PTX target: sm_80 ... sm_121, with the `a` variants (sm_90a, sm_100a, ...).
struct Target {
  int sm = 80;
  bool archSpecific = false;  // the `a` of sm_90a
  std::string name() const { return "sm_" + std::to_string(sm) + (archSpecific ? "a" : ""); }
};
// Parses "sm_80", "sm_90", "sm_90a", "sm_120" (also "80", "90a"); false for
// a name that is not a known target (knownTargets() lists them).
bool parseTarget(const std::string &s, Target &out);
// "sm_80, sm_86, ..., sm_121a": for messages.
std::string knownTargets();
// The oldest PTX ISA version (major * 10 + minor) that may name `t` in its
// `.target` line: 8.6 for sm_100, 8.7 for sm_120, ... ptxas refuses a module
// whose `.version` is older than its target.
int minPtxVersion(const Target &t);

struct PtxOptions {
  Target target;
  int numWarps = 4;
  int numStages = 3;                       // software pipelining depth of loops
  bool debug = false;                      // device_assert checks on
  bool globalScratch = true;               // see Module::globalScratch
  bool fpFusion = true;                    // see Module::fpFusion
  bool reflectFtz = true;                  // see Module::reflectFtz
  int maxRegisters = 0;                    // .maxnreg of the entry (Triton's maxnreg); 0: none
  const SourceManager *sources = nullptr;  // file names for .file/.loc
};

struct PtxKernel {
  std::string ptx;    // the module text
  std::string entry;  // the .entry name
  int numWarps = 4;
  int sharedBytes = 0;  // dynamic shared memory the launch must provide
};

// The .entry name of kernel `name`: the name itself when it is a PTX
// identifier, else "tessera_k_" and the hex of its bytes. Python accepts
// names PTX refuses ("_", non-ASCII letters); the launcher looks the kernel
// up by this name.
inline std::string ptxEntryName(std::string_view name) {
  auto follow = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
  };
  bool ok = !name.empty() && follow(name[0]) && !(name[0] >= '0' && name[0] <= '9') &&
            !(name[0] == '_' && name.size() == 1) && name.rfind("tessera_k_", 0) != 0;
  for (char c : name) ok = ok && follow(c);
  if (ok) return std::string(name);
  static const char *hex = "0123456789abcdef";
  std::string out = "tessera_k_";
  for (unsigned char c : name) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

// Tells an optimised, inlined module (one kernel) the target the GPU passes
// compile for: warps, pipelining depth, SM version.
void prepareModule(Module &m, const PtxOptions &opts);
// Emits PTX for a prepared module that gpuPipeline() has run on.
// User-visible problems (an op the GPU back end does not support yet) throw
// CompileError at the op's location.
PtxKernel emitPtx(Module &m, const PtxOptions &opts);

}  // namespace tessera::ptx
