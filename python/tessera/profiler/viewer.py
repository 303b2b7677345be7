"""Reads a profile written by tessera.profiler and prints its tree.

    tree, metrics = parse(["tflop16/s", "time/ms"], "matmul.hatchet")
    print_tree(tree, metrics)

or from a shell: `python -m tessera.profiler.viewer -m tflop16/s,time/ms matmul.hatchet`.

Metrics a node can show: the raw ones it recorded (count, time (ns), bytes,
flops16, cpu_time (ns), ...); time/s|ms|us|ns and avg_time/s|ms|us|ns (per
call); flop/s, gflop/s, tflop/s from "flops" and flopW/s, gflopW/s,
tflopW/s from "flopsW" (W the operand width: 8, 16, 32, 64); byte/s,
gbyte/s, tbyte/s from "bytes"; NAME/% as a share of the root's value.
Times and metrics are inclusive: a scope counts what its children did.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from typing import Optional

_TIME_UNITS = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}  # nanoseconds per unit
_RATE_PREFIX = {"": 1.0, "g": 1e9, "t": 1e12}
# The derived metrics: times (total or per call, GPU or host), flop rates
# (of "flops" or "flopsW"), byte rates.
_TIME = re.compile(r"(avg_)?(cpu_)?time/(s|ms|us|ns)")
_FLOPS = re.compile(r"([gt]?)flop(\d*)/s")
_BYTES = re.compile(r"([gt]?)byte/s")


class Tree:
    """A profile's scopes: `name`, `metrics` (raw, inclusive), `children`."""

    def __init__(self, name: str, metrics: dict, children: list["Tree"]):
        self.name, self.metrics, self.children = name, metrics, children
        self.values: dict[str, float] = {}  # derived metrics, by column name

    def walk(self, depth: int = 0):
        yield self, depth
        for c in self.children:
            yield from c.walk(depth + 1)


def _read(node: dict) -> Tree:
    return Tree(node["frame"]["name"], dict(node.get("metrics", {})),
                [_read(c) for c in node.get("children", [])])


def _derive(metric: str, node: Tree, root: Tree) -> float:
    m = node.metrics
    name = metric.strip().lower()
    time_ns = m.get("time (ns)", 0.0)
    if name.endswith("/%"):
        raw = _raw(name[:-2], m)
        total = _raw(name[:-2], root.metrics)
        return 100.0 * raw / total if total else math.nan
    match = _TIME.fullmatch(name)
    if match:
        value = m.get("cpu_time (ns)" if match.group(2) else "time (ns)", 0.0)
        value /= _TIME_UNITS[match.group(3)]
        if match.group(1):
            value = value / m["count"] if m.get("count") else math.nan
        return value
    match = _FLOPS.fullmatch(name)
    if match:
        flops = m.get(f"flops{match.group(2)}")
        return _rate(flops, time_ns, match.group(1))
    match = _BYTES.fullmatch(name)
    if match:
        return _rate(m.get("bytes"), time_ns, match.group(1))
    return _raw(name, m)


def _rate(amount: Optional[float], time_ns: float, prefix: str) -> float:
    if amount is None or time_ns <= 0:
        return math.nan
    return amount / (time_ns * 1e-9) / _RATE_PREFIX[prefix]


def _raw(name: str, metrics: dict) -> float:
    for key, value in metrics.items():
        if name in (key.lower(), key.split("(")[0].strip().lower()):
            return float(value)
    return math.nan


def _known(metric: str, tree: Tree) -> bool:
    name = metric.strip().lower()
    if any(p.fullmatch(name) for p in (_TIME, _FLOPS, _BYTES)):
        return True
    base = name[:-2] if name.endswith("/%") else name
    return any(not math.isnan(_raw(base, n.metrics)) for n, _ in tree.walk())


def parse(metrics, filename: str, include: Optional[str] = None, exclude: Optional[str] = None,
          threshold: Optional[float] = None):
    """Reads `filename`; returns (tree, columns) with each node's `values`
    holding the metrics asked for. `include`/`exclude` are regular
    expressions on scope names (a kept scope keeps its ancestors);
    `threshold` drops scopes whose first metric is below that share of the
    root's."""
    if isinstance(metrics, str):
        metrics = [metrics]
    with open(filename) as f:
        data = json.load(f)
    if not isinstance(data, list) or not data or "frame" not in data[0]:
        raise ValueError(f"{filename}: not a profile written by tessera.profiler")
    tree = _read(data[0])
    for metric in metrics:
        if not _known(metric, tree):
            raise RuntimeError(f"Metric {metric} is not found in {filename}; "
                               f"it records: {', '.join(sorted(_recorded(tree)))}")
    tree = _filter(tree, include, exclude)
    for node, _ in tree.walk():
        node.values = {m: _derive(m, node, tree) for m in metrics}
    if threshold is not None and metrics:
        total = tree.values[metrics[0]]
        tree = _prune(tree, lambda n: not (n.values[metrics[0]] < threshold * total))
    return tree, list(metrics)


def _recorded(tree: Tree) -> set:
    return {k for n, _ in tree.walk() for k in n.metrics}


def _filter(tree: Tree, include: Optional[str], exclude: Optional[str]) -> Tree:
    def keep(node: Tree) -> Optional[Tree]:
        if exclude and re.search(exclude, node.name):
            return None
        children = [k for k in (keep(c) for c in node.children) if k is not None]
        if include and not re.search(include, node.name) and not children:
            return None
        return Tree(node.name, node.metrics, children)

    return keep(tree) or Tree(tree.name, tree.metrics, [])


def _prune(tree: Tree, wanted) -> Tree:
    tree.children = [_prune(c, wanted) for c in tree.children if wanted(c)]
    return tree


def _fmt(value: float, format: Optional[str]) -> str:
    if math.isnan(value):
        return "-"
    if format == "percent":
        return f"{value:.2f}%"
    if format == "exp":
        return f"{value:.3e}"
    return f"{value:.3f}"


def print_tree(tree: Tree, metrics, depth: int = 100, format: Optional[str] = None,
               print_sorted: bool = False, file=None) -> None:
    """Prints the tree: each scope's metric values, then its name; with
    `print_sorted`, children by their first metric, largest first."""
    out = file if file is not None else sys.stdout
    if isinstance(metrics, str):
        metrics = [metrics]

    def show(node: Tree, prefix: str, branch: str, level: int) -> None:
        values = " ".join(_fmt(node.values.get(m, math.nan), format) for m in metrics)
        print(f"{prefix}{branch}{values} {node.name}", file=out)
        if level >= depth:
            return
        children = node.children
        if print_sorted and metrics:
            children = sorted(children, key=lambda c: -_sortable(c.values.get(metrics[0])))
        inner = prefix + ("" if not branch else ("│  " if branch == "├─ " else "   "))
        for i, c in enumerate(children):
            show(c, inner, "└─ " if i == len(children) - 1 else "├─ ", level + 1)

    show(tree, "", "", 0)
    if metrics:
        print(f"(values: {', '.join(metrics)})", file=out)


def _sortable(v: Optional[float]) -> float:
    return -math.inf if v is None or math.isnan(v) else v


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tessera.profiler.viewer",
                                description="Prints a profile written by tessera.profiler.")
    p.add_argument("file")
    p.add_argument("-m", "--metrics", default="time/ms",
                   help="comma-separated metrics (default time/ms)")
    p.add_argument("-i", "--include", help="regular expression of scope names to keep")
    p.add_argument("-e", "--exclude", help="regular expression of scope names to drop")
    p.add_argument("-t", "--threshold", type=float, help="drop scopes below this share of the root")
    p.add_argument("-d", "--depth", type=int, default=100)
    p.add_argument("-f", "--format", choices=["full", "percent", "exp"])
    p.add_argument("--print-sorted", action="store_true")
    p.add_argument("-l", "--list", action="store_true", help="list the metrics the file records")
    args = p.parse_args(argv)
    try:
        if args.list:
            tree, _ = parse([], args.file)
            print("\n".join(sorted(_recorded(tree))))
            return 0
        tree, metrics = parse(args.metrics.split(","), args.file, args.include, args.exclude,
                              args.threshold)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"python -m tessera.profiler.viewer: {e}", file=sys.stderr)
        return 1
    print_tree(tree, metrics, depth=args.depth, format=args.format,
               print_sorted=args.print_sorted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
