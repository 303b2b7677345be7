"""tessera.profiler (Triton's proton API): scopes, counts, metrics, kernel
launches recorded through hook="triton", the file it writes and the viewer
that reads it. On the CPU scopes take the host clock; the GPU twin is in
tests/gpu/test_language_gpu.py::test_profiler_times_gpu_scopes."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl
import tessera.profiler as proton
import tessera.profiler.viewer as viewer


def _flops_metadata(grid, kernel, args):
    n = args["N"]
    return {"name": f"{kernel.name} [N={n}]", "flops32": 2.0 * n, "bytes": 12.0 * n}


@triton.jit(launch_metadata=_flops_metadata)
def axpy_kernel(x, y, out, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    tl.store(out + offs, 2.0 * tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    proton.finalize()  # a failed test leaves no session behind


def _viewer(*args):
    # The package the tests import (the source tree's or the installed one).
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(triton.__file__).parents[1]))
    return subprocess.run([sys.executable, "-m", "tessera.profiler.viewer", *args], env=env,
                          capture_output=True, text=True)


def _tree(path):
    with open(path) as f:
        root, info = json.load(f)
    return root, info


def _child(node, name):
    found = [c for c in node["children"] if c["frame"]["name"] == name]
    assert len(found) == 1, [c["frame"]["name"] for c in node["children"]]
    return found[0]


def test_scopes_nest_count_and_time_on_the_host_clock(workdir):
    sid = proton.start("prof")
    for _ in range(3):
        with proton.scope("outer", {"bytes": 100}):
            time.sleep(0.004)
            with proton.scope("inner", {"flops16": 10}):
                time.sleep(0.002)
    proton.finalize(sid)
    root, info = _tree(workdir / "prof.hatchet")
    assert info["device"]["type"] == "cpu"
    outer = _child(root, "outer")
    inner = _child(outer, "inner")
    assert outer["metrics"]["count"] == 3 and inner["metrics"]["count"] == 3
    assert outer["metrics"]["bytes"] == 300 and inner["metrics"]["flops16"] == 30
    assert inner["metrics"]["time (ns)"] >= 3 * 2e6
    assert outer["metrics"]["time (ns)"] >= inner["metrics"]["time (ns)"] + 3 * 4e6
    assert root["metrics"]["time (ns)"] == outer["metrics"]["time (ns)"]


def test_kernel_launches_become_scopes_named_by_launch_metadata(workdir, rng):
    n = 1000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    proton.start("kernels", hook="triton")
    with proton.scope("step"):
        for _ in range(4):
            axpy_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    proton.deactivate()
    axpy_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)  # not recorded
    proton.activate()
    axpy_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)  # recorded at the top
    proton.finalize()
    np.testing.assert_array_equal(out, 2 * x + y)
    root, _ = _tree(workdir / "kernels.hatchet")
    step = _child(root, "step")
    launch = _child(step, f"axpy_kernel [N={n}]")
    assert launch["metrics"]["count"] == 4
    assert launch["metrics"]["flops32"] == 4 * 2.0 * n
    assert launch["metrics"]["bytes"] == 4 * 12.0 * n
    assert launch["metrics"]["time (ns)"] > 0
    assert _child(root, f"axpy_kernel [N={n}]")["metrics"]["count"] == 1
    # The launch hooks are gone once the session ends: the fast path is back.
    assert triton.knobs.runtime.launch_enter_hook is None


def test_user_launch_hooks_see_launch_metadata(rng):
    n = 64
    seen = []
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    with triton.knobs.runtime.scope():
        triton.knobs.runtime.launch_enter_hook = lambda meta: seen.append(("enter", meta.get()))
        triton.knobs.runtime.launch_exit_hook = lambda meta: seen.append(("exit", meta.data["name"]))
        axpy_kernel[(1,)](x, x, out, n, BLOCK=64)
    assert [s[0] for s in seen] == ["enter", "exit"]
    assert seen[0][1]["name"] == f"axpy_kernel [N={n}]" and seen[0][1]["flops32"] == 2.0 * n


def test_enter_and_exit_scope_without_with(workdir):
    proton.start("manual")
    proton.enter_scope("a", metrics={"flops8": 5})
    proton.enter_scope("b")
    assert proton.exit_scope("b") is not None
    with pytest.raises(ValueError, match="exit_scope\\('z'\\) but the open scope is 'a'"):
        proton.exit_scope("z")
    proton.finalize()
    root, _ = _tree(workdir / "manual.hatchet")
    assert _child(_child(root, "a"), "b")["metrics"]["count"] == 1


def test_scopes_without_a_session_cost_nothing_and_write_nothing(workdir):
    with proton.scope("nothing"):
        pass
    assert proton.enter_scope("x") is None and proton.exit_scope() is None
    assert list(workdir.iterdir()) == []


def test_bad_arguments_say_what_is_wrong(workdir):
    with pytest.raises(ValueError, match="unsupported hook 'cuda'"):
        proton.start("x", hook="cuda")
    with pytest.raises(ValueError, match="backend 'instrumentation' is not available"):
        proton.start("x", backend="instrumentation")
    proton.start("x")
    with pytest.raises(TypeError, match="metric 'flops16' must be a number, got str"):
        proton.enter_scope("s", metrics={"flops16": "many"})
    with pytest.raises(ValueError, match="no session 7"):
        proton.activate(7)


def test_profile_decorator_writes_one_session_per_call(workdir):
    @proton.profile(name="decorated")
    def work():
        with proton.cpu_timed_scope("busy"):
            sum(range(10000))

    work()
    root, _ = _tree(workdir / "decorated.hatchet")
    assert _child(root, "busy")["metrics"]["cpu_time (ns)"] > 0


def _write_profile(path, scopes):
    """A profile file with known numbers: the viewer's arithmetic is checked
    against values computed here, not against the profiler's clock."""
    children = [{"frame": {"name": n, "type": "function"},
                 "metrics": {"count": c, "time (ns)": t, "flops16": f, "bytes": b},
                 "children": []} for n, c, t, f, b in scopes]
    root = {"frame": {"name": "ROOT", "type": "function"},
            "metrics": {"count": 1, "time (ns)": sum(s[2] for s in scopes),
                        "flops16": sum(s[3] for s in scopes), "bytes": sum(s[4] for s in scopes)},
            "children": children}
    path.write_text(json.dumps([root, {"device": {"type": "cpu"}}]))


def test_viewer_derives_rates_times_and_shares(tmp_path, rng):
    rows = [(f"k{i}", int(rng.integers(1, 9)), float(rng.uniform(1e5, 1e7)),
             float(rng.uniform(1e9, 1e12)), float(rng.uniform(1e6, 1e9))) for i in range(3)]
    path = tmp_path / "p.hatchet"
    _write_profile(path, rows)
    cols = ["tflop16/s", "time/ms", "avg_time/us", "gbyte/s", "time/%", "count"]
    tree, metrics = viewer.parse(cols, str(path))
    assert metrics == cols
    total_t = sum(r[2] for r in rows)
    for node, (name, count, t, flops, nbytes) in zip(tree.children, rows):
        assert node.name == name
        v = node.values
        assert v["tflop16/s"] == pytest.approx(flops / (t * 1e-9) / 1e12)
        assert v["time/ms"] == pytest.approx(t / 1e6)
        assert v["avg_time/us"] == pytest.approx(t / 1e3 / count)
        assert v["gbyte/s"] == pytest.approx(nbytes / (t * 1e-9) / 1e9)
        assert v["time/%"] == pytest.approx(100 * t / total_t)
        assert v["count"] == count
    with pytest.raises(RuntimeError, match="Metric tflop8/s is not found|Metric nonsense"):
        viewer.parse(["nonsense"], str(path))


def test_viewer_prints_a_tree_filters_and_sorts(tmp_path, capsys):
    path = tmp_path / "p.hatchet"
    _write_profile(path, [("small", 1, 1e6, 1e9, 1e6), ("large", 1, 9e6, 1e9, 1e6)])
    tree, metrics = viewer.parse(["time/ms"], str(path))
    viewer.print_tree(tree, metrics, print_sorted=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["10.000 ROOT", "├─ 9.000 large", "└─ 1.000 small"]
    tree, metrics = viewer.parse(["time/ms"], str(path), exclude="^small$")
    assert [c.name for c in tree.children] == ["large"]
    tree, metrics = viewer.parse(["time/ms"], str(path), threshold=0.5)
    assert [c.name for c in tree.children] == ["large"]
    run = _viewer("-m", "time/ms,count", str(path))
    assert run.returncode == 0, run.stderr
    assert "9.000 1.000 large" in run.stdout
    bad = _viewer(str(tmp_path / "none"))
    assert bad.returncode == 1 and "No such file" in bad.stderr


@triton.jit
def count_kernel(counter):
    tl.atomic_add(counter, 1)


def test_a_launch_between_hooks_runs_the_kernel_once(workdir):
    # With launch hooks set, every launch (the first, which compiles, and
    # later ones) must still run the kernel exactly once.
    counter = np.zeros(1, np.int32)
    proton.start("once", hook="triton")
    for _ in range(3):
        count_kernel[(1,)](counter)
    proton.finalize()
    assert counter[0] == 3
    root, _ = _tree(workdir / "once.hatchet")
    assert _child(root, "count_kernel")["metrics"]["count"] == 3
