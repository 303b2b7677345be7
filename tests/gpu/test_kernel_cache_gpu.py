"""`kernel.cache` on the GPU: the course notes' PTX inspection idiom, Triton
3's device_caches, and preload of a GPU kernel."""
import json
import os
import re

from conftest import skip_without_gpu

skip_without_gpu()
import torch  # noqa: E402

import tessera as triton
from conftest import poisoned, rel_err

import gelu as ex_gelu


def print_ptx(name, kernel):
    """As the notes write it."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return None
    return list(kernel.cache[0].values())[0].asm["ptx"]


def fresh_gelu():
    return triton.jit(ex_gelu.gelu_kernel.fn)  # its own, empty caches


def test_print_ptx_idiom(gen):
    k = fresh_gelu()
    x = torch.randn(1 << 16, device="cuda", generator=gen)
    out = poisoned(1 << 16)
    k[(64,)](x, out, 1 << 16, BLOCK_SIZE=1024)
    assert rel_err(out, torch.nn.functional.gelu(x.double(), approximate="tanh")) < 1e-5
    ptx = print_ptx("gelu", k)
    assert re.search(r"ld\.global(\.[a-z0-9]+)*\.v4\.", ptx), ptx[:2000]
    assert {"ttir", "ttgir", "ptx"} <= set(list(k.cache[0].values())[0].asm)


def test_device_caches_on_the_gpu(gen):
    k = fresh_gelu()
    dev = torch.cuda.current_device()
    x = torch.randn(4096, device="cuda", generator=gen)
    out = poisoned(4096)
    ck = k[(4,)](x, out, 4096, BLOCK_SIZE=1024)
    kernel_cache, _, target, backend, binder = k.device_caches[dev]
    assert kernel_cache is k.cache[dev] and list(kernel_cache.values()) == [ck]
    assert target.backend == "cuda" and backend.name == "cuda"
    _, spec, options = binder(x, out, 4096, BLOCK_SIZE=1024)
    assert kernel_cache[str(spec) + str(options)] is ck
    assert options["target"].startswith("sm_") and options["num_warps"] == 4


def test_preload_on_the_gpu(gen):
    k = fresh_gelu()
    data = []
    with triton.knobs.runtime.scope() as runtime:
        runtime.jit_cache_hook = lambda **kw: data.append(kw["compile"]["specialization_data"])
        x = torch.randn(4096, device="cuda", generator=gen)
        first = k.warmup(x, x, 4096, BLOCK_SIZE=1024, grid=(4,))
    assert json.loads(data[0])["target"]["backend"] == "cuda"
    k.cache[torch.cuda.current_device()].clear()
    kernel = k.preload(data[0])
    assert kernel.hash == first.hash and "ld.global" in kernel.asm["ptx"]
    out = poisoned(4096)
    assert k[(4,)](x, out, 4096, BLOCK_SIZE=1024) is kernel
    assert rel_err(out, torch.nn.functional.gelu(x.double(), approximate="tanh")) < 1e-5
