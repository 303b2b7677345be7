"""tl.map_elementwise on the GPU, against NumPy: a branching function per
element, several results, packed calls with a partial last group, a scalar
argument and 2-D broadcasting."""
import numpy as np
import pytest

from conftest import skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton
import tessera.language as tl
from conftest import poisoned


def rng():
    return np.random.default_rng(int.from_bytes(np.random.bytes(4), "little"))


def dev(a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


@triton.jit
def compare(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@triton.jit
def compare_kernel(X, Y, Z, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    tl.store(Z + tl.arange(0, BLOCK), tl.map_elementwise(compare, x, y))


@pytest.mark.parametrize("dtype", ["int32", "float32"])
@pytest.mark.parametrize("block", [128, 1024])
def test_branching_function(dtype, block):
    r = rng()
    x = r.integers(0, 6, block).astype(dtype)
    y = r.integers(0, 6, block).astype(dtype)
    z = poisoned((block,), torch.int32)
    compare_kernel[(1,)](dev(x), dev(y), z, BLOCK=block)
    ref = (x > y).astype(np.int32) - (y > x).astype(np.int32)
    np.testing.assert_array_equal(z.cpu().numpy(), ref)


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
@pytest.mark.parametrize("block", [512, 32])
def test_several_results_and_pack(pack, block):
    # block=32 with 4 warps: one element per thread, so pack=2 leaves each
    # thread a partial group.
    r = rng()
    a = r.integers(0, 2**31, block, dtype=np.int32)
    b = r.integers(1, 2**31, block, dtype=np.int32)
    c, d = poisoned((block,), torch.int32), poisoned((block,), torch.int32)
    divmod_kernel[(1,)](dev(a), dev(b), c, d, BLOCK=block, PACK=pack)
    np.testing.assert_array_equal(c.cpu().numpy(), a // b)
    np.testing.assert_array_equal(d.cpu().numpy(), a % b)


@triton.jit
def selu(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@triton.jit
def selu_kernel(X, Y, alpha, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(Y + offs, tl.map_elementwise(selu, tl.load(X + offs), alpha))


def test_scalar_argument_and_2d():
    x = rng().standard_normal((32, 64)).astype(np.float32)
    y = poisoned((32, 64))
    selu_kernel[(1,)](dev(x), y, 1.5, M=32, N=64)
    ref = np.where(x > 0, x, 1.5 * (np.exp(x.astype(np.float64)) - 1))
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=2e-6, atol=1e-6)
