"""Bad or hostile input never crashes, hangs or gives a silent wrong answer
(issue 13). Each case once did: a case that crashed or hung the process runs
in a child interpreter with a timeout, so a regression fails one test
instead of killing the suite."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[3] / "python"


_children = 0


def run_child(body: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs `body` in a fresh interpreter that imports tessera from this tree;
    returns the finished process (a crash is a negative return code)."""
    prelude = textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(PYTHON_DIR)!r})
        import numpy as np
        import tessera as triton
        import tessera.language as tl
        """)
    global _children
    _children += 1
    # A file, not -c: kernels are read from their source file.
    script = pathlib.Path(os.environ["TESSERA_CACHE_DIR"]) / f"robustness_child_{_children}.py"
    script.write_text(prelude + textwrap.dedent(body))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ))


_sources = 0


def kernel_from_source(src: str, name: str = "k"):
    """The @jit kernel `name` of `src` (a def), from a module on disk (the
    front end reads a kernel's source from its file)."""
    global _sources
    _sources += 1
    path = pathlib.Path(os.environ["TESSERA_CACHE_DIR"]) / f"robustness_src_{_sources}.py"
    path.write_text("import tessera as triton\nimport tessera.language as tl\n\n@triton.jit\n" + src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def child_ok(body: str, timeout: float = 120) -> str:
    proc = run_child(body, timeout)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
    return proc.stdout


# ------------------------------------------------ compile-time integers


def test_int64_min_floordiv_minus_one_is_exact():
    # Was SIGFPE in the compiler's constant folding, killing the process.
    out = child_ok("""
        @triton.jit
        def k(out):
            x = -9223372036854775807 - 1
            tl.store(out, x // -1)
            tl.store(out + 1, x % -1)
            tl.store(out + 2, tl.cdiv(x, -1))
        o = np.full(3, 7, np.uint64)
        k[(1,)](o)
        print(o.tolist())
        """)
    # Python: 2**63 (a uint64 constant, as Triton types it), 0, and Triton's
    # cdiv, (x + d - 1) // d: 2**63 + 2.
    assert out.split() == ["[9223372036854775808,", "0,", "9223372036854775810]"]


@triton.jit
def exact_int_kernel(out):
    # Intermediates leave 64 bits; each result is representable.
    tl.store(out, (1 << 64) - 1)
    tl.store(out + 1, (1 << 100) >> 90)
    tl.store(out + 2, abs(-2**63))
    tl.store(out + 3, int(2.0**70) - 2**70 + 5)
    tl.store(out + 4, 2**64 // 3)
    tl.store(out + 5, tl.cdiv(2**64 - 2, 2))


def test_compile_time_integers_are_exact():
    out = np.zeros(6, np.uint64)
    exact_int_kernel[(1,)](out)
    want = [(1 << 64) - 1, (1 << 100) >> 90, 2**63, 5, 2**64 // 3, -(-(2**64 - 2) // 2)]
    assert out.tolist() == want


@pytest.mark.parametrize("expr,number", [
    ("1 << 100", str(1 << 100)),
    ("abs(-2**64)", str(2**64)),
    ("-(2**63) - 1", str(-(2**63) - 1)),
    ("int(1e30)", str(int(1e30))),
    ("3 ** 200", "more than 127 bits"),
    ("int(1e300)", "more than 127 bits"),
    ("tl.cdiv(2**64, 1)", str(2**64)),
])
def test_nonrepresentable_integer_is_an_error(expr, number):
    k = kernel_from_source(f"def k(out):\n    tl.store(out, {expr})\n")
    with pytest.raises(triton.CompilationError, match="Nonrepresentable integer") as e:
        k[(1,)](np.zeros(1, np.int64))
    assert number in str(e.value)


# ------------------------------------------------ loop-carried types


def test_loop_carried_int_reassigned_float_is_an_error():
    # Was converted silently (1.5 stored as 1); Triton rejects it.
    k = kernel_from_source(textwrap.dedent("""\
        def k(out, n):
            y = 0
            for i in range(n):
                y = 1.5
            tl.store(out, y)
        """))
    with pytest.raises(triton.CompilationError,
                       match="Loop-carried variable y has initial type int32 but is re-assigned "
                             "to fp32 in loop"):
        k[(1,)](np.zeros(1, np.float32), 3)
