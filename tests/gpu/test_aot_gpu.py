"""Ahead-of-time launchers on the GPU: `tesserac aot` writes C for the
vector-add example with two specialisations; the C is compiled into a shared
library with the host compiler and the CUDA toolkit's headers, called with
PyTorch tensors' device pointers on PyTorch's current stream, and checked
against PyTorch, through both specialisations and the dispatcher's refusal."""
from __future__ import annotations

import ctypes
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import ROOT, skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

BUILD = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", ROOT / "build"))
CUDA_HOME = pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
ALIGNED = "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"
GENERAL = "*fp32, *fp32, *fp32, i32, 1024"


def _build(tmp: pathlib.Path, name: str, signatures: list[str]) -> ctypes.CDLL:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or not (CUDA_HOME / "include" / "cuda.h").is_file():
        pytest.skip("needs a C compiler and the CUDA toolkit's cuda.h (set CUDA_HOME)")
    cmd = [str(BUILD / "tesserac"), "aot", str(ROOT / "examples" / "vector_add.py"),
           "--kernel", "add_kernel", "--name", name, "-o", str(tmp)]
    for s in signatures:
        cmd += ["--signature", s]
    subprocess.run(cmd, check=True)
    lib = tmp / f"lib{name}.so"
    subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                    str(tmp / f"{name}.c"), f"-I{CUDA_HOME / 'include'}",
                    f"-L{CUDA_HOME / 'lib64' / 'stubs'}", "-lcuda", "-o", str(lib)], check=True)
    dll = ctypes.CDLL(str(lib))
    fn = getattr(dll, name)
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                   ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int32]
    return dll


def _launch(dll, name, x, y, out, n):
    stream = torch.cuda.current_stream().cuda_stream
    grid = (n + 1023) // 1024
    return getattr(dll, name)(stream, grid, 1, 1, x.data_ptr(), y.data_ptr(), out.data_ptr(), n)


def test_launcher_dispatches_and_matches_torch(tmp_path, gen):
    dll = _build(tmp_path, "add_aot", [ALIGNED, GENERAL])
    for n, offset in ((4096, 0), (1000, 0), (4096, 1)):  # aligned, ragged, misaligned
        x = torch.randn(n + 1, device="cuda", generator=gen)[offset:offset + n]
        y = torch.randn(n, device="cuda", generator=gen)
        out = torch.full((n,), float("nan"), device="cuda")
        assert _launch(dll, "add_aot", x, y, out, n) == 0
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)


def test_no_fitting_specialisation_is_an_error_code(tmp_path, gen):
    dll = _build(tmp_path, "add_aligned", [ALIGNED])
    x = torch.randn(1000, device="cuda", generator=gen)
    out = torch.full_like(x, float("nan"))
    assert _launch(dll, "add_aligned", x, x, out, 1000) == 1  # CUDA_ERROR_INVALID_VALUE
    torch.cuda.synchronize()
    assert torch.isnan(out).all()  # nothing ran
    assert _launch(dll, "add_aligned", x, x, out, 992) == 0
    torch.cuda.synchronize()
    torch.testing.assert_close(out[:992], 2 * x[:992])
    dll.add_aligned_unload.restype = ctypes.c_int
    assert dll.add_aligned_unload() == 0
    assert _launch(dll, "add_aligned", x, x, out, 992) == 0  # loads again
    torch.cuda.synchronize()
