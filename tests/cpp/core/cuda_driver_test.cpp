// The CUDA driver loader (src/runtime/cuda_driver.h). Each test asks
// driverAvailable() first: without a driver (CI) every entry point must throw
// tessera::Error carrying the one unavailability sentence, never crash; with
// one, a hand-written PTX kernel is loaded, run and checked.
#include "runtime/cuda_driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

namespace cu = tessera::cuda;

// out[i] = a[i] + b[i] for i < n.
constexpr const char *kAddPtx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry add_f32(
	.param .u64 param_a,
	.param .u64 param_b,
	.param .u64 param_out,
	.param .u32 param_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<8>;

	ld.param.u64 %rd1, [param_a];
	ld.param.u64 %rd2, [param_b];
	ld.param.u64 %rd3, [param_out];
	ld.param.u32 %r1, [param_n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r2, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	mul.wide.u32 %rd4, %r2, 4;
	add.s64 %rd5, %rd1, %rd4;
	add.s64 %rd6, %rd2, %rd4;
	add.s64 %rd7, %rd3, %rd4;
	ld.global.f32 %f1, [%rd5];
	ld.global.f32 %f2, [%rd6];
	add.rn.f32 %f3, %f1, %f2;
	st.global.f32 [%rd7], %f3;
DONE:
	ret;
}
)";

constexpr const char *kAddLine = "add.rn.f32 %f3, %f1, %f2;";

// kAddPtx with a missing comma; *line gets the broken line's number.
std::string brokenPtx(int *line) {
  std::string ptx = kAddPtx;
  size_t at = ptx.find(kAddLine);
  ptx.replace(at, std::strlen(kAddLine), "add.rn.f32 %f3, %f1 %f2;");
  *line = 1 + static_cast<int>(std::count(ptx.begin(), ptx.begin() + at, '\n'));
  return ptx;
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

// The Error's message, or "" when `f` throws nothing.
std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const tessera::Error &e) {
    return e.what();
  }
  return "";
}

TEST(CudaDriver, UnavailableDriverSaysWhyEverywhere) {
  std::string why;
  if (cu::driverAvailable(&why)) GTEST_SKIP() << "a CUDA driver is present";
  EXPECT_TRUE(contains(why, "libcuda.so.1") || contains(why, "cuInit")) << why;
  EXPECT_TRUE(contains(why, "TESSERA_BACKEND=cpu")) << why;
  EXPECT_EQ(errorOf([] { cu::deviceCount(); }), why);
  EXPECT_EQ(errorOf([] { cu::LoadedKernel::load(kAddPtx, "add_f32", 0, 0, "add_kernel"); }), why);
  EXPECT_EQ(errorOf([] { cu::memAlloc(1024); }), why);
  EXPECT_EQ(errorOf([] { cu::deviceInfo(0); }), why);
  EXPECT_EQ(errorOf([] { cu::useDevice(0); }), why);
  EXPECT_EQ(errorOf([] { cu::currentDevice(); }), why);
  EXPECT_EQ(errorOf([] { cu::deviceOfPointer(0x1000); }), why);
  EXPECT_EQ(errorOf([] { cu::synchronize(); }), why);
  EXPECT_EQ(errorOf([] { cu::Event e; }), why);
  // Asking again gives the same answer (the load is attempted once).
  std::string again;
  EXPECT_FALSE(cu::driverAvailable(&again));
  EXPECT_EQ(again, why);
}

// The fixture PTX must be valid for both targets CI assembles for; this runs
// wherever the toolkit's ptxas is installed, GPU or not.
TEST(CudaDriver, FixturePtxAssembles) {
  if (std::system("command -v ptxas > /dev/null 2>&1") != 0) GTEST_SKIP() << "no ptxas";
  std::string path = std::string(TESSERA_BINARY_DIR) + "/cuda_driver_test_add.ptx";
  std::ofstream(path) << kAddPtx;
  for (const char *arch : {"sm_80", "sm_90a"}) {
    std::string cmd = std::string("ptxas -arch=") + arch + " " + path + " -o /dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  std::remove(path.c_str());
}

// The blocks per SM to ask for when a few registers fewer let one more
// reside, with an H100's limits (the same as an H200's): 64K registers,
// 228 KiB of shared memory (1 KiB of it reserved per block), 2048 threads,
// 32 blocks.
TEST(CudaDriver, OccupancyBlockTarget) {
  cu::DeviceInfo h100;
  h100.regsPerSm = 65536;
  h100.sharedPerSm = 233472;
  h100.reservedSharedPerBlock = 1024;
  h100.maxThreadsPerSm = 2048;
  h100.maxBlocksPerSm = 32;
  // Attention's 128x64 forward, 4 warps, 64.25 KiB: two blocks at 170 or 173
  // registers, three at 168, which shared memory allows.
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 173, 128, 65792), 3);
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 170, 128, 65792), 3);
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 168, 128, 65792), 0);  // three already
  // More than one allocation step (8 registers) away: left alone.
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 177, 128, 65792), 0);
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 200, 128, 65792), 0);
  // Shared memory allows two blocks (80.25 KiB each): registers do not limit.
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 173, 128, 82176), 0);
  // Eight warps at 130 registers: one block; at 128, two.
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 130, 256, 50000), 2);
  // 16 warps resident already (four blocks of 4 warps at 100 registers;
  // 96 would fit five): left alone.
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 100, 128, 0), 0);
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 58, 128, 0), 0);
  // Threads bound it (1024-thread blocks, two at most): nothing to gain.
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 32, 1024, 0), 0);
  // Unknown limits (a DeviceInfo not filled in): no cap.
  EXPECT_EQ(cu::occupancyBlockTarget(cu::DeviceInfo{}, 173, 128, 65792), 0);
}

// Blocks resident per SM of an H100 / H200, and the choice between a
// warp-specialised kernel and its unspecialised twin that follows from it.
TEST(CudaDriver, ResidentBlocksAndTheWarpSpecializedChoice) {
  const cu::DeviceInfo h100 = cu::archLimits(90);
  // Registers: 168 a thread on 9 warps take 48 Ki, one block; 8 warps at
  // 96 take 24 Ki, two (and shared memory allows two).
  EXPECT_EQ(cu::residentBlocks(h100, 168, 288, 164096), 1);
  EXPECT_EQ(cu::residentBlocks(h100, 96, 256, 100000), 2);
  // Shared memory: 64.25 KiB blocks (1 KiB reserved each): three.
  EXPECT_EQ(cu::residentBlocks(h100, 32, 128, 65792), 3);
  // Threads: 1024-thread blocks, two.
  EXPECT_EQ(cu::residentBlocks(h100, 32, 1024, 0), 2);
  EXPECT_EQ(cu::residentBlocks(cu::DeviceInfo{}, 32, 128, 0), 0);  // limits unknown

  // Tutorial 06's causal forward, 128x128 on 8 warps: specialised, 168
  // registers and 8 bytes spilled; unspecialised, 190 and none. The twin.
  const cu::KernelFootprint causalWs{168, 8, 288, 164096}, causalPlain{190, 0, 256, 164096};
  EXPECT_FALSE(cu::keepWarpSpecialized(h100, causalWs, causalPlain));
  // Non-causal: 168 and 170 registers, neither spills, one block each.
  const cu::KernelFootprint ws{168, 0, 288, 164096}, plain{170, 0, 256, 164096};
  EXPECT_TRUE(cu::keepWarpSpecialized(h100, ws, plain));
  // D 64, 128x64 on 4 warps, 66 KiB of shared memory (three blocks' worth):
  // 176 and 174 registers, 5632 a warp, two warps to a sub-partition's 16
  // Ki. Four warps a block fit twice; five, once (64 Ki / 5632 would say
  // eleven warps, two blocks).
  const cu::KernelFootprint d64Ws{176, 0, 160, 67584}, d64Plain{174, 0, 128, 67584};
  EXPECT_EQ(cu::residentBlocks(h100, 176, 160, 67584), 1);
  EXPECT_EQ(cu::residentBlocks(h100, 174, 128, 67584), 2);
  EXPECT_FALSE(cu::keepWarpSpecialized(h100, d64Ws, d64Plain));
  // Two-warp blocks at 176 registers: eight warps, four blocks (not five).
  EXPECT_EQ(cu::residentBlocks(h100, 176, 64, 0), 4);
  // Equal spills and blocks (two, by shared memory): the specialised one.
  EXPECT_TRUE(cu::keepWarpSpecialized(h100, {96, 16, 288, 100000}, {96, 16, 256, 100000}));
  // Limits unknown: spills alone decide.
  EXPECT_TRUE(cu::keepWarpSpecialized(cu::DeviceInfo{}, ws, plain));
  EXPECT_FALSE(cu::keepWarpSpecialized(cu::DeviceInfo{}, causalWs, causalPlain));
}

TEST(CudaDriver, ArchLimitsAndTheOccupancyHint) {
  cu::DeviceInfo h100 = cu::archLimits(90);
  EXPECT_EQ(h100.regsPerSm, 65536);
  EXPECT_EQ(h100.sharedPerSm, 228 * 1024);
  EXPECT_EQ(h100.maxThreadsPerSm, 2048);
  EXPECT_EQ(cu::occupancyBlockTarget(h100, 173, 128, 65792), 3);
  EXPECT_EQ(cu::archLimits(86).maxThreadsPerSm, 1536);
  // Kept: fewer registers, at most kHintSpillBytes more spilled.
  EXPECT_TRUE(cu::keepHinted(170, 0, 168, 16));
  EXPECT_FALSE(cu::keepHinted(170, 0, 168, 24));
  EXPECT_FALSE(cu::keepHinted(170, 0, 170, 0));
  EXPECT_FALSE(cu::keepHinted(170, 0, 0, 0));  // the driver did not answer
  EXPECT_EQ(cu::archLimits(75).regsPerSm, 0);  // not in the table: no hint
  EXPECT_EQ(cu::occupancyBlockTarget(cu::archLimits(75), 173, 128, 65792), 0);

  const std::string ptx = ".visible .entry k(\n.param .u64 p\n)\n.maxntid 128, 1, 1\n{\nret;\n}\n";
  EXPECT_EQ(cu::withMinBlocksPerSm(ptx, 3),
            ".visible .entry k(\n.param .u64 p\n)\n.maxntid 128, 1, 1\n.minnctapersm 3\n{\nret;"
            "\n}\n");
  // The program's own register cap or occupancy, or no .maxntid: left alone.
  EXPECT_EQ(cu::withMinBlocksPerSm(".entry k()\n.maxntid 128, 1, 1\n.maxnreg 128\n{\n}\n", 3), "");
  EXPECT_EQ(cu::withMinBlocksPerSm(".entry k()\n.maxntid 64, 1, 1\n.minnctapersm 2\n{\n}\n", 3),
            "");
  EXPECT_EQ(cu::withMinBlocksPerSm(".entry k()\n{\n}\n", 3), "");
  EXPECT_EQ(cu::withMinBlocksPerSm(".entry k()\n.maxntid 32, 1, 1", 2),
            ".entry k()\n.maxntid 32, 1, 1\n.minnctapersm 2");
}

class CudaGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cu::driverAvailable(&why)) GTEST_SKIP() << why;
  }
};

TEST_F(CudaGpu, DeviceInfo) {
  ASSERT_GE(cu::deviceCount(), 1);
  const cu::DeviceInfo &info = cu::deviceInfo(0);
  EXPECT_EQ(&info, &cu::deviceInfo(0));  // cached
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.major, 7);
  EXPECT_GT(info.smCount, 0);
  EXPECT_EQ(info.warpSize, 32);
  EXPECT_GE(info.maxThreadsPerBlock, 1024);
  EXPECT_EQ(info.sharedPerBlock, 48 * 1024);
  EXPECT_GE(info.sharedPerBlockOptin, info.sharedPerBlock);
  EXPECT_GT(info.l2Bytes, 0);
  EXPECT_GT(info.totalMem, int64_t{1} << 30);
  EXPECT_GT(info.memBusWidth, 0);
  std::string err = errorOf([] { cu::deviceInfo(cu::deviceCount()); });
  EXPECT_TRUE(contains(err, "does not exist")) << err;
  cu::useDevice(0);
  EXPECT_EQ(cu::currentDevice(), 0);
}

TEST_F(CudaGpu, VectorAddMatchesCpu) {
  constexpr int n = 1000;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> a(n), b(n), out(n), want(n);
  for (int i = 0; i < n; ++i) {
    a[i] = dist(rng);
    b[i] = dist(rng);
    want[i] = a[i] + b[i];
  }
  auto k = cu::LoadedKernel::load(kAddPtx, "add_f32", 0, 0, "add_kernel");
  EXPECT_GT(k->attrs().numRegs, 0);
  EXPECT_GE(k->attrs().maxThreadsPerBlock, 128);
  EXPECT_EQ(k->attrs().ptxVersion, 80);
  EXPECT_EQ(k->device(), 0);

  size_t bytes = n * sizeof(float);
  cu::DevicePtr da = cu::memAlloc(bytes), db = cu::memAlloc(bytes), dout = cu::memAlloc(bytes);
  EXPECT_EQ(cu::deviceOfPointer(da), 0);
  EXPECT_EQ(cu::deviceOfPointer(reinterpret_cast<uintptr_t>(a.data())), -1);
  cu::memcpyHtoD(da, a.data(), bytes);
  cu::memcpyHtoD(db, b.data(), bytes);
  cu::memsetD8(dout, 0xFF, bytes);  // NaN everywhere: an unwritten element fails

  // An empty grid launches nothing.
  uint32_t count = n;
  void *params[] = {&da, &db, &dout, &count};
  int64_t empty[3] = {0, 1, 1};
  k->launch(empty, 128, 0, nullptr, params);
  cu::synchronize();
  cu::memcpyDtoH(out.data(), dout, bytes);
  EXPECT_TRUE(std::isnan(out[0]));

  cu::Event start, stop;
  int64_t grid[3] = {(n + 127) / 128, 1, 1};
  start.record();
  k->launch(grid, 128, 0, nullptr, params);
  stop.record();
  stop.synchronize();
  EXPECT_GE(stop.elapsedMsSince(start), 0.0f);
  cu::synchronize();
  cu::memcpyDtoH(out.data(), dout, bytes);
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    if (!(out[i] == want[i]) && wrong++ < 5)  // NaN never passes
      ADD_FAILURE() << "out[" << i << "] = " << out[i] << ", want " << want[i];
  EXPECT_EQ(wrong, 0);

  // Dynamic shared memory above the 48 KiB default is enabled on demand.
  int optin = cu::deviceInfo(0).sharedPerBlockOptin;
  if (optin > 64 * 1024) {
    k->launch(grid, 128, 64 * 1024, nullptr, params);
    cu::synchronize();
  }

  int64_t tooTall[3] = {1, 65536, 1};
  std::string err = errorOf([&] { k->launch(tooTall, 128, 0, nullptr, params); });
  EXPECT_TRUE(contains(err, "add_kernel") && contains(err, "(1, 65536, 1)") &&
              contains(err, "65536"))
      << err;
  err = errorOf([&] { k->launch(grid, 4096, 0, nullptr, params); });
  EXPECT_TRUE(contains(err, "4096 threads")) << err;

  cu::memFree(da);
  cu::memFree(db);
  cu::memFree(dout);
}

TEST_F(CudaGpu, InvalidPtxErrorCarriesJitLog) {
  int line = 0;
  std::string ptx = brokenPtx(&line);
  std::string err = errorOf([&] { cu::LoadedKernel::load(ptx, "add_f32", 0, 0, "bad_kernel"); });
  EXPECT_TRUE(contains(err, "cuModuleLoadDataEx failed for kernel 'bad_kernel'")) << err;
  EXPECT_TRUE(contains(err, "CUDA_ERROR_")) << err;
  EXPECT_TRUE(contains(err, "syntax")) << err;
  EXPECT_TRUE(contains(err, "line " + std::to_string(line))) << err;
}

TEST_F(CudaGpu, MissingEntryAndTooMuchSharedMemory) {
  std::string err = errorOf([] { cu::LoadedKernel::load(kAddPtx, "nope", 0, 0, "add_kernel"); });
  EXPECT_TRUE(contains(err, "cuModuleGetFunction failed for kernel 'add_kernel'")) << err;
  EXPECT_TRUE(contains(err, "'nope'")) << err;

  int optin = cu::deviceInfo(0).sharedPerBlockOptin;
  err = errorOf([&] { cu::LoadedKernel::load(kAddPtx, "add_f32", 0, optin + 1, "add_kernel"); });
  EXPECT_TRUE(contains(err, std::to_string(optin + 1)) && contains(err, std::to_string(optin)) &&
              contains(err, "num_stages"))
      << err;
  // The largest amount the device allows loads.
  auto k = cu::LoadedKernel::load(kAddPtx, "add_f32", 0, optin, "add_kernel");
  EXPECT_EQ(k->attrs().staticSharedBytes, 0);
}

}  // namespace
