"""Kernels of one tile a program that persistent-programs runs as one
program an SM looping over tiles (sm_90a, pointer-loaded dot operands that
the copy engine then serves): every logical program's tile computed once,
program ids and num_programs those of the grid launched (a 2-D grid, more
and fewer tiles than SMs, ragged edges, K = 0, rows the copy engine cannot
read, which stay one tile a program), against float64 products with
poisoned outputs; and the example matmul as users launch it. Then a
persistent attention written by hand (a loop over tiles around a loop of
tensor copies), whose rings outlive each tile's loop where it is marked
warp_specialize and they are small enough (tests/ptx/persistent_rings.py
checks the PTX, from this kernel): fewer programs than tiles and more, one
warpgroup and two, marked or not, against float64 attention."""
import math

import pytest

from conftest import poisoned, skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402
from tessera.tools.tensor_descriptor import TensorDescriptor  # noqa: E402


# A matmul on a 2-D grid (row of tiles, column of tiles); each program also
# writes what it saw of the grid into `seen`.
@triton.jit
def grid2d_matmul(a_ptr, b_ptr, c_ptr, seen_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
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
    program = pid_n * tl.num_programs(0) + pid_m
    tl.store(seen_ptr + program, tl.num_programs(0) * 1000 + tl.num_programs(1))


def _run(M, N, K, BM, BN, BK, warps, stages, gen):
    a = torch.randn((M, K), generator=gen, device="cuda").half()
    b = torch.randn((K, N), generator=gen, device="cuda").half()
    c = poisoned((M, N), torch.float16)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    seen = poisoned((grid[0] * grid[1],), torch.int32)
    k = grid2d_matmul[grid](a, b, c, seen, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                            BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    ref = a.double() @ b.double()
    assert not torch.isnan(c).any()
    tol = 1e-2 * max(1.0, ref.abs().max().item())
    torch.testing.assert_close(c.double(), ref, atol=tol, rtol=1e-2)
    assert seen.tolist() == [grid[0] * 1000 + grid[1]] * (grid[0] * grid[1])
    return k


@pytest.mark.parametrize("M,N,K", [(1000, 704, 200), (128, 256, 64), (2048, 2048, 256),
                                   (77, 40, 5), (256, 512, 0), (4096, 1024, 128), (300, 8, 48)])
@pytest.mark.parametrize("blocks,warps,stages", [((128, 256, 64), 8, 3), ((64, 64, 32), 4, 3)])
def test_persistent_grid2d_matmul(gen, M, N, K, blocks, warps, stages):
    k = _run(M, N, K, *blocks, warps, stages, gen)
    # The path under test: on sm_90a, with rows the copy engine reads (row
    # strides K and N specialised as positive multiples of 16), the kernel
    # is the persistent one (its grid passed as three parameters).
    ptx = k.asm["ptx"]
    aligned = K > 0 and K % 16 == 0 and N % 16 == 0
    assert ("tessera.persistent" in ptx) == (".target sm_90a" in ptx and aligned)


def test_example_matmul_is_persistent_on_sm90a():
    """The example matmul (autotuned, as users run it) on sm_90a runs as a
    persistent kernel and stays exact."""
    import matmul as example  # examples/ is on sys.path through conftest
    a = torch.randn((1000, 320), device="cuda").half()
    b = torch.randn((320, 512), device="cuda").half()
    c = poisoned((1000, 512), torch.float16)
    k = example.matmul_kernel.fn[(triton.cdiv(1000, 128) * triton.cdiv(512, 256),)](
        a, b, c, 1000, 512, 320, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
        c.stride(1), BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8,
        num_warps=8, num_stages=3)
    ref = a.double() @ b.double()
    torch.testing.assert_close(c.double(), ref, atol=1e-2 * ref.abs().max().item(), rtol=1e-2)
    ptx = k.asm["ptx"]
    assert ("tessera.persistent" in ptx) == (".target sm_90a" in ptx)


# Attention over `heads` stacked [n_ctx, D] blocks of rows, one program per
# SM walking the (query block, head) tiles; scores in log2 units (qk_scale
# folds log2(e) in).
@triton.jit
def persistent_attention(q_desc, k_desc, v_desc, o_desc, n_ctx, heads, qk_scale, BM: tl.constexpr,
                         BN: tl.constexpr, D: tl.constexpr, MARKED: tl.constexpr):
    blocks = tl.cdiv(n_ctx, BM)
    for tile in tl.range(tl.program_id(0), blocks * heads, tl.num_programs(0)):
        base = tile // blocks * n_ctx
        row = base + tile % blocks * BM
        q = q_desc.load([row, 0])
        m = tl.full((BM,), float("-inf"), tl.float32)
        total = tl.zeros((BM,), tl.float32)
        acc = tl.zeros((BM, D), tl.float32)
        for kv in tl.range(0, n_ctx, BN, warp_specialize=MARKED):
            s = tl.dot(q, k_desc.load([base + kv, 0]).T) * qk_scale
            top = tl.maximum(m, tl.max(s, 1))
            p = tl.math.exp2(s - top[:, None])
            alpha = tl.math.exp2(m - top)
            total = total * alpha + tl.sum(p, 1)
            acc = tl.dot(p.to(tl.float16), v_desc.load([base + kv, 0]), acc * alpha[:, None])
            m = top
        o_desc.store([row, 0], (acc / total[:, None]).to(tl.float16))


# (heads, n_ctx, programs): programs None = as many as the tiles.
@pytest.mark.parametrize("heads,n_ctx,programs", [(3, 256, 2), (5, 1024, 7), (2, 384, 1),
                                                  (1, 2048, 3), (7, 640, None), (2, 128, 64)])
# (BM, BN, warps, stages, marked): marked, 128x64 on 8 warps and 64x64 on
# 4 at 3 stages keep their rings across tiles, split; unmarked, or with
# 128x128 tiles at 3 stages, the rings are made in each tile.
@pytest.mark.parametrize("config", [(128, 64, 8, 3, 1), (128, 64, 8, 3, 0), (64, 64, 4, 3, 1),
                                    (64, 64, 4, 3, 0), (128, 128, 8, 3, 1)])
def test_persistent_attention(gen, heads, n_ctx, programs, config):
    BM, BN, warps, stages, marked = config
    D = 128
    q, k, v = (torch.randn((heads * n_ctx, D), generator=gen, device="cuda").half()
               for _ in range(3))
    o = poisoned((heads * n_ctx, D), torch.float16)
    tiles = triton.cdiv(n_ctx, BM) * heads
    scale = 0.08
    persistent_attention[(programs or tiles,)](
        TensorDescriptor.from_tensor(q, [BM, D]), TensorDescriptor.from_tensor(k, [BN, D]),
        TensorDescriptor.from_tensor(v, [BN, D]), TensorDescriptor.from_tensor(o, [BM, D]), n_ctx,
        heads, scale * math.log2(math.e), BM=BM, BN=BN, D=D, MARKED=marked, num_warps=warps,
        num_stages=stages)
    per_head = lambda t: t.double().view(heads, n_ctx, D)  # noqa: E731
    ref = torch.softmax(per_head(q) @ per_head(k).transpose(1, 2) * scale, -1) @ per_head(v)
    assert not torch.isnan(o).any()
    torch.testing.assert_close(per_head(o), ref, atol=2e-2, rtol=2e-2)
