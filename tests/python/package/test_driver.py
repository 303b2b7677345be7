"""triton.runtime.driver: the active driver describes where kernels run —
the CUDA GPU when the driver loads and a device exists, the CPU otherwise or
when TRITON_INTERPRET=1 / TESSERA_BACKEND=cpu asks. The GPU case is checked
here with the extension's driver queries replaced by fakes; tests/gpu checks
it against a real device."""

from __future__ import annotations

import importlib

import pytest

import tessera as triton
from tessera.runtime.jit import _ext

# The module (tessera.runtime's `driver` attribute is the driver object).
driver_mod = importlib.import_module("tessera.runtime.driver")

FAKE_PROPS = {"name": "Fake H100", "major": 9, "minor": 0, "multiprocessor_count": 132,
              "max_threads_per_block": 1024, "warpSize": 32, "max_num_regs": 65536,
              "max_shared_mem_default": 49152, "max_shared_mem": 232448, "l2_bytes": 52428800,
              "total_memory": 85 << 30, "sm_clock_rate": 1980000, "mem_clock_rate": 2619000,
              "mem_bus_width": 5120}


@pytest.fixture
def fake_gpu(monkeypatch):
    C = _ext()
    monkeypatch.setattr(C, "cuda_available", lambda: (True, ""))
    monkeypatch.setattr(C, "cuda_device_count", lambda: 1)
    monkeypatch.setattr(C, "cuda_capability", lambda device: 90)
    monkeypatch.setattr(C, "cuda_device_properties", lambda device: dict(FAKE_PROPS))
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.delenv("TESSERA_BACKEND", raising=False)
    # Whether PyTorch is installed or not, it sees no GPU here: the facade
    # answers without it.
    monkeypatch.setattr(driver_mod, "_torch", lambda: None)
    return driver_mod._DriverConfig()


def test_no_gpu_means_the_cpu_driver(monkeypatch):
    C = _ext()
    monkeypatch.setattr(C, "cuda_available", lambda: (False, "no driver"))
    d = driver_mod._DriverConfig().active
    assert d.backend == "cpu"
    assert d.get_current_target() == triton.GPUTarget("cpu", "interpreter", 32)
    assert d.utils.get_device_properties(0)["warpSize"] == 32


def test_gpu_present_means_the_cuda_driver(fake_gpu):
    d = fake_gpu.active
    assert d.backend == "cuda" and d.is_active()
    assert d.get_current_target() == triton.GPUTarget("cuda", 90, 32)
    props = d.utils.get_device_properties(0)
    assert props["max_shared_mem"] == 232448 and props["multiprocessor_count"] == 132
    dev = d.get_active_torch_device()
    assert str(dev) == "cuda:0"
    assert d.get_benchmarker() is triton.testing.do_bench


@pytest.mark.parametrize("env", [("TRITON_INTERPRET", "1"), ("TESSERA_BACKEND", "cpu")])
def test_interpreter_forced(fake_gpu, monkeypatch, env):
    monkeypatch.setenv(*env)
    assert driver_mod._DriverConfig().active.backend == "cpu"


def test_set_and_reset_active(fake_gpu):
    cpu = driver_mod.CPUDriver()
    fake_gpu.set_active(cpu)
    assert fake_gpu.active is cpu
    fake_gpu.reset_active()
    assert fake_gpu.active.backend == "cuda"


def test_autotune_disk_key_names_the_device(fake_gpu, monkeypatch):
    from tessera.runtime import autotuner
    monkeypatch.setattr(driver_mod, "driver", fake_gpu)
    assert autotuner._target_id().endswith("|Fake H100")
    assert "cuda" in autotuner._target_id()
