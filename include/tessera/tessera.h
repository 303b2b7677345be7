// Tessera's public C++ API: compile a kernel written in the Triton kernel
// language from its Python source, inspect its IR, and run it on the CPU
// with the reference interpreter.
//
//   auto k = tessera::compile(source, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024");
//   k->run({tessera::Arg::buffer(x, n * 4), tessera::Arg::buffer(y, n * 4),
//           tessera::Arg::buffer(out, n * 4), tessera::Arg::integer(n)},
//          {tessera::cdiv(n, 1024)});
//
// Arguments of run() are the kernel's runtime parameters in order: one per
// parameter that is not a tl.constexpr. Errors are thrown as
// tessera::CompilationError (the rendered diagnostic, with file:line:col, the
// source line and a caret) or tessera::KernelError (a failure while running).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// A user error in the kernel or its specialisation; what() is the rendered diagnostic.
class CompilationError : public Error {
 public:
  using Error::Error;
};
// A failure while running a kernel (out-of-bounds access, failed device_assert).
class KernelError : public Error {
 public:
  using Error::Error;
};

struct CompileOptions {
  std::string fileName = "<kernel>";  // shown in diagnostics
  uint32_t firstLine = 1;             // line of the source's first line in that file
  uint32_t colOffset = 0;             // columns removed from every line (dedent)
  bool debug = false;                 // keep device_assert checks
  int numWarps = 4;
  int numStages = 3;
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

class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  virtual const std::string &name() const = 0;
  // The IR after each stage, in pipeline order: ("ttir-initial", text), ("ttir", text).
  virtual const std::vector<std::pair<std::string, std::string>> &stages() const = 0;
  // The named stage's text; empty when there is no such stage.
  virtual std::string ir(std::string_view stage = "ttir") const = 0;
  // Runtime parameters: (name, signature type such as "*fp32" or "i32").
  virtual std::vector<std::pair<std::string, std::string>> params() const = 0;
  // Runs every program of `grid` on the CPU interpreter.
  virtual void run(const std::vector<Arg> &args, Grid grid, const RunOptions &opts = {}) const = 0;
};

// Compiles `kernel` from the Python `source` (a whole .py file or a single
// function) specialised by a Triton AOT signature, e.g. "*fp32:16, i32, 1024":
// `*T` pointer, `T` scalar, `:16` divisible by 16, `:1` equal to one, a bare
// value a constexpr. Parameters left out take their defaults.
std::shared_ptr<CompiledKernel> compile(std::string_view source, std::string_view kernel,
                                        std::string_view signature,
                                        const CompileOptions &options = {});

}  // namespace tessera
