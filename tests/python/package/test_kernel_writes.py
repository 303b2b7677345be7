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


@triton.jit
def asm_through_pointers(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(c_ptr + offs)
    # The pointer is in the args list, not the first argument.
    tl.inline_asm_elementwise("st.global.b32 [$1], $2;", "=r,l,r", [b_ptr + offs, x],
                              dtype=tl.int32, is_pure=False, pack=1)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [tl.load(a_ptr + offs)],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(c_ptr + offs, y)


@pytest.mark.parametrize("kernel, written", [
    (copy, {"dst_ptr"}),
    (asm_through_pointers, {"b_ptr", "c_ptr"}),
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


# ---- cross-check against the compiler: the pointers its Tile IR stores through


def ir_written(ttir: str) -> set:
    """Parameters a compiled kernel's Tile IR may store or atomically update
    through: the pointer operand of each store / atomic_rmw / atomic_cas,
    followed back through pointer-typed operands. A region's block
    arguments and results stand for every pointer operand and yield of their
    op (more than the truth, never less), so the oracle over-approximates."""
    import re

    defs = {}  # value -> (type text, pointer operands)
    params = []
    stack = []  # region ops: [result names, pointer operands and yields]
    written_roots = []

    def is_pointer(name):
        return "ptr" in defs.get(name, ("ptr", ()))[0]

    for line in ttir.splitlines():
        s = line.strip()
        m = re.match(r"func @\w+\((.*)\)", s)
        if m:
            for p in re.finditer(r"%([\w.]+): ([^,{]+)", m.group(1)):
                defs[p.group(1)] = (p.group(2), ())
                params.append(p.group(1))
            continue
        m = re.match(r"\^\((.*)\):", s)
        if m:  # block arguments of the innermost region op
            for p in re.finditer(r"%([\w.]+): ([^,]+)", m.group(1)):
                defs[p.group(1)] = (p.group(2), ("@region", id(stack[-1])))
                stack[-1][0].append(p.group(1))
            continue
        if s == "}":
            if stack:
                names, deps = stack.pop()
                for n in names:
                    defs[n] = (defs[n][0], tuple(deps))
            continue
        # `%a = op ...`, `%a, %b = op ...`, `%r:3 = op ...` (used as %r#0)
        m = re.match(r"(?:((?:%[\w.]+(?::\d+)?, )*%[\w.]+(?::\d+)?) = )?(\w+)(.*?)"
                     r"(?: : ([^{}]*))?( \{)?$", s)
        if not m:
            continue
        results = [r.strip()[1:].split(":")[0] for r in (m.group(1) or "").split(",") if r.strip()]
        op, rest, rtype = m.group(2), m.group(3), m.group(4) or ""
        operands = re.findall(r"%([\w.]+)(?:#\d+)?", re.sub(r"\{[^{}]*\}", "", rest))
        ptr_ops = [o for o in operands if is_pointer(o)]
        for r in results:
            defs[r] = (rtype, tuple(ptr_ops))
        if op in ("store", "atomic_rmw", "atomic_cas") and operands:
            written_roots.append(operands[0])
        if op == "yield" and stack:
            stack[-1][1].extend(ptr_ops)
        if m.group(5):  # the op opens a region: its results depend on it
            stack.append([list(results), list(ptr_ops)])
    reached, todo = set(), list(written_roots)
    while todo:
        v = todo.pop()
        if v in reached:
            continue
        reached.add(v)
        todo.extend(d for d in defs.get(v, ("", ()))[1] if isinstance(d, str))
    return reached & set(params)


def compiled_kernels(module):
    for v in vars(module).values():
        k = v
        while not isinstance(k, triton.JITFunction) and hasattr(k, "fn"):
            k = k.fn
        if isinstance(k, triton.JITFunction) and k.__module__ == module.__name__:
            for compiled in k.cache[0].values():
                yield k, compiled


def test_ir_oracle_sees_loop_carried_stores():
    @triton.jit
    def k(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        p = a_ptr + offs
        for i in range(2):
            p = p + 0
        tl.store(p, tl.load(b_ptr + offs) + tl.load(c_ptr + offs))

    arrays = [np.zeros(8, np.float32) for _ in range(3)]
    k[(1,)](*arrays, BLOCK=8)
    (compiled,) = k.cache[0].values()
    assert ir_written(compiled.asm["ttir"]) == {"a_ptr"}
    assert written_params(k) & {"a_ptr", "b_ptr", "c_ptr"} == {"a_ptr"}


def test_analysis_covers_what_the_compiler_writes_in_every_example(rng):
    """For each example kernel, every pointer its compiled Tile IR writes
    through is one the source analysis reports (the analysis may say more)."""
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples"))
    import attention
    import dropout
    import gelu
    import layer_norm
    import matmul
    import softmax
    import softmax_online
    import vector_add

    q, k, v = (rng.standard_normal((1, 1, 64, 16)).astype(np.float16) for _ in range(3))
    attention.attention(q, k, v, causal=True, block_m=32, block_n=16, num_warps=4)
    dropout.demo(rng, 1 << 16, 0.25)
    gelu.demo(rng, 100)
    layer_norm.demo(rng, (5, 100))
    matmul.demo(rng, (16, 16, 16))
    softmax.demo(rng, (3, 50))
    softmax_online.demo(rng, (3, 50))
    vector_add.demo(rng, 100)
    checked = 0
    for module in (attention, dropout, gelu, layer_norm, matmul, softmax, softmax_online,
                   vector_add):
        for kernel, compiled in compiled_kernels(module):
            truth = ir_written(compiled.asm["ttir"])
            assert truth, f"{kernel.__name__}: the oracle found no store"
            assert truth <= written_params(kernel), kernel.__name__
            checked += 1
    assert checked >= 9
