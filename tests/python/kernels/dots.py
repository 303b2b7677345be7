import triton
import triton.language as tl


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               PREC: tl.constexpr, OUT_DTYPE: tl.constexpr, USE_ACC: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if USE_ACC:
        c = tl.load(c_ptr + rm[:, None] * N + rn[None, :]).to(OUT_DTYPE)
        r = tl.dot(a, b, acc=c, input_precision=PREC, out_dtype=OUT_DTYPE)
    else:
        r = tl.dot(a, b, input_precision=PREC, out_dtype=OUT_DTYPE)
    tl.static_assert(r.dtype == OUT_DTYPE)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], r)


@triton.jit
def dot3d_kernel(a_ptr, b_ptr, out_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                 K: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rka = tl.arange(0, K)[None, None, :]
    rkb = tl.arange(0, K)[None, :, None]
    a = tl.load(a_ptr + rb * M * K + rm * K + rka)
    b = tl.load(b_ptr + rb * K * N + rkb * N + rn)
    r = tl.dot(a, b, input_precision="ieee")
    tl.store(out_ptr + rb * M * N + rm * N + rn, r)


@triton.jit
def shared_operand_kernel(a_ptr, k_ptr, out_ptr, steps, BM: tl.constexpr, BN: tl.constexpr,
                          D: tl.constexpr):
    # One load read by two dots, as it is and transposed (attention's
    # backward pass reads K^T so): on sm_90a both read one ring.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    a = tl.load(a_ptr + rm[:, None] * D + rd[None, :])
    acc = tl.zeros((BM, D), dtype=tl.float32)
    for i in range(steps):
        kt = tl.load(k_ptr + (i * BN + rn)[None, :] * D + rd[:, None])
        s = tl.dot(a, kt)
        acc += tl.dot(s.to(a.dtype), tl.trans(kt))
    tl.store(out_ptr + rm[:, None] * D + rd[None, :], acc)


@triton.jit
def mixed_tensor_core_kernel(a_ptr, b_ptr, c_ptr, out_ptr, steps, BM: tl.constexpr,
                             BN: tl.constexpr, BK: tl.constexpr):
    # Two products combined elementwise, one whose B is also summed (so it
    # stays in registers: mma.sync on sm_90a) and one whose operands both
    # reach shared memory (wgmma): their accumulator layouts differ.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for i in range(steps):
        b = tl.load(b_ptr + i * BK * BN + rk[:, None] * BN + rn[None, :])
        c = tl.load(c_ptr + i * BK * BN + rk[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b) * tl.dot(a, c) + tl.sum(b.to(tl.float32), axis=0)[None, :]
    tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def accumulate_kernel(a_ptr, b_ptr, out_ptr, steps, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
    # `acc += tl.dot(a, b)` (Triton's grouped GEMM tutorial writes its loop
    # so): combine-dot-add makes it tl.dot(a, b, acc), one accumulator chain.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for i in range(steps):
        a = tl.load(a_ptr + rm[:, None] * (steps * BK) + (i * BK + rk)[None, :])
        b = tl.load(b_ptr + (i * BK + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc)


# Offsets wrapped into range with `% M` / `% N` (no row or column masks; the
# style of Triton's matmul tutorial). The store masks the rows and columns
# past M and N, so on sm_90a the copy engine may read the operands (a
# wrapped row reaches no store); with STORE_ALL every row is stored, wrapped
# ones included, and the operands travel by cp.async (tests/ptx/wgmma.py).
@triton.jit
def wrapped_matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                   STORE_ALL: tl.constexpr = False):
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
        tl.store(c_ptr + cm[:, None] * scm + cn[None, :], acc.to(tl.float16))
    else:
        tl.store(c_ptr + cm[:, None] * scm + cn[None, :], acc.to(tl.float16),
                 mask=(cm[:, None] < M) & (cn[None, :] < N))


# 8-bit operands, both K-major (B stored N x K, as attention's transposed V
# is): the form wgmma takes for fp8 and int8. The accumulator has out's
# dtype (fp32 for fp8, int32 for int8); Q is max_num_imprecise_acc.
@triton.jit
def k_major_8bit_kernel(a_ptr, b_ptr, out_ptr, steps, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr, Q: tl.constexpr = None):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=out_ptr.dtype.element_ty)
    for i in range(steps):
        a = tl.load(a_ptr + rm[:, None] * (steps * BK) + (i * BK + rk)[None, :])
        b = tl.load(b_ptr + rn[None, :] * (steps * BK) + (i * BK + rk)[:, None])
        acc = tl.dot(a, b, acc, max_num_imprecise_acc=Q)
    tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc)


# An fp8 operand A computed in registers (attention's P = softmax(...) cast
# to fp8) times a K-major fp8 B: wgmma reads A from registers, four fp8
# values per 32-bit word.
@triton.jit
def fp8_register_a_kernel(a_ptr, b_ptr, out_ptr, steps, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for i in range(steps):
        x = tl.load(a_ptr + rm[:, None] * (steps * BK) + (i * BK + rk)[None, :])
        p = (x * 0.5).to(tl.float8e4nv)
        b = tl.load(b_ptr + rn[None, :] * (steps * BK) + (i * BK + rk)[:, None])
        acc = tl.dot(p, b, acc)
    tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc)


# fp8 attention's shape (tutorial 06): S = Q K^T on wgmma, P = S cast to
# fp8 in the accumulator's layout (two K values per thread), P V with P
# from registers (four per thread): the conversion stays within each row's
# four lanes (shuffles, no shared memory).
@triton.jit
def fp8_two_products_kernel(q_ptr, k_ptr, v_ptr, out_ptr, steps, BM: tl.constexpr,
                            BN: tl.constexpr, D: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    acc = tl.zeros((BM, D), dtype=tl.float32)
    for i in range(steps):
        kt = tl.load(k_ptr + (i * BN + rn)[None, :] * D + rd[:, None])  # K stored N x D
        s = tl.dot(q, kt)
        p = (s * 0.0625).to(tl.float8e4nv)
        v = tl.load(v_ptr + rd[None, :] * (steps * BN) + (i * BN + rn)[:, None])  # V^T stored
        acc = tl.dot(p, v, acc)
    tl.store(out_ptr + rm[:, None] * D + rd[None, :], acc)



# One product outside any loop (K fits one block), optionally followed by a
# second whose A is the first's result cast back to the input type (Triton's
# test_dot "chain-dot" epilogue). Strides of 1 make either orientation of
# each operand contiguous. On sm_90a both run on wgmma from shared memory
# that one copy per operand fills (stage-dot-operands).
@triton.jit
def single_dot_kernel(x_ptr, y_ptr, w_ptr, out_ptr, sxm, sxk, syk, syn, swn, swl,
                      M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, CHAIN: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    x = tl.load(x_ptr + rm[:, None] * sxm + rk[None, :] * sxk)
    y = tl.load(y_ptr + rk[:, None] * syk + rn[None, :] * syn)
    z = tl.dot(x, y)
    if CHAIN:
        w = tl.load(w_ptr + rn[:, None] * swn + rn[None, :] * swl)
        z = tl.dot(z.to(w.dtype), w)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], z)


# One accumulator fed by a wgmma product (Q K, both in shared memory) and an
# mma.sync one (Q times a tile computed in registers), Q loaded before the
# loop and staged in shared memory for both.
@triton.jit
def mixed_chain_kernel(q_ptr, k_ptr, x_ptr, out_ptr, steps, M: tl.constexpr, N: tl.constexpr,
                       D: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    x = tl.load(x_ptr + rd[:, None] * N + rn[None, :]) * 2
    acc = tl.zeros((M, N), dtype=tl.float32)
    for j in range(0, steps):
        k = tl.load(k_ptr + (j * D + rd)[:, None] * N + rn[None, :])
        acc += tl.dot(q, k)
        acc += tl.dot(q, x * j.to(tl.float16))
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def invariant_accumulator_kernel(a_ptr, b_ptr, c_ptr, out_ptr, steps, M: tl.constexpr,
                                 N: tl.constexpr, K: tl.constexpr):
    # c, loaded once, is the accumulator of every iteration's product: each
    # product starts from c as loaded, not from the previous iteration's.
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    c = tl.load(c_ptr + rm[:, None] * N + rn[None, :])
    total = tl.zeros((M, N), dtype=tl.float32)
    for j in range(0, steps):
        a = tl.load(a_ptr + (j * M + rm)[:, None] * K + rk[None, :])
        b = tl.load(b_ptr + (j * K + rk)[:, None] * N + rn[None, :])
        total += tl.dot(a, b, c) * 0.5
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], total)


@triton.jit
def streamed_attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, n, BM: tl.constexpr, BN: tl.constexpr,
                              D: tl.constexpr):
    # Online softmax with Q read again each iteration (rows j..j+BM) and V
    # once: both operands of Q K^T come from rings. On sm_90a, 64 rows run
    # on wgmma and the loop is rotated (rotate-dot-loops); 32 rows run on
    # mma.sync, whose Q K^T prefetches its first K step, and it is not.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    v = tl.load(v_ptr + rn[:, None] * D + rd[None, :])
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for j in range(0, n, BN):
        q = tl.load(q_ptr + (j + rm)[:, None] * D + rd[None, :])
        k = tl.load(k_ptr + (j + rn)[None, :] * D + rd[:, None])
        s = tl.dot(q, k)
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp(s - m_new[:, None])
        alpha = tl.math.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], acc / l_i[:, None])


@triton.jit
def _attend_keys(q, k_desc, v_desc, first, n, sm_scale, BM: tl.constexpr, BN: tl.constexpr,
                 D: tl.constexpr, WS: tl.constexpr):
    # One block of queries against keys first .. first + n (K and V through
    # descriptors), online softmax over one loop, which WS marks for warp
    # specialisation; the normalised output in fp16.
    scale = sm_scale * 1.4426950408889634  # log2(e): exp2 below
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for start in tl.range(0, n, BN, warp_specialize=WS):
        k = k_desc.load([first + start, 0])
        s = tl.dot(q, k.T)
        m_new = tl.maximum(m_i, tl.max(s, 1) * scale)
        p = tl.math.exp2(s * scale - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([first + start, 0])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    return (acc / l_i[:, None]).to(tl.float16)


@triton.jit
def descriptor_attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, n, sm_scale, BM: tl.constexpr,
                                BN: tl.constexpr, D: tl.constexpr, WS: tl.constexpr):
    # Online-softmax attention over one loop of keys, K and V read through
    # descriptors made in the kernel (tensor copies on sm_90a); WS asks for
    # warp specialisation of that loop. Heads are program_id(1), n rows each,
    # stored one after another; n a multiple of BM and BN.
    head = tl.program_id(1)
    rows = tl.num_programs(1) * n
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BN, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BN, D])
    first = head * n
    rm = first + tl.program_id(0) * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    o = _attend_keys(q, k_desc, v_desc, first, n, sm_scale, BM, BN, D, WS)
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], o)


@triton.jit
def tiled_attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, n, heads, sm_scale, BM: tl.constexpr,
                           BN: tl.constexpr, D: tl.constexpr, WS: tl.constexpr,
                           PROGRAMS: tl.constexpr):
    # descriptor_attention_kernel written persistent: PROGRAMS programs loop
    # over the (query block, head) tiles, Q read through a descriptor too;
    # WS marks the key loop.
    rows = heads * n
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BM, D])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BN, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BN, D])
    blocks = n // BM
    rd = tl.arange(0, D)
    for tile in tl.range(tl.program_id(0), blocks * heads, PROGRAMS):
        first = (tile // blocks) * n
        rq = first + (tile % blocks) * BM
        o = _attend_keys(q_desc.load([rq, 0]), k_desc, v_desc, first, n, sm_scale, BM, BN, D, WS)
        rm = rq + tl.arange(0, BM)
        tl.store(o_ptr + rm[:, None] * D + rd[None, :], o)


@triton.jit
def tiled_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr, WS: tl.constexpr, PROGRAMS: tl.constexpr):
    # Tutorial 09's shape with warp_specialize on Hopper: the loop over C's
    # tiles marked, the K loop in it (not flattened); A is M x K, B is N x K
    # (read .T).
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, PROGRAMS, warp_specialize=WS):
        rm = (tile // tiles_n) * BM
        rn = (tile % tiles_n) * BN
        acc = tl.zeros([BM, BN], tl.float32)
        for k in range(0, K, BK):
            acc += tl.dot(a_desc.load([rm, k]), b_desc.load([rn, k]).T)
        om = rm + tl.arange(0, BM)
        on = rn + tl.arange(0, BN)
        tl.store(c_ptr + om[:, None] * N + on[None, :], acc,
                 mask=(om[:, None] < M) & (on[None, :] < N))
