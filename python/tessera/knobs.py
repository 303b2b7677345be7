"""`triton.knobs`: Tessera's settings, under the names of Triton 3.6's knobs.

Each knob reads its environment variables (Tessera's name first, then
Triton's) every time it is read, unless it was assigned in this process:

    triton.knobs.cache.dir = "/tmp/kernels"     # overrides TRITON_CACHE_DIR
    del triton.knobs.cache.dir                  # back to the environment

    cache.dir                   TESSERA_CACHE_DIR, TRITON_CACHE_DIR (default ~/.cache/tessera)
    cache.disable               TESSERA_CACHE_DISABLE
    runtime.interpret           TRITON_INTERPRET: the default driver is the CPU interpreter
    compilation.always_compile  TESSERA_ALWAYS_COMPILE, TRITON_ALWAYS_COMPILE: skip the disk cache
    compilation.dump_ir         TESSERA_KERNEL_DUMP, TRITON_KERNEL_DUMP: write each compiled
                                kernel's IR stages and PTX under compilation.dump_dir
    compilation.dump_dir        TESSERA_DUMP_DIR, TRITON_DUMP_DIR (default ~/.cache/tessera/dump)
    compilation.passes          TESSERA_PASSES: the Tile IR passes of kernels compiled from now
                                on: unset or empty, the default pipeline; "none", no pass (the
                                interpreter runs the IR as lowered); "inline,cse", those passes
                                in that order. Part of the cache keys. The differential tester
                                (scripts/differential.py) compares "none" with the default.
    autotuning.print            TESSERA_PRINT_AUTOTUNING, TRITON_PRINT_AUTOTUNING
    autotuning.cache            TESSERA_CACHE_AUTOTUNING, TRITON_CACHE_AUTOTUNING
    runtime.jit_cache_hook      a function called (Triton's keyword arguments) before a kernel
                                not in memory is compiled or loaded; a true result skips it
    runtime.jit_post_compile_hook  called the same way after it was compiled or loaded
    runtime.launch_enter_hook   a function called before each launch of a @jit kernel with its
                                launch metadata (`.get()`: name, stream, and what the kernel's
                                `launch_metadata=` function adds); the profiler's hook="triton"
    runtime.launch_exit_hook    called the same way after the launch was queued
    nvidia.ptxas, .cuobjdump, .nvdisasm  NVIDIA's tools as Triton reports them (`path`, `version`):
                                TRITON_PTXAS_PATH (...) or the one on PATH. Tessera's kernels
                                are assembled by the driver, not by these; programs that check
                                the toolkit's version (`knobs.nvidia.ptxas.version`) read it here

Kernel arguments on a GPU still run on the GPU under TRITON_INTERPRET=1
(Tessera picks the back end from where the arguments live); put them in
host memory to run on the interpreter.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess

_TRUE = ("1", "true", "yes", "on")


class _Knob:
    """A knob's storage: an assignment wins until `del`; subclasses read the
    value otherwise (__get__)."""

    def __set_name__(self, owner, attr: str) -> None:
        self.attr = attr

    def __set__(self, group, value) -> None:
        group._assigned[self.attr] = value

    def __delete__(self, group) -> None:
        group._assigned.pop(self.attr, None)


class _Env(_Knob):
    """A knob over environment variables `names` (first set wins)."""

    def __init__(self, names: tuple, kind: type, default=None):
        self.names, self.kind, self.default = names, kind, default

    def __get__(self, group, owner=None):
        if group is None:
            return self
        if self.attr in group._assigned:
            return group._assigned[self.attr]
        for n in self.names:
            v = os.environ.get(n)
            if v is not None and v != "":
                return v.strip().lower() in _TRUE if self.kind is bool else v
        return self.default() if callable(self.default) else self.default


class _Value(_Knob):
    """A knob with no environment variable (a hook): None until assigned."""

    def __get__(self, group, owner=None):
        if group is None:
            return self
        return group._assigned.get(self.attr)


class base_knobs:
    """A group of knobs (Triton's base class of `knobs.cache`, `knobs.runtime`, ...)."""

    def __init__(self):
        self._assigned = {}

    def reset(self) -> "base_knobs":
        """Forgets every assignment: all knobs read the environment again."""
        self._assigned.clear()
        return self

    def copy(self) -> "base_knobs":
        """A group of the same class with the same assignments."""
        other = type(self)()
        other._assigned = dict(self._assigned)
        return other

    @contextlib.contextmanager
    def scope(self):
        """Assignments made inside the `with` block are undone at its end."""
        saved = dict(self._assigned)
        try:
            yield self
        finally:
            self._assigned = saved

    def __repr__(self) -> str:
        knobs = [k for k, v in vars(type(self)).items() if isinstance(v, _Knob)]
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in knobs)})"


def _default_cache_dir() -> str:
    return os.path.join(os.path.expanduser("~"), ".cache", "tessera")


class cache_knobs(base_knobs):
    dir = _Env(("TESSERA_CACHE_DIR", "TRITON_CACHE_DIR"), str, _default_cache_dir)
    disable = _Env(("TESSERA_CACHE_DISABLE",), bool, False)


class runtime_knobs(base_knobs):
    interpret = _Env(("TRITON_INTERPRET",), bool, False)
    jit_cache_hook = _Value()
    jit_post_compile_hook = _Value()
    launch_enter_hook = _Value()
    launch_exit_hook = _Value()


class compilation_knobs(base_knobs):
    always_compile = _Env(("TESSERA_ALWAYS_COMPILE", "TRITON_ALWAYS_COMPILE"), bool, False)
    dump_ir = _Env(("TESSERA_KERNEL_DUMP", "TRITON_KERNEL_DUMP"), bool, False)
    dump_dir = _Env(("TESSERA_DUMP_DIR", "TRITON_DUMP_DIR"), str,
                    lambda: os.path.join(_default_cache_dir(), "dump"))
    passes = _Env(("TESSERA_PASSES",), str, "")


class autotuning_knobs(base_knobs):
    print = _Env(("TESSERA_PRINT_AUTOTUNING", "TRITON_PRINT_AUTOTUNING"), bool, False)
    cache = _Env(("TESSERA_CACHE_AUTOTUNING", "TRITON_CACHE_AUTOTUNING"), bool, False)


class NvidiaTool:
    """An NVIDIA command-line tool: its path (None when not found) and
    version ("12.8", from `TOOL --version`; None without the tool)."""

    def __init__(self, path):
        self.path = path
        self._version = False

    @property
    def version(self):
        if self._version is False:
            self._version = None
            if self.path:
                try:
                    out = subprocess.run([self.path, "--version"], capture_output=True, text=True,
                                         timeout=30).stdout
                    m = re.search(r"release (\d+\.\d+)", out)
                    self._version = m.group(1) if m else None
                except (OSError, subprocess.SubprocessError):
                    pass
        return self._version

    def __repr__(self) -> str:
        return f"NvidiaTool(path={self.path!r})"


class _Tool(_Knob):
    """A knob naming a tool: TRITON_<NAME>_PATH, else the tool on PATH."""

    def __get__(self, group, owner=None):
        if group is None:
            return self
        if self.attr in group._assigned:
            return group._assigned[self.attr]
        path = os.environ.get(f"TRITON_{self.attr.upper()}_PATH") or shutil.which(self.attr)
        if path not in group._tools:
            group._tools[path] = NvidiaTool(path)
        return group._tools[path]


class nvidia_knobs(base_knobs):
    ptxas = _Tool()
    cuobjdump = _Tool()
    nvdisasm = _Tool()

    def __init__(self):
        super().__init__()
        self._tools = {}  # path -> NvidiaTool, so a version is asked for once


cache = cache_knobs()
runtime = runtime_knobs()
compilation = compilation_knobs()
autotuning = autotuning_knobs()
nvidia = nvidia_knobs()
