// The public C++ API (include/tessera/tessera.h): compile a kernel from its
// Python source, inspect it, run it on the interpreter, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string vectorAddSource() {
  return readFile(std::string(TESSERA_SOURCE_DIR) + "/examples/vector_add.py");
}

constexpr const char *kSig = "*fp32:16, *fp32:16, *fp32:16, i32, 256";

TEST(CoreApi, CompileVectorAddParamsAndStages) {
  auto k = tessera::compile(vectorAddSource(), "add_kernel", kSig);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name(), "add_kernel");
  auto params = k->params();
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0], (std::pair<std::string, std::string>{"x_ptr", "*fp32"}));
  EXPECT_EQ(params[3], (std::pair<std::string, std::string>{"n_elements", "i32"}));
  ASSERT_EQ(k->stages().size(), 2u);
  EXPECT_EQ(k->stages()[0].first, "ttir-initial");
  EXPECT_EQ(k->stages()[1].first, "ttir");
  EXPECT_NE(k->ir("ttir").find("add_kernel"), std::string::npos);
  EXPECT_TRUE(k->ir("no-such-stage").empty());
}

TEST(CoreApi, RunVectorAddMatchesReference) {
  auto k = tessera::compile(vectorAddSource(), "add_kernel", kSig);
  std::mt19937 gen(std::random_device{}());
  std::normal_distribution<float> dist;
  for (int n : {1, 255, 256, 1000, 4099}) {
    std::vector<float> x(n), y(n), out(n, std::nanf(""));
    for (int i = 0; i < n; ++i) x[i] = dist(gen), y[i] = dist(gen);
    size_t bytes = n * sizeof(float);
    k->run({tessera::Arg::buffer(x.data(), bytes), tessera::Arg::buffer(y.data(), bytes),
            tessera::Arg::buffer(out.data(), bytes), tessera::Arg::integer(n)},
           {tessera::cdiv(n, 256)});
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], x[i] + y[i]) << "n=" << n << " i=" << i;
  }
}

TEST(CoreApi, RunWithThreadCount) {
  auto k = tessera::compile(vectorAddSource(), "add_kernel", kSig);
  const int n = 3000;
  std::vector<float> x(n, 1.5f), y(n, 2.0f), out(n, 0.0f);
  tessera::RunOptions ro;
  ro.numThreads = 1;
  k->run({tessera::Arg::buffer(x.data(), n * 4), tessera::Arg::buffer(y.data(), n * 4),
          tessera::Arg::buffer(out.data(), n * 4), tessera::Arg::integer(n)},
         {tessera::cdiv(n, 256)}, ro);
  for (float v : out) ASSERT_EQ(v, 3.5f);
}

TEST(CoreApi, CompilationErrorHasLocationAndCaret) {
  std::string src =
      "import triton\n"
      "import triton.language as tl\n"
      "\n"
      "@triton.jit\n"
      "def k(out_ptr):\n"
      "    offs = tl.arange(0, 100)\n"
      "    tl.store(out_ptr + offs, offs)\n";
  tessera::CompileOptions opts;
  opts.fileName = "bad.py";
  try {
    tessera::compile(src, "k", "*i32", opts);
    FAIL() << "expected a CompilationError";
  } catch (const tessera::CompilationError &e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("bad.py:6:12: error:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("power of two"), std::string::npos) << msg;
    EXPECT_NE(msg.find("    offs = tl.arange(0, 100)\n"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\n               ^\n"), std::string::npos) << msg;
  }
}

TEST(CoreApi, WarningsAreKeptWithTheKernel) {
  std::string src =
      "import triton\n"
      "import triton.language as tl\n"
      "\n"
      "@triton.jit\n"
      "def k(out_ptr):\n"
      "    offs = tl.arange(0, 16)\n"
      "    tl.store(out_ptr + offs, offs << 40)\n";
  tessera::CompileOptions opts;
  opts.fileName = "shift.py";
  auto k = tessera::compile(src, "k", "*i32", opts);
  ASSERT_EQ(k->warnings().size(), 1u);
  const tessera::CompileWarning &w = k->warnings()[0];
  EXPECT_EQ(w.file, "shift.py");
  EXPECT_EQ(w.line, 7);
  EXPECT_EQ(w.column, 30);
  EXPECT_NE(w.message.find("shifting a int32 tensor by 40 bits"), std::string::npos) << w.message;
  EXPECT_EQ(w.text.rfind("shift.py:7:30: warning: " + w.message + "\n", 0), 0u) << w.text;
  EXPECT_NE(w.text.find("note: shift by less than 32"), std::string::npos) << w.text;
  std::vector<int32_t> out(16, -1);
  k->run({tessera::Arg::buffer(out.data(), out.size() * sizeof(int32_t))}, {1, 1, 1});
  auto clean = tessera::compile(src.replace(src.find("<< 40"), 5, "<< 4"), "k", "*i32", opts);
  EXPECT_TRUE(clean->warnings().empty());
}

TEST(CoreApi, FirstLineAndColumnOffset) {
  std::string src =
      "import triton\n"
      "import triton.language as tl\n"
      "@triton.jit\n"
      "def k(out_ptr):\n"
      "    tl.store(out_ptr, nope)\n";
  tessera::CompileOptions opts;
  opts.fileName = "big.py";
  opts.firstLine = 10;
  opts.colOffset = 4;
  try {
    tessera::compile(src, "k", "*i32", opts);
    FAIL() << "expected a CompilationError";
  } catch (const tessera::CompilationError &e) {
    EXPECT_NE(std::string(e.what()).find("big.py:14:27: error:"), std::string::npos) << e.what();
  }
}

TEST(CoreApi, BadSignatureIsACompilationError) {
  EXPECT_THROW(tessera::compile(vectorAddSource(), "add_kernel", "*fp33, *fp32, *fp32, i32, 256"),
               tessera::CompilationError);
  EXPECT_THROW(tessera::compile(vectorAddSource(), "no_such_kernel", kSig),
               tessera::CompilationError);
}

TEST(CoreApi, OutOfBoundsIsAKernelError) {
  std::string src =
      "import triton\n"
      "import triton.language as tl\n"
      "\n"
      "@triton.jit\n"
      "def k(x_ptr, BLOCK: tl.constexpr):\n"
      "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
      "    tl.store(x_ptr + offs, offs)\n";
  tessera::CompileOptions opts;
  opts.fileName = "oob.py";
  auto k = tessera::compile(src, "k", "*i32, 16", opts);
  std::vector<int32_t> buf(20);
  try {
    k->run({tessera::Arg::buffer(buf.data(), buf.size() * 4)}, {2});
    FAIL() << "expected a KernelError";
  } catch (const tessera::KernelError &e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("oob.py:7:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(1, 0, 0)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("20"), std::string::npos) << msg;
  }
}

TEST(CoreApi, WrongArgumentsAreKernelErrors) {
  auto k = tessera::compile(vectorAddSource(), "add_kernel", kSig);
  float x[4] = {};
  EXPECT_THROW(k->run({tessera::Arg::buffer(x, 16)}, {1}), tessera::KernelError);
  EXPECT_THROW(k->run({tessera::Arg::buffer(x, 16), tessera::Arg::buffer(x, 16),
                       tessera::Arg::buffer(x, 16), tessera::Arg::floating(1.5)},
                      {1}),
               tessera::KernelError);
  EXPECT_THROW(k->run({tessera::Arg::integer(1), tessera::Arg::buffer(x, 16),
                       tessera::Arg::buffer(x, 16), tessera::Arg::integer(4)},
                      {1}),
               tessera::KernelError);
}

// An i32 parameter given a value an i32 register cannot hold (read as
// signed or unsigned) is refused, naming the argument, not wrapped.
TEST(CoreApi, IntegerOutOfItsTypeIsAKernelError) {
  auto k = tessera::compile(vectorAddSource(), "add_kernel", kSig);
  float x[4] = {1, 2, 3, 4}, y[4] = {};
  auto run = [&](int64_t n) {
    k->run({tessera::Arg::buffer(x, 16), tessera::Arg::buffer(x, 16), tessera::Arg::buffer(y, 16),
            tessera::Arg::integer(n)},
           {1});
  };
  try {
    run(int64_t{1} << 32);
    FAIL() << "expected a KernelError";
  } catch (const tessera::KernelError &e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("argument 3 ('n_elements') of kernel 'add_kernel' is 4294967296, which i32 "
                       "cannot hold: pass a value in its range"),
              std::string::npos)
        << msg;
  }
  EXPECT_THROW(run(-(int64_t{1} << 31) - 1), tessera::KernelError);
  EXPECT_EQ(y[3], 0.0f);  // nothing ran
  run(4);
  EXPECT_EQ(y[3], 8.0f);
}

}  // namespace
