"""The source analysis that tells torch.compile which pointer parameters a
kernel may write through (python/tessera/runtime/kernel_writes.py). Each
case is checked against what running the kernel does: a parameter reported
read-only must come back unchanged after a launch."""
import numpy as np
import pytest

import tessera as triton
import tessera.language as tl
from tessera.runtime.kernel_writes import written_params


@triton.jit
def _store_into(p, v, BLOCK: tl.constexpr):
    tl.store(p + tl.arange(0, BLOCK), v)


@triton.jit
def _read_from(p, BLOCK: tl.constexpr):
    return tl.load(p + tl.arange(0, BLOCK))


@triton.jit
def copy(src_ptr, dst_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs))


@triton.jit
def through_locals_and_loop(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    p = a_ptr
    q = b_ptr
    for i in range(2):
        q, p = p, q  # after the loop either may hold either
    offs = tl.arange(0, BLOCK)
    x = tl.load(c_ptr + offs)
    tl.store(q + offs, x, mask=offs < n)


@triton.jit
def atomics_and_block_ptrs(a_ptr, b_ptr, c_ptr, d_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(a_ptr + offs, tl.load(d_ptr + offs))
    bp = tl.make_block_ptr(base=b_ptr, shape=(BLOCK,), strides=(1,), offsets=(0,),
                           block_shape=(BLOCK,), order=(0,))
    tl.store(tl.advance(bp, (0,)), tl.load(c_ptr + offs))


@triton.jit
def through_callees(a_ptr, b_ptr, BLOCK: tl.constexpr):
    _store_into(b_ptr, _read_from(a_ptr, BLOCK), BLOCK)


@triton.jit
def descriptor_store(a_ptr, b_ptr, BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(b_ptr, shape=[BLOCK], strides=[1], block_shape=[BLOCK])
    desc.store([0], tl.load(a_ptr + tl.arange(0, BLOCK)))


@pytest.mark.parametrize("kernel, written", [
    (copy, {"dst_ptr"}),
    (through_locals_and_loop, {"a_ptr", "b_ptr"}),
    (atomics_and_block_ptrs, {"a_ptr", "b_ptr"}),
    (through_callees, {"b_ptr"}),
    (descriptor_store, {"b_ptr"}),
])
def test_written_pointer_parameters(kernel, written):
    pointers = {n for n in kernel.arg_names if n.endswith("_ptr")}
    assert written_params(kernel) & pointers == written


@pytest.mark.parametrize("kernel, nptr", [(copy, 2), (atomics_and_block_ptrs, 4),
                                          (through_callees, 2)])
def test_read_only_parameters_stay_unchanged(kernel, nptr, rng):
    """What the analysis calls read-only is not written when the kernel runs."""
    arrays = [rng.standard_normal(64).astype(np.float32) for _ in range(nptr)]
    before = [a.copy() for a in arrays]
    kernel[(1,)](*arrays, BLOCK=64)
    written = written_params(kernel)
    for name, a, b in zip(kernel.arg_names, arrays, before):
        if name not in written:
            np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(arrays, before))


def test_unknown_callee_writes_everything():
    def helper(p):  # not a @jit function: the analysis cannot look inside
        return p

    ns = {"tl": tl, "triton": triton, "helper": helper}
    text = "@triton.jit\ndef k(a_ptr, b_ptr):\n    helper(a_ptr)\n    tl.store(b_ptr, 1.0)\n"
    exec(text, ns)  # the kernel's source is found in `text`
    assert written_params(ns["k"]) >= {"a_ptr", "b_ptr"}


def test_aliased_language_functions():
    ns = {"triton": triton}
    text = ("from tessera.language import store as put, load as get, arange\n"
            "@triton.jit\n"
            "def k(a_ptr, b_ptr):\n"
            "    put(b_ptr + arange(0, 4), get(a_ptr + arange(0, 4)))\n")
    exec(text, ns)
    assert written_params(ns["k"]) == {"b_ptr"}


def test_source_edit_is_reanalysed():
    @triton.jit
    def k(a_ptr, b_ptr):
        tl.store(b_ptr, tl.load(a_ptr))

    assert written_params(k) == {"b_ptr"}
    k.src = k.src.replace("tl.store(b_ptr, tl.load(a_ptr))", "tl.store(a_ptr, tl.load(b_ptr))")
    assert written_params(k) == {"a_ptr"}
