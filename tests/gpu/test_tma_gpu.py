"""Host tensor descriptors on the tensor memory accelerator: matmuls whose
operands come from TensorDescriptor arguments, against float64 references
on fresh random inputs with poisoned outputs. On sm_90a their loads fill
the dot's shared rings by bulk tensor copies completing on mbarriers
(tests/ptx/tma.py checks the PTX, from these kernels); on other targets
(TESSERA_TARGET=sm_80) the same kernels run on cp.async. The cases cover
every ring depth and one or two warpgroups, K trip counts from 1 to past
twice the ring (so the barriers' phases wrap), ragged M, N and K (the copy
engine's zero fill), blocks that start before or after the tensor, B in
both orientations, and NaN padding."""
import pytest

from conftest import poisoned, skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402
from tessera.tools.tensor_descriptor import TensorDescriptor  # noqa: E402


# B_KN: B is [K, N] (N contiguous), else [N, K] read transposed.
@triton.jit
def desc_matmul(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr, B_KN: tl.constexpr, WS: tl.constexpr = False):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(tl.cdiv(K, BK), warp_specialize=WS):
        a = a_desc.load([pid_m * BM, k * BK])
        if B_KN:
            b = b_desc.load([k * BK, pid_n * BN])
        else:
            b = b_desc.load([pid_n * BN, k * BK]).T
        acc = tl.dot(a, b, acc)
    rows = pid_m * BM + tl.arange(0, BM)[:, None]
    cols = pid_n * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + rows * N + cols, acc.to(c_ptr.dtype.element_ty), mask=(rows < M) & (cols < N))


# A's blocks start `shift` rows early (negative coordinates for the first
# program, past the end for the last): rows outside the tensor read zero.
@triton.jit
def desc_matmul_shifted(a_desc, b_desc, c_ptr, M, N, K, shift, BM: tl.constexpr,
                        BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM - shift, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    rows = pid_m * BM + tl.arange(0, BM)[:, None]
    cols = pid_n * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M + BM) & (cols < N))


# Both operands' blocks start KSHIFT columns into each K step. The copy
# engine needs the innermost coordinate 16-byte aligned (else an illegal
# instruction): 8 halves is, and the loads take the rings; 3 halves is not,
# and they take the masked pointer path (tests/ptx/tma.py checks which).
@triton.jit
def desc_matmul_k_shift(a_desc, b_desc, c_ptr, M, N, K, KSHIFT: tl.constexpr, BM: tl.constexpr,
                        BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK + KSHIFT])
        b = b_desc.load([pid_n * BN, k * BK + KSHIFT])
        acc = tl.dot(a, b.T, acc)
    rows = pid_m * BM + tl.arange(0, BM)[:, None]
    cols = pid_n * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))


# A computed in registers (scaled after its load, as attention's P is
# computed): B alone fills a ring, and wgmma reads A from registers.
@triton.jit
def desc_matmul_a_in_registers(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr,
                               BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK]) * 2
        acc = tl.dot(a, b_desc.load([pid_n * BN, k * BK]).T, acc)
    rows = pid_m * BM + tl.arange(0, BM)[:, None]
    cols = pid_n * BN + tl.arange(0, BN)[None, :]
    tl.store(c_ptr + rows * N + cols, acc, mask=(rows < M) & (cols < N))


def randn(shape, dtype, gen):
    return torch.randn(shape, generator=gen, device="cuda", dtype=torch.float32).to(dtype)


def check(out, ref, K):
    assert not torch.isnan(out).any(), "NaN in the output (an element left unwritten?)"
    err = (out.double() - ref).abs().max().item()
    assert err <= 2e-2 * K**0.5 + 0.05, f"max error {err}"


BLOCKS = {4: (64, 128, 64), 8: (128, 128, 64)}


def matmul(a, b, c, blocks, b_kn=False, warps=4, stages=3, ws=False):
    """desc_matmul of a and b (B as [K, N] where b_kn, else [N, K]) into c,
    checked against float64; returns the compiled kernel."""
    BM, BN, BK = blocks
    (M, K), N = a.shape, c.shape[1]
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    kern = desc_matmul[grid](TensorDescriptor.from_tensor(a, [BM, BK]),
                             TensorDescriptor.from_tensor(b, [BK, BN] if b_kn else [BN, BK]), c,
                             M, N, K, BM, BN, BK, b_kn, WS=ws, num_warps=warps,
                             num_stages=stages)
    check(c, a.double() @ (b.double() if b_kn else b.double().T), K)
    return kern


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("k_tiles", [1, 2, 5, 11])
def test_matmul_b_transposed(gen, dtype, warps, stages, k_tiles):
    BM, BN, BK = BLOCKS[warps]
    M, N, K = 200, 136, BK * (k_tiles - 1) + 24  # the last K block ragged
    a, b = randn((M, K), dtype, gen), randn((N, K), dtype, gen)
    c = poisoned((M, N), torch.float16)
    matmul(a, b, c, (BM, BN, BK), warps=warps, stages=stages)


@pytest.mark.parametrize("b_kn", [False, True])
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("stages", [2, 4])
@pytest.mark.parametrize("k_tiles", [1, 2, 11])
def test_matmul_warp_specialized(gen, b_kn, warps, stages, k_tiles):
    """warp_specialize=True on the K loop: a producer warp issues the tensor
    copies (sm_90a); one K step to many, M, N and K ragged."""
    BM, BN, BK = BLOCKS[warps]
    M, N, K = 200, 136, BK * (k_tiles - 1) + 24
    a = randn((M, K), torch.float16, gen)
    b = randn((K, N) if b_kn else (N, K), torch.float16, gen)
    c = poisoned((M, N), torch.float16)
    kern = matmul(a, b, c, (BM, BN, BK), b_kn=b_kn, warps=warps, stages=stages, ws=True)
    ptx = kern.asm["ptx"]
    assert ("tessera.producer_warps = 1" in ptx) == (".target sm_90a" in ptx)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("stages", [2, 3])
def test_matmul_b_n_contiguous(gen, dtype, stages):
    BM, BN, BK = 64, 128, 64
    M, N, K = 130, 248, 3 * BK + 16
    a, b = randn((M, K), dtype, gen), randn((K, N), dtype, gen)
    c = poisoned((M, N))
    matmul(a, b, c, (BM, BN, BK), b_kn=True, stages=stages)


def test_views_with_offsets_and_row_pitch(gen):
    """Descriptors of column slices: the row stride is not the row length,
    and the bases are not their allocations'."""
    BM, BN, BK = 64, 128, 64
    M, N, K = 150, 136, 3 * BK + 40
    a_big, b_big = randn((M, K + 72), torch.float16, gen), randn((N, K + 40), torch.float16, gen)
    a, b = a_big[:, 24:24 + K], b_big[:, 8:8 + K]
    c = poisoned((M, N), torch.float16)
    matmul(a, b, c, (BM, BN, BK))


@pytest.mark.parametrize("k", [100, 97])
def test_ragged_k_inside_a_16_byte_chunk(gen, k):
    """Descriptors of column slices whose K * 2 bytes is not a multiple of
    16, each row followed by 1000s: the boxes past K read zeros there, not
    the row's next bytes."""
    BM, BN, BK = 64, 128, 64
    M, N = 150, 136
    a_big, b_big = randn((M, 128), torch.float16, gen), randn((N, 128), torch.float16, gen)
    a_big[:, k:] = 1000.0
    b_big[:, k:] = 1000.0
    c = poisoned((M, N), torch.float16)
    matmul(a_big[:, :k], b_big[:, :k], c, (BM, BN, BK))


def test_broadcast_rows(gen):
    """A descriptor whose rows are one row broadcast (stride 0), which no
    tensor map describes: specialised apart, its loads stay masked loads."""
    BM, BN, BK = 64, 128, 64
    M, N, K = 128, 128, 2 * BK
    row = randn((1, K), torch.float16, gen)
    a = row.expand(M, K)
    b = randn((N, K), torch.float16, gen)
    c = poisoned((M, N), torch.float16)
    matmul(a, b, c, (BM, BN, BK))


def test_big_tiles_look_two_ahead(gen):
    """128x256x64 tiles with 4 stages: the ring has no room for an extra
    slot, so the copies run two iterations ahead into the slot two back."""
    BM, BN, BK = 128, 256, 64
    M, N, K = 256, 512, 9 * BK
    a, b = randn((M, K), torch.float16, gen), randn((N, K), torch.float16, gen)
    c = poisoned((M, N), torch.float16)
    matmul(a, b, c, (BM, BN, BK), warps=8, stages=4)


@pytest.mark.parametrize("stages", [2, 3])
def test_a_in_registers(gen, stages):
    BM, BN, BK = 64, 128, 64
    M, N, K = 100, 256, 4 * BK + 8
    a, b = randn((M, K), torch.float16, gen), randn((N, K), torch.float16, gen)
    c = poisoned((M, N))
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    desc_matmul_a_in_registers[grid](TensorDescriptor.from_tensor(a, [BM, BK]),
                                     TensorDescriptor.from_tensor(b, [BN, BK]), c, M, N, K, BM,
                                     BN, BK, num_warps=4, num_stages=stages)
    check(c, 2 * a.double() @ b.double().T, K)


# Narrower blocks (boxes of the 32- and 64-byte swizzles) and fp8 (bytes,
# K-major).
@pytest.mark.parametrize("dtype,bk", [(torch.float16, 32), (torch.float16, 16),
                                      (torch.float8_e4m3fn, 64), (torch.float8_e4m3fn, 128)])
def test_matmul_narrow_blocks_and_fp8(gen, dtype, bk):
    BM, BN = 64, 128
    M, N, K = 136, 200, 5 * bk + (8 if dtype == torch.float16 else 16)
    a, b = randn((M, K), dtype, gen), randn((N, K), dtype, gen)
    c = poisoned((M, N), torch.float16)
    matmul(a, b, c, (BM, BN, bk))


@pytest.mark.parametrize("shift", [-70, 5, 64, 300])
def test_blocks_outside_the_tensor(gen, shift):
    BM, BN, BK = 64, 128, 64
    M, N, K = 192, 128, 3 * BK
    a, b = randn((M, K), torch.float16, gen), randn((N, K), torch.float16, gen)
    c = poisoned((M + BM, N))
    rows = torch.arange(M + BM, device="cuda") - shift
    shifted = torch.zeros((M + BM, K), dtype=torch.float64, device="cuda")
    inside = (rows >= 0) & (rows < M)
    shifted[inside] = a.double()[rows[inside]]
    grid = (triton.cdiv(M + BM, BM), 1)
    desc_matmul_shifted[grid](TensorDescriptor.from_tensor(a, [BM, BK]),
                              TensorDescriptor.from_tensor(b, [BN, BK]), c, M, N, K, shift, BM, BN,
                              BK, num_warps=4, num_stages=3)
    check(c, shifted @ b.double().T, K)


@pytest.mark.parametrize("kshift", [3, 8])
def test_unaligned_inner_offsets_take_the_pointer_path(gen, kshift):
    BM, BN, BK = 64, 128, 64
    M, N, K = 128, 128, 4 * BK
    a, b = randn((M, K), torch.float16, gen), randn((N, K), torch.float16, gen)
    c = poisoned((M, N))
    desc_matmul_k_shift[(M // BM, N // BN)](TensorDescriptor.from_tensor(a, [BM, BK]),
                                             TensorDescriptor.from_tensor(b, [BN, BK]), c, M, N, K,
                                             kshift, BM, BN, BK, num_warps=4, num_stages=3)
    check(c, a.double()[:, kshift:] @ b.double()[:, kshift:].T, K)


def test_nan_padding(gen):
    """Out-of-bounds elements read NaN: a ragged K makes every sum NaN, a
    K that the blocks divide leaves them exact."""
    BM, BN, BK = 64, 128, 64
    for K, ragged in ((2 * BK, False), (2 * BK + 8, True)):
        M, N = 100, 128
        a, b = randn((M, K), torch.bfloat16, gen), randn((K, N), torch.bfloat16, gen)
        # Zeros where every element must become NaN, NaN where none may.
        c = torch.zeros((M, N), device="cuda") if ragged else poisoned((M, N))
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
        desc_matmul[grid](TensorDescriptor.from_tensor(a, [BM, BK], padding="nan"),
                          TensorDescriptor.from_tensor(b, [BK, BN], padding="nan"), c, M, N, K,
                          BM, BN, BK, True, num_warps=4, num_stages=3)
        if ragged:
            assert torch.isnan(c).all()
        else:
            check(c, a.double() @ b.double(), K)


def test_empty_grid_launches_nothing():
    a = torch.zeros((0, 64), dtype=torch.float16, device="cuda")
    b = torch.randn((128, 64), device="cuda").half()
    c = poisoned((0, 128), torch.float16)
    desc_matmul[(0, 1)](TensorDescriptor.from_tensor(a, [64, 64]),
                        TensorDescriptor.from_tensor(b, [128, 64]), c, 0, 128, 64, 64, 128, 64,
                        False, num_warps=4, num_stages=3)
    torch.cuda.synchronize()


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_empty_tensor_reads_padding(gen, padding):
    """A descriptor of an empty tensor reads as all padding, as its masked
    load does (a tensor map cannot be empty: the runtime points it at a
    block of padding)."""
    BM, BN, BK = 64, 128, 64
    N, K = 128, 2 * BK
    a = torch.empty((BM, K), dtype=torch.float16, device="cuda")[:0]
    b = randn((N, K), torch.float16, gen)
    c = poisoned((BM, N)) if padding == "zero" else torch.zeros((BM, N), device="cuda")
    desc_matmul_shifted[(1, 1)](TensorDescriptor.from_tensor(a, [BM, BK], padding=padding),
                                TensorDescriptor.from_tensor(b, [BN, BK]), c, 0, N, K, 0, BM, BN,
                                BK, num_warps=4, num_stages=3)
    if padding == "zero":
        assert (c == 0).all()
    else:
        assert torch.isnan(c).all()
