"""Shape ops on the GPU where the compiler renames registers instead of
moving data (assign-layouts gives their results the layouts that make them
free; the emitter checks and falls back to shared memory otherwise):
reshape, permute, split and join of tensor-core accumulators (tutorial 09's
epilogue subtiles) and of loaded tiles, against PyTorch on fresh random
inputs with poisoned outputs. tests/python/test_wgmma_ptx.py checks that
the subtiled epilogue costs no extra trip through shared memory."""
import pytest

from conftest import poisoned, skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402


# C = A B, stored whole or as SPLITS column halves taken apart the way
# tutorial 09 does (reshape, permute, split); TRANSPOSE stores C^T.
@triton.jit
def subtiled_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr, SPLIT: tl.constexpr, TRANSPOSE: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    if TRANSPOSE:
        t = tl.permute(acc, (1, 0)).to(tl.float16)
        tl.store(c_ptr + rn[:, None] * M + rm[None, :], t)
    elif SPLIT:
        halves = tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1))
        c0, c1 = tl.split(halves)
        rh = pn * BN + tl.arange(0, BN // 2)
        tl.store(c_ptr + rm[:, None] * N + rh[None, :], c0.to(tl.float16))
        tl.store(c_ptr + rm[:, None] * N + (rh + BN // 2)[None, :], c1.to(tl.float16))
    else:
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@pytest.mark.parametrize("blocks,warps", [((128, 256, 64), 8), ((128, 128, 64), 4),
                                          ((64, 128, 32), 4), ((128, 64, 32), 8)])
@pytest.mark.parametrize("mode", ["split", "transpose", "whole"])
def test_accumulator_shape_ops(gen, blocks, warps, mode):
    BM, BN, BK = blocks
    M, N, K = 2 * BM, 2 * BN, 4 * BK
    a = torch.randn((M, K), generator=gen, device="cuda").half()
    b = torch.randn((K, N), generator=gen, device="cuda").half()
    c = poisoned((N, M) if mode == "transpose" else (M, N), torch.float16)
    subtiled_matmul[(M // BM, N // BN)](a, b, c, M, N, K, BM, BN, BK, mode == "split",
                                        mode == "transpose", num_warps=warps, num_stages=3)
    ref = a.double() @ b.double()
    if mode == "transpose":
        ref = ref.T
    assert (c.double() - ref).abs().max().item() <= 0.05 + 2e-3 * K


# Two tiles interleaved (join, then a reshape that merges the pair into the
# row), and the interleaved tile taken apart again (reshape, split).
@triton.jit
def interleave(x_ptr, y_ptr, z_ptr, u_ptr, v_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    y = tl.load(y_ptr + r * C + c)
    z = tl.reshape(tl.join(x * 2, y + 1), (R, 2 * C))
    c2 = tl.arange(0, 2 * C)[None, :]
    tl.store(z_ptr + r * (2 * C) + c2, z)
    # (No product feeds a sum: the GPU may fuse the two, and the checks are
    # exact.)
    u, v = tl.split(tl.reshape(tl.load(z_ptr + r * (2 * C) + c2), (R, C, 2)))
    tl.store(u_ptr + r * C + c, u * 3)
    tl.store(v_ptr + r * C + c, v - x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32, torch.int8])
@pytest.mark.parametrize("shape,warps", [((64, 64), 4), ((16, 128), 4), ((128, 32), 8),
                                         ((1, 32), 1)])
def test_join_and_split_of_loaded_tiles(gen, dtype, shape, warps):
    R, C = shape
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=gen, device="cuda").to(dtype)
        y = torch.randn(shape, generator=gen, device="cuda").to(dtype)
    else:
        x = torch.randint(-20, 20, shape, generator=gen, device="cuda").to(dtype)
        y = torch.randint(-20, 20, shape, generator=gen, device="cuda").to(dtype)
    z, u, v = poisoned((R, 2 * C), dtype), poisoned(shape, dtype), poisoned(shape, dtype)
    interleave[(1,)](x, y, z, u, v, R, C, num_warps=warps)
    want = torch.stack([x * 2, y + 1], dim=-1).reshape(R, 2 * C)
    assert torch.equal(z, want)
    assert torch.equal(u, want.reshape(R, C, 2)[..., 0] * 3)
    assert torch.equal(v, want.reshape(R, C, 2)[..., 1] - x)


# A 3-D tile permuted every way and stored contiguously (both sides have
# their own layouts: the permute moves data), and permuted again into a sum
# over its last dim (nothing else sets the permuted layout: the permute
# renames registers).
@triton.jit
def permute3(x_ptr, y_ptr, z_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
             O0: tl.constexpr, O1: tl.constexpr, O2: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * (B * C) + b * C + c) + 1
    y = tl.permute(x, (O0, O1, O2))
    S1: tl.constexpr = (A, B, C)[O1]
    S2: tl.constexpr = (A, B, C)[O2]
    i = tl.arange(0, (A, B, C)[O0])[:, None, None]
    j = tl.arange(0, S1)[None, :, None]
    k = tl.arange(0, S2)[None, None, :]
    tl.store(y_ptr + i * (S1 * S2) + j * S2 + k, y)
    z = tl.sum(tl.permute(x * 2, (O0, O1, O2)), axis=2)
    tl.store(z_ptr + tl.arange(0, (A, B, C)[O0])[:, None] * S1 + tl.arange(0, S1)[None, :], z)


@pytest.mark.parametrize("order", [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1),
                                   (2, 1, 0)])
@pytest.mark.parametrize("shape", [(4, 8, 16), (2, 64, 4)])
def test_permute_3d(gen, order, shape):
    x = torch.randn(shape, generator=gen, device="cuda")
    y = poisoned(tuple(shape[o] for o in order), torch.float32)
    z = poisoned(tuple(shape[o] for o in order[:2]), torch.float32)
    permute3[(1,)](x, y, z, *shape, *order, num_warps=4)
    assert torch.equal(y, (x + 1).permute(order).contiguous())
    ref = ((x.double() + 1).permute(order) * 2).sum(2)
    assert (z.double() - ref).abs().max().item() <= 1e-5 * ref.abs().max().item() + 1e-5


# A renamed view of x (its transpose, or x joined with x + 1) is a dot's
# accumulator, and x is read again after the dot. wgmma must not update the
# accumulator in place: the registers still hold x.
@triton.jit
def view_as_accumulator(a_ptr, b_ptr, out_ptr, s_ptr, M: tl.constexpr, N: tl.constexpr,
                        K: tl.constexpr, JOIN: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if JOIN:
        x = tl.load(s_ptr + rm)[:, None] + tl.arange(0, N // 2)[None, :] * 0.5
        c = tl.reshape(tl.join(x, x + 1.0), (M, N))
        acc = tl.dot(a, b, c)
        tl.store(s_ptr + M + rm, tl.sum(x, axis=1))
    else:
        x = tl.load(s_ptr + rn)[:, None] + tl.arange(0, M)[None, :] * 0.5
        acc = tl.dot(a, b, tl.permute(x, (1, 0)))
        tl.store(s_ptr + N + rn, tl.sum(x, axis=1))
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc)


@pytest.mark.parametrize("join", [False, True])
@pytest.mark.parametrize("warps", [4, 8])
def test_renamed_view_as_accumulator_keeps_its_source(gen, join, warps):
    M, N, K = 64 * warps // 4, 64, 32
    a = torch.randn((M, K), generator=gen, device="cuda").half()
    b = torch.randn((K, N), generator=gen, device="cuda").half()
    n = M if join else N
    s = torch.cat([torch.randn(n, generator=gen, device="cuda"), poisoned(n)])
    out = poisoned((M, N))
    view_as_accumulator[(1,)](a, b, out, s, M, N, K, join, num_warps=warps)
    first = s[:n].double()
    if join:
        x = first[:, None] + torch.arange(N // 2, device="cuda").double()[None, :] * 0.5
        c = torch.stack([x, x + 1], dim=-1).reshape(M, N)
    else:
        x = first[:, None] + torch.arange(M, device="cuda").double()[None, :] * 0.5
        c = x.T
    assert (out.double() - (a.double() @ b.double() + c)).abs().max().item() <= 1e-2 * K**0.5
    assert (s[n:].double() - x.sum(1)).abs().max().item() <= 1e-4 * x.abs().sum(1).max().item()
