"""Fused attention, O = softmax(Q K^T * sm_scale) V, in one pass over K and V.

Each program owns BLOCK_M query rows of one head. It walks the keys in blocks
of BLOCK_N with an online softmax: the running row maximum m_i and row sum
l_i rescale the output accumulator whenever the maximum grows, so the
N_CTX x N_CTX score matrix never leaves the chip. Scores are kept in base 2
(the scale folded with log2(e)) so each exponential is one exp2.

The key blocks that need no mask (all keys valid and, when causal, all at or
before every query row of the program) run in a loop with no mask
arithmetic; the few blocks on the diagonal or past the end run in a second,
masked loop. The log-sum-exp of each row is stored for the backward pass.

The backward pass (`attention_backward`) recomputes P = exp2(S - lse) block
by block instead of storing it, in two kernels that need no atomics: one
program per key block accumulates dK and dV over the query blocks, one per
query block accumulates dQ over the key blocks, each with
dS = P * (dO V^T - delta), delta = rowsum(dO * O) computed first.

Inputs are (Z, H, N_CTX, HEAD_DIM) arrays, fp16 or bf16, contiguous in the
head dimension. The forward pass also takes fp8 tensors (torch.float8_e4m3fn
or float8_e5m2) and then writes fp16: P is rounded to fp8 for P V, as
Triton's tutorial does, and V may be stored keys-contiguous (the tutorial's
layout, `v.transpose(-1, -2).contiguous().transpose(-1, -2)`), which is
the K-major operand Hopper's fp8 tensor-core products read directly.
"""
import math

import numpy as np

import tessera as triton
import tessera.language as tl


@triton.jit
def _attend_blocks(acc, l_i, m_i, q, k_head, v_head, stride_kn, stride_vn, stride_vd, rm, lo,
                   hi, N_CTX, qk_scale, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                   MASKED: tl.constexpr, CAUSAL: tl.constexpr, WS: tl.constexpr):
    rd = tl.arange(0, HEAD_DIM)
    for start in tl.range(lo, hi, BLOCK_N, warp_specialize=WS):
        rn = start + tl.arange(0, BLOCK_N)
        # K is read transposed (HEAD_DIM x BLOCK_N), contiguous along HEAD_DIM.
        kt_ptrs = k_head + rn[None, :] * stride_kn + rd[:, None]
        v_ptrs = v_head + rn[:, None] * stride_vn + rd[None, :] * stride_vd
        if MASKED:
            kt = tl.load(kt_ptrs, mask=rn[None, :] < N_CTX, other=0.0)
        else:
            kt = tl.load(kt_ptrs)
        qk = tl.dot(q, kt)
        if MASKED:
            keep = rn[None, :] < N_CTX
            if CAUSAL:
                keep = keep & (rm[:, None] >= rn[None, :])
            qk = tl.where(keep, qk * qk_scale, -float("inf"))
            m_new = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.math.exp2(qk - m_new[:, None])
        else:
            # The row maximum of the raw scores, scaled once (qk_scale > 0), so
            # that each score's scale and shift are one fused multiply-add: the
            # softmax is the loop's critical path (a scaled copy of the scores
            # for the maximum cost 9% more cycles a key block).
            m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            p = tl.math.exp2(qk * qk_scale - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        if MASKED:
            v = tl.load(v_ptrs, mask=rn[:, None] < N_CTX, other=0.0)
        else:
            v = tl.load(v_ptrs)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, sm_scale, N_CTX,
                         stride_qh, stride_qm, stride_kh, stride_kn, stride_vh, stride_vn,
                         stride_vd, stride_oh, stride_om, HEAD_DIM: tl.constexpr,
                         BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, WS: tl.constexpr = False):
    pid_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + head * stride_qh + rm[:, None] * stride_qm + rd[None, :],
                mask=rm[:, None] < N_CTX, other=0.0)
    k_head = k_ptr + head * stride_kh
    v_head = v_ptr + head * stride_vh
    qk_scale = sm_scale * 1.4426950408889634  # log2(e): scores in base 2
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    # Unmasked blocks: keys before the program's first row (causal) or every
    # whole block (not causal); then the diagonal / ragged blocks, masked.
    if CAUSAL:
        split = pid_m * BLOCK_M
        end = tl.minimum((pid_m + 1) * BLOCK_M, N_CTX)
    else:
        split = N_CTX // BLOCK_N * BLOCK_N
        end = N_CTX
    acc, l_i, m_i = _attend_blocks(acc, l_i, m_i, q, k_head, v_head, stride_kn, stride_vn,
                                   stride_vd, rm, 0, split, N_CTX, qk_scale, HEAD_DIM, BLOCK_N,
                                   False, CAUSAL, WS)
    acc, l_i, m_i = _attend_blocks(acc, l_i, m_i, q, k_head, v_head, stride_kn, stride_vn,
                                   stride_vd, rm, split, end, N_CTX, qk_scale, HEAD_DIM, BLOCK_N,
                                   True, CAUSAL, WS)
    o = acc / l_i[:, None]
    tl.store(lse_ptr + head * N_CTX + rm, m_i + tl.math.log2(l_i), mask=rm < N_CTX)
    tl.store(o_ptr + head * stride_oh + rm[:, None] * stride_om + rd[None, :],
             o.to(o_ptr.dtype.element_ty), mask=rm[:, None] < N_CTX)


def _empty(like, shape, float32=False):
    """An uninitialised array on like's device (NumPy array or torch tensor),
    of like's dtype (fp16 for fp8), or float32."""
    if isinstance(like, np.ndarray):
        dtype = np.float32 if float32 else np.float16 if _is_fp8(like) else like.dtype
        return np.empty(shape, dtype=dtype)
    import torch
    dtype = torch.float32 if float32 else torch.float16 if _is_fp8(like) else like.dtype
    return torch.empty(shape, dtype=dtype, device=like.device)


def _is_fp8(t):
    """fp8 as torch or ml_dtypes names it."""
    return str(t.dtype).removeprefix("torch.") in ("float8_e4m3fn", "float8_e5m2")


def _head_stride(name, st, Z, H):
    """The stride between heads when the Z * H heads are walked as one axis:
    a size-1 dim's stride is arbitrary (torch gives such dims any stride),
    so with H = 1 the batch stride is it, and with Z = 1 the head stride."""
    if H == 1:
        return st[0]
    assert Z == 1 or st[0] == H * st[1], \
        f"{name}: the batch stride must be H times the head stride"
    return st[1]


def _strides(t):
    """t's strides in elements."""
    if isinstance(t, np.ndarray):
        return [st // t.itemsize for st in t.strides]
    return list(t.stride())


def attention(q, k, v, causal=False, sm_scale=None, block_m=128, block_n=64, num_warps=8,
              num_stages=3, o=None, lse=None, warp_specialize=False):
    """softmax(q k^T * sm_scale) v per (batch, head), sm_scale > 0 (default
    1/sqrt(HEAD_DIM)); returns (o, lse), lse in base 2
    (written into o and lse when given). fp8 q, k and v give an fp16 o.
    warp_specialize=True: on sm_90a one more warp issues the key loops' tensor
    copies (tl.range's warp_specialize); it changes no result. Where the
    compiler rotates the key loop with a large score tile (128x128 on 8 warps,
    3 stages, HEAD_DIM 128) the kernel is split either way, with a producer
    warpgroup that hands its registers to the other warps."""
    Z, H, n_ctx, head_dim = q.shape
    assert k.shape == q.shape and v.shape == q.shape, "q, k and v must have one shape"
    assert k.dtype == q.dtype and v.dtype == q.dtype, "q, k and v must have one dtype"
    assert head_dim in (16, 32, 64, 128, 256), "HEAD_DIM must be a power of two, 16..256"
    if causal:
        assert block_m % block_n == 0, "causal attention needs BLOCK_M a multiple of BLOCK_N"
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(head_dim)
    assert sm_scale > 0, "sm_scale must be positive"
    o = _empty(q, q.shape) if o is None else o
    lse = _empty(q, (Z, H, n_ctx), float32=True) if lse is None else lse
    sq, sk, sv, so = (_strides(t) for t in (q, k, v, o))
    for name, st in (("q", sq), ("k", sk), ("o", so)):
        assert st[3] == 1, f"{name}: the head dimension must be contiguous"
    assert sv[3] == 1 or sv[2] == 1, "v: the head dimension or the keys must be contiguous"
    hq, hk, hv, ho = (_head_stride(name, st, Z, H)
                      for name, st in (("q", sq), ("k", sk), ("v", sv), ("o", so)))
    grid = (triton.cdiv(n_ctx, block_m), Z * H)
    attention_fwd_kernel[grid](q, k, v, o, lse, sm_scale, n_ctx, hq, sq[2], hk, sk[2],
                               hv, sv[2], sv[3], ho, so[2], HEAD_DIM=head_dim,
                               BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal,
                               WS=warp_specialize, num_warps=num_warps, num_stages=num_stages)
    return o, lse


@triton.jit
def attention_bwd_delta_kernel(o_ptr, do_ptr, delta_ptr, N_CTX, stride_oh, stride_om,
                               stride_doh, stride_dom, HEAD_DIM: tl.constexpr,
                               BLOCK_M: tl.constexpr):
    # delta = rowsum(dO * O), the rowsum(dP * P) of dS = P * (dP - rowsum(dP * P)).
    pid_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD_DIM)
    inside = rm[:, None] < N_CTX
    o = tl.load(o_ptr + head * stride_oh + rm[:, None] * stride_om + rd[None, :], mask=inside,
                other=0.0)
    do = tl.load(do_ptr + head * stride_doh + rm[:, None] * stride_dom + rd[None, :],
                 mask=inside, other=0.0)
    delta = tl.sum(o.to(tl.float32) * do.to(tl.float32), 1)
    tl.store(delta_ptr + head * N_CTX + rm, delta, mask=rm < N_CTX)


@triton.jit
def _dkdv_blocks(dk, dv, k, v, q_head, do_head, lse_head, delta_head, stride_qm, stride_dom, rn,
                 lo, hi, N_CTX, qk_scale, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                 MASKED: tl.constexpr, CAUSAL: tl.constexpr):
    # Transposed scores (keys x queries), so that dV = P^T dO and dK = dS^T Q
    # are plain products.
    rd = tl.arange(0, HEAD_DIM)
    for start in range(lo, hi, BLOCK_M):
        rm = start + tl.arange(0, BLOCK_M)
        if MASKED:
            inside = rm < N_CTX
            qt = tl.load(q_head + rm[None, :] * stride_qm + rd[:, None], mask=inside[None, :],
                         other=0.0)
            do = tl.load(do_head + rm[:, None] * stride_dom + rd[None, :], mask=inside[:, None],
                         other=0.0)
            lse = tl.load(lse_head + rm, mask=inside, other=0.0)
            delta = tl.load(delta_head + rm, mask=inside, other=0.0)
        else:
            qt = tl.load(q_head + rm[None, :] * stride_qm + rd[:, None])
            do = tl.load(do_head + rm[:, None] * stride_dom + rd[None, :])
            lse = tl.load(lse_head + rm)
            delta = tl.load(delta_head + rm)
        pt = tl.math.exp2(tl.dot(k, qt) * qk_scale - lse[None, :])
        if MASKED:
            keep = rm[None, :] < N_CTX
            if CAUSAL:
                keep = keep & (rm[None, :] >= rn[:, None])
            pt = tl.where(keep, pt, 0.0)
        dv = tl.dot(pt.to(do.dtype), do, dv)
        dpt = tl.dot(v, tl.trans(do))
        dst = pt * (dpt - delta[None, :])
        dk = tl.dot(dst.to(qt.dtype), tl.trans(qt), dk)
    return dk, dv


@triton.jit
def attention_bwd_dkdv_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dk_ptr, dv_ptr,
                              sm_scale, N_CTX, stride_h, stride_m, HEAD_DIM: tl.constexpr,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              CAUSAL: tl.constexpr):
    # One program per BLOCK_N keys of one head; q, k, v, do, dk and dv share
    # their strides (the wrapper makes them contiguous).
    pid_n = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)
    start_n = pid_n * BLOCK_N
    rn = start_n + tl.arange(0, BLOCK_N)
    rd = tl.arange(0, HEAD_DIM)
    kv = head * stride_h + rn[:, None] * stride_m + rd[None, :]
    k = tl.load(k_ptr + kv, mask=rn[:, None] < N_CTX, other=0.0)
    v = tl.load(v_ptr + kv, mask=rn[:, None] < N_CTX, other=0.0)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    q_head, do_head = q_ptr + head * stride_h, do_ptr + head * stride_h
    lse_head, delta_head = lse_ptr + head * N_CTX, delta_ptr + head * N_CTX
    # Causal: the query blocks on the diagonal (masked), then those wholly
    # below it; not causal: every whole block. The ragged tail, masked, last.
    if CAUSAL:
        diag_end = start_n + BLOCK_N
        dk, dv = _dkdv_blocks(dk, dv, k, v, q_head, do_head, lse_head, delta_head, stride_m,
                              stride_m, rn, start_n, diag_end, N_CTX, qk_scale, HEAD_DIM, BLOCK_M,
                              True, CAUSAL)
    else:
        diag_end = 0
    whole_end = tl.maximum(diag_end, N_CTX // BLOCK_M * BLOCK_M)
    dk, dv = _dkdv_blocks(dk, dv, k, v, q_head, do_head, lse_head, delta_head, stride_m,
                          stride_m, rn, diag_end, whole_end, N_CTX, qk_scale, HEAD_DIM, BLOCK_M,
                          False, CAUSAL)
    dk, dv = _dkdv_blocks(dk, dv, k, v, q_head, do_head, lse_head, delta_head, stride_m,
                          stride_m, rn, whole_end, N_CTX, N_CTX, qk_scale, HEAD_DIM, BLOCK_M,
                          True, CAUSAL)
    tl.store(dk_ptr + kv, (dk * sm_scale).to(dk_ptr.dtype.element_ty), mask=rn[:, None] < N_CTX)
    tl.store(dv_ptr + kv, dv.to(dv_ptr.dtype.element_ty), mask=rn[:, None] < N_CTX)


@triton.jit
def _dq_blocks(dq, q, do, lse, delta, k_head, v_head, stride_m, rm, lo, hi, N_CTX, qk_scale,
               HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, MASKED: tl.constexpr,
               CAUSAL: tl.constexpr):
    rd = tl.arange(0, HEAD_DIM)
    for start in range(lo, hi, BLOCK_N):
        rn = start + tl.arange(0, BLOCK_N)
        kt_ptrs = k_head + rn[None, :] * stride_m + rd[:, None]
        vt_ptrs = v_head + rn[None, :] * stride_m + rd[:, None]
        if MASKED:
            kt = tl.load(kt_ptrs, mask=rn[None, :] < N_CTX, other=0.0)
            vt = tl.load(vt_ptrs, mask=rn[None, :] < N_CTX, other=0.0)
        else:
            kt = tl.load(kt_ptrs)
            vt = tl.load(vt_ptrs)
        p = tl.math.exp2(tl.dot(q, kt) * qk_scale - lse[:, None])
        if MASKED:
            keep = rn[None, :] < N_CTX
            if CAUSAL:
                keep = keep & (rm[:, None] >= rn[None, :])
            p = tl.where(keep, p, 0.0)
        dp = tl.dot(do, vt)
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(kt.dtype), tl.trans(kt), dq)
    return dq


@triton.jit
def attention_bwd_dq_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dq_ptr, sm_scale,
                            N_CTX, stride_h, stride_m, HEAD_DIM: tl.constexpr,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    # One program per BLOCK_M queries of one head, walking the keys as the
    # forward pass does: unmasked blocks, then the diagonal / ragged ones.
    pid_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD_DIM)
    qo = head * stride_h + rm[:, None] * stride_m + rd[None, :]
    inside = rm < N_CTX
    q = tl.load(q_ptr + qo, mask=inside[:, None], other=0.0)
    do = tl.load(do_ptr + qo, mask=inside[:, None], other=0.0)
    lse = tl.load(lse_ptr + head * N_CTX + rm, mask=inside, other=0.0)
    delta = tl.load(delta_ptr + head * N_CTX + rm, mask=inside, other=0.0)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    k_head, v_head = k_ptr + head * stride_h, v_ptr + head * stride_h
    if CAUSAL:
        split = pid_m * BLOCK_M
        end = tl.minimum((pid_m + 1) * BLOCK_M, N_CTX)
    else:
        split = N_CTX // BLOCK_N * BLOCK_N
        end = N_CTX
    dq = _dq_blocks(dq, q, do, lse, delta, k_head, v_head, stride_m, rm, 0, split, N_CTX,
                    qk_scale, HEAD_DIM, BLOCK_N, False, CAUSAL)
    dq = _dq_blocks(dq, q, do, lse, delta, k_head, v_head, stride_m, rm, split, end, N_CTX,
                    qk_scale, HEAD_DIM, BLOCK_N, True, CAUSAL)
    tl.store(dq_ptr + qo, (dq * sm_scale).to(dq_ptr.dtype.element_ty), mask=inside[:, None])


def _contiguous(t):
    if isinstance(t, np.ndarray):
        return np.ascontiguousarray(t)
    return t.contiguous()


def attention_backward(q, k, v, o, lse, do, causal=False, sm_scale=None, block_m=64,
                       block_n=64, num_warps=4, num_stages=2, dq=None, dk=None, dv=None):
    """The gradients (dq, dk, dv) of attention(q, k, v) for the output gradient do,
    from the forward's o and lse (written into dq, dk and dv when given, contiguous)."""
    Z, H, n_ctx, head_dim = q.shape
    if causal:
        assert max(block_m, block_n) % min(block_m, block_n) == 0, \
            "causal attention needs one block size a multiple of the other"
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(head_dim)
    q, k, v, o, do = (_contiguous(t) for t in (q, k, v, o, do))
    dq = _empty(q, q.shape) if dq is None else dq
    dk = _empty(k, k.shape) if dk is None else dk
    dv = _empty(v, v.shape) if dv is None else dv
    delta = _empty(q, (Z, H, n_ctx), float32=True)
    stride_h, stride_m = n_ctx * head_dim, head_dim
    attention_bwd_delta_kernel[(triton.cdiv(n_ctx, 128), Z * H)](
        o, do, delta, n_ctx, stride_h, stride_m, stride_h, stride_m, HEAD_DIM=head_dim,
        BLOCK_M=128, num_warps=4)
    # dK/dV programs own the larger key block and walk the smaller query
    # blocks (their diagonal then starts on a block boundary); dQ the reverse.
    big, small = max(block_m, block_n), min(block_m, block_n)
    attention_bwd_dkdv_kernel[(triton.cdiv(n_ctx, big), Z * H)](
        q, k, v, do, lse, delta, dk, dv, sm_scale, n_ctx, stride_h, stride_m,
        HEAD_DIM=head_dim, BLOCK_M=small, BLOCK_N=big, CAUSAL=causal, num_warps=num_warps,
        num_stages=num_stages)
    attention_bwd_dq_kernel[(triton.cdiv(n_ctx, big), Z * H)](
        q, k, v, do, lse, delta, dq, sm_scale, n_ctx, stride_h, stride_m, HEAD_DIM=head_dim,
        BLOCK_M=big, BLOCK_N=small, CAUSAL=causal, num_warps=num_warps, num_stages=num_stages)
    return dq, dk, dv


def reference_backward(q, k, v, do, causal=False, sm_scale=None):
    """The gradients (dq, dk, dv) of the same attention in float64 NumPy."""
    q, k, v, do = (np.asarray(t, dtype=np.float64) for t in (q, k, v, do))
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.shape[-1])
    s = q @ np.swapaxes(k, -1, -2) * sm_scale
    if causal:
        n = q.shape[-2]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    dv = np.swapaxes(p, -1, -2) @ do
    dp = do @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))
    return ds @ k * sm_scale, np.swapaxes(ds, -1, -2) @ q * sm_scale, dv


def reference(q, k, v, causal=False, sm_scale=None):
    """The same attention in float64 NumPy."""
    q, k, v = (np.asarray(t, dtype=np.float64) for t in (q, k, v))
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(q.shape[-1])
    s = q @ np.swapaxes(k, -1, -2) * sm_scale
    if causal:
        n = q.shape[-2]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    return (p / p.sum(axis=-1, keepdims=True)) @ v


def demo(rng, shape=(1, 2, 200, 64)):
    q, k, v = (rng.standard_normal(shape).astype(np.float16) for _ in range(3))
    out, _ = attention(q, k, v, causal=True, block_m=64, block_n=32, num_warps=4)
    Z, H, N, D = shape
    return {"name": "attention (causal)", "size": f"{Z}x{H}x{N}x{D} fp16", "out": out,
            "ref": reference(q, k, v, causal=True), "tolerance": 2e-2,
            "tessera": lambda: attention(q, k, v, causal=True, block_m=64, block_n=32,
                                         num_warps=4),
            "numpy": lambda: reference(q, k, v, causal=True)}


if __name__ == "__main__":
    from demo import run_one
    run_one(demo)
