"""Tuple arguments: a kernel parameter given a tuple (nested tuples and
namedtuples included), as Triton allows; and compile-time values (a @jit
function, a dtype, tl.constexpr(...)) given to a parameter not annotated
tl.constexpr, which Triton specialises as constexprs.

The launch path and the Dispatcher handle one value per parameter, each a
runtime value. A launch whose runtime parameters hold tuples or compile-time
values goes through here instead: its values
are flattened into leaves, depth first, and launched through a Dispatcher of
its own, one per tuple shape (`TupleView`), whose pseudo-parameters are the
leaves ("ptrs[0]", "t.shape[1]"). Each leaf is specialised as a parameter
would be (pointers, ints with their divisibility, None); tl.constexpr values,
dtypes, strings and @jit functions inside a tuple are compile-time leaves.
The compiler then gets one nested spec per parameter, ("tuple", [spec, ...],
type), so the kernel sees the tuple, and it takes the runtime leaves as its
arguments in the same order.
"""

from __future__ import annotations


class Leaf:
    """One element of a tuple argument, as the launch path sees a parameter:
    `num` its position among the leaves, `path` Triton's (parameter index,
    element index, ...)."""

    def __init__(self, num, name, path, is_constexpr, do_not_specialize,
                 do_not_specialize_on_alignment):
        self.num = num
        self.name = name
        self.path = path
        self.is_constexpr = is_constexpr
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment


def _tuple_type(v):
    """A namedtuple's "Name(field,...)", None for any other tuple."""
    fields = getattr(type(v), "_fields", None)
    if fields is None:
        return None
    return f"{type(v).__name__}({','.join(fields)})"


def _is_compile_time(v, in_tuple=True) -> bool:
    """Whether an element of a tuple argument (or, not `in_tuple`, the value
    of a parameter) is a compile-time value, as Triton specialises them,
    rather than a pointer or a runtime scalar. A string given to a parameter
    is not: more often a mistake (for an array) than a constexpr missing
    its annotation, it gets the launch's TypeError naming the parameter."""
    from .kernel_source import _builtin_name, _jit_target
    t = type(v)
    if t.__name__ == "constexpr" and hasattr(v, "value"):
        return True
    if (t is str and in_tuple) or _jit_target(v) is not None:
        return True
    if t.__name__ == "dtype" and t.__module__.startswith(("tessera", "triton")):
        return True
    return _builtin_name(v) is not None


def needs_view(jf, bound) -> bool:
    """Whether a runtime parameter of `jf` holds a tuple, or a compile-time
    value (Triton specialises a @jit function, a dtype or a tl.constexpr
    given to any parameter as a constexpr), in `bound`."""
    return any(isinstance(bound[i], tuple) or _is_compile_time(bound[i], in_tuple=False)
               for i in jf._runtime_indices)


def flatten(jf, bound):
    """(shape, leaves): `shape` is hashable and says how the leaves form the
    arguments (None for a plain parameter; for a tuple its type and the
    shapes of its elements, a leaf as "c" (compile-time) or "r"); `leaves`
    the values, depth first."""
    leaves = []

    def walk(v, depth):
        if isinstance(v, tuple):
            if depth >= 64:
                raise ValueError(f"{jf.__name__}: a tuple argument is nested more than 64 deep")
            return (_tuple_type(v),) + tuple(walk(e, depth + 1) for e in v)
        leaves.append(v)
        return "c" if _is_compile_time(v) else "r"

    shape = []
    for p, v in zip(jf.params, bound):
        if p.is_constexpr or not isinstance(v, tuple):
            leaves.append(v)
            shape.append("c" if not p.is_constexpr and _is_compile_time(v, False) else None)
        else:
            shape.append(walk(v, 0))
    return tuple(shape), leaves


def _leaves_of(jf, shape):
    """The Leaf pseudo-parameters of a shape."""
    out = []

    def walk(p, s, name, path):
        if isinstance(s, tuple):
            fields = _field_names(s[0])
            for i, e in enumerate(s[1:]):
                field = fields[i] if i < len(fields) else None
                walk(p, e, f"{name}.{field}" if field else f"{name}[{i}]", path + (i,))
            return
        out.append(Leaf(len(out), name, path, s == "c", p.do_not_specialize,
                        p.do_not_specialize_on_alignment))

    for p, s in zip(jf.params, shape):
        if not isinstance(s, tuple):
            out.append(Leaf(len(out), p.name, (p.num,), p.is_constexpr or s == "c",
                            p.do_not_specialize, p.do_not_specialize_on_alignment))
        else:
            walk(p, s, p.name, (p.num,))
    return out


def _field_names(tuple_type):
    """The fields of a namedtuple's "Name(field,...)" ([] for a plain tuple)."""
    if tuple_type is None:
        return []
    return tuple_type[tuple_type.index("(") + 1:-1].split(",")


def nest(shape, specs):
    """The compiler's per-parameter specs from the leaves' specs."""
    it = iter(specs)

    def walk(s):
        if isinstance(s, tuple):
            return ("tuple", [walk(e) for e in s[1:]], s[0])
        return next(it)

    return [walk(s) for s in shape]


def _nest_signatures(jf, shape, leaves, sp):
    """The signatures by parameter, as Triton writes them: a tuple
    parameter's type is the tuple of its elements' types (the constants and
    attributes are keyed by the elements' paths already)."""
    for table in (sp.signature, sp.hook_signature):
        by_leaf = [table.pop(leaf.name) for leaf in leaves]
        it = iter(by_leaf)

        def walk(s):
            return tuple(walk(e) for e in s[1:]) if isinstance(s, tuple) else next(it)

        for p, s in zip(jf.params, shape):
            table[p.name] = walk(s)


def on_device(spec, device):
    """A preloaded ArgSpec with GPU `device` added to its pointers."""
    if spec[0] == "tuple":
        return ("tuple", [on_device(e, device) for e in spec[1]], spec[2])
    return spec + (device,) if spec[0] == "ptr" and device >= 0 else spec


def specialize_nested(jf, raw, opts):
    """The _Specialisation of ArgSpecs with ("tuple", [spec, ...], type)
    entries (a preload's), as a launch with those tuples makes it."""
    leaf_specs = []

    def walk(spec):
        if spec[0] == "tuple":
            return (spec[2],) + tuple(walk(e) for e in spec[1])
        leaf_specs.append(spec)
        return "c" if spec[0] == "constexpr" else "r"

    shape = []
    for s in raw:
        if s[0] == "tuple":
            shape.append(walk(s))
        else:
            leaf_specs.append(s)
            shape.append(None)
    shape = tuple(shape)
    leaves = _leaves_of(jf, shape)
    sp = jf._specialize(leaf_specs, opts, leaves)
    sp.specs = nest(shape, sp.specs)
    _nest_signatures(jf, shape, leaves, sp)
    sp.num_params = len(leaves)
    sp.flatten = lambda args: flat_args(jf, shape, args)
    return sp


def flat_args(jf, shape, args):
    """The leaves of a CompiledKernel launch's arguments (all the
    parameters, or already the leaves) for a kernel compiled for tuples
    shaped `shape`."""
    if len(args) != len(jf.params):
        return list(args)
    got, leaves = flatten(jf, args)
    if got != shape:
        raise TypeError(f"{jf.__name__}: these arguments' tuples are shaped differently from "
                        "the ones this kernel was compiled for")
    return leaves


class TupleView:
    """The launches of one kernel whose arguments have one tuple shape: a
    Dispatcher over the leaves."""

    def __init__(self, jf, shape):
        from .jit import _ext, dispatch_mode
        c = _ext()
        self.shape = shape
        self.leaves = _leaves_of(jf, shape)
        modes = [dispatch_mode(leaf) for leaf in self.leaves]
        self.dispatcher = c.Dispatcher(jf.fn.__name__, [leaf.name for leaf in self.leaves], modes)
        self.dispatcher.configure([None] * len(self.leaves), [], jf._debug)
        self.dispatcher.set_globals([])


def run(jf, bound, g, opts, units, warmup):
    """A launch (or, with `warmup`, the compile) of `jf` whose bound
    arguments hold tuples."""
    from .jit import _check_backend
    _check_backend()
    shape, leaves = flatten(jf, bound)
    view = jf._tuple_views.get(shape)
    if view is None:
        view = jf._tuple_views[shape] = TupleView(jf, shape)
    d = view.dispatcher
    if not warmup:
        ran = d.run(leaves, g, opts)
        if ran is not None:
            return ran
    sp = jf._specialize(d.specialize(leaves), opts, view.leaves)
    sp.specs = nest(shape, sp.specs)
    _nest_signatures(jf, shape, view.leaves, sp)
    sp.num_params = len(view.leaves)
    sp.flatten = lambda args: flat_args(jf, shape, args)
    compiled = jf._compiled(sp, units, warmup)
    if compiled is None:
        return None
    d.add(leaves, opts, compiled.kernel, compiled)
    if warmup:
        return compiled
    if d.run(leaves, g, opts) is None:
        raise RuntimeError(f"tessera: internal error: no kernel for the key of '{jf.__name__}'")
    return compiled
