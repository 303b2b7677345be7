"""tl.extra.libdevice against NumPy float64 (and exact rational) references:
fresh random inputs plus the edge cases of each function (0, -0, inf, NaN,
tiny and huge values, domain boundaries), outputs poisoned before each run,
errors measured in ulps of the result dtype. The tolerances are libdevice's
documented bounds where NumPy's reference is exact enough to hold us to
them, and tighter where our compositions do better (most round correctly but
for rare ties), so a regression fails. The same cases run on the GPU in
tests/gpu/test_libdevice_gpu.py."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl
from tessera.language.extra import libdevice

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
I32, I64, U32, U64 = (np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64))
BLOCK = 512


@triton.jit
def unary_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, getattr(libdevice, FN)(x), mask=mask)


@triton.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, getattr(libdevice, FN)(x, y), mask=mask)


@triton.jit
def ternary_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.load(z_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, getattr(libdevice, FN)(x, y, z), mask=mask)


@triton.jit
def quaternary_kernel(x_ptr, y_ptr, z_ptr, w_ptr, out_ptr, n, FN: tl.constexpr,
                      BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.load(z_ptr + offs, mask=mask)
    w = tl.load(w_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, getattr(libdevice, FN)(x, y, z, w), mask=mask)


KERNELS = {1: unary_kernel, 2: binary_kernel, 3: ternary_kernel, 4: quaternary_kernel}


@triton.jit
def scalar_kernel(x, out_ptr, FN: tl.constexpr):
    tl.store(out_ptr, getattr(libdevice, FN)(x))


@triton.jit
def mixed_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(out_ptr + tl.arange(0, 4), libdevice.pow(x, 3))  # (fp32, int32): powi
    tl.store(out_ptr + 4 + tl.arange(0, 4), libdevice.atan2(x, x.to(tl.float64)).to(tl.float32))
    tl.store(out_ptr + 8 + tl.arange(0, 4), libdevice.copysign(x, -1.0))


@triton.jit
def half_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(out_ptr + tl.arange(0, 4), libdevice.asin(x))


def poison(shape, dt):
    if dt == np.dtype(bool):
        return np.zeros(shape, dt)
    return np.full(shape, np.nan if dt.kind == "f" else np.iinfo(dt).max - 3, dtype=dt)


def launch(fn, args, out_dt, device="cpu"):
    """Runs libdevice.<fn> over the arrays `args` (all of one length) and
    returns the result as a NumPy array; device "cuda" runs through PyTorch."""
    n = len(args[0])
    out = poison(n, out_dt)
    if out_dt == np.dtype(bool):  # poisoned bytes that are neither 0 nor 1
        raw = np.full(n, 0x55, np.uint8)
        out = raw.view(bool)
    if device == "cuda":
        import torch

        def dev(a):
            if a.dtype == U32:  # PyTorch has no uint32 arithmetic; the bits are what matter
                return torch.from_numpy(a.view(I32)).cuda().view(torch.uint32)
            if a.dtype == U64:
                return torch.from_numpy(a.view(I64)).cuda().view(torch.uint64)
            return torch.from_numpy(a).cuda()
        dargs, dout = [dev(a) for a in args], dev(out)
    else:
        dargs, dout = list(args), out
    KERNELS[len(args)][(triton.cdiv(n, BLOCK),)](*dargs, dout, n, FN=fn, BLOCK=BLOCK)
    if device == "cuda":
        view = {U32: I32, U64: I64}.get(out_dt, out_dt)
        res = dout.view(getattr(torch, view.name)).cpu().numpy().view(out_dt)
        return res.view(np.uint8) if out_dt == np.dtype(bool) else res
    return out.view(np.uint8) if out_dt == np.dtype(bool) else out


# ---------------------------------------------------------------------------- errors in ulps


def ulp_error(got, ref, dt):
    """|got - ref| in ulps of dtype dt at ref (float64 arrays); NaN must
    match NaN and infinities of the reference must match exactly. A result
    that overflowed to infinity counts as one ulp past the largest float."""
    got = got.astype(F64)
    ref = np.asarray(ref, dtype=F64)
    fi = np.finfo(dt)
    fmax = float(fi.max)
    ulp_max = 2.0 ** (fi.maxexp - 1 - fi.nmant)
    # Beyond the largest float by an ulp, the only right answer is infinity.
    with np.errstate(invalid="ignore"):
        ref = np.where(np.abs(ref) > fmax + ulp_max, np.copysign(np.inf, ref), ref)
    err = np.zeros(len(ref))
    nan_ok = np.isnan(got) == np.isnan(ref)
    err[~nan_ok] = np.inf
    both = ~np.isnan(ref) & ~np.isnan(got)
    inf_ref = both & np.isinf(ref)
    err[inf_ref & (got != ref)] = np.inf
    fin = both & ~np.isinf(ref)
    with np.errstate(invalid="ignore", over="ignore"):
        spacing = np.spacing(np.minimum(np.abs(ref), fmax).astype(dt)).astype(F64)
        spacing = np.where(np.isinf(spacing), ulp_max, spacing)
        g = np.where(np.isinf(got), np.sign(got) * (fmax + ulp_max), got)
        e = np.abs(g - ref) / spacing
    err[fin] = e[fin]
    return err


def assert_within(fn, dt, args, got, ref, tol):
    err = ulp_error(got, ref, dt)
    bad = np.flatnonzero(~(err <= tol))
    if len(bad):
        i = bad[np.argmax(np.where(np.isinf(err[bad]), 1e300, err[bad]))]
        where = ", ".join(repr(a[i]) for a in args)
        raise AssertionError(
            f"libdevice.{fn} ({dt.name}): {len(bad)} of {len(err)} results off by more than {tol} "
            f"ulp; worst at ({where}): got {got[i]!r}, expected {ref[i]!r} ({err[i]:.3g} ulp)")


def assert_exact(fn, args, got, ref):
    with np.errstate(over="ignore", invalid="ignore"):
        ref = np.asarray(ref).astype(got.dtype)
    same = (got == ref) | (np.isnan(got) & np.isnan(ref)) if got.dtype.kind == "f" else got == ref
    if got.dtype.kind == "f":  # the sign of zero counts
        same &= (np.signbit(got) == np.signbit(ref)) | np.isnan(ref)
    bad = np.flatnonzero(~same)
    if len(bad):
        i = bad[0]
        where = ", ".join(repr(a[i]) for a in args)
        raise AssertionError(f"libdevice.{fn}: {len(bad)} of {len(got)} results differ; first at "
                             f"({where}): got {got[i]!r}, expected {ref[i]!r}")


# ---------------------------------------------------------------------------- inputs


def edges(dt, *extra):
    fi = np.finfo(dt)
    base = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, float(fi.tiny),
            -float(fi.tiny), float(fi.smallest_subnormal), -float(fi.smallest_subnormal),
            float(fi.max), -float(fi.max)]
    with np.errstate(over="ignore"):  # float64 extras past float32's range become inf
        return np.array(base + list(extra), dtype=dt)


def sample(rng, dt, n, lo, hi, log=False, signs=True):
    """n values in [lo, hi] (log-uniform when log), with random signs."""
    if log:
        v = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    else:
        v = rng.uniform(lo, hi, n)
    if signs:
        v *= rng.choice([-1.0, 1.0], n)
    fmax = float(np.finfo(dt).max)
    return np.clip(v, -fmax, fmax).astype(dt)


def spread(rng, dt, n=160):
    """Values across the whole range of dt: every binade, both signs."""
    fi = np.finfo(dt)
    return sample(rng, dt, n, float(fi.smallest_subnormal) * 4, float(fi.max) / 4, log=True)


@dataclass
class Case:
    fn: str
    gen: Callable  # (rng, dt) -> list of input arrays, one per argument
    ref: Callable  # float64 arrays -> float64 reference
    tol: dict  # dtype -> ulps
    dtypes: tuple = (F32, F64)


def unary(lo, hi, log=False, signs=True, extra=()):
    def gen(rng, dt):
        x = np.concatenate([sample(rng, dt, 200, lo, hi, log, signs), spread(rng, dt, 40),
                            edges(dt, *extra)])
        return [x]
    return gen


def pair(gx, gy):
    """Two independent argument generators, cut to the shorter length."""
    def gen(rng, dt):
        x, y = gx(rng, dt)[0], gy(rng, dt)[0]
        n = min(len(x), len(y))
        rng.shuffle(x)
        return [x[:n], y[:n]]
    return gen


def ref_exp10(x):
    return np.power(10.0, x)


def ref_cbrt(x):
    # np.cbrt itself is 1-2 ulp off for some float64 inputs (NumPy 2.4's
    # vectorised version, near 1e-219 say): one Newton step in long double
    # from its guess.
    y = np.cbrt(x)
    if np.asarray(x).dtype != np.float64:
        return y
    with np.errstate(all="ignore"):
        xl, yl = np.asarray(x, np.longdouble), np.asarray(y, np.longdouble)
        better = yl - (yl * yl * yl - xl) / (3 * yl * yl)
    return np.where(np.isfinite(better) & (y != 0), better.astype(np.float64), y)


def ref_rcbrt(x):
    with np.errstate(divide="ignore"):
        return 1.0 / ref_cbrt(x)


def ref_rsqrt(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


def quiet(f):
    def g(*a):
        with np.errstate(all="ignore"):
            return f(*a)
    return g


# tol: ulps of the result; float64 tolerances include the reference's own
# error (glibc's are within 1 ulp for these, 2 for the hyperbolic ones).
APPROX = [
    Case("exp", unary(0, 104), np.exp, {F32: 1, F64: 1.5}),
    Case("exp", unary(0, 750), np.exp, {F64: 1.5}, (F64,)),
    Case("exp2", unary(0, 150), np.exp2, {F32: 1, F64: 1.5}),
    Case("exp2", unary(0, 1080), np.exp2, {F64: 1.5}, (F64,)),
    Case("exp10", unary(0, 46), ref_exp10, {F32: 1, F64: 1.5}),
    Case("exp10", unary(0, 330), ref_exp10, {F64: 1.5}, (F64,)),
    Case("expm1", unary(1e-20, 100, log=True), np.expm1, {F32: 1, F64: 1.5}),
    Case("log", unary(1e-300, 1e300, log=True, extra=(1 + 2**-20, 1 - 2**-20)), np.log,
         {F32: 1, F64: 1.5}),
    Case("log2", unary(1e-300, 1e300, log=True, extra=(1024.0, 2**-60)), np.log2,
         {F32: 1, F64: 1.5}),
    Case("log10", unary(1e-300, 1e300, log=True, extra=(1000.0, 1e-5)), np.log10,
         {F32: 1, F64: 1.5}),
    Case("log1p", unary(1e-20, 1e20, log=True, extra=(-1.0, -1 + 2**-20, -2.0)), np.log1p,
         {F32: 1, F64: 1.5}),
    Case("sinh", unary(1e-10, 720, log=True), np.sinh, {F32: 1, F64: 3}),
    Case("cosh", unary(1e-10, 720, log=True), np.cosh, {F32: 1, F64: 3}),
    Case("tanh", unary(1e-10, 30, log=True), np.tanh, {F32: 1, F64: 3}),
    Case("asinh", unary(1e-10, 1e300, log=True), np.arcsinh, {F32: 1, F64: 3}),
    Case("acosh", unary(1, 1e300, log=True, signs=False, extra=(1 + 2**-40, 0.999)), np.arccosh,
         {F32: 1, F64: 3}),
    Case("atanh", unary(-1, 1, extra=(1 - 2**-30, 1e-30, 1.5)), np.arctanh, {F32: 1, F64: 3}),
    Case("cbrt", unary(1e-300, 1e300, log=True, extra=(27.0, -8.0, 1e-310)), ref_cbrt,
         {F32: 1, F64: 1.5}),
    Case("rcbrt", unary(1e-300, 1e300, log=True, extra=(27.0, -8.0)), ref_rcbrt,
         {F32: 1, F64: 2}),
    Case("rsqrt", unary(1e-300, 1e300, log=True, signs=False, extra=(4.0, 1e-310)), ref_rsqrt,
         {F32: 1, F64: 1.5}),
    Case("sqrt", unary(1e-300, 1e300, log=True, signs=False), quiet(np.sqrt), {F32: 0.5, F64: 0}),
    Case("pow", pair(unary(1e-3, 1e3, log=True, signs=False), unary(0, 30)), np.power,
         {F32: 1, F64: 1.5}),
    Case("pow", pair(unary(1e-30, 1e30, log=True), unary(0, 300)), np.power,
         {F64: 1.5}, (F64,)),
]



def near_multiples(lo, hi):
    """Arguments next to multiples of pi/2, where the reduction cancels."""
    def gen(rng, dt):
        k = np.exp(rng.uniform(np.log(lo), np.log(hi), 120)).round()
        x = (k * (np.pi / 2)).astype(dt)
        return [np.concatenate([x, unary(0, 10)(rng, dt)[0]])]
    return gen


def ref_sinpi(x, cos=False):
    r = np.fmod(x, 2.0)  # exact
    n = np.rint(2 * r)
    t = r - n / 2  # exact, |t| <= 1/4
    s, c = np.sin(np.pi * t), np.cos(np.pi * t)
    q = (n.astype(np.int64) + (1 if cos else 0)) % 4
    out = np.select([q == 0, q == 1, q == 2, q == 3], [s, c, -s, -c])
    if cos:
        return np.where(out == 0, 0.0, out)
    return np.where(t == 0, np.copysign(0.0, x), out)


def ref_norm(*xs, reciprocal=False):
    a = np.abs(np.stack(xs))
    m = a.max(axis=0)
    with np.errstate(all="ignore"):
        s = np.sqrt(((a / np.where(m == 0, 1, m)) ** 2).sum(axis=0))
        r = (1.0 / m) / s if reciprocal else m * s
    r = np.where(np.isnan(a).any(axis=0), np.nan, r)
    return np.where(np.isinf(a).any(axis=0), 0.0 if reciprocal else np.inf, r)


def ref_rnorm(*xs):
    return ref_norm(*xs, reciprocal=True)


def norm_args(n):
    def gen(rng, dt):
        args = [np.concatenate([sample(rng, dt, 200, 1e-3, 1e3, log=True), spread(rng, dt, 40),
                                np.roll(edges(dt), i)]) for i in range(n)]
        return args
    return gen


def atan2_args(rng, dt):
    x = unary(1e-30, 1e30, log=True)(rng, dt)[0]
    y = unary(1e-30, 1e30, log=True)(rng, dt)[0]
    rng.shuffle(y)
    e = edges(dt)
    return [np.concatenate([y, np.repeat(e, len(e))]), np.concatenate([x, np.tile(e, len(e))])]


# The reference's error is about 1 ulp here (pi t rounds): float64 tolerance 3.
APPROX += [
    Case("sin", unary(0, 10), np.sin, {F32: 1, F64: 1.5}),
    Case("sin", unary(1, 3e38, log=True), np.sin, {F32: 1, F64: 1.5}),
    Case("sin", unary(1, 1e308, log=True), np.sin, {F64: 1.5}, (F64,)),
    Case("sin", near_multiples(1, 2**60), np.sin, {F32: 1, F64: 1.5}),
    Case("cos", unary(0, 10), np.cos, {F32: 1, F64: 1.5}),
    Case("cos", unary(1, 1e308, log=True), np.cos, {F32: 1, F64: 1.5}),
    Case("cos", near_multiples(1, 2**19), np.cos, {F32: 1, F64: 1.5}),
    Case("tan", unary(0, 10), np.tan, {F32: 1, F64: 1.5}),
    Case("tan", unary(1, 1e308, log=True), np.tan, {F32: 1, F64: 1.5}),
    Case("tan", near_multiples(1, 2**60), np.tan, {F32: 1, F64: 1.5}),
    Case("sinpi", unary(0, 100, extra=(4.0, -3.0, 0.25, 2.0**53 + 2, 1e300)), ref_sinpi,
         {F32: 1, F64: 3}),
    Case("cospi", unary(0, 100, extra=(4.5, -3.5, 0.25, 2.0**52 + 1, 1e300)),
         lambda x: ref_sinpi(x, cos=True), {F32: 1, F64: 3}),
    Case("asin", unary(0, 1, extra=(1 - 2**-40, 1.5)), np.arcsin, {F32: 1, F64: 1.5}),
    Case("acos", unary(0, 1, extra=(1 - 2**-40, -1 + 2**-40, 1.5)), np.arccos,
         {F32: 1, F64: 1.5}),
    Case("atan", unary(1e-30, 1e30, log=True), np.arctan, {F32: 1, F64: 1.5}),
    Case("atan2", atan2_args, np.arctan2, {F32: 1, F64: 1.5}),
    Case("hypot", norm_args(2), np.hypot, {F32: 1, F64: 1.5}),
    Case("rhypot", norm_args(2), ref_rnorm, {F32: 1, F64: 2}),
    Case("norm3d", norm_args(3), ref_norm, {F32: 1, F64: 3}),
    Case("rnorm3d", norm_args(3), ref_rnorm, {F32: 1, F64: 3}),
    Case("norm4d", norm_args(4), ref_norm, {F32: 1, F64: 3}),
    Case("rnorm4d", norm_args(4), ref_rnorm, {F32: 1, F64: 3}),
]



def vec(f):
    """A scalar function of the math module over float64 arrays (NaN where
    it raises ValueError, infinity with the argument's sign on overflow)."""
    def g(*arrays):
        out = []
        for vals in zip(*(a.tolist() for a in arrays)):
            try:
                out.append(f(*vals))
            except ValueError:
                out.append(math.nan)
            except OverflowError:
                out.append(math.copysign(math.inf, vals[0]))
        return np.array(out, dtype=F64)
    return g


def split_product(a, b):
    """a * b as an unevaluated sum hi + lo (Dekker), float64 arrays."""
    def split(x):
        c = x * 134217729.0
        hi = c - (c - x)
        return hi, x - hi
    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def ref_erfcx(x):
    """e^(x^2) erfc(x): x^2 in two parts so that e^(x^2) keeps its digits;
    the asymptotic series past 25."""
    with np.errstate(all="ignore"):
        hi, lo = split_product(x, x)
        direct = np.exp(hi) * (1 + lo) * vec(math.erfc)(x)
        s = 0.5 / (x * x)
        series = np.ones_like(x)
        for k in range(12, 0, -1):  # sum (-1)^k (2k-1)!! s^k, to 2^-60 past 25
            series = 1 - (2 * k - 1) * s * series
        asym = series / x / math.sqrt(math.pi)
    return np.where(x > 25, asym, np.where(x < -26.7, np.inf, direct))


def ref_normcdf(x):
    """erfc(-x / sqrt 2) / 2 with the argument's rounding error corrected:
    erfc(z + dz) = erfc(z) - dz (2/sqrt(pi)) e^(-z^2)."""
    zh, zl = split_product(-x, np.full_like(x, math.sqrt(0.5)))
    zl = zl + x * 4.833646656726457e-17  # -x (sqrt(1/2) - float64(sqrt(1/2)))
    with np.errstate(all="ignore"):
        r = 0.5 * (vec(math.erfc)(zh) - zl * (2 / math.sqrt(math.pi)) * np.exp(-zh * zh))
    return np.where(np.abs(x) > 60, np.where(x > 0, 1.0, 0.0), r)


def newton_inverse(f, df, x0, target, steps=3):
    x = x0
    with np.errstate(all="ignore"):
        for _ in range(steps):
            x = x - (f(x) - target) / df(x)
    return x


def ref_erfinv(y):
    """statistics.NormalDist's inverse (Wichura's AS241, about 1e-16) polished
    by Newton's method on erf (on erfc toward +-1)."""
    from statistics import NormalDist

    inv = np.vectorize(lambda p: NormalDist().inv_cdf(p) if 0 < p < 1 else math.nan)
    a = np.abs(y)
    with np.errstate(all="ignore"):
        x0 = -inv((1 - a) / 2) / math.sqrt(2)
        dpos = lambda x: (2 / math.sqrt(math.pi)) * np.exp(-x * x)
        central = newton_inverse(vec(math.erf), dpos, x0, a)
        tail = newton_inverse(vec(math.erfc), lambda x: -dpos(x), x0, 1 - a)
    r = np.copysign(np.where(a < 0.5, central, tail), y)
    r = np.where(a == 1, np.copysign(np.inf, y), r)
    return np.where(y == 0, y, r)


def ref_erfcinv(w):
    from statistics import NormalDist

    inv = np.vectorize(lambda p: NormalDist().inv_cdf(p) if 0 < p < 1 else math.nan)
    with np.errstate(all="ignore"):
        x0 = -inv(w / 2) / math.sqrt(2)
        # Newton on ln erfc: (ln erfc)' = -(2/sqrt(pi)) / erfcx.
        x = newton_inverse(lambda x: np.log(vec(math.erfc)(x)),
                           lambda x: -(2 / math.sqrt(math.pi)) / ref_erfcx(x), x0, np.log(w))
    r = np.where(np.abs(1 - w) < 0.5, ref_erfinv(1 - w), x)
    return np.where(w == 0, np.inf, np.where(w == 2, -np.inf, r))


def ref_normcdfinv(p):
    return -math.sqrt(2) * ref_erfcinv(2 * p)


def ref_lgamma(x):
    pole = (x <= 0) & (np.floor(x) == x)
    return np.where(pole, np.inf, vec(math.lgamma)(x))


def ref_tgamma(x):
    pole = (x < 0) & (np.floor(x) == x)
    r = np.where(x == 0, np.copysign(np.inf, x), vec(math.gamma)(x))
    return np.where(pole, np.nan, np.where(x == np.inf, np.inf, r))


def lgamma_args(rng, dt):
    """Away from the negative zeros of lgamma, where libdevice's bound does
    not hold either (-11.0001 < x < -2.2637); and for float64 away from the
    zeros 1 and 2, where glibc's lgamma (the reference) loses its digits
    (from 0.5 to 3.2; test_float64_against_mpmath covers them)."""
    near = (lambda lo, hi: sample(rng, dt, 40, lo, hi, signs=False)) if dt == F32 else (
        lambda lo, hi: np.zeros(0, dt))
    x = np.concatenate([sample(rng, dt, 120, 1e-3, 30, signs=False), near(0.8, 1.2),
                        near(1.8, 2.2),
                        sample(rng, dt, 30, 11.0001, 40, signs=False) * -1,
                        sample(rng, dt, 30, 1e-30, 2.2637, log=True, signs=False) * -1,
                        sample(rng, dt, 30, 30, 1e30, log=True, signs=False),
                        edges(dt, -3.0, -20.0, 1.0, 2.0, 3.0)])
    if dt == F64:
        x = x[(x < 0.5) | (x > 3.2) | (x == 1) | (x == 2)]
    return [x.astype(dt)]


def tgamma_args(rng, dt):
    hi = 171 if dt == F64 else 35
    x = np.concatenate([sample(rng, dt, 200, 1e-3, hi), sample(rng, dt, 30, 1e-30, 1e-3, log=True),
                        edges(dt, -3.0, -20.0, 1.0, 2.0, 3.0, 172.0, -190.5)])
    return [x.astype(dt)]


def erfinv_args(rng, dt):
    y = np.concatenate([sample(rng, dt, 150, 0, 1), 1 - sample(rng, dt, 60, 1e-16, 0.5, log=True,
                        signs=False), edges(dt, 0.5, -0.5, 0.999, 1 - 2**-30, 1e-30)])
    return [y.astype(dt)]


def erfcinv_args(rng, dt):
    # Not below 1e-300: the reference's erfc loses its digits there.
    lo = 1e-300 if dt == F64 else 1e-37
    w = np.concatenate([sample(rng, dt, 150, lo, 2, log=True, signs=False),
                        sample(rng, dt, 60, 0, 2, signs=False),
                        np.array([0, -0.0, 2, np.inf, np.nan, 1, 0.5, 1.5, 1e-30, 1.75, -1, 3], dt)])
    return [w.astype(dt)]


def normcdfinv_args(rng, dt):
    lo = 1e-300 if dt == F64 else 1e-37
    p = np.concatenate([sample(rng, dt, 150, lo, 1, log=True, signs=False),
                        sample(rng, dt, 60, 0, 1, signs=False),
                        np.array([0, -0.0, 1, np.inf, np.nan, 0.5, 0.75, 1e-30, -1, 2], dt)])
    return [p.astype(dt)]


# float64 tolerances: libdevice's bounds (erf 2, erfc 5, erfcx 4, normcdf 5,
# erfinv 5, erfcinv 6, normcdfinv 8, lgamma 4, tgamma 10 ulp) where the
# reference's own error (up to about 2 ulp here) leaves room.
APPROX += [
    Case("erf", unary(0, 6, extra=(0.5, 1e-300)), vec(math.erf), {F32: 1, F64: 2}),
    Case("erfc", unary(0, 27), vec(math.erfc), {F32: 1, F64: 5}),
    Case("erfcx", unary(0, 30, extra=(1e10, 1e300, -26.0, -27.0)), ref_erfcx, {F32: 1, F64: 5}),
    Case("normcdf", unary(0, 38), ref_normcdf, {F32: 1, F64: 5}),
    Case("erfinv", erfinv_args, ref_erfinv, {F32: 1, F64: 5}),
    Case("erfcinv", erfcinv_args, ref_erfcinv, {F32: 1, F64: 6}),
    Case("normcdfinv", normcdfinv_args, ref_normcdfinv, {F32: 1, F64: 8}),
    # glibc's lgamma errs by up to 8 ulp (the mpmath test holds ours to 4).
    Case("lgamma", lgamma_args, ref_lgamma, {F32: 1, F64: 12}),
    Case("tgamma", tgamma_args, ref_tgamma, {F32: 1, F64: 10}),
    Case("rsqrt_rn", unary(1e-38, 3e38, log=True, signs=False, extra=(4.0,)), ref_rsqrt,
         {F32: 0.5}, (F32,)),
]



def ref_besseli(x, n):
    """I_n by the trapezoid rule on (1/pi) int_0^pi e^(x cos t) cos(n t) dt
    (spectrally accurate for a periodic integrand), scaled by e^|x|: about
    1e-14 relative for |x| >= 1, enough for float32 (and, with a wide
    tolerance, float64; the mpmath test holds float64 to libdevice's 6)."""
    a = np.abs(x)[:, None]
    t = np.linspace(0, np.pi, 4097)
    w = np.full(len(t), 1.0)
    w[0] = w[-1] = 0.5
    with np.errstate(all="ignore"):
        s = (np.exp(a * (np.cos(t) - 1)) * np.cos(n * t) * w).sum(axis=1) / 4096
        r = np.exp(np.abs(x) + np.log(s))
    r = np.where(np.isinf(x), np.inf, r)
    if n == 1:  # the series below 1, where the integral cancels
        y = (x / 2) ** 2
        series = sum(y ** k / (math.factorial(k) * math.factorial(k + 1)) for k in range(12))
        r = np.where(np.abs(x) < 1, x / 2 * series, np.copysign(r, x))
    return np.where(np.isnan(x), x, r)


def ref_besseli0(x):
    with np.errstate(all="ignore"):
        return np.where(np.abs(x) < 700, np.i0(np.where(np.abs(x) < 700, x, 0)), ref_besseli(x, 0))


def besseli_args(rng, dt):
    hi = 700 if dt == F64 else 90  # np.i0 overflows early
    x = np.concatenate([sample(rng, dt, 150, 0, 40), sample(rng, dt, 60, 40, hi),
                        np.array([0, -0.0, np.inf, -np.inf, np.nan, 1, -1, 30, 31, 1e-30], dt)])
    return [x.astype(dt)]


# float64 i1 has no NumPy reference good to a few ulp: the mpmath test.
APPROX += [
    Case("cyl_bessel_i0", besseli_args, ref_besseli0, {F32: 1, F64: 9}),
    Case("cyl_bessel_i1", besseli_args, lambda x: ref_besseli(x, 1), {F32: 1}, (F32,)),
]


def case_id(c, dt):
    return f"{c.fn}-{dt.name}"


@pytest.mark.parametrize("case,dt", [(c, d) for c in APPROX for d in c.dtypes],
                         ids=[case_id(c, d) for c in APPROX for d in c.dtypes])
def test_approximate(case, dt, rng):
    check_approximate(case, dt, rng)


def check_approximate(case, dt, rng, device="cpu"):
    args = case.gen(rng, dt)
    got = launch(case.fn, args, dt, device)
    ref = quiet(case.ref)(*[a.astype(F64) for a in args])
    assert_within(case.fn, dt, args, got, ref, case.tol[dt])


# ---------------------------------------------------------------------------- exact functions


def ref_round(x):
    t = np.trunc(x)
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


def ref_ilogb(x):
    with np.errstate(all="ignore"):
        e = (np.frexp(x)[1] - 1).astype(np.int64)
    e = np.where((x == 0) | np.isnan(x), np.iinfo(np.int32).min, e)
    return np.where(np.isinf(x), np.iinfo(np.int32).max, e).astype(np.int32)


def ref_logb(x):
    with np.errstate(all="ignore"):
        e = (np.frexp(x)[1] - 1).astype(F64)
    e = np.where(x == 0, -np.inf, e)
    return np.where(np.isinf(x) | np.isnan(x), np.abs(x), e)


def ref_fdim(x, y):
    r = np.where(x > y, x - y, 0.0)
    return np.where(np.isnan(x) | np.isnan(y), np.nan, r)


def ref_remainder(x, y):
    out = []
    for a, b in zip(x.tolist(), y.tolist()):
        try:
            out.append(math.remainder(a, b))
        except ValueError:
            out.append(math.nan)
    return np.array(out)


def ref_saturate(x):
    return np.where(x > 0, np.minimum(x, 1.0), 0.0)


def ref_fma(x, y, z):
    return np.array([fraction_round(Fraction(a) * Fraction(b) + Fraction(c), x.dtype, "rn",
                                    specials=a * b + c)
                     for a, b, c in zip(x.tolist(), y.tolist(), z.tolist())])


def ref_ldexp(x, n):
    return np.ldexp(x, n)


def wide_sample(rng, dt):
    """Values of every magnitude, integers and half-integers among them."""
    x = np.concatenate([spread(rng, dt, 120), sample(rng, dt, 80, 0, 10),
                        np.round(sample(rng, dt, 40, 0, 100) * 2) / 2, edges(dt, 2.5, -2.5, 3.5)])
    return x.astype(dt)


def exact_unary(rng, dt):
    return [wide_sample(rng, dt)]


def exact_pair(rng, dt):
    x, y = wide_sample(rng, dt), wide_sample(rng, dt)
    rng.shuffle(y)
    # Some pairs of close magnitude, where fmod and nextafter do the most.
    y[:40] = (x[:40] * sample(rng, dt, 40, 0.01, 3).astype(F64)).astype(dt)
    return [x, y]


def exact_ldexp(rng, dt):
    x = wide_sample(rng, dt)
    n = rng.integers(-1200 if dt == F64 else -300, 1200 if dt == F64 else 300, len(x))
    n[:8] = [0, 1, -1, 10000, -10000, 2**31 - 1, -2**31, 5]
    return [x, n.astype(np.int32)]


@dataclass
class Exact:
    fn: str
    gen: Callable
    ref: Callable
    out: dict | None = None  # dtype -> result dtype (default: the input's)
    dtypes: tuple = (F32, F64)


EXACT = [
    Exact("floor", exact_unary, np.floor),
    Exact("ceil", exact_unary, np.ceil),
    Exact("trunc", exact_unary, np.trunc),
    Exact("round", exact_unary, ref_round),
    Exact("rint", exact_unary, np.rint),
    Exact("nearbyint", exact_unary, np.rint),
    Exact("abs", exact_unary, np.abs),
    Exact("copysign", exact_pair, np.copysign),
    Exact("fdim", exact_pair, ref_fdim),
    Exact("fmod", exact_pair, quiet(np.fmod)),
    Exact("remainder", exact_pair, ref_remainder),
    Exact("nextafter", exact_pair, None),  # reference in the dtype itself, below
    Exact("ldexp", exact_ldexp, quiet(ref_ldexp)),
    Exact("scalbn", exact_ldexp, quiet(ref_ldexp)),
    Exact("ilogb", exact_unary, ref_ilogb, {F32: I32, F64: I32}),
    Exact("logb", exact_unary, ref_logb),
    Exact("saturatef", exact_unary, ref_saturate, dtypes=(F32,)),
    Exact("isnan", exact_unary, np.isnan, {F32: np.dtype(bool), F64: np.dtype(bool)}),
    Exact("isinf", exact_unary, np.isinf, {F32: np.dtype(bool), F64: np.dtype(bool)}),
    Exact("signbit", exact_unary, np.signbit, {F32: I32, F64: I32}),
    Exact("finitef", exact_unary, np.isfinite, {F32: I32}, (F32,)),
    Exact("isfinited", exact_unary, np.isfinite, {F64: I32}, (F64,)),
]


@pytest.mark.parametrize("case,dt", [(c, d) for c in EXACT for d in c.dtypes],
                         ids=[case_id(c, d) for c in EXACT for d in c.dtypes])
def test_exact(case, dt, rng):
    check_exact(case, dt, rng)


def check_exact(case, dt, rng, device="cpu"):
    args = case.gen(rng, dt)
    out_dt = (case.out or {}).get(dt, dt)
    got = launch(case.fn, args, out_dt, device)
    if case.fn == "nextafter":
        ref = np.nextafter(args[0], args[1])
    else:
        ref = quiet(case.ref)(*[a.astype(F64) if a.dtype.kind == "f" else a for a in args])
    assert_exact(case.fn, args, got, ref)


# ---------------------------------------------------------------------------- integers


def as_signed(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def int_sample(rng, dt, n=200):
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    small = rng.integers(max(info.min, -300), 300, 40).astype(dt)
    powers = np.array([1 << int(rng.integers(0, info.bits - 1)) for _ in range(20)], dtype=dt)
    fixed = np.array([0, 1, int(info.max), int(info.min), int(info.max) - 1, 2, 3, 255, 256], dtype=dt)
    return np.concatenate([x, small, powers, fixed])


def bits_of(v, dt):
    return int(v) & ((1 << (8 * dt.itemsize)) - 1)


def ref_clz(x, dt):
    b = 8 * dt.itemsize
    return b - bits_of(x, dt).bit_length()


def ref_ffs(x, dt):
    u = bits_of(x, dt)
    return (u & -u).bit_length()


def ref_brev(x, dt):
    b = 8 * dt.itemsize
    return as_signed(int(format(bits_of(x, dt), f"0{b}b")[::-1], 2), b)


def ref_byte_perm(x, y, s):
    v = (bits_of(y, I32) << 32) | bits_of(x, I32)
    r = 0
    for n in range(4):
        sel = (int(s) >> (4 * n)) & 7
        r |= ((v >> (8 * sel)) & 0xFF) << (8 * n)
    return as_signed(r, 32)


def ref_mulhi(x, y, dt):
    b = 8 * dt.itemsize
    r = (int(x) * int(y)) >> b
    return as_signed(r, b) if dt.kind == "i" else r & ((1 << b) - 1)


def ref_mul24(x, y, dt):
    if dt.kind == "i":
        a, c = as_signed(int(x), 24), as_signed(int(y), 24)
        return as_signed(a * c, 32)
    return ((int(x) & 0xFFFFFF) * (int(y) & 0xFFFFFF)) & 0xFFFFFFFF


def ref_sad(x, y, z, dt):
    r = abs(int(x) - int(y)) + int(z)
    return as_signed(r, 32) if dt.kind == "i" else r & 0xFFFFFFFF


@dataclass
class IntCase:
    fn: str
    sigs: list  # [(argument dtypes, result dtype)]
    ref: Callable  # (python ints..., first argument dtype) -> python int


INT_CASES = [
    IntCase("clz", [((I32,), I32), ((I64,), I32)], ref_clz),
    IntCase("popc", [((I32,), I32), ((I64,), I32)], lambda x, dt: bin(bits_of(x, dt)).count("1")),
    IntCase("ffs", [((I32,), I32), ((I64,), I32)], ref_ffs),
    IntCase("brev", [((I32,), I32), ((I64,), I64)], ref_brev),
    IntCase("byte_perm", [((I32, I32, I32), I32)], lambda x, y, s, dt: ref_byte_perm(x, y, s)),
    IntCase("mulhi", [((I32, I32), I32), ((U32, U32), U32), ((I64, I64), I64), ((U64, U64), U64)],
            ref_mulhi),
    IntCase("mul24", [((I32, I32), I32), ((U32, U32), U32)], ref_mul24),
    IntCase("sad", [((I32, I32, U32), I32), ((U32, U32, U32), U32)], ref_sad),
    IntCase("hadd", [((I32, I32), I32), ((U32, U32), U32)], lambda x, y, dt: (int(x) + int(y)) >> 1),
    IntCase("rhadd", [((I32, I32), I32), ((U32, U32), U32)],
            lambda x, y, dt: (int(x) + int(y) + 1) >> 1),
    IntCase("abs", [((I32,), I32), ((I64,), I64)],
            lambda x, dt: as_signed(abs(int(x)), 8 * dt.itemsize)),
]


@pytest.mark.parametrize("case,sig", [(c, s) for c in INT_CASES for s in c.sigs],
                         ids=[f"{c.fn}-{'-'.join(d.name for d in s[0])}"
                              for c in INT_CASES for s in c.sigs])
def test_integer(case, sig, rng):
    check_integer(case, sig, rng)


def check_integer(case, sig, rng, device="cpu"):
    arg_dts, out_dt = sig
    args = [int_sample(rng, d) for d in arg_dts]
    n = min(len(a) for a in args)
    args = [a[:n] for a in args]
    for a in args[1:]:
        rng.shuffle(a)
    got = launch(case.fn, args, out_dt, device)
    ref = np.array([case.ref(*vals, arg_dts[0]) for vals in zip(*(a.tolist() for a in args))],
                   dtype=object).astype(out_dt)
    assert_exact(case.fn, args, got, ref)


# ---------------------------------------------------------------------------- rounding directions


def fraction_round(q, dt, mode, specials=None):
    """The float of dtype dt nearest the rational q in direction mode (rn,
    rz, rd, ru), with IEEE overflow; `specials` (a float) is returned as it
    is when it is not finite (NaN and infinite operands)."""
    if specials is not None and not math.isfinite(specials):
        return specials
    fmax = Fraction(float(np.finfo(dt).max))
    if abs(q) > fmax:
        ulp = Fraction(2) ** (np.finfo(dt).maxexp - 1 - np.finfo(dt).nmant)
        sign = 1 if q > 0 else -1
        to_inf = {"rn": abs(q) >= fmax + ulp / 2, "rz": False, "rd": sign < 0, "ru": sign > 0}[mode]
        return sign * (math.inf if to_inf else float(fmax))
    def up(c):
        with np.errstate(over="ignore"):
            return np.nextafter(c, dt.type(np.inf))

    c = dt.type(float(q))  # a neighbour of q, perhaps not the nearest
    while Fraction(float(c)) > q:
        c = np.nextafter(c, dt.type(-np.inf))
    while math.isfinite(up(c)) and Fraction(float(up(c))) <= q:
        c = up(c)
    lo = c
    hi = lo if Fraction(float(lo)) == q else up(lo)
    if mode == "rd":
        return float(lo)
    if mode == "ru":
        return float(hi)
    if mode == "rz":
        return float(lo if q > 0 else hi)
    dlo, dhi = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if dlo != dhi:
        return float(lo if dlo < dhi else hi)
    bits = lo.view(np.int32 if dt == F32 else np.int64)
    return float(lo if bits % 2 == 0 else hi)


def exact_zero_sign(mode, plus_zero_addends):
    """The sign of an exact zero sum: -0 rounding down, unless both addends
    are +0; otherwise +0 unless both addends are -0 (IEEE 754 6.3)."""
    return 0.0 if plus_zero_addends else -0.0


def ref_rounded(op, mode, dt):
    def one(*v):
        fx = [Fraction(a) if math.isfinite(a) else None for a in v]
        with np.errstate(all="ignore"):
            special = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
                       "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
                       "rcp": lambda a: 1.0 / a, "fma": lambda a, b, c: a * b + c,
                       "sqrt": lambda a: np.sqrt(a)}[op](*(np.float64(a) for a in v))
        if any(f is None for f in fx) or (op in ("div", "rcp") and v[-1] == 0) or (
                op == "sqrt" and v[0] <= 0):
            return float(special)
        if op == "sqrt":
            return sqrt_rounded(fx[0], dt, mode)
        q = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
             "div": lambda a, b: a / b, "rcp": lambda a: 1 / a,
             "fma": lambda a, b, c: a * b + c}[op](*fx)
        if q != 0:
            return fraction_round(q, dt, mode)
        # An exact zero: the sign rules of IEEE 754.
        if op in ("mul", "div", "rcp"):
            return float(special)
        if op == "fma":
            terms = [math.copysign(1, v[0]) * math.copysign(1, v[1]) * (0.0 if v[0] * v[1] == 0
                                                                        else 1.0), v[2]]
            prod_zero = v[0] == 0 or v[1] == 0
            prod_sign = math.copysign(1, v[0]) * math.copysign(1, v[1])
            if prod_zero and v[2] == 0:
                both_minus = prod_sign < 0 and math.copysign(1, v[2]) < 0
                both_plus = prod_sign > 0 and math.copysign(1, v[2]) > 0
                if mode == "rd":
                    return 0.0 if both_plus else -0.0
                return -0.0 if both_minus else 0.0
            del terms
            return -0.0 if mode == "rd" else 0.0
        a, b = v[0], (v[1] if op == "add" else -v[1])
        if a == 0 and b == 0:
            sa, sb = math.copysign(1, a), math.copysign(1, b)
            if mode == "rd":
                return 0.0 if sa > 0 and sb > 0 else -0.0
            return -0.0 if sa < 0 and sb < 0 else 0.0
        return -0.0 if mode == "rd" else 0.0

    def ref(*arrays):
        return np.array([one(*vals) for vals in zip(*(a.tolist() for a in arrays))])
    return ref


def sqrt_rounded(x, dt, mode):
    c = dt.type(math.sqrt(float(x)))  # within an ulp of the root
    while Fraction(float(c)) ** 2 > x:
        c = np.nextafter(c, dt.type(0))
    while Fraction(float(np.nextafter(c, dt.type(np.inf)))) ** 2 <= x:
        c = np.nextafter(c, dt.type(np.inf))
    lo = c
    if Fraction(float(lo)) ** 2 == x:
        return float(lo)
    hi = np.nextafter(lo, dt.type(np.inf))
    if mode in ("rd", "rz"):
        return float(lo)
    if mode == "ru":
        return float(hi)
    mid = (Fraction(float(lo)) + Fraction(float(hi))) / 2  # never a tie: irrational root
    return float(lo if mid * mid > x else hi)


def arith_sample(rng, dt, n=96):
    """Operands whose sums, products and quotients cancel, tie, overflow and
    underflow."""
    fi = np.finfo(dt)
    x = np.concatenate([sample(rng, dt, n // 2, 0.5, 4), spread(rng, dt, n // 4),
                        sample(rng, dt, n // 4, float(fi.max) / 8, float(fi.max), log=True)])
    return x


def rounded_args(op):
    nargs = {"rcp": 1, "sqrt": 1, "fma": 3}.get(op, 2)

    def gen(rng, dt):
        args = [arith_sample(rng, dt) for _ in range(nargs)]
        for a in args[1:]:
            rng.shuffle(a)
        if nargs >= 2:  # exact cancellations and ties
            args[1][:6] = -args[0][:6] if op != "sub" else args[0][:6]
            args[1][6:10] = (args[0][6:10].astype(F64) * 2.0 ** -(np.finfo(dt).nmant + 1)).astype(dt)
        e = edges(dt)
        args = [np.concatenate([a, np.roll(e, i)]) for i, a in enumerate(args)]
        if op == "sqrt":
            args[0] = np.abs(args[0])
        return args
    return gen


ROUNDED = [(op, mode) for op in ("add", "sub", "mul", "div", "rcp", "sqrt", "fma")
           for mode in ("rn", "rz", "rd", "ru")]


@pytest.mark.parametrize("op,mode,dt", [(o, m, d) for o, m in ROUNDED for d in (F32, F64)],
                         ids=[f"{o}_{m}-{d.name}" for o, m in ROUNDED for d in (F32, F64)])
def test_rounding_direction(op, mode, dt, rng):
    check_rounding_direction(op, mode, dt, rng)


def check_rounding_direction(op, mode, dt, rng, device="cpu"):
    args = rounded_args(op)(rng, dt)
    got = launch(f"{op}_{mode}", args, dt, device)
    ref = ref_rounded(op, mode, dt)(*args)
    assert_exact(f"{op}_{mode}", args, got, ref)


# ---------------------------------------------------------------------------- conversions

ROUND_INT = {"rn": lambda q: round(q), "rz": lambda q: math.trunc(q), "rd": math.floor,
             "ru": math.ceil, "away": lambda q: math.floor(q + Fraction(1, 2)) if q >= 0
             else -math.floor(-q + Fraction(1, 2))}


def ref_float_to_int(mode, target, out_dt):
    """Rounded in `mode`, saturated to `target`'s range, NaN -> 0, given as
    the bits of `out_dt` (Triton types unsigned results as signed)."""
    info = np.iinfo(target)

    def one(v):
        if math.isnan(v):
            return 0
        if math.isinf(v):
            r = int(info.max) if v > 0 else int(info.min)
        else:
            r = min(max(ROUND_INT[mode](Fraction(v)), int(info.min)), int(info.max))
        return as_signed(r, 8 * out_dt.itemsize) if out_dt.kind == "i" else r

    def ref(x):
        return np.array([one(v) for v in x.tolist()], dtype=object).astype(out_dt)
    return ref


def ref_int_to_float(mode, out_dt):
    def ref(x):
        return np.array([fraction_round(Fraction(int(v)), out_dt, mode) for v in x.tolist()])
    return ref


def ref_double_to_float(mode):
    def ref(x):
        return np.array([fraction_round(Fraction(v), F32, mode)
                         if math.isfinite(v) and v != 0 else v for v in x.tolist()])
    return ref


def float_to_int_args(src, target):
    def gen(rng):
        lim = 2.0 ** (8 * np.dtype(target).itemsize + 1)
        x = np.concatenate([sample(rng, src, 80, 0, lim), sample(rng, src, 40, 0, 300),
                            np.round(sample(rng, src, 40, 0, 50) * 2) / 2, spread(rng, src, 30),
                            edges(src, 2.5, -2.5, 3.5, -3.5, 2.0**31, -2.0**31, 2.0**32, 2.0**63,
                                  -2.0**63, 2.0**64, 4294967295.5)])
        return [x.astype(src)]
    return gen


def int_to_float_args(src):
    def gen(rng):
        x = int_sample(rng, src)
        # Integers just past a float's precision: ties and near-ties.
        bits = 8 * src.itemsize
        odd = [(1 << 25) + 1, (1 << 25) + 2, (1 << 25) + 3, (1 << 54) + 1, (1 << 54) + 2,
               (1 << 54) + 3]
        odd = [v for v in odd if v < (1 << (bits - 1))]
        return [np.concatenate([x, np.array(odd, dtype=src)]).astype(src)]
    return gen


CONVERSIONS = []  # (name, argument generator, reference, result dtype)
for m in ("rn", "rz", "rd", "ru"):
    for src, sname in ((F32, "float"), (F64, "double")):
        for target, tname, out in ((I32, "int", I32), (U32, "uint", I32), (I64, "ll", I64),
                                   (U64, "ull", I64)):
            CONVERSIONS.append((f"{sname}2{tname}_{m}", float_to_int_args(src, target),
                                ref_float_to_int(m, target, out), out))
    CONVERSIONS.append((f"double2float_{m}", lambda rng: [np.concatenate(
        [spread(rng, F64, 120), sample(rng, F64, 60, 1, 2),
         np.array([3.4028235677973366e38, 3.4028235e38, 1.5e-45, 7e-46, 1e-46, 3.5e38],
                  dtype=F64), edges(F64)])], ref_double_to_float(m), F32))
    for src, sname, dst in ((I32, "int2float", F32), (U32, "uint2float", F32),
                            (I64, "ll2float", F32), (U64, "ull2float", F32),
                            (I64, "ll2double", F64), (U64, "ull2double", F64)):
        CONVERSIONS.append((f"{sname}_{m}", int_to_float_args(src), ref_int_to_float(m, dst), dst))
for src, name in ((I32, "int2double_rn"), (U32, "uint2double_rn")):
    CONVERSIONS.append((name, int_to_float_args(src), ref_int_to_float("rn", F64), F64))
for src in (F32, F64):
    CONVERSIONS.append(("llrint", float_to_int_args(src, I64), ref_float_to_int("rn", I64, I64), I64))
    CONVERSIONS.append(("llround", float_to_int_args(src, I64), ref_float_to_int("away", I64, I64),
                        I64))


@pytest.mark.parametrize("name,gen,ref,out", CONVERSIONS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CONVERSIONS)])
def test_conversion(name, gen, ref, out, rng):
    check_conversion(name, gen, ref, out, rng)


def check_conversion(name, gen, ref, out, rng, device="cpu"):
    args = gen(rng)
    got = launch(name, args, out, device)
    assert_exact(name, args, got, ref(*args))


def reinterpret_cases(rng):
    i32 = int_sample(rng, I32)
    f32 = np.concatenate([spread(rng, F32, 100), edges(F32)])
    f64 = np.concatenate([spread(rng, F64, 100), edges(F64)])
    i64 = int_sample(rng, I64)
    return [("int_as_float", [i32], i32.view(F32)), ("float_as_int", [f32], f32.view(I32)),
            ("uint_as_float", [i32.view(U32)], i32.view(F32)),
            ("float_as_uint", [f32], f32.view(I32)), ("longlong_as_double", [i64], i64.view(F64)),
            ("double_as_longlong", [f64], f64.view(I64)),
            ("double2hiint", [f64], (f64.view(I64) >> 32).astype(I32)),
            ("double2loint", [f64], f64.view(I64).astype(I32)),
            ("hiloint2double", [i32, np.roll(i32, 1)],
             ((i32.astype(I64) << 32) | np.roll(i32, 1).view(U32).astype(I64)).view(F64))]


def test_reinterpretation(rng):
    check_reinterpretation(rng)


def check_reinterpretation(rng, device="cpu"):
    for name, args, ref in reinterpret_cases(rng):
        got = launch(name, args, ref.dtype, device)
        assert np.array_equal(got.view(np.uint8), ref.view(np.uint8)), name


# ---------------------------------------------------------------------------- fast approximations

# CUDA's documented bounds for its fast intrinsics (the GPU's approximate
# instructions; the interpreter computes these exactly): per element, an
# allowance in ulps, or an absolute one on the named interval.
@dataclass
class Fast:
    fn: str
    gen: Callable  # rng -> list of float32 arrays
    ref: Callable
    ulps: Callable  # float64 arguments -> ulps allowed
    abs_tol: float = 0.0  # absolute error allowed on the interval `on`
    on: tuple = (0.0, 0.0)


def f32(lo, hi, n=240):
    return lambda rng: [rng.uniform(lo, hi, n).astype(F32)]


FAST = [
    Fast("fast_expf", f32(-80, 80), np.exp, lambda x: 2 + np.floor(np.abs(1.173 * x))),
    Fast("fast_exp10f", f32(-30, 30), ref_exp10, lambda x: 2 + np.floor(np.abs(2.97 * x))),
    Fast("fast_logf", f32(0.5, 2), np.log, lambda x: 3 + 0 * x, 2**-21.41, (0.5, 2)),
    Fast("fast_logf", f32(2, 1e30), np.log, lambda x: 3 + 0 * x),
    Fast("fast_log2f", f32(0.5, 2), np.log2, lambda x: 2 + 0 * x, 2**-22, (0.5, 2)),
    Fast("fast_log2f", f32(2, 1e30), np.log2, lambda x: 2 + 0 * x),
    Fast("fast_log10f", f32(0.5, 2), np.log10, lambda x: 3 + 0 * x, 2**-24, (0.5, 2)),
    Fast("fast_log10f", f32(2, 1e30), np.log10, lambda x: 3 + 0 * x),
    Fast("fast_sinf", f32(-np.pi, np.pi), np.sin, lambda x: 0 * x, 2**-21.41, (-np.pi, np.pi)),
    Fast("fast_cosf", f32(-np.pi, np.pi), np.cos, lambda x: 0 * x, 2**-21.19, (-np.pi, np.pi)),
    Fast("fast_tanf", f32(-1, 1), np.tan, lambda x: 0 * x, 2**-20, (-1, 1)),
    Fast("fast_powf", lambda rng: [rng.uniform(0.5, 4, 240).astype(F32),
                                   rng.uniform(-4, 4, 240).astype(F32)],
         np.power, lambda x, y: 2 + 3 * np.abs(y)),
    Fast("fast_dividef", lambda rng: [rng.uniform(-1e3, 1e3, 240).astype(F32),
                                      rng.uniform(0.01, 1e3, 240).astype(F32)],
         lambda x, y: x / y, lambda x, y: 2 + 0 * x),
]


@pytest.mark.parametrize("case", FAST, ids=[f"{c.fn}-{i}" for i, c in enumerate(FAST)])
def test_fast(case, rng):
    check_fast(case, rng)


def check_fast(case, rng, device="cpu"):
    args = case.gen(rng)
    got = launch(case.fn, args, F32, device)
    a64 = [a.astype(F64) for a in args]
    ref = case.ref(*a64)
    err = ulp_error(got, ref, F32)
    ok = err <= case.ulps(*a64)
    if case.abs_tol:
        inside = (a64[0] >= case.on[0]) & (a64[0] <= case.on[1])
        ok |= inside & (np.abs(got.astype(F64) - ref) <= case.abs_tol)
    bad = np.flatnonzero(~ok)
    assert not len(bad), (f"libdevice.{case.fn}: {len(bad)} results out of bounds, first at "
                          f"{[a[bad[0]] for a in args]}: got {got[bad[0]]!r}, expected "
                          f"{ref[bad[0]]!r}")


# ---------------------------------------------------------------------------- PTX


def table_signatures():
    """[(name, [argument dtype names])] for every signature of every
    libdevice builtin, read from src/frontend/builtins_libdevice.cpp."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[3] / "src/frontend/builtins_libdevice.cpp"
            ).read_text()
    sigs = {}
    for m in re.finditer(r"const Sig (k\w+) = \{(.*?)\};", text, re.S):
        sigs[m.group(1)] = [a.replace(" ", "").split(",")
                            for a in re.findall(r"\{\{([^{}]*)\},\s*\w+\}", m.group(2))]
    rows = re.findall(r'\{"libdevice\.(\w+)",\s*\{[^{}]*\},\s*call<(k\w+),', text)
    assert len(rows) > 150
    return [(name, args) for name, sig in rows for args in sigs[sig]]


def test_ptx_assembles(tmp_path):
    """Every function in every signature compiles for the GPU, and ptxas
    (where the CUDA toolkit is installed) accepts the PTX for sm_80 and
    sm_90a. The calls are split over a few kernels to keep compiles short."""
    import os
    import shutil
    import subprocess

    build = os.environ.get("TESSERA_BUILD_DIR")
    tesserac = shutil.which("tesserac", path=build) if build else None
    ptxas = shutil.which("ptxas") or shutil.which("ptxas", path="/usr/local/cuda/bin")
    if not tesserac or not ptxas:
        pytest.skip("needs tesserac (TESSERA_BUILD_DIR) and ptxas")
    var = {"F32": "x", "F64": "d", "I32": "i", "U32": "u", "I64": "l", "U64": "ul"}
    calls = [f"libdevice.{n}({', '.join(var[a] for a in args)})" for n, args in table_signatures()]
    chunks = [calls[i:i + 16] for i in range(0, len(calls), 16)]
    src = ["import triton", "import triton.language as tl",
           "from triton.language.extra import libdevice", ""]
    for k, chunk in enumerate(chunks):
        src += ["", "@triton.jit", f"def k{k}(x_ptr, out_ptr, n, BLOCK: tl.constexpr):",
                "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
                "    x = tl.load(x_ptr + offs, mask=offs < n)",
                "    d = x.to(tl.float64)", "    i = x.to(tl.int32)",
                "    u = i.to(tl.uint32, bitcast=True)", "    l = x.to(tl.int64)",
                "    ul = l.to(tl.uint64, bitcast=True)", "    acc = tl.zeros([BLOCK], tl.float32)"]
        src += [f"    acc += {c}.to(tl.float32)" for c in chunk]
        src += ["    tl.store(out_ptr + offs, acc, mask=offs < n)"]
    path = tmp_path / "all_libdevice.py"
    path.write_text("\n".join(src) + "\n")
    for k in range(len(chunks)):
        for target in ("sm_80", "sm_90a"):
            ptx = tmp_path / f"k{k}_{target}.ptx"
            r = subprocess.run([tesserac, "compile", str(path), "--kernel", f"k{k}", "--signature",
                                "*fp32:16, *fp32:16, i32, 128", "--emit", "ptx", "--target",
                                target], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            ptx.write_text(r.stdout)
            r = subprocess.run([ptxas, f"-arch={target}", str(ptx), "-o", os.devnull],
                               capture_output=True, text=True)
            assert r.returncode == 0, f"ptxas -arch={target} rejected kernel k{k}:\n{r.stderr}"



# ---------------------------------------------------------------------------- mpmath (optional)

# Where NumPy's float64 references are not accurate enough to hold the float64
# functions to libdevice's bounds, 200-bit mpmath is (when installed).
MPMATH_CASES = [
    ("lgamma", lambda mp, x: mp.loggamma(x).real, (0.5, 1.5), 4),
    ("lgamma", lambda mp, x: mp.loggamma(x).real, (1.5, 3.2), 4),
    ("lgamma", lambda mp, x: mp.loggamma(x).real, (0.9, 1.1), 4),
    ("lgamma", lambda mp, x: mp.loggamma(x).real, (1e-3, 40), 4),
    ("lgamma", lambda mp, x: mp.loggamma(x).real, (-30, -11.0001), 4),
    ("tgamma", lambda mp, x: mp.gamma(x), (1e-3, 171), 10),
    ("tgamma", lambda mp, x: mp.gamma(x), (-40, -1e-3), 10),
    ("lgamma", lambda mp, x: mp.loggamma(x).real, (1.9, 2.1), 4),
    ("erfc", lambda mp, x: mp.erfc(x), (0.5, 27), 5),
    ("erfcx", lambda mp, x: mp.exp(x * x) * mp.erfc(x), (0.5, 1e4), 4),
    ("normcdf", lambda mp, x: mp.ncdf(x), (-38, 8), 5),
    ("erf", lambda mp, x: mp.erf(x), (-6, 6), 2),
    ("exp", lambda mp, x: mp.exp(x), (-745, 709), 1),
    ("log", lambda mp, x: mp.log(x), (1e-300, 1e300), 1),
    ("cosh", lambda mp, x: mp.cosh(x), (-700, 700), 1),
    ("tanh", lambda mp, x: mp.tanh(x), (-20, 20), 1),
    ("sin", lambda mp, x: mp.sin(x), (1e3, 1e300), 2),
    ("tan", lambda mp, x: mp.tan(x), (-1e6, 1e6), 2),
    ("asin", lambda mp, x: mp.asin(x), (-1, 1), 2),
    ("sinpi", lambda mp, x: mp.sinpi(x), (-1e3, 1e3), 2),
    ("cbrt", lambda mp, x: mp.cbrt(x), (1e-300, 1e300), 1),
    ("cyl_bessel_i0", lambda mp, x: mp.besseli(0, x), (-713, 713), 6),
    ("cyl_bessel_i1", lambda mp, x: mp.besseli(1, x), (-713, 713), 6),
    ("cyl_bessel_i1", lambda mp, x: mp.besseli(1, x), (-2, 2), 6),
    ("j0", lambda mp, x: mp.besselj(0, x), (-8, 8), 7),
    ("j1", lambda mp, x: mp.besselj(1, x), (-8, 8), 7),
    ("y0", lambda mp, x: mp.bessely(0, x), (1e-3, 8), 7),
    ("y1", lambda mp, x: mp.bessely(1, x), (1e-3, 8), 7),
]


@pytest.mark.parametrize("fn,ref,span,tol", MPMATH_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(MPMATH_CASES)])
def test_float64_against_mpmath(fn, ref, span, tol, rng):
    mp = pytest.importorskip("mpmath")
    mp.mp.prec = 200
    lo, hi = span
    if lo > 0 and hi / lo > 1e3:
        x = np.exp(rng.uniform(np.log(lo), np.log(hi), 120))
    else:
        x = rng.uniform(lo, hi, 120)
    got = launch(fn, [x], F64)
    exact = np.array([float(ref(mp, mp.mpf(v))) for v in x.tolist()])
    # The error in ulps, from the 200-bit value (rounded exact is within 0.5).
    err = np.array([float(abs(mp.mpf(g) - ref(mp, mp.mpf(v))) / mp.mpf(np.spacing(abs(e))))
                    for g, v, e in zip(got.tolist(), x.tolist(), exact.tolist())])
    worst = int(np.argmax(err))
    assert err[worst] <= tol, (f"libdevice.{fn}: {err[worst]:.3g} ulp at {x[worst]!r} (bound "
                               f"{tol}): got {got[worst]!r}, exact {exact[worst]!r}")



# ---------------------------------------------------------------------------- j0, j1, y0, y1


def ref_besselj(x, n):
    """J_n(x) = (1/pi) int_0^pi cos(n t - x sin t) dt by the trapezoid rule
    (spectrally accurate for this periodic integrand): about 1e-16 absolute
    for |x| < 1000."""
    t = np.linspace(0, np.pi, 4097)
    w = np.full(len(t), 1.0)
    w[0] = w[-1] = 0.5
    r = (np.cos(n * t[None, :] - x[:, None] * np.sin(t)[None, :]) * w).sum(axis=1) / 4096
    return np.where(np.isnan(x), x, r)


def bessel_args(rng, dt, positive=False):
    x = np.concatenate([sample(rng, dt, 150, 0, 8, signs=not positive),
                        sample(rng, dt, 60, 8, 900, signs=not positive),
                        np.array([2.404825557695773, 5.520078110286311, 3.8317059702075125,
                                  0.8935769662791675, 2.197141326031017, 8, 1e-5], dt)])
    return x.astype(dt)


@pytest.mark.parametrize("fn,n", [("j0", 0), ("j1", 1)])
def test_bessel_j(fn, n, rng):
    check_bessel_j(fn, n, rng)


def check_bessel_j(fn, n, rng, device="cpu"):
    # float32 within 1 ulp below 8 (libdevice: 9) and every result within
    # 1e-14 absolute, the reference's own error near 900 (libdevice: 2.2e-6
    # for float32, 5e-12 for float64 beyond 8; the mpmath test: 7 ulp below).
    for dt in (F32, F64):
        x = bessel_args(rng, dt)
        got = launch(fn, [x], dt, device)
        ref = ref_besselj(x.astype(F64), n)
        if dt == F32:
            small = np.abs(x) < 8
            assert_within(fn, dt, [x[small]], got[small], ref[small], 1)
        err = np.abs(got.astype(F64) - ref)
        tol = 1e-14 if dt == F64 else 1e-7
        assert err.max() <= tol, f"libdevice.{fn} ({dt.name}): {err.max():.3g} at {x[err.argmax()]!r}"


def test_bessel_y_wronskian(rng):
    check_bessel_y_wronskian(rng)


def check_bessel_y_wronskian(rng, device="cpu"):
    """j1 y0 - j0 y1 = 2 / (pi x): y0 and y1 against j0 and j1 (checked above)."""
    for dt in (F32, F64):
        x = bessel_args(rng, dt, positive=True)
        x = x[x > 0]
        j0, j1, y0, y1 = (launch(f, [x], dt, device).astype(F64) for f in ("j0", "j1", "y0", "y1"))
        w = (j1 * y0 - j0 * y1) * (np.pi * x.astype(F64) / 2)
        tol = 1e-5 if dt == F32 else 1e-13
        assert np.abs(w - 1).max() <= tol, f"{dt.name}: {np.abs(w - 1).max():.3g}"
    sp = np.array([0, np.inf, -1, np.nan], F64)
    assert_exact("y0", [sp], launch("y0", [sp], F64, device), [-np.inf, 0, np.nan, np.nan])
    assert_exact("y1", [sp], launch("y1", [sp], F64, device), [-np.inf, 0, np.nan, np.nan])
    edge = np.array([0, -0.0, np.inf, -np.inf, np.nan], F64)
    assert_exact("j0", [edge], launch("j0", [edge], F64, device), [1, 1, 0, 0, np.nan])
    assert_exact("j1", [edge], launch("j1", [edge], F64, device), [0, -0.0, 0, -0.0, np.nan])



# ---------------------------------------------------------------------------- arguments


def test_scalar_arguments():
    out = np.full(1, np.nan, F32)
    scalar_kernel[(1,)](0.5, out, FN="asin")
    assert out[0] == np.float32(np.arcsin(0.5))


def test_argument_dtypes_follow_triton():
    """An exact signature match first (pow(fp32, int32) is powi), else the
    operands promoted to a common dtype (atan2(fp32, fp64) runs in fp64)."""
    x = np.array([0.5, -2.0, 3.0, 1e-3], F32)
    out = np.full(12, np.nan, F32)
    mixed_kernel[(1,)](x, out)
    assert np.array_equal(out[:4], (x.astype(F64) ** 3).astype(F32))
    assert np.allclose(out[4:8], np.arctan2(x, x), rtol=1e-7)
    assert np.array_equal(out[8:], -np.abs(x))


def test_unsupported_dtype_is_an_error():
    x = np.zeros(4, np.float16)
    with pytest.raises(Exception, match=r"input arg type does not match.*\(fp16\)"):
        half_kernel[(1,)](x, np.zeros(4, np.float16))
