"""GPU tests: every example and the language on a CUDA device, against
PyTorch (float64 references where it matters), with fresh random inputs and
outputs poisoned before each launch. Skipped, with the reason, where PyTorch
or a CUDA device is missing."""
from __future__ import annotations

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "examples"))

try:
    import torch
except ImportError:
    torch = None


def skip_without_gpu():
    """Called at the top of each test module: skips it, with the reason,
    where PyTorch or a CUDA device is missing."""
    if torch is None:
        pytest.skip("the GPU tests need PyTorch", allow_module_level=True)
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: the GPU tests run on a machine with an NVIDIA GPU",
                    allow_module_level=True)


@pytest.fixture
def gen():
    seed = int(os.environ.get("TESSERA_TEST_SEED", "0")) or int.from_bytes(os.urandom(4), "little")
    print(f"random seed: {seed} (rerun with TESSERA_TEST_SEED={seed})")
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    return g


def poisoned(shape, dtype=None):
    """An output tensor full of NaN (or the integer pattern 0x5A5A...)."""
    dtype = dtype or torch.float32
    t = torch.empty(shape, dtype=dtype, device="cuda")
    if dtype.is_floating_point:
        t.fill_(float("nan"))
    elif dtype == torch.bool:
        t.fill_(True)
    else:
        t.fill_(0x5A)
    return t


def rel_err(out, ref) -> float:
    out = out.double()
    ref = ref.double()
    assert not torch.isnan(out).any(), "NaN in the output (an element left unwritten?)"
    return ((out - ref).norm() / ref.norm().clamp_min(1e-300)).item()
