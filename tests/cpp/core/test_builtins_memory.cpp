// tl atomics, block pointers and random numbers: IR shape, diagnostics, and
// results on the interpreter against C++ references (support/numerics.h for
// Philox, which states Triton's definitions).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "support/numerics.h"
#include "tessera/tessera.h"

namespace {

const char *kHeader = "import triton\nimport triton.language as tl\n\n@triton.jit\n";

std::string kernel(const std::string &params, const std::string &body) {
  return std::string(kHeader) + "def k(" + params + "):\n" + body;
}

std::string ir(const std::string &src, const std::string &sig) {
  return tessera::compile(src, "k", sig)->ir("ttir-initial");
}

std::string compileError(const std::string &src, const std::string &sig) {
  try {
    tessera::compile(src, "k", sig);
  } catch (const tessera::CompilationError &e) {
    return e.what();
  }
  ADD_FAILURE() << "compiled without an error:\n" << src;
  return {};
}

#define EXPECT_HAS(hay, needle) EXPECT_NE((hay).find(needle), std::string::npos) << (hay)

template <class T>
tessera::Arg buf(std::vector<T> &v) {
  return tessera::Arg::buffer(v.data(), v.size() * sizeof(T));
}

// ---- atomics ------------------------------------------------------------------------------

TEST(BuiltinsAtomic, LoweringAndAttributes) {
  std::string s = ir(kernel("C, F",
                            "    offs = tl.arange(0, 16)\n"
                            "    a = tl.atomic_add(C + offs, 1, mask=offs < 4)\n"
                            "    b = tl.atomic_max(C, 3, sem='relaxed', scope='cta')\n"
                            "    c = tl.atomic_xchg(F + offs, 2)\n"
                            "    d = tl.atomic_cas(C + offs, 0, 1, sem='acquire')\n"
                            "    e = tl.atomic_add(F, 1.5, mask=offs < 2)\n"),
                     "*i32, *fp32");
  EXPECT_HAS(s, "{kind = \"add\", scope = \"gpu\", sem = \"acq_rel\"} : tile<16xi32>");
  EXPECT_HAS(s, "{kind = \"max\", scope = \"cta\", sem = \"relaxed\"} : i32");
  EXPECT_HAS(s, "{kind = \"xchg\", scope = \"gpu\", sem = \"acq_rel\"} : tile<16xf32>");
  EXPECT_HAS(s, "atomic_cas %");
  EXPECT_HAS(s, "{scope = \"gpu\", sem = \"acquire\"} : tile<16xi32>");
  // A scalar pointer with a tile mask becomes a tile of (equal) pointers.
  EXPECT_HAS(s, "{kind = \"add\", scope = \"gpu\", sem = \"acq_rel\"} : tile<16xf32>");
}

TEST(BuiltinsAtomic, Errors) {
  std::string e = compileError(kernel("F", "    tl.atomic_and(F, 1)\n"), "*fp32");
  EXPECT_HAS(e, "needs integer elements, got float32");
  e = compileError(kernel("F", "    tl.atomic_max(F, 1)\n"), "*fp16");
  EXPECT_HAS(e, "does not support float16");
  e = compileError(kernel("F", "    tl.atomic_add(F, 1)\n"), "*i16");
  EXPECT_HAS(e, "does not support int16");
  e = compileError(kernel("F", "    tl.atomic_add(F, 1, sem='seq_cst')\n"), "*i32");
  EXPECT_HAS(e, "memory semantic 'seq_cst' not supported");
  e = compileError(kernel("F", "    tl.atomic_add(F, 1, scope='device')\n"), "*i32");
  EXPECT_HAS(e, "memory scope 'device' not supported");
  e = compileError(kernel("F", "    tl.atomic_add(F, tl.arange(0, 8))\n"), "*i32");
  EXPECT_HAS(e, "the pointer is a scalar");
  e = compileError(kernel("F", "    tl.atomic_add(3, 1)\n"), "*i32");
  EXPECT_HAS(e, "expects a pointer");
  e = compileError(kernel("F", "    tl.atomic_cas(F, 0, 1)\n"), "*i8");
  EXPECT_HAS(e, "width 16, 32 or 64");
}

TEST(BuiltinsAtomic, NumericOnInterpreter) {
  // Every program adds its id+1 to counter[0], takes the max into counter[1],
  // and the first CAS on counter[2] from 0 wins.
  std::string src = kernel("C, Old",
                           "    pid = tl.program_id(0)\n"
                           "    tl.atomic_add(C, pid + 1)\n"
                           "    tl.atomic_max(C + 1, pid * 3)\n"
                           "    old = tl.atomic_cas(C + 2, 0, pid + 100)\n"
                           "    tl.store(Old + pid, old)\n"
                           "    offs = tl.arange(0, 4)\n"
                           "    tl.atomic_or(C + 3 + offs, 1 << offs, mask=offs < 3)\n");
  auto k = tessera::compile(src, "k", "*i32, *i32");
  std::vector<int32_t> c(8, 0), old(10, -1);
  k->run({buf(c), buf(old)}, {10});
  EXPECT_EQ(c[0], 55);
  EXPECT_EQ(c[1], 27);
  EXPECT_GE(c[2], 100);
  int zeros = 0;
  for (int32_t o : old) zeros += o == 0;
  EXPECT_EQ(zeros, 1);  // exactly one program saw the initial value
  EXPECT_EQ(c[3], 1);
  EXPECT_EQ(c[4], 2);
  EXPECT_EQ(c[5], 4);
  EXPECT_EQ(c[6], 0);
}

// ---- block pointers ---------------------------------------------------------------------

TEST(BuiltinsBlockPtr, Errors) {
  std::string e = compileError(
      kernel("X", "    p = tl.make_block_ptr(X, (8, 8), (8, 1), (0, 0), (4, 4), (0, 0))\n"),
      "*fp32");
  EXPECT_HAS(e, "permutation");
  e = compileError(
      kernel("X", "    p = tl.make_block_ptr(X, (8,), (8, 1), (0, 0), (4, 4), (1, 0))\n"), "*fp32");
  EXPECT_HAS(e, "must have the same length");
  e = compileError(kernel("X, o", "    p = tl.make_block_ptr(X, (8,), (1,), (o,), (4,), (0,))\n"),
                   "*fp32, i64");
  EXPECT_HAS(e, "only support 32-bit offsets");
  std::string mk = "    p = tl.make_block_ptr(X, (8,), (1,), (0,), (4,), (0,))\n";
  e = compileError(kernel("X", mk + "    x = tl.load(p, padding_option='nan')\n"), "*i32");
  EXPECT_HAS(e, "'nan' is not supported for integer block pointers");
  e = compileError(kernel("X", mk + "    x = tl.load(p, boundary_check=(1,))\n"), "*fp32");
  EXPECT_HAS(e, "boundary_check dimension 1 is out of range");
  e = compileError(kernel("X", mk + "    tl.store(p, tl.zeros((8,), tl.float32))\n"), "*fp32");
  EXPECT_HAS(e, "block shape [4] and value shape [8] mismatch");
  e = compileError(kernel("X", mk + "    tl.store(p, tl.zeros((4,), tl.float16))\n"), "*fp32");
  EXPECT_HAS(e, "block element type (float32) and value element type (float16) mismatch");
  e = compileError(kernel("X", mk + "    p = tl.advance(p, (1, 2))\n"), "*fp32");
  EXPECT_HAS(e, "tl.advance needs 1 offsets");
}

// Copies the rows [r0, r0+4) of an M x N row-major matrix, 8 columns at a
// time through an advancing block pointer, padding out-of-range elements
// with -1 (pre-filled) or zero.
TEST(BuiltinsBlockPtr, LoopCarriedCopyOnInterpreter) {
  std::string src =
      kernel("X, Y, M, N, r0, BN: tl.constexpr",
             "    src = tl.make_block_ptr(X, (M, N), (N, 1), (r0, 0), (4, BN), (1, 0))\n"
             "    dst = tl.make_block_ptr(Y, shape=(4, 16), strides=(16, 1), offsets=(0, 0),\n"
             "                            block_shape=(4, BN), order=(1, 0))\n"
             "    for k in range(0, 16, BN):\n"
             "        t = tl.load(src, boundary_check=(0, 1), padding_option='zero')\n"
             "        tl.store(dst, t)\n"
             "        src = tl.advance(src, (0, BN))\n"
             "        dst = tl.advance(dst, [0, BN])\n");
  auto k = tessera::compile(src, "k", "*fp32, *fp32, i32, i32, i32, 8");
  const int M = 6, N = 12, r0 = 3;
  std::vector<float> x(M * N), y(4 * 16, -7.0f);
  for (int i = 0; i < M * N; ++i) x[i] = static_cast<float>(i) + 0.5f;
  k->run({buf(x), buf(y), tessera::Arg::integer(M), tessera::Arg::integer(N),
          tessera::Arg::integer(r0)},
         {1});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 16; ++j) {
      int r = r0 + i;
      float want = (r < M && j < N) ? x[r * N + j] : 0.0f;
      EXPECT_EQ(y[i * 16 + j], want) << i << "," << j;
    }
}

// ---- random ---------------------------------------------------------------------------------

TEST(BuiltinsRandom, LoweringAndErrors) {
  std::string s = ir(kernel("X, seed",
                            "    offs = tl.arange(0, 8)\n"
                            "    a = tl.randint(seed, offs)\n"
                            "    b, c, d, e = tl.randint4x(seed, offs.to(tl.int64), n_rounds=7)\n"
                            "    f = tl.rand(12, 5)\n"),
                     "*fp32, i32");
  EXPECT_HAS(s, "philox %");
  EXPECT_HAS(s, "{rounds = 10} : tile<8xu32>");
  EXPECT_HAS(s, "{rounds = 7} : tile<8xu32>");
  EXPECT_HAS(s, "{rounds = 10} : u32, u32, u32, u32");
  std::string e =
      compileError(kernel("X, seed", "    a = tl.rand(seed, tl.arange(0, 8))\n"), "*fp32, fp32");
  EXPECT_HAS(e, "the seed of tl.rand must be an integer");
  e = compileError(kernel("X", "    a = tl.randn(1, tl.arange(0, 8).to(tl.float32))\n"), "*fp32");
  EXPECT_HAS(e, "the offset of tl.randn must be an integer");
  e = compileError(kernel("X, r", "    a = tl.randint(1, 2, n_rounds=r)\n"), "*fp32, i32");
  EXPECT_HAS(e, "n_rounds must be a compile-time constant");
  e = compileError(kernel("X", "    a = tl.philox(1, tl.arange(0, 8).to(tl.int16), 0, 0, 0)\n"),
                   "*fp32");
  EXPECT_HAS(e, "bitwidth not supported in philox");
}

TEST(BuiltinsRandom, MatchesTritonDefinitionOnInterpreter) {
  std::string src = kernel("Ints, Floats, seed, base",
                           "    offs = base + tl.arange(0, 64)\n"
                           "    r0, r1, r2, r3 = tl.randint4x(seed, offs)\n"
                           "    o = tl.arange(0, 64)\n"
                           "    tl.store(Ints + o, r0)\n"
                           "    tl.store(Ints + 64 + o, r3)\n"
                           "    tl.store(Ints + 128 + o, tl.randint(seed, offs.to(tl.int16)))\n"
                           "    p0, p1, p2, p3 = tl.philox(seed, offs, 0, 0, 0)\n"
                           "    tl.store(Ints + 192 + o, p2)\n"
                           "    tl.store(Floats + o, tl.rand(seed, offs))\n"
                           "    tl.store(Floats + 64 + o, tl.randn(seed, offs))\n");
  auto k = tessera::compile(src, "k", "*u32, *fp32, i32, i32");
  for (int64_t seed : {int64_t{0}, int64_t{42}, int64_t{-1}}) {
    std::vector<uint32_t> ints(256, 0xDEADBEEF);
    std::vector<float> floats(128, std::nanf(""));
    int32_t base = -20;  // negative offsets exercise the int16 / int32 extension rules
    k->run({buf(ints), buf(floats), tessera::Arg::integer(seed), tessera::Arg::integer(base)}, {1});
    uint64_t seed64 = static_cast<uint64_t>(seed);  // an int32 seed extends by its sign
    for (int i = 0; i < 64; ++i) {
      int32_t off = base + i;
      uint32_t r[4], r16[4];
      tessera::num::randint4x(seed64, static_cast<uint32_t>(off), 0, r);
      int16_t o16 = static_cast<int16_t>(off);
      tessera::num::randint4x(seed64, static_cast<uint32_t>(static_cast<int32_t>(o16)), 0, r16);
      EXPECT_EQ(ints[i], r[0]) << "seed " << seed << " offset " << off;
      EXPECT_EQ(ints[64 + i], r[3]);
      EXPECT_EQ(ints[128 + i], r16[0]);
      EXPECT_EQ(ints[192 + i], r[2]);  // tl.philox with counter (offset, 0, 0, 0)
      float u = tessera::num::uint32ToUniformFloat(r[0]);
      EXPECT_EQ(floats[i], u);
      float n1, n2;
      tessera::num::pairUniformToNormal(u, tessera::num::uint32ToUniformFloat(r[1]), &n1, &n2);
      EXPECT_NEAR(floats[64 + i], n1, 1e-5f * (1.0f + std::fabs(n1)));
    }
  }
}

}  // namespace
