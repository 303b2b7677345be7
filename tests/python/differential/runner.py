"""Runs generated programs two ways and compares the results.

`check(program)` compiles the program of generator.py twice through
`@triton.jit` (tessera), once with the Tile IR passes off
(`knobs.compilation.passes = "none"`: the interpreter runs the IR as the
front end lowered it) and once with the default pipeline, runs both on the
interpreter with the same inputs and the same poisoned outputs, and returns
a `Result` naming every output that differs.

Comparison (the interpreter is deterministic, and the passes claim to
preserve the program's meaning exactly): bit for bit, every dtype, every
element, poisoned elements included. Two NaNs compare equal whatever their
payloads, since no pass promises a NaN's payload; nothing else is relaxed.

`check(program, gpu=True)` instead runs the optimised program on the GPU
(arguments as PyTorch CUDA tensors) and compares it with the interpreter:
integers, loads, stores, comparisons and min/max bit for bit; a float
output that went through arithmetic a GPU may evaluate in another order or
contract (reductions, dots, mul-add, division, transcendental math), within
`gpu_tolerance(dtype)` relative to the largest magnitude of that output; an
integer output that depends on such float arithmetic is not compared (a
rounding difference may legitimately flip a comparison), nor is an output
that depends on what Triton leaves undefined and the interpreter defines
(integer division by zero, float -> int conversion out of range) or whose
float error has no bound relative to its magnitude (a quotient by, or a
remainder of, an inexact value: generator.py's `unstable`); their count is
reported.
"""

from __future__ import annotations

import dataclasses
import linecache

import numpy as np

try:
    import ml_dtypes
    _BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - the suites install ml_dtypes
    _BF16 = None

from generator import Program, is_float

NP = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
      "uint32": np.uint32, "uint64": np.uint64, "float16": np.float16, "float32": np.float32}
POISON = 0xA5


def np_dtype(d: str) -> np.dtype:
    return _BF16 if d == "bfloat16" else np.dtype(NP[d])


def bits_dtype(d: str) -> np.dtype:
    return np.dtype(f"u{np_dtype(d).itemsize}")


def random_inputs(p: Program, specials: bool = True) -> list:
    """The input arrays of `p`, drawn from a generator seeded by p.seed:
    mostly small values, some of the whole range, some edge values (the
    dtype's bounds, -1, 0, 1; NaN, infinities and -0.0 when `specials`)."""
    rng = np.random.default_rng(p.seed)
    out = []
    for b in p.inputs:
        dt = np_dtype(b.dtype)
        pick = rng.random(b.size)
        if is_float(b.dtype):
            v = rng.standard_normal(b.size) * rng.choice((1.0, 4.0, 100.0))
            v = np.where(pick < 0.1, np.round(v), v)
            edges = [0.0, -0.0, 1.0, -1.0, 0.5]
            if specials:
                edges += [np.inf, -np.inf, np.nan, 60000.0 if b.dtype == "float16" else 1e30]
            v = np.where(pick > 0.92, rng.choice(edges, b.size), v)
            out.append(v.astype(dt))
        else:
            info = np.iinfo(dt)
            small = rng.integers(0 if info.min == 0 else -50, 100, b.size)
            full = rng.integers(info.min, info.max, b.size, dtype=dt, endpoint=True)
            edges = np.array([info.min, info.max, 0, 1, info.max - 1] +
                             ([-1] if info.min < 0 else []), dtype=dt)
            v = np.where(pick < 0.7, small.astype(dt), full)
            v = np.where(pick > 0.9, rng.choice(edges, b.size), v)
            out.append(v.astype(dt))
    return out


def poisoned_outputs(p: Program) -> list:
    return [np.full(o.buffer.size * np_dtype(o.buffer.dtype).itemsize, POISON,
                    np.uint8).view(np_dtype(o.buffer.dtype)) for o in p.outputs]


_COUNTER = [0]


def make_kernel(p: Program, tessera):
    """A fresh JITFunction of p's source (a fresh one per run, so each
    compiles with the passes set when it first launches)."""
    _COUNTER[0] += 1
    fname = f"<differential seed {p.seed} #{_COUNTER[0]}>"
    text = f"import tessera as triton\nimport tessera.language as tl\n\n\n{p.source}"
    linecache.cache[fname] = (len(text), None, text.splitlines(True), fname)
    ns: dict = {}
    exec(compile(text, fname, "exec"), ns)
    return ns[p.name], fname


def launch(p: Program, tessera, inputs: list, outputs: list, passes: str, device=None):
    """Runs p once with the Tile IR pipeline `passes` ("none" or "") and
    returns its outputs as NumPy arrays. `device`: None for the interpreter
    on the arrays themselves, else a pair (move, back) of functions taking
    an integer NumPy array to a tensor of the back end (a CUDA PyTorch
    tensor) and back: every buffer travels as the signed integers of its
    width and the kernel sees it through `tessera.reinterpret` with its real
    dtype, so no dtype needs the tensor library's support (uint32,
    bfloat16)."""
    kernel, fname = make_kernel(p, tessera)
    try:
        with tessera.knobs.compilation.scope():
            tessera.knobs.compilation.passes = passes
            args = inputs + outputs
            holders = args
            if device is not None:
                move, back = device
                dtypes = [b.dtype for b in p.inputs] + [o.buffer.dtype for o in p.outputs]
                holders = [move(a.view(np.dtype(f"i{a.itemsize}"))) for a in args]
                args = [tessera.reinterpret(h, getattr(tessera.language, d))
                        for h, d in zip(holders, dtypes)]
            scalars = [v for _, _, v in p.scalars]
            kernel[(p.grid,)](*args, *scalars, **p.constexprs)
            if device is None:
                return outputs
            return [back(h).view(o.dtype) for h, o in zip(holders[len(inputs):], outputs)]
    finally:
        linecache.cache.pop(fname, None)


def cuda_device():
    """(move, back) for `launch` through CUDA PyTorch tensors."""
    import torch
    return (lambda a: torch.from_numpy(a.copy()).cuda(), lambda t: t.cpu().numpy())


@dataclasses.dataclass
class Mismatch:
    output: str
    dtype: str
    count: int
    first: int
    got: object
    want: object

    def __str__(self) -> str:
        return (f"{self.output} ({self.dtype}): {self.count} elements differ; first at "
                f"[{self.first}]: {self.got!r} (optimised) vs {self.want!r} (reference)")


@dataclasses.dataclass
class Result:
    program: Program
    mismatches: list
    error: str = ""  # a compile or run error of either side
    skipped: int = 0  # GPU mode: integer outputs not compared (see module doc)

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.error


def compare_exact(name: str, d: str, got: np.ndarray, want: np.ndarray) -> Mismatch | None:
    gb, wb = got.view(bits_dtype(d)), want.view(bits_dtype(d))
    bad = gb != wb
    if is_float(d):
        g64, w64 = got.astype(np.float64), want.astype(np.float64)
        bad &= ~(np.isnan(g64) & np.isnan(w64))
    if not bad.any():
        return None
    i = int(np.flatnonzero(bad)[0])
    return Mismatch(name, d, int(bad.sum()), i, got[i], want[i])


def gpu_tolerance(d: str) -> float:
    """Relative tolerance of a float output on the GPU against the
    interpreter, per dtype: a few roundings of the dtype's epsilon, scaled
    by the number of values a reduction or dot may sum in another order."""
    return {"float16": 4e-3, "bfloat16": 3e-2, "float32": 2e-5}[d]


def compare_close(name: str, d: str, got: np.ndarray, want: np.ndarray) -> Mismatch | None:
    g, w = got.astype(np.float64), want.astype(np.float64)
    finite = np.isfinite(w)
    scale = float(np.max(np.abs(w[finite]), initial=1.0))
    tol = gpu_tolerance(d) * max(scale, 1.0)
    same_special = (np.isnan(g) & np.isnan(w)) | (g == w)
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, not within tolerance
        bad = ~same_special & ~(np.abs(g - w) <= tol)
    if not bad.any():
        return None
    i = int(np.flatnonzero(bad)[0])
    return Mismatch(name, d, int(bad.sum()), i, got[i], want[i])


def check(p: Program, tessera, gpu=False) -> Result:
    """p's outputs two ways (module doc). `gpu`: False, passes off vs on;
    True, the GPU against the interpreter; a (move, back) pair as `launch`
    takes, that device against the interpreter (the tests pass NumPy copies
    to check the GPU mode's plumbing on the interpreter)."""
    inputs = random_inputs(p, specials=not gpu)
    try:
        ref = launch(p, tessera, inputs, poisoned_outputs(p), "" if gpu else "none")
        if gpu:
            device = cuda_device() if gpu is True else gpu
            got = launch(p, tessera, inputs, poisoned_outputs(p), "", device)
        else:
            got = launch(p, tessera, inputs, poisoned_outputs(p), "")
    except Exception as e:  # noqa: BLE001 - any failure is the finding
        return Result(p, [], f"{type(e).__name__}: {e}")
    mismatches, skipped = [], 0
    if not gpu:
        got = _without_dot_add_rounding(p, tessera, inputs, got, ref)
    for o, g, w in zip(p.outputs, got, ref):
        d = o.buffer.dtype
        if gpu and (o.ub or o.unstable):  # the interpreter's choice, or no error bound
            skipped += 1
            continue
        if gpu and o.inexact:
            if not is_float(d):
                skipped += 1
                continue
            m = compare_close(o.buffer.name, d, g, w)
        else:
            m = compare_exact(o.buffer.name, d, g, w)
        if m is not None:
            mismatches.append(m)
    return Result(p, mismatches, "", skipped)


# The default Tile IR pipeline (src/runtime/compiler.cpp, defaultPipeline;
# test_differential.py checks that the two agree).
PIPELINE = ("inline", "unroll-loops", "canonicalize", "cse", "licm", "canonicalize", "cse",
            "combine-broadcast-dot", "combine-dot-add", "dce")


def _without_dot_add_rounding(p: Program, tessera, inputs: list, got: list, ref: list) -> list:
    """`got`, except that a float output the default pipeline changed only
    through combine-dot-add's rounding is replaced by the reference.
    combine-dot-add turns `d + tl.dot(a, b)` into `tl.dot(a, b, d)`, as
    Triton does: the product is added to d inside the dot instead of being
    rounded first. Such an output must come out of the pipeline without that
    pass bit for bit, and out of the whole pipeline within the GPU
    tolerance (gpu_tolerance); anything else stays a mismatch."""
    names = [o.buffer.name for o, g, w in zip(p.outputs, got, ref)
             if is_float(o.buffer.dtype) and o.inexact
             and compare_exact(o.buffer.name, o.buffer.dtype, g, w) is not None]
    if not names or "dot" not in p.features:
        return got
    passes = ",".join(x for x in PIPELINE if x != "combine-dot-add")
    without = launch(p, tessera, inputs, poisoned_outputs(p), passes)
    out = list(got)
    for i, (o, g, w, n) in enumerate(zip(p.outputs, got, ref, without)):
        d = o.buffer.dtype
        if (o.buffer.name in names and compare_exact(o.buffer.name, d, n, w) is None
                and compare_close(o.buffer.name, d, g, w) is None):
            out[i] = w
    return out


def bisect(p: Program, tessera) -> str:
    """The shortest prefix of the default pipeline whose result differs
    from the unoptimised program's, as "pass,pass,..." ("" when none does:
    the difference needs something the prefixes do not reproduce)."""
    inputs = random_inputs(p)
    try:
        ref = launch(p, tessera, inputs, poisoned_outputs(p), "none")
        for k in range(1, len(PIPELINE) + 1):
            passes = ",".join(PIPELINE[:k])
            got = launch(p, tessera, inputs, poisoned_outputs(p), passes)
            if any(compare_exact(o.buffer.name, o.buffer.dtype, g, w) is not None
                   for o, g, w in zip(p.outputs, got, ref)):
                return passes
    except Exception:  # noqa: BLE001 - the main run reports errors
        pass
    return ""
