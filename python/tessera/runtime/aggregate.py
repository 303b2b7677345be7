"""`@triton.aggregate`: a class whose instances kernels build and pass
around as one value, with methods (Triton's aggregate types).

The fields are the class's annotations, in order. In a kernel, `Cls(...)`
runs the class's `__init__` (a @jit, @constexpr_function or plain function
setting `self.field = value`), or without one takes the fields in order as
a namedtuple does; `obj.field` reads a field and `obj.method(...)` calls a
@jit method with `obj` first. A method that sets fields returns `self` to
hand the changed instance back (instances are values). Plain functions
defined in the class (Triton's builtin-style `def m(self, _semantic=None)`)
are compiled as @jit functions; `_semantic=` arguments are ignored.

A class may extend other aggregates: the bases' fields come first and their
methods are inherited (the class's own win). A field given a value in the
class body (`shift: tl.constexpr = 3`) has that default, which kernels see
as a class attribute. `tl.aggregate_replace(obj, field=v)` is a copy of an
instance with fields changed, in kernels and on the host.

On the host the class stays a Python class: without an `__init__` it gets
one taking the fields (tl.constexpr fields wrapped in tl.constexpr), and an
instance is frozen once its `__init__` returns, as Triton's are."""

from __future__ import annotations

import types


def _jit_module():
    from . import jit
    return jit


def _is_constexpr_annotation(ann) -> bool:
    return _jit_module()._is_constexpr_annotation(ann)


def aggregate(cls):
    """Class decorator: see the module's docstring."""
    if not isinstance(cls, type):
        raise TypeError(f"@aggregate applies to a class, got {type(cls).__name__}")
    for base in cls.__bases__:
        if base is not object and not is_aggregate(base):
            raise TypeError(f"Aggregates can only inherit from other aggregates: {cls.__name__}'s "
                            f"base {base.__name__} is not an @aggregate class")
    # Fields: the bases' (each already flattened), then the class's own, in
    # order; a field declared again keeps its first place.
    annotations = {}
    for base in reversed(cls.__mro__[1:]):
        if is_aggregate(base):
            annotations.update({f: base._tessera_aggregate_annotations[f]
                                for f in base._tessera_aggregate_fields})
    annotations.update(_annotations(cls))
    fields = list(annotations)
    for f in fields:
        if not f.isidentifier() or f.startswith("__"):
            raise TypeError(f"@aggregate {cls.__name__}: '{f}' cannot be a field")
    init = cls.__dict__.get("__init__")
    if isinstance(init, _jit_module().JITFunction) and not isinstance(init, _jit_module().ConstexprFunction):
        raise ValueError(f"{cls.__name__}.__init__ cannot be a @triton.jit function")
    constexpr_fields = {f for f in fields if _is_constexpr_annotation(annotations[f])}

    def wrap(f, v):
        if f in constexpr_fields and type(v).__name__ != "constexpr":
            from .. import language as tl
            return tl.constexpr(v)
        return v

    if init is None:
        def __init__(self, *args, **kwargs):
            if len(args) > len(fields):
                raise TypeError(f"{cls.__name__}() takes {len(fields)} arguments but {len(args)} "
                                "were given")
            values = dict(zip(fields, args))
            for k, v in kwargs.items():
                if k not in fields:
                    raise TypeError(f"{cls.__name__}() got an unexpected keyword argument '{k}'")
                if k in values:
                    raise TypeError(f"{cls.__name__}() got multiple values for argument '{k}'")
                values[k] = v
            defaults = field_defaults(cls)
            for f in fields:
                if f not in values and f not in defaults:
                    raise TypeError(f"{cls.__name__}() missing required argument '{f}'")
                object.__setattr__(self, f, wrap(f, values[f] if f in values else defaults[f]))
            object.__setattr__(self, "_tessera_frozen", True)
        cls._tessera_kernel_init = None  # kernels take the fields in order
    else:
        def __init__(self, *args, **kwargs):  # the class's own, then the fields are frozen
            init(self, *args, **kwargs)
            object.__setattr__(self, "_tessera_frozen", True)
        cls._tessera_kernel_init = init
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = __init__

    def __setattr__(self, name, value):
        # Instances are values in kernels, where only __init__ sets fields;
        # on the host they are frozen once built too (tl.aggregate_replace
        # makes a changed copy).
        if name in fields and self.__dict__.get("_tessera_frozen"):
            raise AttributeError(f"cannot assign to field '{name}' on immutable aggregate "
                                 f"{cls.__name__}; use tl.aggregate_replace(obj, {name}=...)")
        object.__setattr__(self, name, wrap(name, value) if name in fields else value)

    cls.__setattr__ = __setattr__
    cls._tessera_aggregate_fields = tuple(fields)
    cls._tessera_aggregate_annotations = annotations
    cls._tessera_aggregate_methods = None  # built on first use (methods)
    return cls


def field_defaults(cls) -> dict:
    """{field: default} for the fields given a value in the class body
    (`y: tl.constexpr = 42`), the bases' included."""
    out = {}
    for f in cls._tessera_aggregate_fields:
        for klass in cls.__mro__:
            if f in klass.__dict__:
                out[f] = klass.__dict__[f]
                break
    return out


def replace(obj, **changes):
    """tl.aggregate_replace on the host: a copy of the aggregate instance
    `obj` with the named fields changed (`obj` itself is unchanged)."""
    cls = type(obj)
    if not is_aggregate(cls):
        raise TypeError(f"tl.aggregate_replace expects an aggregate instance, got {cls.__name__}")
    for name in changes:
        if name not in cls._tessera_aggregate_fields:
            raise TypeError(f"{cls.__name__} has no field '{name}'; its fields are "
                            f"{', '.join(cls._tessera_aggregate_fields)}")
    new = object.__new__(cls)
    for f in cls._tessera_aggregate_fields:
        cls.__setattr__(new, f, changes[f] if f in changes else obj.__dict__[f])
    object.__setattr__(new, "_tessera_frozen", True)
    return new


def _annotations(cls) -> dict:
    # The class's own annotations (not its bases'); `inspect` only where
    # Python keeps them elsewhere (3.14's lazy annotations), as importing it
    # costs `import tessera` milliseconds.
    own = cls.__dict__.get("__annotations__")
    if own is None:
        import inspect
        own = inspect.get_annotations(cls)
    return dict(own)


def is_aggregate(v) -> bool:
    return isinstance(v, type) and "_tessera_aggregate_fields" in v.__dict__


def methods(cls):
    """(name, binds self, JITFunction) for each function the class and its
    aggregate bases define that kernels may call (the class's own winning):
    @jit and @constexpr_function methods, static ones, plain functions
    (wrapped as @jit), and the class's own __init__ if it defines one."""
    cached = cls.__dict__.get("_tessera_aggregate_methods")
    if cached is not None:
        return cached
    jit = _jit_module()
    found = {}
    for klass in reversed(cls.__mro__):
        if not is_aggregate(klass):
            continue
        for name, attr in list(klass.__dict__.items()):
            binds = True
            if isinstance(attr, staticmethod):
                attr, binds = attr.__func__, False
            elif isinstance(attr, classmethod) or name in ("__init__", "__setattr__") or \
                    name.startswith("_tessera"):
                continue  # __init__: the installed wrapper; the kernel's is below
            if isinstance(attr, jit.JITFunction):
                found[name] = (name, binds, attr)
            elif isinstance(attr, types.FunctionType) and (not name.startswith("__") or
                                                           name == "__getitem__"):
                found[name] = (name, binds, _wrapped(klass, name, attr))
    init = cls.__dict__.get("_tessera_kernel_init")
    found.pop("__init__", None)
    if init is not None:
        found["__init__"] = ("__init__", True, init if isinstance(init, jit.JITFunction)
                             else _wrapped(cls, "__init__", init))
    out = list(found.values())
    cls._tessera_aggregate_methods = out
    return out


def _wrapped(klass, name, fn):
    # One JITFunction per plain function, so a base's method inherited by
    # several classes is one source unit.
    cache = klass.__dict__.get("_tessera_wrapped")
    if cache is None:
        cache = {}
        type.__setattr__(klass, "_tessera_wrapped", cache)
    if name not in cache:
        cache[name] = _jit_module().JITFunction(fn)
    return cache[name]


def type_name(cls) -> str:
    return f"{cls.__name__}({','.join(cls._tessera_aggregate_fields)})"
