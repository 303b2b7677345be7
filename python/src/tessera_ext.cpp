// The module tessera._C: errors, compile(), Kernel, builtin_names() and the
// module's constants. Contract: python/tessera/_C.pyi.
#include "tessera_ext.h"

#include <algorithm>
#include <deque>
#include <memory>

#include "dispatcher.h"

namespace tessera_py {

// ------------------------------------------------------------------ errors

namespace {

// Strong references, deliberately never released (they outlive the module).
PyObject *gCompilationError = nullptr;
PyObject *gKernelError = nullptr;
PyObject *gResolver = nullptr;

void replace(PyObject *&slot, PyObject *value) {
  Py_XINCREF(value);
  PyObject *old = slot;
  slot = value;
  Py_XDECREF(old);
}

}  // namespace

void raise(PyObject *type, const std::string &message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

void raiseLastError(tessera_status status) {
  std::string message = tessera_last_error();
  while (!message.empty() && message.back() == '\n') message.pop_back();
  tessera_clear_error();
  PyObject *type = PyExc_RuntimeError;
  switch (status) {
    case TESSERA_ERROR_COMPILATION:
      if (gCompilationError) type = gCompilationError;
      break;
    case TESSERA_ERROR_KERNEL:
      if (gKernelError) type = gKernelError;
      break;
    case TESSERA_ERROR_INVALID_ARGUMENT:
      type = PyExc_ValueError;
      break;
    case TESSERA_OK:
    case TESSERA_ERROR_INTERNAL:
      break;
  }
  if (message.empty()) message = "tessera: unknown error (status " + std::to_string(status) + ")";
  raise(type, message);
}

void setErrorTypes(nb::handle compilation, nb::handle kernel) {
  for (nb::handle t : {compilation, kernel})
    if (!PyType_Check(t.ptr()) ||
        !PyType_IsSubtype(reinterpret_cast<PyTypeObject *>(t.ptr()),
                          reinterpret_cast<PyTypeObject *>(PyExc_Exception)))
      raise(PyExc_TypeError,
            std::string("set_error_types: expected exception classes, got ") + nb::repr(t).c_str());
  replace(gCompilationError, compilation.ptr());
  replace(gKernelError, kernel.ptr());
}

void setResolver(nb::handle resolver) {
  if (!resolver.is_none() && !PyCallable_Check(resolver.ptr()))
    raise(PyExc_TypeError, std::string("set_resolver: expected a callable or None, got ") +
                               nb::repr(resolver).c_str());
  replace(gResolver, resolver.is_none() ? nullptr : resolver.ptr());
}

PyObject *resolver() {
  return gResolver;
}

// ---------------------------------------------------------------- compiling

namespace {

// Owns everything the C structs of one compile call point to.
class CompileInputs {
 public:
  const char *str(nb::handle h, const char *what) {
    if (!PyUnicode_Check(h.ptr()))
      raise(PyExc_TypeError,
            std::string(what) + ": expected a str, got " + Py_TYPE(h.ptr())->tp_name);
    Py_ssize_t len = 0;
    const char *s = PyUnicode_AsUTF8AndSize(h.ptr(), &len);
    if (!s) throw nb::python_error();
    return strings_.emplace_back(s, static_cast<size_t>(len)).c_str();
  }

  // An encoded Const: ("none",) ("bool", b) ("int", i) ("float", f)
  // ("str", s) ("dtype", "fp32") ("tuple", [Const, ...][, "Name(field,...)"])
  // ("builtin", "cuda.smid") ("tupletype", "Name(field,...)", [Const default, ...])
  // ("function", unit, name).
  // `depth`: the tuples around it. The C ABI refuses 64 levels; stopping
  // there too keeps a 100,000-deep or self-containing tuple from
  // overflowing the stack here first.
  tessera_value value(nb::handle h, int depth = 0) {
    if (depth >= 64)
      raise(PyExc_ValueError,
            "a constant's tuples are nested more than 64 deep (or a tuple contains itself)");
    tessera_value v{};
    nb::tuple t = tuple(h, 1, 4, "a constant");
    std::string tag = nb::cast<std::string>(t[0]);
    auto payload = [&]() -> nb::handle {
      if (t.size() != 2 && !(tag == "tuple" && t.size() == 3)) bad("constant", h);
      return t[1];
    };
    if (tag == "none") {
      v.kind = TESSERA_VALUE_NONE;
    } else if (tag == "bool") {
      v.kind = TESSERA_VALUE_BOOL;
      int truth = PyObject_IsTrue(payload().ptr());
      if (truth < 0) throw nb::python_error();
      v.i = truth;
    } else if (tag == "int") {
      v.kind = TESSERA_VALUE_INT;
      nb::handle p = payload();
      if (!PyLong_Check(p.ptr())) bad("constant", h);
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(p.ptr(), &overflow);
      if (x == -1 && PyErr_Occurred()) throw nb::python_error();
      if (overflow)
        raise(PyExc_ValueError,
              std::string("the constant ") + nb::repr(p).c_str() + " does not fit in 64 bits");
      v.i = x;
    } else if (tag == "float") {
      v.kind = TESSERA_VALUE_FLOAT;
      v.f = PyFloat_AsDouble(payload().ptr());
      if (v.f == -1.0 && PyErr_Occurred()) throw nb::python_error();
    } else if (tag == "str" || tag == "dtype" || tag == "builtin") {
      v.kind = tag == "str"     ? TESSERA_VALUE_STRING
               : tag == "dtype" ? TESSERA_VALUE_DTYPE
                                : TESSERA_VALUE_BUILTIN;
      v.s = str(payload(), "a constant");
    } else if (tag == "function") {
      // ("function", unit, name): a @jit function of another source unit.
      if (t.size() != 3 || !PyLong_Check(t[1].ptr())) bad("constant", h);
      v.kind = TESSERA_VALUE_FUNCTION;
      v.i = PyLong_AsLongLong(t[1].ptr());
      if (v.i == -1 && PyErr_Occurred()) throw nb::python_error();
      v.s = str(t[2], "a function's name");
    } else if (tag == "tupletype") {
      // ("tupletype", "Name(field,...)", [Const default, ...]), or an
      // aggregate class: (..., [(name, binds self, Const), ...]) after them.
      auto isSeq = [](nb::handle x) { return PyList_Check(x.ptr()) || PyTuple_Check(x.ptr()); };
      if (t.size() < 3 || !isSeq(t[2]) || (t.size() == 4 && !isSeq(t[3]))) bad("constant", h);
      v.kind = TESSERA_VALUE_TUPLE_TYPE;
      v.s = str(t[1], "a namedtuple's type");
      std::vector<tessera_value> vals;
      for (nb::handle e : t[2]) vals.push_back(value(e, depth + 1));
      if (t.size() == 4) {
        size_t attrs = 0;
        for (nb::handle a : t[3]) {
          nb::tuple attr = tuple(a, 3, 3, "an aggregate's attribute");
          tessera_value name{}, binds{};
          name.kind = TESSERA_VALUE_STRING;
          name.s = str(attr[0], "an attribute's name");
          binds.kind = TESSERA_VALUE_BOOL;
          binds.i = PyObject_IsTrue(attr[1].ptr()) > 0;
          const auto &parts = tuples_.emplace_back(
              std::vector<tessera_value>{name, binds, value(attr[2], depth + 1)});
          tessera_value pair{};
          pair.kind = TESSERA_VALUE_TUPLE;
          pair.elems = parts.data();
          pair.num_elems = parts.size();
          vals.push_back(pair);
          ++attrs;
        }
        v.i = static_cast<int64_t>(attrs) + 1;
      }
      const auto &stored = tuples_.emplace_back(std::move(vals));
      v.elems = stored.data();
      v.num_elems = stored.size();
    } else if (tag == "tuple") {
      v.kind = TESSERA_VALUE_TUPLE;
      // A namedtuple: ("tuple", [Const, ...], "Name(field,...)").
      if (t.size() == 3 && !t[2].is_none()) v.s = str(t[2], "a namedtuple's type");
      nb::handle elems = payload();
      if (!PyList_Check(elems.ptr()) && !PyTuple_Check(elems.ptr())) bad("constant", h);
      std::vector<tessera_value> vals;
      for (nb::handle e : elems) vals.push_back(value(e, depth + 1));
      const auto &stored = tuples_.emplace_back(std::move(vals));
      v.elems = stored.data();
      v.num_elems = stored.size();
    } else {
      bad("constant", h);
    }
    return v;
  }

  // ("ptr", dtype, div16) ("scalar", dtype, div16, eq1) ("constexpr", Const)
  // ("tensordesc", dtype, div16, Const (block shape, padding))
  // ("tuple", [spec, ...], None or "Name(field,...)")
  tessera_arg_spec spec(nb::handle h, int depth = 0) {
    tessera_arg_spec s{};
    nb::tuple t = tuple(h, 2, 4, "an argument spec");
    std::string kind = nb::cast<std::string>(t[0]);
    if (kind == "tuple" && t.size() == 3) {
      if (depth >= 64) raise(PyExc_ValueError, "a tuple argument is nested more than 64 deep");
      if (!PyList_Check(t[1].ptr()) && !PyTuple_Check(t[1].ptr())) bad("argument spec", h);
      s.kind = TESSERA_ARG_TUPLE;
      s.dtype = t[2].is_none() ? nullptr : str(t[2], "a namedtuple's type");
      std::vector<tessera_arg_spec> elems;
      for (nb::handle e : t[1]) elems.push_back(spec(e, depth + 1));
      const auto &stored = specs_.emplace_back(std::move(elems));
      s.elems = stored.data();
      s.num_elems = stored.size();
      return s;
    }
    if (kind == "ptr" && t.size() == 3) {
      s.kind = TESSERA_ARG_POINTER;
      s.dtype = str(t[1], "an argument spec's dtype");
      s.divisibility = truth(t[2]) ? 16 : 1;
    } else if (kind == "scalar" && t.size() == 4) {
      s.kind = TESSERA_ARG_SCALAR;
      s.dtype = str(t[1], "an argument spec's dtype");
      s.divisibility = truth(t[2]) ? 16 : 1;
      s.equal_to_1 = truth(t[3]);
    } else if (kind == "constexpr" && t.size() == 2) {
      s.kind = TESSERA_ARG_CONSTEXPR;
      s.value = value(t[1]);
    } else if (kind == "tensordesc" && t.size() == 4) {
      s.kind = TESSERA_ARG_TENSOR_DESC;
      s.dtype = str(t[1], "an argument spec's dtype");
      s.divisibility = truth(t[2]) ? 16 : 1;
      s.value = value(t[3]);
    } else {
      bad("argument spec", h);
    }
    return s;
  }

  // (name, "const", Const) (name, "module", "a.b") (name, "jit", (unit, fn))
  // (name, "opaque", "description")
  tessera_global global(nb::handle h) {
    tessera_global g{};
    nb::tuple t = tuple(h, 3, 3, "a global");
    g.name = str(t[0], "a global's name");
    std::string kind = nb::cast<std::string>(t[1]);
    if (kind == "const") {
      g.kind = TESSERA_GLOBAL_CONSTANT;
      g.value = value(t[2]);
    } else if (kind == "module") {
      g.kind = TESSERA_GLOBAL_MODULE_ALIAS;
      g.module = str(t[2], "a global's module");
    } else if (kind == "jit") {
      g.kind = TESSERA_GLOBAL_JIT_FUNCTION;
      nb::tuple ref = tuple(t[2], 2, 2, "a jit global's (unit, function)");
      g.unit = nb::cast<int32_t>(ref[0]);
      g.function = str(ref[1], "a jit global's function");
    } else if (kind == "opaque") {
      g.kind = TESSERA_GLOBAL_OPAQUE;
      g.description = str(t[2], "an opaque global's description");
    } else {
      bad("global", h);
    }
    return g;
  }

  // (source, file_name, first_line, col_offset, [GlobalEntry, ...])
  tessera_source_unit unit(nb::handle h) {
    tessera_source_unit u{};
    nb::tuple t = tuple(h, 5, 5, "a source unit");
    u.source = str(t[0], "a unit's source");
    u.file_name = str(t[1], "a unit's file name");
    u.first_line = nb::cast<uint32_t>(t[2]);
    u.col_offset = nb::cast<uint32_t>(t[3]);
    std::vector<tessera_global> gs;
    for (nb::handle g : t[4]) gs.push_back(global(g));
    const auto &stored = globals_.emplace_back(std::move(gs));
    u.globals = stored.data();
    u.num_globals = stored.size();
    return u;
  }

 private:
  static nb::tuple tuple(nb::handle h, size_t min, size_t max, const char *what) {
    if (!PyTuple_Check(h.ptr()) || static_cast<size_t>(PyTuple_GET_SIZE(h.ptr())) < min ||
        static_cast<size_t>(PyTuple_GET_SIZE(h.ptr())) > max)
      raise(PyExc_ValueError,
            std::string("compile: expected ") + what + " tuple, got " + nb::repr(h).c_str());
    return nb::borrow<nb::tuple>(h);
  }
  static bool truth(nb::handle h) {
    int t = PyObject_IsTrue(h.ptr());
    if (t < 0) throw nb::python_error();
    return t != 0;
  }
  [[noreturn]] static void bad(const char *what, nb::handle h) {
    raise(PyExc_ValueError, std::string("compile: malformed ") + what + ": " + nb::repr(h).c_str());
  }

  std::deque<std::string> strings_;
  std::deque<std::vector<tessera_value>> tuples_;
  std::deque<std::vector<tessera_arg_spec>> specs_;  // the elements of tuple arguments
  std::deque<std::vector<tessera_global>> globals_;
};

nb::object wrapKernel(tessera_kernel *k) {
  return nb::cast(new Kernel(k), nb::rv_policy::take_ownership);
}

nb::object compile(nb::handle units, nb::handle kernel_name, nb::handle specs, bool debug,
                   bool optimize, nb::handle passes, const std::string &target, int num_warps,
                   int num_stages, bool fp_fusion, bool reflect_ftz, int max_registers) {
  CompileInputs in;
  std::vector<tessera_source_unit> us;
  for (nb::handle u : units) us.push_back(in.unit(u));
  if (us.empty()) raise(PyExc_ValueError, "compile: no source units");
  std::vector<tessera_arg_spec> ss;
  for (nb::handle s : specs) ss.push_back(in.spec(s));
  const char *name = in.str(kernel_name, "compile: kernel_name");
  tessera_compile_options opts;
  tessera_compile_options_init(&opts);
  opts.debug = debug;
  opts.optimize = optimize;
  const char *p = in.str(passes, "compile: passes");
  opts.passes = *p ? p : nullptr;
  opts.target = target.empty() ? nullptr : target.c_str();
  opts.num_warps = num_warps;
  opts.num_stages = num_stages;
  opts.no_fp_fusion = !fp_fusion;
  opts.no_reflect_ftz = !reflect_ftz;
  opts.max_registers = max_registers;
  tessera_kernel *k;
  {
    nb::gil_scoped_release release;
    k = tessera_compile_units(us.data(), us.size(), name, ss.data(), ss.size(), &opts);
  }
  if (!k) raiseLastError(tessera_last_status());
  return wrapKernel(k);
}

// ------------------------------------------------------------------ Kernel

nb::list stages(const Kernel &k) {
  nb::list out;
  size_t n = tessera_kernel_num_stages(k.get());
  for (size_t i = 0; i < n; ++i) out.append(nb::str(tessera_kernel_stage_name(k.get(), i)));
  return out;
}

nb::list params(const Kernel &k) {
  nb::list out;
  size_t n = k.numParams();
  for (size_t i = 0; i < n; ++i)
    out.append(nb::make_tuple(nb::str(tessera_kernel_param_name(k.get(), i)),
                              nb::str(tessera_kernel_param_type(k.get(), i))));
  return out;
}

// (text, file, line) of each warning of the compile.
nb::list warnings(const Kernel &k) {
  nb::list out;
  size_t n = tessera_kernel_num_warnings(k.get());
  for (size_t i = 0; i < n; ++i) {
    const char *file = nullptr;
    int32_t line = 0;
    const char *text = tessera_kernel_warning(k.get(), i, &file, &line);
    if (!text) raiseLastError(tessera_last_status());
    out.append(nb::make_tuple(nb::str(text), nb::str(file ? file : ""), line));
  }
  return out;
}

nb::str ir(const Kernel &k, const std::string &stage) {
  const char *text = tessera_kernel_ir(k.get(), stage.c_str());
  if (!text) raiseLastError(tessera_last_status());
  return nb::str(text);
}

nb::bytes serialize(const Kernel &k) {
  char *data = nullptr;
  size_t size = 0;
  tessera_status st = tessera_kernel_serialize(k.get(), &data, &size);
  if (st != TESSERA_OK) raiseLastError(st);
  std::unique_ptr<char, void (*)(void *)> owner(data, tessera_free);
  return nb::bytes(data, size);
}

nb::object deserialize(nb::handle data) {
  Py_buffer view;
  if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_SIMPLE) != 0) throw nb::python_error();
  tessera_kernel *k = tessera_kernel_deserialize(view.buf, static_cast<size_t>(view.len));
  PyBuffer_Release(&view);
  if (!k) raiseLastError(tessera_last_status());
  return wrapKernel(k);
}

void run(const Kernel &k, nb::handle args, nb::handle grid, int num_threads) {
  nb::object seq = nb::steal(PySequence_Fast(args.ptr(), "Kernel.run: args must be a sequence"));
  if (!seq.is_valid()) throw nb::python_error();
  const size_t n = static_cast<size_t>(PySequence_Fast_GET_SIZE(seq.ptr()));
  PyObject **items = PySequence_Fast_ITEMS(seq.ptr());
  const std::string kname = tessera_kernel_name(k.get());
  const size_t nparams = k.numParams();
  // A descriptor makes several run arguments (and kernel parameters).
  Scratch<tessera_run_arg, 16> runArgs(n * 2 * kMaxDescriptorRank);
  size_t used = 0;
  int device = -1;
  BufferPins pins;  // released after the run
  LaunchEnv env;
  env.pins = &pins;
  for (size_t i = 0; i < n; ++i) {
    std::string pname =
        used < nparams ? tessera_kernel_param_name(k.get(), used) : "#" + std::to_string(used);
    ArgInfo a;
    classifyArg(items[i], a, pname, kname, &env);
    if (a.kind == ArgKind::kNone)
      raise(PyExc_TypeError,
            "argument '" + pname + "' of kernel '" + kname + "': None is not a runtime argument");
    used += writeRunArgs(a, &runArgs[used]);
    if (a.kind == ArgKind::kPointer || a.kind == ArgKind::kDescriptor)
      device = std::max(device, a.device);
  }
  std::array<int64_t, 3> g = parseGrid(grid.ptr());
  if (device >= 0)
    launchCuda(k.get(), runArgs.data(), used, g, device);
  else
    runKernel(k.get(), runArgs.data(), used, g, num_threads);
}

}  // namespace

void bindKernel(nb::module_ &m) {
  nb::class_<Kernel>(m, "Kernel", "A compiled kernel (immutable; shareable between threads).")
      .def_prop_ro("name", [](const Kernel &k) { return nb::str(tessera_kernel_name(k.get())); })
      .def_prop_ro("stages", &stages)
      .def_prop_ro("params", &params)
      .def_prop_ro("warnings", &warnings)
      .def("ir", &ir, nb::arg("stage"))
      .def("serialize", &serialize)
      .def_static("deserialize", &deserialize, nb::arg("data"))
      .def("run", &run, nb::arg("args"), nb::arg("grid"), nb::arg("num_threads") = 0)
      .def(
          "cuda_info",
          [](const Kernel &k, int device) {
            tessera_cuda_info info{};
            tessera_status st = tessera_kernel_cuda_info(k.get(), device, &info);
            if (st != TESSERA_OK) raiseLastError(st);
            return nb::make_tuple(info.num_regs, info.local_bytes, info.shared_bytes,
                                  info.block_threads);
          },
          nb::arg("device"),
          "(registers, local bytes, dynamic shared bytes, block threads) of the kernel as "
          "loaded on device")
      .def("__repr__", [](const Kernel &k) {
        return std::string("<tessera._C.Kernel '") + tessera_kernel_name(k.get()) + "'>";
      });
}

}  // namespace tessera_py

NB_MODULE(_C, m) {
  namespace nb = nanobind;
  using namespace tessera_py;
  m.doc() = "Tessera's compiler core: compile, (de)serialise and launch kernels (see _C.pyi).";
  // Dispatchers, kernels and payloads often form reference cycles with the
  // package's objects (a payload that refers to its @jit function); when such
  // a cycle is still alive as the interpreter exits, nanobind would report
  // "leaked instances" although nothing leaks while the program runs.
  nb::set_leak_warnings(false);
  m.attr("CAPI_VERSION") = tessera_capi_version();
  m.attr("VERSION") = nb::str(tessera_version());
  m.attr("RUNTIME") = 0;
  m.attr("NOSPEC") = 1;
  m.attr("NOALIGN") = 2;
  m.attr("CONSTEXPR") = 3;

  m.def(
      "interp_ns_total", [] { return runTimer().ns.load(); },
      "Nanoseconds spent running kernels (tessera_kernel_run) since the last reset.");
  m.def("interp_runs", [] { return runTimer().runs.load(); });
  m.def("interp_reset", [] {
    runTimer().ns = 0;
    runTimer().runs = 0;
  });
  m.def("set_error_types", &setErrorTypes, nb::arg("compilation_error"), nb::arg("kernel_error"));
  m.def("set_resolver", &setResolver, nb::arg("resolver").none());
  m.def("set_descriptor_type", &setDescriptorType, nb::arg("cls"));
  m.def("compile", &compile, nb::arg("units"), nb::arg("kernel_name"), nb::arg("specs"),
        nb::kw_only(), nb::arg("debug") = false, nb::arg("optimize") = true, nb::arg("passes") = "",
        nb::arg("target") = "", nb::arg("num_warps") = 4, nb::arg("num_stages") = 3,
        nb::arg("fp_fusion") = true, nb::arg("reflect_ftz") = true, nb::arg("maxnreg") = 0);
  m.def("set_stream_getter", &setStreamGetter, nb::arg("getter").none(),
        "Registers getter(device) -> CUstream (int) used by GPU launches.");
  m.def("cuda_available", [] {
    const char *why = nullptr;
    int ok = tessera_cuda_available(&why);
    return nb::make_tuple(nb::bool_(ok != 0), nb::str(why ? why : ""));
  });
  m.def(
      "cuda_capability",
      [](int device) {
        int cc = tessera_cuda_capability(device);
        if (cc < 0) raiseLastError(tessera_last_status());
        return cc;
      },
      nb::arg("device"));
  m.def("cuda_device_count", [] {
    int n = tessera_cuda_device_count();
    if (n < 0) raiseLastError(tessera_last_status());
    return n;
  });
  m.def(
      "cuda_device_properties",
      [](int device) {
        tessera_cuda_device_props p;
        tessera_status st = tessera_cuda_device_properties(device, &p);
        if (st != TESSERA_OK) raiseLastError(st);
        nb::dict d;
        d["name"] = nb::str(p.name);
        d["major"] = p.major;
        d["minor"] = p.minor;
        d["multiprocessor_count"] = p.multiprocessor_count;
        d["max_threads_per_block"] = p.max_threads_per_block;
        d["warpSize"] = p.warp_size;
        d["max_num_regs"] = p.max_regs_per_block;
        d["max_shared_mem_default"] = p.max_shared_per_block;
        d["max_shared_mem"] = p.max_shared_optin;
        d["l2_bytes"] = p.l2_bytes;
        d["total_memory"] = p.total_memory;
        d["sm_clock_rate"] = p.sm_clock_khz;
        d["mem_clock_rate"] = p.mem_clock_khz;
        d["mem_bus_width"] = p.mem_bus_width_bits;
        return d;
      },
      nb::arg("device"),
      "The driver's facts about a device, under Triton's key names (clocks in kHz, bus width in "
      "bits).");
  m.def("builtin_names", [] {
    nb::list out;
    size_t n = tessera_builtin_count();
    for (size_t i = 0; i < n; ++i) out.append(nb::str(tessera_builtin_name(i)));
    return out;
  });
  bindKernel(m);
  bindDispatcher(m);
  bindLauncher(m);
}
