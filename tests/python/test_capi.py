"""The C ABI itself (src/capi/capi.h): arg specs, constexpr value kinds,
globals, queries, error statuses, concurrency."""

from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest

import tessera_testing as tt
from tessera_testing import Dtype, assert_close, compile_kernel, compile_specs, poisoned, run

K = "capi_kernels.py"


def test_version() -> None:
    assert tt.lib().tessera_capi_version() == 1


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
    assert ctypes.sizeof(tt.CArgSpec) == 80
    assert ctypes.sizeof(tt.CRunArg) == 48
    assert ctypes.sizeof(tt.CCompileOptions) == 48
