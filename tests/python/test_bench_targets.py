"""bench/targets.py: which bounds apply to which benchmark row, and the report
that ends a bench/gpu.py run (no GPU needed)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))

import targets  # noqa: E402


def test_matmul_bounds_follow_the_rows():
    assert targets.matmul_bounds("fp16", 4096, 4096, 4096) == [("triton", ">=", 1.0),
                                                              ("cublas", ">=", 0.95)]
    assert targets.matmul_bounds("bf16", 8192, 8192, 8192) == [("triton", ">=", 1.0),
                                                              ("cublas", ">=", 0.95)]
    assert targets.matmul_bounds("fp8", 8192, 8192, 8192) == [("triton", ">=", 1.0)]
    assert targets.matmul_bounds("fp16", 16, 8192, 8192) == []      # skinny: no target
    assert targets.matmul_bounds("fp16", 4000, 4000, 4000) == []    # ragged: no target
    # The mma.sync path on a Hopper GPU: cuBLAS only, fp16 4096^3 only.
    assert targets.matmul_bounds("fp16", 4096, 4096, 4096, "sm_80") == [("cublas", ">=", 0.6)]
    assert targets.matmul_bounds("bf16", 4096, 4096, 4096, "sm_80") == []
    assert targets.matmul_bounds("fp16", 4096, 4096, 4096, "sm_90a") == \
        targets.matmul_bounds("fp16", 4096, 4096, 4096)


def test_attention_bounds():
    full128 = targets.attention_bounds(128, causal=False)
    assert ("sdpa", ">=", 1.0) in full128 and ("fa3", ">=", 0.95) in full128
    assert targets.attention_bounds(128, causal=True) == [("triton", ">=", 1.0)]
    assert targets.attention_bounds(64, causal=False) == [("triton", ">=", 1.0)]
    assert targets.attention_bounds(128, causal=False, backward=True) == [("triton", ">=", 1.0)]


def test_report_counts_and_lists_missed_first():
    t = targets.Targets()
    assert t.report() == []
    t.check("matmul fp16 4096", {"triton": targets.ratio(600.0, 550.0),
                                 "cublas": targets.ratio(600.0, 640.0)},
            targets.matmul_bounds("fp16", 4096, 4096, 4096))
    t.check("attention fwd D 128", {"triton": None, "sdpa": targets.ratio(0, 570.0),
                                    "fa3": targets.ratio(610.0, targets.FA3_PUBLISHED_TFLOPS)},
            targets.attention_bounds(128, causal=False))
    t.check("cold compile", {"ms": 20.3}, [("ms", "<=", 50.0)])
    t.check("cold compile, slow", {"ms": 51.0}, [("ms", "<=", 50.0)])
    lines = t.report()
    # met: triton 1.09 >= 1.0, fa3 0.953 >= 0.95, cold 20.3 <= 50;
    # missed: cublas 0.9375, triton and sdpa not measured, 51 ms
    assert lines[0] == "targets: 3 met, 4 missed", lines
    verdicts = [line.split()[0] for line in lines[1:]]
    assert verdicts == ["missed"] * 4 + ["met"] * 3, lines
    assert any("cublas 0.938 (target >= 0.95)" in line for line in lines), lines
    assert sum("not measured" in line for line in lines) == 2, lines
    assert any(line.startswith("  met") and "fa3 0.953" in line for line in lines), lines
