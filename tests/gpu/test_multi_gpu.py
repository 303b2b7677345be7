"""Several GPUs: a launch runs on the device of its arguments, whatever the
current device is, in that device's primary context and on its current
PyTorch stream; one kernel runs on every device (a module per device); and
arguments on different devices, or host memory mixed with GPU memory, get
a message instead of a crash. Skipped, with the reason, below two GPUs."""
import pytest

from conftest import skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402

if torch.cuda.device_count() < 2:
    pytest.skip(f"needs two CUDA devices, found {torch.cuda.device_count()}",
                allow_module_level=True)


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, alpha * x + y, mask=m)


def inputs(device, n, seed):
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    x = torch.randn(n, device=device, generator=g)
    y = torch.randn(n, device=device, generator=g)
    out = torch.full((n,), float("nan"), device=device)
    return x, y, out


def launch(x, y, out, alpha=1.5, block=256):
    n = x.numel()
    return axpy_kernel[(triton.cdiv(n, block),)](x, y, out, n, alpha, BLOCK=block)


@pytest.mark.parametrize("current", [0, 1])
def test_runs_on_the_arguments_device(current):
    """Tensors on each device, with either device current: results match
    PyTorch on the same device, and the current device is left alone."""
    with torch.cuda.device(current):
        for dev in (1, 0, 1):  # the second visit to device 1 hits the cache
            x, y, out = inputs(f"cuda:{dev}", 10_000, seed=dev + 7)
            launch(x, y, out)
            torch.cuda.synchronize(dev)
            torch.testing.assert_close(out, 1.5 * x + y, rtol=1e-6, atol=1e-6)
            assert torch.cuda.current_device() == current


def test_each_device_loads_its_own_module():
    x0, y0, out0 = inputs("cuda:0", 4096, seed=1)
    x1, y1, out1 = inputs("cuda:1", 4096, seed=2)
    k0 = launch(x0, y0, out0)
    k1 = launch(x1, y1, out1)
    torch.cuda.synchronize(0)
    torch.cuda.synchronize(1)
    torch.testing.assert_close(out0, 1.5 * x0 + y0, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(out1, 1.5 * x1 + y1, rtol=1e-6, atol=1e-6)
    assert k0.n_regs > 0 and k1.n_regs > 0


def test_launches_on_the_devices_current_stream():
    """A launch on device 1 inside `torch.cuda.stream(s)` for a stream of
    device 1 is ordered after the work queued on s before it: the inputs are
    written on s after a long sleep, so a launch on another stream would
    read stale values."""
    n = 1 << 20
    x, y, out = inputs("cuda:1", n, seed=3)
    s = torch.cuda.Stream(device=1)
    with torch.cuda.device(0), torch.cuda.stream(s):
        torch.cuda._sleep(50_000_000)  # tens of ms of GPU time on s
        x.fill_(2.0)
        y.fill_(-1.0)
        launch(x, y, out, alpha=3.0)
    s.synchronize()
    torch.testing.assert_close(out, torch.full_like(out, 5.0))


def test_arguments_on_two_devices_are_refused():
    x0, y0, _ = inputs("cuda:0", 1000, seed=4)
    _, _, out1 = inputs("cuda:1", 1000, seed=5)
    with pytest.raises(ValueError, match=r"'out_ptr' on cuda:1.*move them to the same one"):
        launch(x0, y0, out1)
    host_out = torch.zeros(1000)
    with pytest.raises(ValueError, match=r"'out_ptr' in host memory"):
        launch(x0, y0, host_out)
