// descriptors-from-pointers against adversarial kernels (found in review):
// masks bounding a size-1 dim, wrapped indices with a negative start,
// int16 offsets that wrap, a packed map_elementwise after wrapped columns,
// a scalar base pointer the loop carries or loads, an unmasked dim stepped
// far past its box, a store mask bounding rows through a size-1 dim, and a
// column-major operand read both ways. Each kernel runs on the interpreter
// before and after the pass (compiled for sm_90a's Tile IR) on the same
// inputs; every output byte must agree, and so must any error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codegen/ptx/affine_tiles.h"
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

const char *kSrc = R"PY(
import triton
import triton.language as tl

# 1: a size-1 dim (tl.arange(0, 1)) in the mask, broadcast to the tile.
@triton.jit
def bcast1(a_ptr, b_ptr, c_ptr, L, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    one = tl.arange(0, 1)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(one[:, None] < L) & (rk[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)

# 2: wrapped rows with a negative start (x0 + i <= -M for the first rows).
@triton.jit
def wrapneg(a_ptr, b_ptr, c_ptr, M, off, K, sam, BM: tl.constexpr, BN: tl.constexpr,
            BK: tl.constexpr):
    rm = (off + tl.arange(0, BM)) % M
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + 64 * sam + rm[:, None] * sam + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k, other=0.0)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * BN
    cm = off + tl.arange(0, BM)
    tl.store(c_ptr + tl.arange(0, BM)[:, None] * BN + rn[None, :], acc,
             mask=(cm[:, None] < M) & (rn[None, :] < BN))

# 3: an int16 offset that wraps in the kernel.
@triton.jit
def i16wrap(a_ptr, b_ptr, c_ptr, x, y, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    off = x * y
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + off + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(rk[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)

@triton.jit
def swap2(a0, a1):
    return a1, a0

# 4: wrapped columns, then a packed map_elementwise that swaps neighbours.
@triton.jit
def packswap(a_ptr, b_ptr, c_ptr, N, K, sbk, BM: tl.constexpr, BN: tl.constexpr,
             BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN) % N
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * sbk
    out = tl.map_elementwise(swap2, acc, pack=2)[0]
    cn = tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * BN + cn[None, :], out, mask=cn[None, :] < N)
# 5: a scalar base pointer carried by the loop, with an invariant offset.
@triton.jit
def scalarcarried(a_ptr, b_ptr, c_ptr, K, OFF: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_base = a_ptr
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_base + tl.program_id(0) * OFF + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_base += BK
        b_ptrs += BK * BN
    # Each program its own block of C (the interpreter runs programs at once).
    c_block = c_ptr + tl.program_id(0) * BM * BN
    tl.store(c_block + rm[:, None] * BN + rn[None, :], acc)

# 6: the base pointer loaded from a table in the loop.
@triton.jit
def loadedbase(a_ptr, t_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        o = tl.load(t_ptr + k // BK)
        a = tl.load(a_ptr + o + 64 + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)

# 7: int8, a constant step past 2^31 elements in an unchecked dim.
@triton.jit
def bigstep(a_ptr, b_ptr, c_ptr, n, sam, STEP: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
            BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] + rn[None, :] * BK
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, n):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += STEP
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
# 8: wrapped rows; the store's mask bounds rows through a size-1 dim (stores all).
@triton.jit
def wrapstore1(a_ptr, b_ptr, c_ptr, M, K, sam, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    rm = (tl.program_id(0) * BM + tl.arange(0, BM)) % M
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k, other=0.0)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * BN
    one = tl.arange(0, 1)
    cm = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(c_ptr + cm[:, None] * BN + rn[None, :], acc,
             mask=(one[:, None] < M - tl.program_id(0) * BM) & (rn[None, :] < BN))

# 9 and 11: arithmetic in a mask's bound that wraps in the kernel: an int16
# sum (x, y int16) or an int32 product (x, y int32).
@triton.jit
def wrapped_bound(a_ptr, b_ptr, c_ptr, x, y, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr, PRODUCT: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    bound = x * y if PRODUCT else x + y
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(rm[:, None] < bound) & (rk[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)

# 10: column-major A (its K stride 1) read directly and transposed, masks on both dims,
# a nonzero lower bound, a loop step of 2 blocks.
@triton.jit
def colmajor(a_ptr, b_ptr, c_ptr, d_ptr, M, K, sak, BM: tl.constexpr, BN: tl.constexpr,
             BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc2 = tl.zeros((BK, BK), dtype=tl.float32)
    a_ptrs = a_ptr + rm[:, None] + rk[None, :] * sak + BK * sak
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    for k in range(BK, K, 2 * BK):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        acc2 = tl.dot(tl.trans(a), a, acc2)
        a_ptrs += 2 * BK * sak
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
    tl.store(d_ptr + rk[:, None] * BK + rk[None, :], acc2)
)PY";

struct Buf {
  std::vector<uint8_t> data;
  bool ro;
  std::string name;
};
struct Arg {
  int buf = -1;         // >= 0: pointer into buffer
  int64_t byteOff = 0;  // for pointers
  int64_t i = 0;        // integer
  static Arg ptr(int b, int64_t off = 0) { return {b, off, 0}; }
  static Arg num(int64_t v) { return {-1, 0, v}; }
};

struct Outcome {
  int descLoads = 0;
  std::vector<int> differing;  // per buffer
  std::string after, err[2];
};

Outcome runBoth(const std::string &kernel, const std::string &sig, const std::vector<Buf> &bufs,
                const std::vector<Arg> &args, tessera::interp::Grid grid,
                const char *src = nullptr) {
  Outcome o;
  auto k = tessera::compile(src ? src : kSrc, kernel, sig);
  tessera::SourceManager sm;
  auto before = tessera::parseIRString(sm, "before.tir", k->ir("ttir"));
  auto after = tessera::cloneModule(*before);
  after->targetSm = 90;
  after->archSpecific = true;
  after->globalScratch = true;
  tessera::ptx::descriptorsFromPointers(*after);
  EXPECT_EQ(tessera::verify(*after), "");
  o.after = tessera::printModule(*after);
  after->functions.at(0)->walk(
      [&](tessera::Operation *op) { o.descLoads += op->code == tessera::OpCode::DescriptorLoad; });
  std::vector<std::vector<uint8_t>> res[2];
  for (int run = 0; run < 2; ++run) {
    std::vector<Buf> b = bufs;
    std::vector<ArgValue> av;
    for (const Arg &a : args)
      av.push_back(a.buf >= 0 ? ArgValue::pointer(b[a.buf].data.data() + a.byteOff)
                              : ArgValue::integer(a.i));
    std::vector<HostBuffer> hb;
    for (auto &x : b) hb.push_back({x.data.data(), x.data.size(), x.name, x.ro});
    try {
      tessera::interp::run(*(run == 0 ? before : after)->functions.at(0), av, hb, grid);
    } catch (const std::exception &e) {
      o.err[run] = e.what();
    }
    for (auto &x : b) res[run].push_back(x.data);
  }
  for (size_t i = 0; i < bufs.size(); ++i) {
    int d = 0;
    for (size_t j = 0; j < res[0][i].size(); ++j) d += res[0][i][j] != res[1][i][j];
    o.differing.push_back(d);
  }
  return o;
}

Buf f16Buf(size_t n, std::mt19937 &rng, const std::string &name) {
  std::uniform_int_distribution<int> pick(-16, 16);
  Buf b{std::vector<uint8_t>(n * 2), true, name};
  for (size_t i = 0; i < n; ++i) {
    uint16_t h = tessera::num::toF16(pick(rng) / 8.0);
    std::memcpy(&b.data[i * 2], &h, 2);
  }
  return b;
}
Buf f32Out(size_t n, const std::string &name) {
  Buf b{std::vector<uint8_t>(n * 4), false, name};
  float nan = std::nanf("");
  for (size_t i = 0; i < n; ++i) std::memcpy(&b.data[i * 4], &nan, 4);
  return b;
}

// The common case: fp16 A and B of `aElems` and `bElems` random elements, a
// poisoned fp32 C of 64 x 64 per program, the kernel's integers after the three
// pointers; whether C keeps its bits through the pass.
int cBytesThatDiffer(const std::string &kernel, const std::string &sig, size_t aElems,
                     size_t bElems, const std::vector<int64_t> &ints, unsigned seed,
                     tessera::interp::Grid grid = {1, 1, 1}) {
  std::mt19937 rng(seed);
  // C: a poisoned 64 x 64 block per program.
  std::vector<Buf> bufs{f16Buf(aElems, rng, "a"), f16Buf(bElems, rng, "b"),
                        f32Out(size_t(64) * 64 * grid.x * grid.y * grid.z, "c")};
  std::vector<Arg> args{Arg::ptr(0), Arg::ptr(1), Arg::ptr(2)};
  for (int64_t v : ints) args.push_back(Arg::num(v));
  return runBoth(kernel, sig, bufs, args, grid).differing[2];
}

TEST(PointerTmaReview, Bcast1Mask) {
  // The mask's first condition is on a size-1 dim: true for every row when L > 0.
  EXPECT_EQ(cBytesThatDiffer("bcast1", "*fp16:16, *fp16:16, *fp32:16, i32, i32:16, 64, 64, 32",
                             64 * 64, 64 * 64, {5, 64}, 1),
            0);
}

TEST(PointerTmaReview, WrapNeg) {
  // M 16, a start of -40 (inside a buffer of 200 rows): rows below -M wrap.
  EXPECT_EQ(cBytesThatDiffer("wrapneg",
                             "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32:16, i32:16, 64, 64, 32",
                             200 * 64, 64 * 64, {16, -40, 64, 64}, 2),
            0);
}

// tl.assume facts are taken only as sums: `x * y >= 0` holds of an int32
// product that wrapped (65536 * -32769 is positive in int32), so it says
// nothing of the exact x * y the analysis reads (an int64 row start).
TEST(PointerTmaReview, AssumedProductsSayNothing) {
  const char *ir = R"IR(
func @k(%x: i32, %y: i32) {
  %zero = constant {value = 0} : i32
  %p = mul %x, %y : i32
  %s = add %x, %y : i32
  %cp = cmp %p, %zero {pred = "ge"} : i1
  assume %cp
  %cs = cmp %s, %zero {pred = "ge"} : i1
  assume %cs
  %q = mul %p, %x : i32
  return
}
)IR";
  tessera::SourceManager sm;
  auto m = tessera::parseIRString(sm, "assume.tir", ir);
  ASSERT_TRUE(m);
  tessera::Function &fn = *m->functions.at(0);
  tessera::ptx::AffineAnalysis affine(fn);
  const tessera::Operation *last = fn.body.terminator();
  auto valueOf = [&](const char *name) {
    tessera::Value *v = nullptr;
    fn.walk([&](tessera::Operation *op) {
      for (auto &r : op->results)
        if (r->nameHint == name) v = r.get();
    });
    return v;
  };
  auto p = affine.of(valueOf("p")), s = affine.of(valueOf("s"));
  ASSERT_TRUE(p && s);
  EXPECT_TRUE(affine.nonNegative(s->base, last));
  EXPECT_TRUE(affine.nonNegative(s->base.scaled(3), last));
  EXPECT_FALSE(affine.nonNegative(p->base, last));
}

TEST(PointerTmaReview, I16Wrap) {
  // 320 * 224 wraps in int16 (to 6144).
  EXPECT_EQ(cBytesThatDiffer("i16wrap",
                             "*fp16:16, *fp16:16, *fp32:16, i16:16, i16:16, i32:16, 64, 64, 32",
                             72000 + 64 * 64, 64 * 64, {320, 224, 64}, 3),
            0);
}

TEST(PointerTmaReview, PackSwap) {
  // N 17: column 16 stored takes wrapped column 17 through the packed swap.
  EXPECT_EQ(
      cBytesThatDiffer("packswap", "*fp16:16, *fp16:16, *fp32:16, i32, i32:16, i32:16, 64, 64, 32",
                       64 * 64, 64 * 32, {17, 64, 32}, 4),
      0);
}

TEST(PointerTmaReview, ScalarCarried) {
  EXPECT_EQ(
      cBytesThatDiffer("scalarcarried", "*fp16:16, *fp16:16, *fp32:16, i32:16, 4096, 64, 64, 32",
                       4 * 4096 + 64 * 64 + 256, 64 * 64, {64}, 5, {2, 1, 1}),
      0);
}

TEST(PointerTmaReview, LoadedBase) {
  const int BM = 64, BN = 64, K = 64;
  std::mt19937 rng(6);
  std::vector<Buf> bufs{f16Buf(1024 + BM * K + 256, rng, "a"),
                        Buf{std::vector<uint8_t>(8), true, "t"}, f16Buf(K * BN, rng, "b"),
                        f32Out(BM * BN, "c")};
  int32_t t[2] = {32, 512};
  std::memcpy(bufs[1].data.data(), t, 8);
  Outcome o =
      runBoth("loadedbase", "*fp16:16, *i32:16, *fp16:16, *fp32:16, i32:16, 64, 64, 32", bufs,
              {Arg::ptr(0), Arg::ptr(1), Arg::ptr(2), Arg::ptr(3), Arg::num(K)}, {1, 1, 1});
  EXPECT_EQ(o.differing[3], 0);
}

// An unmasked dim stepped by more than its box each iteration (here 4096
// elements of a 64-wide box): its int32 coordinate has no bound, so A stays
// a pointer load (with 2^28 a step, nine steps passed 2^31 and the rewritten
// kernel read element -2^31); B, which does not move, may still convert (it
// is stored K-major, as wgmma's int8 form reads it: a dot on mma.sync keeps
// its pointer loads).
TEST(PointerTmaReview, BigStep) {
  const int BM = 64, BN = 64, BK = 64, sam = 16, n = 3, step = 4096;
  std::vector<Buf> bufs{Buf{std::vector<uint8_t>(size_t(n) * step + BM * sam + BK, 1), true, "a"},
                        Buf{std::vector<uint8_t>(BK * BN, 1), true, "b"},
                        Buf{std::vector<uint8_t>(BM * BN * 4, 0xff), false, "c"}};
  Outcome o =
      runBoth("bigstep", "*i8:16, *i8:16, *i32:16, i32, i32:16, 4096, 64, 64, 64", bufs,
              {Arg::ptr(0), Arg::ptr(1), Arg::ptr(2), Arg::num(n), Arg::num(sam)}, {1, 1, 1});
  EXPECT_EQ(o.descLoads, 1) << o.after;
  EXPECT_EQ(o.differing[2], 0);
  EXPECT_EQ(o.err[1], o.err[0]);
}

TEST(PointerTmaReview, WrapStore1) {
  // The store's row bound is on a size-1 dim: it stores every row.
  EXPECT_EQ(cBytesThatDiffer("wrapstore1",
                             "*fp16:16, *fp16:16, *fp32:16, i32, i32:16, i32:16, 64, 64, 32",
                             40 * 64, 64 * 64, {40, 64, 64}, 8),
            0);
}

TEST(PointerTmaReview, I16Mask) {
  // 30000 + 30000 wraps negative in int16: the original mask is all false.
  EXPECT_EQ(cBytesThatDiffer("wrapped_bound",
                             "*fp16:16, *fp16:16, *fp32:16, i16, i16, i32:16, 64, 64, 32, 0",
                             64 * 64, 64 * 64, {30000, 30000, 64}, 9),
            0);
}

TEST(PointerTmaReview, ColMajor) {
  const int BM = 64, BN = 64, BK = 32;
  for (auto [M, K] : {std::pair{50, 200}, std::pair{64, 96}, std::pair{1, 33}}) {
    const int sak = 64;
    std::mt19937 rng(10 + M);
    std::vector<Buf> bufs{f16Buf(size_t(K + 3 * BK) * sak, rng, "a"),
                          f16Buf(size_t(8 * BK) * BN, rng, "b"), f32Out(BM * BN, "c"),
                          f32Out(BK * BK, "d")};
    Outcome o = runBoth(
        "colmajor", "*fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, i32:16, 64, 64, 32", bufs,
        {Arg::ptr(0), Arg::ptr(1), Arg::ptr(2), Arg::ptr(3), Arg::num(M), Arg::num(K),
         Arg::num(sak)},
        {1, 1, 1});
    EXPECT_EQ(o.differing[2], 0);
    EXPECT_EQ(o.differing[3], 0);
    EXPECT_EQ(o.err[0], o.err[1]);
  }
}

TEST(PointerTmaReview, I32Mask) {
  // 65536 * 65536 wraps to 0 in int32: the original mask is all false.
  EXPECT_EQ(cBytesThatDiffer("wrapped_bound",
                             "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32:16, 64, 64, 32, 1",
                             64 * 64, 64 * 64, {65536, 65536, 64}, 12),
            0);
}

}  // namespace
