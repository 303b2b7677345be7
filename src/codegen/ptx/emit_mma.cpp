// tl.dot on tensor cores: mma.sync (sm_80+) fed by ldmatrix.
//
// Requires: a dot that selectMma accepts (2-D, or batched 3-D). Its result has
// mmaAccumulatorLayout (assign-layouts gives it that) or, where a wgmma dot
// pinned the accumulator's class first, another layout: the accumulator is
// then converted in and out through shared memory. Its operands may have
// any layout.
// Emits: the operands written from registers to shared memory, each in the
// orientation its registers are contiguous in (16-byte vector stores), rows
// padded by 16 bytes so the eight row addresses of every ldmatrix fall in
// distinct banks; then, per K step of the instruction, ldmatrix.x4 for each
// warp's A and B fragments (.trans where the operand is stored M- or
// N-contiguous) and one mma.sync per 16 x 8 accumulator tile; a batched
// dot's matrices are stored one after another and each warp multiplies its
// batch entries in turn. Shared memory
// follows the file's protocol (barrier, write, barrier, read), so the
// operands need not outlive the op. Operands already in shared memory
// (memdesc ring slots) are read in place, padded or swizzled (the
// layout's 16-byte chunks XORed with row bits, which keeps the copies that
// fill the ring aligned to whole 128-byte lines); each ldmatrix row address
// is then the lane's own swizzled offset for that K step's column, computed
// once before the loop, plus a whole number of 8-row groups, which the
// swizzle leaves alone; the prefetching form (six
// operands, from pipeline-dot-operands) carries its first K step's
// fragments from the previous iteration and, before its last K step, waits
// for the next slot (cp.async.wait_group, bar.sync) and loads that slot's
// first K step; the ring copies its loop issues just before it
// (copiesToInterleave) go out one at a time among the mma.sync of the K
// steps before that wait, where there are two such steps or more. An fp8
// dot with max_num_imprecise_acc = q sums every q of K into a zeroed
// partial accumulator added into the fp32 one (add.f32).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <set>

#include "codegen/ptx/emitter.h"
#include "codegen/ptx/mma.h"
#include "passes/pass_utils.h"
#include "support/diagnostics.h"

namespace tessera::ptx {
namespace {

// The dim a layout's registers (then lanes) run along fastest.
int fastDim(const LinearLayout &l) {
  if (!l.reg.empty()) return l.reg[0].dim;
  for (const Basis &b : l.lane)
    if (!b.isZero()) return b.dim;
  return static_cast<int>(l.shape.size()) - 1;
}

// One operand as stored in shared memory: rows `pitch` bytes apart, the
// tile's contiguous dim along each row; a batched operand's matrices one
// after the other, `matrixBytes` apart. A swizzled ring slot (`swizzle` =
// S, the pitch) cuts the rows into S-byte columns of `rows` rows each
// (SharedLayout).
struct Staged {
  bool trans = false;  // rows are K (stored M- or N-contiguous)
  int64_t base = 0, pitch = 0, bytes = 0, matrixBytes = 0;
  int64_t swizzle = 0, rows = 0;
  std::vector<int64_t> strides;  // per tile dim, in elements
};

// `kDim` and the other of the last two dims are the matrix's; a rank-3
// shape's dim 0 is the batch.
Staged stage(const std::vector<int64_t> &shape, int kDim, bool trans, int eb, int64_t base) {
  Staged s;
  s.trans = trans;
  s.base = base;
  const int rank = static_cast<int>(shape.size()), md = rank - 2;
  const int other = kDim == md ? md + 1 : md;
  const int contig = trans ? other : kDim, rows = trans ? kDim : other;
  s.pitch = shape[contig] * eb + 16;
  s.matrixBytes = shape[rows] * s.pitch;
  s.bytes = (md ? shape[0] : 1) * s.matrixBytes;
  s.strides.assign(rank, 0);
  s.strides[contig] = 1;
  s.strides[rows] = s.pitch / eb;
  if (md) s.strides[0] = s.matrixBytes / eb;
  return s;
}

}  // namespace

void Emitter::storeTileSharedPacked(const Regs &r, const LinearLayout &l, DType d,
                                    const std::vector<int64_t> &strides, int64_t base) {
  int eb = byteSize(d);
  int cd = static_cast<int>(std::find(strides.begin(), strides.end(), 1) - strides.begin());
  // Elements per store: the registers that run consecutively along the
  // contiguous dim, at most 16 bytes. Every other basis along that dim is a
  // larger power of two (bases never share bits), so each thread's start is
  // aligned to the store's width.
  int64_t chunk = std::min<int64_t>(l.contiguousRegs(cd), 16 / eb);
  std::string a = threadSharedAddress(l, strides, eb);
  auto offsetOf = [&](int i) {
    auto c = l.regCoord(i);
    int64_t o = 0;
    for (size_t k = 0; k < c.size(); ++k) o += c[k] * strides[k];
    return base + o * eb;
  };
  for (int i = 0; i < l.numRegs(); i += static_cast<int>(chunk)) {
    int64_t off = offsetOf(i);
    if (chunk * eb < 4) {
      for (int j = 0; j < chunk; ++j)
        ins(std::string("st.shared.") + (eb == 1 ? "b8 " : "b16 ") + addr(a, off + j * eb) + ", " +
            r[i + j]);
      continue;
    }
    Regs words;
    int per = 4 / eb;
    for (int w = 0; w < chunk / per; ++w) {
      int f = i + w * per;
      std::string word;
      if (eb == 4) {
        word = reg(RegClass::B32);
        ins("mov.b32 " + word + ", " + r[f]);
      } else if (eb == 2) {
        word = packHalves(r[f], r[f + 1]);
      } else {
        word = packBytes(r, static_cast<size_t>(f), d);
      }
      words.push_back(word);
    }
    const char *v = words.size() == 4   ? "st.shared.v4.b32 "
                    : words.size() == 2 ? "st.shared.v2.b32 "
                                        : "st.shared.b32 ";
    ins(v + addr(a, off) + ", " + (words.size() == 1 ? words[0] : join(words)));
  }
}

void Emitter::emitMmaDot(Operation &op, const MmaInstr &mi) {
  const Value *a = op.operand(0), *b = op.operand(1), *c = op.operand(2);
  const Value *res = op.result();
  // A batched dot's dims are (batch, M, K) and (batch, K, N): md is M's.
  const int md = a->type.rank() - 2;
  const int64_t batch = md ? a->type.shape[0] : 1;
  int64_t M = a->type.shape[md], K = a->type.shape[md + 1], N = b->type.shape[md + 1];
  int eb = mi.elemBytes;
  const LinearLayout &lr = layoutOf(res);
  // Warps along M first where assign-layouts chose that (a chained dot).
  const bool rowsFirst =
      lr == mmaAccumulatorLayout(res->type.shape, opts_.numWarps, /*rowsFirst=*/true) &&
      !(lr == mmaAccumulatorLayout(res->type.shape, opts_.numWarps));
  const LinearLayout lacc = mmaAccumulatorLayout(res->type.shape, opts_.numWarps, rowsFirst);
  // The result's layout class may have been pinned first by a wgmma dot (a
  // wgmma product and this one summed into one accumulator): the
  // accumulator then goes into and out of mma.sync's layout through shared
  // memory, before the operands are staged there and after they are read.
  // A constant accumulator (a splat: every register holds the value) needs
  // no moving.
  const bool relaid = !(lr == lacc);
  Regs cin = !relaid || !c->type.isTile() ? spread(c, lacc.numRegs())
             : passes::constantOf(c)      ? Regs(lacc.numRegs(), get(c).at(0))
                                          : convertThroughShared(get(c), lr, lacc, c->type.dtype);
  WarpSplit split = mmaWarpSplit(batch, M, N, opts_.numWarps, rowsFirst);
  int64_t Mw = M / split.m, Nw = N / split.n;
  int64_t tilesM = Mw / 16, tilesN = Nw / 8, kSteps = K / mi.k;
  // Batch entries per warp, each tilesM x tilesN instruction tiles.
  const int64_t entries = batch / split.b, tilesPerEntry = tilesM * tilesN;

  // Each operand in shared memory: a memdesc is there already (its layout
  // says how); a tile is written there from registers, in the order its
  // registers run (16-bit types; ldmatrix.trans reads those) or
  // K-contiguous (other widths).
  auto place = [&](const Value *v, int kDim, int64_t scratchBase) {
    if (v->type.isMemDesc()) {
      auto sl = SharedLayout::parse(v->type.layout.str());
      if (!sl || md) internalError("emit-ptx", "dot operand without a shared layout");
      Staged s;
      s.trans = sl->contig != kDim;
      s.pitch = sl->pitch;
      s.swizzle = sl->swizzle;
      s.rows = sl->rows(v->type.shape);
      if (s.swizzle && s.rows % 8 != 0)
        internalError("emit-ptx", "a swizzled dot operand with rows not in groups of 8");
      return s;
    }
    bool trans = eb == 2 && fastDim(layoutOf(v)) != kDim;
    return stage(v->type.shape, kDim, trans, eb, scratchBase);
  };
  // A 16-bit A computed in registers in the accumulator layout of a product
  // whose warps split only M, over this dot's rows (attention's P after
  // S = Q K^T, both laid out rows first): its registers are the A fragments
  // already (accumulatorAsFragmentA), so it skips shared memory.
  const bool aInRegisters = [&] {
    if (md || eb != 2 || mi.k != 16 || mi.tf32x3 || !a->type.isTile() || op.operands.size() == 6)
      return false;
    WarpSplit as = mmaWarpSplit(1, M, K, opts_.numWarps, /*rowsFirst=*/true);
    return as.n == 1 && as.m == split.m && split.n == 1 && split.b == 1 &&
           layoutOf(a) == mmaAccumulatorLayout({M, K}, opts_.numWarps, /*rowsFirst=*/true);
  }();
  const bool stageA = a->type.isTile() && !aInRegisters;
  Staged sa = aInRegisters ? Staged{} : place(a, md + 1, 0);
  Staged sb = place(b, md, stageA ? (sa.bytes + 15) / 16 * 16 : 0);
  if (stageA || b->type.isTile()) {
    needShared(std::max(sa.base + sa.bytes, sb.base + sb.bytes));
    barrier();
    if (stageA) storeTileSharedPacked(get(a), layoutOf(a), a->type.dtype, sa.strides, sa.base);
    if (b->type.isTile())
      storeTileSharedPacked(get(b), layoutOf(b), b->type.dtype, sb.strides, sb.base);
    barrier();
  }

  // This thread's ldmatrix row offset in each operand, computed once: the
  // warp's tile origin plus the lane's row of the instruction tile; then
  // the operand's address (scratch, or the memdesc's buffer) is added.
  LinearLayout warpOnly = lacc;
  for (Basis &bs : warpOnly.lane) bs = {};
  std::string warpM = threadCoord(warpOnly, md), warpN = threadCoord(warpOnly, md + 1);
  // The warp's own batch entry, when warps take entries.
  const std::string warpB = split.b > 1 ? threadCoord(warpOnly, 0) : "";
  // `colBytes` (swizzled operands only; 0 otherwise): the K step's or
  // tile's offset along the row, which the swizzle does not simply add.
  auto laneOffset = [&](const Staged &s, LdmatrixRow (*rowOf)(int, bool), const std::string &wo,
                        int64_t colBytes) {
    LdmatrixRow r0 = rowOf(0, s.trans), r8 = rowOf(8, s.trans), r16 = rowOf(16, s.trans);
    std::string key = "ldm|" + std::to_string(s.pitch) + "|" + std::to_string(s.trans) + "|" +
                      (rowOf == ldmatrixRowA ? "A" : "B") + "|" + wo + "|" +
                      std::to_string(s.swizzle) + "|" + std::to_string(s.rows) + "|" +
                      std::to_string(colBytes);
    if (auto it = cached_.find(key); it != cached_.end()) return it->second;
    // row = lane % 8 + bit3 * (r8.row) + bit4 * (r16.row); likewise the column.
    std::string b3 = reg(RegClass::B32), b4 = reg(RegClass::B32), row = reg(RegClass::B32),
                col = reg(RegClass::B32), t = reg(RegClass::B32);
    prologueIns("bfe.u32 " + b3 + ", " + lane_ + ", 3, 1");
    prologueIns("bfe.u32 " + b4 + ", " + lane_ + ", 4, 1");
    prologueIns("and.b32 " + row + ", " + lane_ + ", 7");
    prologueIns("mad.lo.s32 " + row + ", " + b3 + ", " + std::to_string(r8.row - r0.row) + ", " +
                row);
    prologueIns("mad.lo.s32 " + row + ", " + b4 + ", " + std::to_string(r16.row - r0.row) + ", " +
                row);
    prologueIns("mul.lo.s32 " + col + ", " + b3 + ", " + std::to_string(r8.colBytes));
    prologueIns("mad.lo.s32 " + col + ", " + b4 + ", " + std::to_string(r16.colBytes) + ", " + col);
    // The warp's origin: along the rows when they are M/N, else along the row.
    if (s.trans)
      prologueIns("mad.lo.s32 " + col + ", " + wo + ", " + std::to_string(eb) + ", " + col);
    else
      prologueIns("add.s32 " + row + ", " + row + ", " + wo);
    if (!s.swizzle) {
      prologueIns("mad.lo.s32 " + t + ", " + row + ", " + std::to_string(s.pitch) + ", " + col);
      return cached_[key] = t;
    }
    // SharedLayout::offset: the linear offset (column block, row, byte in
    // the row), then the 16-byte chunk index XORed with bits 7 and up.
    const int64_t S = s.swizzle;
    std::string blk = reg(RegClass::B32), x = reg(RegClass::B32);
    if (colBytes) prologueIns("add.s32 " + col + ", " + col + ", " + std::to_string(colBytes));
    prologueIns("shr.u32 " + blk + ", " + col + ", " +
                std::to_string(std::countr_zero(uint64_t(S))));
    prologueIns("and.b32 " + col + ", " + col + ", " + std::to_string(S - 1));
    prologueIns("mad.lo.s32 " + t + ", " + row + ", " + std::to_string(S) + ", " + col);
    prologueIns("mad.lo.s32 " + t + ", " + blk + ", " + std::to_string(s.rows * S) + ", " + t);
    prologueIns("shr.u32 " + x + ", " + t + ", 3");
    prologueIns("and.b32 " + x + ", " + x + ", " + std::to_string(S - 16));
    prologueIns("xor.b32 " + t + ", " + t + ", " + x);
    return cached_[key] = t;
  };
  // Per memdesc (a ring slot's address changes every iteration) and
  // column: the register ldmatrix addresses add their offsets to.
  std::map<std::pair<const Value *, int64_t>, std::string> slotAddresses;
  auto laneAddress = [&](const Value *v, const Staged &s, LdmatrixRow (*rowOf)(int, bool),
                         const std::string &wo, int64_t colBytes = 0) {
    std::string off = laneOffset(s, rowOf, wo, colBytes);
    if (v->type.isMemDesc()) {
      std::string &out = slotAddresses[{v, colBytes}];
      if (out.empty()) {
        out = reg(RegClass::B32);
        ins("add.u32 " + out + ", " + off + ", " + get(v)[0]);
      }
      return out;
    }
    std::string out = reg(RegClass::B32);
    std::string key = "ldma|" + off + "|" + std::to_string(s.base) + "|" + warpB + "|" +
                      std::to_string(s.matrixBytes);
    if (auto it = cached_.find(key); it != cached_.end()) return it->second;
    std::string t = reg(RegClass::B32);
    prologueIns("add.s32 " + t + ", " + off + ", " + std::to_string(s.base));
    if (!warpB.empty())
      prologueIns("mad.lo.s32 " + t + ", " + warpB + ", " + std::to_string(s.matrixBytes) + ", " +
                  t);
    prologueIns("add.s32 " + out + ", " + t + ", " + smemBase());
    return cached_[key] = out;
  };
  // Where fragment ldmatrix reads start: an operand's address register
  // for the column, and the offset added in the instruction. Padded rows
  // take the whole offset in the instruction; swizzled ones the rows only
  // (whole 8-row groups: K steps of 16 rows and tiles of 8 or 16).
  struct Where {
    std::string reg;
    int64_t offset;
  };
  auto where = [&](const Value *v, const Staged &s, bool isA, int64_t row, int64_t colBytes,
                   int64_t extra) {
    LdmatrixRow (*rowOf)(int, bool) = isA ? ldmatrixRowA : ldmatrixRowB;
    const std::string &wo = isA ? warpM : warpN;
    if (!s.swizzle) return Where{laneAddress(v, s, rowOf, wo), extra + row * s.pitch + colBytes};
    if (row % 8 != 0) internalError("emit-ptx", "a swizzled ldmatrix step off an 8-row group");
    return Where{laneAddress(v, s, rowOf, wo, colBytes), extra + row * s.pitch};
  };
  auto ldmatrixInto = [&](const Regs &r, bool trans, const Where &w) {
    ins("ldmatrix.sync.aligned.m8n8.x" + std::to_string(r.size()) + (trans ? ".trans" : "") +
        ".shared.b16 " + join(r) + ", " + addr(w.reg, w.offset));
  };
  auto ldmatrix = [&](int n, bool trans, const Where &w) {
    Regs r;
    for (int i = 0; i < n; ++i) r.push_back(reg(RegClass::B32));
    ldmatrixInto(r, trans, w);
    return r;
  };
  // Operand fragments of K step kk: A's per 16-row tile, B's per 8-column
  // tile (ldmatrix.x4 takes two of those at once). A warp's e-th batch
  // entry (e = 0 unless batched) lies split.b * e matrices past its first.
  auto offA = [&](const Value *v, int64_t kk, int64_t m, int64_t e = 0) {
    int64_t extra = e * split.b * sa.matrixBytes;
    return sa.trans ? where(v, sa, true, kk * mi.k, m * 16 * eb, extra)
                    : where(v, sa, true, m * 16, kk * mi.k * eb, extra);
  };
  auto offB = [&](const Value *v, int64_t kk, int64_t n, int64_t e = 0) {
    int64_t extra = e * split.b * sb.matrixBytes;
    return sb.trans ? where(v, sb, false, kk * mi.k, n * 8 * eb, extra)
                    : where(v, sb, false, n * 8, kk * mi.k * eb, extra);
  };
  auto fragmentFromRegisters = [&](int64_t kk, int64_t m) {
    const Regs &v = get(a);
    Regs r;
    for (auto [lo, hi] : accumulatorAsFragmentA(kk, m, K / 8)) {
      r.push_back(reg(RegClass::B32));
      ins("mov.b32 " + r.back() + ", {" + v.at(lo) + ", " + v.at(hi) + "}");
    }
    return r;
  };
  auto loadStep = [&](int64_t kk, std::vector<Regs> &fa, std::vector<Regs> &fb, int64_t e) {
    for (int64_t m = 0; m < tilesM; ++m)
      fa[m] =
          aInRegisters ? fragmentFromRegisters(kk, m) : ldmatrix(4, sa.trans, offA(a, kk, m, e));
    for (int64_t n = 0; n < tilesN; n += 2) {
      bool pair = n + 1 < tilesN;
      Regs r = ldmatrix(pair ? 4 : 2, sb.trans, offB(b, kk, n, e));
      fb[n] = {r[0], r[1]};
      if (pair) fb[n + 1] = {r[2], r[3]};
    }
  };
  // The prefetching form (pipeline-dot-operands): K step 0's fragments live
  // in registers the loop carries. The first iteration loads its own (under
  // `first`); every iteration, before its last K step, waits for the copies
  // of the next slot, crosses a barrier and loads that slot's K step 0 into
  // the same registers, which K step 0 has read by then. (The pass asks
  // for it only with two K steps or more: with one, the wait would have to
  // come first, and nothing would order this iteration's ldmatrix before
  // the copies the next iteration starts with.)
  if (op.operands.size() == 6 && (kSteps < 2 || md))
    internalError("emit-ptx",
                  "a prefetching dot with one K step: nothing would keep the "
                  "next iteration's copies off the slot it reads");
  const bool prefetch = op.operands.size() == 6;
  std::vector<Regs> carriedA(tilesM), carriedB(tilesN);
  // K step 0 of the slots `va` and `vb` (this iteration's or the next's).
  auto loadCarried = [&](const Value *va, const Value *vb) {
    for (int64_t m = 0; m < tilesM; ++m) ldmatrixInto(carriedA[m], sa.trans, offA(va, 0, m));
    for (int64_t n = 0; n < tilesN; n += 2) {
      bool pair = n + 1 < tilesN;
      Regs r = carriedB[n];
      if (pair) r.insert(r.end(), carriedB[n + 1].begin(), carriedB[n + 1].end());
      ldmatrixInto(r, sb.trans, offB(vb, 0, n));
    }
  };
  // The ring's copies that emitBlock set aside (deferredCopies_): one
  // piece after every few mma.sync of the K steps before the wait, spread
  // evenly, the rest (the commit) before the wait.
  std::vector<std::string> copies = std::move(deferredCopies_);
  deferredCopies_.clear();
  size_t copiesOut = 0, mmasIssued = 0, mmaSlots = 0;
  auto emitCopiesUpTo = [&](size_t n) {
    for (; copiesOut < std::min(n, copies.size()); ++copiesOut) body_ += copies[copiesOut];
  };
  // Interleaving needs one batch entry and one mma.sync per tile and K
  // step, and two K steps before the wait or more: with one (BK 32 in
  // fp16) it measured no faster and, 128x128x32 tiles on 4 warps, 5% slower
  // (H200, TESSERA_TARGET=sm_80; BK 64 gained 4-8%). Otherwise the copies
  // go first, where they stood.
  if (entries == 1 && kSteps >= 3 && !mi.tf32x3 && imprecisePromotionSteps(op, K, mi.k) == 0)
    mmaSlots = static_cast<size_t>((kSteps - 1) * tilesM * tilesN);
  else
    emitCopiesUpTo(copies.size());
  auto waitForNextSlot = [&] {
    emitCopiesUpTo(copies.size());
    ins("cp.async.wait_group " + std::to_string(op.intAttr("prefetch_pending")));
    barrier();
  };
  if (prefetch) {
    for (Regs &r : carriedA)
      for (int i = 0; i < 4; ++i) r.push_back(reg(RegClass::B32));
    for (Regs &r : carriedB)
      for (int i = 0; i < 2; ++i) r.push_back(reg(RegClass::B32));
    // Every address the K steps read this slot at is made here, ahead of
    // the first iteration's own loads, which sit in a branch that later
    // iterations skip; so are the next slot's, which would otherwise sit
    // between the wait and its first ldmatrix.
    for (int64_t kk = 0; kk < kSteps; ++kk) {
      for (int64_t m = 0; m < tilesM; ++m) offA(a, kk, m);
      for (int64_t n = 0; n < tilesN; n += 2) offB(b, kk, n);
    }
    for (int64_t m = 0; m < tilesM; ++m) offA(op.operand(3), 0, m);
    for (int64_t n = 0; n < tilesN; n += 2) offB(op.operand(4), 0, n);
    // The first iteration's own loads, branched around (a uniform branch)
    // rather than predicated: later iterations then issue nothing here.
    std::string loaded = newLabel();
    ins("@!" + get(op.operand(5))[0] + " bra.uni " + loaded);
    loadCarried(a, b);
    label(loaded);
  }

  // Accumulators: 4 per 16 x 8 tile, register index = element + 4 * tile.
  int numAcc = lacc.numRegs();
  Regs acc;
  RegClass accClass = regClassOf(Type::scalar(mi.accType));
  for (int r = 0; r < numAcc; ++r) {
    std::string v = convert(cin[r], c->type.dtype, mi.accType);
    std::string t = reg(accClass);
    ins(std::string("mov.") + movType(accClass) + " " + t + ", " + v);
    acc.push_back(t);
  }
  zeroUnlessUseAcc(op, acc, mi.accType);
  // fp16 accumulators travel two to a 32-bit register.
  Regs packed;
  if (mi.packedF16Acc)
    for (int r = 0; r < numAcc; r += 2) {
      std::string w = reg(RegClass::B32);
      ins("mov.b32 " + w + ", {" + acc[r] + ", " + acc[r + 1] + "}");
      packed.push_back(w);
    }

  // tf32x3: each fragment register split into its tf32 head and the tf32
  // head of the remainder, as the interpreter does.
  auto splitTf32 = [&](const Regs &x, Regs &head, Regs &tail) {
    for (const std::string &v : x) {
      std::string h = reg(RegClass::B32), fx = reg(RegClass::F32), fh = reg(RegClass::F32),
                  fl = reg(RegClass::F32), t = reg(RegClass::B32);
      ins("and.b32 " + h + ", " + v + ", -8192");
      ins("mov.b32 " + fx + ", " + v);
      ins("mov.b32 " + fh + ", " + h);
      ins("sub.f32 " + fl + ", " + fx + ", " + fh);
      ins("mov.b32 " + t + ", " + fl);
      ins("and.b32 " + t + ", " + t + ", -8192");
      head.push_back(h);
      tail.push_back(t);
    }
  };
  std::string shape = "m16n8k" + std::to_string(mi.k);
  if (mi.types.find("e4m3") != std::string::npos || mi.types.find("e5m2") != std::string::npos)
    needPtxVersion(84);
  // fp8 with max_num_imprecise_acc: every `chunk` K steps sum into a zeroed
  // partial accumulator that is then added into the fp32 one.
  const int64_t promoteEvery = imprecisePromotionSteps(op, K, mi.k);
  const bool promote = promoteEvery > 0;
  const int64_t chunk = promote ? promoteEvery : kSteps;
  Regs partial;
  if (promote)
    for (int r = 0; r < numAcc; ++r) partial.push_back(reg(RegClass::F32));
  auto mma = [&](int64_t tile, const Regs &fa, const Regs &fb) {
    Regs d;
    if (mi.packedF16Acc)
      d = {packed[2 * tile], packed[2 * tile + 1]};
    else if (promote)
      d = Regs(partial.begin() + 4 * tile, partial.begin() + 4 * tile + 4);
    else
      d = Regs(acc.begin() + 4 * tile, acc.begin() + 4 * tile + 4);
    ins("mma.sync.aligned." + shape + ".row.col." + mi.types + " " + join(d) + ", " + join(fa) +
        ", " + join(fb) + ", " + join(d));
    // Piece j goes out after mma number ceil((j + 1) * slots / pieces).
    ++mmasIssued;
    if (copies.size() > 1 && mmasIssued <= mmaSlots)
      emitCopiesUpTo(mmasIssued * copies.size() / mmaSlots);
  };
  // A warp's batch entries one after the other; each entry's accumulators
  // are registers [first, first + 4 * tilesPerEntry).
  for (int64_t e = 0; e < entries; ++e) {
    const int64_t t0 = e * tilesPerEntry;
    const int first = static_cast<int>(4 * t0), last = static_cast<int>(4 * (t0 + tilesPerEntry));
    for (int64_t kk = 0; kk < kSteps; ++kk) {
      std::vector<Regs> fa(tilesM), fb(tilesN);
      if (prefetch && kk == 0) {
        // Copies: the carried registers are overwritten before the next
        // iteration, after this step's mma.syncs have read them.
        fa = carriedA;
        fb = carriedB;
      } else {
        loadStep(kk, fa, fb, e);
      }
      if (prefetch && kk == kSteps - 1) {
        waitForNextSlot();
        loadCarried(op.operand(3), op.operand(4));
      }
      if (promote && kk % chunk == 0)
        for (int r = first; r < last; ++r) ins("mov.f32 " + partial[r] + ", 0f00000000");
      if (!mi.tf32x3) {
        for (int64_t m = 0; m < tilesM; ++m)
          for (int64_t n = 0; n < tilesN; ++n) mma(t0 + n + tilesN * m, fa[m], fb[n]);
        if (promote && ((kk + 1) % chunk == 0 || kk + 1 == kSteps))
          for (int r = first; r < last; ++r)
            ins("add.f32 " + acc[r] + ", " + acc[r] + ", " + partial[r]);
        continue;
      }
      std::vector<Regs> ah(tilesM), al(tilesM), bh(tilesN), bl(tilesN);
      for (int64_t m = 0; m < tilesM; ++m) splitTf32(fa[m], ah[m], al[m]);
      for (int64_t n = 0; n < tilesN; ++n) splitTf32(fb[n], bh[n], bl[n]);
      for (int64_t m = 0; m < tilesM; ++m)
        for (int64_t n = 0; n < tilesN; ++n) {
          int64_t tile = t0 + n + tilesN * m;
          mma(tile, al[m], bh[n]);
          mma(tile, ah[m], bl[n]);
          mma(tile, ah[m], bh[n]);
        }
    }
  }
  if (mi.packedF16Acc)
    for (int r = 0; r < numAcc; r += 2)
      ins("mov.b32 {" + acc[r] + ", " + acc[r + 1] + "}, " + packed[r / 2]);
  Regs out;
  for (int r = 0; r < numAcc; ++r) out.push_back(convert(acc[r], mi.accType, res->type.dtype));
  set(res, relaid ? convertThroughShared(out, lacc, lr, res->type.dtype) : out);
}

// Why and when: emitter.h.
CopiesToInterleave copiesToInterleave(Block &b) {
  Operation *dot = nullptr, *commit = nullptr;
  for (auto &op : b.ops) {
    if (op->code == OpCode::AsyncCommit) commit = op.get();
    if (op->code == OpCode::Dot && op->operands.size() == 6) {
      dot = op.get();
      break;
    }
  }
  if (!dot || !commit) return {};
  auto pure = [](const Operation &op) { return isPureOp(op) && op.regions.empty(); };
  std::set<const Value *> readLater;
  for (auto it = std::next(commit->self);; ++it) {
    Operation &op = **it;
    if (&op != dot && !pure(op)) return {};
    op.walk([&](Operation *o) { readLater.insert(o->operands.begin(), o->operands.end()); });
    if (&op == dot) break;
  }
  Operation *first = nullptr;
  for (auto it = commit->self; it != b.ops.begin();) {
    Operation &op = **--it;
    bool movable = op.code == OpCode::AsyncCopy || pure(op);
    for (auto &r : op.results) movable = movable && !readLater.count(r.get());
    if (!movable) break;
    if (op.code == OpCode::AsyncCopy) first = &op;
  }
  if (!first) return {};
  return {first, commit, dot};
}

void Emitter::setAsideCopies(size_t mark) {
  // Pieces ending at each cp.async; the commit ends the last one.
  std::string text = body_.substr(mark), piece;
  body_.resize(mark);
  for (size_t at = 0; at < text.size();) {
    size_t eol = text.find('\n', at);
    std::string line = text.substr(at, eol - at + 1);
    at = eol + 1;
    piece += line;
    if (line.find("cp.async.c") != std::string::npos && line.find("commit") == std::string::npos)
      deferredCopies_.push_back(std::move(piece)), piece.clear();
  }
  deferredCopies_.push_back(std::move(piece));
}

}  // namespace tessera::ptx
