"""What a kernel compiled, as Triton programs read it: `kernel.cache[device]`
(the course notes' `list(kernel.cache[0].values())[0].asm[...]`),
`device_caches` in Triton 3's shape, the JIT hooks' specialization data, and
`preload`. On the CPU interpreter (device 0); the PTX side is in
tests/gpu/test_kernel_cache_gpu.py."""
import json

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl
from tessera.runtime import driver
from tessera.runtime.jit import stats


def make_kernel():
    """A fresh kernel (its own caches) for each test."""

    @triton.jit
    def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr, DT: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, (tl.load(x_ptr + offs, mask=mask) * factor).to(DT), mask=mask)

    return scale_kernel


@pytest.fixture
def hooks():
    """knobs.runtime's JIT hooks, unset again after the test."""
    with triton.knobs.runtime.scope() as runtime:
        yield runtime


def launch(k, rng, n=100, factor=2.0, block=64, debug=None):
    x = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    extra = {} if debug is None else {"debug": debug}
    ck = k[(triton.cdiv(n, block),)](x, out, n, factor, BLOCK=block, DT=tl.float32, **extra)
    np.testing.assert_allclose(out, x * np.float32(factor), rtol=1e-6)
    return ck


def test_notes_idiom_on_cpu(rng):
    k = make_kernel()
    assert len(k.cache[0]) == 0
    ck = launch(k, rng)
    first = list(k.cache[0].values())[0]
    assert first is ck
    assert set(first.asm) >= {"ttir-initial", "ttir"} and "ptx" not in first.asm
    assert "func @scale_kernel" in first.asm["ttir"]


def test_one_entry_per_specialisation(rng):
    k = make_kernel()
    launch(k, rng, n=100)
    launch(k, rng, n=100)  # the same specialisation
    launch(k, rng, n=37)  # 100 and 37 are both "not divisible by 16"
    assert len(k.cache[0]) == 1
    launch(k, rng, n=64)  # divisible by 16
    launch(k, rng, n=1)  # == 1
    launch(k, rng, n=100, block=128)  # another constexpr
    launch(k, rng, n=100, debug=True)
    keys = list(k.cache[0])
    assert len(keys) == 5
    assert keys[0] == ("[('*fp32', 'D'), ('*fp32', 'D'), ('i32', None), ('fp32', None), "
                       "('constexpr', 64), ('constexpr', tessera.language.float32)]"
                       "{'target': 'cpu', 'num_warps': 4, 'debug': False}")
    assert "('i32', 'D')" in keys[1] and "('constexpr', 1), ('fp32', None)" in keys[2]
    assert "('constexpr', 128)" in keys[3] and keys[4].endswith("'debug': True}")
    assert len({id(v) for v in k.cache[0].values()}) == 5


def test_device_caches_shape(rng):
    k = make_kernel()
    ck = launch(k, rng)
    kernel_cache, key_cache, target, backend, binder = k.device_caches[0]
    assert kernel_cache is k.cache[0]
    assert target == driver.active.get_current_target() and backend.target == target
    assert backend.parse_options({"num_warps": 8}).num_warps == 8
    assert backend.parse_options({}).num_stages == 3
    x = np.zeros(100, np.float32)
    bound, specialization, options = binder(x, x, 100, 2.0, BLOCK=64, DT=tl.float32)
    assert bound["n"] == 100 and bound["BLOCK"] == 64
    assert kernel_cache[str(specialization) + str(options)] is ck
    assert list(key_cache.values()) == [str(specialization) + str(options)]
    # Another specialisation's key is not there until it is launched.
    _, spec16, opts16 = binder(x, x, 96, 2.0, BLOCK=64, DT=tl.float32)
    assert str(spec16) + str(opts16) not in kernel_cache


def test_clearing_the_cache_forgets_kernels(rng):
    k = make_kernel()
    launch(k, rng)
    before = stats.compiles + stats.disk_hits
    launch(k, rng)
    assert stats.compiles + stats.disk_hits == before  # in memory
    k.device_caches[0][0].clear()
    assert k.cache[0] == {}
    launch(k, rng)  # loaded again (from disk), and correct
    assert stats.compiles + stats.disk_hits == before + 1
    assert len(k.cache[0]) == 1
    key = next(iter(k.cache[0]))
    del k.cache[0][key]
    launch(k, rng)
    assert stats.compiles + stats.disk_hits == before + 2


def test_editing_the_source_empties_the_cache(rng):
    k = make_kernel()
    launch(k, rng)
    k.src = k.src.replace("* factor", "* factor * 1.0")
    assert len(k.cache[0]) == 0
    launch(k, rng)
    assert len(k.cache[0]) == 1


def test_hooks_see_specialization_data(rng, hooks):
    seen, after = [], []
    hooks.jit_cache_hook = lambda **kw: seen.append(kw)
    hooks.jit_post_compile_hook = lambda **kw: after.append(kw)
    k = make_kernel()
    launch(k, rng, n=100)
    launch(k, rng, n=100)  # in memory: no hook
    assert len(seen) == 1 and len(after) == 1
    kw = seen[0]
    assert kw["key"] in k.device_caches[0][0] and kw["compile"]["key"] == kw["key"]
    assert kw["fn"].jit_function is k and kw["fn"].name.endswith("scale_kernel")
    assert kw["is_manual_warmup"] is False and kw["compile"]["is_warmup"] is False
    assert kw["compile"]["num_warps"] == 4 and kw["compile"]["device"] == 0
    assert after[0]["compile"]["specialization_data"] == kw["compile"]["specialization_data"]
    data = json.loads(kw["compile"]["specialization_data"])
    assert data["name"] == f"{__name__}.make_kernel.<locals>.scale_kernel"
    assert data["signature"] == {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "factor": "fp32",
                                 "BLOCK": "constexpr", "DT": "constexpr"}
    assert dict(zip(map(tuple, data["constant_keys"]), data["constant_vals"])) == {(4,): 64, (5,): "fp32"}
    assert data["attrs_keys"] == [[0], [1]]
    assert data["attrs_vals"] == [[["tt.divisibility", 16]], [["tt.divisibility", 16]]]
    assert data["options"]["num_warps"] == 4 and data["options"]["debug"] is False
    assert data["target"]["backend"] == "cpu" and data["key"] == kw["key"]


def test_cache_hook_can_skip_compiling(rng, hooks):
    hooks.jit_cache_hook = lambda **kw: True
    k = make_kernel()
    x = np.ones(100, np.float32)
    out = np.full(100, np.nan, np.float32)
    assert k[(2,)](x, out, 100, 2.0, BLOCK=64, DT=tl.float32) is None
    assert np.isnan(out).all() and len(k.cache[0]) == 0
    assert k.warmup(x, out, 100, 2.0, BLOCK=64, DT=tl.float32, grid=(1,)) is None


def test_preload(rng, hooks):
    data = []
    hooks.jit_cache_hook = lambda **kw: data.append(kw["compile"]["specialization_data"])
    k = make_kernel()
    x = np.zeros(96, np.float32)
    first = k.warmup(x, x, 1, 2.0, BLOCK=32, DT=tl.float16, grid=(1,))  # n == 1, fp16 constexpr
    assert len(data) == 1 and json.loads(data[0])["signature"]["n"] == "constexpr"
    k.cache[0].clear()
    del hooks.jit_cache_hook

    kernel = k.preload(data[0])
    assert kernel.hash == first.hash and kernel is not first
    assert list(k.cache[0].values()) == [kernel]
    assert kernel.metadata.constants == {"BLOCK": 32, "DT": tl.float16}
    # Now in memory: the same specialisation compiles nothing.
    calls = []
    hooks.jit_cache_hook = lambda **kw: calls.append(kw)
    assert k.warmup(x, x, 1, 2.0, BLOCK=32, DT=tl.float16, grid=(1,)) is kernel
    assert calls == [] and len(k.cache[0]) == 1
    # ... and launches it.
    out = np.full(1, np.nan, np.float32)
    assert k[(1,)](np.array([3.0], np.float32), out, 1, 2.0, BLOCK=32, DT=tl.float16) is kernel
    assert out[0] == 6.0


def test_preload_a_specialisation_never_launched(rng):
    k = make_kernel()
    seen = []
    with triton.knobs.runtime.scope() as runtime:
        runtime.jit_cache_hook = lambda **kw: seen.append(kw["compile"]["specialization_data"])
        launch(k, rng, n=100)
    data = json.loads(seen[0])
    data["constant_vals"] = [128, "fp16"]  # BLOCK=128, DT=fp16
    data["attrs_keys"], data["attrs_vals"] = [[0]], [[["tt.divisibility", 16]]]  # out_ptr unaligned
    data["signature"]["out_ptr"] = "*fp16"
    kernel = k.preload(json.dumps(data))
    assert kernel.metadata.constants == {"BLOCK": 128, "DT": tl.float16}
    assert len(k.cache[0]) == 2
    x = np.arange(200, dtype=np.float32)
    out = np.full(201, np.nan, np.float16)
    before = stats.compiles + stats.disk_hits
    assert k[(2,)](x, out[1:], 200, 0.5, BLOCK=128, DT=tl.float16) is kernel
    assert stats.compiles + stats.disk_hits == before
    np.testing.assert_allclose(out[1:], x * 0.5, rtol=1e-3)


def test_preload_refuses_other_kernels_and_descriptors(rng):
    k, other = make_kernel(), make_kernel()
    seen = []
    with triton.knobs.runtime.scope() as runtime:
        runtime.jit_cache_hook = lambda **kw: seen.append(kw["compile"]["specialization_data"])
        launch(k, rng)
    data = json.loads(seen[0])
    data["name"] = "elsewhere.kernel"
    with pytest.raises(RuntimeError, match="Specialization data is for elsewhere.kernel but trying "
                                           "to preload for .*scale_kernel"):
        k.preload(json.dumps(data))
    data = json.loads(seen[0])
    data["signature"]["x_ptr"] = "tensordesc<fp32[16, 16]>"
    with pytest.raises(ValueError, match="'x_ptr' is a tensor descriptor"):
        k.preload(json.dumps(data))
    assert len(other.cache[0]) == 0


def test_a_copy_of_the_cache_is_a_plain_dict(rng):
    import copy
    k = make_kernel()
    launch(k, rng)
    snapshot = copy.copy(k.cache[0])
    assert type(snapshot) is dict and len(snapshot) == 1
    snapshot.clear()
    assert len(k.cache[0]) == 1
