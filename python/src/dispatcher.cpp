// Dispatcher (dispatcher.h): specialisation keys, the entry table, and the
// Python-facing run / add / specialize / configure.
#include "dispatcher.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace tessera_py {

namespace {

// The key word of a runtime argument (facts already filtered by the mode).
uint64_t keyWord(const ArgInfo &a) {
  return (static_cast<uint64_t>(a.kind) + 1) << 56 |
         static_cast<uint64_t>(static_cast<uint8_t>(a.device + 1)) << 40 |
         static_cast<uint64_t>(a.dtype) << 8 | static_cast<uint64_t>(a.eq1) << 1 |
         static_cast<uint64_t>(a.div16);
}

// The second key word of a descriptor: rank, padding and block shape (log2
// of each power-of-two dim; anything else the compiler refuses anyway).
uint64_t descriptorWord(const ArgInfo &a) {
  uint64_t w = static_cast<uint64_t>(a.rank) | static_cast<uint64_t>(a.nanPadding) << 3 |
               static_cast<uint64_t>(a.shapeDiv16) << 40;
  for (int d = 0; d < a.rank; ++d) {
    uint64_t b = static_cast<uint64_t>(a.block[d]);
    uint64_t code = b != 0 && (b & (b - 1)) == 0 ? std::countr_zero(b) : 63;
    w |= code << (4 + 6 * d);
  }
  return w;
}

uint64_t mix(uint64_t h, uint64_t w) {
  h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

}  // namespace

// Per-call scratch space, on the stack for kernels of up to 16 parameters.
struct Dispatcher::Analysis {
  explicit Analysis(size_t nparams) : info(nparams), words(2 * nparams + 2), objs(nparams + 1) {}
  Scratch<ArgInfo, 16> info;
  Scratch<uint64_t, 34> words;
  Scratch<PyObject *, 17> objs;  // borrowed: constexpr values, then extra
  size_t nwords = 0;
  size_t nobjs = 0;
  size_t nruntime = 0;  // arguments the compiled kernel takes
  uint64_t hash = 0;
  BufferPins pins;  // the arguments' buffers, held until the launch is over
};

Dispatcher::Dispatcher(std::string kernelName, std::vector<std::string> names,
                       std::vector<int> modes)
    : kernel_(std::move(kernelName)), names_(std::move(names)), modes_(std::move(modes)) {
  if (names_.size() != modes_.size())
    raise(PyExc_ValueError, "Dispatcher: " + std::to_string(names_.size()) +
                                " parameter names but " + std::to_string(modes_.size()) + " modes");
  for (int m : modes_)
    if (m < kRuntime || m > kConstexpr)
      raise(PyExc_ValueError, "Dispatcher: unknown parameter mode " + std::to_string(m));
  for (const std::string &n : names_) {
    PyObject *s = PyUnicode_InternFromString(n.c_str());
    if (!s) throw nb::python_error();
    nameObjs_.push_back(nb::steal(s));
  }
  PyObject *none = PyTuple_New(kNumOptions);
  if (!none) throw nb::python_error();
  for (size_t i = 0; i < kNumOptions; ++i) PyTuple_SET_ITEM(none, i, Py_NewRef(Py_None));
  noOptions_ = nb::steal(none);
  noOptionsHash_ = PyObject_Hash(none);
}

nb::object Dispatcher::runBound(PyObject *const *items, PyObject *extra,
                                const std::array<int64_t, 3> &grid, int numThreads) {
  Analysis a(names_.size());
  analyze(items, extra, a);
  Entry *e = find(a);
  if (!e) return nb::object();
  Scratch<tessera_run_arg, 16> runArgs(a.nruntime);
  size_t n = 0;
  int device = -1;
  for (size_t i = 0; i < names_.size(); ++i)
    if (modes_[i] != kConstexpr && a.info[i].kind != ArgKind::kNone) {
      if (a.info[i].kind == ArgKind::kPointer || a.info[i].kind == ArgKind::kDescriptor)
        device = std::max(device, a.info[i].device);
      n += writeRunArgs(a.info[i], &runArgs[n]);
    }
  // Strong references: another thread may clear() while the GIL is released.
  nb::object kernel = e->kernel;
  nb::object payload = e->payload;
  if (device >= 0)
    launchCuda(e->handle, runArgs.data(), n, grid, device);
  else
    runKernel(e->handle, runArgs.data(), n, grid, numThreads);
  return payload;
}

nb::object Dispatcher::run(nb::handle args, nb::handle grid, nb::handle extra, int numThreads) {
  PyObject **items = argItems(args);
  nb::object ran = runBound(items, extra.ptr(), parseGrid(grid.ptr()), numThreads);
  return ran.is_valid() ? ran : nb::none();
}

nb::list Dispatcher::specialize(nb::handle args) {
  PyObject **items = argItems(args);
  Analysis a(names_.size());
  analyze(items, nullptr, a);
  nb::list out;
  for (size_t i = 0; i < names_.size(); ++i) {
    const ArgInfo &x = a.info[i];
    if (modes_[i] == kConstexpr) {
      out.append(nb::make_tuple("constexpr", nb::handle(items[i])));
      continue;
    }
    nb::str dtype(dtypeName(x.dtype));
    switch (x.kind) {
      case ArgKind::kNone:
        out.append(nb::make_tuple("constexpr", nb::none()));
        break;
      case ArgKind::kPointer:
        // GPU memory adds its device: ("ptr", dtype, aligned, device).
        if (x.device >= 0)
          out.append(nb::make_tuple("ptr", dtype, nb::bool_(x.div16), nb::int_(x.device)));
        else
          out.append(nb::make_tuple("ptr", dtype, nb::bool_(x.div16)));
        break;
      case ArgKind::kBool:
      case ArgKind::kInt:
      case ArgKind::kFloat:
        out.append(nb::make_tuple("scalar", dtype, nb::bool_(x.div16), nb::bool_(x.eq1)));
        break;
      case ArgKind::kDescriptor: {
        // ("tensordesc", dtype, aligned, block shape, padding, shape dims
        // divisible by 16[, device]).
        nb::list block, div;
        for (int d = 0; d < x.rank; ++d) {
          block.append(nb::int_(x.block[d]));
          div.append(nb::bool_((x.shapeDiv16 >> d) & 1));
        }
        nb::str pad(x.nanPadding ? "nan" : "zero");
        if (x.device >= 0)
          out.append(nb::make_tuple("tensordesc", dtype, nb::bool_(x.div16), nb::tuple(block), pad,
                                    nb::tuple(div), nb::int_(x.device)));
        else
          out.append(nb::make_tuple("tensordesc", dtype, nb::bool_(x.div16), nb::tuple(block), pad,
                                    nb::tuple(div)));
        break;
      }
    }
  }
  return out;
}

void Dispatcher::add(nb::handle args, nb::handle extra, nb::handle kernel, nb::handle payload) {
  PyObject **items = argItems(args);
  if (!nb::isinstance<Kernel>(kernel))
    raise(PyExc_TypeError, std::string("Dispatcher.add: expected a tessera._C.Kernel, got ") +
                               Py_TYPE(kernel.ptr())->tp_name);
  const Kernel &k = nb::cast<const Kernel &>(kernel);
  // The options tuple of a launch that passed none is shared, so that a
  // lookup confirms it by identity.
  if (!extra.is_none() && extra.ptr() != noOptions_.ptr()) {
    int same = PyObject_RichCompareBool(extra.ptr(), noOptions_.ptr(), Py_EQ);
    if (same < 0) throw nb::python_error();
    if (same) extra = noOptions_;
  }
  Analysis a(names_.size());
  analyze(items, extra.ptr(), a);
  if (k.numParams() != a.nruntime)
    raise(PyExc_ValueError, "Dispatcher.add: kernel '" + kernel_ + "' was compiled with " +
                                std::to_string(k.numParams()) +
                                " runtime parameters but these arguments have " +
                                std::to_string(a.nruntime));
  if (Entry *e = find(a)) {
    e->kernel = nb::borrow(kernel);
    e->handle = k.get();
    e->payload = nb::borrow(payload);
    return;
  }
  auto e = std::make_unique<Entry>();
  e->words.assign(a.words.data(), a.words.data() + a.nwords);
  for (size_t j = 0; j < a.nobjs; ++j) e->objs.push_back(nb::borrow(a.objs[j]));
  e->kernel = nb::borrow(kernel);
  e->handle = k.get();
  e->payload = nb::borrow(payload);
  map_[a.hash].push_back(std::move(e));
  ++size_;
  ++generation_;
}

void Dispatcher::clear() {
  // Destroy after the map is consistent again: destructors may run Python.
  auto old = std::move(map_);
  map_.clear();
  size_ = 0;
  ++generation_;
}

void Dispatcher::releaseAll() {
  clear();
  configured_ = globalsKnown_ = false;
  auto oldDefaults = std::move(defaults_);
  auto oldGlobals = std::move(globals_);
  nb::object oldHooks = std::move(hooks_), oldDebug = std::move(debugDefault_);
}

void Dispatcher::configure(nb::handle defaults, nb::handle hooks, nb::handle debugDefault) {
  if (!PyList_Check(hooks.ptr()))
    raise(PyExc_TypeError, "Dispatcher.configure: hooks must be a list");
  std::vector<nb::object> d;
  for (nb::handle item : defaults) {
    // (value,) for a parameter with a default, None for one without.
    if (item.is_none()) {
      d.emplace_back();
    } else {
      if (!PyTuple_Check(item.ptr()) || PyTuple_GET_SIZE(item.ptr()) != 1)
        raise(PyExc_TypeError, "Dispatcher.configure: defaults are (value,) or None");
      d.push_back(nb::borrow(PyTuple_GET_ITEM(item.ptr(), 0)));
    }
  }
  if (d.size() != names_.size())
    raise(PyExc_ValueError, "Dispatcher.configure: " + std::to_string(d.size()) + " defaults for " +
                                std::to_string(names_.size()) + " parameters");
  defaults_ = std::move(d);
  hooks_ = nb::borrow(hooks);
  debugDefault_ = nb::borrow(debugDefault);
  configured_ = true;
}

void Dispatcher::setGlobals(nb::handle used) {
  std::vector<UsedGlobal> g;
  for (nb::handle item : used) {
    if (!PyTuple_Check(item.ptr()) || PyTuple_GET_SIZE(item.ptr()) != 3)
      raise(PyExc_TypeError, "Dispatcher.set_globals: entries are (name, scope, value)");
    g.push_back({nb::borrow(PyTuple_GET_ITEM(item.ptr(), 0)),
                 nb::borrow(PyTuple_GET_ITEM(item.ptr(), 1)),
                 nb::borrow(PyTuple_GET_ITEM(item.ptr(), 2))});
  }
  auto old = std::move(globals_);
  globals_ = std::move(g);
  globalsKnown_ = true;
}

int Dispatcher::traverse(visitproc visit, void *arg) const {
  for (const auto &[hash, bucket] : map_)
    for (const auto &e : bucket) {
      for (const nb::object &o : e->objs) Py_VISIT(o.ptr());
      Py_VISIT(e->kernel.ptr());
      Py_VISIT(e->payload.ptr());
    }
  for (const nb::object &o : defaults_) Py_VISIT(o.ptr());
  for (const UsedGlobal &g : globals_) {
    Py_VISIT(g.scope.ptr());
    Py_VISIT(g.value.ptr());
  }
  Py_VISIT(hooks_.ptr());
  Py_VISIT(debugDefault_.ptr());
  return 0;
}

// The items of an args tuple (or list) with one value per parameter.
PyObject **Dispatcher::argItems(nb::handle args) const {
  Py_ssize_t n;
  PyObject **items;
  if (PyTuple_Check(args.ptr())) {
    n = PyTuple_GET_SIZE(args.ptr());
    items = &PyTuple_GET_ITEM(args.ptr(), 0);
  } else if (PyList_Check(args.ptr())) {
    n = PyList_GET_SIZE(args.ptr());
    items = PyList_GET_SIZE(args.ptr()) ? &PyList_GET_ITEM(args.ptr(), 0) : nullptr;
  } else {
    raise(PyExc_TypeError, std::string("kernel '") + kernel_ +
                               "': the arguments must be a tuple, got " +
                               Py_TYPE(args.ptr())->tp_name);
  }
  if (static_cast<size_t>(n) != names_.size())
    raise(PyExc_TypeError, "kernel '" + kernel_ + "' takes " + std::to_string(names_.size()) +
                               " arguments, got " + std::to_string(n));
  return items;
}

// A value compared by type, hash and equality (unhashable: equality only).
void Dispatcher::pushObject(PyObject *v, Analysis &a) const {
  // The options of a launch that passed none are always noOptions_: its
  // hash is worked out once.
  Py_hash_t h = v == noOptions_.ptr() ? noOptionsHash_ : PyObject_Hash(v);
  if (h == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    h = 0;
  }
  a.words[a.nwords++] = reinterpret_cast<uintptr_t>(Py_TYPE(v));
  a.words[a.nwords++] = static_cast<uint64_t>(h);
  a.objs[a.nobjs++] = v;
}

void Dispatcher::analyze(PyObject *const *items, PyObject *extra, Analysis &a) const {
  LaunchEnv env;
  env.pins = &a.pins;
  for (size_t i = 0; i < names_.size(); ++i) {
    PyObject *v = items[i];
    ArgInfo &x = a.info[i];
    if (modes_[i] == kConstexpr) {
      x = ArgInfo{};
      pushObject(v, a);
      continue;
    }
    classifyArg(v, x, names_[i], kernel_, &env);
    switch (modes_[i]) {
      case kNoSpec:
        x.eq1 = x.div16 = false;
        if (x.kind == ArgKind::kDescriptor) x.shapeDiv16 = 0;
        break;
      case kNoAlign:  // like Triton: no divisibility fact, pointers or ints
        x.div16 = false;
        if (x.kind == ArgKind::kDescriptor) x.shapeDiv16 = 0;
        break;
      default:
        break;
    }
    if (x.kind != ArgKind::kInt) x.eq1 = false;
    if (x.kind != ArgKind::kInt && x.kind != ArgKind::kPointer && x.kind != ArgKind::kDescriptor)
      x.div16 = false;
    a.words[a.nwords++] = keyWord(x);
    if (x.kind == ArgKind::kDescriptor) a.words[a.nwords++] = descriptorWord(x);
    if (x.kind != ArgKind::kNone) a.nruntime += runArgCount(x);
  }
  if (extra) pushObject(extra, a);
  uint64_t h = a.nwords;
  for (size_t j = 0; j < a.nwords; ++j) h = mix(h, a.words[j]);
  a.hash = h;
}

Dispatcher::Entry *Dispatcher::find(const Analysis &a) {
  for (;;) {
    auto it = map_.find(a.hash);
    if (it == map_.end()) return nullptr;
    const uint64_t gen = generation_;
    bool restart = false;
    for (const auto &e : it->second) {
      if (e->words.size() != a.nwords ||
          std::memcmp(e->words.data(), a.words.data(), a.nwords * sizeof(uint64_t)) != 0)
        continue;
      bool same = true;
      for (size_t j = 0; j < a.nobjs; ++j) {
        nb::object stored = e->objs[j];  // the words say: of the same type
        if (stored.ptr() == a.objs[j]) continue;
        int eq = PyObject_RichCompareBool(stored.ptr(), a.objs[j], Py_EQ);
        if (eq < 0) throw nb::python_error();
        if (generation_ != gen) {  // __eq__ ran Python code that changed us
          restart = true;
          break;
        }
        if (eq == 0) {
          same = false;
          break;
        }
      }
      if (restart) break;
      if (same) return e.get();
    }
    if (!restart) return nullptr;
  }
}

namespace {

int dispatcherTraverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<Dispatcher>(self)->traverse(visit, arg);
}

int dispatcherClear(PyObject *self) {
  if (nb::inst_ready(self)) nb::inst_ptr<Dispatcher>(self)->releaseAll();
  return 0;
}

PyType_Slot dispatcherSlots[] = {{Py_tp_traverse, reinterpret_cast<void *>(dispatcherTraverse)},
                                 {Py_tp_clear, reinterpret_cast<void *>(dispatcherClear)},
                                 {0, nullptr}};

}  // namespace

void bindDispatcher(nb::module_ &m) {
  nb::class_<Dispatcher>(m, "Dispatcher", nb::type_slots(dispatcherSlots),
                         "The launch fast path of one @jit function.")
      .def(nb::init<std::string, std::vector<std::string>, std::vector<int>>(),
           nb::arg("kernel_name"), nb::arg("param_names"), nb::arg("modes"))
      .def("specialize", &Dispatcher::specialize, nb::arg("args"))
      .def("run", &Dispatcher::run, nb::arg("args"), nb::arg("grid"),
           nb::arg("extra").none() = nb::none(), nb::arg("num_threads") = 0)
      .def("add", &Dispatcher::add, nb::arg("args"), nb::arg("extra").none(), nb::arg("kernel"),
           nb::arg("payload").none())
      .def("configure", &Dispatcher::configure, nb::arg("defaults"), nb::arg("hooks"),
           nb::arg("debug").none())
      .def("set_globals", &Dispatcher::setGlobals, nb::arg("used"))
      .def(
          "launcher",
          [](nb::pointer_and_handle<Dispatcher> self, nb::handle fn, nb::handle grid) {
            return nb::steal(makeLauncher(self.h, fn, grid));
          },
          nb::arg("fn"), nb::arg("grid").none())
      .def("clear", &Dispatcher::clear)
      .def("__len__", &Dispatcher::size);
}

}  // namespace tessera_py
