// Multi-unit compilation (a kernel and its @jit callees in several source
// units, each with its own globals) and kernel (de)serialisation for the disk
// cache: round trips, identical run-time errors, and rejection of damaged,
// truncated or stale bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "frontend/lowering.h"
#include "runtime/compiler.h"
#include "runtime/serialize.h"

namespace {

using tessera::Arg;
using tessera::CompileRequest;
using tessera::KernelImpl;
using tessera::SourceUnit;
using tessera::frontend::ConstValue;
using tessera::frontend::Global;
using tessera::frontend::GlobalMap;

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Global constant(int64_t v) {
  Global g;
  g.kind = Global::Kind::Constant;
  g.value = ConstValue::integer(v);
  return g;
}
Global moduleAlias(const std::string &m) {
  Global g;
  g.kind = Global::Kind::ModuleAlias;
  g.module = m;
  return g;
}
Global jitFunction(uint32_t unit, const std::string &fn) {
  Global g;
  g.kind = Global::Kind::JitFunction;
  g.unit = unit;
  g.function = fn;
  return g;
}
Global opaque(const std::string &description) {
  Global g;
  g.kind = Global::Kind::Opaque;
  g.description = description;
  return g;
}

SourceUnit unit(std::string source, std::string file, uint32_t firstLine, uint32_t colOffset,
                GlobalMap globals) {
  SourceUnit u;
  u.source = std::move(source);
  u.fileName = std::move(file);
  u.firstLine = firstLine;
  u.colOffset = colOffset;
  u.globals = std::move(globals);
  return u;
}

// Through the public interface, where run()'s options have their default.
void runKernel(const tessera::CompiledKernel &k, const std::vector<Arg> &args, tessera::Grid grid) {
  k.run(args, grid);
}

std::shared_ptr<KernelImpl> compileUnits(std::vector<SourceUnit> units, const std::string &kernel,
                                         const std::string &signature, bool debug = false) {
  CompileRequest req;
  req.units = std::move(units);
  req.kernel = kernel;
  req.args = tessera::frontend::parseSignature(signature);
  req.lower.debug = debug;
  return tessera::compileKernel(req);
}

std::string compileError(std::vector<SourceUnit> units, const std::string &kernel,
                         const std::string &signature) {
  try {
    compileUnits(std::move(units), kernel, signature);
  } catch (const tessera::CompilationError &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a CompilationError";
  return {};
}

// The kernel's file: it calls `scale_store` of unit 1 (and reads its own SCALE).
constexpr const char *kKernelSource =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "SCALE = 100\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    scale_store(x_ptr, offs, n)\n"
    "    tl.store(x_ptr + n + offs, offs + SCALE, mask=offs < n)\n";

// Unit 1: a dedented function from lines 41.. of helpers.py (indented by 4
// there); `tl` and SCALE come from its globals, not from an import.
constexpr const char *kCalleeSource =
    "@triton.jit\n"
    "def scale_store(p, offs, n):\n"
    "    tl.store(p + offs, offs * SCALE, mask=offs < n)\n";

std::vector<SourceUnit> scaleUnits() {
  return {unit(kKernelSource, "kernel.py", 1, 0, {{"scale_store", jitFunction(1, "scale_store")}}),
          unit(kCalleeSource, "helpers.py", 41, 4,
               {{"tl", moduleAlias("triton.language")}, {"SCALE", constant(3)}})};
}

TEST(Units, CalleeResolvesItsOwnGlobals) {
  auto k = compileUnits(scaleUnits(), "k", "*i32, i32, 16");
  const int n = 40;
  std::vector<int32_t> buf(2 * n, -1);
  runKernel(*k, {Arg::buffer(buf.data(), buf.size() * 4), Arg::integer(n)}, {tessera::cdiv(n, 16)});
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(buf[i], 3 * i) << i;        // the callee's SCALE
    ASSERT_EQ(buf[n + i], 100 + i) << i;  // the kernel's own SCALE
  }
}

TEST(Units, GlobalsOverrideTopLevelNamesOfTheirUnitOnly) {
  auto units = scaleUnits();
  units[0].globals["SCALE"] = constant(7);  // wins over the kernel file's SCALE = 100
  auto k = compileUnits(units, "k", "*i32, i32, 16");
  std::vector<int32_t> buf(32, -1);
  runKernel(*k, {Arg::buffer(buf.data(), buf.size() * 4), Arg::integer(16)}, {1});
  EXPECT_EQ(buf[1], 3);       // unit 1 still sees its own SCALE
  EXPECT_EQ(buf[16 + 1], 8);  // unit 0 sees the override
}

TEST(Units, NestedUnitsAndDefaults) {
  std::vector<SourceUnit> units = {
      unit("import triton.language as tl\n"
           "@triton.jit\n"
           "def k(out_ptr):\n"
           "    offs = tl.arange(0, 8)\n"
           "    tl.store(out_ptr + offs, outer(offs))\n",
           "k.py", 1, 0, {{"outer", jitFunction(1, "outer")}}),
      unit("@triton.jit\n"
           "def outer(x):\n"
           "    return inner(x) + BIAS\n",
           "outer.py", 10, 0, {{"inner", jitFunction(2, "inner")}, {"BIAS", constant(1000)}}),
      unit("import triton.language as tl\n"
           "FACTOR = 5\n"
           "@triton.jit\n"
           "def inner(x, k: tl.constexpr = FACTOR):\n"
           "    return x * k\n",
           "inner.py", 1, 0, {}),
  };
  auto k = compileUnits(units, "k", "*i32");
  std::vector<int32_t> out(8, -1);
  runKernel(*k, {Arg::buffer(out.data(), out.size() * 4)}, {1});
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], 5 * i + 1000) << i;
}

TEST(Units, CombineFunctionFromAnotherUnit) {
  std::vector<SourceUnit> units = {
      unit("import triton\n"
           "import triton.language as tl\n"
           "@triton.jit\n"
           "def k(x_ptr, out_ptr):\n"
           "    x = tl.load(x_ptr + tl.arange(0, 16))\n"
           "    tl.store(out_ptr, tl.reduce(x, 0, combine))\n"
           "    tl.store(out_ptr + 1 + tl.arange(0, 16), tl.associative_scan(x, 0, combine))\n",
           "k.py", 1, 0, {{"combine", jitFunction(1, "add_offset")}}),
      // OFFSET resolves in the combine function's own unit.
      unit("@triton.jit\n"
           "def add_offset(a, b):\n"
           "    return a + b + OFFSET\n",
           "combine.py", 1, 0, {{"OFFSET", constant(0)}}),
  };
  auto k = compileUnits(units, "k", "*i32, *i32");
  std::vector<int32_t> x(16), out(17, -1);
  for (int i = 0; i < 16; ++i) x[i] = i * i - 7;
  runKernel(*k, {Arg::buffer(x.data(), x.size() * 4), Arg::buffer(out.data(), out.size() * 4)},
            {1});
  int32_t acc = 0;
  for (int i = 0; i < 16; ++i) {
    acc += x[i];
    EXPECT_EQ(out[1 + i], acc) << i;
  }
  EXPECT_EQ(out[0], acc);
}

TEST(Units, FunctionGlobalsPassedAsArguments) {
  // The kernel hands unit 2's `triple` to unit 1's `apply`, which calls it
  // and reduces with it as the combine function.
  std::vector<SourceUnit> units = {
      unit("import triton.language as tl\n"
           "@triton.jit\n"
           "def k(out_ptr):\n"
           "    tl.store(out_ptr + tl.arange(0, 4), apply(triple, tl.arange(0, 4)))\n",
           "k.py", 1, 0,
           {{"apply", jitFunction(1, "apply")}, {"triple", jitFunction(2, "triple")}}),
      unit("@triton.jit\n"
           "def apply(fn, x):\n"
           "    return fn(x, x) + tl.reduce(x, 0, fn)\n",
           "apply.py", 1, 0, {{"tl", moduleAlias("triton.language")}}),
      unit("@triton.jit\n"
           "def triple(a, b):\n"
           "    return a + b + a\n",
           "triple.py", 1, 0, {}),
  };
  auto k = compileUnits(units, "k", "*i32");
  std::vector<int32_t> out(4, -1);
  runKernel(*k, {Arg::buffer(out.data(), out.size() * 4)}, {1});
  // fn(x, x) = 3x; the reduction's value depends on the combine order, but
  // it is the same for every element: out[i] - 3i is constant.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i] - 3 * i, out[0]) << i;
}

TEST(Units, HostModuleAttributesAreDottedGlobals) {
  // `helpers.triple(x)` and `helpers.pkg.OFFSET` where helpers is a user's
  // module: the host passes the module alias and each attribute a kernel uses.
  std::vector<SourceUnit> units = {
      unit("import triton.language as tl\n"
           "@triton.jit\n"
           "def k(out_ptr):\n"
           "    x = tl.arange(0, 4)\n"
           "    tl.store(out_ptr + x, helpers.triple(x, x) + helpers.pkg.OFFSET)\n",
           "k.py", 1, 0,
           {{"helpers", moduleAlias("mylib.helpers")},
            {"helpers.triple", jitFunction(1, "triple")},
            {"helpers.pkg", moduleAlias("mylib.helpers.pkg")},
            {"helpers.pkg.OFFSET", constant(100)}}),
      unit("@triton.jit\n"
           "def triple(a, b):\n"
           "    return a + b + a\n",
           "helpers.py", 1, 0, {}),
  };
  auto k = compileUnits(units, "k", "*i32");
  std::vector<int32_t> out(4, -1);
  runKernel(*k, {Arg::buffer(out.data(), out.size() * 4)}, {1});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], 3 * i + 100) << i;

  units[0].globals.erase("helpers.triple");
  std::string msg = compileError(units, "k", "*i32");
  EXPECT_NE(msg.find("k.py:5:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("module 'mylib.helpers' has no attribute 'triple' that a kernel can use"),
            std::string::npos)
      << msg;
}

TEST(Units, ErrorInCalleePointsAtItsFileAndLine) {
  auto units = scaleUnits();
  units[1].source =
      "@triton.jit\n"
      "def scale_store(p, offs, n):\n"
      "    bad = tl.arange(0, 100)\n"
      "    tl.store(p + offs, offs * SCALE, mask=offs < n)\n";
  std::string msg = compileError(units, "k", "*i32, i32, 16");
  // Line 3 of the unit is line 43 of helpers.py; columns shift by 4.
  EXPECT_NE(msg.find("helpers.py:43:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("power of two"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad = tl.arange(0, 100)"), std::string::npos) << msg;
}

TEST(Units, UndefinedNameInCalleeIsReportedInCallee) {
  auto units = scaleUnits();
  units[1].globals.erase("SCALE");
  std::string msg = compileError(units, "k", "*i32, i32, 16");
  EXPECT_NE(msg.find("helpers.py:43:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("undefined name 'SCALE'"), std::string::npos) << msg;
}

TEST(Units, OpaqueGlobalsAreErrorsAtTheUse) {
  auto units = scaleUnits();
  units[1].globals["SCALE"] = opaque("a numpy.ndarray");
  std::string msg = compileError(units, "k", "*i32, i32, 16");
  EXPECT_NE(msg.find("helpers.py:43:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'SCALE' is a numpy.ndarray and cannot be used inside a kernel"),
            std::string::npos)
      << msg;

  units = scaleUnits();
  units[0].globals["scale_store"] = opaque("a Python function that is not @jit");
  msg = compileError(units, "k", "*i32, i32, 16");
  EXPECT_NE(msg.find("kernel.py:9:5: error: 'scale_store' is a Python function that is not @jit "
                     "and cannot be called from a kernel"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("decorate it with @triton.jit"), std::string::npos) << msg;
}

TEST(Units, MissingFunctionInUnitIsAnError) {
  auto units = scaleUnits();
  units[0].globals["scale_store"] = jitFunction(1, "no_such_function");
  std::string msg = compileError(units, "k", "*i32, i32, 16");
  EXPECT_NE(msg.find("kernel.py:9:5:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no_such_function"), std::string::npos) << msg;
}

TEST(Units, BadUnitIndexIsRejected) {
  auto units = scaleUnits();
  units[0].globals["scale_store"] = jitFunction(2, "scale_store");
  EXPECT_THROW(compileUnits(units, "k", "*i32, i32, 16"), std::invalid_argument);
}

TEST(Units, SingleSourceFieldsStillWork) {
  CompileRequest req;
  req.source = kKernelSource;
  req.fileName = "single.py";
  req.kernel = "k";
  req.args = tessera::frontend::parseSignature("*i32, i32, 16");
  try {
    tessera::compileKernel(req);
    FAIL() << "scale_store is not defined in a single source";
  } catch (const tessera::CompilationError &e) {
    EXPECT_NE(std::string(e.what()).find("single.py:9:5:"), std::string::npos) << e.what();
  }
}

// ---- serialisation ---------------------------------------------------------------------------

constexpr const char *kMatmulSig =
    "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, 32, 32, 16, "
    "4, 'ieee'";

std::shared_ptr<KernelImpl> compileMatmul() {
  CompileRequest req;
  std::string path = std::string(TESSERA_SOURCE_DIR) + "/examples/matmul.py";
  req.units.push_back(unit(readFile(path), path, 1, 0, {}));
  req.kernel = "matmul_kernel";
  req.args = tessera::frontend::parseSignature(kMatmulSig);
  return tessera::compileKernel(req);
}

void runMatmul(const KernelImpl &k, int M, int N, int K, std::vector<float> &a,
               std::vector<float> &b, std::vector<float> &c) {
  runKernel(k,
            {Arg::buffer(a.data(), a.size() * 4), Arg::buffer(b.data(), b.size() * 4),
             Arg::buffer(c.data(), c.size() * 4), Arg::integer(M), Arg::integer(N), Arg::integer(K),
             Arg::integer(K), Arg::integer(1), Arg::integer(N), Arg::integer(1), Arg::integer(N),
             Arg::integer(1)},
            {tessera::cdiv(M, 32) * tessera::cdiv(N, 32)});
}

TEST(Serialize, MatmulRoundTripIsIdenticalAndFast) {
  auto k = compileMatmul();
  std::string bytes = tessera::serializeKernel(*k);
  auto d = tessera::deserializeKernel(bytes);
  EXPECT_EQ(d->name(), k->name());
  EXPECT_EQ(d->stages(), k->stages());
  EXPECT_EQ(d->params(), k->params());
  EXPECT_EQ(d->debug(), k->debug());
  EXPECT_EQ(tessera::serializeKernel(*d), bytes);  // a fixed point

  const int M = 45, N = 70, K = 37;
  std::mt19937 gen(1234);
  std::normal_distribution<float> dist;
  std::vector<float> a(M * K), b(K * N), c1(M * N, NAN), c2(M * N, NAN);
  for (float &v : a) v = dist(gen);
  for (float &v : b) v = dist(gen);
  runMatmul(*k, M, N, K, a, b, c1);
  runMatmul(*d, M, N, K, a, b, c2);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int q = 0; q < K; ++q) ref += double(a[i * K + q]) * b[q * N + j];
      ASSERT_NEAR(c1[i * N + j], ref, 1e-4 * (1 + std::abs(ref))) << i << "," << j;
      ASSERT_EQ(c1[i * N + j], c2[i * N + j]) << i << "," << j;
    }

  // Deserialising parses and verifies IR instead of compiling: well under a
  // millisecond. The bound here is loose (sanitizer and debug builds run
  // this test too); the measured time is printed.
  using Clock = std::chrono::steady_clock;
  std::vector<double> us;
  for (int rep = 0; rep < 30; ++rep) {
    auto t0 = Clock::now();
    auto again = tessera::deserializeKernel(bytes);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  std::printf("deserialize matmul_kernel (%zu bytes): median %.1f us, min %.1f us\n", bytes.size(),
              us[us.size() / 2], us[0]);
  EXPECT_LT(us[0], 20000.0);
}

std::string runError(const KernelImpl &k, std::vector<int32_t> &buf, int64_t n) {
  try {
    runKernel(k, {Arg::buffer(buf.data(), buf.size() * 4), Arg::integer(n)}, {4});
  } catch (const tessera::KernelError &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a KernelError";
  return {};
}

TEST(Serialize, OutOfBoundsMessageIsIdentical) {
  // Two units from one file (as the Python layer passes one unit per @jit
  // function): the location must land in the unit whose text it quotes.
  auto units = scaleUnits();
  units[0].fileName = "helpers.py";
  units[0].source =
      "import triton\n"
      "import triton.language as tl\n"
      "\n"
      "@triton.jit\n"
      "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
      "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
      "    scale_store(x_ptr, offs, n)\n";
  auto k = compileUnits(units, "k", "*i32, i32, 16");
  auto d = tessera::deserializeKernel(tessera::serializeKernel(*k));
  std::vector<int32_t> buf(20);
  // n = 64: the callee stores 64 elements into a buffer of 20.
  std::string fresh = runError(*k, buf, 64), cached = runError(*d, buf, 64);
  EXPECT_EQ(fresh, cached);
  EXPECT_NE(fresh.find("helpers.py:43:"), std::string::npos) << fresh;
  EXPECT_NE(fresh.find("tl.store(p + offs, offs * SCALE, mask=offs < n)"), std::string::npos)
      << fresh;
}

TEST(Serialize, DebugFlagSurvives) {
  auto units = scaleUnits();
  auto k = compileUnits(units, "k", "*i32, i32, 16", /*debug=*/true);
  auto d = tessera::deserializeKernel(tessera::serializeKernel(*k));
  EXPECT_TRUE(d->debug());
  EXPECT_EQ(d->numUnits(), 2u);
  EXPECT_EQ(d->sources().file(2)->name, "helpers.py");
  EXPECT_EQ(d->sources().file(2)->firstLine, 41u);
  EXPECT_EQ(d->sources().file(2)->colOffset, 4u);
}

// Deserialises `bytes`; returns the rejection message ("" if accepted).
std::string rejection(std::string_view bytes) {
  try {
    tessera::deserializeKernel(bytes);
  } catch (const tessera::InvalidCachedKernel &e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("cached kernel is invalid: ", 0), 0u) << msg;
    return msg;
  }
  return {};
}

TEST(Serialize, EveryTruncationIsRejected) {
  std::string bytes = tessera::serializeKernel(*compileUnits(scaleUnits(), "k", "*i32, i32, 16"));
  for (size_t n = 0; n < bytes.size(); ++n)
    ASSERT_NE(rejection(std::string_view(bytes).substr(0, n)), "") << "prefix of " << n;
  EXPECT_NE(rejection(bytes + "x"), "");
}

TEST(Serialize, ByteFlipsAreRejected) {
  std::string bytes = tessera::serializeKernel(*compileMatmul());
  std::mt19937 gen(42);
  std::uniform_int_distribution<size_t> pos(0, bytes.size() - 1);
  std::uniform_int_distribution<int> flip(1, 255);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bad = bytes;
    int flips = 1 + trial % 3;
    for (int f = 0; f < flips; ++f) bad[pos(gen)] ^= static_cast<char>(flip(gen));
    if (bad == bytes) continue;
    ASSERT_NE(rejection(bad), "") << "trial " << trial;
  }
  // Every single byte of the header, one at a time.
  for (size_t i = 0; i < 64 && i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x5a;
    ASSERT_NE(rejection(bad), "") << "byte " << i;
  }
}

// The same bit flipped in two different words (the top bit of each, which
// a plain word-wise FNV carries only into the top bit) is still caught.
TEST(Serialize, PairedHighBitFlipsAreRejected) {
  std::string bytes = tessera::serializeKernel(*compileMatmul());
  for (size_t first = 64 + 7; first + 800 < bytes.size(); first += 997) {
    std::string bad = bytes;
    bad[first] ^= static_cast<char>(0x80);
    bad[first + 800] ^= static_cast<char>(0x80);
    ASSERT_NE(rejection(bad), "") << "bytes " << first << " and " << first + 800;
  }
}

TEST(Serialize, ArbitraryBytesAreRejected) {
  std::mt19937 gen(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string junk(gen() % 200, '\0');
    for (char &c : junk) c = static_cast<char>(gen());
    if (trial % 2) junk.replace(0, std::min<size_t>(8, junk.size()), "TESSKRNL", 0, junk.size());
    ASSERT_NE(rejection(junk), "");
  }
}

std::string payloadOf(const std::string &bytes) {
  return bytes.substr(tessera::withHeader("").size());
}

TEST(Serialize, VersionAndFormatMismatchesAreRejected) {
  std::string bytes = tessera::serializeKernel(*compileUnits(scaleUnits(), "k", "*i32, i32, 16"));
  const std::string &v = tessera::compilerVersion();
  size_t at = bytes.find(v);
  ASSERT_NE(at, std::string::npos);
  std::string older = bytes;
  older[at + v.size() - 1] = older[at + v.size() - 1] == '0' ? '1' : '0';
  EXPECT_NE(rejection(older).find("was written by"), std::string::npos) << rejection(older);
  std::string otherFormat = bytes;
  otherFormat[8] = 99;
  EXPECT_NE(rejection(otherFormat).find("format version is 99"), std::string::npos);
  EXPECT_EQ(tessera::withHeader(payloadOf(bytes)), bytes);
}

TEST(Serialize, ConsistentButBrokenPayloadsAreRejected) {
  std::string bytes = tessera::serializeKernel(*compileUnits(scaleUnits(), "k", "*i32, i32, 16"));
  std::string payload = payloadOf(bytes);
  // IR that does not parse, or parses but does not verify, under a right
  // header: only the IR checks stand between these bytes and the interpreter.
  size_t func = payload.rfind("func @k(");
  ASSERT_NE(func, std::string::npos);
  std::string p1 = payload;
  p1[func] = '#';
  EXPECT_NE(rejection(tessera::withHeader(p1)).find("does not parse"), std::string::npos);
  std::string p2 = payload;
  size_t ty = p2.rfind(": tile<16xi32>");
  ASSERT_NE(ty, std::string::npos);
  p2.replace(ty, 14, ": tile<16xf32>");
  EXPECT_NE(rejection(tessera::withHeader(p2)).find("does not verify"), std::string::npos)
      << rejection(tessera::withHeader(p2));
  EXPECT_NE(rejection(tessera::withHeader(payload + "z")).find("trailing"), std::string::npos);
}

TEST(Version, FormatAndStability) {
  const std::string &v = tessera::compilerVersion();
  ASSERT_EQ(v.rfind("tessera 0.1.0 ir-", 0), 0u) << v;
  EXPECT_EQ(v.size(), std::string("tessera 0.1.0 ir-").size() + 12);
  EXPECT_EQ(&v, &tessera::compilerVersion());
}

TEST(Builtins, NamesAreSortedUniqueAndComplete) {
  const auto &names = tessera::frontend::builtinNames();
  ASSERT_GT(names.size(), 50u);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  for (const char *n : {"tl.load", "tl.store", "tl.dot", "tl.reduce", "builtins.min"})
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), n)) << n;
  for (const auto &n : names) EXPECT_NE(tessera::frontend::findBuiltin(n), nullptr) << n;
}

}  // namespace
