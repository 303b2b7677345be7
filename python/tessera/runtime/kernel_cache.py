"""What a @jit function has compiled, in Triton's shapes.

    kernel.cache[device]            {specialisation key: CompiledKernel}
    kernel.device_caches[device]    (kernel_cache, kernel_key_cache, target, backend, binder)
    kernel.preload(data)            compile or load the specialisation `data` describes

`device` is the CUDA device index, and 0 for kernels run on the CPU (as
Triton's interpreter reports device 0). A specialisation key is Triton's:
`str(specialization) + str(options)`, where `specialization` has one
(type, attribute) pair per parameter, e.g. [('*fp32', 'D'), ('i32', None),
('constexpr', 1024)] ('D': divisible by 16; ints equal to 1 show as
('constexpr', 1)), and `options` holds what changes the code: the target
('sm_90a', or 'cpu'), num_warps and num_stages (GPU only) and debug.

The per-device dicts are the in-memory cache itself: clearing one (or
deleting entries) makes the next launch of those specialisations load from
the disk cache or compile again, as in Triton.

`specialization_data` (a JSON string in the format of Triton 3.6's
`serialize_specialization_data`) reaches knobs.runtime.jit_cache_hook and
jit_post_compile_hook in `compile["specialization_data"]`; `preload` reads it
back. Supported: pointer, integer, float and bool parameters with their
divisibility facts, ints equal to 1, None, and constexpr values that JSON can
hold (numbers, bools, strings, None, dtypes, tuples of those). Tensor
descriptor parameters cannot be preloaded (a ValueError says so).
"""

from __future__ import annotations

import json
import types

_DIV16 = ["tt.divisibility", 16]


class KernelCache(dict):
    """{specialisation key: CompiledKernel} for one device of one @jit
    function. Removing entries forgets those kernels in memory."""

    def __init__(self, owner):
        super().__init__()
        self._owner = owner

    def _add(self, key, kernel) -> None:
        dict.__setitem__(self, key, kernel)

    def __setitem__(self, key, kernel) -> None:
        super().__setitem__(key, kernel)
        self._owner._kernel_cache_changed(dropped=False)

    def __delitem__(self, key) -> None:
        super().__delitem__(key)
        self._owner._kernel_cache_changed(dropped=True)

    def pop(self, key, *default):
        out = super().pop(key, *default)
        self._owner._kernel_cache_changed(dropped=True)
        return out

    def popitem(self):
        out = super().popitem()
        self._owner._kernel_cache_changed(dropped=True)
        return out

    def clear(self) -> None:
        super().clear()
        self._owner._kernel_cache_changed(dropped=True)

    def __reduce__(self):
        return (dict, (dict(self),))  # a copy is a plain dict, detached from the kernel


class DeviceCaches(dict):
    """device index -> KernelCache (Triton 2's `JITFunction.cache`)."""

    def __init__(self, owner):
        super().__init__()
        self._owner = owner

    def __missing__(self, device):
        out = self[device] = KernelCache(self._owner)
        return out

    def kernels(self):
        return [k for d in self.values() for k in d.values()]

    def __reduce__(self):
        return (dict, ({d: dict(c) for d, c in self.items()},))


class DeviceCacheTuples(dict):
    """device index -> (kernel_cache, kernel_key_cache, target, backend,
    binder), Triton 3's `JITFunction.device_caches`. kernel_cache is
    `kernel.cache[device]`; binder(*args, **kwargs) returns (bound arguments
    by name, specialization, options) with `str(specialization) +
    str(options)` the kernel_cache key of that launch."""

    def __init__(self, owner):
        super().__init__()
        self._owner = owner

    def __missing__(self, device):
        from .driver import driver
        target = driver.active.get_current_target()
        out = self[device] = (self._owner.cache[device], self._owner._key_cache, target,
                              Backend(target), self._owner._triton_binder)
        return out


class Backend:
    """The `backend` slot of device_caches: its target, and parse_options,
    which gives the options Tessera applies (Triton's names and defaults)."""

    DEFAULTS = {"num_warps": 4, "num_stages": 3, "num_ctas": 1, "maxnreg": None, "debug": False,
                "enable_fp_fusion": True, "launch_cooperative_grid": False, "launch_pdl": False,
                "extern_libs": None, "sanitize_overflow": False}

    def __init__(self, target):
        self.target = target
        self.name = target.backend

    def parse_options(self, options: dict) -> types.SimpleNamespace:
        out = dict(self.DEFAULTS)
        out.update({k: v for k, v in options.items() if k in out and v is not None})
        return types.SimpleNamespace(**out)

    def __repr__(self) -> str:
        return f"Backend({self.target!r})"


class JitFunctionInfo:
    """The `fn` argument of the JIT hooks: module, name and jit_function."""

    def __init__(self, module, name, jit_function):
        self.module, self.name, self.jit_function = module, name, jit_function

    def __repr__(self) -> str:
        return f"JitFunctionInfo({self.module}, {self.name})"


# ---- specialisation keys -----------------------------------------------------------------


def options_view(target: str, num_warps: int, num_stages: int, debug: bool) -> dict:
    """The options part of a key: what changes the compiled code."""
    if not target:
        # num_warps changes CPU code too: tl.extra.cuda.num_warps() and
        # num_threads() are compile-time constants of the launch's value.
        return {"target": "cpu", "num_warps": num_warps, "debug": debug}
    return {"target": target, "num_warps": num_warps, "num_stages": num_stages, "debug": debug}


def cache_key(specialization: list, options: dict) -> str:
    return str(specialization) + str(options)


def full_name(fn) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


# ---- specialization data (Triton's JSON blob) ---------------------------------------------


def _json_default(v):
    if type(v).__name__ == "dtype":
        return str(v)
    if hasattr(v, "__index__"):
        return int(v)
    if isinstance(v, float):
        return float(v)
    raise TypeError(f"a {type(v).__name__} constexpr cannot be written to specialization data")


def serialize(name, signature, constants, attrs, options, key, target) -> str:
    """Triton 3.6's specialization data: constants and attributes keyed by
    parameter path ([index]), options, key and target as JSON."""
    return json.dumps({
        "name": name, "signature": signature,
        "constant_keys": [list(k) for k in constants], "constant_vals": list(constants.values()),
        "attrs_keys": [list(k) for k in attrs], "attrs_vals": list(attrs.values()),
        "options": options, "key": key,
        "target": {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size},
    }, default=_json_default)


def _decode_const(v):
    """A constexpr value as JSON gave it back: lists are tuples, dtype names
    dtypes, Triton 3.6's {"constexpr": v} its value."""
    from ..language.types import _DTYPES, dtype
    if isinstance(v, list):
        return tuple(_decode_const(e) for e in v)
    if isinstance(v, dict) and set(v) == {"constexpr"}:
        return _decode_const(v["constexpr"])
    if isinstance(v, dict):
        raise ValueError(f"preload: cannot rebuild the constexpr value {v!r}")
    if isinstance(v, str) and v in _DTYPES:
        return dtype(v)
    return v


def parse(data, params, expected_name: str, decode=True):
    """(backend, per-parameter ArgSpecs with raw constexpr values, options
    dict) from specialization data; RuntimeError if it is for another kernel.
    `decode=False`: the constant values are Python values already (compile's
    ASTSource), not JSON's."""
    obj = json.loads(data) if isinstance(data, (str, bytes, bytearray)) else dict(data)
    if obj.get("name") != expected_name:
        raise RuntimeError(f"Specialization data is for {obj.get('name')} but trying to preload "
                           f"for {expected_name}")
    constants = {tuple(k): v for k, v in zip(obj.get("constant_keys", []), obj.get("constant_vals", []))}
    attrs = {tuple(k): v for k, v in zip(obj.get("attrs_keys", []), obj.get("attrs_vals", []))}
    signature = obj.get("signature", {})
    def spec(ty, path, name, is_constexpr):
        div16 = any(list(a) == _DIV16 for a in attrs.get(path, []))
        if isinstance(ty, (list, tuple)):  # a tuple argument: its elements' types, nested
            return ("tuple", [spec(t, path + (i,), f"{name}[{i}]", False)
                              for i, t in enumerate(ty)], None)
        if ty == "constexpr":
            if path not in constants:
                raise ValueError(f"preload: the specialization data has no value for '{name}'")
            v = _decode_const(constants[path]) if decode else constants[path]
            if not is_constexpr and type(v) is int and v == 1:
                return ("scalar", "i32", False, True)  # an int specialised on == 1
            return ("constexpr", v)
        if ty.startswith("tensordesc"):
            raise ValueError(f"preload: parameter '{name}' is a tensor descriptor; Tessera cannot "
                             "preload kernels that take one (launch the kernel instead)")
        if ty.startswith("*"):
            return ("ptr", ty[2:] if ty.startswith("*k") else ty[1:], div16)
        return ("scalar", "i1" if ty == "u1" else ty, div16, False)

    specs = []
    for p in params:
        ty = signature.get(p.name)
        if ty is None:
            raise ValueError(f"preload: the specialization data has no type for parameter '{p.name}'")
        specs.append(spec(ty, (p.num,), p.name, p.is_constexpr))
    target = obj.get("target") or {}
    return target.get("backend"), specs, dict(obj.get("options", {}))


# ---- hooks --------------------------------------------------------------------------------


def call_hook(hook, fn, key, signature, device, constants, attrs, meta, is_warmup, target):
    """Calls knobs.runtime.jit_cache_hook / jit_post_compile_hook with
    Triton's keyword arguments; returns what the hook returned."""
    if hook is None:
        return None
    options = {k: getattr(meta, k) for k in Backend.DEFAULTS}
    name = fn.fn.__qualname__
    data = serialize(full_name(fn.fn), signature, constants, attrs, options, key, target)
    args = ", ".join(f"{n}: {t}" for n, t in signature.items())
    repr_ = (f"{name}[num_warps={meta.num_warps}, num_ctas={meta.num_ctas}, "
             f"num_stages={meta.num_stages}, enable_fp_fusion={meta.enable_fp_fusion}, "
             f"launch_cooperative_grid={meta.launch_cooperative_grid}]({args})")
    compile_ = {"key": key, "signature": signature, "device": device, "constants": constants,
                "num_warps": meta.num_warps, "num_ctas": meta.num_ctas,
                "num_stages": meta.num_stages, "enable_fp_fusion": meta.enable_fp_fusion,
                "launch_cooperative_grid": meta.launch_cooperative_grid,
                "extern_libs": meta.extern_libs, "configs": [attrs],
                "specialization_data": data, "is_warmup": is_warmup}
    return hook(key=key, repr=repr_, fn=JitFunctionInfo(fn.fn.__module__, name, fn),
                compile=compile_, is_manual_warmup=is_warmup, already_compiled=False)
