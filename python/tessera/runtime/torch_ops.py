"""Tessera launches inside `torch.compile`: the custom op `tessera::launch`.

Dynamo cannot trace a launch: it ends in C++ (the launcher, the compiler,
the interpreter or the CUDA driver), and Dynamo's own support for Triton
kernels only knows Triton's classes. So while Dynamo traces, `kernel[grid]`
(JITFunction, Autotuner, Heuristics; also `JITFunction.run(..., grid=)`)
returns `launcher(kernel, grid)` from here instead of the C++ launcher: a
plain Python function Dynamo traces, which turns the call into one call of
the opaque custom op

    tessera::launch(SymInt kernel, str spec, SymInt[] grid, Tensor(a!)[] outputs,
                    Tensor[] inputs, SymInt[] ints, float[] floats) -> ()

- `kernel` numbers the kernel object in a registry (jit.py registers every
  JITFunction, Autotuner and Heuristics when it is made): a graph holds no
  Python objects;
- `outputs` are the tensors the kernel may write through, `inputs` the
  others: kernel_writes.py reads that from the kernel's source (stores and
  atomics, through locals, block pointers, descriptors and @jit callees;
  anything it cannot follow counts as written), plus an autotuner's
  reset_to_zero / restore_value arguments. A tensor passed twice appears
  once, as an output if either parameter is written;
- `ints` and `floats` are the scalar arguments, so Dynamo keeps sizes
  symbolic: an int such as `x.numel()` is a SymInt and a new size reuses the
  graph (Tessera still specialises the kernel on `n == 1` and `n % 16` when
  the op runs, as in eager);
- `spec` says where each argument goes and holds the constants (constexprs,
  bools, None, strings, tl dtypes, tuples of these) as text; another
  constant is another string, so Dynamo guards on it and retraces;
- `grid` is the grid, evaluated while tracing when it is a callable of the
  bound arguments (so it may be symbolic too); for an autotuned kernel with
  a callable grid, one grid per config, and the op uses the grid of the
  config the autotuner picks when it runs.

The op's fake implementation does nothing: a kernel's results are the
outputs it writes. AOTAutograd functionalises the op (`auto_functionalized`)
and Inductor calls it as an opaque extern kernel, in order with the reads
and writes around it; when it runs it launches exactly as eager code does,
through the C++ fast path. Only public API is used (`torch.library.
Library`, `register_fake` from PyTorch 2.4, `torch.compiler.is_compiling`
and `assume_constant_result`), tested with PyTorch 2.15 and 2.11 on the
CPU (the CUDA twin, tests/gpu/test_torch_compile_gpu.py, passes there with
its tensors moved to the CPU; it is written for 2.11 on an H100). A compiled
call that launches one kernel costs about 28 us of host time on 2 shared
cores, of which about 12 us are torch.compile's own and 11 us the op's
dispatch and run (bench/torch_launch.py).

Limits:
- write `kernel[grid](...)` inside the compiled function: a launcher made
  outside it (`launch = kernel[grid]`) is the C++ object, which Dynamo
  cannot trace (fullgraph=True says so, otherwise the graph breaks there);
- inside a compiled function a launch returns None (eager returns the
  compiled kernel);
- a grid callable must compute the grid from its argument (the bound
  arguments, plus each config's values for an autotuned kernel) and from
  values Dynamo can trace;
- constexprs must be constants of the types above (not @jit functions or
  other objects: a TypeError says so); host TensorDescriptor arguments are
  refused too (pass the tensor, build the descriptor in the kernel);
- bools are constants (each value its own graph), and so are floats (op
  schemas have no symbolic float: a float that changes every call
  recompiles the graph each time; pass such a value in a tensor); int
  constexprs stay symbolic like other ints (the graph is reused, the
  kernel is specialised when it runs);
- a kernel needs at least one tensor argument (the op dispatches on them);
- memory reached through addresses stored in a tensor (pointer tables) is
  invisible to torch.compile, as it is to any op;
- what the source analysis decided is fixed in the graph (assigning
  `kernel.src` later needs `torch._dynamo.reset()`);
- a kernel that reads a view past its end, within its storage, may read a
  copy of the view only (functionalisation may clone what it mutates);
- pre-run hooks and autotuner hooks run when the op runs, on the tensors
  it gets;
- a graph names its kernels by numbers of the process that traced it:
  Inductor's on-disk caches are safe (a cached graph is only used for an
  identical trace, whose numbers mean the same kernels), but artifacts
  saved to run in another process without tracing again (torch.export,
  AOTInductor packages, precompiled Dynamo caches) are not supported;
- CUDA graphs (mode="reduce-overhead") are not tested yet.
"""

from __future__ import annotations

import ast
import functools

import torch

from . import jit as _jit
from . import kernel_writes
from ..language import core as _tl

_SEP = "\x1f"  # between arguments in a spec; repr() never writes it raw


_SCHEMA = ("launch(SymInt kernel, str spec, SymInt[] grid, Tensor(a!)[] outputs, "
           "Tensor[] inputs, SymInt[] ints, float[] floats) -> ()")
_LIB = None  # the torch.library.Library that holds the op (alive while it is)


def _define():
    """tessera::launch, defined once per process (a reload finds it).

    Through torch.library.Library rather than the custom_op decorator: the
    decorator wraps the op in Python-level autograd and in-place-view
    layers, which cost about 7 us of every call, and a launch needs neither
    (its outputs are mutated arguments, not differentiable results; eager
    launches bump no version counters either). Autograd goes through
    torch.autograd.Function around the launches, as in eager."""
    global _LIB
    existing = getattr(getattr(torch.ops, "tessera", None), "launch", None)
    if existing is not None and hasattr(existing, "default"):
        return existing
    _LIB = torch.library.Library("tessera", "FRAGMENT")
    _LIB.define(_SCHEMA)
    _LIB.impl("launch", _run, "CompositeExplicitAutograd")
    torch.library.register_fake("tessera::launch", _fake, lib=_LIB)
    return torch.ops.tessera.launch


def _fake(kernel, spec, grid, outputs, inputs, ints, floats):
    return None  # the kernel's outputs are its (mutated) arguments


# --------------------------------------------------------------------- tracing side


def launcher(kernel, grid):
    """What `kernel[grid]` is while Dynamo traces: a traceable function."""
    from . import _torch_marks  # noqa: F401  (Dynamo runs a first import for real)
    return functools.partial(_launch, kernel, grid)


def _encode(v, outputs, inputs, ints, floats, what):
    """The spec text of one argument; tensors and numbers go to their lists
    (a tensor the kernel writes is already in `outputs`)."""
    if isinstance(v, _tl.constexpr):  # tl.constexpr(64) stands for 64, as in eager
        v = v.value
    if isinstance(v, torch.Tensor):
        for i, o in enumerate(outputs):
            if o is v:
                return "o" + str(i)
        inputs.append(v)
        return "t" + str(len(inputs) - 1)
    if v is None or isinstance(v, (bool, str)):
        return "c" + repr(v)
    if isinstance(v, (int, torch.SymInt)):
        ints.append(v)
        return "i" + str(len(ints) - 1)
    if isinstance(v, (float, torch.SymFloat)):
        floats.append(v)
        return "f" + str(len(floats) - 1)
    if isinstance(v, _tl.dtype):
        return "d" + v.name
    if isinstance(v, tuple) and all(x is None or isinstance(x, (bool, int, float, str)) for x in v):
        return "c" + repr(v)
    raise TypeError(f"{what}: a Tessera launch inside torch.compile takes tensors, ints, floats, "
                    f"bools, strings, None, tl dtypes and tuples of constants; got "
                    f"{type(v).__name__} (launch outside the compiled function, or pass a "
                    "constant)")


def _launch(kernel, grid, *args, **kwargs):
    what = f"kernel '{getattr(kernel, '__name__', 'kernel')}'"
    names = base_jit(kernel).arg_names
    written = _written(kernel._tessera_id)
    # The tensors the kernel may write: once each, even if passed twice.
    outputs = []
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor) and (i >= len(names) or names[i] in written):
            if not any(o is a for o in outputs):
                outputs.append(a)
    for name, v in kwargs.items():
        if isinstance(v, torch.Tensor) and name in written:
            if not any(o is v for o in outputs):
                outputs.append(v)
    inputs, ints, floats, parts = [], [], [], []
    for a in args:  # "=code" for a positional argument, "name=code" for a keyword
        parts.append("=" + _encode(a, outputs, inputs, ints, floats, what))
    for name, v in kwargs.items():
        parts.append(name + "=" + _encode(v, outputs, inputs, ints, floats, what))
    grids = _grids(kernel, grid, args, kwargs)
    if len(grids) > 1:
        parts.append("#table")
    flat = []
    for g in grids:
        flat.extend(g)
    _OP(kernel._tessera_id, _SEP.join(parts), flat, outputs, inputs, ints, floats)


def _written(kernel_id: int) -> tuple:
    """Names of the parameters kernel `kernel_id` may write through: what the
    source analysis finds, an autotuner's reset_to_zero / restore_value, and
    every parameter when hooks run (pre-run, autotuner or config hooks)."""
    kernel = _jit.launchable(kernel_id)
    base = base_jit(kernel)
    names = set(kernel_writes.written_params(base))
    hooks = bool(base.pre_run_hooks)
    while not isinstance(kernel, _jit.JITFunction):
        names.update(getattr(kernel, "reset_to_zero", None) or ())
        names.update(getattr(kernel, "restore_value", None) or ())
        hooks = hooks or getattr(kernel, "user_pre_hook", None) is not None or \
            getattr(kernel, "user_post_hook", None) is not None or \
            any(c.pre_hook is not None or getattr(c, "post_hook", None) is not None
                for c in getattr(kernel, "configs", ()))
        kernel = kernel.fn
    if hooks:  # a hook may write to any argument
        names.update(base.arg_names)
    return tuple(sorted(names))  # a tuple of str: a constant every Dynamo version keeps


def base_jit(kernel):
    """The JITFunction under autotuner and heuristics wrappers."""
    while not isinstance(kernel, _jit.JITFunction):
        kernel = kernel.fn
    return kernel


def _grid3(g, what):
    g = tuple(x.value if isinstance(x, _tl.constexpr) else x for x in g)
    if not 1 <= len(g) <= 3:
        raise ValueError(f"{what}: the grid must be a tuple of 1 to 3 ints, got {g}")
    return g + (1,) * (3 - len(g))


def _grids(kernel, grid, args, kwargs):
    """The grid (three entries) of each config the launch may run with: one
    grid, or for an autotuned kernel whose grid is a callable, one per config."""
    what = f"kernel '{getattr(kernel, '__name__', 'kernel')}'"
    if not callable(grid):
        return [_grid3(grid, what)]
    tuner = autotuner_of(kernel)
    if tuner is None:
        return [_grid3(grid(_meta(kernel, args, kwargs)), what)]
    return [_grid3(grid(_meta(kernel, args, dict(kwargs, **c.kwargs))), what)
            for c in tuner.configs]


def _meta(kernel, args, kwargs):
    """The dict a grid callable receives, as the eager launch would build it."""
    while not isinstance(kernel, _jit.JITFunction):
        if hasattr(kernel, "_with_values"):  # Heuristics: its values join the kwargs
            kwargs = kernel._with_values(args, kwargs)
        kernel = kernel.fn
    bound = kernel._binder(*args, **kwargs)[0]
    return dict(zip(kernel.arg_names, bound))


def autotuner_of(kernel):
    """The Autotuner among the wrappers of `kernel`, or None."""
    while not isinstance(kernel, _jit.JITFunction):
        if hasattr(kernel, "configs"):
            return kernel
        kernel = kernel.fn
    return None


# --------------------------------------------------------------------- run-time side


_OUT, _IN, _INT, _FLOAT, _CONST = range(5)  # where an argument comes from, in a plan


@functools.lru_cache(maxsize=1024)
def _plan(kernel_id: int, spec: str):
    """(kernel, positional parts, keyword parts, grid is a table) for a launch
    spec; a part is (source, index or constant). Worked out once per spec: the
    run of a launch only indexes its lists. Holds the kernel, so a graph's
    kernels live as long as their plans."""
    kernel = _jit.launchable(kernel_id)
    table = spec.endswith(_SEP + "#table") or spec == "#table"
    if table:
        spec = spec[:-len("#table")].rstrip(_SEP)
    positional, keyword = [], []
    sources = {"o": _OUT, "t": _IN, "i": _INT, "f": _FLOAT}
    for part in spec.split(_SEP) if spec else ():
        name, part = part.split("=", 1)
        kind, rest = part[0], part[1:]
        if kind == "c":
            item = (_CONST, ast.literal_eval(rest))
        elif kind == "d":
            item = (_CONST, _tl.dtype(rest))
        else:
            item = (sources[kind], int(rest))
        if name:
            keyword.append((name,) + item)
        else:
            positional.append(item)
    return kernel, tuple(positional), tuple(keyword), table


def _run(kernel_id, spec, grid, outputs, inputs, ints, floats):
    kernel, positional, keyword, table = _plan(kernel_id, spec)
    lists = (outputs, inputs, ints, floats)
    args = [value if src == _CONST else lists[src][value] for src, value in positional]
    kwargs = {name: value if src == _CONST else lists[src][value] for name, src, value in keyword}
    if table:
        grids = [tuple(grid[i:i + 3]) for i in range(0, len(grid), 3)]
        kernel[_table_grid(kernel, grids)](*args, **kwargs)
    else:
        kernel[tuple(grid)](*args, **kwargs)


def _table_grid(kernel, grids):
    """A grid callable that gives the grid traced for the config that runs."""
    configs = autotuner_of(kernel).configs

    def pick(meta):
        for c, g in zip(configs, grids):
            if all(meta.get(k) == v for k, v in c.kwargs.items()):
                return g
        raise RuntimeError(f"kernel '{kernel.__name__}': no traced grid for the config that runs "
                           f"({meta})")

    return pick


_OP = _define()  # last: it registers _run and _fake, defined above
