"""What `pip install .` ships besides the code: the license and its metadata,
the typing marker, and the tools tesserac and tessera-opt in the wheel's
scripts. Building a wheel takes minutes, so these check the inputs the
build backend reads and install the CMake component it installs, from the
build tree the suite already uses."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
BUILD = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", REPO / "build"))


def _pyproject() -> str:
    return (REPO / "pyproject.toml").read_text()


def _toml_value(text: str, key: str) -> str | None:
    """The right-hand side of `key = ...` on one line (Python 3.9 has no tomllib)."""
    m = re.search(rf"^{re.escape(key)}\s*=\s*(.+)$", text, re.M)
    return m.group(1).strip() if m else None


def test_license_is_mit_and_declared():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text
    py = _pyproject()
    assert _toml_value(py, "license") == '"MIT"'  # PEP 639: an SPDX expression
    assert _toml_value(py, "license-files") == '["LICENSE"]'
    # PEP 639 metadata needs scikit-build-core 0.11 or later.
    assert re.search(r'"scikit-build-core>=0\.(1[1-9]|[2-9]\d)', py)
    # A license classifier beside an SPDX expression is refused by PyPI.
    assert "License ::" not in py


def test_package_is_typed():
    assert (REPO / "python" / "tessera" / "py.typed").is_file()
    py = _pyproject()
    # The whole folder becomes the package, py.typed included.
    assert 'wheel.packages = { tessera = "python/tessera" }' in py
    assert "Typing :: Typed" in py


def test_wheel_builds_the_tools():
    targets = _toml_value(_pyproject(), "build.targets")
    assert targets is not None
    for name in ("tessera_ext", "tesserac", "tessera-opt"):
        assert f'"{name}"' in targets


def test_python_component_installs_the_module_and_the_tools(tmp_path):
    """The component scikit-build-core installs: the module into tessera/,
    the tools into the scripts folder (bin/ outside a wheel build)."""
    cmake = shutil.which("cmake")
    tools = [BUILD / "tesserac", BUILD / "tessera-opt"]
    if cmake is None or not (BUILD / "CMakeCache.txt").is_file() or not all(t.is_file() for t in tools):
        pytest.skip("needs cmake and a build tree with the tools built (TESSERA_BUILD_DIR)")
    subprocess.run([cmake, "--install", str(BUILD), "--component", "python", "--prefix", str(tmp_path)],
                   check=True, capture_output=True, text=True)
    assert list((tmp_path / "tessera").glob("_C*.so")), sorted(p.name for p in tmp_path.rglob("*"))
    for tool in ("tesserac", "tessera-opt"):
        r = subprocess.run([str(tmp_path / "bin" / tool), "--version"], capture_output=True, text=True)
        assert r.returncode == 0 and r.stdout.startswith(tool + " "), r
    # A plain install (the C++ package) does not carry the Python module.
    plain = tmp_path / "plain"
    subprocess.run([cmake, "--install", str(BUILD), "--prefix", str(plain)],
                   check=True, capture_output=True, text=True)
    assert not list(plain.rglob("_C*.so"))
