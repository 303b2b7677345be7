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

On the host the class stays a Python class: without an `__init__` it gets
one taking the fields (tl.constexpr fields wrapped in tl.constexpr)."""

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
    annotations = _annotations(cls)
    fields = list(annotations)
    for f in fields:
        if not f.isidentifier() or f.startswith("__"):
            raise TypeError(f"@aggregate {cls.__name__}: '{f}' cannot be a field")
    if "__init__" in cls.__dict__ and isinstance(cls.__dict__["__init__"], _jit_module().JITFunction) \
            and not isinstance(cls.__dict__["__init__"], _jit_module().ConstexprFunction):
        raise ValueError(f"{cls.__name__}.__init__ cannot be a @triton.jit function")
    if "__init__" not in cls.__dict__:
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
            for f in fields:
                if f not in values:
                    raise TypeError(f"{cls.__name__}() missing required argument '{f}'")
                v = values[f]
                if _is_constexpr_annotation(annotations[f]) and type(v).__name__ != "constexpr":
                    from .. import language as tl
                    v = tl.constexpr(v)
                object.__setattr__(self, f, v)
        __init__.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = __init__
        cls._tessera_generated_init = True
    cls._tessera_aggregate_fields = tuple(fields)
    cls._tessera_aggregate_methods = None  # built on first use (methods)
    return cls


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
    """(name, binds self, JITFunction) for each function the class defines
    that kernels may call: @jit and @constexpr_function methods, static
    ones, plain functions (wrapped as @jit), and __init__ unless generated."""
    cached = cls.__dict__.get("_tessera_aggregate_methods")
    if cached is not None:
        return cached
    jit = _jit_module()
    out = []
    for name, attr in cls.__dict__.items():
        binds = True
        if isinstance(attr, staticmethod):
            attr, binds = attr.__func__, False
        elif isinstance(attr, classmethod):
            continue
        if name == "__init__" and cls.__dict__.get("_tessera_generated_init"):
            continue
        if isinstance(attr, jit.JITFunction):
            out.append((name, binds, attr))
        elif isinstance(attr, types.FunctionType) and (not name.startswith("__") or name in
                                           ("__init__", "__getitem__")):
            out.append((name, binds, jit.JITFunction(attr)))
    cls._tessera_aggregate_methods = out
    return out


def type_name(cls) -> str:
    return f"{cls.__name__}({','.join(cls._tessera_aggregate_fields)})"
