// descriptors-from-pointers on the CPU: the GPU suite's pointer matmuls
// (tests/gpu/test_pointer_tma_gpu.py), compiled for sm_90a's Tile IR,
// before and after the pass, run on the interpreter on the same random
// inputs. The pass must turn the masked loads into descriptor loads (the
// interpreter runs their expansion, ir/descriptor_load.h) and change no bit
// of the output; both runs are also checked against a float64 matmul.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "codegen/ptx/gpu_passes.h"
#include "interp/interp.h"
#include "ir/ir_parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/numerics.h"
#include "support/source.h"
#include "tessera/tessera.h"

namespace {

using tessera::interp::ArgValue;
using tessera::interp::HostBuffer;

std::string readSource(const std::string &path) {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/" + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Modules {
  std::unique_ptr<tessera::Module> before, after;
};

// The kernel's optimised Tile IR, and a copy through the pass as sm_90a
// runs it.
Modules compileBoth(const std::string &kernel, const std::string &signature,
                    const std::string &file = "tests/gpu/test_pointer_tma_gpu.py") {
  auto k = tessera::compile(readSource(file), kernel, signature);
  tessera::SourceManager sm;
  Modules m;
  m.before = tessera::parseIRString(sm, "before.tir", k->ir("ttir"));
  m.after = tessera::cloneModule(*m.before);
  m.after->targetSm = 90;
  m.after->archSpecific = true;
  m.after->globalScratch = true;
  tessera::ptx::descriptorsFromPointers(*m.after);
  EXPECT_EQ(tessera::verify(*m.after), "");
  return m;
}

int countOps(tessera::Function &fn, tessera::OpCode code) {
  int n = 0;
  fn.walk([&](tessera::Operation *op) { n += op->code == code; });
  return n;
}

// Exact fp16 values (multiples of 1/8 in [-2, 2]) so that the float64
// reference is exact too.
std::vector<uint16_t> randomF16(size_t n, std::mt19937 &rng, std::vector<double> &values) {
  std::uniform_int_distribution<int> pick(-16, 16);
  std::vector<uint16_t> out(n);
  values.resize(n);
  for (size_t i = 0; i < n; ++i) {
    values[i] = pick(rng) / 8.0;
    out[i] = tessera::num::toF16(values[i]);
  }
  return out;
}

struct Case {
  int M, N, K;
  bool bNK;     // B stored [N, K] (its K stride 1)
  int mask;     // the kernel's MASK
  bool stepK;   // the loop counts elements
  int padCols;  // A and B are column slices of wider arrays (by more than the rounding)
};

void runCase(const Case &c) {
  SCOPED_TRACE("M " + std::to_string(c.M) + " N " + std::to_string(c.N) + " K " +
               std::to_string(c.K) + (c.bNK ? " B [N, K]" : "") + " mask " +
               std::to_string(c.mask));
  const int BM = 64, BN = 64;  // BK 32, in the signature
  // Row strides rounded up to 16 elements, as the signature states them.
  auto round16 = [](int x) { return (x + 15) / 16 * 16; };
  int lda = round16(c.K + c.padCols), ldb = round16((c.bNK ? c.K : c.N) + c.padCols);
  std::string sig = "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, " +
                    std::string(c.bNK ? "1, i32:16" : "i32:16, 1") + ", 64, 64, 32, " +
                    std::to_string(c.mask) + ", " + (c.stepK ? "1" : "0");
  Modules m = compileBoth("ptr_matmul", sig);
  tessera::Function &before = *m.before->functions.at(0), &after = *m.after->functions.at(0);
  int want = c.mask == 3 ? 1 : 2;  // a mask that is not a box keeps A's load
  EXPECT_EQ(countOps(after, tessera::OpCode::DescriptorLoad), want)
      << tessera::printModule(*m.after);
  EXPECT_EQ(countOps(before, tessera::OpCode::DescriptorLoad), 0);

  std::mt19937 rng(static_cast<unsigned>(c.M * 131 + c.N * 7 + c.K + c.mask));
  std::vector<double> av, bv;
  std::vector<uint16_t> a = randomF16(size_t(c.M) * lda, rng, av);
  std::vector<uint16_t> b = randomF16(size_t(c.bNK ? c.N : c.K) * ldb, rng, bv);
  auto element = [&](int k, int n) {
    return c.bNK ? bv[size_t(n) * ldb + k] : bv[size_t(k) * ldb + n];
  };
  std::vector<float> out[2];
  int run = 0;
  for (tessera::Function *fn : {&before, &after}) {
    std::vector<float> &o = out[run++];
    o.assign(size_t(c.M) * c.N, std::nanf(""));
    int64_t sbk = c.bNK ? 1 : ldb;
    std::vector<ArgValue> args{ArgValue::pointer(a.data()), ArgValue::pointer(b.data()),
                               ArgValue::pointer(o.data()), ArgValue::integer(c.M),
                               ArgValue::integer(c.N),      ArgValue::integer(c.K),
                               ArgValue::integer(0),        ArgValue::integer(lda),
                               ArgValue::integer(0),        ArgValue::integer(c.bNK ? ldb : sbk)};
    std::vector<HostBuffer> buffers{{a.data(), a.size() * 2, "a_ptr", true},
                                    {b.data(), b.size() * 2, "b_ptr", true},
                                    {o.data(), o.size() * 4, "c_ptr", false}};
    tessera::interp::Grid grid{(c.M + BM - 1) / BM, (c.N + BN - 1) / BN, 1};
    tessera::interp::run(*fn, args, buffers, grid);
  }
  int differ = 0;
  for (size_t i = 0; i < out[0].size(); ++i) differ += std::memcmp(&out[0][i], &out[1][i], 4) != 0;
  EXPECT_EQ(differ, 0) << "elements that differ after the pass";
  for (int i = 0; i < c.M; ++i)
    for (int j = 0; j < c.N; ++j) {
      double ref = 0;
      if (!(c.mask == 3 && i == 0))
        for (int k = 0; k < c.K; ++k) ref += av[size_t(i) * lda + k] * element(k, j);
      ASSERT_EQ(out[1][size_t(i) * c.N + j], ref) << "at " << i << ", " << j;
    }
}

TEST(PointerTma, MaskedLoadsBecomeBoxesAndReadTheSameElements) {
  runCase({100, 72, 80, false, 1, false, 0});
  runCase({100, 72, 80, true, 1, false, 0});
  runCase({64, 128, 96, false, 0, false, 0});  // unmasked: multiples of the blocks
  runCase({64, 128, 96, true, 0, false, 0});
  runCase({70, 90, 50, false, 2, false, 0});  // `<=` and `>`
  runCase({70, 90, 50, true, 1, true, 24});   // element-counting loop, slices
  runCase({70, 90, 50, false, 3, false, 0});  // not a box: A stays a pointer load
  runCase({1, 8, 16, false, 1, false, 0});
}

// One load read both ways (X @ y_t and y_t^T @ Z, flash attention's Q^T):
// the three loads become descriptor loads and the outputs keep their bits.
TEST(PointerTma, OneLoadReadBothWays) {
  const int BM = 64, BN = 64, BK = 32, BD = 64, K = 4 * BK, ly = K + 16;
  Modules m = compileBoth("both_ways",
                          "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32:16, i32:16, "
                          "i32:16, 64, 64, 32, 64");
  tessera::Function &before = *m.before->functions.at(0), &after = *m.after->functions.at(0);
  EXPECT_EQ(countOps(after, tessera::OpCode::DescriptorLoad), 3) << tessera::printModule(*m.after);
  std::mt19937 rng(7);
  std::vector<double> xv, yv, zv;
  std::vector<uint16_t> x = randomF16(size_t(BM) * K, rng, xv),
                        y = randomF16(size_t(BN) * ly, rng, yv),
                        z = randomF16(size_t(K) * BD, rng, zv);
  std::vector<float> outs[2][2];
  int run = 0;
  for (tessera::Function *fn : {&before, &after}) {
    std::vector<float> &c = outs[run][0], &d = outs[run][1];
    ++run;
    c.assign(size_t(BM) * BN, std::nanf(""));
    d.assign(size_t(BN) * BD, std::nanf(""));
    std::vector<ArgValue> args{
        ArgValue::pointer(x.data()), ArgValue::pointer(y.data()), ArgValue::pointer(z.data()),
        ArgValue::pointer(c.data()), ArgValue::pointer(d.data()), ArgValue::integer(K),
        ArgValue::integer(K),        ArgValue::integer(ly),       ArgValue::integer(BD)};
    std::vector<HostBuffer> buffers{{x.data(), x.size() * 2, "x_ptr", true},
                                    {y.data(), y.size() * 2, "y_ptr", true},
                                    {z.data(), z.size() * 2, "z_ptr", true},
                                    {c.data(), c.size() * 4, "c_ptr", false},
                                    {d.data(), d.size() * 4, "d_ptr", false}};
    tessera::interp::run(*fn, args, buffers, {1, 1, 1});
  }
  for (int o = 0; o < 2; ++o)
    EXPECT_EQ(std::memcmp(outs[0][o].data(), outs[1][o].data(), outs[0][o].size() * 4), 0);
  for (int i = 0; i < BM; ++i)
    for (int j = 0; j < BN; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += xv[size_t(i) * K + k] * yv[size_t(j) * ly + k];
      ASSERT_EQ(outs[1][0][size_t(i) * BN + j], ref);
    }
  for (int i = 0; i < BN; ++i)
    for (int j = 0; j < BD; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += yv[size_t(i) * ly + k] * zv[size_t(k) * BD + j];
      ASSERT_EQ(outs[1][1][size_t(i) * BD + j], ref);
    }
}

// The example attention (examples/attention.py), causal: its K and V loads
// in both loops become descriptor loads (the diagonal loop starts at the
// program's first row, a lower bound the pass proves >= 0), and O and the
// log-sum-exp keep their bits. 200 keys: the last block is ragged.
TEST(PointerTma, ExampleAttentionKeepsItsBits) {
  const int n = 200, heads = 2, d = 64, block = 64;
  Modules m =
      compileBoth("attention_fwd_kernel",
                  "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32, i32:16, "
                  "i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 64, 64, 64, 1",
                  "examples/attention.py");
  tessera::Function &before = *m.before->functions.at(0), &after = *m.after->functions.at(0);
  EXPECT_EQ(countOps(after, tessera::OpCode::DescriptorLoad), 4) << tessera::printModule(*m.after);
  std::mt19937 rng(11);
  std::vector<double> unused;
  size_t elems = size_t(heads) * n * d;
  std::vector<uint16_t> q = randomF16(elems, rng, unused), k = randomF16(elems, rng, unused),
                        v = randomF16(elems, rng, unused);
  std::vector<uint16_t> o[2];
  std::vector<float> lse[2];
  for (int run = 0; run < 2; ++run) {
    o[run].assign(elems, 0x7E00);  // NaN
    lse[run].assign(size_t(heads) * n, std::nanf(""));
    std::vector<ArgValue> args{ArgValue::pointer(q.data()),
                               ArgValue::pointer(k.data()),
                               ArgValue::pointer(v.data()),
                               ArgValue::pointer(o[run].data()),
                               ArgValue::pointer(lse[run].data()),
                               ArgValue::floating(0.125),
                               ArgValue::integer(n)};
    // Head and row strides of Q, K, V, O (V's head-dim stride is the
    // signature's constant 1).
    for (int s = 0; s < 4; ++s) {
      args.push_back(ArgValue::integer(int64_t(n) * d));
      args.push_back(ArgValue::integer(d));
    }
    std::vector<HostBuffer> buffers{{q.data(), elems * 2, "q_ptr", true},
                                    {k.data(), elems * 2, "k_ptr", true},
                                    {v.data(), elems * 2, "v_ptr", true},
                                    {o[run].data(), elems * 2, "o_ptr", false},
                                    {lse[run].data(), lse[run].size() * 4, "lse_ptr", false}};
    tessera::interp::run(run == 0 ? before : after, args, buffers,
                         {(n + block - 1) / block, heads, 1});
  }
  EXPECT_EQ(std::memcmp(o[0].data(), o[1].data(), elems * 2), 0);
  EXPECT_EQ(std::memcmp(lse[0].data(), lse[1].data(), lse[0].size() * 4), 0);
  size_t nan = 0, nonzero = 0;
  for (uint16_t h : o[1]) {
    nan += (h & 0x7C00) == 0x7C00;
    nonzero += (h & 0x7FFF) != 0;
  }
  EXPECT_EQ(nan, 0u) << "outputs left unwritten";
  EXPECT_GT(nonzero, elems / 2);
}

// Runs a kernel taking (a, b, c, M, N, K, lda, ldb, ldc) with fp16 A and B
// on the interpreter, into a C of `cElems` NaNs; returns C.
std::vector<float> runMatmul(tessera::Function &fn, std::vector<uint16_t> &a,
                             std::vector<uint16_t> &b, int M, int N, int K, int lda, int ldb,
                             int ldc, size_t cElems, tessera::interp::Grid grid) {
  std::vector<float> c(cElems, std::nanf(""));
  std::vector<ArgValue> args{
      ArgValue::pointer(a.data()), ArgValue::pointer(b.data()), ArgValue::pointer(c.data()),
      ArgValue::integer(M),        ArgValue::integer(N),        ArgValue::integer(K),
      ArgValue::integer(lda),      ArgValue::integer(ldb),      ArgValue::integer(ldc)};
  std::vector<HostBuffer> buffers{{a.data(), a.size() * 2, "a_ptr", true},
                                  {b.data(), b.size() * 2, "b_ptr", true},
                                  {c.data(), c.size() * 4, "c_ptr", false}};
  tessera::interp::run(fn, args, buffers, grid);
  return c;
}

// Rows and columns wrapped with `% M` / `% N` (Triton's matmul tutorial):
// the loads become descriptor loads when the wrapped rows reach no store
// (the store masks them) and stay pointer loads when a store keeps them;
// either way C keeps its bits, wrapped rows included. M and N below the
// block wrap several times.
TEST(PointerTma, WrappedRowsOnlyWhereNoStoreKeepsThem) {
  const int BM = 64, BN = 128;
  for (bool storeAll : {false, true})
    for (auto [M, N, K] : {std::tuple{200, 136, 344}, std::tuple{40, 24, 64}}) {
      SCOPED_TRACE("M " + std::to_string(M) + " N " + std::to_string(N) +
                   (storeAll ? " storing every row" : ""));
      Modules m = compileBoth("wrapped_rows",
                              "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, "
                              "i32:16, 64, 128, 64, " +
                                  std::string(storeAll ? "1" : "0"));
      tessera::Function &before = *m.before->functions.at(0), &after = *m.after->functions.at(0);
      EXPECT_EQ(countOps(after, tessera::OpCode::DescriptorLoad), storeAll ? 0 : 2);
      int rows = (M + BM - 1) / BM * BM, cols = (N + BN - 1) / BN * BN;
      int lda = (K + 15) / 16 * 16, ldb = (N + 15) / 16 * 16;
      std::mt19937 rng(static_cast<unsigned>(M + N + storeAll));
      std::vector<double> av, bv;
      std::vector<uint16_t> a = randomF16(size_t(M) * lda, rng, av),
                            b = randomF16(size_t(K) * ldb, rng, bv);
      std::vector<float> out[2];
      for (int run = 0; run < 2; ++run)
        out[run] = runMatmul(run == 0 ? before : after, a, b, M, N, K, lda, ldb, cols,
                             size_t(rows) * cols, {rows / BM, cols / BN, 1});
      EXPECT_EQ(std::memcmp(out[0].data(), out[1].data(), out[0].size() * 4), 0);
      for (int i = 0; i < (storeAll ? rows : M); ++i)
        for (int j = 0; j < (storeAll ? cols : N); ++j) {
          double ref = 0;
          for (int k = 0; k < K; ++k)
            ref += av[size_t(i % M) * lda + k] * bv[size_t(k) * ldb + j % N];
          ASSERT_EQ(out[1][size_t(i) * cols + j], ref) << "at " << i << ", " << j;
        }
    }
}

// Triton's matmul tutorial's grouped order: the wrapped rows start at a
// block row no analysis proves >= 0 (a quotient by cdiv(N, BN)), so the
// loads become descriptor loads only where `tl.assume(pid_m >= 0)` runs
// before them (ASSUME 1, 2: after an early return), not from a branch
// they are not in (3). C keeps its bits either way.
TEST(PointerTma, GroupedRowsConvertUnderAnAssumption) {
  const int BM = 64, BN = 128, M = 200, N = 264, K = 96;
  for (int assume : {0, 1, 2, 3}) {
    SCOPED_TRACE("ASSUME " + std::to_string(assume));
    Modules m = compileBoth("grouped_wrapped",
                            "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, "
                            "i32:16, 64, 128, 64, 2, " +
                                std::to_string(assume));
    tessera::Function &before = *m.before->functions.at(0), &after = *m.after->functions.at(0);
    EXPECT_EQ(countOps(after, tessera::OpCode::DescriptorLoad), assume == 1 || assume == 2 ? 2 : 0);
    int lda = (K + 15) / 16 * 16, ldb = (N + 15) / 16 * 16;
    std::mt19937 rng(static_cast<unsigned>(assume + 5));
    std::vector<double> av, bv;
    std::vector<uint16_t> a = randomF16(size_t(M) * lda, rng, av),
                          b = randomF16(size_t(K) * ldb, rng, bv);
    std::vector<float> out[2];
    int programs = (M + BM - 1) / BM * ((N + BN - 1) / BN);
    for (int run = 0; run < 2; ++run)
      out[run] = runMatmul(run == 0 ? before : after, a, b, M, N, K, lda, ldb, N, size_t(M) * N,
                           {programs, 1, 1});
    EXPECT_EQ(std::memcmp(out[0].data(), out[1].data(), out[0].size() * 4), 0);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double ref = 0;
        for (int k = 0; k < K; ++k) ref += av[size_t(i) * lda + k] * bv[size_t(k) * ldb + j];
        ASSERT_EQ(out[1][size_t(i) * N + j], ref) << "at " << i << ", " << j;
      }
  }
}

}  // namespace
