"""`triton.compile(ASTSource(fn, signature, constexprs), target, options)`:
compiling a @jit function for given parameter types without arguments, as
Triton's compiler entry point does. The result is the CompiledKernel a
launch would have made (also recorded in `fn.cache`); `compiled[grid](*args)`
runs it."""

from __future__ import annotations

from ..runtime import kernel_cache

__all__ = ["ASTSource", "compile"]


class ASTSource:
    """A @jit function specialised by types: `signature` maps every parameter
    name to its type ("*fp16", "i32", "fp32", "constexpr", ...; one with a
    value in `constexprs` may be left out, as in Triton),
    `constexprs` the constexpr parameters (by name or (index,) path) to their
    values, `attrs` paths to Triton's attributes ([["tt.divisibility", 16]])."""

    def __init__(self, fn, signature, constexprs=None, attrs=None):
        from ..runtime.jit import JITFunction
        if not isinstance(fn, JITFunction):
            raise TypeError(f"ASTSource: fn must be a @triton.jit function, got {type(fn).__name__}")
        for k in signature:
            if not isinstance(k, str):
                raise TypeError("ASTSource: signature keys must be parameter names (str), got "
                                f"{k!r}")
        unknown = [k for k in signature if k not in fn.arg_names]
        if unknown:
            raise ValueError(f"ASTSource: '{fn.__name__}' has no parameter {unknown[0]!r} "
                             f"(its parameters: {', '.join(fn.arg_names)})")
        self.fn = fn
        self.name = fn.__name__
        self.signature = dict(signature)
        self.constants = {}
        for k, v in (constexprs or {}).items():
            if isinstance(k, str):
                if k not in fn.arg_names:
                    raise ValueError(f"ASTSource: '{fn.__name__}' has no parameter {k!r}")
                k = (fn.arg_names.index(k),)
            self.constants[tuple(k)] = v
        self.attrs = dict(attrs or {})


def compile(src, target=None, options=None):
    """Compiles `src` (an ASTSource) for `target` (a GPUTarget; the active
    driver's by default: the GPU's, or the interpreter) with launch
    `options` (num_warps, num_stages, maxnreg, debug, enable_fp_fusion, ...).
    An older GPU target than the device's compiles for it, as `arch=` does."""
    if not isinstance(src, ASTSource):
        raise TypeError("compile: Tessera compiles an ASTSource (Triton's IR files need MLIR, "
                        f"which Tessera does not use), got {type(src).__name__}")
    from ..runtime.driver import driver
    if target is None:
        target = driver.active.get_current_target()
    backend = getattr(target, "backend", None)
    if backend not in ("cuda", "cpu"):
        raise ValueError(f"compile: Tessera compiles for 'cuda' and 'cpu' targets, got {target!r}")
    # A parameter given only a constexpr value (Triton's signature leaves
    # them out: ASTSource(fn, signature={}, constexprs={"N": 5})) is one.
    given = {k[0] for k in src.constants if len(k) == 1}
    signature = {n: src.signature[n] if n in src.signature else "constexpr"
                 for i, n in enumerate(src.fn.arg_names) if n in src.signature or i in given}
    missing = [n for n in src.fn.arg_names if n not in signature]
    if missing:
        raise ValueError(f"compile: the signature of '{src.name}' has no type for parameter "
                         f"{missing[0]!r}; give every parameter one (\"*fp32\", \"i32\", "
                         "\"constexpr\", ...)")
    for path, name in ((k, src.fn.arg_names[k[0]]) for k in src.constants):
        if signature.get(name) != "constexpr":
            raise ValueError(f"compile: '{name}' has a constexpr value but its type in the "
                             f"signature is {signature.get(name)!r}, not \"constexpr\"")
    options = dict(options or {})
    if backend == "cuda" and "arch" not in options:
        options["arch"] = f"sm{target.arch}"
    data = {
        "name": kernel_cache.full_name(src.fn.fn),
        "signature": signature,
        "constant_keys": list(src.constants), "constant_vals": list(src.constants.values()),
        "attrs_keys": list(src.attrs), "attrs_vals": list(src.attrs.values()),
        "options": options,
        "target": {"backend": backend, "arch": target.arch, "warp_size": target.warp_size},
    }
    return src.fn.preload(data, _decoded=True)
