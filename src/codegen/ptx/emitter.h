// The PTX emitter's shared state (internal to src/codegen/ptx).
//
// Every Tile IR value lives in PTX virtual registers: a scalar in one
// register, which every thread holds (scalars are uniform across the
// program), a tile in one register per element the thread holds under the
// tile's layout, in the layout's register order. ptxas allocates the real
// registers. Values that are copies of another (splats, expand_dims, a tile
// constant) share register names instead of moving data.
//
// Values that depend only on the thread index (lane and warp coordinates of
// a layout, shared-memory addresses) are computed once in the prologue, so
// any block may use them.
//
// Shared memory is one dynamic buffer. An op that needs scratch space (a
// layout conversion, a reduction across warps, a dot's operands) uses it from
// offset 0 and brackets its use with barriers; nothing lives in shared memory
// across ops, so the buffer is as large as the largest single use.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/layout.h"
#include "ir/ir.h"
#include "passes/axis_info.h"

namespace tessera::ptx {

struct MmaInstr;
struct WgmmaPlan;

enum class RegClass { Pred, B16, B32, B64, F32, F64 };

// How one element of type `elem` (a scalar or pointer type) is held.
// Integers of up to 32 bits live in .b32 registers, kept sign- or
// zero-extended to 32 bits; f16 and bf16 in .b16; fp8 in .b16 (low byte).
RegClass regClassOf(const Type &elem);

using Regs = std::vector<std::string>;

// In a block that holds a prefetching mma.sync dot (pipeline-dot-operands'
// form, six operands), the ops whose PTX may move into the dot's stream of
// mma.sync: from the first of the ring copies that end with the last
// async_commit before the dot through that commit. ptxas keeps cp.async in
// program order, so copies issued as a block leave the tensor cores idle
// while every warp issues them (all warps arrive together from the slot's
// barrier); spread among the products, each issues between two mma.sync,
// as CUTLASS's Ampere main loop does. Moving them later in the iteration is
// safe: they fill the slot the previous iteration finished reading before
// its barrier, and the commit still precedes the dot's wait. The range is
// the copies and the pure ops they need, read by nothing between the
// commit and the dot (the dot included); the ops between are pure too, so
// no memory access changes order. Nulls when there is none.
struct CopiesToInterleave {
  Operation *first = nullptr, *commit = nullptr, *dot = nullptr;
};
CopiesToInterleave copiesToInterleave(Block &b);  // emit_mma.cpp

class Emitter {
 public:
  Emitter(Function &fn, const PtxOptions &opts);
  PtxKernel run();
  // Contiguity, alignment and constancy of the values memory ops read
  // (vector widths; analyzeMemoryAxisInfo).
  AxisInfoMap axis;
  // Predicate: thread 0 of the program (scalar atomics), or of leadWarp().
  std::string firstThreadPred();

  // ---- registers and text (emit.cpp) ----
  std::string reg(RegClass c);
  std::string regFor(const Type &elem) { return reg(regClassOf(elem.element())); }
  void ins(const std::string &text) { body_ += "\t" + text + ";\n"; }
  void prologueIns(const std::string &text) { prologue_ += "\t" + text + ";\n"; }
  std::string newLabel() { return "$L" + std::to_string(labels_++); }
  void label(const std::string &l) { body_ += l + ":\n"; }
  const Regs &get(const Value *v) const;
  void set(const Value *v, Regs r) {
    Regs *&slot = regs_[v];
    if (slot)
      *slot = std::move(r);
    else
      slot = &regStore_.emplace_back(std::move(r));
  }
  // The registers of operand `v` seen as a tile of `n` registers: a scalar
  // is repeated.
  Regs spread(const Value *v, size_t n) const;
  // The layout of tile `v`, parsed once per distinct (layout, shape): valid
  // for the emitter's lifetime.
  const LinearLayout &layoutOf(const Value *v) const;
  int numThreads() const { return 32 * opts_.numWarps; }
  const PtxOptions &opts() const { return opts_; }
  [[noreturn]] void unsupported(const Operation &op, const std::string &what) const;

  // Registers computed once in the prologue.
  const std::string &tid() const { return tid_; }
  const std::string &lane() const { return lane_; }
  const std::string &warp() const { return warp_; }
  // The thread part of a tile coordinate along `dim` (u32).
  std::string threadCoord(const LinearLayout &l, int dim);
  // sum over dims of threadCoord * strides[dim], times `scale` (u32).
  std::string threadLinear(const LinearLayout &l, const std::vector<int64_t> &strides,
                           int64_t scale);
  // The shared address of register i of a tile in layout `l` stored into
  // buffer `dst` (its thread part computed once, here).
  std::function<std::string(int)> sharedAddresses(const Value *dst, const LinearLayout &l);
  void emitLocalStore(Operation &op);
  // This thread's byte offset in a swizzled shared tile of `shape` for the
  // elements `l` gives its register 0 (emit_async.cpp; computed once).
  std::string swizzledThreadOffset(const LinearLayout &l, const SharedLayout &sl,
                                   const std::vector<int64_t> &shape, int eb);
  // The source size of a prefix-masked cp.async run of n elements of eb
  // bytes, from its limit register of type d (emit_async.cpp).
  std::string keptBytes(const std::string &limit, DType d, int n, int eb, bool inclusive);
  // The shared-memory address (u32) of this thread's part of a tile stored
  // with `strides` (elements) and `bytes` per element; computed once.
  std::string threadSharedAddress(const LinearLayout &l, const std::vector<int64_t> &strides,
                                  int64_t bytes);
  // Two 16-bit registers from one 32-bit word (mov.b32 {lo, hi}), and the
  // reverse. The pair split from a word packs back to that word with no
  // instruction: a tile loaded from shared memory in words and stored to
  // global memory in words (the epilogue) would otherwise unpack and repack
  // every pair, which ptxas leaves as byte permutes. Registers split here
  // are fresh and never written again, so the word stays valid.
  std::pair<std::string, std::string> splitHalves(const std::string &word);
  std::string packHalves(const std::string &lo, const std::string &hi);
  // Four 8-bit values r[first..first+3] of type `d` as one 32-bit word.
  std::string packBytes(const Regs &r, size_t first, DType d);
  // A float32 tile cast to fp8 (sm_89+, round to nearest) two registers per
  // cvt, as the instruction converts: half the conversions, and the pairs
  // stay packed for packBytes. nullopt for any other op.
  std::optional<Regs> castToFp8InPairs(const Operation &op, const std::vector<Regs> &in);
  // Predicate: this thread owns its elements (it is not a replica).
  std::string ownerPred(const LinearLayout &l);
  // The shared-memory scratch base address (u32) and a request for bytes.
  const std::string &smemBase() const { return smem_; }
  void needShared(int64_t bytes);
  // The base address (u32) of the ring area: the shared memory of every ring
  // (local_alloc), placed after the scratch that ops use while a ring is
  // live; its offset is known when the kernel has been emitted.
  const std::string &ringArea();
  // A buffer of `bytes` for `v` in the ring area, `align`ed: its offset
  // from ringArea(). Freeing the highest live buffer makes its bytes (and
  // any freed below it) available again; the area is a stack with holes.
  int64_t allocateInRingArea(const Value *v, int64_t bytes, int64_t align);
  void freeInRingArea(const Value *v);
  // The module's PTX ISA version is the newest any instruction needs
  // (80 = 8.0; fp8 mma.sync needs 8.4).
  void needPtxVersion(int v) { ptxVersion_ = std::max(ptxVersion_, v); }
  // A barrier of every thread that runs this code: the whole program, or
  // in a warp-specialised kernel's consumer region its consumer warps
  // (named barrier 1; the producer warp never arrives).
  void barrier();
  // The warp whose thread 0 issues tensor copies and builds tensor maps:
  // warp 0, or the producer warp in a warp-specialised kernel's producer
  // region.
  int leadWarp() const { return side_ == Side::Producer ? opts_.numWarps : 0; }
  // Threads the kernel launches: the program's warps and its producer warp.
  int launchThreads() const { return 32 * (opts_.numWarps + producerWarps_); }

  // ---- scalar arithmetic (emit_arith.cpp) ----
  // The result register of elementwise op `op` on one element whose operand
  // registers are `in` (scalar ops of reduce regions too).
  std::string scalarOp(const Operation &op, const std::vector<std::string> &in);
  // Converts register `r` holding a `from` value to a `to` value.
  std::string convert(const std::string &r, DType from, DType to, bool rtz = false);
  std::string toF32(const std::string &r, DType from);
  std::string fromF32(const std::string &f, DType to, bool rtz = false);
  // fp8 conversions for targets without the sm_89 cvt instructions
  // (emit_fp8.cpp): an fp8 code to the f16 bits cvt.rn.f16x2.{e4m3x2,e5m2x2}
  // gives, and f32 to the fp8 code cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 gives.
  std::string fp8ToF16Soft(const std::string &r, DType from);
  std::string f32ToFp8Soft(const std::string &f, DType to, bool rtz = false);
  // C's fmod of two f32 (or f64) registers, exact (emit_arith.cpp).
  std::string exactFmod(const std::string &a, const std::string &b, bool dbl);
  std::string constant(const Type &elem, const Attr &value);
  std::string movImm(RegClass c, const std::string &imm);
  // float64 exp/exp2 and log/log2 in software (emit_math64.cpp).
  std::string exp64(const std::string &x, bool base2);
  std::string log64(const std::string &x, bool base2);
  std::string trig64(const std::string &x, bool cosine);
  std::string erf64(const std::string &x);

  // ---- ops (emit_memory.cpp, emit_tile.cpp, emit_reduce.cpp) ----
  void emitLoad(Operation &op);
  void emitStore(Operation &op);
  void emitAtomic(Operation &op);
  void emitArange(Operation &op);
  void emitBroadcast(Operation &op);
  void emitThroughShared(Operation &op);  // convert_layout and shape ops
  // A reshape, permute, split or join whose result has renamingLayout
  // (gpu_passes.h): emitted as a renaming of registers, and true; false when
  // data must move (emitThroughShared).
  bool shapeOpInRegisters(Operation &op);
  void emitReduce(Operation &op);
  void emitScan(Operation &op);
  void emitDot(Operation &op);
  void emitMmaDot(Operation &op, const MmaInstr &mi);  // emit_mma.cpp
  // Moves the body's text from `mark` (the first of copiesToInterleave's
  // ops) through its commit into deferredCopies_, for emitMmaDot to spread.
  void setAsideCopies(size_t mark);                      // emit_mma.cpp
  void emitWgmmaDot(Operation &op, const WgmmaPlan &p);  // emit_wgmma.cpp
  // A dot's use_acc predicate (flatten-loops' 4-operand form), if it has one.
  std::optional<std::string> useAccPredicate(const Operation &dot);
  // Zeroes accumulator registers `acc` (of `accType`) where use_acc is false.
  void zeroUnlessUseAcc(const Operation &dot, const Regs &acc, DType accType);
  bool wgmmaDotBefore(const Operation &op) const;
  // Shared-memory rings and cp.async (emit_async.cpp).
  void emitSharedMemoryOp(Operation &op);
  void emitPhilox(Operation &op);
  void emitMapElementwise(Operation &op);
  void emitInlineAsm(Operation &op);  // emit_asm.cpp
  void emitReadSreg(Operation &op);   // emit_asm.cpp
  void emitSort(Operation &op);       // emit_sort.cpp
  void emitHistogram(Operation &op);  // emit_sort.cpp
  void emitPrint(Operation &op);      // emit_debug.cpp
  void emitAssert(Operation &op);     // emit_debug.cpp
  // A NUL-terminated string in global memory; returns its generic address (u64).
  std::string globalString(const std::string &s);
  // Module-level declarations the debugging ops need (vprintf, __assertfail,
  // strings) and the entry's local print buffer.
  std::string debugDeclarations() const;
  std::string localDeclarations() const;
  // Writes a tile's registers to shared memory at byte offset `base` with
  // element strides `strides` (per dim); replicas write the same values.
  void storeTileShared(const Regs &r, const LinearLayout &l, DType d,
                       const std::vector<int64_t> &strides, int64_t base);
  // The same for a tile stored with stride 1 along one dim: registers that
  // run along it go out in stores of up to 16 bytes, elements packed at
  // their memory width (byteSize; int8 and fp8 as single bytes).
  void storeTileSharedPacked(const Regs &r, const LinearLayout &l, DType d,
                             const std::vector<int64_t> &strides, int64_t base);
  Regs loadTileShared(const LinearLayout &l, DType d, const std::vector<int64_t> &strides,
                      int64_t base, int64_t constOffsetElems = 0);
  // The load for a tile stored with stride 1 along one dim, for elements
  // whose register is as wide as their memory (16-bit and 32-bit types):
  // registers that run along that dim come in loads of up to 16 bytes.
  Regs loadTileSharedPacked(const LinearLayout &l, DType d, const std::vector<int64_t> &strides,
                            int64_t base);
  // A layout conversion through shared memory in vectors of up to 16 bytes
  // on both sides, rows padded by 16 bytes so the 8 rows a warp's
  // accumulator fragment covers fall in distinct banks; nullopt when the
  // element type has no packed form (then the conversion goes element by
  // element).
  std::optional<Regs> convertPacked(const Regs &src, const LinearLayout &from,
                                    const LinearLayout &to, DType d);
  // Registers `src` of a tile in layout `from` rearranged into layout `to`
  // through shared memory (packed where the type allows). A tile over
  // kMaxConvertBytes goes in halves (halveConversion) where the layouts
  // allow, so a 128x256 fp32 epilogue stages 64 KiB at a time.
  Regs convertThroughShared(const Regs &src, const LinearLayout &from, const LinearLayout &to,
                            DType d);
  // An int32 add to an arange's registers (affine_): the other value added
  // to the arange's base once, then immediates; nullopt for other ops.
  std::optional<Regs> addToAffine(const Operation &op, const std::vector<Regs> &in);
  // An 8-bit tile from a layout holding two consecutive K values per thread
  // (an accumulator's: attention's fp8 P) into wgmma's 8-bit operand-A
  // layout (four), by shuffles within each four-lane row group: per 32-bit
  // word of the result, two shfl and a prmt, no shared memory and no
  // barrier. nullopt when the two layouts are not so related.
  std::optional<Regs> convertPairsToQuads(const Value *x, const LinearLayout &to);
  // Shared-memory load/store of one element.
  // st.shared of `r`, guarded by predicate `pred` when it is not empty.
  void stShared(const std::string &addr, int64_t off, DType d, const std::string &r,
                const std::string &pred = {});
  std::string ldShared(const std::string &addr, int64_t off, DType d);

  // Emits the ops of `b` (a reduce/scan region) on scalar registers:
  // returns the yielded registers for argument registers `args`.
  std::vector<std::string> inlineRegion(const Block &b, const std::vector<std::string> &args);

  // ---- the tensor memory accelerator (emit_tma.cpp) ----
  // barrier_alloc, barrier_dealloc, tma_copy, barrier_wait,
  // tensormap_create.
  void emitTmaOp(Operation &op);
  void emitTensormapCreate(Operation &op);
  void mapRulesHold(const Operation &op, const std::string &address, const std::string &bytes);
  // The .param declarations of the tensor maps the copies use (after the
  // kernel's own parameters), then of the global scratch and padding block
  // that maps made in the kernel need, and the header lines the runtime
  // builds them from.
  std::string tensorMapParams(const std::string &entry) const;
  std::string tensorMapHeader() const;
  // The prologue that maps made in the kernel need, once the kernel has
  // been emitted: this program's slots in the global scratch, the padding
  // block, the shared staging buffer (after every other use of shared
  // memory).
  void finishKernelTensorMaps(const std::string &entry);

  // ---- control flow (emit.cpp) ----
  void emitBlock(Block &b);
  void emitOp(Operation &op);
  // Waits, before a copy that reads `reads` and writes `writes` (a loop's
  // or an if's yield), for the wgmma groups it touches: a group must have
  // ended before its accumulator is read, and before its accumulator or
  // its A registers are overwritten.
  void waitForWgmmaRegisters(const std::set<std::string> &reads,
                             const std::set<std::string> &writes);

 private:
  void emitFor(Operation &op);
  // Before a loop: the multipliers of the 32-bit divisions in it by values
  // from before it (emit_arith.cpp); in it, such a division, or nullopt.
  void prepareInvariantDivisors(Operation &loop);
  std::optional<std::string> divideByInvariant(const Operation &op,
                                               const std::vector<std::string> &in, DType rd);
  // A 32- or 64-bit division by a constant as shifts or a multiply-high.
  std::optional<std::string> divideByConstant(const Operation &op,
                                              const std::vector<std::string> &in, DType rd);
  struct InvariantDivisor;
  std::string divideByMultiplier(const Operation &op, const std::vector<std::string> &in, bool sign,
                                 const InvariantDivisor &v);
  void emitIf(Operation &op);
  Value *carriedInPlace(const Operation &ifOp, unsigned result);
  void emitWhile(Operation &op);
  static bool rotatable(const Block &before);
  void emitWarpSpecialize(Operation &op);
  void copyInto(const Regs &dst, const Regs &src, const Type &t);
  void setLoc(const SourceLoc &loc);
  // Whether anything reads `v` (use counts of fn_, counted on first call).
  bool resultUsed(const Value *v);
  int useCount(const Value *v);
  // Whether `v`'s registers have no reader but v's one use, through the ops
  // that rename registers: an op may then overwrite them in place.
  bool registersReadOnce(const Value *v);
  // Whether any dot of the kernel runs on wgmma (computed on first call).
  bool usesWgmma();
  // Emits wgmma.wait_group N before `op` when it reads an accumulator that a
  // wgmma may still be writing (emit_wgmma.cpp leaves an overlapping dot's
  // last group running, and a rotated loop's dots until they are read): N
  // the groups committed after the newest one it reads, which may keep
  // running.
  void waitForWgmmaReaders(const Operation &op);
  // wgmma.wait_group `pending`, and the groups it retires forgotten.
  void waitForWgmmaGroups(size_t pending);

  Function &fn_;
  PtxOptions opts_;
  std::string prologue_, body_;
  int counts_[6] = {};
  int labels_ = 0;
  // Which warps run the code being emitted (warp_specialize's regions).
  enum class Side { All, Consumers, Producer };
  Side side_ = Side::All;
  int producerWarps_ = 0;
  bool warpSpecialized_ = false;  // the kernel holds a warp_specialize op
  int64_t sharedBytes_ = 0;
  std::string ringArea_;
  // The live buffers of the ring area (local_alloc'd or barrier_alloc'd
  // and not yet freed), each with the offset just past it.
  std::vector<std::pair<const Value *, int64_t>> liveRings_;
  int64_t ringBytes_ = 0;          // the ring area below the highest live buffer's end
  int64_t ringPeak_ = 0;           // the ring area's size: the most ever in use
  int64_t scratchWhileRings_ = 0;  // the scratch used while a ring is live
  // 16-bit register -> (the word it was split from, 0 low / 1 high half).
  std::unordered_map<std::string, std::pair<std::string, int>> halfOf_;
  // 8-bit value register -> (the word it was taken from, its byte), or
  // (the 16-bit register of two it was taken from, its byte).
  std::unordered_map<std::string, std::pair<std::string, int>> byteOf_, byteOfPair_;
  // Registers holding `base + constant` (an arange's elements: its thread
  // coordinate plus each register's offset), so that an add of another
  // value to them can add it to the base once and the constants after.
  std::unordered_map<std::string, std::pair<std::string, int64_t>> affine_;
  int ptxVersion_ = 80;
  // Flat (one probe per lookup, no modulo), with each value's registers in
  // a deque, which never moves them: get()'s references survive later set()s.
  PtrMap<const Value *, Regs *> regs_;
  std::deque<Regs> regStore_;
  std::optional<PtrMap<const Value *, int>> uses_;
  // Each wgmma group still running, oldest first (groups retire in commit
  // order: `wgmma.wait_group N` leaves the newest N). The queue may list
  // groups that have ended on some paths (it is restored after an if), never
  // miss one that runs: a wait that retires a listed group retires every
  // older one too.
  struct WgmmaGroup {
    std::set<std::string> acc;     // the accumulator registers it writes
    std::set<std::string> aWords;  // A's registers it reads, if A is in registers
    bool carried = false;          // a loop's accumulator chain, updated in place
    uint64_t id = 0;               // commit order over the kernel
  };
  std::deque<WgmmaGroup> wgmmaGroups_;
  uint64_t wgmmaCommits_ = 0;
  // Queues a group just committed.
  void wgmmaCommitted(WgmmaGroup g) {
    g.id = ++wgmmaCommits_;
    wgmmaGroups_.push_back(std::move(g));
  }
  // Where scalarOp puts its float32 result, when set: the loop-carried
  // register an elementwise op updates in place (see emitOp).
  std::string inPlaceResult_;
  std::optional<bool> usesWgmma_;
  // The PTX of a pipelined loop's ring copies (the ops from its first
  // async_copy to the async_commit before a prefetching mma.sync dot), cut
  // out by emitBlock in pieces that each end with one cp.async (the last
  // piece holds the commit), for emitMma to spread among the dot's
  // mma.sync (copiesToInterleave says when).
  std::vector<std::string> deferredCopies_;
  std::map<std::string, std::string> cached_;  // prologue registers by key
  // 32-bit divisors a loop's divisions read from before the loop, by
  // register and signedness: the multiplier and shifts that divide by them
  // with a multiply-high (emit_arith.cpp), computed before the loop. One map
  // per enclosing loop being emitted; a loop's entries end with it.
  struct InvariantDivisor {
    std::string magic, shift1, shift2;
  };
  std::vector<std::map<std::string, InvariantDivisor>> invariantDivisors_;
  // Parsed layouts by (interned) layout name, then shape: a kernel has a few
  // distinct layouts and every op asks for its result's, so parsing the text
  // each time cost more than emitting the op. Node-based, so references last.
  mutable std::unordered_map<const std::string *, std::list<LinearLayout>> layouts_;
  std::string tid_, lane_, warp_, smem_;
  // One CUtensorMap parameter per distinct (descriptor, box, swizzle,
  // padding) a tma_copy uses, in order of first use.
  struct TensorMapUse {
    int64_t arg;  // the descriptor's base parameter
    DType dtype;
    int64_t box[2];  // innermost first, as cuTensorMapEncodeTiled takes it
    int swizzle;     // bytes: 32, 64 or 128
    bool nan;        // out-of-bounds elements read NaN (else 0)
    bool operator==(const TensorMapUse &) const = default;
  };
  std::vector<TensorMapUse> tensorMaps_;
  int tensorMapIndex(const TensorMapUse &use);
  // Tensor maps made in the kernel (tensormap_create): 128 bytes each in
  // this program's part of the global scratch (`mapScratch_`, u64), built
  // in a 128-byte shared staging buffer (`mapStage_`, u32); `padding_` (u64)
  // is the runtime's padding block that an empty tensor's map points at.
  int kernelMaps_ = 0;
  std::string mapScratch_, mapStage_, padding_;
  std::set<std::pair<int, int>> mapStrideArgs_;  // (argument, element bytes)
  std::map<uint32_t, int> files_;                // source file id -> .file index
  std::vector<std::string> strings_;             // global strings, by index
  bool usesVprintf_ = false, usesAssert_ = false;
  int64_t printBufBytes_ = 0;
  SourceLoc lastLoc_;
};

// Elements per global access of a tile through `ptr` (with `mask`) in layout
// `l`: registers consecutive along the layout's fastest dim that axis info
// proves contiguous, aligned and equally masked, at most 16 bytes.
int accessVectorWidth(Emitter &e, const Value *ptr, const Value *mask, const LinearLayout &l);
// PTX type for moving one element of `d` between memory and its register.
std::string scalarMemType(DType d);
// A PTX address operand: "[base]" or "[base+off]".
std::string addr(const std::string &base, int64_t off);
// A PTX vector operand "{r0, r1, ...}" of `n` registers of `r` from `from`
// (all of them by default).
std::string join(const Regs &r, size_t from = 0, size_t n = SIZE_MAX);
// PTX type suffix of a register class for moves: "pred", "b16", "b32", ...
const char *movType(RegClass c);
// PTX immediates with the exact bits of `f`: 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX.
std::string f32Imm(float f);
std::string f64Imm(double f);

}  // namespace tessera::ptx
