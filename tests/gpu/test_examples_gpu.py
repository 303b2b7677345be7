"""Every example of examples/ on the GPU, against PyTorch."""
import math
import pathlib
import sys

import pytest

from conftest import skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton
from conftest import poisoned, rel_err

import attention as ex_attention
import dropout as ex_dropout
import gelu as ex_gelu
import layer_norm as ex_ln
import matmul as ex_matmul
import softmax as ex_softmax
import softmax_online as ex_softmax_online
import vector_add as ex_add

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from tessera_testing import keep_warp_specialized  # noqa: E402


@pytest.mark.parametrize("n", [1, 1000, 98432, 1 << 20])
def test_vector_add(gen, n):
    x = torch.randn(n, device="cuda", generator=gen)
    y = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(n)
    ex_add.add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


@pytest.mark.parametrize("n", [7, 4096, 1 << 20])
def test_gelu(gen, n):
    x = torch.randn(n, device="cuda", generator=gen) * 3
    out = poisoned(n)
    ex_gelu.gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
    ref = torch.nn.functional.gelu(x.double(), approximate="tanh")
    assert rel_err(out, ref) < 1e-5


@pytest.mark.parametrize("shape", [(1, 5), (37, 781), (256, 1024), (64, 4096)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("kernel", ["softmax", "online"])
def test_softmax(gen, shape, dtype, kernel):
    x = (torch.randn(shape, device="cuda", generator=gen) * 4).to(dtype)
    out = poisoned(shape, dtype)
    block = triton.next_power_of_2(shape[1])
    if kernel == "softmax":
        ex_softmax.softmax_kernel[(shape[0],)](out, x, x.stride(0), out.stride(0), shape[1],
                                               BLOCK_SIZE=block)
    else:
        ex_softmax_online.softmax_online_kernel[(shape[0],)](
            out, x, x.stride(0), out.stride(0), shape[1], BLOCK_SIZE=min(block, 256))
    ref = torch.softmax(x.double(), dim=1)
    tol = 1e-5 if dtype == torch.float32 else 1e-2
    assert rel_err(out, ref) < tol


@pytest.mark.parametrize("shape", [(16, 100), (64, 1024), (32, 3000)])
def test_layer_norm_forward(gen, shape):
    m, n = shape
    x = torch.randn(shape, device="cuda", generator=gen)
    w = torch.randn(n, device="cuda", generator=gen)
    b = torch.randn(n, device="cuda", generator=gen)
    y = poisoned(shape)
    mean, rstd = poisoned(m), poisoned(m)
    ex_ln.layer_norm_fwd_kernel[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5,
                                      BLOCK_SIZE=1024)
    ref = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5)
    assert rel_err(y, ref) < 1e-5
    assert rel_err(mean, x.double().mean(1)) < 1e-6


def test_layer_norm_backward(gen):
    m, n = 64, 512
    x = torch.randn(m, n, device="cuda", generator=gen, dtype=torch.float64).float()
    w = torch.randn(n, device="cuda", generator=gen)
    b = torch.randn(n, device="cuda", generator=gen)
    dy = torch.randn(m, n, device="cuda", generator=gen)
    xr = x.double().requires_grad_()
    wr = w.double().requires_grad_()
    br = b.double().requires_grad_()
    torch.nn.functional.layer_norm(xr, (n,), wr, br, 1e-5).backward(dy.double())
    y = torch.empty_like(x)
    mean, rstd = torch.empty(m, device="cuda"), torch.empty(m, device="cuda")
    ex_ln.layer_norm_fwd_kernel[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=512)
    group = 16
    dx = poisoned((m, n))
    pdw = torch.zeros(group, n, device="cuda")
    pdb = torch.zeros(group, n, device="cuda")
    locks = torch.zeros(2 * group, dtype=torch.int32, device="cuda")
    ex_ln.layer_norm_bwd_dx_kernel[(m,)](dx, dy, pdw, pdb, x, w, mean, rstd, locks, x.stride(0), n,
                                         GROUP_SIZE_M=group, BLOCK_SIZE_N=512)
    dw, db = poisoned(n), poisoned(n)
    ex_ln.layer_norm_bwd_dwdb_kernel[(triton.cdiv(n, 128),)](pdw, pdb, dw, db, group, n,
                                                            BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
    assert rel_err(dx, xr.grad) < 1e-5
    assert rel_err(dw, wr.grad) < 1e-5
    assert rel_err(db, br.grad) < 1e-5


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("mnk", [(64, 64, 64), (200, 130, 70), (256, 512, 128)])
def test_matmul(gen, dtype, mnk):
    m, n, k = mnk
    a = torch.randn(m, k, device="cuda", generator=gen).to(dtype)
    b = torch.randn(k, n, device="cuda", generator=gen).to(dtype)
    c = poisoned((m, n))
    kern = ex_matmul.matmul_kernel.fn  # the @jit under @autotune
    grid = (triton.cdiv(m, 64) * triton.cdiv(n, 64),)
    kern[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
               c.stride(0), c.stride(1), BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32,
               GROUP_SIZE_M=8)
    ref = a.double() @ b.double()
    assert rel_err(c, ref) < (1e-5 if dtype == torch.float32 else 1e-3)


def test_dropout_matches_interpreter(gen):
    import numpy as np
    n, p, seed = 1 << 16, 0.3, 1234
    x = torch.randn(n, device="cuda", generator=gen)
    out = poisoned(n)
    ex_dropout.dropout_kernel[(triton.cdiv(n, 1024),)](x, out, n, p, seed, BLOCK_SIZE=1024)
    host = x.cpu().numpy()
    ref = np.empty_like(host)
    ex_dropout.dropout_kernel[(triton.cdiv(n, 1024),)](host, ref, n, p, seed, BLOCK_SIZE=1024)
    # Same Philox stream: the kept set is identical, values within rounding.
    kept = out.cpu().numpy() != 0
    assert (kept == (ref != 0)).all()
    assert abs(kept.mean() - (1 - p)) < 0.01
    np.testing.assert_allclose(out.cpu().numpy(), ref, rtol=1e-6, atol=0)


def test_metadata_and_asm(gen):
    x = torch.randn(4096, device="cuda", generator=gen)
    out = poisoned(4096)
    k = ex_add.add_kernel[(4,)](x, x, out, 4096, BLOCK_SIZE=1024)
    assert "ld.global.v4" in k.asm["ptx"] and ".loc" in k.asm["ptx"]
    assert "linear<" in k.asm["ttgir"]
    assert k.n_regs > 0 and k.n_spills == 0
    assert k.metadata.backend == "cuda" and k.metadata.num_warps == 4
    torch.testing.assert_close(out, 2 * x)


def test_num_warps_honoured(gen):
    x = torch.randn(8192, device="cuda", generator=gen)
    for w in (1, 2, 8):
        out = poisoned(8192)
        k = ex_add.add_kernel[(8,)](x, x, out, 8192, BLOCK_SIZE=1024, num_warps=w)
        assert f".maxntid {32 * w}, 1, 1" in k.asm["ptx"]
        torch.testing.assert_close(out, 2 * x)


def test_current_stream(gen):
    s = torch.cuda.Stream()
    x = torch.randn(1 << 20, device="cuda", generator=gen)
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        out = poisoned(1 << 20)
        ex_add.add_kernel[(1024,)](x, x, out, 1 << 20, BLOCK_SIZE=1024)
    s.synchronize()
    torch.testing.assert_close(out, 2 * x)


def test_matmul_autotuned(gen):
    # The autotuner times each config on the GPU (CUDA events), then the
    # chosen config is reused for the same key.
    m, n, k = 256, 192, 320
    a = torch.randn(m, k, device="cuda", generator=gen)
    b = torch.randn(k, n, device="cuda", generator=gen)
    for _ in range(2):
        c = poisoned((m, n))
        grid = lambda meta: (triton.cdiv(m, meta["BLOCK_SIZE_M"]) *  # noqa: E731
                             triton.cdiv(n, meta["BLOCK_SIZE_N"]),)
        ex_matmul.matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                                      b.stride(1), c.stride(0), c.stride(1))
        assert rel_err(c, a.double() @ b.double()) < 1e-5
    assert ex_matmul.matmul_kernel.best_config is not None


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("n_ctx", [128, 1000, 2048])
@pytest.mark.parametrize("config", [(128, 64, 8, 3), (128, 128, 8, 2), (64, 64, 4, 3)])
def test_attention_forward(gen, dtype, causal, head_dim, n_ctx, config):
    bm, bn, warps, stages = config
    Z, H = 2, 3
    q, k, v = (torch.randn(Z, H, n_ctx, head_dim, device="cuda", generator=gen).to(dtype)
               for _ in range(3))
    o = poisoned(q.shape, dtype)
    lse = poisoned((Z, H, n_ctx))
    ex_attention.attention(q, k, v, causal=causal, block_m=bm, block_n=bn, num_warps=warps,
                           num_stages=stages, o=o, lse=lse)
    # Attention's output error is set by P rounded to 16 bits before P V.
    check_attention(q, k, v, o, lse, causal, 4e-3 if dtype == torch.float16 else 2e-2)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n_ctx", [1000, 2048])
@pytest.mark.parametrize("config", [(128, 128, 8, 2), (64, 64, 4, 3)])
def test_attention_forward_warp_specialized(gen, causal, n_ctx, config):
    """warp_specialize=True: a producer warp issues the key loops' tensor
    copies (sm_90a; causal, the two loops copy into one set of rings, the
    second after the consumers hand the rings over); the same results."""
    bm, bn, warps, stages = config
    q, k, v = (torch.randn(2, 3, n_ctx, 128, device="cuda", generator=gen).half() for _ in range(3))
    o = poisoned(q.shape, torch.float16)
    lse = poisoned((2, 3, n_ctx))
    ex_attention.attention(q, k, v, causal=causal, block_m=bm, block_n=bn, num_warps=warps,
                           num_stages=stages, o=o, lse=lse, warp_specialize=True)
    check_attention(q, k, v, o, lse, causal, 4e-3)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("config", [(128, 128, 8, 2), (128, 64, 8, 3), (128, 128, 8, 3)])
def test_attention_warp_specialized_or_its_twin(gen, causal, config):
    """A warp-specialised kernel runs specialised only where that spills no
    more and keeps as many blocks per SM as its unspecialised twin (the
    same kernel unmarked); elsewhere the twin runs, launched with its own
    block. Either way the results are right. (With ptxas 12, the 128x128
    specialised builds with 2 stages spill, 32 bytes a thread and 8 causal,
    so their twins run; the 128x64 ones spill nothing and run specialised,
    and so do the 128x128 ones with 3 stages, whose producer warpgroup hands
    its registers to the consumers.)"""
    bm, bn, warps, stages = config
    Z, H, n_ctx, d = 2, 3, 1000, 128
    q, k, v = (torch.randn(Z, H, n_ctx, d, device="cuda", generator=gen).half() for _ in range(3))
    kernels = {}
    for ws in (True, False):
        o, lse = poisoned(q.shape, torch.float16), poisoned((Z, H, n_ctx))
        grid = (triton.cdiv(n_ctx, bm), Z * H)
        kernels[ws] = ex_attention.attention_fwd_kernel[grid](
            q, k, v, o, lse, 1 / math.sqrt(d), n_ctx, n_ctx * d, d, n_ctx * d, d, n_ctx * d, d, 1,
            n_ctx * d, d, HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal, WS=ws,
            num_warps=warps, num_stages=stages)
        check_attention(q, k, v, o, lse, causal, 4e-3)
    spec, plain = kernels[True], kernels[False]
    if ".target sm_90a" not in spec.asm["ptx"]:
        assert "ptx-unspecialized" not in spec.asm and spec.n_max_threads == 32 * warps
        return
    hands_over = config == (128, 128, 8, 3)  # rotated with a large S: a producer warpgroup
    if hands_over:
        # Split unasked too (its copying loops, rotated with a large S): the
        # same kernel, the same twin.
        assert plain.asm["ptx"] == spec.asm["ptx"]
        assert plain.asm["ptx-unspecialized"] == spec.asm["ptx-unspecialized"]
        assert spec.n_max_threads == plain.n_max_threads == 32 * (warps + 4)
        return
    assert spec.asm["ptx-unspecialized"] == plain.asm["ptx"]

    def footprint(kern):
        return dict(regs=kern.n_regs, stack=4 * kern.n_spills, threads=kern.n_max_threads,
                    shared=kern.metadata.shared)

    # One producer warp, or (128x128 with 3 stages, rotated) a warpgroup
    # that hands its registers to the consumers and spills nothing.
    producers = 4 if "setmaxnreg" in spec.asm["ptx"] else 1
    assert (producers == 4) == hands_over
    if spec.n_max_threads == 32 * (warps + producers):
        assert keep_warp_specialized(footprint(spec), footprint(plain))
    else:
        assert spec.n_max_threads == 32 * warps
        assert footprint(spec) == footprint(plain)


def check_attention(q, k, v, o, lse, causal, tolerance):
    """O against SDPA in float64 (relative error under `tolerance`) and the
    base-2 log-sum-exp of each row against float64's."""
    ref = torch.nn.functional.scaled_dot_product_attention(q.double(), k.double(), v.double(),
                                                           is_causal=causal)
    assert rel_err(o, ref) < tolerance
    n_ctx = q.shape[-2]
    s = q.double() @ k.double().transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        s = s.masked_fill(torch.ones(n_ctx, n_ctx, dtype=torch.bool, device=q.device).triu(1),
                          float("-inf"))
    assert rel_err(lse, torch.logsumexp(s, -1) / math.log(2)) < 1e-3


@pytest.mark.parametrize("dtype", [torch.float8_e5m2, torch.float8_e4m3fn])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("n_ctx", [128, 1000, 2048])
@pytest.mark.parametrize("v_keys_contiguous", [True, False])
@pytest.mark.parametrize("config", [(64, 64, 4, 2), (128, 64, 4, 3), (128, 128, 8, 2)])
def test_attention_forward_fp8(gen, dtype, causal, head_dim, n_ctx, v_keys_contiguous, config):
    """fp8 Q, K and V into fp16 O, V stored keys-contiguous (the layout
    Triton's tutorial uses, both products on wgmma) or head-dim contiguous;
    P is rounded to fp8 before P V, as the tutorial does."""
    bm, bn, warps, stages = config
    Z, H = 2, 3
    q, k, v = (torch.randn(Z, H, n_ctx, head_dim, device="cuda", generator=gen).to(dtype)
               for _ in range(3))
    if v_keys_contiguous:
        v = v.transpose(-1, -2).contiguous().transpose(-1, -2)
    o = poisoned(q.shape, torch.float16)
    lse = poisoned((Z, H, n_ctx))
    ex_attention.attention(q, k, v, causal=causal, block_m=bm, block_n=bn, num_warps=warps,
                           num_stages=stages, o=o, lse=lse)
    check_attention(q, k, v, o, lse, causal, 4e-2 if dtype == torch.float8_e4m3fn else 8e-2)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("n_ctx", [128, 1000, 2048])
@pytest.mark.parametrize("blocks", [(64, 64), (32, 128), (128, 32)])
def test_attention_backward(gen, dtype, causal, head_dim, n_ctx, blocks):
    Z, H = 2, 3
    q, k, v, do = (torch.randn(Z, H, n_ctx, head_dim, device="cuda", generator=gen).to(dtype)
                   for _ in range(4))
    o, lse = ex_attention.attention(q, k, v, causal=causal, block_m=128, block_n=64,
                                    num_warps=8)
    bm, bn = blocks
    grads = [poisoned(q.shape, dtype) for _ in range(3)]
    ex_attention.attention_backward(q, k, v, o, lse, do, causal=causal, block_m=bm, block_n=bn,
                                    num_warps=4 if head_dim == 64 else 8, dq=grads[0],
                                    dk=grads[1], dv=grads[2])
    q64, k64, v64 = (t.double().requires_grad_() for t in (q, k, v))
    ref = torch.nn.functional.scaled_dot_product_attention(q64, k64, v64, is_causal=causal)
    ref.backward(do.double())
    for name, g, r in zip(("dq", "dk", "dv"), grads, (q64.grad, k64.grad, v64.grad)):
        assert rel_err(g, r) < (5e-3 if dtype == torch.float16 else 3e-2), name
