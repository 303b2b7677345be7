"""@jit and kernel[grid](...): binding, specialisation, introspection,
callees across files, globals. Kernels run on the CPU interpreter against
NumPy with fresh random inputs and poisoned outputs."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl
from tessera.runtime import jit as jit_module

from kernels import callees
from kernels.callees import twice_scaled


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 128):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def store_n_kernel(out_ptr, n):
    tl.store(out_ptr, n)


@triton.jit(do_not_specialize=["n"])
def store_n_nospec_kernel(out_ptr, n):
    tl.store(out_ptr, n)


def poisoned(shape, dtype=np.float32):
    if np.dtype(dtype).kind == "f":
        return np.full(shape, np.nan, dtype=dtype)
    return np.full(shape, np.iinfo(dtype).max, dtype=dtype)


@pytest.mark.parametrize("n", [1, 100, 128, 1000, 4097])
def test_vector_add_grid_forms(rng, n):
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    for launch in (lambda out: add_kernel[(triton.cdiv(n, 128),)](x, y, out, n),
                   lambda out: add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n, BLOCK=64),
                   lambda out: add_kernel[(triton.cdiv(n, 256), 1, 1)](x_ptr=x, y_ptr=y, out_ptr=out, n=n, BLOCK=256)):
        out = poisoned(n)
        launch(out)
        np.testing.assert_allclose(out, x.astype(np.float64) + y, rtol=1e-6)


def test_launch_returns_compiled_kernel(rng):
    x = rng.standard_normal(256, dtype=np.float32)
    out = poisoned(256)
    k = add_kernel[(2,)](x, x, out, 256)
    assert set(k.asm) == {"ttir-initial", "ttir"}
    assert "func @add_kernel" in k.asm["ttir"]
    assert k.metadata.name == "add_kernel"
    assert k.metadata.num_warps == 4 and k.metadata.num_stages == 3 and k.metadata.shared == 0
    assert k.metadata.constants == {"BLOCK": 128}
    assert k.metadata.signature["x_ptr"] == "*fp32"
    k._init_handles()
    assert k.n_regs == 0 and k.n_spills == 0


def test_warmup_then_compiled_launch(rng):
    n = 300
    k = add_kernel.warmup(tl.float32, tl.float32, tl.float32, n, BLOCK=512, grid=(1,))
    k._init_handles()
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = poisoned(n)
    k[(1, 1, 1)](x, y, out, n, 512)  # all arguments, constexprs included, as Triton's tutorial does
    np.testing.assert_allclose(out, x.astype(np.float64) + y, rtol=1e-6)


def count_compiles(kernel, values, **kw):
    before = len(kernel._by_hash)
    out = np.zeros(1, dtype=np.int64)
    for v in values:
        kernel[(1,)](out, v, **kw)
        assert out[0] == v
    return len(kernel._by_hash) - before


def test_specialisation_counts():
    # 1 -> "== 1"; 2 and 4 and 8 -> plain; 16 and 32 -> "divisible by 16".
    assert count_compiles(store_n_kernel, [1, 2, 4, 8, 16, 32]) == 3
    assert count_compiles(store_n_nospec_kernel, [1, 2, 4, 8, 16, 32]) == 1
    # Large values change the integer type (i32 -> i64), as in Triton.
    assert count_compiles(store_n_nospec_kernel, [2**40]) == 1


def test_specialisation_facts_in_ir():
    out = np.zeros(1, dtype=np.int64)
    k16 = store_n_kernel[(1,)](out, 48)
    k1 = store_n_kernel[(1,)](out, 1)
    assert "divisibility = 16" in k16.asm["ttir-initial"]
    assert "equal_to_one" in k1.asm["ttir-initial"]


def test_alignment_specialisation(rng):
    x = rng.standard_normal(1025, dtype=np.float32)
    out = poisoned(1025)
    a = add_kernel[(1,)](x, x, out, 100)
    b = add_kernel[(1,)](x[1:], x[1:], out[1:], 100)
    assert a is not b
    assert a.asm["ttir-initial"].count("divisibility = 16") > b.asm["ttir-initial"].count("divisibility = 16")


@triton.jit
def callee_kernel(out_ptr, x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, callees.scaled(x) + twice_scaled(x))
    tl.store(out_ptr + BLOCK, tl.reduce(x, 0, callees.combine_max))


def test_callees_from_another_file(rng):
    x = rng.integers(-100, 100, 32).astype(np.int32)
    out = poisoned(33, np.int32)
    callee_kernel[(1,)](out, x, BLOCK=32)
    np.testing.assert_array_equal(out[:32], x * 3 + 2 * (x * 3))
    assert out[32] == x.max()


FACTOR = 2


@triton.jit
def global_kernel(out_ptr):
    tl.store(out_ptr, FACTOR * 10)


def test_global_constant_change_recompiles():
    global FACTOR
    out = np.zeros(1, dtype=np.int32)
    global_kernel[(1,)](out)
    assert out[0] == 20
    key = global_kernel.cache_key
    FACTOR = 5
    try:
        global_kernel[(1,)](out)
        assert out[0] == 50
        assert global_kernel.cache_key != key
    finally:
        FACTOR = 2


AS_FLOAT = tl.pointer_type(tl.float32)  # a pointer type as a global (Triton's type aliases)
INT_PTR = tl.pointer_type(tl.int32)


@triton.jit
def pointer_type_constants_kernel(x_ptr, out_ptr, PT: tl.constexpr, BLOCK: tl.constexpr):
    tl.static_assert(x_ptr.dtype == INT_PTR)
    tl.static_assert(PT == AS_FLOAT and PT.element_ty == tl.float32)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr.to(PT) + offs))  # the int32 words read as floats


def test_pointer_types_as_globals_and_constexprs(rng):
    x = rng.standard_normal(32).astype(np.float32)
    out = poisoned(32, np.float32)
    pointer_type_constants_kernel[(1,)](x.view(np.int32), out, PT=tl.pointer_type(tl.float32), BLOCK=32)
    np.testing.assert_array_equal(out, x)
    with pytest.raises(triton.CompilationError, match="static_assert"):
        pointer_type_constants_kernel[(1,)](x.view(np.int32), out, PT=tl.pointer_type(tl.int32), BLOCK=32)


def test_keyword_and_default_errors(rng):
    x = np.zeros(4, dtype=np.float32)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'n'"):
        add_kernel[(1,)](x, x, x)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        add_kernel[(1,)](x, x, x, 4, bogus=1)


def test_wrong_argument_type_names_parameter():
    x = np.zeros(4, dtype=np.float32)
    with pytest.raises(TypeError, match="y_ptr"):
        add_kernel[(1,)](x, "not an array", x, 4)


@triton.jit
def first_of(*dims):
    return dims[0]


@triton.jit
def weighted_total(a, *rest, scale=1, bias):  # *args, then keyword-only parameters
    s = a
    for r in tl.static_range(len(rest)):
        s = s + rest[r] * (r + 2)
    return s * scale + bias


@tl.core.builtin  # Triton's builtin-style function: compiled as @jit, _semantic gets None
def as_list(*args, _semantic=None):
    return list(args)


@triton.jit
def varargs_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    dims: tl.constexpr = (1, 0)
    tl.static_assert(first_of(*dims) == 1 and len(as_list(4, 8, 16)) == 3)
    tl.static_assert(as_list(4, 8, 16)[1] == 8 and tuple() == () and list((1, 2)) == (1, 2))
    tl.store(out_ptr + offs, weighted_total(x, x, x * x, scale=3, bias=first_of(x, 5)))
    tl.store(out_ptr + BLOCK + offs, weighted_total(x, bias=1.0))


def test_varargs_and_keyword_only_parameters_of_called_functions(rng):
    x = rng.standard_normal(16).astype(np.float32)
    out = poisoned(32, np.float32)
    varargs_kernel[(1,)](x, out, BLOCK=16)
    np.testing.assert_allclose(out[:16], (x + 2 * x + 3 * x * x) * 3 + x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[16:], x + 1, rtol=1e-6)
    with pytest.raises(TypeError, match="takes [*]args, which only functions called from kernels"):
        first_of[(1,)](x)


@triton.jit
def missing_keyword_only_kernel(out_ptr):
    tl.store(out_ptr, weighted_total(1.0, 2.0))


@triton.jit
def list_of_a_tensor_kernel(out_ptr):
    tl.store(out_ptr, list(tl.full((), 1.0, tl.float32)))


@pytest.mark.parametrize("kernel, message", [
    (missing_keyword_only_kernel, "weighted_total[(][)] missing required keyword-only argument 'bias'"),
    (list_of_a_tensor_kernel, "list[(][)] in a kernel takes a tuple or a list"),
])
def test_varargs_mistakes(kernel, message):
    with pytest.raises(triton.CompilationError, match=message):
        kernel[(1,)](np.zeros(1, np.float32))


def test_calling_jit_function_from_host_is_an_error():
    with pytest.raises(RuntimeError, match=r"add_kernel\[grid\]"):
        add_kernel(1, 2, 3, 4)


@triton.jit
def oob_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 64)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


def test_out_of_bounds_is_a_kernel_error():
    x = np.zeros(63, dtype=np.float32)
    out = np.zeros(64, dtype=np.float32)
    with pytest.raises(triton.KernelError) as e:
        oob_kernel[(1,)](x, out)
    msg = str(e.value)
    assert "test_jit.py:" in msg and "program" in msg and "63" in msg


@triton.jit
def assuming_kernel(x_ptr, n):
    tl.assume(n >= 0)
    tl.store(x_ptr, n + 1)


def test_a_false_assumption_stops_the_kernel_under_debug():
    # The compiler may act on tl.assume (reading a box of rows with the copy
    # engine), so debug mode checks it as it checks tl.device_assert.
    x = np.zeros(1, dtype=np.int32)
    assuming_kernel[(1,)](x, -5)  # not checked without debug
    assert x[0] == -4
    k = triton.jit(debug=True)(assuming_kernel.fn)
    k[(1,)](x, 7)
    assert x[0] == 8
    with pytest.raises(triton.KernelError, match="tl.assume failed: its condition is false") as e:
        k[(1,)](x, -5)
    assert "test_jit.py:" in str(e.value)


@triton.jit
def bad_kernel(x_ptr):
    y = undefined_name + 1  # noqa: F821
    tl.store(x_ptr, y)


def test_compilation_error_points_into_this_file():
    x = np.zeros(1, dtype=np.float32)
    with pytest.raises(triton.CompilationError) as e:
        bad_kernel[(1,)](x)
    msg = str(e.value)
    line = bad_kernel.fn.__code__.co_firstlineno + 2
    assert f"test_jit.py:{line}:" in msg
    assert "undefined_name" in msg and "^" in msg


@pytest.mark.parametrize("first_launch", [True, False])
def test_grid_validation(first_launch):
    """Every bad grid gets a message naming it, on the first launch (Python)
    and on later ones (the C++ Launcher hands bad grids to the same check)."""
    @triton.jit
    def fill(x_ptr, n, B: tl.constexpr):
        o = tl.arange(0, B)
        tl.store(x_ptr + o, 1.0, mask=o < n)

    x = np.zeros(4, dtype=np.float32)
    if not first_launch:
        fill[(1,)](x, 4, B=4)
    bad = [
        ((1, 1, 1, 1), ValueError, r"1 to 3 dimensions, got \(1, 1, 1, 1\)"),
        ((), ValueError, r"1 to 3 dimensions, got \(\)"),
        (("a",), TypeError, r"grid entries must be integers, got str in \('a',\)"),
        ((-2, 1), ValueError, r"must be >= 0, got \(-2, 1\)"),
        (4, TypeError, r"a grid is a tuple of 1 to 3 ints.*got 4 \(write \(4,\) for a 1-D grid\)"),
        (None, TypeError, r"a grid is a tuple of 1 to 3 ints.*got None"),
        (lambda meta: (), ValueError, r"the grid function '.*<lambda>' returned \(\)"),
    ]
    for grid, error, message in bad:
        with pytest.raises(error, match=message):
            fill[grid](x, 4, B=4)
    x[:] = 0
    fill[(0,)](x, 4, B=4)  # an empty grid runs nothing
    assert not x.any()
    fill[[1]](x, 4, B=4)  # any sequence of ints
    assert (x == 1).all()


def test_reinterpret_views(rng):
    bits = rng.integers(0, 2**16, 128).astype(np.uint16)
    out = poisoned(128, np.uint16)
    add_kernel[(1,)](triton.reinterpret(bits, tl.uint16), np.zeros(128, np.uint16), out, 128)
    np.testing.assert_array_equal(out, bits)


def test_backend_override(monkeypatch):
    @triton.jit
    def k(x_ptr):
        tl.store(x_ptr, 1.0)

    x = np.zeros(1, dtype=np.float32)
    monkeypatch.setenv("TESSERA_BACKEND", "gpu")
    ok, _ = triton.runtime.jit._ext().cuda_available()
    if ok:
        with pytest.raises(TypeError, match="host memory"):
            k[(1,)](x)
    else:
        with pytest.raises(RuntimeError, match="TESSERA_BACKEND=gpu: libcuda.so.1"):
            k[(1,)](x)
    monkeypatch.setenv("TESSERA_BACKEND", "cpu")
    k[(1,)](x)
    assert x[0] == 1.0


def test_do_not_specialize_on_alignment(rng):
    @triton.jit(do_not_specialize_on_alignment=["x_ptr"])
    def copy(x_ptr, out_ptr):
        offs = tl.arange(0, 16)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs))

    x = rng.standard_normal(33).astype(np.float32)
    out = poisoned(16)
    a = copy[(1,)](x, out)
    b = copy[(1,)](x[1:], out)
    assert a is b  # alignment of x_ptr is not part of the key
    np.testing.assert_array_equal(out, x[1:17])
    assert "divisibility = 16" not in a.asm["ttir-initial"].split("\n")[0].split("%out_ptr")[0]


@triton.jit
def _print_kernel(x_ptr, n):
    offs = tl.arange(0, 4)
    tl.device_print("x", tl.load(x_ptr + offs))
    tl.device_print("n ", n)


def test_device_print_lines(capfd):
    # The same lines as Triton's (and as the GPU back end's, tests/gpu).
    x = np.array([1.5, -2.0, 3.25, 4.0], dtype=np.float32)
    _print_kernel[(1,)](x, 7)
    out = capfd.readouterr().out
    for i, v in enumerate(["1.5", "-2", "3.25", "4"]):
        assert f"pid (0, 0, 0) idx ({i}) x: {v}\n" in out, out
    assert "pid (0, 0, 0) idx () n: 7\n" in out, out


def test_cubin_and_sass_are_made_from_the_ptx(tmp_path, monkeypatch):
    # asm["cubin"] / asm["sass"] of a GPU kernel, made on first access by
    # ptxas and cuobjdump (knobs.nvidia); here from tesserac's real PTX.
    import os
    import shutil
    import subprocess

    from tessera.compiler import _Asm

    build = os.environ.get("TESSERA_BUILD_DIR")
    tesserac = shutil.which("tesserac", path=build) if build else None
    ptxas = shutil.which("ptxas") or shutil.which("ptxas", path="/usr/local/cuda/bin")
    if not tesserac or not ptxas:
        pytest.skip("needs tesserac (TESSERA_BUILD_DIR) and NVIDIA's ptxas")
    src = tmp_path / "k.py"
    src.write_text("import triton\nimport triton.language as tl\n\n@triton.jit\n"
                   "def add(x, y):\n    o = tl.arange(0, 128)\n"
                   "    tl.store(y + o, tl.load(x + o) + 1)\n")
    ptx = subprocess.run([tesserac, "compile", str(src), "--kernel", "add", "--signature",
                          "*fp32:16, *fp32:16", "--emit", "ptx", "--target", "sm_90a"],
                         capture_output=True, text=True, check=True).stdout
    monkeypatch.setenv("TRITON_PTXAS_PATH", ptxas)
    asm = _Asm({"ttir": "func", "ptx": ptx})
    cubin = asm["cubin"]
    assert cubin[:4] == b"\x7fELF" and b"add" in cubin
    assert asm["cubin"] is cubin  # made once
    cuobjdump = shutil.which("cuobjdump") or shutil.which("cuobjdump", path="/usr/local/cuda/bin")
    if cuobjdump:
        monkeypatch.setenv("TRITON_CUOBJDUMP_PATH", cuobjdump)
        assert "FADD" in asm["sass"] and "EXIT" in asm["sass"]
    else:
        monkeypatch.setenv("PATH", str(tmp_path))
        with pytest.raises(KeyError, match="needs NVIDIA's cuobjdump"):
            asm["sass"]
    monkeypatch.setenv("TRITON_PTXAS_PATH", str(tmp_path / "missing"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(KeyError, match="needs NVIDIA's ptxas"):
        _Asm({"ptx": ptx})["cubin"]
    with pytest.raises(KeyError):
        _Asm({"ttir": "func"})["cubin"]  # a CPU kernel has no PTX


def _specialisation_name(sp):
    ones = "_".join(k for k, v in sp.constants.items() if isinstance(k, str) and v == 1)
    return f"{sp.name}_{sp.signature['value']}_{ones}_{sp.constants['MODE']}"


@triton.jit(repr=_specialisation_name)
def named_by_repr(value, is_one, out, MODE: tl.constexpr):
    tl.store(out, value + is_one)


@pytest.mark.parametrize("value,ty", [(-1, "i32"), (2**31, "i64"), (2**63, "u64")])
def test_repr_names_each_specialisation(value, ty):
    # Triton's @jit(repr=f): f(specialization) names the compiled kernel;
    # `signature` holds each parameter's type, `constants` the constexprs
    # and the integers specialised to 1, by parameter name.
    out = np.zeros(1, np.int64 if ty != "u64" else np.uint64)
    k = named_by_repr.warmup(value, 1, out, MODE=3, grid=(1,))
    assert k.name == f"named_by_repr_{ty}_is_one_3"


@triton.jit
def take_value_kernel(value, out):
    tl.store(out, value == value)


@pytest.mark.parametrize("value,fits", [(2**64 - 1, True), (2**64, False), (-2**63, True),
                                        (-2**63 - 1, False)])
def test_integer_arguments_past_64_bits_overflow(value, fits):
    # Python's (and Triton's) error for a number too large for its C type.
    out = np.zeros(1, np.int8)
    if fits:
        take_value_kernel[(1,)](value, out)
        assert out[0] == 1
    else:
        with pytest.raises(OverflowError, match="does not fit in a kernel argument"):
            take_value_kernel[(1,)](value, out)


# --------------------------------------------- @triton.constexpr_function


@triton.constexpr_function
def halved_above(b, limit):
    return b // 2 if b > limit else b


@triton.constexpr_function
def log2_by_loop(n):
    # Plain Python, run at compile time: names bound by assignment stay
    # numbers, and the loops run as Python runs them.
    r = 0
    while n > 1:
        n >>= 1
        r += 1
    for i in range(2):
        r += i
    return r - 1


@triton.constexpr_function
def rows_for(b):
    return halved_above(b, 8) * 2 - 1  # one constexpr function calling another


@triton.jit
def constexpr_function_kernel(out_ptr, x_ptr, B: tl.constexpr):
    H: tl.constexpr = halved_above(B, 8)
    offs = tl.arange(0, H)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * rows_for(B) + log2_by_loop(B))
    tl.static_assert(log2_by_loop(B) >= 0)  # a constexpr: static_assert takes it


@pytest.mark.parametrize("block", [4, 8, 64])
def test_constexpr_function_is_a_constexpr_in_kernels(rng, block):
    # The result sizes a tile (tl.arange needs a constexpr) and scales it.
    x = rng.integers(-100, 100, 64).astype(np.int32)
    out = np.full(64, -7, np.int32)
    constexpr_function_kernel[(1,)](out, x, B=block)
    h = block // 2 if block > 8 else block
    want = np.full(64, -7, np.int32)
    want[:h] = x[:h] * (2 * h - 1) + (block.bit_length() - 1)
    np.testing.assert_array_equal(out, want)


def test_constexpr_function_from_host_code():
    # A plain function to Python, constexpr arguments unwrapped, and not a
    # kernel: launching it is a TypeError that says so.
    assert halved_above(64, 8) == 32 and rows_for(tl.constexpr(4)) == 7 and log2_by_loop(64) == 6
    assert triton.constexpr_function is triton.runtime.jit.constexpr_function
    with pytest.raises(TypeError, match="constexpr_function.*not a kernel"):
        halved_above[(1,)](64, 8)


@triton.jit
def static_assert_kernel(out_ptr, B: tl.constexpr):
    tl.static_assert(B > 8, "B must exceed 8")
    tl.store(out_ptr, B)


def test_compiler_errors_module_is_an_attribute_after_import():
    # Triton's tests write `triton.compiler.errors.CompilationError` having
    # imported only `triton`; a fresh interpreter, since this one may have
    # imported the submodule already.
    pydir = pathlib.Path(triton.__file__).resolve().parents[1]
    code = (f"import sys; sys.path.insert(0, {str(pydir)!r}); import tessera; "
            "print(tessera.compiler.errors.CompilationError is tessera.CompilationError)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"


def test_compiler_errors_module_names_triton_classes():
    # `from triton.compiler.errors import ...`: a failed static_assert is a
    # CompileTimeAssertionFailure (a CompilationError) with the diagnostic;
    # other compile errors stay plain CompilationErrors.
    from tessera.compiler.errors import (CompilationError, CompileTimeAssertionFailure,
                                         UnsupportedLanguageConstruct)
    assert issubclass(UnsupportedLanguageConstruct, CompilationError)
    out = np.zeros(1, np.int32)
    with pytest.raises(CompileTimeAssertionFailure, match="static_assert failed: B must exceed 8"):
        static_assert_kernel[(1,)](out, B=4)
    static_assert_kernel[(1,)](out, B=16)
    assert out[0] == 16
    with pytest.raises(CompilationError) as e:
        constexpr_function_kernel[(1,)](out, out, B=3)  # tl.arange(0, 3): not a power of two
    assert type(e.value) is CompilationError


@triton.constexpr_function
def endless(n):
    while n > 0:
        n += 1
    return n


@triton.jit
def endless_kernel(out_ptr):
    tl.store(out_ptr, endless(1))


def test_constexpr_function_loop_that_does_not_end_is_a_diagnostic():
    with pytest.raises(triton.CompilationError, match="while loop ran 100000 times"):
        endless_kernel[(1,)](np.zeros(1, np.int32))
