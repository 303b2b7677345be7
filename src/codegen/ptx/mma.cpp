#include "codegen/ptx/mma.h"

#include <algorithm>
#include <bit>

namespace tessera::ptx {
namespace {

int log2i(int64_t v) {
  return std::countr_zero(static_cast<uint64_t>(v));
}

const char *fp8Name(DType d) {
  return d == DType::F8E4NV ? "e4m3" : "e5m2";
}

// The fp8 formats the tensor cores take (sm_89+).
bool isMmaFp8(DType d) {
  return d == DType::F8E4NV || d == DType::F8E5;
}

bool isMmaInt8(DType d) {
  return d == DType::I8 || d == DType::U8;
}

// The integer forms' type suffix, without mma.sync's trailing ".s32":
// .satfinite as Triton writes it (a sum past the int32 range stays at its
// bound instead of wrapping; the interpreter wraps, and only K beyond 2^17
// products of extreme values gets there).
std::string int8Types(DType a, DType b) {
  return std::string("satfinite.s32.") + (a == DType::I8 ? "s8." : "u8.") +
         (b == DType::I8 ? "s8" : "u8");
}

}  // namespace

std::optional<MmaInstr> selectMma(const Operation &op, int targetSm) {
  const Type &a = op.operand(0)->type, &b = op.operand(1)->type, &r = op.result()->type;
  if ((a.rank() != 2 && a.rank() != 3) || b.rank() != a.rank() || !r.isTile()) return std::nullopt;
  DType da = a.dtype, db = b.dtype, dr = r.dtype;
  MmaInstr mi;
  if (da == DType::F16 && db == DType::F16 && (dr == DType::F32 || dr == DType::F16)) {
    mi.k = 16;
    mi.elemBytes = 2;
    mi.packedF16Acc = dr == DType::F16;
    mi.accType = dr;
    mi.types = dr == DType::F16 ? "f16.f16.f16.f16" : "f32.f16.f16.f32";
  } else if (da == DType::BF16 && db == DType::BF16 && dr == DType::F32) {
    mi.k = 16;
    mi.elemBytes = 2;
    mi.types = "f32.bf16.bf16.f32";
  } else if (da == DType::F32 && db == DType::F32 && dr == DType::F32) {
    std::string p = op.strAttr("input_precision", "ieee");
    if (p != "tf32" && p != "tf32x3") return std::nullopt;
    mi.k = 8;
    mi.elemBytes = 4;
    mi.types = "f32.tf32.tf32.f32";
    mi.tf32x3 = p == "tf32x3";
  } else if (isMmaInt8(da) && isMmaInt8(db) && dr == DType::I32) {
    mi.k = 32;
    mi.elemBytes = 1;
    mi.accType = DType::I32;
    mi.types = int8Types(da, db) + ".s32";
  } else if (isMmaFp8(da) && isMmaFp8(db) && dr == DType::F32 && targetSm >= 89) {
    mi.k = 32;
    mi.elemBytes = 1;
    mi.types = std::string("f32.") + fp8Name(da) + "." + fp8Name(db) + ".f32";
  } else {
    return std::nullopt;
  }
  const int md = a.rank() - 2;
  int64_t M = a.shape[md], K = a.shape[md + 1], N = b.shape[md + 1];
  if (M % 16 != 0 || N % 8 != 0 || K % mi.k != 0) return std::nullopt;
  return mi;
}

int64_t imprecisePromotionSteps(const Operation &op, int64_t K, int instrK) {
  const int64_t q = op.intAttr("max_num_imprecise_acc", 0);
  if (!isFp8(op.operand(0)->type.dtype) || q <= 0 || q > K) return 0;
  return std::max<int64_t>(1, q / instrK);
}

WarpSplit mmaWarpSplit(int64_t B, int64_t M, int64_t N, int numWarps, bool rowsFirst) {
  WarpSplit s;
  s.b = std::min<int64_t>(B, numWarps);
  if (rowsFirst)
    while (s.b * s.m < numWarps && M / (16 * s.m) >= 2) s.m *= 2;
  while (s.b * s.m * s.n < numWarps) {
    int64_t tilesM = M / (16 * s.m), tilesN = N / (8 * s.n);
    if (tilesM >= 2 && tilesM >= tilesN)
      s.m *= 2;
    else if (tilesN >= 2)
      s.n *= 2;
    else if (tilesM >= 2)
      s.m *= 2;
    else
      break;
  }
  return s;
}

LinearLayout mmaAccumulatorLayout(const std::vector<int64_t> &shape, int numWarps, bool rowsFirst) {
  const int md = static_cast<int>(shape.size()) - 2, nd = md + 1;
  const int64_t B = md ? shape[0] : 1, M = shape[md], N = shape[nd];
  WarpSplit s = mmaWarpSplit(B, M, N, numWarps, rowsFirst);
  int64_t Mw = M / s.m, Nw = N / s.n;
  LinearLayout l;
  l.shape = shape;
  l.reg = {{nd, 1}, {md, 8}};
  for (int64_t v = 8; v < Nw; v *= 2) l.reg.push_back({nd, v});
  for (int64_t v = 16; v < Mw; v *= 2) l.reg.push_back({md, v});
  for (int64_t v = s.b; v < B; v *= 2) l.reg.push_back({0, v});
  l.lane = {{nd, 2}, {nd, 4}, {md, 1}, {md, 2}, {md, 4}};
  for (int64_t v = 1; v < s.b; v *= 2) l.warp.push_back({0, v});
  for (int64_t v = Nw; v < N; v *= 2) l.warp.push_back({nd, v});
  for (int64_t v = Mw; v < M; v *= 2) l.warp.push_back({md, v});
  for (int i = log2i(s.b * s.m * s.n); i < log2i(numWarps); ++i) l.warp.push_back({});
  return l;
}

std::array<std::pair<int64_t, int64_t>, 4> accumulatorAsFragmentA(int64_t kk, int64_t m,
                                                                  int64_t tilesK) {
  // c0 c1 are row g, columns 2t and 2t + 1 of a 16 x 8 tile, c2 c3 row
  // g + 8: a0 (row g) and a1 (row g + 8) from the K step's first 8
  // columns, a2 and a3 from its second.
  const int64_t t0 = 4 * (2 * kk + tilesK * m), t1 = t0 + 4;
  return {{{t0, t0 + 1}, {t0 + 2, t0 + 3}, {t1, t1 + 1}, {t1 + 2, t1 + 3}}};
}

LinearLayout mmaFragmentLayout(int operand, int elemBytes) {
  int64_t e = 4 / elemBytes;  // elements per 32-bit register
  LinearLayout l;
  if (operand == 2) {
    l.shape = {16, 8};
    l.reg = {{1, 1}, {0, 8}};
    l.lane = {{1, 2}, {1, 4}, {0, 1}, {0, 2}, {0, 4}};
    return l;
  }
  // K is dim 1 of A and dim 0 of B; the rows (M) or columns (N) the other.
  int kd = operand == 0 ? 1 : 0, md = 1 - kd;
  l.shape = operand == 0 ? std::vector<int64_t>{16, 8 * e} : std::vector<int64_t>{8 * e, 8};
  for (int64_t v = 1; v < e; v *= 2) l.reg.push_back({kd, v});
  if (operand == 0) l.reg.push_back({0, 8});
  l.reg.push_back({kd, 4 * e});
  l.lane = {{kd, e}, {kd, 2 * e}, {md, 1}, {md, 2}, {md, 4}};
  return l;
}

std::optional<WgmmaPlan> planWgmma(int64_t M, int64_t N, int64_t K, DType a, DType b, DType r,
                                   int contigA, int contigB, int numWarps, int targetSm,
                                   bool archSpecific, bool aInRegisters) {
  if (targetSm != 90 || !archSpecific || numWarps % 4 != 0) return std::nullopt;
  WgmmaPlan p;
  // 8-bit operands must be K-major: wgmma cannot transpose them.
  const bool kMajor = (aInRegisters || contigA == 1) && contigB == 0;
  if ((a == DType::F16 || a == DType::BF16) && b == a && r == DType::F32) {
    p.k = 16;
    p.types = a == DType::F16 ? "f32.f16.f16" : "f32.bf16.bf16";
  } else if (isMmaFp8(a) && isMmaFp8(b) && r == DType::F32 && kMajor) {
    p.k = 32;
    p.types = std::string("f32.") + fp8Name(a) + "." + fp8Name(b);
  } else if (isMmaInt8(a) && isMmaInt8(b) && r == DType::I32 && kMajor) {
    p.k = 32;
    p.accType = DType::I32;
    p.types = int8Types(a, b);
  } else {
    return std::nullopt;
  }
  p.elemBytes = 32 / p.k;
  // Each operand's contiguous extent fills a 32-, 64- or 128-byte swizzle,
  // its other extent whole 8-row groups.
  auto fits = [&](int64_t contiguous, int64_t other) {
    return SharedLayout::swizzleFor(contiguous * p.elemBytes) != 0 && other % 8 == 0;
  };
  if (!aInRegisters && !fits(contigA == 1 ? K : M, contigA == 1 ? M : K)) return std::nullopt;
  if (!fits(contigB == 0 ? K : N, contigB == 0 ? N : K)) return std::nullopt;
  if (M % 64 != 0 || K % p.k != 0) return std::nullopt;
  int64_t groups = numWarps / 4;
  p.wgM = std::min<int64_t>(groups, M / 64);
  p.wgN = groups / p.wgM;
  if (p.wgM * p.wgN != groups || N % (8 * p.wgN) != 0) return std::nullopt;
  p.mTiles = M / 64 / p.wgM;
  p.n = N / p.wgN;
  if (p.n > 256 || p.n % 8 != 0) return std::nullopt;
  // The integer forms exist for N = 8, 16, 24 and multiples of 16 only.
  if (p.accType == DType::I32 && p.n > 24 && p.n % 16 != 0) return std::nullopt;
  return p;
}

std::optional<WgmmaPlan> selectWgmma(const Operation &op, int numWarps, int targetSm,
                                     bool archSpecific) {
  const Type &a = op.operand(0)->type, &b = op.operand(1)->type, &r = op.result()->type;
  if (!b.isMemDesc() || !r.isTile() || r.rank() != 2) return std::nullopt;
  auto lb = SharedLayout::parse(b.layout.str());
  if (!lb || !lb->swizzle) return std::nullopt;
  if (a.isTile() && a.rank() == 2)
    return planWgmma(r.shape[0], r.shape[1], a.shape[1], a.dtype, b.dtype, r.dtype, 1, lb->contig,
                     numWarps, targetSm, archSpecific, /*aInRegisters=*/true);
  if (!a.isMemDesc()) return std::nullopt;
  auto la = SharedLayout::parse(a.layout.str());
  if (!la || !la->swizzle) return std::nullopt;
  return planWgmma(r.shape[0], r.shape[1], a.shape[a.rank() - 1], a.dtype, b.dtype, r.dtype,
                   la->contig, lb->contig, numWarps, targetSm, archSpecific);
}

bool wgmmaMayRead(const Operation &op, int operand, int contig, int numWarps, int targetSm,
                  bool archSpecific) {
  const Type &a = op.operand(0)->type, &b = op.operand(1)->type, &r = op.result()->type;
  if (!a.isTile() || !b.isTile() || a.rank() != 2 || b.rank() != 2 || r.rank() != 2) return false;
  auto plan = [&](int contigA, int contigB, bool aInRegisters) {
    return planWgmma(r.shape[0], r.shape[1], a.shape[1], a.dtype, b.dtype, r.dtype, contigA,
                     contigB, numWarps, targetSm, archSpecific, aInRegisters)
        .has_value();
  };
  for (int other = 0; other < 2; ++other)
    if (operand == 0 ? plan(contig, other, false) : plan(other, contig, false)) return true;
  return operand == 1 && plan(1, contig, true);
}

LinearLayout wgmmaAccumulatorLayout(int64_t M, int64_t N, const WgmmaPlan &p, int numWarps) {
  LinearLayout l;
  l.shape = {M, N};
  l.reg = {{1, 1}, {0, 8}};
  for (int64_t v = 8; v < p.n; v *= 2) l.reg.push_back({1, v});
  for (int64_t v = 64; v < 64 * p.mTiles; v *= 2) l.reg.push_back({0, v});
  l.lane = {{1, 2}, {1, 4}, {0, 1}, {0, 2}, {0, 4}};
  l.warp = {{0, 16}, {0, 32}};
  for (int64_t v = 64 * p.mTiles; v < M; v *= 2) l.warp.push_back({0, v});
  for (int64_t v = p.n; v < N; v *= 2) l.warp.push_back({1, v});
  while (static_cast<int>(l.warp.size()) < log2i(numWarps)) l.warp.push_back({});
  return l;
}

LinearLayout wgmmaOperandALayout(int64_t M, int64_t K, const WgmmaPlan &p, int numWarps) {
  WgmmaPlan asIfAccumulator = p;
  asIfAccumulator.n = K;
  LinearLayout l = wgmmaAccumulatorLayout(M, K, asIfAccumulator, numWarps);
  if (p.elemBytes == 2) return l;
  // 8-bit elements: four consecutive K per register, so the lanes' K
  // bits move up by one and the fragment's two 16-byte halves sit 16
  // elements apart (the ISA's m64nNk32 A fragment). Rows and warps as for
  // the accumulator.
  int64_t per = 4 / p.elemBytes;
  l.reg.clear();
  for (int64_t v = 1; v < per; v *= 2) l.reg.push_back({1, v});
  l.reg.push_back({0, 8});
  for (int64_t v = 4 * per; v < K; v *= 2) l.reg.push_back({1, v});
  for (int64_t v = 64; v < 64 * p.mTiles; v *= 2) l.reg.push_back({0, v});
  l.lane = {{1, per}, {1, 2 * per}, {0, 1}, {0, 2}, {0, 4}};
  return l;
}

LdmatrixRow ldmatrixRowA(int lane, bool trans) {
  int j = lane / 8, r = lane % 8;
  // Matrices 0..3 are the fragment registers a0..a3: (rows 0-7, k 0-15 bytes),
  // (rows 8-15, same k), (rows 0-7, k 16-31 bytes), (rows 8-15, k 16-31).
  if (!trans) return {r + 8 * (j % 2), 16 * (j / 2)};
  // Stored K x M: matrix j holds k rows 8*(j/2).., m columns 8*(j%2)..
  return {r + 8 * (j / 2), 16 * (j % 2)};
}

LdmatrixRow ldmatrixRowB(int lane, bool trans) {
  int j = lane / 8, r = lane % 8;
  // Matrices 0..3 are b0, b1 of n-tile 0 and b0, b1 of n-tile 1.
  if (!trans) return {r + 8 * (j / 2), 16 * (j % 2)};
  // Stored K x N: matrix j holds k rows 8*(j%2).., n columns 8*(j/2)..
  return {r + 8 * (j % 2), 16 * (j / 2)};
}

}  // namespace tessera::ptx
