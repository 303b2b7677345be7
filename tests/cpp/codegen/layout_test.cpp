// Linear layouts: construction from blocked parameters, the derived layouts
// (slice, expand, collapse), register lookup, and the textual form.
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
