"""Compile warnings: code that compiles but is likely a mistake, where Triton
warns too, is a UserWarning at the line of the user's file (with the
diagnostic's caret and note), raised when the kernel is compiled; the
kernel still runs as Triton's does. NumPy references, poisoned outputs."""

from __future__ import annotations

import inspect
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

RNG = np.random.default_rng()


@triton.jit
def warned_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    both = (x > 0) and (x < 5)  # WARN and-or
    one = tl.full((1, 1), 1, tl.int32)
    if one:  # WARN if
        x = x + 1
    y = tl.where(x % 2, x << 33, x)  # WARN where shift
    tl.store(out_ptr + offs, tl.where(both, y, -y))


@triton.jit
def clean_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    both = (x > 0) & (x < 5)
    if tl.full((1, 1), 1, tl.int32).item():
        x = x + 1
    y = tl.where(x % 2 != 0, x << 31, x)
    tl.store(out_ptr + offs, tl.where(both, y, -y))


def _lines(kernel, tag):
    """The file line of each source line of `kernel` marked `# WARN ...tag`."""
    src, first = inspect.getsourcelines(kernel.fn)
    return [first + i for i, s in enumerate(src) if "# WARN" in s and tag in s.split("# WARN")[1]]


def _reference(x, shift):
    x = x.astype(np.int64)
    both = (x > 0) & (x < 5)
    x = x + 1
    y = np.where(x % 2 != 0, (x << shift) & 0xFFFFFFFF, x)
    y = y.astype(np.uint32).astype(np.int32)  # wraps as int32 arithmetic does
    return np.where(both, y, -y).astype(np.int32)


def test_likely_mistakes_warn_at_their_lines():
    x = RNG.integers(-8, 8, 32).astype(np.int32)
    out = np.full(32, -12345, np.int32)
    with pytest.warns(UserWarning) as record:
        warned_kernel[(1,)](x, out, BLOCK=32)
    got = {(str(w.message).split(": warning: ")[1].split("\n")[0], w.filename, w.lineno)
           for w in record if "warning:" in str(w.message)}
    here = __file__
    expect = {
        ("'and' and 'or' on tensors that are not scalars are deprecated in Triton; use '&'",
         here, _lines(warned_kernel, "and-or")[0]),
        ("an if condition that is a one-element tensor (tensor<1x1, int32>) instead of a scalar",
         here, _lines(warned_kernel, "if")[0]),
        ("tl.where with a non-boolean condition (int32) is deprecated in Triton and will be an "
         "error there", here, _lines(warned_kernel, "where")[0]),
        ("shifting a int32 tensor by 33 bits, its width or more: Triton leaves the result "
         "undefined", here, _lines(warned_kernel, "shift")[0]),
    }
    assert got == expect
    # Each message carries the caret and the note the errors have.
    for w in record:
        text = str(w.message)
        assert text.splitlines()[2].strip() == "^" and "\nnote: " in text
    shifted = (x + 1) % 2 != 0  # the lanes shifted past 31 bits: undefined, not compared
    np.testing.assert_array_equal(out[~shifted], _reference(x, 0)[~shifted])
    # A launch of the same specialisation does not compile, and does not warn.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warned_kernel[(1,)](x, out, BLOCK=32)


def test_the_intended_forms_do_not_warn():
    x = RNG.integers(-8, 8, 32).astype(np.int32)
    out = np.full(32, -12345, np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clean_kernel[(1,)](x, out, BLOCK=32)
    np.testing.assert_array_equal(out, _reference(x, 31))


def test_a_line_warns_once_a_process(tmp_path):
    # Under Python's default filter, as Triton's warnings (raised from one
    # line of its own) show: three specialisations compile the line, one
    # warning is shown.
    script = tmp_path / "three.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(pathlib.Path(triton.__file__).resolve().parents[1])!r})\n"
        "import numpy as np, tessera as triton, tessera.language as tl\n"
        "@triton.jit\n"
        "def k(X, Y, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    x = tl.load(X + offs)\n"
        "    tl.store(Y + offs, tl.where(x, x, 0))\n"
        "for b in (8, 16, 32):\n"
        "    k[(1,)](np.ones(32, np.int32), np.zeros(32, np.int32), BLOCK=b)\n")
    r = subprocess.run([sys.executable, "-W", "default", str(script)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("UserWarning") == 1, r.stderr
    assert f"{script}:8: UserWarning: {script}:8:33: warning: tl.where" in r.stderr
