// Launching a compiled kernel's PTX through the CUDA driver: the module is
// loaded once per device (the driver's JIT error log surfaces in the error),
// parameters are packed to the kernel's PTX parameter types, and the launch
// goes on the caller's stream with the dynamic shared memory the code
// generator asked for.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "codegen/ptx/gpu_passes.h"
#include "runtime/compiler.h"
#include "runtime/cuda_driver.h"
#include "support/scratch.h"

namespace tessera {

// Calls read(text after the key) for each header line starting with `key`.
template <class Read>
static void forEachHeaderLine(const std::string &ptx, const char *key, Read read) {
  for (size_t p = ptx.find(key); p != std::string::npos; p = ptx.find(key, p + 1))
    read(ptx.c_str() + p + std::strlen(key));
}

static int headerValue(const std::string &ptx, const char *key) {
  size_t p = ptx.find(key);
  if (p == std::string::npos) return 0;
  return std::atoi(ptx.c_str() + p + std::strlen(key));
}

PtxLaunchShape ptxLaunchShape(const std::string &ptx) {
  return {32 * (headerValue(ptx, "// tessera.num_warps = ") +
                headerValue(ptx, "// tessera.producer_warps = ")),
          headerValue(ptx, "// tessera.shared_bytes = ")};
}

int KernelImpl::numWarps() const {
  if (numWarps_ < 0) numWarps_ = headerValue(ir("ptx"), "// tessera.num_warps = ");
  return numWarps_;
}

int KernelImpl::launchThreads() const {
  if (launchThreads_ < 0) launchThreads_ = ptxLaunchShape(ir("ptx")).threads;
  return launchThreads_;
}

int KernelImpl::sharedBytes() const {
  if (sharedBytes_ < 0) sharedBytes_ = ptxLaunchShape(ir("ptx")).sharedBytes;
  return sharedBytes_;
}

int KernelImpl::globalScratchBytes() const {
  if (globalScratchBytes_ < 0)
    globalScratchBytes_ = headerValue(ir("ptx"), "// tessera.global_scratch = ");
  return globalScratchBytes_;
}

bool KernelImpl::persistent() const {
  if (persistent_ < 0)
    persistent_ = ir("ptx").find("// tessera.persistent = ") != std::string::npos;
  return persistent_ == 1;
}

const std::vector<std::pair<int, int>> &KernelImpl::mapStrideArgs() const {
  std::call_once(mapStridesOnce_, [&] {
    forEachHeaderLine(ir("ptx"), "// tessera.map_stride = ", [&](const char *text) {
      int arg = -1, bytes = 0;
      if (std::sscanf(text, "%d %d", &arg, &bytes) == 2) mapStrides_.push_back({arg, bytes});
    });
  });
  return mapStrides_;
}

const std::vector<KernelImpl::TensorMapParam> &KernelImpl::tensorMapParams() const {
  std::call_once(tensorMapsOnce_, [&] {
    forEachHeaderLine(ir("ptx"), "// tessera.tensormap = ", [&](const char *text) {
      TensorMapParam t{};
      if (std::sscanf(text, "%d %d %d %d %d %d %d", &t.arg, &t.rank, &t.dtype, &t.boxInner,
                      &t.boxOuter, &t.swizzle, &t.fill) != 7)
        t.rank = -1;  // refused at launch
      tensorMaps_.push_back(t);
    });
  });
  return tensorMaps_;
}

cuda::TensorMapRequest tensorMapRequest(const KernelImpl::TensorMapParam &t,
                                        std::span<const interp::ArgValue> args) {
  // Bytes of one element of a CUtensorMapDataType (0 .. 9, checked first).
  static const int elementBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2};
  cuda::TensorMapRequest req;
  req.dtype = t.dtype;
  req.rank = 2;
  req.address = args[t.arg].bits;
  req.dims[0] = static_cast<uint32_t>(args[t.arg + 2].bits);  // columns: innermost first
  req.dims[1] = static_cast<uint32_t>(args[t.arg + 1].bits);
  req.strides[0] = args[t.arg + 3].bits * elementBytes[t.dtype];
  req.box[0] = static_cast<uint32_t>(t.boxInner);
  req.box[1] = static_cast<uint32_t>(t.boxOuter);
  req.swizzle = t.swizzle;
  req.fill = t.fill;
  return req;
}

namespace {

// cuTensorMapEncodeTiled through a small per-thread memo: a program
// launches a kernel on the same tensors over and over, and the encoding is a
// pure function of the request.
std::string cachedEncode(const cuda::TensorMapRequest &req, cuda::TensorMap &out) {
  struct Entry {
    cuda::TensorMapRequest req;
    cuda::TensorMap map;
  };
  constexpr size_t kEntries = 8;
  thread_local std::vector<Entry> memo;
  thread_local size_t next = 0;
  for (const Entry &e : memo)
    if (e.req == req) {
      out = e.map;
      return {};
    }
  if (std::string err = cuda::encodeTensorMap(req, out); !err.empty()) return err;
  if (memo.size() < kEntries)
    memo.push_back({req, out});
  else
    memo[next++ % kEntries] = {req, out};
  return {};
}

// The tensor map of a rank-2 host tensor descriptor from its arguments.
cuda::TensorMap tensorMapFor(const KernelImpl::TensorMapParam &t,
                             std::span<const interp::ArgValue> args, const Function &fn,
                             const std::string &kernel, int device) {
  cuda::TensorMapRequest req = tensorMapRequest(t, args);
  const uint64_t rows = req.dims[1], cols = req.dims[0], base = req.address;
  if (rows == 0 || cols == 0) {
    // A tensor map cannot be empty. Every element of an empty tensor reads
    // the padding: so does the one element of a map over a padding block.
    req.address = cuda::paddingBlock(device, t.fill != 0);
    req.dims[0] = req.dims[1] = 1;
    req.strides[0] = 16;
  }
  cuda::TensorMap map;
  std::string err = cachedEncode(req, map);
  if (err.empty()) return map;
  char hex[32];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(base));
  throw Error("kernel '" + kernel + "': cuTensorMapEncodeTiled failed for tensor descriptor '" +
              fn.body.args[t.arg]->nameHint + "' (shape [" + std::to_string(rows) + ", " +
              std::to_string(cols) + "], row stride " +
              std::to_string(static_cast<int64_t>(args[t.arg + 3].bits)) + " elements, base 0x" +
              hex + ", box " + std::to_string(t.boxOuter) + " x " + std::to_string(t.boxInner) +
              "): " + err);
}

}  // namespace

static const cuda::LoadedKernel &loadedOn(const KernelImpl &k, int device, std::mutex &mu,
                                          std::array<std::atomic<const void *>, 64> &slots,
                                          std::vector<std::shared_ptr<void>> &owners) {
  if (device < 0 || device >= 64)
    throw Error("CUDA device " + std::to_string(device) + " is out of range");
  if (const void *p = slots[device].load(std::memory_order_acquire))
    return *static_cast<const cuda::LoadedKernel *>(p);
  std::lock_guard<std::mutex> lock(mu);
  if (const void *p = slots[device].load(std::memory_order_acquire))
    return *static_cast<const cuda::LoadedKernel *>(p);
  if (!k.hasPtx())
    throw Error("kernel '" + k.name() +
                "' was compiled without a GPU target; compile it for one (CompileOptions::target, "
                "e.g. \"native\" or \"sm_90a\") to launch it on a GPU");
  const std::string entry = ptx::ptxEntryName(k.name());
  std::shared_ptr<cuda::LoadedKernel> loaded = cuda::LoadedKernel::load(
      k.ir("ptx"), entry, device, k.sharedBytes(), k.name(), k.launchThreads());
  // A warp-specialised kernel: its unspecialised twin too, and the one
  // keepWarpSpecialized prefers on this device (the other is unloaded).
  if (std::string plainPtx = k.ir(kUnspecializedPtxStage); !plainPtx.empty()) {
    const PtxLaunchShape shape = ptxLaunchShape(plainPtx);
    std::shared_ptr<cuda::LoadedKernel> plain = cuda::LoadedKernel::load(
        plainPtx, entry, device, shape.sharedBytes, k.name(), shape.threads);
    auto footprint = [](const cuda::LoadedKernel &l) {
      return cuda::KernelFootprint{l.attrs().numRegs, l.attrs().localBytes, l.blockThreads(),
                                   l.attrs().staticSharedBytes + l.dynamicSharedBytes()};
    };
    if (!cuda::keepWarpSpecialized(cuda::deviceInfo(device), footprint(*loaded), footprint(*plain)))
      loaded = std::move(plain);
  }
  owners.push_back(loaded);
  slots[device].store(loaded.get(), std::memory_order_release);
  return *loaded;
}

KernelImpl::CudaUse KernelImpl::cudaUse(int device) const {
  const auto &lk = loadedOn(*this, device, gpuMutex_, loaded_, loadedOwners_);
  return {lk.attrs().numRegs, lk.attrs().localBytes, lk.dynamicSharedBytes(), lk.blockThreads()};
}

void KernelImpl::launchCuda(std::span<const interp::ArgValue> args, interp::Grid grid, void *stream,
                            int device) const {
  const Function &fn = function();
  if (args.size() != fn.body.args.size())
    throw KernelError("kernel '" + name_ + "' takes " + std::to_string(fn.body.args.size()) +
                      " runtime arguments but " + std::to_string(args.size()) + " were given");
  const auto &lk = loadedOn(*this, device, gpuMutex_, loaded_, loadedOwners_);
  // One 8-byte slot per parameter, filled as the PTX declares it (emit.cpp:
  // pointers and 64-bit integers .u64, other integers .u32, f64 .f64, other
  // floats .f32).
  // A persistent kernel's grid follows the kernel's own parameters; then
  // the tensor maps (of sm_90a kernels that read host descriptors), then
  // the global scratch and the padding block of kernels that build maps
  // themselves; an empty grid launches nothing and needs none.
  const std::vector<TensorMapParam> &maps = tensorMapParams();
  const bool empty = grid.x == 0 || grid.y == 0 || grid.z == 0;
  const size_t numMaps = empty ? 0 : maps.size();
  const int scratchPerProgram = empty ? 0 : globalScratchBytes();
  const size_t gridParams = persistent() ? 3 : 0, own = args.size() + gridParams;
  Scratch<uint64_t, 32> slots(own + 2);
  Scratch<void *, 32> ptrs(own + numMaps + 2);
  for (size_t i = 0; i < args.size(); ++i) {
    const Type &t = fn.body.args[i]->type;
    const interp::ArgValue &a = args[i];
    slots[i] = 0;
    if (t.isPtr() || (isInt(t.dtype) && bitWidth(t.dtype) == 64)) {
      slots[i] = a.bits;
    } else if (isInt(t.dtype)) {
      // Already as its register holds it (wrapToIntType, where the
      // arguments are bound): an i8 sign-extended, a u8 zero-extended.
      uint32_t v = static_cast<uint32_t>(a.bits);
      std::memcpy(&slots[i], &v, 4);
    } else if (t.dtype == DType::F64) {
      double d = a.kind == interp::ArgValue::Kind::Float
                     ? a.f
                     : static_cast<double>(static_cast<int64_t>(a.bits));
      std::memcpy(&slots[i], &d, 8);
    } else {
      float f = static_cast<float>(a.kind == interp::ArgValue::Kind::Float
                                       ? a.f
                                       : static_cast<double>(static_cast<int64_t>(a.bits)));
      std::memcpy(&slots[i], &f, 4);
    }
    ptrs[i] = &slots[i];
  }
  int64_t g[3] = {grid.x, grid.y, grid.z};
  // Past the hardware's grid limits the launch itself refuses the grid.
  const bool gridFits = grid.x > 0 && grid.y > 0 && grid.z > 0 && grid.x < (int64_t{1} << 31) &&
                        grid.y < 65536 && grid.z < 65536;
  if (gridParams && gridFits) {
    // As many programs as the GPU holds at once (or as the grid has), each
    // looping over the grid's with the grid's size in hand.
    const uint64_t programs = static_cast<uint64_t>(grid.x) * static_cast<uint64_t>(grid.y) *
                              static_cast<uint64_t>(grid.z);
    const cuda::DeviceInfo &info = cuda::deviceInfo(device);
    int perSm = cuda::residentBlocks(info, lk.attrs().numRegs, lk.blockThreads(),
                                     lk.attrs().staticSharedBytes + lk.dynamicSharedBytes());
    const uint64_t resident = static_cast<uint64_t>(std::max(1, info.smCount)) *
                              static_cast<uint64_t>(std::max(1, perSm));
    // The loop counts in i32: its last step (a program id past the grid's
    // last, by the programs launched) must not wrap.
    if (programs + std::min(programs, resident) >= (uint64_t{1} << 31))
      throw Error("kernel '" + name_ + "': a grid of " + std::to_string(programs) +
                  " programs is more than its persistent loop over them counts (2^31 less "
                  "the programs the GPU holds at once); launch fewer programs");
    for (size_t a = 0; a < 3; ++a) {
      uint32_t v = static_cast<uint32_t>(g[a]);
      slots[args.size() + a] = 0;
      std::memcpy(&slots[args.size() + a], &v, 4);
      ptrs[args.size() + a] = &slots[args.size() + a];
    }
    g[0] = static_cast<int64_t>(std::min(programs, resident));
    g[1] = g[2] = 1;
  }
  // A row stride the tensor memory accelerator cannot take would trap in
  // the kernel: say which argument before launching.
  for (auto [arg, elementBytes] : mapStrideArgs()) {
    if (arg < 0 || static_cast<size_t>(arg) >= args.size() || empty) continue;
    const Type &t = fn.body.args[arg]->type;
    int64_t v = bitWidth(t.dtype) == 64
                    ? static_cast<int64_t>(args[arg].bits)
                    : static_cast<int64_t>(static_cast<int32_t>(args[arg].bits));
    int64_t bytes = v * elementBytes;
    // 0 may be an empty tensor's (whose map reads the padding block).
    if (v != 0 &&
        (v < 0 || v > (int64_t{1} << 40) || bytes % 16 != 0 || bytes >= (int64_t{1} << 40)))
      throw Error("kernel '" + name_ + "': argument '" + fn.body.args[arg]->nameHint + "' is " +
                  std::to_string(v) +
                  ", the row stride of a block the tensor memory accelerator reads (sm_90a), "
                  "which takes only positive multiples of 16 bytes below 2^40; compile the "
                  "kernel for sm_90 (TESSERA_TARGET=sm_90) to read it with ordinary loads");
  }
  if (scratchPerProgram > 0 && gridFits) {
    // (The programs launched: a persistent kernel's program reuses its slot.)
    const uint64_t programs =
        static_cast<uint64_t>(g[0]) * static_cast<uint64_t>(g[1]) * static_cast<uint64_t>(g[2]);
    if (programs > (uint64_t{1} << 40) / static_cast<uint64_t>(scratchPerProgram))
      throw Error("kernel '" + name_ + "': a grid of " + std::to_string(programs) +
                  " programs would need more than 2^40 bytes of global scratch for the tensor "
                  "maps it builds; launch fewer programs (a persistent loop over tiles)");
    const size_t bytes = static_cast<size_t>(programs * scratchPerProgram);
    slots[own] = cuda::globalScratch(device, stream, bytes);
    slots[own + 1] = cuda::paddingBlock(device, false);
    ptrs[own + numMaps] = &slots[own];
    ptrs[own + numMaps + 1] = &slots[own + 1];
  }
  if (numMaps == 0)
    return lk.launch(g, lk.blockThreads(), lk.dynamicSharedBytes(), stream, ptrs.data());
  Scratch<cuda::TensorMap, 4> encoded(numMaps);
  for (size_t k = 0; k < numMaps; ++k) {
    const TensorMapParam &t = maps[k];
    // What this runtime builds: rank-2 maps of the ten data types up to
    // BFLOAT16, from parameters the kernel has.
    if (t.rank != 2 || t.dtype < 0 || t.dtype > 9 || t.arg < 0 ||
        static_cast<size_t>(t.arg) + 3 >= args.size())
      throw Error("kernel '" + name_ + "': its PTX asks for a tensor map this runtime cannot " +
                  "build (parameter " + std::to_string(t.arg) + ", rank " + std::to_string(t.rank) +
                  ", data type " + std::to_string(t.dtype) +
                  "); compile it again with this version of Tessera");
    encoded[k] = tensorMapFor(t, args, fn, name_, device);
    ptrs[own + k] = &encoded[k];
  }
  lk.launch(g, lk.blockThreads(), lk.dynamicSharedBytes(), stream, ptrs.data());
}

void KernelImpl::launch(const std::vector<Arg> &args, Grid grid, void *stream) const {
  std::vector<interp::ArgValue> values = bindArgs(args, nullptr);
  std::string why;
  if (!cuda::driverAvailable(&why)) throw Error("kernel '" + name_ + "' cannot launch: " + why);
  launchCuda(values, {grid.x, grid.y, grid.z}, stream, cuda::currentDevice());
}

std::string nativeGpuTarget() {
  std::string why;
  if (!cuda::driverAvailable(&why))
    throw Error("target \"native\" names the current CUDA device, but " + why +
                "; name a target instead (e.g. \"sm_90a\")");
  int device = cuda::currentDevice();
  const cuda::DeviceInfo &info = cuda::deviceInfo(device);
  int cc = info.major * 10 + info.minor;
  if (cc == 90) return "sm_90a";  // Hopper's own instructions (wgmma)
  // The newest target Tessera knows up to the device's: the driver runs PTX
  // of an older target on a newer GPU.
  for (int sm = cc; sm >= 80; --sm) {
    ptx::Target t;
    if (ptx::parseTarget("sm_" + std::to_string(sm), t)) return t.name();
  }
  throw Error("target \"native\": CUDA device " + std::to_string(device) + " (" + info.name +
              ") has compute capability " + std::to_string(info.major) + "." +
              std::to_string(info.minor) + "; Tessera compiles for sm_80 (Ampere) and newer");
}

}  // namespace tessera
