"""What Triton programs take from `triton._C.libtriton` (Triton's compiled
module), for `python -m tessera`: `nvidia.cublas.CublasLt`, the vendor
matmul its tutorials and tests compare against.

Tessera's core links no CUDA library, so this CublasLt runs PyTorch's
matmul, which is cuBLAS(Lt) on NVIDIA GPUs: `torch.matmul` for 16- and
32-bit floats, `torch._scaled_mm` with unit scales and fast accumulation
for fp8 (the settings of Triton's binding).
"""

from __future__ import annotations

import types


def _torch():
    try:
        import torch
    except ImportError:
        raise RuntimeError("nvidia.cublas.CublasLt runs PyTorch's cuBLAS matmul; install torch") \
            from None
    return torch


def _is_fp8(t) -> bool:
    torch = _torch()
    return t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2)


def _fp8_product(A, B, out_dtype):
    """A @ B.T of fp8 matrices: cuBLASLt through torch._scaled_mm, unit
    scales and fast accumulation as Triton's binding sets them."""
    torch = _torch()
    one = torch.ones((), dtype=torch.float32, device=A.device)
    return torch._scaled_mm(A, B.T, scale_a=one, scale_b=one, out_dtype=out_dtype,
                            use_fast_accum=True)


class CublasLt:
    """`CublasLt(workspace)`; `matmul(A, B, C)` writes C = A @ B.T (A is
    M x K, B is N x K, both row-major); `gemm(A, B, C, D, alpha, beta)`
    writes D = alpha * A @ B.T + beta * C."""

    def __init__(self, workspace):
        self.workspace = workspace  # kept alive as Triton's binding does; PyTorch has its own

    def matmul(self, A, B, C) -> None:
        self._check(A, B, C)
        if _is_fp8(A):
            C.copy_(_fp8_product(A, B, C.dtype))
        else:
            _torch().matmul(A, B.T, out=C)

    def gemm(self, A, B, C, D, alpha: float, beta: float) -> None:
        self._check(A, B, D)
        torch = _torch()
        if _is_fp8(A):
            D.copy_(alpha * _fp8_product(A, B, torch.float32) + beta * C.float())
        else:
            torch.addmm(C, A, B.T, alpha=alpha, beta=beta, out=D)

    @staticmethod
    def _check(A, B, C) -> None:
        if A.dim() != 2 or B.dim() != 2 or C.dim() != 2:
            raise ValueError("CublasLt: A, B and C must be matrices")
        (m, k), (n, k2) = A.shape, B.shape
        if k != k2 or tuple(C.shape) != (m, n):
            raise ValueError(f"CublasLt: A is {m}x{k} and B is {n}x{k2} (B is transposed: "
                             f"C = A @ B.T), so C must be {m}x{n}, got {tuple(C.shape)}")
        if A.dtype != B.dtype:
            raise ValueError(f"CublasLt: A and B must have one dtype, got {A.dtype} and {B.dtype}")


nvidia = types.SimpleNamespace(cublas=types.SimpleNamespace(CublasLt=CublasLt))
