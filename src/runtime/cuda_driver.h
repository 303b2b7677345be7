// The CUDA driver, opened at run time: `libcuda.so.1` is dlopen'ed on first
// use, so Tessera links against no CUDA library and builds where no CUDA
// toolkit or driver is installed. On such a machine driverAvailable() says
// why in one sentence, and every other entry point throws tessera::Error with
// that sentence; nothing aborts.
//
// Every driver call is checked. A failure throws tessera::Error naming the
// call, the driver's error name and description, and the kernel when there is
// one:
//
//   cuLaunchKernel failed for kernel 'softmax_kernel': CUDA_ERROR_INVALID_VALUE (invalid argument)
//
// An error that a faulting kernel leaves behind (illegal address, failed
// device assert, ...) poisons the context for the rest of the process; it is
// thrown as tessera::KernelError instead, from whichever call reports it.
//
// Each device is used through its primary context (the one the CUDA runtime
// and PyTorch use too), retained once and kept for the process lifetime. All
// functions are thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "tessera/tessera.h"

namespace tessera::cuda {

using DevicePtr = uint64_t;  // a device address (CUdeviceptr)
using Stream = void *;       // a CUstream; nullptr = the legacy default stream

// The driver's opaque handles; only cuda_driver.cpp looks through them.
namespace detail {
struct ContextHandle;
struct ModuleHandle;
struct FunctionHandle;
struct EventHandle;
}  // namespace detail

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int major = 0, minor = 0;  // compute capability
  int smCount = 0;
  int maxThreadsPerBlock = 0;
  int warpSize = 0;
  int maxRegsPerBlock = 0;      // 32-bit registers a block may use
  int sharedPerBlock = 0;       // the default limit (48 KiB)
  int sharedPerBlockOptin = 0;  // the opt-in maximum (227 KiB on H100)
  int l2Bytes = 0;
  int64_t totalMem = 0;
  int clockKHz = 0;
  int memClockKHz = 0;
  int memBusWidth = 0;  // bits
  // Per multiprocessor: what bounds how many blocks are resident at once.
  int regsPerSm = 0;
  int sharedPerSm = 0;
  int reservedSharedPerBlock = 0;  // the driver's own, on top of each block's
  int maxThreadsPerSm = 0;
  int maxBlocksPerSm = 0;
};

// The blocks per multiprocessor of `info` to ask ptxas for (`.minnctapersm`)
// when registers alone keep a kernel (`regs` a thread, blocks of `threads`
// threads using `sharedBytes` of shared memory each) one block short and
// one allocation step (8 registers a thread) fewer would fit that block,
// and the SM runs fewer than 16 warps of it; 0 otherwise. Attention's
// 128x64 forward at 173 registers runs two blocks per SM where shared
// memory allows three: at 168, three (H200, hkproj's forward hinted so: 353
// against 330 TFLOP/s causal, 398 against 370 not).
int occupancyBlockTarget(const DeviceInfo &info, int regs, int threads, int sharedBytes);

// The local memory (bytes a thread) a kernel loaded with that hint may
// spill beyond the unhinted one and still be kept: hkproj's attention
// forward at 168 registers spills 8 bytes and ran 7% faster on an H200 (397
// against 370 TFLOP/s), the extra block hiding far more latency than the
// L1-resident spills add.
inline constexpr int kHintSpillBytes = 16;

// Whether a kernel assembled with that hint (`hintedRegs` registers and
// `hintedLocal` bytes of local memory a thread) is kept over the plain one
// (`regs`, `local`): fewer registers, at most kHintSpillBytes more spilled.
// The loader and `tesserac aot` both decide by it.
inline bool keepHinted(int regs, int local, int hintedRegs, int hintedLocal) {
  return hintedRegs > 0 && hintedRegs < regs && hintedLocal <= local + kHintSpillBytes;
}

// The blocks of a kernel (`regs` registers a thread, blocks of `threads`
// threads using `sharedBytes` of shared memory each) that one
// multiprocessor of `info` holds at once, as CUDA's occupancy calculator
// counts them (registers by sub-partition); 0 where its limits are not
// known.
int residentBlocks(const DeviceInfo &info, int regs, int threads, int sharedBytes);

// What a loaded kernel takes of a multiprocessor: registers and local
// memory a thread, threads a block, shared memory (static and dynamic) a
// block.
struct KernelFootprint {
  int regs = 0, localBytes = 0, threads = 0, sharedBytes = 0;
};

// Whether a warp-specialised kernel (warp-specialize: producer warps beside
// its num_warps) is kept over its unspecialised twin (the kernel compiled
// unmarked): unless it spills more, or fewer of its blocks reside per SM. The
// producer warp's threads share the SM's registers, so a kernel that wants
// nearly all of them spills or loses a block when specialised. On an H200
// (tutorial 06's causal forward, D 128, 128x128 tiles on 8 warps), the
// specialised build capped at 168 registers spilled 8 bytes a thread and ran
// 4-7% slower than the unspecialised one at 190 registers (504 against 528
// TFLOP/s autotuned at N 4096); every specialised build that spilled no
// more measured faster (non-causal 128x128, causal 128x64: 427 -> 459).
// With one warpgroup the fifth warp can cost a block: D 64, 128x64 tiles on
// 4 warps, 292 TFLOP/s specialised (one block per SM) against 442 (two).
// The loader decides by it (ahead-of-time launchers never get a
// warp-specialised kernel: tools/tesserac_aot.cpp says why).
bool keepWarpSpecialized(const DeviceInfo &info, const KernelFootprint &specialized,
                         const KernelFootprint &plain);

// The per-multiprocessor limits above (registers, shared memory, threads,
// blocks) of compute capability `sm` (80, 86, 89, 90, ...) as CUDA's
// programming guide tables them, for deciding without a device
// (`tesserac aot`); all zero for an architecture not in the table.
DeviceInfo archLimits(int sm);

// `ptx` asking ptxas for `blocks` resident blocks per multiprocessor
// (`.minnctapersm` after the entry's `.maxntid`); empty when the PTX has no
// `.maxntid` or states its own `.maxnreg` or `.minnctapersm`.
std::string withMinBlocksPerSm(const std::string &ptx, int blocks);

// Whether the driver could be loaded and initialised; if not, *whyNot gets a
// sentence that says so and what to do instead. Never throws.
bool driverAvailable(std::string *whyNot = nullptr);
int deviceCount();
// Cached: queried once per device.
const DeviceInfo &deviceInfo(int ordinal);
// Makes the primary context of `ordinal` current on this thread (retained once
// per device, kept for the process lifetime).
void useDevice(int ordinal);
// The device whose memory `ptr` is; -1 if the driver does not know `ptr` as
// device (or registered host) memory.
int deviceOfPointer(DevicePtr ptr);
// The device of the current context, or 0 when none is current.
int currentDevice();

struct FunctionAttrs {
  int numRegs = 0;            // per thread
  int localBytes = 0;         // per thread (spills, local arrays)
  int staticSharedBytes = 0;  // per block
  int maxThreadsPerBlock = 0;
  int ptxVersion = 0;     // major * 10 + minor
  int binaryVersion = 0;  // the SASS target, major * 10 + minor
};

// A PTX module loaded on one device (its primary context), holding one kernel
// entry.
class LoadedKernel {
 public:
  // Loads `ptx` (JIT-compiled by the driver). On failure throws tessera::Error
  // whose message contains the driver's JIT error log. `dynamicSharedBytes`
  // above the default limit is enabled for the function; more than the device
  // allows throws an Error that says how much was asked and what the device
  // allows. `kernelName` is the name errors use (entry is the PTX symbol).
  // With `blockThreads` (the block size every launch uses), a kernel one
  // allocation step of registers short of one more resident block per SM is
  // loaded again asking for that occupancy (occupancyBlockTarget), and that
  // one is kept as keepHinted says; a PTX that states its own `.maxnreg`
  // keeps it.
  static std::unique_ptr<LoadedKernel> load(std::string_view ptx, const std::string &entry,
                                            int device, int dynamicSharedBytes,
                                            const std::string &kernelName, int blockThreads = 0);
  ~LoadedKernel();  // unloads the module (errors at process exit are ignored)
  LoadedKernel(const LoadedKernel &) = delete;
  LoadedKernel &operator=(const LoadedKernel &) = delete;

  const FunctionAttrs &attrs() const { return attrs_; }
  // The block size and dynamic shared memory load() was given (a
  // warp-specialised kernel's and its unspecialised twin's differ).
  int blockThreads() const { return blockThreads_; }
  int dynamicSharedBytes() const { return dynamicSharedBytes_; }
  int device() const { return device_; }
  const std::string &name() const { return name_; }

  // cuLaunchKernel with kernelParams = params (one pointer per PTX parameter,
  // pointing at its value), in the kernel's context; the context current
  // before (the caller's current device) is current again after, as after
  // load(). An empty grid (a zero dimension) launches nothing, as
  // in Triton; a grid beyond the hardware limits (x < 2^31, y and z < 65536) or
  // a block the function cannot run throws an Error naming them. Dynamic shared
  // memory above what load() enabled is enabled here first.
  void launch(const int64_t grid[3], int blockThreads, int dynamicSharedBytes, Stream stream,
              void **params) const;

 private:
  LoadedKernel() = default;
  void enableDynamicShared(int bytes) const;

  detail::ContextHandle *context_ = nullptr;
  detail::ModuleHandle *module_ = nullptr;
  detail::FunctionHandle *function_ = nullptr;
  int device_ = 0;
  int blockThreads_ = 0, dynamicSharedBytes_ = 0;
  std::string name_;
  FunctionAttrs attrs_;
  // The function's MAX_DYNAMIC_SHARED_SIZE_BYTES; only ever raised, under the
  // mutex, so concurrent launches cannot lower it under each other.
  mutable std::atomic<int> dynamicSharedLimit_{0};
  mutable std::mutex dynamicSharedMutex_;
};

// A CUtensorMap: the 128-byte descriptor of a tiled tensor that the tensor
// memory accelerator reads (cuTensorMapEncodeTiled's output; the driver
// wants it 64-byte aligned, CUDA 13's header aligns it to 128).
struct alignas(128) TensorMap {
  uint64_t words[16];
};

// What cuTensorMapEncodeTiled needs, innermost dim first (its order), with
// its enum values as ints: dtype CUtensorMapDataType, swizzle
// CUtensorMapSwizzle, fill CUtensorMapFloatOOBfill. Strides are in bytes,
// rank - 1 of them. Element strides are 1, interleave none, L2 promotion
// 128 bytes (as Triton's host descriptors).
struct TensorMapRequest {
  int dtype = 0;
  int rank = 0;
  uint64_t address = 0;
  uint64_t dims[5] = {};
  uint64_t strides[4] = {};
  uint32_t box[5] = {};
  int swizzle = 0;
  int fill = 0;
  bool operator==(const TensorMapRequest &) const = default;
};
// Encodes `req` into `out`; "" on success, else the driver's error (or that
// the driver has no cuTensorMapEncodeTiled: CUDA 12.0 added it).
std::string encodeTensorMap(const TensorMapRequest &req, TensorMap &out);
// 16 device bytes on `device` that read as the padding of an empty tensor
// (zeros, or NaN in any float width), made once: a tensor map of one
// element there reads exactly what an empty tensor's masked load reads.
DevicePtr paddingBlock(int device, bool nan);
// At least `bytes` of device memory on `device` for the kernels launched on
// `stream` (the tensor maps that kernels build, 128 bytes per program and
// map): one buffer per stream, whose launches run in order, grown as
// launches ask for more and kept for the process lifetime. A launch being
// captured into a CUDA graph gets a slice of its own from a pool set aside
// at the first uncaptured call (capture cannot allocate).
DevicePtr globalScratch(int device, Stream stream, size_t bytes);

// Small helpers for tests and benchmarks (C++ users without another CUDA
// library). They work in the current context, making device 0's primary
// context current when none is.
DevicePtr memAlloc(size_t bytes);  // 0 bytes -> 0
void memFree(DevicePtr p);         // 0 is ignored
void memcpyHtoD(DevicePtr dst, const void *src, size_t bytes);
void memcpyDtoH(void *dst, DevicePtr src, size_t bytes);
void memsetD8(DevicePtr dst, uint8_t value, size_t bytes);
void memsetD32(DevicePtr dst, uint32_t value, size_t count);  // count 32-bit words
// cuCtxSynchronize (nothing to wait for when no context is current). A kernel
// fault is thrown as tessera::KernelError naming the error.
void synchronize();
void streamSynchronize(Stream stream);

// A timing event in the current context, for benchmarks.
class Event {
 public:
  Event();
  ~Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  void record(Stream stream = nullptr);
  void synchronize();
  // Milliseconds from `start` to this event; both must have been recorded, and
  // this one must have completed.
  float elapsedMsSince(const Event &start) const;

 private:
  detail::EventHandle *event_ = nullptr;
};

}  // namespace tessera::cuda
