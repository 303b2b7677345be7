"""Tensor descriptors: tl.make_tensor_descriptor in kernels and host
TensorDescriptor arguments, their loads (out-of-bounds elements read the
padding), stores (out-of-bounds elements untouched), atomics, gather and
scatter, against NumPy references on fresh random inputs with poisoned
outputs. The same cases run on the GPU in tests/gpu/test_descriptor_gpu.py,
through the `arrays` fixture (host NumPy arrays here, CUDA tensors there)."""

from __future__ import annotations

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl
from tessera.tools.tensor_descriptor import TensorDescriptor

POISON = -77


class HostArrays:
    """Kernel arguments in host memory (the GPU twin passes CUDA tensors)."""

    def put(self, a: np.ndarray):
        return a

    def get(self, a) -> np.ndarray:
        return np.asarray(a)


@pytest.fixture
def arrays():
    return HostArrays()


@pytest.fixture
def rng(request):
    return np.random.default_rng(abs(hash(request.node.name)) % (1 << 32))


def padded(rng, shape, dtype, pitch, fill=None):
    """An array of `shape` whose rows are `pitch` elements apart (a view of a
    wider one), filled with random values or `fill`."""
    full = np.empty(shape[:-1] + (pitch,), dtype)
    if fill is not None:
        full[...] = fill
    elif np.issubdtype(dtype, np.integer):
        full[...] = rng.integers(-1000, 1000, full.shape)
    else:
        full[...] = rng.standard_normal(full.shape)
    return full, full[..., :shape[-1]]


def shifted_block(x, rows, cols, fill=0):
    """x[rows][:, cols] with out-of-range indices reading `fill`."""
    out = np.full((len(rows), len(cols)), fill, dtype=np.float64)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            if 0 <= r < x.shape[0] and 0 <= c < x.shape[1]:
                out[i, j] = x[r, c]
    return out


# ---------------------------------------------------------------------------- in-kernel descriptors


@triton.jit
def scale_kernel(x_ptr, y_ptr, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr,
                 SHIFT: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    xd = tl.make_tensor_descriptor(x_ptr, [M, N], [sxm, 1], [BM, BN])
    yd = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[sym, 1], block_shape=[BM, BN])
    block = xd.load([pm * BM + SHIFT, pn * BN - SHIFT])
    yd.store([pm * BM, pn * BN], block * 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("shift", [0, 5])
def test_make_tensor_descriptor_load_store(arrays, rng, dtype, shift):
    M, N, pitch, BM, BN = 37, 50, 64, 16, 32
    xfull, x = padded(rng, (M, N), dtype, pitch)
    yfull, y = padded(rng, (M, N), dtype, pitch, fill=POISON)
    xd, yd = arrays.put(xfull), arrays.put(yfull)
    scale_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](xd, yd, M, N, pitch, pitch, BM, BN,
                                                           shift)
    out = arrays.get(yd)
    ref = np.empty((M, N))
    for pm in range(triton.cdiv(M, BM)):
        for pn in range(triton.cdiv(N, BN)):
            rows = range(pm * BM + shift, pm * BM + shift + BM)
            cols = range(pn * BN - shift, pn * BN - shift + BN)
            blk = 2 * shifted_block(x.astype(np.float64), rows, cols)
            r0, c0 = pm * BM, pn * BN
            h, w = min(BM, M - r0), min(BN, N - c0)
            ref[r0:r0 + h, c0:c0 + w] = blk[:h, :w]
    np.testing.assert_allclose(out[:, :N].astype(np.float64), ref.astype(dtype).astype(np.float64))
    assert (out[:, N:] == POISON).all(), "a store wrote past the descriptor's shape"


# ---------------------------------------------------------------------------- host descriptors


@triton.jit
def host_copy_kernel(x_desc, y_desc, SHIFT: tl.constexpr):
    BM: tl.constexpr = x_desc.block_shape[0]
    BN: tl.constexpr = x_desc.block_shape[1]
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    block = x_desc.load([pm * BM - SHIFT, pn * BN + SHIFT])
    y_desc.store([pm * BM, pn * BN], block + 1)


@pytest.mark.parametrize("block", [(16, 16), (32, 8), (8, 64)])
def test_host_tensor_descriptor(arrays, rng, block):
    M, N, pitch, shift = 45, 60, 64, 3
    BM, BN = block
    xfull, x = padded(rng, (M, N), np.float32, pitch)
    yfull, y = padded(rng, (M, N), np.float32, pitch, fill=POISON)
    xa, ya = arrays.put(xfull), arrays.put(yfull)
    xdesc = TensorDescriptor(xa, [M, N], [pitch, 1], list(block))
    ydesc = TensorDescriptor(ya, [M, N], [pitch, 1], list(block))
    host_copy_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](xdesc, ydesc, shift)
    out = arrays.get(ya)
    ref = np.empty((M, N))
    for r in range(M):
        for c in range(N):
            pm, pn = r // BM, c // BN
            sr, sc = r - shift, c + shift
            ref[r, c] = (x[sr, sc] if 0 <= sr < M and 0 <= sc < N else 0) + 1
    np.testing.assert_allclose(out[:, :N], ref, rtol=1e-6)
    assert (out[:, N:] == POISON).all()


@triton.jit
def host_store_shifted_kernel(x_desc, y_desc, SHIFT_M: tl.constexpr, SHIFT_N: tl.constexpr):
    # Blocks stored off the grid's lattice: the first row of blocks and the
    # last column reach outside the tensor, where nothing may be written.
    BM: tl.constexpr = y_desc.block_shape[0]
    BN: tl.constexpr = y_desc.block_shape[1]
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    y_desc.store([pm * BM - SHIFT_M, pn * BN + SHIFT_N], x_desc.load([pm * BM, pn * BN]))


@pytest.mark.parametrize("dtype,block", [(np.float16, (64, 64)), (np.int8, (16, 32)),
                                         (np.float32, (32, 8)), (np.float16, (128, 16))])
def test_host_descriptor_store_clips_at_every_edge(arrays, rng, dtype, block):
    M, N, pitch, sm, sn = 150, 72, 96, 5, 7
    BM, BN = block
    xfull, x = padded(rng, (M, N), dtype, pitch)
    if dtype == np.int8:
        x[...] = rng.integers(-128, 128, x.shape)
    yfull, _ = padded(rng, (M, N), dtype, pitch, fill=POISON)
    xa, ya = arrays.put(xfull), arrays.put(yfull)
    xdesc = TensorDescriptor(xa, [M, N], [pitch, 1], list(block))
    ydesc = TensorDescriptor(ya, [M, N], [pitch, 1], list(block))
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    host_store_shifted_kernel[grid](xdesc, ydesc, sm, sn)
    out = arrays.get(ya)
    ref = np.full((M, pitch), POISON, np.float64)
    for pm in range(grid[0]):
        for pn in range(grid[1]):
            rows = range(pm * BM - sm, pm * BM - sm + BM)
            cols = range(pn * BN + sn, pn * BN + sn + BN)
            blk = shifted_block(x, range(pm * BM, pm * BM + BM), range(pn * BN, pn * BN + BN))
            for i, r in enumerate(rows):
                for j, c in enumerate(cols):
                    if 0 <= r < M and 0 <= c < N:
                        ref[r, c] = blk[i, j]
    np.testing.assert_array_equal(out.astype(np.float64), ref)


@triton.jit
def rank1_kernel(x_desc, y_desc, BLOCK: tl.constexpr):
    off = tl.program_id(0) * BLOCK
    y_desc.store([off], tl.exp(x_desc.load([off + 7])))


def test_rank1_descriptor(arrays, rng):
    n = 100
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, POISON, np.float32)
    xa, ya = arrays.put(x), arrays.put(y)
    rank1_kernel[(triton.cdiv(n, 32),)](TensorDescriptor.from_tensor(xa, [32]),
                                        TensorDescriptor.from_tensor(ya, [32]), 32)
    ref = np.exp(np.concatenate([x[7:], np.zeros(7, np.float32)]))
    np.testing.assert_allclose(arrays.get(ya), ref, rtol=1e-5)


@triton.jit
def rank3_kernel(x_desc, y_desc):
    b = tl.program_id(0)
    block = x_desc.load([b * 2, 0, 4])
    y_desc.store([b * 2, 0, 0], block)


def test_rank3_descriptor(arrays, rng):
    B, R, C = 5, 10, 20
    xfull = rng.standard_normal((B, R, 32)).astype(np.float32)
    yfull = np.full((B, R, 32), POISON, np.float32)
    xa, ya = arrays.put(xfull), arrays.put(yfull)
    xdesc = TensorDescriptor(xa, [B, R, C], [R * 32, 32, 1], [2, 16, 16])
    ydesc = TensorDescriptor(ya, [B, R, C], [R * 32, 32, 1], [2, 16, 16])
    rank3_kernel[(triton.cdiv(B, 2),)](xdesc, ydesc)
    out = arrays.get(ya)
    # The block covers columns 0-15 of each row; 16 onwards keep the poison.
    np.testing.assert_array_equal(out[:, :, :16], xfull[:, :, 4:20])
    assert (out[:, :, 16:] == POISON).all()


@triton.jit
def nan_pad_kernel(x_ptr, y_ptr, n, xdesc, ydesc):
    d = tl.make_tensor_descriptor(x_ptr, [n], [1], [16], padding_option="nan")
    tl.store(y_ptr + tl.arange(0, 16), d.load([n - 8]))
    ydesc.store([0], xdesc.load([-4]))


def test_nan_padding(arrays, rng):
    x = rng.standard_normal(16).astype(np.float32)
    y = np.full(16, POISON, np.float32)
    y2 = np.full(16, POISON, np.float32)
    xa, ya, y2a = arrays.put(x), arrays.put(y), arrays.put(y2)
    nan_pad_kernel[(1,)](xa, ya, 12, TensorDescriptor(xa, [16], [1], [16], padding="nan"),
                         TensorDescriptor.from_tensor(y2a, [16]))
    out, out2 = arrays.get(ya), arrays.get(y2a)
    np.testing.assert_array_equal(out[:8], x[4:12])
    assert np.isnan(out[8:]).all()
    assert np.isnan(out2[:4]).all()
    np.testing.assert_array_equal(out2[4:], x[:12])


@triton.jit
def block_from_desc_kernel(x_desc, y_ptr, n):
    B: tl.constexpr = x_desc.block_shape[0]
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y_ptr + offs, x_desc.load([tl.program_id(0) * B]) * 3, mask=offs < n)


def test_block_shape_is_part_of_the_specialisation(arrays, rng):
    """Autotuner pre-hooks set desc.block_shape between launches (Triton's
    persistent-matmul tutorial): each block shape is its own kernel."""
    n = 200
    x = rng.standard_normal(n).astype(np.float32)
    xa = arrays.put(x)
    desc = TensorDescriptor.from_tensor(xa, [16])
    for block in (16, 64, 32):
        y = arrays.put(np.full(n, POISON, np.float32))
        desc.block_shape = [block]
        block_from_desc_kernel[(triton.cdiv(n, block),)](desc, y, n)
        np.testing.assert_allclose(arrays.get(y), 3 * x, rtol=1e-6)


# ---------------------------------------------------------------------------- atomics, gather, scatter


@triton.jit
def atomic_kernel(x_ptr, y_desc, M, N, BM: tl.constexpr, BN: tl.constexpr):
    offs_m = tl.arange(0, BM)[:, None]
    offs_n = tl.arange(0, BN)[None, :]
    x = tl.load(x_ptr + offs_m * BN + offs_n)
    y_desc.atomic_add([0, 0], x)
    y_desc.atomic_add([0, 0], x)  # twice per program: 6x over three programs


def test_descriptor_atomic_add(arrays, rng):
    M, N, BM, BN = 10, 12, 16, 16
    x = rng.standard_normal((BM, BN)).astype(np.float32)
    yfull = np.zeros((M, 16), np.float32)
    yfull[:, N:] = POISON
    xa, ya = arrays.put(x), arrays.put(yfull)
    atomic_kernel[(3,)](xa, TensorDescriptor(ya, [M, N], [16, 1], [BM, BN]), M, N, BM, BN)
    out = arrays.get(ya)
    np.testing.assert_allclose(out[:, :N], 6 * x[:M, :N], rtol=1e-5)
    assert (out[:, N:] == POISON).all()


@triton.jit
def int_atomics_kernel(x_ptr, y_desc, B: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, B)[:, None] * B + tl.arange(0, B)[None, :])
    y_desc.atomic_max([0, 0], x)
    y_desc.atomic_or([B, 0], x)


def test_descriptor_integer_atomics(arrays, rng):
    B = 8
    x = rng.integers(0, 1 << 20, (B, B)).astype(np.int32)
    y = np.zeros((2 * B, B), np.int32)
    xa, ya = arrays.put(x), arrays.put(y)
    int_atomics_kernel[(2,)](xa, TensorDescriptor.from_tensor(ya, [B, B]), B)
    out = arrays.get(ya)
    np.testing.assert_array_equal(out[:B], np.maximum(x, 0))
    np.testing.assert_array_equal(out[B:], x)


@triton.jit
def gather_scatter_kernel(x_desc, idx_ptr, y_desc, R: tl.constexpr, col):
    rows = tl.load(idx_ptr + tl.arange(0, R))
    block = x_desc.gather(rows, col)
    y_desc.scatter(block * 2, tl.arange(0, R) * 2, 0)


def test_gather_scatter(arrays, rng):
    R, C, X = 16, 40, 30
    xfull, x = padded(rng, (X, C), np.float32, 48)
    rows = rng.integers(-3, X + 3, R).astype(np.int32)
    yfull = np.full((2 * R, 48), POISON, np.float32)
    xa, ia, ya = arrays.put(xfull), arrays.put(rows), arrays.put(yfull)
    xdesc = TensorDescriptor(xa, [X, C], [48, 1], [1, 32])
    ydesc = TensorDescriptor(ya, [2 * R - 1, C], [48, 1], [1, 32])
    gather_scatter_kernel[(1,)](xdesc, ia, ydesc, R, 12)
    out = arrays.get(ya)
    ref = 2 * shifted_block(x, rows, range(12, 44))
    for i in range(R):
        r = 2 * i
        if r < 2 * R - 1:
            np.testing.assert_allclose(out[r, :32], ref[i], rtol=1e-6)
            assert (out[r, 32:] == POISON).all()
    assert (out[1::2] == POISON).all()


# ---------------------------------------------------------------------------- matmul, helpers


@triton.jit
def load_tile(desc, m, n):
    return desc.load([m, n])


@triton.jit
def desc_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = load_tile(a_desc, pm * BM, k * BK)
        b = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


def test_descriptor_matmul(arrays, rng):
    M, N, K = 72, 88, 104
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), POISON, np.float16)
    aa, ba, ca = arrays.put(a), arrays.put(b), arrays.put(c)
    desc_matmul_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](aa, ba, ca, M, N, K, 32, 32, 32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(arrays.get(ca).astype(np.float64), ref, rtol=1e-2, atol=5e-2)


@triton.jit
def desc_matmul_sizes_in_memory_kernel(a_ptr, bt_ptr, c_ptr, sizes_ptr, BM: tl.constexpr,
                                       BN: tl.constexpr, BK: tl.constexpr):
    # Tutorial 08's descriptor kernel: sizes and leading dims read from
    # memory (nothing known of them at compile time), B given as B^T (N x K)
    # and read transposed.
    M = tl.load(sizes_ptr)
    N = tl.load(sizes_ptr + 1)
    K = tl.load(sizes_ptr + 2)
    lda = tl.load(sizes_ptr + 3)
    ldb = tl.load(sizes_ptr + 4)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[lda, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(bt_ptr, shape=[N, K], strides=[ldb, 1],
                                       block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, kk * BK])
        b = b_desc.load([pn * BN, kk * BK])
        acc += tl.dot(a, b.T)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@pytest.mark.parametrize("mnk", [(72, 88, 104), (96, 80, 77), (64, 64, 200)])
def test_descriptor_matmul_sizes_in_memory(arrays, rng, mnk):
    M, N, K = mnk
    pitch = (K + 7) // 8 * 8 + 8  # rows 16-byte aligned, as descriptors require
    a_full, a = padded(rng, (M, K), np.float16, pitch)
    b_full, bt = padded(rng, (N, K), np.float16, pitch)
    c = np.full((M, N), POISON, np.float16)
    sizes = np.array([M, N, K, pitch, pitch], np.int32)
    aa, ba, ca = arrays.put(a_full), arrays.put(b_full), arrays.put(c)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    desc_matmul_sizes_in_memory_kernel[grid](aa, ba, ca, arrays.put(sizes), 64, 64, 32,
                                             num_warps=4)
    ref = a.astype(np.float64) @ bt.astype(np.float64).T
    np.testing.assert_allclose(arrays.get(ca).astype(np.float64), ref, rtol=1e-2, atol=5e-2)


@triton.jit
def as_descriptor(desc_or_ptr, shape, strides, block_shape):
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


@triton.jit
def either_kernel(x, y, n, B: tl.constexpr):
    xd = as_descriptor(x, [n], [1], [B])
    yd = as_descriptor(y, [n], [1], [B])
    tl.static_assert(isinstance(B, int) and isinstance(B, (tl.constexpr, float)))
    tl.static_assert(not isinstance(n, tl.constexpr) and isinstance(n, tl.tensor))
    yd.store([tl.program_id(0) * B], xd.load([tl.program_id(0) * B]) - 1)


def test_isinstance_picks_descriptor_or_pointer(arrays, rng):
    """A helper taking a descriptor or a pointer (Triton's attention tutorial)."""
    n = 100
    x = rng.standard_normal(n).astype(np.float32)
    for wrap_x, wrap_y in ((True, False), (False, True), (True, True), (False, False)):
        xa, ya = arrays.put(x), arrays.put(np.full(n, POISON, np.float32))
        xs = TensorDescriptor.from_tensor(xa, [32]) if wrap_x else xa
        ys = TensorDescriptor.from_tensor(ya, [32]) if wrap_y else ya
        either_kernel[(triton.cdiv(n, 32),)](xs, ys, n, 32)
        np.testing.assert_allclose(arrays.get(ya), x - 1, rtol=1e-6)


# ---------------------------------------------------------------------------- mistakes


@triton.jit
def runtime_last_stride_kernel(x_ptr, n, s):
    d = tl.make_tensor_descriptor(x_ptr, [n, n], [n, s], [16, 16])
    d.store([0, 0], d.load([0, 0]))


@triton.jit
def narrow_block_kernel(x_ptr, n):
    d = tl.make_tensor_descriptor(x_ptr, [n, n], [n, 1], [16, 2])
    d.store([0, 0], d.load([0, 0]))


@triton.jit
def offsets_count_kernel(x_desc):
    x_desc.load([0])


@triton.jit
def store_shape_kernel(x_desc):
    x_desc.store([0, 0], tl.zeros((8, 8), tl.float32))


@triton.jit
def int_nan_kernel(x_ptr, n):
    d = tl.make_tensor_descriptor(x_ptr, [n], [1], [16], padding_option="nan")
    d.store([0], d.load([0]))


@triton.jit
def wide_offset_kernel(x_desc, off):
    x_desc.store([off.to(tl.int64), 0], x_desc.load([0, 0]))


@triton.jit
def unknown_method_kernel(x_desc):
    x_desc.prefetch([0, 0])


def test_kernel_mistakes_are_reported_at_the_line():
    x = np.zeros((16, 16), np.float32)
    xi = np.zeros(16, np.int32)
    desc = TensorDescriptor.from_tensor(x, [16, 16])
    cases = [
        (lambda: runtime_last_stride_kernel[(1,)](x, 16, 1), "last dim must be 1",
         "[n, n], [n, s]"),
        (lambda: narrow_block_kernel[(1,)](x, 16), "at least 16 bytes in the last dimension",
         "[16, 2]"),
        (lambda: offsets_count_kernel[(1,)](desc), "needs 2 offsets", "x_desc.load([0])"),
        (lambda: store_shape_kernel[(1,)](desc), "has shape [8, 8] but the descriptor's block is "
         "[16, 16]", "tl.zeros((8, 8)"),
        (lambda: int_nan_kernel[(1,)](xi, 16), "`nan` is not supported for integer blocks",
         "padding_option=\"nan\""),
        (lambda: wide_offset_kernel[(1,)](desc, 3), "only support 32-bit offsets", "off.to"),
        (lambda: unknown_method_kernel[(1,)](desc), "has no attribute 'prefetch'", "prefetch"),
    ]
    for launch, message, source in cases:
        with pytest.raises(triton.CompilationError) as info:
            launch()
        text = str(info.value)
        assert message in text and source in text and "^" in text, text


def test_host_descriptor_checks():
    x = np.zeros((16, 18), np.float32)  # 72-byte rows
    with pytest.raises(ValueError, match="strides must be 16-byte aligned"):
        TensorDescriptor.from_tensor(x, [16, 16])
    y = np.zeros((16, 16), np.float32)
    with pytest.raises(ValueError, match="Last dimension must be contiguous"):
        TensorDescriptor(y, [16, 8], [16, 2], [16, 8])
    with pytest.raises(ValueError, match="power of 2"):
        TensorDescriptor.from_tensor(y, [16, 12])
    with pytest.raises(ValueError, match="rank mismatch"):
        TensorDescriptor(y, [16, 16], [16, 1], [16])
    with pytest.raises(ValueError, match="base must be 16-byte aligned"):
        TensorDescriptor(y.ravel()[1:], [255], [1], [16])
    with pytest.raises(ValueError, match="padding"):
        TensorDescriptor.from_tensor(y, [16, 16], padding="edge")


def test_launch_checks_a_descriptor_changed_after_construction():
    x = np.zeros((16, 16), np.float32)
    desc = TensorDescriptor.from_tensor(x, [16, 16])
    desc.strides = [16, 2]
    with pytest.raises(ValueError, match="last dimension must be contiguous"):
        offsets_count_kernel[(1,)](desc)


# ---------------------------------------------------------------------------- specialisation


@triton.jit
def scale_copy_kernel(x_desc, y_desc):
    pm = tl.program_id(0)
    y_desc.store([pm * 64, 0], x_desc.load([pm * 64, 0]) * 2)


@pytest.mark.parametrize("divisible", [True, False])
def test_shape_divisibility_is_specialised(divisible):
    """Like ints, a descriptor's shape dims are specialised on divisibility by
    16: then the bounds mask is uniform over aligned runs of 16 and the GPU
    code moves 16 bytes per access (checked in the sm_90a PTX). Without, a
    vector still moves whole where its last element is in bounds, and
    element by element where it straddles the bound."""
    from tessera.runtime import jit as J
    import re
    divs = (16, 16) if divisible else (1, 1)
    spec = ("tensordesc", "fp16", True, J._encode_const(((64, 64), "zero", divs), "x"))
    units = scale_copy_kernel._build_units()
    ptx = J._ext().compile(units[0], "scale_copy_kernel", [spec, spec], debug=False,
                           target="sm_90a", num_warps=4, num_stages=3).ir("ptx")
    vector = len(re.findall(r"ld\.global[.\w]*\.v4", ptx))
    single = len(re.findall(r"ld\.global[.\w]*\.b16", ptx))
    assert vector > 0, ptx[:2000]
    assert (single == 0) == divisible, ptx[:2000]


def test_launches_key_on_shape_divisibility(arrays, rng):
    """The same kernel on a 64-column and a 60-column tensor: two
    specialisations, both right."""
    for cols in (64, 60, 64):
        full = rng.standard_normal((64, 64)).astype(np.float16)
        out = np.full((64, 64), POISON, np.float16)
        xa, ya = arrays.put(full), arrays.put(out)
        xd = TensorDescriptor(xa, [64, cols], [64, 1], [64, 64])
        yd = TensorDescriptor(ya, [64, cols], [64, 1], [64, 64])
        scale_copy_kernel[(1,)](xd, yd)
        got = arrays.get(ya)
        np.testing.assert_array_equal(got[:, :cols], (full * 2)[:, :cols])
        assert (got[:, cols:] == POISON).all()


@triton.jit
def host_desc_dot_kernel(a_desc, b_desc, c_ptr, K):
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in range(tl.cdiv(K, 64)):
        acc = tl.dot(a_desc.load([0, k * 64]), b_desc.load([0, k * 64]).T, acc)
    offs = tl.arange(0, 64)
    tl.store(c_ptr + offs[:, None] * 64 + offs[None, :], acc)


@pytest.mark.parametrize("aligned", [True, False])
def test_tma_needs_an_aligned_descriptor(aligned):
    """On sm_90a a host descriptor's loads feeding a loop's dots go through
    the tensor memory accelerator only when the descriptor is specialised as
    16-byte aligned (rows 16 bytes to 2^40 bytes apart as well)."""
    from tessera.runtime import jit as J
    spec = ("tensordesc", "fp16", aligned, J._encode_const(((64, 64), "zero", (16, 16)), "x"))
    specs = [spec, spec, ("ptr", "fp32", True), ("scalar", "i32", False, False)]
    units = host_desc_dot_kernel._build_units()
    ptx = J._ext().compile(units[0], "host_desc_dot_kernel", specs, debug=False, target="sm_90a",
                           num_warps=4, num_stages=3).ir("ptx")
    assert ("cp.async.bulk.tensor" in ptx) == aligned


def test_broadcast_rows_descriptor(arrays, rng):
    """A descriptor whose rows repeat one row (stride 0) reads that row
    everywhere; no tensor map describes it, so it is specialised apart."""
    K = 128
    row = rng.standard_normal((1, K)).astype(np.float16)
    b = rng.standard_normal((64, K)).astype(np.float16)
    c = np.full((64, 64), POISON, np.float32)
    ra, ba, ca = arrays.put(row), arrays.put(b), arrays.put(c)
    host_desc_dot_kernel[(1,)](TensorDescriptor(ra, [64, K], [0, 1], [64, 64]),
                               TensorDescriptor.from_tensor(ba, [64, 64]), ca, K)
    ref = np.broadcast_to(row, (64, K)).astype(np.float64) @ b.astype(np.float64).T
    np.testing.assert_allclose(arrays.get(ca), ref, rtol=1e-2, atol=5e-2)
