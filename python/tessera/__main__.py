"""python -m tessera SCRIPT.py [args] | python -m tessera -m MODULE [args]

Runs a Triton program unchanged on Tessera: in this process, `import triton`
and every `import triton.X` / `from triton.X import Y` written in the program
(and in the modules it imports) give `tessera` and `tessera.X`. The script
runs as `python SCRIPT.py` would run it: `__name__ == "__main__"`, its
`__file__`, `sys.argv` from SCRIPT.py on, its directory first on sys.path.

Limits: the alias acts on import statements (builtins.__import__), not on
`importlib.import_module("triton")` or `sys.modules["triton"]`; a `triton.X`
that Tessera lacks raises ModuleNotFoundError saying so. Imports made by
PyTorch itself (torch.compile's inductor) are not aliased: they see the real
Triton when it is installed, so torch.compile keeps working beside Tessera.
"""

from __future__ import annotations

import builtins
import importlib
import os
import runpy
import sys

_USAGE = ("usage: python -m tessera SCRIPT.py [args...]\n"
          "       python -m tessera -m MODULE [args...]\n"
          "Runs a Triton program with `import triton` resolving to Tessera.")

_real_import = builtins.__import__


# Triton modules whose Tessera counterpart lives under another name.
_RENAMED = {"triton._C.libtriton": "tessera.runtime.libtriton"}


def _is_triton(name: str) -> bool:
    return name == "triton" or name.startswith("triton.")


def _importer_keeps_real_triton(globals_) -> bool:
    """PyTorch (inductor generates and runs its own Triton code) and Triton
    itself import the real package."""
    importer = (globals_ or {}).get("__name__", "") or ""
    return importer.split(".", 1)[0] in ("torch", "triton")


def _aliased_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level != 0 or not _is_triton(name) or _importer_keeps_real_triton(globals):
        return _real_import(name, globals, locals, fromlist, level)
    target = _RENAMED.get(name) or "tessera" + name[len("triton"):]
    try:
        module = importlib.import_module(target)
    except ModuleNotFoundError as e:
        if e.name and (target == e.name or target.startswith(e.name + ".")):
            raise ModuleNotFoundError(
                f"No module named '{name}': Tessera has no '{target}', a part of Triton's API "
                "it does not provide yet", name=name) from None
        raise
    if not fromlist:
        return importlib.import_module("tessera")  # `import triton.x` binds `triton`
    for item in fromlist:  # `from triton.x import y`: y may be a submodule
        if item != "*" and not hasattr(module, item):
            try:
                importlib.import_module(f"{target}.{item}")
            except ModuleNotFoundError:
                pass  # the from-import then reports the missing name itself
    return module


def install() -> None:
    """Makes import statements of `triton` give Tessera from now on."""
    builtins.__import__ = _aliased_import
    from tessera.language import types
    types.REPR_PACKAGE = "triton"  # dtype reprs evaluate in the program: triton.language.int8


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(_USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.exists(script):
        print(f"python -m tessera: can't open file '{script}': no such file", file=sys.stderr)
        return 2
    sys.argv = argv
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
