// tl.dot on Hopper's warpgroup tensor cores: wgmma.mma_async (sm_90a).
//
// Requires: a dot that selectWgmma accepts (B, and A unless it is a tile in
// registers, memdescs in the swizzled shared layout that
// pipeline-dot-operands writes), whose tile A has wgmmaOperandALayout
// (assign-layouts gives it that) and whose result has wgmmaAccumulatorLayout
// (else the accumulator is converted in and out through shared memory).
// Emits: per K step (16 for 16-bit types, 32 for 8-bit ones) and per 64-row
// tile of the warpgroup, one wgmma.mma_async reading B (and A) straight from
// shared memory through 64-bit matrix descriptors, or A from four 32-bit
// registers of two 16-bit or four 8-bit elements each (mma.sync's A
// fragment per warp), between wgmma.fence and commit_group / wait_group 0:
// the dot is complete when the op ends; or, for a loop's accumulator chain
// marked overlap = 1 by pipeline-dot-operands, wait_group 1: the dot
// finishes while the next iteration waits for its operands.
// An fp8 dot with max_num_imprecise_acc = q runs every q of K into a fresh
// partial accumulator and adds it into the fp32 one (add.f32), as Triton
// does: Hopper's fp8 products sum with fewer mantissa bits than fp32.
// int8/uint8 accumulate in int32 registers (.satfinite), with no scale or
// transpose immediates.
//
// A descriptor holds the operand's start address (>> 4), the byte distance
// between S-byte columns of the swizzled tile (LBO, used when the
// instruction's contiguous extent spans several: an MN-major operand), the
// distance between 8-row groups (SBO: 8 S) and the swizzle mode (S = 128,
// 64 or 32 bytes).
// The start address is the unswizzled position of the instruction's first
// element; the hardware applies the XOR, which is why slots are
// 1024-byte aligned.
#include <array>
#include <bit>
#include <set>

#include "codegen/ptx/emitter.h"
#include "codegen/ptx/mma.h"
#include "passes/pass_utils.h"
#include "support/diagnostics.h"

namespace tessera::ptx {

std::optional<Regs> Emitter::convertPairsToQuads(const Value *x, const LinearLayout &to) {
  DType d = x->type.dtype;
  const LinearLayout from = layoutOf(x);
  if (byteSize(d) != 1 || x->type.rank() != 2 || from.numRegs() != to.numRegs() ||
      to.numRegs() % 4 != 0)
    return std::nullopt;
  // Result word w of lane L (bits l0, l1 of its place in its four-lane
  // group) holds K values 4 t .. 4 t + 3 (t = l0 + 2 l1) of its row; the
  // source holds them in pairs, 2 t' and 2 t' + 1 in lane t' = 2 l0 + 0|1
  // of the group. Each source lane packs the pairs both lanes l1 = 0 and 1
  // want into one word (bytes 0-1 and 2-3); the result takes the half its
  // l1 names from each of the two lanes. src[w][k] is the source register
  // of that word's byte k, read off lanes 0 (l1 = 0) and 2 (l1 = 1).
  const int numWords = to.numRegs() / 4;
  std::vector<std::array<int, 4>> src(numWords);
  for (int w = 0; w < numWords; ++w)
    for (int k = 0; k < 4; ++k) {
      src[w][k] = from.regIndexOf(to.coord(4 * w + (k & 1), k < 2 ? 0 : 2, 0));
      if (src[w][k] < 0) return std::nullopt;
    }
  for (int w = 0; w < numWords; ++w)
    for (int warp = 0; warp < opts_.numWarps; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        for (int j = 0; j < 4; ++j) {
          int l0 = lane & 1, l1 = (lane >> 1) & 1;
          int from_lane = (lane & ~3) | (2 * l0 + (j >> 1));
          int k = 2 * l1 + (j & 1);
          if (to.coord(4 * w + j, lane, warp) != from.coord(src[w][k], from_lane, warp))
            return std::nullopt;
        }
  // Per thread, once: the two source lanes and the prmt selector (bytes
  // 0-1 of both words for l1 = 0: 0x5410; bytes 2-3: 0x7632).
  std::string lo = reg(RegClass::B32), hi = reg(RegClass::B32), sel = reg(RegClass::B32),
              t = reg(RegClass::B32);
  prologueIns("and.b32 " + lo + ", " + lane_ + ", 28");
  prologueIns("and.b32 " + t + ", " + lane_ + ", 1");
  prologueIns("mad.lo.u32 " + lo + ", " + t + ", 2, " + lo);
  prologueIns("or.b32 " + hi + ", " + lo + ", 1");
  prologueIns("bfe.u32 " + sel + ", " + lane_ + ", 1, 1");
  prologueIns("mad.lo.u32 " + sel + ", " + sel + ", 8738, 21520");
  const Regs &in = get(x);
  Regs out;
  RegClass c = regClassOf(Type::scalar(d));
  for (int w = 0; w < numWords; ++w) {
    Regs bytes;
    for (int k = 0; k < 4; ++k) bytes.push_back(in[src[w][k]]);
    std::string packed = packBytes(bytes, 0, d);
    std::string a = reg(RegClass::B32), b = reg(RegClass::B32), word = reg(RegClass::B32);
    ins("shfl.sync.idx.b32 " + a + ", " + packed + ", " + lo + ", 31, -1");
    ins("shfl.sync.idx.b32 " + b + ", " + packed + ", " + hi + ", 31, -1");
    ins("prmt.b32 " + word + ", " + a + ", " + b + ", " + sel);
    // Each byte in a register of its own (ptxas drops them when the only
    // reader is wgmma, which takes `word` whole through packBytes).
    for (int j = 0; j < 4; ++j) {
      std::string e = reg(RegClass::B32);
      ins("bfe.u32 " + e + ", " + word + ", " + std::to_string(8 * j) + ", 8");
      if (c != RegClass::B32) {
        std::string h = reg(c);
        ins("cvt.u16.u32 " + h + ", " + e);
        e = h;
      }
      byteOf_[e] = {word, j};
      out.push_back(e);
    }
  }
  return out;
}

// Whether a wgmma dot precedes `op` in its block (unconditionally: not
// nested in an `if`). Its wait retires every older group.
bool Emitter::wgmmaDotBefore(const Operation &op) const {
  for (const auto &o : op.parent->ops) {
    if (o.get() == &op) return false;
    if (o->code == OpCode::Dot &&
        selectWgmma(*o, opts_.numWarps, opts_.target.sm, opts_.target.archSpecific))
      return true;
  }
  return false;
}

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
  // wgM divides the program's warpgroup count, a power of two: a mask and a
  // shift (ptxas would divide by the constant in full).
  if (!std::has_single_bit(static_cast<unsigned>(p.wgM)))
    internalError("emit-ptx", "warpgroups along M not a power of two");
  prologueIns("and.b32 " + gm + ", " + group + ", " + std::to_string(p.wgM - 1));
  prologueIns("shr.u32 " + gn + ", " + group + ", " +
              std::to_string(std::countr_zero(static_cast<unsigned>(p.wgM))));
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
  // A from registers: its elements packed into 32-bit words in the layout's
  // register order (wgmmaOperandALayout), so words 4 kk .. 4 kk + 3 of a
  // 64-row tile are K step kk's fragment. Written before the fence, as
  // wgmma requires.
  Regs aWords;
  const size_t wordsPerTile = static_cast<size_t>(K * eb / 8);
  if (aInRegisters) {
    Regs elems = get(a);
    for (size_t r = 0; r + 4 / eb <= elems.size(); r += 4 / eb)
      aWords.push_back(eb == 2 ? packHalves(elems[r], elems[r + 1])
                               : packBytes(elems, r, a->type.dtype));
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

  // Accumulators: fp32 (int32) registers in the instruction's order. The loop's
  // accumulator chain (the carried value feeds only this dot, whose result
  // is only yielded back to it) is updated in place, so the last group may
  // stay in flight across the back edge when pipeline-dot-operands marked
  // the dot overlap = 1; whatever reads the registers next waits for it
  // (Emitter::waitForWgmmaReaders).
  int numAcc = lacc.numRegs();
  const DType accType = p.accType;
  const RegClass accClass = regClassOf(Type::scalar(accType));
  const std::string accMov = accType == DType::F32 ? "mov.f32 " : "mov.b32 ";
  Regs acc;
  bool chained = false;
  // (Other readers of the result, as a flattened loop's epilogue, wait for
  // the group where they read it.)
  if (!relaid && c->type.dtype == accType && c->owner == op.parent && useCount(c) == 1)
    chained = passes::yieldsBackInto(res, c);
  // A zero accumulator (attention's Q K^T) is not materialised: the first
  // K step of each 64-row tile runs with scale-d = 0, which ignores d.
  auto c0 = passes::constantOf(c);
  const bool zeroInit = !chained && c0 && (c0->isFloat ? c0->f == 0 : c0->i == 0);
  if (chained) {
    acc = spread(c, numAcc);
  } else if (zeroInit) {
    for (int r = 0; r < numAcc; ++r) acc.push_back(reg(accClass));
  } else if (relaid) {
    DType d = c->type.dtype;
    Regs cin = relayout(spread(c, lr.numRegs()), lr, lacc, d);
    for (int r = 0; r < numAcc; ++r) {
      std::string t = reg(accClass);
      ins(accMov + t + ", " + convert(cin[r], d, accType));
      acc.push_back(t);
    }
  } else if (c->type.isTile() && c->type.dtype == accType && registersReadOnce(c) &&
             (c->def ? c->def->parent == op.parent : c->owner == op.parent && c->index > 0) &&
             std::set<std::string>(get(c).begin(), get(c).end()).size() ==
                 static_cast<size_t>(numAcc)) {
    // The dot is the accumulator's last reader (attention's rescaled
    // acc * alpha, made in the same block, or carried into a loop body
    // that reads it only here): wgmma updates its registers in place. (One
    // made outside the loop around the dot is read again by the next
    // iteration.)
    acc = get(c);
  } else {
    Regs cin = spread(c, numAcc);
    for (int r = 0; r < numAcc; ++r) {
      std::string t = reg(accClass);
      ins(accMov + t + ", " + convert(cin[r], c->type.dtype, accType));
      acc.push_back(t);
    }
  }
  // K steps summed in the instruction's accumulator before an add.f32 into
  // the fp32 one: all of them unless an fp8 dot limits it.
  const int64_t kSteps = K / p.k;
  const int64_t promoteEvery = imprecisePromotionSteps(op, K, p.k);
  const bool promote = promoteEvery > 0;
  const int64_t chunk = promote ? promoteEvery : kSteps;
  // A promoted sum is read as soon as its group ends: no overlap. A in
  // registers must not change while its group runs: it overlaps only when
  // an earlier wgmma dot of the loop body waits (retiring this group)
  // before the next iteration rewrites the words, which are copied just
  // before this dot for that reason (ptxas keeps them live until the wait;
  // the backward pass of attention keeps dK, dV and dQ running this way).
  bool overlap =
      chained && !promote && op.intAttr("overlap", 0) == 1 && (!aInRegisters || wgmmaDotBefore(op));
  if (overlap && aInRegisters)
    for (std::string &w : aWords) {
      std::string fresh = reg(RegClass::B32);
      ins("mov.b32 " + fresh + ", " + w);
      w = fresh;
    }
  std::string accumulate = reg(RegClass::Pred), overwrite = accumulate;
  ins("setp.eq.u32 " + accumulate + ", 0, 0");
  if (zeroInit || promote) {
    overwrite = reg(RegClass::Pred);
    ins("setp.ne.u32 " + overwrite + ", 0, 0");
  }
  // use_acc (a flattened loop's first K step of a tile): the first product
  // scales d by it, which costs nothing; a promoted sum adds its partials
  // into an accumulator zeroed first.
  if (auto useAcc = useAccPredicate(op); useAcc && !zeroInit) {
    if (promote)
      zeroUnlessUseAcc(op, acc, accType);
    else
      overwrite = *useAcc;
  }
  int64_t perTile = p.n / 2;
  std::string shape = "m64n" + std::to_string(p.n) + "k" + std::to_string(p.k);
  // Float forms take the scales of A and B (1) and, for 16-bit operands,
  // whether each is MN-major (8-bit ones are K-major; A from registers has
  // no flag); integer forms take none of these.
  std::string immediates;
  if (accType == DType::F32) {
    immediates = ", 1, 1";
    if (eb == 2 && !aInRegisters) immediates += std::string(", ") + (da.trans ? "1" : "0");
    if (eb == 2) immediates += std::string(", ") + (db.trans ? "1" : "0");
  }
  Regs partial;
  if (promote)
    for (int r = 0; r < numAcc; ++r) partial.push_back(reg(RegClass::F32));
  for (int64_t k0 = 0; k0 < kSteps; k0 += chunk) {
    // A zero accumulator takes the first chunk's sum directly.
    const bool intoAcc = !promote || (zeroInit && k0 == 0);
    const Regs &d = intoAcc ? acc : partial;
    ins("wgmma.fence.sync.aligned");
    for (int64_t kk = k0; kk < std::min(k0 + chunk, kSteps); ++kk)
      for (int64_t mt = 0; mt < p.mTiles; ++mt) {
        std::string descA = aInRegisters ? join(aWords, mt * wordsPerTile + 4 * kk, 4)
                                         : descriptor(da, at(*la, shapeA, 1, mt * 64, kk * p.k));
        std::string descB = descriptor(db, at(*lb, shapeB, 0, 0, kk * p.k));
        bool first = kk == k0 && (promote || k0 == 0);
        ins("wgmma.mma_async.sync.aligned." + shape + "." + p.types + " " +
            join(d, static_cast<size_t>(mt * perTile), static_cast<size_t>(perTile)) + ", " +
            descA + ", " + descB + ", " + (first ? overwrite : accumulate) + immediates);
      }
    ins("wgmma.commit_group.sync.aligned");
    if (!promote) break;
    ins("wgmma.wait_group.sync.aligned 0");
    if (!intoAcc)
      for (int r = 0; r < numAcc; ++r) ins("add.f32 " + acc[r] + ", " + acc[r] + ", " + partial[r]);
  }
  if (overlap) {
    // This group may run on; the previous one (and every wgmma before it)
    // is done, so its slots can be refilled.
    wgmmaCommitted({{acc.begin(), acc.end()}, {}, true});
    waitForWgmmaGroups(1);
    set(res, acc);
    return;
  }
  if (promote) {
    wgmmaGroups_.clear();  // (a promoted sum waited already)
  } else if (!relaid && res->type.dtype == accType && op.intAttr("wait_on_use", 0) == 1) {
    // A dot of a rotated loop (rotate-dot-loops): the group runs on until
    // something reads its accumulator (Emitter::waitForWgmmaReaders), so
    // that the softmax overlaps the P V product in flight. (Left running
    // elsewhere, the backward pass of attention lost 3-4%: its waits moved
    // behind loads that then waited too.)
    WgmmaGroup g{{acc.begin(), acc.end()}, {}, false};
    if (aInRegisters) g.aWords.insert(aWords.begin(), aWords.end());
    wgmmaCommitted(std::move(g));
    set(res, acc);
    return;
  } else {
    waitForWgmmaGroups(0);
  }
  if (chained) {
    set(res, acc);
    return;
  }
  Regs out;
  for (int r = 0; r < numAcc; ++r) out.push_back(convert(acc[r], accType, res->type.dtype));
  set(res, relaid ? relayout(out, lacc, lr, res->type.dtype) : out);
}

}  // namespace tessera::ptx
