"""Random, well-typed tile programs for differential testing.

`generate(seed)` returns a `Program`: the source of one `@triton.jit` kernel
in the Triton kernel language, readable as written by hand, together with
what running it needs (input buffers and their dtypes, scalar arguments,
output buffers, grid, constexprs). The same seed always gives the same
program and the same inputs, so a mismatch is reproduced by its seed alone,
and `Program.reproducer()` prints a self-contained script.

What a program covers: elementwise integer and float arithmetic over int8,
int16, int32, int64, uint8, uint32, uint64, float16, bfloat16 and float32 (Triton's
promotion rules, explicit casts, edge constants folded at compile time),
broadcasting of rows, columns and scalars against 2-D tiles, reductions
(sum, max, min) and scans (cumsum) along either axis, `tl.where`, masks,
loads and stores at random offsets, `if` on runtime scalars, `for` loops
with loop-carried accumulators (runtime and static trip counts), and small
`tl.dot`s, some batched (two tiles of each operand joined into a 2 x BM x BN
batch, the products summed back).

Every value the generator builds knows its dtype, its shape class and the
facts a comparison with the GPU needs: `transc` (it went through
transcendental math), `inexact` (float arithmetic whose result depends on
evaluation order, contraction or the math routine, which a GPU may choose
differently: reductions, dots, mul-add, division, exp...), `ub` (it
depends on what Triton leaves undefined and the interpreter defines:
integer division by zero, float -> int conversion out of range) and
`unstable` (its error is not bounded by its own magnitude: a quotient or
remainder of an inexact float, where a last-bit difference in a denominator
near zero, or an operand near a multiple of the divisor, moves the result
arbitrarily far; a float16 sum or cumsum, whose partial sums Triton rounds
to float16, so that cancellation leaves an error of the terms' size). The passes-off-vs-on comparison ignores them all: both
sides run on the same interpreter, so every output must agree bit for bit.
Arguments of tl.sin and tl.cos are clamped to +-1e4, inside the range
where the GPU's reduction by 2 pi keeps its documented accuracy.

Also covered: algebraic identities on values that break them (x - x, x * 0.0,
x + 0.0, x == x on NaN, -0.0 and the dtype's bounds: what canonicalize must
leave alone), loads that must see earlier stores to the same address (in
straight-line code and across loop iterations; a `tl.debug_barrier()` after
each such store, as Triton requires for another thread to see it), and
atomics whose old value is used.

The generator models Triton's type rules itself (it imports nothing from
Tessera), so a program Tessera refuses is either a generator bug or a
front-end bug; the runner reports it as such.
"""

from __future__ import annotations

import dataclasses
import random

INTS = ("int8", "int16", "int32", "int64", "uint8", "uint32", "uint64")
FLOATS = ("float16", "bfloat16", "float32")
DTYPES = INTS + FLOATS
BITS = {"int1": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16,
        "uint32": 32, "uint64": 64, "float16": 16, "bfloat16": 16, "float32": 32}
PAD = 32  # elements past the last program's block in every buffer: room for offsets


def is_float(d: str) -> bool:
    return d.startswith("float") or d == "bfloat16"


def is_unsigned(d: str) -> bool:
    return d.startswith("uint")


def int_range(d: str) -> tuple:
    b = BITS[d]
    return (0, 2**b - 1) if is_unsigned(d) else (-(2**(b - 1)), 2**(b - 1) - 1)


def promote(a: str, b: str) -> str:
    """Triton's result dtype of a binary op on tensors of dtypes a and b."""
    if a == b:
        return a
    if a == "int1":
        return b
    if b == "int1":
        return a
    if "float32" in (a, b):
        return "float32"
    if "float16" in (a, b):  # float16 wins over bfloat16 and integers
        return "float16"
    if "bfloat16" in (a, b):  # bfloat16 stays only with itself
        return "float32"
    ua, ub = is_unsigned(a), is_unsigned(b)
    if ua == ub:
        return a if BITS[a] >= BITS[b] else b
    s, u = (b, a) if ua else (a, b)
    return s if BITS[s] > BITS[u] else u


@dataclasses.dataclass
class V:
    """A value of the kernel: its expression, dtype, shape class ("2d": (BM,
    BN), "row": (BN,), "col": (BM,), "scalar": 0-d) and comparison facts."""
    expr: str
    dtype: str
    shape: str
    transc: bool = False
    inexact: bool = False
    ub: bool = False
    unstable: bool = False


def _flags(*vs: V) -> dict:
    return {"transc": any(v.transc for v in vs), "inexact": any(v.inexact for v in vs),
            "ub": any(v.ub for v in vs), "unstable": any(v.unstable for v in vs)}


@dataclasses.dataclass
class Buffer:
    name: str
    dtype: str
    size: int


@dataclasses.dataclass
class Output:
    buffer: Buffer
    transc: bool
    inexact: bool
    ub: bool
    unstable: bool = False


@dataclasses.dataclass
class Program:
    seed: int
    name: str
    source: str
    inputs: list  # of Buffer
    outputs: list  # of Output
    scalars: list  # of (name, "int32" | "float32", value)
    grid: int
    constexprs: dict
    features: set

    def reproducer(self) -> str:
        """A script that runs this program with and without the passes."""
        return (f"# differential program, seed {self.seed}; features: "
                f"{', '.join(sorted(self.features))}\n"
                f"# rerun: python3 scripts/differential.py --seed {self.seed} -n 1 --show\n"
                f"import tessera as triton\nimport tessera.language as tl\n\n\n{self.source}")


class _Gen:
    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)
        self.lines: list = []
        self.indent = 1
        self.vars: list = []  # V of named variables, usable as operands
        self.count = 0
        self.features: set = set()
        self.inputs: list = []
        self.scalars: list = []
        self.constexpr_names: set = set()
        self.whiles: list = []
        self.dot = self.r.random() < 0.12
        if self.dot:
            self.bm = self.bn = 16
        else:
            self.bm = self.r.choice((1, 2, 4, 8, 16))
            self.bn = self.r.choice((2, 4, 8, 16, 32))
        self.grid = self.r.choice((1, 1, 2, 3))
        self.size = self.grid * self.bm * self.bn + PAD

    # ---- emission helpers -------------------------------------------------------------

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def name(self, prefix: str = "v") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def bind(self, v: V, prefix: str = "v") -> V:
        """Assigns v to a fresh variable, which later expressions may use."""
        n = self.name(prefix)
        self.emit(f"{n} = {v.expr}")
        out = dataclasses.replace(v, expr=n)
        self.vars.append(out)
        return out

    # ---- leaves -----------------------------------------------------------------------

    def int_constant(self, d: str) -> int:
        lo, hi = int_range(d)
        b = BITS[d]
        pool = [0, 1, 2, 3, 7, hi, lo, hi - 1, lo + 1, 1 << (b - 2), (1 << (b // 2)) + 1,
                b - 1, b, b + 1, 2 * b]
        if not is_unsigned(d):
            pool += [-1, -2, -7, -(1 << (b // 2))]
        v = self.r.choice(pool) if self.r.random() < 0.7 else self.r.randint(lo, hi)
        return max(lo, min(hi, v))

    def float_constant(self, d: str) -> str:
        pool = ["0.0", "-0.0", "1.0", "-1.0", "0.5", "2.0", "3.0", "-1.5", "0.1", "1e-3",
                "100.0", "65504.0"]
        if self.r.random() < 0.15:
            pool += ['float("inf")', '-float("inf")', 'float("nan")', "1e30", "1e-30"]
            if d == "float32":
                pool += ["3.0e38", "1e-40"]
        return self.r.choice(pool)

    def input_buffer(self, d: str) -> Buffer:
        for b in self.inputs:
            if b.dtype == d and self.r.random() < 0.85:
                return b
        b = Buffer(f"x{len(self.inputs)}", d, self.size)
        self.inputs.append(b)
        return b

    def scalar_arg(self, d: str) -> V:
        """A runtime scalar argument (int32 or float32, as Python ints and
        floats specialise)."""
        n = f"s{len(self.scalars)}"
        if d == "int32":
            value = self.r.choice((0, 1, 2, 3, 5, 17, -1, -3, 100, 2**31 - 1, -(2**31)))
        else:
            value = self.r.choice((0.0, 1.0, -2.5, 0.375, 1e-3, 1e4))
        self.scalars.append((n, d, value))
        return V(n, d, "scalar")

    def load(self, d: str, shape: str) -> V:
        b = self.input_buffer(d)
        off = self.r.randint(0, PAD // 2)
        self.features.add("load")
        if shape == "2d":
            ptr = f"{b.name} + idx + {off}" if off else f"{b.name} + idx"
            if self.r.random() < 0.6:
                self.features.add("mask")
                mask = self.r.choice(("inb", "inb & (rn[None, :] < s_n)",
                                      "(rm[:, None] % 2 == 0) & inb"))
                if "s_n" in mask:
                    self.need_s_n = True
                other = self.literal(d)
                return V(f"tl.load({ptr}, mask={mask}, other={other})", d, "2d")
            return V(f"tl.load({ptr})", d, "2d")
        if shape == "row":
            return V(f"tl.load({b.name} + rn + {off})", d, "row")
        if shape == "col":
            stride = self.r.choice((1, 2))
            return V(f"tl.load({b.name} + rm * {stride} + {off})", d, "col")
        return V(f"tl.load({b.name} + {off})", d, "scalar")

    def literal(self, d: str) -> str:
        """A Python literal usable beside a tile of dtype d without changing
        its dtype (small, non-negative for unsigned tiles)."""
        if is_float(d):
            return self.r.choice(("0.0", "1.0", "-1.0", "0.5", "2.0", "-3.0"))
        if is_unsigned(d):
            return str(self.r.choice((0, 1, 2, 3, 5, 7, 100)))
        return str(self.r.choice((0, 1, 2, 3, -1, -2, 7, -100, 100)))

    def constant_tile(self, d: str, shape: str) -> V:
        self.features.add("constant")
        c = self.float_constant(d) if is_float(d) else str(self.int_constant(d))
        dims = {"2d": "(BM, BN)", "row": "(BN,)", "col": "(BM,)", "scalar": "()"}[shape]
        return V(f"tl.full({dims}, {c}, tl.{d})", d, shape)

    def index_tile(self, shape: str) -> V:
        return V({"2d": "idx", "row": "rn", "col": "rm", "scalar": "pid"}[shape], "int32", shape)

    def leaf(self, d: str, shape: str) -> V:
        same = [v for v in self.vars if v.dtype == d and v.shape == shape]
        x = self.r.random()
        if same and x < 0.35:
            return self.r.choice(same)
        if x < 0.65:
            return self.load(d, shape)
        if x < 0.82:
            return self.constant_tile(d, shape)
        if x < 0.9 and d == "int32":
            return self.index_tile(shape)
        if x < 0.95 and shape == "scalar" and d in ("int32", "float32"):
            return self.scalar_arg(d)
        return self.cast(self.leaf(self.r.choice(DTYPES), shape), d)

    # ---- operations -------------------------------------------------------------------

    def cast(self, v: V, d: str) -> V:
        if v.dtype == d:
            return v
        self.features.add("cast")
        if is_float(v.dtype) and not is_float(d):
            # Out-of-range and NaN float -> int conversions differ by design
            # between the GPU (cvt saturates) and the interpreter (0): bound
            # the value first so the program stays defined everywhere.
            lo, hi = (0, 100) if is_unsigned(d) else (-100, 100)
            if not v.expr.isidentifier():
                v = self.bind(v, "t")
            v = V(f"tl.where({v.expr} == {v.expr}, tl.minimum(tl.maximum({v.expr}, {lo}.0), "
                  f"{hi}.0), 0.0)", v.dtype, v.shape, **_flags(v))
        return V(f"{self.paren(v)}.to(tl.{d})", d, v.shape, **_flags(v))

    @staticmethod
    def paren(v: V) -> str:
        e = v.expr
        if e.isidentifier() or (e.endswith(")") and e.count("(") == 1 and "(" in e and
                                 e.split("(")[0].replace(".", "").replace("_", "").isalnum()):
            return e
        return f"({e})"

    def broadcast_pair(self, a: V, b: V) -> tuple:
        """Expressions of a and b that broadcast to a common shape, and it."""
        if a.shape == b.shape or "scalar" in (a.shape, b.shape):
            shape = b.shape if a.shape == "scalar" else a.shape
            return self.paren(a), self.paren(b), shape
        self.features.add("broadcast")

        def as2d(v):
            return {"2d": self.paren(v), "row": f"{self.paren(v)}[None, :]",
                    "col": f"{self.paren(v)}[:, None]"}[v.shape]
        return as2d(a), as2d(b), "2d"

    def fit(self, v: V, shape: str) -> V:
        """v broadcast to `shape` (v's shape is `shape` or broadcasts to it)."""
        if v.shape == shape:
            return v
        self.features.add("broadcast")
        e = {"row": f"{self.paren(v)}[None, :]", "col": f"{self.paren(v)}[:, None]",
             "scalar": self.paren(v), "2d": self.paren(v)}[v.shape]
        dims = {"2d": "(BM, BN)", "row": "(BN,)", "col": "(BM,)"}[shape]
        return V(f"tl.broadcast_to({e}, {dims})", v.dtype, shape, **_flags(v))

    def binary(self, d: str, shape: str, depth: int) -> V:
        """An arithmetic expression of dtype d (after promotion)."""
        a = self.expr(d, self.sub_shape(shape), depth - 1)
        other = d
        if self.r.random() < 0.25:  # mixed dtypes: Triton's promotion
            other = self.r.choice([o for o in DTYPES if promote(d, o) == d and
                                   (is_float(o) or is_unsigned(o) == is_unsigned(d))])
        b = self.expr(other, self.sub_shape(shape), depth - 1)
        x, y = (b, a) if self.r.random() < 0.5 else (a, b)
        ex, ey, s = self.broadcast_pair(x, y)
        fl = _flags(a, b)
        if is_float(d):
            op = self.r.choice(("+", "-", "*", "/", "max", "min", "mad", "%"))
            if op in ("max", "min"):
                return self.fit(V(f"tl.{op}imum({ex}, {ey})", d, s, **fl), shape)
            fl["inexact"] = True  # a GPU may contract a multiply and an add into one rounding
            if op == "mad":
                c = self.fit(self.expr(d, self.sub_shape(s), 0), s)
                fl = _flags(a, b, c)
                fl["inexact"] = True
                return self.fit(V(f"{ex} * {ey} + {self.paren(c)}", d, s, **fl), shape)
            # A quotient by an inexact value, or a remainder of one, has no
            # error bound relative to itself (module doc).
            if (op == "/" and y.inexact) or (op == "%" and (x.inexact or y.inexact)):
                fl["unstable"] = True
            # Triton divides 16-bit floats in float32.
            r = "float32" if op in ("/", "%") else d
            return self.fit(self.cast(V(f"{ex} {op} {ey}", r, s, **fl), d), shape)
        bits = BITS[d]
        op = self.r.choice(("+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "max", "min"))
        if op in ("max", "min"):
            return self.fit(V(f"tl.{op}imum({ex}, {ey})", d, s, **fl), shape)
        if op in ("//", "%"):
            self.features.add("intdiv")
            if self.r.random() < 0.3 and not is_unsigned(d):
                # (powers of two and other positive constants divide without
                # div/rem in PTX: shifts, a multiply-high)
                k = self.r.choice(("-1", "-7", "3", "1", "2", "16", "64", "10"))
                return self.fit(V(f"{self.paren(a)} {op} {k}", d, a.shape, **_flags(a)), shape)
            return self.fit(V(f"{ex} {op} ({ey} | 1)", d, s, **fl), shape)
        if op in ("<<", ">>"):
            self.features.add("shift")
            if self.r.random() < 0.4:
                k = self.r.choice((0, 1, bits // 2, bits - 1))
                if op == "<<" and a.expr in self.constexpr_names:
                    k = min(k, 1)  # a static_range index shifts in Python: 2 << 31 fits no int32
                return self.fit(V(f"{self.paren(a)} {op} {k}", d, a.shape, **_flags(a)), shape)
            return self.fit(V(f"{ex} {op} ({ey} & {bits - 1})", d, s, **fl), shape)
        return self.fit(V(f"{ex} {op} {ey}", d, s, **fl), shape)

    def unary(self, d: str, shape: str, depth: int) -> V:
        a = self.expr(d, shape, depth - 1)
        e = self.paren(a)
        if is_float(d):
            op = self.r.choice(("-", "abs", "floor", "ceil", "math", "math"))
            if op == "-":
                return V(f"-{e}", d, shape, **_flags(a))
            if op == "abs":
                return V(f"tl.abs({a.expr})", d, shape, **_flags(a))
            if op in ("floor", "ceil"):  # float32 and float64 only, as in Triton
                x = a.expr if d == "float32" else f"{e}.to(tl.float32)"
                return self.cast(V(f"tl.{op}({x})", "float32", shape, **_flags(a)), d)
            # Transcendental math in float32, on arguments that keep it finite.
            self.features.add("math")
            x = a.expr if d == "float32" else f"{e}.to(tl.float32)"
            bounded = f"tl.minimum(tl.maximum({x}, -1.0e4), 1.0e4)"
            f = self.r.choice((f"tl.exp(-tl.abs({x}))", f"tl.log(tl.abs({x}) + 1.0)",
                               f"tl.sqrt(tl.abs({x}))", f"tl.sin({bounded})",
                               f"tl.cos({bounded})",
                               f"tl.sigmoid({x})", f"tl.erf({x})", f"tl.exp2(-tl.abs({x}))",
                               f"tl.log2(tl.abs({x}) + 1.0)", f"tl.rsqrt(tl.abs({x}) + 1.0)"))
            out = V(f, "float32", shape, transc=True, inexact=True, unstable=a.unstable)
            return self.cast(out, d) if d != "float32" else out
        op = self.r.choice(("-", "~", "abs"))
        if op == "abs":
            return V(f"tl.abs({a.expr})", d, shape, **_flags(a))
        return V(f"{op}{e}", d, shape, **_flags(a))

    def compare(self, shape: str, depth: int) -> V:
        d = self.r.choice(DTYPES)
        a = self.expr(d, self.sub_shape(shape), depth - 1)
        if self.r.random() < 0.3:
            b = V(self.literal(d), d, "scalar")
        else:
            b = self.expr(d, self.sub_shape(shape), depth - 1)
        ea, eb, s = self.broadcast_pair(a, b)
        op = self.r.choice(("<", "<=", ">", ">=", "==", "!="))
        return V(f"{ea} {op} {eb}", "int1", s, **_flags(a, b))

    def where(self, d: str, shape: str, depth: int) -> V:
        self.features.add("where")
        c = self.fit(self.compare(self.sub_shape(shape), depth - 1), shape)
        a = self.fit(self.expr(d, self.sub_shape(shape), depth - 1), shape)
        b = self.fit(self.expr(d, self.sub_shape(shape), depth - 1), shape)
        return V(f"tl.where({c.expr}, {a.expr}, {b.expr})", d, shape, **_flags(a, b, c))

    def reduce(self, d: str, shape: str, depth: int) -> V:
        """A reduction whose result has shape `shape` (not 2d)."""
        self.features.add("reduce")
        src = {"row": "2d", "col": "2d", "scalar": self.r.choice(("2d", "row", "col"))}[shape]
        axis = {"row": 0, "col": 1}.get(shape)
        op = self.r.choice(("sum", "max", "min"))
        a = self.expr(d, src, depth - 1)
        ax = f", axis={axis}" if axis is not None else ""
        fl = _flags(a)
        if op == "sum" and is_float(d):
            fl["inexact"] = True
            # Triton sums float16 in float16: every partial sum is rounded to
            # float16, so the error is bounded by the terms' magnitudes, not
            # by the sum's, and cancellation leaves it unbounded relative to
            # the result (module doc).
            fl["unstable"] = fl["unstable"] or d == "float16"
        out_d = d  # Triton widens: bfloat16 always, max/min anything narrower than 32 bits
        if d == "bfloat16" or (op != "sum" and BITS[d] < 32):
            out_d = "float32" if is_float(d) else "int32"
        elif op == "sum" and not is_float(d) and BITS[d] < 32:
            out_d = "uint32" if is_unsigned(d) else "int32"
        v = V(f"tl.{op}({a.expr}{ax})", out_d, shape, **fl)
        return self.cast(v, d)

    def scan(self, d: str, shape: str, depth: int) -> V:
        self.features.add("scan")
        a = self.expr(d, shape, depth - 1)
        axis = self.r.choice((0, 1)) if shape == "2d" else 0
        fl = _flags(a)
        fl["inexact"] = fl["inexact"] or is_float(d)
        fl["unstable"] = fl["unstable"] or d == "float16"  # float16 partial sums, as in reduce
        out_d = "float32" if d == "bfloat16" else d
        if not is_float(d) and BITS[d] < 32:
            out_d = "uint32" if is_unsigned(d) else "int32"
        return self.cast(V(f"tl.cumsum({a.expr}, axis={axis})", out_d, shape, **fl), d)

    def sub_shape(self, shape: str) -> str:
        """The shape of an operand of an elementwise op producing `shape`."""
        if shape == "2d" and self.r.random() < 0.3:
            self.features.add("broadcast")
            return self.r.choice(("row", "col", "scalar"))
        if shape in ("row", "col") and self.r.random() < 0.15:
            return "scalar"
        return shape

    def identity(self, d: str, shape: str, depth: int) -> V:
        """x combined with itself or with a neutral, absorbing or edge
        constant: what canonicalize rewrites (x - x, x * 1, x // -1, x + 0.0,
        x == x, ...) and CSE merges. Many hold for ordinary values only, and
        the inputs hold NaN, -0.0, zero and the dtype's bounds."""
        self.features.add("identity")
        x = self.expr(d, shape, depth - 1)
        if not x.expr.isidentifier():
            x = self.bind(x, "t")
        e, fl = x.expr, _flags(x)
        if is_float(d):
            form = self.r.choice((
                "{x} + 0.0", "{x} - 0.0", "0.0 + {x}", "0.0 - {x}", "{x} + -0.0", "{x} * 1.0",
                "{x} * 0.0", "{x} * -1.0", "{x} / 1.0", "{x} / 2.0", "{x} * 2.0", "{x} - {x}",
                "{x} * {x}", "{x} / {x}", "-(-{x})", "tl.maximum({x}, {x})", "tl.minimum({x}, {x})",
                "tl.abs(-{x})", "tl.where({x} == {x}, {x}, 0.0)", "tl.where({x} != {x}, 1.0, {x})",
                "({x} == {x}).to(tl.{d})", "({x} < {x}).to(tl.{d})", "({x} >= {x}).to(tl.{d})",
                "{x}.to(tl.float32).to(tl.{d})", "({x} + 1.0) - 1.0", "{x} * 0.5 * 2.0"))
            if "/" in form and d != "float32":
                form = "({f}).to(tl.{d})".format(f=form, d=d)
            # x / x is not exactly 1 on the GPU: `/` is div.full.f32 there, as
            # in Triton (within 2 ulp), where the interpreter rounds correctly.
            fl["inexact"] = fl["inexact"] or form == "({x} + 1.0) - 1.0" or "/" in form
            return V(form.format(x=e, d=d), d, shape, **fl)
        b = BITS[d]
        lo, hi = int_range(d)
        forms = ["{x} + 0", "0 + {x}", "{x} - 0", "{x} * 1", "{x} * 0", "{x} - {x}", "{x} ^ {x}",
                 "{x} & {x}", "{x} | {x}", "{x} | 0", "{x} ^ 0", "{x} // 1", "{x} % 1",
                 "{x} // 2", "{x} % 2", "{x} // 4", "{x} % 8", "{x} * 2", "{x} * 4", "{x} >> 0",
                 "{x} << 0", "({x} << 3) >> 3", "({x} >> 1) << 1", "-(-{x})", "~(~{x})",
                 "tl.minimum({x}, {x})", "tl.maximum({x}, {x})", "({x} == {x}).to(tl.{d})",
                 "({x} < {x}).to(tl.{d})", "({x} <= {x}).to(tl.{d})", "tl.where({x} > 0, {x}, {x})",
                 "({x} + 1) - 1", "({x} + 100) + 27", "({x} * 3) * 5", "tl.abs(tl.abs({x}))",
                 "{x} >> " + str(b - 1), "{x} << " + str(b - 1), "{x} & (({x} * 0) + 1)",
                 "({x}.to(tl.int64)).to(tl.{d})", "({x}.to(tl.uint64)).to(tl.{d})",
                 "({x}.to(tl.int8)).to(tl.{d})", "({x}.to(tl.float32)).to(tl.{d})",
                 "tl.maximum({x}, tl.full((), {lo}, tl.{d}))",
                 "tl.minimum({x}, tl.full((), {hi}, tl.{d}))"]
        if not is_unsigned(d):
            forms += ["{x} // -1", "{x} % -1", "{x} * -1", "0 - {x}", "{x} & -1", "{x} // -2",
                      "{x} % -4"]
        ub_forms = ["{x} // {x}", "{x} % {x}", "0 // {x}", "0 % {x}", "({x} * 0) // ({x} * 0)"]
        form = self.r.choice(forms + (ub_forms if e not in self.constexpr_names else []))
        if e in self.constexpr_names and "<<" in form:  # (as in binary: shifted in Python)
            form = "({x} + 1) - 1"
        fl["ub"] = fl["ub"] or form in ub_forms or ".to(tl.float32)).to" in form
        return V(form.format(x=e, d=d, lo=lo, hi=hi), d, shape, **fl)

    def expr(self, d: str, shape: str, depth: int) -> V:
        if depth <= 0:
            return self.leaf(d, shape)
        if self.r.random() < 0.12:
            return self.identity(d, shape, depth)
        x = self.r.random()
        if x < 0.4:
            return self.binary(d, shape, depth)
        if x < 0.55:
            return self.unary(d, shape, depth)
        if x < 0.65:
            return self.where(d, shape, depth)
        if x < 0.75 and shape != "2d":
            return self.reduce(d, shape, depth)
        if x < 0.8 and shape != "scalar":
            return self.scan(d, shape, depth)
        if x < 0.88:
            return self.cast(self.fit(self.compare(shape, depth), shape), d)
        if x < 0.94:
            return self.cast(self.expr(self.r.choice(DTYPES), shape, depth - 1), d)
        return self.leaf(d, shape)

    # ---- statements -------------------------------------------------------------------

    def stmt_assign(self) -> None:
        d = self.r.choice(DTYPES)
        shape = self.r.choice(("2d", "2d", "2d", "row", "col", "scalar"))
        self.bind(self.expr(d, shape, self.r.randint(1, 3)))

    def stmt_if(self) -> None:
        self.features.add("if")
        d = self.r.choice(DTYPES)
        shape = self.r.choice(("2d", "row", "col"))
        if self.r.random() < 0.6:
            s = self.scalar_arg("int32")
            cond = f"{s.expr} {self.r.choice(('>', '<', '==', '!=', '>='))} {self.r.randint(-2, 5)}"
        else:
            c = self.expr(self.r.choice(DTYPES), "scalar", 1)
            cond = f"{self.paren(c)} > {self.literal(c.dtype)}"
        n = self.name()
        saved = list(self.vars)
        self.emit(f"if {cond}:")
        self.indent += 1
        a = self.cast(self.expr(d, shape, 2), d)
        self.emit(f"{n} = {a.expr}")
        self.indent -= 1
        self.vars = list(saved)
        self.emit("else:")
        self.indent += 1
        b = self.cast(self.expr(d, shape, 2), d)
        self.emit(f"{n} = {b.expr}")
        self.indent -= 1
        self.vars = saved
        self.vars.append(V(n, d, shape, **_flags(a, b)))

    def stmt_for(self) -> None:
        self.features.add("for")
        d = self.r.choice(DTYPES)
        shape = self.r.choice(("2d", "2d", "row", "col", "scalar"))
        acc = self.name("acc")
        init = self.cast(self.expr(d, shape, 1), d)
        self.emit(f"{acc} = {init.expr}")
        i = self.name("i")
        x = self.r.random()
        if x < 0.4:
            s = self.scalar_arg("int32")
            self.scalars[-1] = (s.expr, "int32", self.r.randint(0, 4))
            if self.r.random() < 0.3:  # unroll-loops, with the remainder loop
                self.features.add("unroll")
                f = self.r.randint(2, 4)
                head = f"for {i} in tl.range(0, {s.expr}, loop_unroll_factor={f}):"
            else:
                head = f"for {i} in range(0, {s.expr}):"
        elif x < 0.6:
            # Constant bounds, negative steps and empty ranges: what
            # canonicalize's trip-count reasoning sees.
            self.features.add("const_range")
            step = self.r.choice((1, 2, 3, -1, -2))
            lo, hi = self.r.randint(0, 5), self.r.randint(0, 5)  # i indexes loads
            rng = self.r.choice(("range", "tl.range"))
            extra = ""
            if rng == "tl.range" and self.r.random() < 0.4:
                self.features.add("unroll")
                extra = f", loop_unroll_factor={self.r.randint(1, 4)}"
            head = f"for {i} in {rng}({lo}, {hi}, {step}{extra}):"
        elif x < 0.7:
            self.features.add("while")
            s = self.scalar_arg("int32")
            self.scalars[-1] = (s.expr, "int32", self.r.randint(-1, 4))
            self.emit(f"{i} = 0")
            head = f"while {i} < {s.expr}:"
            self.whiles.append(i)
        else:
            self.features.add("static_range")
            head = f"for {i} in tl.static_range({self.r.randint(1, 3)}):"
            self.constexpr_names.add(i)  # a compile-time int: 0 // i is an error, not UB
        self.emit(head)
        self.indent += 1
        saved = list(self.vars)
        self.vars.append(V(i, "int32", "scalar"))
        if self.r.random() < 0.5 and shape == "2d":  # a load that moves with the loop
            b = self.input_buffer(d)
            step = V(f"tl.load({b.name} + idx + {i})", d, "2d")
        else:
            step = self.expr(d, shape, 2)
        accv = V(acc, d, shape, **_flags(init))
        op = self.r.choice(("+", "max", "^", "min") if not is_float(d) else ("+", "max", "min"))
        ea, eb, _ = self.broadcast_pair(accv, step)
        if op in ("max", "min"):
            body = V(f"tl.{op}imum({ea}, {eb})", d, shape, **_flags(accv, step))
        else:
            body = V(f"{ea} {op} {eb}", d, shape, **_flags(accv, step))
            body.inexact = body.inexact or is_float(d)
        self.emit(f"{acc} = {self.cast(body, d).expr}")
        if self.whiles and self.whiles[-1] == i:
            self.emit(f"{i} += 1")
            self.whiles.pop()
        self.indent -= 1
        self.vars = saved
        # The accumulator keeps every fact of its update, undefined behaviour
        # included (`acc = min(acc, 0 % x)` with x possibly 0, seed 10890).
        self.vars.append(V(acc, d, shape, **_flags(body)))

    def stmt_dot(self) -> None:
        self.features.add("dot")
        kind = self.r.choice(("float16", "bfloat16", "float32", "int8"))
        a = self.cast(self.expr(kind, "2d", 1), kind)
        b = self.cast(self.expr(kind, "2d", 1), kind)
        av, bv = self.bind(a), self.bind(b)
        operands = [av, bv]
        if self.r.random() < 0.3:
            bv = V(f"tl.trans({bv.expr})", kind, "2d", **_flags(bv))
        out = "int32" if kind == "int8" else "float32"
        extra = ', input_precision="ieee"' if kind == "float32" and self.r.random() < 0.5 else ""
        if self.r.random() < 0.3:
            # A batched dot: two BM x BN tiles of each operand joined along a
            # new leading batch dim (2 x BM x BN), multiplied entry by entry,
            # the two products summed back into one tile.
            self.features.add("dot3d")
            a2 = self.bind(self.cast(self.expr(kind, "2d", 1), kind))
            b2 = self.bind(self.cast(self.expr(kind, "2d", 1), kind))
            operands += [a2, b2]
            pa = f"tl.permute(tl.join({av.expr}, {a2.expr}), (2, 0, 1))"
            pb = f"tl.permute(tl.join({bv.expr}, {b2.expr}), (2, 0, 1))"
            v = V(f"tl.sum(tl.dot({pa}, {pb}{extra}), 0)", out, "2d", **_flags(av, bv, a2, b2))
        else:
            v = V(f"tl.dot({av.expr}, {bv.expr}{extra})", out, "2d", **_flags(av, bv))
        v.inexact = v.inexact or out == "float32"
        # TF32 keeps 10 fraction bits, and the tensor core drops the rest: an
        # operand a last bit off (x / x as 1 - 2^-24 on the GPU, seed 8120)
        # moves a product by 2^-10 of itself, an error bounded by the terms,
        # not by the output's magnitude.
        if kind == "float32" and not extra and any(x.inexact for x in operands):
            v.unstable = True
        self.bind(v)

    def scratch(self, d: str) -> Output:
        """A fresh output buffer that statements store to and load from
        (compared at the end like the others)."""
        o = Output(Buffer(f"o{len(self.outputs)}", d, self.size), False, False, False)
        self.outputs.append(o)
        return o

    def mark(self, o: Output, v: V) -> None:
        o.transc, o.inexact, o.ub = o.transc or v.transc, o.inexact or v.inexact, o.ub or v.ub
        o.unstable = o.unstable or v.unstable

    def stmt_memory(self) -> None:
        """Loads that must see earlier stores to the same address (in
        straight-line code and through loop iterations) and atomics whose
        old value is used: what CSE, LICM and DCE must not merge, hoist or
        drop."""
        self.features.add("memory")
        d = self.r.choice(("int32", "int64", "uint32", "float32", "float16", "int8"))
        o = self.scratch(d)
        ptr = f"{o.buffer.name} + idx"
        form = self.r.choice(("rw", "rw", "loop", "atomic"))
        a = self.cast(self.expr(d, "2d", 1), d)
        self.mark(o, a)
        # Triton orders a store before a later load or atomic of the same
        # address by another thread of the program only through
        # tl.debug_barrier() (where a layout replicates elements, one thread
        # stores and all load): the programs say so, as a user must.
        self.emit(f"tl.store({ptr}, {a.expr}, mask=inb)")
        self.emit("tl.debug_barrier()")
        if form == "rw":
            first = self.bind(V(f"tl.load({ptr}, mask=inb, other={self.literal(d)})", d, "2d",
                                **_flags(a)))
            b = self.cast(self.expr(d, "2d", 1), d)
            self.mark(o, b)
            self.emit(f"tl.store({ptr}, {b.expr}, mask=inb)")
            self.emit("tl.debug_barrier()")
            second = V(f"tl.load({ptr}, mask=inb, other={self.literal(d)})", d, "2d",
                       **_flags(a, b))
            self.bind(second)
            if self.r.random() < 0.5:
                self.bind(V(f"{first.expr} - {first.expr}" if not is_float(d) else first.expr,
                            d, "2d", **_flags(first)))
        elif form == "loop":
            self.features.add("for")
            s = self.scalar_arg("int32")
            self.scalars[-1] = (s.expr, "int32", self.r.randint(0, 4))
            i = self.name("i")
            self.emit(f"for {i} in range(0, {s.expr}):")
            self.indent += 1
            cur = self.name("t")
            self.emit(f"{cur} = tl.load({ptr}, mask=inb, other={self.literal(d)})")
            step = self.r.choice((f"{cur} + 1", f"{cur} * 2", f"tl.maximum({cur}, {i})"))
            self.emit(f"tl.store({ptr}, ({step}).to(tl.{d}), mask=inb)")
            self.emit("tl.debug_barrier()")
            self.indent -= 1
            if is_float(d):
                o.inexact = True
            self.bind(V(f"tl.load({ptr}, mask=inb, other={self.literal(d)})", d, "2d",
                        **_flags(a)))
        else:
            self.features.add("atomic")
            op = self.r.choice(("add", "max", "min", "xchg") if d in ("int32", "int64", "uint32",
                                                                       "float32")
                               else ("xchg",))
            if d in ("int8", "float16"):  # atomics take 32- and 64-bit (and fp16 add) words
                return
            b = self.cast(self.expr(d, "2d", 1), d)
            self.mark(o, b)
            old = self.bind(V(f"tl.atomic_{op}({ptr}, {b.expr}, mask=inb)", d, "2d",
                              **_flags(a, b)))
            if is_float(d) and op == "add":
                o.inexact = old.inexact = True

    def store(self, k: int) -> Output:
        d = self.r.choice(DTYPES)
        shape = self.r.choice(("2d", "2d", "2d", "2d", "row", "col", "scalar"))
        cands = [v for v in self.vars if v.shape == shape]
        if cands and self.r.random() < 0.8:
            v = self.r.choice(cands)
            if self.r.random() < 0.7:  # mostly in its own dtype: casts lose what differs
                d = v.dtype if v.dtype != "int1" else "int8"
        else:
            v = self.expr(d, shape, 2)
        v = self.cast(v, d)
        e = v.expr
        if shape != "2d":
            e = {"row": f"{self.paren(v)}[None, :]", "col": f"{self.paren(v)}[:, None]",
                 "scalar": self.paren(v)}[shape]
            e = f"tl.broadcast_to({e}, (BM, BN))"
        off = self.r.choice((0, 0, 1, 5, PAD - 1))
        ptr = f"o{k} + idx + {off}" if off else f"o{k} + idx"
        mask = "inb" if self.r.random() < 0.7 else "inb & (rm[:, None] != 1)"
        self.emit(f"tl.store({ptr}, {e}, mask={mask})")
        self.features.add("store")
        return Output(Buffer(f"o{k}", d, self.size), v.transc, v.inexact, v.ub, v.unstable)

    def build(self) -> Program:
        self.need_s_n = False
        self.outputs: list = []
        for _ in range(self.r.randint(1, 4)):
            x = self.r.random()
            if x < 0.45:
                self.stmt_assign()
            elif x < 0.62:
                self.stmt_if()
            elif x < 0.8:
                self.stmt_for()
            else:
                self.stmt_memory()
        if self.dot:
            self.stmt_dot()
        for _ in range(self.r.randint(1, 3)):
            self.outputs.append(self.store(len(self.outputs)))
        outputs = self.outputs
        n_valid = self.r.choice((self.grid * self.bm * self.bn,) * 2 +
                                (self.r.randint(0, self.grid * self.bm * self.bn),))
        body = self.lines
        params = [b.name for b in self.inputs] + [o.buffer.name for o in outputs]
        params += ["n"] + [s[0] for s in self.scalars]
        if self.need_s_n:
            params.append("s_n")
            self.scalars.append(("s_n", "int32", self.r.randint(0, self.bn)))
        params += ["BM: tl.constexpr", "BN: tl.constexpr"]
        name = f"diff_{self.seed}"
        head = [f"@triton.jit", f"def {name}({', '.join(params)}):",
                "    pid = tl.program_id(0)",
                "    rm = tl.arange(0, BM)",
                "    rn = tl.arange(0, BN)",
                "    idx = pid * (BM * BN) + rm[:, None] * BN + rn[None, :]",
                "    inb = idx < n"]
        source = "\n".join(head + body) + "\n"
        scalars = [("n", "int32", n_valid)] + self.scalars
        return Program(self.seed, name, source, self.inputs, outputs, scalars, self.grid,
                       {"BM": self.bm, "BN": self.bn}, self.features)


def generate(seed: int) -> Program:
    """The program of `seed` (deterministic)."""
    return _Gen(seed).build()


if __name__ == "__main__":
    import sys
    for s in sys.argv[1:] or ["1"]:
        print(generate(int(s)).reproducer())
