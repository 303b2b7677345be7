"""`triton.runtime.driver.active`: the current target and device properties,
as Triton's tutorials query them on the host.

This build runs kernels on the CPU interpreter, so the active driver
describes the host: the target is ("cpu", "interpreter", warp size 32, kept
at the GPU value so launch arithmetic in tutorials stays meaningful) and a
"multiprocessor" is a CPU core.
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


class _DriverConfig:
    """`driver.active` (settable, as in Triton) and `driver.default`."""

    def __init__(self):
        self.default = CPUDriver()
        self._active = None

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
