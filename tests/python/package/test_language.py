"""tessera.language: the stubs match the compiler's builtin tables (names,
parameter names, defaults), are documented, raise on the host; dtypes,
constexpr and the cost of importing the package."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import pathlib
import re
import subprocess
import sys
import types

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
PYDIR = REPO / "python"
FRONTEND = REPO / "src" / "frontend"


def _import(name: str):
    """Imports `name`; while python/tessera/__init__.py cannot be imported yet
    (other modules of the package still being written), imports it through a
    bare `tessera` package so these tests still check tessera.language; the
    stand-in is removed again afterwards."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        missing = e.name or ""
        if not missing.startswith("tessera.") or missing.startswith(
                ("tessera.language", "tessera.testing")):
            raise
        pkg = types.ModuleType("tessera")
        pkg.__path__ = [str(PYDIR / "tessera")]
        sys.modules["tessera"] = pkg
        try:
            return importlib.import_module(name)
        finally:  # other test files must still see the package's own import error
            if sys.modules.get("tessera") is pkg:
                del sys.modules["tessera"]


tl = _import("tessera.language")
libdevice = _import("tessera.language.extra.libdevice")
cuda_libdevice = _import("tessera.language.extra.cuda.libdevice")


# ---------------------------------------------------------------------------- the C++ tables

_ENTRY = re.compile(
    r'\{\s*"((?:tl|tensor|dtype|libdevice|triton|builtins)\.[A-Za-z_][\w.]*)"\s*,\s*\{([^{}]*)\}')
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def parse_builtin_tables() -> dict[str, list[str]]:
    """{qualified name: ["param", "param=default", "*args", ...]} from the
    `std::vector<BuiltinDef> xxxBuiltins()` tables of src/frontend/builtins_*.cpp."""
    table: dict[str, list[str]] = {}
    for path in sorted(FRONTEND.glob("builtins_*.cpp")):
        text = path.read_text()
        for part in text.split("std::vector<BuiltinDef> ")[1:]:
            for m in _ENTRY.finditer(part):
                params = [p.encode().decode("unicode_escape") for p in _STRING.findall(m.group(2))]
                assert m.group(1) not in table, f"{m.group(1)} declared twice"
                table[m.group(1)] = params
    return table


TABLE = parse_builtin_tables()

# Entries with no Python stub of their own.
#  builtins.*: Python's own builtins (min, range, ...), used as they are.
#  tl._*: internal helpers that tl.load/tl.store call for block pointers.
#  tl.range / tl.static_range: the table declares (*args); the loop lowering
#    (lower_control.cpp) reads their arguments (checked by test_range_stubs).
#  tl.tensor / tl.tensor_descriptor: classes (isinstance in kernels), stubbed
#    as classes.


def _exempt(name: str) -> bool:
    return (name.startswith("builtins.") or name.startswith("tl._")
            or name in ("tl.range", "tl.static_range", "tl.tensor", "tl.tensor_descriptor"))


def _tessera_top():
    try:
        return importlib.import_module("tessera")
    except ImportError:
        return None


class _Unavailable(Exception):
    """The object cannot be looked up in this checkout (yet)."""


def resolve(name: str):
    """The Python object that stands for the builtin `name`, or None."""
    prefix, _, attr = name.rpartition(".")
    if prefix == "tl":
        return getattr(tl, attr, None)
    if prefix == "tl.math":
        return getattr(tl.math, attr, None)
    if prefix == "tensor":
        return getattr(tl.tensor, attr, None)
    if prefix == "tensor_descriptor":
        return getattr(tl.tensor_descriptor, attr, None)
    if prefix == "dtype":
        return getattr(tl.dtype, attr, None)
    if prefix == "libdevice":
        return getattr(libdevice, attr, None)
    if prefix == "cuda":
        return getattr(tl.extra.cuda, attr, None)
    if prefix == "triton":
        top = _tessera_top()
        if top is None or getattr(top, "__file__", None) is None:  # missing, or the bare stand-in
            raise _Unavailable("python/tessera/__init__.py cannot be imported yet")
        return getattr(top, attr, None)
    raise AssertionError(f"unknown builtin prefix in {name!r}")


def expected_parameters(params: list[str]):
    """(name, kind, default) triples of the Python signature a table entry means."""
    out = []
    after_star = False
    for p in params:
        name, eq, default = p.partition("=")
        if name.startswith("**"):
            out.append((name[2:], inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty))
            continue
        if name.startswith("*"):
            out.append((name[1:], inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.empty))
            after_star = True
            continue
        kind = inspect.Parameter.KEYWORD_ONLY if after_star else inspect.Parameter.POSITIONAL_OR_KEYWORD
        out.append((name, kind, _default(default) if eq else inspect.Parameter.empty))
    return out


def _default(text: str):
    """A table default: a Python literal, or a dtype spelled tl.<name>
    (tl.dot_scaled's out_dtype=tl.float32)."""
    if text.startswith("tl."):
        return getattr(tl, text[3:])
    return ast.literal_eval(text)


def actual_parameters(obj):
    sig = inspect.signature(obj)
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


def _same(expected, actual) -> bool:
    if len(expected) != len(actual):
        return False
    for (en, ek, ed), (an, ak, ad) in zip(expected, actual):
        if en != an or ek != ak:
            return False
        if ed is inspect.Parameter.empty or ad is inspect.Parameter.empty:
            if ed is not ad:
                return False
        elif type(ed) is not type(ad) or ed != ad:
            return False
    return True


def test_parser_reads_the_tables():
    assert len(TABLE) > 80
    assert TABLE["tl.load"] == ["pointer", "mask=None", "other=None", "boundary_check=()",
                                "padding_option=''", "cache_modifier=''", "eviction_policy=''",
                                "volatile=False"]
    assert TABLE["tl.device_print"] == ["prefix", "*args", "hex=False"]
    assert TABLE["tl.debug_barrier"] == []
    assert "tensor.to" in TABLE and "tl.program_id" in TABLE


@pytest.mark.parametrize("name", sorted(n for n in TABLE if not _exempt(n)))
def test_stub_matches_table(name):
    try:
        obj = resolve(name)
    except _Unavailable as e:
        pytest.skip(str(e))
    assert obj is not None, f"{name} is in the compiler's builtin table but has no Python stub"
    expected = expected_parameters(TABLE[name])
    actual = actual_parameters(obj)
    assert _same(expected, actual), (
        f"{name}: the stub's signature {inspect.signature(obj)} differs from the table's "
        f"({', '.join(TABLE[name])})")


# ---------------------------------------------------------------------------- no extra stubs


def _functions(module):
    """The public functions a module of tessera.language defines or re-exports."""
    return {n: getattr(module, n) for n in module.__all__
            if isinstance(getattr(module, n), types.FunctionType)}


def _table_params(name):
    return expected_parameters(TABLE[name]) if name in TABLE else None


def test_every_tl_function_is_a_builtin():
    extra = [n for n in _functions(tl) if f"tl.{n}" not in TABLE]
    assert not extra, f"stubs the compiler does not know: {extra}"
    for n, f in _functions(tl).items():
        assert _same(_table_params(f"tl.{n}"), actual_parameters(f)), n


@pytest.mark.parametrize("module", [tl.math, tl.standard, tl.random, tl.core, libdevice,
                                    cuda_libdevice], ids=lambda m: m.__name__)
def test_submodule_functions_resolve(module):
    """Each function of a submodule resolves the way the compiler resolves the
    attribute: tl.math.X and tl.core.X to tl.X, libdevice.X to libdevice.X or
    else tl.X, with the same parameters."""
    is_libdevice = "libdevice" in module.__name__
    for n, f in _functions(module).items():
        key = f"libdevice.{n}" if is_libdevice and f"libdevice.{n}" in TABLE else f"tl.{n}"
        if module is tl.math and f"tl.math.{n}" in TABLE:
            key = f"tl.math.{n}"
        assert key in TABLE, f"{module.__name__}.{n} resolves to no builtin"
        assert _same(_table_params(key), actual_parameters(f)), f"{module.__name__}.{n} vs {key}"
    if module is not tl.core and not is_libdevice:
        for n, f in _functions(module).items():
            assert getattr(tl, n) is f, f"tl.{n} should be {module.__name__}.{n}"


def test_cuda_libdevice_is_libdevice():
    assert set(libdevice.__all__) == set(cuda_libdevice.__all__)
    for n in libdevice.__all__:
        assert getattr(cuda_libdevice, n) is getattr(libdevice, n)
    assert tl.extra.libdevice is libdevice
    assert tl.extra.cuda.libdevice is cuda_libdevice


_TENSOR_ATTRIBUTES = {"dtype", "shape", "numel", "ndim", "T"}  # lower_expr.cpp attribute()


def _tensor_methods():
    return {n: f for n, f in vars(tl.tensor).items()
            if isinstance(f, types.FunctionType) and not n.startswith("_")}


def test_tensor_methods_resolve():
    """x.name resolves to the builtin tensor.name, else to tl.name with x as
    the first argument (lower_expr.cpp): each method has that builtin's
    parameters with the first one named self."""
    for n, f in _tensor_methods().items():
        if f"tensor.{n}" in TABLE:
            expected = _table_params(f"tensor.{n}")
        else:
            assert f"tl.{n}" in TABLE, f"tensor.{n} resolves to no builtin"
            expected = _table_params(f"tl.{n}")
            assert expected and expected[0][1] == inspect.Parameter.POSITIONAL_OR_KEYWORD
            expected = [("self",) + expected[0][1:]] + expected[1:]
        assert _same(expected, actual_parameters(f)), f"tensor.{n}"
    for n in _TENSOR_ATTRIBUTES:
        assert isinstance(vars(tl.tensor)[n], property), n


def test_range_stubs():
    """tl.range and tl.static_range take (arg1, arg2=None, step=None) plus the
    keyword hints that lower_control.cpp accepts."""
    text = (FRONTEND / "lower_control.cpp").read_text()
    accepted = set(re.findall(r'k\.name\s*[!=]=\s*"(\w+)"', text))
    assert {"arg1", "arg2", "step", "num_stages"} <= accepted
    for cls in (tl.range, tl.static_range):
        params = actual_parameters(cls)
        assert [p[0] for p in params[:3]] == ["arg1", "arg2", "step"]
        assert all(p[2] is None for p in params[1:3])
        assert {p[0] for p in params} <= accepted, cls


def test_stubs_cover_the_extension_names():
    """Every name the extension reports (tessera._C.builtin_names()) has a stub."""
    try:
        ext = _import("tessera._ext").load()
    except ImportError as e:
        pytest.skip(f"the extension tessera._C is not available: {e}")
    names = list(ext.builtin_names())
    if not names:
        pytest.skip("the extension reports no builtin names")
    missing, unchecked = [], []
    for n in names:
        if _exempt(n):
            continue
        try:
            if resolve(n) is None:
                missing.append(n)
        except _Unavailable:
            unchecked.append(n)
    assert not missing, f"builtins without a Python stub: {missing}"
    if unchecked:
        print(f"not checked (the tessera package does not import yet): {unchecked}")


# ---------------------------------------------------------------------------- docs, host calls


def _all_stubs():
    """(qualified name, callable) of every stub."""
    out = []
    for module, prefix in ((tl, "tl"), (libdevice, "libdevice"), (tl.extra.cuda, "cuda")):
        for n, f in _functions(module).items():
            out.append((f"{prefix}.{n}", f))
    for n, f in _tensor_methods().items():
        out.append((f"tensor.{n}", f))
    for n, f in vars(tl.tensor_descriptor).items():
        if isinstance(f, types.FunctionType) and not n.startswith("_"):
            out.append((f"tensor_descriptor.{n}", f))
    return out


def _dummy_args(f):
    sig = inspect.signature(f)
    return [None for p in sig.parameters.values()
            if p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty]


def test_every_stub_is_documented():
    undocumented = [n for n, f in _all_stubs() if not (f.__doc__ or "").strip()]
    assert not undocumented
    for n in _TENSOR_ATTRIBUTES:
        assert vars(tl.tensor)[n].__doc__, f"tensor.{n}"
    for cls in (tl.tensor, tl.tensor_descriptor, tl.constexpr, tl.dtype, tl.pointer_type,
                tl.block_type, tl.range, tl.static_range, tl.PropagateNan):
        assert (cls.__doc__ or "").strip(), cls.__name__
    for mod in (tl, tl.core, tl.descriptor, tl.math, tl.standard, tl.random, tl.extra, libdevice,
                tl.extra.cuda, cuda_libdevice):
        assert (mod.__doc__ or "").strip(), mod.__name__


def test_every_stub_annotates_its_result():
    for n, f in _all_stubs():
        assert "return" in f.__annotations__, n


# Functions that work on the host too, as Triton's do.
_HOST_FUNCTIONS = {"tl.aggregate_replace"}


@pytest.mark.parametrize("name,fn", [s for s in _all_stubs() if s[0] not in _HOST_FUNCTIONS],
                         ids=[n for n, _ in _all_stubs() if n not in _HOST_FUNCTIONS])
def test_stub_raises_on_host(name, fn):
    with pytest.raises(RuntimeError) as info:
        fn(*_dummy_args(fn))
    assert str(info.value) == f"{name} can only be called inside a @tessera.jit kernel"


def test_classes_and_properties_raise_on_host():
    for cls, name in ((tl.range, "tl.range"), (tl.static_range, "tl.static_range"),
                      (tl.tensor, "tl.tensor")):
        with pytest.raises(RuntimeError, match=re.escape(f"{name} can only be called inside")):
            cls(4)
    for n in _TENSOR_ATTRIBUTES:
        with pytest.raises(RuntimeError, match=re.escape(f"tensor.{n} can only be called")):
            vars(tl.tensor)[n].fget(None)
    with pytest.raises(RuntimeError, match=re.escape("tensor.__add__ can only be called")):
        tl.tensor.__add__(None, 1)


def test_load_message_example():
    with pytest.raises(RuntimeError, match=r"^tl\.load can only be called inside a @tessera\.jit kernel$"):
        tl.load(None)


# ---------------------------------------------------------------------------- dtypes


def _dtypes_def():
    """(triton attribute name, bits, class) rows of src/ir/dtypes.def."""
    rows = []
    for m in re.finditer(r'^DTYPE\((\w+), "(\w+)", "(\w+)", "(\w+)", (\d+), (\w+)\)',
                         (REPO / "src" / "ir" / "dtypes.def").read_text(), re.M):
        rows.append((m.group(3), m.group(4), int(m.group(5)), m.group(6)))
    assert len(rows) >= 15
    return rows


def test_dtypes_match_the_compiler():
    for attr, sig, bits, cls in _dtypes_def():
        d = getattr(tl, attr)
        assert isinstance(d, tl.dtype)
        assert d.primitive_bitwidth == bits, attr
        assert d.is_floating() == (cls == "Float"), attr
        assert d.is_int_signed() == (cls == "Signed"), attr
        assert d.is_int_unsigned() == (cls in ("Unsigned", "Bool")), attr  # int1: Triton's rule
        assert d.is_bool() == (cls == "Bool"), attr
        # Triton's names: the signature spelling for floats, the attribute for integers
        assert d.name == (sig if cls == "Float" else attr), attr
        assert str(d) == d.name


def test_dtype_names():
    expected = {
        "int1": "int1", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
        "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
        "float8e4nv": "fp8e4nv", "float8e5": "fp8e5", "float16": "fp16", "bfloat16": "bf16",
        "float32": "fp32", "float64": "fp64",
    }
    for attr, name in expected.items():
        assert getattr(tl, attr).name == name
        assert str(getattr(tl, attr)) == name
        assert repr(getattr(tl, attr)) == f"tessera.language.{attr}"
    # aliases the compiler accepts
    assert tl.bool is tl.int1
    assert tl.float8e4m3fn is tl.float8e4nv
    assert tl.float8e5m2 is tl.float8e5
    # Triton's other fp8 formats (test_fp8_formats.py runs them)
    for name in ("float8e4b15", "float8e4b8", "float8e5b16"):
        assert getattr(tl, name).is_fp8() and getattr(tl, name).primitive_bitwidth == 8
    assert not hasattr(tl, "void")
    assert tl.str_to_ty("fp16") is tl.float16 or tl.str_to_ty("fp16") == tl.float16
    assert tl.str_to_ty("*i32") == tl.pointer_type(tl.int32)
    assert tl.str_to_ty("bf16", None) == tl.bfloat16  # Triton's (name, constexpr) form


def test_dtype_predicates_and_sizes():
    assert tl.float32.is_fp32() and tl.float32.is_floating() and not tl.float32.is_int()
    assert tl.float16.is_fp16() and tl.bfloat16.is_bf16() and tl.float64.is_fp64()
    assert tl.float8e4nv.is_fp8() and tl.float8e5.is_fp8() and not tl.float16.is_fp8()
    assert tl.float16.is_standard_floating() and not tl.float8e5.is_standard_floating()
    assert tl.int32.is_int() and tl.int32.is_int_signed() and not tl.int32.is_int_unsigned()
    assert tl.uint8.is_int() and tl.uint8.is_int_unsigned() and not tl.uint8.is_int_signed()
    assert tl.int1.is_bool() and tl.int1.is_int() and not tl.int8.is_bool()
    assert [d.itemsize for d in (tl.int1, tl.int8, tl.float16, tl.bfloat16, tl.float32, tl.int64,
                                 tl.float64, tl.float8e5)] == [1, 1, 2, 2, 4, 8, 8, 1]
    assert [d.primitive_bitwidth for d in (tl.int1, tl.uint16, tl.float32, tl.uint64)] == [1, 16, 32, 64]
    assert tl.float16.fp_mantissa_width == 10 and tl.bfloat16.fp_mantissa_width == 7
    assert tl.float32.fp_mantissa_width == 23 and tl.float8e4nv.fp_mantissa_width == 3
    assert tl.int16.int_bitwidth == 16 and tl.float32.int_bitwidth == 0
    assert tl.float32.scalar is tl.float32
    assert not tl.float32.is_ptr() and not tl.float32.is_block()


def test_dtype_equality_and_hash():
    assert tl.float32 == tl.dtype("fp32") and hash(tl.float32) == hash(tl.dtype("fp32"))
    assert tl.float32 != tl.float16
    assert tl.float32 != "fp32"  # only dtypes compare equal to dtypes
    assert {tl.float32: 1}[tl.dtype("fp32")] == 1
    assert len({tl.int1, tl.bool, tl.int8, tl.dtype("int8")}) == 2
    with pytest.raises(ValueError, match="unknown dtype"):
        tl.dtype("fp128")
    import copy
    assert copy.deepcopy(tl.bfloat16) == tl.bfloat16  # through __reduce__, as pickle
    fn, args = tl.pointer_type(tl.int8).__reduce__()
    assert fn(*args) == tl.pointer_type(tl.int8)


def test_pointer_and_block_types():
    p = tl.pointer_type(tl.float16)
    assert p.is_ptr() and not p.is_floating() and p.element_ty is tl.float16
    assert p.name == "pointer<fp16>" and str(p) == "pointer<fp16>"
    assert p == tl.pointer_type(tl.float16) and p != tl.pointer_type(tl.float32)
    assert p != tl.float16 and tl.float16 != p
    assert hash(p) == hash(tl.pointer_type(tl.float16))
    assert p.primitive_bitwidth == 64 and p.itemsize == 8 and p.address_space == 1
    b = tl.block_type(tl.float32, [16, tl.constexpr(32)])
    assert b.is_block() and b.shape == (16, 32) and b.numel == 512 and b.scalar is tl.float32
    assert b == tl.block_type(tl.float32, (16, 32)) and b != tl.block_type(tl.float32, (32, 16))
    with pytest.raises(TypeError):
        tl.pointer_type("fp32")


def test_dtype_names_are_understood_by_the_runtime():
    """The runtime maps tl.dtype names to signature names (runtime/arrays.py)."""
    try:
        arrays = importlib.import_module("tessera.runtime.arrays")
    except ImportError as e:
        pytest.skip(f"tessera.runtime.arrays is not importable: {e}")
    for attr, sig, _, _ in _dtypes_def():
        assert arrays.signature_dtype(getattr(tl, attr)) == sig


def test_constants():
    assert tl.TRITON_MAX_TENSOR_NUMEL == 1 << 20
    assert tl.PropagateNan.NONE == 0 and tl.PropagateNan.ALL != 0
    assert type(tl.PropagateNan.ALL) is int  # usable as a compile-time constant


# ---------------------------------------------------------------------------- constexpr


def test_constexpr_value_and_repr():
    c = tl.constexpr(16)
    assert c.value == 16 and repr(c) == "constexpr[16]"
    assert tl.constexpr(c).value == 16  # no nesting
    assert type(c).__name__ == "constexpr"  # what the runtime looks for
    assert tl.constexpr(tl.float16).value is tl.float16


def test_constexpr_arithmetic_and_comparisons():
    c = tl.constexpr(12)
    assert isinstance(c + 1, tl.constexpr)
    assert (c + 1).value == 13 and (1 + c).value == 13 and (c + c).value == 24
    assert (c - 2).value == 10 and (20 - c).value == 8
    assert (c * 2).value == 24 and (c / 8).value == 1.5 and (c // 5).value == 2
    assert (c % 5).value == 2 and (c ** 2).value == 144 and (2 ** tl.constexpr(3)).value == 8
    assert (c << 1).value == 24 and (c >> 2).value == 3
    assert (c & 4).value == 4 and (c | 1).value == 13 and (c ^ 15).value == 3
    assert (-c).value == -12 and (+c).value == 12 and (~c).value == ~12 and abs(tl.constexpr(-3)).value == 3
    assert c == 12 and c != 13 and c < 13 and c <= 12 and c > 11 and c >= 12
    assert not (c == 13)
    assert (c == tl.constexpr(12)).value is True


def test_constexpr_host_protocols():
    c = tl.constexpr(3)
    assert bool(c) and not bool(tl.constexpr(0))
    assert list(range(c)) == [0, 1, 2]
    assert ["a", "b", "c", "d"][c] == "d"
    assert int(tl.constexpr(2.5)) == 2 and float(c) == 3.0
    assert hash(c) == hash(3) and {3: "x"}[c] == "x" and {c: "y"}[3] == "y"
    assert tl.constexpr(max)(1, 5) == 5
    assert tl.constexpr(True).logical_and(False).value is False
    assert tl.constexpr(0).logical_or(7).value == 7


def test_constexpr_as_annotation():
    def kernel(x_ptr, BLOCK: tl.constexpr):  # noqa: ARG001
        pass

    import typing

    assert typing.get_type_hints(kernel)["BLOCK"] is tl.constexpr
    ns: dict = {}
    src = "def k(x_ptr, BLOCK: tl.constexpr = 128): pass"
    exec(compile(src, "<k>", "exec", dont_inherit=True), {"tl": tl}, ns)  # eager annotations
    assert ns["k"].__annotations__["BLOCK"] is tl.constexpr


# ---------------------------------------------------------------------------- modules and import cost


def test_module_layout():
    assert tl.math.exp is tl.exp and tl.standard.sum is tl.sum and tl.random.rand is tl.rand
    assert tl.core.load is tl.load
    from tessera.language.extra import libdevice as a
    from tessera.language.extra.cuda import libdevice as b
    assert a is libdevice and b is cuda_libdevice
    assert set(tl.__all__) <= set(dir(tl))


_IMPORT_PROBE = r"""
import sys, time, types
pydir = sys.argv[1]
sys.path.insert(0, pydir)
bare = sys.argv[2] == "bare"
if bare:  # only this part: tessera.language and tessera.testing
    pkg = types.ModuleType("tessera")
    pkg.__path__ = [pydir + "/tessera"]
    sys.modules["tessera"] = pkg
t0 = time.perf_counter()
try:
    import tessera.language
    if bare:
        import tessera.testing
except ImportError as e:
    print("IMPORT-ERROR", e)
    sys.exit(0)
dt = time.perf_counter() - t0
heavy = [m for m in ("numpy", "torch", "matplotlib", "pandas") if m in sys.modules]
print(dt * 1e3, ",".join(heavy))
"""


def _import_ms(mode: str, tmp_path) -> tuple[float, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")  # warm bytecode, outside the tree
    best, heavy = None, ""
    for _ in range(4):  # the first run compiles the bytecode
        r = subprocess.run([sys.executable, "-c", _IMPORT_PROBE, str(PYDIR), mode], env=env,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        out = r.stdout.strip()
        if out.startswith("IMPORT-ERROR"):
            pytest.skip(f"the tessera package does not import yet: {out}")
        ms, _, heavy = out.partition(" ")
        best = float(ms) if best is None else min(best, float(ms))
    return best, heavy.strip()


def test_import_cost_of_language_and_testing(tmp_path):
    ms, heavy = _import_ms("bare", tmp_path)
    print(f"import tessera.language + tessera.testing: {ms:.2f} ms")
    assert heavy == "", f"importing tessera.language/testing loaded {heavy}"
    assert ms < 30, f"tessera.language + tessera.testing took {ms:.1f} ms to import"


def test_import_cost_of_tessera_language(tmp_path):
    ms, heavy = _import_ms("full", tmp_path)
    print(f"import tessera.language (with the package): {ms:.2f} ms, heavy modules: {heavy or '-'}")
    assert ms < 100, f"import tessera.language took {ms:.1f} ms"

