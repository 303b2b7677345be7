"""Profiling sessions: a tree of named scopes, each with a call count, the
time it took and the metrics its callers attached (flops, bytes).

Time is measured where the work runs. On the GPU a scope records a CUDA
event on the current stream when it opens and another when it closes; its
time is the GPU time between the two, summed over its calls, so it covers
every kernel the scope queued (Tessera's, cuBLAS's, PyTorch's) and any gap
in which the GPU waited for the host. On the CPU interpreter kernels run
while they are launched, so scopes take the host's clock.

Events are resolved lazily (completed pairs are read and their events
reused), so a loop of ten thousand scopes neither synchronises the GPU nor
holds ten thousand events.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import time
from collections import deque
from typing import Any, Optional

from .. import knobs

DEFAULT_PROFILE_NAME = "proton"
_RESOLVE_BATCH = 256  # pending event pairs before completed ones are read


class Node:
    """A scope in the tree: children by name, in first-entered order."""

    __slots__ = ("name", "children", "count", "time_ns", "metrics")

    def __init__(self, name: str):
        self.name = name
        self.children: dict[str, Node] = {}
        self.count = 0
        self.time_ns = 0.0
        self.metrics: dict[str, float] = {}

    def child(self, name: str) -> "Node":
        node = self.children.get(name)
        if node is None:
            node = self.children[name] = Node(name)
        return node

    def add_metrics(self, metrics: Optional[dict]) -> None:
        for key, value in (metrics or {}).items():
            self.metrics[key] = self.metrics.get(key, 0.0) + _number(key, value)

    def to_json(self) -> dict:
        metrics = {"count": self.count, "time (ns)": self.time_ns, **self.metrics}
        return {
            "frame": {"name": self.name, "type": "function"},
            "metrics": metrics,
            "children": [c.to_json() for c in self.children.values()],
        }


def _number(key: str, value: Any) -> float:
    if hasattr(value, "item"):  # a one-element tensor or NumPy scalar
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"profiler: metric '{key}' must be a number, got {type(value).__name__}")
    return float(value)


class _HostClock:
    """Scope times on the host clock (kernels on the CPU run synchronously)."""

    def mark(self):
        return time.perf_counter_ns()

    def close(self, node: Node, start) -> None:
        node.time_ns += time.perf_counter_ns() - start

    def resolve(self, wait: bool) -> None:
        pass


class _CudaClock:
    """Scope times from CUDA events on PyTorch's current stream."""

    def __init__(self, torch):
        self.cuda = torch.cuda
        self.free: list = []
        self.pending: deque = deque()  # (node, start event, end event)

    def _event(self):
        return self.free.pop() if self.free else self.cuda.Event(enable_timing=True)

    def mark(self):
        event = self._event()
        event.record()
        return event

    def close(self, node: Node, start) -> None:
        end = self._event()
        end.record()
        self.pending.append((node, start, end))
        if len(self.pending) >= _RESOLVE_BATCH:
            self.resolve(wait=False)

    def resolve(self, wait: bool) -> None:
        while self.pending:
            node, start, end = self.pending[0]
            if wait:
                end.synchronize()
            elif not end.query():
                return
            node.time_ns += start.elapsed_time(end) * 1e6  # ms -> ns
            self.pending.popleft()
            self.free += (start, end)


def _gpu_torch():
    """PyTorch when kernels run on a CUDA GPU and PyTorch can time it."""
    from ..runtime import driver
    try:
        if driver.active.get_current_target().backend != "cuda":
            return None
    except Exception:  # noqa: BLE001 - no usable driver: the interpreter runs
        return None
    torch = sys.modules.get("torch")
    if torch is None:
        try:
            import torch
        except ImportError:
            raise RuntimeError("tessera.profiler: timing GPU scopes uses torch.cuda events; "
                               "install PyTorch (or run on the CPU interpreter)") from None
    return torch if torch.cuda.is_available() else None


class Session:
    def __init__(self, sid: int, path: str, hook: Optional[str]):
        self.id = sid
        self.path = path
        self.hook = hook
        self.active = True
        self.root = Node("ROOT")
        torch = _gpu_torch()
        self.clock = _CudaClock(torch) if torch is not None else _HostClock()
        self.device = "cuda" if torch is not None else "cpu"
        self.stack: list[tuple[Node, Any, int]] = []  # open scopes: node, start mark, scope id

    def enter(self, name: str, metrics: Optional[dict], scope_id: int) -> None:
        parent = self.stack[-1][0] if self.stack else self.root
        node = parent.child(name)
        node.count += 1
        node.add_metrics(metrics)
        self.stack.append((node, self.clock.mark(), scope_id))

    def exit(self, metrics: Optional[dict], scope_id: int) -> None:
        # A scope opened while the session was inactive has no frame here.
        if not self.stack or self.stack[-1][2] != scope_id:
            return
        node, start, _ = self.stack.pop()
        node.add_metrics(metrics)
        self.clock.close(node, start)

    def write(self) -> str:
        self.clock.resolve(wait=True)
        self.root.count = 1
        self.root.time_ns = sum(c.time_ns for c in self.root.children.values())
        for key in {k for c in self.root.children.values() for k in c.metrics}:
            self.root.metrics[key] = sum(c.metrics.get(key, 0.0) for c in self.root.children.values())
        device = {"type": self.device}
        if self.device == "cuda":
            device["name"] = self.clock.cuda.get_device_name()
        with open(self.path, "w") as f:
            json.dump([self.root.to_json(), {"device": device, "format": "tessera-profile-1"}], f,
                      indent=1)
        return self.path


_lock = threading.Lock()
_sessions: dict[int, Session] = {}
_next_id = 0
_scope_ids = iter(range(1, 1 << 62))
_open = threading.local()  # the scopes this thread entered: (scope id, name)
_saved_hooks: Optional[tuple] = None


def profiling() -> bool:
    return bool(_sessions)


def _selected(session: Optional[int]) -> list[Session]:
    if session is None:
        return list(_sessions.values())
    if session not in _sessions:
        raise ValueError(f"profiler: no session {session}; start() returns the ids of sessions")
    return [_sessions[session]]


def start(name: Optional[str] = None, *, context: Optional[str] = "shadow",
          data: Optional[str] = "tree", backend: Optional[str] = None, mode=None,
          hook: Optional[str] = None) -> int:
    """Starts a session recording scopes (and, with hook="triton", every
    launch of a @jit kernel as a scope named by its `launch_metadata`);
    finalize() writes it to NAME.hatchet. Returns the session id."""
    global _next_id
    if context not in (None, "shadow", "python"):
        raise ValueError(f"profiler: context must be 'shadow' or 'python', got {context!r}")
    if data not in (None, "tree"):
        raise ValueError(f"profiler: only data='tree' is recorded, got {data!r}")
    if backend not in (None, "cupti"):
        raise ValueError(f"profiler: backend {backend!r} is not available; Tessera times scopes "
                         "with CUDA events (backend=None)")
    if mode is not None:
        raise ValueError(f"profiler: mode {mode!r} is not available (no PC sampling)")
    if hook not in (None, "triton"):
        raise ValueError(f"profiler: unsupported hook {hook!r}; hook='triton' records kernel launches")
    name = DEFAULT_PROFILE_NAME if name is None else os.fspath(name)
    path = name if name.endswith(".hatchet") else name + ".hatchet"
    with _lock:
        sid = _next_id
        _next_id += 1
        _sessions[sid] = Session(sid, path, hook)
    if hook == "triton":
        _install_launch_hooks()
    return sid


def activate(session: Optional[int] = None) -> None:
    """Records into `session` (all sessions when None) again."""
    for s in _selected(session):
        s.active = True


def deactivate(session: Optional[int] = None, flushing: bool = False) -> None:
    """Stops recording into `session` (all when None); what it holds stays."""
    for s in _selected(session):
        s.active = False


def finalize(session: Optional[int] = None, output_format: Optional[str] = "") -> None:
    """Writes `session` (all when None) to its .hatchet file and ends it."""
    if output_format not in ("", None, "hatchet"):
        raise ValueError(f"profiler: output_format must be 'hatchet', got {output_format!r}")
    with _lock:
        ended = _selected(session)
        for s in ended:
            del _sessions[s.id]
        if not any(s.hook == "triton" for s in _sessions.values()):
            _remove_launch_hooks()
    for s in ended:
        s.write()


def enter_scope(name: str, *, metrics: Optional[dict] = None) -> Optional[int]:
    """Opens a scope named `name` in every active session; returns its id."""
    if not _sessions:
        return None
    scope_id = next(_scope_ids)
    stack = _open.__dict__.setdefault("scopes", [])
    stack.append((scope_id, name))
    for s in list(_sessions.values()):
        if s.active:
            s.enter(name, metrics, scope_id)
    return scope_id


def exit_scope(name: Optional[str] = None, *, metrics: Optional[dict] = None) -> Optional[int]:
    """Closes the innermost open scope (named `name`, when given)."""
    stack = _open.__dict__.get("scopes")
    if not stack:
        if _sessions:
            raise ValueError("profiler: exit_scope() without an open scope")
        return None
    scope_id, opened = stack.pop()
    if name and name != opened:
        raise ValueError(f"profiler: exit_scope('{name}') but the open scope is '{opened}'")
    for s in list(_sessions.values()):
        s.exit(metrics, scope_id)
    return scope_id


class scope:
    """`with scope("name", {"flops16": n}):` or `@scope("name")`: a scope."""

    def __init__(self, name: str, metrics: Optional[dict] = None) -> None:
        self.name = name
        self.metrics = metrics

    def __enter__(self):
        self.id = enter_scope(self.name, metrics=self.metrics)
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        if self.id is not None:
            exit_scope(self.name)

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with scope(self.name, self.metrics):
                return func(*args, **kwargs)

        return wrapper


class cpu_timed_scope(scope):
    """A scope that also records the host time spent in it ("cpu_time (ns)")."""

    def __enter__(self):
        self.started = time.perf_counter_ns()
        return super().__enter__()

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        if self.id is not None:
            exit_scope(self.name, metrics={"cpu_time (ns)": time.perf_counter_ns() - self.started})


def profile(func=None, *, name: Optional[str] = None, context: Optional[str] = "shadow",
            data: Optional[str] = "tree", backend: Optional[str] = None, mode=None,
            hook: Optional[str] = None):
    """Decorator: each call of `func` runs in its own session, written at return."""

    def decorator(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            sid = start(name, context=context, data=data, backend=backend, mode=mode, hook=hook)
            try:
                return f(*args, **kwargs)
            finally:
                finalize(sid)

        return wrapper

    return decorator(func) if func is not None else decorator


# -- kernel launches as scopes (hook="triton")


def _launch_enter(meta) -> None:
    if _saved_hooks is not None and _saved_hooks[0] is not None:
        _saved_hooks[0](meta)  # the user's own hook keeps running
    if not any(s.active and s.hook == "triton" for s in _sessions.values()):
        return
    info = dict(meta.get())
    name = str(info.pop("name", "kernel"))
    metrics = {k: v for k, v in info.items() if k not in ("function", "stream") and
               isinstance(v, (int, float)) and not isinstance(v, bool)}
    scope_id = next(_scope_ids)
    meta.data["_profiler_scope"] = scope_id
    for s in list(_sessions.values()):
        if s.active and s.hook == "triton":
            s.enter(name, metrics, scope_id)


def _launch_exit(meta) -> None:
    scope_id = meta.data.get("_profiler_scope")
    if scope_id is not None:
        for s in list(_sessions.values()):
            s.exit(None, scope_id)
    if _saved_hooks is not None and _saved_hooks[1] is not None:
        _saved_hooks[1](meta)


def _install_launch_hooks() -> None:
    global _saved_hooks
    if _saved_hooks is None:
        rt = knobs.runtime
        _saved_hooks = (rt.launch_enter_hook, rt.launch_exit_hook)
        rt.launch_enter_hook, rt.launch_exit_hook = _launch_enter, _launch_exit


def _remove_launch_hooks() -> None:
    global _saved_hooks
    if _saved_hooks is not None:
        rt = knobs.runtime
        rt.launch_enter_hook, rt.launch_exit_hook = _saved_hooks
        if _saved_hooks == (None, None):
            del rt.launch_enter_hook, rt.launch_exit_hook
        _saved_hooks = None
