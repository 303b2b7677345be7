// Tensor-core layouts against the PTX ISA's fragment tables for mma.sync
// m16n8k16 (.f16/.bf16), m16n8k8 (.tf32) and m16n8k32 (.s8/.u8/.e4m3/.e5m2),
// written here as the manual states them (groupID = lane >> 2,
// threadID_in_group = lane % 4), and the ldmatrix addressing that fills
// those fragments; the instruction choice and the accumulator layout of a
// whole program.
#include "codegen/ptx/mma.h"

#include <gtest/gtest.h>

#include <set>

#include "ir/ir.h"

using namespace tessera::ptx;

namespace {

struct Elem {
  int64_t row, col;
};

// The ISA's table: element i (0-based, in fragment order) of lane `lane`.
// Fragment order is the order of the .b32 registers' elements, low half first.
Elem isaA(int elemBytes, int lane, int i) {
  int64_t g = lane >> 2, t = lane % 4;
  if (elemBytes == 2) {  // a0..a7, m16n8k16 .f16/.bf16
    int64_t row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
    int64_t col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
    return {row, col};
  }
  if (elemBytes == 4) {  // a0..a3, m16n8k8 .tf32
    int64_t row = (i % 2 == 0) ? g : g + 8;
    int64_t col = (i < 2) ? t : t + 4;
    return {row, col};
  }
  // a0..a15, m16n8k32 .s8/.u8/.e4m3/.e5m2
  int64_t row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
  int64_t col = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
  return {row, col};
}

Elem isaB(int elemBytes, int lane, int i) {
  int64_t g = lane >> 2, t = lane % 4;
  if (elemBytes == 2) return {t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};  // b0..b3
  if (elemBytes == 4) return {i == 0 ? t : t + 4, g};                  // b0..b1
  return {t * 4 + (i & 3) + (i >= 4 ? 16 : 0), g};                     // b0..b7
}

Elem isaC(int lane, int i) {  // c0..c3, every shape here
  int64_t g = lane >> 2, t = lane % 4;
  return {i < 2 ? g : g + 8, t * 2 + (i & 1)};
}

TEST(MmaLayouts, FragmentsMatchTheIsaTables) {
  for (int eb : {1, 2, 4}) {
    LinearLayout a = mmaFragmentLayout(0, eb), b = mmaFragmentLayout(1, eb);
    LinearLayout c = mmaFragmentLayout(2, eb);
    ASSERT_EQ(a.numRegs(), 16 / eb);
    ASSERT_EQ(b.numRegs(), 8 / eb);
    for (int lane = 0; lane < 32; ++lane) {
      for (int i = 0; i < a.numRegs(); ++i) {
        Elem e = isaA(eb, lane, i);
        EXPECT_EQ(a.coord(i, lane, 0), (std::vector<int64_t>{e.row, e.col}))
            << "A, " << eb << "-byte elements, lane " << lane << " element " << i;
      }
      for (int i = 0; i < b.numRegs(); ++i) {
        Elem e = isaB(eb, lane, i);
        EXPECT_EQ(b.coord(i, lane, 0), (std::vector<int64_t>{e.row, e.col}))
            << "B, " << eb << "-byte elements, lane " << lane << " element " << i;
      }
      for (int i = 0; i < 4; ++i) {
        Elem e = isaC(lane, i);
        EXPECT_EQ(c.coord(i, lane, 0), (std::vector<int64_t>{e.row, e.col}));
      }
    }
  }
}

// ldmatrix (ISA: "each thread receives a row fragment"): of the 8x8 matrix
// of 16-bit elements whose rows come from lanes 8j..8j+7, lane l receives in
// register j row l / 4, half-words 2 (l % 4) and 2 (l % 4) + 1; with .trans,
// column l / 4 of rows 2 (l % 4) and 2 (l % 4) + 1. This models the
// instruction byte by byte on an operand tile stored as emit_mma.cpp stores
// it, with the addresses mma.h gives each lane, and checks that every byte of
// every register is the byte of the element the ISA's fragment table puts
// there, for every element width.
TEST(MmaLayouts, LdmatrixAddressesDeliverTheFragments) {
  for (int eb : {1, 2, 4})
    for (int operand : {0, 1})
      for (bool trans : {false, true}) {
        if (trans && eb != 2) continue;  // .trans moves 16-bit elements only
        for (int lane = 0; lane < 32; ++lane)
          for (int j = 0; j < 4; ++j)
            for (int p = 0; p < 4; ++p) {
              // Where ldmatrix takes byte p of register j from.
              int src = trans ? 8 * j + 2 * (lane % 4) + p / 2 : 8 * j + lane / 4;
              LdmatrixRow r = operand == 0 ? ldmatrixRowA(src, trans) : ldmatrixRowB(src, trans);
              int64_t gotRow = r.row;
              int64_t gotByte = r.colBytes + (trans ? 2 * (lane / 4) + p % 2 : 4 * (lane % 4) + p);
              // The element the ISA puts there, and where it is stored:
              // K-contiguous rows of M (A) or N (B), or rows of K when trans.
              int per = 4 / eb;
              int fragReg = operand == 1 ? j % 2 : j, nTile = operand == 1 ? j / 2 : 0;
              int fi = fragReg * per + p / eb;
              Elem e = operand == 0 ? isaA(eb, lane, fi) : isaB(eb, lane, fi);
              int64_t mn = operand == 0 ? e.row : e.col + 8 * nTile;
              int64_t k = operand == 0 ? e.col : e.row;
              int64_t wantRow = trans ? k : mn;
              int64_t wantByte = (trans ? mn : k) * eb + p % eb;
              EXPECT_EQ(gotRow, wantRow)
                  << "operand " << operand << ", " << eb << "-byte elements, trans " << trans
                  << ", lane " << lane << ", register " << j << ", byte " << p;
              EXPECT_EQ(gotByte, wantByte)
                  << "operand " << operand << ", " << eb << "-byte elements, trans " << trans
                  << ", lane " << lane << ", register " << j << ", byte " << p;
            }
      }
}

// The accumulator layout of a program: every element held once, each warp a
// rectangle of 16x8 instruction tiles whose register order is
// element + 4 * (n-tile + tilesN * m-tile), and each 16x8 block's lanes
// and registers exactly the ISA's accumulator fragment. With rowsFirst (a
// chained dot) the warps go along M as far as 16-row tiles allow.
TEST(MmaLayouts, AccumulatorTilesTheProgram) {
  struct Case {
    int64_t M, N;
    int warps;
    int64_t wm, wn;
    bool rowsFirst = false;
  };
  for (Case c :
       {Case{128, 256, 8, 2, 4}, Case{128, 128, 4, 2, 2}, Case{64, 64, 4, 2, 2},
        Case{16, 8, 4, 1, 1}, Case{16, 64, 4, 1, 4}, Case{256, 16, 8, 8, 1},
        Case{64, 64, 4, 4, 1, true}, Case{128, 128, 8, 8, 1, true}, Case{64, 128, 8, 4, 2, true},
        Case{16, 64, 4, 1, 4, true}, Case{32, 8, 4, 2, 1, true}}) {
    WarpSplit s = mmaWarpSplit(1, c.M, c.N, c.warps, c.rowsFirst);
    EXPECT_EQ(s.m, c.wm) << c.M << "x" << c.N << (c.rowsFirst ? " rows first" : "");
    EXPECT_EQ(s.n, c.wn) << c.M << "x" << c.N << (c.rowsFirst ? " rows first" : "");
    LinearLayout l = mmaAccumulatorLayout({c.M, c.N}, c.warps, c.rowsFirst);
    int64_t Mw = c.M / s.m, Nw = c.N / s.n, tilesN = Nw / 8;
    std::set<std::vector<int64_t>> seen;
    for (int w = 0; w < c.warps; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < l.numRegs(); ++r) {
          auto co = l.coord(r, lane, w);
          int64_t tile = r >> 2, mt = tile / tilesN, nt = tile % tilesN;
          int64_t wm = (w / s.n) % s.m, wn = w % s.n;
          Elem e = isaC(lane, r & 3);
          EXPECT_EQ(co,
                    (std::vector<int64_t>{wm * Mw + mt * 16 + e.row, wn * Nw + nt * 8 + e.col}));
          if (!(w & l.replicatedWarpMask())) seen.insert(co);
        }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), c.M * c.N);
    EXPECT_TRUE(LinearLayout::parse(l.str(), l.shape).has_value());
  }
}

// FlashAttention-2's P: where a product's warps split only M, its
// accumulator registers are the A fragments of a 16-bit mma.sync over the
// same rows (accumulatorAsFragmentA's pairs hold, low half first, the
// elements the ISA's A table puts in a0..a3), so P needs no trip through
// shared memory.
TEST(MmaLayouts, RowsFirstAccumulatorIsTheNextProductsA) {
  struct Case {
    int64_t M, K;
    int warps;
  };
  for (Case c :
       {Case{64, 64, 4}, Case{128, 64, 8}, Case{64, 32, 4}, Case{128, 128, 4}, Case{16, 64, 1}}) {
    WarpSplit s = mmaWarpSplit(1, c.M, c.K, c.warps, /*rowsFirst=*/true);
    ASSERT_EQ(s.n, 1) << c.M << "x" << c.K;
    LinearLayout l = mmaAccumulatorLayout({c.M, c.K}, c.warps, /*rowsFirst=*/true);
    const int64_t Mw = c.M / s.m, tilesK = c.K / 8;
    for (int w = 0; w < c.warps; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int64_t m = 0; m < Mw / 16; ++m)
          for (int64_t kk = 0; kk < c.K / 16; ++kk) {
            auto regs = accumulatorAsFragmentA(kk, m, tilesK);
            for (int j = 0; j < 4; ++j)
              for (int half = 0; half < 2; ++half) {
                Elem e = isaA(2, lane, 2 * j + half);
                int64_t r = half ? regs[j].second : regs[j].first;
                EXPECT_EQ(l.coord(static_cast<int>(r), lane, w),
                          (std::vector<int64_t>{(w % s.m) * Mw + 16 * m + e.row, 16 * kk + e.col}))
                    << c.M << "x" << c.K << ", warp " << w << " lane " << lane << " m-tile " << m
                    << " K step " << kk << " a" << j << (half ? " high" : " low");
              }
          }
  }
}

// A batched dot's accumulator (B x M x N): warps take batch entries first,
// the rest split each entry as a 2-D dot's would; a warp's entry e (of
// B / split.b) is entry split.b * e + its own, its registers
// 4 * tilesPerEntry * e onward laid out as one entry's 2-D tile.
TEST(MmaLayouts, BatchedAccumulatorTilesEveryEntry) {
  struct Case {
    int64_t B, M, N;
    int warps;
    int64_t wb, wm, wn;
  };
  for (Case c :
       {Case{4, 32, 32, 4, 4, 1, 1}, Case{16, 32, 32, 4, 4, 1, 1}, Case{2, 32, 32, 4, 2, 1, 2},
        Case{1, 64, 64, 4, 1, 2, 2}, Case{8, 64, 64, 8, 8, 1, 1}, Case{4, 32, 16, 1, 1, 1, 1},
        Case{2, 16, 8, 4, 2, 1, 1}}) {
    WarpSplit s = mmaWarpSplit(c.B, c.M, c.N, c.warps);
    EXPECT_EQ(std::vector<int64_t>({s.b, s.m, s.n}), std::vector<int64_t>({c.wb, c.wm, c.wn}))
        << c.B << "x" << c.M << "x" << c.N << " on " << c.warps;
    LinearLayout l = mmaAccumulatorLayout({c.B, c.M, c.N}, c.warps);
    int64_t Mw = c.M / s.m, Nw = c.N / s.n, tilesN = Nw / 8, perEntry = 4 * (Mw / 16) * tilesN;
    EXPECT_EQ(l.numRegs(), perEntry * (c.B / s.b));
    std::set<std::vector<int64_t>> seen;
    for (int w = 0; w < c.warps; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < l.numRegs(); ++r) {
          auto co = l.coord(r, lane, w);
          int64_t entry = r / perEntry, tile = (r % perEntry) >> 2;
          int64_t mt = tile / tilesN, nt = tile % tilesN;
          int64_t wb = w % s.b, wn = (w / s.b) % s.n, wm = (w / (s.b * s.n)) % s.m;
          Elem e = isaC(lane, r & 3);
          EXPECT_EQ(co, (std::vector<int64_t>{s.b * entry + wb, wm * Mw + mt * 16 + e.row,
                                              wn * Nw + nt * 8 + e.col}));
          if (!(w & l.replicatedWarpMask())) seen.insert(co);
        }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), c.B * c.M * c.N);
    EXPECT_TRUE(LinearLayout::parse(l.str(), l.shape).has_value());
  }
}

// wgmma's accumulator (the ISA's m64nNk16 D fragment, .f32): register i of
// lane `lane` in warp w of the warpgroup holds row 16w + lane / 4 + 8 *
// ((i / 2) % 2), column 8 * (i / 4) + 2 * (lane % 4) + i % 2.
TEST(WgmmaLayouts, AccumulatorMatchesTheIsaFragment) {
  struct Case {
    int64_t M, N;
    int warps;
    int64_t wgM, wgN, mTiles, n;
  };
  for (Case c : {Case{128, 256, 8, 2, 1, 1, 256}, Case{128, 128, 4, 1, 1, 2, 128},
                 Case{64, 256, 8, 1, 2, 1, 128}, Case{64, 64, 4, 1, 1, 1, 64},
                 Case{256, 128, 8, 2, 1, 2, 128}}) {
    auto p = planWgmma(c.M, c.N, 64, tessera::DType::F16, tessera::DType::F16, tessera::DType::F32,
                       1, 1, c.warps, 90, true);
    ASSERT_TRUE(p.has_value()) << c.M << "x" << c.N;
    EXPECT_EQ(p->wgM, c.wgM);
    EXPECT_EQ(p->wgN, c.wgN);
    EXPECT_EQ(p->mTiles, c.mTiles);
    EXPECT_EQ(p->n, c.n);
    LinearLayout l = wgmmaAccumulatorLayout(c.M, c.N, *p, c.warps);
    int64_t perTile = p->n / 2;
    std::set<std::vector<int64_t>> seen;
    for (int w = 0; w < c.warps; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < l.numRegs(); ++r) {
          int64_t i = r % perTile, mt = r / perTile;
          int64_t g = w / 4, gm = g % p->wgM, gn = g / p->wgM;
          int64_t row = (gm * p->mTiles + mt) * 64 + 16 * (w % 4) + lane / 4 + 8 * ((i / 2) % 2);
          int64_t col = gn * p->n + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
          EXPECT_EQ(l.coord(r, lane, w), (std::vector<int64_t>{row, col}));
          seen.insert(l.coord(r, lane, w));
        }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), c.M * c.N);
  }
  // Not on wgmma: plain sm_90, 32 rows, fp8 with B N-contiguous, fp32.
  EXPECT_FALSE(planWgmma(128, 128, 64, tessera::DType::F16, tessera::DType::F16,
                         tessera::DType::F32, 1, 1, 4, 90, false));
  EXPECT_FALSE(planWgmma(32, 128, 64, tessera::DType::F16, tessera::DType::F16, tessera::DType::F32,
                         1, 1, 4, 90, true));
  EXPECT_FALSE(planWgmma(128, 128, 64, tessera::DType::F8E4NV, tessera::DType::F8E4NV,
                         tessera::DType::F32, 1, 1, 4, 90, true));
  EXPECT_TRUE(planWgmma(128, 128, 64, tessera::DType::F8E4NV, tessera::DType::F8E4NV,
                        tessera::DType::F32, 1, 0, 4, 90, true));
  EXPECT_FALSE(planWgmma(128, 128, 64, tessera::DType::F32, tessera::DType::F32,
                         tessera::DType::F32, 1, 1, 4, 90, true));
}

// Which dots' loads are worth the copy engine (descriptors-from-pointers):
// those wgmma could read with the load's contiguous dim as it is.
TEST(WgmmaLayouts, WgmmaMayReadALoadedOperand) {
  using tessera::DType;
  using tessera::Type;
  auto dot = [](tessera::Function &fn, int64_t M, int64_t N, int64_t K, DType in) {
    Type a = Type::tile({M, K}, Type::scalar(in)), b = Type::tile({K, N}, Type::scalar(in));
    Type acc = Type::tile({M, N}, Type::scalar(DType::F32));
    tessera::Builder builder(&fn.body);
    return builder
        .op1(tessera::OpCode::Dot, {fn.body.addArg(a), fn.body.addArg(b), fn.body.addArg(acc)}, acc)
        ->def;
  };
  tessera::Function fn;
  const tessera::Operation *big = dot(fn, 128, 256, 64, DType::F16);
  EXPECT_TRUE(wgmmaMayRead(*big, 0, 1, 8, 90, true));
  EXPECT_TRUE(wgmmaMayRead(*big, 1, 1, 8, 90, true));
  EXPECT_TRUE(wgmmaMayRead(*big, 1, 0, 8, 90, true));
  EXPECT_FALSE(wgmmaMayRead(*big, 0, 1, 8, 90, false));  // sm_90: no wgmma
  EXPECT_FALSE(wgmmaMayRead(*big, 0, 1, 8, 80, false));
  EXPECT_FALSE(wgmmaMayRead(*big, 0, 1, 2, 90, true));  // not a warpgroup
  // The skinny matmul's blocks: fewer rows than a warpgroup's 64.
  const tessera::Operation *skinny = dot(fn, 32, 64, 128, DType::F16);
  EXPECT_FALSE(wgmmaMayRead(*skinny, 0, 1, 4, 90, true));
  EXPECT_FALSE(wgmmaMayRead(*skinny, 1, 1, 4, 90, true));
  // fp8 only K-major: A along K (dim 1), B along K (dim 0).
  const tessera::Operation *fp8 = dot(fn, 128, 128, 64, DType::F8E4NV);
  EXPECT_TRUE(wgmmaMayRead(*fp8, 0, 1, 4, 90, true));
  EXPECT_FALSE(wgmmaMayRead(*fp8, 0, 0, 4, 90, true));
  EXPECT_TRUE(wgmmaMayRead(*fp8, 1, 0, 4, 90, true));
  EXPECT_FALSE(wgmmaMayRead(*fp8, 1, 1, 4, 90, true));
}

// Operand A from registers (wgmma's m64nNk16 / m64nNk32 A fragment, which
// per warp is mma.sync's A fragment, isaA above): word j of K step kk in
// 64-row tile mt is register word mt * wordsPerTile + 4 kk + j, its elements
// the fragment's elements 4/elemBytes * j.. in order. Warps 4g..4g+3 hold
// the rows of warpgroup g % wgM; the groups that split N hold copies.
TEST(WgmmaLayouts, RegisterOperandAMatchesTheIsaFragment) {
  using tessera::DType;
  struct Case {
    int64_t M, N, K;
    int warps;
    DType a, b;
  };
  for (Case c : {Case{128, 128, 64, 4, DType::F16, DType::F16},
                 Case{128, 256, 64, 8, DType::F16, DType::F16},
                 Case{64, 128, 64, 8, DType::BF16, DType::BF16},
                 Case{128, 128, 64, 4, DType::F8E4NV, DType::F8E4NV},
                 Case{128, 64, 128, 8, DType::F8E5, DType::F8E4NV},
                 Case{64, 128, 64, 8, DType::F8E4NV, DType::F8E5},
                 Case{128, 128, 64, 4, DType::I8, DType::I8}}) {
    DType r = c.a == DType::I8 ? DType::I32 : DType::F32;
    auto p = planWgmma(c.M, c.N, c.K, c.a, c.b, r, 1, 0, c.warps, 90, true, true);
    ASSERT_TRUE(p.has_value()) << c.M << "x" << c.N << "x" << c.K;
    LinearLayout l = wgmmaOperandALayout(c.M, c.K, *p, c.warps);
    int eb = p->elemBytes, per = 4 / eb;
    int64_t kWords = c.K * eb / 8;  // words per thread per 64-row tile
    ASSERT_EQ(l.numRegs(), p->mTiles * kWords * per);
    for (int w = 0; w < c.warps; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < l.numRegs(); ++r) {
          int64_t word = r / per, mt = word / kWords, kk = (word % kWords) / 4;
          int fragElem = static_cast<int>((word % 4) * per + r % per);
          Elem e = isaA(eb, lane, fragElem);
          int64_t gm = (w / 4) % p->wgM;
          int64_t row = (gm * p->mTiles + mt) * 64 + 16 * (w % 4) + e.row;
          int64_t col = kk * p->k + e.col;
          EXPECT_EQ(l.coord(r, lane, w), (std::vector<int64_t>{row, col}))
              << "eb " << eb << " warp " << w << " lane " << lane << " reg " << r;
        }
  }
  // 8-bit operands must be K-major; integer N is 8, 16, 24 or a multiple of 16.
  EXPECT_FALSE(
      planWgmma(128, 128, 64, DType::F8E4NV, DType::F8E4NV, DType::F32, 1, 1, 4, 90, true, true));
  EXPECT_FALSE(planWgmma(64, 40, 64, DType::I8, DType::I8, DType::I32, 1, 0, 4, 90, true));
  EXPECT_TRUE(planWgmma(64, 48, 64, DType::U8, DType::I8, DType::I32, 1, 0, 4, 90, true));
  EXPECT_FALSE(planWgmma(64, 64, 64, DType::I8, DType::I8, DType::F32, 1, 0, 4, 90, true));
}

// The swizzled shared layouts: a bijection onto the slot, every 16-byte
// chunk kept whole, and for S = 128 the chunk index XOR the row mod 8 within
// each 8-row group (the pattern CUDA's documentation draws).
TEST(WgmmaLayouts, SwizzleIsAPermutationOfChunks) {
  for (int s : {32, 64, 128}) {
    for (int contig : {0, 1}) {
      std::vector<int64_t> shape =
          contig == 1 ? std::vector<int64_t>{64, 128} : std::vector<int64_t>{128, 64};
      SharedLayout l = SharedLayout::swizzled(contig, s);
      EXPECT_EQ(SharedLayout::parse(l.str()), std::optional<SharedLayout>(l));
      int64_t bytes = l.slotBytes(shape, 2);
      EXPECT_EQ(bytes, 64 * 128 * 2);
      std::set<int64_t> seen;
      for (int64_t row = 0; row < l.rows(shape); ++row)
        for (int64_t col = 0; col < 128; ++col) {
          int64_t off = l.offset(shape, row, col, 2);
          EXPECT_GE(off, 0);
          EXPECT_LT(off, bytes);
          seen.insert(off);
          // Elements 16 bytes apart in a row stay in their chunk.
          EXPECT_EQ(off % 16, (col * 2) % 16);
          if (s == 128 && col < 64) {
            EXPECT_EQ(off, row * 128 + ((((col * 2) / 16) ^ (row % 8)) * 16) + (col * 2) % 16);
          }
        }
      EXPECT_EQ(static_cast<int64_t>(seen.size()), 64 * 128);
    }
  }
  EXPECT_EQ(SharedLayout::swizzleFor(256), 128);
  EXPECT_EQ(SharedLayout::swizzleFor(64), 64);
  EXPECT_EQ(SharedLayout::swizzleFor(16), 0);
  EXPECT_FALSE(SharedLayout::parse("shared<contig=1, swizzle=96>"));
}

// A half of a conversion holds, in the same register order less the
// splitting bit, the elements whose coordinate has that bit equal to the
// half's index, at the coordinate with that bit squeezed out.
void expectHalvesMatch(const LinearLayout &full, const LinearLayout &half, int bit) {
  const Basis &b = full.reg[bit];
  int64_t v = b.value;
  for (int w = 0; w < full.numWarps(); ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < full.numRegs(); ++r) {
        std::vector<int64_t> c = full.coord(r, lane, w);
        int which = (r >> bit) & 1;
        EXPECT_EQ((c[b.dim] & v) != 0, which == 1);
        c[b.dim] = (c[b.dim] & (v - 1)) | ((c[b.dim] >> 1) & ~(v - 1));
        int low = r & ((1 << bit) - 1);
        int k = ((r >> (bit + 1)) << bit) | low;
        EXPECT_EQ(half.coord(k, lane, w), c) << full.str() << " reg " << r;
      }
}

TEST(ConversionHalves, EpilogueTilesSplitInRowBands) {
  // 128x256 accumulators (64 KiB per half at 4 bytes) into the store's
  // coalesced layout, 16 bytes per thread along the row.
  auto wg = planWgmma(128, 256, 64, tessera::DType::F16, tessera::DType::F16, tessera::DType::F32,
                      1, 1, 8, 90, true);
  ASSERT_TRUE(wg.has_value());
  LinearLayout store8 = LinearLayout::coalesced({128, 256}, 8, 4, {1, 0});
  LinearLayout store4 = LinearLayout::coalesced({128, 256}, 4, 4, {1, 0});
  struct Case {
    LinearLayout from, to;
  };
  for (const Case &c : {Case{wgmmaAccumulatorLayout(128, 256, *wg, 8), store8},
                        Case{mmaAccumulatorLayout({128, 256}, 8), store8},
                        Case{mmaAccumulatorLayout({128, 256}, 4), store4}}) {
    auto h = halveConversion(c.from, c.to);
    ASSERT_TRUE(h.has_value()) << c.from.str();
    EXPECT_EQ(h->from.shape, (std::vector<int64_t>{64, 256}));
    expectHalvesMatch(c.from, h->from, h->fromBit);
    expectHalvesMatch(c.to, h->to, h->toBit);
    EXPECT_EQ(conversionBands(c.from, c.to, 128 * 256 * 4), 1);
    EXPECT_EQ(conversionBands(c.from, c.to, 64 * 256 * 4), 0);
  }
  // Halving again splits on the next shared bit, or runs out.
  auto mma = mmaAccumulatorLayout({256, 256}, 4);
  LinearLayout store = LinearLayout::coalesced({256, 256}, 4, 4, {1, 0});
  auto h = halveConversion(mma, store);
  ASSERT_TRUE(h.has_value());
  auto hh = halveConversion(h->from, h->to);
  ASSERT_TRUE(hh.has_value());
  expectHalvesMatch(h->from, hh->from, hh->fromBit);
  expectHalvesMatch(h->to, hh->to, hh->toBit);
  EXPECT_EQ(conversionBands(mma, store, 256 * 256 * 4), 2);
  // No row bit in registers on one side: no halves.
  LinearLayout rowsInLanes = LinearLayout::blocked({32, 32}, {1, 32}, {32, 1}, {1, 1}, {1, 0});
  LinearLayout rowsInRegs = LinearLayout::blocked({32, 32}, {32, 1}, {1, 32}, {1, 1}, {0, 1});
  EXPECT_FALSE(halveConversion(rowsInLanes, rowsInRegs).has_value());
  EXPECT_FALSE(conversionBands(rowsInLanes, rowsInRegs, 1 << 20).has_value());
}

}  // namespace
