"""Test harness: Tessera's C ABI (libtessera.so, include/tessera/capi.h) through ctypes.

    k = compile_kernel("examples/vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 1024")
    run(k, (cdiv(n, 1024),), x, y, out, n)

NumPy arrays become buffers (with their byte sizes, so the interpreter
bounds-checks every access), Python ints and floats become scalars. The
library is loaded from $TESSERA_BUILD_DIR (default <repo>/build).
"""

from __future__ import annotations

import ctypes
import os
import pathlib
from typing import Any, Iterable, Sequence

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
KERNELS = pathlib.Path(__file__).resolve().parent / "kernels"

try:  # bfloat16 and the fp8 storage types; optional
    import ml_dtypes  # type: ignore

    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    ml_dtypes = None
    BF16 = None

# ---------------------------------------------------------------------------
# ctypes mirror of capi.h

TESSERA_OK = 0
TESSERA_ERROR_COMPILATION = 1
TESSERA_ERROR_KERNEL = 2
TESSERA_ERROR_INVALID_ARGUMENT = 3
TESSERA_ERROR_INTERNAL = 4

VALUE_NONE, VALUE_BOOL, VALUE_INT, VALUE_FLOAT, VALUE_STRING, VALUE_DTYPE, VALUE_TUPLE = range(7)
ARG_POINTER, ARG_SCALAR, ARG_CONSTEXPR, ARG_TENSOR_DESC, ARG_TUPLE = range(5)
GLOBAL_CONSTANT, GLOBAL_MODULE_ALIAS, GLOBAL_JIT_FUNCTION, GLOBAL_OPAQUE = range(4)
RUN_BUFFER, RUN_INT, RUN_FLOAT, RUN_BUFFER_READONLY = range(4)


class CValue(ctypes.Structure):
    pass


CValue._fields_ = [
    ("kind", ctypes.c_int32),
    ("i", ctypes.c_int64),
    ("f", ctypes.c_double),
    ("s", ctypes.c_char_p),
    ("elems", ctypes.POINTER(CValue)),
    ("num_elems", ctypes.c_size_t),
]


class CArgSpec(ctypes.Structure):
    pass


CArgSpec._fields_ = [
    ("kind", ctypes.c_int32),
    ("dtype", ctypes.c_char_p),
    ("divisibility", ctypes.c_int64),
    ("equal_to_1", ctypes.c_int32),
    ("value", CValue),
    ("elems", ctypes.POINTER(CArgSpec)),  # TUPLE
    ("num_elems", ctypes.c_size_t),
]


class CGlobal(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("kind", ctypes.c_int32),
        ("value", CValue),
        ("module", ctypes.c_char_p),
        ("unit", ctypes.c_int32),
        ("function", ctypes.c_char_p),
        ("description", ctypes.c_char_p),
    ]


class CSourceUnit(ctypes.Structure):
    _fields_ = [
        ("source", ctypes.c_char_p),
        ("file_name", ctypes.c_char_p),
        ("first_line", ctypes.c_uint32),
        ("col_offset", ctypes.c_uint32),
        ("globals", ctypes.POINTER(CGlobal)),
        ("num_globals", ctypes.c_size_t),
    ]


class CCompileOptions(ctypes.Structure):
    _fields_ = [
        ("file_name", ctypes.c_char_p),
        ("first_line", ctypes.c_uint32),
        ("col_offset", ctypes.c_uint32),
        ("debug", ctypes.c_int32),
        ("optimize", ctypes.c_int32),
        ("passes", ctypes.c_char_p),
        ("globals", ctypes.POINTER(CGlobal)),
        ("num_globals", ctypes.c_size_t),
        ("target", ctypes.c_char_p),
        ("num_warps", ctypes.c_int32),
        ("num_stages", ctypes.c_int32),
        ("no_fp_fusion", ctypes.c_int32),
        ("no_reflect_ftz", ctypes.c_int32),
        ("max_registers", ctypes.c_int32),
    ]


class CRunArg(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int32),
        ("data", ctypes.c_void_p),
        ("bytes", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("i", ctypes.c_int64),
        ("f", ctypes.c_double),
    ]


def library_path() -> pathlib.Path:
    build = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", REPO / "build"))
    return build / "libtessera.so"


_lib: ctypes.CDLL | None = None


def lib() -> ctypes.CDLL:
    global _lib
    if _lib is not None:
        return _lib
    path = library_path()
    if not path.exists():
        raise RuntimeError(f"{path} does not exist: build the 'tessera' target or set TESSERA_BUILD_DIR")
    L = ctypes.CDLL(str(path))
    kp = ctypes.c_void_p
    sig = {
        "tessera_last_error": (ctypes.c_char_p, []),
        "tessera_last_status": (ctypes.c_int, []),
        "tessera_clear_error": (None, []),
        "tessera_capi_version": (ctypes.c_int, []),
        "tessera_compile_options_init": (None, [ctypes.POINTER(CCompileOptions)]),
        "tessera_compile": (
            kp,
            [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(CArgSpec), ctypes.c_size_t,
             ctypes.POINTER(CCompileOptions)],
        ),
        "tessera_compile_signature": (
            kp,
            [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(CCompileOptions)],
        ),
        "tessera_compile_units": (
            kp,
            [ctypes.POINTER(CSourceUnit), ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(CArgSpec),
             ctypes.c_size_t, ctypes.POINTER(CCompileOptions)],
        ),
        "tessera_kernel_serialize": (
            ctypes.c_int, [kp, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]),
        "tessera_kernel_deserialize": (kp, [ctypes.c_void_p, ctypes.c_size_t]),
        "tessera_free": (None, [ctypes.c_void_p]),
        "tessera_version": (ctypes.c_char_p, []),
        "tessera_builtin_count": (ctypes.c_size_t, []),
        "tessera_builtin_name": (ctypes.c_char_p, [ctypes.c_size_t]),
        "tessera_kernel_free": (None, [kp]),
        "tessera_kernel_name": (ctypes.c_char_p, [kp]),
        "tessera_kernel_num_stages": (ctypes.c_size_t, [kp]),
        "tessera_kernel_stage_name": (ctypes.c_char_p, [kp, ctypes.c_size_t]),
        "tessera_kernel_ir": (ctypes.c_char_p, [kp, ctypes.c_char_p]),
        "tessera_kernel_num_params": (ctypes.c_size_t, [kp]),
        "tessera_kernel_param_name": (ctypes.c_char_p, [kp, ctypes.c_size_t]),
        "tessera_kernel_param_type": (ctypes.c_char_p, [kp, ctypes.c_size_t]),
        "tessera_kernel_num_warnings": (ctypes.c_size_t, [kp]),
        "tessera_kernel_warning": (ctypes.c_char_p, [kp, ctypes.c_size_t,
                                                     ctypes.POINTER(ctypes.c_char_p),
                                                     ctypes.POINTER(ctypes.c_int32)]),
        "tessera_kernel_run": (
            ctypes.c_int,
            [kp, ctypes.POINTER(CRunArg), ctypes.c_size_t, ctypes.c_int64, ctypes.c_int64,
             ctypes.c_int64, ctypes.c_int32],
        ),
    }
    for name, (res, args) in sig.items():
        fn = getattr(L, name)
        fn.restype = res
        fn.argtypes = args
    _lib = L
    return L


# ---------------------------------------------------------------------------
# errors


class TesseraError(Exception):
    """Base class; str() is the library's message."""


class CompilationError(TesseraError):
    pass


class KernelError(TesseraError):
    pass


class InvalidArgument(TesseraError):
    pass


class InternalError(TesseraError):
    pass


_ERRORS = {
    TESSERA_ERROR_COMPILATION: CompilationError,
    TESSERA_ERROR_KERNEL: KernelError,
    TESSERA_ERROR_INVALID_ARGUMENT: InvalidArgument,
    TESSERA_ERROR_INTERNAL: InternalError,
}


def _raise_last() -> None:
    L = lib()
    status = L.tessera_last_status()
    msg = (L.tessera_last_error() or b"").decode("utf-8", "replace")
    L.tessera_clear_error()
    raise _ERRORS.get(status, TesseraError)(msg)


# ---------------------------------------------------------------------------
# dtypes

_NP_TO_SIG = {
    np.dtype(np.bool_): "i1",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.uint64): "u64",
    np.dtype(np.float16): "fp16",
    np.dtype(np.float32): "fp32",
    np.dtype(np.float64): "fp64",
}
if BF16 is not None:
    _NP_TO_SIG[BF16] = "bf16"


def sig_name(dtype: Any) -> str:
    """The Triton signature name ("fp32", "i32", ...) of a NumPy dtype."""
    return _NP_TO_SIG[np.dtype(dtype)]


# ---------------------------------------------------------------------------
# compiling


class Kernel:
    """A compiled kernel handle (freed when garbage collected)."""

    def __init__(self, handle: int) -> None:
        self._h = ctypes.c_void_p(handle)
        L = lib()
        self.name: str = L.tessera_kernel_name(self._h).decode()
        self.stages: list[str] = [
            L.tessera_kernel_stage_name(self._h, i).decode()
            for i in range(L.tessera_kernel_num_stages(self._h))
        ]
        self.params: list[tuple[str, str]] = [
            (L.tessera_kernel_param_name(self._h, i).decode(),
             L.tessera_kernel_param_type(self._h, i).decode())
            for i in range(L.tessera_kernel_num_params(self._h))
        ]
        self.warnings: list[tuple[str, str, int]] = []  # (text, file, line)
        for i in range(L.tessera_kernel_num_warnings(self._h)):
            file, line = ctypes.c_char_p(), ctypes.c_int32()
            text = L.tessera_kernel_warning(self._h, i, ctypes.byref(file), ctypes.byref(line))
            self.warnings.append((text.decode(), file.value.decode(), line.value))

    def ir(self, stage: str = "ttir") -> str:
        text = lib().tessera_kernel_ir(self._h, stage.encode())
        if text is None:
            _raise_last()
        return text.decode()

    def __del__(self) -> None:
        if _lib is not None and getattr(self, "_h", None):
            _lib.tessera_kernel_free(self._h)
            self._h = None

    def __repr__(self) -> str:
        return f"<Kernel {self.name}({', '.join(t + ' ' + n for n, t in self.params)})>"


def _read_source(path_or_source: str | os.PathLike) -> tuple[str, str]:
    """(source text, file name for diagnostics)."""
    s = os.fspath(path_or_source)
    if "\n" not in s and s.endswith(".py"):
        p = pathlib.Path(s)
        if not p.is_absolute():
            for base in (KERNELS, REPO):
                if (base / p).exists():
                    p = base / p
                    break
        return p.read_text(), str(p)
    return s, "<string>"


def _options(file_name: str, debug: bool, first_line: int, col_offset: int,
             optimize: bool, passes: str | None, keep: list) -> CCompileOptions:
    o = CCompileOptions()
    lib().tessera_compile_options_init(ctypes.byref(o))
    fn = file_name.encode()
    keep.append(fn)
    o.file_name = fn
    o.first_line = first_line
    o.col_offset = col_offset
    o.debug = int(debug)
    o.optimize = int(optimize)
    if passes is not None:
        pb = passes.encode()
        keep.append(pb)
        o.passes = pb
    return o


_cache: dict[tuple, Kernel] = {}

# ---- every kernel through the GPU code generator and ptxas ----------------------------------
#
# Each successful compile of this suite is repeated for the GPU targets, and
# the PTX is assembled by the CUDA toolkit's ptxas (where one is installed),
# so invalid PTX fails without a GPU. Ops the GPU back end rejects with its
# "not supported by the GPU back end yet" diagnostic are counted, not failed;
# any other GPU compile error fails the test. TESSERA_PTX_CHECK=0 turns it off.
PTX_TARGETS = ("sm_80", "sm_90a")
ptx_stats = {"assembled": 0, "unsupported": 0}
_ptx_seen: set = set()


def _ptxas() -> str | None:
    import shutil
    if os.environ.get("TESSERA_PTX_CHECK", "1") == "0":
        return None
    for cand in (shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"):
        if cand and os.path.exists(cand):
            return cand
    return None


def assemble_ptx(ptx: str, target: str) -> None:
    """Runs ptxas on `ptx` for `target`; AssertionError with its output on failure."""
    import subprocess
    import tempfile
    exe = _ptxas()
    if exe is None:
        return
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        r = subprocess.run([exe, f"-arch={target}", path, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"ptxas -arch={target} rejected the PTX:\n{r.stderr}\n{ptx[:4000]}")
    ptx_stats["assembled"] += 1


def _check_ptx(o, compile_once) -> None:
    if _ptxas() is None:
        return
    for target in PTX_TARGETS:
        o.target = target.encode()
        h = compile_once()
        o.target = None
        if not h:
            L = lib()
            msg = (L.tessera_last_error() or b"").decode("utf-8", "replace")
            L.tessera_clear_error()
            if "not supported by the GPU back end yet" in msg:
                ptx_stats["unsupported"] += 1
                return
            raise AssertionError(f"GPU compile for {target} failed:\n{msg}")
        k = Kernel(h)
        ptx = k.ir("ptx")
        key = (hash(ptx), target)
        if key in _ptx_seen:
            continue
        _ptx_seen.add(key)
        assemble_ptx(ptx, target)


def compile_kernel(path_or_source: str | os.PathLike, name: str, signature: str = "", *,
                   debug: bool = False, file_name: str | None = None, first_line: int = 1,
                   col_offset: int = 0, optimize: bool = True, passes: str | None = None,
                   cache: bool = True, pending: bool = False) -> Kernel:
    """Compiles `name` from a .py file (relative to tests/python/kernels or the
    repository root) or from source text, specialised by a Triton signature.

    pending=True: the kernel uses tl functions still being added to the front
    end; if one is reported as unsupported the test is marked xfail (not
    strict) instead of failing, and runs for real once the function lands."""
    if pending:
        try:
            return compile_kernel(path_or_source, name, signature, debug=debug, file_name=file_name,
                                  first_line=first_line, col_offset=col_offset, optimize=optimize,
                                  passes=passes, cache=cache)
        except CompilationError as e:
            first = str(e).splitlines()[0] if str(e) else ""
            if "that Tessera supports" in first or "not supported yet" in first:
                import pytest
                pytest.xfail("not in the front end yet: " + first.split("error: ", 1)[-1])
            raise
    source, fname = _read_source(path_or_source)
    if file_name is not None:
        fname = file_name
    key = (source, fname, name, signature, debug, first_line, col_offset, optimize, passes)
    if cache and key in _cache:
        return _cache[key]
    keep: list = []
    o = _options(fname, debug, first_line, col_offset, optimize, passes, keep)
    def once():
        return lib().tessera_compile_signature(source.encode(), name.encode(),
                                               signature.encode(), ctypes.byref(o))
    h = once()
    if not h:
        _raise_last()
    k = Kernel(h)
    _check_ptx(o, once)
    if cache:
        _cache[key] = k
    return k


# Argument specs for compile_specs(): ("ptr", "fp32", 16), ("scalar", "i32"),
# ("scalar", "i32", 1, True), ("constexpr", value). A constexpr value is a
# Python bool/int/float/str/None/tuple, or Dtype("fp16").
class Dtype(str):
    """A dtype constexpr value (signature or tl name)."""


def _fill_value(v: Any, out: CValue, keep: list) -> None:
    if v is None:
        out.kind = VALUE_NONE
    elif isinstance(v, bool):
        out.kind, out.i = VALUE_BOOL, int(v)
    elif isinstance(v, int):
        out.kind, out.i = VALUE_INT, v
    elif isinstance(v, float):
        out.kind, out.f = VALUE_FLOAT, v
    elif isinstance(v, Dtype):
        b = str(v).encode()
        keep.append(b)
        out.kind, out.s = VALUE_DTYPE, b
    elif isinstance(v, str):
        b = v.encode()
        keep.append(b)
        out.kind, out.s = VALUE_STRING, b
    elif isinstance(v, tuple):
        arr = (CValue * max(len(v), 1))()
        keep.append(arr)
        for i, e in enumerate(v):
            _fill_value(e, arr[i], keep)
        out.kind, out.elems, out.num_elems = VALUE_TUPLE, arr, len(v)
    else:
        raise TypeError(f"unsupported constexpr value {v!r}")


def _spec_array(specs: Sequence[tuple], keep: list) -> ctypes.Array:
    arr = (CArgSpec * max(len(specs), 1))()
    keep.append(arr)
    for i, s in enumerate(specs):
        kind = s[0]
        if kind in ("ptr", "scalar"):
            dt = s[1].encode()
            keep.append(dt)
            arr[i].kind = ARG_POINTER if kind == "ptr" else ARG_SCALAR
            arr[i].dtype = dt
            arr[i].divisibility = s[2] if len(s) > 2 else 1
            arr[i].equal_to_1 = int(s[3]) if len(s) > 3 else 0
        elif kind == "constexpr":
            arr[i].kind = ARG_CONSTEXPR
            _fill_value(s[1], arr[i].value, keep)
        elif kind == "tuple":  # ("tuple", [spec, ...][, "Name(field,...)"])
            arr[i].kind = ARG_TUPLE
            arr[i].elems = ctypes.cast(_spec_array(s[1], keep), ctypes.POINTER(CArgSpec))
            arr[i].num_elems = len(s[1])
            if len(s) > 2:
                name = s[2].encode()
                keep.append(name)
                arr[i].dtype = name
        else:
            raise ValueError(f"unknown spec kind {kind!r}")
    return arr


# Global values for compile_units(): a plain Python value is a constant.
class ModuleAlias(str):
    """A module alias global: ModuleAlias("triton.language")."""


class JitFn(tuple):
    """A @jit function global: JitFn(unit_index, "function_name")."""

    def __new__(cls, unit: int, function: str) -> "JitFn":
        return super().__new__(cls, (unit, function))


class Opaque(str):
    """A name a kernel cannot use: Opaque("a Python function that is not @jit")."""


def _global_array(globals: dict[str, Any], keep: list) -> tuple[Any, int]:
    if not globals:
        return None, 0
    garr = (CGlobal * len(globals))()
    keep.append(garr)
    for i, (n, v) in enumerate(globals.items()):
        g = garr[i]
        nb = n.encode()
        keep.append(nb)
        g.name = nb
        if isinstance(v, ModuleAlias):
            mb = v.encode()
            keep.append(mb)
            g.kind, g.module = GLOBAL_MODULE_ALIAS, mb
        elif isinstance(v, JitFn):
            fb = v[1].encode()
            keep.append(fb)
            g.kind, g.unit, g.function = GLOBAL_JIT_FUNCTION, v[0], fb
        elif isinstance(v, Opaque):
            db = v.encode()
            keep.append(db)
            g.kind, g.description = GLOBAL_OPAQUE, db
        else:
            g.kind = GLOBAL_CONSTANT
            _fill_value(v, g.value, keep)
    return garr, len(globals)


def compile_specs(path_or_source: str | os.PathLike, name: str, specs: Sequence[tuple], *,
                  debug: bool = False, globals: dict[str, Any] | None = None,
                  module_aliases: dict[str, str] | None = None) -> Kernel:
    """Compiles through tessera_compile with explicit argument specs."""
    source, fname = _read_source(path_or_source)
    keep: list = []
    arr = _spec_array(specs, keep)
    o = _options(fname, debug, 1, 0, True, None, keep)
    gl: dict[str, Any] = dict(globals or {})
    gl.update({n: ModuleAlias(m) for n, m in (module_aliases or {}).items()})
    o.globals, o.num_globals = _global_array(gl, keep)
    def once():
        return lib().tessera_compile(source.encode(), name.encode(), arr, len(specs),
                                     ctypes.byref(o))
    h = once()
    if not h:
        _raise_last()
    k = Kernel(h)
    _check_ptx(o, once)
    return k


class Unit:
    """One source unit for compile_units()."""

    def __init__(self, source: str, file_name: str = "<string>", first_line: int = 1,
                 col_offset: int = 0, globals: dict[str, Any] | None = None) -> None:
        self.source, self.file_name = source, file_name
        self.first_line, self.col_offset = first_line, col_offset
        self.globals = dict(globals or {})


def compile_units(units: Sequence[Unit], name: str, specs: Sequence[tuple], *,
                  debug: bool = False) -> Kernel:
    """Compiles kernel `name` of units[0] through tessera_compile_units."""
    keep: list = []
    uarr = (CSourceUnit * max(len(units), 1))()
    for i, u in enumerate(units):
        sb, fb = u.source.encode(), u.file_name.encode()
        keep += [sb, fb]
        c = uarr[i]
        c.source, c.file_name, c.first_line, c.col_offset = sb, fb, u.first_line, u.col_offset
        c.globals, c.num_globals = _global_array(u.globals, keep)
    arr = _spec_array(specs, keep)
    o = _options("<unused>", debug, 1, 0, True, None, keep)
    def once():
        return lib().tessera_compile_units(uarr, len(units), name.encode(), arr, len(specs),
                                           ctypes.byref(o))
    h = once()
    if not h:
        _raise_last()
    k = Kernel(h)
    _check_ptx(o, once)
    return k


def serialize(kernel: Kernel) -> bytes:
    """tessera_kernel_serialize's bytes."""
    L = lib()
    data, size = ctypes.c_void_p(), ctypes.c_size_t()
    if L.tessera_kernel_serialize(kernel._h, ctypes.byref(data), ctypes.byref(size)) != TESSERA_OK:
        _raise_last()
    try:
        return ctypes.string_at(data, size.value)
    finally:
        L.tessera_free(data)


def deserialize(blob: bytes) -> Kernel:
    """A kernel from serialize()'s bytes (InvalidArgument when they are not)."""
    buf = ctypes.create_string_buffer(blob, len(blob))
    h = lib().tessera_kernel_deserialize(buf, len(blob))
    if not h:
        _raise_last()
    return Kernel(h)


# ---------------------------------------------------------------------------
# running


def _grid3(grid: int | Iterable[int]) -> tuple[int, int, int]:
    if isinstance(grid, (int, np.integer)):
        g = [int(grid)]
    else:
        g = [int(x) for x in grid]
    if not 1 <= len(g) <= 3:
        raise ValueError(f"a grid has 1 to 3 dimensions, got {grid!r}")
    return tuple(g + [1] * (3 - len(g)))  # type: ignore[return-value]


def run(kernel: Kernel, grid: int | Iterable[int], *args: Any, num_threads: int = 0) -> None:
    """Runs `kernel` on the interpreter. Arrays must be C-contiguous (they are
    passed by address, so the kernel writes into them in place)."""
    arr = (CRunArg * max(len(args), 1))()
    keep: list = []
    for i, a in enumerate(args):
        r = arr[i]
        if isinstance(a, np.ndarray):
            if not a.flags.c_contiguous:
                raise ValueError(f"argument {i} is not C-contiguous")
            kind = RUN_BUFFER if a.flags.writeable else RUN_BUFFER_READONLY
            r.kind, r.data, r.bytes = kind, a.ctypes.data, a.nbytes
        elif isinstance(a, (bool, np.bool_)):
            r.kind, r.i = RUN_INT, int(a)
        elif isinstance(a, (int, np.integer)):
            v = int(a)
            r.kind, r.i = RUN_INT, v - 2**64 if v >= 2**63 else v
        elif isinstance(a, (float, np.floating)):
            r.kind, r.f = RUN_FLOAT, float(a)
        else:
            raise TypeError(f"argument {i}: cannot pass {type(a).__name__} to a kernel")
        keep.append(a)
    gx, gy, gz = _grid3(grid)
    status = lib().tessera_kernel_run(kernel._h, arr, len(args), gx, gy, gz, num_threads)
    if status != TESSERA_OK:
        _raise_last()


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def next_power_of_2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


# ---------------------------------------------------------------------------
# checking helpers



def is_float_dtype(dt: Any) -> bool:
    dt = np.dtype(dt)
    return dt.kind == "f" or (BF16 is not None and dt == BF16)


def poisoned(shape: int | Sequence[int], dtype: Any) -> np.ndarray:
    """An output buffer full of garbage: NaN for floats, 0xAB bytes otherwise."""
    dt = np.dtype(dtype)
    a = np.empty(shape, dtype=dt)
    if is_float_dtype(dt):
        a[...] = np.nan
    else:
        a.view(np.uint8)[...] = 0xAB
    return a


# (rtol, atol) by dtype name.
TOLERANCES = {
    "float64": (1e-12, 1e-14),
    "float32": (1e-6, 1e-6),
    "tf32": (3e-4, 3e-4),
    "float16": (1e-3, 1e-5),
    "bfloat16": (1e-2, 1e-4),
}


def assert_close(actual: np.ndarray, expected: np.ndarray, dtype: Any = None, *,
                 rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = False, msg: str = "") -> None:
    """Elementwise |a - e| <= atol + rtol |e|; NaN in `actual` never passes
    (unless equal_nan and `expected` has NaN at the same place)."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape} {msg}"
    name = dtype if isinstance(dtype, str) else np.dtype(dtype if dtype is not None else actual.dtype).name
    if not is_float_dtype(actual.dtype) and name not in TOLERANCES:
        bad = actual != expected
        if bad.any():
            idx = np.argwhere(bad)[:5]
            raise AssertionError(
                f"{int(bad.sum())} of {bad.size} elements differ {msg}; first at "
                + ", ".join(f"{tuple(i)}: got {actual[tuple(i)]!r} want {expected[tuple(i)]!r}" for i in idx))
        return
    rt, at = TOLERANCES.get(name, (1e-6, 1e-6))
    rt = rt if rtol is None else rtol
    at = at if atol is None else atol
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    a_nan, e_nan = np.isnan(a), np.isnan(e)
    with np.errstate(invalid="ignore"):
        ok = np.abs(a - e) <= at + rt * np.abs(e)
        ok |= (a == e)  # equal infinities
    ok &= ~a_nan
    if equal_nan:
        ok |= a_nan & e_nan
    if not ok.all():
        bad = np.argwhere(~ok)[:5]
        raise AssertionError(
            f"{int((~ok).sum())} of {ok.size} elements differ (rtol={rt}, atol={at}) {msg}; first at "
            + ", ".join(f"{tuple(i)}: got {a[tuple(i)]!r} want {e[tuple(i)]!r}" for i in bad))


# The occupancy hint's rule (runtime/cuda_driver.h occupancyBlockTarget),
# written again from its description as the tests' oracle, for an H100/H200
# (sm_90): 64 Ki registers in four sub-partitions of 16 Ki (each holding
# whole warps, as CUDA's occupancy calculator counts them), 228 KiB of
# shared memory (1 KiB more reserved per block), 2048 threads and 32 blocks
# per SM. The blocks per SM to ask for, or 0: registers alone keep the
# kernel one block short, it has fewer than 16 warps resident, and one
# 8-register step fewer fits that block.
SM90_LIMITS = dict(regs=65536, shared=228 * 1024, reserved=1024, threads=2048, blocks=32)


def blocks_by_registers(regs: int, warps: int, limits=SM90_LIMITS) -> int:
    """Blocks of `warps` warps at `regs` registers a thread (256 a warp at a
    time) that the four sub-partitions' registers hold."""
    per_warp = -(-regs * 32 // 256) * 256
    return limits["regs"] // 4 // per_warp * 4 // warps


def blocks_by_other_limits(warps: int, shared: int, limits=SM90_LIMITS) -> int:
    """... that threads, block slots and shared memory (plus the reserved
    KiB a block) allow."""
    return min(limits["blocks"], limits["threads"] // (warps * 32),
               limits["shared"] // (shared + limits["reserved"]) if shared else 1 << 30)


def occupancy_hint_blocks(regs: int, threads: int, shared: int, limits=SM90_LIMITS) -> int:
    warps = -(-threads // 32)
    other = blocks_by_other_limits(warps, shared, limits)
    now = blocks_by_registers(regs, warps, limits)
    if now >= other or now * warps >= 16:
        return 0
    cap = occupancy_register_cap(now + 1, threads, limits)
    if -(-regs // 8) * 8 - cap > 8 or blocks_by_registers(cap, warps, limits) <= now:
        return 0
    return now + 1


def resident_blocks(regs: int, threads: int, shared: int, limits=SM90_LIMITS) -> int:
    """Blocks per SM of a kernel at `regs` registers a thread, `threads` a
    block and `shared` bytes of shared memory a block."""
    warps = -(-threads // 32)
    return min(blocks_by_registers(regs, warps, limits),
               blocks_by_other_limits(warps, shared, limits))


def keep_warp_specialized(ws: dict, plain: dict) -> bool:
    """The loader's choice between a warp-specialised kernel and its
    unspecialised twin (runtime/cuda_driver.h keepWarpSpecialized), from
    {'regs', 'stack', 'threads', 'shared'} of each: the specialised one
    unless it spills more or fewer of its blocks reside per SM."""
    if ws["stack"] > plain["stack"]:
        return False
    return (resident_blocks(ws["regs"], ws["threads"], ws["shared"])
            >= resident_blocks(plain["regs"], plain["threads"], plain["shared"]))


def occupancy_register_cap(blocks: int, threads: int, limits=SM90_LIMITS) -> int:
    """The most registers a thread may use with `blocks` blocks resident:
    a sub-partition's registers shared by its share of the warps."""
    warps = -(-threads // 32)
    per_sub_partition = -(-blocks * warps // 4)
    return min(limits["regs"] // 4 // per_sub_partition // 256 * 256 // 32, 255)


def ptxas_report(ptx: str, target: str) -> dict:
    """ptxas -v on `ptx`: {'regs', 'stack'} (registers and stack frame bytes
    a thread); AssertionError with ptxas's output when it fails."""
    import re
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        r = subprocess.run([_ptxas(), f"-arch={target}", "-v", path, "-o",
                            os.path.join(d, "k.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    stack = re.search(r"(\d+) bytes stack frame", r.stderr)
    return {"regs": int(re.search(r"Used (\d+) registers", r.stderr).group(1)),
            "stack": int(stack.group(1)) if stack else 0}


def with_min_blocks_per_sm(ptx: str, blocks: int) -> str:
    """`ptx` asking ptxas for `blocks` resident blocks per SM (`.minnctapersm`
    after the entry's `.maxntid`), as the occupancy hint writes it."""
    import re
    return re.sub(r"(\n\.maxntid [^\n]*)", lambda m: m.group(1) + f"\n.minnctapersm {blocks}",
                  ptx, count=1)


def hinted_report(ptx: str, blocks: int, target: str) -> dict | None:
    """ptxas_report of `ptx` asking for `blocks` blocks per SM; None where
    ptxas cannot fit an instruction in the registers that leaves."""
    try:
        return ptxas_report(with_min_blocks_per_sm(ptx, blocks), target)
    except AssertionError:
        return None


def hint_kept(before: dict, after: dict | None) -> bool:
    """The rule for keeping a hinted kernel (ptxas reports of the plain and
    the hinted PTX): fewer registers, at most 16 bytes a thread more spilled."""
    return (after is not None and after["regs"] < before["regs"]
            and after["stack"] <= before["stack"] + 16)
