#!/usr/bin/env python3
"""Differential testing of Tessera on random tile programs.

    scripts/differential.py [-n N] [--seed S] [--time S] [--gpu] [--show] [--quiet]

Generates N random, well-typed Triton-language kernels
(tests/python/differential/generator.py), seeds S, S+1, ..., and runs each
one two ways (tests/python/differential/runner.py):

  default  on the interpreter with the Tile IR passes off
           (TESSERA_PASSES=none) and with the default pipeline: bit for bit.
           A mismatch is bisected to the first pass of the pipeline whose
           prefix shows it.
  --gpu    the optimised program on the GPU (PyTorch CUDA tensors) against
           the interpreter: integers bit for bit, float outputs of
           reordered or contracted arithmetic within a tolerance. Without
           PyTorch or a CUDA device it says why and exits 0, having run
           nothing.

Every failing program is printed with its seed, what differs, and its
source as a runnable reproducer; the summary counts programs, failures and
the features covered. Exit status: 0 when every program agreed, 1 otherwise.
`--time S` stops after S seconds (whatever N is). The build is found in
$TESSERA_BUILD_DIR (default: build/ of this checkout).
"""

from __future__ import annotations

import argparse
import collections
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "python" / "differential"))
os.environ.setdefault("TESSERA_BUILD_DIR", str(ROOT / "build"))
os.environ.setdefault("TESSERA_CACHE_DISABLE", "1")  # thousands of one-off kernels

import generator  # noqa: E402
import runner  # noqa: E402


def gpu_unavailable() -> str:
    """Why the GPU mode cannot run here ("" when it can)."""
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA device"
    return ""


def report(res, bisected: str) -> None:
    p = res.program
    print(f"=== seed {p.seed}: {'ERROR' if res.error else 'MISMATCH'}"
          f"{' (first seen after pass prefix: ' + bisected + ')' if bisected else ''}")
    if res.error:
        print(res.error)
    for m in res.mismatches:
        print(f"  {m}")
    scalars = ", ".join(f"{n}={v!r}" for n, _, v in p.scalars)
    print(f"  grid=({p.grid},), {scalars}, constexprs {p.constexprs}, inputs "
          f"{[(b.name, b.dtype, b.size) for b in p.inputs]}")
    print(p.reproducer())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=1000, help="programs to run (default 1000)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the first program (default 1)")
    ap.add_argument("--time", type=float, default=0, help="stop after this many seconds")
    ap.add_argument("--gpu", action="store_true", help="compare the GPU with the interpreter")
    ap.add_argument("--show", action="store_true", help="print every program's source")
    ap.add_argument("--quiet", action="store_true", help="only the summary and failures")
    ap.add_argument("--max-failures", type=int, default=20,
                    help="stop after this many failing programs (default 20)")
    args = ap.parse_args()

    if args.gpu:
        why = gpu_unavailable()
        if why:
            print(f"differential --gpu: SKIPPED, {why}; nothing was run")
            return 0
    import tessera

    start = time.monotonic()
    features, failures, ran, skipped = collections.Counter(), [], 0, 0
    for seed in range(args.seed, args.seed + args.n):
        if args.time and time.monotonic() - start > args.time:
            break
        p = generator.generate(seed)
        if args.show:
            print(p.reproducer())
        res = runner.check(p, tessera, gpu=args.gpu)
        ran += 1
        skipped += res.skipped
        features.update(p.features)
        if not res.ok:
            bisected = "" if args.gpu or res.error else runner.bisect(p, tessera)
            report(res, bisected)
            failures.append(seed)
            if len(failures) >= args.max_failures:
                print(f"stopping after {len(failures)} failing programs")
                break
        elif not args.quiet and ran % 100 == 0:
            print(f"{ran} programs, {len(failures)} failing, "
                  f"{time.monotonic() - start:.1f} s", flush=True)
    mode = "GPU vs interpreter" if args.gpu else "interpreter, passes off vs on"
    print(f"\ndifferential ({mode}): {ran} programs from seed {args.seed} in "
          f"{time.monotonic() - start:.1f} s, {len(failures)} failing"
          f"{': seeds ' + ' '.join(map(str, failures)) if failures else ''}")
    if skipped:
        print(f"{skipped} outputs not compared: integers depending on reordered float "
              "arithmetic, values Triton leaves undefined, or quotients of inexact floats "
              "(see runner.py)")
    print("features: " + ", ".join(f"{k} {v}" for k, v in sorted(features.items())))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
