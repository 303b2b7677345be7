// pipeline-dot-operands: the operands of tensor-core dots in a `for` loop
// travel from global to shared memory by asynchronous copies (cp.async), in a
// ring of num_stages buffers, so that the copies for iteration i+S-1 are in
// flight while iteration i multiplies, and no operand passes through
// registers on its way to ldmatrix.
//
// Requires: verified Tile IR with calls inlined, before pipeline-loads and
// assign-layouts; Module::numStages and Module::targetSm set (a loop's own
// `num_stages` attribute overrides the first).
// Guarantees: for a loop run with S >= 2 stages, each candidate load L (an
// operand of a dot that selectMma accepts) is replaced by
//   - before the loop: `local_alloc` of a ring of S buffers, and the copies
//     of iterations 0 .. S-2 into slots 0 .. S-2, one `async_commit` per
//     iteration;
//   - at the top of the body: `async_wait {pending = S-2}` (the current
//     slot has landed, for every thread), then the copy of iteration i+S-1
//     into the slot that iteration i-1 read, and a commit (for mma.sync
//     dots and S >= 3, the copy and commit go at the end of the body; for
//     wgmma dots, which may still read their slot in the next iteration,
//     they go at the end behind a `barrier`, and the dots are marked
//     overlap = 1; for one mma.sync dot reading both operands from rings,
//     with two K steps or more and S >= 3, the wait goes before the loop
//     and into the dot instead, which gets the next slot's views, "first
//     iteration" and {prefetch_pending = S-2}: its prefetching form, ops.def);
//   - each dot that read L reads `memdesc_index ring, slot` instead;
//   - after the loop: `async_wait {pending = 0}` and `local_dealloc`.
// Every copy is L's own access masked with "its iteration runs" (i + k*step
// below the loop's bound, tested as i < ub - k*step so that nothing wraps
// around), so no address is read that the program would not read;
// masked-off elements are zero, as L's `other` must be.
// Candidates: non-volatile loads directly in the body whose every use is
// an operand of a tensor-core dot (several dots reading one load share its
// ring, when they agree on its shared layout); `other` absent or +0;
// pointer and mask computed by pure body ops from the induction variable,
// values defined before the loop, and loop-carried values that only
// advance themselves (`p = p + inc`: the matmul's pointer
// increments), are used by nothing else and are unused after the loop.
// Those carried values then run S-1 iterations ahead: their initial value is
// advanced S-1 times before the loop. 16-bit operands are stored in shared
// memory in whichever orientation is contiguous in global memory (ldmatrix
// .trans reads either); other widths only when K is contiguous. Either way
// axis info must prove runs of at least 4 bytes contiguous and equally
// masked (K a multiple of 16 does, for the matmul's K mask). Rings use
// the swizzled layout (the widest of 128, 64, 32 bytes the contiguous
// extent fills, rows in groups of 8), which ldmatrix and wgmma both read
// without bank conflicts and which keeps every copy's 128-byte line in one
// line of shared memory; rows narrower than 32 bytes are padded instead
// (mmaSyncLayout). When both operands of a dot are candidates and the dot
// fits wgmma (mma.h's planWgmma: sm_90a, 16-bit types or K-major fp8), the
// candidates are marked for wgmma (Candidate::wgmma), as B's is when B
// alone is a candidate and A is a 16-bit tile, which wgmma then reads from
// registers (such dots are marked overlap only as a loop's accumulator
// chain). An operand written as the
// transpose (`permute {order = [1, 0]}`, Python's `.T`) of such a load is a
// candidate too: the ring holds the load's tile as loaded and the dot reads
// `memdesc_trans` of the slot, so the transpose costs no data movement.
// A descriptor_load (a tensor descriptor's block, tma.h) is a candidate
// like a load, its offsets the slice. When every ring of a loop is such a
// load and swizzled for wgmma (sm_90a), the rings fill through the tensor
// memory accelerator instead: a host descriptor's tensor map is a kernel
// parameter, one made in the kernel gets a `tensormap_create` before the
// loop (hoisted out of enclosing loops that do not define its operands,
// shared by identical ones); `barrier_alloc` of one mbarrier per
// slot after the rings; for each iteration one `tma_copy` per ring, the
// first announcing the stage's bytes (`expect`), predicated on "its
// iteration runs"; at the top of the body the slot's release (the slot to
// refill is read by no warpgroup any more: a CTA barrier with one
// warpgroup; with more, a second `barrier_alloc` {arrivals = the threads}
// that every thread arrives on, `barrier_arrive`, and that the copying
// thread alone waits for, `barrier_wait {first_thread = 1}`, with the
// same phase), the copies for the iteration ahead,
// then `barrier_wait` on the current slot with a carried phase that flips
// when the read slot wraps (for overlapping dots the `barrier_wait` at the
// top and the release and copies at the end, as with cp.async); after the
// loop `barrier_dealloc` of both. No cp.async
// group or wait remains in such a loop (operands loaded before it are
// staged and waited for before it starts, after its first tensor copies
// are issued).
// Where a loop over tiles in the function body holds a loop marked
// warp_specialize and no other loop (ringsOutlive: a persistent kernel),
// tensor-copy rings of at most half the shared memory and their
// barriers are allocated before the outer loop and freed after it, and the
// outer loop carries the ring's position from one tile's loop to the next
// (the read slot and its phase: the inner loop starts from them and yields
// them back); the prologue's copies then go to the slots after that
// position, each behind the first thread's wait for the slot's release
// (whose phase the position gives), and a CTA barrier precedes them.
// An operand loaded before the loop is staged once, in a buffer allocated
// before the rings; a later loop of the same block that reads the same
// load in the same layout (the causal attention's second loop reading Q)
// reads that buffer, which is then freed after the later loop. The descriptor loads no loop
// serves this way are expanded to masked loads first (a probe over the
// loops decides), with the clean-up passes, and then pipelined as loads;
// none is left after the pass.
// Preserves: what the program computes. Loops that write memory are left
// alone (pipeline-loads leaves only those that write global memory).
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/layout.h"
#include "codegen/ptx/loop_carried.h"
#include "codegen/ptx/mask_prefix.h"
#include "codegen/ptx/memdesc.h"
#include "codegen/ptx/mma.h"
#include "codegen/ptx/tma.h"
#include "ir/descriptor_load.h"
#include "passes/axis_info.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {
namespace {

struct Candidate {
  Operation *load;
  Operation *dot;
  unsigned operand;                // 0: a, 1: b
  std::vector<Operation *> slice;  // body ops the pointer and mask depend on, in program order
  SharedLayout shared;             // in the load's coordinates
  bool invariant = false;          // loaded before the loop: copied once, not through a ring
  Operation *trans = nullptr;      // the 2-D transpose between load and dot, if any
  // The load's mask cuts runs short along the contiguous dim (a bound that
  // axis info cannot align): each copy keeps the run's first elements.
  std::optional<PrefixMask> prefix;
  Value *limit = nullptr;  // buildPrefixLimit's value, made next to the load
  bool wgmma = false;      // its dot runs on wgmma (else mma.sync)
  // The contiguous dim as the dot sees the operand.
  int dotContig() const { return trans ? 1 - shared.contig : shared.contig; }
};

// An operand loaded before a loop and staged in shared memory for it: a
// later loop of the same block that reads the same load in the same layout
// reads this buffer too (attention's Q, read by the causal kernel's two
// loops), and the buffer lives until after that loop.
struct StagedOperand {
  Value *alloc;        // its local_alloc
  Value *buffer;       // the memdesc the dots read
  Operation *dealloc;  // the local_dealloc after the last loop that reads it
};
// By load and layout (two dots may want one load in two layouts).
using StagedKey = std::pair<const Operation *, std::string>;
using StagedOperands = std::map<StagedKey, StagedOperand>;

class Pipeliner {
 public:
  // `served` (where not null): probe only, recording the descriptor loads
  // that the tensor memory accelerator will serve; the IR is left alone.
  Pipeliner(Function &fn, Operation *loop, int stages, const Module &m,
            std::unordered_set<const Operation *> *served = nullptr,
            StagedOperands *staged = nullptr)
      : served_(served),
        stagedBefore_(staged),
        fn_(fn),
        loop_(loop),
        body_(*loop->regions[0]),
        slices_(loop),
        stages_(stages),
        module_(m) {}

  void run() {
    if (stages_ < 2 || writesMemory()) return;
    Value *lb = loop_->operand(0);
    if (lb->type.isTile() || !isSigned(lb->type.dtype) ||
        (bitWidth(lb->type.dtype) != 32 && bitWidth(lb->type.dtype) != 64))
      return;
    auto step = passes::positiveConstantStep(*loop_);
    if (!step) return;
    step_ = *step;
    uses_ = countUses(fn_);
    info_ = analyzeMemoryAxisInfo(fn_);
    std::vector<Candidate> cands = candidates();
    // A load that several dots read fills one ring, so every reader must
    // be a candidate and all must agree on its shared layout; where not, it
    // stays a load and the candidates are chosen again.
    for (Operation *load = unservable(cands); load; load = unservable(cands)) {
      excluded_.insert(load);
      cands = candidates();
    }
    if (cands.empty()) return;
    // Descriptor loads go through the tensor memory accelerator when every
    // ring of the loop is theirs and swizzled for wgmma; otherwise the probe
    // (pipelineDotOperands) has them expanded before loops are pipelined.
    bool anyDescriptor = false, tma = true;
    for (const Candidate &c : cands) {
      if (c.invariant) continue;  // staged once by cp.async, beside either kind of ring
      bool descriptor = c.load->code == OpCode::DescriptorLoad;
      anyDescriptor = anyDescriptor || descriptor;
      const Type &t = c.load->result()->type;
      tma =
          tma && descriptor && c.wgmma && tmaBoxFits(t.shape, byteSize(t.dtype), c.shared.swizzle);
    }
    if (served_) {
      if (anyDescriptor && tma)
        for (const Candidate &c : cands) served_->insert(c.load);
      return;
    }
    // After the probe, descriptor loads left in a loop are ones it found
    // servable; should the loop now decline them, it stays as it is and the
    // pass expands them at its end.
    if (anyDescriptor && !tma) return;
    tma_ = anyDescriptor;
    buildLimits(cands);
    transform(cands);
  }

 private:
  // (A loop flatten-loops made stores its tiles' epilogue in an `if`
  // marked {epilogue = 1}; as Triton, the copies of later tiles are not
  // ordered after those stores. Any other store keeps the loop as it is.)
  bool writesMemory() {
    for (auto &op : body_.ops) {
      bool epilogue = op->code == OpCode::If && op->intAttr("epilogue") == 1 &&
                      loop_->intAttr("flattened") == 1;
      if (!epilogue && passes::hasWriteEffects(op.get())) return true;
    }
    return false;
  }

  Value *iv() { return body_.args[0].get(); }

  static bool isTranspose(const Operation *op) {
    return op->code == OpCode::Permute && op->result()->type.rank() == 2 &&
           op->intsAttr("order") == std::vector<int64_t>{1, 0};
  }

  // The first ring load that some use reads other than as a candidate, or
  // whose candidates want different shared layouts.
  Operation *unservable(const std::vector<Candidate> &cands) {
    std::unordered_map<const Operation *, std::pair<const Candidate *, int>> seen;
    for (const Candidate &c : cands) {
      auto [it, fresh] = seen.emplace(c.load, std::pair{&c, 0});
      if (!(it->second.first->shared == c.shared)) return c.load;
      ++it->second.second;
    }
    for (const Candidate &c : cands)  // in order, so the choice is deterministic
      if (seen[c.load].second != uses_[c.load->result()]) return c.load;
    return nullptr;
  }

  static bool isPositiveZero(const Value *v) {
    auto c = passes::constantOf(v);
    return c && (c->isFloat ? c->f == 0 && !std::signbit(c->f) : c->i == 0);
  }

  // How the operand sits in shared memory, or nullopt when cp.async cannot
  // put it there in a form the dot reads. `transposed`: the dot reads the
  // load's value transposed. `prefix` (where not null) receives the mask's
  // prefix structure when the copies need it to move whole runs.
  std::optional<SharedLayout> sharedLayoutFor(const Operation &load, unsigned operand,
                                              bool transposed = false,
                                              std::optional<PrefixMask> *prefix = nullptr) {
    const Value *ptr = load.operand(0);
    AxisInfo ai = info_.get(ptr);
    int contig = ai.contiguity[0] > ai.contiguity[1] ? 0 : 1;  // ties: the last dim, as coalescing
    int eb = byteSize(ptr->type.dtype);
    int kDim = (operand == 0) != transposed ? 1 : 0;  // in the load's coordinates
    if (eb != 2 && contig != kDim) return std::nullopt;
    // cp.async moves 4, 8 or 16 bytes, all or nothing under the mask, or
    // the first bytes of a run that a prefix mask cuts short.
    int64_t run = ai.contiguity[contig];
    if (load.operands.size() > 1) {
      Value *mask = load.operand(1);
      int64_t constant = info_.get(mask).constancy[contig];
      std::optional<PrefixMask> p;
      if (prefix && constant < run && constant * eb < 16) p = prefixMask(info_, mask, contig);
      if (p && p->run > constant) {
        run = std::min(run, p->run);
        *prefix = p;
      } else {
        run = std::min(run, constant);
      }
    }
    if (run * eb < 4) return std::nullopt;
    return mmaSyncLayout(ptr->type.shape, contig, eb);
  }

  // The ring layout for an mma.sync operand: swizzled where the row fills
  // whole 32-, 64- or 128-byte columns and the rows come in groups of 8,
  // else padded. Both keep ldmatrix free of bank conflicts, but a padded
  // row starts 16 bytes past the last one's alignment, and a copy whose
  // 128-byte line lands across two of shared memory's goes to L2 as two
  // requests (the skinny matmul on an H200: 2.8x the requests and 1.7x
  // the sectors of the swizzled ring, 0.84x Triton's speed).
  static SharedLayout mmaSyncLayout(const std::vector<int64_t> &shape, int contig, int eb) {
    int64_t rowBytes = shape[contig] * eb, rows = shape[1 - contig];
    int s = SharedLayout::swizzleFor(rowBytes);
    if (s && rowBytes % s == 0 && rows % 8 == 0) return SharedLayout::swizzled(contig, s);
    return SharedLayout::padded(shape, contig, eb);
  }

  std::vector<Candidate> candidates() {
    invariants_.clear();
    advancing_.clear();
    shadowed_.reset();
    loads_.clear();
    registerA_.clear();
    std::vector<Candidate> out;
    std::unordered_set<Value *> carried;
    for (auto &o : body_.ops) {
      Operation *dot = o.get();
      // Rings hold 2-D operands: a batched dot stages its operands itself.
      if (dot->code != OpCode::Dot || dot->result()->type.rank() != 2 ||
          !selectMma(*dot, module_.targetSm))
        continue;
      size_t first = out.size();
      for (unsigned i = 0; i < 2; ++i) {
        Value *v = dot->operand(i);
        // A load read transposed (`tl.load(...).T`, a descriptor's
        // `load(...).T`): the ring holds the load's tile and the dot reads
        // it through a transposed view.
        Operation *tr = nullptr;
        if (v->def && v->def->parent == &body_ && isTranspose(v->def) && uses_[v] == 1) {
          tr = v->def;
          v = tr->operand(0);
        }
        Operation *ld = v->def;
        if (!tr && invariantLoad(v)) {
          if (auto shared = sharedLayoutFor(*ld, i))
            out.push_back(
                {ld, dot, i, {}, *shared, /*invariant=*/true, nullptr, std::nullopt, nullptr});
          continue;
        }
        // A load with several uses is a candidate for each dot that reads
        // it; unservable() drops it where another use remains.
        if (ld && ld->code == OpCode::DescriptorLoad && ld->parent == &body_ &&
            !excluded_.count(ld) && v->type.rank() == 2 &&
            (hostDescriptorParam(*ld, fn_) >= 0 ||
             (module_.globalScratch && madeInKernel(*ld, fn_) && descriptorBeforeLoop(*ld)))) {
          std::unordered_set<Operation *> seen;
          std::unordered_set<Value *> mine;
          bool ok = true;
          for (Value *o : ld->operands) ok = ok && slices_.collect(o, seen, mine);
          // The copy engine writes rows along the last dim; ldmatrix .trans
          // reads either orientation of 16-bit elements only.
          int eb = byteSize(v->type.dtype);
          int kDim = (i == 0) != (tr != nullptr) ? 1 : 0;
          if (!ok || (eb != 2 && kDim != 1)) continue;
          carried.insert(mine.begin(), mine.end());
          out.push_back({ld, dot, i, slices_.inProgramOrder(seen),
                         SharedLayout::padded(v->type.shape, 1, eb), false, tr, std::nullopt,
                         nullptr});
          continue;
        }
        if (!ld || ld->code != OpCode::Load || ld->parent != &body_ || excluded_.count(ld) ||
            ld->intAttr("volatile") != 0 || !v->type.isTile() || v->type.rank() != 2)
          continue;
        if (ld->operands.size() > 2 && !isPositiveZero(ld->operand(2))) continue;
        std::unordered_set<Operation *> seen;
        std::unordered_set<Value *> mine;
        bool ok = slices_.collect(ld->operand(0), seen, mine);
        if (ld->operands.size() > 1) ok = ok && slices_.collect(ld->operand(1), seen, mine);
        std::optional<PrefixMask> prefix;
        auto shared = sharedLayoutFor(*ld, i, tr != nullptr, &prefix);
        if (!ok || !shared) continue;
        carried.insert(mine.begin(), mine.end());
        out.push_back(
            {ld, dot, i, slices_.inProgramOrder(seen), *shared, false, tr, prefix, nullptr});
      }
      // Both operands in shared memory and a shape wgmma takes (sm_90a):
      // they are marked for it, in its swizzle (rows of any width that fill
      // one; mmaSyncLayout may have padded them). So is B alone
      // when A is a tile computed in registers (attention's P, or a Q
      // loaded before the loop), which wgmma reads from registers.
      const Type &a = dot->operand(0)->type, &b = dot->operand(1)->type;
      DType r = dot->result()->type.dtype;
      bool both = out.size() - first == 2;
      bool bAlone =
          out.size() - first == 1 && out[first].operand == 1 && a.isTile() && a.rank() == 2;
      bool wgmma = (both && planWgmma(a.shape[0], b.shape[1], a.shape[1], a.dtype, b.dtype, r,
                                      out[first].dotContig(), out[first + 1].dotContig(),
                                      module_.numWarps, module_.targetSm, module_.archSpecific)) ||
                   (bAlone && planWgmma(a.shape[0], b.shape[1], a.shape[1], a.dtype, b.dtype, r, 1,
                                        out[first].dotContig(), module_.numWarps, module_.targetSm,
                                        module_.archSpecific,
                                        /*aInRegisters=*/true));
      if (wgmma)
        for (size_t k = first; k < out.size(); ++k) {
          const Type &t = out[k].load->result()->type;
          int contig = out[k].shared.contig;
          out[k].shared = SharedLayout::swizzled(
              contig, SharedLayout::swizzleFor(t.shape[contig] * byteSize(t.dtype)));
          out[k].wgmma = true;
        }
      if (bAlone) registerA_.insert(dot);
    }
    // Operands loaded before the loop are staged once, next to the rings.
    std::vector<Candidate> rings;
    for (const Candidate &c : out) (c.invariant ? invariants_ : rings).push_back(c);
    out = std::move(rings);
    if (out.empty()) return out;
    // The carried values must advance themselves and serve only the copies.
    std::unordered_set<Operation *> allowed;
    for (const Candidate &c : out) {
      allowed.insert(c.slice.begin(), c.slice.end());
      loads_.insert(c.load);
    }
    bool runAhead = true;
    for (auto &arg : body_.args) {  // in argument order, so the output is deterministic
      Value *c = arg.get();
      if (!carried.count(c)) continue;
      auto a = slices_.advancing(c, uses_[loop_->result(c->index - 1)] != 0);
      if (!a) {
        runAhead = false;
        break;
      }
      allowed.insert(a->update.begin(), a->update.end());
      advancing_.push_back(*a);
    }
    for (const Advancing &a : advancing_)
      runAhead = runAhead && slices_.onlyUsedBy(a, allowed, loads_);
    if (!runAhead) {  // values the body reads too: the copies get their own
      advancing_.clear();
      shadowed_ = slices_.shadow(carried);
      if (!shadowed_) return {};
    }
    return out;
  }

  // Whether `v` is a 2-D tile loaded before the loop, in the loop's block,
  // with nothing between that load and the loop writing memory (so copying
  // it again just before the loop reads the same values).
  bool invariantLoad(const Value *v) {
    Operation *ld = v->def;
    if (!ld || ld->code != OpCode::Load || ld->parent != loop_->parent ||
        ld->intAttr("volatile") != 0 || !v->type.isTile() || v->type.rank() != 2)
      return false;
    if (ld->operands.size() > 2 && !isPositiveZero(ld->operand(2))) return false;
    bool after = false;
    for (auto &o : loop_->parent->ops) {
      if (o.get() == loop_) return after;
      if (o.get() == ld)
        after = true;
      else if (after && passes::writesGlobalMemory(o.get()))
        return false;
    }
    return false;
  }

  // The loop around this one when its rings and their barriers can be allocated
  // before it and serve each of its iterations (a persistent kernel's loop over
  // tiles, each tile's loop over K): a `for` in the function body whose body
  // holds this loop directly and no other loop. The barriers are then made once
  // rather than in every tile, the ring's position runs on from one tile's loop
  // to the next, and a producer warp (warp-specialize) copies the next tile's
  // first operands while the consumers finish this tile. Only a loop marked
  // warp_specialize (the caller asks): unsplit, its copies would still wait for
  // each tile's epilogue (not measured), and its slots' releases are then
  // mbarriers, whose phases can be waited for across the tiles. And only rings
  // of at most half the shared memory a block may have (227 KiB on sm_90): the
  // scratch that the emitter gives a tile's epilogue (its output tile on the way
  // to global memory) goes below the ring area when rings live, and an
  // attention's 128x128 tiles at 3 stages (192 KiB of rings) then took 259 KiB.
  // (A
  // hand-written persistent attention forward, 128x64 tiles on 8 warps, 3
  // stages, H200, TFLOP/s at N 4096: 527 with its loop marked warp_specialize,
  // 491 with the same rings unsplit, 510 for one tile a program; 548 / 509 / 540
  // at N 16384.)
  Operation *ringsOutlive(int64_t ringBytes) const {
    Operation *outer = loop_->parent->parentOp;
    if (!outer || outer->code != OpCode::For || outer->parent != &fn_.body ||
        !passes::forYield(outer) || 2 * ringBytes > 227 * 1024)
      return nullptr;
    int loops = 0;
    outer->walk([&](Operation *op) { loops += op != outer && isLoop(*op); });
    return loops == 1 ? outer : nullptr;
  }

  // The ring slot `times` after `slot` (both below the number of stages).
  Value *slotAfter(Builder &b, Value *slot, int64_t times) {
    const Type i32 = Type::scalar(DType::I32);
    Value *sum = b.op1(OpCode::Add, {slot, b.constInt(times, i32)}, i32);
    Value *wraps = b.op1(OpCode::Cmp, {sum, b.constInt(stages_, i32)}, Type::scalar(DType::I1),
                         {{"pred", std::string("ge")}});
    Value *less = b.op1(OpCode::Sub, {sum, b.constInt(stages_, i32)}, i32);
    return b.op1(OpCode::Select, {wraps, less, sum}, i32);
  }

  // An iteration to copy for, `times` iterations after `base`: its
  // induction value `at` = base + offset, and whether it runs as
  // `base < bound`, with bound = ub - offset computed before the loop (the
  // type's minimum where ub - offset is below it: then no such iteration
  // runs). Exact for every ub: `at` wraps around only where the iteration
  // does not run, and then nothing is copied for it.
  struct Iteration {
    Value *at;
    Value *index;  // compared with bound
    Value *bound;
  };
  Iteration iteration(Builder &b, Value *base, int64_t times) {
    Value *ub = loop_->operand(1);
    if (times == 0) return {base, base, ub};
    const int64_t offset = times * step_;
    const Type &t = ub->type;
    const bool wide = bitWidth(t.dtype) == 64;
    const int64_t min = wide ? std::numeric_limits<int64_t>::min() : INT32_MIN;
    Value *fits = pre_.op1(OpCode::Cmp, {ub, pre_.constInt(min + offset, t)},
                           Type::scalar(DType::I1), {{"pred", std::string("ge")}});
    Value *less = pre_.op1(OpCode::Sub, {ub, pre_.constInt(offset, t)}, t);
    Value *bound = pre_.op1(OpCode::Select, {fits, less, pre_.constInt(min, t)}, t);
    return {b.op1(OpCode::Add, {base, b.constInt(offset, t)}, t), base, bound};
  }

  using Map = std::unordered_map<const Value *, Value *>;

  // At b's point: the copy of candidate `c` for iteration `it` into `slot`
  // (a tensor copy completing on barrier `slot` of `bars`, announcing
  // `expect` bytes first, when the loop uses the tensor memory accelerator).
  void copyAt(Builder &b, const Candidate &c, const Iteration &it, Map map, Value *ring,
              Value *slot, Value *bars = nullptr, int64_t expect = 0, Value *tensorMap = nullptr) {
    for (Operation *op : c.slice)
      if (op->results.empty() || !map.count(op->result(0))) cloneOp(*op, b, map);  // once
    const Operation &ld = *c.load;
    const Type &rt = ld.result()->type;
    b.setLoc(ld.loc);
    Type maskType = Type::tile(rt.shape, Type::scalar(DType::I1));
    Value *runs = b.op1(OpCode::Cmp, {it.index, it.bound}, Type::scalar(DType::I1),
                        {{"pred", std::string("lt")}});
    if (tma_) {
      Value *buf = b.op1(OpCode::MemDescIndex, {ring, slot},
                         Type::memdesc(rt.shape, rt.dtype, c.shared.str()));
      DescriptorLoadParts p = descriptorLoadParts(ld);
      std::vector<Value *> ops{buf, bars, slot};
      for (Value *o : p.offsets) ops.push_back(mapped(map, o));
      ops.push_back(runs);
      std::vector<NamedAttr> attrs{{"expect", expect},
                                   {"padding", std::string(p.nanPadding ? "nan" : "zero")}};
      // The load's dims are the copy's coordinates, in order.
      if (const Attr *below = ld.attr("unbounded_below"))
        attrs.push_back({"unbounded_below", *below});
      if (tensorMap)
        ops.push_back(tensorMap);
      else
        attrs.push_back({"tensormap", int64_t{hostDescriptorParam(ld, fn_)}});
      b.create(OpCode::TmaCopy, ops, {}, std::move(attrs));
      return;
    }
    runs = b.op1(OpCode::Splat, {runs}, maskType);
    Value *mask = ld.operands.size() > 1
                      ? b.op1(OpCode::And, {mapped(map, ld.operand(1)), runs}, maskType)
                      : runs;
    Type bufType = Type::memdesc(rt.shape, rt.dtype, c.shared.str());
    Value *buf = b.op1(OpCode::MemDescIndex, {ring, slot}, bufType);
    if (!c.limit) {
      b.create(OpCode::AsyncCopy, {buf, mapped(map, ld.operand(0)), mask}, {});
      return;
    }
    b.create(OpCode::AsyncCopy, {buf, mapped(map, ld.operand(0)), mask, mapped(map, c.limit)}, {},
             {{"inclusive", int64_t{c.prefix->inclusive}}, {"prefix_run", c.prefix->run}});
  }

  // Whether the descriptor of `load` (base, shapes, strides) is defined
  // before the loop, where its tensor map is made.
  bool descriptorBeforeLoop(const Operation &load) const {
    for (Value *v : descriptorLoadParts(load).descriptor())
      if (passes::isDefinedInside(v, loop_)) return false;
    return true;
  }

  // The limits of the prefix-masked loads, computed next to each load from
  // the operands of its comparison; the copies clone them with the slice.
  void buildLimits(std::vector<Candidate> &cands) {
    std::unordered_map<const Operation *, Value *> limits;
    for (Candidate &c : cands) {
      if (!c.prefix) continue;
      Value *&limit = limits[c.load];
      if (!limit) {
        Builder b;
        b.setInsertionPointBefore(c.load);
        b.setLoc(c.load->loc);
        limit = buildPrefixLimit(b, *c.prefix);
      }
      c.limit = limit;
      // The new ops (a sub, then one per path op) sit just before the load,
      // after everything in the slice: appended, the slice stays in order.
      std::vector<Operation *> made;
      auto it = passes::iteratorOf(limit->def);
      for (size_t k = 0; k <= c.prefix->path.size(); ++k, --it) made.push_back(it->get());
      c.slice.insert(c.slice.end(), made.rbegin(), made.rend());
    }
  }

  // `acc = dot(a, b, acc)` carried around the loop: the accumulator is a
  // block argument read only by the dot, whose result only goes back to it.
  bool accumulatesInPlace(const Operation &dot) {
    const Value *c = dot.operand(2), *r = dot.result();
    return c->owner == &body_ && uses_[c] == 1 && uses_[r] == 1 && passes::yieldsBackInto(r, c);
  }

  // The shadowed values one iteration on, from the state `map` gives them
  // (and the induction variable's value there), made at b's point.
  std::vector<Value *> advanceShadow(Builder &b, Map map) {
    for (Operation *op : shadowed_->update) cloneOp(*op, b, map);
    std::vector<Value *> next;
    for (unsigned i : shadowed_->indices)
      next.push_back(mapped(map, body_.terminator()->operand(i)));
    return next;
  }

  void transform(const std::vector<Candidate> &cands) {
    // wgmma dots (swizzled operands) may still be reading their slots when
    // the next iteration starts: each waits for all but its latest wgmma
    // group. With overlap the copies for iteration i+S-1 therefore go after
    // the dots of iteration i, behind a CTA barrier: by then every
    // warpgroup's wait has retired iteration i-1's group, so the slot it
    // read is free, and S slots keep the copies S-1 iterations ahead (as
    // Triton's Hopper pipeline does; a slot more, with the copies at the
    // top, cost a stage of shared memory: 128x128x64 tiles at 3 stages took
    // 128 KiB, one block per SM, where 96 KiB lets two share it). The dots
    // are marked overlap = 1.
    bool overlap = stages_ >= 2;
    // One ring per load, filled by the copies of its first candidate and
    // read by all of them: ringOf[k] is candidate k's.
    std::vector<const Candidate *> fills;
    std::vector<size_t> ringOf;
    std::unordered_map<const Operation *, size_t> ringIndex;
    for (const Candidate &c : cands) {
      auto [it, fresh] = ringIndex.emplace(c.load, fills.size());
      if (fresh) fills.push_back(&c);
      ringOf.push_back(it->second);
      // A dot reading A from registers overlaps only as a loop's
      // accumulator chain (the emitter then keeps its group in flight past
      // the registers' last use); any other such dot waits for itself, and
      // its loop keeps the copies at the top.
      overlap = overlap && c.wgmma && (!registerA_.count(c.dot) || accumulatesInPlace(*c.dot));
    }
    // A loop that rotate-dot-loops will rotate reads a slot one iteration
    // late too: its copies go after the dots as well, behind the barrier.
    // (Asked before the loop gains carried values here. Only wgmma dots,
    // whose rings are swizzled, are rotated; mma.sync rings keep their
    // placement, and the prefetching dot its wait count.)
    const bool copiesLast = overlap || (std::all_of(cands.begin(), cands.end(),
                                                    [](const Candidate &c) { return c.wgmma; }) &&
                                        findDotRotation(*loop_, module_));
    const int64_t slots = stages_;
    const int lookAhead = static_cast<int>(stages_) - 1;
    if (overlap)
      for (const Candidate &c : cands) c.dot->setAttr("overlap", int64_t{1});
    const Type i32 = Type::scalar(DType::I32);
    pre_.setInsertionPointBefore(loop_);
    pre_.setLoc(loop_->loc);
    // With tensor copies and more than one warpgroup, the slots are released by
    // barriers too, one per slot, that every thread arrives on once it has read
    // the slot for the last time; the thread that copies waits for it before
    // refilling the slot. A CTA barrier there would hold every warp, where only
    // the copying one needs to wait: without it the warpgroups drift apart, and
    // one's softmax overlaps the other's dots. (Tutorial 06's D=128 forward on
    // an H200, 128x128 tiles on 8 warps: 540 TFLOP/s against 490 with the CTA
    // barrier, causal 483 against 440. With one warpgroup the barrier is the
    // warpgroup's own, and the mbarrier's round trip cost 2-4%: 128x64 tiles on
    // 4 warps 516 against 526.) A loop that asks for warp specialisation has
    // them always: its copies move to a producer warp (warp-specialize), which a
    // CTA barrier would not let go on.
    const bool releaseBarriers =
        tma_ && (module_.numWarps > 4 || loop_->intAttr("warp_specialize") == 1);
    // Where the rings outlive this loop (ringsOutlive), they and their
    // barriers are allocated before the loop around it, and its iterations
    // carry the ring's position on: the read slot and its phase.
    int64_t stageBytes = 0;  // one slot of every ring
    for (const Candidate *c : fills) {
      const Type &t = c->load->result()->type;
      stageBytes += t.numel() * byteSize(t.dtype);
    }
    Operation *outer =
        tma_ && loop_->intAttr("warp_specialize") == 1 ? ringsOutlive(slots * stageBytes) : nullptr;
    Builder hoisted;
    Value *ringAt = nullptr, *ringPhase = nullptr;
    if (outer) {
      hoisted.setInsertionPointBefore(outer);
      hoisted.setLoc(loop_->loc);
      ringAt = appendCarried(outer, hoisted.constInt(0, i32));
      ringPhase = appendCarried(outer, hoisted.constInt(0, i32));
      // Every warp has read the slots and staged buffers for the last time
      // in the previous iteration before this one writes them again (the
      // copying thread also waits for each slot's release, below, which
      // the warps' CTA barrier does not order with the copy engine).
      pre_.create(OpCode::Barrier, {}, {});
    }
    Builder &alloc = outer ? hoisted : pre_;
    // Operands loaded before the loop: one buffer each, copied ahead of
    // iteration 0's copies and committed with them, so the first ring wait
    // covers them too. They are allocated below the rings, so that a
    // buffer a later loop reads too leaves the rings' bytes to its rings.
    std::vector<StagedKey> freeAfter;  // buffers staged here, or earlier and now living past it
    bool copiedInvariants = false;
    for (const Candidate &c : invariants_) {
      StagedKey key{c.load, c.shared.str()};
      auto earlier = stagedBefore_->find(key);
      if (earlier != stagedBefore_->end() &&
          (!earlier->second.dealloc || earlier->second.dealloc->parent == loop_->parent)) {
        // Staged already, for another dot of this loop or for an earlier
        // loop of this block: the buffer holds the load's values, which no
        // loop writes, and lives past this loop.
        c.dot->operands[c.operand] = earlier->second.buffer;
        if (earlier->second.dealloc) {
          eraseOp(earlier->second.dealloc);
          earlier->second.dealloc = nullptr;
          freeAfter.push_back(key);
        }
        continue;
      }
      const Type &t = c.load->result()->type;
      auto [one, buf] = allocateOneSlot(pre_, t, c.shared);
      Type maskType = Type::tile(t.shape, Type::scalar(DType::I1));
      Value *mask =
          c.load->operands.size() > 1
              ? c.load->operand(1)
              : pre_.op1(OpCode::Splat, {pre_.constInt(1, Type::scalar(DType::I1))}, maskType);
      pre_.create(OpCode::AsyncCopy, {buf, c.load->operand(0), mask}, {});
      c.dot->operands[c.operand] = buf;
      (*stagedBefore_)[key] = {one, buf, nullptr};
      freeAfter.push_back(key);
      copiedInvariants = true;
    }
    std::vector<Value *> rings;
    for (const Candidate *c : fills) {
      const Type &t = c->load->result()->type;
      Type ringType = Type::memdesc({slots, t.shape[0], t.shape[1]}, t.dtype, c->shared.str());
      rings.push_back(alloc.op1(OpCode::LocalAlloc, {}, ringType));
    }
    // The tensor copies of one iteration complete on one barrier per slot;
    // its phase flips each time the ring wraps around. (The release
    // barriers: above.)
    Value *bars = tma_ ? alloc.op1(OpCode::BarrierAlloc, {}, i32, {{"count", slots}}) : nullptr;
    Value *freed = releaseBarriers
                       ? alloc.op1(OpCode::BarrierAlloc, {}, i32,
                                   {{"count", slots}, {"arrivals", int64_t(32) * module_.numWarps}})
                       : nullptr;
    std::vector<Value *> tensorMaps;
    for (const Candidate *c : fills)
      tensorMaps.push_back(tma_ ? tensorMapBefore(loop_, *c->load, c->shared.swizzle, fn_)
                                : nullptr);
    // Prologue: iterations 0 .. S-2, the advancing values stepping along.
    std::vector<Value *> current, shadowState;
    for (const Advancing &a : advancing_) current.push_back(loop_->operand(3 + a.index));
    if (shadowed_)
      for (unsigned i : shadowed_->indices) shadowState.push_back(loop_->operand(3 + i));
    for (int j = 0; j < lookAhead; ++j) {
      Iteration it = iteration(pre_, loop_->operand(0), j);
      Map map{{iv(), it.at}};
      for (size_t k = 0; k < advancing_.size(); ++k) map[advancing_[k].arg] = current[k];
      if (shadowed_) {
        for (size_t k = 0; k < shadowState.size(); ++k) map[shadowed_->args[k]] = shadowState[k];
        shadowState = advanceShadow(pre_, map);
      }
      Value *slot = outer ? slotAfter(pre_, ringAt, j) : pre_.constInt(j, i32);
      // A persisting ring's slot may have been read in the previous outer
      // iteration: its copy waits for the release, as the loop's copies do.
      // The copy for the j-th iteration after the position the ring reached
      // waits for the arrivals of that position's iteration j - S + 1:
      // the ring's phase there, one phase back where the slot comes
      // before the read slot (a ring never used so far waits on the phase
      // before its first, which a new barrier has completed).
      if (outer) {
        Value *past = pre_.op1(OpCode::Cmp,
                               {pre_.op1(OpCode::Add, {ringAt, pre_.constInt(j + 1, i32)}, i32),
                                pre_.constInt(slots, i32)},
                               Type::scalar(DType::I1), {{"pred", std::string("ge")}});
        Value *back = pre_.op1(OpCode::Xor, {ringPhase, pre_.constInt(1, i32)}, i32);
        Value *parity = pre_.op1(OpCode::Select, {past, ringPhase, back}, i32);
        pre_.create(OpCode::BarrierWait, {freed, slot, parity}, {}, {{"first_thread", int64_t{1}}});
      }
      for (size_t r = 0; r < fills.size(); ++r)
        copyAt(pre_, *fills[r], it, map, rings[r], slot, bars, r == 0 ? stageBytes : 0,
               tensorMaps[r]);
      if (!tma_) pre_.create(OpCode::AsyncCommit, {}, {});
      for (size_t k = 0; k < advancing_.size(); ++k) {
        Map step = map;
        for (Operation *op : advancing_[k].update) cloneOp(*op, pre_, step);
        current[k] = mapped(step, body_.terminator()->operand(advancing_[k].index));
      }
    }
    // With tensor copies no cp.async wait follows in the loop: the staged
    // operands land before it starts. The wait (a CTA barrier) comes after
    // the prologue's tensor copies, so that they are in flight meanwhile.
    if (tma_ && copiedInvariants) {
      pre_.create(OpCode::AsyncCommit, {}, {});
      pre_.create(OpCode::AsyncWait, {}, {}, {{"pending", int64_t(0)}});
    }
    for (size_t k = 0; k < advancing_.size(); ++k)
      loop_->operands[3 + advancing_[k].index] = current[k];
    Value *readSlot = appendCarried(loop_, outer ? ringAt : pre_.constInt(0, i32));
    Value *writeSlot = appendCarried(
        loop_, outer ? slotAfter(pre_, ringAt, lookAhead) : pre_.constInt(lookAhead, i32));
    Value *phase = tma_ ? appendCarried(loop_, outer ? ringPhase : pre_.constInt(0, i32)) : nullptr;
    if (outer) {
      Operation *outerYield = outer->regions[0]->terminator();
      outerYield->operands.push_back(loop_->result(readSlot->index - 1));
      outerYield->operands.push_back(loop_->result(phase->index - 1));
    }
    std::vector<Value *> shadowArgs;
    for (Value *init : shadowState) shadowArgs.push_back(appendCarried(loop_, init));

    // The top of the body: wait for this iteration's slot, then copy for
    // iteration i+S-1 into the slot iteration i-1 read (after the dots
    // where they overlap).
    Builder head;
    head.setInsertionPoint(&body_, body_.ops.begin());
    head.setLoc(loop_->loc);
    bool mmaSync = std::all_of(cands.begin(), cands.end(), [&](const Candidate &c) {
      return !c.wgmma && !registerA_.count(c.dot);
    });
    // One mma.sync dot reading both operands from rings, with a copy in
    // flight besides the one waited for, prefetches (CUTLASS's Ampere main
    // loop): its first K step's fragments were loaded by the previous
    // iteration, which waited for this slot before its own last K step, so
    // the warps start on tensor-core work as the iteration starts instead of
    // after a barrier and a burst of ldmatrix (on an H100 about 350 cycles
    // per iteration of 128x256x64 tiles with 8 warps, where the tensor cores
    // idled). The wait leaves the loop's top for the dot (and before the
    // loop, for iteration 0's slot), and the copies for i+S-1 go at the top:
    // the slot they refill, iteration i-1's, was last read before the
    // previous iteration's barrier.
    // (With one K step of the instruction there is no later step to hide
    // the wait behind.)
    Operation *prefetch = nullptr;
    if (!tma_ && mmaSync && lookAhead >= 2 && cands.size() == 2 && cands[0].dot == cands[1].dot &&
        cands[0].operand != cands[1].operand && cands[0].dot->parent == &body_ &&
        cands[0].dot->operands.size() == 3) {
      Operation *dot = cands[0].dot;
      auto mi = selectMma(*dot, module_.targetSm);
      const Type &a = dot->operand(0)->type;
      if (mi && a.rank() == 2 && a.shape[1] / mi->k >= 2) prefetch = dot;
    }
    // With tensor copies: a CTA barrier (every warpgroup has finished the
    // dot that read writeSlot), the copies, then the wait for this
    // iteration's slot, so the copies are in flight during the wait.
    // Overlapping dots wait at the top and copy after the dots, barrier
    // first.
    // The slot iteration i refills, (i + S - 1) mod S, completes phase
    // floor(i / S) of its release barrier as this iteration arrives on it:
    // the parity of `phase`, which flips as the read slot wraps.
    auto released = [&](Builder &b) {
      if (!freed) {
        b.create(OpCode::Barrier, {}, {});
        return;
      }
      b.create(OpCode::BarrierArrive, {freed, writeSlot}, {});
      b.create(OpCode::BarrierWait, {freed, writeSlot, phase}, {}, {{"first_thread", int64_t{1}}});
    };
    // The addresses of the copies for iteration i+S-1. Tensor copies take
    // scalar coordinates, which are computed once, at the top, before the wait: a flattened loop's
    // (a tile's coordinates from the induction variable, divisions) then runs while the data and
    // the dots in flight are awaited rather than after.
    Operation *yield = body_.terminator();
    Builder copies = head;
    if (copiesLast || (!tma_ && mmaSync && lookAhead >= 2 && !prefetch)) {
      copies.setInsertionPointBefore(yield);
      copies.setLoc(loop_->loc);
    }
    std::optional<Iteration> ahead;
    Map map;
    auto addresses = [&](Builder &b) {
      ahead = iteration(b, iv(), lookAhead);
      map = {{iv(), ahead->at}};
      for (size_t k = 0; k < shadowArgs.size(); ++k) map[shadowed_->args[k]] = shadowArgs[k];
      if (!tma_) return;  // (each copy clones its slice where it is made)
      std::unordered_set<const Operation *> slices;
      for (const Candidate *c : fills) slices.insert(c->slice.begin(), c->slice.end());
      for (auto &op : body_.ops)
        if (slices.count(op.get())) cloneOp(*op, b, map);
    };
    if (tma_) addresses(head);
    if (prefetch)
      pre_.create(OpCode::AsyncWait, {}, {}, {{"pending", int64_t(lookAhead - 1)}});
    else if (!tma_)
      head.create(OpCode::AsyncWait, {}, {}, {{"pending", int64_t(lookAhead - 1)}});
    else if (copiesLast)
      head.create(OpCode::BarrierWait, {bars, readSlot, phase}, {});
    else
      released(head);
    // For mma.sync dots (no ring marked for wgmma) with a
    // copy in flight besides the one waited for, the copies go after the
    // dots instead: the warps' first ldmatrix then follows the wait
    // directly, and ptxas spreads the copies among the last mma.syncs,
    // whose tensor-core work they wait on no more than before (shared
    // memory writes and ldmatrix reads keep their program order, so the
    // copies at the top held every ldmatrix back). On an H100 the example
    // matmul at 128x256x64 (sm_80 path) went from 0.45 to 0.51 of cuBLAS.
    // wgmma dots that do not overlap wait for themselves, so copies after
    // them would start an iteration late.
    if (copiesLast) released(copies);
    if (!tma_) addresses(copies);
    for (size_t r = 0; r < fills.size(); ++r)
      copyAt(copies, *fills[r], *ahead, map, rings[r], writeSlot, bars, r == 0 ? stageBytes : 0,
             tensorMaps[r]);
    if (!tma_)
      copies.create(OpCode::AsyncCommit, {}, {});
    else if (!copiesLast)
      copies.create(OpCode::BarrierWait, {bars, readSlot, phase}, {});
    for (const Advancing &a : advancing_) {
      Map step = map;
      for (Operation *op : a.update) cloneOp(*op, copies, step);
      yield->operands[a.index] = mapped(step, yield->operand(a.index));
    }
    std::vector<Value *> shadowNext;
    if (shadowed_) {
      Map step = map;
      shadowNext = advanceShadow(copies, step);
    }
    // The slot after `slot` around the ring, and whether it wrapped.
    auto stepSlot = [&](Builder &b, Value *slot, Value *&wraps) {
      Value *next = b.op1(OpCode::Add, {slot, b.constInt(1, i32)}, i32);
      wraps = b.op1(OpCode::Cmp, {next, b.constInt(slots, i32)}, Type::scalar(DType::I1),
                    {{"pred", std::string("eq")}});
      return b.op1(OpCode::Select, {wraps, b.constInt(0, i32), next}, i32);
    };
    // Candidate c's view of a ring slot, as its dot reads it.
    auto slotView = [&](Builder &b, size_t c, Value *slot) {
      const Type &t = cands[c].load->result()->type;
      Type bufType = Type::memdesc(t.shape, t.dtype, cands[c].shared.str());
      Value *buf = b.op1(OpCode::MemDescIndex, {rings[ringOf[c]], slot}, bufType);
      return cands[c].trans ? transposedView(b, buf, cands[c].shared) : buf;
    };
    // The dots read the current slot (the prefetching dot the next one too).
    Value *readWraps = nullptr;
    Value *nextRead = nullptr;
    if (prefetch) {
      Builder b;
      b.setInsertionPointBefore(prefetch);
      b.setLoc(prefetch->loc);
      nextRead = stepSlot(b, readSlot, readWraps);
      prefetch->operands.resize(6);
      for (size_t c = 0; c < cands.size(); ++c)
        prefetch->operands[3 + cands[c].operand] = slotView(b, c, nextRead);
      prefetch->operands[5] = b.op1(OpCode::Cmp, {iv(), loop_->operand(0)}, Type::scalar(DType::I1),
                                    {{"pred", std::string("eq")}});
      prefetch->setAttr("prefetch_pending", int64_t(lookAhead - 1));
    }
    for (size_t c = 0; c < cands.size(); ++c) {
      Builder b;
      b.setInsertionPointBefore(cands[c].dot);
      b.setLoc(cands[c].dot->loc);
      cands[c].dot->operands[cands[c].operand] = slotView(b, c, readSlot);
    }
    for (const Candidate &c : cands)
      if (c.trans) eraseOp(c.trans);
    // Both slots step around the ring.
    Builder tail;
    tail.setInsertionPointBefore(yield);
    tail.setLoc(loop_->loc);
    Value *writeWraps = nullptr;
    yield->operands.push_back(nextRead ? nextRead : stepSlot(tail, readSlot, readWraps));
    yield->operands.push_back(stepSlot(tail, writeSlot, writeWraps));
    if (tma_) {
      Value *flipped = tail.op1(OpCode::Xor, {phase, tail.constInt(1, i32)}, i32);
      yield->operands.push_back(tail.op1(OpCode::Select, {readWraps, flipped, phase}, i32));
    }
    for (Value *v : shadowNext) yield->operands.push_back(v);
    // After the loop: nothing in flight, then the rings are free.
    Builder after;
    Operation *last = outer ? outer : loop_;
    auto pos = std::next(passes::iteratorOf(last));
    after.setInsertionPoint(last->parent, pos);
    after.setLoc(loop_->loc);
    if (freed) after.create(OpCode::BarrierDealloc, {freed}, {});
    if (tma_)
      after.create(OpCode::BarrierDealloc, {bars}, {});
    else
      after.create(OpCode::AsyncWait, {}, {}, {{"pending", int64_t(0)}});
    for (Value *r : rings) after.create(OpCode::LocalDealloc, {r}, {});
    // Staged operands are freed after this loop even where the rings
    // outlive it: allocating one again each tile costs nothing, and its
    // bytes are free for what the tile does after the loop.
    Builder afterLoop;
    afterLoop.setInsertionPoint(loop_->parent, std::next(passes::iteratorOf(loop_)));
    afterLoop.setLoc(loop_->loc);
    for (const StagedKey &key : freeAfter) {
      StagedOperand &st = stagedBefore_->at(key);
      st.dealloc = (outer ? afterLoop : after).create(OpCode::LocalDealloc, {st.alloc}, {});
    }
    for (const Candidate *c : fills) eraseOp(c->load);
    // A staged load that nothing else reads (another loop may stage it too).
    std::unordered_set<Operation *> stagedLoads;
    for (const Candidate &c : invariants_) stagedLoads.insert(c.load);
    auto uses = countUses(fn_);
    for (Operation *ld : stagedLoads)
      if (uses[ld->result()] == 0) {
        // No later loop can read it: its records go before the op does.
        std::erase_if(*stagedBefore_, [&](const auto &entry) { return entry.first.first == ld; });
        eraseOp(ld);
      }
    eraseDeadPureOps();
  }

  // The original address computations and pointer updates are now unused.
  void eraseDeadPureOps() {
    passes::eraseUnusedOps(fn_, body_, /*nested=*/false,
                           [](const Operation &op) { return isPureOp(op) && op.regions.empty(); });
  }

  std::unordered_set<const Operation *> *served_;
  StagedOperands *stagedBefore_;  // by earlier loops of the function (null when probing)
  Function &fn_;
  Operation *loop_;
  Block &body_;
  LoopSlices slices_;  // what the loop's carried values and loads depend on
  int64_t stages_;
  const Module &module_;  // the target, warps, and whether tensor maps may be built in the kernel
  bool tma_ = false;      // the rings fill by tensor copies (descriptor loads)
  int64_t step_ = 1;
  Builder pre_;  // before the loop
  PtrMap<const Value *, int> uses_;
  AxisInfoMap info_;
  std::vector<Advancing> advancing_;
  std::optional<Shadowed> shadowed_;
  std::unordered_set<Operation *> loads_;      // the candidates'
  std::unordered_set<Operation *> registerA_;  // dots whose B alone is a candidate
  std::unordered_set<Operation *> excluded_;   // loads whose readers disagree on a layout
  std::vector<Candidate> invariants_;          // operands loaded before the loop
};

void visit(Function &fn, Block &b, const Module &m, std::unordered_set<const Operation *> *served,
           StagedOperands *staged) {
  std::vector<Operation *> ops;
  for (auto &o : b.ops) ops.push_back(o.get());
  for (Operation *op : ops) {
    for (auto &r : op->regions) visit(fn, *r, m, served, staged);  // inner loops first
    if (op->code == OpCode::For) {
      int stages = static_cast<int>(op->intAttr("num_stages", m.numStages));
      Pipeliner(fn, op, stages, m, served, staged).run();
    }
  }
}

}  // namespace

void pipelineDotOperands(Module &m) {
  // First the descriptor loads that no ring will take become masked loads
  // (with the clean-up passes, so that their address arithmetic is what
  // cp.async staging expects), then the loops are pipelined.
  std::unordered_set<const Operation *> served;
  for (auto &fn : m.functions) visit(*fn, fn->body, m, &served, nullptr);
  expandDescriptorLoads(
      m, [&](const Operation &op, const Function &) { return served.count(&op) > 0; });
  for (auto &fn : m.functions) {
    StagedOperands staged;
    visit(*fn, fn->body, m, nullptr, &staged);
  }
  // Any left (a loop the probe accepted and the pipelining then declined)
  // become masked loads as they are: the clean-up passes are not for
  // pipelined IR.
  for (auto &fn : m.functions) tessera::expandDescriptorLoads(*fn);
  // A flattened loop's copies took their own tile coordinates, running
  // ahead: the body's, which only its loads read, are dead now.
  bool flattened = false;
  for (auto &fn : m.functions)
    fn->walk([&](Operation *op) { flattened = flattened || op->intAttr("flattened") == 1; });
  if (flattened) runPasses(m, {"dce"}, {});
}

}  // namespace tessera::ptx
