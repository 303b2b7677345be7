"""Masked tl.loads of pointer tiles on the tensor memory accelerator: on
sm_90a, a dot operand's load whose pointers are base + i * stride + j (or
its transpose) and whose mask bounds each dim (descriptors-from-pointers)
is served by bulk tensor copies through a map the kernel makes; the same
kernels run on cp.async elsewhere (TESSERA_TARGET=sm_80). tests/ptx/
pointer_tma.py checks which loads convert. Against float64 references on
fresh random inputs with poisoned outputs: ragged shapes (the masks cut
rows, columns and K), B in both orientations, the K loop counting blocks
or elements, unmasked loads, a batch offset in the base, a persistent loop
around the K loop, masks written as `<=` / `>`, and column slices of
larger tensors (row stride above the row length)."""
import pytest

from conftest import poisoned, skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402
from test_tma_gpu import check, randn  # noqa: E402


# C[b] = A[b] @ B[b]; B's element (k, n) at b_ptr + k * sbk + n * sbn (one of
# the two strides is 1). MASK: 0 none, 1 `<` bounds, 2 the same bounds as
# `<=` and `>`, 3 A's first row masked off too (not a box). STEP_K: the loop counts elements (range(0, K, BK)).
@triton.jit
def ptr_matmul(a_ptr, b_ptr, c_ptr, M, N, K, sab, sam, sbb, sbk, sbn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, MASK: tl.constexpr,
               STEP_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + batch * sab + rm[:, None] * sam + rk[None, :]
    b_ptrs = b_ptr + batch * sbb + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    if STEP_K:
        for k in range(0, K, BK):
            a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k), other=0.0)
            b = tl.load(b_ptrs, mask=(rk[:, None] < K - k) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BK
            b_ptrs += BK * sbk
    else:
        for k in range(tl.cdiv(K, BK)):
            if MASK == 0:
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
            elif MASK == 1:
                a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK),
                            other=0.0)
                b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N),
                            other=0.0)
            elif MASK == 2:
                a = tl.load(a_ptrs, mask=(rm[:, None] <= M - 1) & (K - k * BK > rk[None, :]))
                b = tl.load(b_ptrs, mask=(rk[:, None] + k * BK < K) & (N > rn[None, :]))
            else:  # A's rows from the second on: not a box (stays on cp.async)
                a = tl.load(a_ptrs, mask=(rm[:, None] >= 1) & (rm[:, None] < M) &
                            (rk[None, :] < K - k * BK), other=0.0)
                b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N),
                            other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BK
            b_ptrs += BK * sbk
    c = c_ptr + batch * M * N + rm[:, None] * N + rn[None, :]
    tl.store(c, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(gen, M, N, K, dtype, b_nk=False, mask=1, step_k=False, batch=1, pad_cols=0,
        pad_value=None, blocks=(64, 128, 64), warps=4, stages=3):
    BM, BN, BK = blocks

    # A and B are column slices of wider arrays when pad_cols > 0 (the
    # columns past the slice set to pad_value where given).
    def sliced(rows, cols):
        full = randn((batch, rows, cols + pad_cols), dtype, gen)
        if pad_value is not None:
            full[:, :, cols:] = pad_value
        return full[:, :, :cols]

    a = sliced(M, K)
    b = sliced(N, K).transpose(1, 2) if b_nk else sliced(K, N)
    c = poisoned((batch, M, N))
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN), batch)
    k = ptr_matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                         b.stride(2), BM, BN, BK, mask, step_k, num_warps=warps,
                         num_stages=stages)
    for i in range(batch):
        ref = a[i].double() @ b[i].double()
        if mask == 3:
            ref[0] = 0
        check(c[i], ref, K)
    return k


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("b_nk", [False, True])
@pytest.mark.parametrize("shape", [(192, 256, 384), (200, 136, 5 * 64 + 24), (1, 8, 16)])
def test_masked_matmul(gen, dtype, b_nk, shape):
    run(gen, *shape, dtype, b_nk=b_nk)


@pytest.mark.parametrize("b_nk", [False, True])
def test_unmasked_loads(gen, b_nk):
    run(gen, 128, 256, 6 * 64, torch.float16, b_nk=b_nk, mask=0)


@pytest.mark.parametrize("b_nk", [False, True])
def test_masks_written_otherwise(gen, b_nk):
    run(gen, 200, 136, 5 * 64 + 24, torch.float16, b_nk=b_nk, mask=2)


def test_mask_that_is_not_a_box(gen):
    run(gen, 200, 136, 5 * 64 + 24, torch.float16, mask=3)


@pytest.mark.parametrize("b_nk", [False, True])
def test_loop_counts_elements(gen, b_nk):
    run(gen, 130, 250, 3 * 64 + 40, torch.float16, b_nk=b_nk, step_k=True)


def test_batch_offset_and_slices(gen):
    run(gen, 100, 130, 200, torch.float16, batch=3, pad_cols=24)
    run(gen, 100, 130, 200, torch.bfloat16, b_nk=True, batch=2, pad_cols=40)


@pytest.mark.parametrize("b_nk", [False, True])
@pytest.mark.parametrize("k", [100, 97])
def test_ragged_k_inside_a_16_byte_chunk(gen, b_nk, k):
    """K * 2 bytes not a multiple of 16 and each row followed by 1000s: the
    copy engine's boxes past K must read zeros there, not the row's next
    bytes (its stores write up to the next 16-byte boundary: see the README,
    tensor descriptors)."""
    # Rows 128 elements apart for A (and B as N x K); B as K x N too, with
    # N = k modulo 8, so that both operands qualify for the copy engine.
    run(gen, 130, 128 + k % 8, k, torch.float16, b_nk=b_nk, pad_cols=128 - k, pad_value=1000.0)


@pytest.mark.parametrize("blocks,stages", [((16, 64, 128), 6), ((32, 64, 128), 4)])
def test_mma_sync_dot_keeps_pointer_loads(gen, blocks, stages):
    """Blocks of fewer rows than a warpgroup's 64 (the skinny matmul's)
    run on mma.sync, whose ring fills by cp.async whatever the load is: the
    pointer loads stay as written, and the kernel one tile a program."""
    k = run(gen, 16, 200, 1000, torch.float16, blocks=blocks, stages=stages)
    ptx = k.asm["ptx"]
    assert "mma.sync" in ptx
    assert "cp.async.bulk.tensor" not in ptx and "tessera.persistent" not in ptx


def test_big_blocks_eight_warps(gen):
    run(gen, 300, 520, 1000, torch.float16, blocks=(128, 256, 64), warps=8, stages=4)


# A persistent kernel: each program runs tiles pid, pid + programs, ...; the
# maps are made once per tile (their base moves with the tile).
@triton.jit
def ptr_matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk,
                          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                          PROGRAMS: tl.constexpr):
    tiles_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * tiles_n
    for tile in range(tl.program_id(0), tiles, PROGRAMS):
        rm = (tile // tiles_n) * BM + tl.arange(0, BM)
        rn = (tile % tiles_n) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            kk = k * BK + rk
            a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :],
                        mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
            b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :],
                        mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_persistent(gen):
    M, N, K = 200, 520, 328
    a, b = randn((M, K), torch.float16, gen), randn((K, N), torch.float16, gen)
    c = poisoned((M, N))
    ptr_matmul_persistent[(7,)](a, b, c, M, N, K, a.stride(0), b.stride(0), 64, 128, 64, 7,
                                num_warps=4, num_stages=3)
    check(c, a.double() @ b.double(), K)


# One load read both ways, as flash attention's backward reads Q^T: Y is
# stored [N, K], its tile y_t is [BK, BN] (K stride 1), and the loop takes
# X @ y_t and y_t^T @ Z. The copy engine reads the [BN, BK] box of Y once
# for both dots.
@triton.jit
def both_ways(x_ptr, y_ptr, z_ptr, c_ptr, d_ptr, K, sx, sy, sz,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, BD: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rd = tl.arange(0, BD)
    x_ptrs = x_ptr + rm[:, None] * sx + rk[None, :]
    y_ptrs = y_ptr + rk[:, None] + rn[None, :] * sy
    z_ptrs = z_ptr + rk[:, None] * sz + rd[None, :]
    acc_c = tl.zeros((BM, BN), dtype=tl.float32)
    acc_d = tl.zeros((BN, BD), dtype=tl.float32)
    for k in range(K // BK):
        x = tl.load(x_ptrs)
        y_t = tl.load(y_ptrs)
        z = tl.load(z_ptrs)
        acc_c = tl.dot(x, y_t, acc_c)
        acc_d = tl.dot(tl.trans(y_t), z, acc_d)
        x_ptrs += BK
        y_ptrs += BK
        z_ptrs += BK * sz
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc_c)
    tl.store(d_ptr + rn[:, None] * BD + rd[None, :], acc_d)


def test_one_load_read_both_ways(gen):
    BM, BN, BK, BD = 64, 64, 32, 64
    K = 4 * BK
    x = randn((BM, K), torch.float16, gen)
    y = randn((BN, K + 16), torch.float16, gen)[:, :K]
    z = randn((K, BD), torch.float16, gen)
    c, d = poisoned((BM, BN)), poisoned((BN, BD))
    both_ways[(1,)](x, y, z, c, d, K, x.stride(0), y.stride(0), z.stride(0), BM, BN, BK, BD,
                    num_warps=4, num_stages=3)
    check(c, x.double() @ y.double().T, K)
    check(d, y.double() @ z.double(), K)


# Rows and columns wrapped into range with `% M` / `% N`, as Triton's matmul
# tutorial writes them (tests/python/kernels/dots.py's wrapped_matmul):
# past M a row of A is a wrapped row, which reaches no store (the store
# masks rows below M), so the copy engine may read zeros there. STORE_ALL
# stores every row of the block, wrapped ones included, into a C with room
# for them: then the wrapped rows must be the real ones, and the loads stay
# pointer loads.
@triton.jit
def wrapped_rows(a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm, BM: tl.constexpr,
                 BN: tl.constexpr, BK: tl.constexpr, STORE_ALL: tl.constexpr):
    rm = (tl.program_id(0) * BM + tl.arange(0, BM)) % M
    rn = (tl.program_id(1) * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * sbk
    cm = tl.program_id(0) * BM + tl.arange(0, BM)
    cn = tl.program_id(1) * BN + tl.arange(0, BN)
    if STORE_ALL:
        tl.store(c_ptr + cm[:, None] * scm + cn[None, :], acc)
    else:
        tl.store(c_ptr + cm[:, None] * scm + cn[None, :], acc,
                 mask=(cm[:, None] < M) & (cn[None, :] < N))


@pytest.mark.parametrize("store_all", [False, True])
@pytest.mark.parametrize("shape", [(200, 136, 5 * 64 + 24), (40, 24, 64), (128, 256, 128)])
def test_wrapped_rows(gen, shape, store_all):
    BM, BN, BK = 64, 128, 64
    M, N, K = shape
    rows, cols = triton.cdiv(M, BM) * BM, triton.cdiv(N, BN) * BN
    a, b = randn((M, K), torch.float16, gen), randn((K, N), torch.float16, gen)
    c = poisoned((rows, cols))
    grid = (rows // BM, cols // BN)
    wrapped_rows[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM, BN, BK,
                       store_all, num_warps=4, num_stages=3)
    ref = a.double() @ b.double()
    if store_all:  # every row and column of the grid, wrapped
        ref = ref[torch.arange(rows) % M][:, torch.arange(cols) % N]
        check(c, ref, K)
    else:
        check(c[:M, :N], ref, K)
        assert torch.isnan(c[M:]).all() and torch.isnan(c[:, N:]).all()


@triton.jit
def grouped_wrapped(a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm, BM: tl.constexpr,
                    BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
                    ASSUME: tl.constexpr):
    # Triton's matmul tutorial: programs take blocks of C in groups of GROUP
    # block rows, rows and columns wrapped into range, and (ASSUME 1) the
    # program's block row and column assumed >= 0, which no analysis proves
    # of a quotient by cdiv(N, BN). ASSUME 2: after an early return, still
    # before the loads; 3: in a branch the loads are not in, so the loads
    # stay pointer loads.
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    in_group = GROUP * num_pid_n
    first_m = pid // in_group * GROUP
    group_m = min(num_pid_m - first_m, GROUP)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m
    if ASSUME == 2:
        if pid >= num_pid_m * num_pid_n:
            return
    if ASSUME == 1:
        tl.assume(pid_m >= 0 and pid_n >= 0)
    if ASSUME == 2:
        tl.assume(pid_m >= 0)
        tl.assume(pid_n > -1)
    if ASSUME == 3:
        if K > 0:
            tl.assume(pid_m >= 0 and pid_n >= 0)
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * sbk
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * scm + cn[None, :], acc,
             mask=(cm[:, None] < M) & (cn[None, :] < N))


@pytest.mark.parametrize("assume", [0, 1, 2, 3])
@pytest.mark.parametrize("shape", [(200, 136, 5 * 64 + 24), (1000, 520, 96), (40, 24, 64)])
def test_grouped_wrapped(gen, shape, assume):
    BM, BN, BK = 64, 128, 64
    M, N, K = shape
    a, b = randn((M, K), torch.float16, gen), randn((K, N), torch.float16, gen)
    c = poisoned((M, N))
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    grouped_wrapped[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM, BN, BK, 4,
                          assume, num_warps=4, num_stages=3)
    check(c, a.double() @ b.double(), K)
