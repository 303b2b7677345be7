"""`@jit` and the launch path: `kernel[grid](*args, **kwargs)`.

Division of labour: this module binds arguments and owns the caches;
kernel_source.py finds a kernel's source and resolves the names it reads
(constants, modules, other @jit functions); kernel_build.py keys, checks and
compiles (through the disk cache); the C++ core does all parsing
and compiling, and the extension's Dispatcher does the per-launch work
(specialisation key, lookup, argument packing) in C++.

A launch:
  1. the generated binder maps *args/**kwargs (with defaults) to a tuple of
     every parameter's value plus the launch options;
  2. Dispatcher.run computes the specialisation key (Triton's rules: dtypes,
     integers == 1 and divisible by 16, pointers 16-byte aligned, constexpr
     values) and runs the kernel if that key was compiled;
  3. otherwise (first launch of a specialisation) the slow path builds the
     source units and asks the disk cache, else compiles, then registers the
     kernel with the Dispatcher.

Cache key of a compiled kernel: the compiler version, every source unit (the
kernel's and each callee's source text, file, first line, and the globals
each reads), the specialisation and the options. Editing a kernel or a
callee, or changing a global constant it reads, changes the key.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
import sys
import threading
import types
import weakref

from .. import knobs
from . import arrays, kernel_cache, tuple_args
from .arrays import TensorWrapper, reinterpret  # noqa: F401  (Triton's names live here too)

# Names of dtypes (NumPy's, PyTorch's, Triton's) -> signature names, as
# Triton's table of the same name.
type_canonicalisation_dict = {
    "bool": "i1", "int1": "i1", "int8": "i8", "int16": "i16", "int": "i32", "int32": "i32",
    "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float8e4nv": "fp8e4nv", "float8_e4m3fn": "fp8e4nv", "float8e5": "fp8e5",
    "float8_e5m2": "fp8e5", "float8e4b15": "fp8e4b15", "float8e4b8": "fp8e4b8",
    "float8_e4m3fnuz": "fp8e4b8", "float8e5b16": "fp8e5b16", "float8_e5m2fnuz": "fp8e5b16",
    "half": "fp16", "float16": "fp16", "bfloat16": "bf16", "float": "fp32", "float32": "fp32",
    "double": "fp64", "float64": "fp64", "void": "void",
}
from .errors import CompilationError, KernelError
from .kernel_build import _check_options, _compiler_id, _hash, _load_or_compile, _tile_passes
from .kernel_source import (_EXEC_SOURCES, _collect_units, _encode_const, _file_lines,
                            _function_source, _source_from_exec_caller)

_C = None  # the extension, loaded on first use (keeps `import tessera` cheap)


_C_lock = threading.Lock()


def _ext():
    global _C
    if _C is None:
        # Threads launching for the first time at once: one configures the
        # module, and none uses it before that is done.
        with _C_lock:
            if _C is None:
                from .. import _ext as loader
                c = loader.load()
                c.set_error_types(CompilationError, KernelError)
                c.set_resolver(arrays.resolver)
                from ..tools.tensor_descriptor import TensorDescriptor
                c.set_descriptor_type(TensorDescriptor)
                c.set_stream_getter(_current_stream)
                _C = c
    return _C


# ---- torch.compile (torch_ops.py) ----------------------------------------------------------

# Kernel objects a compiled graph may launch, by number: the custom op
# tessera::launch names its kernel with one (a graph holds no Python objects).
_LAUNCHABLE = weakref.WeakValueDictionary()
_LAUNCHABLE_IDS = itertools.count()

_is_compiling = None  # torch.compiler.is_compiling, once torch is imported
_torch_ops_loaded = False  # torch_ops imported (the op defined) outside tracing


def _find_is_compiling():
    """torch.compiler.is_compiling if torch is imported (else None), kept:
    Dynamo then reads a global rather than tracing a look-up in sys.modules."""
    global _is_compiling
    if _is_compiling is None:
        torch = sys.modules.get("torch")
        if torch is not None and hasattr(torch, "compiler"):
            _is_compiling = torch.compiler.is_compiling
    return _is_compiling


def register_launchable(kernel) -> int:
    """The number `launchable` finds `kernel` by (for torch.compile)."""
    n = next(_LAUNCHABLE_IDS)
    _LAUNCHABLE[n] = kernel
    _find_is_compiling()
    return n


def launchable(n: int):
    k = _LAUNCHABLE.get(n)
    if k is None:
        raise RuntimeError(f"tessera: the kernel {n} launched by a torch.compile graph "
                           "no longer exists")
    return k


def torch_compiling() -> bool:
    """Whether Dynamo is tracing (torch.compile): launches then become the
    custom op of torch_ops.py. Cheap, and False until torch is imported."""
    global _torch_ops_loaded
    f = _is_compiling
    if f is None:
        f = _find_is_compiling()
        if f is None:
            return False
    if f():
        return True
    if not _torch_ops_loaded:
        # Define the op now, outside any trace (a first import inside a
        # trace works too: Dynamo performs it for real).
        from . import torch_ops  # noqa: F401
        _torch_ops_loaded = True
    return False


def torch_launcher(kernel, grid):
    """`kernel[grid]` while Dynamo traces (torch_ops.launcher)."""
    from . import torch_ops
    return torch_ops.launcher(kernel, grid)


class Stats:
    """Counters for tests and tools: compiles, disk hits, disk writes."""

    def __init__(self):
        self.compiles = 0
        self.disk_hits = 0
        self.disk_writes = 0

    def reset(self) -> None:
        self.__init__()


stats = Stats()

# The launch options besides the five positional ones that change GPU
# code (_specialize reads them; preload passes them on).
_CODEGEN_OPTIONS = ("arch", "enable_fp_fusion", "enable_reflect_ftz")

# Launch options Triton accepts; those not in _KEYED_OPTIONS do not change
# what the CPU back end computes and are accepted and ignored.
_OPTION_NAMES = frozenset([
    "num_warps", "num_stages", "num_ctas", "maxnreg", "debug", "enable_fp_fusion",
    "enable_reflect_ftz",
    "launch_cooperative_grid", "launch_pdl", "extern_libs", "sanitize_overflow",
    "default_dot_input_precision", "allowed_dot_input_precisions", "max_num_imprecise_acc_default",
    "supported_fp8_dtypes", "deprecated_fp8_dtypes", "instrumentation_mode", "num_buffers_warp_spec",
    "num_consumer_groups", "reg_dec_producer", "reg_inc_consumer", "cluster_dims", "arch",
    "matrix_instr_nonkdim", "waves_per_eu", "kpack", "ir_override", "backend_name",
])


def _is_constexpr_annotation(ann) -> bool:
    if ann is None:
        return False
    if isinstance(ann, str):
        return "constexpr" in ann
    return getattr(ann, "__name__", "") == "constexpr" or "constexpr" in repr(ann)


_SIGNATURE_NAMES = set(type_canonicalisation_dict.values()) - {"void"}


def _pointer_to(inner: str) -> str:
    # "*fp16" for "fp16"; "" for no type or a pointer to a pointer.
    return "*" + inner if inner and not inner.startswith("*") else ""


def _annotation_type(ann) -> str:
    """The signature type a runtime parameter's annotation names, as
    Triton reads it ("fp16" for tl.float16 or "float16", "*fp32" for
    tl.pointer_type(tl.float32) or "*fp32", "i32" for int), or "" when it
    names none (a constexpr, torch.Tensor, anything else)."""
    if ann is None:
        return ""
    if isinstance(ann, str):
        t = ann.strip()
        if t.startswith("const "):
            t = t[len("const "):].strip()
        if t.endswith("*"):
            return _pointer_to(_annotation_type(t[:-1]))
        if t.startswith("*"):
            return _pointer_to(_annotation_type(t[2:] if t.startswith("*k") else t[1:]))
        for prefix in ("tl.", "triton.language.", "tessera.language."):
            if t.startswith(prefix):
                t = t[len(prefix):]
        t = {"u1": "i1"}.get(t, t)
        t = type_canonicalisation_dict.get(t.replace("_t", ""), t)
        return t if t in _SIGNATURE_NAMES else ""
    element = getattr(ann, "element_ty", None)
    if element is not None:  # tl.pointer_type
        return _pointer_to(_annotation_type(element))
    if isinstance(ann, type):
        return _annotation_type(ann.__name__) if ann in (int, float, bool) else ""
    name = getattr(ann, "name", None)  # tl.dtype
    return _annotation_type(name) if isinstance(name, str) and hasattr(ann, "primitive_bitwidth") \
        else ""


class KernelParam:
    """One parameter of a @jit function."""

    _EMPTY = object()

    def __init__(self, num: int, name: str, annotation, default, do_not_specialize: bool,
                 do_not_specialize_on_alignment: bool, scope: dict | None = None):
        self.num = num
        self.name = name
        self.annotation = annotation
        self.default = default
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment
        self.is_constexpr = _is_constexpr_annotation(annotation)
        # The type an annotation gives a runtime parameter ("fp16", "*fp32"):
        # the kernel sees the argument as that type, as in Triton.
        self.annotation_type = "" if self.is_constexpr else _annotation_type(annotation)
        if not self.annotation_type and not self.is_constexpr and isinstance(annotation, str) \
                and scope is not None:
            # Under `from __future__ import annotations` every annotation is
            # its source text: "tl.pointer_type(tl.float16)" or "'fp32'" are
            # read as Python would evaluate them in the kernel's module.
            try:
                value = eval(annotation, dict(scope))  # noqa: S307 - the user's own annotation
            except Exception:
                value = None
            if value is not None and value != annotation:
                self.annotation_type = _annotation_type(value)

    @property
    def has_default(self) -> bool:
        return self.default is not KernelParam._EMPTY


def _option_from_parameter(v):
    """A launch option's value from a parameter of the same name: ints and
    bools (constexprs unwrapped) set it; anything else leaves it unset."""
    v = _unwrap_constexpr(v)
    return v if isinstance(v, (bool, int)) and not hasattr(v, "dtype") else None


def dispatch_mode(p) -> int:
    """How the Dispatcher specialises parameter `p` (a KernelParam or a
    tuple_args.Leaf)."""
    c = _ext()
    if p.is_constexpr:
        return c.CONSTEXPR
    if p.do_not_specialize:
        return c.NOSPEC
    if p.do_not_specialize_on_alignment:
        return c.NOALIGN
    return c.RUNTIME


def _annotated_spec(kernel, name, annotated, s):
    """The ArgSpec `s` of parameter `name` as its annotation's type makes
    it: a pointer's element type, or a scalar's type (floats and bools not
    specialised on their value, as in Triton). An argument the annotation
    cannot describe is a TypeError that says so."""
    what = f"{kernel}: argument '{name}' is annotated {annotated}"
    if annotated.startswith("*"):
        if s[0] != "ptr":
            raise TypeError(f"{what}, a pointer, but got a {'scalar' if s[0] == 'scalar' else s[0]}; "
                            "pass a tensor or change the annotation")
        return (s[0], annotated[1:]) + tuple(s[2:])
    if s[0] != "scalar":
        raise TypeError(f"{what}, a scalar, but got a {'tensor' if s[0] == 'ptr' else s[0]}; pass a "
                        "number or change the annotation")
    if annotated.startswith(("fp", "bf")):
        return ("scalar", annotated, False, False)
    if s[1].startswith(("fp", "bf")):
        raise TypeError(f"{what}, an integer type, but got a float; pass an int or annotate a float "
                        "type (tl.float32)")
    if annotated == "i1":
        return ("scalar", annotated, False, False)
    return ("scalar", annotated, s[2], s[3])


def _unwrap_constexpr(v):
    # tl.constexpr(x) -> x, without importing tessera.language here.
    while type(v).__name__ == "constexpr" and hasattr(v, "value"):
        v = v.value
    return v


class KernelInterface:
    """`kernel[grid](...)` and `kernel.warmup(...)` over a `run` method."""

    def __getitem__(self, grid):
        return functools.partial(self.run, grid=grid, warmup=False)

    def warmup(self, *args, grid, **kwargs):
        return self.run(*map(arrays.MockTensor.wrap_dtype, args), grid=grid, warmup=True, **kwargs)


class JITFunction(KernelInterface):
    """A kernel (or a device function callable from kernels), compiled on
    first launch per specialisation."""

    def __getitem__(self, grid):
        # After the first launch, a C++ Launcher: calling it binds the
        # arguments and launches without running Python (dispatcher.h).
        if torch_compiling():  # the launch becomes an op of the graph (torch_ops.py)
            return torch_launcher(self, grid)
        d = self._dispatcher
        if d is None or _launch_hooks_set():
            return functools.partial(self.run, grid=grid, warmup=False)
        return d.launcher(self, grid)

    def __init__(self, fn, version=None, do_not_specialize=None, do_not_specialize_on_alignment=None,
                 debug=None, noinline=None, repr=None, launch_metadata=None):
        if not isinstance(fn, types.FunctionType):
            raise TypeError(f"@jit applies to functions, not {type(fn).__name__}")
        self.fn = fn
        self.module = fn.__module__
        self.version = version
        self._debug = debug
        self.noinline = noinline
        self._repr = repr
        self.launch_metadata = launch_metadata
        functools.update_wrapper(self, fn)
        code = fn.__code__
        if code.co_flags & 0x08:
            raise TypeError(f"@jit function '{fn.__name__}' cannot take **kwargs")
        # *args and keyword-only parameters serve functions that kernels call
        # (Triton takes them there); a kernel launched from the host takes
        # plain parameters (run() says so).
        self._not_a_kernel = ("*args" if code.co_flags & 0x04 else
                              "keyword-only parameters" if code.co_kwonlyargcount else None)
        names = list(code.co_varnames[:code.co_argcount])
        defaults = fn.__defaults__ or ()
        first_default = len(names) - len(defaults)
        annotations = getattr(fn, "__annotations__", {}) or {}
        dns = set(do_not_specialize or ())
        dnsa = set(do_not_specialize_on_alignment or ())
        for n in list(dns) + list(dnsa):
            if isinstance(n, str) and n not in names:
                raise ValueError(f"do_not_specialize: '{fn.__name__}' has no parameter '{n}'")
        self.params = []
        for i, name in enumerate(names):
            default = defaults[i - first_default] if i >= first_default else KernelParam._EMPTY
            self.params.append(KernelParam(i, name, annotations.get(name), default,
                                           i in dns or name in dns, i in dnsa or name in dnsa,
                                           getattr(fn, "__globals__", None)))
        self.arg_names = names
        self.constexprs = [p.num for p in self.params if p.is_constexpr]
        self._runtime_indices = [p.num for p in self.params if not p.is_constexpr]
        self._tuple_views = {}  # tuple shape -> tuple_args.TupleView
        self.do_not_specialize = list(do_not_specialize or ())
        self.do_not_specialize_on_alignment = list(do_not_specialize_on_alignment or ())
        self._binder = self._make_binder()
        self._dispatcher = None
        self._units_cache = None  # (units, used_globals, source_hash)
        self._src_override = None  # JITFunction.src assigned
        # The source as it is now: editing the file after the import must
        # not change the kernel that runs (Python runs the imported code).
        self._lines = _file_lines(fn)
        code = fn.__code__
        if code.co_filename.startswith("<") and not self._lines:
            text = _source_from_exec_caller(fn)
            if text is not None:
                _EXEC_SOURCES[code] = text
        self._by_hash = {}  # full cache key -> CompiledKernel: what `cache` holds
        # device -> {specialisation key: CompiledKernel} (Triton's `cache`);
        # device_caches is Triton 3's view of it (kernel_cache.py).
        self.cache = kernel_cache.DeviceCaches(self)
        self._device_caches = None
        self._key_cache = {}
        self._pre_run_hooks = []
        self._tessera_id = register_launchable(self)

    # The launch fast path reads these two, so setting them reconfigures it.
    @property
    def debug(self):
        return self._debug

    @debug.setter
    def debug(self, value):
        self._debug = value
        self._configure_dispatcher()

    @property
    def pre_run_hooks(self):
        return self._pre_run_hooks

    @pre_run_hooks.setter
    def pre_run_hooks(self, hooks):
        self._pre_run_hooks = list(hooks)
        self._configure_dispatcher()

    # ---- host-side behaviour -------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"'{self.__name__}' is a @jit function: launch it as "
                           f"{self.__name__}[grid](...), or call it from another @jit function")

    def __repr__(self) -> str:
        return f"JITFunction({self.module}:{self.fn.__qualname__})"

    def add_pre_run_hook(self, hook) -> None:
        self.pre_run_hooks.append(hook)

    # ---- binding -------------------------------------------------------------------------

    def _make_binder(self):
        """A function with the kernel's own signature plus the launch options,
        returning (values of every parameter, keyed options, other options).
        Generated once, so binding costs one Python call."""
        ns = {}
        parts = []
        for p in self.params:
            if p.has_default:
                ns[f"_d{p.num}"] = _unwrap_constexpr(p.default)
                parts.append(f"{p.name}=_d{p.num}")
            else:
                parts.append(p.name)
        # A parameter named like a launch option binds as the parameter and,
        # when its value is an int or bool, also sets the option (as Triton).
        names = {p.name for p in self.params}
        options = ("num_warps", "num_stages", "num_ctas", "maxnreg", "debug")
        opts = ", ".join([f"{o}=None" for o in options if o not in names] + ["**_opts"])
        sig = ", ".join(parts + ["*", opts]) if parts else "*, " + opts
        values = "".join(f"{p.name}, " for p in self.params)
        chosen = ", ".join(f"_opt({o})" if o in names else o for o in options)
        ns["_opt"] = _option_from_parameter
        name = self.fn.__name__ if self.fn.__name__.isidentifier() else "kernel"
        src = (f"def {name}({sig}):\n"
               f"    return ({values}), ({chosen}), _opts\n")
        exec(compile(src, f"<tessera binder for {name}>", "exec"), ns)
        return ns[name]

    # ---- launching -----------------------------------------------------------------------

    def run(self, *args, grid, warmup=False, **kwargs):
        if self._not_a_kernel:
            raise TypeError(f"'{self.__name__}' takes {self._not_a_kernel}, which only functions "
                            "called from kernels may: a kernel launched from the host takes plain "
                            "parameters")
        if not warmup and torch_compiling():  # the launch becomes an op of the graph
            return torch_launcher(self, grid)(*args, **kwargs)
        # The C++ Launcher passes a grid function's result with the function.
        grid_fn = kwargs.pop("_grid_fn", None)
        for hook in self.pre_run_hooks:
            hook(*args, **kwargs)
        bound, opts, other = self._binder(*args, **kwargs)
        if other:
            opts = self._options_with(opts, other)
        if self.debug is not None and opts[4] is None:
            opts = opts[:4] + (self.debug,) + opts[5:]
        units = self._units_cache
        if units is None or _globals_changed(units[1]):
            units = self._build_units()
        if tuple_args.needs_view(self, bound):
            g = None if warmup else self._launch_grid(grid, grid_fn, bound)
            return tuple_args.run(self, bound, g, opts, units, warmup)
        dispatcher = self._dispatcher if self._dispatcher is not None else self._make_dispatcher()
        if warmup:
            return self._compiled_for(bound, opts, units, warmup=True)
        g = self._launch_grid(grid, grid_fn, bound)
        if _launch_hooks_set():
            return self._run_with_launch_hooks(dispatcher, bound, g, opts, units)
        ran = dispatcher.run(bound, g, opts)
        if ran is not None:
            return ran
        kernel = self._compiled_for(bound, opts, units)
        if kernel is None:  # knobs.runtime.jit_cache_hook asked not to compile
            return None
        ran = dispatcher.run(bound, g, opts)
        if ran is None:  # registered under the same key just now: a bug if it misses
            raise RuntimeError(f"tessera: internal error: no kernel for the key of '{self.__name__}'")
        return kernel

    def _launch_grid(self, grid, grid_fn, bound):
        """The launch's grid as three ints."""
        if callable(grid):
            return _check_grid(grid(dict(zip(self.arg_names, bound))), grid)
        if type(grid) is tuple and 0 < len(grid) <= 3 and all(
                type(x) is int and x >= 0 for x in grid):
            return grid + (1,) * (3 - len(grid))  # the common case
        return _check_grid(grid, grid_fn)

    def _run_with_launch_hooks(self, dispatcher, bound, g, opts, units):
        """A launch between knobs.runtime.launch_enter_hook and
        launch_exit_hook, as Triton calls them (the profiler's kernel scopes)."""
        # The compiled kernel (from memory, disk or a compile) without
        # launching it: the launch itself happens once, between the hooks.
        kernel = self._compiled_for(bound, opts, units)
        if kernel is None:  # knobs.runtime.jit_cache_hook asked not to compile
            return None
        device = getattr(kernel, "_device", -1)
        stream = _current_stream(device) if device >= 0 else 0
        meta = LazyDict({"name": self.__name__, "function": None, "stream": stream})
        if self.launch_metadata is not None:
            args = dict(zip(self.arg_names, bound))
            meta.add(self.launch_metadata, (g, types.SimpleNamespace(name=self.__name__), args))
        enter, leave = knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook
        if enter is not None:
            enter(meta)
        ran = dispatcher.run(bound, g, opts)
        if ran is None:  # registered under the same key just now: a bug if it misses
            raise RuntimeError(f"tessera: internal error: no kernel for the key of '{self.__name__}'")
        if leave is not None:
            leave(meta)
        return ran

    def _options_with(self, opts, other):
        for k in other:
            if k not in _OPTION_NAMES:
                raise TypeError(f"{self.__name__}() got an unexpected keyword argument '{k}'")
        # Plain values as they are (the compile reads enable_fp_fusion,
        # enable_reflect_ftz and arch back), others by their repr.
        keyed = tuple(sorted((k, v if type(v) in (bool, int, str, type(None)) else repr(v))
                             for k, v in other.items()))
        return opts + (keyed,)

    def _make_dispatcher(self):
        _check_backend()
        c = _ext()
        modes = [dispatch_mode(p) for p in self.params]
        self._dispatcher = c.Dispatcher(self.fn.__name__, self.arg_names, modes)
        self._configure_dispatcher()
        if self._units_cache is not None:
            self._dispatcher.set_globals(self._units_cache[1])
        return self._dispatcher

    def _configure_dispatcher(self):
        """What the C++ Launcher needs to bind arguments as the binder does."""
        d = self._dispatcher
        if d is None:
            return
        defaults = [(_unwrap_constexpr(p.default),) if p.has_default else None
                    for p in self.params]
        d.configure(defaults, self._pre_run_hooks, self._debug)

    def _compiled_for(self, bound, opts, units_entry, warmup=False):
        """The CompiledKernel for this specialisation: memory, disk, or
        compile; None when knobs.runtime.jit_cache_hook declined to compile."""
        dispatcher = self._dispatcher if self._dispatcher is not None else self._make_dispatcher()
        sp = self._specialize(dispatcher.specialize(bound), opts)
        compiled = self._compiled(sp, units_entry, warmup)
        if compiled is not None:
            dispatcher.add(bound, opts, compiled.kernel, compiled)
        return compiled

    def _specialize(self, raw, opts, params=None) -> "_Specialisation":
        """What the compiler needs (and the caches show) for the Dispatcher's
        ArgSpecs `raw` of a launch with options `opts`; `params`: the
        parameters `raw` is of, when not the kernel's (tuple_args.Leaf)."""
        sp = _Specialisation()
        places = {}  # pointer argument -> "host" or "cuda:N", where its memory is
        for p, s in zip(params or self.params, raw):
            path = getattr(p, "path", (p.num,))
            if s[0] == "ptr" and len(s) == 4:
                places[p.name] = f"cuda:{s[3]}"
                sp.device = max(sp.device, s[3])
                s = s[:3]
            elif s[0] == "ptr":
                places[p.name] = "host"
            elif s[0] == "tensordesc":
                # ("tensordesc", dtype, aligned, block, padding, shape dims % 16 == 0[, device])
                places[p.name] = f"cuda:{s[6]}" if len(s) == 7 else "host"
                if len(s) == 7:
                    sp.device = max(sp.device, s[6])
                divs = tuple(16 if f else 1 for f in s[5])
                sp.specs.append(("tensordesc", s[1], s[2], _encode_const((s[3], s[4], divs),
                                                                         p.name)))
                sp.runtime.append(p.num)
                dims = ",".join(str(d) for d in s[3])
                sp.signature[p.name] = sp.hook_signature[p.name] = f"tensordesc<{s[1]}[{dims}]>"
                sp.view.append((sp.signature[p.name], ("D" if s[2] else None, s[4])))
                continue
            if s[0] == "constexpr":
                if getattr(p, "do_not_specialize", False) and p.is_constexpr:
                    raise CompilationError(
                        f"{self.__name__}: {p.name} marked as constexpr and listed in "
                        f"do_not_specialize: a tl.constexpr parameter is always specialised; drop "
                        f"it from do_not_specialize or drop its tl.constexpr annotation")
                value = _unwrap_constexpr(s[1])
                sp.specs.append(("constexpr", _encode_const(value, f"argument '{p.name}'",
                                                            sp.functions)))
                sp.constants[p.name] = sp.hook_constants[path] = value
                sp.named_constants[p.name] = value
                sp.signature[p.name] = sp.hook_signature[p.name] = "constexpr"
                sp.view.append(("constexpr", value))
                continue
            annotated = getattr(p, "annotation_type", "")
            if annotated:
                s = _annotated_spec(self.__name__, p.name, annotated, s)
            sp.specs.append(s)
            sp.runtime.append(p.num)
            ty = ("*" + s[1]) if s[0] == "ptr" else s[1]
            sp.signature[p.name] = sp.hook_signature[p.name] = ty
            if s[0] == "scalar" and s[3]:  # == 1: Triton shows it as a constexpr 1
                sp.hook_signature[p.name] = "constexpr"
                sp.hook_constants[path] = 1
                sp.named_constants[p.name] = 1
                sp.view.append(("constexpr", 1))
                continue
            sp.view.append((ty, "D" if s[2] else None))
            if s[2]:
                sp.attrs[path] = [list(kernel_cache._DIV16)]
        if len(set(places.values())) > 1:
            where = ", ".join(f"'{n}' in {w} memory" if w == "host" else f"'{n}' on {w}"
                              for n, w in places.items())
            raise ValueError(f"{self.__name__}: the arguments live in different places ({where}); "
                             "a kernel runs on one device, so move them to the same one "
                             "(tensor.to(device), cupy.asarray)")
        if sp.device < 0 and arrays.backend_override() in ("gpu", "cuda"):
            raise TypeError(f"{self.__name__}: TESSERA_BACKEND=gpu, but the arguments are in host "
                            "memory; move them to the GPU (tensor.cuda(), cupy.asarray) or unset "
                            "TESSERA_BACKEND")
        _check_options(self.__name__, opts)
        sp.opts = opts
        sp.debug = bool(opts[4]) if opts[4] is not None else _env_debug()
        sp.num_warps = opts[0] if opts[0] is not None else 4
        sp.num_stages = opts[1] if opts[1] is not None else 3
        extra = dict(opts[5]) if len(opts) > 5 else {}
        fusion = extra.get("enable_fp_fusion")
        sp.fp_fusion = bool(knobs.language.default_fp_fusion if fusion is None else fusion)
        sp.reflect_ftz = bool(extra.get("enable_reflect_ftz", True))
        arch = extra.get("arch") or knobs.runtime.override_arch
        sp.target = gpu_target(sp.device, arch) if sp.device >= 0 else ""
        if (opts[2] or 1) > 1 and sp.target and int(sp.target[3:].rstrip("a")) < 90:
            raise ValueError(f"{self.__name__}: num_ctas > 1 requires NVIDIA SM90+ (Hopper); "
                             f"this kernel compiles for {sp.target}: launch it with num_ctas=1")
        sp.options = kernel_cache.options_view(sp.target, sp.num_warps, sp.num_stages, sp.debug)
        return sp

    def _compiled(self, sp, units_entry, warmup):
        """The CompiledKernel of a _Specialisation, recorded in
        `cache[device]`; None when jit_cache_hook declined to compile."""
        from .. import knobs
        _ext()  # the extension loaded (and its error types set) before anything compiles
        if sp.functions:
            units_entry = self._units_with(sp.functions)
        units, _, source_hash = units_entry
        passes = _tile_passes()
        key = _hash(_compiler_id(), source_hash, repr(sp.specs), sp.debug, sp.target,
                    # CPU code depends on num_warps too (tl.extra.cuda.num_warps()).
                    (sp.num_warps, sp.num_stages) if sp.target else sp.num_warps,
                    # GPU-only options, in the key only when not the defaults.
                    *((("fp_fusion", sp.fp_fusion, "reflect_ftz", sp.reflect_ftz),)
                      if sp.target and not (sp.fp_fusion and sp.reflect_ftz) else ()),
                    *((("maxnreg", sp.opts[3]),) if sp.target and sp.opts[3] else ()),
                    *((passes,) if passes != (True, "") else ()))
        view_key = kernel_cache.cache_key(sp.view, sp.options)
        device_cache = self.cache[max(sp.device, 0)]
        compiled = self._by_hash.get(key)
        if compiled is not None:
            if device_cache.get(view_key) is not compiled:
                device_cache._add(view_key, compiled)
            return compiled
        meta = self._metadata(sp, key)
        hook_args = (self, view_key, sp.hook_signature, max(sp.device, 0), sp.hook_constants,
                     sp.attrs, meta, warmup, meta.target)
        if kernel_cache.call_hook(knobs.runtime.jit_cache_hook, *hook_args):
            return None
        kernel = _load_or_compile(key, units, self.fn.__name__, sp.specs, sp.debug, sp.target,
                                  sp.num_warps, sp.num_stages, passes, sp.fp_fusion,
                                  sp.reflect_ftz, sp.opts[3] or 0)
        from ..compiler import CompiledKernel
        compiled = CompiledKernel(kernel, sp.runtime, sp.num_params or len(self.params), meta,
                                  sp.device, flatten=sp.flatten)
        if self._repr is not None:
            # @jit(repr=f): the name shown for this specialisation (Triton's
            # `specialization` argument: signature and constants by name).
            view = types.SimpleNamespace(name=self.__name__, signature=dict(sp.signature),
                                         constants=dict(sp.named_constants), attrs=sp.attrs)
            compiled.name = str(self._repr(view))
        self._by_hash[key] = compiled
        device_cache._add(view_key, compiled)
        try:
            self._key_cache[(tuple(sp.view), str(sp.options))] = view_key
        except TypeError:  # an unhashable constexpr value: no memo
            pass
        kernel_cache.call_hook(knobs.runtime.jit_post_compile_hook, *hook_args)
        return compiled

    def _metadata(self, sp, key):
        from ..compiler import KernelMetadata
        from .driver import GPUTarget
        target = sp.target
        arch = int(target[3:].rstrip("a")) if target else "interpreter"
        opts = sp.opts
        return KernelMetadata(
            name=self.fn.__name__, hash=key,
            target=GPUTarget("cuda" if target else "cpu", arch, 32),
            backend="cuda" if target else "cpu", backend_name="cuda" if target else "cpu",
            arch=f"sm{arch}" if target else "cpu", num_warps=sp.num_warps,
            num_stages=sp.num_stages,
            num_ctas=opts[2] if opts[2] is not None else 1, maxnreg=opts[3], shared=0,
            cluster_dims=(1, 1, 1), global_scratch_size=0, global_scratch_align=1,
            profile_scratch_size=0, tmem_size=0, launch_cooperative_grid=False,
            launch_pdl=False, enable_fp_fusion=sp.fp_fusion, sanitize_overflow=False,
            default_dot_input_precision="tf32",
            allowed_dot_input_precisions=("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"),
            max_num_imprecise_acc_default=0, extern_libs=None,
            debug=sp.debug, constants=sp.constants, signature=sp.signature)

    # ---- what was compiled: cache, device_caches, preload ---------------------------------

    @property
    def device_caches(self):
        """Triton 3's view of the cache: device -> (kernel_cache,
        kernel_key_cache, target, backend, binder); see kernel_cache.py."""
        if self._device_caches is None:
            self._device_caches = kernel_cache.DeviceCacheTuples(self)
        return self._device_caches

    def _kernel_cache_changed(self, dropped: bool) -> None:
        """`cache` was edited by hand: it is the memory cache, so the launch
        path forgets what it no longer holds."""
        self._by_hash = {k.hash: k for k in self.cache.kernels() if hasattr(k, "hash")}
        if dropped and self._dispatcher is not None:
            self._dispatcher.clear()
        if dropped:
            self._tuple_views.clear()

    def _forget_compiled(self) -> None:
        """The source or a global it reads changed: every kernel is stale."""
        for d in self.cache.values():
            dict.clear(d)
        self._key_cache.clear()
        self._by_hash = {}
        self._tuple_views.clear()
        if self._dispatcher is not None:
            self._dispatcher.clear()

    def _triton_binder(self, *args, **kwargs):
        """device_caches' binder: (bound arguments by name, specialization,
        options), whose str(specialization) + str(options) is the key of the
        kernel a launch with these arguments uses."""
        bound, opts, other = self._binder(*args, **kwargs)
        if other:
            opts = self._options_with(opts, other)
        if self.debug is not None and opts[4] is None:
            opts = opts[:4] + (self.debug,) + opts[5:]
        dispatcher = self._dispatcher if self._dispatcher is not None else self._make_dispatcher()
        sp = self._specialize(dispatcher.specialize(bound), opts)
        return dict(zip(self.arg_names, bound)), sp.view, sp.options

    def preload(self, specialization_data, _decoded=False):
        """Compiles (or loads from the disk cache) the kernel that
        `specialization_data` describes, without launching it, and records it
        in `cache`; returns the CompiledKernel. The data is the JSON string
        knobs.runtime.jit_cache_hook and jit_post_compile_hook receive as
        compile["specialization_data"] (what kernel_cache.py supports).
        RuntimeError when it is for another kernel."""
        backend, raw, options = kernel_cache.parse(specialization_data, self.params,
                                                   kernel_cache.full_name(self.fn),
                                                   decode=not _decoded)
        device = -1
        if backend not in (None, "cpu"):
            from .driver import driver
            active = driver.active
            if getattr(active, "backend", None) != "cuda":
                raise RuntimeError(f"preload: the specialization data of '{self.__name__}' is for "
                                   f"a {backend} GPU, and no CUDA device is active")
            device = int(active.get_current_device())
        raw = [tuple_args.on_device(s, device) for s in raw]
        opts = (options.get("num_warps"), options.get("num_stages"), options.get("num_ctas"),
                options.get("maxnreg"), bool(options.get("debug", False)))
        # The options that change GPU code besides those (see _specialize).
        extra = tuple(sorted((k, options[k]) for k in _CODEGEN_OPTIONS
                             if options.get(k) is not None))
        if extra:
            opts += (extra,)
        units = self._units_cache
        if units is None or _globals_changed(units[1]):
            units = self._build_units()
        if any(s[0] == "tuple" for s in raw):
            return self._compiled(tuple_args.specialize_nested(self, raw, opts), units, warmup=True)
        return self._compiled(self._specialize(raw, opts), units, warmup=True)

    # ---- sources and globals -------------------------------------------------------------

    @property
    def src(self) -> str:
        if self._src_override is not None:
            return self._src_override
        return _function_source(self.fn, lines=self._lines)[0]

    @src.setter
    def src(self, text: str) -> None:
        """Compiles from `text` from now on (Triton's tests patch kernel
        templates this way): it must define a function of the same name."""
        self._unsafe_update_src(text)

    def _unsafe_update_src(self, text: str) -> None:
        import textwrap
        text = textwrap.dedent(text)
        if f"def {self.fn.__name__}" not in text:
            raise ValueError(f"the new source of '{self.fn.__name__}' must define "
                             f"'def {self.fn.__name__}(...)'")
        self._src_override = text
        self._units_cache = None
        self._forget_compiled()

    @property
    def cache_key(self) -> str:
        """Hash of this function's source and everything it reads (callees'
        sources, global constants); changes when any of them changes."""
        entry = self._units_cache
        if entry is None or _globals_changed(entry[1]):
            entry = self._build_units()
        return entry[2]

    def _units_with(self, functions=()):
        """(units, used globals, source hash) of a compile whose compile-time
        arguments hold the @jit `functions` (what _encode_const named): the
        kernel's units, theirs, and those they reach."""
        units, used = _collect_units(self, functions)
        h = hashlib.blake2b(digest_size=20)
        for u in units:
            h.update(repr(u).encode())
            h.update(b"\0")
        h.update(repr(bool(self.noinline)).encode())
        return units, used, h.hexdigest()

    def _build_units(self):
        entry = self._units_with()
        used = entry[1]
        if self._units_cache is not None and self._units_cache[2] != entry[2]:
            self._forget_compiled()  # a changed global: what was compiled is stale
        self._units_cache = entry
        # A changed global invalidates every compiled specialisation.
        if self._dispatcher is not None:
            self._dispatcher.clear()
            self._dispatcher.set_globals(used)
        return entry


class _Specialisation:
    """One specialisation of a kernel: the compiler's ArgSpecs (`specs`),
    the runtime parameters, the metadata's constants and signature, Triton's
    (type, attribute) `view` and `options` that make its cache key, and the
    constants, signature and attributes the JIT hooks see."""

    def __init__(self):
        self.specs, self.runtime, self.view = [], [], []
        self.constants, self.signature = {}, {}
        self.hook_constants, self.hook_signature, self.attrs = {}, {}, {}
        self.named_constants = {}  # by parameter name: constexprs and ints equal to 1
        self.device = -1
        self.target = ""
        self.opts = self.options = None
        self.debug, self.num_warps, self.num_stages = False, 4, 3
        self.fp_fusion = self.reflect_ftz = True
        # Tuple arguments (tuple_args.py): the leaves' count, and the
        # function flattening a CompiledKernel launch's arguments into them.
        self.num_params, self.flatten = None, None
        # @jit functions passed as compile-time values: they join the
        # compile's source units (JITFunction._units_with).
        self.functions = []


class _Missing:
    pass


_MISSING = _Missing()


def _globals_changed(used) -> bool:
    for name, scope, value in used:
        if scope.get(name, _MISSING) != value:
            return True
    return False


def _check_backend() -> None:
    """The back end is chosen by where the arguments live: CUDA tensors and
    arrays run on their GPU, host memory on the interpreter.
    TESSERA_BACKEND=cpu refuses GPU arguments; gpu/cuda requires a driver."""
    b = arrays.backend_override()
    if b in (None, "cpu", "interpreter"):
        return
    if b in ("gpu", "cuda"):
        ok, why = _ext().cuda_available()
        if not ok:
            raise RuntimeError(f"TESSERA_BACKEND={b}: {why}")
        return
    raise ValueError(f"TESSERA_BACKEND={b!r} is not a back end; use 'cpu' or 'gpu'")


def _launch_hooks_set() -> bool:
    assigned = knobs.runtime._assigned
    return bool(assigned) and (assigned.get("launch_enter_hook") is not None
                               or assigned.get("launch_exit_hook") is not None)


class LazyDict:
    """What launch hooks receive (Triton's name): `data` holds the kernel's
    name and stream; `get()` also runs the kernel's `launch_metadata=`
    function, once, so hooks that do not ask pay nothing for it."""

    def __init__(self, data: dict):
        self.data = data
        self.extras = []

    def add(self, func, args) -> None:
        self.extras.append((func, args))

    def get(self) -> dict:
        for func, args in self.extras:
            self.data.update(func(*args))
        self.extras.clear()
        return self.data


def _current_stream(device: int) -> int:
    """The CUstream GPU launches go on: PyTorch's current stream when
    PyTorch is loaded, else CuPy's, else the default stream. Once PyTorch is
    loaded, its own C function replaces this one in the extension, so a
    launch calls no Python to find its stream."""
    import sys
    torch = sys.modules.get("torch")
    if torch is not None:
        raw = torch._C._cuda_getCurrentRawStream
        _ext().set_stream_getter(raw)
        return raw(device)
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        return cupy.cuda.get_current_stream().ptr
    return 0


def gpu_target(device: int, arch=None) -> str:
    """The PTX target for a device: sm_90a on Hopper (its own instructions),
    sm_NN elsewhere. An older target runs too (the driver runs older PTX on
    newer GPUs), to test sm_80 code on a Hopper for instance: the launch
    option `arch` or knobs.runtime.override_arch (TRITON_OVERRIDE_ARCH) as
    Triton names them ("sm80", "sm90"), or TESSERA_TARGET=sm_NN. Read when a
    kernel is compiled."""
    cc = _ext().cuda_capability(device)
    forced, what = (arch, f"arch={arch!r}") if arch else (os.environ.get("TESSERA_TARGET", ""), "")
    if forced:
        what = what or f"TESSERA_TARGET={forced!r}"
        name = str(forced).lower()
        name = name[3:] if name.startswith("sm_") else name[2:] if name.startswith("sm") else ""
        digits = name.rstrip("a")
        if not digits.isdigit() or not 80 <= int(digits) <= cc:
            raise ValueError(f"{what}: name a PTX target this GPU can run, sm_80 up to sm_{cc} "
                             "(e.g. sm_80; Tessera compiles for sm_80 and newer)")
        # Triton's sm90 is Hopper with its own instructions, as on the device.
        return "sm_90a" if digits == "90" else f"sm_{name}"
    return "sm_90a" if cc == 90 else f"sm_{cc}"


def _env_debug() -> bool:
    return os.environ.get("TESSERA_DEBUG", os.environ.get("TRITON_DEBUG", "0")) not in ("", "0")


def _check_grid(grid, fn=None, grid_functions=True):
    """(x, y, z) of a grid given as a sequence of 1 to 3 ints >= 0; `fn` is
    the grid function that returned it, if any (for the message)."""
    def what():
        return f"the grid function {getattr(fn, '__qualname__', fn)!r} returned {grid!r}" if fn else repr(grid)

    try:
        n = len(grid)
    except TypeError:
        hint = " (write ({},) for a 1-D grid)".format(grid) if isinstance(grid, int) else ""
        alternative = ", or a function of the launch's arguments that returns one" if grid_functions else ""
        raise TypeError(f"a grid is a tuple of 1 to 3 ints{alternative}; got {what()}{hint}") from None
    if n == 0 or n > 3:
        raise ValueError(f"a grid has 1 to 3 dimensions, got {what()}")
    out = []
    for g in list(grid) + [1] * (3 - n):
        try:
            v = int(g.__index__()) if not isinstance(g, int) else int(g)
        except (AttributeError, TypeError):  # no __index__, or one that refuses
            raise TypeError(f"grid entries must be integers, got {type(g).__name__} in {what()}") from None
        if v < 0:
            raise ValueError(f"grid entries must be >= 0, got {what()}")
        out.append(v)
    return tuple(out)


class ConstexprFunction(JITFunction):
    """A Python function a kernel calls on constexpr arguments at compile
    time (Triton's `@triton.constexpr_function`). From host code it is the
    function itself (constexpr arguments unwrapped); in a kernel the front
    end runs its body at compile time as Python would (names bound by
    assignment stay numbers, while/for loops run to the end), so its result
    is a constexpr (`tl.arange(0, f(BLOCK))`). Its text is parsed as kernel
    code is: the Python a kernel may hold, not arbitrary library calls."""

    def __call__(self, *args, **kwargs):
        return self.fn(*[_unwrap_constexpr(a) for a in args],
                       **{k: _unwrap_constexpr(v) for k, v in kwargs.items()})

    def __get__(self, obj, objtype=None):
        # A method of a class (an aggregate's): bound to the instance, as a
        # plain function would be.
        return self if obj is None else types.MethodType(self, obj)

    def __getitem__(self, grid):
        raise TypeError(f"'{self.__name__}' is a @constexpr_function: call it, from a kernel or "
                        "from Python; it is not a kernel to launch")

    def __repr__(self) -> str:
        return f"ConstexprFunction({self.module}:{self.fn.__qualname__})"


def constexpr_function(fn):
    """Decorator: `fn` may be called from kernels on constexpr arguments and
    gives a constexpr (see ConstexprFunction)."""
    return ConstexprFunction(fn)


def must_use_result(x):
    """Decorator (over @jit or @constexpr_function): a kernel that calls the
    function and drops its result does not compile. `@must_use_result` or
    `@must_use_result("words")`, the words added to the message."""
    if isinstance(x, str):
        return lambda fn: _mark_must_use(fn, x)
    return _mark_must_use(x, "")


def _mark_must_use(fn, words):
    if not isinstance(fn, JITFunction):
        raise TypeError("@must_use_result applies to @jit and @constexpr_function functions; "
                        "put it above the @jit line")
    fn._must_use_result = words
    fn._forget_compiled()  # its callers' compiled code did not check
    return fn


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=None,
        do_not_specialize_on_alignment=None, debug=None, noinline=None, interpret=None):
    """Decorator making a Python function a Tessera kernel (or a device
    function callable from kernels): `@jit`, or `@jit(do_not_specialize=["n"],
    debug=True)`. `interpret` is accepted for Triton compatibility (every
    kernel can already run on the CPU interpreter)."""

    def decorator(f):
        return JITFunction(f, version=version, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment,
                           debug=debug, noinline=noinline, repr=repr, launch_metadata=launch_metadata)

    if fn is not None:
        return decorator(fn)
    return decorator
