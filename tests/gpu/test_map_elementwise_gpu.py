"""tl.map_elementwise on the GPU, against NumPy: a branching function per
element, several results, packed calls with a partial last group, a scalar
argument and 2-D broadcasting. The kernels are the CPU suite's
(tests/python/package/test_map_elementwise.py), loaded from that file."""
import importlib.util

import numpy as np
import pytest

from conftest import ROOT, poisoned, skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "map_elementwise_cases", ROOT / "tests/python/package/test_map_elementwise.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
rng = cases.rng


def dev(a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


@pytest.mark.parametrize("dtype", ["int32", "float32"])
@pytest.mark.parametrize("block", [128, 1024])
def test_branching_function(dtype, block):
    r = rng()
    x = r.integers(0, 6, block).astype(dtype)
    y = r.integers(0, 6, block).astype(dtype)
    z = poisoned((block,), torch.int32)
    cases.compare_kernel[(1,)](dev(x), dev(y), z, BLOCK=block)
    np.testing.assert_array_equal(z.cpu().numpy(), cases.gap_or_double_ref(x, y))


@pytest.mark.parametrize("pack", [1, 2])
@pytest.mark.parametrize("block", [512, 32])
def test_several_results_and_pack(pack, block):
    # block=32 with 4 warps: one element per thread, so pack=2 leaves each
    # thread a partial group.
    r = rng()
    a = r.integers(0, 2**31, block, dtype=np.int32)
    b = r.integers(1, 2**31, block, dtype=np.int32)
    c, d = poisoned((block,), torch.int32), poisoned((block,), torch.int32)
    cases.divmod_kernel[(1,)](dev(a), dev(b), c, d, BLOCK=block, PACK=pack)
    np.testing.assert_array_equal(c.cpu().numpy(), a // b)
    np.testing.assert_array_equal(d.cpu().numpy(), a % b)


def test_scalar_argument_and_2d():
    x = rng().standard_normal((32, 64)).astype(np.float32)
    y = poisoned((32, 64))
    cases.selu_kernel[(1,)](dev(x), y, 1.5, M=32, N=64)
    ref = np.where(x > 0, x, 1.5 * (np.exp(x.astype(np.float64)) - 1))
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=2e-6, atol=1e-6)
