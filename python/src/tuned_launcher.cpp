// Calling a TunedLauncher (tessera._C.TunedLauncher, the type made in
// launcher.cpp): what `kernel[grid]` returns for an autotuned kernel
// (Autotuner.__getitem__), and its launch fast path.
//
// Contract: calling it does what the Python path does
// (Autotuner._run_positional for positional arguments, Autotuner.run with
// keywords), and only the common case runs here: positional arguments whose
// launch token (tuning_key.launch_token, built here the same way) is in the
// memo of the autotuner's TuningCache. Such a launch sets best_config, keeps
// the arguments in _launch_args for `nargs` while it runs, and launches the
// memo's config through the kernel's Dispatcher, or through JITFunction.run
// where the Dispatcher declines. Anything else, including every first launch
// of a key, goes to Autotuner._run_grid, which fills the memo; so this file
// makes no decision the Python path would not make.
#include <Python.h>

#include "dispatcher.h"

namespace tessera_py {

namespace {

PyObject *keyKinds = nullptr;  // tuning_key.KEY_KINDS (type -> kind), set by set_key_kinds

PyObject *interned(const char *s) {
  return PyUnicode_InternFromString(s);
}

// Autotuner._run_grid(grid, *args, **kwargs): the Python path.
PyObject *slowPath(LauncherObject *t, PyObject *const *args, size_t nargs, PyObject *kwnames) {
  static PyObject *name = interned("_run_grid");
  const size_t nkw = kwnames ? static_cast<size_t>(PyTuple_GET_SIZE(kwnames)) : 0;
  Scratch<PyObject *, 24> all(nargs + nkw + 2);
  all[0] = t->fn;
  all[1] = t->grid;
  for (size_t i = 0; i < nargs + nkw; ++i) all[i + 2] = args[i];
  return PyObject_VectorcallMethod(name, all.data(), nargs + 2, kwnames);
}

// Plain scalars: the key values the token takes as they are, and the
// arguments that have no dtype (tuning_key.PLAIN_KEY_TYPES).
bool plainScalar(PyObject *v) {
  return PyLong_CheckExact(v) || PyFloat_CheckExact(v) || PyBool_Check(v) ||
         PyUnicode_CheckExact(v) || v == Py_None;
}

// tuning_key.launch_token(tuner._key_index, args), or a null object (no
// error) where that returns None.
nb::object launchToken(PyObject *keyIndex, PyObject *const *args, size_t nargs) {
  if (!PyList_CheckExact(keyIndex) || !keyKinds) return {};
  const Py_ssize_t nkeys = PyList_GET_SIZE(keyIndex);
  Scratch<PyObject *, 8> values(static_cast<size_t>(nkeys));
  Py_ssize_t nvalues = 0;
  for (Py_ssize_t k = 0; k < nkeys; ++k) {
    const Py_ssize_t i = PyLong_AsSsize_t(PyList_GET_ITEM(keyIndex, k));
    if (i < 0) {
      if (PyErr_Occurred()) throw nb::python_error();
      return {};
    }
    if (static_cast<size_t>(i) >= nargs) continue;  // a default: fixed for this nargs
    if (!plainScalar(args[i])) return {};
    values[static_cast<size_t>(nvalues++)] = args[i];
  }
  nb::object valueTuple = nb::steal(PyTuple_New(nvalues));
  nb::object types = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(nargs)));
  nb::object dtypes = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(nargs)));
  if (!valueTuple.is_valid() || !types.is_valid() || !dtypes.is_valid()) throw nb::python_error();
  for (Py_ssize_t k = 0; k < nvalues; ++k)
    PyTuple_SET_ITEM(valueTuple.ptr(), k, Py_NewRef(values[static_cast<size_t>(k)]));
  static PyObject *dtypeName = interned("dtype");
  for (size_t i = 0; i < nargs; ++i) {
    PyObject *type = reinterpret_cast<PyObject *>(Py_TYPE(args[i]));
    PyObject *kind = PyDict_GetItemWithError(keyKinds, type);  // borrowed
    if (!kind && PyErr_Occurred()) throw nb::python_error();
    if (kind && PyLong_Check(kind) && PyLong_AsLong(kind) == 2) return {};  // an ndarray subclass
    PyTuple_SET_ITEM(types.ptr(), static_cast<Py_ssize_t>(i), Py_NewRef(type));
    PyObject *dtype = nullptr;
    if (!plainScalar(args[i])) {
      dtype = PyObject_GetAttr(args[i], dtypeName);
      if (!dtype) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw nb::python_error();
        PyErr_Clear();
      }
    }
    PyTuple_SET_ITEM(dtypes.ptr(), static_cast<Py_ssize_t>(i), dtype ? dtype : Py_NewRef(Py_None));
  }
  nb::object token = nb::steal(PyTuple_Pack(3, valueTuple.ptr(), types.ptr(), dtypes.ptr()));
  if (!token.is_valid()) throw nb::python_error();
  return token;
}

// The fast path: the launch's result, or a null object (no error) where the
// Python path must run.
nb::object tunedFast(LauncherObject *t, PyObject *const *args, size_t nargs) {
  static PyObject *cacheName = interned("cache"), *memoName = interned("memo"),
                  *keyIndexName = interned("_key_index"), *fnName = interned("fn"),
                  *dispatcherName = interned("_dispatcher"), *bestName = interned("best_config"),
                  *launchArgsName = interned("_launch_args");
  nb::object cache = nb::steal(PyObject_GetAttr(t->fn, cacheName));
  if (!cache.is_valid()) throw nb::python_error();
  nb::object memo = nb::steal(PyObject_GetAttr(cache.ptr(), memoName));
  if (!memo.is_valid()) {  // .cache replaced by a plain dict
    PyErr_Clear();
    return {};
  }
  if (!PyDict_CheckExact(memo.ptr()) || PyDict_GET_SIZE(memo.ptr()) == 0) return {};
  nb::object keyIndex = nb::steal(PyObject_GetAttr(t->fn, keyIndexName));
  if (!keyIndex.is_valid()) throw nb::python_error();
  nb::object token = launchToken(keyIndex.ptr(), args, nargs);
  if (!token.is_valid()) return {};
  PyObject *hit = PyDict_GetItemWithError(memo.ptr(), token.ptr());  // borrowed
  if (!hit) {
    if (!PyErr_Occurred()) return {};
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw nb::python_error();
    PyErr_Clear();  // an unhashable dtype: the Python path says what to do
    return {};
  }
  // (config, option names, option values), as _run_positional stores it.
  if (!PyTuple_CheckExact(hit) || PyTuple_GET_SIZE(hit) != 3) return {};
  nb::object entry = nb::borrow(hit);  // the memo may change while the kernel runs
  PyObject *config = PyTuple_GET_ITEM(hit, 0);
  PyObject *kwnames = PyTuple_GET_ITEM(hit, 1);
  PyObject *kwvalues = PyTuple_GET_ITEM(hit, 2);
  if (!PyTuple_CheckExact(kwnames) || !PyTuple_CheckExact(kwvalues) ||
      PyTuple_GET_SIZE(kwnames) != PyTuple_GET_SIZE(kwvalues))
    return {};
  nb::object fn = nb::steal(PyObject_GetAttr(t->fn, fnName));
  if (!fn.is_valid()) throw nb::python_error();
  nb::object dispatcher = nb::steal(PyObject_GetAttr(fn.ptr(), dispatcherName));
  if (!dispatcher.is_valid()) {
    PyErr_Clear();
    return {};
  }
  if (!nb::isinstance<Dispatcher>(dispatcher)) return {};
  Dispatcher *d = nb::inst_ptr<Dispatcher>(dispatcher);

  const size_t nkw = static_cast<size_t>(PyTuple_GET_SIZE(kwnames));
  Scratch<PyObject *, 24> all(nargs + nkw);
  for (size_t i = 0; i < nargs; ++i) all[i] = args[i];
  for (size_t k = 0; k < nkw; ++k) all[nargs + k] = PyTuple_GET_ITEM(kwvalues, k);
  nb::object launchArgs = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(nargs)));
  if (!launchArgs.is_valid()) throw nb::python_error();
  for (size_t i = 0; i < nargs; ++i)
    PyTuple_SET_ITEM(launchArgs.ptr(), static_cast<Py_ssize_t>(i), Py_NewRef(args[i]));
  if (PyObject_SetAttr(t->fn, bestName, config) < 0 ||
      PyObject_SetAttr(t->fn, launchArgsName, launchArgs.ptr()) < 0)
    throw nb::python_error();

  // _launch_args goes back to None however the launch ends.
  struct ResetLaunchArgs {
    PyObject *tuner, *name;
    ~ResetLaunchArgs() {
      // (an error being raised stays raised: nanobind holds it while unwinding)
      if (PyObject_SetAttr(tuner, name, Py_None) < 0) PyErr_Clear();
    }
  } reset{t->fn, launchArgsName};
  return launchOrRun(*d, fn.ptr(), *t, all.data(), nargs, kwnames);
}

}  // namespace

PyObject *tunedLauncherCall(PyObject *self, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames) {
  auto *t = reinterpret_cast<LauncherObject *>(self);
  const size_t nargs = PyVectorcall_NARGS(nargsf);
  if (!kwnames || PyTuple_GET_SIZE(kwnames) == 0) {
    bool raised = false;
    nb::object out = catchingForPython([&] { return tunedFast(t, args, nargs); }, &raised);
    if (raised) return nullptr;
    if (out.is_valid()) return out.release().ptr();
  }
  return slowPath(t, args, nargs, kwnames);
}

void setKeyKinds(nb::handle kinds) {
  if (!PyDict_Check(kinds.ptr())) throw nb::type_error("set_key_kinds: a dict");
  Py_XSETREF(keyKinds, Py_NewRef(kinds.ptr()));  // for the life of the process
}

}  // namespace tessera_py
