"""Tensor descriptors made in the kernel (tl.make_tensor_descriptor) on the
tensor memory accelerator: on sm_90a the kernel builds each tensor map in
shared memory, copies it to its program's slot of the global scratch the
runtime passes, and the dot's rings fill by bulk tensor copies through it
(tests/ptx/tma_device.py checks the PTX); on other targets
(TESSERA_TARGET=sm_80) the same kernels run on cp.async. Against float64
references on fresh random inputs with poisoned outputs. The cases cover
row strides that are not the row length (column slices of larger tensors),
B in both orientations, ragged shapes, zero and NaN padding, a map built
once per program and used for many tiles (a persistent kernel), maps
rebuilt for every tile from pointers loaded in the kernel (a grouped
GEMM), descriptor shapes smaller than the blocks' range, and empty or
negative shapes (every element reads the padding)."""
import pytest

from conftest import poisoned, skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402
from test_tma_gpu import check, randn  # noqa: E402


# A's descriptor is [a_rows, a_cols] with row stride stride_a; B's is [K, N]
# (B_KN) or [N, K] read transposed, with row stride stride_b.
@triton.jit
def made_matmul(a_ptr, b_ptr, c_ptr, M, N, K, a_rows, a_cols, stride_a, stride_b,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, B_KN: tl.constexpr,
                PADDING: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[a_rows, a_cols], strides=[stride_a, 1],
                                       block_shape=[BM, BK], padding_option=PADDING)
    if B_KN:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_b, 1],
                                           block_shape=[BK, BN], padding_option=PADDING)
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[stride_b, 1],
                                           block_shape=[BN, BK], padding_option=PADDING)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK])
        if B_KN:
            b = b_desc.load([k * BK, pid_n * BN])
        else:
            b = b_desc.load([pid_n * BN, k * BK]).T
        acc = tl.dot(a, b, acc)
    rows = pid_m * BM + tl.arange(0, BM)[:, None]
    cols = pid_n * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))


# Block pointers: A [M, K] and B either [K, N] or the [N, K] array read as
# its transpose (order (0, 1)), advanced along K; BOUNDS: boundary_check on
# both dims (else none: the shapes must then be multiples of the blocks).
@triton.jit
def block_ptr_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_bn,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, B_NK: tl.constexpr,
                     BOUNDS: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_blocks = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (pid_m * BM, 0), (BM, BK), (1, 0))
    if B_NK:
        b_blocks = tl.make_block_ptr(b_ptr, (K, N), (1, stride_bn), (0, pid_n * BN), (BK, BN),
                                     (0, 1))
    else:
        b_blocks = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, pid_n * BN), (BK, BN),
                                     (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        if BOUNDS:
            a = tl.load(a_blocks, boundary_check=(0, 1))
            b = tl.load(b_blocks, boundary_check=(0, 1))
        else:
            a = tl.load(a_blocks)
            b = tl.load(b_blocks)
        acc = tl.dot(a, b, acc)
        a_blocks = tl.advance(a_blocks, (0, BK))
        b_blocks = tl.advance(b_blocks, (BK, 0))
    rows = pid_m * BM + tl.arange(0, BM)[:, None]
    cols = pid_n * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))


# Persistent: the maps are made once, before the loop over tiles.
@triton.jit
def made_matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                           BK: tl.constexpr, PROGRAMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    tiles_n = tl.cdiv(N, BN)
    for tile in range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, PROGRAMS):
        pid_m = tile // tiles_n
        pid_n = tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            a = a_desc.load([pid_m * BM, k * BK])
            b = b_desc.load([pid_n * BN, k * BK])
            acc = tl.dot(a, b.T, acc)
        rows = pid_m * BM + tl.arange(0, BM)[:, None]
        cols = pid_n * BN + tl.arange(0, BN)[None, :]
        tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))


# Grouped: each tile belongs to one of GROUPS problems, whose pointers and
# sizes the kernel loads; its maps are rebuilt for every tile.
@triton.jit
def made_matmul_grouped(a_ptrs, b_ptrs, c_ptrs, sizes, GROUPS: tl.constexpr, BM: tl.constexpr,
                        BN: tl.constexpr, BK: tl.constexpr, TILES: tl.constexpr,
                        PROGRAMS: tl.constexpr):
    for tile in range(tl.program_id(0), GROUPS * TILES, PROGRAMS):
        g = tile // TILES
        t = tile % TILES
        M = tl.load(sizes + 3 * g)
        N = tl.load(sizes + 3 * g + 1)
        K = tl.load(sizes + 3 * g + 2)
        a_ptr = tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))
        b_ptr = tl.load(b_ptrs + g).to(tl.pointer_type(tl.float16))
        c_ptr = tl.load(c_ptrs + g).to(tl.pointer_type(tl.float32))
        a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                           block_shape=[BM, BK])
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                           block_shape=[BK, BN])
        tiles_n = tl.cdiv(N, BN)
        pid_m = t // tiles_n
        pid_n = t % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([k * BK, pid_n * BN]),
                         acc)
        rows = pid_m * BM + tl.arange(0, BM)[:, None]
        cols = pid_n * BN + tl.arange(0, BN)[None, :]
        tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N) & (pid_m * BM < M))


def matmul(a, b, c, blocks, b_kn=False, warps=4, stages=3, padding="zero", a_shape=None):
    BM, BN, BK = blocks
    (M, K), N = a.shape, c.shape[1]
    a_rows, a_cols = a_shape or (M, K)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    made_matmul[grid](a, b, c, M, N, K, a_rows, a_cols, a.stride(0), b.stride(0), BM, BN, BK, b_kn,
                      padding, num_warps=warps, num_stages=stages)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("warps,blocks", [(4, (64, 128, 64)), (8, (128, 128, 64)),
                                          (8, (128, 256, 64))])
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_matmul(gen, dtype, warps, blocks, stages):
    BM, BN, BK = blocks
    M, N, K = 2 * BM + 40, BN + 72, 5 * BK + 24  # every dim ragged
    a, b = randn((M, K), dtype, gen), randn((N, K), dtype, gen)
    c = poisoned((M, N))
    matmul(a, b, c, blocks, warps=warps, stages=stages)
    check(c, a.double() @ b.double().T, K)


@pytest.mark.parametrize("dtype,bk", [(torch.float16, 32), (torch.float16, 16),
                                      (torch.float8_e4m3fn, 64), (torch.float8_e4m3fn, 128)])
def test_narrow_blocks_and_fp8(gen, dtype, bk):
    BM, BN = 64, 128
    M, N, K = 136, 200, 5 * bk + (8 if dtype == torch.float16 else 16)
    a, b = randn((M, K), dtype, gen), randn((N, K), dtype, gen)
    c = poisoned((M, N))
    matmul(a, b, c, (BM, BN, bk))
    check(c, a.double() @ b.double().T, K)


@pytest.mark.parametrize("b_kn", [False, True])
def test_views_with_offsets_and_row_pitch(gen, b_kn):
    """Column slices: the row stride is not the row length, and the bases
    are not their allocations'."""
    BM, BN, BK = 64, 128, 64
    M, N, K = 150, 136, 3 * BK + 40
    a_big = randn((M, K + 72), torch.float16, gen)
    a = a_big[:, 24:24 + K]
    if b_kn:
        b = randn((K, N + 56), torch.float16, gen)[:, 16:16 + N]
    else:
        b = randn((N, K + 40), torch.float16, gen)[:, 8:8 + K]
    c = poisoned((M, N))
    matmul(a, b, c, (BM, BN, BK), b_kn=b_kn)
    check(c, a.double() @ (b.double() if b_kn else b.double().T), K)


def test_nan_padding(gen):
    """Out-of-bounds elements read NaN: a ragged K makes every sum NaN, a
    K that the blocks divide leaves them exact."""
    BM, BN, BK = 64, 128, 64
    for K, ragged in ((2 * BK, False), (2 * BK + 8, True)):
        M, N = 100, 128
        a, b = randn((M, K), torch.bfloat16, gen), randn((K, N), torch.bfloat16, gen)
        c = torch.zeros((M, N), device="cuda") if ragged else poisoned((M, N))
        matmul(a, b, c, (BM, BN, BK), b_kn=True, padding="nan")
        if ragged:
            assert torch.isnan(c[:, :N]).all()
        else:
            check(c, a.double() @ b.double(), K)


@pytest.mark.parametrize("a_rows,a_cols", [(70, 200), (0, 200), (130, 0), (-3, 200)])
@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_descriptor_shape_bounds_the_reads(gen, a_rows, a_cols, padding):
    """A's descriptor covers only [a_rows, a_cols] of the array: the rest
    reads the padding, and an empty (or negative) shape reads nothing but
    padding."""
    BM, BN, BK = 64, 128, 64
    M, N, K = 130, 128, 4 * BK
    a, b = randn((M, K), torch.float16, gen), randn((N, K), torch.float16, gen)
    inside = torch.zeros((M, K), dtype=torch.bool, device="cuda")
    inside[:max(a_rows, 0), :max(a_cols, 0)] = True
    c = poisoned((M, N)) if padding == "zero" else torch.zeros((M, N), device="cuda")
    matmul(a, b, c, (BM, BN, BK), padding=padding, a_shape=(a_rows, a_cols))
    ref = torch.where(inside, a.double(), 0.0) @ b.double().T
    if padding == "zero":
        check(c, ref, K)
    else:
        # A row of A with any element outside is NaN in every column of C.
        full = inside.all(dim=1)
        assert torch.isnan(c[~full]).all()
        if full.any():
            check(c[full], ref[full], K)


@pytest.mark.parametrize("stages", [2, 3])
def test_persistent_builds_once_and_reuses(gen, stages):
    BM, BN, BK = 128, 128, 64
    M, N, K = 520, 392, 6 * BK + 16
    a, b = randn((M, K), torch.float16, gen), randn((N, K), torch.float16, gen)
    c = poisoned((M, N))
    programs = 7  # fewer than the 20 tiles: each program runs several
    made_matmul_persistent[(programs,)](a, b, c, M, N, K, BM, BN, BK, programs, num_warps=8,
                                        num_stages=stages)
    check(c, a.double() @ b.double().T, K)


def test_grouped_rebuilds_per_tile(gen):
    BM, BN, BK = 64, 128, 64
    sizes = [(130, 256, 200), (64, 128, 64), (200, 136, 328), (1, 128, 8)]
    tiles = max(triton.cdiv(m, BM) * triton.cdiv(n, BN) for m, n, _ in sizes)
    a = [randn((m, k), torch.float16, gen) for m, n, k in sizes]
    b = [randn((k, n), torch.float16, gen) for m, n, k in sizes]
    c = [poisoned((m, n)) for m, n, k in sizes]

    def addresses(ts):
        return torch.tensor([t.data_ptr() for t in ts], dtype=torch.int64, device="cuda")

    flat = torch.tensor([v for s in sizes for v in s], dtype=torch.int32, device="cuda")
    programs = 5
    made_matmul_grouped[(programs,)](addresses(a), addresses(b), addresses(c), flat, len(sizes),
                                     BM, BN, BK, tiles, programs, num_warps=4, num_stages=3)
    for ai, bi, ci, (m, n, k) in zip(a, b, c, sizes):
        check(ci, ai.double() @ bi.double(), k)


@pytest.mark.parametrize("b_nk", [False, True])
@pytest.mark.parametrize("bounds", [True, False])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_block_pointers(gen, b_nk, bounds, dtype):
    """Block pointers load as descriptor loads: their maps are built in the
    kernel, B's transposed view (order (0, 1)) as the transposed block."""
    BM, BN, BK = 64, 128, 64
    M, N, K = (200, 136, 5 * BK + 24) if bounds else (192, 256, 6 * BK)
    a = randn((M, K), dtype, gen)
    b = randn((N, K), dtype, gen).T if b_nk else randn((K, N), dtype, gen)
    c = poisoned((M, N))
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    block_ptr_matmul[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), b.stride(1), BM, BN, BK,
                           b_nk, bounds, num_warps=4, num_stages=3)
    check(c, a.double() @ b.double(), K)


def test_unchecked_dims_ignore_the_shape(gen):
    """Without boundary_check a block pointer's shape bounds nothing: the
    declared K is a third of the rows' length, and the loads read all of
    it, on the copy engine as in the masked load."""
    BM, BN, BK = 64, 128, 64
    M, N, K = 128, 256, 6 * BK
    a = randn((M, K), torch.float16, gen)
    b = randn((K, N), torch.float16, gen)
    c = poisoned((M, N))
    grid = (M // BM, N // BN)
    block_ptr_matmul[grid](a, b, c, M, N, K // 3, a.stride(0), b.stride(0), b.stride(1), BM, BN,
                           BK, False, False, num_warps=4, num_stages=3)
    # The loop runs cdiv(K // 3, BK) = 2 steps: the first 2 * BK columns.
    kk = 2 * BK
    check(c, a.double()[:, :kk] @ b.double()[:kk], kk)


def test_negative_row_stride(gen):
    """A block pointer walking rows backwards (base at the last row, stride
    -K): the copy engine takes no negative stride, so on sm_90a the launch
    is refused with the argument named; elsewhere the masked loads read it.
    Either way no wrong result."""
    BM, BN, BK = 64, 128, 64
    M, N, K = 128, 128, 2 * BK
    a = randn((M, K), torch.float16, gen)
    b = randn((K, N), torch.float16, gen)
    c = poisoned((M, N))
    try:
        block_ptr_matmul[(M // BM, N // BN)](a[M - 1:], b, c, M, N, K, -K, b.stride(0), 1, BM, BN,
                                              BK, False, True, num_warps=4, num_stages=3)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - the refusal is one of the two right outcomes
        assert "stride_am" in str(e) and "sm_90" in str(e), str(e)
        return
    check(c, a.double().flip(0) @ b.double(), K)


def test_cuda_graph_replays_with_maps_of_its_own(gen):
    """A captured launch takes scratch set aside at the first uncaptured
    one (capture cannot allocate), and the graph replays correctly on new
    inputs."""
    BM, BN, BK = 64, 128, 64
    M, N, K = 256, 256, 4 * BK
    a, b = randn((M, K), torch.float16, gen), randn((N, K), torch.float16, gen)
    c = poisoned((M, N))
    matmul(a, b, c, (BM, BN, BK))  # outside capture first
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        matmul(a, b, c, (BM, BN, BK))
    for _ in range(2):
        a.copy_(randn((M, K), torch.float16, gen))
        c.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        check(c, a.double() @ b.double().T, K)


def test_two_launches_on_two_streams(gen):
    """Each stream has its own global scratch: kernels on two streams at
    once build their maps apart."""
    BM, BN, BK = 64, 128, 64
    M, N, K = 256, 256, 8 * BK
    pairs = [(randn((M, K), torch.float16, gen), randn((N, K), torch.float16, gen))
             for _ in range(2)]
    outs = [poisoned((M, N)) for _ in range(2)]
    streams = [torch.cuda.Stream() for _ in range(2)]
    for (a, b), c, s in zip(pairs, outs, streams):
        with torch.cuda.stream(s):
            matmul(a, b, c, (BM, BN, BK))
    torch.cuda.synchronize()
    for (a, b), c in zip(pairs, outs):
        check(c, a.double() @ b.double().T, K)
