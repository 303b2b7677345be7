"""The autotuner's tuning key and its launch-time stand-in.

Contract: `tuning_key(keys, arg_names, bound)` is Triton's key for a launch,
the values of the arguments named in `keys` (as `key_value` makes them
hashable and process-independent) followed by `str(dtype)` of every argument
that is not a scalar and has a dtype. `launch_token(key_index, args)` is a
cheaper hashable stand-in for a positional call, built without binding the
arguments: equal tokens have equal tuning keys. `TuningCache` is
`Autotuner.cache` (tuning key -> Config); it empties the memo from tokens to
configs whenever a known key's config changes or goes, so the memo never
answers with a config the cache no longer holds.
"""
from __future__ import annotations

import sys

from .jit import _unwrap_constexpr


def key_value(v):
    """A hashable, process-independent form of a tuning-key value."""
    if type(v) is int:  # the common case first: this runs on every launch
        return v
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, (tuple, list)):
        return tuple(key_value(e) for e in v)
    t = type(v)
    if t.__name__ == "constexpr" and hasattr(v, "value"):
        return key_value(_unwrap_constexpr(v))
    if t.__module__ == "numpy":  # NumPy scalars
        if t.__name__ in ("bool_", "bool"):
            return bool(v)
        if hasattr(v, "__index__"):
            return int(v)
        try:
            return float(v)
        except (TypeError, ValueError):
            pass
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


SCALAR_TYPES = frozenset((int, float, bool, str, type(None)))  # no dtype to key on
# str() of the dtypes that are singletons in effect (torch.dtype, NumPy's
# builtin dtypes): NumPy's __str__ is slow Python code. Other dtypes (structured
# ones, objects of the user's) are printed every time.
DTYPE_NAMES = {}
NAMED_DTYPE_TYPES = set()  # the types of the dtypes in DTYPE_NAMES


def dtype_name(dtype) -> str:
    t = type(dtype)
    if t in NAMED_DTYPE_TYPES:
        name = DTYPE_NAMES.get(dtype)
        if name is not None:
            return name
    name = str(dtype)
    if (t.__module__ == "torch" and t.__name__ == "dtype") or (
            t.__module__.startswith("numpy") and getattr(dtype, "isbuiltin", 0) == 1):
        DTYPE_NAMES[dtype] = name
        NAMED_DTYPE_TYPES.add(t)
    return name


NUMPYSCALAR_TYPES = {}  # type -> whether its objects are NumPy scalars (np.generic's)

# What a type's values add to the tuning key, decided once per type (the key
# is computed at every launch): 0 nothing (Python and NumPy scalars), 1 their
# dtype where they have one, 2 their dtype unless is_numpy_scalar says the
# object is a scalar (NumPy's ndarray subclasses, decided object by object).
KEY_KINDS = {}


def key_kind(v) -> int:
    t = type(v)
    if t in SCALAR_TYPES:
        kind = 0
    elif t.__module__ != "numpy" or t.__name__ == "ndarray":
        kind = 1
    else:
        numpy = sys.modules.get("numpy")
        if numpy is not None and issubclass(t, numpy.ndarray):
            kind = 2
        else:
            kind = 0 if is_numpy_scalar(v) else 1
    KEY_KINDS[t] = kind
    return kind


def is_numpy_scalar(v) -> bool:
    # np.int64(5) has a dtype but is passed as a scalar: key on its value only.
    t = type(v)
    known = NUMPYSCALAR_TYPES.get(t)
    if known is not None:
        return known
    scalar = t.__module__ == "numpy" and t.__name__ != "ndarray" and getattr(v, "shape", None) == ()
    numpy = sys.modules.get("numpy")
    if numpy is not None and issubclass(t, numpy.ndarray):  # a 0-d memmap is one, a 1-d one not
        return scalar  # decided per object
    NUMPYSCALAR_TYPES[t] = scalar
    return scalar


def tuning_key(keys, arg_names, bound: dict) -> tuple:
    """The values of the `keys` arguments, then the dtypes of all arguments."""
    key = [key_value(bound[k]) for k in keys if k in bound]
    kinds, get = KEY_KINDS, bound.get
    for name in arg_names:
        v = get(name)
        kind = kinds.get(type(v))
        if kind is None:
            kind = key_kind(v)
        if kind == 0 or (kind == 2 and is_numpy_scalar(v)):
            continue  # a scalar: keyed on its value only, if at all
        dtype = getattr(v, "dtype", None)
        if dtype is not None:
            key.append(dtype_name(dtype))
    return tuple(key)


class TuningCache(dict):
    """Autotuner.cache (tuning key -> Config). A change to a key's config, or
    its removal, empties `memo`, the launch fast path's map from an argument
    token to a config read from here, so that a config set by hand takes
    effect at the next launch."""

    __slots__ = ("memo",)

    def __init__(self, memo: dict):
        super().__init__()
        self.memo = memo

    def __setitem__(self, key, value):
        if key in self:  # (a new key changes no launch the memo has seen)
            self.memo.clear()
        super().__setitem__(key, value)

    def __delitem__(self, key):
        self.memo.clear()
        super().__delitem__(key)

    def clear(self):
        self.memo.clear()
        super().clear()

    def pop(self, *args):
        self.memo.clear()
        return super().pop(*args)

    def popitem(self):
        self.memo.clear()
        return super().popitem()

    def setdefault(self, key, default=None):
        return super().setdefault(key, default)  # sets only a new key

    def update(self, *args, **kwargs):
        self.memo.clear()
        super().update(*args, **kwargs)

    def __ior__(self, other):
        self.update(other)
        return self


# Key-argument values the launch token takes as they are: equal values of
# these types give equal tuning-key values.
PLAIN_KEY_TYPES = frozenset((int, float, bool, str, type(None)))


def launch_token(key_index, args):
    """A hashable stand-in for the tuning key of a positional call (args; the
    key arguments at the positions key_index): the key arguments' values and
    each argument's type and dtype. Equal tokens have equal tuning keys (the
    key is those values and dtypes, given as the same types). None when a key
    argument is not a plain scalar, or an argument an ndarray subclass."""
    n = len(args)
    values = []
    for i in key_index:
        if i < n:  # (one beyond n is a default: fixed for this n)
            v = args[i]
            if type(v) not in PLAIN_KEY_TYPES:
                return None
            values.append(v)
    types = tuple(map(type, args))
    kinds = KEY_KINDS  # (filled by tuning_key, which saw these types first)
    for t in types:
        if kinds.get(t) == 2:  # an ndarray subclass: keyed as a scalar when 0-d
            return None
    return tuple(values), types, tuple([getattr(a, "dtype", None) for a in args])
