"""for / while / if with loop-carried values, early return, static_range,
constexpr-if pruning, nested @jit calls."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tessera_testing as tt
from tessera_testing import assert_close, compile_kernel, poisoned, run

K = "control_flow.py"



@pytest.mark.parametrize("n", [0, 1, 7])
def test_for_loop_carried(n: int) -> None:
    out = poisoned(17, np.int32)
    run(compile_kernel(K, "for_loop_kernel", "*i32, i32, 16"), 1, out, n)
    offs = np.arange(16)
    assert_close(out[:16], (offs * n + n * (n - 1) // 2).astype(np.int32))
    assert out[16] == n


@pytest.mark.parametrize("lo,hi,step", [(0, 10, 1), (3, 20, 4), (5, 5, 1), (-7, 9, 3), (10, 2, 1)])
def test_range_runtime_bounds(lo: int, hi: int, step: int) -> None:
    out = poisoned(1, np.int32)
    run(compile_kernel(K, "range_step_kernel", "*i32, i32, i32, i32"), 1, out, lo, hi, step)
    assert out[0] == sum(range(lo, hi, step))


def test_tl_range() -> None:
    out = poisoned(1, np.int32)
    run(compile_kernel(K, "tl_range_kernel", "*i32, i32"), 1, out, 11)
    assert out[0] == 2 * sum(range(0, 11, 2))


def collatz_steps(v: int) -> int:
    s = 0
    while v != 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        s += 1
    return s


def test_while_loop(rng: np.random.Generator) -> None:
    x = rng.integers(1, 500, 40).astype(np.int32)
    x[0] = 1
    out = poisoned(40, np.int32)
    run(compile_kernel(K, "while_kernel", "*i32, *i32"), 40, x, out)
    assert_close(out, np.array([collatz_steps(int(v)) for v in x], np.int32))


def test_if_elif_else(rng: np.random.Generator) -> None:
    x = rng.integers(-20, 20, 64).astype(np.int32)
    out = poisoned(64, np.int32)
    run(compile_kernel(K, "if_else_kernel", "*i32, *i32"), 64, x, out)
    want = np.where(x > 0, x * 2, np.where(x < -5, -x, x - 100)).astype(np.int32)
    assert_close(out, want)


def test_early_return() -> None:
    out = np.zeros(10, np.int32)
    run(compile_kernel(K, "early_return_kernel", "*i32, i32"), 10, out, 6)
    assert_close(out, np.array([1, 2, 3, 4, 5, 6, 0, 0, 0, 0], np.int32))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_static_range(n: int) -> None:
    out = poisoned(8, np.int32)
    run(compile_kernel(K, "static_range_kernel", f"*i32, {n}"), 1, out)
    offs = np.arange(8)
    assert_close(out, (offs * sum(range(n)) + sum(range(1, 7, 3))).astype(np.int32))


def test_static_range_is_unrolled() -> None:
    ir = compile_kernel(K, "static_range_kernel", "*i32, 4").ir("ttir-initial")
    assert not re.search(r"= for ", ir), ir


def test_runtime_range_is_a_loop() -> None:
    ir = compile_kernel(K, "for_loop_kernel", "*i32, i32, 16").ir("ttir")
    assert re.search(r"= for ", ir), ir


@pytest.mark.parametrize("mode,fn", [(0, lambda x: x + 1), (1, lambda x: x * 3)])
def test_constexpr_if_pruning(rng: np.random.Generator, mode: int, fn) -> None:  # type: ignore[no-untyped-def]
    # The untaken branch names an undefined function: it must never be lowered.
    x = rng.standard_normal(16).astype(np.float32)
    out = poisoned(16, np.float32)
    run(compile_kernel(K, "constexpr_if_kernel", f"*fp32, *fp32, {mode}"), 1, x, out)
    assert_close(out, fn(x), rtol=0, atol=0)


def test_constexpr_if_taken_branch_errors() -> None:
    with pytest.raises(tt.CompilationError, match="this_name_does_not_exist"):
        compile_kernel(K, "constexpr_if_kernel", "*fp32, *fp32, 2", cache=False)


def test_nested_jit_calls(rng: np.random.Generator) -> None:
    x = rng.standard_normal(16).astype(np.float32)
    y = rng.standard_normal(16).astype(np.float32)
    out = poisoned(16, np.float32)
    out2 = poisoned(16, np.float32)
    run(compile_kernel(K, "nested_call_kernel", "*fp32, *fp32, *fp32, *fp32"), 1, x, y, out, out2)
    assert_close(out, ((x + np.float32(1)) + y) ** 2, np.float32, rtol=1e-6, atol=0)
    assert_close(out2, x * np.float32(2), rtol=0, atol=0)


@pytest.mark.parametrize("n", [0, 5, 30])
def test_break_continue(n: int) -> None:
    out = poisoned(1, np.int32)
    run(compile_kernel(K, "break_continue_kernel", "*i32, i32"), 1, out, n)
    assert out[0] == sum(i for i in range(min(n, 11)) if i % 2 == 1)


@pytest.mark.parametrize("flip", [False, True])
def test_conditional_expression(rng: np.random.Generator, flip: bool) -> None:
    x = rng.standard_normal(16).astype(np.float32)
    out = poisoned(16, np.float32)
    run(compile_kernel(K, "ternary_expr_kernel", f"*fp32, *fp32, {flip}"), 1, x, out)
    assert_close(out, -x if flip else x, rtol=0, atol=0)
