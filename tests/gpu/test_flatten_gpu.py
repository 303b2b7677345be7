"""Persistent matmuls whose loop over tiles is marked `flatten=True`
(tutorial 09's form): flatten-loops fuses it with the K loop, so that one
ring of copies runs across tiles; pointer loads carried by the K loop (the
example matmul's) read through one map made before the tile loop. Ragged shapes, K below one block and K = 0
(the unflattened loop's path), fewer tiles than programs and more programs
than tiles, on the tensor memory accelerator (descriptors) and on cp.async
(pointers), against float64 products with poisoned outputs. Also: integer
division by values fixed before a loop, which the emitter turns into a
multiply-high (those loops' tile coordinates divide every iteration)."""
import numpy as np
import pytest

from conftest import poisoned, skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402
from tessera.tools.tensor_descriptor import TensorDescriptor  # noqa: E402


# Tiles in groups of GROUP rows of tiles, column by column within a group
# (the last group may have fewer rows): divisions by a value fixed before
# the loop and by one that changes per tile.
@triton.jit
def grouped_tile(tile, per_group, tiles_m, GROUP: tl.constexpr):
    first_m = (tile // per_group) * GROUP
    rows = min(tiles_m - first_m, GROUP)
    return first_m + tile % rows, (tile % per_group) // rows


@triton.jit
def descriptor_persistent(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr, GROUP: tl.constexpr, NUM_SMS: tl.constexpr,
                          FLATTEN: tl.constexpr):
    start_pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    tile_id_c = start_pid - NUM_SMS
    num_pid_in_group = GROUP * num_pid_n
    for tile_id in tl.range(start_pid, num_pid_m * num_pid_n, NUM_SMS, flatten=FLATTEN):
        pid_m, pid_n = grouped_tile(tile_id, num_pid_in_group, num_pid_m, GROUP)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pid_m * BM, ki * BK])
            b = b_desc.load([pid_n * BN, ki * BK])
            acc = tl.dot(a, b.T, acc)
        tile_id_c += NUM_SMS
        pid_m, pid_n = grouped_tile(tile_id_c, num_pid_in_group, num_pid_m, GROUP)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


# Pointer loads (cp.async rings), as tutorial 09's kernel writes them: the
# tile's row and column indices are tiles, which the fused loop would carry
# across steps (measured slower), so the loops stay nested; the result must
# not depend on the hint.
@triton.jit
def pointer_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
                       NUM_SMS: tl.constexpr, FLATTEN: tl.constexpr):
    start_pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_pid_in_group = GROUP * num_pid_n
    rk = tl.arange(0, BK)
    for tile_id in tl.range(start_pid, num_pid_m * num_pid_n, NUM_SMS, flatten=FLATTEN):
        pid_m, pid_n = grouped_tile(tile_id, num_pid_in_group, num_pid_m, GROUP)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        am = tl.where(rm < M, rm, 0)
        bn = tl.where(rn < N, rn, 0)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            k = ki * BK + rk
            a = tl.load(a_ptr + am[:, None] * stride_am + k[None, :], mask=k[None, :] < K,
                        other=0.0)
            b = tl.load(b_ptr + k[:, None] * stride_bk + bn[None, :], mask=k[:, None] < K,
                        other=0.0)
            acc = tl.dot(a, b, acc)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


# The example matmul's loop made persistent by hand: pointers carried by
# the K loop, the tile's rows and columns tiles that only the epilogue
# reads after the loop. On sm_90a the loads take the copy engine with one
# map made before the tile loop (the tile's offsets are coordinates), and
# the loops fuse, the epilogue's tiles made again once a tile.
@triton.jit
def carried_pointer_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                               GROUP: tl.constexpr, NUM_SMS: tl.constexpr):
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=True):
        pid_m, pid_n = grouped_tile(tile, GROUP * num_pid_n, num_pid_m, GROUP)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
        b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            k_left = K - k * BK
            a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BK
            b_ptrs += BK * stride_bk
        tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


# (M, N, K, programs); descriptors need 16-byte row strides (N, K multiples
# of 8) and K > 0.
SHAPES = [(1000, 704, 200, 132), (256, 512, 32, 4), (128, 256, 64, 200), (1024, 1024, 1024, 7),
          (300, 520, 1000, 132)]
POINTER_SHAPES = SHAPES + [(384, 256, 0, 3), (1000, 700, 100, 132), (77, 33, 5, 2)]


def _check(c, a, b):
    ref = a.double() @ b.double()
    assert not torch.isnan(c).any()
    tol = 1e-2 * max(1.0, ref.abs().max().item())
    torch.testing.assert_close(c.double(), ref, atol=tol, rtol=1e-2)


@pytest.mark.parametrize("M,N,K,programs", SHAPES)
@pytest.mark.parametrize("blocks,warps,stages", [((128, 256, 64), 8, 3), ((128, 128, 64), 4, 4),
                                                 ((64, 64, 32), 4, 2)])
def test_flattened_descriptor_matmul(gen, M, N, K, programs, blocks, warps, stages):
    BM, BN, BK = blocks
    a = torch.randn((M, K), generator=gen, device="cuda").half()
    b = torch.randn((K, N), generator=gen, device="cuda").half()
    c = poisoned((M, N), torch.float16)
    ad = TensorDescriptor.from_tensor(a, [BM, BK])
    bd = TensorDescriptor.from_tensor(b.T.contiguous(), [BN, BK])
    cd = TensorDescriptor.from_tensor(c, [BM, BN])
    grid = (min(programs, triton.cdiv(M, BM) * triton.cdiv(N, BN)),)
    descriptor_persistent[grid](ad, bd, cd, M, N, K, BM, BN, BK, 8, programs, True,
                                num_warps=warps, num_stages=stages)
    _check(c, a, b)


@pytest.mark.parametrize("M,N,K,programs", POINTER_SHAPES)
@pytest.mark.parametrize("flatten", [True, False])
def test_flattened_pointer_matmul(gen, M, N, K, programs, flatten):
    BM, BN, BK = 128, 128, 64
    a = torch.randn((M, K), generator=gen, device="cuda").half()
    b = torch.randn((K, N), generator=gen, device="cuda").half()
    c = poisoned((M, N), torch.float16)
    grid = (min(programs, triton.cdiv(M, BM) * triton.cdiv(N, BN)),)
    pointer_persistent[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM, BN, BK,
                             8, programs, flatten, num_warps=8, num_stages=3)
    _check(c, a, b)


@pytest.mark.parametrize("M,N,K,programs", POINTER_SHAPES)
@pytest.mark.parametrize("blocks,warps,stages", [((128, 256, 64), 8, 3), ((64, 64, 32), 4, 2)])
def test_flattened_carried_pointer_matmul(gen, M, N, K, programs, blocks, warps, stages):
    BM, BN, BK = blocks
    a = torch.randn((M, K), generator=gen, device="cuda").half()
    b = torch.randn((K, N), generator=gen, device="cuda").half()
    c = poisoned((M, N), torch.float16)
    grid = (min(programs, triton.cdiv(M, BM) * triton.cdiv(N, BN)),)
    carried_pointer_persistent[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM,
                                     BN, BK, 8, programs, num_warps=warps, num_stages=stages)
    _check(c, a, b)


# A sum carried by the inner loop that starts from a nonzero value each
# tile, and an outer carried value the epilogue advances: the fused loop's
# general form (a select on each tile's first step, not use_acc), its rows
# read through a descriptor (the tile's coordinate a scalar).
@triton.jit
def row_sums(x_desc, out_ptr, count_ptr, R, C, BR: tl.constexpr, BC: tl.constexpr,
             NUM: tl.constexpr):
    done = 0
    for t in tl.range(tl.program_id(0), tl.cdiv(R, BR), NUM, flatten=True):
        row0 = t * BR
        acc = tl.full((BR,), 1.0, tl.float32)
        for c0 in range(0, C, BC):
            acc += tl.sum(x_desc.load([row0, c0]), 1)
        rows = row0 + tl.arange(0, BR)
        tl.store(out_ptr + rows, acc, mask=rows < R)
        done += 1
    tl.store(count_ptr + tl.program_id(0), done)


@pytest.mark.parametrize("R,C", [(1000, 300), (64, 20), (5, 4)])
def test_flattened_general_carried_values(gen, R, C):
    x = torch.randn((R, C), generator=gen, device="cuda")
    out = poisoned((R,), torch.float32)
    count = poisoned((3,), torch.int32)
    row_sums[(3,)](TensorDescriptor.from_tensor(x, [32, 64]), out, count, R, C, 32, 64, 3)
    torch.testing.assert_close(out.double(), x.double().sum(1) + 1, atol=1e-4, rtol=1e-4)
    tiles = -(-R // 32)
    assert count.tolist() == [len(range(p, tiles, 3)) for p in range(3)]


# q = x // d and r = x % d (C's truncation) with d read before the loop;
# UNSIGNED divides the same bits as uint32.
@triton.jit
def divide_in_loop(x_ptr, d_ptr, q_ptr, r_ptr, n, STEPS: tl.constexpr, BLOCK: tl.constexpr,
                   UNSIGNED: tl.constexpr):
    d = tl.load(d_ptr + tl.program_id(0))
    if UNSIGNED:
        d = d.to(tl.uint32, bitcast=True)
    for s in range(STEPS):
        offs = (tl.program_id(0) * STEPS + s) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        if UNSIGNED:
            x = x.to(tl.uint32, bitcast=True)
        tl.store(q_ptr + offs, (x // d).to(tl.int32, bitcast=True), mask=offs < n)
        tl.store(r_ptr + offs, (x % d).to(tl.int32, bitcast=True), mask=offs < n)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_division_by_loop_invariant(dtype):
    rng = np.random.default_rng()
    info = np.iinfo(dtype)
    divisors = [1, 2, 3, 7, 8, 641, 65537, 1 << 20, info.max, info.max - 1, (1 << 31) + 5]
    if dtype == np.int32:
        divisors = [1, 2, 3, 7, 641, 1 << 30, info.max, -1, -3, -1000003, info.min, info.min + 1]
    steps, block = 4, 128
    per = steps * block
    d = np.array(divisors, dtype=np.int64).astype(dtype)
    x = rng.integers(info.min, info.max, size=len(divisors) * per, dtype=dtype, endpoint=True)
    x[:6] = [0, 1, info.max, info.min, info.max - 1, info.min + 1]
    x[per:per + 4] = [info.max, info.min, 0, 1]
    if dtype == np.int32:  # INT_MIN // -1 overflows in C; keep it out
        minus_one = divisors.index(-1)
        x[minus_one * per:(minus_one + 1) * per] //= 2
    q = poisoned((x.size,), torch.int32)
    r = poisoned((x.size,), torch.int32)
    divide_in_loop[(len(divisors),)](torch.from_numpy(x.view(np.int32)).cuda(),
                                     torch.from_numpy(d.view(np.int32)).cuda(), q, r, x.size,
                                     steps, block, dtype == np.uint32)
    xs = x.astype(np.int64)
    ds = np.repeat(d.astype(np.int64), per)
    want_q = np.sign(xs) * np.sign(ds) * (np.abs(xs) // np.abs(ds))  # truncation, as C
    want_r = xs - want_q * ds
    np.testing.assert_array_equal(q.cpu().numpy().view(dtype).astype(np.int64), want_q)
    np.testing.assert_array_equal(r.cpu().numpy().view(dtype).astype(np.int64), want_r)


# Signed and unsigned division by one divisor in one loop: a cast between
# i32 and u32 keeps the register, and each needs its own multiplier.
@triton.jit
def divide_both_ways(x_ptr, d_ptr, q_ptr, n, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    d = tl.load(d_ptr + tl.program_id(0))
    du = d.to(tl.uint32, bitcast=True)
    for s in range(STEPS):
        offs = (tl.program_id(0) * STEPS + s) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(q_ptr + 2 * offs, x // d, mask=offs < n)
        xu = x.to(tl.uint32, bitcast=True)
        tl.store(q_ptr + 2 * offs + 1, (xu // du).to(tl.int32, bitcast=True), mask=offs < n)


def test_signed_and_unsigned_division_by_one_invariant():
    rng = np.random.default_rng()
    divisors = np.array([-3, 7, -1, 1 << 30, -(1 << 31), 5], dtype=np.int32)
    steps, block = 2, 128
    per = steps * block
    x = rng.integers(-(1 << 31), 1 << 31, size=len(divisors) * per, dtype=np.int64).astype(np.int32)
    minus_one = list(divisors).index(-1)
    x[minus_one * per:(minus_one + 1) * per] //= 2  # INT_MIN // -1 overflows in C
    q = poisoned((2 * x.size,), torch.int32)
    divide_both_ways[(len(divisors),)](torch.from_numpy(x).cuda(), torch.from_numpy(divisors).cuda(),
                                       q, x.size, steps, block)
    got = q.cpu().numpy().reshape(-1, 2)
    xs, ds = x.astype(np.int64), np.repeat(divisors.astype(np.int64), per)
    want_signed = np.sign(xs) * np.sign(ds) * (np.abs(xs) // np.abs(ds))
    want_unsigned = (xs % (1 << 32)) // (ds % (1 << 32))
    np.testing.assert_array_equal(got[:, 0].astype(np.int64), want_signed)
    np.testing.assert_array_equal(got[:, 1].view(np.uint32).astype(np.int64), want_unsigned)


# q = x // D and r = x % D for a constexpr D (C's truncation): the emitter
# writes powers of two as shifts and other 32-bit divisors as a multiply-high.
@triton.jit
def divide_by_constant(x_ptr, q_ptr, r_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(q_ptr + offs, x // D, mask=offs < n)
    tl.store(r_ptr + offs, x % D, mask=offs < n)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("d", [1, 2, 16, 1024, 1 << 30, 3, 7, 641, 1000003, (1 << 31) - 1])
def test_division_by_constant(dtype, d):
    rng = np.random.default_rng()
    info = np.iinfo(dtype)
    n = 4096
    x = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    edges = [0, 1, 2, d - 1, d, d + 1, info.max, info.max - 1, info.max - d, info.min, info.min + 1]
    if info.min < 0:
        edges += [-1, -2, -d + 1, -d, -d - 1, info.min + d]
    edges = [e for e in edges if info.min <= e <= info.max]
    x[:len(edges)] = np.array(edges, dtype=object).astype(dtype)
    signed, unsigned = {np.int32: (torch.int32, torch.uint32), np.uint32: (torch.int32, torch.uint32),
                        np.int64: (torch.int64, torch.uint64),
                        np.uint64: (torch.int64, torch.uint64)}[dtype]
    out_dtype = signed if info.min < 0 else unsigned  # (poisoned through a signed view)
    q, r = (poisoned((n,), signed).view(out_dtype) for _ in range(2))
    divide_by_constant[(n // 256,)](torch.from_numpy(x).cuda(), q, r, n, d, 256)
    xs = [int(v) for v in x]
    want_q = [abs(v) // d * (1 if v >= 0 else -1) for v in xs]  # truncation, as C
    want_r = [v - w * d for v, w in zip(xs, want_q)]
    got_q = [int(v) for v in q.cpu().numpy()]
    got_r = [int(v) for v in r.cpu().numpy()]
    assert got_q == want_q and got_r == want_r


# Walks groups of tiles as tutorial 08's grouped GEMM does: for each group a
# while loop takes this program's tiles in it, none in most groups (and in
# the empty ones); its condition reads memory, and the values it carries are
# used after it whether it ran or not.
@triton.jit
def walk_groups(sizes_ptr, out_ptr, n_groups, NPROG: tl.constexpr):
    tile = tl.program_id(0)
    start = 0
    done = 0
    for g in range(n_groups):
        count = tl.load(sizes_ptr + g)
        while tile >= start and tile < start + tl.load(sizes_ptr + g):
            tl.store(out_ptr + tile, g * 1000 + (tile - start) // (count % 7 + 1))
            done += 1
            tile += NPROG
        start += count
    tl.store(out_ptr + 4096 + tl.program_id(0), done * 100000 + tile)


@pytest.mark.parametrize("nprog", [1, 16, 132])
def test_while_loops_that_mostly_run_zero_times(nprog):
    rng = np.random.default_rng()
    sizes = rng.integers(0, 40, size=12).astype(np.int32)
    sizes[[2, 5]] = 0
    out = poisoned((4096 + nprog,), torch.int32)
    walk_groups[(nprog,)](torch.from_numpy(sizes).cuda(), out, len(sizes), nprog)
    want = np.full(4096 + nprog, 0x5A, np.int64)  # poisoned()'s value where nothing is stored
    for pid in range(nprog):
        tile, start, done = pid, 0, 0
        for g, count in enumerate(int(c) for c in sizes):
            while start <= tile < start + count:
                want[tile] = g * 1000 + (tile - start) // (count % 7 + 1)
                done += 1
                tile += nprog
            start += count
        want[4096 + pid] = done * 100000 + tile
    np.testing.assert_array_equal(out.cpu().numpy().astype(np.int64), want)


# A carried value replaced in one branch of an `if` while a value sharing
# its registers (a hint) is read after the if: the if's result must not be
# written into the carried value's registers there.
@triton.jit
def hinted_then_replaced(out_ptr, flags_ptr, n):
    a = tl.load(flags_ptr) * 4
    for i in range(n):
        h = tl.multiple_of(a, 4)
        if tl.load(flags_ptr + 1 + i) != 0:
            a = tl.load(flags_ptr + 100 + i) * 4
        tl.store(out_ptr + i, h)


def test_if_result_keeps_a_hinted_value():
    rng = np.random.default_rng()
    n = 64
    flags = rng.integers(0, 1000, size=200, dtype=np.int32)
    flags[1:1 + n] = rng.integers(0, 2, size=n)
    out = poisoned((n,), torch.int32)
    hinted_then_replaced[(1,)](out, torch.from_numpy(flags).cuda(), n)
    want, a = [], int(flags[0]) * 4
    for i in range(n):
        want.append(a)
        if flags[1 + i] != 0:
            a = int(flags[100 + i]) * 4
    assert out.cpu().tolist() == want


# A K loop that stores what its next step loads: the fused loop's loads must
# stay in order with that store (only the epilogue's stores may be passed
# by the next tiles' copies). One program, so the order is the program's.
@triton.jit
def doubling_persistent(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr, FLATTEN: tl.constexpr):
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(0, tl.cdiv(M, BM) * tiles_n, 1, flatten=FLATTEN):
        pm = tile // tiles_n
        pn = tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            a = a_desc.load([pm * BM, k * BK])
            acc = tl.dot(a, b_desc.load([pn * BN, k * BK]).T, acc)
            a_desc.store([pm * BM, (k + 1) * BK], a * 2)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("flatten", [True, False])
def test_flattened_loop_keeps_its_stores_in_order(gen, flatten):
    M, N, K, BM, BN, BK = 128, 128, 256, 64, 64, 64
    a = (torch.rand((M, K), generator=gen, device="cuda") - 0.5).half()
    b = (torch.rand((N, K), generator=gen, device="cuda") - 0.5).half()
    ref_a, ref_c = a.double().cpu().clone(), torch.zeros((M, N), dtype=torch.float64)
    bd64 = b.double().cpu()
    for tile in range((M // BM) * (N // BN)):
        pm, pn = divmod(tile, N // BN)
        rows, cols = slice(pm * BM, (pm + 1) * BM), slice(pn * BN, (pn + 1) * BN)
        for k in range(K // BK):
            blk = ref_a[rows, k * BK:(k + 1) * BK].clone()
            ref_c[rows, cols] += blk @ bd64[cols, k * BK:(k + 1) * BK].T
            if (k + 1) * BK < K:
                ref_a[rows, (k + 1) * BK:(k + 2) * BK] = blk * 2
    c = poisoned((M, N), torch.float32)
    doubling_persistent[(1,)](TensorDescriptor.from_tensor(a, [BM, BK]),
                              TensorDescriptor.from_tensor(b, [BN, BK]), c, M, N, K, BM, BN, BK,
                              flatten, num_warps=4, num_stages=3)
    torch.testing.assert_close(c.double().cpu(), ref_c, atol=2e-2, rtol=1e-2)
