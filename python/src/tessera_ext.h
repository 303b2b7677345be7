// Shared declarations of the extension module tessera._C (contract:
// python/tessera/_C.pyi): error mapping, the Kernel handle and the
// classification of launch arguments used by Kernel.run and Dispatcher.
#ifndef TESSERA_PYTHON_TESSERA_EXT_H_
#define TESSERA_PYTHON_TESSERA_EXT_H_

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/scratch.h"
#include "tessera/capi.h"

namespace tessera_py {

namespace nb = nanobind;

// ------------------------------------------------------------------ errors

// Raises the Python exception for `status` with tessera_last_error() as the
// message: the registered compilation / kernel error types, ValueError for
// invalid API use, RuntimeError for internal errors.
[[noreturn]] void raiseLastError(tessera_status status);

// Raises `type` (a borrowed exception class) with `message`.
[[noreturn]] void raise(PyObject *type, const std::string &message);

// set_error_types / set_resolver state (strong references, never freed).
void setErrorTypes(nb::handle compilation, nb::handle kernel);
void setResolver(nb::handle resolver);
PyObject *resolver();  // borrowed; nullptr when unset

// ------------------------------------------------------------------ kernel

// A compiled kernel (Python class tessera._C.Kernel); frees the handle.
class Kernel {
 public:
  explicit Kernel(tessera_kernel *k) : k_(k) {}
  ~Kernel() { tessera_kernel_free(k_); }
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  const tessera_kernel *get() const { return k_; }
  size_t numParams() const { return tessera_kernel_num_params(k_); }

 private:
  tessera_kernel *k_;
};

void bindKernel(nb::module_ &m);
void bindDispatcher(nb::module_ &m);

// ---------------------------------------------------------------- arguments

// Signature dtypes: codes index kDTypeNames, dtypes.def's order and
// signature names. Names a resolver returns beyond these are appended at
// run time (dtypeCode).
enum DType : uint8_t {
#define DTYPE(Enum, ir, triton, signature, bits, cls) k##Enum,
#include "ir/dtypes.def"
#undef DTYPE
  kNumBuiltinDTypes
};

// The code of a signature dtype name (registering an unknown one).
uint32_t dtypeCode(std::string_view name);
// The name of a code (a static string).
const char *dtypeName(uint32_t code);

// What a launch argument is, once classified.
enum class ArgKind : uint8_t { kNone, kBool, kInt, kFloat, kPointer, kDescriptor };

// The most dimensions a tensor descriptor has (the tensor memory accelerator's).
constexpr int kMaxDescriptorRank = 5;

// Trivial on purpose (no initialisers): scratch arrays of it cost nothing;
// classifyArg sets every field.
struct ArgInfo {
  ArgKind kind;
  uint32_t dtype;    // kInt: kI32/kI64/kU64, kPointer: the pointee
  bool eq1;          // kInt: the value is 1
  bool div16;        // kInt: value % 16 == 0, kPointer: address % 16 == 0
  int64_t i;         // kBool / kInt (u64 bit-cast)
  double f;          // kFloat
  const void *data;  // kPointer: the first element
  size_t bytes;      // kPointer: bytes the kernel may touch from data
  int device = -1;   // kPointer, kDescriptor: the CUDA device of the memory, -1 for host
  bool readOnly;     // kPointer, kDescriptor: the owner exported it read-only
  // kDescriptor (a host TensorDescriptor): its base as kPointer's fields
  // above, and these.
  int rank;
  bool nanPadding;
  uint8_t shapeDiv16;  // bit d: shape[d] % 16 == 0 (a specialisation fact, like ints')
  int64_t shape[kMaxDescriptorRank], strides[kMaxDescriptorRank], block[kMaxDescriptorRank];
};

// Buffer views held until a launch has finished. The kernel runs with the
// GIL released; while a view is exported its owner may not resize or free
// the memory (a bytearray raises BufferError), so another thread cannot pull
// the memory from under the kernel. Destroyed with the GIL held.
class BufferPins {
 public:
  BufferPins() = default;
  BufferPins(const BufferPins &) = delete;
  BufferPins &operator=(const BufferPins &) = delete;
  ~BufferPins() {
    for (size_t i = 0; i < n_; ++i)
      PyBuffer_Release(i < kInline ? &inline_[i] : &more_[i - kInline]);
  }
  // Takes over `view` (released with the pins).
  void hold(const Py_buffer &view) {
    if (n_ < kInline)
      inline_[n_] = view;
    else
      more_.push_back(view);
    ++n_;
  }

 private:
  static constexpr size_t kInline = 4;
  Py_buffer inline_[kInline];
  std::vector<Py_buffer> more_;
  size_t n_ = 0;
};

// While alive, SIGINT also stops the interpreter runs in progress (see
// interrupt.cpp); construct it with the GIL held, around a run.
class SigintScope {
 public:
  SigintScope();
  ~SigintScope();
  SigintScope(const SigintScope &) = delete;
  SigintScope &operator=(const SigintScope &) = delete;
  // A SIGINT arrived since construction.
  bool fired() const;

 private:
  uint64_t start_;
};

// Raises the pending KeyboardInterrupt (or what the user's SIGINT handler
// raises) after a run that SIGINT stopped. With the GIL held.
[[noreturn]] void raiseInterrupted();

// What classifyArg reads from the environment, read once per launch (a
// Dispatcher passes one for all its arguments) rather than once per argument.
struct LaunchEnv {
  int cpuForced = -1;  // TESSERA_BACKEND names the CPU; -1: not read yet
  // Where the buffer views of the launch's arguments are kept until it has
  // run; null: released at once (the argument is only classified).
  BufferPins *pins = nullptr;
};

// Classifies one runtime argument `v` of parameter `param` of kernel
// `kernel`: None, bool, int, float (numpy scalars as their Python
// counterparts), an object exporting a buffer of a known format, or else
// whatever the resolver makes of it. Raises TypeError naming the parameter
// and the kernel for anything else.
void classifyArg(PyObject *v, ArgInfo &out, std::string_view param, std::string_view kernel,
                 LaunchEnv *env = nullptr);

// The Python class of host tensor descriptors (set_descriptor_type); the
// classification of one reads its base, shape, strides, block_shape and
// padding attributes.
void setDescriptorType(nb::handle cls);

// How many run arguments a classified (non-None) argument makes: one, or for
// a descriptor its base, its shape and its strides but the last.
inline size_t runArgCount(const ArgInfo &a) {
  return a.kind == ArgKind::kDescriptor ? static_cast<size_t>(2 * a.rank) : 1;
}

// The run argument of a classified (non-None, non-descriptor) argument.
inline tessera_run_arg toRunArg(const ArgInfo &a) {
  tessera_run_arg r{};
  switch (a.kind) {
    case ArgKind::kPointer:
    case ArgKind::kDescriptor:
      r.kind = a.readOnly ? TESSERA_RUN_BUFFER_READONLY : TESSERA_RUN_BUFFER;
      r.data = a.data;
      r.bytes = a.bytes;
      break;
    case ArgKind::kFloat:
      r.kind = TESSERA_RUN_FLOAT;
      r.f = a.f;
      break;
    case ArgKind::kBool:
    case ArgKind::kInt:
    case ArgKind::kNone:
      r.kind = TESSERA_RUN_INT;
      r.i = a.i;
      break;
  }
  return r;
}

// Writes the runArgCount(a) run arguments of `a` to `out`; returns the count.
inline size_t writeRunArgs(const ArgInfo &a, tessera_run_arg *out) {
  out[0] = toRunArg(a);
  if (a.kind != ArgKind::kDescriptor) return 1;
  size_t n = 1;
  for (int d = 0; d < a.rank; ++d) {
    out[n] = tessera_run_arg{};
    out[n].kind = TESSERA_RUN_INT;
    out[n++].i = a.shape[d];
  }
  for (int d = 0; d + 1 < a.rank; ++d) {
    out[n] = tessera_run_arg{};
    out[n].kind = TESSERA_RUN_INT;
    out[n++].i = a.strides[d];
  }
  return n;
}

// Reads a launch grid, a tuple or list of one to three ints >= 0 (missing
// trailing entries are 1), into `g`; says what is wrong otherwise.
struct GridRead {
  enum Problem { kOk, kShape, kNotInt, kNegative, kOverflow } problem;
  nb::object item;  // the offending entry, for kNotInt and later
};
GridRead readGrid(PyObject *grid, std::array<int64_t, 3> &g);
// readGrid, raising ValueError (OverflowError for a huge entry) on a problem.
std::array<int64_t, 3> parseGrid(PyObject *grid);

// Runs `kernel` with the GIL released; raises the mapped error on failure.
// Time spent in tessera_kernel_run (the interpreter), summed over launches,
// so benchmarks can report the host-side cost of a launch apart from it.
struct RunTimer {
  std::atomic<uint64_t> ns{0}, runs{0};
};
RunTimer &runTimer();

void runKernel(const tessera_kernel *kernel, const tessera_run_arg *args, size_t n,
               const std::array<int64_t, 3> &grid, int num_threads);

// Launches on CUDA `device`, on the stream the registered stream getter
// names for it (PyTorch's current stream), with the GIL released.
void launchCuda(const tessera_kernel *kernel, const tessera_run_arg *args, size_t n,
                const std::array<int64_t, 3> &grid, int device);
void setStreamGetter(nb::handle getter);

using tessera::Scratch;  // per-call arrays on the stack (support/scratch.h)

}  // namespace tessera_py

#endif  // TESSERA_PYTHON_TESSERA_EXT_H_
