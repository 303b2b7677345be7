"""`triton.runtime.driver.active`: where kernels will run, as Triton's
tutorials query it on the host (`DEVICE = driver.active.get_active_torch_device()`).

Tessera picks the back end per launch from where the arguments live (CUDA
tensors run on their GPU, host memory on the interpreter); the active
driver tells programs the truth about the default: the CUDA GPU when the
driver loads and a device exists (target ("cuda", 90, 32) on an H100,
device properties from the driver), the CPU interpreter otherwise or when
TRITON_INTERPRET=1 / TESSERA_BACKEND=cpu asks for it (target ("cpu",
"interpreter", 32); a "multiprocessor" is a CPU core). `driver.set_active`
and `driver.reset_active` work as in Triton.
"""

from __future__ import annotations

import os


class GPUTarget:
    """Triton's target triple: backend, arch, warp_size."""

    def __init__(self, backend: str, arch, warp_size: int):
        self.backend, self.arch, self.warp_size = backend, arch, warp_size

    def __eq__(self, other) -> bool:
        return isinstance(other, GPUTarget) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((self.backend, str(self.arch), self.warp_size))

    def __repr__(self) -> str:
        return f"GPUTarget(backend={self.backend!r}, arch={self.arch!r}, warp_size={self.warp_size})"


class _Utils:
    def get_device_properties(self, device=0) -> dict:
        """The keys Triton's tutorials read, with the host's values."""
        cores = os.cpu_count() or 1
        return {
            "max_shared_mem": 1 << 30,
            "max_num_regs": 1 << 16,
            "multiprocessor_count": cores,
            "warpSize": 32,
            "sm_clock_rate": 0,
            "mem_clock_rate": 0,
            "mem_bus_width": 0,
        }


class CPUDriver:
    """The driver of the CPU interpreter back end."""

    backend = "cpu"

    def __init__(self):
        self.utils = _Utils()

    @staticmethod
    def is_active() -> bool:
        return True

    def get_current_target(self) -> GPUTarget:
        return GPUTarget("cpu", "interpreter", 32)

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device) -> None:
        if int(device) != 0:
            raise ValueError("the CPU back end has a single device, 0")

    def get_current_stream(self, device=None) -> int:
        return 0

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")

    def get_device_interface(self):
        return None

    def get_benchmarker(self):
        from ..testing import do_bench
        return do_bench

    def get_empty_cache_for_benchmark(self):
        return bytearray(1 << 22)

    def clear_cache(self, cache) -> None:
        cache[:] = bytes(len(cache))


def _ext():
    from .jit import _ext as load
    return load()


def _torch():
    """PyTorch when it is installed (imported on first need), else None."""
    import sys
    if "torch" in sys.modules:
        return sys.modules["torch"]
    try:
        import torch
        return torch
    except ImportError:
        return None


class _CudaUtils:
    def get_device_properties(self, device=0) -> dict:
        """The driver's facts about `device` under Triton's keys (max_shared_mem
        is the opt-in maximum a kernel may request; clocks in kHz)."""
        return dict(_ext().cuda_device_properties(int(device)))


class CudaDriver:
    """The CUDA back end: the GPUs the NVIDIA driver reports."""

    backend = "cuda"

    def __init__(self):
        self.utils = _CudaUtils()

    @staticmethod
    def is_active() -> bool:
        try:
            ok, _ = _ext().cuda_available()
            return bool(ok) and _ext().cuda_device_count() > 0
        except Exception:  # noqa: BLE001 - no driver, no extension: not active
            return False

    def get_current_target(self) -> GPUTarget:
        return GPUTarget("cuda", _ext().cuda_capability(self.get_current_device()), 32)

    def get_current_device(self) -> int:
        torch = _torch()
        return torch.cuda.current_device() if torch is not None else 0

    def set_current_device(self, device) -> None:
        torch = _torch()
        if torch is not None:
            torch.cuda.set_device(int(device))
        elif int(device) != 0:
            raise ValueError("without PyTorch, Tessera's CUDA driver facade knows device 0 only; "
                             "install torch to select another")

    def get_current_stream(self, device=None) -> int:
        from .jit import _current_stream
        return _current_stream(self.get_current_device() if device is None else int(device))

    def get_active_torch_device(self):
        torch = _torch()
        if torch is None:
            return f"cuda:{self.get_current_device()}"
        return torch.device("cuda", self.get_current_device())

    def get_device_interface(self):
        torch = _torch()
        if torch is None:
            raise RuntimeError("get_device_interface() returns torch.cuda; install torch")
        return torch.cuda

    def get_benchmarker(self):
        from ..testing import do_bench
        return do_bench

    def get_empty_cache_for_benchmark(self):
        torch = _torch()
        if torch is None:
            raise RuntimeError("get_empty_cache_for_benchmark() needs torch on the GPU")
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")

    def clear_cache(self, cache) -> None:
        cache.zero_()


def _interpreter_forced() -> bool:
    from .. import knobs
    return bool(knobs.runtime.interpret) or \
        os.environ.get("TESSERA_BACKEND", "").lower() in ("cpu", "interpreter")


class _DriverConfig:
    """`driver.active` (settable, as in Triton) and `driver.default`: the
    CUDA driver when a GPU is usable, else the CPU interpreter."""

    def __init__(self):
        self._default = None
        self._active = None

    @property
    def default(self):
        if self._default is None:
            cuda = CudaDriver()
            self._default = CPUDriver() if _interpreter_forced() or not cuda.is_active() else cuda
        return self._default

    @property
    def active(self):
        if self._active is None:
            self._active = self.default
        return self._active

    def set_active(self, driver) -> None:
        self._active = driver

    def reset_active(self) -> None:
        self._active = self.default


driver = _DriverConfig()
