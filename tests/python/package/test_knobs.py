"""triton.knobs: the environment under Triton's names, assignable per
process, and what each knob changes."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl
from tessera.runtime import cache


def test_knobs_read_the_environment_and_assignments_win(monkeypatch, tmp_path):
    monkeypatch.delenv("TESSERA_CACHE_DIR", raising=False)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "t"))
    assert triton.knobs.cache.dir == str(tmp_path / "t")
    assert cache.default_cache_dir() == str(tmp_path / "t")
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "s"))
    assert triton.knobs.cache.dir == str(tmp_path / "s")  # Tessera's name first
    triton.knobs.cache.dir = str(tmp_path / "assigned")
    try:
        assert cache.default_cache_dir() == str(tmp_path / "assigned")
    finally:
        del triton.knobs.cache.dir
    assert triton.knobs.cache.dir == str(tmp_path / "s")
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    assert triton.knobs.autotuning.print is True
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    assert triton.knobs.runtime.interpret is False


@triton.jit
def fill(out_ptr, V: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, 4), tl.full((4,), V, tl.int32))


def test_always_compile_skips_the_disk_cache_and_dump_writes_stages(monkeypatch, tmp_path):
    from tessera.runtime.jit import stats
    out = np.zeros(4, np.int32)
    triton.knobs.compilation.always_compile = True
    triton.knobs.compilation.dump_ir = True
    triton.knobs.compilation.dump_dir = str(tmp_path)
    try:
        before = (stats.compiles, stats.disk_hits)
        fill[(1,)](out, V=7)
        again = triton.JITFunction(fill.fn)  # its own in-memory cache: compiles again
        again[(1,)](out, V=7)
        assert stats.compiles - before[0] == 2 and stats.disk_hits == before[1]
    finally:
        triton.knobs.compilation.reset()
    assert (out == 7).all()
    dumped = os.listdir(tmp_path)
    assert dumped and all(d.startswith("fill-") for d in dumped)
    files = os.listdir(tmp_path / dumped[0])
    assert "ttir.txt" in files and "ttir-initial.txt" in files
    assert "tt.func" in (tmp_path / dumped[0] / "ttir.txt").read_text() or \
        "func @fill" in (tmp_path / dumped[0] / "ttir.txt").read_text()


def test_set_allocator():
    import pytest
    from tessera.runtime import _allocation
    with pytest.raises(RuntimeError, match="no allocator is set"):
        _allocation.NullAllocator()(16, 16, None)
    seen = []
    triton.set_allocator(lambda size, align, stream: seen.append((size, align)) or bytearray(size))
    assert len(triton.runtime._allocation.get_allocator()(64, 16, None)) == 64
    assert seen == [(64, 16)]
    with pytest.raises(TypeError, match="callable"):
        triton.set_allocator(3)
    triton.set_allocator(_allocation.NullAllocator())


@triton.jit
def folded(out_ptr, x):
    tl.store(out_ptr + tl.arange(0, 4), tl.full((4,), 3, tl.int32) * 2 + x)


def test_passes_knob_selects_the_tile_ir_pipeline_and_keys_the_cache(monkeypatch):
    out = np.zeros(4, np.int32)
    asm = {}
    # The default first: a "none" kernel that found its entry in the disk
    # cache would show the optimised IR.
    for passes in ("", "none", "canonicalize"):
        monkeypatch.setenv("TESSERA_PASSES", passes)
        out[:] = 0
        asm[passes] = triton.JITFunction(folded.fn)[(1,)](out, 5).asm
        assert (out == 11).all()
    assert asm["none"]["ttir"] == asm["none"]["ttir-initial"]
    assert asm[""]["ttir"] != asm["none"]["ttir"]
    assert asm["canonicalize"]["ttir"] != asm["none"]["ttir"]
    monkeypatch.setenv("TESSERA_PASSES", "cse,no-such-pass")
    with pytest.raises(triton.CompilationError, match="no-such-pass"):
        triton.JITFunction(folded.fn)[(1,)](out, 5)
    triton.knobs.compilation.passes = "none"  # the knob wins over the environment
    try:
        assert triton.JITFunction(folded.fn)[(1,)](out, 5).asm["ttir"] == asm["none"]["ttir"]
    finally:
        del triton.knobs.compilation.passes


def test_nvidia_tools_report_path_and_version(monkeypatch, tmp_path):
    # A stand-in tool whose --version says what NVIDIA's tools say.
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\necho 'ptxas: NVIDIA (R) Ptx optimizing assembler'\n"
                    "echo 'Cuda compilation tools, release 12.7, V12.7.33'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("TRITON_PTXAS_PATH", str(fake))
    tool = triton.knobs.nvidia.ptxas
    assert tool.path == str(fake) and tool.version == "12.7"
    monkeypatch.setenv("TRITON_PTXAS_PATH", str(tmp_path / "missing"))
    assert triton.knobs.nvidia.ptxas.version is None  # no such tool: no version, no error
    monkeypatch.delenv("TRITON_PTXAS_PATH")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert triton.knobs.nvidia.ptxas.path == str(fake)  # found on PATH
    assert "ptxas" in repr(triton.knobs.nvidia)


def test_assigning_a_knob_sets_its_variable_until_deleted(monkeypatch):
    # Triton's propagate_env: child processes see assigned knobs; `del` and
    # reset() put the variable back as it was.
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "0")
    triton.knobs.compilation.always_compile = True
    try:
        assert os.environ["TRITON_ALWAYS_COMPILE"] == "1"
    finally:
        triton.knobs.compilation.reset()
    assert os.environ["TRITON_ALWAYS_COMPILE"] == "0"
    assert triton.knobs.compilation.always_compile is False
    monkeypatch.delenv("TRITON_OVERRIDE_ARCH", raising=False)
    with triton.knobs.runtime.scope():
        triton.knobs.runtime.override_arch = "sm80"
        assert os.environ["TRITON_OVERRIDE_ARCH"] == "sm80"
    assert "TRITON_OVERRIDE_ARCH" not in os.environ
    assert triton.knobs.runtime.override_arch is None
    monkeypatch.setattr(triton.knobs, "propagate_env", False)
    monkeypatch.delenv("TRITON_KERNEL_DUMP", raising=False)
    triton.knobs.compilation.dump_ir = True
    try:
        assert "TRITON_KERNEL_DUMP" not in os.environ
    finally:
        del triton.knobs.compilation.dump_ir


def test_knob_groups_list_their_knobs(monkeypatch):
    descriptors = triton.knobs.runtime.knob_descriptors
    assert descriptors["override_arch"].key == "TRITON_OVERRIDE_ARCH"
    assert descriptors["interpret"].key == "TRITON_INTERPRET"
    assert "launch_enter_hook" not in descriptors  # hooks have no variable
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "0")
    assert triton.knobs.language.knobs == {"default_fp_fusion": False}
    monkeypatch.delenv("TRITON_DEFAULT_FP_FUSION")
    assert triton.knobs.language.default_fp_fusion is True
    fresh = triton.knobs.cache.copy().reset()
    assert type(fresh) is type(triton.knobs.cache) and fresh is not triton.knobs.cache


def test_codegen_options_are_accepted_on_the_cpu():
    # enable_fp_fusion, enable_reflect_ftz and arch change GPU code only;
    # the interpreter rounds every operation and takes them as given.
    out = np.zeros(4, np.int32)
    fill[(1,)](out, V=5, enable_fp_fusion=False, enable_reflect_ftz=False, maxnreg=40)
    assert (out == 5).all()
    with pytest.raises(ValueError, match="maxnreg must be an int from 16 to 255, got 8"):
        fill[(1,)](out, V=5, maxnreg=8)
    with pytest.raises(TypeError, match="unexpected keyword argument 'enable_fma'"):
        fill[(1,)](out, V=5, enable_fma=False)


@triton.jit
def load_hook_kernel(out_ptr, V: tl.constexpr):
    tl.store(out_ptr, V)


def test_kernel_load_hooks_are_chains_called_as_a_kernel_becomes_ready():
    calls = []
    start = lambda *a: calls.append(("start", *a))  # noqa: E731
    end0 = lambda *a: calls.append(("end0", a[2], a[4]))  # noqa: E731
    end1 = lambda *a: calls.append(("end1", a[2], a[4]))  # noqa: E731
    hooks = triton.knobs.runtime
    hooks.kernel_load_start_hook.add(start)
    hooks.kernel_load_start_hook.add(start)  # once only, as Triton's HookChain
    hooks.kernel_load_end_hook.add(end0)
    hooks.kernel_load_end_hook.add(end1)
    try:
        out = np.zeros(1, np.int32)
        v = int(np.random.default_rng().integers(1, 1 << 30))
        load_hook_kernel[(1,)](out, V=v)
        load_hook_kernel[(1,)](out, V=v)  # in memory: not loaded again
        assert out[0] == v
        h = load_hook_kernel.warmup(out, V=v, grid=(1,)).hash  # the kernel loaded above
        assert isinstance(h, str) and h
        assert calls == [("start", None, None, "load_hook_kernel", {}, h),
                         ("end1", "load_hook_kernel", h), ("end0", "load_hook_kernel", h)]
    finally:
        hooks.kernel_load_start_hook.remove(start)
        hooks.kernel_load_end_hook.remove(end0)
        hooks.kernel_load_end_hook.remove(end1)
    assert hooks.kernel_load_start_hook.calls == [] and hooks.kernel_load_end_hook.calls == []
