// Launch arguments: classification of Python values (ints, floats, bools,
// buffers, resolver objects), the grid, and running a kernel.
#include <bit>
#include <cctype>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "tessera_ext.h"

namespace tessera_py {

namespace {

constexpr const char *kDTypeNames[kNumBuiltinDTypes] = {
#define DTYPE(Enum, ir, triton, signature, bits, cls) signature,
#include "ir/dtypes.def"
#undef DTYPE
};

// Names a resolver returned that are not in kDTypeNames (stable addresses).
std::deque<std::string> &extraDTypes() {
  static auto *names = new std::deque<std::string>();
  return *names;
}

std::string argPrefix(std::string_view param, std::string_view kernel) {
  std::string s = "argument '";
  s += param;
  s += "' of kernel '";
  s += kernel;
  s += "': ";
  return s;
}

[[noreturn]] void raiseUnsupported(PyObject *v, std::string_view param, std::string_view kernel) {
  std::string hint;
  if (PyUnicode_Check(v))
    hint = " (a string is a compile-time value: annotate the parameter `" + std::string(param) +
           ": tl.constexpr` if that is what you meant)";
  else if (PyList_Check(v))
    hint = " (pass a tuple to give the kernel a tuple)";
  raise(PyExc_TypeError, argPrefix(param, kernel) +
                             "expected a tensor, an array, an int, a float or a bool, got " +
                             Py_TYPE(v)->tp_name + hint);
}

// Builtin types that are never kernel arguments (and not worth asking the
// resolver about). bytes is immutable, so no kernel may write to it.
bool isNeverAnArgument(PyObject *v) {
  return PyUnicode_Check(v) || PyBytes_Check(v) || PyComplex_Check(v) || PyList_Check(v) ||
         PyTuple_Check(v) || PyDict_Check(v) || PyAnySet_Check(v) || PyType_Check(v);
}

void classifyInt(PyObject *v, ArgInfo &out, std::string_view param, std::string_view kernel) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (x == -1 && PyErr_Occurred()) throw nb::python_error();
  out.kind = ArgKind::kInt;
  if (overflow == 0) {
    out.i = x;
    out.dtype = (x >= INT32_MIN && x <= INT32_MAX) ? kI32 : kI64;
    out.eq1 = x == 1;
    // Positive multiples only: a kernel specialised on a row stride divisible
    // by 16 may read rows through the tensor memory accelerator
    // (descriptors-from-pointers), which takes no zero (broadcast rows) or
    // negative stride; those get a specialisation of their own.
    out.div16 = x > 0 && x % 16 == 0;
    return;
  }
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(v);
    if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
      out.i = static_cast<int64_t>(u);
      out.dtype = kU64;
      out.eq1 = false;
      out.div16 = u % 16 == 0;
      return;
    }
    PyErr_Clear();
  }
  raise(PyExc_OverflowError, argPrefix(param, kernel) + "the integer " +
                                 nb::repr(nb::handle(v)).c_str() +
                                 " does not fit in a kernel argument (i32, i64 or u64)");
}

// The signature dtype of a buffer's format, false when not a plain number.
bool bufferDType(const Py_buffer &view, uint32_t &code) {
  const char *f = view.format ? view.format : "B";
  if (*f == '@' || *f == '=') {
    ++f;
  } else if (*f == '<' || *f == '>' || *f == '!') {
    bool little = *f == '<';
    if (little != (std::endian::native == std::endian::little)) return false;
    ++f;
  }
  if (f[0] == '\0' || f[1] != '\0') return false;
  const Py_ssize_t size = view.itemsize;
  auto bySize = [&](uint32_t c1, uint32_t c2, uint32_t c4, uint32_t c8) {
    switch (size) {
      case 1:
        code = c1;
        return true;
      case 2:
        code = c2;
        return true;
      case 4:
        code = c4;
        return true;
      case 8:
        code = c8;
        return true;
      default:
        return false;
    }
  };
  switch (f[0]) {
    case '?':
      code = kI1;
      return size == 1;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
      return bySize(kI8, kI16, kI32, kI64);
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
      return bySize(kU8, kU16, kU32, kU64);
    case 'e':
      code = kF16;
      return size == 2;
    case 'f':
      code = kF32;
      return size == 4;
    case 'd':
      code = kF64;
      return size == 8;
    default:
      return false;
  }
}

// Bytes the kernel may touch from the first element to the end of the last
// one. Elements before the first (negative strides) are not reachable.
size_t bufferExtent(const Py_buffer &view) {
  if (view.len == 0) return 0;
  if (view.ndim == 0 || view.strides == nullptr) return static_cast<size_t>(view.len);
  size_t ext = static_cast<size_t>(view.itemsize);
  for (int d = 0; d < view.ndim; ++d) {
    if (view.shape[d] == 0) return 0;
    if (view.strides[d] > 0)
      ext += static_cast<size_t>(view.shape[d] - 1) * static_cast<size_t>(view.strides[d]);
  }
  return ext;
}

// numpy.generic once NumPy has been imported (never imports it).
PyObject *numpyGeneric() {
  static PyObject *generic = nullptr;
  if (generic) return generic;
  PyObject *np = PyImport_GetModule(nb::str("numpy").ptr());
  if (!np) {
    PyErr_Clear();
    return nullptr;
  }
  generic = PyObject_GetAttrString(np, "generic");
  Py_DECREF(np);
  if (!generic || !PyType_Check(generic)) {
    PyErr_Clear();
    Py_CLEAR(generic);
  }
  return generic;
}

// A NumPy scalar of dtype `code`, as the Python bool/int/float it stands for.
void classifyNumpyScalar(PyObject *v, uint32_t code, ArgInfo &out, std::string_view param,
                         std::string_view kernel) {
  if (code == kI1) {
    int truth = PyObject_IsTrue(v);
    if (truth < 0) throw nb::python_error();
    out.kind = ArgKind::kBool;
    out.dtype = kI1;
    out.i = truth;
  } else if (code == kF16 || code == kF32 || code == kF64) {
    double d = PyFloat_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred()) throw nb::python_error();
    out.kind = ArgKind::kFloat;
    out.dtype = kF32;
    out.f = d;
  } else {
    nb::object index = nb::steal(PyNumber_Index(v));
    if (!index.is_valid()) throw nb::python_error();
    classifyInt(index.ptr(), out, param, kernel);
  }
}

// torch.dtype objects (singletons) of tensors seen through the resolver,
// with their dtype codes: the fast path below reads them without Python. A
// handful in practice, so a flat list.
std::vector<std::pair<PyObject *, uint32_t>> &torchDTypes() {
  static std::vector<std::pair<PyObject *, uint32_t>> m;
  return m;
}

// The dtype code of torch.dtype `dt`, if the fast path has seen it.
std::optional<uint32_t> knownTorchDType(PyObject *dt) {
  for (const auto &[obj, code] : torchDTypes())
    if (obj == dt) return code;
  return std::nullopt;
}

bool isTorchTensorType(PyTypeObject *t) {
  return std::strcmp(t->tp_name, "Tensor") == 0 || std::strcmp(t->tp_name, "Parameter") == 0;
}

bool cpuBackendForced() {
  const char *b = std::getenv("TESSERA_BACKEND");
  if (!b) return false;
  std::string s(b);
  for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s.find("cpu") != std::string::npos || s.find("interpreter") != std::string::npos;
}

// A torch tensor type's `dtype` and `is_cpu` (getsets), `get_device`,
// `data_ptr` and `untyped_storage` (methods): torch's own C descriptors,
// looked up once per type and called directly, which saves an attribute
// lookup per read on every launch. A type whose descriptors are not torch's
// C ones (a subclass that overrides them in Python) gets none and takes the
// general path.
struct TorchReaders {
  PyTypeObject *type = nullptr;  // a strong reference: the address is never reused
  PyObject *dtype = nullptr;
  PyObject *isCpu = nullptr;
  PyObject *getDevice = nullptr;
  PyObject *dataPtr = nullptr;
  PyObject *untypedStorage = nullptr;
};

const TorchReaders *torchReaders(PyTypeObject *t) {
  static TorchReaders known[8];
  TorchReaders *slot = nullptr;  // the first free one
  for (TorchReaders &r : known) {
    if (r.type == t) return r.dtype ? &r : nullptr;
    if (!r.type) {
      slot = &r;
      break;
    }
  }
  // A type with its own attribute lookup (__getattribute__, __getattr__) may
  // answer differently from torch's descriptors. More tensor types than
  // slots (never in practice) take the general path.
  if (!slot || !isTorchTensorType(t) || t->tp_getattro != PyObject_GenericGetAttr) return nullptr;
  auto descriptor = [t](const char *name, PyTypeObject *kind) -> PyObject * {
    PyObject *d = PyObject_GetAttrString(reinterpret_cast<PyObject *>(t), name);
    if (!d) {
      PyErr_Clear();
      return nullptr;
    }
    if (Py_TYPE(d) == kind) return d;  // kept: torch's descriptors live for the process
    Py_DECREF(d);
    return nullptr;
  };
  TorchReaders r;
  r.dtype = descriptor("dtype", &PyGetSetDescr_Type);
  r.isCpu = descriptor("is_cpu", &PyGetSetDescr_Type);
  r.getDevice = descriptor("get_device", &PyMethodDescr_Type);
  r.dataPtr = descriptor("data_ptr", &PyMethodDescr_Type);
  r.untypedStorage = descriptor("untyped_storage", &PyMethodDescr_Type);
  if (!r.dtype || !r.isCpu || !r.getDevice || !r.dataPtr || !r.untypedStorage) {
    Py_XDECREF(r.dtype);
    Py_XDECREF(r.isCpu);
    Py_XDECREF(r.getDevice);
    Py_XDECREF(r.dataPtr);
    Py_XDECREF(r.untypedStorage);
    r = TorchReaders{};
  }
  r.type = reinterpret_cast<PyTypeObject *>(Py_NewRef(reinterpret_cast<PyObject *>(t)));
  *slot = r;
  return slot->dtype ? slot : nullptr;
}

// A method result read as an unsigned 64-bit integer; false (the error
// cleared) if the call failed or did not return one.
bool callU64(PyObject *method, PyObject *self, unsigned long long &out) {
  PyObject *const args[1] = {self};
  nb::object v = nb::steal(PyObject_Vectorcall(method, args, 1, nullptr));
  if (!v.is_valid()) {
    PyErr_Clear();
    return false;
  }
  out = PyLong_AsUnsignedLongLong(v.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

// Bytes from `address` to the end of a CPU tensor's storage: what the
// interpreter lets the kernel touch (a view may be read past its own end,
// as on a GPU, but not past its storage's). False: take the general path.
bool cpuTensorExtent(const TorchReaders &r, PyObject *v, unsigned long long address,
                     size_t &bytes) {
  if (address == 0) {  // an empty tensor (data_ptr() is 0 even for a view): nothing to touch
    bytes = 0;
    return true;
  }
  PyObject *const self[1] = {v};
  nb::object storage = nb::steal(PyObject_Vectorcall(r.untypedStorage, self, 1, nullptr));
  if (!storage.is_valid()) {
    PyErr_Clear();
    return false;
  }
  static PyObject *nbytesName = PyUnicode_InternFromString("nbytes");
  static PyObject *dataPtrName = PyUnicode_InternFromString("data_ptr");
  unsigned long long base = 0, size = 0;
  PyObject *const st[1] = {storage.ptr()};
  for (auto [name, out] : {std::pair{nbytesName, &size}, std::pair{dataPtrName, &base}}) {
    nb::object x =
        nb::steal(PyObject_VectorcallMethod(name, st, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr));
    if (!x.is_valid()) {
      PyErr_Clear();
      return false;
    }
    *out = PyLong_AsUnsignedLongLong(x.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
  }
  bytes = base + size > address ? static_cast<size_t>(base + size - address) : 0;
  return true;
}

// The launch fast path for a PyTorch tensor on a CUDA device or the CPU:
// dtype, device, data_ptr() (and for the CPU the storage's extent) read
// through torch's C descriptors, no resolver call. False (nothing consumed)
// for anything else, which then takes the general path. Not DLPack: a
// tensor's __dlpack__() builds a capsule with shape and strides on every
// call (about 4.5 us here, against 0.5 us for these reads), and describes
// the view, where the interpreter's bounds are the storage's.
bool classifyTorch(PyObject *v, ArgInfo &out, LaunchEnv &env) {
  const TorchReaders *r = torchReaders(Py_TYPE(v));
  if (!r) return false;
  PyTypeObject *type = Py_TYPE(v);
  nb::object dt =
      nb::steal(Py_TYPE(r->dtype)->tp_descr_get(r->dtype, v, reinterpret_cast<PyObject *>(type)));
  if (!dt.is_valid()) {
    PyErr_Clear();
    return false;
  }
  const std::optional<uint32_t> code = knownTorchDType(dt.ptr());
  if (!code) return false;
  nb::object cpu =
      nb::steal(Py_TYPE(r->isCpu)->tp_descr_get(r->isCpu, v, reinterpret_cast<PyObject *>(type)));
  if (!cpu.is_valid()) {
    PyErr_Clear();
    return false;
  }
  unsigned long long address = 0;
  if (cpu.ptr() == Py_True) {
    size_t bytes = 0;
    if (!callU64(r->dataPtr, v, address) || !cpuTensorExtent(*r, v, address, bytes)) return false;
    out.kind = ArgKind::kPointer;
    out.dtype = *code;
    out.data = reinterpret_cast<const void *>(static_cast<uintptr_t>(address));
    out.bytes = bytes;
    out.device = -1;
    out.div16 = address % 16 == 0;
    return true;
  }
  // Not on the CPU: a CUDA device's index, -1 for anything else (meta,
  // other accelerators), which the general path explains.
  unsigned long long device = 0;
  {
    PyObject *const self[1] = {v};
    nb::object dev = nb::steal(PyObject_Vectorcall(r->getDevice, self, 1, nullptr));
    if (!dev.is_valid()) {
      PyErr_Clear();
      return false;
    }
    long d = PyLong_AsLong(dev.ptr());
    if (d < 0) {
      PyErr_Clear();
      return false;
    }
    device = static_cast<unsigned long long>(d);
  }
  if (env.cpuForced < 0) env.cpuForced = cpuBackendForced();
  if (env.cpuForced) return false;
  if (!callU64(r->dataPtr, v, address)) return false;
  out.kind = ArgKind::kPointer;
  out.dtype = *code;
  out.data = reinterpret_cast<const void *>(static_cast<uintptr_t>(address));
  out.bytes = 0;
  out.device = static_cast<int>(device);
  out.div16 = address % 16 == 0;
  return true;
}

void classifyResolved(PyObject *v, ArgInfo &out, std::string_view param, std::string_view kernel) {
  PyObject *res = resolver();
  if (!res) raiseUnsupported(v, param, kernel);
  nb::object r = nb::steal(PyObject_CallOneArg(res, v));
  if (!r.is_valid()) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw nb::python_error();
    nb::python_error e;
    raise(PyExc_TypeError, argPrefix(param, kernel) + nb::str(e.value()).c_str());
  }
  auto bad = [&] {
    raise(PyExc_TypeError, argPrefix(param, kernel) + "the resolver returned " +
                               nb::repr(r).c_str() + ", expected (dtype, data_ptr, nbytes)");
  };
  // (dtype, address, nbytes[, cuda device (-1: host)[, read-only]])
  if (!PyTuple_Check(r.ptr()) || PyTuple_GET_SIZE(r.ptr()) < 3 || PyTuple_GET_SIZE(r.ptr()) > 5)
    bad();
  if (PyTuple_GET_SIZE(r.ptr()) == 5) {
    int ro = PyObject_IsTrue(PyTuple_GET_ITEM(r.ptr(), 4));
    if (ro < 0) throw nb::python_error();
    out.readOnly = ro != 0;
  }
  if (PyTuple_GET_SIZE(r.ptr()) >= 4) {
    long dev = PyLong_AsLong(PyTuple_GET_ITEM(r.ptr(), 3));
    if (dev == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      bad();
    }
    out.device = static_cast<int>(dev);
  }
  PyObject *dt = PyTuple_GET_ITEM(r.ptr(), 0);
  PyObject *ptr = PyTuple_GET_ITEM(r.ptr(), 1);
  PyObject *nbytes = PyTuple_GET_ITEM(r.ptr(), 2);
  if (!PyUnicode_Check(dt) || !PyLong_Check(ptr) || !PyLong_Check(nbytes)) bad();
  Py_ssize_t len = 0;
  const char *name = PyUnicode_AsUTF8AndSize(dt, &len);
  if (!name) throw nb::python_error();
  unsigned long long address = PyLong_AsUnsignedLongLong(ptr);
  if (address == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    bad();
  }
  size_t size = PyLong_AsSize_t(nbytes);
  if (size == static_cast<size_t>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    bad();
  }
  int device = out.device;
  out.kind = ArgKind::kPointer;
  out.device = device;
  out.dtype = dtypeCode(std::string_view(name, static_cast<size_t>(len)));
  if (isTorchTensorType(Py_TYPE(v))) {
    // Remember this torch.dtype for the fast path (dtype objects live forever).
    if (PyObject *dt = PyObject_GetAttrString(v, "dtype")) {
      if (knownTorchDType(dt))
        Py_DECREF(dt);
      else
        torchDTypes().emplace_back(dt, out.dtype);  // keeps the reference
    } else {
      PyErr_Clear();
    }
  }
  out.data = reinterpret_cast<const void *>(static_cast<uintptr_t>(address));
  out.bytes = size;
  out.div16 = address % 16 == 0;
}

PyTypeObject *gDescriptorType = nullptr;  // a strong reference once set

// The ints of a sequence attribute of a TensorDescriptor, at most
// kMaxDescriptorRank of them.
int descriptorInts(PyObject *desc, const char *attr, int64_t *out, const std::string &prefix) {
  nb::object v = nb::steal(PyObject_GetAttrString(desc, attr));
  if (!v.is_valid()) throw nb::python_error();
  nb::object seq = nb::steal(PySequence_Fast(v.ptr(), "not a sequence"));
  if (!seq.is_valid()) {
    PyErr_Clear();
    raise(PyExc_TypeError, prefix + "the TensorDescriptor's " + attr +
                               " must be a sequence of ints, got " + Py_TYPE(v.ptr())->tp_name);
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  if (n < 1 || n > kMaxDescriptorRank)
    raise(PyExc_ValueError, prefix + "a TensorDescriptor has 1 to 5 dimensions, its " + attr +
                                " has " + std::to_string(n));
  PyObject **items = PySequence_Fast_ITEMS(seq.ptr());
  for (Py_ssize_t i = 0; i < n; ++i) {
    nb::object index = nb::steal(PyNumber_Index(items[i]));
    if (!index.is_valid()) {
      PyErr_Clear();
      raise(PyExc_TypeError, prefix + "the TensorDescriptor's " + attr + " must hold ints, got " +
                                 Py_TYPE(items[i])->tp_name);
    }
    long long x = PyLong_AsLongLong(index.ptr());
    if (x == -1 && PyErr_Occurred()) throw nb::python_error();
    out[i] = x;
  }
  return static_cast<int>(n);
}

// A host TensorDescriptor: its base classified as a pointer, then its shape,
// strides, block shape and padding, checked as the kernel relies on them.
void classifyDescriptor(PyObject *v, ArgInfo &out, std::string_view param, std::string_view kernel,
                        LaunchEnv *env) {
  std::string prefix = argPrefix(param, kernel);
  nb::object base = nb::steal(PyObject_GetAttrString(v, "base"));
  if (!base.is_valid()) throw nb::python_error();
  if (PyObject_TypeCheck(base.ptr(), gDescriptorType))
    raise(PyExc_TypeError, prefix + "a TensorDescriptor's base cannot be another descriptor");
  classifyArg(base.ptr(), out, param, kernel, env);
  if (out.kind != ArgKind::kPointer)
    raise(PyExc_TypeError, prefix +
                               "the TensorDescriptor's base must be a tensor or an array, "
                               "got " +
                               Py_TYPE(base.ptr())->tp_name);
  int rank = descriptorInts(v, "shape", out.shape, prefix);
  if (descriptorInts(v, "strides", out.strides, prefix) != rank ||
      descriptorInts(v, "block_shape", out.block, prefix) != rank)
    raise(PyExc_ValueError, prefix +
                                "the TensorDescriptor's shape, strides and block_shape "
                                "must have the same length");
  for (int d = 0; d < rank; ++d)
    if (out.shape[d] < 0 || out.shape[d] > INT32_MAX)
      raise(PyExc_ValueError, prefix + "the TensorDescriptor's shape must be in [0, 2**31), got " +
                                  std::to_string(out.shape[d]));
  if (out.strides[rank - 1] != 1)
    raise(PyExc_ValueError, prefix +
                                "the TensorDescriptor's last dimension must be contiguous "
                                "(stride 1), got stride " +
                                std::to_string(out.strides[rank - 1]));
  nb::object padding = nb::steal(PyObject_GetAttrString(v, "padding"));
  if (!padding.is_valid()) {
    PyErr_Clear();
    padding = nb::str("zero");
  }
  const char *pad = PyUnicode_Check(padding.ptr()) ? PyUnicode_AsUTF8(padding.ptr()) : nullptr;
  if (!pad || (std::strcmp(pad, "zero") != 0 && std::strcmp(pad, "nan") != 0))
    raise(PyExc_ValueError, prefix + "the TensorDescriptor's padding must be 'zero' or 'nan'");
  // The tensor memory accelerator takes rows 16 bytes to 2^40 bytes apart.
  // A descriptor whose rows are not (broadcast rows, stride 0; a negative
  // stride) is specialised as not 16-byte aligned, which keeps its loads on
  // masked pointer tiles (codegen/ptx/tma.h wants divisibility 16).
  for (int d = 0; d + 1 < rank; ++d)
    if (out.strides[d] <= 0 || out.strides[d] >= (int64_t{1} << 36)) out.div16 = false;
  out.kind = ArgKind::kDescriptor;
  out.rank = rank;
  out.shapeDiv16 = 0;
  for (int d = 0; d < rank; ++d)
    if (out.shape[d] % 16 == 0) out.shapeDiv16 |= static_cast<uint8_t>(1u << d);
  out.nanPadding = std::strcmp(pad, "nan") == 0;
}

}  // namespace

void setDescriptorType(nb::handle cls) {
  if (!PyType_Check(cls.ptr()))
    raise(PyExc_TypeError,
          std::string("set_descriptor_type: expected a class, got ") + nb::repr(cls).c_str());
  Py_XDECREF(reinterpret_cast<PyObject *>(gDescriptorType));
  gDescriptorType = reinterpret_cast<PyTypeObject *>(Py_NewRef(cls.ptr()));
}

uint32_t dtypeCode(std::string_view name) {
  for (uint32_t i = 0; i < kNumBuiltinDTypes; ++i)
    if (name == kDTypeNames[i]) return i;
  auto &extra = extraDTypes();
  for (size_t j = 0; j < extra.size(); ++j)
    if (extra[j] == name) return kNumBuiltinDTypes + static_cast<uint32_t>(j);
  extra.emplace_back(name);
  return kNumBuiltinDTypes + static_cast<uint32_t>(extra.size() - 1);
}

const char *dtypeName(uint32_t code) {
  if (code < kNumBuiltinDTypes) return kDTypeNames[code];
  return extraDTypes()[code - kNumBuiltinDTypes].c_str();
}

void classifyArg(PyObject *v, ArgInfo &out, std::string_view param, std::string_view kernel,
                 LaunchEnv *env) {
  out = ArgInfo{};
  if (v == Py_None) {
    out.kind = ArgKind::kNone;
    return;
  }
  if (v == Py_True || v == Py_False) {
    out.kind = ArgKind::kBool;
    out.dtype = kI1;
    out.i = v == Py_True;
    return;
  }
  if (PyLong_Check(v)) return classifyInt(v, out, param, kernel);
  if (PyFloat_Check(v)) {
    out.kind = ArgKind::kFloat;
    out.dtype = kF32;
    out.f = PyFloat_AS_DOUBLE(v);
    return;
  }
  LaunchEnv local;
  if (classifyTorch(v, out, env ? *env : local)) return;
  if (isNeverAnArgument(v)) raiseUnsupported(v, param, kernel);
  if (gDescriptorType && PyObject_TypeCheck(v, gDescriptorType))
    return classifyDescriptor(v, out, param, kernel, env);
  if (PyObject_CheckBuffer(v)) {
    Py_buffer view;
    if (PyObject_GetBuffer(v, &view, PyBUF_RECORDS_RO) == 0) {
      uint32_t code = 0;
      bool known = bufferDType(view, code);
      const void *data = view.buf;
      size_t bytes = bufferExtent(view);
      const bool scalarShaped = view.ndim == 0;
      const bool readOnly = view.readonly != 0;
      if (env && env->pins && known)
        env->pins->hold(view);
      else
        PyBuffer_Release(&view);
      if (known) {
        PyObject *generic = scalarShaped ? numpyGeneric() : nullptr;
        if (generic && PyObject_TypeCheck(v, reinterpret_cast<PyTypeObject *>(generic)))
          return classifyNumpyScalar(v, code, out, param, kernel);
        out.kind = ArgKind::kPointer;
        out.dtype = code;
        out.data = data;
        out.bytes = bytes;
        out.readOnly = readOnly;
        out.div16 = reinterpret_cast<uintptr_t>(data) % 16 == 0;
        return;
      }
    } else {
      PyErr_Clear();  // e.g. a NumPy array of an ml_dtypes type: the resolver's
    }
  }
  classifyResolved(v, out, param, kernel);
}

GridRead readGrid(PyObject *grid, std::array<int64_t, 3> &g) {
  Py_ssize_t n = -1;
  PyObject **items = nullptr;
  nb::object asTuple;  // a list's items, which __index__ code could change under us
  if (PyList_Check(grid)) {
    asTuple = nb::steal(PyList_AsTuple(grid));
    if (!asTuple.is_valid()) throw nb::python_error();
    grid = asTuple.ptr();
  }
  if (PyTuple_Check(grid)) {
    n = PyTuple_GET_SIZE(grid);
    items = n ? &PyTuple_GET_ITEM(grid, 0) : nullptr;
  }
  if (n < 1 || n > 3) return {GridRead::kShape, {}};
  g = {1, 1, 1};
  for (Py_ssize_t d = 0; d < n; ++d) {
    PyObject *item = items[d];
    if (item == Py_True || item == Py_False) return {GridRead::kNotInt, nb::borrow(item)};
    nb::object index;  // a NumPy integer (or any __index__ type) as a Python int
    if (!PyLong_Check(item)) {
      PyNumberMethods *nm = Py_TYPE(item)->tp_as_number;
      if (!nm || !nm->nb_index) return {GridRead::kNotInt, nb::borrow(item)};
      index = nb::steal(PyNumber_Index(item));
      if (!index.is_valid()) {  // the general path reports it
        PyErr_Clear();
        return {GridRead::kNotInt, nb::borrow(item)};
      }
    }
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(index.is_valid() ? index.ptr() : item, &overflow);
    if (overflow) return {GridRead::kOverflow, nb::borrow(item)};
    if (x == -1 && PyErr_Occurred()) throw nb::python_error();
    if (x < 0) return {GridRead::kNegative, nb::borrow(item)};
    g[static_cast<size_t>(d)] = x;
  }
  return {GridRead::kOk, {}};
}

std::array<int64_t, 3> parseGrid(PyObject *grid) {
  std::array<int64_t, 3> g;
  const GridRead r = readGrid(grid, g);
  if (r.problem == GridRead::kOk) return g;
  if (r.problem == GridRead::kOverflow)  // ValueError, as the interpreter's own limit
    raise(PyExc_ValueError, "grid dimensions must be in [0, 2^31), got " +
                                std::string(nb::repr(nb::handle(grid)).c_str()));
  const char *what = r.problem == GridRead::kShape    ? "the grid must be a tuple of 1 to 3 ints"
                     : r.problem == GridRead::kNotInt ? "grid entries must be ints"
                                                      : "grid entries must be >= 0";
  raise(PyExc_ValueError, std::string(what) + ", got " + nb::repr(nb::handle(grid)).c_str());
}

namespace {
PyObject *&streamGetter() {
  static PyObject *g = nullptr;
  return g;
}
}  // namespace

void setStreamGetter(nb::handle getter) {
  Py_XINCREF(getter.ptr());
  Py_XDECREF(streamGetter());
  streamGetter() = getter.is_none() ? nullptr : getter.ptr();
}

void launchCuda(const tessera_kernel *kernel, const tessera_run_arg *args, size_t n,
                const std::array<int64_t, 3> &grid, int device) {
  void *stream = nullptr;
  if (PyObject *g = streamGetter()) {
    nb::object s = nb::steal(PyObject_CallOneArg(g, nb::int_(device).ptr()));
    if (!s.is_valid()) throw nb::python_error();
    stream = reinterpret_cast<void *>(static_cast<uintptr_t>(PyLong_AsUnsignedLongLong(s.ptr())));
    if (PyErr_Occurred()) throw nb::python_error();
  }
  tessera_status status;
  {
    nb::gil_scoped_release release;
    status = tessera_kernel_launch_cuda(kernel, args, n, grid[0], grid[1], grid[2], stream, device);
  }
  if (status != TESSERA_OK) raiseLastError(status);
}

RunTimer &runTimer() {
  static RunTimer t;
  return t;
}

void runKernel(const tessera_kernel *kernel, const tessera_run_arg *args, size_t n,
               const std::array<int64_t, 3> &grid, int num_threads) {
  tessera_status status;
  SigintScope sigint;  // Ctrl-C stops the run
  {
    nb::gil_scoped_release release;
    auto t0 = std::chrono::steady_clock::now();
    status = tessera_kernel_run(kernel, args, n, grid[0], grid[1], grid[2], num_threads);
    auto ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    runTimer().ns.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
    runTimer().runs.fetch_add(1, std::memory_order_relaxed);
  }
  if (status != TESSERA_OK) {
    if (sigint.fired()) raiseInterrupted();
    raiseLastError(status);
  }
}

}  // namespace tessera_py
