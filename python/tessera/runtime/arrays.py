"""How kernel pointer arguments are read from the objects users pass.

The extension reads NumPy arrays (and anything else exporting a buffer with
a plain struct format) itself. Everything else comes here through the
resolver: PyTorch tensors, `__array_interface__` objects, NumPy arrays of
ml_dtypes types (bfloat16, float8), `reinterpret` wrappers and the
`MockTensor`s of `warmup`. The resolver answers (signature dtype, address of
the first element, bytes the kernel may touch from there[, CUDA device or -1
for host memory[, read-only]]); the interpreter checks every unmasked access
against that extent, and refuses a store or atomic into read-only memory.

No NumPy or PyTorch import happens here: types are recognised by their
module and attribute names, so importing tessera stays cheap.
"""

from __future__ import annotations

import os

# Triton's short dtype names -> signature names of the C ABI.
_TL_TO_SIG = {
    "int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "fp8e4nv": "fp8e4nv", "fp8e5": "fp8e5", "fp8e4b15": "fp8e4b15", "fp8e4b8": "fp8e4b8",
    "fp8e5b16": "fp8e5b16", "fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp64": "fp64",
}

# NumPy / ml_dtypes / PyTorch dtype names -> signature names.
_NAME_TO_SIG = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "fp16", "half": "fp16", "bfloat16": "bf16", "float32": "fp32", "float": "fp32",
    "float64": "fp64", "double": "fp64", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
    "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16",
}


def signature_dtype(dtype) -> str:
    """The signature name ("fp32") of a tl.dtype, NumPy dtype, torch dtype or name."""
    name = getattr(dtype, "name", None)
    if name is None:
        name = str(dtype)
    if name.startswith("torch."):
        name = name[6:]
    sig = _TL_TO_SIG.get(name) or _NAME_TO_SIG.get(name)
    if sig is None:
        raise TypeError(f"dtype {dtype} is not supported by Tessera kernels")
    return sig


def backend_override() -> str | None:
    """TESSERA_BACKEND=cpu|gpu chooses the back end regardless of the arguments."""
    b = os.environ.get("TESSERA_BACKEND", "").strip().lower()
    return b or None


def _gpu_unavailable(what: str) -> TypeError:
    return TypeError(f"{what} lives on a GPU, but TESSERA_BACKEND=cpu runs kernels on the CPU; "
                     "pass host memory (tensor.cpu(), cupy.asnumpy(array)) or unset "
                     "TESSERA_BACKEND")


def _cpu_forced() -> bool:
    return backend_override() in ("cpu", "interpreter")


def _extent_from_strides(shape, strides, itemsize: int) -> int:
    """Bytes from the first element to the end of the farthest one."""
    if any(s == 0 for s in shape):
        return 0
    far = 0
    for n, st in zip(shape, strides):
        if st > 0:
            far += (n - 1) * st
    return far + itemsize


class TensorWrapper:
    """A view of `base` as another dtype of the same element size, as Triton's
    `reinterpret` returns (e.g. uint8 data seen as float8e5)."""

    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype
        self.shape = getattr(base, "shape", ())
        self.data = getattr(base, "data", None)
        self.device = getattr(base, "device", "cpu")

    def data_ptr(self) -> int:
        return _resolve(self.base)[1]

    def stride(self, *args):
        return self.base.stride(*args)

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def element_size(self) -> int:
        return self.dtype.itemsize if hasattr(self.dtype, "itemsize") else self.base.element_size()

    def __str__(self) -> str:
        return f"TensorWrapper[{self.dtype}]({self.base})"


def reinterpret(tensor, dtype):
    """Views `tensor` (an array, a tensor or a TensorWrapper) as elements of
    `dtype` without converting them; the element size must match."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype or str(dtype) == str(getattr(tensor.base, "dtype", None)):
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    return TensorWrapper(tensor, dtype)


class MockTensor:
    """Stands in for an argument of `warmup` given as a dtype: a pointer to
    that dtype at an aligned address, never dereferenced."""

    def __init__(self, dtype, shape=None):
        self.dtype = dtype
        self.shape = shape if shape is not None else [1]

    @staticmethod
    def wrap_dtype(arg):
        """A dtype (tl, torch or NumPy) becomes a MockTensor; anything else stays."""
        t = type(arg)
        root = t.__module__.split(".")[0]
        if (t.__name__ == "dtype" and root in ("torch", "tessera", "triton", "numpy")) or \
                t.__module__ == "numpy.dtypes":
            return MockTensor(arg)
        return arg

    def data_ptr(self) -> int:
        return 0

    def stride(self):
        return (0,)


def _resolve(obj):
    """(signature dtype, address, extent in bytes[, device[, read-only]]) of a
    pointer argument."""
    if isinstance(obj, TensorWrapper):
        return (signature_dtype(obj.dtype),) + tuple(_resolve(obj.base)[1:])
    if isinstance(obj, MockTensor):
        return signature_dtype(obj.dtype), 0, 0
    mod = type(obj).__module__
    if mod.startswith("torch"):
        dev = obj.device
        if dev.type == "cuda":
            if _cpu_forced():
                raise _gpu_unavailable(f"a PyTorch tensor on device '{dev}'")
            return signature_dtype(obj.dtype), obj.data_ptr(), 0, dev.index or 0
        if dev.type != "cpu":
            raise TypeError(f"a PyTorch tensor on device '{dev}': Tessera runs kernels on the "
                            "CPU and on CUDA GPUs")
        ptr = obj.data_ptr()
        if ptr == 0:  # an empty tensor (a view of a non-empty one too): nothing to touch
            return signature_dtype(obj.dtype), 0, 0
        storage = obj.untyped_storage()
        end = storage.data_ptr() + storage.nbytes()
        return signature_dtype(obj.dtype), ptr, max(0, end - ptr)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        if _cpu_forced():
            raise _gpu_unavailable(f"a {type(obj).__name__} with __cuda_array_interface__")
        dev = getattr(getattr(obj, "device", None), "id", 0) or 0
        sig = signature_dtype(obj.dtype) if hasattr(obj, "dtype") else _typestr_signature(cai["typestr"])
        return sig, cai["data"][0], 0, int(dev)
    if hasattr(obj, "__dlpack_device__"):
        dev_type, dev_id = obj.__dlpack_device__()
        if dev_type in (_DL_CUDA, _DL_CUDA_MANAGED):
            if _cpu_forced():
                raise _gpu_unavailable(f"a {type(obj).__name__} (DLPack, CUDA device {dev_id})")
            return _resolve_dlpack(obj)
    ai = getattr(obj, "__array_interface__", None)
    if ai is not None:
        ptr, readonly = ai["data"]
        typestr = ai["typestr"]
        if typestr[0] == ">" and typestr[2:] != "1":
            raise TypeError(f"a big-endian array (typestr {typestr!r}) cannot be read by a kernel, "
                            "which reads native (little-endian) numbers; pass a native-order copy, "
                            "e.g. x.astype(x.dtype.newbyteorder('='))")
        if hasattr(obj, "dtype"):
            dtype, sig = obj.dtype, signature_dtype(obj.dtype)
        else:
            dtype, sig = None, _typestr_signature(typestr)
        itemsize = getattr(dtype, "itemsize", None) or int(typestr[2:])
        shape = ai["shape"]
        strides = ai.get("strides")
        if strides is None:  # C-contiguous
            strides, acc = [], itemsize
            for n in reversed(shape):
                strides.insert(0, acc)
                acc *= n
        extent = _extent_from_strides(shape, strides, itemsize)
        if readonly:  # a store into it is refused by the interpreter
            return sig, ptr, extent, -1, True
        return sig, ptr, extent
    if hasattr(obj, "data_ptr") and hasattr(obj, "dtype"):
        return signature_dtype(obj.dtype), obj.data_ptr(), _extent_of_generic(obj)
    raise TypeError(f"expected a tensor, an array, an int, a float or a bool, got {type(obj).__name__}")


# __array_interface__ typestrs (kind and size, after the byte order) -> signature names.
_TYPESTR_TO_SIG = {
    "b1": "i1", "i1": "i8", "i2": "i16", "i4": "i32", "i8": "i64",
    "u1": "u8", "u2": "u16", "u4": "u32", "u8": "u64", "f2": "fp16", "f4": "fp32", "f8": "fp64",
}


def _typestr_signature(typestr: str) -> str:
    """The signature name of an __array_interface__ typestr such as '<f4'."""
    sig = _TYPESTR_TO_SIG.get(typestr[1:])
    if sig is None:
        raise TypeError(f"an __array_interface__ of typestr {typestr!r} is not supported by "
                        "Tessera kernels; pass an array of a numeric dtype (e.g. '<f4', '<i4')")
    return sig


# DLPack (dlpack.h): device types and the dtype codes of DLDataType.
_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_DL_DTYPES = {(0, 8): "i8", (0, 16): "i16", (0, 32): "i32", (0, 64): "i64",
              (1, 1): "i1", (1, 8): "u8", (1, 16): "u16", (1, 32): "u32", (1, 64): "u64",
              (2, 16): "fp16", (2, 32): "fp32", (2, 64): "fp64", (4, 16): "bf16", (6, 8): "i1"}


def _resolve_dlpack(obj):
    """(dtype, device address, 0, device) of a CUDA array exported through
    DLPack (JAX, and any other producer), read from the DLTensor of a capsule
    the producer makes; the capsule is released unconsumed, so the producer
    keeps owning the memory."""
    import ctypes

    class DLTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                    ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                    ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                    ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                    ("byte_offset", ctypes.c_uint64)]

    capsule = obj.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = DLTensor.from_address(get(capsule, b"dltensor"))  # DLManagedTensor starts with it
    sig = _DL_DTYPES.get((t.code, t.bits))
    if sig is None or t.lanes != 1:
        raise TypeError(f"a DLPack array of dtype code {t.code}, {t.bits} bits is not supported")
    return sig, (t.data or 0) + t.byte_offset, 0, t.device_id


def _extent_of_generic(obj) -> int:
    n = obj.numel() if hasattr(obj, "numel") else 0
    es = obj.element_size() if hasattr(obj, "element_size") else 0
    return n * es


def resolver(obj):
    """The extension's fallback for pointer arguments it cannot read itself."""
    return _resolve(obj)
