// Linear layouts: construction from blocked parameters, the derived layouts
// (slice, expand, collapse, reshape, permute, split, join), register lookup,
// and the textual form.
#include "codegen/ptx/layout.h"

#include <gtest/gtest.h>

#include <set>

using tessera::ptx::LinearLayout;

namespace {

// Every element of the tile is held by exactly one (register, lane, warp)
// among the non-replicated threads.
void expectCoversOnce(const LinearLayout &l) {
  std::set<std::vector<int64_t>> seen;
  int lanes = 32, warps = l.numWarps();
  for (int w = 0; w < warps; ++w) {
    if (w & l.replicatedWarpMask()) continue;
    for (int ln = 0; ln < lanes; ++ln) {
      if (ln & l.replicatedLaneMask()) continue;
      for (int r = 0; r < l.numRegs(); ++r) EXPECT_TRUE(seen.insert(l.coord(r, ln, w)).second);
    }
  }
  int64_t numel = 1;
  for (int64_t s : l.shape) numel *= s;
  EXPECT_EQ(static_cast<int64_t>(seen.size()), numel);
}

TEST(LinearLayout, CoalescedOneDim) {
  auto l = LinearLayout::coalesced({1024}, 4, 4, {0});
  EXPECT_EQ(l.numRegs(), 8);
  EXPECT_EQ(l.contiguousRegs(0), 4);
  // Thread 1 of warp 0 starts at element 4; warp 1 at 128; register 4 at 512.
  EXPECT_EQ(l.coord(0, 1, 0), std::vector<int64_t>{4});
  EXPECT_EQ(l.coord(0, 0, 1), std::vector<int64_t>{128});
  EXPECT_EQ(l.coord(4, 0, 0), std::vector<int64_t>{512});
  expectCoversOnce(l);
}

TEST(LinearLayout, SmallTilesReplicate) {
  auto l = LinearLayout::coalesced({16}, 4, 1, {0});
  EXPECT_EQ(l.numRegs(), 1);
  EXPECT_EQ(l.replicatedLaneMask(), 0x10u);
  EXPECT_EQ(l.replicatedWarpMask(), 0x3u);
  expectCoversOnce(l);
}

TEST(LinearLayout, TwoDimsAndDerived) {
  auto l = LinearLayout::coalesced({64, 32}, 4, 4, {1, 0});
  expectCoversOnce(l);
  auto rows = l.sliced(1);  // a reduction along dim 1
  EXPECT_EQ(rows.shape, std::vector<int64_t>{64});
  expectCoversOnce(rows);
  EXPECT_EQ(rows.expanded(1).shape, (std::vector<int64_t>{64, 1}));
  auto col = l.collapsed({0});  // the operand of a broadcast along dim 0
  EXPECT_EQ(col.shape, (std::vector<int64_t>{1, 32}));
  expectCoversOnce(col);
  // Registers are found by their coordinates.
  for (int r = 0; r < l.numRegs(); ++r) EXPECT_EQ(l.regIndexOf(l.regCoord(r)), r);
  EXPECT_EQ(l.regIndexOf({3, 0}), -1);  // held by another thread
}

int64_t flatIndex(const std::vector<int64_t> &coord, const std::vector<int64_t> &shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + coord[d];
  return flat;
}

// `to` is `from` reshaped: every register of every thread holds the element
// of the same row-major flat index in both, so a reshape between them moves
// no data (the emitter aliases its registers).
void expectSameElements(const LinearLayout &from, const LinearLayout &to) {
  ASSERT_EQ(from.numRegs(), to.numRegs());
  ASSERT_EQ(from.numWarps(), to.numWarps());
  for (int w = 0; w < from.numWarps(); ++w)
    for (int ln = 0; ln < 32; ++ln)
      for (int r = 0; r < from.numRegs(); ++r)
        ASSERT_EQ(flatIndex(from.coord(r, ln, w), from.shape),
                  flatIndex(to.coord(r, ln, w), to.shape))
            << "reg " << r << " lane " << ln << " warp " << w << ": " << from.str() << " -> "
            << to.str();
}

TEST(LinearLayout, ReshapedSplitsAndMerges) {
  // A 32x256 row-sum tile (4 elements per thread along the row): splitting
  // the row into 64x4 gives the four registers of the row their own dim.
  auto l = LinearLayout::coalesced({32, 256}, 4, 4, {1, 0});
  auto split = l.reshaped({32, 64, 4});
  EXPECT_EQ(split.str(),
            "linear<reg=[2:1,2:2,0:2,0:4,0:8,0:16], lane=[1:1,1:2,1:4,1:8,1:16], "
            "warp=[1:32,0:1]>");
  expectCoversOnce(split);
  expectSameElements(l, split);
  EXPECT_EQ(split.reshaped({32, 256}), l);  // and back
  // Sliced along the new dim: the per-thread partial of the row, whose own
  // slice along the row is the row sum's layout.
  EXPECT_EQ(split.sliced(2).sliced(1), l.sliced(1));

  // A high register run too (repetitions of the CTA tile): 1024 = 2x128x4.
  auto wide = LinearLayout::coalesced({16, 1024}, 4, 4, {1, 0});
  auto four = wide.reshaped({16, 2, 128, 4});
  expectCoversOnce(four);
  expectSameElements(wide, four);
  EXPECT_EQ(four.sliced(3).sliced(1).sliced(1), wide.sliced(1));
  EXPECT_EQ(four.reshaped({16, 1024}), wide);

  // Merged into one dim and back; across dims of several sizes.
  for (auto from : {l, wide, LinearLayout::defaultFor({128, 2, 8}, 2),
                    LinearLayout::coalesced({64, 128}, 8, 4, {0, 1})}) {
    int64_t numel = 1;
    for (int64_t s : from.shape) numel *= s;
    auto flat = from.reshaped({numel});
    expectCoversOnce(flat);
    expectSameElements(from, flat);
    EXPECT_EQ(flat.reshaped(from.shape), from);
  }
}

// Permuted, split and joined layouts hold, register for register, the
// element the op moves there, so the emitter renames registers.
TEST(LinearLayout, PermutedSplitAndJoined) {
  for (auto from : {LinearLayout::coalesced({4, 8, 16}, 4, 4, {2, 1, 0}),
                    LinearLayout::coalesced({2, 64, 4}, 2, 2, {1, 2, 0})}) {
    std::vector<int64_t> order = {2, 0, 1};
    auto p = from.permuted(order);
    expectCoversOnce(p);
    for (int w = 0; w < from.numWarps(); ++w)
      for (int ln = 0; ln < 32; ++ln)
        for (int r = 0; r < from.numRegs(); ++r) {
          auto c = from.coord(r, ln, w), q = p.coord(r, ln, w);
          for (size_t i = 0; i < order.size(); ++i) ASSERT_EQ(q[i], c[order[i]]);
        }
    EXPECT_EQ(p.permuted({1, 2, 0}), from);  // the inverse order
  }
  // A 16x32 tile with 4 elements per thread along the row: its last dim
  // split as (16, 16, 2) puts the pair in register bit 0.
  auto rows = LinearLayout::coalesced({16, 32}, 4, 4, {1, 0}).reshaped({16, 16, 2});
  auto half = rows.splitLast();
  ASSERT_TRUE(half);
  EXPECT_EQ(half->first, 0);
  expectCoversOnce(half->second);
  for (int w = 0; w < rows.numWarps(); ++w)
    for (int ln = 0; ln < 32; ++ln)
      for (int r = 0; r < half->second.numRegs(); ++r) {
        auto c = half->second.coord(r, ln, w);
        for (int bit = 0; bit < 2; ++bit) {
          auto whole = rows.coord(2 * r + bit, ln, w);
          ASSERT_EQ(whole, (std::vector<int64_t>{c[0], c[1], bit}));
        }
      }
  EXPECT_EQ(half->second.joinedLast(), rows);  // join undoes it
  // Lanes holding the last dim: no split without moving data.
  EXPECT_FALSE(LinearLayout::coalesced({16, 2}, 1, 1, {1, 0}).splitLast());
}

TEST(LinearLayout, ReshapedSizeOneDims) {
  // Size-1 dims take no basis; replicated (zero) bases stay zero.
  auto l = LinearLayout::coalesced({16}, 4, 1, {0});
  auto padded = l.reshaped({1, 16, 1});
  EXPECT_EQ(padded.str(), "linear<reg=[], lane=[1:1,1:2,1:4,1:8,-], warp=[-,-]>");
  expectSameElements(l, padded);
  EXPECT_EQ(padded.reshaped({16}), l);
  auto m = LinearLayout::coalesced({32, 64}, 4, 4, {1, 0});
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{1, 32, 64}, {32, 1, 64}, {32, 64, 1}, {1, 2048}, {2, 16, 1, 8, 8}}) {
    auto r = m.reshaped(shape);
    EXPECT_EQ(r.shape, shape);
    expectCoversOnce(r);
    expectSameElements(m, r);
    EXPECT_EQ(r.reshaped(m.shape), m);
  }
}

TEST(LinearLayout, TextRoundTrip) {
  for (auto l : {LinearLayout::coalesced({64, 32}, 4, 4, {1, 0}),
                 LinearLayout::coalesced({16}, 8, 1, {0}).sliced(0).expanded(0),
                 LinearLayout::defaultFor({128, 2, 8}, 2)}) {
    auto back = LinearLayout::parse(l.str(), l.shape);
    ASSERT_TRUE(back.has_value()) << l.str();
    EXPECT_EQ(*back, l);
  }
  EXPECT_FALSE(LinearLayout::parse("linear<reg=[0:1], lane=[-,-,-,-,-], warp=[]>",
                                   {4}));  // misses element 2
  EXPECT_FALSE(LinearLayout::parse("linear<reg=[0:1,0:1], lane=[-,-,-,-,-], warp=[]>", {2}));
  EXPECT_FALSE(LinearLayout::parse("blocked<>", {2}));
}

}  // namespace

// Sectors a 64 x 64 fp16 store touches (4 warps): Triton's coalesced
// layout for an unaligned row (one element per thread, a warp along a row)
// fills 2 sectors per instruction; the tensor-core accumulator's row shape
// (2 elements per thread, 4 lanes a row, 8 rows a warp) touches one per
// row, 4 times as many in all.
TEST(LinearLayout, SectorsTouchedByAStore) {
  auto rowOfLanes = LinearLayout::coalesced({64, 64}, 4, 1, {1, 0});
  EXPECT_EQ(rowOfLanes.sectorsTouched(1, 1, 2), 4 * 32 * 2);
  auto fragmentRows = LinearLayout::blocked({64, 64}, {1, 2}, {8, 4}, {4, 1}, {1, 0});
  EXPECT_EQ(fragmentRows.sectorsTouched(1, 1, 2), 4 * 32 * 8);
  // Two elements at once halve the instructions, not the sectors each.
  EXPECT_EQ(fragmentRows.sectorsTouched(1, 2, 2), 4 * 16 * 8);
  // 16-byte vectors, 8 lanes a row: 4 sectors per row, 4 rows.
  auto wide = LinearLayout::coalesced({64, 64}, 4, 8, {1, 0});
  EXPECT_EQ(wide.sectorsTouched(1, 8, 2), 4 * 4 * 16);
  // A vector wider than the layout holds is cut to it; replicated warps
  // (a 16-element tile over 4 warps) count once.
  EXPECT_EQ(fragmentRows.sectorsTouched(1, 8, 2), 4 * 16 * 8);
  auto small = LinearLayout::coalesced({16}, 4, 1, {0});
  EXPECT_EQ(small.sectorsTouched(0, 1, 4), 2);
}
