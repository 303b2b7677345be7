"""Diagnostics: compile errors point into the .py file with a caret; an
out-of-bounds access names the kernel line, the program id and the index."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tessera_testing as tt
from tessera_testing import compile_kernel, run

ERRORS = "errors.py"


def compile_error(name: str, sig: str) -> str:
    with pytest.raises(tt.CompilationError) as e:
        compile_kernel(ERRORS, name, sig, cache=False)
    return str(e.value)


def line_of(snippet: str) -> int:
    """The 1-based line of kernels/errors.py holding `snippet`."""
    lines = (tt.KERNELS / ERRORS).read_text().splitlines()
    return next(i + 1 for i, l in enumerate(lines) if snippet in l)


def assert_points_at(msg: str, line: int, snippet: str, file: str = "errors.py") -> None:
    """The header names file:line:col, the source line is quoted (indented by
    four spaces) and the caret on the next line sits under `snippet`."""
    m = re.search(re.escape(file) + r":(\d+):(\d+): error: ", msg)
    assert m, msg
    assert int(m.group(1)) == line, msg
    col = int(m.group(2))
    lines = msg.splitlines()
    i = next(i for i, l in enumerate(lines) if m.group(0) in l)
    quoted, caret = lines[i + 1], lines[i + 2]
    assert caret.strip() == "^", msg
    assert caret.index("^") == 4 + col - 1, msg
    assert quoted[4 + col - 1:].startswith(snippet), msg


def test_arange_not_power_of_two() -> None:
    msg = compile_error("bad_arange_kernel", "*i32")
    assert_points_at(msg, line_of("tl.arange(0, 100)"), "tl.arange(0, 100)")
    assert "power of two" in msg


def test_undefined_name() -> None:
    msg = compile_error("undefined_name_kernel", "*i32")
    assert_points_at(msg, line_of("undefined_thing"), "undefined_thing")
    assert "undefined_thing" in msg


def test_dot_shape_mismatch() -> None:
    msg = compile_error("dot_mismatch_kernel", "*fp32")
    assert_points_at(msg, line_of("tl.dot(a, b)"), "tl.dot(a, b)")
    assert "inner dimensions" in msg


def test_static_assert_message() -> None:
    msg = compile_error("static_assert_kernel", "*i32, 8")
    assert_points_at(msg, line_of("tl.static_assert"), "tl.static_assert")
    assert "N must be a multiple of 16" in msg
    compile_kernel(ERRORS, "static_assert_kernel", "*i32, 32")  # passes


def test_first_line_and_col_offset() -> None:
    # A kernel given as a dedented fragment of a larger file: line numbers and
    # columns are those of the file.
    src = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(out_ptr):\n    tl.store(out_ptr, nope)\n"
    with pytest.raises(tt.CompilationError) as e:
        compile_kernel(src, "k", "*i32", file_name="big.py", first_line=40, col_offset=4, cache=False)
    assert_points_at(str(e.value), 44, "nope", file="big.py")
    assert "big.py:44:27:" in str(e.value), str(e.value)


def test_bad_signature() -> None:
    with pytest.raises(tt.CompilationError, match="bad signature entry"):
        compile_kernel(ERRORS, "oob_kernel", "*fp33, *fp32, 16", cache=False)


def test_unknown_kernel() -> None:
    with pytest.raises(tt.CompilationError, match="no_such_kernel"):
        compile_kernel(ERRORS, "no_such_kernel", "", cache=False)


def test_out_of_bounds_load() -> None:
    k = compile_kernel(ERRORS, "oob_kernel", "*fp32, *fp32, 16")
    x = np.zeros(40, np.float32)  # 3 programs of 16 -> program 2 reads 32..47
    out = np.zeros(48, np.float32)
    with pytest.raises(tt.KernelError) as e:
        run(k, 3, x, out)
    msg = str(e.value)
    assert re.search(rf"errors\.py:{line_of('x = tl.load(x_ptr + offs)')}:\d+", msg), msg
    assert "(2, 0, 0)" in msg, msg
    assert re.search(r"\b4[0-7]\b", msg), msg  # the first offending element index
    assert "x_ptr" in msg, msg


def test_out_of_bounds_store() -> None:
    k = compile_kernel(ERRORS, "oob_store_kernel", "*i32, i32, 16")
    out = np.zeros(20, np.int32)
    run(k, 2, out, 20)  # in bounds
    assert list(out) == list(range(20))
    with pytest.raises(tt.KernelError) as e:
        run(k, 2, out, 21)
    msg = str(e.value)
    assert re.search(rf"errors\.py:{line_of('tl.store(out_ptr + offs, offs, mask=offs < n)')}:\d+", msg), msg
    assert "(1, 0, 0)" in msg and "20" in msg, msg


def test_run_argument_errors() -> None:
    k = compile_kernel(ERRORS, "oob_kernel", "*fp32, *fp32, 16")
    x = np.zeros(16, np.float32)
    with pytest.raises(tt.KernelError, match="takes 2 runtime arguments but 1"):
        run(k, 1, x)
    with pytest.raises(tt.KernelError, match="must be a buffer"):
        run(k, 1, x, 3)
    k2 = compile_kernel(ERRORS, "oob_store_kernel", "*i32, i32, 16")
    with pytest.raises(tt.KernelError, match="must be an integer"):
        run(k2, 1, np.zeros(16, np.int32), 2.5)
    with pytest.raises(tt.InvalidArgument, match="grid"):
        run(k2, -1, np.zeros(16, np.int32), 2)
    run(k2, 0, np.zeros(16, np.int32), 16)  # an empty grid runs nothing
