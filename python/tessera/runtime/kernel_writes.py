"""Which pointer parameters a kernel may write through, read from its source.

torch.compile needs to know which tensors a launch mutates (torch_ops.py):
saying "all of them" makes AOTAutograd copy every read-only input before the
launch, and Inductor's decomposition of those copies fails under dynamic
shapes. This is a conservative taint analysis of the kernel's Python AST,
so it runs while Dynamo traces without compiling anything:

- every local value carries the set of parameters it may point into; any
  expression passes on the sets of the names it mentions (`x_ptr + offs`,
  `tl.make_block_ptr(base=x_ptr, ...)`, `tl.advance(p, ...)`), except
  `tl.load` / `.load` / `gather`, whose results are values, not pointers;
- `tl.store`, `tl.atomic_*`, `store_tensor_descriptor` (first argument) and
  `.store`, `.atomic_*`, `.scatter` (the object) write through their pointer;
- a call to anything that is not part of `tessera.language` (another @jit
  function, an unknown name) may write through every argument it gets.

Assignments are repeated until nothing changes, so loops are covered. A
parameter the analysis does not see written is only read; when in doubt
(source not found, syntax it does not model) every parameter counts as
written.
"""

from __future__ import annotations

import ast
import builtins
import textwrap
import types

_WRITES = {"store", "store_tensor_descriptor", "scatter", "atomic_add", "atomic_max",
           "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "atomic_xchg", "atomic_cas"}
# Their pointers are anywhere among the arguments (inline asm's `args` list,
# the values map_elementwise's function gets): every one may be written.
_WRITES_ANY = {"inline_asm_elementwise", "map_elementwise"}
_VALUE_READS = {"load", "load_tensor_descriptor", "gather"}
_POINTER_KEYWORDS = ("pointer", "ptr", "desc", "base")


def written_params(fn, depth: int = 0) -> frozenset:
    """Names of the parameters of JITFunction `fn` the kernel may write through."""
    names = frozenset(fn.arg_names)
    try:
        src = fn.src
    except Exception:  # no source to read (the launch would say why): assume the worst
        return names
    cached = getattr(fn, "_written_cache", None)
    if cached is not None and cached[0] == src:
        return cached[1]
    try:
        tree = ast.parse(textwrap.dedent(src))
        func = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
        written = _Analysis(names, fn.fn.__globals__, depth).run(func)
    except (SyntaxError, StopIteration, _Unmodelled):
        written = names
    fn._written_cache = (src, written)
    return written


class _Unmodelled(Exception):
    pass


def _is_language(obj) -> bool:
    """Part of tessera.language (tl, tl.math, libdevice, their functions)?"""
    mod = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", "")
    mod = mod or ""
    return (mod == "tessera.language" or mod.startswith("tessera.language.")
            or mod == "triton.language" or mod.startswith("triton.language."))


class _Analysis:
    def __init__(self, params, globals_, depth):
        self.params = params
        self.depth = depth  # how deep in @jit callees
        self.globals = globals_
        self.env = {p: {p} for p in params}
        self.written = set()
        self.changed = False

    def run(self, func):
        for _ in range(50):  # the sets only grow: a fixpoint comes quickly
            self.changed = False
            self.block(func.body)
            if not self.changed:
                return frozenset(self.written & self.params)
        raise _Unmodelled()

    # ---- statements

    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def bind(self, target, taint):
        if isinstance(target, ast.Name):
            old = self.env.setdefault(target.id, set())
            if not taint <= old:
                old |= taint
                self.changed = True
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self.bind(t.value if isinstance(t, ast.Starred) else t, taint)
        else:  # attribute or subscript targets: evaluate for their calls
            self.expr(target)

    def stmt(self, s):
        if isinstance(s, ast.Assign):
            taint = self.expr(s.value)
            for t in s.targets:
                self.bind(t, taint)
        elif isinstance(s, ast.AugAssign):
            self.bind(s.target, self.expr(s.value) | self.expr(s.target))
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.bind(s.target, self.expr(s.value))
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            self.bind(s.target, self.expr(s.iter))
            self.block(s.body)
            self.block(s.orelse)
        elif isinstance(s, (ast.While, ast.If)):
            self.expr(s.test)
            self.block(s.body)
            self.block(s.orelse)
        elif isinstance(s, ast.With):
            for item in s.items:
                self.expr(item.context_expr)
            self.block(s.body)
        elif isinstance(s, (ast.Expr, ast.Return, ast.Assert)):
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.expr):
                    self.expr(child)
        elif isinstance(s, (ast.Pass, ast.Break, ast.Continue)):
            pass
        else:  # nested functions, try, global...: do not guess
            raise _Unmodelled()

    # ---- expressions: the parameters a value may point into

    def expr(self, e) -> set:
        if e is None:
            return set()
        if isinstance(e, ast.Name):
            return set(self.env.get(e.id, ()))
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                          ast.NamedExpr)):
            raise _Unmodelled()
        taint = set()
        for child in ast.iter_child_nodes(e):
            if isinstance(child, ast.expr):
                taint |= self.expr(child)
            elif isinstance(child, ast.keyword):
                taint |= self.expr(child.value)
        return taint

    def call(self, c) -> set:
        args = [self.expr(a.value if isinstance(a, ast.Starred) else a) for a in c.args]
        kwargs = {k.arg: self.expr(k.value) for k in c.keywords}
        every = set().union(*args, *kwargs.values())
        f = c.func
        if isinstance(f, ast.Attribute):
            receiver = self.expr(f.value)
            root = self.resolve(f.value)
            name = f.attr
            if root is not None and _is_language(root):
                if name in _WRITES_ANY:
                    self.write(every)
                    return every
                if name in _WRITES:  # tl.store(pointer, ...)
                    pointer = args[0] if args else set()
                    for k in _POINTER_KEYWORDS:
                        pointer = pointer | kwargs.get(k, set())
                    self.write(pointer)
                    return set()
                return set() if name in _VALUE_READS else every
            if root is None and receiver:  # a method of a kernel value: p.store(...)
                if name in _WRITES:
                    self.write(receiver)
                    return set()
                return set() if name in _VALUE_READS else receiver | every
            if root is None:  # a method of a value that points nowhere (x.to(...))
                return every
            self.callee(root, args, kwargs, every)  # a @jit function of another module
            return every
        if isinstance(f, ast.Name):
            obj = self.globals.get(f.id, getattr(builtins, f.id, None))
            if f.id in self.env or obj is None:  # a local callable, or unknown
                self.write(every)
                return every
            if _is_language(obj):
                name = getattr(obj, "__name__", f.id)  # `from tl import store as st`
                if name in _WRITES_ANY:
                    self.write(every)
                    return every
                if name in _WRITES:
                    self.write(args[0] if args else every)
                    return set()
                return set() if name in _VALUE_READS else every
            if isinstance(obj, types.BuiltinFunctionType) or obj in (range, int, float, bool):
                return every  # min, max, len, range, ...
            self.callee(obj, args, kwargs, every)  # another @jit function
            return every
        self.expr(f)
        self.write(every)
        return every

    def callee(self, obj, args, kwargs, every):
        """A call of `obj`: a @jit function writes through the arguments of the
        parameters it writes through; anything else through all of them."""
        names = getattr(obj, "arg_names", None)
        if names is None or not hasattr(obj, "src") or self.depth > 8:
            self.write(every)
            return
        try:
            inner = written_params(obj, self.depth + 1)
        except RecursionError:
            inner = frozenset(names)
        for i, t in enumerate(args):
            if i >= len(names) or names[i] in inner:
                self.write(t)
        for k, t in kwargs.items():
            if k not in names or k in inner:
                self.write(t)

    def resolve(self, e):
        """The global object a dotted name such as `tl` or `tl.math` names;
        None for a local value (a kernel variable)."""
        if isinstance(e, ast.Name):
            if e.id in self.env:
                return None
            return self.globals.get(e.id, getattr(builtins, e.id, _UNKNOWN))
        if isinstance(e, ast.Attribute):
            base = self.resolve(e.value)
            if base is None or base is _UNKNOWN:
                return base
            return getattr(base, e.attr, _UNKNOWN)
        return None

    def write(self, taint):
        if not taint <= self.written:
            self.written |= taint
            self.changed = True


_UNKNOWN = object()  # a name that is neither local nor global: treated as a user function
