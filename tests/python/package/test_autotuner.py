"""@autotune, Config and @heuristics (tessera.runtime.autotuner) with Triton's
semantics, over a fake kernel with JITFunction's interface whose "launch"
runs a Python body; a few tests at the end use the real @jit."""
import inspect
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from tessera.runtime import autotuner as at
from tessera.runtime.autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from tessera.runtime.errors import (AutotunerError, CompilationError, KernelError, OutOfResources,
                                    TesseraError)

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.abspath(os.path.join(HERE, "..", "..", "..", "python"))

OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


class FakeKernel:
    """JITFunction's interface; `run` binds the arguments like the real one
    (launch options apart) and calls the Python function as the kernel body."""

    def __init__(self, fn, cache_key="0123abcd" * 5):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.arg_names = list(inspect.signature(fn).parameters)
        self.cache_key = cache_key
        self.launches = []  # (bound arguments, options) of every real run
        self.warmups = []

    def run(self, *args, grid, warmup=False, **kwargs):
        options = {k: kwargs.pop(k) for k in OPTIONS if k in kwargs}
        bound = inspect.signature(self.fn).bind(*args, **kwargs)  # TypeError like the real binder
        bound.apply_defaults()
        if warmup:
            self.warmups.append((dict(bound.arguments), options))
            return ("compiled", dict(bound.arguments), options)
        if callable(grid):
            grid = grid(dict(bound.arguments))
        self.launches.append((dict(bound.arguments), options, grid))
        self.fn(**bound.arguments)
        return "launched"

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)

    def warmup(self, *args, grid, **kwargs):
        return self.run(*args, grid=grid, warmup=True, **kwargs)


def fake_jit(fn):
    return FakeKernel(fn)


class CostBench:
    """A do_bench that runs the call once and reports the cost the kernel body
    recorded: deterministic and instant."""

    def __init__(self):
        self.calls = 0
        self.cost = None

    def __call__(self, fn, quantiles=None):
        self.calls += 1
        self.cost = None
        fn()
        assert quantiles == (0.5, 0.2, 0.8)
        return [self.cost, self.cost * 0.9, self.cost * 1.1]


def min_of_3(fn, quantiles=None):
    """A quick real timer for sleep-based bodies (min is robust to load)."""
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return min(times)


CONFIGS = [Config({"BLOCK": 32}), Config({"BLOCK": 64}, num_warps=8), Config({"BLOCK": 128}, num_stages=2)]


def make_kernel(costs=None, bench=None, configs=CONFIGS, key=("n",), **kw):
    """An autotuned fake kernel body(x, n, BLOCK) whose cost is costs[BLOCK]."""
    bench = bench or CostBench()
    costs = costs or {32: 3.0, 64: 1.0, 128: 2.0}

    def body(x, n, BLOCK):
        bench.cost = costs[BLOCK]

    k = autotune(configs, key=list(key), do_bench=bench, **kw)(fake_jit(body))
    return k, bench


# ---------------------------------------------------------------------------- Config


def test_config_fields_and_all_kwargs():
    c = Config({"BLOCK_SIZE": 128})
    assert c.kwargs == {"BLOCK_SIZE": 128}
    assert (c.num_warps, c.num_stages, c.num_ctas, c.maxnreg, c.pre_hook) == (4, 3, 1, None, None)
    assert c.all_kwargs() == {"BLOCK_SIZE": 128, "num_warps": 4, "num_ctas": 1, "num_stages": 3}
    c2 = Config({"A": 1, "B": "x"}, num_warps=8, num_stages=1, num_ctas=2, maxnreg=128)
    assert c2.all_kwargs() == {"A": 1, "B": "x", "num_warps": 8, "num_ctas": 2, "num_stages": 1,
                               "maxnreg": 128}
    assert Config({}, num_warps=None).all_kwargs() == {"num_ctas": 1, "num_stages": 3}
    assert Config(None).kwargs == {}


def test_config_str_like_triton():
    assert str(Config({"BLOCK_SIZE": 128})) == \
        "BLOCK_SIZE: 128, num_warps: 4, num_ctas: 1, num_stages: 3, maxnreg: None"
    assert str(Config({"M": 64, "N": 32}, num_warps=8, maxnreg=96)) == \
        "M: 64, N: 32, num_warps: 8, num_ctas: 1, num_stages: 3, maxnreg: 96"
    assert "Config({'M': 64}" in repr(Config({"M": 64}))


def test_config_equality_and_hash():
    assert Config({"A": 1}) == Config({"A": 1})
    assert hash(Config({"A": 1, "B": 2})) == hash(Config({"B": 2, "A": 1}))
    assert Config({"A": 1}) != Config({"A": 2})
    assert Config({"A": 1}) != Config({"A": 1}, num_warps=8)
    assert len({Config({"A": 1}), Config({"A": 1}), Config({"A": 2})}) == 2


# ---------------------------------------------------------------------------- choosing


def test_picks_the_fastest_config_with_real_timing():
    def body(x, n, BLOCK):
        time.sleep(0.001 if BLOCK == 64 else 0.008)

    k = autotune([Config({"BLOCK": 32}), Config({"BLOCK": 64}), Config({"BLOCK": 128})], key=["n"],
                 do_bench=min_of_3)(fake_jit(body))
    assert k[(1,)](None, 10) == "launched"
    assert k.best_config.kwargs == {"BLOCK": 64}
    assert k.cache[(10,)] is k.best_config
    assert set(k.configs_timings) == set(k.configs)
    t = {c.kwargs["BLOCK"]: v[0] for c, v in k.configs_timings.items()}
    assert t[64] < t[32] and t[64] < t[128]
    assert k.bench_time > 0
    # The real launch after tuning used the best config.
    args, options, grid = k.fn.launches[-1]
    assert args["BLOCK"] == 64 and options == {"num_warps": 4, "num_ctas": 1, "num_stages": 3}
    assert grid == (1,)


@pytest.mark.parametrize("use_cuda_graph", [False, True])
def test_default_benchmarker_is_tessera_testing(use_cuda_graph):
    def body(x, n, BLOCK):
        time.sleep(0.001 if BLOCK == 128 else 0.008)

    k = autotune([Config({"BLOCK": 32}), Config({"BLOCK": 128})], key=["n"], warmup=1, rep=10,
                 use_cuda_graph=use_cuda_graph)(fake_jit(body))
    k[(1,)](None, 3)
    assert k.best_config.kwargs == {"BLOCK": 128}
    timings = list(k.configs_timings.values())
    assert all(len(t) == 3 for t in timings)  # median, p20, p80


def test_host_fallback_timer():
    def slow():
        time.sleep(0.004)

    med = at._host_bench(slow, warmup=1, rep=20)
    assert 3.5 < med < 40
    qs = at._host_bench(slow, warmup=1, rep=20, quantiles=(0.5, 0.2, 0.8))
    assert qs[1] <= qs[0] <= qs[2]


def test_do_bench_without_quantiles_parameter():
    seen = []

    def plain_bench(fn):
        fn()
        seen.append(1)
        return 5.0

    k, _ = make_kernel(bench=None)
    k.user_do_bench = plain_bench
    k[(1,)](None, 1)
    assert len(seen) == 3
    assert all(t == [5.0] for t in k.configs_timings.values())


def test_new_key_retunes_same_key_does_not():
    k, bench = make_kernel()
    k[(1,)](None, 100)
    assert bench.calls == 3 and k.best_config.kwargs["BLOCK"] == 64
    k[(1,)](None, 100)
    k[(1,)](None, n=100)  # keyword or positional: same key
    k[(1,)](None, np.int64(100))  # NumPy integers key like ints
    assert bench.calls == 3
    assert len(k.fn.launches) == 3 + 4
    k[(1,)](None, 101)
    assert bench.calls == 6
    assert set(k.cache) == {(100,), (101,)}


def test_key_includes_dtypes_of_all_arguments():
    k, bench = make_kernel()
    a32 = np.zeros(4, np.float32)
    a64 = np.zeros(4, np.float64)
    k[(1,)](a32, 8)
    k[(1,)](np.ones(9, np.float32), 8)  # same dtype, other array: no retuning
    assert bench.calls == 3
    k[(1,)](a64, 8)
    assert bench.calls == 6
    assert set(k.cache) == {(8, "float32"), (8, "float64")}


def test_key_dtypes_of_arrays_not_of_scalars(tmp_path):
    # What each kind of argument adds to the key, decided once per type:
    # arrays (0-d ndarrays too) their dtype; Python and NumPy scalars, and
    # 0-d arrays of NumPy's ndarray subclasses (a memmap of one element),
    # nothing beyond a key argument's value.
    k, _ = make_kernel()
    key = lambda x, n: k.tuning_key(k._bind((x, n), {}))  # noqa: E731
    assert key(np.zeros(3, np.float16), 8) == (8, "float16")
    assert key(np.array(1.5, np.float32), 8) == (8, "float32")  # a 0-d ndarray is an array
    assert key(np.float32(1.5), 8) == (8,) and key(2.5, 8) == (8,) and key(None, 8) == (8,)
    assert key(np.int64(3), np.int64(8)) == (8,)
    mm1 = np.memmap(tmp_path / "a", dtype=np.int32, mode="w+", shape=(2,))
    mm0 = np.memmap(tmp_path / "b", dtype=np.int32, mode="w+", shape=())
    for _ in range(2):  # the per-type decision, then the cached one
        assert key(mm1, 8) == (8, "int32")
        assert key(mm0, 8) == (8,)
        assert key(np.zeros(2, np.uint8), 8) == (8, "uint8")

    class WithDtype:  # any object with a dtype keys on it
        dtype = "custom"
    assert key(WithDtype(), 8) == (8, "custom")


def test_key_uses_defaults_and_tolerates_unhashable():
    def body(x, n, BLOCK, mode="a"):
        bench.cost = {32: 2.0, 64: 1.0}[BLOCK]

    bench = CostBench()
    k = autotune([Config({"BLOCK": 32}), Config({"BLOCK": 64})], key=["mode", "n"], do_bench=bench)(
        fake_jit(body))
    k[(1,)](None, 4)
    k[(1,)](None, 4, mode="a")
    assert bench.calls == 2
    k[(1,)](None, [1, 2])  # an unhashable key value still keys
    assert bench.calls == 4


def test_one_config_is_not_benchmarked():
    k, bench = make_kernel(configs=[Config({"BLOCK": 128})])
    k[(1,)](None, 1)
    assert bench.calls == 0
    assert k.best_config.kwargs == {"BLOCK": 128}


def test_no_configs_means_one_empty_config():
    calls = []
    k = autotune([], key=["n"])(fake_jit(lambda n: calls.append(n)))
    k[(1,)](5)
    assert calls == [5] and k.best_config.kwargs == {}


def test_callable_grid_sees_the_config():
    seen = []
    k, _ = make_kernel()
    k[lambda meta: seen.append(meta["BLOCK"]) or (meta["n"] // meta["BLOCK"],)](None, 1024)
    assert seen[-1] == 64
    assert k.fn.launches[-1][2] == (16,)


# ---------------------------------------------------------------------------- pruning


def test_early_config_prune():
    got = {}

    def prune(configs, named_args, **kwargs):
        # As in Triton: the arguments given by position, then the keywords.
        got["named_args"] = dict(named_args)
        got["kwargs"] = kwargs
        return [c for c in configs if c.kwargs["BLOCK"] <= {**named_args, **kwargs}["n"]]

    k, bench = make_kernel(prune_configs_by={"early_config_prune": prune})
    k[(1,)](None, 40)
    assert bench.calls == 1 and k.best_config.kwargs["BLOCK"] == 32
    assert got["named_args"]["n"] == 40 and "x" in got["named_args"]
    assert "grid" not in got["kwargs"] and "warmup" not in got["kwargs"]
    k[(1,)](None, n=100)
    assert bench.calls == 1 + 2 and k.best_config.kwargs["BLOCK"] == 64
    assert got["kwargs"] == {"n": 100} and got["named_args"] == {"x": None}

    empty, _ = make_kernel(prune_configs_by={"early_config_prune": lambda c, a, **k: []})
    with pytest.raises(AutotunerError) as info:  # Triton's error, word for word
        empty[(1,)](None, 1)
    assert isinstance(info.value, TesseraError)  # triton.TritonError
    assert str(info.value) == ("Autotuner error: No valid autotuner configs after pruning. "
                               "`early_config_prune` should return at least one config.")


@pytest.mark.parametrize("top_k,expect_timed", [(1, [128]), (2, [128, 64]), (0.34, [128]), (0.67, [128, 64]),
                                                (5, [32, 64, 128])])
def test_perf_model_top_k(top_k, expect_timed):
    seen = []

    def perf_model(x, n, BLOCK, num_warps, num_stages, num_ctas, **rest):
        seen.append((n, BLOCK, num_warps))
        return 1.0 / BLOCK  # predicts bigger blocks are faster

    timed = []
    bench = CostBench()
    costs = {32: 3.0, 64: 1.0, 128: 2.0}

    def body(x, n, BLOCK):
        timed.append(BLOCK)
        bench.cost = costs[BLOCK]

    k = autotune(CONFIGS, key=["n"], do_bench=bench,
                 prune_configs_by={"perf_model": perf_model, "top_k": top_k})(fake_jit(body))
    k[(1,)](None, 7)
    assert timed[:-1] == expect_timed  # the last run is the real launch
    assert k.best_config.kwargs["BLOCK"] == min(expect_timed, key=costs.get)
    if len(expect_timed) < 3:
        assert sorted(seen) == [(7, 32, 4), (7, 64, 8), (7, 128, 4)]


def test_perf_model_default_top_k_and_bad_top_k():
    k, bench = make_kernel(prune_configs_by={"perf_model": lambda **kw: kw["BLOCK"]})
    k[(1,)](None, 1)
    assert bench.calls == 3  # top_k defaults to 10
    bad, _ = make_kernel(prune_configs_by={"perf_model": lambda **kw: 0, "top_k": "2"})
    with pytest.raises(TypeError):
        bad[(1,)](None, 1)
    with pytest.raises(ValueError):
        make_kernel(prune_configs_by={"perf_modle": lambda **kw: 0})


# ---------------------------------------------------------------------------- hooks and in-place arguments


def test_reset_to_zero_on_numpy_arrays():
    bench = CostBench()

    def body(acc, n, BLOCK):  # accumulates like an atomic_add kernel
        acc += 1
        bench.cost = {32: 2.0, 64: 1.0, 128: 3.0}[BLOCK]

    k = autotune(CONFIGS, key=["n"], reset_to_zero=["acc"], do_bench=bench)(fake_jit(body))
    acc = np.zeros(5, np.float32)
    k[(1,)](acc, 5)
    assert bench.calls == 3
    np.testing.assert_array_equal(acc, np.ones(5))  # benchmark runs left no trace
    k[(1,)](acc, 5)  # a tuned key: no reset, like Triton
    np.testing.assert_array_equal(acc, np.full(5, 2))


def test_restore_value_on_numpy_arrays():
    bench = CostBench()
    runs = []

    def body(x, n, BLOCK):  # in place: x *= 2
        runs.append(x.copy())
        x *= 2
        bench.cost = {32: 2.0, 64: 1.0, 128: 3.0}[BLOCK]

    k = autotune(CONFIGS, key=["n"], restore_value=["x"], do_bench=bench)(fake_jit(body))
    x = np.arange(6, dtype=np.float64)
    k[(1,)](x, 6)
    np.testing.assert_array_equal(x, np.arange(6) * 2)  # doubled exactly once
    for seen in runs:  # every timed run and the real one started from the original values
        np.testing.assert_array_equal(seen, np.arange(6))


def test_restore_value_after_a_failing_config():
    bench = CostBench()

    def body(x, n, BLOCK):
        x[:] = -1
        if BLOCK == 32:
            raise CompilationError("BLOCK 32 does not fit")
        bench.cost = float(BLOCK)

    k = autotune(CONFIGS, key=["n"], restore_value=["x"], do_bench=bench)(fake_jit(body))
    x = np.arange(3.0)
    with pytest.raises(Exception):
        body(x.copy(), 0, 32)
    k[(1,)](x, 3)
    assert k.best_config.kwargs["BLOCK"] == 64
    np.testing.assert_array_equal(x, [-1, -1, -1])  # from the real launch only


def test_reset_and_restore_use_torch_style_methods():
    class T:
        def __init__(self, v):
            self.v = list(v)
            self.dtype = "t"

        def zero_(self):
            self.v = [0] * len(self.v)

        def clone(self):
            return T(self.v)

        def copy_(self, other):
            self.v = list(other.v)

    bench = CostBench()

    def body(acc, out, n, BLOCK):
        acc.v = [a + 1 for a in acc.v]
        out.v = [o * 10 for o in out.v]
        bench.cost = {32: 2.0, 64: 1.0, 128: 3.0}[BLOCK]

    k = autotune(CONFIGS, key=["n"], reset_to_zero=["acc"], restore_value=["out"], do_bench=bench)(
        fake_jit(body))
    acc, out = T([5, 5]), T([1, 2])
    k[(1,)](acc, out, 2)
    assert acc.v == [1, 1] and out.v == [10, 20]


def test_hooks_are_called_like_triton():
    events = []
    bench = CostBench()

    def body(x, n, BLOCK):
        events.append(("run", BLOCK))
        bench.cost = {32: 2.0, 64: 1.0, 128: 3.0}[BLOCK]

    def pre(args):
        events.append(("pre", args["BLOCK"], args["n"], args["num_warps"]))

    def post(args, exception):
        events.append(("post", args["BLOCK"], exception))

    def config_pre(args):
        events.append(("config_pre", args["BLOCK"]))

    configs = [Config({"BLOCK": 32}), Config({"BLOCK": 64}, pre_hook=config_pre), Config({"BLOCK": 128})]
    k = autotune(configs, key=["n"], pre_hook=pre, post_hook=post, do_bench=bench)(fake_jit(body))
    k[(1,)](None, 9)
    assert events == [
        ("pre", 32, 9, 4), ("run", 32), ("post", 32, None),
        ("config_pre", 64), ("pre", 64, 9, 4), ("run", 64), ("post", 64, None),
        ("pre", 128, 9, 4), ("run", 128), ("post", 128, None),
        ("config_pre", 64), ("run", 64),  # the real launch: only the config's hook
    ]
    events.clear()
    k[(1,)](None, 9)
    assert events == [("config_pre", 64), ("run", 64)]


def test_post_hook_sees_the_exception():
    got = []
    bench = CostBench()

    def body(x, n, BLOCK):
        if BLOCK == 128:
            raise OutOfResources(1 << 20, 1 << 16, "shared memory")
        bench.cost = float(BLOCK)

    k = autotune(CONFIGS, key=["n"], post_hook=lambda a, exception: got.append(exception),
                 do_bench=bench)(fake_jit(body))
    k[(1,)](None, 1)
    assert got[0] is None and got[1] is None and isinstance(got[2], OutOfResources)
    assert k.best_config.kwargs["BLOCK"] == 32
    assert k.configs_timings[CONFIGS[2]][0] == float("inf")


# ---------------------------------------------------------------------------- errors


def test_conflicting_meta_parameters():
    k, _ = make_kernel()
    k[(1,)](None, 1)  # fine: checked once for this calling pattern
    k[(1,)](None, 1)
    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
        k[(1,)](None, 1, BLOCK=64)
    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
        k[(1,)](None, 1, 64)
    with pytest.raises(ValueError, match="Conflicting meta-parameters: num_warps"):
        k[(1,)](None, 1, num_warps=2)
    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
        k[(1,)](None, 1, BLOCK=64)  # the same pattern again: still refused
    single = autotune([Config({"BLOCK": 8})], key=["n"])(fake_jit(lambda x, n, BLOCK: None))
    with pytest.raises(ValueError, match="Conflicting meta-parameters"):
        single[(1,)](None, 1, BLOCK=8)


def test_invalid_configs_are_skipped_and_all_failing_raises_the_first():
    bench = CostBench()

    def body(x, n, BLOCK):
        if BLOCK != 128:
            raise CompilationError(f"block {BLOCK} is invalid")
        bench.cost = 1.0

    k = autotune(CONFIGS, key=["n"], do_bench=bench)(fake_jit(body))
    k[(1,)](None, 1)
    assert k.best_config.kwargs["BLOCK"] == 128

    def always(x, n, BLOCK):
        raise CompilationError(f"block {BLOCK} is invalid")

    bad = autotune(CONFIGS, key=["n"], do_bench=CostBench())(fake_jit(always))
    with pytest.raises(CompilationError, match="block 32 is invalid"):
        bad[(1,)](None, 1)
    assert bad.cache == {}


@pytest.mark.parametrize("error", [KernelError("out of bounds"), RuntimeError("boom"), TypeError("bad arg")])
def test_other_errors_propagate(error):
    def body(x, n, BLOCK):
        if BLOCK == 64:
            raise error

    k = autotune(CONFIGS, key=["n"], do_bench=min_of_3)(fake_jit(body))
    with pytest.raises(type(error)):
        k[(1,)](None, 1)


def test_decorator_argument_checks():
    kern = fake_jit(lambda x, n, BLOCK: None)
    with pytest.raises(ValueError, match="no parameter 'm'"):
        autotune(CONFIGS, key=["m"])(kern)
    with pytest.raises(ValueError, match="reset_to_zero"):
        autotune(CONFIGS, key=["n"], reset_to_zero=["y"])(kern)
    with pytest.raises(ValueError, match="restore_value"):
        autotune(CONFIGS, key=["n"], restore_value=["y"])(kern)
    with pytest.raises(TypeError):
        autotune([{"BLOCK": 1}], key=["n"])(kern)
    with pytest.raises(TypeError, match="above @jit"):
        autotune(CONFIGS, key=["n"])(lambda x: x)
    with pytest.raises(TypeError, match="above @jit"):
        heuristics({"BLOCK": lambda a: 1})(lambda x: x)
    assert autotune(CONFIGS, key="n")(kern).keys == ["n"]


# ---------------------------------------------------------------------------- printing


@pytest.mark.parametrize("var", ["TESSERA_PRINT_AUTOTUNING", "TRITON_PRINT_AUTOTUNING"])
def test_print_autotuning(monkeypatch, capsys, var):
    monkeypatch.delenv("TESSERA_PRINT_AUTOTUNING", raising=False)
    monkeypatch.delenv("TRITON_PRINT_AUTOTUNING", raising=False)
    k, _ = make_kernel()
    k[(1,)](None, 1)
    assert "autotuning" not in capsys.readouterr().out
    monkeypatch.setenv(var, "1")
    k[(1,)](None, 2)
    out = capsys.readouterr().out
    assert "Tessera autotuning for function body finished after " in out
    assert "best config selected: BLOCK: 64, num_warps: 8, num_ctas: 1, num_stages: 3, maxnreg: None;" in out
    k[(1,)](None, 2)  # cached: silent
    assert capsys.readouterr().out == ""


# ---------------------------------------------------------------------------- the disk cache


@pytest.fixture
def disk(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TESSERA_CACHE_DISABLE", raising=False)
    monkeypatch.delenv("TESSERA_CACHE_AUTOTUNING", raising=False)
    monkeypatch.delenv("TRITON_CACHE_AUTOTUNING", raising=False)
    return tmp_path / "cache" / "autotune"


def entries(d):
    return [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs]


def test_cache_results_round_trip(disk):
    k1, b1 = make_kernel(cache_results=True)
    k1[(1,)](np.zeros(2, np.float32), 50)
    assert b1.calls == 3 and len(entries(disk)) == 1
    timings = {str(c): t for c, t in k1.configs_timings.items()}

    k2, b2 = make_kernel(cache_results=True)  # a fresh autotuner, as in another process
    k2[(1,)](np.zeros(2, np.float32), 50)
    assert b2.calls == 0
    assert k2.best_config == k1.best_config and k2.best_config is k2.configs[1]
    assert {str(c): t for c, t in k2.configs_timings.items()} == timings
    assert k2.fn.launches[-1][0]["BLOCK"] == 64

    k2[(1,)](np.zeros(2, np.float64), 50)  # another key: timed
    assert b2.calls == 3 and len(entries(disk)) == 2


def test_listener_hears_each_tuning_and_disk_hit(disk):
    from tessera import knobs
    heard = []

    def listener(*, fn, key, best_config, configs_timings, duration, cache_hit):
        heard.append((key, best_config, len(configs_timings), duration, cache_hit))

    with knobs.autotuning.scope():
        knobs.autotuning.listener = listener
        k1, _ = make_kernel(cache_results=True)
        k1[(1,)](None, 50)
        k1[(1,)](None, 50)  # tuned before in this process: not heard
        [(key, best, n, duration, hit)] = heard
        assert best is k1.best_config and best.kwargs["BLOCK"] == 64 and n == 3
        assert duration > 0 and not hit
        k2, b2 = make_kernel(cache_results=True)  # another process, as it were: the disk answers
        k2[(1,)](None, 50)
        assert b2.calls == 0 and heard[-1][0] == key and heard[-1][3:] == (None, True)
        one, _ = make_kernel(configs=CONFIGS[:1])
        one[(1,)](None, 50)  # a single config is not tuned
        assert len(heard) == 2
    assert knobs.autotuning.listener is None


def test_cache_results_key_parts(disk):
    k1, _ = make_kernel(cache_results=True)
    k1[(1,)](None, 50)
    # Another kernel source, other configs or caching off: timed again.
    k2, b2 = make_kernel(cache_results=True)
    k2.fn.cache_key = "ffff" * 10
    k2[(1,)](None, 50)
    assert b2.calls == 3
    k3, b3 = make_kernel(cache_results=True, configs=CONFIGS[:2])
    k3[(1,)](None, 50)
    assert b3.calls == 2
    k4, b4 = make_kernel(cache_results=False)
    k4[(1,)](None, 50)
    assert b4.calls == 3


def test_cache_results_env_switch_and_disable(disk, monkeypatch):
    monkeypatch.setenv("TESSERA_CACHE_AUTOTUNING", "1")
    k1, _ = make_kernel()
    k1[(1,)](None, 50)
    assert len(entries(disk)) == 1
    k2, b2 = make_kernel()
    k2[(1,)](None, 50)
    assert b2.calls == 0
    monkeypatch.setenv("TESSERA_CACHE_DISABLE", "1")
    k3, b3 = make_kernel(cache_results=True)
    k3[(1,)](None, 50)
    assert b3.calls == 3


@pytest.mark.parametrize("damage", ["flip", "truncate", "bad_json", "bad_index"])
def test_corrupt_cached_result_is_retuned(disk, damage):
    from tessera.runtime import cache
    k1, _ = make_kernel(cache_results=True)
    k1[(1,)](None, 50)
    [path] = entries(disk)
    key = os.path.basename(path)
    data = open(path, "rb").read()
    if damage == "flip":
        data = data[:-10] + bytes([data[-10] ^ 1]) + data[-9:]
        open(path, "wb").write(data)
    elif damage == "truncate":
        open(path, "wb").write(data[: len(data) // 2])
    else:  # valid frame, bad content: the loader must not trust it
        payload = json.loads(cache.unframe(key, data))
        if damage == "bad_json":
            cache.autotune_cache().put_checked(key, b"{not json")
        else:
            payload["best"] = 99
            cache.autotune_cache().put_checked(key, json.dumps(payload).encode())
    k2, b2 = make_kernel(cache_results=True)
    k2[(1,)](None, 50)
    assert b2.calls == 3 and k2.best_config.kwargs["BLOCK"] == 64
    k3, b3 = make_kernel(cache_results=True)  # rewritten by k2
    k3[(1,)](None, 50)
    assert b3.calls == 0


def test_cache_results_print_on_disk_hit(disk, monkeypatch, capsys):
    k1, _ = make_kernel(cache_results=True)
    k1[(1,)](None, 50)
    monkeypatch.setenv("TESSERA_PRINT_AUTOTUNING", "1")
    k2, _ = make_kernel(cache_results=True)
    k2[(1,)](None, 50)
    assert "Tessera autotuning for function body: best config loaded from the disk cache" in \
        capsys.readouterr().out


PROCESS = r'''
import json, sys, time
sys.path.insert(0, {pydir!r})
from tessera.runtime.autotuner import Config, autotune


class Kernel:
    arg_names = ["x", "n", "BLOCK"]
    cache_key = "5eed" * 10

    def fn(x, n, BLOCK):
        pass

    def run(self, *args, grid, warmup=False, **kwargs):
        time.sleep(0.001 if kwargs["BLOCK"] == 16 else 0.008)

    def warmup(self, *args, grid, **kwargs):
        pass


timed = []


def bench(fn, quantiles=None):
    timed.append(1)
    t = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t) * 1e3


k = autotune([Config({{"BLOCK": 8}}), Config({{"BLOCK": 16}}), Config({{"BLOCK": 32}})], key=["n"],
             do_bench=bench, cache_results=True)(Kernel())
k.run(None, 77, grid=(1,))
print(json.dumps({{"timed": len(timed), "best": k.best_config.kwargs["BLOCK"]}}))
'''


def test_cache_results_across_processes(tmp_path):
    env = dict(os.environ, TESSERA_CACHE_DIR=str(tmp_path / "c"))
    env.pop("TESSERA_CACHE_DISABLE", None)
    code = PROCESS.format(pydir=PYDIR)
    outs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        outs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert outs[0] == {"timed": 3, "best": 16}
    assert outs[1] == {"timed": 0, "best": 16}


# ---------------------------------------------------------------------------- heuristics and stacking


def test_heuristics_compute_values_from_arguments():
    seen = []

    @heuristics({"BLOCK": lambda a: 1 << (a["n"] - 1).bit_length(),
                 "EVEN": lambda a: a["n"] % a["BLOCK"] == 0,  # sees the value computed before it
                 "SCALE": lambda a: a["scale"] * 2})
    @fake_jit
    def body(x, n, BLOCK, EVEN, SCALE, scale=3):
        seen.append((n, BLOCK, EVEN, SCALE))

    assert isinstance(body, Heuristics)
    body[(1,)](None, 100)
    body[(1,)](None, n=64, scale=5)
    body.run(None, 3, grid=(1,), num_warps=2)
    assert seen == [(100, 128, False, 6), (64, 64, True, 10), (3, 4, False, 6)]
    assert body.fn.launches[-1][1] == {"num_warps": 2}
    w = body.warmup(None, 10, grid=(1,))
    assert w[0] == "compiled" and w[1]["BLOCK"] == 16


def test_autotune_over_heuristics_over_jit():
    bench = CostBench()
    seen = []

    @autotune([Config({"BLOCK": 32}), Config({"BLOCK": 64})], key=["n"], do_bench=bench)
    @heuristics({"EVEN": lambda a: a["n"] % a["BLOCK"] == 0})
    @fake_jit
    def kern(x, n, BLOCK, EVEN):
        """docstring"""
        seen.append((BLOCK, EVEN))
        bench.cost = {32: 1.0, 64: 2.0}[BLOCK]

    assert isinstance(kern, Autotuner) and isinstance(kern.fn, Heuristics)
    assert kern.arg_names == ["x", "n", "BLOCK", "EVEN"] == kern.fn.arg_names
    assert kern.__name__ == "kern" and kern.__doc__ == "docstring" and kern.__module__ == __name__
    assert kern.cache_key == kern.fn.cache_key == kern.fn.fn.cache_key
    assert kern.base_fn is kern.fn.fn.fn
    kern[(1,)](None, 96)
    assert seen == [(32, True), (64, False), (32, True)]
    assert kern.best_config.kwargs == {"BLOCK": 32}
    compiled = kern.warmup(None, 96, grid=(1,))
    assert [c[1]["BLOCK"] for c in compiled] == [32, 64]
    assert [c[1]["EVEN"] for c in compiled] == [True, False]


def test_heuristics_over_autotune():
    bench = CostBench()
    seen = []

    @heuristics({"EVEN": lambda a: a["n"] % 2 == 0})
    @autotune([Config({"BLOCK": 32}), Config({"BLOCK": 64})], key=["n", "EVEN"], do_bench=bench)
    @fake_jit
    def kern(x, n, BLOCK, EVEN):
        seen.append((BLOCK, EVEN))
        bench.cost = {32: 2.0, 64: 1.0}[BLOCK]

    kern[(1,)](None, 7)
    assert seen[-1] == (64, False)
    assert list(kern.fn.cache) == [(7, False)]
    assert kern.cache_key == kern.fn.fn.cache_key
    with pytest.raises(RuntimeError, match="launch it as"):
        kern(None, 7)


def test_run_with_warmup_true_only_compiles():
    k, bench = make_kernel()
    out = k.run(None, 5, grid=(1,), warmup=True)
    assert bench.calls == 0 and len(out) == 3 and k.fn.launches == []
    assert [w[0]["BLOCK"] for w in k.fn.warmups] == [32, 64, 128]
    assert [w[1]["num_warps"] for w in k.fn.warmups] == [4, 8, 4]


def test_import_stays_light():
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {PYDIR!r})
        import tessera.runtime.autotuner
        print([m for m in ("numpy", "torch", "json", "inspect") if m in sys.modules])
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "numpy" not in r.stdout and "torch" not in r.stdout


# ---------------------------------------------------------------------------- with the real @jit


def _real_jit_or_skip():
    try:
        import tessera
        from tessera.runtime import jit as jit_module
        jit_module._ext()
    except Exception as e:  # the extension is not built
        pytest.skip(f"the Tessera extension is not available: {e}")
    return tessera


def test_with_real_jit(disk):
    triton = _real_jit_or_skip()
    import tessera.language as tl

    timed = []

    def bench(f, quantiles=None):  # the first config of each key "takes" 2 ms, the second 1 ms
        f()
        timed.append(1)
        return 2.0 if len(timed) % 2 else 1.0

    @triton.autotune([triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 128}, num_warps=2)],
                     key=["n"], do_bench=bench, cache_results=True, reset_to_zero=["out_ptr"])
    @triton.heuristics({"EVEN": lambda a: a["n"] % a["BLOCK"] == 0})
    @triton.jit
    def add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)

    for n in (100, 256):
        x = np.arange(n, dtype=np.float32)
        out = np.full(n, np.nan, dtype=np.float32)
        add_one[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
        np.testing.assert_array_equal(out, x + 1)
        assert add_one.best_config.kwargs == {"BLOCK": 128}
    assert len(entries(disk)) == 2
    assert isinstance(add_one.cache_key, str) and add_one.cache_key == add_one.fn.fn.cache_key


def test_positional_launches_reuse_the_checked_config(monkeypatch):
    # kernel[grid](*args) goes through run() until its key is tuned and its
    # calling pattern checked, then launches the config directly; keyword
    # calls, new keys, conflicts and configs with a pre_hook keep run().
    triton = _real_jit_or_skip()
    import tessera.language as tl

    def first_config_fastest(f, quantiles=None):
        f()
        first_config_fastest.calls += 1
        return 1.0 if first_config_fastest.calls % 2 else 2.0
    first_config_fastest.calls = 0

    def make(first):
        @triton.autotune([first, triton.Config({"BLOCK": 64})], key=["n"],
                         do_bench=first_config_fastest)
        @triton.jit
        def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)
        return double

    runs, seen_nargs = [], []
    real_run = Autotuner.run
    monkeypatch.setattr(Autotuner, "run", lambda self, *a, **k: (runs.append(1), real_run(self, *a, **k))[1])
    double = make(triton.Config({"BLOCK": 32}))
    real_getitem = type(double.fn).__getitem__

    def spy(self, grid):  # the direct launch still shows nargs while it launches
        seen_nargs.append(double.nargs)
        return real_getitem(self, grid)
    monkeypatch.setattr(type(double.fn), "__getitem__", spy)

    def launch(kernel, n, keyword=False):
        x = np.arange(n, dtype=np.float32)
        out = np.full(n, np.nan, dtype=np.float32)
        before = len(runs)
        if keyword:
            kernel[(triton.cdiv(n, 32),)](x, out, n=n)
        else:
            kernel[(triton.cdiv(n, 32),)](x, out, n)
        np.testing.assert_array_equal(out, 2 * x)
        return len(runs) > before

    for n, through_run in ((100, True), (100, False), (100, False), (37, True), (37, False)):
        assert launch(double, n) == through_run, n
        assert double.best_config.kwargs == {"BLOCK": 32} and double.nargs is None
    assert seen_nargs[-1]["n"] == 37
    assert launch(double, 37, keyword=True) and launch(double, 37, keyword=True)  # run()
    x = np.arange(10, dtype=np.float32)
    for _ in range(2):  # a conflict raises at every call
        with pytest.raises(ValueError, match="Conflicting meta-parameters"):
            double[(1,)](x, np.zeros_like(x), 10, 32)

    hooked = []
    with_hook = make(triton.Config({"BLOCK": 32}, pre_hook=lambda a: hooked.append(a["n"])))
    for _ in range(3):  # its pre_hook runs at every launch, through run()
        assert launch(with_hook, 50)
    assert hooked[-3:] == [50, 50, 50]


def test_launch_memo_follows_keys_dtypes_and_cache_changes(monkeypatch):
    # A tuned positional launch finds its config by a token of the arguments
    # (no binding, no tuning key). The token must still tell keys and dtypes
    # apart, and a config set in .cache by hand must win at the next launch.
    triton = _real_jit_or_skip()
    import tessera.language as tl

    @triton.autotune([triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})], key=["n"],
                     do_bench=lambda f, quantiles=None: (f(), next(order))[1])
    @triton.jit
    def kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)

    keys = []
    real_key = Autotuner.tuning_key
    monkeypatch.setattr(Autotuner, "tuning_key", lambda self, b: (keys.append(1), real_key(self, b))[1])

    def launch(n, dtype=np.float32):
        x = np.random.default_rng(n).standard_normal(n).astype(dtype)
        out = np.full(n, np.nan, dtype=dtype)
        before = len(keys)
        kernel[(triton.cdiv(n, 32),)](x, out, n)
        np.testing.assert_array_equal(out, x + 1)
        return len(keys) > before, kernel.best_config.kwargs["BLOCK"]

    order = iter([1.0, 2.0] * 8)  # each tuning: BLOCK 32 first, then 64
    assert launch(100) == (True, 32)  # tunes, and makes the memo entry
    assert launch(100) == (False, 32) and launch(100) == (False, 32)  # memo
    order = iter([2.0, 1.0] * 8)  # a new key's tuning picks BLOCK 64
    assert launch(37) == (True, 64) and launch(37) == (False, 64)
    assert launch(100) == (False, 32)  # each key keeps its own config
    assert launch(100, np.float64) == (True, 64)  # a new dtype is a new key
    assert launch(100, np.float64) == (False, 64)
    assert launch(100) == (False, 32)
    # A config pinned by hand for a tuned key takes over at once.
    (key,) = [k for k in kernel.cache if k[0] == 100 and "float32" in k]
    kernel.cache[key] = kernel.configs[1]
    assert launch(100) == (True, 64) and launch(100) == (False, 64)
    kernel.cache.pop(key)  # forgotten: tuned again
    order = iter([1.0, 2.0] * 8)
    assert launch(100) == (True, 32)
    # A plain dict in place of .cache: launches read it through run() and the key.
    kernel.cache = {key: kernel.configs[1]}
    assert launch(100) == (True, 64) and launch(100) == (True, 64)


def test_tuned_launcher_fast_path_keeps_nargs_errors_and_hooks():
    # Launches the memo knows run in C++ (TunedLauncher): a grid function
    # still reads kernel.nargs, its error still propagates (and nargs is
    # cleared after), and launch hooks still see every launch.
    triton = _real_jit_or_skip()
    import tessera.language as tl

    @triton.autotune([triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})], key=["n"],
                     do_bench=lambda f, quantiles=None: (f(), 1.0)[1])
    @triton.jit
    def kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3, mask=mask)

    seen, fail = [], []

    def grid(meta):
        seen.append(kernel.nargs["n"])
        if fail:
            raise ValueError("grid says no")
        return (triton.cdiv(seen[-1], meta["BLOCK"]),)

    x = np.random.default_rng(5).standard_normal(100).astype(np.float32)
    for n in (100, 100, 100):
        out = np.full(100, np.nan, dtype=np.float32)
        kernel[grid](x, out, n)
        np.testing.assert_array_equal(out, 3 * x)
    assert type(kernel[grid]).__name__ == "TunedLauncher"
    assert seen[-1] == 100 and kernel.nargs is None
    fail.append(1)
    for _ in range(2):  # a launch from the memo: the grid's error, then nargs cleared
        with pytest.raises(ValueError, match="grid says no"):
            kernel[grid](x, np.zeros_like(x), 100)
        assert kernel.nargs is None and seen[-1] == 100
    fail.clear()

    hooked = []
    with triton.knobs.runtime.scope():
        triton.knobs.runtime.launch_enter_hook = lambda meta: hooked.append(meta.data["name"])
        for _ in range(2):
            kernel[grid](x, np.zeros_like(x), 100)
    assert len(hooked) == 2 and all(name.startswith("kernel") for name in hooked)
    out = np.full(100, np.nan, dtype=np.float32)
    kernel[grid](x, out, 100)  # hooks gone: the fast path again
    np.testing.assert_array_equal(out, 3 * x)


def test_tuned_launcher_declines_what_it_does_not_know():
    # NumPy-scalar keys go to the Python path (their tokens are not made);
    # an emptied memo fills again.
    triton = _real_jit_or_skip()
    import tessera.language as tl

    @triton.autotune([triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})], key=["n"],
                     do_bench=lambda f, quantiles=None: (f(), 1.0)[1])
    @triton.jit
    def kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) - 1, mask=mask)

    x = np.random.default_rng(9).standard_normal(70).astype(np.float32)

    def launch(n):
        out = np.full(70, np.nan, dtype=np.float32)
        kernel[(triton.cdiv(int(n), 32),)](x, out, n)
        np.testing.assert_array_equal(out[:int(n)], x[:int(n)] - 1)

    for n in (70, 70, np.int64(70), np.int64(70), np.int32(50), 50):
        launch(n)
    memo = kernel.cache.memo
    assert memo and all(len(token[0]) == 1 and type(token[0][0]) is int for token in memo)
    memo.clear()
    launch(70)
    assert any(type(v) is tuple and len(v) == 3 for v in memo.values())


# ---------------------------------------------------------------------------- progress on stderr

PROGRESS = '''
import sys, time
sys.path.insert(0, {pydir!r})
from tessera.runtime.autotuner import Config, autotune

class Kernel:
    arg_names = ["x", "n", "BLOCK"]
    cache_key = "progress"
    def fn(self): pass
    def run(self, *args, grid, warmup=False, **kwargs): pass
    def warmup(self, *args, grid, **kwargs): pass

TIMES = iter([3.0, 2.0, 5.0, 1.0, 4.0])

def bench(fn, quantiles=None):
    fn()
    time.sleep({sleep})
    return [next(TIMES)] * 3

k = autotune([Config({{"BLOCK": b}}) for b in (16, 32, 64, 128, 256)], key=["n"], do_bench=bench)(Kernel())
k.run(None, 7, grid=(1,))
print("best", k.best_config.kwargs["BLOCK"])
'''


def run_tuning(sleep, env_print=False, tty=True, columns=0):
    """Runs PROGRESS in a child whose stderr is a pseudo-terminal (`columns`
    wide; 0: the size unset) or a pipe; returns (stdout, stderr)."""
    import fcntl
    import pty
    import select
    import struct
    import termios
    env = dict(os.environ)
    env.pop("TESSERA_PRINT_AUTOTUNING", None)
    env.pop("TRITON_PRINT_AUTOTUNING", None)
    if env_print:
        env["TESSERA_PRINT_AUTOTUNING"] = "1"
    code = PROGRESS.format(pydir=PYDIR, sleep=sleep)
    if not tty:
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout, r.stderr
    master, slave = pty.openpty()
    if columns:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(master)
    out = proc.stdout.read().decode()
    assert proc.wait(timeout=60) == 0
    return out, b"".join(chunks).decode()


def test_progress_in_a_terminal():
    out, err = run_tuning(sleep=0.35)
    assert out.strip().endswith("best 128")
    # Redrawn in place: carriage returns, erase to the end of the line, one final newline.
    assert "\r" in err and "\x1b[K" in err and err.endswith("\n")
    final = err.rstrip("\r\n").split("\r")[-1]
    assert final.startswith("Tessera autotuning ") and "5/5 configs" in final
    assert "best so far 1.0000 ms with BLOCK: 128" in final
    assert "Tessera autotuning for function" not in err  # the summary needs TESSERA_PRINT_AUTOTUNING


def test_progress_fits_the_terminal():
    _, err = run_tuning(sleep=0.35, columns=50)
    lines = [part.replace("\x1b[K", "") for part in err.strip("\r\n").split("\r")]
    assert lines and all(0 < len(line) < 50 for line in lines), lines
    assert lines[-1].startswith("Tessera autotuning ") and "5/5 configs" in lines[-1]


def test_progress_waits_a_second():
    out, err = run_tuning(sleep=0)
    assert out.strip().endswith("best 128")
    assert "configs" not in err


def test_progress_needs_a_terminal_or_the_print_switch():
    out, err = run_tuning(sleep=0.35, tty=False)
    assert "configs" not in err
    out, err = run_tuning(sleep=0.35, tty=False, env_print=True)
    lines = [l for l in err.splitlines() if "configs" in l]
    assert lines and "\r" not in err
    assert lines[-1].endswith("5/5 configs, best so far 1.0000 ms with BLOCK: 128, num_warps: 4, "
                              "num_ctas: 1, num_stages: 3, maxnreg: None")
    assert "finished after" in out
