// Dispatcher: the launch fast path of one @jit function (Python class
// tessera._C.Dispatcher), and Launcher, the object `kernel[grid]` returns.
//
// A launch computes the specialisation key of its arguments in C++ without
// creating Python objects: one 64-bit word per runtime argument (its kind,
// dtype and specialisation facts) and, for each constexpr argument and for
// the launch options, its type and hash, confirmed by Python equality
// against the strong references kept in the entry. The key's words are
// hashed into an unordered_map of buckets of entries.
//
// Launcher.__call__ (launcher.cpp) binds `*args, **kwargs` to the kernel's
// parameters itself, checks that the globals the kernel read still hold
// their values, and runs the entry; anything it does not handle (a first
// launch, an unknown keyword, hooks, a changed global) goes to the Python
// JITFunction.run, which compiles and registers with `add`.
#ifndef TESSERA_PYTHON_DISPATCHER_H_
#define TESSERA_PYTHON_DISPATCHER_H_

#include <memory>
#include <unordered_map>

#include "tessera_ext.h"

namespace tessera_py {

class Dispatcher {
 public:
  enum Mode : int { kRuntime = 0, kNoSpec = 1, kNoAlign = 2, kConstexpr = 3 };
  // The launch options the binder keys on, in the order of their tuple.
  static constexpr size_t kNumOptions = 5;  // num_warps num_stages num_ctas maxnreg debug
  static constexpr size_t kDebugOption = 4;

  Dispatcher(std::string kernelName, std::vector<std::string> names, std::vector<int> modes);
  Dispatcher(const Dispatcher &) = delete;
  Dispatcher &operator=(const Dispatcher &) = delete;

  // Python API (see _C.pyi).
  nb::object run(nb::handle args, nb::handle grid, nb::handle extra, int numThreads);
  nb::list specialize(nb::handle args);
  void add(nb::handle args, nb::handle extra, nb::handle kernel, nb::handle payload);
  void clear();       // forgets the compiled entries
  void releaseAll();  // and everything else (the GC breaking a cycle)
  size_t size() const { return size_; }
  void configure(nb::handle defaults, nb::handle hooks, nb::handle debugDefault);
  void setGlobals(nb::handle used);
  int traverse(visitproc visit, void *arg) const;

  // The payload of the entry matching `items` (one value per parameter) and
  // `extra` after launching it on `grid`; a null object when no entry
  // matches (nothing ran).
  nb::object runBound(PyObject *const *items, PyObject *extra, const std::array<int64_t, 3> &grid,
                      int numThreads);

  // The fast path of Launcher.__call__: binds the vectorcall arguments and
  // runs. A null object means "not handled here": the caller takes the
  // general path. `grid` is the launcher's grid; `gridOut` receives the
  // grid a callable grid returned, so the general path does not call it
  // again.
  nb::object launch(PyObject *const *args, size_t nargs, PyObject *kwnames, PyObject *grid,
                    const std::array<int64_t, 3> *fixedGrid, nb::object &gridOut);

 private:
  struct Entry {
    std::vector<uint64_t> words;
    std::vector<nb::object> objs;  // constexpr values, then extra
    nb::object kernel;             // the tessera._C.Kernel
    const tessera_kernel *handle = nullptr;
    nb::object payload;
  };
  struct Analysis;
  struct UsedGlobal {
    nb::object name, scope, value;
  };

  PyObject **argItems(nb::handle args) const;
  void analyze(PyObject *const *items, PyObject *extra, Analysis &a) const;
  void pushObject(PyObject *v, Analysis &a) const;
  Entry *find(const Analysis &a);
  bool globalsUnchanged() const;
  PyObject *callGrid(PyObject *grid, PyObject *const *bound) const;

  std::string kernel_;
  std::vector<std::string> names_;
  std::vector<nb::object> nameObjs_;  // interned str, for keyword matching
  std::vector<int> modes_;
  std::unordered_map<uint64_t, std::vector<std::unique_ptr<Entry>>> map_;
  size_t size_ = 0;
  uint64_t generation_ = 0;

  // Set by configure() / setGlobals(); until both ran, launch() declines.
  bool configured_ = false;
  bool globalsKnown_ = false;
  std::vector<nb::object> defaults_;  // null object: the parameter has no default
  nb::object hooks_;                  // JITFunction.pre_run_hooks (a list)
  nb::object debugDefault_;           // @jit(debug=...): None or a bool
  nb::object noOptions_;              // (None,) * kNumOptions, shared by entries
  Py_hash_t noOptionsHash_ = 0;       // its hash
  std::vector<UsedGlobal> globals_;
};

// A new Launcher for `fn[grid]` over `dispatcher` (launcher.cpp).
PyObject *makeLauncher(nb::handle dispatcher, nb::handle fn, nb::handle grid);
// The general path (launcher.cpp): fn.run(*args, **kwargs, grid=grid,
// warmup=False), and _grid_fn=gridFn when `grid` is what the grid function
// gridFn returned (for run's messages). A new reference, or null with the
// Python error set.
PyObject *callRun(PyObject *fn, PyObject *const *args, size_t nargs, PyObject *kwnames,
                  PyObject *grid, PyObject *gridFn);
struct LauncherObject;
// d's launch of `args` on launcher l's grid, or fn.run (callRun) where the
// Dispatcher declines: the result; a Python error is thrown as
// nb::python_error (launcher.cpp).
nb::object launchOrRun(Dispatcher &d, PyObject *fn, const LauncherObject &l, PyObject *const *args,
                       size_t nargs, PyObject *kwnames);
// f() (an nb::object; invalid where the fast path declines) from a
// vectorcall slot: a C++ exception leaves the Python error it carries, or a
// RuntimeError, and sets *raised, so that the slot returns null.
template <class F>
nb::object catchingForPython(F &&f, bool *raised) {
  try {
    return f();
  } catch (nb::python_error &e) {
    e.restore();
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  *raised = true;
  return {};
}
// Launcher and TunedLauncher objects (launcher.cpp makes both types): for
// a Launcher `owner` is the Dispatcher and `fn` the JITFunction; for a
// TunedLauncher `owner` is null and `fn` the Autotuner.
struct LauncherObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject *owner;
  PyObject *fn;
  PyObject *grid;  // as given to kernel[grid]
  bool fixed;      // grid is a tuple of ints >= 0, parsed into g
  std::array<int64_t, 3> g;
};
// Calling a TunedLauncher (tuned_launcher.cpp).
PyObject *tunedLauncherCall(PyObject *self, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames);
// `kernel[grid]` of an Autotuner (launcher.cpp).
PyObject *makeTunedLauncher(nb::handle tuner, nb::handle grid);
// Sets tuning_key.KEY_KINDS for the tuned launch token (tuned_launcher.cpp).
void setKeyKinds(nb::handle kinds);
void bindLauncher(nb::module_ &m);

}  // namespace tessera_py

#endif  // TESSERA_PYTHON_DISPATCHER_H_
