"""Flash attention, forward and backward, in the shape the course notes'
reading list writes it: @jit helpers take the offset tensors `offs_q` and
`offs_kv` in parameters annotated `tl.constexpr` (Triton accepts a run-time
value there: the annotation does not make the argument a constant), the
forward walks K and V with block pointers, split by STAGE into the blocks
left of the diagonal and the diagonal ones, and a torch.autograd.Function
ties the four kernels together. Used by tests/python/package/test_flash_attention.py
(CPU interpreter) and tests/gpu/test_flash_attention_gpu.py.

Layout: q, k, v, o are (batch, heads, seq, head_dim), contiguous. M keeps
each query row's log-sum-exp of the scaled scores; D keeps rowsum(dO * O).
"""
import torch

import tessera as triton
import tessera.language as tl


@triton.jit
def _fwd_blocks(acc, l_i, m_i, q, k_block_ptr, v_block_ptr, block_q, scale,
                BLOCK_Q: tl.constexpr, BLOCK_KV: tl.constexpr, STAGE: tl.constexpr,
                offs_q: tl.constexpr, offs_kv: tl.constexpr, SEQ_LEN: tl.constexpr):
    diagonal = block_q * BLOCK_Q  # this program's first query row
    lo = 0
    hi = SEQ_LEN  # STAGE 3: every key block, no mask
    if STAGE == 1:  # the key blocks left of the diagonal, no mask
        hi = diagonal
    if STAGE == 2:  # the diagonal blocks, masked
        lo = tl.multiple_of(diagonal, BLOCK_Q)
        hi = diagonal + BLOCK_Q
    k_block_ptr = tl.advance(k_block_ptr, (0, lo))
    v_block_ptr = tl.advance(v_block_ptr, (lo, 0))
    for start_kv in range(lo, hi, BLOCK_KV):
        start_kv = tl.multiple_of(start_kv, BLOCK_KV)
        s = tl.dot(q, tl.load(k_block_ptr)) * scale
        if STAGE == 2:
            s = tl.where(offs_q[:, None] >= start_kv + offs_kv[None, :], s, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp(s - m_new[:, None])
        correction = tl.math.exp(m_i - m_new)
        l_i = l_i * correction + tl.sum(p, 1)
        acc = acc * correction[:, None]
        acc = tl.dot(p.to(tl.float16), tl.load(v_block_ptr), acc)
        m_i = m_new
        k_block_ptr = tl.advance(k_block_ptr, (0, BLOCK_KV))
        v_block_ptr = tl.advance(v_block_ptr, (BLOCK_KV, 0))
    return acc, l_i, m_i


@triton.jit
def attention_fwd_kernel(Q, K, V, scale, M, O, stride_b, stride_h, stride_s, stride_d, HEADS,
                         SEQ_LEN: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_Q: tl.constexpr,
                         BLOCK_KV: tl.constexpr, STAGE: tl.constexpr):
    block_q = tl.program_id(0)
    head = tl.program_id(1)
    base = (head // HEADS).to(tl.int64) * stride_b + (head % HEADS).to(tl.int64) * stride_h
    q_block_ptr = tl.make_block_ptr(Q + base, (SEQ_LEN, HEAD_DIM), (stride_s, stride_d),
                                    (block_q * BLOCK_Q, 0), (BLOCK_Q, HEAD_DIM), (1, 0))
    # K read transposed: a (HEAD_DIM, BLOCK_KV) view of the same memory.
    k_block_ptr = tl.make_block_ptr(K + base, (HEAD_DIM, SEQ_LEN), (stride_d, stride_s), (0, 0),
                                    (HEAD_DIM, BLOCK_KV), (0, 1))
    v_block_ptr = tl.make_block_ptr(V + base, (SEQ_LEN, HEAD_DIM), (stride_s, stride_d), (0, 0),
                                    (BLOCK_KV, HEAD_DIM), (1, 0))
    o_block_ptr = tl.make_block_ptr(O + base, (SEQ_LEN, HEAD_DIM), (stride_s, stride_d),
                                    (block_q * BLOCK_Q, 0), (BLOCK_Q, HEAD_DIM), (1, 0))
    offs_q = block_q * BLOCK_Q + tl.arange(0, BLOCK_Q)
    offs_kv = tl.arange(0, BLOCK_KV)
    m_i = tl.full([BLOCK_Q], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_Q], tl.float32)
    acc = tl.zeros([BLOCK_Q, HEAD_DIM], tl.float32)
    q = tl.load(q_block_ptr)
    if STAGE == 3:  # causal: the blocks left of the diagonal, then the diagonal
        acc, l_i, m_i = _fwd_blocks(acc, l_i, m_i, q, k_block_ptr, v_block_ptr, block_q, scale,
                                    BLOCK_Q, BLOCK_KV, 1, offs_q, offs_kv, SEQ_LEN)
        acc, l_i, m_i = _fwd_blocks(acc, l_i, m_i, q, k_block_ptr, v_block_ptr, block_q, scale,
                                    BLOCK_Q, BLOCK_KV, 2, offs_q, offs_kv, SEQ_LEN)
    else:  # STAGE 1: every key block in one pass
        acc, l_i, m_i = _fwd_blocks(acc, l_i, m_i, q, k_block_ptr, v_block_ptr, block_q, scale,
                                    BLOCK_Q, BLOCK_KV, 3, offs_q, offs_kv, SEQ_LEN)
    tl.store(M + head * SEQ_LEN + offs_q, m_i + tl.math.log(l_i))
    tl.store(o_block_ptr, (acc / l_i[:, None]).to(O.type.element_ty))


@triton.jit
def attention_bwd_delta_kernel(O, dO, D, SEQ_LEN: tl.constexpr, BLOCK_Q: tl.constexpr,
                               HEAD_DIM: tl.constexpr):
    block_q = tl.program_id(0)
    head = tl.program_id(1)
    offs_q = block_q * BLOCK_Q + tl.arange(0, BLOCK_Q)
    offs_d = tl.arange(0, HEAD_DIM)
    rows = head * SEQ_LEN * HEAD_DIM + offs_q[:, None] * HEAD_DIM + offs_d[None, :]
    o = tl.load(O + rows).to(tl.float32)
    do = tl.load(dO + rows).to(tl.float32)
    tl.store(D + head * SEQ_LEN + offs_q, tl.sum(o * do, axis=1))


@triton.jit
def _dkdv_blocks(dk, dv, k, v, Q, dO, M, D, scale, offs_kv: tl.constexpr, lo, hi,
                 HEAD_DIM: tl.constexpr, BLOCK_Q: tl.constexpr, MASKED: tl.constexpr):
    offs_d = tl.arange(0, HEAD_DIM)
    for start_q in range(lo, hi, BLOCK_Q):
        offs_q = start_q + tl.arange(0, BLOCK_Q)
        q_t = tl.load(Q + offs_q[None, :] * HEAD_DIM + offs_d[:, None])
        p_t = tl.math.exp(tl.dot(k, q_t) * scale - tl.load(M + offs_q)[None, :])
        if MASKED:
            p_t = tl.where(offs_q[None, :] >= offs_kv[:, None], p_t, 0.0)
        do = tl.load(dO + offs_q[:, None] * HEAD_DIM + offs_d[None, :])
        dv += tl.dot(p_t.to(tl.float16), do)
        dp_t = tl.dot(v, tl.trans(do))
        ds_t = p_t * (dp_t - tl.load(D + offs_q)[None, :])
        dk += tl.dot(ds_t.to(tl.float16), tl.trans(q_t))
    return dk, dv


@triton.jit
def attention_bwd_dkdv_kernel(Q, K, V, dO, M, D, dK, dV, scale, SEQ_LEN: tl.constexpr,
                              HEAD_DIM: tl.constexpr, BLOCK_Q: tl.constexpr,
                              BLOCK_KV: tl.constexpr, CAUSAL: tl.constexpr):
    block_kv = tl.program_id(0)
    head = tl.program_id(1)
    base = head.to(tl.int64) * SEQ_LEN * HEAD_DIM
    Q += base
    K += base
    V += base
    dO += base
    dK += base
    dV += base
    M += head * SEQ_LEN
    D += head * SEQ_LEN
    offs_kv = block_kv * BLOCK_KV + tl.arange(0, BLOCK_KV)
    offs_d = tl.arange(0, HEAD_DIM)
    rows = offs_kv[:, None] * HEAD_DIM + offs_d[None, :]
    k = tl.load(K + rows)
    v = tl.load(V + rows)
    dk = tl.zeros([BLOCK_KV, HEAD_DIM], tl.float32)
    dv = tl.zeros([BLOCK_KV, HEAD_DIM], tl.float32)
    if CAUSAL:
        # Queries before this key block do not see it; the diagonal block is
        # masked, the ones below it are not.
        diagonal = block_kv * BLOCK_KV
        dk, dv = _dkdv_blocks(dk, dv, k, v, Q, dO, M, D, scale, offs_kv, diagonal,
                              diagonal + BLOCK_KV, HEAD_DIM, BLOCK_Q, True)
        dk, dv = _dkdv_blocks(dk, dv, k, v, Q, dO, M, D, scale, offs_kv, diagonal + BLOCK_KV,
                              SEQ_LEN, HEAD_DIM, BLOCK_Q, False)
    else:
        dk, dv = _dkdv_blocks(dk, dv, k, v, Q, dO, M, D, scale, offs_kv, 0, SEQ_LEN, HEAD_DIM,
                              BLOCK_Q, False)
    tl.store(dK + rows, (dk * scale).to(dK.type.element_ty))
    tl.store(dV + rows, dv.to(dV.type.element_ty))


@triton.jit
def _dq_blocks(dq, q, do, m, delta, K, V, scale, offs_q: tl.constexpr, lo, hi,
               HEAD_DIM: tl.constexpr, BLOCK_KV: tl.constexpr, MASKED: tl.constexpr):
    offs_d = tl.arange(0, HEAD_DIM)
    for start_kv in range(lo, hi, BLOCK_KV):
        offs_kv = start_kv + tl.arange(0, BLOCK_KV)
        k_t = tl.load(K + offs_kv[None, :] * HEAD_DIM + offs_d[:, None])
        v_t = tl.load(V + offs_kv[None, :] * HEAD_DIM + offs_d[:, None])
        p = tl.math.exp(tl.dot(q, k_t) * scale - m[:, None])
        if MASKED:
            p = tl.where(offs_q[:, None] >= offs_kv[None, :], p, 0.0)
        ds = p * (tl.dot(do, v_t) - delta[:, None])
        dq += tl.dot(ds.to(tl.float16), tl.trans(k_t))
    return dq


@triton.jit
def attention_bwd_dq_kernel(Q, K, V, dO, M, D, dQ, scale, SEQ_LEN: tl.constexpr,
                            HEAD_DIM: tl.constexpr, BLOCK_Q: tl.constexpr,
                            BLOCK_KV: tl.constexpr, CAUSAL: tl.constexpr):
    block_q = tl.program_id(0)
    head = tl.program_id(1)
    base = head.to(tl.int64) * SEQ_LEN * HEAD_DIM
    offs_q = block_q * BLOCK_Q + tl.arange(0, BLOCK_Q)
    offs_d = tl.arange(0, HEAD_DIM)
    rows = offs_q[:, None] * HEAD_DIM + offs_d[None, :]
    q = tl.load(Q + base + rows)
    do = tl.load(dO + base + rows)
    m = tl.load(M + head * SEQ_LEN + offs_q)
    delta = tl.load(D + head * SEQ_LEN + offs_q)
    dq = tl.zeros([BLOCK_Q, HEAD_DIM], tl.float32)
    if CAUSAL:
        diagonal = block_q * BLOCK_Q
        dq = _dq_blocks(dq, q, do, m, delta, K + base, V + base, scale, offs_q, 0, diagonal,
                        HEAD_DIM, BLOCK_KV, False)
        dq = _dq_blocks(dq, q, do, m, delta, K + base, V + base, scale, offs_q, diagonal,
                        diagonal + BLOCK_Q, HEAD_DIM, BLOCK_KV, True)
    else:
        dq = _dq_blocks(dq, q, do, m, delta, K + base, V + base, scale, offs_q, 0, SEQ_LEN,
                        HEAD_DIM, BLOCK_KV, False)
    tl.store(dQ + base + rows, (dq * scale).to(dQ.type.element_ty))


def _poisoned(like, shape=None, dtype=None):
    """An output buffer full of NaN: an element no kernel writes fails the test."""
    return torch.full(like.shape if shape is None else shape, float("nan"),
                      dtype=like.dtype if dtype is None else dtype, device=like.device)


class FlashAttention(torch.autograd.Function):
    """softmax(q k^T * scale) v over (batch, heads, seq, head_dim) fp16
    tensors. `blocks` is (BLOCK_Q, BLOCK_KV) of the forward and of dQ; the
    dK/dV kernel swaps them. seq must be a multiple of both, and for causal
    attention BLOCK_Q a multiple of BLOCK_KV."""

    @staticmethod
    def forward(ctx, q, k, v, causal, scale, blocks=(128, 64), num_warps=4, num_stages=3):
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        batch, heads, seq, head_dim = q.shape
        block_q, block_kv = blocks
        o = _poisoned(q)
        m = _poisoned(q, (batch, heads, seq), torch.float32)
        attention_fwd_kernel[(triton.cdiv(seq, block_q), batch * heads)](
            q, k, v, scale, m, o, *q.stride(), heads, SEQ_LEN=seq, HEAD_DIM=head_dim,
            BLOCK_Q=block_q, BLOCK_KV=block_kv, STAGE=3 if causal else 1, num_warps=num_warps,
            num_stages=num_stages)
        ctx.save_for_backward(q, k, v, o, m)
        ctx.causal, ctx.scale, ctx.blocks = causal, scale, blocks
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, m = ctx.saved_tensors
        do = do.contiguous()
        batch, heads, seq, head_dim = q.shape
        large, small = ctx.blocks
        delta = _poisoned(m)
        attention_bwd_delta_kernel[(seq // large, batch * heads)](
            o, do, delta, SEQ_LEN=seq, BLOCK_Q=large, HEAD_DIM=head_dim)
        dq, dk, dv = _poisoned(q), _poisoned(k), _poisoned(v)
        meta = dict(SEQ_LEN=seq, HEAD_DIM=head_dim, CAUSAL=ctx.causal, num_warps=4, num_stages=2)
        attention_bwd_dkdv_kernel[(seq // large, batch * heads)](
            q, k, v, do, m, delta, dk, dv, ctx.scale, BLOCK_Q=small, BLOCK_KV=large, **meta)
        attention_bwd_dq_kernel[(seq // large, batch * heads)](
            q, k, v, do, m, delta, dq, ctx.scale, BLOCK_Q=large, BLOCK_KV=small, **meta)
        return dq, dk, dv, None, None, None, None, None


def reference(q, k, v, causal, scale):
    """The same attention in float64 PyTorch."""
    s = torch.matmul(q.double(), k.double().transpose(2, 3)) * scale
    if causal:
        n = q.shape[2]
        s = s.masked_fill(~torch.tril(torch.ones(n, n, dtype=torch.bool, device=q.device)),
                          float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v.double())
