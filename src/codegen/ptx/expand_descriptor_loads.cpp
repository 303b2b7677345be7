// expand-descriptor-loads: the first GPU pass. A descriptor_load (desc.load)
// reaches the GPU passes whole, so that one the tensor memory accelerator
// can serve keeps its descriptor; every other one becomes the masked
// pointer load it means (ir/descriptor_load.h), which the rest of the back
// end handles like any tl.load. Every descriptor_store (desc.store) becomes
// the masked store it means.
//
// Requires: one optimised, inlined kernel (the Tile IR pipeline has run).
// A descriptor that axis info proves aligned (a block pointer's) first gets
// hints saying so (hintProvenAlignment below).
// Guarantees: no descriptor_store is left; the only descriptor_loads left
// are those tmaMayServe accepts (tma.h) whose innermost coordinate axis
// info proves 16-byte aligned; pipeline-dot-operands serves or expands
// them. When it expanded any, the Tile IR clean-up passes run again
// (canonicalize, cse, licm, dce), so the address arithmetic is folded,
// shared between loads and hoisted out of loops as it was when the front
// end expanded desc.load itself.
// Preserves: every other op.
#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/tma.h"
#include "ir/descriptor_load.h"
#include "passes/axis_info.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {

void expandDescriptorLoads(Module &m, const KeepDescriptorLoad &keep) {
  int expanded = 0;
  for (auto &f : m.functions) {
    const Function &fn = *f;
    expanded += tessera::expandDescriptorLoads(
        *f, [&](const Operation &op) { return keep && keep(op, fn); });
  }
  if (expanded == 0) return;
  runPasses(m, {"canonicalize", "cse", "licm", "canonicalize", "cse", "dce"}, {});
}

namespace {

// On sm_90a, a descriptor_load whose descriptor the IR does not state
// aligned (a block pointer's: tl.make_tensor_descriptor states its contract
// with hints) but axis info proves so gets the hints, the base 16-byte
// aligned and every stride but the last a multiple of 16 bytes, so that
// madeInKernel (tma.h) accepts it here and in pipeline-dot-operands alike;
// first, one whose first dim is the contiguous one is transposed.
void hintProvenAlignment(Function &fn, const Module &m) {
  if (m.targetSm != 90 || !m.archSpecific || !m.globalScratch) return;
  std::vector<Operation *> loads;
  fn.walk([&](Operation *op) {
    if (op->code == OpCode::DescriptorLoad && hostDescriptorParam(*op, fn) < 0 &&
        !madeInKernel(*op, fn))
      loads.push_back(op);
  });
  // A block pointer whose first dim has stride 1 (known once its callee was
  // inlined) loads the transposed block, whose last dim is contiguous: in a
  // loop, where a ring may take it (elsewhere the transpose would cost a
  // layout conversion and gain nothing).
  for (Operation *&op : loads) {
    const Operation *loop = op->parent->parentOp;
    if (!loop || loop->code != OpCode::For) continue;
    DescriptorLoadParts p = descriptorLoadParts(*op);
    auto isOne = [](const Value *v) {
      auto c = passes::constantOf(v);
      return c && !c->isFloat && c->i == 1;
    };
    if (p.block.size() == 2 && isOne(p.strides[0]) && !isOne(p.strides[1])) {
      Value *back = transposeDescriptorLoad(*op);
      op = back->def->operand(0)->def;  // the new load
      // A transpose of the block read (tl.trans of a K^T tile) is the new
      // load itself: its dots then read the ring directly.
      Block &body = *op->parent;
      std::vector<Operation *> folded;
      for (auto &o : body.ops)
        if (o->code == OpCode::Permute && o->operand(0) == back &&
            o->intsAttr("order") == std::vector<int64_t>{1, 0})
          folded.push_back(o.get());
      for (Operation *o : folded) {
        replaceAllUsesWith(body, o->result(), op->result());
        eraseOp(o);
      }
    }
  }
  if (loads.empty()) return;
  AxisInfoMap info = analyzeAxisInfo(fn);
  for (Operation *op : loads) {
    if (madeInKernel(*op, fn)) continue;  // the IR says so already (after the turn)
    DescriptorLoadParts p = descriptorLoadParts(*op);
    int64_t eb = byteSize(p.base->type.dtype);
    auto last = passes::constantOf(p.strides.back());
    bool aligned =
        last && !last->isFloat && last->i == 1 && info.get(p.base).divisibility[0] % 16 == 0;
    for (size_t i = 0; i + 1 < p.strides.size(); ++i)
      aligned = aligned && info.get(p.strides[i]).divisibility[0] * eb % 16 == 0;
    if (!aligned) continue;
    // Each hint right after its value's definition, so that it is as
    // loop-invariant as the value.
    auto hint = [&](Value *v, int64_t divisibility) {
      Builder b;
      if (v->def)
        b.setInsertionPoint(v->def->parent, std::next(passes::iteratorOf(v->def)));
      else
        b.setInsertionPoint(v->owner, v->owner->ops.begin());
      b.setLoc(op->loc);
      return b.op1(OpCode::Hint, {v}, v->type,
                   {{"divisibility", std::vector<int64_t>{divisibility}}});
    };
    size_t n = p.block.size();
    op->operands[0] = hint(p.base, 16);
    for (size_t i = 0; i + 1 < n; ++i)
      op->operands[1 + n + i] = hint(p.strides[i], info.get(p.strides[i]).divisibility[0]);
  }
}

// Whether axis info proves the innermost coordinate of descriptor_load `op`
// a multiple of 16 bytes. The copy engine requires it: an unaligned one is
// an illegal instruction, which kills the context. (Triton leaves that to
// the user; here such a load takes the masked pointer path instead.)
bool innerOffsetAligned(const Operation &op, const AxisInfoMap &info) {
  DescriptorLoadParts p = descriptorLoadParts(op);
  return info.get(p.offsets.back()).divisibility[0] * byteSize(p.base->type.dtype) % 16 == 0;
}

}  // namespace

void expandDescriptorLoadsPass(Module &m) {
  for (auto &fn : m.functions) hintProvenAlignment(*fn, m);
  // Axis info only for functions with a load the copy engine could serve
  // (asked of all of a function's accesses before any of them is expanded).
  std::unordered_map<const Function *, AxisInfoMap> info;
  expandDescriptorLoads(m, [&](const Operation &op, const Function &fn) {
    if (!tmaMayServe(op, fn, m)) return false;
    auto it = info.find(&fn);
    if (it == info.end())
      for (auto &f : m.functions)  // the analysis takes the mutable function
        if (f.get() == &fn) it = info.emplace(&fn, analyzeAxisInfo(*f)).first;
    return innerOffsetAligned(op, it->second);
  });
}

}  // namespace tessera::ptx
