"""`triton.knobs`: Tessera's settings, under the names of Triton 3.6's knobs.

Each knob reads its environment variables (Tessera's name first, then
Triton's) every time it is read, unless it was assigned in this process:

    triton.knobs.cache.dir = "/tmp/kernels"     # overrides TRITON_CACHE_DIR
    del triton.knobs.cache.dir                  # back to the environment

    cache.dir                   TESSERA_CACHE_DIR, TRITON_CACHE_DIR (default ~/.cache/tessera)
    cache.disable               TESSERA_CACHE_DISABLE
    runtime.interpret           TRITON_INTERPRET: the default driver is the CPU interpreter
    runtime.override_arch       TRITON_OVERRIDE_ARCH: compile GPU kernels for this target
                                ("sm80", "sm_80", "sm90a") instead of the device's; it must be
                                one the device runs (an older one). The launch option
                                `arch=` does the same for one kernel; TESSERA_TARGET is read
                                after both
    language.default_fp_fusion  TRITON_DEFAULT_FP_FUSION (default on): whether kernels
                                launched without `enable_fp_fusion=` fuse a float product
                                and the sum that uses it into an fma on the GPU
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
    autotuning.listener         a function called (keywords fn, key, best_config, configs_timings,
                                duration, cache_hit) when a key is tuned or its config read back
                                from the disk cache (not for a key tuned before in this process,
                                nor for a single config), as Triton's
    runtime.jit_cache_hook      a function called (Triton's keyword arguments) before a kernel
                                not in memory is compiled or loaded; a true result skips it
    runtime.jit_post_compile_hook  called the same way after it was compiled or loaded
    runtime.launch_enter_hook   a function called before each launch of a @jit kernel with its
                                launch metadata (`.get()`: name, stream, and what the kernel's
                                `launch_metadata=` function adds); the profiler's hook="triton"
    runtime.launch_exit_hook    called the same way after the launch was queued
    runtime.kernel_load_start_hook, kernel_load_end_hook  HookChains (`.add(f)`, `.remove(f)`)
                                called with (module, function, name, metadata_group, hash) as a
                                compiled kernel becomes ready (module and function None: Tessera
                                loads modules in C++)
    nvidia.ptxas, .cuobjdump, .nvdisasm  NVIDIA's tools as Triton reports them (`path`, `version`):
                                TRITON_PTXAS_PATH (...) or the one on PATH. Tessera's kernels
                                are assembled by the driver, not by these; programs that check
                                the toolkit's version (`knobs.nvidia.ptxas.version`) read it here

Assigning a knob also sets its environment variable (its Triton name)
while the module's `propagate_env` is true (the default), so child
processes see it; `del`, `reset()` and the end of `scope()` put the
variable back as it was. The knobs of a
group: `group.knob_descriptors` (each with its variable as `.key`) and
`group.knobs` (their values).

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


propagate_env = True


def _as_env(value):
    """The environment text of a knob's value, None to unset, or False
    when the value has none (a function, a list)."""
    if value is None:
        return None
    if type(value) is bool:
        return "1" if value else "0"
    if type(value) in (int, str):
        return str(value)
    return False


class _Knob:
    """A knob's storage: an assignment wins until `del`; subclasses read the
    value otherwise (__get__)."""

    key = None  # the environment variable an assignment sets (propagate_env)

    def __set_name__(self, owner, attr: str) -> None:
        self.attr = attr

    def __set__(self, group, value) -> None:
        group._assigned[self.attr] = value
        text = _as_env(value)
        if propagate_env and self.key and text is not False:
            group._env_before.setdefault(self.key, os.environ.get(self.key))
            _setenv(self.key, text)

    def __delete__(self, group) -> None:
        group._assigned.pop(self.attr, None)
        if self.key in group._env_before:  # the variable as it was before the assignment
            _setenv(self.key, group._env_before.pop(self.key))


def _setenv(key: str, text) -> None:
    if text is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = text


class _Env(_Knob):
    """A knob over environment variables `names` (first set wins)."""

    def __init__(self, names: tuple, kind: type, default=None):
        self.names, self.kind, self.default = names, kind, default
        self.key = names[-1]  # Triton's name where there is one

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
        self._env_before = {}  # variable -> its value before an assignment set it

    def reset(self) -> "base_knobs":
        """Forgets every assignment: all knobs read the environment again
        (the variables assignments set are as they were before)."""
        for name in list(self._assigned):
            delattr(self, name)
        return self

    def copy(self) -> "base_knobs":
        """A group of the same class with the same assignments."""
        other = type(self)()
        other._assigned = dict(self._assigned)
        return other

    @property
    def knob_descriptors(self) -> dict:
        """The group's environment knobs by name (each with its variable as `.key`)."""
        return {k: v for k, v in vars(type(self)).items() if isinstance(v, _Env)}

    @property
    def knobs(self) -> dict:
        """The group's environment knobs' values by name."""
        return {k: getattr(self, k) for k in self.knob_descriptors}

    @contextlib.contextmanager
    def scope(self):
        """Assignments made inside the `with` block, and the environment
        variables they set, are undone at its end."""
        saved = dict(self._assigned)
        env = {d.key: os.environ.get(d.key) for d in self.knob_descriptors.values()}
        try:
            yield self
        finally:
            self._assigned = saved
            for k, v in env.items():
                _setenv(k, v)

    def __repr__(self) -> str:
        knobs = [k for k, v in vars(type(self)).items() if isinstance(v, _Knob)]
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in knobs)})"


def _default_cache_dir() -> str:
    return os.path.join(os.path.expanduser("~"), ".cache", "tessera")


class cache_knobs(base_knobs):
    dir = _Env(("TESSERA_CACHE_DIR", "TRITON_CACHE_DIR"), str, _default_cache_dir)
    disable = _Env(("TESSERA_CACHE_DISABLE",), bool, False)


class HookChain:
    """Hooks called in order (Triton's knobs.HookChain): `add(f)`, `remove(f)`,
    and calling the chain calls each (last added first when `reversed`)."""

    def __init__(self, reversed: bool = False):
        self.calls = []
        self.reversed = reversed

    def add(self, func) -> None:
        if func not in self.calls:
            self.calls.append(func)

    def remove(self, func) -> None:
        if func in self.calls:
            self.calls.remove(func)

    def __call__(self, *args, **kwargs) -> None:
        for call in (reversed(self.calls) if self.reversed else list(self.calls)):
            call(*args, **kwargs)


class runtime_knobs(base_knobs):
    interpret = _Env(("TRITON_INTERPRET",), bool, False)
    override_arch = _Env(("TRITON_OVERRIDE_ARCH",), str, None)
    jit_cache_hook = _Value()
    jit_post_compile_hook = _Value()
    launch_enter_hook = _Value()
    launch_exit_hook = _Value()

    def __init__(self):
        super().__init__()
        # Called as a compiled kernel becomes ready to launch in this process
        # (compiled, or read back from the disk cache; on a GPU around the
        # loading of its module): (module, function, name, metadata_group,
        # hash). Tessera's modules are loaded in C++, so module and function
        # are None and metadata_group is {}.
        self.kernel_load_start_hook = HookChain()
        self.kernel_load_end_hook = HookChain(reversed=True)


class compilation_knobs(base_knobs):
    always_compile = _Env(("TESSERA_ALWAYS_COMPILE", "TRITON_ALWAYS_COMPILE"), bool, False)
    dump_ir = _Env(("TESSERA_KERNEL_DUMP", "TRITON_KERNEL_DUMP"), bool, False)
    dump_dir = _Env(("TESSERA_DUMP_DIR", "TRITON_DUMP_DIR"), str,
                    lambda: os.path.join(_default_cache_dir(), "dump"))
    passes = _Env(("TESSERA_PASSES",), str, "")


class language_knobs(base_knobs):
    default_fp_fusion = _Env(("TRITON_DEFAULT_FP_FUSION",), bool, True)


class autotuning_knobs(base_knobs):
    print = _Env(("TESSERA_PRINT_AUTOTUNING", "TRITON_PRINT_AUTOTUNING"), bool, False)
    cache = _Env(("TESSERA_CACHE_AUTOTUNING", "TRITON_CACHE_AUTOTUNING"), bool, False)
    listener = _Value()


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
language = language_knobs()
autotuning = autotuning_knobs()
nvidia = nvidia_knobs()
