"""tl.range(..., loop_unroll_factor=F): the body runs F times per iteration
of an unrolled loop, then a loop runs the iterations left; every iteration
runs once, in order, with the loop-carried values threaded through."""

from __future__ import annotations

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl


@triton.jit
def traced_loop(trace, acc_out, lo, hi, STEP: tl.constexpr, F: tl.constexpr):
    acc = tl.zeros([8], dtype=tl.int32) + tl.arange(0, 8)
    count = 0
    for i in tl.range(lo, hi, STEP, loop_unroll_factor=F):
        acc = acc * 3 + i  # order-sensitive, wraps in int32
        tl.store(trace + count, i, mask=count < 64)
        count += 1
    tl.store(trace + 64, count)
    tl.store(acc_out + tl.arange(0, 8), acc)


@pytest.mark.parametrize("factor", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("lo,hi,step", [(0, 0, 1), (0, 1, 1), (0, 7, 1), (0, 8, 1), (0, 9, 1),
                                        (3, 50, 2), (5, 2, 1), (-7, 20, 3), (-20, -3, 5)])
def test_every_iteration_runs_once_in_order(factor, lo, hi, step):
    trace = np.full(65, -99, np.int32)
    acc = np.full(8, -99, np.int32)
    traced_loop[(1,)](trace, acc, lo, hi, STEP=step, F=factor)
    want = list(range(lo, hi, step))
    assert trace[64] == len(want)
    assert list(trace[:len(want)]) == want
    ref = np.arange(8, dtype=np.int64)
    for i in want:
        ref = (ref * 3 + i) & 0xFFFFFFFF
    assert np.array_equal(acc.astype(np.int64) & 0xFFFFFFFF, ref)


@triton.jit
def nested_unrolled(out, n, m):
    total = 0
    for i in tl.range(0, n, loop_unroll_factor=2):
        for j in tl.range(i, m, 2, loop_unroll_factor=3):
            total = total * 7 + i * 100 + j
    tl.store(out, total)


@pytest.mark.parametrize("n,m", [(5, 11), (4, 3), (0, 9), (7, 20)])
def test_nested_unrolled_loops(n, m):
    out = np.zeros(1, np.int64)
    nested_unrolled[(1,)](out, n, m)
    total = 0
    for i in range(n):
        for j in range(i, m, 2):
            total = (total * 7 + i * 100 + j) & 0xFFFFFFFF
    total = total - (1 << 32) if total >= 1 << 31 else total
    assert out[0] == total


def test_unrolled_loop_ir():
    # Two loops in the optimised IR: the unrolled one (three copies of the
    # store) and the one for the iterations left.
    import tessera.compiler as compiler
    k = compiler.compile(compiler.ASTSource(traced_loop, {"trace": "*i32", "acc_out": "*i32",
                                                          "lo": "i32", "hi": "i32",
                                                          "STEP": "constexpr", "F": "constexpr"},
                                            constexprs={"STEP": 1, "F": 3}))
    ttir = k.asm["ttir"]
    assert ttir.count(" for ") == 2 and "loop_unroll_factor" not in ttir
    assert ttir.count("store ") == 3 + 1 + 2


@triton.jit
def bad_factor(out, n):
    for i in tl.range(0, n, loop_unroll_factor=0):
        tl.store(out + i, i)


def test_factor_below_one_is_an_error():
    with pytest.raises(triton.CompilationError, match="loop_unroll_factor must be at least 1"):
        bad_factor[(1,)](np.zeros(4, np.int32), 4)
