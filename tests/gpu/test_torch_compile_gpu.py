"""Tessera launches on CUDA tensors inside torch.compile(fullgraph=True):
the GPU twin of tests/python/package/test_torch_compile.py. Each launch is
the custom op tessera::launch, run between Inductor's own (Triton) kernels
on PyTorch's current stream; gradients through a torch.autograd.Function
whose forward and backward are Tessera kernels match PyTorch's autograd."""
import math

import pytest

from conftest import skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402
import torch._dynamo  # noqa: E402
import torch._dynamo.testing  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402
from conftest import poisoned  # noqa: E402

import layer_norm as ex_ln  # noqa: E402
import vector_add as ex_add  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def compiled(fn, backend="inductor"):
    counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
    return torch.compile(fn, fullgraph=True, backend=counter), counter


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_vector_add_between_inductor_kernels(gen, backend):
    def f(x, y):
        a = torch.sin(x) * 2  # Inductor's kernel before the launch ...
        out = torch.full_like(x, math.nan)
        n = x.numel()
        ex_add.add_kernel[lambda meta: (triton.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)](
            a, y, out, n, BLOCK_SIZE=1024)
        return out.relu() + 1  # ... and after it, reading what it wrote

    cf, counter = compiled(f, backend)
    for n in (1000, 98432, 1 << 20):
        x = torch.randn(n, device="cuda", generator=gen)
        y = torch.randn(n, device="cuda", generator=gen)
        torch.testing.assert_close(cf(x, y), (torch.sin(x) * 2 + y).relu() + 1)
    assert counter.frame_count <= 2
    assert torch._dynamo.explain(f)(x, y).graph_break_count == 0


def test_in_place_into_caller_tensor_on_side_stream(gen):
    def f(x, y, out):
        n = x.numel()
        ex_add.add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
        return out * 3

    cf, _ = compiled(f)
    stream = torch.cuda.Stream()
    for n in (4096, 70000):
        x = torch.randn(n, device="cuda", generator=gen)
        y = torch.randn(n, device="cuda", generator=gen)
        out = poisoned(n)
        torch.cuda.synchronize()
        with torch.cuda.stream(stream):  # the launch follows PyTorch's current stream
            r = cf(x, y, out)
        stream.synchronize()
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)
        torch.testing.assert_close(r, (x + y) * 3)


@triton.jit
def sin_mul_fwd(x_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.sin(x) * tl.load(w_ptr + offs, mask=mask), mask=mask)


@triton.jit
def sin_mul_bwd(x_ptr, w_ptr, g_ptr, gx_ptr, gw_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    w = tl.load(w_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    tl.store(gx_ptr + offs, g * w * tl.cos(x), mask=mask)
    tl.store(gw_ptr + offs, g * tl.sin(x), mask=mask)


class SinMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        out = torch.full_like(x, math.nan)
        n = x.numel()
        sin_mul_fwd[(triton.cdiv(n, 1024),)](x, w, out, n, BLOCK=1024)
        ctx.save_for_backward(x, w)
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        g = g.contiguous()
        gx, gw = torch.full_like(x, math.nan), torch.full_like(w, math.nan)
        n = x.numel()
        sin_mul_bwd[(triton.cdiv(n, 1024),)](x, w, g, gx, gw, n, BLOCK=1024)
        return gx, gw


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_autograd_function_under_compile(gen, dtype):
    def f(x, w):
        return (SinMul.apply(x, w) * torch.arange(x.numel(), device="cuda", dtype=x.dtype)).sum()

    cf, counter = compiled(f)
    # float32: the sum of up to 65536 terms weighted up to 65535
    tol = dict(rtol=1e-4, atol=1e-2) if dtype == torch.float32 else {}
    for n in (1000, 5000, 1 << 16):
        x = torch.randn(n, device="cuda", dtype=dtype, generator=gen).requires_grad_()
        w = torch.randn(n, device="cuda", dtype=dtype, generator=gen).requires_grad_()
        loss = cf(x, w)
        gx, gw = torch.autograd.grad(loss, (x, w))
        xr, wr = x.detach().double().requires_grad_(), w.detach().double().requires_grad_()
        ref = (torch.sin(xr) * wr * torch.arange(n, device="cuda", dtype=torch.float64)).sum()
        rx, rw = torch.autograd.grad(ref, (xr, wr))
        torch.testing.assert_close(loss.double(), ref, **tol)
        if dtype == torch.float32:
            # gx = g * w * cos(x), gw = g * sin(x): the GPU's float32 sine and
            # cosine are within an absolute 2^-21 or so, a large relative
            # error near their zeros, so the bounds scale with |g * w| and
            # |g| (g reaches 65535).
            g64 = torch.arange(n, device="cuda", dtype=torch.float64)
            for got, want, scale in ((gx, rx, g64 * wr.detach().abs()), (gw, rw, g64)):
                err = (got.double() - want).abs()
                assert (err <= 1e-4 * want.abs() + 4e-6 * scale + 1e-2).all(), err.max().item()
        else:
            torch.testing.assert_close(gx.double(), rx, **tol)
            torch.testing.assert_close(gw.double(), rw, **tol)
    assert counter.frame_count <= 2


def test_layer_norm_example_under_compile(gen):
    """The layer-norm example's forward (several outputs, a row stride)."""

    def f(x, w, b):
        M, N = x.shape
        y = torch.full_like(x, math.nan)
        mean = torch.full((M,), math.nan, device="cuda")
        rstd = torch.full((M,), math.nan, device="cuda")
        ex_ln.layer_norm_fwd_kernel[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, 1e-5,
                                          BLOCK_SIZE=triton.next_power_of_2(N))
        return y, mean

    cf, _ = compiled(f)
    for shape in ((64, 512), (130, 1000)):
        x = torch.randn(shape, device="cuda", generator=gen)
        w = torch.randn(shape[1], device="cuda", generator=gen)
        b = torch.randn(shape[1], device="cuda", generator=gen)
        y, mean = cf(x, w, b)
        ref = torch.nn.functional.layer_norm(x.double(), (shape[1],), w.double(), b.double(), 1e-5)
        torch.testing.assert_close(y.double(), ref, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(mean.double(), x.double().mean(1), rtol=1e-5, atol=1e-5)


class LayerNorm(torch.autograd.Function):
    """The layer-norm example's three kernels (spin locks with atomic_cas,
    partial sums) as an autograd.Function."""

    @staticmethod
    def forward(ctx, x, w, b):
        m, n = x.shape
        y = torch.full_like(x, math.nan)
        mean = torch.full((m,), math.nan, device="cuda")
        rstd = torch.full((m,), math.nan, device="cuda")
        ex_ln.layer_norm_fwd_kernel[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5,
                                          BLOCK_SIZE=triton.next_power_of_2(n))
        ctx.save_for_backward(x, w, mean, rstd)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, w, mean, rstd = ctx.saved_tensors
        dy = dy.contiguous()
        m, n = x.shape
        groups = 16
        locks = torch.zeros(2 * groups, dtype=torch.int32, device="cuda")
        partial_dw = torch.zeros((groups, n), device="cuda")
        partial_db = torch.zeros((groups, n), device="cuda")
        dx = torch.full_like(x, math.nan)
        ex_ln.layer_norm_bwd_dx_kernel[(m,)](dx, dy, partial_dw, partial_db, x, w, mean, rstd,
                                             locks, x.stride(0), n, GROUP_SIZE_M=groups,
                                             BLOCK_SIZE_N=triton.next_power_of_2(n))
        dw = torch.full((n,), math.nan, device="cuda")
        db = torch.full((n,), math.nan, device="cuda")
        ex_ln.layer_norm_bwd_dwdb_kernel[(triton.cdiv(n, 128),)](
            partial_dw, partial_db, dw, db, min(groups, m), n, BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
        return dx, dw, db


def test_layer_norm_autograd_under_compile(gen):
    def f(x, w, b, target):
        return ((LayerNorm.apply(x, w, b) - target) ** 2).mean()

    cf, _ = compiled(f)
    for shape in ((64, 512), (300, 1000)):
        x = (torch.randn(shape, device="cuda", generator=gen) * 2 + 0.5).requires_grad_()
        w = torch.randn(shape[1], device="cuda", generator=gen).requires_grad_()
        b = torch.randn(shape[1], device="cuda", generator=gen).requires_grad_()
        target = torch.randn(shape, device="cuda", generator=gen)
        loss = cf(x, w, b, target)
        grads = torch.autograd.grad(loss, (x, w, b))
        xr, wr, br = (t.detach().double().requires_grad_() for t in (x, w, b))
        ref = ((torch.nn.functional.layer_norm(xr, (shape[1],), wr, br, 1e-5)
                - target.double()) ** 2).mean()
        refs = torch.autograd.grad(ref, (xr, wr, br))
        torch.testing.assert_close(loss.double(), ref, rtol=1e-5, atol=1e-6)
        for g, r in zip(grads, refs):
            torch.testing.assert_close(g.double(), r, rtol=1e-4, atol=1e-5)
