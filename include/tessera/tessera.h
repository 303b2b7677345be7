// Tessera's public C++ API: compile a kernel written in the Triton kernel
// language from its Python source, inspect its IR, run it on the CPU with the
// reference interpreter, or launch it on a CUDA GPU.
//
//   auto k = tessera::compile(source, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024");
//   k->run({tessera::Arg::buffer(x, n * 4), tessera::Arg::buffer(y, n * 4),
//           tessera::Arg::buffer(out, n * 4), tessera::Arg::integer(n)},
//          {tessera::cdiv(n, 1024)});
//
//   // On the GPU: compile for a target, pass device pointers and a stream.
//   auto g = tessera::compile(source, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
//                             {.target = "native"});
//   g->launch({tessera::Arg::pointer(dx), tessera::Arg::pointer(dy),
//              tessera::Arg::pointer(dout), tessera::Arg::integer(n)},
//             {tessera::cdiv(n, 1024)}, stream);
//
// Arguments of run() and launch() are the kernel's runtime parameters in
// order: one per parameter that is not a tl.constexpr. Errors are thrown as
// tessera::CompilationError (the rendered diagnostic, with file:line:col, the
// source line and a caret), tessera::KernelError (a failure while running)
// or tessera::Error (anything else, such as no CUDA driver).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/export.h"

namespace tessera {

class TESSERA_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// A user error in the kernel or its specialisation; what() is the rendered diagnostic.
class TESSERA_API CompilationError : public Error {
 public:
  using Error::Error;
};
// A failure while running a kernel (out-of-bounds access, failed device_assert).
class TESSERA_API KernelError : public Error {
 public:
  using Error::Error;
};

struct CompileOptions {
  std::string fileName = "<kernel>";  // shown in diagnostics
  uint32_t firstLine = 1;             // line of the source's first line in that file
  uint32_t colOffset = 0;             // columns removed from every line (dedent)
  bool debug = false;                 // keep device_assert checks
  // The GPU to compile for, which launch() needs: "sm_80", "sm_90a",
  // "sm_100", ..., or "native" for the device of the current CUDA context
  // (sm_90a on a Hopper). Empty: the CPU interpreter only (run()).
  // (`{}`: GCC's -Wextra warns when a designated initializer skips a member
  // that has no initializer of its own.)
  std::string target{};
  int numWarps = 4;   // warps per program on the GPU (a power of two up to 32)
  int numStages = 3;  // loop iterations whose loads are in flight on the GPU
};

// One kernel argument for run().
struct Arg {
  enum class Kind { Buffer, Int, Float };
  Kind kind = Kind::Int;
  const void *data = nullptr;
  size_t bytes = 0;
  int64_t i = 0;
  double f = 0;
  static Arg buffer(const void *p, size_t bytes) { return {Kind::Buffer, p, bytes, 0, 0}; }
  static Arg integer(int64_t v) { return {Kind::Int, nullptr, 0, v, 0}; }
  static Arg floating(double v) { return {Kind::Float, nullptr, 0, 0, v}; }
  // A device pointer for launch() (a CUdeviceptr or a cudaMalloc'ed pointer;
  // its extent is not checked on the GPU).
  static Arg pointer(const void *devicePtr) { return {Kind::Buffer, devicePtr, 0, 0, 0}; }
  static Arg pointer(uint64_t devicePtr) {
    return pointer(reinterpret_cast<const void *>(static_cast<uintptr_t>(devicePtr)));
  }
};

struct Grid {
  int64_t x = 1, y = 1, z = 1;
};

inline int64_t cdiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

struct RunOptions {
  int numThreads = 0;  // 0: all hardware threads
};

// A warning of the compile: code that compiles but is likely a mistake
// (where Triton warns too). `text` is rendered as an error is
// ("file:line:col: warning: message", the source line, a caret, a note).
struct CompileWarning {
  std::string file;
  int line = 0, column = 0;
  std::string message, text;
};

class TESSERA_API CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  virtual const std::string &name() const = 0;
  // The compile's warnings, in the order found (none for a kernel read back
  // from a cache: they were given when it was compiled).
  virtual const std::vector<CompileWarning> &warnings() const = 0;
  // The IR after each stage, in pipeline order: ("ttir-initial", text), ("ttir", text).
  virtual const std::vector<std::pair<std::string, std::string>> &stages() const = 0;
  // The named stage's text; empty when there is no such stage.
  virtual std::string ir(std::string_view stage = "ttir") const = 0;
  // Runtime parameters: (name, signature type such as "*fp32" or "i32").
  virtual std::vector<std::pair<std::string, std::string>> params() const = 0;
  // Runs every program of `grid` on the CPU interpreter.
  virtual void run(const std::vector<Arg> &args, Grid grid, const RunOptions &opts = {}) const = 0;
  // Launches every program of `grid` on the GPU of the current CUDA context
  // (cudaSetDevice / cuCtxSetCurrent; device 0 when none is current), through
  // that device's primary context (the one the CUDA runtime and PyTorch use),
  // on `stream` (a CUstream or cudaStream_t; nullptr: the legacy default
  // stream). Pointer parameters take device pointers (Arg::pointer). The
  // kernel must have been compiled with a target; its module is loaded on a
  // device at the first launch there. Asynchronous: a fault in the kernel
  // surfaces as a KernelError from a later launch or synchronising call.
  virtual void launch(const std::vector<Arg> &args, Grid grid, void *stream = nullptr) const = 0;
};

// Compiles `kernel` from the Python `source` (a whole .py file or a single
// function) specialised by a Triton AOT signature, e.g. "*fp32:16, i32, 1024":
// `*T` pointer, `T` scalar, `:16` divisible by 16, `:1` equal to one, a bare
// value a constexpr. Parameters left out take their defaults. With a target,
// the PTX is generated here too (stages "ttgir" and "ptx").
TESSERA_API std::shared_ptr<CompiledKernel> compile(std::string_view source,
                                                    std::string_view kernel,
                                                    std::string_view signature,
                                                    const CompileOptions &options = {});

}  // namespace tessera
