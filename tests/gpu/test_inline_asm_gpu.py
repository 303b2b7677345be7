"""tl.inline_asm_elementwise and tl.extra.cuda on the GPU, against NumPy:
one and several inputs, packed int8 and f16 registers, several results,
pointers and side effects (an impure asm is neither merged nor dropped),
fewer elements per thread than `pack`, 2-D broadcasting, scalars, tied
operands, and the special registers. tests/ptx/inline_asm.py checks the PTX
of five of these kernels (by name): an edit here changes that test too."""
import numpy as np
import pytest

from conftest import skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton
import tessera.language as tl
from conftest import poisoned


def rng():
    return np.random.default_rng(int.from_bytes(np.random.bytes(4), "little"))


def dev(a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def host(t):
    return t.cpu().numpy()


@triton.jit
def shift_wrap_kernel(X, Y, Z, n: tl.constexpr, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    s = tl.full([BLOCK], n, tl.int32)
    z = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r, r, r", [x, y, s],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(Z + tl.arange(0, BLOCK), z)


@pytest.mark.parametrize("n", [1, 17, 31])
def test_funnel_shift(n):
    r = rng()
    x = r.integers(0, 2**32, 128, dtype=np.uint32)
    y = r.integers(0, 2**32, 128, dtype=np.uint32)
    z = poisoned((128,), torch.int32)
    shift_wrap_kernel[(1,)](dev(x.view(np.int32)), dev(y.view(np.int32)), z, n, BLOCK=128)
    ref = (y << np.uint32(n)) | (x >> np.uint32(32 - n))
    np.testing.assert_array_equal(host(z).view(np.uint32), ref)


@triton.jit
def packed_shift_kernel(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r", [x],
                                  dtype=tl.int8, is_pure=True, pack=4)
    tl.store(Y + tl.arange(0, BLOCK), y)


@pytest.mark.parametrize("block,num_warps", [(512, 4), (64, 4), (4, 1)])
def test_packed_int8(block, num_warps):
    # (64, 4) and (4, 1): fewer elements per thread than pack, so the last
    # group of a thread is partial.
    x = rng().integers(0, 256, block, dtype=np.uint8)
    y = poisoned((block,), torch.int8)
    packed_shift_kernel[(1,)](dev(x), y, BLOCK=block, num_warps=num_warps)
    np.testing.assert_array_equal(host(y).view(np.uint8), (x << 3).astype(np.uint8))


@triton.jit
def through_pointers_kernel(X, Y, BLOCK: tl.constexpr):
    x_ptrs = X + tl.arange(0, BLOCK)
    y_ptrs = Y + tl.arange(0, BLOCK)
    tl.inline_asm_elementwise(
        "ld.global.b8 $0, [$1]; shl.b32 $0, $0, 3; st.global.b8 [$2], $0;", "=r,l,l",
        [x_ptrs, y_ptrs], dtype=tl.int8, is_pure=False, pack=1)


def test_pointers_and_an_unused_impure_result():
    x = rng().integers(0, 256, 512, dtype=np.uint8)
    y = poisoned((512,), torch.uint8)
    through_pointers_kernel[(1,)](dev(x), y, BLOCK=512)
    np.testing.assert_array_equal(host(y), (x << 3).astype(np.uint8))


@triton.jit
def count_kernel(C, BLOCK: tl.constexpr):
    ptrs = C + tl.arange(0, BLOCK)
    # Two identical impure calls: both run (no CSE), neither result is used.
    tl.inline_asm_elementwise("atom.global.add.u32 $0, [$1], 1;", "=r,l", [ptrs], dtype=tl.int32,
                              is_pure=False, pack=1)
    tl.inline_asm_elementwise("atom.global.add.u32 $0, [$1], 1;", "=r,l", [ptrs], dtype=tl.int32,
                              is_pure=False, pack=1)


def test_impure_asm_runs_every_time():
    c = torch.zeros(128, dtype=torch.int32, device="cuda")
    count_kernel[(3,)](c, BLOCK=128)
    np.testing.assert_array_equal(host(c), np.full(128, 6, np.int32))


@triton.jit
def two_results_kernel(A, B, C, D, BLOCK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        sub.u32 $0, $2, $3;
        sub.u32 $1, $3, $2;
        """,
        constraints="=r,=r,r,r", args=[a, b], dtype=(tl.uint32, tl.uint32), is_pure=True, pack=1)
    tl.store(C + tl.arange(0, BLOCK), c)
    tl.store(D + tl.arange(0, BLOCK), d)


def test_two_results():
    r = rng()
    a = r.integers(0, 2**32, 512, dtype=np.uint32)
    b = r.integers(0, 2**32, 512, dtype=np.uint32)
    c, d = poisoned((512,), torch.int32), poisoned((512,), torch.int32)
    two_results_kernel[(1,)](dev(a.view(np.int32)), dev(b.view(np.int32)), c, d, BLOCK=512)
    np.testing.assert_array_equal(host(c).view(np.uint32), a - b)
    np.testing.assert_array_equal(host(d).view(np.uint32), b - a)


@triton.jit
def packed_two_results_kernel(A, B, C, D, BLOCK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        {
            .reg .b8 tmp<4>;
            mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
            cvt.u32.u8 $0, tmp0;
            cvt.u32.u8 $1, tmp1;
            cvt.u32.u8 $2, tmp2;
            cvt.u32.u8 $3, tmp3;
        }
        cvt.rn.f32.s32 $4, $0;
        cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2;
        cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        """,
        constraints="=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r",
        args=[a, b], dtype=(tl.int32, tl.float32), is_pure=True, pack=4)
    tl.store(C + tl.arange(0, BLOCK), c)
    tl.store(D + tl.arange(0, BLOCK), d)


def test_packed_two_results():
    r = rng()
    a = r.integers(0, 256, 512, dtype=np.uint8)
    b = (r.standard_normal(512) * 200).astype(np.float32)
    c, d = poisoned((512,), torch.int32), poisoned((512,))
    packed_two_results_kernel[(1,)](dev(a), dev(b), c, d, BLOCK=512)
    np.testing.assert_array_equal(host(c), a.astype(np.int32))
    np.testing.assert_array_equal(host(d), np.maximum(a.astype(np.float32), b))


@triton.jit
def halves_kernel(X, Y, Z, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $1;", "=r,r", [x], dtype=tl.float16,
                                  is_pure=True, pack=2)
    h = tl.inline_asm_elementwise("neg.f16 $0, $1;", "=h,h", [y], dtype=tl.float16,
                                  is_pure=True, pack=1)
    t = tl.inline_asm_elementwise("add.s32 $0, $0, $2; // $$", "=r,0,r", [h.to(tl.int32), 7],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(Y + tl.arange(0, BLOCK), h)
    tl.store(Z + tl.arange(0, BLOCK), t)


def test_f16_pairs_h_registers_tied_operands_and_scalars():
    x = (rng().standard_normal(256) * 50).astype(np.float16)
    y, z = poisoned((256,), torch.float16), poisoned((256,), torch.int32)
    halves_kernel[(1,)](dev(x), y, z, BLOCK=256)
    h = -(x + x)  # exact in f16 (a doubling), then negated
    np.testing.assert_array_equal(host(y), h)
    np.testing.assert_array_equal(host(z), np.trunc(h.astype(np.float64)).astype(np.int32) + 7)


@triton.jit
def outer_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr):
    a = tl.load(A + tl.arange(0, M))[:, None]
    b = tl.load(B + tl.arange(0, N))[None, :]
    c = tl.inline_asm_elementwise("mad.lo.s32 $0, $1, 1000, $2;", "=r,r,r", [a, b],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(C + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


def test_broadcast_2d():
    r = rng()
    a = r.integers(-1000, 1000, 32, dtype=np.int32)
    b = r.integers(-1000, 1000, 64, dtype=np.int32)
    c = poisoned((32, 64), torch.int32)
    outer_kernel[(1,)](dev(a), dev(b), c, M=32, N=64)
    np.testing.assert_array_equal(host(c), a[:, None] * 1000 + b[None, :])


@triton.jit
def scalar_kernel(Out, k):
    v = tl.inline_asm_elementwise("mul.lo.s32 $0, $1, 3;", "=r,r", [k], dtype=tl.int32,
                                  is_pure=True, pack=1)
    w = tl.inline_asm_elementwise("mov.b32 $0, 11;", "=r", [], dtype=tl.int32, is_pure=True,
                                  pack=1)
    tl.store(Out + tl.program_id(0) * 2, v)
    tl.store(Out + tl.program_id(0) * 2 + 1, w)


def test_scalar_and_no_arguments():
    k = int(rng().integers(-10**6, 10**6))
    out = poisoned((8,), torch.int32)
    scalar_kernel[(4,)](out, k)
    np.testing.assert_array_equal(host(out), np.array([3 * k, 11] * 4, np.int32))


@triton.jit
def specials_kernel(Out, T, Scratch, Threads):
    pid = tl.program_id(0)
    start = tl.extra.cuda.globaltimer()
    tl.store(Out + pid, tl.extra.cuda.smid())
    offs = pid * 128 + tl.arange(0, 128)
    for i in range(200):
        tl.store(Scratch + offs, tl.load(Scratch + offs) + 1)
    end = tl.extra.cuda.globaltimer()
    tl.store(T + 2 * pid, start)
    tl.store(T + 2 * pid + 1, end)
    n: tl.constexpr = tl.extra.cuda.num_threads()
    tl.store(Threads + tl.arange(0, n), tl.full([n], tl.extra.cuda.num_warps(), tl.int32))


@pytest.mark.parametrize("num_warps", [2, 8])
def test_special_registers(num_warps):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    progs = 1024
    out = poisoned((progs,), torch.int32)
    t = torch.zeros(2 * progs, dtype=torch.int64, device="cuda")
    scratch = torch.zeros(progs * 128, dtype=torch.int32, device="cuda")
    threads = poisoned((32 * num_warps,), torch.int32)
    h = specials_kernel[(progs,)](out, t, scratch, threads, num_warps=num_warps)
    o = host(out)
    assert ((o >= 0) & (o < sms)).all()
    tt = host(t)
    assert (tt[0::2] > 0).all() and (tt[1::2] > tt[0::2]).all()
    np.testing.assert_array_equal(host(scratch), np.full(progs * 128, 200, np.int32))
    np.testing.assert_array_equal(host(threads), np.full(32 * num_warps, num_warps, np.int32))
    ptx = h.asm["ptx"]
    assert ptx.count("%globaltimer") == 2
    assert ptx.count("%smid") == 1


# Triton's test_core.py style: the specials passed as tl.constexpr arguments.
@triton.jit
def timer_kernel(Out1, Out2, func: tl.constexpr):
    start = func()
    off = tl.arange(0, 128)
    for i in range(10000):
        tl.store(Out1 + off, tl.load(Out1 + off) + 1)
    end = func()
    tl.store(Out2, start)
    tl.store(Out2 + 1, end)


def test_globaltimer_as_constexpr():
    out1 = torch.zeros(128, dtype=torch.int64, device="cuda")
    out2 = torch.zeros(2, dtype=torch.int64, device="cuda")
    h = timer_kernel[(1,)](out1, out2, tl.extra.cuda.globaltimer)
    assert (out2[1] - out2[0]).item() > 0
    assert (out1 == 10000).all()
    assert h.asm["ptx"].count("%globaltimer") == 2


@triton.jit
def smid_kernel(Out, get_smid: tl.constexpr):
    tl.store(Out + tl.program_id(0), get_smid())


def test_smid_as_constexpr():
    out = poisoned((1024,), torch.int32)
    h = smid_kernel[(1024,)](out, get_smid=tl.extra.cuda.smid)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    o = host(out)
    assert ((o >= 0) & (o < sms)).all() and len(np.unique(o)) > 1
    assert h.asm["ptx"].count("%smid") == 1


@triton.jit
def num_threads_kernel(Out, get_num_threads: tl.constexpr):
    num_threads: tl.constexpr = get_num_threads()
    tl.store(Out + tl.arange(0, num_threads), 1)


def test_num_threads_as_constexpr():
    out = torch.zeros(256, dtype=torch.int32, device="cuda")
    num_threads_kernel[(1,)](out, get_num_threads=tl.extra.cuda.num_threads, num_warps=8)
    assert out.sum().item() == 256
