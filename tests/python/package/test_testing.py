"""tessera.testing: do_bench (host timing, the CUDA-event path through a fake
torch), assert_close, and perf_report / Benchmark tables, CSV and plots."""

from __future__ import annotations

import importlib
import os
import pathlib
import subprocess
import sys
import time
import types

import numpy as np
import pytest

PYDIR = pathlib.Path(__file__).resolve().parents[3] / "python"


def _import(name: str):
    """Imports `name`; while python/tessera/__init__.py cannot be imported yet
    (other modules of the package still being written), imports it through a
    bare `tessera` package, removed again afterwards."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        missing = e.name or ""
        if not missing.startswith("tessera.") or missing.startswith(
                ("tessera.language", "tessera.testing")):
            raise
        pkg = types.ModuleType("tessera")
        pkg.__path__ = [str(PYDIR / "tessera")]
        sys.modules["tessera"] = pkg
        try:
            return importlib.import_module(name)
        finally:  # other test files must still see the package's own import error
            if sys.modules.get("tessera") is pkg:
                del sys.modules["tessera"]


testing = _import("tessera.testing")


def _has(module: str) -> bool:
    try:
        importlib.import_module(module)
        return True
    except ImportError:
        return False


# ---------------------------------------------------------------------------- do_bench


def sleeper(ms=2.0):
    calls = []

    def fn():
        calls.append(1)
        time.sleep(ms / 1000)

    return fn, calls


def test_do_bench_measures_a_sleep():
    fn, calls = sleeper(2.0)
    t = testing.do_bench(fn, warmup=5, rep=40)
    assert isinstance(t, float)
    assert 1.9 <= t <= 10.0, t
    # once (compile) + 5 (estimate) + >= 1 warmup + about rep / 2 ms measured
    assert 8 <= len(calls) <= 1 + 5 + 5 + 25


def test_do_bench_slow_function_is_measured_by_its_estimate(monkeypatch):
    # A call longer than the whole budget (a kernel on the interpreter): the
    # first call, then calls until `rep` is filled, and those are the times.
    monkeypatch.setattr(testing, "_cuda_torch", lambda: None)
    fn, calls = sleeper(30.0)
    times = testing.do_bench(fn, warmup=5, rep=20, return_mode="all")
    assert len(calls) == 2 and len(times) == 1 and 29 <= times[0] < 300, (calls, times)
    fn, calls = sleeper(8.0)
    times = testing.do_bench(fn, warmup=5, rep=20, return_mode="all")
    # Calls until their times fill the 20 ms (three 8 ms sleeps; two where a
    # loaded machine stretches them): the last one fills it, the others not.
    assert len(calls) == 1 + len(times) and 2 <= len(times) <= 5, (calls, times)
    assert sum(times[:-1]) < 20 <= sum(times), times
    assert all(7.5 <= t < 100 for t in times), times
    fn, calls = sleeper(1.0)
    testing.do_bench(fn, warmup=0, rep=0)  # a zero budget still times one call
    assert len(calls) == 2


def test_do_bench_return_modes_and_quantiles(monkeypatch):
    fn, _ = sleeper(1.0)
    kw = dict(warmup=2, rep=15)
    # Each call measures afresh, so the statistics of different calls are not
    # ordered; check each against the times that call measured.
    measured = []
    host = testing._bench_host

    def recording(*args):
        measured.append(host(*args))
        return measured[-1]

    monkeypatch.setattr(testing, "_cuda_torch", lambda: None)  # the host timer, GPU or not
    monkeypatch.setattr(testing, "_bench_host", recording)
    lo = testing.do_bench(fn, return_mode="min", **kw)
    hi = testing.do_bench(fn, return_mode="max", **kw)
    med = testing.do_bench(fn, return_mode="median", **kw)
    assert lo == min(measured[0]) and hi == max(measured[1])
    assert min(measured[2]) <= med <= max(measured[2])
    assert 0.9 <= lo and 0.9 <= med <= 10
    times = testing.do_bench(fn, return_mode="all", **kw)
    assert isinstance(times, list) and len(times) >= 3 and all(0.9 <= x < 50 for x in times)
    qs = testing.do_bench(fn, quantiles=[0.5, 0.2, 0.8], **kw)
    assert isinstance(qs, list) and len(qs) == 3
    assert qs[1] <= qs[0] <= qs[2]
    one = testing.do_bench(fn, quantiles=[0.5], return_mode="max", **kw)  # quantiles win
    assert isinstance(one, float) and 0.9 <= one <= 10
    with pytest.raises(ValueError, match="return_mode"):
        testing.do_bench(fn, return_mode="average", **kw)
    with pytest.raises(ValueError, match="quantiles"):
        testing.do_bench(fn, quantiles=[1.5], **kw)


def test_do_bench_summaries_are_exact():
    times = [4.0, 1.0, 3.0, 2.0]
    s = testing._summarize
    assert s(times, None, "mean") == 2.5 and s(times, None, "min") == 1.0
    assert s(times, None, "max") == 4.0 and s(times, None, "median") == 2.5
    assert s(times, [0.0, 0.5, 1.0, 0.25], "mean") == [1.0, 2.5, 4.0, 1.75]
    assert s(times, None, "all") == times


def test_do_bench_fast_function_and_grad_to_none():
    class Leaf:
        grad = "stale"

    leaf = Leaf()
    seen = []

    def fn():
        seen.append(leaf.grad)
        leaf.grad = "new"

    t = testing.do_bench(fn, warmup=1, rep=2, grad_to_none=[leaf])
    assert 0 <= t < 1
    # every measured call (the last ones) found its grad reset
    assert seen[-1] is None
    assert testing.do_bench_cudagraph(fn, rep=2) >= 0


def _fake_torch(cuda_available: bool):
    """A stand-in for torch with a CUDA device: events read the host clock."""
    torch = types.ModuleType("torch")
    torch.int32 = "int32"
    zeroed = []

    class Event:
        def __init__(self, enable_timing=False):
            assert enable_timing
            self.t = None

        def record(self):
            self.t = time.perf_counter()

        def elapsed_time(self, end):
            return (end.t - self.t) * 1e3

    class Buffer:
        def __init__(self, n, dtype, device):
            assert device == "cuda" and n * 4 >= 256 * 1024 * 1024 - 4
            self.n = n

        def zero_(self):
            zeroed.append(1)

    class Cuda:
        @staticmethod
        def is_available():
            return cuda_available

        @staticmethod
        def synchronize():
            pass

    Cuda.Event = Event
    torch.cuda = Cuda
    torch.empty = lambda n, dtype, device: Buffer(n, dtype, device)
    return torch, zeroed


def test_do_bench_uses_cuda_events_when_torch_has_a_gpu(monkeypatch):
    torch, zeroed = _fake_torch(True)
    monkeypatch.setitem(sys.modules, "torch", torch)
    fn, calls = sleeper(1.0)
    t = testing.do_bench(fn, warmup=2, rep=10)
    assert 0.9 <= t <= 10
    n_measured = len(calls) - 1 - 5
    assert len(zeroed) >= 5 + 1 and len(zeroed) <= 5 + n_measured  # L2 flushed before runs


def test_do_bench_uses_the_host_clock_without_a_gpu(monkeypatch):
    torch, zeroed = _fake_torch(False)
    monkeypatch.setitem(sys.modules, "torch", torch)
    fn, _ = sleeper(1.0)
    assert 0.9 <= testing.do_bench(fn, warmup=2, rep=5) <= 10
    assert zeroed == []


# ---------------------------------------------------------------------------- assert_close


def test_assert_close_passes_and_fails():
    x = np.linspace(-1, 1, 100, dtype=np.float32)
    testing.assert_close(x, x.copy())
    testing.assert_close(x, x + 0.005)  # Triton's default atol=1e-2
    with pytest.raises(AssertionError, match="not close"):
        testing.assert_close(x, x + 0.05)
    testing.assert_close(x, x + 0.05, atol=0.1)
    with pytest.raises(AssertionError):
        testing.assert_close(x, x * 1.5, atol=0, rtol=0.1)
    testing.assert_close(x, x * 1.05, atol=0, rtol=0.1)


def test_assert_close_nan_handling():
    a = np.array([1.0, np.nan, 3.0])
    testing.assert_close(a, a.copy())  # NaN at the same place
    testing.assert_close(np.float64("nan"), float("nan"))
    with pytest.raises(AssertionError, match="NaN on one side only"):
        testing.assert_close(a, np.array([1.0, 2.0, 3.0]))
    with pytest.raises(AssertionError, match="NaN on one side only"):
        testing.assert_close(np.array([1.0, 2.0, 3.0]), a)
    with pytest.raises(AssertionError):
        testing.assert_close(np.array([np.nan, 2.0]), np.array([2.0, np.nan]))
    with pytest.raises(AssertionError):
        testing.assert_close(float("nan"), 1.0, atol=1e9)


def test_assert_close_infinities():
    testing.assert_close(np.array([np.inf, -np.inf]), np.array([np.inf, -np.inf]))
    with pytest.raises(AssertionError):
        testing.assert_close(np.array([np.inf]), np.array([-np.inf]), atol=1e30)
    with pytest.raises(AssertionError):
        testing.assert_close(np.array([np.inf]), np.array([1e300]), atol=1e30)


def test_assert_close_default_tolerances_by_dtype():
    big = np.array([1000.0, -2000.0])
    off = big * (1 + 5e-4)  # 0.05 % off: within fp16's rtol, not float32's atol
    testing.assert_close(big.astype(np.float16), off.astype(np.float16))
    with pytest.raises(AssertionError):
        testing.assert_close(big.astype(np.float32), off.astype(np.float32))
    # the less precise operand decides
    testing.assert_close(big.astype(np.float16), off)
    # integers compare exactly, also when huge
    testing.assert_close(np.array([2**62 + 1], np.int64), np.array([2**62 + 1], np.int64))
    with pytest.raises(AssertionError):
        testing.assert_close(np.array([2**62 + 1], np.int64), np.array([2**62], np.int64))
    with pytest.raises(AssertionError):
        testing.assert_close(np.array([1, 2, 3]), np.array([1, 2, 4]))
    testing.assert_close(np.array([True, False]), np.array([True, False]))
    # int vs float: the float's tolerance
    testing.assert_close(np.array([1, 2]), np.array([1.001, 2.0]))


@pytest.mark.skipif(not _has("ml_dtypes"), reason="ml_dtypes is not installed")
def test_assert_close_bfloat16():
    import ml_dtypes

    x = np.array([100.0, 3.0], dtype=ml_dtypes.bfloat16)
    testing.assert_close(x, np.array([100.5, 3.0]), atol=0)  # bf16 rtol 1.6e-2
    with pytest.raises(AssertionError):
        testing.assert_close(x.astype(np.float32), np.array([100.5, 3.0]), atol=0)


def test_assert_close_scalars_lists_shapes_and_messages():
    testing.assert_close(1.0, 1.001)
    testing.assert_close([1.0, 2.0], (1.0, 2.0))
    testing.assert_close(np.full((2, 3), 5.0), 5.0)  # a single value broadcasts
    testing.assert_close(np.array([[7]]), 7)
    with pytest.raises(AssertionError, match="shapes differ"):
        testing.assert_close(np.zeros(3), np.zeros(4))
    with pytest.raises(AssertionError) as info:
        testing.assert_close(np.zeros((4, 4)), np.eye(4), err_msg="layer 3")
    msg = str(info.value)
    assert msg.startswith("layer 3: ") and "4 of 16" in msg
    assert "greatest absolute difference: 1 at index (0, 0)" in msg


def test_assert_close_callable_tolerances():
    seen = []

    def atol(dtype):
        seen.append(dtype)
        return 0.5

    testing.assert_close(np.zeros(3, np.float32), np.full(3, 0.4), atol=atol, rtol=lambda d: 0.0)
    assert seen == [np.dtype(np.float32)]


# ---------------------------------------------------------------------------- perf_report


def _bench(plot_name="tiny-bench", x_names=("n",), x_vals=(1, 2, 4), styles=None):
    return testing.Benchmark(
        x_names=list(x_names), x_vals=list(x_vals), line_arg="provider",
        line_vals=["fast", "slow"], line_names=["Fast", "Slow"], plot_name=plot_name,
        args={"scale": 10}, xlabel="n", ylabel="ms", x_log=True, styles=styles)


def _make_report(bench, record=None):
    @testing.perf_report(bench)
    def report(n, provider, scale, extra=0, **rest):
        if record is not None:
            record.append((n, provider, scale, extra, rest))
        if provider == "fast":
            return float(n * scale + extra)
        return (n * scale * 2.0, n * scale * 1.5, n * scale * 2.5)  # (median, min, max)

    return report


def test_perf_report_prints_a_table(capsys):
    calls = []
    report = _make_report(_bench(), calls)
    assert isinstance(report, testing.Mark)
    report.run(print_data=True, extra=1)
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines[0] == "tiny-bench:"
    assert lines[1].split() == ["n", "Fast", "Slow"]
    assert lines[2].split() == ["0", "1", "11.000000", "20.000000"]
    assert lines[4].split() == ["2", "4", "41.000000", "80.000000"]
    assert len(calls) == 6 and calls[0] == (1, "fast", 10, 1, {})


def test_perf_report_returns_the_table_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    table = _make_report(_bench()).run(return_df=True)
    assert isinstance(table, testing.BenchmarkTable)
    assert table.columns == ["n", "Fast", "Slow", "Fast-min", "Slow-min", "Fast-max", "Slow-max"]
    assert table["n"] == [1, 2, 4]
    assert table["Fast"] == [10.0, 20.0, 40.0]
    assert table["Slow-min"] == [15.0, 30.0, 60.0] and table["Fast-max"] == [None] * 3
    assert len(table) == 3
    two = _make_report([_bench("a"), _bench("b")]).run(return_df=True)
    assert isinstance(two, list) and [len(t) for t in two] == [3, 3]
    diff = _make_report(_bench()).run(return_df=True, diff_col=True)
    assert diff["Diff"] == [10.0, 20.0, 40.0]


def test_perf_report_returns_dataframes():
    pd = pytest.importorskip("pandas")
    df = _make_report(_bench()).run(return_df=True)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["n", "Fast", "Slow"]  # Triton's: the x and mean columns
    assert df["n"].tolist() == [1, 2, 4]
    assert df["Fast"].tolist() == [10.0, 20.0, 40.0] and df["Slow"].tolist() == [20.0, 40.0, 80.0]
    two = _make_report([_bench("a"), _bench("b", x_names=("n", "m"), x_vals=[(1, 5), (2, 6)])]).run(
        return_df=True)
    assert [list(d.columns) for d in two] == [["n", "Fast", "Slow"], ["n", "m", "Fast", "Slow"]]
    assert two[1]["m"].tolist() == [5, 6]
    diff = _make_report(_bench()).run(return_df=True, diff_col=True)
    assert list(diff.columns) == ["n", "Fast", "Slow", "Diff"]
    assert diff["Diff"].tolist() == [10.0, 20.0, 40.0]
    table = testing.BenchmarkTable(["n", "Fast", "Fast-min"], [[1, 2.0, None]], ["n", "Fast"])
    missing = table.to_dataframe(["Fast-min"])["Fast-min"]
    assert missing.dtype.kind == "f" and missing.isna().all()


def test_perf_report_csv_quotes_and_gaps(tmp_path):
    import csv
    name = 'size, "n"'
    table = testing.BenchmarkTable([name, "Fast", "Fast-min"], [[1, 2.5, None], [2, 3.0, 1.0]],
                                   [name, "Fast", "Fast-min"])
    path = tmp_path / "t.csv"
    table.to_csv(path, precision=2)
    text = path.read_text()
    assert text.splitlines()[0] == '"size, ""n""",Fast,Fast-min' and "\r" not in text
    assert list(csv.reader(text.splitlines())) == [[name, "Fast", "Fast-min"],
                                                   ["1", "2.50", ""], ["2", "3.00", "1.00"]]


def test_perf_report_several_x_names(capsys):
    bench = _bench(x_names=("n", "m"), x_vals=[(1, 5), (2, 6)])

    @testing.perf_report(bench)
    def report(n, m, provider, scale):
        return float(n + m)

    table = report.run(print_data=True, return_df=True)
    assert list(table["m"]) == [5, 6] and list(table["Fast"]) == [6.0, 8.0]  # a DataFrame or a table
    assert capsys.readouterr().out.splitlines()[1].split() == ["n", "m", "Fast", "Slow"]
    bad = testing.perf_report(_bench(x_names=("n", "m"), x_vals=[(1, 2, 3)]))(report.fn)
    with pytest.raises(ValueError, match="x_names"):
        bad.run()


def test_perf_report_rejects_pairs():
    @testing.perf_report(_bench())
    def report(n, provider, scale):
        return (1.0, 2.0)

    with pytest.raises(ValueError, match=r"\(value, min, max\)"):
        report.run()


def test_perf_report_saves_csv_and_plot(tmp_path, capsys):
    out = tmp_path / "results"
    _make_report(_bench(styles=[("blue", "-"), ("red", "--")])).run(save_path=str(out))
    csv = (out / "tiny-bench.csv").read_text().splitlines()
    assert csv[0] == "n,Fast,Slow"
    assert csv[1] == "1,10.000000,20.000000"
    png = out / "tiny-bench.png"
    err = capsys.readouterr().err
    if _has("matplotlib"):
        assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert not png.exists()
        assert "matplotlib is not installed" in err and "tiny-bench" in err
        assert len(err.strip().splitlines()) == 1


def test_perf_report_without_plots_needs_no_matplotlib(capsys):
    _make_report(_bench()).run()
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------------------- import hygiene


def test_testing_imports_no_heavy_modules():
    probe = (
        "import sys, types\n"
        f"pkg = types.ModuleType('tessera'); pkg.__path__ = [{str(PYDIR / 'tessera')!r}]\n"
        "sys.modules['tessera'] = pkg\n"
        "import tessera.testing\n"
        "print(','.join(m for m in ('numpy', 'torch', 'matplotlib', 'pandas') if m in sys.modules))\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""
