// descriptors-from-pointers over random matmul kernels: each kernel picks
// how its rows, columns and K offsets are written (plain or wrapped with
// `%`), A's orientation, how the loop counts (blocks or elements), whether
// the pointers are carried or recomputed, each load's mask (none, `<`
// bounds, `<=`/`>` forms, one dim only, a lower bound that is no box) and
// whether the store is masked. Each runs on the interpreter before and after
// the pass (compiled for sm_90a's Tile IR) on the same inputs: both must
// fail alike (an out-of-bounds read of an unmasked load) or write the same
// bits. Over all kernels some loads must convert, so the test cannot pass by
// the pass doing nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codegen/ptx/gpu_passes.h"
#include "interp/interp.h"
#include "ir/ir_parser.h"
#include "ir/verifier.h"
#include "support/numerics.h"
#include "support/source.h"
#include "tessera/tessera.h"

namespace {

using tessera::interp::ArgValue;
using tessera::interp::HostBuffer;

struct Choice {
  bool wrapRows, wrapCols, aColMajor, countElements, recompute, storeMasked;
  int maskA, maskB;  // 0 none, 1 `<` bounds, 2 `<=` / `>`, 3 K only, 4 a lower bound too
};

std::string maskText(int kind, bool isA, const std::string &kIdx) {
  // kIdx: the K index of the tile's elements, e.g. "(k * BK + rk)".
  std::string kk = isA ? kIdx + "[None, :]" : kIdx + "[:, None]";
  std::string mn = isA ? "rm_[:, None]" : "rn_[None, :]";
  std::string lim = isA ? "M" : "N";
  switch (kind) {
    case 1:
      return "(" + mn + " < " + lim + ") & (" + kk + " < K)";
    case 2:
      return "(" + mn + " <= " + lim + " - 1) & (K > " + kk + ")";
    case 3:
      return kk + " < K";
    case 4:
      return "(" + mn + " >= 1) & (" + mn + " < " + lim + ") & (" + kk + " < K)";
    default:
      return "";
  }
}

std::string kernelSource(const Choice &c) {
  std::string s =
      "import triton\nimport triton.language as tl\n\n@triton.jit\n"
      "def k(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, scm, BM: tl.constexpr,\n"
      "      BN: tl.constexpr, BK: tl.constexpr):\n"
      "    rm_ = tl.program_id(0) * BM + tl.arange(0, BM)\n"
      "    rn_ = tl.program_id(1) * BN + tl.arange(0, BN)\n";
  s += std::string("    rm = ") + (c.wrapRows ? "rm_ % M\n" : "rm_\n");
  s += std::string("    rn = ") + (c.wrapCols ? "rn_ % N\n" : "rn_\n");
  s += "    rk = tl.arange(0, BK)\n"
       "    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak\n"
       "    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :]\n"
       "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n";
  std::string kIdx = c.countElements ? "(k + rk)" : "(k * BK + rk)";
  std::string kOff = c.countElements ? "k" : "k * BK";
  s +=
      c.countElements ? "    for k in range(0, K, BK):\n" : "    for k in range(tl.cdiv(K, BK)):\n";
  std::string pa = c.recompute ? "a_ptrs + " + kOff + " * sak" : "a_ptrs";
  std::string pb = c.recompute ? "b_ptrs + " + kOff + " * sbk" : "b_ptrs";
  auto load = [&](const std::string &var, const std::string &ptr, int kind, bool isA) {
    std::string m = maskText(kind, isA, kIdx);
    return "        " + var + " = tl.load(" + ptr +
           (m.empty() ? "" : ", mask=" + m + ", other=0.0") + ")\n";
  };
  s += load("a", pa, c.maskA, true);
  s += load("b", pb, c.maskB, false);
  s += "        acc = tl.dot(a, b, acc)\n";
  if (!c.recompute) s += "        a_ptrs += BK * sak\n        b_ptrs += BK * sbk\n";
  s += "    c_ptrs = c_ptr + rm_[:, None] * scm + rn_[None, :]\n";
  s += c.storeMasked ? "    tl.store(c_ptrs, acc, mask=(rm_[:, None] < M) & (rn_[None, :] < N))\n"
                     : "    tl.store(c_ptrs, acc)\n";
  return s;
}

int countOps(tessera::Function &fn, tessera::OpCode code) {
  int n = 0;
  fn.walk([&](tessera::Operation *op) { n += op->code == code; });
  return n;
}

TEST(PointerTmaRandom, KernelsKeepTheirBits) {
  std::mt19937 rng(2026);
  auto coin = [&] { return rng() % 2 == 1; };
  const int BM = 64, BN = 64, BK = 32;
  int converted = 0, ran = 0, failedAlike = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Choice c{coin(),
             coin(),
             coin(),
             coin(),
             coin(),
             coin(),
             static_cast<int>(rng() % 5),
             static_cast<int>(rng() % 5)};
    // Ragged sizes half the time; M and N below the block now and then.
    auto size = [&](int block) {
      int pick = static_cast<int>(rng() % 4);
      return pick == 0 ? block * (1 + static_cast<int>(rng() % 3))
                       : 8 + static_cast<int>(rng() % (3 * block));
    };
    int M = size(BM), N = size(BN), K = size(BK);
    std::string src = kernelSource(c);
    SCOPED_TRACE("trial " + std::to_string(trial) + " M " + std::to_string(M) + " N " +
                 std::to_string(N) + " K " + std::to_string(K) + "\n" + src);
    auto compiled = tessera::compile(src, "k",
                                     "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, " +
                                         std::string(c.aColMajor ? "1, i32:16" : "i32:16, 1") +
                                         ", i32:16, i32:16, 64, 64, 32");
    tessera::SourceManager sm;
    auto before = tessera::parseIRString(sm, "before.tir", compiled->ir("ttir"));
    auto after = tessera::cloneModule(*before);
    after->targetSm = 90;
    after->archSpecific = true;
    after->globalScratch = true;
    tessera::ptx::descriptorsFromPointers(*after);
    ASSERT_EQ(tessera::verify(*after), "");
    converted += countOps(*after->functions.at(0), tessera::OpCode::DescriptorLoad);

    // A is [M, K] (rows of lda) or its transpose stored [K, M]; B is [K, N];
    // every leading dim a multiple of 16 elements, as the signature says.
    auto round16 = [](int x) { return (x + 15) / 16 * 16; };
    int lda = round16(c.aColMajor ? M : K), ldb = round16(N);
    int rows = (M + BM - 1) / BM * BM, cols = (N + BN - 1) / BN * BN, ldc = round16(cols);
    std::uniform_int_distribution<int> pick(-8, 8);
    std::vector<uint16_t> a(size_t(c.aColMajor ? K : M) * lda), b(size_t(K) * ldb);
    for (auto &x : a) x = tessera::num::toF16(pick(rng) / 4.0);
    for (auto &x : b) x = tessera::num::toF16(pick(rng) / 4.0);
    std::vector<float> out[2];
    std::string error[2];
    for (int run = 0; run < 2; ++run) {
      out[run].assign(size_t(rows) * ldc, std::nanf(""));
      // sam and sak: one is the constant 1 (specialised away), the other lda.
      std::vector<ArgValue> args{ArgValue::pointer(a.data()),
                                 ArgValue::pointer(b.data()),
                                 ArgValue::pointer(out[run].data()),
                                 ArgValue::integer(M),
                                 ArgValue::integer(N),
                                 ArgValue::integer(K),
                                 ArgValue::integer(lda),
                                 ArgValue::integer(ldb),
                                 ArgValue::integer(ldc)};
      std::vector<HostBuffer> buffers{{a.data(), a.size() * 2, "a_ptr", true},
                                      {b.data(), b.size() * 2, "b_ptr", true},
                                      {out[run].data(), out[run].size() * 4, "c_ptr", false}};
      try {
        tessera::interp::run(*(run == 0 ? before : after)->functions.at(0), args, buffers,
                             {rows / BM, cols / BN, 1});
      } catch (const std::exception &e) {
        error[run] = e.what();
      }
    }
    if (!error[0].empty() || !error[1].empty()) {
      // An unmasked load past the arrays: the pass must not hide it either.
      EXPECT_FALSE(error[0].empty()) << "only after the pass: " << error[1];
      EXPECT_FALSE(error[1].empty()) << "only before the pass: " << error[0];
      ++failedAlike;
      continue;
    }
    ++ran;
    EXPECT_EQ(std::memcmp(out[0].data(), out[1].data(), out[0].size() * 4), 0)
        << "the pass changed what the kernel stores";
  }
  EXPECT_GT(converted, 60) << "too few loads converted for the test to mean anything";
  EXPECT_GT(ran, 60);
  std::printf("%d kernels ran, %d failed alike, %d loads converted\n", ran, failedAlike, converted);
}

}  // namespace
