// expand-descriptor-loads: the first GPU pass. A descriptor_load (desc.load)
// reaches the GPU passes whole, so that one the tensor memory accelerator
// can serve keeps its descriptor; every other one becomes the masked
// pointer load it means (ir/descriptor_load.h), which the rest of the back
// end handles like any tl.load.
//
// Requires: one optimised, inlined kernel (the Tile IR pipeline has run).
// Guarantees: the only descriptor_loads left are those tmaMayServe accepts
// (tma.h); pipeline-dot-operands serves or expands them. When it expanded any, the Tile IR
// clean-up passes run again (canonicalize, cse, licm, dce), so the address
// arithmetic is folded, shared between loads and hoisted out of loops as it
// was when the front end expanded desc.load itself.
// Preserves: every other op.
#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/tma.h"
#include "ir/descriptor_load.h"
#include "support/diagnostics.h"

namespace tessera::ptx {

void expandDescriptorLoads(Module &m, const KeepDescriptorLoad &keep) {
  int expanded = 0;
  for (auto &f : m.functions) {
    const Function &fn = *f;
    expanded += tessera::expandDescriptorLoads(
        *f, [&](const Operation &op) { return keep && keep(op, fn); });
  }
  if (expanded == 0) return;
  for (const char *name : {"canonicalize", "cse", "licm", "canonicalize", "cse", "dce"}) {
    const PassInfo *p = findPass(name);
    if (!p) internalError("expand-descriptor-loads", std::string("no pass named ") + name);
    p->run(m);
  }
}

void expandDescriptorLoadsPass(Module &m) {
  expandDescriptorLoads(
      m, [&](const Operation &op, const Function &fn) { return tmaMayServe(op, fn, m); });
}

}  // namespace tessera::ptx
