"""The kernel language on the GPU: elementwise math over dtypes, casts,
reductions and scans over axes, 2-D tiles (broadcasts, layout conversions),
control flow, atomics, shape ops and dot, each against PyTorch."""
import math
import re

import numpy as np
import pytest

from conftest import skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton
import tessera.language as tl
from conftest import poisoned, rel_err


@triton.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1)
    y = tl.load(y_ptr + offs, mask=m, other=1)
    if OP == "add":
        r = x + y
    elif OP == "sub":
        r = x - y
    elif OP == "mul":
        r = x * y
    elif OP == "div":
        r = x / y
    elif OP == "max":
        r = tl.maximum(x, y)
    elif OP == "min":
        r = tl.minimum(x, y)
    elif OP == "where":
        r = tl.where(x > y, x, y)
    elif OP == "floordiv":
        r = x // y
    elif OP == "mod":
        r = x % y
    elif OP == "and":
        r = x & y
    elif OP == "xor":
        r = x ^ y
    else:
        r = x << (y & 7)
    tl.store(out_ptr + offs, r, mask=m)


FLOAT_OPS = ["add", "sub", "mul", "div", "max", "min", "where"]
INT_OPS = ["add", "sub", "mul", "floordiv", "mod", "max", "min", "and", "xor", "shl"]


def torch_binary(op, x, y):
    return {"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y,
            "div": lambda: x / y, "max": lambda: torch.maximum(x, y),
            "min": lambda: torch.minimum(x, y), "where": lambda: torch.where(x > y, x, y),
            "floordiv": lambda: torch.div(x, y, rounding_mode="trunc"),
            "mod": lambda: torch.fmod(x, y), "and": lambda: x & y, "xor": lambda: x ^ y,
            "shl": lambda: x << (y & 7)}[op]()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("op", FLOAT_OPS)
def test_float_binary(gen, dtype, op):
    n = 3000
    x = torch.randn(n, device="cuda", generator=gen).to(dtype)
    # Away from zero, so that x / y cannot overflow float16 (inf - inf is NaN).
    y = torch.randn(n, device="cuda", generator=gen)
    y = (torch.where(y < 0, y - 0.25, y + 0.25)).to(dtype)
    out = poisoned(n, dtype)
    binary_kernel[(triton.cdiv(n, 512),)](x, y, out, n, OP=op, BLOCK=512)
    ref = torch_binary(op, x.float(), y.float()).to(dtype) if dtype != torch.float64 else torch_binary(op, x, y)
    tol = {torch.float32: 1e-6, torch.float64: 1e-12}.get(dtype, 1e-2)
    assert rel_err(out, ref) <= tol


def spread_floats(gen, n, dtype):
    """Signed values from the subnormals to the overflow threshold, with
    zeros, infinities and NaN among them."""
    info = torch.finfo(dtype)
    lo, hi = math.log2(info.smallest_normal) - 8, math.log2(info.max) - 1
    e = torch.rand(n, generator=gen, dtype=torch.float64) * (hi - lo) + lo
    v = torch.exp2(e) * torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0)
    v = v.to(dtype)
    special = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -3.0], dtype=dtype)
    v[torch.randint(0, n, (n // 20,), generator=gen)] = special[
        torch.randint(0, len(special), (n // 20,), generator=gen)]
    return v


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_float_mod_is_exact(dtype):
    # C's fmod, bit for bit: quotients up to 2^250 (where a - trunc(a/b) * b
    # keeps no correct bit), infinite divisors (a), zero divisors (NaN),
    # signed zeros, subnormals. NumPy's fmod (in float32 for the 16-bit
    # types, whose fmod is exact in it) is the reference.
    gen = torch.Generator().manual_seed(20261125)
    n = 4096
    x, y = spread_floats(gen, n, dtype), spread_floats(gen, n, dtype)
    # Some pairs of nearby magnitude, where the quotient's low bits matter.
    y[: n // 4] = (x[: n // 4].double() * torch.rand(n // 4, generator=gen, dtype=torch.float64)
                   ).to(dtype)
    out = poisoned(n, dtype)
    binary_kernel[(triton.cdiv(n, 512),)](x.cuda(), y.cuda(), out, n, OP="mod", BLOCK=512)
    wide = torch.float64 if dtype == torch.float64 else torch.float32
    ref = torch.from_numpy(np.fmod(x.to(wide).numpy(), y.to(wide).numpy())).to(dtype)
    got, want = out.cpu().double(), ref.double()
    same = ((got == want) & (torch.signbit(got) == torch.signbit(want))) | (got.isnan() & want.isnan())
    bad = (~same).nonzero().flatten()[:5].tolist()
    assert not bad, [(x[i].item(), y[i].item(), got[i].item(), want[i].item()) for i in bad]


def same_bits_or_nan(got, want):
    got, want = got.double().cpu(), want.double()
    return bool((((got == want) & (torch.signbit(got) == torch.signbit(want)))
                 | (got.isnan() & want.isnan())).all())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("op", ["max", "min"])
def test_min_max_order_signed_zeros(dtype, op):
    # -0.0 below +0.0 in either operand order; the interpreter (and constant
    # folding) order them the same way.
    x = torch.tensor([0.0, -0.0, -0.0, 0.0, 1.0, -1.0], dtype=dtype)
    y = torch.tensor([-0.0, 0.0, -0.0, 0.0, -0.0, 0.0], dtype=dtype)
    out = poisoned(6, dtype)
    binary_kernel[(1,)](x.cuda(), y.cuda(), out, 6, OP=op, BLOCK=8)
    want = torch.tensor([0.0, 0.0, -0.0, 0.0, 1.0, 0.0] if op == "max" else
                        [-0.0, -0.0, -0.0, 0.0, -0.0, -1.0])
    assert same_bits_or_nan(out, want), out


@triton.jit
def atomic_max_min_kernel(hi_ptr, lo_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.atomic_max(hi_ptr + offs, x, mask=m)
    tl.atomic_min(lo_ptr + offs, x, mask=m)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_float_atomic_max_min_order(dtype):
    # The expectations of the interpreter's test (test_language_ops.py):
    # signed zeros as numbers, a quiet NaN in memory above every positive
    # number under max, below under min.
    nan = math.nan
    mem = torch.tensor([0.0, -0.0, -0.0, 0.0, nan, nan, 2.0, -2.0], dtype=dtype, device="cuda")
    x = torch.tensor([-0.0, 0.0, -0.0, 0.0, 1.0, -1.0, -3.0, -1.0], dtype=dtype, device="cuda")
    hi, lo = mem.clone(), mem.clone()
    atomic_max_min_kernel[(1,)](hi, lo, x, 8, BLOCK=8)
    assert same_bits_or_nan(hi, torch.tensor([0.0, 0.0, -0.0, 0.0, nan, nan, 2.0, -1.0])), hi
    assert same_bits_or_nan(lo, torch.tensor([-0.0, -0.0, -0.0, 0.0, 1.0, -1.0, -3.0, -2.0])), lo


@triton.jit
def cas_kernel(x_ptr, cmp_ptr, val_ptr, old_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_cas(x_ptr + offs, tl.load(cmp_ptr + offs), tl.load(val_ptr + offs),
                        sem="acquire")
    tl.store(old_ptr + offs, old)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int16, torch.uint16])
def test_16_bit_compare_and_swap(gen, dtype):
    # 16-bit CAS (atom.cas.b16): swapped where x equals cmp, the old value
    # returned everywhere, neighbours in the same 32-bit word untouched.
    # (Small integers, exact in every dtype; PyTorch's uint16 has few ops,
    # so the expectations are computed in int64.)
    n = 256
    x0 = torch.randint(0 if dtype == torch.uint16 else -5, 5, (n,), generator=gen, device="cuda")
    cmp = x0.clone()
    cmp[::3] += 1  # a third of the compares fail
    val = torch.randint(0, 100, (n,), generator=gen, device="cuda")
    x, old = x0.to(dtype), poisoned((n,), dtype)
    cas_kernel[(1,)](x, cmp.to(dtype), val.to(dtype), old, BLOCK=n)
    assert torch.equal(old.to(torch.int64), x0)
    assert torch.equal(x.to(torch.int64), torch.where(cmp == x0, val, x0))


@triton.jit
def nan_then_atomic_kernel(out_ptr, x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x - x)  # inf - inf: the arithmetic's own NaN
    tl.debug_barrier()
    tl.atomic_max(out_ptr + offs, tl.full((BLOCK,), 1.0, tl.float32))
    tl.atomic_min(out_ptr + BLOCK + offs, x - x)


def test_arithmetic_nan_orders_above_numbers_in_atomics():
    # As on the interpreter (test_language_ops.py).
    x = torch.full((8,), math.inf, device="cuda")
    out = torch.cat([torch.zeros(8), torch.full((8,), 5.0)]).cuda()
    nan_then_atomic_kernel[(1,)](out, x, BLOCK=8)
    assert out[:8].isnan().all() and (out[8:] == 5.0).all(), out


@triton.jit
def widen_then_float_kernel(x_ptr, o32_ptr, o64_ptr, ou64_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(o32_ptr + offs, x.to(tl.int8).to(tl.uint32).to(tl.float32), mask=m)
    tl.store(o64_ptr + offs, x.to(tl.int8).to(tl.uint32).to(tl.float64), mask=m)
    tl.store(ou64_ptr + offs, x.to(tl.int8).to(tl.uint64).to(tl.float32), mask=m)


def test_sign_extended_then_unsigned_to_float():
    # int8 -> uint32 sign-extends, so -100 is 2^32 - 100 as a float; ptxas
    # turned cvt.rn.f32.u32 of that sign extension into a signed conversion.
    x = torch.tensor([-100, -5, 3, 100, -1, 0, 7, -128, 300, -300], dtype=torch.int16)
    outs = [poisoned(10), poisoned(10, torch.float64), poisoned(10)]
    widen_then_float_kernel[(1,)](x.cuda(), *outs, 10, BLOCK=16)
    wide = [(v % 256 - 256 if v % 256 >= 128 else v % 256) for v in x.tolist()]  # as int8
    u32 = torch.tensor([float(v % (1 << 32)) for v in wide], dtype=torch.float64)
    u64 = torch.tensor([float(v % (1 << 64)) for v in wide], dtype=torch.float64)
    assert torch.equal(outs[0].cpu(), u32.float()), outs[0]
    assert torch.equal(outs[1].cpu(), u32), outs[1]
    assert torch.equal(outs[2].cpu(), u64.float()), outs[2]


@triton.jit
def narrow_then_float_kernel(x_ptr, of16_ptr, obf16_ptr, of32_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    u = tl.load(x_ptr + offs, mask=m).to(tl.int8).to(tl.uint32)
    tl.store(of16_ptr + offs, u.to(tl.float16), mask=m)
    tl.store(obf16_ptr + offs, u.to(tl.bfloat16), mask=m)
    tl.store(of32_ptr + offs, u.to(tl.float32), mask=m)


def test_int64_narrowed_then_unsigned_to_float():
    # Differential seed 971: int64 -> int8 -> uint32 -> float16 read -34 for
    # 2^32 - 34 (ptxas's signed I2F.S8 again, through cvt.u64.u32 too).
    x = torch.tensor([-34, -100, -5, 3, 100, -1, 0, 7, -128, 300, -300, 2**40 + 5], dtype=torch.int64)
    n = x.numel()
    outs = [poisoned(n, torch.float16), poisoned(n, torch.bfloat16), poisoned(n)]
    narrow_then_float_kernel[(1,)](x.cuda(), *outs, n, BLOCK=16)
    wide = [(v % 256 - 256 if v % 256 >= 128 else v % 256) for v in x.tolist()]  # as int8
    u32 = torch.tensor([float(v % (1 << 32)) for v in wide], dtype=torch.float64)
    for out, dt in zip(outs, (torch.float16, torch.bfloat16, torch.float32)):
        assert torch.equal(out.cpu(), u32.to(dt)), (dt, out)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.int8, torch.int16, torch.uint8])
@pytest.mark.parametrize("op", INT_OPS)
def test_int_binary(gen, dtype, op):
    n = 2000
    hi = 100 if dtype in (torch.int8, torch.uint8) else 10000
    lo = 0 if dtype == torch.uint8 else -hi
    x = torch.randint(lo, hi, (n,), device="cuda", generator=gen, dtype=dtype)
    y = torch.randint(1, hi, (n,), device="cuda", generator=gen, dtype=dtype)
    out = poisoned(n, dtype)
    binary_kernel[(triton.cdiv(n, 256),)](x, y, out, n, OP=op, BLOCK=256)
    ref = torch_binary(op, x.long(), y.long()).to(dtype)
    assert torch.equal(out, ref), (out[:8], ref[:8])


@triton.jit
def unary_kernel(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0).to(tl.float32)  # math is fp32/fp64, as in Triton
    if OP == "exp":
        r = tl.exp(x)
    elif OP == "exp2":
        r = tl.exp2(x)
    elif OP == "log":
        r = tl.log(tl.abs(x) + 0.5)
    elif OP == "log2":
        r = tl.log2(tl.abs(x) + 0.5)
    elif OP == "sqrt":
        r = tl.sqrt(tl.abs(x))
    elif OP == "sqrt_rn":
        r = tl.sqrt_rn(tl.abs(x))
    elif OP == "rsqrt":
        r = tl.rsqrt(tl.abs(x) + 0.5)
    elif OP == "sin":
        r = tl.sin(x)
    elif OP == "cos":
        r = tl.cos(x)
    elif OP == "erf":
        r = tl.erf(x)
    elif OP == "floor":
        r = tl.floor(x)
    elif OP == "ceil":
        r = tl.ceil(x)
    elif OP == "sigmoid":
        r = tl.sigmoid(x)
    elif OP == "abs":
        r = tl.abs(x)
    else:
        r = -x
    tl.store(out_ptr + offs, r, mask=m)


UNARY = {"exp": torch.exp, "exp2": torch.exp2, "log": lambda x: torch.log(x.abs() + 0.5),
         "log2": lambda x: torch.log2(x.abs() + 0.5), "sqrt": lambda x: x.abs().sqrt(),
         "sqrt_rn": lambda x: x.abs().sqrt(), "rsqrt": lambda x: torch.rsqrt(x.abs() + 0.5),
         "sin": torch.sin, "cos": torch.cos, "erf": torch.erf, "floor": torch.floor,
         "ceil": torch.ceil, "sigmoid": torch.sigmoid, "abs": torch.abs, "neg": torch.neg}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(gen, dtype, op):
    n = 5000
    # In [-10, 10]: exp stays finite in float16.
    x = (torch.randn(n, device="cuda", generator=gen) * 3).clamp(-10, 10).to(dtype)
    out = poisoned(n, dtype)
    unary_kernel[(triton.cdiv(n, 1024),)](x, out, n, OP=op, BLOCK=1024)
    ref = UNARY[op](x.double())
    tol = 2e-6 if dtype == torch.float32 else 1e-2
    assert rel_err(out, ref) <= tol


@pytest.mark.parametrize("op", ["sin", "cos"])
@pytest.mark.parametrize("scale", [1e2, 1e4, 1e6])
def test_sin_cos_of_large_arguments(gen, op, scale):
    # The reduction by 2pi keeps sin.approx's accuracy (about 5e-7 absolute
    # on [-pi, pi]) far out: with pi's remainder in place of 2pi's, the
    # error grew as k * 8.7e-8 (1.4e-4 at 1e4; differential seeds 1801, 2059).
    n = 1 << 16
    x = (torch.rand(n, device="cuda", generator=gen) * 2 - 1) * scale
    out = poisoned(n, torch.float32)
    unary_kernel[(triton.cdiv(n, 1024),)](x, out, n, OP=op, BLOCK=1024)
    ref = UNARY[op](x.double())
    err = (out.double() - ref).abs().max().item()
    assert err <= 1.5e-6, f"max absolute error {err}"


@triton.jit
def cast_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m).to(out_ptr.dtype.element_ty), mask=m)


CAST_TYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32,
              torch.int64, torch.int8, torch.uint8, torch.int16]


@pytest.mark.parametrize("src", CAST_TYPES)
@pytest.mark.parametrize("dst", CAST_TYPES)
def test_cast(gen, src, dst):
    n = 1500
    x = (torch.randn(n, device="cuda", generator=gen) * 50)
    if not src.is_floating_point:
        x = x.clamp(-100, 100) if src != torch.uint8 else x.abs().clamp(0, 200)
    x = x.to(src)
    if not dst.is_floating_point and src.is_floating_point:
        x = x.clamp(-100, 100) if dst != torch.uint8 else x.abs().clamp(0, 200)
    out = poisoned(n, dst)
    cast_kernel[(triton.cdiv(n, 512),)](x, out, n, BLOCK=512)
    ref = x.to(dst)
    if dst.is_floating_point:
        assert rel_err(out, ref) <= (1e-6 if dst in (torch.float32, torch.float64) else 1e-2)
    else:
        assert torch.equal(out, ref)


@triton.jit
def reduce2d_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
                    OP: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    if OP == "sum":
        r = tl.sum(x, axis=AXIS)
    elif OP == "max":
        r = tl.max(x, axis=AXIS)
    elif OP == "min":
        r = tl.min(x, axis=AXIS)
    else:
        r = tl.argmax(x, axis=AXIS)
    if AXIS == 0:
        tl.store(out_ptr + rn, r)
    else:
        tl.store(out_ptr + rm, r)


@pytest.mark.parametrize("shape", [(8, 8), (64, 32), (32, 256), (256, 16), (2, 1024)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", ["sum", "max", "min", "argmax"])
def test_reduce_2d(gen, shape, axis, op):
    x = torch.randn(shape, device="cuda", generator=gen)
    out = poisoned(shape[1 - axis], torch.int32 if op == "argmax" else torch.float32)
    reduce2d_kernel[(1,)](x, out, M=shape[0], N=shape[1], AXIS=axis, OP=op)
    if op == "argmax":
        assert torch.equal(out.long(), x.argmax(dim=axis))
    else:
        ref = {"sum": x.double().sum(axis), "max": x.double().amax(axis),
               "min": x.double().amin(axis)}[op]
        if op != "sum":
            assert torch.equal(out.double(), ref)
            return
        # fp32 sums: each within a few roundings of its terms' magnitudes (a
        # relative error of the whole would fail when one sum nearly cancels).
        assert not torch.isnan(out).any(), "an output element was not written (NaN poison left)"
        bound = 1e-6 * x.double().abs().sum(axis)
        assert ((out.double() - ref).abs() <= bound).all()


@triton.jit
def full_reduce_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        acc += tl.load(x_ptr + start + offs, mask=start + offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


@pytest.mark.parametrize("n", [1, 100, 12345])
@pytest.mark.parametrize("warps", [1, 4, 8])
def test_loop_and_full_reduce(gen, n, warps):
    x = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(1)
    full_reduce_kernel[(1,)](x, out, n, BLOCK=1024, num_warps=warps)
    # A sum cancels: bound the error by the magnitudes summed, not the result.
    err = (out.double() - x.double().sum()).abs().item()
    assert err <= 1e-6 * x.double().abs().sum().item()


@triton.jit
def loop_reduce_kernel(x_ptr, init_ptr, out_ptr, R, C, OP: tl.constexpr, AXIS: tl.constexpr,
                       BM: tl.constexpr, BK: tl.constexpr, INIT: tl.constexpr,
                       FILL: tl.constexpr):
    # An R x C matrix reduced along AXIS in steps of BK (masked at the tail),
    # each program BM of the other dim: the loop-carried accumulator that
    # thread-locality keeps as per-thread partials, reducing across threads
    # once after the loop.
    offs = tl.program_id(0) * BM + tl.arange(0, BM)
    if AXIS == 1:
        n_out = R
        n_loop = C
    else:
        n_out = C
        n_loop = R
    if OP == "max" or OP == "min":
        acc = tl.full([BM], INIT, tl.float32)  # fmax/fmin: a constant init
    else:
        acc = tl.load(init_ptr + offs, mask=offs < n_out, other=0)
    for k in range(0, n_loop, BK):
        ks = k + tl.arange(0, BK)
        if AXIS == 1:
            x = tl.load(x_ptr + offs[:, None] * C + ks[None, :],
                        mask=(offs[:, None] < R) & (ks[None, :] < C), other=FILL)
        else:
            x = tl.load(x_ptr + ks[:, None] * C + offs[None, :],
                        mask=(ks[:, None] < R) & (offs[None, :] < C), other=FILL)
        if OP == "sum":
            acc += tl.sum(x, axis=AXIS)
        elif OP == "max":
            acc = tl.maximum(acc, tl.max(x, axis=AXIS))
        elif OP == "min":
            acc = tl.minimum(tl.min(x, axis=AXIS), acc)
        else:
            acc ^= tl.xor_sum(x, axis=AXIS)
    tl.store(out_ptr + offs, acc, mask=offs < n_out)


# (INIT, FILL): the initial value of max and min (a constant), and what
# masked elements read (none of them reaches an output).
LOOP_OPS = {"sum": (0.0, 0.0), "max": (-0.75, -3.0e38), "min": (0.75, 3.0e38), "xor": (0, 0)}


def check_loop_reduce(op, out, ref, magnitude):
    """Sums within a few roundings of the magnitudes summed (reassociation
    changes the last bits; a relative error of the whole would fail a sum
    that nearly cancels); max, min and xor exactly."""
    if op != "sum":
        assert torch.equal(out.cpu().double() if op != "xor" else out.cpu(), ref)
        return
    assert not torch.isnan(out).any(), "an output element was not written (NaN poison left)"
    assert ((out.cpu().double() - ref).abs() <= 1e-6 * magnitude).all()


# (outputs, loop extent, BM, BK): tails along both dims, a split of the
# reduced dim into high registers x threads x low registers, and a loop
# that never runs (the init comes back).
@pytest.mark.parametrize("shape", [(64, 1000, 32, 128), (40, 3000, 8, 512), (100, 300, 64, 32),
                                   (24, 0, 16, 64)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", sorted(LOOP_OPS))
@pytest.mark.parametrize("warps", [1, 4, 8])
@pytest.mark.parametrize("stages", [1, 3])
def test_loop_reduce(gen, shape, axis, op, warps, stages):
    n_out, n_loop, bm, bk = shape
    rows, cols = (n_out, n_loop) if axis == 1 else (n_loop, n_out)
    init_value, fill = LOOP_OPS[op]
    if op == "xor":
        x = torch.randint(-2**31, 2**31, (max(rows * cols, 1),), dtype=torch.int32, device="cuda",
                          generator=gen)
        init = torch.randint(-2**31, 2**31, (n_out,), dtype=torch.int32, device="cuda",
                             generator=gen)
    else:
        x = torch.randn(max(rows * cols, 1), device="cuda", generator=gen)
        init = torch.randn(n_out, device="cuda", generator=gen)
    out = poisoned(n_out, x.dtype)
    loop_reduce_kernel[(triton.cdiv(n_out, bm),)](
        x, init, out, rows, cols, OP=op, AXIS=axis, BM=bm, BK=bk, INIT=init_value, FILL=fill,
        num_warps=warps, num_stages=stages)
    xs = x[:rows * cols].reshape(rows, cols).cpu()
    if op == "xor":
        ref = torch.from_numpy(np.bitwise_xor.reduce(xs.numpy(), axis=axis) ^ init.cpu().numpy())
    elif op == "sum":
        ref = init.cpu().double() + xs.double().sum(axis)
    elif op == "max":
        ref = torch.clamp(xs.double().amax(axis) if n_loop else torch.full((n_out,), -math.inf,
                          dtype=torch.float64), min=init_value)
    else:
        ref = torch.clamp(xs.double().amin(axis) if n_loop else torch.full((n_out,), math.inf,
                          dtype=torch.float64), max=init_value)
    magnitude = init.cpu().double().abs() + xs.double().abs().sum(axis)
    check_loop_reduce(op, out, ref, magnitude)


@triton.jit
def loop_reduce_scalar_kernel(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr,
                              FILL: tl.constexpr):
    # A scalar accumulator: the partial is a 1-D tile, reduced to one value
    # after the loop.
    offs = tl.arange(0, BLOCK)
    if OP == "sum":
        acc = 0.5
    elif OP == "max":
        acc = -0.75
    elif OP == "min":
        acc = 0.75
    else:
        acc = 12345
    for start in range(0, n, BLOCK):
        x = tl.load(x_ptr + start + offs, mask=start + offs < n, other=FILL)
        if OP == "sum":
            acc += tl.sum(x)
        elif OP == "max":
            acc = tl.maximum(acc, tl.max(x))
        elif OP == "min":
            acc = tl.minimum(acc, tl.min(x))
        else:
            acc ^= tl.xor_sum(x)
    tl.store(out_ptr, acc)


@pytest.mark.parametrize("n", [0, 1, 1000, 12345])
@pytest.mark.parametrize("op", sorted(LOOP_OPS))
@pytest.mark.parametrize("warps", [1, 4, 8])
def test_loop_reduce_scalar(gen, n, op, warps):
    if op == "xor":
        x = torch.randint(-2**31, 2**31, (max(n, 1),), dtype=torch.int32, device="cuda",
                          generator=gen)
    else:
        x = torch.randn(max(n, 1), device="cuda", generator=gen)
    out = poisoned(1, x.dtype)
    loop_reduce_scalar_kernel[(1,)](x, out, n, OP=op, BLOCK=1024, FILL=LOOP_OPS[op][1],
                                    num_warps=warps)
    xs = x[:n].cpu()
    if op == "xor":
        ref = torch.tensor([int(np.bitwise_xor.reduce(xs.numpy(), initial=np.int32(12345)))],
                           dtype=torch.int32)
    else:
        init = {"sum": 0.5, "max": -0.75, "min": 0.75}[op]
        vals = xs.double().tolist() + [init]
        ref = torch.tensor([{"sum": math.fsum, "max": max, "min": min}[op](vals)],
                           dtype=torch.float64)
    check_loop_reduce(op, out, ref, torch.tensor([0.5 + xs.double().abs().sum().item()]))


@triton.jit
def scan_kernel(x_ptr, out_ptr, N: tl.constexpr, REVERSE: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0, reverse=REVERSE))


@pytest.mark.parametrize("n", [16, 256, 1024])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum(gen, n, reverse):
    x = torch.randint(-50, 50, (n,), device="cuda", generator=gen, dtype=torch.int32)
    out = poisoned(n, torch.int32)
    scan_kernel[(1,)](x, out, N=n, REVERSE=reverse)
    ref = x.flip(0).cumsum(0).flip(0) if reverse else x.cumsum(0)
    assert torch.equal(out, ref.int())


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(out_ptr + rn[:, None] * M + rm[None, :], tl.trans(x))


@pytest.mark.parametrize("shape", [(16, 16), (32, 64), (128, 8)])
def test_transpose(gen, shape):
    x = torch.randn(shape, device="cuda", generator=gen)
    out = poisoned((shape[1], shape[0]))
    transpose_kernel[(1,)](x, out, M=shape[0], N=shape[1])
    assert torch.equal(out, x.t())


@triton.jit
def while_kernel(x_ptr, out_ptr, n):
    i = tl.program_id(0)
    v = tl.load(x_ptr + i)
    steps = 0
    while v > 1:
        v = tl.where(v % 2 == 0, v // 2, 3 * v + 1)
        steps += 1
    tl.store(out_ptr + i, steps)


def test_while_collatz(gen):
    x = torch.randint(1, 1000, (64,), device="cuda", generator=gen, dtype=torch.int32)
    out = poisoned(64, torch.int32)
    while_kernel[(64,)](x, out, 64)
    ref = []
    for v in x.tolist():
        s = 0
        while v > 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            s += 1
        ref.append(s)
    assert out.tolist() == ref


@triton.jit
def atomic_kernel(x_ptr, hist_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(hist_ptr + (v % 16), 1, mask=m)
    tl.atomic_add(total_ptr, tl.sum(tl.where(m, v, 0), axis=0))
    tl.atomic_max(total_ptr + 1, tl.max(tl.where(m, v, 0), axis=0))


def test_atomics(gen):
    n = 10000
    x = torch.randint(0, 1000, (n,), device="cuda", generator=gen, dtype=torch.int32)
    hist = torch.zeros(16, dtype=torch.int32, device="cuda")
    total = torch.zeros(2, dtype=torch.int32, device="cuda")
    atomic_kernel[(triton.cdiv(n, 256),)](x, hist, total, n, BLOCK=256)
    assert torch.equal(hist, torch.bincount(x % 16, minlength=16).int())
    assert total[0].item() == x.sum().item() and total[1].item() == x.max().item()


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("mnk", [(16, 16, 16), (32, 64, 16), (64, 32, 128)])
def test_dot(gen, dtype, mnk):
    m, n, k = mnk
    a = torch.randn(m, k, device="cuda", generator=gen).to(dtype)
    b = torch.randn(k, n, device="cuda", generator=gen).to(dtype)
    c = poisoned((m, n))
    dot_kernel[(1,)](a, b, c, M=m, N=n, K=k)
    # fp32 operands multiply as tf32 by default (Triton's input_precision).
    assert rel_err(c, a.double() @ b.double()) <= (2e-3 if dtype == torch.float32 else 1e-2)


@triton.jit
def shape_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.reshape(x, (N // 8, 8))
    z = tl.sum(y, axis=1)
    tl.store(out_ptr + tl.arange(0, N // 8), z)
    f = tl.flip(x, 0)
    tl.store(out_ptr + N // 8 + offs, f)


def test_reshape_flip(gen):
    n = 256
    x = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(n // 8 + n)
    shape_kernel[(1,)](x, out, N=n)
    assert rel_err(out[: n // 8], x.double().reshape(-1, 8).sum(1)) <= 1e-6
    assert torch.equal(out[n // 8:], x.flip(0))


def test_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    x = cupy.random.standard_normal(5000, dtype=cupy.float32)
    y = cupy.random.standard_normal(5000, dtype=cupy.float32)
    out = cupy.full(5000, cupy.nan, dtype=cupy.float32)
    binary_kernel[(triton.cdiv(5000, 512),)](x, y, out, 5000, OP="add", BLOCK=512)
    assert cupy.allclose(out, x + y, rtol=0, atol=0)


@triton.jit
def sort_kernel(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], tl.sort(x, dim=1, descending=DESC))


@pytest.mark.parametrize("shape", [(1, 16), (4, 128), (2, 1024)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.float16])
@pytest.mark.parametrize("desc", [False, True])
def test_sort(gen, shape, dtype, desc):
    x = (torch.randn(shape, device="cuda", generator=gen) * 100).to(dtype)
    out = poisoned(shape, dtype)
    sort_kernel[(1,)](x, out, M=shape[0], N=shape[1], DESC=desc)
    assert torch.equal(out, torch.sort(x, dim=1, descending=desc).values)


@triton.jit
def histogram_kernel(x_ptr, h_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1)
    tl.store(h_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


@pytest.mark.parametrize("n", [1, 500, 1024])
def test_histogram(gen, n):
    x = torch.randint(-5, 40, (n,), device="cuda", generator=gen, dtype=torch.int32)
    out = poisoned(32, torch.int32)
    histogram_kernel[(1,)](x, out, n, BINS=32, BLOCK=1024)
    ref = torch.bincount(x[(x >= 0) & (x < 32)].long(), minlength=32).int()
    assert torch.equal(out, ref)


@triton.jit
def print_kernel(x_ptr, n):
    offs = tl.arange(0, 4)
    tl.device_print("x", tl.load(x_ptr + offs))
    tl.device_print("n ", n)


def test_device_print(capfd):
    x = torch.tensor([1.5, -2.0, 3.25, 4.0], device="cuda")
    print_kernel[(1,)](x, 7)
    torch.cuda.synchronize()
    out = capfd.readouterr().out
    for i, v in enumerate(["1.5", "-2", "3.25", "4"]):
        assert f"pid (0, 0, 0) idx ({i}) x: {v}\n" in out, out
    assert "pid (0, 0, 0) idx () n: 7\n" in out, out


ASSERT_SCRIPT = r"""
import sys
sys.path[:0] = {paths!r}
import torch
import tessera as triton
import tessera.language as tl

@triton.jit(debug=True)
def checked(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 32))
    tl.device_assert(x < 10, "x below ten")

@triton.jit(debug=True)
def assuming(x_ptr, n):
    tl.assume(n >= 0)
    tl.store(x_ptr, n)

x = torch.arange(32, device="cuda", dtype=torch.float32)
try:
    if sys.argv[1] == "assert":
        checked[(1,)](x)
    else:
        assuming[(1,)](x, -3)
    torch.cuda.synchronize()
except Exception as e:
    print("raised", type(e).__name__, e)
"""


@pytest.mark.parametrize("check, report", [
    ("assert", "device_assert failed: x below ten"),
    ("assume", "tl.assume failed: its condition is false"),  # debug checks assumptions too
])
def test_device_assert_stops_the_kernel(tmp_path, check, report):
    import subprocess
    import sys
    script = tmp_path / "assert_kernel.py"
    from conftest import ROOT
    script.write_text(ASSERT_SCRIPT.format(paths=[str(ROOT / "python")]))
    r = subprocess.run([sys.executable, str(script), check], capture_output=True, text=True,
                       timeout=120)
    text = r.stdout + r.stderr
    assert report in text, text
    assert "raised" in text, text


class _DLPackOnly:
    """A CUDA array seen only through DLPack (as JAX arrays are)."""

    def __init__(self, t):
        self._t = t

    def __dlpack__(self, stream=None):
        return self._t.__dlpack__()

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()


def test_dlpack_arrays(gen):
    x = torch.randn(3000, device="cuda", generator=gen)
    y = torch.randn(3000, device="cuda", generator=gen)
    out = poisoned(3000)
    binary_kernel[(triton.cdiv(3000, 512),)](_DLPackOnly(x), _DLPackOnly(y), _DLPackOnly(out),
                                             3000, OP="add", BLOCK=512)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


@triton.jit
def math64_kernel(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    if OP == "exp":
        r = tl.exp(x)
    elif OP == "exp2":
        r = tl.exp2(x)
    elif OP == "log":
        r = tl.log(x)
    elif OP == "sin":
        r = tl.sin(x)
    elif OP == "cos":
        r = tl.cos(x)
    elif OP == "erf":
        r = tl.erf(x)
    else:
        r = tl.log2(x)
    tl.store(out_ptr + offs, r, mask=m)


@pytest.mark.parametrize("op", ["exp", "exp2", "log", "log2", "sin", "cos", "erf"])
def test_math_float64(gen, op):
    n = 4096
    if op == "erf":
        # random values, a dense sweep over the whole curve, and the two
        # methods' border at |x| = 2 (series below, continued fraction above)
        n = 1 << 16
        x = torch.randn(n, device="cuda", generator=gen, dtype=torch.float64) * 3
        x[n // 2:] = torch.linspace(-6.5, 6.5, n // 2, device="cuda", dtype=torch.float64)
        special = [0.0, -0.0, 1e-300, 5.9, 6.0, 7.0, -30.0, float("inf"), float("-inf"),
                   float("nan"), 2.0, -2.0, 1.9999999999999998, 2.0000000000000004, 5.4728]
    elif op in ("sin", "cos"):
        x = (torch.rand(n, device="cuda", generator=gen, dtype=torch.float64) - 0.5) * 2e5
        x[:2048] /= 1e4  # and many near zero
        special = [0.0, -0.0, 1e-300, 3.141592653589793, 1.5707963267948966, 1e5,
                   float("inf"), float("nan")]
    elif op.startswith("exp"):
        x = torch.rand(n, device="cuda", generator=gen, dtype=torch.float64) * 1400 - 700
        special = [0.0, -0.0, 1.0, 709.7, 710.0, -745.0, -746.0, 1e-300, float("inf"),
                   float("-inf"), float("nan")]
    else:
        x = torch.exp(torch.rand(n, device="cuda", generator=gen, dtype=torch.float64) * 1400 - 700)
        # and a quarter around 1, where log(m) decides the error
        x[n // 4:n // 2] = torch.rand(n // 4, device="cuda", generator=gen,
                                      dtype=torch.float64) * 0.8 + 0.6
        special = [1.0, 2.0, 0.5, 0.0, -1.0, 4.9e-324, 1e-310, 1.7e308, float("inf"), float("nan")]
    x[: len(special)] = torch.tensor(special, dtype=torch.float64)
    out = poisoned(n, torch.float64)
    math64_kernel[(triton.cdiv(n, 256),)](x, out, n, OP=op, BLOCK=256)
    ref = getattr(torch, op)(x)
    # 2 ulp; one unit of the smallest subnormal where results underflow; for
    # sin and cos near their zeros, the absolute error of the reduction.
    atol = 2e-16 if op in ("sin", "cos") else 5e-324
    # erf: a summed series times exp. log and log2 carry log(m) = 2 atanh(s)
    # in double-double: 0.76 and 0.54 ulp at worst by an exact emulation of
    # the PTX over 43,000 points (2.5 and 3.4 ulp before).
    rtol = 2e-15 if op == "erf" else 4e-16
    torch.testing.assert_close(out, ref, rtol=rtol, atol=atol, equal_nan=True)


@triton.jit
def float_minmax_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    same = tl.zeros([BLOCK], dtype=tl.int32)  # every element at one address
    tl.atomic_max(out_ptr + same, x)
    tl.atomic_min(out_ptr + 1 + same, x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_float_atomic_max_min(gen, dtype):
    x = torch.randn(4096, device="cuda", generator=gen, dtype=dtype) * 10
    out = torch.tensor([-float("inf"), float("inf")], device="cuda", dtype=dtype)
    float_minmax_kernel[(16,)](x, out, BLOCK=256)
    assert out[0].item() == x.max().item() and out[1].item() == x.min().item()


def test_torch_launch_fast_path(gen, monkeypatch):
    """Repeated launches through the C++ fast path read every tensor afresh:
    views at other offsets (other data pointers, other alignments), a
    Parameter, and dtypes changing between launches (each its own
    specialisation). Only a new specialisation takes the Python path."""
    from tessera.runtime.jit import JITFunction
    python_path = []
    real_run = JITFunction.run

    def counting(self, *args, **kwargs):
        python_path.append(1)
        return real_run(self, *args, **kwargs)

    monkeypatch.setattr(JITFunction, "run", counting)
    add = triton.jit(binary_kernel.fn)  # its own dispatcher: nothing cached before
    n = 1000
    for dtype in (torch.float32, torch.float16, torch.float32, torch.bfloat16):
        base = torch.randn(4096, device="cuda", generator=gen).to(dtype)
        y = torch.randn(4096, device="cuda", generator=gen).to(dtype)
        for off in (0, 1, 17, 1024, 3):
            out = poisoned(n, dtype)
            x = base[off:off + n]
            add[(2,)](x, y[off:off + n], out, n, OP="add", BLOCK=512)
            torch.testing.assert_close(out, x + y[off:off + n], rtol=0, atol=0)
    p = torch.nn.Parameter(torch.randn(n, device="cuda", generator=gen))
    q = torch.randn(n, device="cuda", generator=gen)
    for _ in range(2):
        out = poisoned(n)
        add[(2,)](p, q, out, n, OP="add", BLOCK=512)
        torch.testing.assert_close(out, p.detach() + q, rtol=0, atol=0)
    # 22 launches; 3 dtypes x (16-byte aligned or not) specialisations
    assert len(python_path) <= 6, len(python_path)


@triton.jit
def mul_add_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    z = tl.load(z_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * y + z, mask=m)


def test_enable_fp_fusion(gen, monkeypatch):
    # Fused (the default): one rounding of x*y+z, as the product and sum
    # computed exactly in float64 and rounded once; fusion off: two
    # roundings, bit for bit torch's x * y + z in float32.
    n = 1 << 16
    x, y, z = (torch.randn(n, device="cuda", generator=gen) for _ in range(3))
    fused, apart = poisoned(n), poisoned(n)
    run = triton.jit(mul_add_kernel.fn)  # its own dispatcher: a fresh compile
    h = run[(n // 1024,)](x, y, z, fused, n, BLOCK=1024)
    assert re.search(r"fma\.rn\.f32", h.asm["ptx"])
    h = run[(n // 1024,)](x, y, z, apart, n, BLOCK=1024, enable_fp_fusion=False)
    assert not re.search(r"fma\.rn\.f32", h.asm["ptx"]) and "mul.rn.f32" in h.asm["ptx"]
    assert h.metadata.enable_fp_fusion is False
    assert torch.equal(apart, x * y + z)
    once = (x.double() * y.double() + z.double()).float()
    assert (fused != apart).any()
    assert ((fused - once).abs() <= (apart - once).abs()).all()
    # knobs.language.default_fp_fusion (TRITON_DEFAULT_FP_FUSION) for
    # launches that do not say.
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "0")
    again = poisoned(n)
    triton.jit(mul_add_kernel.fn)[(n // 1024,)](x, y, z, again, n, BLOCK=1024)
    assert torch.equal(again, apart)


@triton.jit
def exp2_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.math.exp2(tl.load(x_ptr + offs)))


def test_enable_reflect_ftz():
    # exp2 of -127 is subnormal (2^-127): flushed to zero by default, as
    # Triton's lowering does; kept with enable_reflect_ftz=False.
    x = torch.full((128,), -127.0, device="cuda")
    flushed, kept = poisoned(128), poisoned(128)
    h = exp2_kernel[(1,)](x, flushed, BLOCK=128)
    assert "ex2.approx.ftz.f32" in h.asm["ptx"]
    h = exp2_kernel[(1,)](x, kept, BLOCK=128, enable_reflect_ftz=False)
    assert "ftz" not in h.asm["ptx"]
    assert (flushed == 0).all()
    # ex2.approx: within 2 ulp; a subnormal's ulp is 2^-149.
    assert ((kept.double() - 2.0**-127).abs() <= 2 * 2.0**-149).all(), kept[:4]


def test_arch_option_and_override_arch(gen, monkeypatch):
    # Compiling for an older target than the device's (it runs older PTX):
    # the launch option `arch` or knobs.runtime.override_arch, Triton's names.
    n = 4096
    x = torch.randn(n, device="cuda", generator=gen)
    y = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(n)
    h = binary_kernel[(n // 512,)](x, y, out, n, OP="add", BLOCK=512, arch="sm80")
    assert re.search(r"cuda:80\b", h.asm["ttgir"]) and ".target sm_80" in h.asm["ptx"]
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    monkeypatch.setenv("TRITON_OVERRIDE_ARCH", "sm80")
    out = poisoned(n)
    h = triton.jit(binary_kernel.fn)[(n // 512,)](x, y, out, n, OP="add", BLOCK=512)
    assert re.search(r"cuda:80\b", h.asm["ttgir"])
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    with pytest.raises(ValueError, match=r"num_ctas > 1 requires NVIDIA SM90\+"):
        triton.jit(binary_kernel.fn).warmup(x, y, out, n, OP="add", BLOCK=512, grid=(1,),
                                            num_ctas=2)
    with pytest.raises(ValueError, match="sm_80 up to"):
        binary_kernel[(1,)](x, y, out, n, OP="add", BLOCK=512, arch="sm70")


def test_maxnreg_caps_the_kernels_registers(gen):
    # `.maxnreg` on the entry: ptxas keeps the kernel within the cap.
    n = 1 << 16
    x, y, z = (torch.randn(n, device="cuda", generator=gen) for _ in range(3))
    out = poisoned(n)
    k = triton.jit(mul_add_kernel.fn)[(n // 1024,)](x, y, z, out, n, BLOCK=1024, maxnreg=32)
    assert re.search(r"\.visible \.entry [^{;]*\.maxnreg 32", k.asm["ptx"])
    assert k.n_regs <= 32
    torch.testing.assert_close(out, x * y + z)


def test_compile_from_types_for_an_older_target(gen):
    # triton.compile(ASTSource(...), target=GPUTarget("cuda", 80, 32)) on a
    # newer GPU: sm_80 code, launched with the runtime arguments.
    from tessera.compiler import ASTSource
    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "OP": "constexpr",
           "BLOCK": "constexpr"}
    k = triton.compile(ASTSource(binary_kernel, sig, constexprs={"OP": "add", "BLOCK": 512}),
                       target=triton.GPUTarget("cuda", 80, 32), options={"num_warps": 4})
    assert ".target sm_80" in k.asm["ptx"] and re.search(r"cuda:80\b", k.asm["ttgir"])
    n = 3000
    x = torch.randn(n, device="cuda", generator=gen)
    y = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(n)
    k[(triton.cdiv(n, 512),)](x, y, out, n)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


@triton.jit
def topk_gpu_kernel(x_ptr, top_ptr, N: tl.constexpr, K: tl.constexpr, DESC: tl.constexpr):
    rows = tl.arange(0, 8)[:, None]
    x = tl.load(x_ptr + rows * N + tl.arange(0, N)[None, :])
    top = tl.topk(x, K, descending=DESC)
    tl.store(top_ptr + rows * K + tl.arange(0, K)[None, :], top)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
@pytest.mark.parametrize("n,k,desc", [(128, 8, True), (64, 16, False), (32, 32, True)])
def test_topk(gen, dtype, n, k, desc):
    x = torch.randn((8, n), device="cuda", generator=gen)
    x = (x * 1000).to(dtype) if dtype == torch.int32 else x.to(dtype)
    top = poisoned((8, k), dtype)
    topk_gpu_kernel[(1,)](x, top, N=n, K=k, DESC=desc)
    assert torch.equal(top, torch.topk(x, k, dim=1, largest=desc, sorted=True).values)


@triton.jit
def transposed_store_kernel(x_ptr, z_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # Loaded along rows, stored along columns: the store's value goes
    # through shared memory so both accesses move 16-byte vectors.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(z_ptr + rm[:, None] + rn[None, :] * M, x, mask=mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8])
@pytest.mark.parametrize("m,n,bm,bn,warps", [(256, 192, 64, 64, 4), (200, 136, 128, 32, 8),
                                             (96, 512, 32, 128, 4)])
def test_transposed_store(gen, dtype, m, n, bm, bn, warps):
    x = torch.randn((m, n), device="cuda", generator=gen)
    x = (x * 50).to(dtype) if dtype == torch.int8 else x.to(dtype)
    z = poisoned((n, m), dtype)
    k = transposed_store_kernel[(triton.cdiv(m, bm), triton.cdiv(n, bn))](x, z, m, n, BM=bm, BN=bn,
                                                                         num_warps=warps)
    assert torch.equal(z, x.T)
    if m % 16 == 0 and n % 16 == 0 and dtype != torch.int8:
        assert "st.global.v4" in k.asm["ptx"] and "ld.global.v4" in k.asm["ptx"]


@triton.jit
def unrolled_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                           BK: tl.constexpr, F: tl.constexpr):
    # tl.range(..., loop_unroll_factor=F): F copies of the body per
    # iteration (their loads pipelined like any), then the iterations left.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, loop_unroll_factor=F):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("factor", [2, 3])
@pytest.mark.parametrize("k", [64, 320, 352])
def test_unrolled_matmul_loop(gen, factor, k):
    m, n = 192, 160
    a = torch.randn((m, k), device="cuda", generator=gen).half()
    b = torch.randn((k, n), device="cuda", generator=gen).half()
    c = poisoned((m, n))
    unrolled_matmul_kernel[(triton.cdiv(m, 128), triton.cdiv(n, 64))](a, b, c, m, n, k, BM=128,
                                                                      BN=64, BK=32, F=factor)
    assert rel_err(c, a.double() @ b.double()) <= 1e-3


@triton.jit
def ragged_load_kernel(x_ptr, out_ptr, n, ld, OTHER: tl.constexpr, ROWS: tl.constexpr,
                       COLS: tl.constexpr):
    # A bound with no divisibility: each 16-byte vector of a row loads whole
    # when its last element is in bounds, else element by element; the
    # elements past n keep OTHER.
    rows = tl.arange(0, ROWS)[:, None]
    cols = tl.program_id(0) * COLS + tl.arange(0, COLS)[None, :]
    x = tl.load(x_ptr + rows * ld + cols, mask=cols < n, other=OTHER)
    tl.store(out_ptr + rows * (COLS * tl.num_programs(0)) + cols, x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8, torch.float64])
@pytest.mark.parametrize("n", [1, 7, 61, 129, 250, 256])
@pytest.mark.parametrize("rows, cols", [(4, 128), (8, 32)])  # (8, 32): two elements a thread
def test_ragged_masked_load(gen, dtype, n, rows, cols):
    grid = 2
    ld = 256  # rows start 16-byte aligned; only the bound is unknown
    x = (torch.randn((rows, ld), device="cuda", generator=gen) * 50).to(dtype)
    out = poisoned((rows, cols * grid), dtype)
    ragged_load_kernel[(grid,)](x, out, n, ld, OTHER=-3, ROWS=rows, COLS=cols)
    ref = torch.full((rows, cols * grid), -3, dtype=dtype, device="cuda")
    m = min(n, cols * grid)
    ref[:, :m] = x[:, :m]
    assert torch.equal(out, ref)


@triton.jit
def ragged_store_kernel(x_ptr, out_ptr, n, ld, ROWS: tl.constexpr, COLS: tl.constexpr):
    # The store side of ragged_load_kernel: each 16-byte vector of a row is
    # stored whole when its last element is in bounds, else element by
    # element (addressed from the vector's first); nothing past n is written.
    rows = tl.arange(0, ROWS)[:, None]
    cols = tl.program_id(0) * COLS + tl.arange(0, COLS)[None, :]
    x = tl.load(x_ptr + rows * (COLS * tl.num_programs(0)) + cols)
    tl.store(out_ptr + rows * ld + cols, x, mask=cols < n)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8, torch.float64])
@pytest.mark.parametrize("n", [1, 7, 61, 129, 250, 256])
@pytest.mark.parametrize("rows, cols", [(4, 128), (8, 32)])
def test_ragged_masked_store(gen, dtype, n, rows, cols):
    grid = 2
    ld = 256
    x = (torch.randn((rows, cols * grid), device="cuda", generator=gen) * 50).to(dtype)
    out = poisoned((rows, ld), dtype)
    ref = out.clone()
    ragged_store_kernel[(grid,)](x, out, n, ld, ROWS=rows, COLS=cols)
    m = min(n, cols * grid)
    ref[:, :m] = x[:, :m]
    assert torch.equal(out.view(torch.uint8), ref.view(torch.uint8))  # NaN poison compared bitwise


@triton.jit
def squeeze_kernel(x_ptr, out_ptr, S0: tl.constexpr, S1: tl.constexpr, S2: tl.constexpr,
                   DIM: tl.constexpr):
    offs = tl.arange(0, S0 * S1 * S2)
    x = tl.reshape(tl.load(x_ptr + offs), (S0, S1, S2))
    y = tl.squeeze(x, DIM)
    w = tl.unsqueeze(tl.unsqueeze(y, DIM), -1)
    tl.store(out_ptr + offs, tl.ravel(w) * 3)
    tl.store(out_ptr + S0 * S1 * S2 + offs, tl.ravel(tl.sum(w, 3)) + tl.ravel(y))


@pytest.mark.parametrize("shape, dim", [((1, 16, 8), 0), ((4, 1, 32), 1), ((8, 16, 1), -1)])
def test_squeeze_and_unsqueeze(gen, shape, dim):
    n = shape[0] * shape[1] * shape[2]
    x = torch.randint(-1000, 1000, (n,), dtype=torch.int32, device="cuda", generator=gen)
    out = poisoned((2 * n,), torch.int32)
    squeeze_kernel[(1,)](x, out, *shape, DIM=dim)
    y = x.reshape(shape).squeeze(dim)
    assert torch.equal(out[:n], x * 3)
    assert torch.equal(out[n:], (y + y).reshape(-1))


@triton.jit
def tuple_view_kernel(src, dst, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # src, dst: (pointer, shape, strides) tuples; scale: (factor, offset).
    m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    n = tl.arange(0, BLOCK_N)[None, :]
    inside = (m < src[1][0]) & (n < src[1][1])
    x = tl.load(src[0] + m * src[2][0] + n * src[2][1], mask=inside)
    factors = [scale[0] * k for k in range(1, 3)]
    y = x * factors[1] + scale[1]
    tl.store(dst[0] + m * dst[2][0] + n * dst[2][1], y, mask=inside)


@pytest.mark.parametrize("transposed", [False, True])
def test_tuple_arguments(gen, transposed):
    # Tuple arguments launch through their own dispatcher; the GPU pointers,
    # shapes and strides inside them are specialised as arguments are.
    x = torch.randn((70, 40), device="cuda", generator=gen)
    y = poisoned((40, 70) if transposed else (70, 40), torch.float32)
    dst = (y, (70, 40), (1, 70) if transposed else (40, 1))
    f, b = 0.75, -1.5
    for _ in range(2):  # the second launch takes the cached kernel
        tuple_view_kernel[(triton.cdiv(70, 16),)]((x, x.shape, x.stride()), dst, (f, b),
                                                  BLOCK_M=16, BLOCK_N=64)
    ref = x * (2 * f) + b
    torch.testing.assert_close(y.T if transposed else y, ref, rtol=1e-6, atol=1e-6)


@triton.jit
def annotated_scalars_kernel(out, a: tl.float16, b: tl.uint8, c: tl.int8, d: tl.int64,
                             e: int, h: "tl.bfloat16", x: "*fp16"):
    tl.static_assert(a.dtype == tl.float16)
    tl.static_assert(h.dtype == tl.bfloat16)
    tl.static_assert(x.dtype.element_ty == tl.float16)
    tl.store(out + 0, a.to(tl.float64))
    tl.store(out + 1, b.to(tl.float64))
    tl.store(out + 2, c.to(tl.float64))
    tl.store(out + 3, d.to(tl.float64))
    tl.store(out + 4, e.to(tl.float64))
    tl.store(out + 5, h.to(tl.float64))
    tl.store(out + 6, tl.load(x).to(tl.float64))


def test_annotated_parameters(gen):
    # The launch packs each argument as its annotated type: an fp16 or bf16
    # scalar in its 16 bits, a u8 zero-extended, an i8 sign-extended.
    a, h = (torch.rand(2, device="cuda", generator=gen, dtype=torch.float64) * 20 - 10).tolist()
    x = torch.randn(4, device="cuda", generator=gen).half()
    out = poisoned((7,), torch.float64)
    annotated_scalars_kernel[(1,)](out, a, 255, -128, 2**40 + 3, -7, h, x)
    want = [float(torch.tensor(a).half()), 255, -128, 2**40 + 3, -7,
            float(torch.tensor(h).bfloat16()), float(x[0])]
    assert out.tolist() == want
    annotated_scalars_kernel[(1,)](out, a, -1, 200, 0, 0, h, x)  # the low bits, read as the type
    assert out[1].item() == 255 and out[2].item() == -56
    with pytest.raises(Exception, match="is 256, which u8 cannot hold"):
        annotated_scalars_kernel[(1,)](out, a, 256, 0, 0, 0, h, x)


@triton.aggregate
class GpuPair:
    first: tl.tensor
    second: tl.tensor

    @triton.jit
    def total(self):
        return self.first + self.second

    @triton.jit
    def swapped(self):
        return GpuPair(self.second, self.first)


@triton.jit
def aggregate_kernel(x_ptr, out_ptr, n_steps, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    p = GpuPair(tl.zeros([BLOCK], tl.float32), x)
    for _ in range(n_steps):
        p = GpuPair(p.first + x, p.second).swapped().swapped()
    tl.store(out_ptr + i, p.total())


def test_aggregate_instances(gen):
    # An aggregate carried by a run-time loop, its methods inlined.
    x = torch.randn(128, device="cuda", generator=gen)
    out = poisoned((128,), torch.float32)
    aggregate_kernel[(1,)](x, out, 5, BLOCK=128)
    torch.testing.assert_close(out, 6 * x, rtol=1e-5, atol=1e-5)
