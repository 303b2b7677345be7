"""tl.dot_scaled on the CPU against an independent NumPy float64 reference:
the element formats decoded by ml_dtypes (float4_e2m1fn, float6_*, float8_*,
bfloat16), the e8m0 scales by ml_dtypes' float8_e8m0fnu, each scaled
operand rounded to the compute type (fp16 when either format is fp16, else
bf16) and multiplied in float64. Inputs are drawn fresh for each case and
outputs poisoned before each launch. The same kernels run on the GPU in
tests/gpu/test_dot_scaled_gpu.py."""

from __future__ import annotations

import itertools
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

ml_dtypes = pytest.importorskip("ml_dtypes", reason="the reference decodes formats with ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)

# Format name -> (ml_dtypes type of one code per byte, bits per code).
MINI = {
    "e2m1": (ml_dtypes.float4_e2m1fn, 4),
    "e2m3": (ml_dtypes.float6_e2m3fn, 6),
    "e3m2": (ml_dtypes.float6_e3m2fn, 6),
    "e4m3": (ml_dtypes.float8_e4m3fn, 8),
    "e5m2": (ml_dtypes.float8_e5m2, 8),
}
HALF = {"bf16": BF16, "fp16": np.dtype(np.float16)}
# Test formats: e2m1 packed along K, and "e2m1/mn" packed along M (lhs) or N (rhs).
FORMATS = ["e2m1", "e2m1/mn", "e2m3", "e3m2", "e4m3", "e5m2", "bf16", "fp16"]


# ---------------------------------------------------------------------------- kernels


@triton.jit
def dot_scaled_kernel(a_ptr, sa_ptr, b_ptr, sb_ptr, acc_ptr, out_ptr,
                      M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                      A_ROWS: tl.constexpr, A_COLS: tl.constexpr,
                      B_ROWS: tl.constexpr, B_COLS: tl.constexpr,
                      FMT_A: tl.constexpr, FMT_B: tl.constexpr,
                      A_K_PACK: tl.constexpr, B_K_PACK: tl.constexpr,
                      HAS_ACC: tl.constexpr, FAST: tl.constexpr):
    ar = tl.arange(0, A_ROWS)
    ac = tl.arange(0, A_COLS)
    a = tl.load(a_ptr + ar[:, None] * A_COLS + ac[None, :])
    br = tl.arange(0, B_ROWS)
    bc = tl.arange(0, B_COLS)
    b = tl.load(b_ptr + br[:, None] * B_COLS + bc[None, :])
    G: tl.constexpr = K // 32
    # A scale pointer of None means no scaling (as in Triton's own test).
    sa = sa_ptr
    if sa_ptr is not None:
        sa = tl.load(sa_ptr + tl.arange(0, M)[:, None] * G + tl.arange(0, G)[None, :])
    sb = sb_ptr
    if sb_ptr is not None:
        sb = tl.load(sb_ptr + tl.arange(0, N)[:, None] * G + tl.arange(0, G)[None, :])
    om = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    if HAS_ACC:
        c = tl.dot_scaled(a, sa, FMT_A, b, sb, FMT_B, acc=tl.load(acc_ptr + om), fast_math=FAST,
                          lhs_k_pack=A_K_PACK, rhs_k_pack=B_K_PACK)
    else:
        c = tl.dot_scaled(a, sa, FMT_A, b, sb, FMT_B, fast_math=FAST, lhs_k_pack=A_K_PACK,
                          rhs_k_pack=B_K_PACK)
    tl.store(out_ptr + om, c)


@triton.jit
def batched_kernel(a_ptr, sa_ptr, b_ptr, sb_ptr, out_ptr, BATCH: tl.constexpr, M: tl.constexpr,
                   N: tl.constexpr, K: tl.constexpr, A_ROWS: tl.constexpr, A_COLS: tl.constexpr,
                   B_ROWS: tl.constexpr, B_COLS: tl.constexpr, FMT_A: tl.constexpr,
                   FMT_B: tl.constexpr, A_K_PACK: tl.constexpr, B_K_PACK: tl.constexpr):
    bi = tl.arange(0, BATCH)[:, None, None]
    a = tl.load(a_ptr + bi * A_ROWS * A_COLS + tl.arange(0, A_ROWS)[None, :, None] * A_COLS +
                tl.arange(0, A_COLS)[None, None, :])
    b = tl.load(b_ptr + bi * B_ROWS * B_COLS + tl.arange(0, B_ROWS)[None, :, None] * B_COLS +
                tl.arange(0, B_COLS)[None, None, :])
    G: tl.constexpr = K // 32
    gi = tl.arange(0, G)[None, None, :]
    sa = tl.load(sa_ptr + bi * M * G + tl.arange(0, M)[None, :, None] * G + gi)
    sb = tl.load(sb_ptr + bi * N * G + tl.arange(0, N)[None, :, None] * G + gi)
    c = tl.dot_scaled(a, sa, FMT_A, b, sb, FMT_B, lhs_k_pack=A_K_PACK, rhs_k_pack=B_K_PACK)
    tl.store(out_ptr + bi * M * N + tl.arange(0, M)[None, :, None] * N +
             tl.arange(0, N)[None, None, :], c)


# ---------------------------------------------------------------------------- operands


def base(fmt: str) -> str:
    return fmt.split("/")[0]


def compute_dtype(fa: str, fb: str):
    return np.dtype(np.float16) if "fp16" in (base(fa), base(fb)) else BF16


def finite_codes(fmt: str, rng, shape, fp16_compute: bool):
    """Random codes of a small float format, none of them NaN or infinity;
    e5m2 codes stay within fp16 when the compute type is fp16."""
    width = MINI[fmt][1]
    codes = rng.integers(0, 1 << width, shape, dtype=np.uint8)
    if fmt == "e4m3":  # S.1111.111 is NaN
        codes = np.where(codes & 0x7F == 0x7F, codes ^ 0x01, codes).astype(np.uint8)
    if fmt == "e5m2":  # exponent 31 is inf/NaN; 30 overflows fp16 once scaled up
        top = 0x78 if fp16_compute else 0x7C
        codes = np.where(codes & 0x7C >= top, codes & 0x83, codes).astype(np.uint8)
    return codes


def pack(codes: np.ndarray, axis: int) -> np.ndarray:
    """Two e2m1 codes per byte along `axis`, the first in the low nibble."""
    lo = np.take(codes, np.arange(0, codes.shape[axis], 2), axis=axis)
    hi = np.take(codes, np.arange(1, codes.shape[axis], 2), axis=axis)
    return (lo | (hi << 4)).astype(np.uint8)


def make_operand(fmt: str, shape, k_axis: int, rng, fp16_compute: bool):
    """(stored array, its values as float64 in the logical shape, k_pack)."""
    b = base(fmt)
    if b in HALF:
        vals = (rng.standard_normal(shape) * 4).astype(HALF[b])
        return vals, vals.astype(np.float64), True
    codes = finite_codes(b, rng, shape, fp16_compute)
    values = codes.view(MINI[b][0]).astype(np.float64)
    if MINI[b][1] == 6:  # fp6 is the low 6 bits of a byte: the top two must not matter
        return codes | (rng.integers(0, 4, shape, dtype=np.uint8) << 6), values, True
    if b != "e2m1":
        return codes, values, True
    k_pack = fmt == "e2m1"
    return pack(codes, k_axis if k_pack else 1 - k_axis), values, k_pack


def make_scale(rows: int, k: int, rng, fp16_compute: bool):
    # Keeps every scaled value in the compute type's normal range.
    lo, hi = (122, 128) if fp16_compute else (110, 140)
    return rng.integers(lo, hi + 1, (rows, k // 32), dtype=np.uint8)


def e8m0(scale: np.ndarray) -> np.ndarray:
    return scale.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)


def scaled(values: np.ndarray, scale, k_axis: int, compute) -> np.ndarray:
    """values * 2^(s-127) per group of 32 along K, rounded to the compute type."""
    if scale is not None:
        f = np.repeat(e8m0(scale), 32, axis=1)  # [rows, K]
        values = values * (f if k_axis == 1 else f.T)
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(compute).astype(np.float64)


def reference(a_vals, sa, b_vals, sb, acc, compute):
    x = scaled(a_vals, sa, 1, compute)
    y = scaled(b_vals, sb, 0, compute)
    with np.errstate(invalid="ignore"):
        ref = x @ y
        bound = np.abs(x) @ np.abs(y)
    if acc is not None:
        ref, bound = ref + acc, bound + np.abs(acc)
    return ref, bound


def check(out: np.ndarray, ref: np.ndarray, bound: np.ndarray):
    """fp32 accumulation of exact products: within a few fp32 ulps of the
    sum of |terms|; NaN exactly where the reference has NaN. Where a term or
    a partial sum may pass fp32's largest value (sum |terms| does: extreme
    scales) the fp32 result depends on the order of the sum, infinite or
    NaN, so only the reference's own NaN is checked there."""
    with np.errstate(invalid="ignore"):
        free = ~(bound > np.finfo(np.float32).max) | np.isnan(ref)
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(out)[free], nan[free]), \
        "NaN where the reference has none (or missing)"
    ok = free & ~nan
    err = np.abs(out[ok].astype(np.float64) - ref[ok])
    assert np.all(err <= 1e-5 * bound[ok] + 1e-30), f"max error {err.max()}"


def host(x):
    """The CPU twin's device adapter: NumPy arrays as they are."""
    return x


def launch(dev, a, sa, b, sb, acc, out, m, n, k, fa, fb, a_kp, b_kp, fast):
    """One dot_scaled_kernel launch on `dev`'s arrays (host: NumPy; the GPU
    twin: CUDA tensors); returns the output as a NumPy array."""
    out_d = dev(out)
    dot_scaled_kernel[(1,)](dev(a), dev(sa), dev(b), dev(sb), out_d if acc is None else dev(acc),
                            out_d, M=m, N=n, K=k, A_ROWS=a.shape[0], A_COLS=a.shape[1],
                            B_ROWS=b.shape[0], B_COLS=b.shape[1], FMT_A=fa, FMT_B=fb,
                            A_K_PACK=a_kp, B_K_PACK=b_kp, HAS_ACC=acc is not None, FAST=fast)
    return out_d if dev is host else dev.back(out_d)


def run(fa, fb, m, n, k, rng, *, scale_a=True, scale_b=True, with_acc=False, fast=False,
        sa=None, sb=None, a_typed=True, b_typed=True, dev=host):
    fp16c = compute_dtype(fa, fb) == np.float16
    a, a_vals, a_kp = make_operand(fa, (m, k), 1, rng, fp16c)
    b, b_vals, b_kp = make_operand(fb, (k, n), 0, rng, fp16c)
    if not a_typed and base(fa) in HALF:
        a = a.view(np.uint16)
    if not b_typed and base(fb) in HALF:
        b = b.view(np.uint16)
    if sa is None and scale_a:
        sa = make_scale(m, k, rng, fp16c)
    if sb is None and scale_b:
        sb = make_scale(n, k, rng, fp16c)
    acc = rng.standard_normal((m, n)).astype(np.float32) if with_acc else None
    out = np.full((m, n), np.nan, np.float32)  # poisoned
    out = launch(dev, a, sa, b, sb, acc, out, m, n, k, base(fa), base(fb), a_kp, b_kp, fast)
    ref, bound = reference(a_vals, sa, b_vals, sb, acc, compute_dtype(fa, fb))
    return out, ref, bound


# ---------------------------------------------------------------------------- results


@pytest.mark.parametrize("fa,fb", list(itertools.product(FORMATS, FORMATS)))
def test_every_pair_of_formats(rng, fa, fb):
    check(*run(fa, fb, 64, 32, 64, rng))


@pytest.mark.parametrize("m,n,k", [(32, 32, 32), (128, 32, 64), (32, 128, 128), (64, 64, 128),
                                   (128, 128, 32)])
@pytest.mark.parametrize("fa,fb", [("e2m1", "e4m3"), ("e2m1/mn", "e2m1/mn"), ("e5m2", "bf16"),
                                   ("fp16", "e3m2"), ("e2m3", "e2m1")])
def test_sizes(rng, m, n, k, fa, fb):
    check(*run(fa, fb, m, n, k, rng, with_acc=True))


@pytest.mark.parametrize("scale_a,scale_b", [(False, True), (True, False), (False, False)])
@pytest.mark.parametrize("fa,fb", [("e2m1", "fp16"), ("e4m3", "e5m2"), ("bf16", "e2m1/mn"),
                                   ("e3m2", "e2m3")])
def test_scales_none(rng, fa, fb, scale_a, scale_b):
    check(*run(fa, fb, 32, 64, 64, rng, scale_a=scale_a, scale_b=scale_b))


@pytest.mark.parametrize("fa,fb", [("e2m1", "e2m1"), ("bf16", "fp16"), ("e4m3", "bf16")])
def test_accumulator(rng, fa, fb):
    check(*run(fa, fb, 64, 64, 64, rng, with_acc=True))


@pytest.mark.parametrize("fa,fb", [("bf16", "bf16"), ("fp16", "fp16"), ("bf16", "e4m3")])
def test_16_bit_operands_as_raw_bits(rng, fa, fb):
    check(*run(fa, fb, 32, 32, 64, rng, a_typed=False, b_typed=False))


def test_scale_zero_and_extremes(rng):
    # e8m0 0 is 2^-127 and 254 is 2^127: bf16 holds both (its exponent is
    # fp32's). The other side's scale 2^-127 (then 2^127) keeps every
    # product and sum inside fp32, whose overflow would make the result
    # depend on the order of the sum.
    extremes = np.array([0, 1, 127, 200, 254], np.uint8)
    sa = rng.choice(extremes, (32, 2))
    check(*run("e2m1", "e2m1", 32, 32, 64, rng, sa=sa, sb=np.full((32, 2), 0, np.uint8)))
    sb = rng.choice(extremes, (32, 2))
    check(*run("e2m1", "e2m1", 32, 32, 64, rng, sa=np.full((32, 2), 0, np.uint8), sb=sb))


def test_nan_scale(rng):
    nan_scale_case(rng, host)


def nan_scale_case(rng, dev):
    """Scale byte 255 is NaN: its row (lhs) or column (rhs) of the product is
    NaN. The operands are all +1.0 so that an unchecked 255 (an infinite
    factor) would give infinity there, not NaN."""
    sa = rng.integers(120, 130, (32, 2), dtype=np.uint8)
    sb = rng.integers(120, 130, (32, 2), dtype=np.uint8)
    sa[3, 1] = 255
    sb[7, 0] = 255
    a = np.full((32, 64), 0x38, np.uint8)  # e4m3 1.0
    b = np.full((32, 32), 0x22, np.uint8)  # e2m1 1.0, 1.0 along K
    out = np.full((32, 32), 12345.0, np.float32)  # poisoned, not NaN
    out = launch(dev, a, sa, b, sb, None, out, 32, 32, 64, "e4m3", "e2m1", True, True, False)
    ref, bound = reference(np.ones((32, 64)), sa, np.ones((64, 32)), sb, None, BF16)
    assert np.isnan(out[3]).all() and np.isnan(out[:, 7]).all()
    check(out, ref, bound)


def test_fast_math_with_finite_scales(rng):
    """fast_math=True only skips the NaN check of scale 255 (Triton leaves
    that case undefined); finite scales give the same product."""
    check(*run("e4m3", "e2m1", 32, 32, 64, rng, fast=True))
    check(*run("bf16", "e5m2", 32, 32, 64, rng, fast=True))


@pytest.mark.parametrize("fmt,codes", [("e4m3", [0x7F, 0xFF]), ("e5m2", [0x7C, 0xFC, 0x7D, 0xFE])])
def test_nan_and_infinity_values(fmt, codes):
    nan_and_infinity_case(fmt, codes, host)


def nan_and_infinity_case(fmt, codes, dev):
    """NaN and infinity codes of the fp8 formats stay NaN and infinity."""
    k = 32
    a = np.zeros((32, k), np.uint8)
    a[np.arange(len(codes)), 0] = codes
    b = np.full((k, 32), 0x38 if fmt == "e4m3" else 0x3C, np.uint8)  # 1.0
    out = np.full((32, 32), 12345.0, np.float32)  # poisoned, not NaN
    out = launch(dev, a, None, b, None, None, out, 32, 32, k, fmt, fmt, True, True, False)
    expect = a.view(MINI[fmt][0]).astype(np.float64) @ np.ones((k, 32))
    np.testing.assert_array_equal(out, expect.astype(np.float32))


def test_typed_fp8_operands(rng):
    typed_fp8_case(rng, host)


def typed_fp8_case(rng, dev):
    """fp8 operands may arrive as tl.float8e4nv / tl.float8e5 instead of bytes."""
    a = finite_codes("e4m3", rng, (32, 64), False)
    b = finite_codes("e5m2", rng, (64, 32), False)
    sa, sb = make_scale(32, 64, rng, False), make_scale(32, 64, rng, False)
    out = np.full((32, 32), np.nan, np.float32)
    out = launch(dev, a.view(ml_dtypes.float8_e4m3fn), sa, b.view(ml_dtypes.float8_e5m2), sb, None,
                 out, 32, 32, 64, "e4m3", "e5m2", True, True, False)
    ref, bound = reference(a.view(ml_dtypes.float8_e4m3fn).astype(np.float64), sa,
                           b.view(ml_dtypes.float8_e5m2).astype(np.float64), sb, None, BF16)
    check(out, ref, bound)


@pytest.mark.parametrize("fa,fb", [("e4m3", "bf16"), ("e2m1/mn", "e2m1"), ("e2m1", "e2m1/mn")])
def test_batched(rng, fa, fb):
    batched_case(rng, host, fa, fb)


def batched_case(rng, dev, fa, fb):
    """3-D operands: one product per batch index, e2m1 unpacked within each."""
    bt, m, n, k = 2, 32, 64, 64
    ops_a = [make_operand(fa, (m, k), 1, rng, False) for _ in range(bt)]
    ops_b = [make_operand(fb, (k, n), 0, rng, False) for _ in range(bt)]
    a, b = np.stack([o[0] for o in ops_a]), np.stack([o[0] for o in ops_b])
    sa = rng.integers(115, 135, (bt, m, k // 32), dtype=np.uint8)
    sb = rng.integers(115, 135, (bt, n, k // 32), dtype=np.uint8)
    out = dev(np.full((bt, m, n), np.nan, np.float32))
    batched_kernel[(1,)](dev(a), dev(sa), dev(b), dev(sb), out, BATCH=bt, M=m, N=n, K=k,
                         A_ROWS=a.shape[1], A_COLS=a.shape[2], B_ROWS=b.shape[1],
                         B_COLS=b.shape[2], FMT_A=base(fa), FMT_B=base(fb),
                         A_K_PACK=ops_a[0][2], B_K_PACK=ops_b[0][2])
    out = out if dev is host else dev.back(out)
    for i in range(bt):
        ref, bound = reference(ops_a[i][1], sa[i], ops_b[i][1], sb[i], None, BF16)
        check(out[i], ref, bound)


# ---------------------------------------------------------------------------- PTX

REPO = pathlib.Path(__file__).resolve().parents[3]
TESSERAC = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", REPO / "build")) / "tesserac"
PTX_CASES = [("e2m1", "e4m3", 64, 64, 64), ("e2m1/mn", "e2m1/mn", 128, 128, 64),
             ("e5m2", "bf16", 64, 32, 128), ("fp16", "e3m2", 32, 64, 32),
             ("e2m3", "e2m1", 128, 64, 64)]


def ptxas():
    if os.environ.get("TESSERA_PTX_CHECK", "1") == "0":
        return None
    return shutil.which("ptxas") or next(
        (p for p in ["/usr/local/cuda/bin/ptxas"] if os.path.exists(p)), None)


@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("fa,fb,m,n,k", PTX_CASES)
def test_ptx_assembles(tmp_path, target, fa, fb, m, n, k):
    """The GPU code generator's PTX for the emulation (decode, scale, mma.sync
    on the compute type), assembled by ptxas where the CUDA toolkit is."""
    def operand(fmt, rows, cols, k_axis):
        if base(fmt) in HALF:
            return "*" + base(fmt) + ":16", rows, cols, True
        if base(fmt) != "e2m1":
            return "*u8:16", rows, cols, True
        k_pack = fmt == "e2m1"
        packed = k_axis if k_pack else 1 - k_axis
        shape = [rows, cols]
        shape[packed] //= 2
        return "*u8:16", shape[0], shape[1], k_pack
    pa, ar, ac, akp = operand(fa, m, k, 1)
    pb, br, bc, bkp = operand(fb, k, n, 0)
    sig = (f"{pa}, *u8:16, {pb}, *u8:16, *fp32:16, *fp32:16, {m}, {n}, {k}, {ar}, {ac}, {br}, "
           f"{bc}, '{base(fa)}', '{base(fb)}', {akp}, {bkp}, True, False")
    r = subprocess.run([str(TESSERAC), "compile", __file__, "--kernel", "dot_scaled_kernel",
                        "--signature", sig, "--emit", "ptx", "--target", target],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    compute = "f16" if "fp16" in (base(fa), base(fb)) else "bf16"
    assert f"mma.sync.aligned.m16n8k16.row.col.f32.{compute}.{compute}.f32" in r.stdout
    exe = ptxas()
    if exe is None:
        return
    (tmp_path / "k.ptx").write_text(r.stdout)
    a = subprocess.run([exe, f"-arch={target}", str(tmp_path / "k.ptx"), "-o",
                        str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert a.returncode == 0, a.stderr


# ---------------------------------------------------------------------------- diagnostics


@triton.jit
def misuse_kernel(x_ptr, s_ptr, out_ptr, CASE: tl.constexpr):
    r32 = tl.arange(0, 32)
    r64 = tl.arange(0, 64)
    a8 = tl.load(x_ptr + r32[:, None] * 64 + r64[None, :])  # [32, 64] uint8
    b8 = tl.load(x_ptr + r64[:, None] * 32 + r32[None, :])  # [64, 32] uint8
    s = tl.load(s_ptr + r32[:, None] * 2 + tl.arange(0, 2)[None, :])  # [32, 2] uint8
    if CASE == "format":
        c = tl.dot_scaled(a8, s, "e3m4", b8, s, "e4m3")
    elif CASE == "shape":
        c = tl.dot_scaled(a8, s, "e2m1", b8, s, "e4m3")
    elif CASE == "scale_shape":
        c = tl.dot_scaled(a8, s, "e4m3", b8, tl.reshape(s, 16, 4), "e4m3")
    elif CASE == "scale_dtype":
        c = tl.dot_scaled(a8, s.to(tl.float32), "e4m3", b8, s, "e4m3")
    elif CASE == "dtype":
        c = tl.dot_scaled(a8.to(tl.float16), s, "e4m3", b8, s, "e4m3")
    elif CASE == "k_pack":
        c = tl.dot_scaled(a8, s, "e4m3", b8, s, "e4m3", lhs_k_pack=False)
    elif CASE == "acc":
        c = tl.dot_scaled(a8, s, "e4m3", b8, s, "e4m3", acc=tl.zeros((32, 32), tl.float16))
    else:
        c = tl.dot_scaled(a8, s, "e4m3", b8, s, "e4m3", out_dtype=tl.float16)
    tl.store(out_ptr + r32[:, None] * 32 + r32[None, :], c)


@pytest.mark.parametrize("case,message", [
    ("format", r"unknown lhs_format 'e3m4'"),
    ("shape", r"reduction dimensions hold different numbers of elements \(lhs 128, rhs 64\)"),
    ("scale_shape", r"rhs_scale must have shape \[32, 2\], got \[16, 4\]"),
    ("scale_dtype", r"lhs_scale must be a uint8 tensor of e8m0 exponents"),
    ("dtype", r"lhs_format 'e4m3' needs lhs as float8e4nv or uint8"),
    ("k_pack", r"lhs_k_pack=False applies only to e2m1 operands"),
    ("acc", r"accumulator must be a float32 tensor of shape \[32, 32\]"),
    ("out_dtype", r"supports only out_dtype=tl.float32"),
])
def test_misuse_is_a_diagnostic(case, message):
    x = np.zeros(64 * 32, np.uint8)
    s = np.full(64, 127, np.uint8)
    out = np.zeros((32, 32), np.float32)
    with pytest.raises(triton.CompilationError, match=message) as info:
        misuse_kernel[(1,)](x, s, out, CASE=case)
    text = str(info.value)
    assert "test_dot_scaled.py:" in text  # the user's file and line
    assert "\nnote: " in text  # and a sentence that says what to do
