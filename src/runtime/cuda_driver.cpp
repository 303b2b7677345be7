// The CUDA driver loader. libcuda.so.1 is opened once (std::call_once) and
// every entry point Tessera uses is resolved through one table,
// TESSERA_CUDA_FUNCTIONS, by its versioned symbol where the driver has one
// (cuMemAlloc_v2, ...: the unversioned names are older ABIs, with 32-bit
// sizes or older semantics, that the driver only keeps for old binaries).
//
// The driver's types and constants are declared here rather than taken from
// <cuda.h>, so the library builds without a CUDA toolkit. Their values are
// the driver API's (checked against cuda.h of CUDA 13.0 and the Driver API
// reference); they are part of NVIDIA's stable ABI and never change.
//
// State that outlives any caller (the loaded driver, the device table) is
// allocated once and deliberately never freed: a LoadedKernel held by another
// static object may be destroyed after this file's statics would have been,
// and must still find the driver to unload its module.
#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera::cuda {

using CUresult = int;
using CUdevice = int;
using CUcontext = detail::ContextHandle *;
using CUmodule = detail::ModuleHandle *;
using CUfunction = detail::FunctionHandle *;
using CUevent = detail::EventHandle *;
using CUstream = void *;
using CUdeviceptr = uint64_t;  // unsigned long long on every 64-bit ABI

namespace {

constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorInvalidValue = 1;
constexpr CUresult kErrorUnsupportedPtxVersion = 222;

// CUdevice_attribute
constexpr int kDevMaxThreadsPerBlock = 1;
constexpr int kDevMaxSharedPerBlock = 8;
constexpr int kDevWarpSize = 10;
constexpr int kDevMaxRegistersPerBlock = 12;
constexpr int kDevClockRate = 13;
constexpr int kDevMultiprocessorCount = 16;
constexpr int kDevMemoryClockRate = 36;
constexpr int kDevGlobalMemoryBusWidth = 37;
constexpr int kDevL2CacheSize = 38;
constexpr int kDevComputeCapabilityMajor = 75;
constexpr int kDevComputeCapabilityMinor = 76;
constexpr int kDevMaxSharedPerBlockOptin = 97;
constexpr int kDevMaxThreadsPerSm = 39;
constexpr int kDevMaxSharedPerSm = 81;
constexpr int kDevMaxRegistersPerSm = 82;
constexpr int kDevMaxBlocksPerSm = 106;
constexpr int kDevReservedSharedPerBlock = 111;
// CUfunction_attribute
constexpr int kFuncMaxThreadsPerBlock = 0;
constexpr int kFuncSharedSizeBytes = 1;
constexpr int kFuncLocalSizeBytes = 3;
constexpr int kFuncNumRegs = 4;
constexpr int kFuncPtxVersion = 5;
constexpr int kFuncBinaryVersion = 6;
constexpr int kFuncMaxDynamicSharedSizeBytes = 8;
constexpr int kFuncPreferredSharedMemoryCarveout = 9;
constexpr int kCarveoutMaxShared = 100;  // percent of the unified L1/shared memory
// CUjit_option
constexpr int kJitInfoLogBuffer = 3;
constexpr int kJitInfoLogBufferSizeBytes = 4;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;
constexpr int kJitGenerateLineInfo = 13;
// CUpointer_attribute
constexpr int kPointerDeviceOrdinal = 9;
// CUevent_flags
constexpr unsigned kEventDefault = 0;

// Grid limits of every device since compute capability 3.0.
constexpr int64_t kMaxGridX = 2147483647;
constexpr int64_t kMaxGridYZ = 65535;

constexpr const char *kUseCpu = "use the CPU back end (TESSERA_BACKEND=cpu)";

// (member, symbol, parameters); every function returns CUresult. Enum
// parameters are passed as int, which is how the C ABI passes them.
#define TESSERA_CUDA_FUNCTIONS(X)                                                                \
  X(cuInit, "cuInit", (unsigned))                                                                \
  X(cuGetErrorName, "cuGetErrorName", (CUresult, const char **))                                 \
  X(cuGetErrorString, "cuGetErrorString", (CUresult, const char **))                             \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int *))                                               \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice *, int))                                               \
  X(cuDeviceGetName, "cuDeviceGetName", (char *, int, CUdevice))                                 \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *, int, CUdevice))                        \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", (size_t *, CUdevice))                               \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *, CUdevice))               \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", (CUcontext *))                                           \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                                             \
  X(cuCtxGetDevice, "cuCtxGetDevice", (CUdevice *))                                              \
  X(cuCtxSynchronize, "cuCtxSynchronize", ())                                                    \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                                    \
    (CUmodule *, const void *, unsigned, int *, void **))                                        \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule))                                                \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction *, CUmodule, const char *))          \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", (int *, int, CUfunction))                          \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", (CUfunction, int, int))                            \
  X(cuLaunchKernel, "cuLaunchKernel",                                                            \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, \
     void **, void **))                                                                          \
  X(cuPointerGetAttribute, "cuPointerGetAttribute", (void *, int, CUdeviceptr))                  \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *, size_t))                                        \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                                    \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr, const void *, size_t))                        \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *, CUdeviceptr, size_t))                              \
  X(cuMemsetD8, "cuMemsetD8_v2", (CUdeviceptr, unsigned char, size_t))                           \
  X(cuMemsetD32, "cuMemsetD32_v2", (CUdeviceptr, unsigned, size_t))                              \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream))                                      \
  X(cuStreamIsCapturing, "cuStreamIsCapturing", (CUstream, int *))                               \
  X(cuEventCreate, "cuEventCreate", (CUevent *, unsigned))                                       \
  X(cuEventDestroy, "cuEventDestroy_v2", (CUevent))                                              \
  X(cuEventRecord, "cuEventRecord", (CUevent, CUstream))                                         \
  X(cuEventSynchronize, "cuEventSynchronize", (CUevent))                                         \
  X(cuEventElapsedTime, "cuEventElapsedTime", (float *, CUevent, CUevent))

struct Driver {
#define TESSERA_DECLARE(member, symbol, params) CUresult(*member) params = nullptr;
  TESSERA_CUDA_FUNCTIONS(TESSERA_DECLARE)
#undef TESSERA_DECLARE
};

// Resolved where present: drivers older than CUDA 12.0 lack it, and they
// still run everything but tensor-memory-accelerator copies.
using EncodeTiledFn = CUresult (*)(void *, int, unsigned, void *, const uint64_t *,
                                   const uint64_t *, const uint32_t *, const uint32_t *, int, int,
                                   int, int);

struct DriverState {
  Driver fns;
  EncodeTiledFn encodeTiled = nullptr;
  bool ok = false;
  std::string whyNot;  // when !ok: the sentence every entry point throws
};

std::string describe(const Driver &d, CUresult r) {
  const char *name = nullptr, *text = nullptr;
  if (d.cuGetErrorName(r, &name) != kSuccess || !name) name = nullptr;
  if (d.cuGetErrorString(r, &text) != kSuccess || !text) text = "unknown error";
  return (name ? std::string(name) : "CUDA error " + std::to_string(r)) + " (" + text + ")";
}

void openDriver(DriverState &s) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    s.whyNot = std::string("libcuda.so.1 could not be loaded (") + (err ? err : "unknown error") +
               "): no NVIDIA driver on this machine; " + kUseCpu;
    return;
  }
#define TESSERA_RESOLVE(member, symbol, params)                                \
  s.fns.member = reinterpret_cast<decltype(s.fns.member)>(dlsym(lib, symbol)); \
  if (!s.fns.member) {                                                         \
    dlclose(lib);                                                              \
    s.whyNot = "libcuda.so.1 has no " symbol                                   \
               ": the NVIDIA driver is too old for Tessera; update it, or " +  \
               std::string(kUseCpu);                                           \
    return;                                                                    \
  }
  TESSERA_CUDA_FUNCTIONS(TESSERA_RESOLVE)
#undef TESSERA_RESOLVE
  s.encodeTiled = reinterpret_cast<EncodeTiledFn>(dlsym(lib, "cuTensorMapEncodeTiled"));
  // The library stays open for the process lifetime (see the top of the file).
  if (CUresult r = s.fns.cuInit(0); r != kSuccess) {
    s.whyNot = "cuInit failed: " + describe(s.fns, r) +
               ": the NVIDIA driver has no usable GPU for this process; " + kUseCpu;
    return;
  }
  s.ok = true;
}

const DriverState &state() {
  static DriverState *s = new DriverState;  // never freed: see the top of the file
  static std::once_flag once;
  std::call_once(once, [] {
    try {
      openDriver(*s);
    } catch (const std::exception &e) {  // only bad_alloc can get here
      s->ok = false;
      s->whyNot = std::string("the CUDA driver could not be loaded: ") + e.what();
    }
  });
  return *s;
}

// The driver's functions; throws the unavailability sentence without one.
const Driver &driver() {
  const DriverState &s = state();
  if (!s.ok) throw Error(s.whyNot);
  return s.fns;
}

// Errors a faulting kernel leaves behind; they poison the context for good.
bool isKernelFault(CUresult r) {
  switch (r) {
    case 214:  // CUDA_ERROR_ECC_UNCORRECTABLE
    case 700:  // CUDA_ERROR_ILLEGAL_ADDRESS
    case 702:  // CUDA_ERROR_LAUNCH_TIMEOUT
    case 710:  // CUDA_ERROR_ASSERT
    case 714:  // CUDA_ERROR_HARDWARE_STACK_ERROR
    case 715:  // CUDA_ERROR_ILLEGAL_INSTRUCTION
    case 716:  // CUDA_ERROR_MISALIGNED_ADDRESS
    case 717:  // CUDA_ERROR_INVALID_ADDRESS_SPACE
    case 718:  // CUDA_ERROR_INVALID_PC
    case 719:  // CUDA_ERROR_LAUNCH_FAILED
    case 721:  // CUDA_ERROR_TENSOR_MEMORY_LEAK
      return true;
    default:
      return false;
  }
}

[[noreturn]] void fail(const char *call, CUresult r, std::string_view kernel,
                       std::string_view extra = {}) {
  std::string msg = std::string(call) + " failed";
  if (!kernel.empty()) msg += " for kernel '" + std::string(kernel) + "'";
  msg += ": " + describe(state().fns, r);
  if (isKernelFault(r)) {
    msg += ": a kernel faulted on the device, and CUDA cannot be used again in this process";
    throw KernelError(msg);
  }
  if (!extra.empty()) msg += "\n" + std::string(extra);
  throw Error(msg);
}

inline void check(CUresult r, const char *call, std::string_view kernel = {}) {
  if (r != kSuccess) fail(call, r, kernel);
}

struct DeviceSlot {
  CUdevice handle = 0;
  std::once_flag infoOnce, contextOnce;
  DeviceInfo info;
  CUcontext context = nullptr;
  // 16 bytes of zeros, then 16 of 0xff (a NaN in every float width), made
  // once: what an empty tensor's tensor map points at (paddingBlock).
  std::once_flag paddingOnce;
  CUdeviceptr padding = 0;
  // The global scratch of each stream's launches (globalScratch).
  std::mutex scratchMutex;
  struct Scratch {
    Stream stream;
    std::thread::id thread;  // the per-thread default stream's owner
    CUdeviceptr ptr;
    size_t bytes;
  };
  std::vector<Scratch> scratch;
  // Captured launches' scratch: slices of a pool allocated outside capture
  // (at the first launch that needs scratch), each used by one captured
  // launch only, since its graph may replay at any time on any stream.
  CUdeviceptr capturePool = 0;
  size_t capturePoolBytes = 0, capturePoolUsed = 0;
};

struct Devices {
  int count = 0;
  std::unique_ptr<DeviceSlot[]> slots;
};

Devices &devices() {
  const Driver &d = driver();
  static Devices *devs = new Devices;  // never freed: see the top of the file
  static std::once_flag once;
  std::call_once(once, [&] {
    int n = 0;
    check(d.cuDeviceGetCount(&n), "cuDeviceGetCount");
    auto slots = std::make_unique<DeviceSlot[]>(n);
    for (int i = 0; i < n; ++i) check(d.cuDeviceGet(&slots[i].handle, i), "cuDeviceGet");
    devs->slots = std::move(slots);
    devs->count = n;
  });
  return *devs;
}

DeviceSlot &slot(int ordinal) {
  Devices &ds = devices();
  if (ordinal < 0 || ordinal >= ds.count)
    throw Error("CUDA device " + std::to_string(ordinal) + " does not exist: this machine has " +
                std::to_string(ds.count) + " CUDA device" + (ds.count == 1 ? "" : "s"));
  return ds.slots[ordinal];
}

CUcontext primaryContext(int ordinal) {
  DeviceSlot &s = slot(ordinal);
  std::call_once(s.contextOnce, [&] {
    CUcontext ctx = nullptr;
    check(driver().cuDevicePrimaryCtxRetain(&ctx, s.handle), "cuDevicePrimaryCtxRetain");
    s.context = ctx;
  });
  return s.context;
}

// The helpers below act on the current context; a thread that has none gets
// device 0's primary context, as the CUDA runtime would give it.
const Driver &withContext() {
  const Driver &d = driver();
  CUcontext ctx = nullptr;
  check(d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  if (!ctx) useDevice(0);
  return d;
}

// Makes `ctx` current on this thread for its lifetime, then makes current
// again the context that was: a launch or a module load on another device
// leaves the caller's current device (what the CUDA runtime and PyTorch call
// current) as it was. A thread that had no context keeps `ctx`.
class ScopedContext {
 public:
  ScopedContext(const Driver &d, CUcontext ctx, const std::string &kernel) : d_(d) {
    check(d.cuCtxGetCurrent(&previous_), "cuCtxGetCurrent", kernel);
    if (previous_ == ctx) return;
    check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent", kernel);
    restore_ = previous_ != nullptr;
  }
  ~ScopedContext() {
    if (restore_) d_.cuCtxSetCurrent(previous_);  // nothing useful to do on failure
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

 private:
  const Driver &d_;
  CUcontext previous_ = nullptr;
  bool restore_ = false;
};

std::string gridText(const int64_t grid[3]) {
  return "(" + std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " +
         std::to_string(grid[2]) + ")";
}

}  // namespace

bool driverAvailable(std::string *whyNot) {
  const DriverState &s = state();
  if (!s.ok && whyNot) *whyNot = s.whyNot;
  return s.ok;
}

int deviceCount() {
  return devices().count;
}

const DeviceInfo &deviceInfo(int ordinal) {
  DeviceSlot &s = slot(ordinal);
  std::call_once(s.infoOnce, [&] {
    const Driver &d = driver();
    auto attr = [&](int a) {
      int v = 0;
      check(d.cuDeviceGetAttribute(&v, a, s.handle), "cuDeviceGetAttribute");
      return v;
    };
    DeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    check(d.cuDeviceGetName(name, sizeof name - 1, s.handle), "cuDeviceGetName");
    info.name = name;
    info.major = attr(kDevComputeCapabilityMajor);
    info.minor = attr(kDevComputeCapabilityMinor);
    info.smCount = attr(kDevMultiprocessorCount);
    info.maxThreadsPerBlock = attr(kDevMaxThreadsPerBlock);
    info.warpSize = attr(kDevWarpSize);
    info.maxRegsPerBlock = attr(kDevMaxRegistersPerBlock);
    info.sharedPerBlock = attr(kDevMaxSharedPerBlock);
    info.sharedPerBlockOptin = attr(kDevMaxSharedPerBlockOptin);
    info.l2Bytes = attr(kDevL2CacheSize);
    size_t total = 0;
    check(d.cuDeviceTotalMem(&total, s.handle), "cuDeviceTotalMem");
    info.totalMem = static_cast<int64_t>(total);
    info.clockKHz = attr(kDevClockRate);
    info.memClockKHz = attr(kDevMemoryClockRate);
    info.memBusWidth = attr(kDevGlobalMemoryBusWidth);
    info.regsPerSm = attr(kDevMaxRegistersPerSm);
    info.sharedPerSm = attr(kDevMaxSharedPerSm);
    info.reservedSharedPerBlock = attr(kDevReservedSharedPerBlock);
    info.maxThreadsPerSm = attr(kDevMaxThreadsPerSm);
    info.maxBlocksPerSm = attr(kDevMaxBlocksPerSm);
    s.info = std::move(info);
  });
  return s.info;
}

void useDevice(int ordinal) {
  CUcontext ctx = primaryContext(ordinal);
  check(driver().cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

int deviceOfPointer(DevicePtr ptr) {
  const Driver &d = driver();
  if (ptr == 0) return -1;
  int ordinal = -1;
  CUresult r = d.cuPointerGetAttribute(&ordinal, kPointerDeviceOrdinal, ptr);
  // INVALID_VALUE is the driver's answer for an address it did not allocate.
  if (r == kErrorInvalidValue) return -1;
  check(r, "cuPointerGetAttribute");
  return ordinal;
}

int currentDevice() {
  const Driver &d = driver();
  CUcontext ctx = nullptr;
  check(d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  if (!ctx) return 0;
  CUdevice dev = 0;
  check(d.cuCtxGetDevice(&dev), "cuCtxGetDevice");
  // A CUdevice is the ordinal on every driver so far, but the API does not
  // promise it, so map it back through the table.
  Devices &ds = devices();
  for (int i = 0; i < ds.count; ++i)
    if (ds.slots[i].handle == dev) return i;
  return dev;
}

namespace {

// An SM's register file is split among its four sub-partitions (sm_80
// and sm_90 alike), each holding whole warps: a block of five warps at 176
// registers (5632 a warp) fits once, as two warps per sub-partition is all
// that 16 Ki registers hold, where 64 Ki / 5632 would say twice. (Tutorial
// 06's D 64 forward, 128x64 tiles on 4 warps and a producer warp: one block
// per SM, 292 TFLOP/s, against two and 442 without the producer; H200.)
constexpr int kSubPartitions = 4;

// Registers a warp takes at `regs` a thread: 256 at a time (8 a thread).
int registersPerWarp(int regs) {
  return (regs * 32 + 255) / 256 * 256;
}

// Blocks of `warps` warps at `regs` registers a thread that an SM's
// registers hold.
int blocksByRegisters(const DeviceInfo &info, int regs, int warps) {
  const int warpsPerSubPartition = info.regsPerSm / kSubPartitions / registersPerWarp(regs);
  return warpsPerSubPartition * kSubPartitions / warps;
}

// The most registers a thread may keep for `blocks` blocks of `warps` warps
// to reside: those of a sub-partition shared by its share of the warps.
int registerCapFor(const DeviceInfo &info, int blocks, int warps) {
  const int warpsPerSubPartition = (blocks * warps + kSubPartitions - 1) / kSubPartitions;
  return std::min(info.regsPerSm / kSubPartitions / warpsPerSubPartition / 256 * 256 / 32, 255);
}

// ... that its threads, block slots and shared memory hold (32 where the
// limits are not known).
int blocksByOtherLimits(const DeviceInfo &info, int warps, int sharedBytes) {
  int blocks = info.maxBlocksPerSm > 0 ? info.maxBlocksPerSm : 32;
  if (info.maxThreadsPerSm > 0) blocks = std::min(blocks, info.maxThreadsPerSm / (warps * 32));
  if (info.sharedPerSm > 0 && sharedBytes > 0)
    blocks = std::min(blocks, info.sharedPerSm / (sharedBytes + info.reservedSharedPerBlock));
  return blocks;
}

}  // namespace

int residentBlocks(const DeviceInfo &info, int regs, int threads, int sharedBytes) {
  if (regs <= 0 || threads <= 0 || info.regsPerSm <= 0) return 0;
  const int warps = (threads + 31) / 32;
  return std::min(blocksByRegisters(info, regs, warps),
                  blocksByOtherLimits(info, warps, sharedBytes));
}

int occupancyBlockTarget(const DeviceInfo &info, int regs, int threads, int sharedBytes) {
  if (regs <= 0 || threads <= 0 || info.regsPerSm <= 0) return 0;
  const int warps = (threads + 31) / 32;
  const int other = blocksByOtherLimits(info, warps, sharedBytes);
  const int blocks = blocksByRegisters(info, regs, warps);
  if (blocks >= other) return 0;  // registers do not limit it
  // A kernel already keeping 16 warps or more on each SM is left alone: it
  // hides latency well enough, and forcing its registers down spilled
  // (softmax, layer norm: 8 to 56 bytes a thread) or, in one matmul
  // configuration, failed (an instruction needing more registers than the
  // target) on the H200.
  if (blocks * warps >= 16) return 0;
  const int cap = registerCapFor(info, blocks + 1, warps);
  const int rounded = (regs + 7) / 8 * 8;
  if (cap < 16 || rounded - cap > 8 || blocksByRegisters(info, cap, warps) <= blocks) return 0;
  return blocks + 1;
}

bool keepWarpSpecialized(const DeviceInfo &info, const KernelFootprint &specialized,
                         const KernelFootprint &plain) {
  if (specialized.localBytes > plain.localBytes) return false;
  return residentBlocks(info, specialized.regs, specialized.threads, specialized.sharedBytes) >=
         residentBlocks(info, plain.regs, plain.threads, plain.sharedBytes);
}

DeviceInfo archLimits(int sm) {
  DeviceInfo info;
  info.major = sm / 10;
  info.minor = sm % 10;
  // {sm, shared KiB, threads, blocks}; 64 Ki registers and 1 KiB reserved
  // per block on all of them.
  static constexpr int kTable[][4] = {{80, 164, 2048, 32}, {86, 100, 1536, 16},
                                      {87, 164, 2048, 16}, {89, 100, 1536, 24},
                                      {90, 228, 2048, 32}, {100, 228, 2048, 32}};
  for (const auto &row : kTable)
    if (row[0] == sm) {
      info.regsPerSm = 65536;
      info.sharedPerSm = row[1] * 1024;
      info.reservedSharedPerBlock = 1024;
      info.maxThreadsPerSm = row[2];
      info.maxBlocksPerSm = row[3];
    }
  return info;
}

std::string withMinBlocksPerSm(const std::string &ptx, int blocks) {
  size_t maxntid = ptx.find("\n.maxntid ");
  if (maxntid == std::string::npos || ptx.find("\n.maxnreg ") != std::string::npos ||
      ptx.find("\n.minnctapersm ") != std::string::npos)
    return "";
  size_t end = ptx.find('\n', maxntid + 1);  // (npos: the directive ends the text)
  std::string hinted = ptx;
  hinted.insert(end == std::string::npos ? ptx.size() : end,
                "\n.minnctapersm " + std::to_string(blocks));
  return hinted;
}

std::unique_ptr<LoadedKernel> LoadedKernel::load(std::string_view ptx, const std::string &entry,
                                                 int device, int dynamicSharedBytes,
                                                 const std::string &kernelName, int blockThreads) {
  const Driver &d = driver();
  if (dynamicSharedBytes < 0)
    throw Error("kernel '" + kernelName + "': negative dynamic shared memory size " +
                std::to_string(dynamicSharedBytes));
  std::unique_ptr<LoadedKernel> k(new LoadedKernel);
  k->device_ = device;
  k->blockThreads_ = blockThreads;
  k->dynamicSharedBytes_ = dynamicSharedBytes;
  k->name_ = kernelName;
  k->context_ = primaryContext(device);
  ScopedContext inContext(d, k->context_, kernelName);

  // The driver reads the image up to its NUL; a string_view need not have one.
  std::string image(ptx);
  std::vector<char> errorLog(64 * 1024, '\0'), infoLog(16 * 1024, '\0');
  // Line info keeps the PTX's `.loc` source mapping in the SASS, so
  // profilers (Nsight Compute's source view) show the kernel's own lines; it
  // costs no run time (it is not debug info: optimisation stays on).
  // (The log sizes are in/out: each JIT starts from the buffers' sizes.)
  auto jit = [&](CUmodule *module, const std::string &source) {
    int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes, kJitInfoLogBuffer,
                     kJitInfoLogBufferSizeBytes, kJitGenerateLineInfo};
    void *values[] = {errorLog.data(), reinterpret_cast<void *>(errorLog.size() - 1),
                      infoLog.data(), reinterpret_cast<void *>(infoLog.size() - 1),
                      reinterpret_cast<void *>(1)};
    return d.cuModuleLoadDataEx(module, source.c_str(), std::size(options), options, values);
  };
  CUresult r = jit(&k->module_, image);
  if (r != kSuccess) {
    k->module_ = nullptr;
    std::string extra;
    if (r == kErrorUnsupportedPtxVersion)
      extra = "the NVIDIA driver is older than the PTX ISA this kernel uses; update the driver\n";
    extra += "JIT error log:\n";
    extra += errorLog.data()[0] ? errorLog.data() : "(empty)";
    if (infoLog.data()[0]) extra += std::string("\nJIT info log:\n") + infoLog.data();
    fail("cuModuleLoadDataEx", r, kernelName, extra);
  }
  r = d.cuModuleGetFunction(&k->function_, k->module_, entry.c_str());
  if (r != kSuccess)
    fail("cuModuleGetFunction", r, kernelName, "the PTX has no kernel entry '" + entry + "'");

  auto attr = [&](int a) {  // of the kernel as loaded so far
    int v = 0;
    check(d.cuFuncGetAttribute(&v, a, k->function_), "cuFuncGetAttribute", kernelName);
    return v;
  };
  // A kernel a few registers short of one more resident block per SM: the
  // same PTX stating that occupancy (`.minnctapersm`, after the entry's
  // `.maxntid`; ptxas then fits the registers, which the driver's
  // register-count option would not do for a kernel with `.maxntid`), kept
  // as keepHinted says.
  // A `.maxnreg` of the program's own (Triton's maxnreg) is left as it is.
  const int regs = attr(kFuncNumRegs);
  const int blocks = blockThreads > 0
                         ? occupancyBlockTarget(deviceInfo(device), regs, blockThreads,
                                                attr(kFuncSharedSizeBytes) + dynamicSharedBytes)
                         : 0;
  if (std::string hinted = blocks > 0 ? withMinBlocksPerSm(image, blocks) : ""; !hinted.empty()) {
    CUmodule module = nullptr;
    CUfunction f = nullptr;
    int hintedRegs = 0, hintedLocal = 0;  // (0 where the driver does not answer)
    if (jit(&module, hinted) == kSuccess &&
        d.cuModuleGetFunction(&f, module, entry.c_str()) == kSuccess &&
        d.cuFuncGetAttribute(&hintedRegs, kFuncNumRegs, f) == kSuccess &&
        d.cuFuncGetAttribute(&hintedLocal, kFuncLocalSizeBytes, f) == kSuccess &&
        keepHinted(regs, attr(kFuncLocalSizeBytes), hintedRegs, hintedLocal)) {
      d.cuModuleUnload(k->module_);
      k->module_ = module;
      k->function_ = f;
      // The blocks asked for share the SM's shared memory: without a
      // preference the driver may configure less than they need.
      d.cuFuncSetAttribute(f, kFuncPreferredSharedMemoryCarveout, kCarveoutMaxShared);
    } else if (module) {
      d.cuModuleUnload(module);
    }
  }
  k->attrs_.numRegs = attr(kFuncNumRegs);
  k->attrs_.localBytes = attr(kFuncLocalSizeBytes);
  k->attrs_.staticSharedBytes = attr(kFuncSharedSizeBytes);
  k->attrs_.maxThreadsPerBlock = attr(kFuncMaxThreadsPerBlock);
  k->attrs_.ptxVersion = attr(kFuncPtxVersion);
  k->attrs_.binaryVersion = attr(kFuncBinaryVersion);
  k->dynamicSharedLimit_ = attr(kFuncMaxDynamicSharedSizeBytes);
  k->enableDynamicShared(dynamicSharedBytes);
  return k;
}

LoadedKernel::~LoadedKernel() {
  if (!module_) return;
  // The module must be unloaded in its own context. Results are ignored: at
  // process exit the driver may already have shut down, and nothing can be
  // done about a failed unload anyway.
  const Driver &d = state().fns;
  CUcontext previous = nullptr;
  bool switched = d.cuCtxGetCurrent(&previous) == kSuccess && previous != context_ &&
                  d.cuCtxSetCurrent(context_) == kSuccess;
  d.cuModuleUnload(module_);
  if (switched) d.cuCtxSetCurrent(previous);
}

void LoadedKernel::enableDynamicShared(int bytes) const {
  std::lock_guard<std::mutex> lock(dynamicSharedMutex_);
  if (bytes <= dynamicSharedLimit_.load()) return;
  const DeviceInfo &info = deviceInfo(device_);
  // The opt-in limit covers static and dynamic shared memory together.
  int allowed = info.sharedPerBlockOptin - attrs_.staticSharedBytes;
  if (bytes > allowed)
    throw Error("kernel '" + name_ + "' needs " + std::to_string(bytes + attrs_.staticSharedBytes) +
                " bytes of shared memory per block (" + std::to_string(bytes) + " dynamic + " +
                std::to_string(attrs_.staticSharedBytes) + " static), but device " +
                std::to_string(device_) + " (" + info.name + ") allows at most " +
                std::to_string(info.sharedPerBlockOptin) +
                "; use fewer num_stages or smaller blocks");
  check(driver().cuFuncSetAttribute(function_, kFuncMaxDynamicSharedSizeBytes, bytes),
        "cuFuncSetAttribute", name_);
  // Without a preference the driver may configure only as much shared memory
  // as one block needs, leaving room for a second block's unused: a kernel
  // this large wants every block the SM can hold (Triton prefers shared
  // memory for such kernels too).
  check(driver().cuFuncSetAttribute(function_, kFuncPreferredSharedMemoryCarveout,
                                    kCarveoutMaxShared),
        "cuFuncSetAttribute", name_);
  dynamicSharedLimit_.store(bytes);
}

void LoadedKernel::launch(const int64_t grid[3], int blockThreads, int dynamicSharedBytes,
                          Stream stream, void **params) const {
  const Driver &d = driver();
  if (grid[0] <= 0 || grid[1] <= 0 || grid[2] <= 0) {
    if (grid[0] < 0 || grid[1] < 0 || grid[2] < 0)
      throw Error("kernel '" + name_ + "': grid " + gridText(grid) + " has a negative dimension");
    return;  // an empty grid has no programs to run
  }
  if (grid[0] > kMaxGridX || grid[1] > kMaxGridYZ || grid[2] > kMaxGridYZ)
    throw Error("kernel '" + name_ + "': grid " + gridText(grid) +
                " exceeds the GPU's limits (x < 2^31, y and z < 65536)");
  if (blockThreads < 1 || blockThreads > attrs_.maxThreadsPerBlock)
    throw Error("kernel '" + name_ + "': a block of " + std::to_string(blockThreads) +
                " threads cannot run; this kernel allows 1 to " +
                std::to_string(attrs_.maxThreadsPerBlock) + " (it uses " +
                std::to_string(attrs_.numRegs) + " registers per thread)");
  if (dynamicSharedBytes < 0)
    throw Error("kernel '" + name_ + "': negative dynamic shared memory size " +
                std::to_string(dynamicSharedBytes));
  ScopedContext inContext(d, context_, name_);
  if (dynamicSharedBytes > dynamicSharedLimit_.load(std::memory_order_relaxed))
    enableDynamicShared(dynamicSharedBytes);
  check(d.cuLaunchKernel(function_, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                         static_cast<unsigned>(grid[2]), static_cast<unsigned>(blockThreads), 1, 1,
                         static_cast<unsigned>(dynamicSharedBytes), stream, params, nullptr),
        "cuLaunchKernel", name_);
}

DevicePtr paddingBlock(int device, bool nan) {
  const Driver &d = driver();
  DeviceSlot &s = slot(device);
  std::call_once(s.paddingOnce, [&] {
    ScopedContext inContext(d, primaryContext(device), "");
    CUdeviceptr p = 0;
    check(d.cuMemAlloc(&p, 32), "cuMemAlloc");
    check(d.cuMemsetD8(p, 0, 16), "cuMemsetD8");
    check(d.cuMemsetD8(p + 16, 0xff, 16), "cuMemsetD8");
    // The memsets run on the legacy stream: finish them before a kernel on
    // another (non-blocking) stream reads the block.
    check(d.cuCtxSynchronize(), "cuCtxSynchronize");
    s.padding = p;  // kept for the process lifetime, as the context is
  });
  return s.padding + (nan ? 16 : 0);
}

DevicePtr globalScratch(int device, Stream stream, size_t bytes) {
  const Driver &d = driver();
  // A launch being captured into a CUDA graph gets a slice of its own.
  int capturing = 0;
  if (d.cuStreamIsCapturing(stream, &capturing) != kSuccess) capturing = 0;
  // The last answer of this thread: a buffer is never freed, so it stays
  // valid for every request it is large enough for.
  struct Last {
    int device = -1;
    Stream stream = nullptr;
    CUdeviceptr ptr = 0;
    size_t bytes = 0;
  };
  thread_local Last last;
  if (!capturing && last.device == device && last.stream == stream && last.bytes >= bytes)
    return last.ptr;
  DeviceSlot &s = slot(device);
  std::lock_guard<std::mutex> lock(s.scratchMutex);
  if (capturing) {
    size_t at = (s.capturePoolUsed + 255) / 256 * 256;
    if (s.capturePool == 0 || at + bytes > s.capturePoolBytes)
      throw Error(
          "a kernel that builds tensor maps (descriptors or block pointers read by the tensor "
          "memory accelerator) needs " +
          std::to_string(bytes) +
          " bytes of global scratch for this captured launch, and CUDA graph capture cannot "
          "allocate: launch the kernel once outside capture first (that sets aside " +
          std::to_string(s.capturePoolBytes - std::min(at, s.capturePoolBytes)) +
          " bytes for captured launches now), or compile it for sm_90");
    s.capturePoolUsed = at + bytes;
    return s.capturePool + at;
  }
  // CU_STREAM_PER_THREAD is one handle for as many streams as threads.
  const bool perThread = stream == reinterpret_cast<Stream>(uintptr_t{2});
  const std::thread::id me = perThread ? std::this_thread::get_id() : std::thread::id();
  auto it = std::find_if(s.scratch.begin(), s.scratch.end(), [&](const DeviceSlot::Scratch &e) {
    return e.stream == stream && e.thread == me;
  });
  if (it == s.scratch.end() || it->bytes < bytes) {
    ScopedContext inContext(d, primaryContext(device), "");
    // Doubling, so a growing grid allocates a few times; the outgrown
    // buffer is not freed, as kernels queued on the stream may still use it.
    size_t grown = std::max<size_t>(bytes, it == s.scratch.end() ? 0 : 2 * it->bytes);
    grown = (std::max<size_t>(grown, 4096) + 4095) / 4096 * 4096;
    CUdeviceptr p = 0;
    check(d.cuMemAlloc(&p, grown), "cuMemAlloc");
    if (it == s.scratch.end())
      it = s.scratch.insert(s.scratch.end(), {stream, me, p, grown});
    else
      *it = {stream, me, p, grown};
    // The captured launches' pool, once: room for several graphs of
    // launches like this one.
    if (s.capturePool == 0) {
      size_t pool = std::max<size_t>(size_t{16} << 20, 16 * grown);
      check(d.cuMemAlloc(&s.capturePool, pool), "cuMemAlloc");
      s.capturePoolBytes = pool;
    }
  }
  last = {device, stream, it->ptr, it->bytes};
  return it->ptr;
}

std::string encodeTensorMap(const TensorMapRequest &req, TensorMap &out) {
  const DriverState &s = state();
  if (!s.ok) return s.whyNot;
  if (!s.encodeTiled)
    return "libcuda.so.1 has no cuTensorMapEncodeTiled (CUDA 12.0 added it): update the driver";
  const uint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  constexpr int kInterleaveNone = 0, kL2Promotion128 = 2;
  CUresult r =
      s.encodeTiled(&out, req.dtype, static_cast<unsigned>(req.rank),
                    reinterpret_cast<void *>(req.address), req.dims, req.strides, req.box,
                    elementStrides, kInterleaveNone, req.swizzle, kL2Promotion128, req.fill);
  return r == kSuccess ? std::string() : describe(s.fns, r);
}

DevicePtr memAlloc(size_t bytes) {
  const Driver &d = withContext();
  if (bytes == 0) return 0;
  CUdeviceptr p = 0;
  check(d.cuMemAlloc(&p, bytes), "cuMemAlloc");
  return p;
}

void memFree(DevicePtr p) {
  const Driver &d = driver();
  if (p != 0) check(d.cuMemFree(p), "cuMemFree");
}

void memcpyHtoD(DevicePtr dst, const void *src, size_t bytes) {
  const Driver &d = withContext();
  if (bytes != 0) check(d.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

void memcpyDtoH(void *dst, DevicePtr src, size_t bytes) {
  const Driver &d = withContext();
  if (bytes != 0) check(d.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

void memsetD8(DevicePtr dst, uint8_t value, size_t bytes) {
  const Driver &d = withContext();
  if (bytes != 0) check(d.cuMemsetD8(dst, value, bytes), "cuMemsetD8");
}

void memsetD32(DevicePtr dst, uint32_t value, size_t count) {
  const Driver &d = withContext();
  if (count != 0) check(d.cuMemsetD32(dst, value, count), "cuMemsetD32");
}

void synchronize() {
  const Driver &d = driver();
  CUcontext ctx = nullptr;
  check(d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  if (ctx) check(d.cuCtxSynchronize(), "cuCtxSynchronize");
}

void streamSynchronize(Stream stream) {
  check(withContext().cuStreamSynchronize(stream), "cuStreamSynchronize");
}

Event::Event() {
  check(withContext().cuEventCreate(&event_, kEventDefault), "cuEventCreate");
}

Event::~Event() {
  if (event_) state().fns.cuEventDestroy(event_);  // ignored, as for modules
}

void Event::record(Stream stream) {
  check(driver().cuEventRecord(event_, stream), "cuEventRecord");
}

void Event::synchronize() {
  check(driver().cuEventSynchronize(event_), "cuEventSynchronize");
}

float Event::elapsedMsSince(const Event &start) const {
  float ms = 0;
  check(driver().cuEventElapsedTime(&ms, start.event_, event_), "cuEventElapsedTime");
  return ms;
}

}  // namespace tessera::cuda
