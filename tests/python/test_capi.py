"""The C ABI itself (include/tessera/capi.h): arg specs, constexpr value kinds,
globals, queries, error statuses, concurrency."""

from __future__ import annotations

import ctypes
import re
import threading

import numpy as np
import pytest

import tessera_testing as tt
from tessera_testing import (Dtype, JitFn, ModuleAlias, Opaque, Unit, assert_close, compile_kernel,
                             compile_specs, compile_units, poisoned, run)

K = "capi_kernels.py"


def test_version() -> None:
    assert tt.lib().tessera_capi_version() == 8
    v = tt.lib().tessera_version().decode()
    assert re.fullmatch(r"tessera \d+\.\d+\.\d+ ir-[0-9a-f]{12}", v), v
    assert tt.lib().tessera_version().decode() == v


def test_specs_match_signature(rng: np.random.Generator) -> None:
    a = compile_specs(K, "scale_kernel", [("ptr", "fp32", 16), ("ptr", "float32"), ("scalar", "i32"), ("constexpr", 64)])
    b = compile_kernel(K, "scale_kernel", "*fp32:16, *fp32, i32, 64")
    assert a.ir() == b.ir()
    assert a.params == [("x_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n", "i32")]


def test_global_constant_override(rng: np.random.Generator) -> None:
    x = rng.standard_normal(100).astype(np.float32)
    for scale, want in [(None, 2), (3, 3), (0.5, 0.5)]:
        k = compile_specs(K, "scale_kernel", [("ptr", "fp32"), ("ptr", "fp32"), ("scalar", "i32"), ("constexpr", 64)],
                          globals=None if scale is None else {"SCALE": scale})
        out = poisoned(100, np.float32)
        run(k, 2, x, out, 100)
        assert_close(out, x * np.float32(want), rtol=0, atol=0)


def test_module_alias_global() -> None:
    k = compile_specs(K, "alias_kernel", [("ptr", "i32")], module_aliases={"lang": "triton.language"})
    out = poisoned(16, np.int32)
    run(k, 1, out)
    assert_close(out, np.arange(16, dtype=np.int32))


@pytest.mark.parametrize("d,size", [("fp64", 8.0), ("float16", 2.0), ("tl.bfloat16", 2.0)])
def test_constexpr_value_kinds(d: str, size: float) -> None:
    k = compile_specs(K, "constexpr_kinds_kernel",
                      [("ptr", "fp32"), ("constexpr", 7), ("constexpr", 2.25), ("constexpr", True),
                       ("constexpr", "yes"), ("constexpr", Dtype(d)), ("constexpr", (3, 4)), ("constexpr", None)])
    out = poisoned(7, np.float32)
    run(k, 1, out)
    assert_close(out, np.array([7, 2.25, 1, 1, size, 7, 1], np.float32), rtol=0, atol=0)


def test_scalar_run_args() -> None:
    k = compile_kernel(K, "scalar_types_kernel", "*fp64, i64, fp64, u32")
    out = poisoned(3, np.float64)
    run(k, 1, out, -(2**40), 0.1, 4_000_000_000)
    assert_close(out, np.array([-(2**40), 0.1, 4e9]), rtol=0, atol=0)
    run(k, 1, out, 5, 3, 1)  # an int is accepted for a float parameter
    assert_close(out, np.array([5, 3, 1.0]), rtol=0, atol=0)
    run(k, 1, out, 5, 3, -1)  # -1 is a u32's 2^32 - 1
    assert_close(out, np.array([5, 3, 2.0**32 - 1]), rtol=0, atol=0)


@pytest.mark.parametrize("value", [2**32, -(2**31) - 1])
def test_integer_argument_out_of_its_type_is_refused(value: int) -> None:
    # The register cannot hold it: an error, not a silently wrapped value.
    k = compile_kernel(K, "scalar_types_kernel", "*fp64, i64, fp64, u32")
    out = poisoned(3, np.float64)
    with pytest.raises(tt.KernelError, match=f"argument 3 .* is {value}, which u32 cannot hold: "
                       "pass a value in its range"):
        run(k, 1, out, 1, 0.5, value)
    assert np.isnan(out).all()


@pytest.mark.parametrize("spec,match", [
    (("ptr", "fp33"), "unknown dtype 'fp33'"),
    (("ptr", "fp32", 8), "divisibility must be 1 or 16"),
    (("scalar", "fp32", 16), "divisibility applies to pointers and integers"),
    (("ptr", "i32", 1, True), "equal_to_1 applies to integer scalars"),
])
def test_bad_specs(spec: tuple, match: str) -> None:
    with pytest.raises(tt.InvalidArgument, match=match):
        compile_specs(K, "scale_kernel", [spec, ("ptr", "fp32"), ("scalar", "i32"), ("constexpr", 64)])


def test_equal_to_1_specialisation() -> None:
    k = compile_specs(K, "scale_kernel", [("ptr", "fp32"), ("ptr", "fp32"), ("scalar", "i32", 1, True), ("constexpr", 64)])
    # n is known to be 1: it is still a runtime parameter of the signature.
    x = np.array([3.0], np.float32)
    out = poisoned(1, np.float32)
    run(k, 1, x, out, 1)
    assert out[0] == 6.0


def test_readonly_buffer_is_read_not_written(rng: np.random.Generator) -> None:
    # RUN_BUFFER_READONLY: loads read it, a store into it is an error that
    # names the parameter, before any byte changes.
    k = compile_kernel(K, "scale_kernel", "*fp32, *fp32, i32, 64")
    x = rng.standard_normal(100).astype(np.float32)
    x.setflags(write=False)
    out = poisoned(100, np.float32)
    run(k, 2, x, out, 100)
    assert_close(out, x * np.float32(2), rtol=0, atol=0)
    frozen = out.copy()
    out.setflags(write=False)
    with pytest.raises(tt.KernelError, match="store to read-only buffer out_ptr"):
        run(k, 2, x, out, 100)
    assert (out.view(np.uint32) == frozen.view(np.uint32)).all()


def test_null_and_range_errors() -> None:
    L = tt.lib()
    L.tessera_clear_error()
    assert L.tessera_kernel_name(None) is None
    assert L.tessera_last_status() == tt.TESSERA_ERROR_INVALID_ARGUMENT
    assert b"NULL" in L.tessera_last_error()
    k = compile_kernel(K, "scale_kernel", "*fp32, *fp32, i32, 64")
    assert L.tessera_kernel_param_name(k._h, 3) is None
    assert b"out of range" in L.tessera_last_error()
    assert L.tessera_kernel_stage_name(k._h, 2) is None
    assert L.tessera_compile_signature(None, b"k", b"", None) is None
    assert L.tessera_last_status() == tt.TESSERA_ERROR_INVALID_ARGUMENT
    L.tessera_clear_error()
    assert L.tessera_last_status() == tt.TESSERA_OK and L.tessera_last_error() == b""
    L.tessera_kernel_free(None)  # ignored


def test_default_options_and_null_opts() -> None:
    L = tt.lib()
    src = (tt.KERNELS / K).read_text().encode()
    h = L.tessera_compile_signature(src, b"scale_kernel", b"*fp32, *fp32, i32, 64", None)
    assert h
    L.tessera_kernel_free(h)
    h = L.tessera_compile_signature(src, b"scale_kernel", b"*fp32, *fp32, i32, 1000", None)
    assert not h and L.tessera_last_status() == tt.TESSERA_ERROR_COMPILATION
    assert L.tessera_last_error().startswith(b"<kernel>:")  # the default file name


def test_no_optimisation_and_custom_passes() -> None:
    k0 = compile_kernel(K, "scale_kernel", "*fp32, *fp32, i32, 64", optimize=False)
    assert k0.ir("ttir") == k0.ir("ttir-initial")
    k1 = compile_kernel(K, "scale_kernel", "*fp32, *fp32, i32, 64", passes="canonicalize, cse")
    assert k1.ir("ttir")
    with pytest.raises(tt.CompilationError, match="no_such_pass"):
        compile_kernel(K, "scale_kernel", "*fp32, *fp32, i32, 64", passes="no_such_pass", cache=False)


def test_error_is_thread_local() -> None:
    L = tt.lib()
    L.tessera_clear_error()
    seen = []

    def fail() -> None:
        L.tessera_kernel_name(None)
        seen.append(L.tessera_last_status())

    t = threading.Thread(target=fail)
    t.start()
    t.join()
    assert seen == [tt.TESSERA_ERROR_INVALID_ARGUMENT]
    assert L.tessera_last_status() == tt.TESSERA_OK


def test_concurrent_runs(rng: np.random.Generator) -> None:
    # A kernel handle is immutable: runs from several threads at once.
    k = compile_kernel("examples/vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 128")
    n = 5000
    xs = [rng.standard_normal(n).astype(np.float32) for _ in range(4)]
    outs = [poisoned(n, np.float32) for _ in range(4)]
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            run(k, tt.cdiv(n, 128), xs[i], xs[i], outs[i], n, num_threads=2)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for x, o in zip(xs, outs):
        assert_close(o, x + x, rtol=0, atol=0)


def test_debug_flag_changes_ir() -> None:
    src = """
import triton
import triton.language as tl

@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr)
    tl.device_assert(x > 0, "x must be positive")
    tl.store(x_ptr, x + 1)
"""
    try:
        k0 = compile_kernel(src, "k", "*i32", debug=False)
        k1 = compile_kernel(src, "k", "*i32", debug=True)
    except tt.CompilationError as e:
        if "that Tessera supports" in str(e):
            pytest.xfail("tl.device_assert is not in the front end yet")
        raise
    assert k0.ir() != k1.ir()
    x = np.array([0], np.int32)
    run(k0, 1, x)  # not checked without debug
    with pytest.raises(tt.KernelError, match="x must be positive"):
        run(k1, 1, np.array([0], np.int32))


def test_struct_sizes() -> None:
    # The ctypes mirror matches the C layout (LP64).
    assert ctypes.sizeof(tt.CValue) == 48
    assert ctypes.sizeof(tt.CArgSpec) == 96
    assert ctypes.sizeof(tt.CRunArg) == 48
    assert ctypes.sizeof(tt.CCompileOptions) == 80
    assert ctypes.sizeof(tt.CGlobal) == 96
    assert ctypes.sizeof(tt.CSourceUnit) == 40


def test_builtin_names() -> None:
    L = tt.lib()
    names = [L.tessera_builtin_name(i).decode() for i in range(L.tessera_builtin_count())]
    assert len(names) > 50
    assert names == sorted(set(names))
    for n in ("tl.load", "tl.store", "tl.dot", "tl.associative_scan", "builtins.min"):
        assert n in names
    assert L.tessera_builtin_name(len(names)) is None
    assert L.tessera_last_status() == tt.TESSERA_ERROR_INVALID_ARGUMENT
    L.tessera_clear_error()


# ---- several source units --------------------------------------------------------------------

KERNEL_UNIT = """import triton
import triton.language as tl

@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    scale_store(x_ptr, offs, n)
"""

# A function cut out of helpers.py (lines 41..43, indented by 4 there).
CALLEE_UNIT = """@triton.jit
def scale_store(p, offs, n):
    tl.store(p + offs, offs * SCALE, mask=offs < n)
"""


def scale_units(**callee_globals: object) -> list[Unit]:
    g = {"tl": ModuleAlias("triton.language"), "SCALE": 3}
    g.update(callee_globals)
    return [Unit(KERNEL_UNIT, "kernel.py", globals={"scale_store": JitFn(1, "scale_store")}),
            Unit(CALLEE_UNIT, "helpers.py", 41, 4, globals={k: v for k, v in g.items() if v is not None})]


SCALE_SPECS = [("ptr", "i32"), ("scalar", "i32"), ("constexpr", 16)]


def test_units_callee_globals() -> None:
    k = compile_units(scale_units(), "k", SCALE_SPECS)
    out = poisoned(40, np.int32)
    run(k, 3, out, 40)
    assert_close(out, 3 * np.arange(40, dtype=np.int32), rtol=0, atol=0)
    k7 = compile_units(scale_units(SCALE=7), "k", SCALE_SPECS)
    run(k7, 3, out, 40)
    assert_close(out, 7 * np.arange(40, dtype=np.int32), rtol=0, atol=0)


def test_units_nested_and_combine() -> None:
    units = [
        Unit("import triton.language as tl\n"
             "@triton.jit\n"
             "def k(x_ptr, out_ptr):\n"
             "    x = tl.load(x_ptr + tl.arange(0, 16))\n"
             "    tl.store(out_ptr + tl.arange(0, 16), tl.associative_scan(x, 0, combine))\n"
             "    tl.store(out_ptr + 16, tl.reduce(x, 0, combine))\n",
             "k.py", globals={"combine": JitFn(1, "combine")}),
        Unit("@triton.jit\ndef combine(a, b):\n    return add(a, b)\n", "combine.py",
             globals={"add": JitFn(2, "add")}),
        Unit("@triton.jit\ndef add(a, b):\n    return a + b + ZERO\n", "add.py", globals={"ZERO": 0}),
    ]
    k = compile_units(units, "k", [("ptr", "i32"), ("ptr", "i32")])
    x = np.arange(16, dtype=np.int32) * 3 - 5
    out = poisoned(17, np.int32)
    run(k, 1, x, out)
    assert_close(out[:16], np.cumsum(x).astype(np.int32), rtol=0, atol=0)
    assert out[16] == x.sum()


def test_units_host_module_attributes() -> None:
    # `callees.scaled(x)` with callees a user's module: each attribute used is a dotted global.
    units = [
        Unit("import triton.language as tl\n"
             "@triton.jit\n"
             "def k(out_ptr):\n"
             "    x = tl.arange(0, 8)\n"
             "    tl.store(out_ptr + x, callees.scaled(x))\n",
             "k.py", globals={"callees": ModuleAlias("kernels.callees"),
                              "callees.scaled": JitFn(1, "scaled")}),
        Unit("@triton.jit\ndef scaled(x):\n    return x * 3\n", "callees.py"),
    ]
    k = compile_units(units, "k", [("ptr", "i32")])
    out = poisoned(8, np.int32)
    run(k, 1, out)
    assert_close(out, 3 * np.arange(8, dtype=np.int32), rtol=0, atol=0)
    del units[0].globals["callees.scaled"]
    with pytest.raises(tt.CompilationError, match="module 'kernels.callees' has no attribute 'scaled'"):
        compile_units(units, "k", [("ptr", "i32")])


def test_units_error_in_callee() -> None:
    units = scale_units(SCALE=None)  # SCALE undefined in the callee's unit
    with pytest.raises(tt.CompilationError, match=r"helpers\.py:43:\d+: error: undefined name 'SCALE'"):
        compile_units(units, "k", SCALE_SPECS)


def test_units_opaque_globals() -> None:
    units = scale_units()
    units[0].globals["scale_store"] = Opaque("a Python function that is not @jit")
    with pytest.raises(tt.CompilationError) as e:
        compile_units(units, "k", SCALE_SPECS)
    msg = str(e.value)
    assert ("kernel.py:7:5: error: 'scale_store' is a Python function that is not @jit and cannot be "
            "called from a kernel") in msg
    assert "decorate it with @triton.jit" in msg
    with pytest.raises(tt.CompilationError, match="'SCALE' is a torch.Tensor and cannot be used inside a kernel"):
        compile_units(scale_units(SCALE=Opaque("a torch.Tensor")), "k", SCALE_SPECS)


def test_units_bad_arguments() -> None:
    units = scale_units()
    units[0].globals["scale_store"] = JitFn(2, "scale_store")
    with pytest.raises(tt.InvalidArgument, match=r"unit 0: global 0 \('scale_store'\): unit index 2 is out of range \(2 units\)"):
        compile_units(units, "k", SCALE_SPECS)
    units[0].globals["scale_store"] = JitFn(-1, "scale_store")
    with pytest.raises(tt.InvalidArgument, match="unit index -1"):
        compile_units(units, "k", SCALE_SPECS)
    with pytest.raises(tt.InvalidArgument, match="no source units"):
        compile_units([], "k", SCALE_SPECS)
    L = tt.lib()
    assert L.tessera_compile_units(None, 1, b"k", None, 0, None) is None
    assert L.tessera_last_status() == tt.TESSERA_ERROR_INVALID_ARGUMENT
    L.tessera_clear_error()


def test_single_source_jit_global_is_unit_zero() -> None:
    # tessera_compile is one unit: a JitFunction global may only name unit 0.
    src = KERNEL_UNIT + "\n" + CALLEE_UNIT.replace("scale_store", "store_v2").replace("SCALE", "5")
    k = compile_specs(src, "k", SCALE_SPECS, globals={"scale_store": JitFn(0, "store_v2")})
    out = poisoned(16, np.int32)
    run(k, 1, out, 16)
    assert_close(out, 5 * np.arange(16, dtype=np.int32), rtol=0, atol=0)
    with pytest.raises(tt.InvalidArgument, match=r"unit index 1 is out of range \(1 unit\)"):
        compile_specs(src, "k", SCALE_SPECS, globals={"scale_store": JitFn(1, "store_v2")})


# ---- serialisation -----------------------------------------------------------------------------

MATMUL_SIG = ("*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, "
              "32, 32, 16, 4, 'ieee'")
INVALID = "tessera: cached kernel is invalid: "


def test_serialize_round_trip(rng: np.random.Generator) -> None:
    k = compile_kernel("examples/matmul.py", "matmul_kernel", MATMUL_SIG)
    blob = tt.serialize(k)
    d = tt.deserialize(blob)
    assert (d.name, d.stages, d.params) == (k.name, k.stages, k.params)
    for stage in k.stages:
        assert d.ir(stage) == k.ir(stage)
    assert tt.serialize(d) == blob
    m, n, kk = 50, 33, 70
    a = rng.standard_normal((m, kk)).astype(np.float32)
    b = rng.standard_normal((kk, n)).astype(np.float32)
    c1, c2 = poisoned((m, n), np.float32), poisoned((m, n), np.float32)
    grid = tt.cdiv(m, 32) * tt.cdiv(n, 32)
    run(k, grid, a, b, c1, m, n, kk, kk, 1, n, 1, n, 1)
    run(d, grid, a, b, c2, m, n, kk, kk, 1, n, 1, n, 1)
    assert_close(c1, a.astype(np.float64) @ b, np.float32, rtol=1e-5, atol=1e-4)
    assert np.array_equal(c1, c2)


def test_serialize_out_of_bounds_message_is_identical() -> None:
    units = scale_units()
    units[0].file_name = "helpers.py"  # two units of one file
    k = compile_units(units, "k", SCALE_SPECS)
    d = tt.deserialize(tt.serialize(k))
    msgs = []
    for kern in (k, d):
        with pytest.raises(tt.KernelError) as e:
            run(kern, 4, np.zeros(20, np.int32), 64)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    assert "helpers.py:43:" in msgs[0] and "tl.store(p + offs, offs * SCALE" in msgs[0]


def expect_invalid(blob: bytes) -> str:
    with pytest.raises(tt.InvalidArgument) as e:
        tt.deserialize(blob)
    assert str(e.value).startswith(INVALID), str(e.value)
    return str(e.value)


def test_deserialize_rejects_damaged_bytes(rng: np.random.Generator) -> None:
    blob = tt.serialize(compile_units(scale_units(), "k", SCALE_SPECS))
    for size in range(len(blob)):
        expect_invalid(blob[:size])
    expect_invalid(blob + b"\0")
    for _ in range(500):
        b = bytearray(blob)
        b[int(rng.integers(len(b)))] ^= int(rng.integers(1, 256))
        expect_invalid(bytes(b))
    for _ in range(200):
        expect_invalid(rng.integers(0, 256, int(rng.integers(0, 300)), dtype=np.uint8).tobytes())
    L = tt.lib()
    assert L.tessera_kernel_deserialize(None, 10) is None
    assert L.tessera_last_error().decode().startswith(INVALID)
    L.tessera_clear_error()


def test_deserialize_rejects_other_versions() -> None:
    blob = tt.serialize(compile_units(scale_units(), "k", SCALE_SPECS))
    v = tt.lib().tessera_version()
    at = blob.index(v)
    last = blob[at + len(v) - 1:at + len(v)]
    other = blob[:at + len(v) - 1] + (b"0" if last != b"0" else b"1") + blob[at + len(v):]
    assert "was written by" in expect_invalid(other)


def test_serialize_bad_arguments() -> None:
    L = tt.lib()
    data, size = ctypes.c_void_p(), ctypes.c_size_t()
    assert L.tessera_kernel_serialize(None, ctypes.byref(data), ctypes.byref(size)) == tt.TESSERA_ERROR_INVALID_ARGUMENT
    assert not data.value and size.value == 0
    k = compile_kernel(K, "scale_kernel", "*fp32, *fp32, i32, 64")
    assert L.tessera_kernel_serialize(k._h, None, None) == tt.TESSERA_ERROR_INVALID_ARGUMENT
    L.tessera_clear_error()
    L.tessera_free(None)


TUPLE_SRC = """
import triton.language as tl

@triton.jit
def tuple_kernel(out, t, s):
    tl.store(out + 0, tl.load(t[0]) * t[1][0])
    tl.store(out + 1, s.y - s.x + t[1][1])
"""


def test_tuple_argument_specs(rng: np.random.Generator) -> None:
    # A TUPLE spec: the kernel sees the tuple (a namedtuple's fields by
    # name); it takes the runtime elements depth first, none for constexprs.
    specs = [("ptr", "fp32"),
             ("tuple", [("ptr", "fp32"), ("tuple", [("scalar", "fp32"), ("constexpr", 3)])]),
             ("tuple", [("scalar", "i32"), ("scalar", "i32")], "Pair(x,y)")]
    k = compile_specs(TUPLE_SRC, "tuple_kernel", specs)
    assert [n for n, _ in k.params] == ["out", "t_0", "t_1_0", "s_0", "s_1"]
    x = rng.standard_normal(1).astype(np.float32)
    out = poisoned(2, np.float32)
    run(k, 1, out, x, 2.5, 4, 11)
    assert_close(out, np.array([x[0] * 2.5, 11 - 4 + 3], np.float32))


@pytest.mark.parametrize("spec,match", [
    (("tuple", [("ptr", "fp32")], "Pair(x"), r"a namedtuple is described as \"Name\(field,...\)\""),
    (("tuple", [("ptr", "fp32")], "Pair(x,x)"), r"a namedtuple is described as"),
])
def test_bad_tuple_specs(spec: tuple, match: str) -> None:
    with pytest.raises(tt.InvalidArgument, match=match):
        compile_specs(TUPLE_SRC, "tuple_kernel", [("ptr", "fp32"), spec, ("constexpr", 0)])


WARNED = '''\
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, out_ptr, n):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.where(x, x, -1), mask=offs < n)
'''


def test_compile_warnings_are_kept_with_the_kernel(rng: np.random.Generator) -> None:
    k = compile_kernel(WARNED, "k", "*i32, *i32, i32", file_name="warned.py", cache=False)
    assert len(k.warnings) == 1
    text, file, line = k.warnings[0]
    assert (file, line) == ("warned.py", 8)
    assert text.startswith("warned.py:8:39: warning: tl.where with a non-boolean condition (int32)")
    lines = text.splitlines()  # the source line, a caret under the condition, the note
    assert lines[1] == "    " + WARNED.splitlines()[7] and lines[2] == " " * (4 + 38) + "^"
    assert lines[3].startswith("note: compare explicitly")
    x = rng.integers(-3, 3, 64).astype(np.int32)
    out = poisoned(64, np.int32)
    run(k, 1, x, out, 64)  # it still compiles and runs as Triton's does
    np.testing.assert_array_equal(out, np.where(x != 0, x, -1))
    clean = compile_kernel(WARNED.replace("tl.where(x,", "tl.where(x != 0,"), "k", "*i32, *i32, i32",
                           cache=False)
    assert clean.warnings == []
    L = tt.lib()
    assert L.tessera_kernel_warning(k._h, 1, None, None) is None  # out of range: an error status
    assert tt.lib().tessera_last_status() != 0
    tt.lib().tessera_clear_error()
