"""The cases of tests/python/package/test_tensor_descriptor.py on the GPU:
the same kernels and checks (loaded from that file), with CUDA tensors as
the kernels' arguments and the descriptors' bases."""
import importlib.util

import pytest

from conftest import ROOT, skip_without_gpu

skip_without_gpu()
import numpy as np  # noqa: E402
import torch  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "tensor_descriptor_cases", ROOT / "tests/python/package/test_tensor_descriptor.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


class CudaArrays:
    """NumPy inputs copied to CUDA tensors; results copied back."""

    def put(self, a: np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(a)).cuda()

    def get(self, a) -> np.ndarray:
        torch.cuda.synchronize()
        return a.cpu().numpy()


@pytest.fixture
def arrays():
    return CudaArrays()


rng = cases.rng

# Every case of the CPU file that takes `arrays` runs here on the GPU.
for _name, _fn in vars(cases).items():
    if _name.startswith("test_") and "arrays" in _fn.__code__.co_varnames[:_fn.__code__.co_argcount]:
        globals()[_name] = _fn
