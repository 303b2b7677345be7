"""Host cost of launching a compiled kernel on CPU PyTorch tensors (issue
12, item 6: at most 10 us of binding overhead per launch), beside NumPy
arrays of the same size, and the same launch from inside a function
compiled by torch.compile(fullgraph=True) (the launch is then a custom op,
tessera::launch, see python/tessera/runtime/torch_ops.py).

Each line: median over 7 rounds of 10,000 launches (2,000 for the compiled
function) of one program with three arguments, with the interpreter's own
run time measured in C++ and subtracted ("host"); torch.add(out=) on the
same tensors for scale.

    python3 bench/torch_launch.py       (TESSERA_BUILD_DIR picks the build)
"""
import os
import statistics
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


C = triton.runtime.jit._ext()


def measure(launch, n=10_000, rounds=7):
    """(total, interpreter) microseconds per call, medians over rounds."""
    launch()
    totals, runs = [], []
    for _ in range(rounds):
        C.interp_reset()
        t0 = time.perf_counter_ns()
        for _ in range(n):
            launch()
        totals.append((time.perf_counter_ns() - t0) / n)
        runs.append(C.interp_ns_total() / max(1, C.interp_runs()))
    return statistics.median(totals) / 1e3, statistics.median(runs) / 1e3


def line(what, total, interp):
    print(f"{what:34s} total {total:7.3f} us   interpreter {interp:6.3f} us   "
          f"host {total - interp:6.3f} us")


def main():
    print(f"python {sys.version.split()[0]}, torch {torch.__version__}, {os.cpu_count()} cores\n")
    xt = torch.ones(16)
    ot = torch.zeros(16)
    xn = np.ones(16, dtype=np.float32)
    on = np.zeros(16, dtype=np.float32)
    copy_kernel[(1,)](xt, ot, 16, BLOCK=16)  # compiled: kernel[grid] is now the C++ launcher
    launch = copy_kernel[(1,)]
    line("numpy arrays, launcher(...)", *measure(lambda: launch(xn, on, 16, BLOCK=16)))
    line("torch CPU tensors, launcher(...)", *measure(lambda: launch(xt, ot, 16, BLOCK=16)))
    line("torch CPU tensors, kernel[grid](...)",
         *measure(lambda: copy_kernel[(1,)](xt, ot, 16, BLOCK=16)))

    def step(x, out):
        copy_kernel[(1,)](x, out, x.numel(), BLOCK=16)
        return out

    compiled = torch.compile(step, fullgraph=True)
    line("torch.compile(fullgraph) of a launch", *measure(lambda: compiled(xt, ot), n=2_000))
    plain = torch.compile(lambda x, out: out.copy_(x), fullgraph=True)
    plain(xt, ot)
    t0 = time.perf_counter_ns()
    for _ in range(2_000):
        plain(xt, ot)
    us = (time.perf_counter_ns() - t0) / 2e6
    print(f"{'torch.compile of out.copy_(x)':34s} total {us:7.3f} us"
          "   (torch.compile's own cost per call, for scale)")
    t0 = time.perf_counter_ns()
    for _ in range(10_000):
        torch.add(xt, xt, out=ot)
    print(f"{'torch.add(out=), for scale':34s} total {(time.perf_counter_ns() - t0) / 1e7:7.3f} us")
    print("\ntarget: host <= 10 us per launch of CPU torch tensors")


if __name__ == "__main__":
    main()
