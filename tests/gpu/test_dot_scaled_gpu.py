"""The cases of tests/python/package/test_dot_scaled.py on the GPU: the same
kernels and NumPy float64 reference (loaded from that file), the operands
copied to CUDA tensors, outputs poisoned before each launch."""
import importlib.util
import itertools
import os

import pytest

from conftest import ROOT, skip_without_gpu

skip_without_gpu()
import numpy as np  # noqa: E402
import torch  # noqa: E402

ml_dtypes = pytest.importorskip("ml_dtypes", reason="the reference decodes formats with ml_dtypes")

_spec = importlib.util.spec_from_file_location(
    "dot_scaled_cases", ROOT / "tests/python/package/test_dot_scaled.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)

# NumPy dtypes PyTorch cannot take directly -> (bits dtype, torch dtype).
_VIEWS = {
    np.dtype(ml_dtypes.bfloat16): (np.int16, torch.bfloat16),
    np.dtype(ml_dtypes.float8_e4m3fn): (np.uint8, torch.float8_e4m3fn),
    np.dtype(ml_dtypes.float8_e5m2): (np.uint8, torch.float8_e5m2),
}


def cuda(x):
    """The CUDA twin of a NumPy array (None stays None)."""
    if x is None:
        return None
    x = np.ascontiguousarray(x)
    if x.dtype in _VIEWS:
        bits, dt = _VIEWS[x.dtype]
        return torch.from_numpy(x.view(bits)).cuda().view(dt)
    return torch.from_numpy(x).cuda()


def back(t):
    torch.cuda.synchronize()
    return t.cpu().numpy()


cuda.back = back


@pytest.fixture
def rng():
    seed = int(os.environ.get("TESSERA_TEST_SEED", "0")) or int.from_bytes(os.urandom(4), "little")
    print(f"random seed: {seed} (rerun with TESSERA_TEST_SEED={seed})")
    return np.random.default_rng(seed)


@pytest.mark.parametrize("fa,fb", list(itertools.product(cases.FORMATS, cases.FORMATS)))
def test_every_pair_of_formats(rng, fa, fb):
    cases.check(*cases.run(fa, fb, 64, 32, 64, rng, dev=cuda))


@pytest.mark.parametrize("m,n,k", [(32, 32, 32), (128, 32, 64), (32, 128, 128), (64, 64, 128),
                                   (128, 128, 32)])
@pytest.mark.parametrize("fa,fb", [("e2m1", "e4m3"), ("e2m1/mn", "e2m1/mn"), ("e5m2", "bf16"),
                                   ("fp16", "e3m2"), ("e2m3", "e2m1")])
def test_sizes(rng, m, n, k, fa, fb):
    cases.check(*cases.run(fa, fb, m, n, k, rng, with_acc=True, dev=cuda))


@pytest.mark.parametrize("scale_a,scale_b", [(False, True), (True, False), (False, False)])
@pytest.mark.parametrize("fa,fb", [("e2m1", "fp16"), ("e4m3", "e5m2"), ("bf16", "e2m1/mn")])
def test_scales_none(rng, fa, fb, scale_a, scale_b):
    cases.check(*cases.run(fa, fb, 32, 64, 64, rng, scale_a=scale_a, scale_b=scale_b, dev=cuda))


@pytest.mark.parametrize("fa,fb", [("bf16", "bf16"), ("fp16", "fp16"), ("bf16", "e4m3")])
def test_16_bit_operands_as_raw_bits(rng, fa, fb):
    cases.check(*cases.run(fa, fb, 32, 32, 64, rng, a_typed=False, b_typed=False, dev=cuda))


def test_fast_math_with_finite_scales(rng):
    cases.check(*cases.run("e4m3", "e2m1", 32, 32, 64, rng, fast=True, dev=cuda))


def test_nan_scale(rng):
    cases.nan_scale_case(rng, cuda)


@pytest.mark.parametrize("fmt,codes", [("e4m3", [0x7F, 0xFF]), ("e5m2", [0x7C, 0xFC, 0x7D, 0xFE])])
def test_nan_and_infinity_values(fmt, codes):
    cases.nan_and_infinity_case(fmt, codes, cuda)


def test_typed_fp8_operands(rng):
    cases.typed_fp8_case(rng, cuda)


@pytest.mark.parametrize("fa,fb", [("e4m3", "bf16"), ("e2m1/mn", "e2m1"), ("e2m1", "e2m1/mn")])
def test_batched(rng, fa, fb):
    cases.batched_case(rng, cuda, fa, fb)
