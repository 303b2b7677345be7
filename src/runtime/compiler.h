// The compile pipeline behind tessera::compile, the C ABI and the tools:
// parse -> lower (front end) -> verify -> optimisation passes -> a
// CompiledKernel that keeps the IR after each stage and runs on the
// interpreter.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/frontend.h"
#include "interp/interp.h"
#include "ir/ir.h"
#include "runtime/cuda_driver.h"
#include "support/source.h"
#include "tessera/tessera.h"

namespace tessera {

// One source text of a request: a whole .py file or a single (dedented)
// function, where it sits in the user's file, and the globals its functions
// see (they win over the unit's own top-level names).
struct SourceUnit {
  std::string source;
  std::string fileName = "<kernel>";
  uint32_t firstLine = 1;
  uint32_t colOffset = 0;
  frontend::GlobalMap globals;
};

struct CompileRequest {
  // The sources: units[0] defines the kernel; a JitFunction global names a
  // function of any unit by its index here. When `units` is empty, the
  // single-source fields below are the only unit (with no globals).
  std::vector<SourceUnit> units;
  std::string source;
  std::string fileName = "<kernel>";
  uint32_t firstLine = 1;
  uint32_t colOffset = 0;

  std::string kernel;
  std::vector<frontend::ArgSpec> args;
  frontend::LowerOptions lower;
  // Tile IR passes after lowering; the default pipeline when empty.
  std::vector<std::string> passes;
  bool optimize = true;
  // IR between passes, on stderr: after the named passes (Tile IR or GPU),
  // or after all. The environment adds TESSERA_PRINT_AFTER=a,b (or "all").
  std::vector<std::string> printAfter;
  bool printAfterAll = false;
  // A table of each pass's time on stderr (also TESSERA_TIME_PASSES=1).
  bool timePasses = false;
  // GPU code generation: a target ("sm_80", "sm_90", "sm_90a") adds the
  // stages "ttgir" (Tile IR with layouts) and "ptx"; empty: CPU only.
  std::string target;
  // Whether the kernel may build tensor maps in a global scratch that its
  // launches pass (descriptors made in the kernel on sm_90a) and be made
  // persistent (its launches pass the grid); ahead-of-time launchers turn
  // it off, and such loads stay on cp.async, one tile a program.
  bool globalScratch = true;
  int numWarps = 4;
  int numStages = 3;  // software pipelining depth of loops (1: none)
  // Triton's enable_fp_fusion and enable_reflect_ftz (GPU only; the
  // interpreter rounds every operation and flushes exp2 as by default).
  bool fpFusion = true;
  bool reflectFtz = true;
  // Triton's maxnreg: registers per thread the GPU kernel may use (.maxnreg;
  // 0: as ptxas likes).
  int maxRegisters = 0;
  // The stages whose text the kernel keeps (stages(), ir()); empty: all of
  // them, as the API, kernel.asm and the disk cache want. Printing a stage
  // nobody reads costs as much as a pass on a long kernel, so tesserac keeps
  // only the one it emits.
  std::vector<std::string> keepStages;
  // The caller reads only the kept stages' text (tesserac): the GPU passes
  // then rewrite the kernel's Tile IR module in place instead of a copy, so
  // the kernel cannot run on the interpreter. Cloning and then freeing a
  // long kernel's module cost a tenth of its compile.
  bool stagesOnly = false;
};

// The stage holding a warp-specialised kernel's unspecialised twin: the
// PTX of the kernel compiled with its loops unmarked (no producer warps);
// present only where warp-specialize split the kernel. The loader keeps
// whichever of the two cuda::keepWarpSpecialized prefers on the device.
inline constexpr const char *kUnspecializedPtxStage = "ptx-unspecialized";

// The block size (32 x (num_warps + producer warps)) and dynamic shared
// memory per program that a PTX of Tessera's states in its header
// (`tessera.num_warps`, `tessera.producer_warps`, `tessera.shared_bytes`).
struct PtxLaunchShape {
  int threads = 0, sharedBytes = 0;
};
PtxLaunchShape ptxLaunchShape(const std::string &ptx);

// The default Tile IR pipeline. The GPU passes follow it for a GPU target
// (ptx::gpuPipeline()).
const std::vector<std::string> &defaultPipeline();

class KernelImpl : public CompiledKernel {
 public:
  const std::string &name() const override { return name_; }
  const std::vector<CompileWarning> &warnings() const override { return warnings_; }
  const std::vector<std::pair<std::string, std::string>> &stages() const override {
    return stages_;
  }
  std::string ir(std::string_view stage) const override;
  std::vector<std::pair<std::string, std::string>> params() const override;
  void run(const std::vector<Arg> &args, Grid grid, const RunOptions &opts) const override;
  void launch(const std::vector<Arg> &args, Grid grid, void *stream) const override;

  // Lower-level run used by the C ABI: values already in interpreter form.
  void runInterp(std::span<const interp::ArgValue> args,
                 std::span<const interp::HostBuffer> buffers, interp::Grid grid,
                 int numThreads) const;
  const Function &function() const { return *module_->functions.front(); }
  const Module &module() const { return *module_; }
  // The source units are files 1..numUnits() of sources(), in request order.
  const SourceManager &sources() const { return *sm_; }
  size_t numUnits() const { return numUnits_; }
  bool debug() const { return debug_; }

  // ---- GPU (gpu_launch.cpp) ----
  bool hasPtx() const { return !ir("ptx").empty(); }
  int numWarps() const;  // from the PTX stage
  // 32 x (num_warps + a warp-specialised kernel's producer warp) and the
  // dynamic shared memory per program, of the "ptx" stage (cudaUse tells
  // those of the variant a device runs).
  int launchThreads() const;
  int sharedBytes() const;
  // Global scratch per program (tensor maps the kernel builds), 0 if none.
  int globalScratchBytes() const;
  // Whether the kernel is persistent (`tessera.persistent`: its programs
  // loop over the grid's; persistent-programs): a launch runs at most as
  // many programs as the GPU holds and passes the grid after the kernel's
  // parameters.
  bool persistent() const;
  // The kernel arguments that are row strides of tensor maps the kernel
  // builds (`tessera.map_stride` lines: argument, element bytes).
  const std::vector<std::pair<int, int>> &mapStrideArgs() const;
  // Loads the PTX on `device` once and launches it on `stream` (a CUstream).
  // Pointer arguments carry device addresses.
  void launchCuda(std::span<const interp::ArgValue> args, interp::Grid grid, void *stream,
                  int device) const;
  // The tensor maps the PTX takes after the kernel's parameters (its
  // `tessera.tensormap` lines: the descriptor's base parameter and
  // cuTensorMapEncodeTiled's dtype, box, swizzle and fill), read once.
  struct TensorMapParam {
    int arg, rank, dtype, boxInner, boxOuter, swizzle, fill;
  };
  const std::vector<TensorMapParam> &tensorMapParams() const;
  // What the kernel as loaded on `device` uses (loads the module): for a
  // warp-specialised kernel, that of the variant the loader kept (with or
  // without its producer warps).
  struct CudaUse {
    int numRegs = 0, localBytes = 0;  // a thread
    int sharedBytes = 0;              // dynamic, a program
    int blockThreads = 0;             // a launch's block
  };
  CudaUse cudaUse(int device) const;

 private:
  // The public API's arguments in interpreter form, checked against the
  // parameters; `buffers` (the interpreter's) receives each buffer's extent.
  std::vector<interp::ArgValue> bindArgs(const std::vector<Arg> &args,
                                         std::vector<interp::HostBuffer> *buffers) const;
  friend std::shared_ptr<KernelImpl> compileKernel(const CompileRequest &req);
  friend std::shared_ptr<KernelImpl> deserializeKernel(std::string_view bytes);
  std::string name_;
  std::unique_ptr<SourceManager> sm_;
  size_t numUnits_ = 0;
  std::unique_ptr<Module> module_;
  std::vector<std::pair<std::string, std::string>> stages_;
  std::vector<CompileWarning> warnings_;
  // The interpreter's form of the kernel, built on the first run and reused
  // (building it costs more than running a small launch).
  mutable std::once_flag prepareOnce_;
  mutable std::shared_ptr<const interp::Prepared> prepared_;
  // The kernel the interpreter runs when it is not module_'s (its
  // descriptor loads expanded and cleaned up); prepared_ points into it.
  mutable std::unique_ptr<Module> interpModule_;
  bool debug_ = false;
  // Per-device loaded modules, created once under gpuMutex_ and then read
  // without locking on every launch.
  static constexpr int kMaxDevices = 64;
  mutable std::mutex gpuMutex_;
  mutable std::array<std::atomic<const void *>, kMaxDevices> loaded_{};
  mutable std::vector<std::shared_ptr<void>> loadedOwners_;
  // Read from the PTX header on first use; atomic, as launches on several
  // threads may be the first at once (each computes the same value).
  mutable std::atomic<int> numWarps_{-1}, launchThreads_{-1}, sharedBytes_{-1},
      globalScratchBytes_{-1}, persistent_{-1};
  mutable std::once_flag tensorMapsOnce_, mapStridesOnce_;
  mutable std::vector<std::pair<int, int>> mapStrides_;
  mutable std::vector<TensorMapParam> tensorMaps_;
};

// What cuTensorMapEncodeTiled is asked for the tensor map `t` of a launch
// with `args` (the descriptor's base, shape0, shape1 and stride0 from
// parameter t.arg on): dims and strides innermost first, strides in bytes.
cuda::TensorMapRequest tensorMapRequest(const KernelImpl::TensorMapParam &t,
                                        std::span<const interp::ArgValue> args);

// Throws tessera::CompilationError with the rendered diagnostic on user
// errors (and on internal errors, which name the pass); the returned kernel
// keeps its own copy of the sources for run-time messages. A JitFunction
// global naming a unit that does not exist throws std::invalid_argument.
std::shared_ptr<KernelImpl> compileKernel(const CompileRequest &req);

// The PTX target of the current CUDA device (CompileOptions::target
// "native"): sm_90a on a Hopper, else the newest known target up to the
// device's. Throws tessera::Error when there is no driver or device.
std::string nativeGpuTarget();

// The end of the error for integer argument `v` of a parameter of type `t`
// that fitsIntType refuses (" is 300, which u8 cannot hold: ..."); callers
// put the argument's name before it. The API's and the C ABI's launches
// share it.
std::string intOutOfRange(DType t, int64_t v);

// Defined in serialize.cpp (declared here for the friendship above).
std::shared_ptr<KernelImpl> deserializeKernel(std::string_view bytes);

}  // namespace tessera
