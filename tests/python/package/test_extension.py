"""The extension module tessera._C (python/src/, contract python/tessera/_C.pyi)
on its own: compile, Kernel, (de)serialisation, Dispatcher keys and launches,
argument classification, error mapping, and how python/tessera/_ext.py finds
the module. Kernels run on the CPU interpreter against NumPy with fresh random
inputs and poisoned outputs.

set_error_types and set_resolver change process-wide state that the package
sets up for itself, so the tests of those two run in a child interpreter.
"""
import gc
import importlib.util
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import textwrap
import time
import weakref

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
EXT_PY = REPO / "python" / "tessera" / "_ext.py"


def _load_extension():
    spec = importlib.util.spec_from_file_location("_tessera_ext_loader", EXT_PY)
    loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loader)
    return loader.load()


try:
    C = _load_extension()
except ImportError as e:  # pragma: no cover - the ctest entry exists only when it is built
    pytest.skip(f"tessera._C is not built: {e}", allow_module_level=True)

SRC = """import triton
import triton.language as tl
@triton.jit
def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0)*BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)
"""
NAMES = ["x_ptr", "y_ptr", "n", "BLOCK"]
MODES = [C.RUNTIME, C.RUNTIME, C.RUNTIME, C.CONSTEXPR]


def compile_add(block=1024, x_div16=True, y_div16=True, n_div16=False, n_eq1=False, **opts):
    specs = [("ptr", "fp32", x_div16), ("ptr", "fp32", y_div16), ("scalar", "i32", n_div16, n_eq1),
             ("constexpr", ("int", block))]
    return C.compile([(SRC, "t.py", 1, 0, [])], "add", specs, **opts)


def encode(value):
    """The tagged-tuple encoding of a constexpr value (what the package does)."""
    if value is None:
        return ("none",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", value)
    return ("str", value)


def compile_for(dispatcher, args):
    """Compiles `add` for the specialisation the dispatcher computes."""
    specs = [s if s[0] != "constexpr" else ("constexpr", encode(s[1]))
             for s in dispatcher.specialize(args)]
    return C.compile([(SRC, "t.py", 1, 0, [])], "add", specs)


def aligned(n, dtype=np.float32, offset_elems=0):
    """A 1-D array whose first element is 16-byte aligned (plus an offset)."""
    itemsize = np.dtype(dtype).itemsize
    base = np.empty(n + 64 // itemsize + offset_elems, dtype)
    start = (-base.ctypes.data % 16) // itemsize + offset_elems
    out = base[start:start + n]
    assert (out.ctypes.data - offset_elems * itemsize) % 16 == 0
    return out


@pytest.fixture(scope="module")
def add_kernel():
    return compile_add()


# ------------------------------------------------------------------ module


def test_module_constants():
    assert C.CAPI_VERSION >= 2
    assert isinstance(C.VERSION, str) and C.VERSION
    assert (C.RUNTIME, C.NOSPEC, C.NOALIGN, C.CONSTEXPR) == (0, 1, 2, 3)
    names = C.builtin_names()
    assert isinstance(names, list) and "tl.load" in names and "tl.store" in names
    assert len(set(names)) == len(names)


def test_kernel_properties(add_kernel):
    k = add_kernel
    assert k.name == "add"
    assert k.stages == ["ttir-initial", "ttir"]
    assert k.params == [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("n", "i32")]
    for stage in k.stages:
        assert "add" in k.ir(stage)
    with pytest.raises(ValueError, match="no IR stage 'nope'"):
        k.ir("nope")
    assert "add" in repr(k)
    with pytest.raises(TypeError):
        C.Kernel()


def test_compile_options():
    k = compile_add(debug=True, optimize=False)
    assert k.params == [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("n", "i32")]
    assert compile_add(passes="canonicalize").stages


@pytest.mark.parametrize("n", [1, 1000, 1024, 4099])
def test_kernel_run_against_numpy(rng, add_kernel, n):
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n + 7, np.nan, np.float32)  # poisoned, and longer than n
    add_kernel.run([x, y, n], ((n + 1023) // 1024, 1, 1))
    np.testing.assert_array_equal(y[:n], x * 2)
    assert np.isnan(y[n:]).all()  # masked off: never written


def test_kernel_run_threads_and_grid_forms(rng, add_kernel):
    n = 5000
    x = rng.standard_normal(n).astype(np.float32)
    for grid, threads in [((5, 1, 1), 1), ((5,), 2), ([5, 1], 0)]:
        y = np.full(n, np.nan, np.float32)
        add_kernel.run((x, y, n), grid, num_threads=threads)
        np.testing.assert_array_equal(y, x * 2)
    y = np.full(n, np.nan, np.float32)
    add_kernel.run([x, y, n], (0, 1, 1))  # an empty grid runs nothing
    assert np.isnan(y).all()
    for bad in [(-1, 1, 1), (1, 1, 1, 1), (), "x", (1.5,)]:
        with pytest.raises(ValueError):
            add_kernel.run([x, y, n], bad)


def test_kernel_run_scalars_and_memoryviews(rng, add_kernel):
    n = 300
    x = rng.standard_normal(n).astype(np.float32)
    y = bytearray(4 * n)
    add_kernel.run([memoryview(x), memoryview(y), np.int64(n)], (1, 1, 1))  # NumPy int scalar
    np.testing.assert_array_equal(np.frombuffer(y, np.float32), x * 2)


def test_strided_views_are_bounded_by_their_extent(add_kernel):
    base = np.arange(20, dtype=np.float32)
    view = base[::2]  # 10 elements spanning 19 floats: the kernel may touch 19
    y = np.full(32, np.nan, np.float32)
    add_kernel.run([view, y, 19], (1, 1, 1))
    np.testing.assert_array_equal(y[:19], base[:19] * 2)
    with pytest.raises(Exception, match=r"out-of-bounds load .*element 19 of buffer x_ptr"):
        add_kernel.run([view, y, 20], (1, 1, 1))


def test_out_of_bounds_names_the_program(add_kernel):
    x = np.zeros(1500, np.float32)
    y = np.zeros(3000, np.float32)
    with pytest.raises(Exception) as info:
        add_kernel.run([x, y, 3000], (3, 1, 1))
    msg = str(info.value)
    assert "out-of-bounds load in kernel add" in msg
    assert "program (1, 0, 0)" in msg  # the lowest failing program
    assert "t.py:7:" in msg
    assert not msg.endswith("\n")


def test_compile_error_message():
    bad = SRC.replace("* 2", "* undefined_name")
    with pytest.raises(Exception) as info:
        C.compile([(bad, "t.py", 1, 0, [])], "add",
                  [("ptr", "fp32", True), ("ptr", "fp32", True), ("scalar", "i32", False, False),
                   ("constexpr", ("int", 64))])
    assert "t.py:7:" in str(info.value) and "undefined name 'undefined_name'" in str(info.value)


def test_compile_units_globals_and_callees(rng):
    helper = "def twice(v):\n    return v * FACTOR\n"
    kernel = textwrap.dedent("""\
        @triton.jit
        def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            m = offs < n
            tl.store(y_ptr + offs, twice(tl.load(x_ptr + offs, mask=m)) + OFFSET, mask=m)
        """)
    units = [
        (kernel, "k.py", 10, 0, [("triton", "module", "triton"), ("tl", "module", "triton.language"),
                                 ("twice", "jit", (1, "twice")), ("OFFSET", "const", ("float", 0.5))]),
        (helper, "h.py", 3, 4, [("FACTOR", "const", ("int", 3))]),
    ]
    k = C.compile(units, "scale", [("ptr", "fp32", False), ("ptr", "fp32", False),
                                   ("scalar", "i32", False, False), ("constexpr", ("int", 64))])
    x = rng.standard_normal(50).astype(np.float32)
    y = np.full(50, np.nan, np.float32)
    k.run([x, y, 50], (1, 1, 1))
    np.testing.assert_allclose(y, x * 3 + 0.5, rtol=1e-6)
    units[0][4].append(("helper", "opaque", "a Python function that is not @jit"))
    bad = (kernel.replace("twice(tl.load", "helper(tl.load"), "k.py", 10, 0, units[0][4])
    with pytest.raises(Exception, match="not @jit"):
        C.compile([bad, units[1]], "scale", [("ptr", "fp32", False), ("ptr", "fp32", False),
                                              ("scalar", "i32", False, False), ("constexpr", ("int", 64))])


def test_aggregate_class_encoding(rng):
    # ("tupletype", "Name(fields)", defaults, [(name, binds self, value), ...]):
    # an aggregate class whose methods are @jit functions of other units.
    kernel = textwrap.dedent("""\
        @triton.jit
        def k(x_ptr, y_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs)
            p = P.make(x, x * 2)
            tl.store(y_ptr + offs, p.total())
        """)
    total = "def total(self):\n    return self.a + self.b\n"
    make = "def make(a, b):\n    return P(a, b)\n"
    cls = ("tupletype", "P(a,b)", [], [("total", True, ("function", 1, "total")),
                                       ("make", False, ("function", 2, "make"))])
    glob = [("triton", "module", "triton"), ("tl", "module", "triton.language"), ("P", "const", cls)]
    units = [(kernel, "k.py", 1, 0, glob), ("@jit\n" + total, "t.py", 1, 0, []),
             ("@jit\n" + make, "m.py", 1, 0, [("P", "const", cls)])]
    specs = [("ptr", "fp32", False), ("ptr", "fp32", False), ("constexpr", ("int", 32))]
    k = C.compile(units, "k", specs)
    x = rng.standard_normal(32).astype(np.float32)
    y = np.full(32, np.nan, np.float32)
    k.run([x, y], (1, 1, 1))
    np.testing.assert_allclose(y, x + x * 2, rtol=1e-6)
    for attr in [("total", True), ("total", True, ("function", 1, "total"), 4), "total"]:
        bad = [glob[0], glob[1], ("P", "const", ("tupletype", "P(a,b)", [], [attr]))]
        with pytest.raises(ValueError):
            C.compile([(kernel, "k.py", 1, 0, bad)] + units[1:], "k", specs)


@pytest.mark.parametrize("bad", [
    [("bogus",)],
    [("ptr", "fp32")],
    [("constexpr", ("int", 2**80))],
    [("constexpr", ("what", 1))],
    [("constexpr", 5)],
])
def test_malformed_specs_are_value_errors(bad):
    with pytest.raises(ValueError):
        C.compile([(SRC, "t.py", 1, 0, [])], "add", bad)


def test_constexpr_encodings_compile():
    src = textwrap.dedent("""\
        @triton.jit
        def k(out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, D: tl.constexpr,
              E: tl.constexpr, F: tl.constexpr, G: tl.constexpr):
            v = A + (1 if B else 0) + F[0] + F[1]
            if C is None:
                v = v + 1
            if D == "two":
                v = v + 2
            tl.store(out_ptr + tl.arange(0, 1), tl.zeros([1], dtype=G) + (v + E))
        """)
    glob = [("triton", "module", "triton"), ("tl", "module", "triton.language")]
    specs = [("ptr", "fp32", False), ("constexpr", ("int", 3)), ("constexpr", ("bool", True)),
             ("constexpr", ("none",)), ("constexpr", ("str", "two")), ("constexpr", ("float", 0.5)),
             ("constexpr", ("tuple", [("int", 10), ("int", 20)])), ("constexpr", ("dtype", "fp32"))]
    kernel = C.compile([(src, "c.py", 1, 0, glob)], "k", specs)
    out = np.full(1, np.nan, np.float32)
    kernel.run([out], (1, 1, 1))
    assert out[0] == 3 + 1 + 30 + 1 + 2 + 0.5


# ---------------------------------------------------------- serialisation


def test_serialize_round_trip(rng, add_kernel):
    data = add_kernel.serialize()
    assert isinstance(data, bytes) and data
    k2 = C.Kernel.deserialize(data)
    assert (k2.name, k2.stages, k2.params) == (add_kernel.name, add_kernel.stages, add_kernel.params)
    for stage in k2.stages:
        assert k2.ir(stage) == add_kernel.ir(stage)
    assert C.Kernel.deserialize(bytearray(data)).params == add_kernel.params
    n = 2000
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    k2.run([x, y, n], (2, 1, 1))
    np.testing.assert_array_equal(y, x * 2)
    with pytest.raises(Exception, match="out-of-bounds"):  # locations survive the round trip
        k2.run([x[:10], y, n], (1, 1, 1))


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_deserialize_rejects_bad_bytes(add_kernel, damage):
    data = bytearray(add_kernel.serialize())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[len(data) // 2] ^= 0x55
    elif damage == "empty":
        data = b""
    else:
        data = b"not a kernel at all"
    with pytest.raises(ValueError):
        C.Kernel.deserialize(bytes(data))


# -------------------------------------------------------------- dispatcher


def test_dispatcher_run_hits_only_after_add(rng):
    d = C.Dispatcher("add", NAMES, MODES)
    n = 1000
    x = aligned(n)
    x[:] = rng.standard_normal(n)
    y = aligned(n)
    y[:] = np.nan
    args = (x, y, n, 1024)
    assert len(d) == 0
    assert d.run(args, (1, 1, 1)) is None
    assert np.isnan(y).all()  # a miss runs nothing
    payload = object()
    d.add(args, None, compile_for(d, args), payload)
    assert len(d) == 1
    assert d.run(args, (1, 1, 1)) is payload
    np.testing.assert_array_equal(y, x * 2)
    y[:] = np.nan
    assert d.run(args, (0, 1, 1)) is payload  # an empty grid runs nothing
    assert np.isnan(y).all()
    assert d.run(args, (1, 1, 1), extra=(4, 3)) is None  # extra is part of the key
    d.add(args, (4, 3), compile_for(d, args), "other")
    assert d.run(args, (1, 1, 1), (4, 3)) == "other"
    assert d.run(args, (1, 1, 1), extra=(4, 3), num_threads=1) == "other"
    assert len(d) == 2
    d.clear()
    assert len(d) == 0 and d.run(args, (1, 1, 1)) is None


def test_dispatcher_add_replaces_same_key():
    d = C.Dispatcher("add", NAMES, MODES)
    x, y = aligned(16), aligned(16)
    k = compile_for(d, (x, y, 16, 1024))
    d.add((x, y, 16, 1024), None, k, "first")
    d.add((x, y, 16, 1024), None, k, "second")
    assert len(d) == 1 and d.run((x, y, 16, 1024), (0, 1, 1)) == "second"


def count_keys(d, arg_list):
    """Adds a kernel for every distinct key among `arg_list`; returns len(d)."""
    for args in arg_list:
        if d.run(args, (0, 1, 1)) is None:
            d.add(args, None, compile_for(d, args), args)
    return len(d)


def test_int_specialisation_keys():
    x, y = aligned(64), aligned(64)
    values = [1, 2, 4, 8, 16, 32]
    runtime = C.Dispatcher("add", NAMES, MODES)
    assert count_keys(runtime, [(x, y, v, 64) for v in values]) == 3  # ==1, plain, %16
    specs = [runtime.specialize((x, y, v, 64))[2] for v in values]
    assert specs == [("scalar", "i32", False, True)] + [("scalar", "i32", False, False)] * 3 + \
        [("scalar", "i32", True, False)] * 2
    nospec = C.Dispatcher("add", NAMES, [C.RUNTIME, C.RUNTIME, C.NOSPEC, C.CONSTEXPR])
    assert count_keys(nospec, [(x, y, v, 64) for v in values]) == 1
    noalign = C.Dispatcher("add", NAMES, [C.RUNTIME, C.RUNTIME, C.NOALIGN, C.CONSTEXPR])
    assert count_keys(noalign, [(x, y, v, 64) for v in values]) == 2  # ==1 kept, %16 dropped


def test_pointer_alignment_keys():
    n = 64
    x_al, x_off, y = aligned(n), aligned(n, offset_elems=1), aligned(n)
    d = C.Dispatcher("add", NAMES, MODES)
    assert d.specialize((x_al, y, n, 64))[0] == ("ptr", "fp32", True)
    assert d.specialize((x_off, y, n, 64))[0] == ("ptr", "fp32", False)
    assert count_keys(d, [(x_al, y, n, 64), (x_off, y, n, 64)]) == 2
    assert d.run((x_al, y, n, 64), (0, 1, 1)) is not d.run((x_off, y, n, 64), (0, 1, 1))
    for mode in (C.NOALIGN, C.NOSPEC):
        d2 = C.Dispatcher("add", NAMES, [mode, C.RUNTIME, C.RUNTIME, C.CONSTEXPR])
        assert d2.specialize((x_al, y, n, 64))[0] == ("ptr", "fp32", False)
        assert count_keys(d2, [(x_al, y, n, 64), (x_off, y, n, 64)]) == 1


def test_constexpr_keys_use_type_and_equality():
    d = C.Dispatcher("k", ["A"], [C.CONSTEXPR])
    k = C.compile([("def k(A: tl.constexpr):\n    pass\n", "c.py", 1, 0,
                    [("tl", "module", "triton.language")])], "k", [("constexpr", ("int", 1))])
    values = [1, True, 1.0, "1", None, (1, 2), 1024, 2**70]
    for v in values:
        assert d.run((v,), (1, 1, 1)) is None
        d.add((v,), None, k, ("payload", v))
    assert len(d) == len(values)  # True, 1 and 1.0 are different keys
    for v in values:
        assert d.run((v,), (1, 1, 1)) == ("payload", v)
    assert d.run((tuple([1, 2]),), (1, 1, 1)) == ("payload", (1, 2))  # equal, not identical
    assert d.run((int("1024"),), (1, 1, 1)) == ("payload", 1024)
    assert d.run((2.0,), (1, 1, 1)) is None
    assert d.run((False,), (1, 1, 1)) is None
    assert d.specialize((1024,)) == [("constexpr", 1024)]
    unhashable = [1, 2]
    d.add((unhashable,), None, k, "list")  # compared by equality alone
    assert d.run(([1, 2],), (1, 1, 1)) == "list"


def test_specialize_argument_kinds():
    names = ["a", "b"]
    d = C.Dispatcher("k", names, [C.RUNTIME, C.RUNTIME])
    cases = [
        (True, ("scalar", "i1", False, False)),
        (np.bool_(True), ("scalar", "i1", False, False)),
        (2.5, ("scalar", "fp32", False, False)),
        (np.float64(2.5), ("scalar", "fp32", False, False)),
        (np.float32(2.5), ("scalar", "fp32", False, False)),
        (7, ("scalar", "i32", False, False)),
        (np.int64(32), ("scalar", "i32", True, False)),
        (np.uint8(1), ("scalar", "i32", False, True)),
        # Only positive multiples of 16 are divisible (a zero or negative row
        # stride cannot go through the tensor memory accelerator).
        (0, ("scalar", "i32", False, False)),
        (-2**31, ("scalar", "i32", False, False)),
        (2**31, ("scalar", "i64", True, False)),
        (-2**63, ("scalar", "i64", False, False)),
        (2**63, ("scalar", "u64", True, False)),
        (2**64 - 1, ("scalar", "u64", False, False)),
        (None, ("constexpr", None)),
    ]
    for value, spec in cases:
        assert d.specialize((value, 0))[0] == spec, value
    dtypes = {np.bool_: "i1", np.int8: "i8", np.int16: "i16", np.int32: "i32", np.int64: "i64",
              np.uint8: "u8", np.uint16: "u16", np.uint32: "u32", np.uint64: "u64",
              np.float16: "fp16", np.float32: "fp32", np.float64: "fp64"}
    for dt, name in dtypes.items():
        assert d.specialize((aligned(4, dt), 0))[0] == ("ptr", name, True)
        assert d.specialize((np.zeros((3, 4), dt)[:, 1:], 0))[0][:2] == ("ptr", name)
    assert d.specialize((memoryview(bytearray(8)).cast("i"), 0))[0][:2] == ("ptr", "i32")
    assert d.specialize((np.zeros(()), 0))[0][:2] == ("ptr", "fp64")  # 0-d array: a pointer


def test_none_is_a_constexpr_not_a_runtime_argument(rng):
    d = C.Dispatcher("add", NAMES + ["opt"], MODES + [C.RUNTIME])
    n = 100
    x, y = aligned(n), aligned(n)
    x[:] = rng.standard_normal(n)
    y[:] = np.nan
    args = (x, y, n, 128, None)
    assert d.specialize(args)[4] == ("constexpr", None)
    d.add(args, None, compile_add(block=128, n_div16=False), "p")  # 3 runtime parameters
    assert d.run(args, (1, 1, 1)) == "p"
    np.testing.assert_array_equal(y, x * 2)
    with pytest.raises(ValueError, match="runtime parameters"):
        d.add((x, y, n, 128, 5), None, compile_add(block=128), "bad")


def test_type_errors_name_parameter_and_kernel():
    d = C.Dispatcher("add", NAMES, MODES)
    y = aligned(16)
    msg = ("argument 'x_ptr' of kernel 'add': expected a tensor, an array, an int, a float or "
           "a bool, got str (a string is a compile-time value: annotate the parameter "
           "`x_ptr: tl.constexpr` if that is what you meant)")
    with pytest.raises(TypeError) as info:
        d.run(("hello", y, 16, 64), (1, 1, 1))
    assert str(info.value) == msg
    with pytest.raises(TypeError) as info:
        d.specialize(("hello", y, 16, 64))
    assert str(info.value) == msg
    for bad, what in [(1j, "complex"), ([1.0], r"list \(pass a tuple to give the kernel a "
                       r"tuple\)"), (b"xy", "bytes"), ({}, "dict")]:
        with pytest.raises(TypeError, match=f"argument 'n' of kernel 'add': .* got {what}$"):
            d.run((y, y, bad, 64), (1, 1, 1))
    # Too large for any argument type: Python's error for that, as Triton's.
    with pytest.raises(OverflowError, match="argument 'n' of kernel 'add': the integer "
                       "18446744073709551616 does not fit"):
        d.run((y, y, 2**64, 64), (1, 1, 1))
    with pytest.raises(TypeError, match="takes 4 arguments, got 3"):
        d.run((y, y, 16), (1, 1, 1))
    with pytest.raises(TypeError):
        d.add((y, y, 16, 64), None, "not a kernel", None)
    with pytest.raises(ValueError):
        C.Dispatcher("add", NAMES, [0, 0, 0])
    with pytest.raises(ValueError):
        C.Dispatcher("add", NAMES, [0, 0, 0, 7])


def test_dispatcher_is_garbage_collected():
    class Payload:
        pass

    d = C.Dispatcher("add", NAMES, MODES)
    p = Payload()
    p.dispatcher = d  # a cycle through the payload
    x, y = aligned(16), aligned(16)
    d.add((x, y, 16, 64), None, compile_for(d, (x, y, 16, 64)), p)
    ref = weakref.ref(p)
    del d, p
    gc.collect()
    assert ref() is None


def test_dispatch_path_is_fast():
    """A hit with an empty grid (no interpreter work) costs about 1 us; this
    loose bound only catches gross regressions on a loaded machine."""
    d = C.Dispatcher("add", NAMES, MODES)
    x, y = aligned(1000), aligned(1000)
    args = (x, y, 1000, 1024)
    d.add(args, None, compile_for(d, args), "p")
    grid = (0, 1, 1)
    run = d.run
    times = []
    for _ in range(2000):
        t = time.perf_counter_ns()
        run(args, grid)
        times.append(time.perf_counter_ns() - t)
    assert statistics.median(times) < 20_000


# -------------------------------------------- process-wide state (children)


def run_child(body: str, env=None) -> str:
    """Runs `body` in a fresh interpreter with `C` (the extension), `np` and
    this file's helpers' source available; returns stdout."""
    prelude = textwrap.dedent(f"""\
        import importlib.util, sys
        import numpy as np
        spec = importlib.util.spec_from_file_location("_loader", {str(EXT_PY)!r})
        loader = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loader)
        C = loader.load()
        SRC = {SRC!r}
        SPECS = [("ptr", "fp32", False), ("ptr", "fp32", False), ("scalar", "i32", False, False),
                 ("constexpr", ("int", 64))]

        def expect(exc, fn, *contains):
            try:
                fn()
            except exc as e:
                for c in contains:
                    assert c in str(e), (c, str(e))
                return e
            raise AssertionError(exc.__name__ + " not raised")
        """)
    full_env = dict(os.environ, **(env or {}))
    proc = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(body)],
                          capture_output=True, text=True, env=full_env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_error_types_mapping():
    out = run_child("""
        class CompErr(Exception): pass
        class KernErr(Exception): pass
        k = C.compile([(SRC, "t.py", 1, 0, [])], "add", SPECS)
        oob = lambda: k.run([np.zeros(4, np.float32), np.zeros(64, np.float32), 64], (1, 1, 1))
        bad_src = [(SRC.replace("* 2", "* nope"), "t.py", 1, 0, [])]
        # The defaults before set_error_types: RuntimeError.
        e = expect(RuntimeError, oob, "out-of-bounds")
        assert type(e) is RuntimeError
        e = expect(RuntimeError, lambda: C.compile(bad_src, "add", SPECS), "undefined name")
        assert type(e) is RuntimeError
        C.set_error_types(CompErr, KernErr)
        expect(CompErr, lambda: C.compile(bad_src, "add", SPECS), "t.py:7:", "undefined name 'nope'")
        expect(KernErr, oob, "program (0, 0, 0)", "out-of-bounds load")
        expect(KernErr, lambda: k.run([np.zeros(64, np.float32)], (1, 1, 1)), "takes 3 runtime")
        expect(ValueError, lambda: k.ir("nope"), "no IR stage")
        expect(ValueError, lambda: C.Kernel.deserialize(b"junk"))
        expect(TypeError, lambda: C.set_error_types(1, KernErr))
        expect(TypeError, lambda: C.set_error_types(CompErr, int))
        expect(CompErr, lambda: C.compile(bad_src, "add", SPECS))  # unchanged by the failures
        print("ok")
        """)
    assert out.strip() == "ok"


def test_resolver():
    out = run_child("""
        class Wrapped:  # no buffer protocol: only the resolver knows it
            def __init__(self, a):
                self.a = a
        calls = []
        def resolver(obj):
            calls.append(type(obj).__name__)
            if isinstance(obj, Wrapped):
                return ("fp32", obj.a.ctypes.data, obj.a.nbytes)
            if isinstance(obj, np.ndarray):  # e.g. non-native byte order
                return ("fp32", obj.ctypes.data, obj.nbytes)
            raise TypeError(f"expected a tensor, got {type(obj).__name__}")
        k = C.compile([(SRC, "t.py", 1, 0, [])], "add", SPECS)
        d = C.Dispatcher("add", ["x_ptr", "y_ptr", "n", "BLOCK"], [0, 0, 0, 3])
        x = np.arange(64, dtype=np.float32)
        y = np.full(64, np.nan, np.float32)
        expect(TypeError, lambda: d.run((Wrapped(x), y, 64, 64), (1, 1, 1)),  # no resolver yet
               "argument 'x_ptr' of kernel 'add': expected a tensor, an array, an int, a float or a "
               "bool, got Wrapped")
        C.set_resolver(resolver)
        spec = d.specialize((Wrapped(x), y, 64, 64))
        assert spec[0][:2] == ("ptr", "fp32"), spec
        d.add((Wrapped(x), y, 64, 64), None, k, "p")
        assert d.run((Wrapped(x), y, 64, 64), (1, 1, 1)) == "p"
        assert (y == x * 2).all()
        y[:] = np.nan
        k.run([Wrapped(x), y, 64], (1, 1, 1))
        assert (y == x * 2).all()
        big_endian = x.astype(">f4")  # not a native format: asks the resolver
        assert d.specialize((big_endian, y, 64, 64))[0][:2] == ("ptr", "fp32")
        e = expect(TypeError, lambda: d.run((object(), y, 64, 64), (1, 1, 1)))
        assert str(e) == "argument 'x_ptr' of kernel 'add': expected a tensor, got object", e
        assert calls == ["Wrapped", "Wrapped", "Wrapped", "Wrapped", "ndarray", "object"], calls
        C.set_resolver(lambda obj: ("fp32", 0))
        expect(TypeError, lambda: d.run((Wrapped(x), y, 64, 64), (1, 1, 1)),
               "argument 'x_ptr' of kernel 'add': the resolver returned ('fp32', 0)")
        C.set_resolver(lambda obj: 1 / 0)
        expect(ZeroDivisionError, lambda: d.run((Wrapped(x), y, 64, 64), (1, 1, 1)))
        expect(TypeError, lambda: C.set_resolver(5))
        C.set_resolver(None)
        expect(TypeError, lambda: d.run((Wrapped(x), y, 64, 64), (1, 1, 1)), "got Wrapped")
        print("ok")
        """)
    assert out.strip() == "ok"


# ------------------------------------------------------------ finding _C


def test_ext_finds_build_dir_and_explains_absence(tmp_path):
    """_ext.load() of a copy of python/tessera outside any build: finds the
    module through TESSERA_BUILD_DIR, else raises ImportError saying what to run."""
    pkg = tmp_path / "repo" / "python" / "tessera"
    pkg.mkdir(parents=True)
    shutil.copy(EXT_PY, pkg / "_ext.py")
    (pkg / "__init__.py").write_text("")
    code = textwrap.dedent("""\
        import sys, time
        sys.path.insert(0, sys.argv[1])
        t = time.perf_counter()
        from tessera import _ext
        try:
            C = _ext.load()
        except ImportError as e:
            print("ImportError:", e)
        else:
            assert sys.modules["tessera._C"] is C and _ext.load() is C
            import tessera
            assert tessera._C is C
            print("loaded", C.__name__, C.__file__, time.perf_counter() - t)
        """)
    build = tmp_path / "build"  # a build tree holding (a link to) the module under test
    (build / "python" / "tessera").mkdir(parents=True)
    module_file = build / "python" / "tessera" / os.path.basename(C.__file__)
    module_file.symlink_to(C.__file__)
    env = dict(os.environ, TESSERA_BUILD_DIR=str(build))
    proc = subprocess.run([sys.executable, "-c", code, str(pkg.parent)], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    words = proc.stdout.split()
    assert words[:3] == ["loaded", "tessera._C", str(module_file)], proc.stdout
    assert float(words[3]) < 0.15  # part of `import tessera`'s budget
    env["TESSERA_BUILD_DIR"] = str(tmp_path / "nowhere")
    proc = subprocess.run([sys.executable, "-c", code, str(pkg.parent)], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ImportError:")
    assert "scripts/demo.sh" in proc.stdout and "pip install ." in proc.stdout
