// Distributed layouts as linear layouts: which thread holds which element.
//
// A layout of a tile of shape S (every dim a power of two) maps the bits of
// (register, lane, warp) to tile coordinates: each input bit has a basis
// vector (one coordinate per dim), and the element held by register r of lane
// l in warp w is the XOR of the bases of the set bits of r, l and w. Tessera's
// layouts are built from blocked layouts, so every basis is either zero or a
// single power of two in one dim, and distinct non-zero bases never share a
// bit: XOR is then plain addition, and a coordinate is a sum of basis parts.
//
//   register bases  elements a thread holds (no zero bases: no duplicate registers)
//   lane bases      exactly 5 (32 lanes); a zero basis means lanes that differ in
//                   that bit hold the same elements (replication)
//   warp bases      log2(num_warps); zero bases replicate likewise
//
// The textual form, used as the tile type's layout attribute in the IR:
//   linear<reg=[0:1,0:2], lane=[0:4,0:8,1:1,1:2,-], warp=[1:4,-]>
// where `d:v` is value v in dim d and `-` a zero basis.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::ptx {

// Strides of a row-major tile of `shape` (in elements).
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape);

// One basis vector: `value` in dim `dim`, or zero when dim < 0.
struct Basis {
  int dim = -1;
  int64_t value = 0;
  bool isZero() const { return dim < 0; }
  bool operator==(const Basis &) const = default;
};

struct LinearLayout {
  std::vector<int64_t> shape;
  std::vector<Basis> reg, lane, warp;

  int numRegs() const { return 1 << reg.size(); }
  int numWarps() const { return 1 << warp.size(); }
  // Coordinates of register r in the thread (lane, warp).
  std::vector<int64_t> coord(int r, int lane, int warp) const;
  // Coordinates contributed by register r alone (lane = warp = 0).
  std::vector<int64_t> regCoord(int r) const { return coord(r, 0, 0); }
  // Lanes / warps that hold copies of another thread's elements: the mask of
  // input bits whose basis is zero. A thread owns its elements when
  // (lane & replicatedLaneMask()) == 0 and likewise for warps.
  unsigned replicatedLaneMask() const;
  unsigned replicatedWarpMask() const;

  // A blocked layout: sizePerThread elements contiguous in each thread,
  // threadsPerWarp lanes and warpsPerCTA warps per dim, dims ordered fastest
  // first by `order`. Parts that exceed the shape become replication; shape
  // left over becomes more registers (repetitions of the whole CTA tile).
  static LinearLayout blocked(const std::vector<int64_t> &shape,
                              const std::vector<int64_t> &sizePerThread,
                              const std::vector<int64_t> &threadsPerWarp,
                              const std::vector<int64_t> &warpsPerCTA,
                              const std::vector<int> &order);
  // Triton's default for a shape: `vec` contiguous elements of the fastest
  // dim (order[0]) per thread, lanes then warps filled fastest dim first.
  static LinearLayout coalesced(const std::vector<int64_t> &shape, int numWarps, int64_t vec,
                                const std::vector<int> &order);
  static LinearLayout defaultFor(const std::vector<int64_t> &shape, int numWarps);

  // The layout of the tile with dim `axis` removed (a reduction's result, or
  // the operand of expand_dims): bases along it become zero; zero register
  // bases are dropped.
  LinearLayout sliced(int axis) const;
  // A size-1 dim inserted at `axis` (expand_dims).
  LinearLayout expanded(int axis) const;
  // Dims of `dims` collapsed to size 1 (the operand of a broadcast).
  LinearLayout collapsed(const std::vector<int> &dims) const;
  // The same registers, lanes and warps seen as a tile of `newShape` (the
  // same number of elements, row-major order kept, as `reshape` means): each
  // basis moves to the dim and value of its flat row-major offset. A reshape
  // whose result has this layout moves no data, so the emitter aliases its
  // registers; register r of a thread holds the same element in both.
  LinearLayout reshaped(const std::vector<int64_t> &newShape) const;
  // The same registers, lanes and warps seen with the dims permuted (dim i
  // of the result is dim order[i], as `permute` means): a permute whose
  // result has this layout moves no data either.
  LinearLayout permuted(const std::vector<int64_t> &order) const;
  // `split`'s halves without moving data: when a register bit holds the last
  // dim (of size 2), each half is the registers with that bit clear (first
  // half) or set (second), in the layout with the last dim dropped. The
  // register bit's index and that layout; nullopt when lanes or warps hold
  // the last dim.
  std::optional<std::pair<int, LinearLayout>> splitLast() const;
  // `join`'s result without moving data: a new last dim of size 2 held by
  // register bit 0, so register r holds element r / 2 of operand r % 2.
  LinearLayout joinedLast() const;

  // Register index of the element with these coordinates in this thread's
  // registers, ignoring the lane and warp parts; -1 if no register holds it.
  int regIndexOf(const std::vector<int64_t> &regPart) const;
  // Elements moved together by one thread along `dim`: the number of
  // registers 0, 1, 2, ... that are consecutive along dim starting at 0.
  int64_t contiguousRegs(int dim) const;
  // 32-byte sectors a global access of the whole tile in this layout
  // touches, summed over its instructions, when each thread moves up to
  // `vec` consecutive elements of `elemBytes` bytes along `dim` at once
  // (limited by contiguousRegs(dim)): what a store or load costs the memory
  // system. Elements apart in another dim count as different sectors (rows
  // are at least a sector apart); replicated lanes and warps add nothing.
  int64_t sectorsTouched(int dim, int64_t vec, int elemBytes) const;

  bool operator==(const LinearLayout &) const = default;
  std::string str() const;
  // Parses str()'s form for a tile of `shape`; nullopt when malformed.
  static std::optional<LinearLayout> parse(std::string_view s, const std::vector<int64_t> &shape);
};

// The largest tile a layout conversion stages in shared memory at once
// (elements at their register width, before row padding): 128x256 fp16 or
// 128x128 fp32. Larger conversions go in bands (halveConversion), so an
// epilogue's staging fits in the space the matmul's ring leaves behind.
inline constexpr int64_t kMaxConvertBytes = 64 * 1024;

// A conversion between two layouts of one tile, split in two of half the
// size. Both layouts hold bit v of a dim other than the last in a register
// bit (fromBit, toBit): every thread then holds the elements with that
// coordinate bit clear in the registers with its register bit clear, in
// both layouts, so each half (the elements with bit v equal) converts on
// its own. A half's layouts drop that register bit and halve the dim's
// bases above v: the half is a dense tile with that dim halved.
struct ConversionHalves {
  LinearLayout from, to;
  int fromBit = 0, toBit = 0;
};
// The split on the largest such v (each half is then runs of v rows);
// nullopt when the layouts share no such bit.
std::optional<ConversionHalves> halveConversion(const LinearLayout &from, const LinearLayout &to);
// How many halvings bring a conversion of a `bytes`-byte tile to
// kMaxConvertBytes or less (0 when it fits); nullopt when they run out.
std::optional<int> conversionBands(const LinearLayout &from, const LinearLayout &to, int64_t bytes);

// How a 2-D tile sits in shared memory (the layout of a memdesc; a ring of
// such tiles repeats it per slot): the tile's dim `contig` runs along each
// row. Two forms:
//   padded      rows are `pitch` bytes apart: the row's bytes plus 16, so
//               the eight 16-byte rows that one ldmatrix reads fall in
//               distinct banks (mma.sync operands with rows under 32 bytes,
//               and those staged from registers);
//   swizzled    the swizzle wgmma reads (and ldmatrix, conflict-free: the
//               mma.sync rings), S = 32, 64 or 128 bytes wide: the
//               contiguous dim is cut into S-byte columns, each a block of
//               all the rows (S bytes apart); the 16-byte chunk index within
//               S is XORed with address bits from bit 7 up (for S = 128: the
//               row's index mod 8). A slot is 1024-byte aligned, which the
//               swizzle (a function of address bits) assumes.
struct SharedLayout {
  int contig = 1;
  int64_t pitch = 0;  // padded: bytes between rows; swizzled: S
  int swizzle = 0;    // 0 (padded) or S
  // For a tile of `shape` (2-D) with `elemBytes`-byte elements.
  static SharedLayout padded(const std::vector<int64_t> &shape, int contig, int elemBytes);
  static SharedLayout swizzled(int contig, int bytes);
  // The widest swizzle (128, 64, 32) a contiguous extent of this many bytes
  // fills; 0 when it is narrower than 32.
  static int swizzleFor(int64_t contiguousBytes);
  // Bytes one tile takes, rounded up to 128 (padded) or 1024 (swizzled) so
  // every slot of a ring starts aligned.
  int64_t slotBytes(const std::vector<int64_t> &shape, int elemBytes) const;
  // Byte offset of the element at (row, col) of a tile of `shape`, where
  // `col` runs along `contig` and `row` along the other dim.
  int64_t offset(const std::vector<int64_t> &shape, int64_t row, int64_t col, int elemBytes) const;
  // Offset of (row, col) before the swizzle's XOR (swizzled form), or the
  // offset itself (padded): the part that adds up over disjoint bits.
  int64_t linearOffset(const std::vector<int64_t> &shape, int64_t row, int64_t col,
                       int elemBytes) const;
  int64_t rows(const std::vector<int64_t> &shape) const { return shape[shape.size() - 1 - contig]; }
  std::string str() const;  // shared<contig=1, pitch=144> or shared<contig=1, swizzle=128>
  bool operator==(const SharedLayout &) const = default;
  static std::optional<SharedLayout> parse(std::string_view s);
};

}  // namespace tessera::ptx
