// The public C++ API on the GPU (include/tessera/tessera.h): compiling for a
// target, launch() with device pointers on a stream of the current device,
// and its errors. The launches run where a CUDA driver and device are
// present; everything before the driver is checked everywhere.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/cuda_driver.h"
#include "tessera/capi.h"
#include "tessera/tessera.h"

namespace {

namespace cu = tessera::cuda;

std::string vectorAddSource() {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/examples/vector_add.py", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr const char *kSig = "*fp32:16, *fp32:16, *fp32:16, i32, 256";

template <class F>
std::string errorOf(F &&f) {
  try {
    f();
  } catch (const tessera::Error &e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

TEST(CoreApiGpu, TargetAndWarpsReachThePtx) {
  auto k = tessera::compile(vectorAddSource(), "add_kernel", kSig,
                            {.target = "sm_80", .numWarps = 8, .numStages = 2});
  std::string ptx = k->ir("ptx");
  EXPECT_TRUE(contains(ptx, ".target sm_80")) << ptx.substr(0, 400);
  EXPECT_TRUE(contains(ptx, "tessera.num_warps = 8")) << ptx.substr(0, 400);
  EXPECT_FALSE(k->ir("ttgir").empty());
  auto sm120 = tessera::compile(vectorAddSource(), "add_kernel", kSig, {.target = "sm_120"});
  EXPECT_TRUE(contains(sm120->ir("ptx"), ".version 8.7\n.target sm_120"));
}

TEST(CoreApiGpu, BadOptionsAreCompilationErrors) {
  std::string err =
      errorOf([] { tessera::compile(vectorAddSource(), "add_kernel", kSig, {.target = "sm_75"}); });
  EXPECT_TRUE(contains(err, "unknown GPU target 'sm_75'; the targets are: sm_80")) << err;
  err = errorOf([] {
    tessera::compile(vectorAddSource(), "add_kernel", kSig, {.target = "sm_80", .numWarps = 3});
  });
  EXPECT_TRUE(contains(err, "num_warps must be a power of two")) << err;
}

TEST(CoreApiGpu, LaunchChecksBeforeTheDriver) {
  auto cpuOnly = tessera::compile(vectorAddSource(), "add_kernel", kSig);
  std::string err = errorOf([&] {
    cpuOnly->launch({tessera::Arg::pointer(uint64_t{0}), tessera::Arg::pointer(uint64_t{0}),
                     tessera::Arg::pointer(uint64_t{0}), tessera::Arg::integer(1)},
                    {1});
  });
  // Without a driver the launch says why; with one, that a target is missing.
  EXPECT_TRUE(contains(err, "cannot launch") || contains(err, "CompileOptions::target")) << err;
  auto k = tessera::compile(vectorAddSource(), "add_kernel", kSig, {.target = "sm_80"});
  err = errorOf([&] { k->launch({tessera::Arg::integer(1)}, {1}); });
  EXPECT_TRUE(contains(err, "takes 4 runtime arguments but 1 were given")) << err;
  err = errorOf([&] {
    k->launch({tessera::Arg::integer(0), tessera::Arg::pointer(uint64_t{0}),
               tessera::Arg::pointer(uint64_t{0}), tessera::Arg::integer(1)},
              {1});
  });
  EXPECT_TRUE(contains(err,
                       "argument 0 ('x_ptr') of kernel 'add_kernel' must be a device "
                       "pointer (Arg::pointer)"))
      << err;
  std::string why;
  if (!cu::driverAvailable(&why)) {
    err = errorOf([&] {
      k->launch({tessera::Arg::pointer(uint64_t{0}), tessera::Arg::pointer(uint64_t{0}),
                 tessera::Arg::pointer(uint64_t{0}), tessera::Arg::integer(1)},
                {1});
    });
    EXPECT_TRUE(contains(err, "kernel 'add_kernel' cannot launch: " + why)) << err;
    err = errorOf(
        [] { tessera::compile(vectorAddSource(), "add_kernel", kSig, {.target = "native"}); });
    EXPECT_TRUE(contains(err, "target \"native\" names the current CUDA device")) << err;
  }
}

class CoreApiOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cu::driverAvailable(&why)) GTEST_SKIP() << why;
    if (cu::deviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

// launch() on the device of the current context, on a stream, and the C
// ABI's launch with device -1 (the current one), both against the CPU.
TEST_F(CoreApiOnDevice, LaunchMatchesTheInterpreter) {
  const int n = 10000;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> x(n), y(n), want(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }
  auto k = tessera::compile(vectorAddSource(), "add_kernel", kSig, {.target = "native"});
  k->run({tessera::Arg::buffer(x.data(), n * 4), tessera::Arg::buffer(y.data(), n * 4),
          tessera::Arg::buffer(want.data(), n * 4), tessera::Arg::integer(n)},
         {tessera::cdiv(n, 256)});
  int device = cu::deviceCount() - 1;  // not device 0 where there are several
  cu::useDevice(device);
  cu::DevicePtr dx = cu::memAlloc(n * 4), dy = cu::memAlloc(n * 4), dout = cu::memAlloc(n * 4);
  cu::memcpyHtoD(dx, x.data(), n * 4);
  cu::memcpyHtoD(dy, y.data(), n * 4);
  for (int variant = 0; variant < 2; ++variant) {
    cu::memsetD8(dout, 0xFF, n * 4);  // NaN: an unwritten element fails
    if (variant == 0) {
      k->launch({tessera::Arg::pointer(dx), tessera::Arg::pointer(dy), tessera::Arg::pointer(dout),
                 tessera::Arg::integer(n)},
                {tessera::cdiv(n, 256)});
    } else {
      tessera_compile_options opts;
      tessera_compile_options_init(&opts);
      opts.target = "native";
      std::string src = vectorAddSource();
      tessera_kernel *ck = tessera_compile_signature(src.c_str(), "add_kernel", kSig, &opts);
      ASSERT_NE(ck, nullptr) << tessera_last_error();
      tessera_run_arg args[4] = {
          {TESSERA_RUN_BUFFER, reinterpret_cast<const void *>(dx), 0, nullptr, 0, 0.0},
          {TESSERA_RUN_BUFFER, reinterpret_cast<const void *>(dy), 0, nullptr, 0, 0.0},
          {TESSERA_RUN_BUFFER, reinterpret_cast<const void *>(dout), 0, nullptr, 0, 0.0},
          {TESSERA_RUN_INT, nullptr, 0, nullptr, n, 0.0}};
      EXPECT_EQ(tessera_kernel_launch_cuda(ck, args, 4, tessera::cdiv(n, 256), 1, 1, nullptr, -1),
                TESSERA_OK)
          << tessera_last_error();
      tessera_kernel_free(ck);
    }
    cu::synchronize();
    cu::memcpyDtoH(out.data(), dout, n * 4);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
      if (!(out[i] == want[i]) && wrong++ < 5)
        ADD_FAILURE() << "variant " << variant << ": out[" << i << "] = " << out[i] << ", want "
                      << want[i];
    EXPECT_EQ(wrong, 0);
  }
  cu::memFree(dx);
  cu::memFree(dy);
  cu::memFree(dout);
}

}  // namespace
