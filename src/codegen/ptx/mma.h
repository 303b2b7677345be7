// Tensor-core facts for `mma.sync` (sm_80+): which instruction a tl.dot
// uses, the fragment layouts the PTX ISA defines for it, and how `ldmatrix`
// fills those fragments from shared memory. Pure functions, so the layout
// unit tests check them against the ISA's fragment tables without a GPU.
//
// Every mma.sync shape used here is m16n8kK with 32-bit fragment registers:
// a register holds `4 / elemBytes` consecutive K elements of A or B
// (k = 16 for 16-bit types, 8 for tf32, 32 for 8-bit types), so in bytes the
// fragments of all types have one shape: A is 16 rows x 32 bytes, B is
// 8 columns x 32 bytes, and the accumulator is 16 x 8 elements.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "codegen/ptx/layout.h"
#include "ir/ir.h"

namespace tessera::ptx {

struct MmaInstr {
  int k = 16;                  // K of one instruction
  int elemBytes = 2;           // bytes of one A/B element (1, 2 or 4)
  std::string types;           // PTX type suffix: "f32.f16.f16.f32", ...
  bool packedF16Acc = false;   // fp16 accumulators: two per 32-bit register
  bool tf32x3 = false;         // three tf32 products (input_precision="tf32x3")
  DType accType = DType::F32;  // register type of the accumulators
};

// The mma.sync instruction for dot `op` (2-D, or batched 3-D) on sm
// `targetSm`, or nullopt when the dot stays on FMAs (fp32 "ieee", fp64,
// other integer widths, fp8 below sm_89, shapes that are not multiples of
// the instruction's tile).
std::optional<MmaInstr> selectMma(const Operation &op, int targetSm);

// K steps of `instrK` that an fp8 dot `op` with K = `K` sums in the tensor
// core's accumulator before adding that partial sum into its fp32 one
// (max_num_imprecise_acc = q: q / instrK steps, at least one), or 0 when it
// sums all of K there (other types, q = 0, or q > K). Hopper's fp8 products
// sum with fewer mantissa bits than fp32; Triton promotes the same way.
int64_t imprecisePromotionSteps(const Operation &op, int64_t K, int instrK);

// Warps along M and N for an M x N accumulator: the product is at most
// numWarps (leftover warps hold replicas), each warp's tile a whole number of
// 16 x 8 instruction tiles, the split growing whichever side is longer.
// A batched dot (B x M x N) first gives warps whole batch entries, up to
// min(B, numWarps) of them: a warp then multiplies larger tiles (more
// reuse of each fragment) than if every entry were split among all warps;
// the warps left over split each entry's M x N as above.
struct WarpSplit {
  int64_t b = 1, m = 1, n = 1;
};
// rowsFirst (a dot chained to another, as attention's S = Q K^T and
// O += P V; Triton's rule for mma.sync): warps go along M first, as far as
// 16-row instruction tiles allow, so that each warp holds whole rows of
// both products: the rows' statistics reduce within a warp and carry from
// one product's layout to the other's without moving.
WarpSplit mmaWarpSplit(int64_t B, int64_t M, int64_t N, int numWarps, bool rowsFirst = false);

// The accumulator layout of a dot of `shape` M x N on mma.sync: per warp a
// (M / split.m) x (N / split.n) tile of 16 x 8 instruction tiles.
// Register r of a thread is element (r & 3) of instruction tile
// (r >> 2) = ni + nTiles * mi, so the emitter walks tiles by register index.
// For a batched dot (`shape` B x M x N) that is each batch entry's layout,
// the warps' bits first taking entries (split.b), and a warp's further
// entries are the registers above one entry's: register r holds entry
// split.b * (r / perEntry) + (the warp's own entry), perEntry being the
// registers of one entry's tile.
LinearLayout mmaAccumulatorLayout(const std::vector<int64_t> &shape, int numWarps,
                                  bool rowsFirst = false);

// A 16-bit A operand (m16n8k16) held in registers in the accumulator layout
// of an M x K product whose warps split only M (FlashAttention-2's P): the
// accumulator of 16 x 8 tiles (m, 2 kk) and (m, 2 kk + 1) is exactly the
// fragment of 16-row tile m at K step kk, two elements to a register.
// Returns, for fragment registers a0..a3, the accumulator register indices
// of their low and high halves (register r = element r & 3 of tile r >> 2,
// tile = n-tile + tilesK * m-tile, tilesK = K / 8).
std::array<std::pair<int64_t, int64_t>, 4> accumulatorAsFragmentA(int64_t kk, int64_t m,
                                                                  int64_t tilesK);

// The fragment layouts of one instruction, for one warp (the ISA's tables):
// operand 0 is A (16 x k), 1 is B (k x 8), 2 the accumulator (16 x 8). The
// layout's registers are elements, so a 32-bit fragment register is
// 4 / elemBytes consecutive registers.
LinearLayout mmaFragmentLayout(int operand, int elemBytes);

// ldmatrix.x4: lane `lane` supplies the address of row (lane % 8) of matrix
// (lane / 8); each matrix is 8 rows of 16 bytes. These give the row and the
// byte column of that address inside one instruction tile of an operand
// stored in shared memory either K-contiguous (rows are M or N, `trans`
// false) or M/N-contiguous (rows are K, 16-bit types only, `trans` true).
// For B, one x4 covers two adjacent n-tiles (16 columns).
struct LdmatrixRow {
  int64_t row = 0;       // the stored row (M/N index, or K index when trans)
  int64_t colBytes = 0;  // byte offset within the stored row
};
LdmatrixRow ldmatrixRowA(int lane, bool trans);
LdmatrixRow ldmatrixRowB(int lane, bool trans);

// Hopper's wgmma (sm_90a): a warpgroup of 4 warps computes an m64nNk16
// (m64nNk32 for 8-bit types) product from two operands in shared memory
// (128-byte swizzle, either orientation for 16-bit types, K-major for fp8
// and int8), accumulating in registers asynchronously.
// Warpgroups split the M x N tile: along M first (64-row tiles), then N.
struct WgmmaPlan {
  int64_t wgM = 1, wgN = 1;    // warpgroups along M and N
  int64_t mTiles = 1;          // 64-row tiles per warpgroup
  int64_t n = 8;               // columns per warpgroup: N of one instruction
  int k = 16;                  // K of one instruction: 32 bytes of each operand
  int elemBytes = 2;           // 2 (fp16, bf16) or 1 (fp8, int8)
  std::string types;           // "f32.f16.f16", "f32.e4m3.e5m2", "satfinite.s32.s8.u8", ...
  DType accType = DType::F32;  // the accumulators: F32, or I32 for 8-bit integers
};
// The plan for an M x N x K dot of these types with `numWarps` warps, or
// nullopt when wgmma does not apply (not sm_90a; not fp16/bf16/fp8 into
// fp32 or int8/uint8 into int32; 8-bit operands not K-major; shapes that do
// not split into 64-row, 8..256-column warpgroup tiles (integer N: 8, 16,
// 24 or a multiple of 16); a contiguous extent under 32 bytes).
// With `aInRegisters`, A comes from registers (wgmmaOperandALayout) and
// `contigA` is not looked at.
std::optional<WgmmaPlan> planWgmma(int64_t M, int64_t N, int64_t K, DType a, DType b, DType r,
                                   int contigA, int contigB, int numWarps, int targetSm,
                                   bool archSpecific, bool aInRegisters = false);
// planWgmma for dot `op` whose B is a memdesc in a swizzled shared layout
// (what pipeline-dot-operands makes for such a dot) and whose A is either
// one too or a 2-D tile in registers.
std::optional<WgmmaPlan> selectWgmma(const Operation &op, int numWarps, int targetSm,
                                     bool archSpecific);
// Whether dot `op`, its operands still tiles in registers (before
// pipeline-dot-operands), could run on wgmma with operand `operand` (0 for
// A, 1 for B) in shared memory contiguous along the operand's dim
// `contig`, the other operand in shared memory either way or (A) in
// registers. A load that only such a dot reads is worth the copy engine;
// for an mma.sync dot the ring fills by cp.async whatever the load is.
bool wgmmaMayRead(const Operation &op, int operand, int contig, int numWarps, int targetSm,
                  bool archSpecific);
// The accumulator layout: per warpgroup mTiles x 64 rows by n columns; in
// each 64-row tile warp w of the group holds rows 16w..16w+15 as mma.sync's
// 16 x 8 fragments. Register r is element r % (n / 2) of the instruction's
// register list for 64-row tile r / (n / 2).
LinearLayout wgmmaAccumulatorLayout(int64_t M, int64_t N, const WgmmaPlan &p, int numWarps);
// The layout operand A (M x K) must have when wgmma reads it from registers:
// per warp 16 rows of mma.sync's A fragments (a 32-bit register holds
// 4 / elemBytes consecutive K elements), K / k instructions' worth, under
// the accumulator's split along M, replicated across the warpgroups that
// split N. Register r is element r % (4 / elemBytes) of fragment word
// r / (4 / elemBytes), and words 4 kk .. 4 kk + 3 of a 64-row tile are K
// step kk's a0..a3. For 16-bit types it is the accumulator layout of a
// previous wgmma with N = K, which is why attention's P = softmax(Q K^T)
// feeds P V without moving; 8-bit types hold twice the K per register.
LinearLayout wgmmaOperandALayout(int64_t M, int64_t K, const WgmmaPlan &p, int numWarps);

}  // namespace tessera::ptx
