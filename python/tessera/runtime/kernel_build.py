"""The compile step of a launch's slow path (jit.py's step 3): a compiled
kernel's cache key, the check of the launch options a compile uses, and the
disk cache in front of the C++ compiler (knobs.compilation's always_compile,
dump_ir and passes are read here, when a kernel compiles).

jit.py owns the in-memory caches and the binding of arguments; this module
returns one compiled kernel for one key and counts what it did in jit.stats.
"""

from __future__ import annotations

import hashlib
import operator
import os

from .errors import CompilationError, InterpretedCompilationError, refined


def _ext():
    from .jit import _ext as load  # jit.py loads the extension once, under its lock
    return load()


def _hash(*parts) -> str:
    h = hashlib.blake2b(digest_size=20)
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()


_COMPILER_ID = None


def _compiler_id():
    """The compiler a cached kernel came from: its version, and the size and
    modification time of the extension that holds it, so a rebuilt compiler
    (a developer's, or a reinstall) does not serve kernels its predecessor
    compiled."""
    global _COMPILER_ID
    if _COMPILER_ID is None:
        c = _ext()
        try:
            st = os.stat(c.__file__)
            _COMPILER_ID = (c.VERSION, st.st_size, st.st_mtime_ns)
        except (AttributeError, OSError):
            _COMPILER_ID = (c.VERSION,)
    return _COMPILER_ID


def _disk_cache():
    """The compiled-kernel cache on disk, or None when disabled."""
    try:
        from . import cache
    except ImportError:
        return None
    return cache.kernel_cache()


def _dump(kernel, name: str, key: str) -> None:
    """knobs.compilation.dump_ir: every stage of a compiled kernel to
    <dump_dir>/<name>-<key>/<stage>.txt (ptx as .ptx)."""
    from .. import knobs
    d = os.path.join(os.path.expanduser(knobs.compilation.dump_dir), f"{name}-{key[:16]}")
    os.makedirs(d, exist_ok=True)
    for stage in ("ttir-initial", "ttir", "ttgir", "ptx", "ptx-unspecialized"):
        try:
            text = kernel.ir(stage)
        except Exception:  # noqa: BLE001 - a stage this back end does not have
            continue
        if not text:
            continue
        with open(os.path.join(d, stage + (".ptx" if stage.startswith("ptx") else ".txt")),
                  "w") as f:
            f.write(text)


class _OptionError(ValueError, AssertionError):
    """A launch option out of range: a ValueError, and an AssertionError as
    Triton's option checks raise (programs catch either)."""


def _check_options(name: str, opts) -> None:
    """Launch options a compile can use, on every back end (the CPU ignores
    num_warps and num_stages, but a kernel run there may run on a GPU next)."""
    def count(option, value, lo, hi, power_of_two=False):
        if value is None:
            return
        try:
            v = operator.index(value)
        except TypeError:
            raise TypeError(f"{name}: {option} must be an int, got {value!r}") from None
        if type(value) is bool or not lo <= v <= hi or (power_of_two and v & (v - 1)):
            kind = "a power of 2" if power_of_two else "an int"
            raise _OptionError(f"{name}: {option} must be {kind} from {lo} to {hi}, got {value!r}")

    count("num_warps", opts[0], 1, 32, power_of_two=True)
    count("num_stages", opts[1], 0, 16)
    count("maxnreg", opts[3], 16, 255)
    if opts[4] is not None and not isinstance(opts[4], int):  # bools, and 0/1 as Triton takes
        raise TypeError(f"{name}: debug must be True, False or None, got {opts[4]!r}")


def _tile_passes() -> tuple:
    """knobs.compilation.passes (TESSERA_PASSES) as the extension takes it:
    (optimize, pass list); (True, "") is the default pipeline. Read when a
    kernel is compiled, like TESSERA_DEBUG: a kernel already compiled in this
    process keeps its passes."""
    from .. import knobs
    p = (knobs.compilation.passes or "").strip()
    if p.lower() == "none":
        return (False, "")
    return (True, p)


# Python's record of the warnings shown, so that the default filter shows
# each once a process (as Triton's, raised from one line of its own, are)
# however many configurations or specialisations compile the same line.
_WARNINGS_SHOWN: dict = {}


def _warn(kernel) -> None:
    """Each warning of a compile as a UserWarning at its line of the user's
    file, as Triton gives them (when the kernel is compiled: a kernel read
    back from the disk cache was warned about when it was built)."""
    found = kernel.warnings
    if not found:
        return
    import warnings
    for text, file, line in found:
        warnings.warn_explicit(text.rstrip("\n"), UserWarning, file or "<kernel>", line,
                               registry=_WARNINGS_SHOWN)


def _load_or_compile(key, units, name, specs, debug, target="", num_warps=4, num_stages=3,
                     passes=(True, ""), fp_fusion=True, reflect_ftz=True, maxnreg=0):
    from .. import knobs
    from .jit import stats
    c = _ext()
    disk = None if knobs.compilation.always_compile else _disk_cache()
    if disk is not None:
        # Checked: an entry that is not the one stored under this key (another
        # kernel's copied over it, say) reads as a miss and is rewritten.
        blob = disk.get_checked(key)
        if blob is not None:
            try:
                kernel = c.Kernel.deserialize(blob)
            except ValueError:
                kernel = None  # written by another version: rebuild below
            if kernel is not None and kernel.name == name:
                stats.disk_hits += 1
                return kernel
            disk.remove(key)
    try:
        kernel = c.compile(units, name, specs, debug=debug, optimize=passes[0], passes=passes[1],
                           target=target, num_warps=num_warps, num_stages=num_stages,
                           fp_fusion=fp_fusion, reflect_ftz=reflect_ftz, maxnreg=maxnreg)
    except CompilationError as e:
        # Under TRITON_INTERPRET=1 Triton reports a kernel's errors as
        # InterpreterError (it runs the kernel as Python): ours is both.
        if not target and knobs.runtime.interpret:
            raise InterpretedCompilationError(e.message) from None
        if (r := refined(e)) is not e:
            raise r from None
        raise
    stats.compiles += 1
    _warn(kernel)
    if knobs.compilation.dump_ir:
        _dump(kernel, name, key)
    if disk is not None:
        if disk.put_checked(key, kernel.serialize()):  # False (no exception) when the disk refuses
            stats.disk_writes += 1
    return kernel
