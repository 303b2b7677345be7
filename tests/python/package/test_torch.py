"""PyTorch tensors as kernel arguments (skipped where PyTorch is missing):
CPU tensors run on the interpreter with their storage extents checked;
CUDA tensors run on their GPU, and TESSERA_BACKEND=cpu refuses them clearly
(tests/gpu runs the GPU back end in depth)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x * alpha).to(out_ptr.dtype.element_ty), mask=mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("n", [1, 1000])
def test_cpu_tensors(dtype, n):
    x = torch.randn(n, dtype=dtype)
    out = torch.full((n,), float("nan"), dtype=dtype)
    scale_kernel[(triton.cdiv(n, 256),)](x, out, n, 1.5, BLOCK=256)
    ref = (x.double() * 1.5).to(dtype)
    torch.testing.assert_close(out, ref, rtol=1e-2 if dtype in (torch.float16, torch.bfloat16) else 1e-6,
                               atol=1e-2 if dtype in (torch.float16, torch.bfloat16) else 1e-6)


def test_tensor_views_and_bounds():
    base = torch.randn(2048)
    view = base[1024:]  # the storage extends beyond the view: allowed, as on a GPU
    out = torch.full((1024,), float("nan"))
    scale_kernel[(4,)](view, out, 1024, 2.0, BLOCK=256)
    torch.testing.assert_close(out, view * 2)
    short = torch.randn(100)
    with pytest.raises(triton.KernelError, match="out-of-bounds|outside"):
        @triton.jit
        def overrun(x_ptr, BLOCK: tl.constexpr):
            tl.store(x_ptr + tl.arange(0, BLOCK), tl.zeros([BLOCK], dtype=tl.float32))
        overrun[(1,)](short, BLOCK=128)


def test_empty_views():
    """An empty view of a non-empty tensor (data_ptr() is 0) is an empty
    buffer, as torch.empty(0) is, through the resolver and the C++ path."""
    out = torch.full((16,), float("nan"))
    for _ in range(2):
        for x in (torch.empty(0), torch.randn(4, 4)[:0], torch.randn(8)[8:]):
            out.fill_(float("nan"))
            scale_kernel[(1,)](x, out, 0, 2.0, BLOCK=16)
            assert out.isnan().all()  # nothing stored: every element masked off


def test_mixed_numpy_and_torch():
    x = torch.randn(300)
    out = np.full(300, np.nan, dtype=np.float32)
    scale_kernel[(2,)](x, out, 300, 3.0, BLOCK=256)
    np.testing.assert_allclose(out, x.numpy() * 3, rtol=1e-6)


def test_reinterpret_torch():
    bits = torch.randint(0, 2**15, (64,), dtype=torch.int16)
    out = torch.zeros(64, dtype=torch.int16)
    scale_kernel[(1,)](triton.reinterpret(bits, tl.int16), out, 64, 1, BLOCK=64)
    assert torch.equal(out, bits)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_tensor_refused_with_cpu_backend(monkeypatch):
    x = torch.randn(16, device="cuda")
    monkeypatch.setenv("TESSERA_BACKEND", "cpu")
    with pytest.raises(TypeError, match="lives on a GPU"):
        scale_kernel[(1,)](x, x, 16, 1.0, BLOCK=16)


@triton.jit
def read_n(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@pytest.mark.parametrize("launch", range(3))  # the first launch of a dtype may take the
def test_cpu_fast_path_extent(launch):        # resolver, later ones the C++ fast path
    base = torch.randn(1100, dtype=torch.float64)
    view = base[1000:1010]  # 100 elements of storage from here, 10 in the view
    out = torch.full((128,), float("nan"), dtype=torch.float64)
    read_n[(1,)](view, out, 100, BLOCK=128)  # up to the storage's end: allowed
    torch.testing.assert_close(out[:100], base[1000:], rtol=0, atol=0)
    assert out[100:].isnan().all()
    with pytest.raises(triton.KernelError, match="out-of-bounds|outside"):
        read_n[(1,)](view, out, 101, BLOCK=128)  # one past the storage


def test_cpu_fast_path_parameter_and_meta():
    p = torch.nn.Parameter(torch.randn(64))
    out = torch.full((64,), float("nan"))
    for _ in range(2):
        out.fill_(float("nan"))
        scale_kernel[(1,)](p, out, 64, 2.0, BLOCK=64)
        torch.testing.assert_close(out, p.detach() * 2)
    with pytest.raises(TypeError, match="meta"):
        scale_kernel[(1,)](torch.empty(64, device="meta"), out, 64, 2.0, BLOCK=64)


def test_cpu_tensors_bound_in_cpp_after_first_launch():
    """Once a dtype has been seen, CPU tensors are read in C++: the Python
    resolver is not called again (bench/torch_launch.py times the gain)."""
    from tessera.runtime import arrays

    C = triton.runtime.jit._ext()
    calls = []

    def counting(obj):
        calls.append(type(obj).__name__)
        return arrays.resolver(obj)

    C.set_resolver(counting)
    try:
        for dtype in (torch.float32, torch.float16, torch.int32):
            x = torch.arange(64).to(dtype)
            out = torch.zeros(64, dtype=dtype)
            scale_kernel[(1,)](x, out, 64, 2, BLOCK=64)  # may learn the dtype
            calls.clear()
            for _ in range(3):
                out.zero_()
                scale_kernel[(1,)](x, out, 64, 2, BLOCK=64)
                assert torch.equal(out, x * 2)
            assert calls == [], f"{dtype}: the resolver read {calls}"
    finally:
        C.set_resolver(arrays.resolver)
