"""What Triton's persistent-matmul tutorial takes from Triton besides the
language, on the GPU: the profiler timing scopes with CUDA events (kernel
launches recorded through hook="triton") and the cuBLAS matmul facade of
`triton._C.libtriton`, each against PyTorch."""
import json

import pytest

from conftest import skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402
import tessera.profiler as proton  # noqa: E402
from tessera.runtime.libtriton import nvidia  # noqa: E402


def _metadata(grid, kernel, args):
    return {"name": f"{kernel.name} [N={args['N']}]", "bytes": 8.0 * args["N"]}


@triton.jit(launch_metadata=_metadata)
def copy_kernel(x, out, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(x + offs, mask=offs < N), mask=offs < N)


def test_profiler_times_gpu_scopes_not_the_host(tmp_path, monkeypatch, gen):
    monkeypatch.chdir(tmp_path)
    n = 1 << 24
    x = torch.randn(n, generator=gen, device="cuda")
    out = torch.full_like(x, float("nan"))
    grid = (triton.cdiv(n, 1024),)
    copy_kernel[grid](x, out, n, BLOCK=1024)  # compiled outside the profile
    torch.cuda.synchronize()
    proton.start("gpu", hook="triton")
    with proton.scope("sleep"):
        torch.cuda._sleep(50_000_000)  # tens of ms on the GPU, microseconds on the host
    with proton.scope("copies"):
        for _ in range(5):
            copy_kernel[grid](x, out, n, BLOCK=1024)
    proton.finalize()
    assert torch.equal(out, x)
    root, info = json.loads((tmp_path / "gpu.hatchet").read_text())
    assert info["device"]["type"] == "cuda"
    by_name = {c["frame"]["name"]: c for c in root["children"]}
    assert by_name["sleep"]["metrics"]["time (ns)"] > 5e6
    launches = by_name["copies"]["children"]
    assert [c["frame"]["name"] for c in launches] == [f"copy_kernel [N={n}]"]
    m = launches[0]["metrics"]
    assert m["count"] == 5 and m["bytes"] == 5 * 8.0 * n
    # 5 copies of 128 MiB: between 10 TB/s (faster than any HBM) and 100 GB/s.
    assert 5 * 8.0 * n / 10e12 < m["time (ns)"] * 1e-9 < 5 * 8.0 * n / 100e9
    assert by_name["copies"]["metrics"]["time (ns)"] >= m["time (ns)"]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float8_e4m3fn])
def test_cublaslt_facade_against_float64(dtype, gen):
    blas = nvidia.cublas.CublasLt(torch.empty(1 << 20, dtype=torch.uint8, device="cuda"))
    m, n, k = 256, 192, 128
    a = torch.randn(m, k, generator=gen, device="cuda").to(dtype)
    b = torch.randn(n, k, generator=gen, device="cuda").to(dtype)
    out_dtype = torch.float16 if dtype == torch.float8_e4m3fn else dtype
    c = torch.full((m, n), float("nan"), device="cuda").to(out_dtype)
    blas.matmul(a, b, c)
    want = a.double() @ b.double().T
    tol = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 5e-2}.get(dtype, 5e-2)
    torch.testing.assert_close(c.double(), want, rtol=tol, atol=tol * k ** 0.5)
