"""What the compiler is given for a @jit function: its source text (from its
file, or from the string exec() made it from), and the source units of
everything it reaches (the other @jit functions it calls, the globals it
reads, encoded as the C++ front end takes them).

jit.py builds the cache key and the compile request from these; nothing here
compiles or launches.
"""

from __future__ import annotations

import linecache
import types
from typing import TYPE_CHECKING

from . import aggregate, arrays
from .errors import CompilationError

if TYPE_CHECKING:
    from .jit import JITFunction


def _jit():
    """The jit module (which imports this one), for JITFunction and the
    extension."""
    from . import jit
    return jit


# Sources of functions defined by exec() of a string (code object -> text),
# which linecache cannot give: see _source_from_exec_caller.
_EXEC_SOURCES: dict = {}


def _source_from_exec_caller(fn, depth: int = 12):
    """The string `fn` was exec'd from (`exec(src, ...)`, as Triton's tests
    build kernels from templates): a local string of a calling frame that
    compiles to a function with `fn`'s name and bytecode. None when there is
    none."""
    import sys
    name = fn.__name__
    try:
        frame = sys._getframe(2)
    except ValueError:
        return None
    for _ in range(depth):
        if frame is None:
            break
        for v in list(frame.f_locals.values()):
            if not isinstance(v, str) or f"def {name}" not in v:
                continue
            try:
                code = compile(v, fn.__code__.co_filename, "exec")
            except (SyntaxError, ValueError):
                continue
            for c in code.co_consts:
                if isinstance(c, types.CodeType) and c.co_name == name and \
                        c.co_code == fn.__code__.co_code:
                    return v
        frame = frame.f_back
    return None


def _file_lines(fn):
    """The lines of `fn`'s file as they are now (a snapshot: later edits to
    the file do not change what runs); empty when there is no file."""
    return linecache.getlines(fn.__code__.co_filename, fn.__globals__)


def _function_source(fn, override: str | None = None, lines=None, decorator: str = "@jit"):
    """(source, first_line, col_offset) of `fn` as the front end should see
    it: the decorator lines become one `decorator` line (decorators such as
    @autotune may hold arbitrary Python; a constexpr_function's say so, for
    the front end runs its body at compile time), so line numbers stay
    those of the file. `lines`: the file as it was when the function was decorated (else
    read now). `override` (JITFunction.src assigned) replaces the file's
    text; a function exec'd from a string uses that string."""
    code = fn.__code__
    if override is not None:
        lines, start = override.splitlines(True), 0
    else:
        if not lines:
            lines = _file_lines(fn)
        start = code.co_firstlineno - 1
        if not lines and code in _EXEC_SOURCES:
            lines = _EXEC_SOURCES[code].splitlines(True)
    if not lines:
        raise CompilationError(f"cannot find the source of @jit function '{fn.__name__}' "
                               f"({code.co_filename}); define kernels in .py files, or "
                               "assign the source text to kernel.src")
    i = _def_line(lines, start, fn.__name__)
    if i == len(lines):
        raise CompilationError(f"cannot find 'def {fn.__name__}' in {code.co_filename}")
    block = lines[i:_block_end(lines, i)]
    indent = len(lines[i]) - len(lines[i].lstrip())
    head = []
    if i > start:
        head = [" " * indent + decorator + "\n"] + ["\n"] * (i - start - 1)
    body = head + list(block)
    text = "".join(line[indent:] if line[:indent].strip() == "" else line.lstrip() for line in body)
    # An assigned source keeps the function's place in its file: patches
    # that replace words within lines keep the lines where they were.
    return text, (code.co_firstlineno if override is not None else start + 1), indent


def _scan_line(line: str, depth: int, quote):
    """(bracket depth, open string quote or None) after `line`, from the
    state before it. The open quote is a triple quote, or a single one whose
    string a backslash continues onto the next line ("a \\<newline> b")."""
    k = 0
    if quote is not None and len(quote) == 1:  # the rest of a continued string
        k = _string_end(line, 0, quote)
        if k > len(line):
            return depth, quote if line.rstrip("\r\n").endswith("\\") else None
        quote = None
    while k < len(line):
        ch = line[k]
        if quote is not None:
            if line.startswith(quote, k):
                quote = None
                k += 3
                continue
            k += 2 if ch == "\\" else 1
            continue
        if ch == "#":
            break
        if line.startswith(('"""', "'''"), k):
            quote = line[k:k + 3]
            k += 3
            continue
        if ch in "\"'":  # a one-line string: skip to its end
            k = _string_end(line, k + 1, ch)
            if k > len(line):  # unclosed: continued by a backslash, or bad syntax
                return depth, ch if line.rstrip("\r\n").endswith("\\") else None
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        k += 1
    return depth, quote


def _string_end(line: str, k: int, quote: str) -> int:
    """Index after the `quote` closing the string whose text starts at
    line[k]; len(line) + 1 when the line ends first."""
    while k < len(line) and line[k] != quote:
        k += 2 if line[k] == "\\" else 1
    return k + 1 if k < len(line) else len(line) + 1


def _def_line(lines, start: int, name: str) -> int:
    """Index of the `def name(` line of the function whose decorators start
    at lines[start]: the first such line outside the decorators' brackets
    and strings (a decorator argument may hold text that reads as a def);
    len(lines) when there is none."""
    depth, quote = 0, None
    heads = (f"def {name}(", f"async def {name}(")
    for i in range(start, len(lines)):
        line = lines[i]
        if depth <= 0 and quote is None and line.lstrip().startswith(heads):
            return i
        depth, quote = _scan_line(line, depth, quote)
    return len(lines)


def _block_end(lines, i: int) -> int:
    """Index after the last line of the `def` at lines[i]: the following lines
    that are blank, indented deeper, or inside brackets or a triple-quoted
    string. (inspect.getblock does this with the tokenizer, at several
    milliseconds of import time on the disk-cache hit path.)"""
    indent = len(lines[i]) - len(lines[i].lstrip())
    depth = 0
    quote = None  # the open triple quote, if any
    end = i + 1
    j = i
    while j < len(lines):
        line = lines[j]
        stripped = line.strip()
        if j > i and quote is None and depth == 0 and stripped and not stripped.startswith("#"):
            if len(line) - len(line.lstrip()) <= indent:
                break
        depth, quote = _scan_line(line, depth, quote)
        if stripped:
            end = j + 1
        j += 1
    return end


def _module_name(mod) -> str:
    name = mod.__name__
    if name == "tessera" or name.startswith("tessera."):
        name = "triton" + name[len("tessera"):]
    if name.startswith("triton.language.") and not name.startswith("triton.language.extra"):
        name = "triton.language"  # tl.core, tl.math, tl.standard ... all read as tl
    return name


def _jit_target(v):
    """The JITFunction behind v (autotune/heuristics wrappers included)."""
    seen = 0
    while not isinstance(v, _jit().JITFunction) and hasattr(v, "fn") and seen < 8:
        v = v.fn
        seen += 1
    return v if isinstance(v, _jit().JITFunction) else None


def _code_names(code, out: dict) -> None:
    """Names the function may read as globals, each with the names it may
    read off them (`mod.helper`). Taken from co_names, which holds global and
    attribute names alike: an over-approximation (a global that happens to
    share an attribute's name is passed too, and only widens the cache key),
    and far cheaper than disassembling the function (`dis` costs milliseconds
    to import, which a disk-cache hit in a fresh process cannot afford)."""
    names = set()

    def walk(c):
        names.update(c.co_names)
        names.update(c.co_freevars)
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                walk(k)

    walk(code)
    for n in names:
        out.setdefault(n, set()).update(names)


def _collect_units(root: JITFunction, extra=()):
    """Source units for `root` and every @jit function it reaches, with the
    globals each reads, and the (name, dict, value) of every constant read.
    `extra`: @jit functions passed as compile-time arguments, units 1, 2, ...
    after root's (so that _encode_const can name them before this runs).

    A user module read by a kernel (`helpers.scale(x)`) is passed as an
    opaque namespace plus one dotted entry per attribute the kernel reads
    from it ("helpers.scale"); the front end resolves `helpers.scale`
    through those."""
    units = []
    used = []
    index = {id(root): 0}
    pending = [root]
    order = [root]
    for f in extra:
        index[id(f)] = len(order)  # may repeat root: a unit of its own, as _encode_const said
        order.append(f)
        pending.append(f)

    def unit_of(target):  # the unit of a @jit function, added on first sight
        if id(target) not in index:
            index[id(target)] = len(order)
            order.append(target)
            pending.append(target)
        return index[id(target)]

    def entry_for(name, v, where):
        if aggregate.is_aggregate(v):
            # Its methods become source units as @jit globals do.
            attrs = [(n, binds, ("function", unit_of(t), t.fn.__name__))
                     for n, binds, t in aggregate.methods(v)]
            # Field defaults are class attributes: a kernel's Cls(...) takes them.
            for f, d in aggregate.field_defaults(v).items():
                try:
                    attrs.append((f, False, _encode_const(d, f"{v.__name__}.{f}'s default")))
                except TypeError:
                    pass  # not a compile-time value: a kernel must pass the field
            entry = (name, "const", ("tupletype", aggregate.type_name(v), [], attrs))
        else:
            entry = _global_entry(name, v)
        if entry[1] == "jit":
            target = _jit_target(v)
            return (name, "jit", (unit_of(target), target.fn.__name__))
        if entry[1] == "const" and where is not None:
            used.append((name.rsplit(".", 1)[-1], where, v))
        return entry

    while pending:
        target = pending.pop(0)
        fn = target.fn
        override = getattr(target, "_src_override", None)
        decorator = "@constexpr_function" if isinstance(target, _jit().ConstexprFunction) else "@jit"
        words = getattr(target, "_must_use_result", None)
        if words is not None:  # @triton.must_use_result: one line still (see _function_source)
            decorator += f"(must_use_result={words!r})"
        source, first_line, col = _function_source(fn, override, getattr(target, "_lines", None),
                                                   decorator)
        names = {}
        _code_names(fn.__code__, names)
        if override is not None:  # the new text may read other globals
            _code_names(compile(override, fn.__code__.co_filename, "exec"), names)
        scope = fn.__globals__
        closure = {}
        if fn.__closure__:
            for n, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    closure[n] = cell.cell_contents
                except ValueError:
                    pass
        entries = []
        for n in sorted(names):
            if n in closure:
                v, where = closure[n], None
            elif n in scope:
                v, where = scope[n], scope
            else:
                continue
            entries.append(entry_for(n, v, where))
            if isinstance(v, types.ModuleType) and not entries[-1][2].startswith("triton"):
                for attr in sorted(names[n]):
                    if hasattr(v, attr):
                        entries.append(entry_for(f"{n}.{attr}", getattr(v, attr), vars(v)))
        units.append((source, fn.__code__.co_filename, first_line, col, entries))
    return units, used


def _global_entry(name, v):
    if isinstance(v, types.ModuleType):
        return (name, "module", _module_name(v))
    if _jit_target(v) is not None:
        return (name, "jit", None)
    if type(v).__name__ == "constexpr" and hasattr(v, "value"):
        v = _jit()._unwrap_constexpr(v)
    try:
        return (name, "const", _encode_const(v, f"global '{name}'"))
    except TypeError:
        pass
    mod = getattr(v, "__module__", "") or ""
    if callable(v) and (mod.startswith("tessera.language") or mod.startswith("triton.language")):
        qual = "tl." + getattr(v, "__name__", name)
        return (name, "opaque", f"{qual} imported by name; call it as {qual}(...) through "
                "`import triton.language as tl`")
    if isinstance(v, type):
        return (name, "opaque", f"the class {v.__name__}")
    if callable(v):
        return (name, "opaque", "a Python function that is not @jit")
    return (name, "opaque", f"a {type(v).__name__} object")


def _encode_const(v, what: str, functions=None):
    """A Python value as the extension's tagged constant; TypeError if it
    cannot be a compile-time value. `functions`: a list to which @jit
    functions inside `v` are added, each encoded as the source unit it gets
    (_collect_units' `extra`: unit 1 + its index there); None refuses them."""
    if v is None:
        return ("none",)
    t = type(v)
    if t is bool:
        return ("bool", v)
    if t is int:
        if not -(1 << 63) <= v < (1 << 64):
            raise TypeError(f"{what}: {v} does not fit in 64 bits")
        return ("int", v if v < (1 << 63) else v - (1 << 64))
    if t is float:
        return ("float", v)
    if t is str:
        return ("str", v)
    if t is tuple or t is list:
        return ("tuple", [_encode_const(e, what, functions) for e in v])
    if isinstance(v, type) and issubclass(v, tuple) and hasattr(v, "_fields"):
        # A namedtuple class, which kernels call to build one.
        defaults = getattr(v, "_field_defaults", {})
        return ("tupletype", f"{v.__name__}({','.join(v._fields)})",
                [_encode_const(defaults[f], what) for f in v._fields if f in defaults])
    if isinstance(v, tuple):  # a namedtuple keeps its fields' names; torch.Size is a tuple
        fields = getattr(t, "_fields", None)
        elems = [_encode_const(e, what, functions) for e in v]
        return ("tuple", elems, f"{t.__name__}({','.join(fields)})") if fields else ("tuple", elems)
    if type(v).__name__ == "constexpr" and hasattr(v, "value"):
        return _encode_const(_jit()._unwrap_constexpr(v), what, functions)
    if t.__name__ == "dtype" and t.__module__.startswith(("tessera", "triton")):
        return ("dtype", arrays.signature_dtype(v))
    if t.__name__ == "pointer_type" and t.__module__.startswith(("tessera", "triton")):
        element = getattr(v, "element_ty", None)
        if type(element).__name__ != "dtype" or getattr(v, "address_space", 1) != 1:
            raise TypeError(f"{what}: only pointers to scalars in global memory can be compile-time values")
        return ("dtype", "*" + arrays.signature_dtype(element))
    if hasattr(v, "__index__") and t.__module__ == "numpy":
        return _encode_const(int(v), what)
    if isinstance(v, float):  # numpy float64 and friends
        return ("float", float(v))
    name = _builtin_name(v)
    if name is not None:
        return ("builtin", name)
    target = _jit_target(v)
    if target is not None and functions is not None:
        if target not in functions:
            functions.append(target)
        return ("function", 1 + functions.index(target), target.fn.__name__)
    raise TypeError(f"{what}: a {t.__name__} cannot be a compile-time value")


_BUILTIN_PREFIXES = (("language.extra.cuda", "cuda."), ("language.extra.libdevice", "libdevice."),
                     ("language", "tl."))
_builtin_names = None


def _builtin_name(v):
    """The compiler's name of a kernel-language function ("cuda.smid" for
    tl.extra.cuda.smid, "tl.exp" for tl.exp or tl.math.exp), so that one may
    be passed as a tl.constexpr (Triton's `get_smid: tl.constexpr`); None
    for anything else."""
    global _builtin_names
    # Functions, and classes that kernels call (tl.constexpr_type).
    if not isinstance(v, (types.FunctionType, type)) or v.__name__.startswith("_"):
        return None
    mod = v.__module__ or ""
    for root in ("tessera.", "triton."):
        if not mod.startswith(root):
            continue
        for sub, prefix in _BUILTIN_PREFIXES:
            if mod[len(root):] == sub or mod[len(root):].startswith(sub + "."):
                if _builtin_names is None:
                    _builtin_names = frozenset(_jit()._ext().builtin_names())
                name = prefix + v.__name__
                return name if name in _builtin_names else None
    return None
