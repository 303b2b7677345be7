"""Tessera launches inside torch.compile(fullgraph=True) on CPU tensors (the
interpreter runs them): each launch becomes the custom op tessera::launch
(python/tessera/runtime/torch_ops.py). Compared with PyTorch on fresh random
inputs, outputs poisoned with NaN before each call; tests/gpu has the CUDA
twin. Skipped where PyTorch is missing."""
import math

import pytest

torch = pytest.importorskip("torch")
dynamo = pytest.importorskip("torch._dynamo")
dynamo_testing = pytest.importorskip("torch._dynamo.testing")

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_dynamo():
    dynamo.reset()
    yield
    dynamo.reset()


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr, OUT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = alpha * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, v.to(OUT), mask=mask)


def axpy(x, y, alpha):
    out = torch.full_like(x, math.nan)  # poisoned: an unwritten element fails
    n = x.numel()
    axpy_kernel[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](
        x, y, out, n, alpha, BLOCK=tl.constexpr(64), OUT=tl.float32)
    return out


def compiled(fn, backend="inductor"):
    counter = dynamo_testing.CompileCounterWithBackend(backend)
    return torch.compile(fn, fullgraph=True, backend=counter), counter


def launches_in_graph(fn, *args):
    """How many tessera::launch calls Dynamo put in the graph of fn(*args)."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch.compile(fn, fullgraph=True, backend=backend)(*args)
    assert len(graphs) == 1
    return sum(1 for node in graphs[0].graph.nodes
               if node.op == "call_function" and "tessera.launch" in str(node.target))


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
def test_plain_kernel_fullgraph(backend):
    def f(x, y):
        return axpy(x, y, 0.5) * 2 + 1

    cf, counter = compiled(f, backend)
    for n in (100, 1000, 37, 4096):  # the second size makes the graph dynamic
        x, y = torch.randn(n), torch.randn(n)
        torch.testing.assert_close(cf(x, y), (0.5 * x + y) * 2 + 1)
    assert counter.frame_count <= 2  # static, then one dynamic graph for all sizes
    assert dynamo.explain(f)(x, y).graph_break_count == 0
    assert launches_in_graph(f, x, y) == 1


def test_int_constexprs_stay_symbolic_floats_are_guarded():
    """BLOCK= from a Python int argument: the graph is reused and the kernel
    specialised when the op runs; a new float value is a new graph (op
    schemas have no symbolic floats) but still the right answer."""

    def f(x, alpha, block):
        out = torch.full_like(x, math.nan)
        n = x.numel()
        axpy_kernel[(triton.cdiv(n, block),)](x, x, out, n, alpha, BLOCK=block, OUT=tl.float32)
        return out

    cf, counter = compiled(f)
    for n, block in ((100, 32), (1000, 64), (37, 128), (4096, 16)):
        x = torch.randn(n)
        torch.testing.assert_close(cf(x, 0.5, block), 1.5 * x)
    assert counter.frame_count <= 2
    for alpha in (1.5, -2.0):
        x = torch.randn(300)
        torch.testing.assert_close(cf(x, alpha, 64), (alpha + 1) * x)


def test_launch_returns_compiled_kernel_in_eager_only():
    x, y = torch.randn(64), torch.randn(64)
    out = torch.empty(64)
    k = axpy_kernel[(1,)](x, y, out, 64, 1.0, BLOCK=64, OUT=tl.float32)
    assert k is not None and "ttir" in k.asm

    def f(x, y, out):
        return axpy_kernel[(1,)](x, y, out, 64, 1.0, BLOCK=64, OUT=tl.float32)

    assert torch.compile(f, fullgraph=True, backend="eager")(x, y, out) is None


def test_two_shapes_and_in_place_outputs():
    """Two launches of different specialisations in one graph, writing into
    tensors the caller passed (graph inputs mutated in place)."""

    def f(x, y, out_a, out_b):
        n = x.numel()
        axpy_kernel[(triton.cdiv(n, 32),)](x, y, out_a, n, 2.0, BLOCK=32, OUT=tl.float32)
        m = y.numel() // 2
        axpy_kernel[(triton.cdiv(m, 128),)](y, x, out_b, m, -1.0, BLOCK=128, OUT=tl.float64)
        return out_a.sum()

    cf, counter = compiled(f)
    for n in (48, 160, 999):
        x, y = torch.randn(n), torch.randn(n)
        out_a = torch.full((n,), math.nan)
        out_b = torch.full((n // 2,), math.nan, dtype=torch.float64)
        s = cf(x, y, out_a, out_b)
        torch.testing.assert_close(out_a, 2 * x + y)
        torch.testing.assert_close(out_b, (-y[:n // 2] + x[:n // 2]).double())
        # A float32 sum in whichever order the compiled graph takes: within
        # the bound of recursive summation, (n - 1) u sum|t|, of the exact sum.
        terms = (2 * x + y).double()
        bound = (n - 1) * 2.0**-24 * terms.abs().sum().item()
        assert abs(s.item() - terms.sum().item()) <= bound
    assert counter.frame_count <= 2
    assert launches_in_graph(f, x, y, out_a, out_b) == 2


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
    """sin(x) * w with both directions in Tessera kernels."""

    @staticmethod
    def forward(ctx, x, w):
        out = torch.full_like(x, math.nan)
        n = x.numel()
        sin_mul_fwd[(triton.cdiv(n, 128),)](x, w, out, n, BLOCK=128)
        ctx.save_for_backward(x, w)
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        g = g.contiguous()
        gx, gw = torch.full_like(x, math.nan), torch.full_like(w, math.nan)
        n = x.numel()
        sin_mul_bwd[(triton.cdiv(n, 128),)](x, w, g, gx, gw, n, BLOCK=128)
        return gx, gw


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_autograd_function_under_compile(backend):
    def f(x, w):
        return (SinMul.apply(x, w) * torch.arange(x.numel(), dtype=x.dtype)).sum()

    cf, counter = compiled(f, backend)
    for n in (100, 300, 1025):
        x = torch.randn(n, dtype=torch.float64, requires_grad=True)
        w = torch.randn(n, dtype=torch.float64, requires_grad=True)
        loss = cf(x, w)
        gx, gw = torch.autograd.grad(loss, (x, w))
        # The reference: PyTorch's own autograd on the same formula.
        xr, wr = x.detach().requires_grad_(), w.detach().requires_grad_()
        ref = (torch.sin(xr) * wr * torch.arange(n, dtype=xr.dtype)).sum()
        rx, rw = torch.autograd.grad(ref, (xr, wr))
        torch.testing.assert_close(loss, ref)
        torch.testing.assert_close(gx, rx)
        torch.testing.assert_close(gw, rw)
        # And the same Function run eagerly gives the same gradients.
        ex, ew = torch.autograd.grad(f(xr, wr), (xr, wr))
        torch.testing.assert_close(gx, ex)
        torch.testing.assert_close(gw, ew)
    assert counter.frame_count <= 2


def test_autograd_function_with_module_parameters():
    class Layer(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(n))

        def forward(self, x):
            return SinMul.apply(x, self.w).relu().sum()

    layer = Layer(256)
    model = torch.compile(layer, fullgraph=True)
    x = torch.randn(256, requires_grad=True)
    model(x).backward()
    xr = x.detach().requires_grad_()
    wr = layer.w.detach().requires_grad_()
    (torch.sin(xr) * wr).relu().sum().backward()
    torch.testing.assert_close(x.grad, xr.grad)
    torch.testing.assert_close(layer.w.grad, wr.grad)


@triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def tuned_scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3, mask=mask)


def test_autotuned_kernel_with_config_dependent_grid():
    """The grid depends on the config the autotuner picks at run time: one
    grid per config is traced, the op picks the one that runs."""

    def f(x):
        out = torch.full_like(x, math.nan)
        n = x.numel()
        tuned_scale[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, out, n)
        return out

    cf, _ = compiled(f)
    for n in (200, 1000, 4000):
        x = torch.randn(n)
        torch.testing.assert_close(cf(x), x * 3)
    assert tuned_scale.best_config is not None


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"])})
@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    row = tl.program_id(0)
    v = tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + row, tl.sum(v, axis=0))


def test_heuristics_and_run_with_grid():
    def f(x):
        out = torch.full((x.shape[0],), math.nan)
        row_sum_kernel[(x.shape[0],)](x, out, x.shape[1])
        out2 = torch.full((x.shape[0],), math.nan)
        row_sum_kernel.fn.run(x, out2, x.shape[1], BLOCK=64, grid=(x.shape[0],), warmup=False)
        return out, out2

    cf, _ = compiled(f)
    for shape in ((3, 50), (5, 64)):
        x = torch.randn(shape)
        a, b = cf(x)
        torch.testing.assert_close(a, x.sum(1))
        torch.testing.assert_close(b, x.sum(1))


def test_same_tensor_read_and_written():
    """x += 1 through a kernel that reads one parameter and writes another,
    both given the same tensor."""

    @triton.jit
    def add_one(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n) + 1, mask=offs < n)

    def f(x):
        add_one[(1,)](x, x, x.numel(), BLOCK=128)
        return x * 2

    cf, _ = compiled(f)
    for n in (10, 100):
        x = torch.randn(n)
        before = x.clone()
        torch.testing.assert_close(cf(x), (before + 1) * 2)
        torch.testing.assert_close(x, before + 1)


class Opaque:
    """A constexpr value no spec string can hold."""


OPAQUE = Opaque()


def test_unsupported_constexpr_is_a_clear_error():
    @triton.jit
    def k(x_ptr, F: tl.constexpr):
        tl.store(x_ptr, 1.0)

    def f(x):
        k[(1,)](x, F=OPAQUE)
        return x

    with pytest.raises(Exception, match="inside torch.compile"):
        torch.compile(f, fullgraph=True, backend="eager")(torch.zeros(1))


def run_script(tmp_path, text):
    """The last line a fresh Python process running `text` prints."""
    import os
    import subprocess
    import sys

    script = tmp_path / "script.py"  # a file: @jit reads the kernel's source
    script.write_text(text)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()[-1]


KERNEL = (
    "import tessera as triton\n"
    "import tessera.language as tl\n"
    "@triton.jit\n"
    "def k(x_ptr, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 2)\n")


def test_eager_launches_do_not_load_dynamo(tmp_path):
    """Launching on torch tensors outside torch.compile must not import
    torch._dynamo (over a second of import time)."""
    assert run_script(tmp_path, "import sys\nimport torch\n" + KERNEL + (
        "x = torch.zeros(16)\n"
        "k[(1,)](x, BLOCK=16)\n"
        "k[(1,)](x, BLOCK=16)\n"
        "assert x.eq(4).all()\n"
        "print('torch._dynamo' in sys.modules)\n")) == "False"


def test_first_launch_inside_compile_with_torch_imported_late(tmp_path):
    """A kernel defined before torch is imported, launched first inside
    torch.compile: the op is defined while Dynamo traces."""
    assert run_script(tmp_path, KERNEL + (
        "import torch\n"
        "def f(x):\n"
        "    k[(1,)](x, BLOCK=16)\n"
        "    return x * 3\n"
        "x = torch.arange(16.0)\n"
        "y = torch.compile(f, fullgraph=True, backend='aot_eager')(x)\n"
        "assert torch.equal(y, (torch.arange(16.0) + 2) * 3), y\n"
        "assert torch.equal(x, torch.arange(16.0) + 2), x\n"
        "print('ok')\n")) == "ok"


@triton.jit
def twice(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def test_writes_into_views():
    """Outputs that are slices of a caller's buffer and of an intermediate:
    functionalisation must write them back into their bases."""

    def f(x, buf):
        twice[(1,)](x, buf[10:20], 10, BLOCK=16)
        twice[(1,)](x, buf[30:], 5, BLOCK=16)
        local = torch.zeros(40)
        twice[(1,)](x, local[5:], 3, BLOCK=16)
        return buf.sum(), local * 1

    cf, _ = compiled(f)
    for n in (40, 50):
        x = torch.randn(16)
        buf = torch.zeros(n)
        ref = torch.zeros(n)
        ref[10:20] = x[:10] * 2
        ref[30:35] = x[:5] * 2
        local_ref = torch.zeros(40)
        local_ref[5:8] = x[:3] * 2
        s, local = cf(x, buf)
        torch.testing.assert_close(buf, ref)
        torch.testing.assert_close(s, ref.sum())
        torch.testing.assert_close(local, local_ref)


def test_kernel_errors_surface_unchanged():
    """An out-of-bounds access in a compiled graph is the KernelError an
    eager launch raises, naming the kernel's line."""

    @triton.jit
    def overrun(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs))

    def f(x, out):
        overrun[(1,)](x, out, BLOCK=32)
        return out

    with pytest.raises(triton.KernelError, match="out-of-bounds load in kernel overrun"):
        torch.compile(f, fullgraph=True)(torch.ones(16), torch.zeros(32))


def _zero_acc(args):
    args["acc_ptr"].zero_()


@triton.autotune(configs=[triton.Config({"BLOCK": 32}, pre_hook=_zero_acc),
                          triton.Config({"BLOCK": 64}, pre_hook=_zero_acc)], key=["n"])
@triton.jit
def hooked_add(x_ptr, acc_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(acc_ptr + offs, mask=mask),
             mask=mask)


def test_config_hook_writes_count_as_writes():
    """A config pre_hook zeroes a parameter the kernel only reads: the graph
    must see it changed (every parameter counts as written under hooks)."""

    def f(x, acc):
        out = torch.full_like(x, math.nan)
        n = x.numel()
        before = acc * 1
        hooked_add[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, acc, out, n)
        return out, acc * 1, before

    cf, _ = compiled(f)
    for n in (100, 1000):
        x, acc = torch.randn(n), torch.randn(n)
        acc0 = acc.clone()
        out, after, before = cf(x, acc)
        torch.testing.assert_close(before, acc0)
        torch.testing.assert_close(out, x)
        torch.testing.assert_close(after, torch.zeros(n))
        torch.testing.assert_close(acc, torch.zeros(n))


def test_layer_norm_example_autograd_under_compile():
    """The layer-norm example's three kernels (its backward takes spin locks
    with atomic_cas and sums partial results) as a torch.autograd.Function,
    compiled, against torch.nn.functional.layer_norm's autograd."""
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples"))
    import layer_norm as ln

    class LayerNorm(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b):
            m, n = x.shape
            y = torch.full_like(x, math.nan)
            mean = torch.full((m,), math.nan)
            rstd = torch.full((m,), math.nan)
            ln.layer_norm_fwd_kernel[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5,
                                           BLOCK_SIZE=triton.next_power_of_2(n))
            ctx.save_for_backward(x, w, mean, rstd)
            return y

        @staticmethod
        def backward(ctx, dy):
            x, w, mean, rstd = ctx.saved_tensors
            dy = dy.contiguous()
            m, n = x.shape
            groups = 8
            locks = torch.zeros(2 * groups, dtype=torch.int32)
            partial_dw = torch.zeros((groups, n))
            partial_db = torch.zeros((groups, n))
            dx = torch.full_like(x, math.nan)
            ln.layer_norm_bwd_dx_kernel[(m,)](dx, dy, partial_dw, partial_db, x, w, mean, rstd,
                                              locks, x.stride(0), n, GROUP_SIZE_M=groups,
                                              BLOCK_SIZE_N=triton.next_power_of_2(n))
            dw = torch.full((n,), math.nan)
            db = torch.full((n,), math.nan)
            ln.layer_norm_bwd_dwdb_kernel[(triton.cdiv(n, 128),)](
                partial_dw, partial_db, dw, db, min(groups, m), n, BLOCK_SIZE_M=32,
                BLOCK_SIZE_N=128)
            return dx, dw, db

    def f(x, w, b, target):
        return ((LayerNorm.apply(x, w, b) - target) ** 2).mean()

    cf, counter = compiled(f)
    for shape in ((7, 100), (33, 300)):
        x = (torch.randn(shape, dtype=torch.float32) * 2 + 0.5).requires_grad_()
        w = torch.randn(shape[1]).requires_grad_()
        b = torch.randn(shape[1]).requires_grad_()
        target = torch.randn(shape)
        loss = cf(x, w, b, target)
        grads = torch.autograd.grad(loss, (x, w, b))
        xr, wr, br = (t.detach().double().requires_grad_() for t in (x, w, b))
        ref = ((torch.nn.functional.layer_norm(xr, (shape[1],), wr, br, 1e-5)
                - target.double()) ** 2).mean()
        refs = torch.autograd.grad(ref, (xr, wr, br))
        torch.testing.assert_close(loss.double(), ref, rtol=1e-5, atol=1e-6)
        for g, r in zip(grads, refs):
            torch.testing.assert_close(g.double(), r, rtol=1e-4, atol=1e-5)
    assert counter.frame_count <= 2
