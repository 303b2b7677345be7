"""fp8 on the GPU: conversions between float32 and float8e4nv / float8e5 (and
float8e4b15, always in software),
compiled for the device's own target (sm_89+ hardware `cvt`) and for sm_80
(software conversion, TESSERA_TARGET=sm_80), compared bit for bit with each
other and with PyTorch's conversions where PyTorch defines the same result
(every fp8 code widened; in-range values narrowed, to nearest even), and
with the CPU interpreter."""
import pytest

from conftest import skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402

FORMATS = {"e4m3": (torch.float8_e4m3fn, 448.0), "e5m2": (torch.float8_e5m2, 57344.0)}


def narrow_fn(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty), mask=m)


def widen_fn(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m).to(tl.float32) * 1.0, mask=m)


def run(fn, target, monkeypatch, x, out):
    """Launches a fresh @jit of `fn` (its own dispatcher) for `target`."""
    if target:
        monkeypatch.setenv("TESSERA_TARGET", target)
    else:
        monkeypatch.delenv("TESSERA_TARGET", raising=False)
    k = triton.jit(fn)
    n = x.numel()
    k[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    torch.cuda.synchronize()
    return k


def interesting_floats(gen, n):
    """Random floats over fp8's range and beyond, exact ties, subnormals,
    and the specials."""
    wide = torch.randn(n, generator=gen, device="cuda") * torch.exp2(
        torch.randint(-20, 18, (n,), generator=gen, device="cuda").float())
    codes = torch.arange(256, dtype=torch.uint8, device="cuda")
    ties = []
    for dt, _ in FORMATS.values():
        v = codes.view(dt).float()
        v = v[torch.isfinite(v)]
        ties += [v, (v[:-1] + v[1:]) / 2, torch.nextafter(v, v * 2), torch.nextafter(v, v * 0)]
    specials = torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-30, -1e-30,
                             3.4e38, -3.4e38], device="cuda")
    return torch.cat([wide] + ties + [specials]).contiguous()


@pytest.mark.parametrize("fmt", FORMATS)
def test_narrow_software_matches_hardware_and_torch(gen, monkeypatch, fmt):
    dt, biggest = FORMATS[fmt]
    x = interesting_floats(gen, 1 << 20)
    outs = {}
    for target in ("", "sm_80"):
        out = torch.full(x.shape, 0x5A, dtype=torch.uint8, device="cuda").view(dt)
        k = run(narrow_fn, target, monkeypatch, x, out)
        ptx = next(iter(k._by_hash.values())).asm["ptx"]
        assert ("cvt.rn.satfinite" in ptx) == (target == ""), "wrong conversion path compiled"
        outs[target] = out.view(torch.uint8)
    hw, sw = outs[""], outs["sm_80"]
    bad = (hw != sw).nonzero()
    assert bad.numel() == 0, f"{bad.numel()} differ, first x={x[bad[0]].item()!r}"
    # The CPU interpreter converts as the GPU does, specials included.
    cpu = torch.full(x.shape, 0x5A, dtype=torch.uint8).view(dt)
    triton.jit(narrow_fn)[(triton.cdiv(x.numel(), 1024),)](x.cpu(), cpu, x.numel(), BLOCK=1024)
    bad = (cpu.view(torch.uint8) != hw.cpu()).nonzero()
    assert bad.numel() == 0, f"{bad.numel()} differ on the CPU, first x={x.cpu()[bad[0]].item()!r}"
    # PyTorch rounds to nearest even too; it does not saturate, so compare in range.
    finite = x.abs() <= biggest
    ref = x[finite].to(dt).view(torch.uint8)
    assert torch.equal(sw[finite], ref)
    # Saturation: beyond the largest finite value (infinities too) -> +-max.
    over = (x.abs() > biggest) & ~torch.isnan(x)
    assert torch.equal(sw[over].view(dt).float().abs(),
                       torch.full_like(x[over], biggest))


@pytest.mark.parametrize("fmt", FORMATS)
def test_widen_every_code(monkeypatch, fmt):
    dt, _ = FORMATS[fmt]
    codes = torch.arange(256, dtype=torch.uint8, device="cuda").view(dt)
    ref = codes.float()
    for target in ("", "sm_80"):
        out = torch.full((256,), 12345.0, device="cuda")  # poison (NaN is a valid result)
        run(widen_fn, target, monkeypatch, codes, out)
        nan = torch.isnan(ref)
        assert torch.equal(torch.isnan(out), nan), target
        assert torch.equal(out[~nan], ref[~nan]), target


@pytest.mark.parametrize("target", ["", "sm_80"])
def test_e4b15_in_software_matches_the_interpreter_and_torch(gen, monkeypatch, target):
    # float8e4b15 (E4M3FN's layout, bias 15): no GPU converts it in hardware,
    # so every target runs the software sequences. Its values are E4M3FN's
    # times 2^-8, which gives PyTorch's reference.
    codes = torch.arange(256, dtype=torch.uint8, device="cuda")
    out = torch.full((256,), 12345.0, device="cuda")
    run(widen_fn, target, monkeypatch, triton.reinterpret(codes, tl.float8e4b15), out)
    ref = codes.view(torch.float8_e4m3fn).float() * 2.0**-8
    nan = torch.isnan(ref)
    assert torch.equal(torch.isnan(out), nan) and torch.equal(out[~nan], ref[~nan])
    x = interesting_floats(gen, 1 << 16) * 2.0**-8
    gpu = torch.full(x.shape, 0x5A, dtype=torch.uint8, device="cuda")
    run(narrow_fn, target, monkeypatch, x, triton.reinterpret(gpu, tl.float8e4b15))
    cpu = torch.full(x.shape, 0x5A, dtype=torch.uint8)
    triton.jit(narrow_fn)[(triton.cdiv(x.numel(), 1024),)](
        x.cpu(), triton.reinterpret(cpu, tl.float8e4b15), x.numel(), BLOCK=1024)
    assert torch.equal(gpu.cpu(), cpu)
    finite = x.abs() <= 1.75
    assert torch.equal(gpu[finite], (x[finite] * 256).to(torch.float8_e4m3fn).view(torch.uint8))


def test_fnuz_formats_are_refused_on_the_gpu(monkeypatch):
    x = torch.zeros(16, device="cuda")
    out = torch.zeros(16, dtype=torch.uint8, device="cuda")
    with pytest.raises(triton.CompilationError, match="fnuz fp8 format"):
        run(narrow_fn, "", monkeypatch, x, triton.reinterpret(out, tl.float8e4b8))


def narrow_rtz_fn(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty, fp_downcast_rounding="rtz"), mask=m)


@pytest.mark.parametrize("name", ["float8e4nv", "float8e5", "float8e4b15"])
@pytest.mark.parametrize("target", ["", "sm_80"])
def test_narrow_toward_zero_matches_the_interpreter(gen, monkeypatch, name, target):
    # No cvt to fp8 rounds toward zero: every target takes the software
    # sequence with add.rz, which must agree with the interpreter's rule.
    dt = getattr(tl, name)
    x = interesting_floats(gen, 1 << 16) * (2.0**-8 if name == "float8e4b15" else 1.0)
    gpu = torch.full(x.shape, 0x5A, dtype=torch.uint8, device="cuda")
    run(narrow_rtz_fn, target, monkeypatch, x, triton.reinterpret(gpu, dt))
    cpu = torch.full(x.shape, 0x5A, dtype=torch.uint8)
    triton.jit(narrow_rtz_fn)[(triton.cdiv(x.numel(), 1024),)](
        x.cpu(), triton.reinterpret(cpu, dt), x.numel(), BLOCK=1024)
    bad = (gpu.cpu() != cpu).nonzero()
    assert bad.numel() == 0, f"{bad.numel()} differ, first x={x.cpu()[bad[0]].item()!r}"
