// Launcher (tessera._C.Launcher): what `kernel[grid]` returns, and the
// launch fast path. Calling it binds `*args, **kwargs` to the kernel's
// parameters in C++ (vectorcall: no argument tuple or dict is built), checks
// the globals the kernel read, evaluates a callable grid, and runs the
// Dispatcher's entry for the arguments' specialisation. Whatever it does not
// handle, it hands to the Python `JITFunction.run` unchanged: a first launch
// (compile), hooks, unknown keywords, missing arguments, a changed global,
// a grid that is not plain ints. Those produce the errors users see, so the
// fast path raises nothing of its own except from the launch itself.
//
// This file also makes the TunedLauncher type (`kernel[grid]` of an
// autotuned kernel), which shares Launcher's layout and lifetime functions;
// its call is in tuned_launcher.cpp.
#include <Python.h>
#include <structmember.h>  // needs Python.h first

#include "dispatcher.h"

namespace tessera_py {

namespace {

PyTypeObject *launcherType = nullptr;
PyTypeObject *tunedLauncherType = nullptr;

// A grid the fast path takes: what parseGrid accepts (else the general
// path reports the problem).
bool parseIntGrid(PyObject *grid, std::array<int64_t, 3> &g) {
  return readGrid(grid, g).problem == GridRead::kOk;
}

PyObject *launcherCall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  auto *l = reinterpret_cast<LauncherObject *>(self);
  const size_t nargs = PyVectorcall_NARGS(nargsf);
  bool raised = false;
  nb::object ran = catchingForPython(
      [&] {
        return launchOrRun(*nb::inst_ptr<Dispatcher>(l->owner), l->fn, *l, args, nargs, kwnames);
      },
      &raised);
  return raised ? nullptr : ran.release().ptr();
}

int launcherTraverse(PyObject *self, visitproc visit, void *arg) {
  auto *l = reinterpret_cast<LauncherObject *>(self);
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(l->owner);
  Py_VISIT(l->fn);
  Py_VISIT(l->grid);
  return 0;
}

int launcherClear(PyObject *self) {
  auto *l = reinterpret_cast<LauncherObject *>(self);
  Py_CLEAR(l->owner);
  Py_CLEAR(l->fn);
  Py_CLEAR(l->grid);
  return 0;
}

void launcherDealloc(PyObject *self) {
  PyTypeObject *type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  launcherClear(self);
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject *launcherRepr(PyObject *self) {
  auto *l = reinterpret_cast<LauncherObject *>(self);
  return PyUnicode_FromFormat("<tessera launcher of %R, grid %R>", l->fn, l->grid);
}

PyMemberDef launcherMembers[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(LauncherObject, vectorcall), READONLY, nullptr},
    {"fn", T_OBJECT, offsetof(LauncherObject, fn), READONLY, "the @jit function"},
    {"grid", T_OBJECT, offsetof(LauncherObject, grid), READONLY, "the grid of this launch"},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot launcherSlots[] = {
    {Py_tp_call, reinterpret_cast<void *>(PyVectorcall_Call)},
    {Py_tp_traverse, reinterpret_cast<void *>(launcherTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(launcherClear)},
    {Py_tp_dealloc, reinterpret_cast<void *>(launcherDealloc)},
    {Py_tp_repr, reinterpret_cast<void *>(launcherRepr)},
    {Py_tp_members, launcherMembers},
    {Py_tp_doc, const_cast<char *>("kernel[grid]: call it with the kernel's arguments to launch.")},
    {0, nullptr}};

PyType_Spec launcherSpec = {"tessera._C.Launcher", sizeof(LauncherObject), 0,
                            Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
                            launcherSlots};

PyMemberDef tunedLauncherMembers[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(LauncherObject, vectorcall), READONLY, nullptr},
    {"kernel", T_OBJECT, offsetof(LauncherObject, fn), READONLY, "the autotuned kernel"},
    {"grid", T_OBJECT, offsetof(LauncherObject, grid), READONLY, "the grid of this launch"},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot tunedLauncherSlots[] = {
    {Py_tp_call, reinterpret_cast<void *>(PyVectorcall_Call)},
    {Py_tp_traverse, reinterpret_cast<void *>(launcherTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(launcherClear)},
    {Py_tp_dealloc, reinterpret_cast<void *>(launcherDealloc)},
    {Py_tp_repr, reinterpret_cast<void *>(launcherRepr)},
    {Py_tp_members, tunedLauncherMembers},
    {Py_tp_doc, const_cast<char *>("kernel[grid] of an autotuned kernel: call it to launch.")},
    {0, nullptr}};

PyType_Spec tunedLauncherSpec = {
    "tessera._C.TunedLauncher", sizeof(LauncherObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL, tunedLauncherSlots};

PyObject *newLauncher(PyTypeObject *type, vectorcallfunc call, PyObject *owner, PyObject *fn,
                      PyObject *grid) {
  std::array<int64_t, 3> g{};
  const bool fixed = PyTuple_Check(grid) && parseIntGrid(grid, g);
  auto *l = PyObject_GC_New(LauncherObject, type);
  if (!l) throw nb::python_error();
  l->vectorcall = call;
  l->owner = Py_XNewRef(owner);
  l->fn = Py_NewRef(fn);
  l->grid = Py_NewRef(grid);
  l->fixed = fixed;
  l->g = g;
  PyObject_GC_Track(l);
  return reinterpret_cast<PyObject *>(l);
}

}  // namespace

// fn.run(*args, **kwargs, grid=grid, warmup=False), and _grid_fn=gridFn when
// `grid` is what the grid function gridFn returned (for run's messages).
PyObject *callRun(PyObject *fn, PyObject *const *args, size_t nargs, PyObject *kwnames,
                  PyObject *grid, PyObject *gridFn) {
  static PyObject *runName = PyUnicode_InternFromString("run");
  static PyObject *gridName = PyUnicode_InternFromString("grid");
  static PyObject *warmupName = PyUnicode_InternFromString("warmup");
  static PyObject *gridFnName = PyUnicode_InternFromString("_grid_fn");
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  const Py_ssize_t extra = gridFn ? 3 : 2;
  nb::object run = nb::steal(PyObject_GetAttr(fn, runName));
  if (!run.is_valid()) return nullptr;
  nb::object names = nb::steal(PyTuple_New(nkw + extra));
  if (!names.is_valid()) return nullptr;
  for (Py_ssize_t k = 0; k < nkw; ++k)
    PyTuple_SET_ITEM(names.ptr(), k, Py_NewRef(PyTuple_GET_ITEM(kwnames, k)));
  PyTuple_SET_ITEM(names.ptr(), nkw, Py_NewRef(gridName));
  PyTuple_SET_ITEM(names.ptr(), nkw + 1, Py_NewRef(warmupName));
  if (gridFn) PyTuple_SET_ITEM(names.ptr(), nkw + 2, Py_NewRef(gridFnName));
  const size_t total = nargs + static_cast<size_t>(nkw);
  Scratch<PyObject *, 24> all(total + static_cast<size_t>(extra));
  for (size_t i = 0; i < total; ++i) all[i] = args[i];
  all[total] = grid;
  all[total + 1] = Py_False;
  if (gridFn) all[total + 2] = gridFn;
  return PyObject_Vectorcall(run.ptr(), all.data(), nargs, names.ptr());
}

nb::object launchOrRun(Dispatcher &d, PyObject *fn, const LauncherObject &l, PyObject *const *args,
                       size_t nargs, PyObject *kwnames) {
  nb::object gridOut;
  nb::object out = d.launch(args, nargs, kwnames, l.grid, l.fixed ? &l.g : nullptr, gridOut);
  if (out.is_valid()) return out;
  // A callable grid was called once: the general path gets what it returned.
  const bool called = gridOut.is_valid();
  out = nb::steal(callRun(fn, args, nargs, kwnames, called ? gridOut.ptr() : l.grid,
                          called ? l.grid : nullptr));
  if (!out.is_valid()) throw nb::python_error();
  return out;
}

PyObject *makeLauncher(nb::handle dispatcher, nb::handle fn, nb::handle grid) {
  return newLauncher(launcherType, launcherCall, dispatcher.ptr(), fn.ptr(), grid.ptr());
}

PyObject *makeTunedLauncher(nb::handle tuner, nb::handle grid) {
  return newLauncher(tunedLauncherType, tunedLauncherCall, nullptr, tuner.ptr(), grid.ptr());
}

void bindLauncher(nb::module_ &m) {
  PyObject *type = PyType_FromSpec(&launcherSpec);
  if (!type) throw nb::python_error();
  launcherType = reinterpret_cast<PyTypeObject *>(type);
  m.attr("Launcher") = nb::borrow(type);  // the module keeps the type alive
  PyObject *tuned = PyType_FromSpec(&tunedLauncherSpec);
  if (!tuned) throw nb::python_error();
  tunedLauncherType = reinterpret_cast<PyTypeObject *>(tuned);
  m.attr("TunedLauncher") = nb::borrow(tuned);
  m.def(
      "tuned_launcher",
      [](nb::handle tuner, nb::handle grid) { return nb::steal(makeTunedLauncher(tuner, grid)); },
      nb::arg("kernel"), nb::arg("grid").none(),
      "kernel[grid] of an Autotuner: its launch fast path (TunedLauncher).");
  m.def("set_key_kinds", &setKeyKinds, nb::arg("kinds"),
        "tuning_key.KEY_KINDS, which the tuned launch token consults.");
}

// ------------------------------------------------------------ the fast path

namespace {

// The options the binder names, in the order of the options tuple.
PyObject *optionName(size_t i) {
  static PyObject *names[Dispatcher::kNumOptions] = {
      PyUnicode_InternFromString("num_warps"), PyUnicode_InternFromString("num_stages"),
      PyUnicode_InternFromString("num_ctas"), PyUnicode_InternFromString("maxnreg"),
      PyUnicode_InternFromString("debug")};
  return names[i];
}

// Index of keyword `key` among the n names nameAt(i), or -1: by identity
// (interned names), and by value for keywords built at run time.
template <typename NameAt>
int identityIndex(PyObject *key, size_t n, NameAt nameAt) {
  for (size_t i = 0; i < n; ++i)
    if (nameAt(i) == key) return static_cast<int>(i);
  return -1;
}

template <typename NameAt>
int equalIndex(PyObject *key, size_t n, NameAt nameAt) {
  for (size_t i = 0; i < n; ++i)
    if (PyUnicode_Compare(key, nameAt(i)) == 0) return static_cast<int>(i);
  return -1;
}

}  // namespace

bool Dispatcher::globalsUnchanged() const {
  for (const UsedGlobal &u : globals_) {
    if (!PyDict_CheckExact(u.scope.ptr())) return false;
    PyObject *now = PyDict_GetItemWithError(u.scope.ptr(), u.name.ptr());  // borrowed
    if (!now) {
      if (PyErr_Occurred()) throw nb::python_error();
      return false;
    }
    if (now == u.value.ptr()) continue;
    int eq = PyObject_RichCompareBool(now, u.value.ptr(), Py_EQ);
    if (eq < 0) throw nb::python_error();
    if (!eq) return false;
  }
  return true;
}

// grid({name: value}) as Triton calls a callable grid (a new reference).
PyObject *Dispatcher::callGrid(PyObject *grid, PyObject *const *bound) const {
  nb::object meta = nb::steal(PyDict_New());
  if (!meta.is_valid()) throw nb::python_error();
  for (size_t i = 0; i < names_.size(); ++i)
    if (PyDict_SetItem(meta.ptr(), nameObjs_[i].ptr(), bound[i]) < 0) throw nb::python_error();
  PyObject *r = PyObject_CallOneArg(grid, meta.ptr());
  if (!r) throw nb::python_error();
  return r;
}

nb::object Dispatcher::launch(PyObject *const *args, size_t nargs, PyObject *kwnames,
                              PyObject *grid, const std::array<int64_t, 3> *fixedGrid,
                              nb::object &gridOut) {
  if (!configured_ || !globalsKnown_ || size_ == 0 || PyList_GET_SIZE(hooks_.ptr()) != 0) return {};
  const size_t np = names_.size();
  if (nargs > np) return {};
  Scratch<PyObject *, 16> bound(np);
  for (size_t i = 0; i < np; ++i) bound[i] = i < nargs ? args[i] : nullptr;
  PyObject *options[kNumOptions] = {};
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject *key = PyTuple_GET_ITEM(kwnames, k);
    PyObject *value = args[nargs + static_cast<size_t>(k)];
    auto param = [&](size_t i) { return nameObjs_[i].ptr(); };
    // Keywords at a call site are interned: identity finds them in either
    // table without comparing strings.
    int p = identityIndex(key, np, param);
    int o = p < 0 ? identityIndex(key, kNumOptions, optionName) : -1;
    if (p < 0 && o < 0) {
      p = equalIndex(key, np, param);
      if (p < 0) o = equalIndex(key, kNumOptions, optionName);
    }
    if (p >= 0) {
      if (bound[p]) return {};  // given twice: the general path says so
      bound[p] = value;
      continue;
    }
    if (o < 0) return {};  // other options, or a mistake
    options[o] = value;
  }
  for (size_t i = 0; i < np; ++i)
    if (!bound[i]) {
      if (!defaults_[i].is_valid()) return {};  // missing: the general path says so
      bound[i] = defaults_[i].ptr();
    }
  // A tuple argument launches through a Dispatcher of its own
  // (tuple_args.py), and so does a compile-time value given to a runtime
  // parameter (a @jit function, a dtype, a string, tl.constexpr(...)).
  for (size_t i = 0; i < np; ++i)
    if (modes_[i] != kConstexpr &&
        (PyTuple_Check(bound[i]) || PyUnicode_Check(bound[i]) || PyCallable_Check(bound[i])))
      return {};
  if (!globalsUnchanged()) return {};

  // The options tuple, as the binder makes it (with @jit's debug default).
  if ((!options[kDebugOption] || options[kDebugOption] == Py_None) && !debugDefault_.is_none())
    options[kDebugOption] = debugDefault_.ptr();
  nb::object extra = noOptions_;
  for (size_t o = 0; o < kNumOptions; ++o)
    if (options[o] && options[o] != Py_None) {
      extra = nb::steal(PyTuple_New(kNumOptions));
      if (!extra.is_valid()) throw nb::python_error();
      for (size_t j = 0; j < kNumOptions; ++j)
        PyTuple_SET_ITEM(extra.ptr(), j, Py_NewRef(options[j] ? options[j] : Py_None));
      break;
    }

  std::array<int64_t, 3> g;
  if (fixedGrid) {
    g = *fixedGrid;
  } else if (PyCallable_Check(grid)) {
    gridOut = nb::steal(callGrid(grid, bound.data()));
    if (!parseIntGrid(gridOut.ptr(), g)) return {};
  } else if (!parseIntGrid(grid, g)) {
    return {};
  }
  try {
    return runBound(bound.data(), extra.ptr(), g, 0);
  } catch (nb::python_error &e) {
    // An argument the classifier refuses (a dtype, tl.constexpr(5)): the
    // general path decides whether it is a compile-time value or a mistake.
    if (e.matches(PyExc_TypeError)) return {};
    throw;
  }
}

}  // namespace tessera_py
