"""The cases of tests/python/package/test_triton_semantics.py on the GPU:
the same kernels (loaded from that file), CUDA tensors, the same answers."""
import importlib.util

import pytest

from conftest import ROOT, skip_without_gpu

skip_without_gpu()
import numpy as np  # noqa: E402
import torch  # noqa: E402

import tessera as triton  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "triton_semantics_cases", ROOT / "tests/python/package/test_triton_semantics.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


def cuda(values, dtype):
    return torch.tensor(values, dtype=dtype, device="cuda")


@pytest.mark.parametrize("c", [-3, 0, 4])
def test_return_nested_in_ifs(c):
    out = cuda([-99, -99], torch.int32)
    cases.nested_return_kernel[(1,)](c, out)
    assert out.tolist() == ([-99, -99] if c > 0 else [1, 7 if c == 0 else -99])


@pytest.mark.parametrize("c", [0, 3, 7])
def test_return_in_an_inner_else(c):
    out = cuda([-99, -99], torch.int32)
    cases.return_in_else_kernel[(1,)](c, out)
    assert out.tolist() == {0: [1, 2], 3: [-99, -99], 7: [1, 3]}[c]


@pytest.mark.parametrize("xt,yt", [(torch.int8, torch.uint8), (torch.int16, torch.uint16),
                                   (torch.int32, torch.uint32), (torch.uint8, torch.int8)])
def test_shift_right_follows_the_left_operand(gen, xt, yt):
    n, bits = 256, torch.iinfo(xt).bits
    info = torch.iinfo(xt)
    x = torch.randint(info.min, info.max, (n,), generator=gen, device="cuda", dtype=torch.int64)
    y = torch.randint(0, bits, (n,), generator=gen, device="cuda", dtype=torch.int64)
    out_t = xt if not xt.is_signed else yt
    out = torch.full((n,), 0x55, dtype=out_t, device="cuda")
    cases.shr_kernel[(1,)](x.to(xt), y.to(yt), out, N=n)
    mask = (1 << bits) - 1
    ref = [(a >> b) & mask for a, b in zip(x.tolist(), y.tolist())]
    assert [v & mask for v in out.to(torch.int64).tolist()] == ref


def test_bfloat16_sum_accumulates_in_float32(gen):
    out = torch.full((1,), -1.0, device="cuda")
    cases.sum_kernel[(1,)](torch.ones(1024, dtype=torch.bfloat16, device="cuda"), out, N=1024)
    assert out.item() == 1024
    x = torch.randn(2048, generator=gen, device="cuda").to(torch.bfloat16)
    cases.sum_kernel[(1,)](x, out, N=2048)
    assert abs(out.item() - x.double().sum().item()) <= 1e-4 * x.double().abs().sum().item()


@pytest.mark.parametrize("dt", [torch.bfloat16, torch.float16])
def test_max_of_16_bit_floats_is_float32(gen, dt):
    x = torch.randn(256, generator=gen, device="cuda").to(dt)
    out = torch.full((1,), float("nan"), device="cuda")
    cases.max_kernel[(1,)](x, out, N=256)
    assert out.item() == x.float().max().item()


def test_argmax_argmin_nan_rule():
    out = cuda([-1, -1], torch.int32)
    cases.arg_kernel[(1,)](cuda([float("nan"), 6, 8, 1], torch.float32), out, N=4)
    assert out.tolist() == [2, 3]


@pytest.mark.parametrize("values", [[3, 5, np.nan, 1], [3, 1, np.nan, 5], [np.nan, np.nan, 2, 7]])
def test_argmax_argmin_ignore_nan_wherever_it_is(values):
    out = cuda([-1, -1], torch.int32)
    cases.arg_kernel[(1,)](cuda(values, torch.float32), out, N=4)
    x = np.array(values, np.float32)
    assert out.tolist() == [int(np.nanargmax(x)), int(np.nanargmin(x))]


def test_argmax_argmin_without_nan_match_torch(gen):
    x = torch.randint(-5, 5, (128,), generator=gen, device="cuda").float()
    out = cuda([-1, -1], torch.int32)
    cases.arg_kernel[(1,)](x, out, N=128)
    # Ties go to the lowest index, as NumPy's argmax.
    xs = np.array(x.tolist())
    assert out.tolist() == [int(np.argmax(xs)), int(np.argmin(xs))]


def test_uint64_constant_past_int64(gen):
    x = torch.randint(0, 1 << 62, (16,), generator=gen, device="cuda", dtype=torch.int64)
    out = torch.zeros(16, dtype=torch.uint64, device="cuda")
    cases.add_const_kernel[(1,)](x.to(torch.uint64), out, N=16)
    assert [v & (2**64 - 1) for v in out.view(torch.int64).tolist()] == [
        v + (1 << 63) for v in x.tolist()]


@pytest.mark.parametrize("op,dt", [("add", torch.int32), ("add", torch.float16), ("cas", torch.int32)])
@pytest.mark.parametrize("n", [1, 4, 32, 64])
def test_atomic_result_reaches_every_copy(gen, op, dt, n):
    x = torch.randint(0, 2, (n,), generator=gen, device="cuda").to(dt)
    before = x.clone()
    out = torch.full((n, n), -7, dtype=dt, device="cuda")
    cases.atomic_use_result_kernel[(1,)](x, out, N=n, OP=op)
    assert (out == before[:, None]).all()
    expect = before + 1 if op == "add" else torch.where(before == 0, 2, before)
    assert (x == expect).all()


@pytest.mark.parametrize("m,n", [(256, 512), (2048, 2), (1024, 128), (32, 512), (8, 2)])
def test_histogram_mask(gen, m, n):
    half = torch.randint(0, n, (m,), generator=gen, device="cuda", dtype=torch.int32)
    x = torch.cat([half, torch.randint(0, n, (m,), generator=gen, device="cuda", dtype=torch.int32)])
    z = torch.full((n,), -1, dtype=torch.int32, device="cuda")
    cases.histogram_mask_kernel[(1,)](x, z, M=m, N=n)
    assert (z == torch.bincount(half, minlength=n).to(torch.int32)).all()


def test_reduce_or(gen):
    bits = torch.randint(0, 31, (8, 16), generator=gen, device="cuda")
    keep = torch.rand((8, 16), generator=gen, device="cuda") < 0.3
    x = torch.where(keep, torch.ones_like(bits) << bits, torch.zeros_like(bits)).to(torch.int32)
    out = torch.full((8,), -1, dtype=torch.int32, device="cuda")
    cases.reduce_or_kernel[(1,)](x, out, M=8, N=16)
    ref = [0] * 8
    for r, row in enumerate(x.tolist()):
        for v in row:
            ref[r] |= v
    assert out.tolist() == ref


@pytest.mark.parametrize("si,sj,sg", [(8, 4, 2), (16, 8, 3)])
def test_swizzle2d(si, sj, sg):
    out = torch.full((si, sj, 2), -1, dtype=torch.int32, device="cuda")
    cases.swizzle2d_kernel[(1,)](out, SI=si, SJ=sj, SG=sg)
    ref = [[list(cases.swizzle_ref(i, j, si, sj, sg)) for j in range(sj)] for i in range(si)]
    assert out.tolist() == ref


def test_driver_describes_the_gpu():
    """Triton's tutorials put their tensors where the active driver says."""
    d = triton.runtime.driver.active
    assert d.get_current_target().backend == "cuda"
    major, minor = torch.cuda.get_device_capability()
    assert d.get_current_target().arch == 10 * major + minor
    assert d.get_active_torch_device() == torch.device("cuda", torch.cuda.current_device())
    props = d.utils.get_device_properties(torch.cuda.current_device())
    tp = torch.cuda.get_device_properties(torch.cuda.current_device())
    assert props["multiprocessor_count"] == tp.multi_processor_count
    assert props["name"] == tp.name
    assert props["max_shared_mem"] >= 100 * 1024
    assert d.get_device_interface() is torch.cuda


def test_python_m_tessera_keeps_torch_compile_working(tmp_path):
    """Under `python -m tessera`, a program's `import triton` is Tessera and
    runs on the GPU, while torch.compile (inductor imports the real Triton)
    still compiles and runs."""
    import os
    import subprocess
    import sys
    (tmp_path / "prog.py").write_text(
        "import torch, triton, triton.language as tl\n"
        "@triton.jit\n"
        "def twice(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    o = tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) * 2, mask=o < n)\n"
        "dev = triton.runtime.driver.active.get_active_torch_device()\n"
        "x = torch.arange(8.0, device=dev)\n"
        "twice[(1,)](x, 8, BLOCK=8)\n"
        "f = torch.compile(lambda t: torch.sin(t) + 1)\n"
        "y = f(x)\n"
        "assert torch.allclose(y, torch.sin(x) + 1)\n"
        "print(triton.__name__, dev, x.tolist()[:3])\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    r = subprocess.run([sys.executable, "-m", "tessera", str(tmp_path / "prog.py")], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "tessera cuda:0 [0.0, 2.0, 4.0]" in r.stdout


@pytest.mark.parametrize("c", [0, 2])
def test_runtime_conditional_expression(gen, c):
    x = torch.randn(8, generator=gen, device="cuda")
    out = torch.full((8,), float("nan"), device="cuda")
    cases.ifexp_kernel[(1,)](x, out, c, 8)
    ref = (x if c > 0 else -torch.ones(8, device="cuda")) * (1.5 if c > 1 else 2)
    assert torch.allclose(out, ref)


@pytest.mark.parametrize("v", [3, -2])
def test_one_element_condition_and_item(v):
    out = torch.zeros(1, dtype=torch.int32, device="cuda")
    cases.one_element_kernel[(1,)](torch.tensor([v], dtype=torch.int32, device="cuda"), out)
    assert out.item() == (2 * v if v > 0 else -1)


def test_propagate_nan_names(gen):
    a = torch.randn(16, generator=gen, device="cuda")
    b = torch.randn(16, generator=gen, device="cuda")
    a[::3] = float("nan")
    out = torch.full((32,), -1.0, device="cuda")
    cases.propagate_nan_kernel[(1,)](a, b, out, N=16)
    an, bn, o = a.cpu().numpy(), b.cpu().numpy(), out.cpu().numpy()
    np.testing.assert_array_equal(o[:16], np.minimum(an, bn))
    np.testing.assert_array_equal(o[16:], np.fmax(an, bn))


def test_literal_dtypes_and_pointer_types(gen):
    x = torch.randn(16, generator=gen, device="cuda")
    out = torch.zeros(16, device="cuda")
    cases.literal_dtype_kernel[(1,)](x, out, N=16)
    torch.testing.assert_close(out, x * 0.5 + 1)


def test_conditional_expression_of_two_stores():
    out = cuda([-1, -1, -1, -1], torch.int32)
    cases.void_ifexp_kernel[(4,)](cuda([5], torch.int32), cuda([9], torch.int32), out)
    assert out.tolist() == [5, 9, 5, 9]


def test_type_attribute_of_tensors_and_pointers(gen):
    x = torch.randn(16, generator=gen, device="cuda")
    out = torch.zeros(16, dtype=torch.float16, device="cuda")
    cases.type_attr_kernel[(1,)](x, out, N=16)
    assert torch.equal(out, (x * 2).half())


def test_integers_become_pointers(gen):
    x = torch.randn(8, generator=gen, device="cuda")
    other = torch.randn(8, generator=gen, device="cuda")
    out = torch.zeros(8, device="cuda")
    addrs = torch.tensor([0, other.data_ptr()], dtype=torch.int64, device="cuda")
    cases.int_to_pointer_kernel[(1,)](addrs, x, out, N=8)
    torch.testing.assert_close(out, other * 2)


def test_grouped_matmul_through_address_tables(gen):
    shapes = [(40, 24, 56), (16, 48, 16), (33, 17, 70)]
    block = 16
    a = [torch.randn(m, k, generator=gen, device="cuda").half() for m, n, k in shapes]
    b = [torch.randn(k, n, generator=gen, device="cuda").half() for m, n, k in shapes]
    c = [torch.full((m, n), float("nan"), device="cuda").half() for m, n, k in shapes]
    table = lambda ts: torch.tensor([t.data_ptr() for t in ts], device="cuda")  # noqa: E731
    sizes = torch.tensor(shapes, dtype=torch.int32, device="cuda").ravel()
    lds = torch.tensor([(x.shape[1], y.shape[1], z.shape[1]) for x, y, z in zip(a, b, c)],
                       dtype=torch.int32, device="cuda").ravel()
    tiles = sum(-(-m // block) * -(-n // block) for m, n, k in shapes)
    cases.grouped_matmul_kernel[(tiles,)](table(a), table(b), table(c), sizes, lds,
                                          G=len(shapes), BLOCK=block)
    for x, y, z in zip(a, b, c):
        torch.testing.assert_close(z.double(), x.double() @ y.double(), rtol=2e-3, atol=2e-2)


def test_sequence_repetition(gen):
    x = torch.randint(-100, 100, (8, 8), generator=gen, device="cuda", dtype=torch.int32)
    out = torch.full((8, 8), -1, dtype=torch.int32, device="cuda")
    cases.repeat_kernel[(1,)](x, out, RANK=2)
    assert torch.equal(out, x + 10)


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_cat_along_a_dim_keeps_the_order(gen, dim):
    x = torch.randn(2, 4, 8, generator=gen, device="cuda")
    y = torch.randn(2, 4, 8, generator=gen, device="cuda")
    want = torch.cat([x, y], dim=dim)
    out = torch.full_like(want, float("nan"))
    cases.cat_dim_kernel[(1,)](x, y, out, A=2, B=4, C=8, DIM=dim)
    assert torch.equal(out, want)


@pytest.mark.parametrize("rank", [2, 3, 4, 5])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True)])
def test_dot_over_several_batch_dims(gen, rank, trans_a, trans_b):
    shape = (2,) * (rank - 2) + (16, 16)
    x = torch.randn(shape, generator=gen, device="cuda")
    y = torch.randn(shape, generator=gen, device="cuda")
    z = torch.full(shape, float("nan"), device="cuda")
    cases.batched_dot_kernel[(1,)](x, y, z, RANK=rank, TRANS_A=trans_a, TRANS_B=trans_b)
    a = x.transpose(-1, -2) if trans_a else x
    b = y.transpose(-1, -2) if trans_b else y
    torch.testing.assert_close(z.double(), a.double() @ b.double(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_exp2_flushes_subnormal_results(dtype):
    x, want = cases.exp2_case(dtype)
    xs = torch.tensor(x, dtype=dtype, device="cuda")
    out = torch.full((16,), float("nan"), dtype=dtype, device="cuda")
    folded = torch.full((16,), float("nan"), dtype=dtype, device="cuda")
    cases.exp2_kernel[(1,)](xs, out, folded, N=16, C=-130.0)
    # ex2.approx is within 2 ulp of exp2 (exact at integers); flushed
    # results are exact zeros.
    torch.testing.assert_close(out.double().cpu(), torch.tensor(want).to(dtype).double(),
                               rtol=2.5e-7, atol=0)
    assert (out.cpu()[torch.tensor(want) == 0] == 0).all()
    assert (folded == 0).all()
