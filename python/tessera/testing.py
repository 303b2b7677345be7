"""Benchmarking and checking helpers with the API of ``triton.testing``.

    ms = tessera.testing.do_bench(lambda: add(x, y))                  # mean, in ms
    lo, med, hi = tessera.testing.do_bench(fn, quantiles=[0.2, 0.5, 0.8])
    tessera.testing.assert_close(out, expected, atol=1e-3)

    @tessera.testing.perf_report(tessera.testing.Benchmark(
        x_names=["size"], x_vals=[2**i for i in range(12, 20)], line_arg="provider",
        line_vals=["tessera", "numpy"], line_names=["Tessera", "NumPy"],
        plot_name="vector-add", args={}, ylabel="GB/s"))
    def bench(size, provider): ...
    bench.run(print_data=True, save_path=".")

Timing: when PyTorch is already imported and CUDA is available, functions
are timed with CUDA events and the L2 cache is flushed before every run (a
256 MB buffer is zeroed), as Triton does; otherwise they are timed on the
host with ``time.perf_counter``, overwriting an 8 MB buffer before each run
to evict the CPU's private caches.

NumPy, PyTorch and matplotlib are imported only inside the functions that
need them.
"""

from __future__ import annotations

import os
import sys
import time

__all__ = ["Benchmark", "Mark", "BenchmarkTable", "assert_close", "do_bench", "do_bench_cudagraph",
           "perf_report"]

_RETURN_MODES = ("min", "max", "mean", "median", "all")


# ---------------------------------------------------------------------------- timing


def _cuda_torch():
    """torch, when it is already imported and has a CUDA device; else None."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        return torch if torch.cuda.is_available() else None
    except Exception:  # a broken or CPU-only build
        return None


_HOST_FLUSH_BYTES = 8 << 20


def _host_cache_flush():
    """A function that evicts the CPU's private caches between host-timed runs
    by overwriting an 8 MB buffer (a memcpy: about 0.3 ms)."""
    buf = memoryview(bytearray(_HOST_FLUSH_BYTES))
    src = bytes(_HOST_FLUSH_BYTES)

    def flush():
        buf[:] = src

    return flush


def _clear_grads(grad_to_none) -> None:
    if grad_to_none is not None:
        for x in grad_to_none:
            x.grad = None


def _run_counts(estimate_ms: float, warmup: float, rep: float):
    estimate_ms = max(estimate_ms, 1e-6)
    return max(1, int(warmup / estimate_ms)), max(1, int(rep / estimate_ms))


def _bench_host(fn, warmup, rep, grad_to_none):
    clock = time.perf_counter
    flush = _host_cache_flush()

    def timed():
        _clear_grads(grad_to_none)
        flush()
        t0 = clock()
        fn()
        return (clock() - t0) * 1e3

    fn()  # the first call may compile; it warms up too
    # The estimate takes five calls, or fewer where they fill `rep` already:
    # a kernel on the interpreter can run longer than the whole budget, and
    # then those calls are the measurement (an autotuner timing a dozen
    # configs on the CPU would otherwise run each of them eight times).
    estimate = []
    while len(estimate) < 5 and (not estimate or sum(estimate) < rep):
        estimate.append(timed())
    if sum(estimate) >= rep:
        return estimate
    n_warmup, n_repeat = _run_counts(sum(estimate) / len(estimate), warmup, rep)
    for _ in range(n_warmup):
        fn()
    return [timed() for _ in range(n_repeat)]


def _bench_cuda(torch, fn, warmup, rep, grad_to_none):
    cuda = torch.cuda
    fn()
    cuda.synchronize()
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    cuda.synchronize()
    n_warmup, n_repeat = _run_counts(start.elapsed_time(end) / 5, warmup, rep)
    starts = [cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        _clear_grads(grad_to_none)
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def _quantile(sorted_times, q: float) -> float:
    """Linear interpolation between the closest ranks (torch.quantile's default)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantiles must lie in [0, 1], got {q}")
    pos = q * (len(sorted_times) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_times) - 1)
    return sorted_times[lo] + (sorted_times[hi] - sorted_times[lo]) * (pos - lo)


def _summarize(times, quantiles, return_mode):
    if quantiles is not None:
        s = sorted(times)
        qs = [_quantile(s, float(q)) for q in quantiles]
        return qs[0] if len(qs) == 1 else qs
    if return_mode == "all":
        return list(times)
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "mean":
        return sum(times) / len(times)
    return _quantile(sorted(times), 0.5)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Runtime of ``fn()`` in milliseconds.

    ``fn`` is called once (compilation), five times to estimate its runtime,
    then ``warmup`` milliseconds' worth of unmeasured calls and ``rep``
    milliseconds' worth of measured ones (at least one of each). On the host
    clock (no GPU) the estimate stops as soon as its calls fill ``rep``, and
    then they are the measured calls: a kernel on the interpreter that runs
    longer than the budget is called twice, not eight times. The caches
    are flushed before every measured call; ``grad_to_none`` lists tensors
    whose ``.grad`` is reset to None before each call.

    Returns the ``quantiles`` of the measured times (a list, or a float for a
    single quantile) when given, else their statistic named by
    ``return_mode``: "mean", "median", "min", "max" or "all" (the list).
    """
    if return_mode not in _RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(_RETURN_MODES)}, got {return_mode!r}")
    torch = _cuda_torch()
    if torch is not None:
        times = _bench_cuda(torch, fn, warmup, rep, grad_to_none)
    else:
        times = _bench_host(fn, warmup, rep, grad_to_none)
    return _summarize(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Triton's CUDA-graph benchmark; here the same measurement as do_bench
    (with ``rep`` milliseconds of measured runs)."""
    return do_bench(fn, rep=rep, grad_to_none=grad_to_none, quantiles=quantiles,
                    return_mode=return_mode)


# ---------------------------------------------------------------------------- assert_close

# Default (atol, rtol) by the least precise dtype of the two operands. Floats
# keep Triton's atol=1e-2 and widen rtol for short mantissas; integers are exact.
_TOLERANCES = {
    "int": (0.0, 0.0),
    "fp8e5": (1e-2, 2.5e-1),
    "fp8e4": (1e-2, 1.25e-1),
    "bf16": (1e-2, 1.6e-2),
    "fp16": (1e-2, 1e-3),
    "fp32": (1e-2, 0.0),
    "fp64": (1e-2, 0.0),
}
_PRECISION_ORDER = ("fp8e5", "fp8e4", "bf16", "fp16", "fp32", "fp64", "int")
_FLOAT_NAMES = {
    "float8_e5m2": "fp8e5", "float8e5": "fp8e5", "fp8e5": "fp8e5", "float8_e5m2fnuz": "fp8e5",
    "float8_e4m3fn": "fp8e4", "float8e4nv": "fp8e4", "fp8e4nv": "fp8e4", "float8_e4m3fnuz": "fp8e4",
    "float8_e4m3": "fp8e4", "float8_e4m3b11fnuz": "fp8e4",
    "bfloat16": "bf16", "bf16": "bf16",
    "float16": "fp16", "half": "fp16", "fp16": "fp16",
    "float32": "fp32", "float": "fp32", "fp32": "fp32",
    "float64": "fp64", "double": "fp64", "fp64": "fp64", "longdouble": "fp64", "float128": "fp64",
}


def _to_numpy(v):
    """(NumPy array, tolerance class, original dtype) of a tensor, array or scalar."""
    import numpy as np

    mod = type(v).__module__ or ""
    if mod.startswith("torch") and hasattr(v, "detach"):
        t = v.detach()
        name = str(t.dtype).replace("torch.", "")
        if t.is_floating_point():
            t = t.double()
        arr = t.cpu().numpy()
        dt = v.dtype
    else:
        if mod.startswith("cupy") and hasattr(v, "get"):
            v = v.get()
        if isinstance(v, float):
            arr, name = np.asarray(v, dtype=np.float64), "float64"
        else:
            arr = np.asarray(v)
            name = arr.dtype.name
        dt = getattr(v, "dtype", arr.dtype)
    if arr.dtype.kind in "biu":
        kind = "int"
    elif name in _FLOAT_NAMES:
        kind = _FLOAT_NAMES[name]
    elif arr.dtype.kind == "f" or arr.dtype.kind == "V" or name.startswith("float"):
        kind = "fp32"
    else:
        raise TypeError(f"assert_close: cannot compare values of type {type(v).__name__} "
                        f"(dtype {name})")
    return arr, kind, dt


def _fmt_index(idx) -> str:
    return "(" + ", ".join(str(int(i)) for i in idx) + ")" if len(idx) != 1 else f"({int(idx[0])},)"


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Asserts ``|x - y| <= atol + rtol * |y|`` element-wise.

    ``x`` and ``y`` are NumPy arrays (ml_dtypes types included), PyTorch
    tensors (any device), CuPy arrays, sequences or scalars; they are compared
    in float64 (integers and bools exactly in their own type). The shapes must
    be equal, or one side a single value. NaN equals NaN at the same position
    and is a mismatch anywhere else; infinities must match exactly.

    ``atol`` and ``rtol`` are numbers or functions of ``x``'s dtype. Their
    defaults depend on the less precise of the two dtypes: Triton's atol=1e-2
    for every float type, with rtol 0 for float32/float64, 1e-3 for float16,
    1.6e-2 for bfloat16, 0.125 for float8e4 and 0.25 for float8e5; 0 and 0
    (exact) for integers and bools. ``err_msg`` starts the failure message.
    """
    import numpy as np

    xa, xk, xdt = _to_numpy(x)
    ya, yk, _ = _to_numpy(y)
    kind = min(xk, yk, key=_PRECISION_ORDER.index)  # int vs float: the float's
    d_atol, d_rtol = _TOLERANCES[kind]
    atol = d_atol if atol is None else (atol(xdt) if callable(atol) else atol)
    rtol = d_rtol if rtol is None else (rtol(xdt) if callable(rtol) else rtol)
    prefix = f"{err_msg}: " if err_msg else ""

    if xa.shape != ya.shape:
        if xa.size == 1:
            xa = np.broadcast_to(xa.reshape(()), ya.shape)
        elif ya.size == 1:
            ya = np.broadcast_to(ya.reshape(()), xa.shape)
        else:
            raise AssertionError(f"{prefix}shapes differ: {xa.shape} vs {ya.shape}")
    shape = xa.shape

    if xk == "int" and yk == "int" and atol == 0 and rtol == 0:
        bad = xa != ya
        xf = yf = None
    else:
        xf = xa.astype(np.float64)
        yf = ya.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(xf - yf)
            bad = ~((diff <= atol + rtol * np.abs(yf)) | (xf == yf) | (np.isnan(xf) & np.isnan(yf)))
    n_bad = int(np.count_nonzero(bad))
    if n_bad == 0:
        return

    total = bad.size
    lines = [f"{prefix}values are not close: {n_bad} of {total} element(s) differ "
             f"({100.0 * n_bad / total:.3g}%) with atol={atol}, rtol={rtol}"]
    if xf is None:
        xf = xa.astype(np.float64)
        yf = ya.astype(np.float64)
    nan_x, nan_y = np.isnan(xf), np.isnan(yf)
    nan_only = (nan_x ^ nan_y) & bad
    if nan_only.any():
        i = tuple(np.argwhere(nan_only)[0])
        lines.append(f"  NaN on one side only at {int(np.count_nonzero(nan_only))} position(s), "
                     f"first at index {_fmt_index(i)}: x={xf[i]!r}, y={yf[i]!r}")
    finite = bad & ~nan_x & ~nan_y
    if finite.any():
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            adiff = np.where(finite, np.abs(xf - yf), -np.inf)
            adiff = np.where(np.isnan(adiff), np.inf, adiff)  # inf - inf
            rdiff = np.where(finite, np.abs(xf - yf) / np.abs(yf), -np.inf)
            rdiff = np.where(np.isnan(rdiff), np.inf, rdiff)
        i = np.unravel_index(int(np.argmax(adiff)), shape) if shape else ()
        lines.append(f"  greatest absolute difference: {float(adiff[i]):.6g} at index "
                     f"{_fmt_index(i)} (x={float(xf[i]):.8g}, y={float(yf[i]):.8g})")
        j = np.unravel_index(int(np.argmax(rdiff)), shape) if shape else ()
        lines.append(f"  greatest relative difference: {float(rdiff[j]):.6g} at index "
                     f"{_fmt_index(j)} (x={float(xf[j]):.8g}, y={float(yf[j]):.8g})")
    first = np.argwhere(bad)[:5]
    shown = ", ".join(f"{_fmt_index(tuple(k))}: {float(xf[tuple(k)]):.8g} vs "
                      f"{float(yf[tuple(k)]):.8g}" for k in first)
    lines.append(f"  first mismatches: {shown}")
    raise AssertionError("\n".join(lines))


# ---------------------------------------------------------------------------- perf_report


class Benchmark:
    """One benchmark grid for perf_report: the function is called with each
    x value (``x_names`` bound to an entry of ``x_vals``: a value shared by
    all names, or a tuple with one value per name), for each line
    (``line_arg`` bound to each of ``line_vals``, labelled ``line_names``),
    plus the fixed keyword ``args``. ``plot_name`` names the printout and the
    saved files; ``xlabel``/``ylabel``/``x_log``/``y_log`` shape the plot and
    ``styles`` is a list of (color, linestyle) pairs, one per line."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args,
                 xlabel="", ylabel="", x_log=False, y_log=False, styles=None):
        self.x_names = list(x_names)
        self.x_vals = list(x_vals)
        self.line_arg = line_arg
        self.line_vals = list(line_vals)
        self.line_names = list(line_names)
        self.plot_name = plot_name
        self.args = dict(args) if args else {}
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_log = x_log
        self.y_log = y_log
        self.styles = styles
        if len(self.line_names) != len(self.line_vals):
            raise ValueError(f"Benchmark '{plot_name}': {len(self.line_vals)} line_vals but "
                             f"{len(self.line_names)} line_names")


class BenchmarkTable:
    """The results of one Benchmark: ``columns`` (x names, line names, then
    '<line>-min' and '<line>-max') and ``rows`` (lists of values; None where a
    function returned no min/max). ``table[column]`` is that column as a list;
    ``str(table)`` formats the x and mean columns as a text table."""

    def __init__(self, columns, rows, shown):
        self.columns = list(columns)
        self.rows = [list(r) for r in rows]
        self.shown = list(shown)

    def __getitem__(self, column):
        k = self.columns.index(column)
        return [r[k] for r in self.rows]

    def __len__(self) -> int:
        return len(self.rows)

    def to_string(self, columns=None, precision=6) -> str:
        cols = list(columns or self.shown)
        idx = [self.columns.index(c) for c in cols]

        def fmt(v):
            if v is None:
                return "NaN"
            if isinstance(v, float):
                return f"{v:.{precision}f}"
            return str(v)

        cells = [[""] + [str(c) for c in cols]]
        for n, r in enumerate(self.rows):
            cells.append([str(n)] + [fmt(r[k]) for k in idx])
        widths = [max(len(row[k]) for row in cells) for k in range(len(cells[0]))]
        return "\n".join("  ".join(c.rjust(w) for c, w in zip(row, widths)).rstrip()
                         for row in cells)

    def to_csv(self, path, columns=None, precision=6) -> None:
        """Writes the columns (default: the x and mean columns) as CSV, as
        pandas' to_csv(index=False, float_format=...) would: floats with
        `precision` decimals, missing values empty."""
        import csv
        cols = list(columns or self.shown)
        idx = [self.columns.index(c) for c in cols]

        def fmt(v):
            if v is None:
                return ""
            if isinstance(v, float):
                return f"{v:.{precision}f}"
            return str(v)

        with open(path, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow([str(c) for c in cols])
            w.writerows([fmt(r[k]) for k in idx] for r in self.rows)

    def to_dataframe(self, columns=None):
        """The columns (default: the x and mean columns, as Triton returns)
        as a pandas DataFrame, missing values NaN. Needs pandas."""
        import pandas as pd
        cols = list(columns or self.shown)
        idx = [self.columns.index(c) for c in cols]
        nan = float("nan")
        return pd.DataFrame([[nan if r[k] is None else r[k] for k in idx] for r in self.rows],
                            columns=cols)

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"<BenchmarkTable {len(self.rows)} rows x {len(self.columns)} columns>"


def _plot(bench: Benchmark, table: BenchmarkTable, show_plots: bool, save_path: str) -> None:
    try:
        if show_plots:
            import matplotlib.pyplot as plt
            fig = plt.figure()
        else:
            from matplotlib.figure import Figure  # no GUI backend needed to save
            fig = Figure()
    except ImportError:
        print(f"tessera.testing: matplotlib is not installed; skipping the plot '{bench.plot_name}'",
              file=sys.stderr)
        return
    ax = fig.add_subplot(111)
    first_x = bench.x_names[0]
    xs = table[first_x]
    for i, name in enumerate(bench.line_names):
        kw = {}
        if bench.styles:
            color, style = bench.styles[i]
            kw = {"color": color, "ls": style}
        ys = [float("nan") if v is None else v for v in table[name]]
        ax.plot(xs, ys, label=name, **kw)
        lo, hi = table[f"{name}-min"], table[f"{name}-max"]
        if all(v is not None for v in lo + hi):
            ax.fill_between(xs, lo, hi, alpha=0.15, color=kw.get("color"))
    ax.legend()
    ax.set_xlabel(bench.xlabel or first_x)
    ax.set_ylabel(bench.ylabel)
    ax.set_title(bench.plot_name)
    ax.set_xscale("log" if bench.x_log else "linear")
    ax.set_yscale("log" if bench.y_log else "linear")
    if save_path:
        fig.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
    if show_plots:
        import matplotlib.pyplot as plt
        plt.show()
        plt.close(fig)


class Mark:
    """A function decorated by perf_report; ``run`` evaluates it over its
    benchmarks' grids."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run(self, bench: Benchmark, save_path, show_plots, print_data, diff_col=False,
             save_precision=6, **kwargs) -> BenchmarkTable:
        rows = []
        for x in bench.x_vals:
            xv = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            if len(xv) != len(bench.x_names):
                raise ValueError(f"Benchmark '{bench.plot_name}': x value {x!r} has {len(xv)} "
                                 f"entries for {len(bench.x_names)} x_names")
            x_args = dict(zip(bench.x_names, xv))
            means, mins, maxs = [], [], []
            for y in bench.line_vals:
                ret = self.fn(**x_args, **{bench.line_arg: y}, **bench.args, **kwargs)
                if isinstance(ret, (tuple, list)):
                    if len(ret) != 3:
                        raise ValueError(f"Benchmark '{bench.plot_name}': the function returned "
                                         f"{len(ret)} values; return a number or "
                                         f"(value, min, max)")
                    mean, lo, hi = ret
                else:
                    mean, lo, hi = ret, None, None
                means.append(mean)
                mins.append(lo)
                maxs.append(hi)
            rows.append(xv + means + mins + maxs)
        columns = (bench.x_names + bench.line_names + [f"{n}-min" for n in bench.line_names]
                   + [f"{n}-max" for n in bench.line_names])
        shown = bench.x_names + bench.line_names
        if diff_col and len(bench.line_names) == 2:
            a, b = bench.line_names
            columns.append("Diff")
            ka, kb = columns.index(a), columns.index(b)
            for r in rows:
                r.append(None if r[ka] is None or r[kb] is None else r[kb] - r[ka])
            shown.append("Diff")
        table = BenchmarkTable(columns, rows, shown)
        if show_plots or save_path:
            _plot(bench, table, show_plots, save_path)
        if print_data:
            print(bench.plot_name + ":")
            print(table.to_string(precision=save_precision))
        if save_path:
            table.to_csv(os.path.join(save_path, f"{bench.plot_name}.csv"), precision=save_precision)
        return table

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Evaluates the function over every benchmark's grid; prints the
        tables when ``print_data``, shows the plots when ``show_plots`` and
        writes '<plot_name>.csv' and '<plot_name>.png' under ``save_path``
        (plots need matplotlib). Extra keyword arguments go to the function
        (``diff_col`` and ``save_precision`` are options of the table). With
        ``return_df`` returns, as Triton does, a pandas DataFrame of the x and
        mean columns (plus 'Diff') when pandas is importable, else the
        BenchmarkTable; a list of them for several benchmarks."""
        single = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if single else list(self.benchmarks)
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        tables = [self._run(b, save_path, show_plots, print_data, **kwargs) for b in benchmarks]
        if return_df:
            try:
                import pandas  # noqa: F401
            except ImportError:
                pass
            else:
                tables = [t.to_dataframe() for t in tables]
            return tables[0] if single else tables
        return None


def perf_report(benchmarks):
    """Decorator: ``@perf_report(Benchmark(...))`` (or a list of Benchmarks)
    turns a function returning a number, or a (value, min, max) tuple, into a
    Mark whose ``run()`` tabulates and plots it."""

    def wrapper(fn):
        return Mark(fn, benchmarks)

    return wrapper
