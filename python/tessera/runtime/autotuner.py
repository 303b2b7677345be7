"""Autotuning with Triton's API: ``Config``, ``@autotune`` and ``@heuristics``.

    @triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2),
                              triton.Config({"BLOCK": 256}, num_warps=8)],
                     key=["n"])
    @triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
    @triton.jit
    def kernel(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr): ...

    kernel[grid](x, n)        # the first launch for each key times every config

Semantics follow Triton's:
  * The tuning key is the values of the arguments named in ``key`` plus the
    dtype (``str(arg.dtype)``) of every argument that has one. A new key
    times every config (after ``prune_configs_by``), keeps the fastest in
    ``.cache[key]``, and launches with it; a known key launches at once
    (a config put in ``.cache[key]`` by hand is the one the next launch of
    that key uses).
    ``.best_config`` is the config of the last launch, ``.configs_timings``
    the timings (``[median, p20, p80]`` in ms) of the last tuning, and
    ``.bench_time`` its duration in seconds.
  * ``prune_configs_by={"perf_model": f, "top_k": k, "early_config_prune": g}``:
    ``g(configs, named_args, **kwargs)`` returns the configs worth timing;
    ``f(**named_args, **config.all_kwargs())`` estimates a config's runtime
    and only the ``k`` best estimates (``k`` an int, or a float <= 1.0: that
    fraction of the configs; default 10) are timed.
  * While timing, the arguments named in ``reset_to_zero`` are zeroed before
    every run (and once more before the real launch), and those named in
    ``restore_value`` are copied before timing and restored after every run,
    so in-place outputs keep their values. (NumPy arrays: ``x[...] = 0``;
    PyTorch tensors: ``x.zero_()``/``clone``/``copy_``.) ``pre_hook(args)``
    and ``post_hook(args, exception=e_or_None)`` run around every timed run
    (here in addition to the reset/restore, which Triton drops when a
    pre_hook is given). A config's own ``pre_hook`` runs before each timed
    run and before the real launch.
  * A config whose compilation or launch raises one of
    ``INVALID_CONFIG_ERRORS`` (``OutOfResources``, ``CompilationError``) is
    skipped (timing ``inf``); if every config fails, the first error is
    raised. Any other exception propagates.
  * Passing, at the launch, an argument that a config sets raises
    ``ValueError("Conflicting meta-parameters: ...")``.
  * ``cache_results=True`` also stores the choice on disk (see ``cache``),
    keyed by the kernel's ``cache_key``, the target, the tuning key and the
    configs, so a later process reuses it without timing.
  * Timing uses ``do_bench(fn, quantiles=(0.5, 0.2, 0.8))`` when given, else
    ``tessera.testing.do_bench`` (``do_bench_cudagraph`` with
    ``use_cuda_graph=True``) with ``warmup``/``rep`` when given.

Progress: a tuning that runs past about a second shows, on stderr, how
many configs are done and the best so far ("Tessera autotuning F: 7/24
configs, best so far 0.0123 ms with BLOCK: 64, ..."), redrawn in place
when stderr is a terminal, else (with TESSERA_PRINT_AUTOTUNING) a line at
most every second and one at the end.

Environment:
  TESSERA_PRINT_AUTOTUNING=1 (or TRITON_PRINT_AUTOTUNING=1)  print a line per
      tuning: "Tessera autotuning for function F finished after Xs; best
      config selected: ...;", and progress when stderr is not a terminal.
  TESSERA_CACHE_AUTOTUNING=1 (or TRITON_CACHE_AUTOTUNING=1)  cache_results
      for every autotuned kernel.

A kernel wrapped by ``Autotuner`` or ``Heuristics`` needs: ``arg_names``,
``run(*args, grid=..., warmup=..., **kwargs)``, ``warmup(*args, grid=...,
**kwargs)``, ``cache_key`` (for the disk cache only) and ``fn`` (a chain of
``.fn`` ending at the Python function). Both wrappers offer the same, so they
stack in either order over ``@jit``.
"""

from __future__ import annotations

import sys
import time
import types

from .errors import AutotunerError, CompilationError, OutOfResources
from .jit import (JITFunction, _ext, _launch_hooks_set, _unwrap_constexpr, register_launchable,
                  torch_compiling, torch_launcher)
from .tuning_key import KEY_KINDS, TuningCache, launch_token, tuning_key

__all__ = ["Autotuner", "Config", "Heuristics", "INVALID_CONFIG_ERRORS", "autotune", "heuristics"]

# Exceptions that mark a config as unusable while tuning (timing inf).
INVALID_CONFIG_ERRORS = (OutOfResources, CompilationError)

_LAUNCH_OPTIONS = ("num_warps", "num_ctas", "num_stages", "maxnreg")
_NOT_ARGS = frozenset(("grid", "warmup"))  # launch plumbing, not kernel arguments
_QUANTILES = (0.5, 0.2, 0.8)
_DISK_FORMAT = 1


def _print_autotuning() -> bool:
    from .. import knobs
    return bool(knobs.autotuning.print)


class _Progress:
    """The progress line of one tuning on stderr (see the module docstring):
    nothing before AFTER_S seconds, then at most one line per interval."""

    AFTER_S = 1.0

    def __init__(self, name: str, total: int):
        self.name, self.total = name, total
        self.start = self.last = time.perf_counter()
        self.stream = sys.stderr
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError):  # replaced or closed stderr
            self.tty = False
        self.enabled = self.tty or _print_autotuning()
        self.interval = 0.1 if self.tty else 1.0
        self.shown = False

    def update(self, done: int, timings: dict) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.start < self.AFTER_S or (done < self.total and now - self.last < self.interval):
            return
        self.last = now
        ran = {c: t for c, t in timings.items() if t[0] != float("inf")}
        line = f"Tessera autotuning {self.name}: {done}/{self.total} configs"
        if ran:
            best = min(ran, key=ran.get)
            line += f", best so far {ran[best][0]:.4f} ms with {best}"
        try:
            if self.tty:
                width = _terminal_width(self.stream)
                self.stream.write("\r" + line[:width - 1] + "\x1b[K")
            else:
                self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False
            return
        self.shown = True

    def finish(self) -> None:
        if self.shown and self.tty:
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass


def _terminal_width(stream) -> int:
    """Columns of the terminal (a longer line would wrap and break the
    redraw); 10000 when it does not say."""
    import os
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        columns = 0
    return max(20, columns) if columns > 0 else 10000


class Config:
    """One point of the search space: constexpr values (`kwargs`) and launch
    options. `pre_hook(args)` runs before every launch with this config."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None):
        self.kwargs = dict(kwargs) if kwargs else {}
        self.num_warps = num_warps
        self.num_ctas = num_ctas
        self.num_stages = num_stages
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self) -> dict:
        """The constexpr values plus the launch options that are not None."""
        out = dict(self.kwargs)
        for name in _LAUNCH_OPTIONS:
            v = getattr(self, name)
            if v is not None:
                out[name] = v
        return out

    def __str__(self) -> str:
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}",
                  f"num_stages: {self.num_stages}", f"maxnreg: {self.maxnreg}"]
        return ", ".join(parts)

    def __repr__(self) -> str:
        extra = f", pre_hook={self.pre_hook!r}" if self.pre_hook is not None else ""
        return (f"Config({self.kwargs!r}, num_warps={self.num_warps}, num_stages={self.num_stages}, "
                f"num_ctas={self.num_ctas}, maxnreg={self.maxnreg}{extra})")

    def _identity(self):
        items = tuple(sorted((k, repr(v)) for k, v in self.kwargs.items()))
        return items, self.num_warps, self.num_stages, self.num_ctas, self.maxnreg

    def __eq__(self, other) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        return self._identity() == other._identity() and self.pre_hook is other.pre_hook

    def __hash__(self) -> int:
        return hash(self._identity())


# ---------------------------------------------------------------------------- helpers


def _base_function(fn):
    """The Python function under a chain of `.fn` (JITFunction, Autotuner, ...)."""
    f = fn
    for _ in range(16):
        if isinstance(f, types.FunctionType):
            return f
        nxt = getattr(f, "fn", None)
        if nxt is None or nxt is f:
            break
        f = nxt
    return f


def _defaults_of(base, arg_names) -> dict:
    """Parameter name -> default value, from the Python function."""
    code = getattr(base, "__code__", None)
    defaults = getattr(base, "__defaults__", None) or ()
    if code is None or not defaults:
        return {}
    names = list(code.co_varnames[:code.co_argcount])
    out = {}
    for name, value in zip(names[len(names) - len(defaults):], defaults):
        if name in arg_names:
            out[name] = _unwrap_constexpr(value)
    return out


def _copy_names(wrapper, base) -> None:
    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(wrapper, attr, getattr(base, attr))
        except (AttributeError, TypeError):
            pass


def _check_names(what: str, names, arg_names, fn_name: str) -> list:
    if names is None:
        return []
    if isinstance(names, str):
        names = [names]
    names = list(names)
    for n in names:
        if n not in arg_names:
            raise ValueError(f"{what}: '{fn_name}' has no parameter '{n}' (parameters: {', '.join(arg_names)})")
    return names


def _tensor_base(x):
    # reinterpret() wrappers: work on the wrapped array.
    if type(x).__name__ == "TensorWrapper" and hasattr(x, "base"):
        return x.base
    return x


def _zero(x, name: str) -> None:
    x = _tensor_base(x)
    if hasattr(x, "zero_"):
        x.zero_()
    elif hasattr(x, "__setitem__"):
        x[...] = 0
    else:
        raise TypeError(f"reset_to_zero: cannot zero argument '{name}' (a {type(x).__name__})")


def _snapshot(x, name: str):
    x = _tensor_base(x)
    if hasattr(x, "clone"):
        return x.clone()
    if hasattr(x, "copy"):
        return x.copy()
    raise TypeError(f"restore_value: cannot copy argument '{name}' (a {type(x).__name__})")


def _restore(x, saved) -> None:
    x = _tensor_base(x)
    if hasattr(x, "copy_"):
        x.copy_(saved)
    else:
        x[...] = saved


def _timing(t) -> list:
    if isinstance(t, (list, tuple)):
        return [float(e) for e in t]
    return [float(t)]


def _host_bench(fn, warmup=None, rep=None, quantiles=None):
    """Median (and `quantiles`) of `fn()`'s runtime in ms, with perf_counter:
    the fallback when tessera.testing is not available."""
    clock = time.perf_counter
    fn()
    t0 = clock()
    fn()
    est = max((clock() - t0) * 1e3, 1e-4)
    n_warm = min(1000, max(1, int((25 if warmup is None else warmup) / est)))
    n_rep = min(10000, max(3, int((100 if rep is None else rep) / est)))
    for _ in range(n_warm):
        fn()
    times = []
    for _ in range(n_rep):
        t0 = clock()
        fn()
        times.append((clock() - t0) * 1e3)
    times.sort()

    def q(p):
        pos = p * (len(times) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(times) - 1)
        return times[lo] + (times[hi] - times[lo]) * (pos - lo)

    if quantiles is None:
        return q(0.5)
    return [q(p) for p in quantiles]


def _accepts_quantiles(f) -> bool:
    import inspect
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "quantiles" or p.kind is p.VAR_KEYWORD for p in params)


def _target_id() -> str:
    """The active target and, on a GPU, the device's name: timings from one
    GPU model do not choose configs for another."""
    try:
        from .driver import driver
        d = driver.active
        target = repr(d.get_current_target())
        if getattr(d, "backend", "") == "cuda":
            target += "|" + d.utils.get_device_properties(d.get_current_device())["name"]
        return target
    except Exception:
        return "unknown"


def _launch(fn, args, kwargs):
    """fn.run(*args, **kwargs) for a launch (not a warmup), through fn[grid]:
    for a @jit function, the C++ launch fast path."""
    if "grid" not in kwargs or not isinstance(fn, JITFunction):
        return fn.run(*args, **kwargs)  # (without a grid: which says so)
    grid = kwargs.pop("grid")  # kwargs is the caller's own new dict
    kwargs.pop("warmup", None)
    return fn[grid](*args, **kwargs)


class _GridLaunch:
    """kernel[grid] of an autotuned or heuristic kernel: a launch called with
    positional arguments alone (the usual call) skips run()'s keyword
    plumbing."""

    __slots__ = ("kernel", "grid")

    def __init__(self, kernel, grid):
        self.kernel, self.grid = kernel, grid

    def __call__(self, *args, **kwargs):
        return self.kernel._run_grid(self.grid, *args, **kwargs)


_make_tuned_launcher = None  # kernel[grid] of an Autotuner: _C.tuned_launcher, or _GridLaunch


def _tuned_launcher(kernel, grid):
    global _make_tuned_launcher
    make = _make_tuned_launcher
    if make is None:
        try:
            ext = _ext()
            ext.set_key_kinds(KEY_KINDS)
            make = ext.tuned_launcher
        except Exception:  # noqa: BLE001 (no extension: the Python launch path)
            make = _GridLaunch
        _make_tuned_launcher = make
    return make(kernel, grid)


class _Wrapper:
    """What Autotuner and Heuristics share: the kernel interface over `run`."""

    def __getitem__(self, grid):
        if torch_compiling():  # the launch becomes an op of the graph (torch_ops.py)
            return torch_launcher(self, grid)
        return _GridLaunch(self, grid)

    def _run_grid(self, grid, *args, **kwargs):
        """kernel[grid](*args, **kwargs) in Python (_GridLaunch and, for an
        Autotuner, TunedLauncher call it)."""
        if kwargs:
            return self.run(*args, grid=grid, warmup=False, **kwargs)
        return self._run_positional(grid, args)

    def _run_positional(self, grid, args):
        """kernel[grid](*args) with no keyword arguments."""
        return self.run(*args, grid=grid, warmup=False)

    @property
    def cache_key(self) -> str:
        return self.fn.cache_key

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"'{self.__name__}' is a kernel: launch it as {self.__name__}[grid](...)")

    def _bind(self, args, kwargs) -> dict:
        """Parameter name -> value: defaults, then positional args, then kwargs
        (launch plumbing such as grid left out)."""
        bound = dict(self._defaults)
        bound.update(zip(self.arg_names, args))
        for k, v in kwargs.items():
            if k not in _NOT_ARGS:
                bound[k] = v
        return bound


# ---------------------------------------------------------------------------- Autotuner


class Autotuner(_Wrapper):
    """A kernel that picks the fastest of `configs` for each tuning key.
    Made by `@autotune`; see the module docstring."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, prune_configs_by=None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=False):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.base_fn = _base_function(fn)
        _copy_names(self, self.base_fn)
        name = getattr(self.base_fn, "__name__", "kernel")
        self.configs = list(configs) if configs else [Config({})]
        for c in self.configs:
            if not isinstance(c, Config):
                raise TypeError(f"autotune: configs must be triton.Config objects, got {type(c).__name__}")
        self.keys = _check_names("autotune key", key, self.arg_names, name)
        self.reset_to_zero = _check_names("reset_to_zero", reset_to_zero, self.arg_names, name)
        self.restore_value = _check_names("restore_value", restore_value, self.arg_names, name)
        self.user_pre_hook = pre_hook
        self.user_post_hook = post_hook
        prune = dict(prune_configs_by or {})
        unknown = set(prune) - {"perf_model", "top_k", "early_config_prune"}
        if unknown:
            raise ValueError(f"prune_configs_by: unknown keys {sorted(unknown)} "
                             "(expected perf_model, top_k, early_config_prune)")
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 10)
        self.early_config_prune = prune.get("early_config_prune")
        self.num_warmups = warmup
        self.num_reps = rep
        self.use_cuda_graph = use_cuda_graph
        self.user_do_bench = do_bench
        self.cache_results = cache_results
        self._defaults = _defaults_of(self.base_fn, self.arg_names)
        self._tessera_id = register_launchable(self)  # for torch.compile (torch_ops.py)
        self.cache = TuningCache({})  # tuning key -> Config
        self._checked = {}  # (id(config), len(args), kwargs names) -> config: no conflicts
        # Positions of the key arguments, for launch_token.
        self._key_index = [self.arg_names.index(k) for k in self.keys]
        self.best_config = None
        self.configs_timings = None
        self.bench_time = None
        self._launch_args = None  # a fast launch's positional arguments (nargs)
        self.nargs = None  # the bound arguments while a launch is in progress

    def __repr__(self) -> str:
        return f"Autotuner({self.fn!r}, {len(self.configs)} configs, key={self.keys})"

    # ---- launching -----------------------------------------------------------------------

    def __getitem__(self, grid):
        # A TunedLauncher (python/src/tuned_launcher.cpp): a launch whose
        # config the memo knows runs without Python; others call _run_grid.
        if torch_compiling():  # the launch becomes an op of the graph (torch_ops.py)
            return torch_launcher(self, grid)
        if _launch_hooks_set():  # (they run in JITFunction.run)
            return _GridLaunch(self, grid)
        return _tuned_launcher(self, grid)

    def run(self, *args, **kwargs):
        if kwargs.get("warmup", False):
            kwargs = dict(kwargs)
            del kwargs["warmup"]
            return self.warmup(*args, **kwargs)
        bound = self._bind(args, kwargs)
        self.nargs = bound
        try:
            key, config = self._cached_config(bound)
            if config is None:
                config = self._tune(key, args, kwargs, bound)
            options = config.all_kwargs()
            # Conflicts depend only on which parameters were given: checked
            # once per calling pattern and config.
            pattern = (id(config), len(args), tuple(kwargs))
            if pattern not in self._checked:
                self._check_conflicts(args, kwargs, config)
                self._checked[pattern] = config  # keeps id(config) from being reused
            self.best_config = config
            if config.pre_hook is not None:
                config.pre_hook({**bound, **options})
            return _launch(self.fn, args, {**kwargs, **options})
        finally:
            self.nargs = None

    def _cached_config(self, bound: dict):
        """(tuning key, the config tuned for it or None); with one config, (None,
        that config): nothing to tune."""
        if len(self.configs) == 1:
            return None, self.configs[0]
        key = self.tuning_key(bound)
        return key, self.cache.get(key)

    @property
    def nargs(self):
        """The bound arguments (name -> value) while a launch is in progress,
        else None; bound on demand for a launch that did not need them."""
        if self._nargs is None and self._launch_args is not None:
            return self._bind(self._launch_args, {})
        return self._nargs

    @nargs.setter
    def nargs(self, value):
        self._nargs = value

    def _run_positional(self, grid, args):
        # kernel[grid](*args) where TunedLauncher's memo did not know the
        # call: the tuned key's config launched directly once checked for
        # this calling pattern, else run() (a new key or pattern, a config
        # with a pre_hook, a kernel under @heuristics). A positional launch of
        # a @jit kernel then leaves its config in the memo under the
        # arguments' token, where TunedLauncher finds it next time.
        bound = self._bind(args, {})
        config = self._cached_config(bound)[1]
        direct = (config is not None and config.pre_hook is None and isinstance(self.fn, JITFunction)
                  and (id(config), len(args), ()) in self._checked)
        if direct:
            self.best_config = config
            self.nargs = bound
            try:
                out = self.fn[grid](*args, **config.all_kwargs())
            finally:
                self.nargs = None
        else:
            out = self.run(*args, grid=grid, warmup=False)
            config = self.best_config
            if config is None or config.pre_hook is not None:
                return out
            self._checked[(id(config), len(args), ())] = config
        memo = getattr(self.cache, "memo", None)  # None: .cache replaced by a plain dict
        token = launch_token(self._key_index, args) if memo is not None else None
        if token is not None and isinstance(self.fn, JITFunction):
            options = config.all_kwargs()  # (names and values apart: keywords for C++)
            try:
                memo[token] = (config, tuple(options), tuple(options.values()))
            except TypeError:  # an unhashable dtype: no token
                pass
        return out

    def warmup(self, *args, **kwargs):
        """Compiles the kernel for every (pruned) config without launching;
        returns the list of what the wrapped kernel's warmup returned."""
        bound = self._bind(args, kwargs)
        self.nargs = bound
        try:
            out = []
            for config in self.prune_configs(kwargs, self._positional(args)):
                self._check_conflicts(args, kwargs, config)
                out.append(self.fn.warmup(*args, **kwargs, **config.all_kwargs()))
            return out
        finally:
            self.nargs = None

    def tuning_key(self, bound: dict) -> tuple:
        """The values of the `key` arguments, then the dtypes of all arguments."""
        return tuning_key(self.keys, self.arg_names, bound)

    def _check_conflicts(self, args, kwargs, config) -> None:
        given = set(self.arg_names[:len(args)])
        given.update(k for k in kwargs if k not in _NOT_ARGS)
        conflicts = [k for k in config.all_kwargs() if k in given]
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(conflicts)}. "
                             "Make sure that you don't re-define auto-tuned symbols.")

    # ---- pruning -------------------------------------------------------------------------

    def _positional(self, args) -> dict:
        # What Triton hands early_config_prune and perf_model as the named
        # arguments: those passed by position (keywords come as **kwargs).
        return dict(zip(self.arg_names, args))

    def prune_configs(self, kwargs, nargs=None) -> list:
        """The configs worth timing for these arguments (prune_configs_by):
        `nargs` the arguments given by position, `kwargs` the keywords."""
        if nargs is None:
            nargs = self.nargs if self.nargs is not None else {}
        meta = {k: v for k, v in kwargs.items() if k not in _NOT_ARGS}
        configs = list(self.configs)
        if self.early_config_prune is not None:
            configs = list(self.early_config_prune(self.configs, nargs, **meta))
            if not configs:  # Triton's error, word for word
                raise AutotunerError("No valid autotuner configs after pruning. `early_config_prune` "
                                     "should return at least one config.")
        if self.perf_model is not None:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(self.configs) * top_k))
            elif isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
                raise TypeError("prune_configs_by['top_k'] must be an int >= 1 or a float <= 1.0, "
                                f"got {top_k!r}")
            if len(configs) > top_k:
                estimates = [(self.perf_model(**{**nargs, **meta, **c.all_kwargs()}), i)
                             for i, c in enumerate(configs)]
                estimates.sort()
                configs = [configs[i] for _, i in estimates[:top_k]]
        return configs

    # ---- tuning --------------------------------------------------------------------------

    def _tune(self, key, args, kwargs, bound) -> Config:
        from .. import knobs
        use_disk = self.cache_results or bool(knobs.autotuning.cache)
        disk_key = self._disk_key(key) if use_disk else None
        if disk_key is not None:
            hit = self._load(disk_key)
            if hit is not None:
                best, timings = hit
                self.cache[key] = best
                self.configs_timings = timings
                self.bench_time = 0.0
                if _print_autotuning():
                    print(f"Tessera autotuning for function {self.__name__}: best config loaded from "
                          f"the disk cache: {best};")
                self._tell_listener(key, best, timings, None)
                return best

        configs = self.prune_configs(kwargs, self._positional(args))
        for config in configs:
            self._check_conflicts(args, kwargs, config)
        bench = self._benchmarker()
        saved = {}
        for name in self.restore_value:
            if bound.get(name) is not None:
                saved[name] = _snapshot(bound[name], name)
        start = time.perf_counter()
        timings = {}
        errors = []
        progress = _Progress(self.__name__, len(configs))
        try:
            for done, config in enumerate(configs, 1):
                try:
                    timings[config] = _timing(bench(self._kernel_call(args, kwargs, bound, config, saved)))
                except INVALID_CONFIG_ERRORS as e:
                    errors.append(e)
                    timings[config] = [float("inf")] * len(_QUANTILES)
                progress.update(done, timings)
        finally:
            progress.finish()
        self.bench_time = time.perf_counter() - start
        if errors and all(t[0] == float("inf") for t in timings.values()):
            raise errors[0]
        best = min(timings, key=timings.get)
        self.cache[key] = best
        self.configs_timings = timings
        self._reset(bound)  # timing dirtied them; the real launch must start from zero
        if disk_key is not None:
            self._store(disk_key, key, best, timings)
        if _print_autotuning():
            print(f"Tessera autotuning for function {self.__name__} finished after "
                  f"{self.bench_time:.2f}s; best config selected: {best};")
        self._tell_listener(key, best, timings, self.bench_time)
        return best

    def _tell_listener(self, key, best, timings, duration) -> None:
        # knobs.autotuning.listener, as Triton calls it: the @jit function under
        # the wrappers, and duration None where the disk cache answered.
        from .. import knobs
        listener = knobs.autotuning.listener
        if listener is None:
            return
        fn = self.fn
        while not isinstance(fn, JITFunction) and hasattr(fn, "fn"):
            fn = fn.fn
        listener(fn=fn, key=key, best_config=best, configs_timings=timings, duration=duration,
                 cache_hit=duration is None)

    def _reset(self, bound) -> None:
        for name in self.reset_to_zero:
            if bound.get(name) is not None:
                _zero(bound[name], name)

    def _kernel_call(self, args, kwargs, bound, config, saved):
        options = config.all_kwargs()
        call_kwargs = {**kwargs, **options}
        hook_args = {**bound, **options}
        fn = self.fn

        def kernel_call():
            if config.pre_hook is not None:
                config.pre_hook(hook_args)
            self._reset(bound)
            if self.user_pre_hook is not None:
                self.user_pre_hook(hook_args)
            try:
                fn.run(*args, **call_kwargs)
            except Exception as e:
                for name, value in saved.items():
                    _restore(bound[name], value)
                if self.user_post_hook is not None:
                    self.user_post_hook(hook_args, exception=e)
                raise
            for name, value in saved.items():
                _restore(bound[name], value)
            if self.user_post_hook is not None:
                self.user_post_hook(hook_args, exception=None)

        return kernel_call

    def _benchmarker(self):
        """f(kernel_call) -> timing in ms (a float or [median, p20, p80])."""
        if self.user_do_bench is not None:
            user = self.user_do_bench
            if _accepts_quantiles(user):
                return lambda f: user(f, quantiles=_QUANTILES)
            return user
        opts = {}
        if self.num_warmups is not None:
            opts["warmup"] = self.num_warmups
        if self.num_reps is not None:
            opts["rep"] = self.num_reps
        try:
            from .. import testing
        except ImportError:
            testing = None
        if testing is not None and self.use_cuda_graph and hasattr(testing, "do_bench_cudagraph"):
            opts.pop("warmup", None)
            return lambda f: testing.do_bench_cudagraph(f, quantiles=_QUANTILES, **opts)
        if testing is not None and hasattr(testing, "do_bench"):
            return lambda f: testing.do_bench(f, quantiles=_QUANTILES, **opts)
        return lambda f: _host_bench(f, quantiles=_QUANTILES, **opts)

    # ---- the disk cache ------------------------------------------------------------------

    def _disk_key(self, key):
        from . import cache
        try:
            source = self.fn.cache_key
        except Exception:  # no source to hash: keep results in memory only
            return None
        configs = tuple(repr(c._identity()) for c in self.configs)
        return cache.hash_key("tessera-autotune", _DISK_FORMAT, str(source), _target_id(), repr(key),
                              configs)

    def _load(self, disk_key):
        from . import cache
        store = cache.autotune_cache()
        if store is None:
            return None
        payload = store.get_checked(disk_key)
        if payload is None:
            return None
        import json
        try:
            data = json.loads(payload.decode())
            if data["format"] != _DISK_FORMAT:
                raise ValueError("format")
            best = self.configs[int(data["best"])]
            timings = {self.configs[int(i)]: [float(x) for x in t] for i, t in data["timings"]}
        except (ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError):
            store.remove(disk_key)
            return None
        return best, timings

    def _store(self, disk_key, key, best, timings) -> None:
        from . import cache
        store = cache.autotune_cache()
        if store is None:
            return
        import json
        index = {id(c): i for i, c in enumerate(self.configs)}
        rows = [[index[id(c)], t] for c, t in timings.items() if id(c) in index]
        if id(best) not in index:  # a config made by early_config_prune: not reproducible
            return
        data = {"format": _DISK_FORMAT, "function": self.__name__, "key": repr(key),
                "best": index[id(best)], "best_config": str(best), "timings": rows,
                "bench_time": self.bench_time}
        store.put_checked(disk_key, json.dumps(data).encode())


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    """Decorator: time each of `configs` on the first launch for every value of
    the `key` arguments and launch with the fastest. Apply above `@jit` (and
    above or below `@heuristics`)."""

    def decorator(fn):
        if not hasattr(fn, "arg_names") or not hasattr(fn, "run"):
            raise TypeError("@autotune must be applied above @jit (it wraps a kernel, got "
                            f"{type(fn).__name__})")
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook, prune_configs_by=prune_configs_by,
                         warmup=warmup, rep=rep, use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results)

    return decorator


# ---------------------------------------------------------------------------- Heuristics


class Heuristics(_Wrapper):
    """A kernel some of whose arguments are computed from the others. Made by
    `@heuristics`: each value is a function of the dict of bound arguments
    (positional ones by name, keyword ones, and defaults), evaluated in order
    so later ones see earlier results, and passed as a keyword argument."""

    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.values = dict(values)
        for name, f in self.values.items():
            if not callable(f):
                raise TypeError(f"heuristics: the value for '{name}' must be a function of the arguments")
        self.base_fn = _base_function(fn)
        _copy_names(self, self.base_fn)
        self._defaults = _defaults_of(self.base_fn, self.arg_names)
        self._tessera_id = register_launchable(self)  # for torch.compile (torch_ops.py)

    def __repr__(self) -> str:
        return f"Heuristics({self.fn!r}, {list(self.values)})"

    def _with_values(self, args, kwargs) -> dict:
        kwargs = dict(kwargs)
        bound = self._bind(args, kwargs)
        for name, f in self.values.items():
            v = f(bound)
            kwargs[name] = v
            bound[name] = v
        return kwargs

    def run(self, *args, **kwargs):
        kwargs = self._with_values(args, kwargs)
        if kwargs.get("warmup", False):
            return self.fn.run(*args, **kwargs)
        return _launch(self.fn, args, kwargs)

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **self._with_values(args, kwargs))


def heuristics(values):
    """Decorator: `values` maps parameter names to functions of the dict of
    bound arguments; each launch passes their results as keyword arguments."""

    def decorator(fn):
        if not hasattr(fn, "arg_names") or not hasattr(fn, "run"):
            raise TypeError("@heuristics must be applied above @jit (it wraps a kernel, got "
                            f"{type(fn).__name__})")
        return Heuristics(fn, fn.arg_names, values)

    return decorator

