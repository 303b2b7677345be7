"""tl.map_elementwise on the interpreter against NumPy: branching scalar
functions, several results, packed calls (with a partial last group),
broadcast and scalar arguments, 2-D tiles, and the errors at the call.
tests/gpu/test_map_elementwise_gpu.py runs these kernels on the GPU and
tests/ptx/map_elementwise.py checks the PTX of two of them."""
import numpy as np
import pytest

import tessera as triton
import tessera.language as tl


def rng():
    return np.random.default_rng(int.from_bytes(np.random.bytes(4), "little"))


@triton.jit
def gap_or_double(x, y):
    # Three branches, each returning an int32 of its own.
    if x < y:
        return (y - x).to(tl.int32)
    elif x == y:
        return 100
    else:
        return (x + x).to(tl.int32)


def gap_or_double_ref(x, y):
    x, y = x.astype(np.int64), y.astype(np.int64)
    return np.where(x < y, y - x, np.where(x == y, 100, 2 * x)).astype(np.int32)


@triton.jit
def compare_kernel(X, Y, Z, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    z = tl.map_elementwise(gap_or_double, x, y)
    tl.store(Z + tl.arange(0, BLOCK), z)


@pytest.mark.parametrize("dtype", ["int32", "float32", "uint8"])
def test_branching_function(dtype):
    r = rng()
    x = r.integers(0, 6, 256).astype(dtype)
    y = r.integers(0, 6, 256).astype(dtype)
    z = np.full(256, 77, np.int32)
    compare_kernel[(1,)](x, y, z, BLOCK=256)
    np.testing.assert_array_equal(z, gap_or_double_ref(x, y))


@triton.jit
def divmod_(a, b):
    return a // b, a % b


@triton.jit
def divmod2(a0, a1, b0, b1):
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@triton.jit
def divmod_kernel(A, B, C, D, BLOCK: tl.constexpr, PACK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    if PACK == 1:
        c, d = tl.map_elementwise(divmod_, a, b)
    else:
        c, d = tl.map_elementwise(divmod2, a, b, pack=2)
    tl.store(C + tl.arange(0, BLOCK), c)
    tl.store(D + tl.arange(0, BLOCK), d)


@pytest.mark.parametrize("pack", [1, 2])
@pytest.mark.parametrize("block", [512, 1])
def test_several_results_and_pack(pack, block):
    # block=1 with pack=2: one element, a partial group.
    r = rng()
    a = r.integers(0, 2**32, block, dtype=np.uint32)
    b = r.integers(1, 2**32, block, dtype=np.uint32)
    c = np.full(block, 0xDEADBEEF, np.uint32)
    d = np.full(block, 0xDEADBEEF, np.uint32)
    divmod_kernel[(1,)](a, b, c, d, BLOCK=block, PACK=pack)
    np.testing.assert_array_equal(c, a // b)
    np.testing.assert_array_equal(d, a % b)


@triton.jit
def selu(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@triton.jit
def selu_kernel(X, Y, alpha, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    # A scalar argument (alpha) is broadcast like a tensor one.
    tl.store(Y + offs, tl.map_elementwise(selu, x, alpha))


def test_scalar_argument_and_2d():
    x = rng().standard_normal((16, 32)).astype(np.float32)
    y = np.full((16, 32), np.nan, np.float32)
    selu_kernel[(1,)](x, y, 1.5, M=16, N=32)
    ref = np.where(x > 0, x, 1.5 * (np.exp(x.astype(np.float64)) - 1))
    np.testing.assert_allclose(y, ref, rtol=1e-6, atol=1e-7)


@triton.jit
def row_col(r, c):
    return r * 100 + c


@triton.jit
def outer_kernel(Out, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    tl.store(Out + rows * N + cols, tl.map_elementwise(row_col, rows, cols))


def test_broadcast_of_arguments():
    out = np.full((8, 16), -1, np.int32)
    outer_kernel[(1,)](out, M=8, N=16)
    np.testing.assert_array_equal(out, np.arange(8)[:, None] * 100 + np.arange(16)[None, :])


def not_jit(x):
    return x


@triton.jit
def bad_fn_kernel(X):
    x = tl.load(X + tl.arange(0, 16))
    tl.store(X + tl.arange(0, 16), tl.map_elementwise(x, x))


@triton.jit
def tile_result(x):
    return tl.zeros([4], tl.int32) + x


@triton.jit
def tile_result_kernel(X):
    x = tl.load(X + tl.arange(0, 16))
    tl.store(X + tl.arange(0, 16), tl.map_elementwise(tile_result, x))


@triton.jit
def one_of_two(a0, a1, b0, b1):
    return a0 + b0


@triton.jit
def wrong_count_kernel(X):
    x = tl.load(X + tl.arange(0, 16))
    tl.store(X + tl.arange(0, 16), tl.map_elementwise(one_of_two, x, 1.0, pack=2))


@pytest.mark.parametrize("kernel,message", [
    (bad_fn_kernel, "the first argument of tl.map_elementwise must be a @jit function"),
    (tile_result_kernel, "it must return scalars"),
    (wrong_count_kernel, "with pack=2 it must return a multiple of 2"),
])
def test_errors_at_the_call(kernel, message):
    x = np.zeros(16, np.float32)
    with pytest.raises(triton.CompilationError, match=message):
        kernel[(1,)](x)

