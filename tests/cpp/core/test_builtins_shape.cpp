// tl shape builtins, scans and debugging: compiled through the public API,
// checked on the initial IR, on their diagnostics and, through the
// interpreter, numerically against plain C++ loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace {

const char *kHeader = "import triton\nimport triton.language as tl\n\n@triton.jit\n";

std::string kernel(const std::string &params, const std::string &body) {
  return std::string(kHeader) + "def k(" + params + "):\n" + body;
}

std::string ir(const std::string &src, const std::string &sig, bool debug = false) {
  tessera::CompileOptions o;
  o.debug = debug;
  return tessera::compile(src, "k", sig, o)->ir("ttir-initial");
}

// The rendered diagnostic of a kernel that must not compile.
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

// Runs a one-program kernel k(x_ptr, out_ptr) over int32 buffers.
std::vector<int32_t> runInt(const std::string &src, const std::string &sig,
                            const std::vector<int32_t> &x, size_t outN) {
  auto k = tessera::compile(src, "k", sig);
  std::vector<int32_t> out(outN, -12345);
  k->run({tessera::Arg::buffer(x.data(), x.size() * 4), tessera::Arg::buffer(out.data(), outN * 4)},
         {1});
  return out;
}

TEST(BuiltinsShape, ReshapeForms) {
  std::string s = ir(kernel("X, B: tl.constexpr",
                            "    x = tl.load(X + tl.arange(0, B))\n"
                            "    a = tl.reshape(x, 4, B // 4)\n"
                            "    b = x.reshape((B // 4, 4))\n"
                            "    c = tl.view(a, B)\n"
                            "    d = b.ravel()\n"
                            "    tl.store(X + tl.arange(0, B), c + d)\n"),
                     "*fp32, 64");
  EXPECT_HAS(s, "reshape %x : tile<4x16xf32>");
  EXPECT_HAS(s, "reshape %x : tile<16x4xf32>");
  EXPECT_HAS(s, "reshape %a : tile<64xf32>");
}

TEST(BuiltinsShape, ReshapeErrors) {
  std::string e =
      compileError(kernel("X", "    x = tl.arange(0, 64)\n    y = tl.reshape(x, 4, 8)\n"), "*fp32");
  EXPECT_HAS(e, "64 elements) to [4, 8] (32 elements)");
  EXPECT_HAS(e, "<kernel>:7:");  // the line of the call
  EXPECT_HAS(e, "note: the new shape must have the same number of elements");
  e = compileError(kernel("X", "    x = tl.arange(0, 64)\n    y = tl.reshape(x, 3, 8)\n"), "*fp32");
  EXPECT_HAS(e, "power-of-two");
  e = compileError(kernel("X, n", "    x = tl.arange(0, 64)\n    y = x.reshape(n, 8)\n"),
                   "*fp32, i32");
  EXPECT_HAS(e, "compile-time constant");
}

TEST(BuiltinsShape, TransPermuteExpand) {
  std::string s = ir(kernel("X",
                            "    x = tl.reshape(tl.arange(0, 32), 2, 4, 4)\n"
                            "    a = tl.permute(x, 2, 0, 1)\n"
                            "    b = tl.trans(x, (1, 0, 2))\n"
                            "    c = tl.expand_dims(tl.arange(0, 4), (0, -1))\n"
                            "    d = tl.broadcast_to(c, (2, 4, 8))\n"
                            "    e = x[0:1, :, :] if False else tl.reshape(x, 8, 4).T\n"),
                     "*fp32");
  EXPECT_HAS(s, "permute %x {order = [2, 0, 1]} : tile<4x2x4xi32>");
  EXPECT_HAS(s, "permute %x {order = [1, 0, 2]} : tile<4x2x4xi32>");
  EXPECT_HAS(s, ": tile<1x4x1xi32>");
  EXPECT_HAS(s, "broadcast %c : tile<2x4x8xi32>");
  EXPECT_HAS(s, "{order = [1, 0]} : tile<4x8xi32>");
}

TEST(BuiltinsShape, TransPermuteErrors) {
  std::string e = compileError(
      kernel("X", "    x = tl.reshape(tl.arange(0, 32), 2, 4, 4)\n    y = tl.trans(x, 1, 0)\n"),
      "*fp32");
  EXPECT_HAS(e, "must have the same length as the input shape");
  EXPECT_HAS(e, "give one entry per dimension");
  e = compileError(kernel("X", "    y = tl.trans(tl.arange(0, 32))\n"), "*fp32");
  EXPECT_HAS(e, "tl.trans invoked with a 0- or 1-dimensional tensor");
  e = compileError(
      kernel("X", "    x = tl.reshape(tl.arange(0, 32), 4, 8)\n    y = x.permute(0, 0)\n"),
      "*fp32");
  EXPECT_HAS(e, "permutation of 0, 1, ..., n-1");
  e = compileError(
      kernel("X", "    x = tl.arange(0, 8)\n    y = tl.broadcast_to(x[None, :], 4, 4)\n"), "*fp32");
  EXPECT_HAS(e, "expanded size (4) must match the existing size (8)");
  e = compileError(kernel("X", "    x = tl.arange(0, 8)\n    y = tl.broadcast_to(x, 4, 8)\n"),
                   "*fp32");
  EXPECT_HAS(e, "rank mismatch");
  e = compileError(kernel("X", "    x = tl.arange(0, 8)\n    y = tl.expand_dims(x, (0, 0))\n"),
                   "*fp32");
  EXPECT_HAS(e, "duplicate axes");
}

TEST(BuiltinsShape, JoinSplitInterleaveCat) {
  std::string s = ir(kernel("X",
                            "    x = tl.arange(0, 8)\n"
                            "    j = tl.join(x, 3)\n"
                            "    a, b = j.split()\n"
                            "    i = tl.interleave(x[:, None], x[:, None])\n"
                            "    c = tl.cat(x, x, can_reorder=True)\n"
                            "    p, q = tl.split(tl.join(1, 2))\n"),
                     "*fp32");
  EXPECT_HAS(s, "join %x, %1 : tile<8x2xi32>");
  EXPECT_HAS(s, "split %j : tile<8xi32>, tile<8xi32>");
  EXPECT_HAS(s, "reshape %");
  EXPECT_HAS(s, ": tile<8x2xi32>");
  EXPECT_HAS(s, "cat %x, %x : tile<16xi32>");
  EXPECT_HAS(s, "reduce");  // a [2] split gives scalars
  std::string e =
      compileError(kernel("X", "    x = tl.arange(0, 8)\n    a, b = tl.split(x)\n"), "*fp32");
  EXPECT_HAS(e, "last dimension is 2");
  e = compileError(kernel("X", "    x = tl.arange(0, 8)\n    y = tl.join(x, x.to(tl.float32))\n"),
                   "*fp32");
  EXPECT_HAS(e, "same type");
  e = compileError(kernel("X", "    y = tl.cat(tl.arange(0, 8), tl.arange(0, 4))\n"), "*fp32");
  EXPECT_HAS(e, "same shape and dtype");
}

TEST(BuiltinsShape, FlipSortGatherHistogram) {
  std::string s =
      ir(kernel("X",
                "    x = tl.reshape(tl.arange(0, 32), 4, 8)\n"
                "    a = tl.flip(x)\n"
                "    b = x.flip(0)\n"
                "    c = tl.sort(x, descending=True)\n"
                "    d = x.sort(dim=-1)\n"
                "    g = tl.gather(x, tl.zeros((2, 8), tl.int32), 0)\n"
                "    h = tl.histogram(tl.arange(0, 32), 16, mask=tl.arange(0, 32) < 5)\n"),
         "*fp32");
  EXPECT_HAS(s, "flip %x {axis = 1} : tile<4x8xi32>");
  EXPECT_HAS(s, "flip %x {axis = 0} : tile<4x8xi32>");
  EXPECT_HAS(s, "sort %x {axis = 1, descending = 1}");
  EXPECT_HAS(s, "sort %x {axis = 1, descending = 0}");
  EXPECT_HAS(s, "{axis = 0} : tile<2x8xi32>");
  EXPECT_HAS(s, "{bins = 16} : tile<16xi32>");
  std::string e = compileError(
      kernel("X", "    x = tl.reshape(tl.arange(0, 32), 4, 8)\n    y = tl.sort(x, 0)\n"), "*fp32");
  EXPECT_HAS(e, "only the minor dimension");
  e = compileError(kernel("X",
                          "    x = tl.reshape(tl.arange(0, 32), 4, 8)\n"
                          "    y = tl.gather(x, tl.zeros((2, 4), tl.int32), 0)\n"),
                   "*fp32");
  EXPECT_HAS(e, "index dimension 1");
  e = compileError(kernel("X", "    y = tl.histogram(tl.arange(0, 32).to(tl.float32), 8)\n"),
                   "*fp32");
  EXPECT_HAS(e, "only supports integer input");
  e = compileError(
      kernel("X", "    y = tl.histogram(tl.arange(0, 32), 8, mask=tl.arange(0, 32))\n"), "*fp32");
  EXPECT_HAS(e, "mask should be bool");
}

TEST(BuiltinsShape, NumericShapesOnInterpreter) {
  std::vector<int32_t> x(32);
  std::iota(x.begin(), x.end(), 0);
  // out[0:32] = trans(reshape(x, 4, 8)) flattened; out[32:64] = flip(x);
  // out[64:96] = sort descending; out[96:128] = interleave(x[:16], x[16:]).
  std::string src = kernel("X, Out",
                           "    offs = tl.arange(0, 32)\n"
                           "    x = tl.load(X + offs)\n"
                           "    t = tl.reshape(tl.trans(tl.reshape(x, 4, 8)), 32)\n"
                           "    tl.store(Out + offs, t)\n"
                           "    tl.store(Out + 32 + offs, tl.flip(x))\n"
                           "    tl.store(Out + 64 + offs, tl.sort(x, descending=True))\n"
                           "    lo = tl.load(X + tl.arange(0, 16))\n"
                           "    hi = tl.load(X + 16 + tl.arange(0, 16))\n"
                           "    tl.store(Out + 96 + offs, tl.interleave(lo, hi))\n");
  std::vector<int32_t> out = runInt(src, "*i32, *i32", x, 128);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out[i * 4 + j], x[j * 8 + i]);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(out[32 + i], 31 - i);
    EXPECT_EQ(out[64 + i], 31 - i);
    EXPECT_EQ(out[96 + i], i % 2 ? 16 + i / 2 : i / 2);
  }
}

TEST(BuiltinsScan, CumsumCumprodAssociativeScan) {
  std::string s = ir(kernel("X",
                            "    x = tl.arange(0, 16).to(tl.int8)\n"
                            "    a = tl.cumsum(x, 0)\n"
                            "    b = x.to(tl.float32).cumprod(reverse=True)\n"
                            "    c = tl.cumsum(x, dtype=tl.int64)\n"),
                     "*fp32");
  EXPECT_HAS(s, "scan %");
  EXPECT_HAS(s, "{axis = 0, reverse = 0} : tile<16xi32>");
  EXPECT_HAS(s, "{axis = 0, reverse = 1} : tile<16xf32>");
  EXPECT_HAS(s, "tile<16xi64>");
  std::string e = compileError(kernel("X", "    y = tl.cumsum(tl.arange(0, 8), 1)\n"), "*fp32");
  EXPECT_HAS(e, "axis 1 is out of range");
  e = compileError(kernel("X", "    y = tl.associative_scan(tl.arange(0, 8), 0, tl.maximum)\n"),
                   "*fp32");
  EXPECT_HAS(e, "must be a @jit function");
}

TEST(BuiltinsScan, NumericScansOnInterpreter) {
  std::string src = std::string(kHeader) +
                    "def pair_max(a, ai, b, bi):\n"
                    "    take = b > a\n"
                    "    return tl.where(take, b, a), tl.where(take, bi, ai)\n\n"
                    "@triton.jit\n"
                    "def k(X, Out):\n"
                    "    offs = tl.arange(0, 16)\n"
                    "    x = tl.load(X + offs)\n"
                    "    tl.store(Out + offs, tl.cumsum(x, 0))\n"
                    "    tl.store(Out + 16 + offs, tl.cumsum(x, reverse=True))\n"
                    "    m, i = tl.associative_scan((x, offs), 0, pair_max)\n"
                    "    tl.store(Out + 32 + offs, m)\n"
                    "    tl.store(Out + 48 + offs, i)\n";
  std::vector<int32_t> x = {3, -1, 4, 1, -5, 9, 2, -6, 5, 3, 5, -8, 9, 7, 9, 3};
  std::vector<int32_t> out = runInt(src, "*i32, *i32", x, 64);
  int32_t run = 0, best = INT32_MIN, bi = 0;
  for (int i = 0; i < 16; ++i) {
    run += x[i];
    EXPECT_EQ(out[i], run);
    int32_t suffix = std::accumulate(x.begin() + i, x.end(), 0);
    EXPECT_EQ(out[16 + i], suffix);
    if (x[i] > best) best = x[i], bi = i;
    EXPECT_EQ(out[32 + i], best);
    EXPECT_EQ(out[48 + i], bi);
  }
}

TEST(BuiltinsDebug, DevicePrintAndAssert) {
  std::string src = kernel("X, n",
                           "    x = tl.arange(0, 8)\n"
                           "    tl.device_print(\"x\", x, n, hex=True)\n"
                           "    tl.device_assert(x < n, \"x too big\", mask=x < 4)\n");
  std::string s = ir(src, "*fp32, i32");
  EXPECT_HAS(s, "print %x, %n {hex = 1, prefix = \" x: \"}");
  EXPECT_EQ(s.find("assert"), std::string::npos);  // only with debug
  s = ir(src, "*fp32, i32", /*debug=*/true);
  EXPECT_HAS(s, "assert %");
  EXPECT_HAS(s, "{message = \"x too big\"}");
  std::string e = compileError(kernel("X", "    tl.device_print(\"x\", \"y\")\n"), "*fp32");
  EXPECT_HAS(e, "can only print tensors and numbers");
  e = compileError(kernel("X", "    tl.device_print(3)\n"), "*fp32");
  EXPECT_HAS(e, "must be a string prefix");
}

}  // namespace
