// stage-dot-operands: on sm_90a, a tensor-core dot outside loops reads its
// loaded operands from shared memory, so that it runs on wgmma as a dot in
// a loop does (pipeline-dot-operands gives those rings). A kernel that
// multiplies one block (K fits a single tile, or an epilogue's second dot,
// as in attention-like "chain" kernels) would otherwise stay on mma.sync.
//
// Requires: verified Tile IR, after pipeline-dot-operands (no
// descriptor_load is left) and before pipeline-loads and assign-layouts;
// Module::targetSm and Module::archSpecific set.
// Guarantees: for each dot in a function's own block (not in a loop or an
// `if`) that selectMma accepts and planWgmma takes once its loaded operands
// are in swizzled shared memory, each such operand (a non-volatile 2-D
// load of the same block, or the transpose `permute {order = [1, 0]}` of
// one) is written there just before the dot: `local_alloc` of one buffer
// and `memdesc_index` of it for each, then a `local_store` of each loaded
// tile, one `barrier` (local_store's proxy fence and the barrier publish
// every thread's stores to wgmma), the dot reading the buffers (through
// `memdesc_trans` for a transposed load), and `local_dealloc` after it (a
// dot not marked overlap waits for its wgmma group). The loads stay where
// they were, in registers, as Triton stages such operands: their global
// accesses stay coalesced vectors, and nothing between load and dot can
// change what the dot reads. An A computed in registers stays there:
// wgmma reads it from registers, B from its buffer.
// A buffer's contiguous dim is the one contiguous in global memory for
// 16-bit elements (wgmma reads either orientation) and K for 8-bit ones
// (wgmma's only form): an 8-bit operand stored N-major is then stored
// element by element, transposed on its way in.
// Preserves: what the program computes. Dots wgmma cannot take are left to
// mma.sync.
#include <optional>

#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/layout.h"
#include "codegen/ptx/memdesc.h"
#include "codegen/ptx/mma.h"
#include "passes/axis_info.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {
namespace {

// A single dot's operand staged through shared memory. Staged buffers
// larger than this stay in registers: a block this size already fills half
// an SM's shared memory.
constexpr int64_t kMaxStagedBytes = 96 * 1024;

struct Operand {
  Operation *load;
  Operation *trans = nullptr;  // the transpose between load and dot, if any
  SharedLayout shared;         // in the load's coordinates
  int dotContig() const { return trans ? 1 - shared.contig : shared.contig; }
  int64_t bytes() const {
    const Type &t = load->result()->type;
    return shared.slotBytes(t.shape, byteSize(t.dtype));
  }
};

class Stager {
 public:
  Stager(Function &fn, const Module &m)
      : fn_(fn),
        targetSm_(m.targetSm),
        numWarps_(m.numWarps),
        archSpecific_(m.archSpecific),
        uses_(countUses(fn)),
        info_(analyzeMemoryAxisInfo(fn)) {}

  void run() {
    std::vector<Operation *> dots;
    for (auto &o : fn_.body.ops)
      if (o->code == OpCode::Dot && o->result()->type.rank() == 2 && selectMma(*o, targetSm_))
        dots.push_back(o.get());
    for (Operation *dot : dots) stage(dot);
  }

 private:
  // Operand `i` of `dot` as a load that can be staged, or nullopt.
  std::optional<Operand> stageable(Operation *dot, unsigned i) {
    Value *v = dot->operand(i);
    Operation *trans = nullptr;
    if (v->def && v->def->parent == &fn_.body && v->def->code == OpCode::Permute &&
        v->type.rank() == 2 && v->def->intsAttr("order") == std::vector<int64_t>{1, 0}) {
      trans = v->def;
      v = trans->operand(0);
    }
    Operation *ld = v->def;
    if (!ld || ld->code != OpCode::Load || ld->parent != &fn_.body ||
        ld->intAttr("volatile") != 0 || !v->type.isTile() || v->type.rank() != 2)
      return std::nullopt;
    int eb = byteSize(v->type.dtype);
    int kDim = (i == 0) != (trans != nullptr) ? 1 : 0;  // in the load's coordinates
    AxisInfo ai = info_.get(ld->operand(0));
    int global = ai.contiguity[0] > ai.contiguity[1] ? 0 : 1;
    int contig = eb == 2 ? global : kDim;
    int swizzle = SharedLayout::swizzleFor(v->type.shape[contig] * eb);
    if (swizzle == 0) return std::nullopt;
    return Operand{ld, trans, SharedLayout::swizzled(contig, swizzle)};
  }

  void stage(Operation *dot) {
    std::optional<Operand> a = stageable(dot, 0), b = stageable(dot, 1);
    if (!b) return;
    const Type &at = dot->operand(0)->type, &bt = dot->operand(1)->type;
    int64_t M = at.shape[0], K = at.shape[1], N = bt.shape[1];
    DType r = dot->result()->type.dtype;
    auto plan = [&](bool aInRegisters) {
      return planWgmma(M, N, K, at.dtype, bt.dtype, r, aInRegisters ? 1 : a->dotContig(),
                       b->dotContig(), numWarps_, targetSm_, archSpecific_, aInRegisters);
    };
    bool both = a && a->bytes() + b->bytes() <= kMaxStagedBytes && plan(false);
    if (!both) {
      // A stays in registers: it must be a 2-D tile (a load or a computed one).
      if (!at.isTile() || at.rank() != 2 || b->bytes() > kMaxStagedBytes || !plan(true)) return;
      a.reset();
    }
    std::vector<std::pair<unsigned, Operand>> staged;  // (operand index, operand)
    if (a) staged.push_back({0, *a});
    staged.push_back({1, *b});
    Builder before;
    before.setInsertionPointBefore(dot);
    before.setLoc(dot->loc);
    // Every buffer first: each local_alloc is a barrier of its own.
    std::vector<OneSlot> buffers;
    for (const auto &[i, o] : staged)
      buffers.push_back(allocateOneSlot(before, o.load->result()->type, o.shared));
    for (size_t k = 0; k < staged.size(); ++k)
      before.create(OpCode::LocalStore, {buffers[k].slot, staged[k].second.load->result()}, {});
    before.create(OpCode::Barrier, {}, {});
    for (size_t k = 0; k < staged.size(); ++k) {
      const auto &[i, o] = staged[k];
      dot->operands[i] =
          o.trans ? transposedView(before, buffers[k].slot, o.shared) : buffers[k].slot;
      // A transpose that only the dot read goes (no DCE runs after the GPU
      // passes).
      if (o.trans && --uses_[o.trans->result()] == 0) eraseOp(o.trans);
    }
    Builder after;
    after.setInsertionPoint(&fn_.body, std::next(passes::iteratorOf(dot)));
    after.setLoc(dot->loc);
    for (const OneSlot &s : buffers) after.create(OpCode::LocalDealloc, {s.alloc}, {});
  }

  Function &fn_;
  int targetSm_;
  int numWarps_;
  bool archSpecific_;
  PtrMap<const Value *, int> uses_;  // kept up to date for the transposes it may erase
  AxisInfoMap info_;
};

}  // namespace

void stageDotOperands(Module &m) {
  if (m.targetSm < 90 || !m.archSpecific) return;  // wgmma is sm_90a's
  for (auto &fn : m.functions) {
    // (Use counts and axis info cost more than a kernel without a dot needs.)
    bool anyDot = false;
    for (auto &o : fn->body.ops) anyDot = anyDot || o->code == OpCode::Dot;
    if (anyDot) Stager(*fn, m).run();
  }
}

}  // namespace tessera::ptx
