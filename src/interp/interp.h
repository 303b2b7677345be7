// The reference interpreter: executes a kernel's Tile IR over host memory.
//
// It defines the semantics the GPU and CPU back ends are tested against:
// every op of ops.def, with integer wrap-around at the dtype's width, float
// results rounded to the result dtype after each op, masked-off lanes of a
// load without `other` reading 0. Programs of the grid run concurrently on a
// pool of threads (atomics are real atomics on host memory, so locks built
// from atomic_cas / atomic_xchg work). Every unmasked load, store and atomic
// is checked against the buffers the caller passed; an access outside them
// raises RuntimeError naming the kernel's file:line:col, the program id and
// the element index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ir/ir.h"
#include "support/diagnostics.h"

namespace tessera::interp {

// A host buffer the kernel may touch.
struct HostBuffer {
  const void *base = nullptr;
  size_t bytes = 0;
  // The parameter's name, for messages; it outlives the run (the kernel's
  // parameters or the caller's argument array), so no copy per launch.
  std::string_view name;
  // Loads may read it; a store or atomic into it is an error (the caller's
  // memory is immutable: bytes, a read-only array or mapping).
  bool readOnly = false;
};

// One value per argument of the kernel function's body block, in order.
struct ArgValue {
  enum class Kind { Pointer, Int, Float };
  Kind kind = Kind::Int;
  uint64_t bits = 0;  // Pointer: host address; Int: the value (two's complement)
  double f = 0;       // Float
  static ArgValue pointer(const void *p) {
    return {Kind::Pointer, reinterpret_cast<uint64_t>(p), 0};
  }
  static ArgValue integer(int64_t v) { return {Kind::Int, static_cast<uint64_t>(v), 0}; }
  static ArgValue floating(double v) { return {Kind::Float, 0, v}; }
};

struct Grid {
  int64_t x = 1, y = 1, z = 1;
};

struct RunOptions {
  int numThreads = 0;                      // 0: all hardware threads
  const SourceManager *sources = nullptr;  // to name file:line:col in errors
  bool debug = false;                      // device_assert is checked only when true
  std::ostream *printStream = nullptr;     // device_print output (default std::cout)
};

// Asks every run in progress to stop, for a SIGINT handler: async-signal-
// safe (one atomic increment). Each run stops at its next program or loop
// iteration and throws RuntimeError ("... interrupted"); runs started later
// are not affected.
void interruptRuns() noexcept;

// Runs every program of `grid`. Throws RuntimeError for out-of-bounds
// accesses, failed device_asserts and argument mismatches.
namespace detail {
struct Program;
}

// A kernel translated once into the interpreter's dispatch form. Translating
// costs more than running a small launch, so compiled kernels keep one and
// reuse it for every run. Immutable: runs may share it across threads.
class Prepared {
 public:
  explicit Prepared(std::unique_ptr<detail::Program> prog);
  ~Prepared();
  const detail::Program &program() const { return *prog_; }

 private:
  std::unique_ptr<detail::Program> prog_;
};

// Throws RuntimeError for IR the interpreter cannot run (`opts.sources`
// names the kernel's lines in the message).
std::shared_ptr<const Prepared> prepare(const Function &kernel, const RunOptions &opts = {});

void run(const Prepared &kernel, std::span<const ArgValue> args,
         std::span<const HostBuffer> buffers, Grid grid, const RunOptions &opts = {});

// prepare() and run() in one call.
void run(const Function &kernel, std::span<const ArgValue> args,
         std::span<const HostBuffer> buffers, Grid grid, const RunOptions &opts = {});

}  // namespace tessera::interp
