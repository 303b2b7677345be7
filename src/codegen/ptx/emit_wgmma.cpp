// tl.dot on Hopper's warpgroup tensor cores: wgmma.mma_async (sm_90a).
//
// Requires: a dot that selectWgmma accepts (B, and A unless it is a tile in
// registers, memdescs in the swizzled shared layout that
// pipeline-dot-operands writes), whose tile A has wgmmaOperandALayout
// (assign-layouts gives it that) and whose result has wgmmaAccumulatorLayout
// (else the accumulator is converted in and out through shared memory).
// Emits: per K step (16 for 16-bit types, 32 for fp8) and per 64-row tile
// of the warpgroup, one wgmma.mma_async reading B (and A) straight from shared
// memory through 64-bit matrix descriptors, or A from four 32-bit registers
// of two 16-bit elements each (mma.sync's A fragment per warp), between wgmma.fence and
// commit_group / wait_group 0: the dot is complete when the op ends; or,
// for a loop's accumulator chain marked overlap = 1 by
// pipeline-dot-operands, wait_group 1: the dot finishes while the next
// iteration waits for its operands.
//
// A descriptor holds the operand's start address (>> 4), the byte distance
// between S-byte columns of the swizzled tile (LBO, used when the
// instruction's contiguous extent spans several: an MN-major operand), the
// distance between 8-row groups (SBO: 8 S) and the swizzle mode (S = 128,
// 64 or 32 bytes).
// The start address is the unswizzled position of the instruction's first
// element; the hardware applies the XOR, which is why slots are
// 1024-byte aligned.
#include <set>

#include "codegen/ptx/emitter.h"
#include "codegen/ptx/mma.h"
#include "passes/pass_utils.h"
#include "support/diagnostics.h"

namespace tessera::ptx {

void Emitter::emitWgmmaDot(Operation &op, const WgmmaPlan &p) {
  const Value *a = op.operand(0), *b = op.operand(1), *c = op.operand(2);
  const Value *res = op.result();
  int64_t M = res->type.shape[0], N = res->type.shape[1], K = a->type.shape[a->type.rank() - 1];
  LinearLayout lr = layoutOf(res);
  const LinearLayout lacc = wgmmaAccumulatorLayout(M, N, p, opts_.numWarps);
  // The result's layout class may have been pinned first by another
  // tensor-core dot (an mma.sync product combined elementwise with this
  // one's). wgmma has no other form, so the accumulator then goes into and
  // out of the instruction's layout through shared memory: correct, and a
  // conversion slower per dot.
  const bool relaid = !(lr == lacc);
  auto relayout = [&](const Regs &r, const LinearLayout &from, const LinearLayout &to, DType d) {
    std::vector<int64_t> strides = rowMajorStrides({M, N});
    needShared(M * N * sharedElemBytes(d));
    barrier();
    storeTileShared(r, from, d, strides, 0);
    barrier();
    return loadTileShared(to, d, strides, 0);
  };
  const bool aInRegisters = a->type.isTile();
  if (aInRegisters && !(layoutOf(a) == wgmmaOperandALayout(M, K, p, opts_.numWarps)))
    internalError("emit-ptx", "a wgmma operand A in registers not in the wgmma A layout");
  // A in registers reads as if it were K-major in shared memory: only its
  // offsets below are computed, never used.
  std::optional<SharedLayout> la =
      aInRegisters ? SharedLayout::swizzled(1, 128) : SharedLayout::parse(a->type.layout.str());
  auto lb = SharedLayout::parse(b->type.layout.str());
  if (!la || !lb) internalError("emit-ptx", "wgmma operand without a shared layout");
  std::vector<int64_t> shapeA = {M, K}, shapeB = {K, N};
  const int eb = p.elemBytes;
  needPtxVersion(eb == 1 ? 84 : 80);

  // Where the warpgroup's tile starts in each operand: its M (N) origin
  // moves the start along rows (K-major) or S-byte columns (MN-major).
  std::string group = reg(RegClass::B32), gm = reg(RegClass::B32), gn = reg(RegClass::B32);
  prologueIns("shr.u32 " + group + ", " + warp_ + ", 2");
  prologueIns("rem.u32 " + gm + ", " + group + ", " + std::to_string(p.wgM));
  prologueIns("div.u32 " + gn + ", " + group + ", " + std::to_string(p.wgM));
  // Byte offset of (mn, k) in operand `l` of `shape`, where `kDim` is K's dim.
  auto at = [&](const SharedLayout &l, const std::vector<int64_t> &shape, int kDim, int64_t mn,
                int64_t k) {
    bool kMajor = l.contig == kDim;
    return kMajor ? l.linearOffset(shape, mn, k, eb) : l.linearOffset(shape, k, mn, eb);
  };
  struct Operand {
    std::string lo, hi;  // descriptor words at the warpgroup's origin
    bool trans;          // MN-major
  };
  auto describe = [&](const Value *v, const SharedLayout &l, const std::vector<int64_t> &shape,
                      int kDim, const std::string &g, int64_t perGroup) {
    Operand o;
    o.trans = l.contig != kDim;
    int64_t s = l.swizzle;
    int64_t lbo = o.trans ? l.rows(shape) * s : 16, sbo = 8 * s;
    uint32_t mode = s == 128 ? 1 : s == 64 ? 2 : 3;
    int64_t step = at(l, shape, kDim, perGroup, 0) - at(l, shape, kDim, 0, 0);
    std::string addr = reg(RegClass::B32);
    ins("mad.lo.s32 " + addr + ", " + g + ", " + std::to_string(step) + ", " + get(v)[0]);
    o.lo = reg(RegClass::B32);
    ins("bfe.u32 " + o.lo + ", " + addr + ", 4, 14");
    ins("or.b32 " + o.lo + ", " + o.lo + ", " + std::to_string((lbo >> 4) << 16));
    o.hi = reg(RegClass::B32);
    ins("mov.u32 " + o.hi + ", " + std::to_string((sbo >> 4) | (mode << 30)));
    return o;
  };
  Operand da = aInRegisters ? Operand{} : describe(a, *la, shapeA, 1, gm, 64 * p.mTiles);
  Operand db = describe(b, *lb, shapeB, 0, gn, p.n);
  // A from registers: its 16-bit elements paired into 32-bit words, in the
  // layout's register order (element r = r % 2 + 2 (row + 8) + 4 (8-column
  // group) within a 64-row tile), so words 4 kk .. 4 kk + 3 of a tile are
  // K step kk's fragment. Written before the fence, as wgmma requires.
  Regs aWords;
  if (aInRegisters) {
    Regs elems = get(a);
    for (size_t r = 0; r + 1 < elems.size(); r += 2) {
      aWords.push_back(packHalves(elems[r], elems[r + 1]));
    }
  }
  auto descriptor = [&](const Operand &o, int64_t off) {
    std::string lo = o.lo;
    if (off) {
      lo = reg(RegClass::B32);
      ins("add.u32 " + lo + ", " + o.lo + ", " + std::to_string(off >> 4));
    }
    std::string d = reg(RegClass::B64);
    ins("mov.b64 " + d + ", {" + lo + ", " + o.hi + "}");
    return d;
  };

  // Accumulators: fp32 registers in the instruction's order. The loop's
  // accumulator chain (the carried value feeds only this dot, whose result
  // is only yielded back to it) is updated in place, so the last group may
  // stay in flight across the back edge when pipeline-dot-operands marked
  // the dot overlap = 1; whatever reads the registers next waits for it
  // (Emitter::waitForWgmmaReaders).
  int numAcc = lacc.numRegs();
  Regs acc;
  bool chained = false;
  if (!relaid && c->type.dtype == DType::F32 && !c->def && c->owner && c->owner->parentOp &&
      c->owner->parentOp->code == OpCode::For && c->owner == op.parent && useCount(c) == 1 &&
      useCount(res) == 1) {
    Operation *y = op.parent->terminator();
    unsigned j = c->index - 1;  // argument 0 is the induction variable
    chained = y && c->index >= 1 && j < y->operands.size() && y->operand(j) == res;
  }
  // A zero accumulator (attention's Q K^T) is not materialised: the first
  // K step of each 64-row tile runs with scale-d = 0, which ignores d.
  auto c0 = passes::constantOf(c);
  const bool zeroInit = !chained && c0 && (c0->isFloat ? c0->f == 0 : c0->i == 0);
  if (chained) {
    acc = spread(c, numAcc);
  } else if (zeroInit) {
    for (int r = 0; r < numAcc; ++r) acc.push_back(reg(RegClass::F32));
  } else if (relaid) {
    DType d = c->type.dtype;
    Regs cin = relayout(spread(c, lr.numRegs()), lr, lacc, d);
    for (int r = 0; r < numAcc; ++r) {
      std::string t = reg(RegClass::F32);
      ins("mov.f32 " + t + ", " + convert(cin[r], d, DType::F32));
      acc.push_back(t);
    }
  } else if (c->type.isTile() && c->def && c->type.dtype == DType::F32 && useCount(c) == 1 &&
             std::set<std::string>(get(c).begin(), get(c).end()).size() ==
                 static_cast<size_t>(numAcc)) {
    // The dot is the accumulator's last reader (attention's rescaled
    // acc * alpha): wgmma updates its registers in place.
    acc = get(c);
  } else {
    Regs cin = spread(c, numAcc);
    for (int r = 0; r < numAcc; ++r) {
      std::string t = reg(RegClass::F32);
      ins("mov.f32 " + t + ", " + convert(cin[r], c->type.dtype, DType::F32));
      acc.push_back(t);
    }
  }
  // A in registers must not change while its group runs: no overlap.
  bool overlap = chained && !aInRegisters && op.intAttr("overlap", 0) == 1;
  std::string accumulate = reg(RegClass::Pred), overwrite = accumulate;
  ins("setp.eq.u32 " + accumulate + ", 0, 0");
  if (zeroInit) {
    overwrite = reg(RegClass::Pred);
    ins("setp.ne.u32 " + overwrite + ", 0, 0");
  }
  int64_t perTile = p.n / 2;
  std::string shape = "m64n" + std::to_string(p.n) + "k" + std::to_string(p.k);
  // 16-bit operands say whether they are MN-major; 8-bit ones are K-major.
  // (A from registers has no transpose flag.)
  std::string trans =
      eb != 2        ? ""
      : aInRegisters ? std::string(", ") + (db.trans ? "1" : "0")
                     : std::string(", ") + (da.trans ? "1" : "0") + ", " + (db.trans ? "1" : "0");
  ins("wgmma.fence.sync.aligned");
  for (int64_t kk = 0; kk < K / p.k; ++kk)
    for (int64_t mt = 0; mt < p.mTiles; ++mt) {
      std::string descA = aInRegisters ? join(aWords, static_cast<size_t>(mt * (K / 4) + 4 * kk), 4)
                                       : descriptor(da, at(*la, shapeA, 1, mt * 64, kk * p.k));
      std::string descB = descriptor(db, at(*lb, shapeB, 0, 0, kk * p.k));
      ins("wgmma.mma_async.sync.aligned." + shape + "." + p.types + " " +
          join(acc, static_cast<size_t>(mt * perTile), static_cast<size_t>(perTile)) + ", " +
          descA + ", " + descB + ", " + (kk == 0 ? overwrite : accumulate) + ", 1, 1" + trans);
    }
  ins("wgmma.commit_group.sync.aligned");
  if (overlap) {
    // This group may run on; the previous one (and every wgmma before it)
    // is done, so its slots can be refilled.
    ins("wgmma.wait_group.sync.aligned 1");
    wgmmaInFlight_.insert(acc.begin(), acc.end());
    set(res, acc);
    return;
  }
  ins("wgmma.wait_group.sync.aligned 0");
  wgmmaInFlight_.clear();
  if (chained) {
    set(res, acc);
    return;
  }
  Regs out;
  for (int r = 0; r < numAcc; ++r) out.push_back(convert(acc[r], DType::F32, res->type.dtype));
  set(res, relaid ? relayout(out, lacc, lr, res->type.dtype) : out);
}

}  // namespace tessera::ptx
