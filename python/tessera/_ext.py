"""Locates and loads the extension module `tessera._C` (python/src/, contract
in _C.pyi).

Installed (`pip install .`), the module sits inside the package. Run from a
source checkout, it is the one CMake built: $TESSERA_BUILD_DIR/python/tessera,
else <repo>/build/python/tessera. This runs at `import tessera`, so it stays
cheap: no NumPy, no subprocess, two directory listings at most.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import threading
from types import ModuleType

_NAME = "tessera._C"

# The first launches of several threads load the module at once: one loads,
# the others wait, and none sees it before it is initialised (sys.modules
# holds it from before its initialisation runs).
_lock = threading.Lock()
_loaded: ModuleType | None = None


def _candidates() -> list[str]:
    """Build directories that may hold the module, in search order."""
    dirs = []
    build = os.environ.get("TESSERA_BUILD_DIR")
    if build:
        dirs.append(os.path.join(build, "python", "tessera"))
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    dirs.append(os.path.join(repo, "build", "python", "tessera"))
    return dirs


def _find_in(directory: str) -> str | None:
    """The extension module file in `directory` that this interpreter can load."""
    try:
        names = os.listdir(directory)
    except OSError:
        return None
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:  # most specific first
        if "_C" + suffix in names:
            return os.path.join(directory, "_C" + suffix)
    return None


def _load_from(path: str) -> ModuleType:
    loader = importlib.machinery.ExtensionFileLoader(_NAME, path)
    spec = importlib.util.spec_from_file_location(_NAME, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = module
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except BaseException:
        del sys.modules[_NAME]
        raise
    package = sys.modules.get("tessera")
    if package is not None:
        setattr(package, "_C", module)
    return module


def load() -> ModuleType:
    """Returns the tessera._C module, importing it on first use."""
    global _loaded
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is None:
            _loaded = _load()
    return _loaded


def _load() -> ModuleType:
    module = sys.modules.get(_NAME)
    if module is not None:
        return module
    installed_error = None
    try:
        from tessera import _C  # an installed package

        return _C
    except ModuleNotFoundError as e:
        if e.name not in ("tessera", _NAME):
            installed_error = e
    except ImportError as e:  # present but broken: say so if nothing else loads
        installed_error = e
    searched = _candidates()
    for directory in searched:
        path = _find_in(directory)
        if path is not None:
            return _load_from(path)
    raise ImportError(
        "tessera: the compiled extension tessera._C was not found (looked in the installed "
        "package and in " + ", ".join(searched) + "). Build it with scripts/demo.sh "
        "(or cmake; set TESSERA_BUILD_DIR to the build directory), or install the package "
        "with `pip install .` from the repository root."
    ) from installed_error
