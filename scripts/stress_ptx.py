#!/usr/bin/env python3
"""Random tensor-core kernels through the GPU back end, no GPU needed.

    scripts/stress_ptx.py [-n N] [--seed S] [--kind dot|descriptor|attention|all] [--show]

Writes N random kernels of each kind, seeds S, S+1, ..., compiles each for
sm_80 and sm_90a with `tesserac` and assembles every PTX with `ptxas` (a
warp-specialised kernel's unspecialised twin too):

  dot         a tl.dot over loaded tiles, 2-D or batched (3-D), of every
              input type (fp16, bf16, fp32 in each input_precision, int8,
              fp8 e4m3/e5m2, fp16 accumulators), operands read transposed,
              masked K, a K loop or one product, an accumulator started from
              zeros, nothing or a load, and an epilogue (scale, relu, cast,
              a row or column reduction); 1 to 8 warps, 1 to 4 stages;
  descriptor  a persistent matmul over tensor descriptors (tutorial 09's
              shape): its tile loop flattened or not, B read K-major or
              N-major, fp16, bf16 or fp8, the epilogue whole, subtiled,
              scaled, biased or reduced; its K loop marked warp_specialize
              or not;
  attention   an online-softmax loop over key blocks (tutorial 06's shape),
              K and V through descriptors made in the kernel, host
              descriptors or pointers, the loop marked warp_specialize or
              not, a second masked loop for a ragged tail or not, or
              causal (a second loop over the diagonal block, by tensor
              copies too, each loop marked or not), D 64 or 128, fp16 or
              bf16, 4 or 8 warps.

A kernel fails when the compiler reports an internal error or crashes, or
when ptxas rejects its PTX; a diagnostic for the kernel itself (exit 1 with
a located message) is not a failure, but the summary counts them (the
generators mean to write valid kernels: a count above 0 is theirs to fix;
--show prints each). Each failure is printed with its seed,
target and options, and with --show its source. Exit status: 0 when nothing
failed, 1 otherwise. The build is found in $TESSERA_BUILD_DIR (default:
build/ of this checkout); ptxas must be on PATH.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
TESSERAC = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", ROOT / "build")) / "tesserac"
TARGETS = ("sm_80", "sm_90a")

# input type -> (signature type of the inputs, of the accumulator)
DOT_TYPES = {"fp16": ("fp16", "fp32"), "bf16": ("bf16", "fp32"), "fp32": ("fp32", "fp32"),
             "i8": ("i8", "i32"), "fp8e4nv": ("fp8e4nv", "fp32"), "fp8e5": ("fp8e5", "fp32"),
             "fp16acc": ("fp16", "fp16")}
ACC_TYPES = {"fp16": "tl.float16", "fp32": "tl.float32", "i32": "tl.int32"}


def dot_kernel(rng: random.Random):
    """(source, signature, warps, stages) of a random dot kernel."""
    ind, accd = DOT_TYPES[rng.choice(list(DOT_TYPES))]
    batch = rng.choice([0, 0, 0, 1, 2, 4, 8])
    bm, bn = rng.choice([16, 32, 64, 128, 256]), rng.choice([16, 32, 64, 128, 256])
    bk = rng.choice([16, 32, 64, 128])
    while batch and batch * bm * bn > 32768:
        bm, bn = max(16, bm // 2), max(16, bn // 2)
    loop, masked = rng.random() < 0.6, rng.random() < 0.4
    a_t, b_t = rng.random() < 0.3, rng.random() < 0.3
    prec = rng.choice(["tf32", "ieee", "tf32x3"]) if ind == "fp32" else None
    epilogue = rng.choice(["none", "scale", "relu", "cast", "sum0", "sum1", "max1"])
    start = rng.choice(["zeros", "none", "load"])
    acc_t = ACC_TYPES[accd]

    def nd(expr):  # a 2-D index expression lifted to the batched rank
        if not batch:
            return expr
        return expr.replace("[:, None]", "[None, :, None]").replace("[None, :]", "[None, None, :]")

    def at(size):  # this program's batch entries' offset into a buffer
        return f"rb * ({size}) + " if batch else ""

    kk = "(k * BK + rk)" if loop else "rk"

    def load(base, size, rows, cols, stride, k_rows, transposed):
        # A tile [rows x cols] stored row-major (`stride` elements a row), K
        # along its rows (`k_rows`) or columns; read transposed with .T.
        offs = nd(f"{rows}[:, None] * {stride} + {cols}[None, :]")
        mask = nd(f"{kk}[:, None] < K" if k_rows else f"{kk}[None, :] < K") if masked else None
        text = f"tl.load({base} + {at(size)}{offs}" + (f", mask={mask}, other=0" if mask else "")
        text += ")"
        if transposed:
            text += ".permute(0, 2, 1)" if batch else ".T"
        return text

    # A is [BM, BK] (stored [BK, BM] when read transposed), B is [BK, BN]
    # (stored [BN, BK] when read transposed).
    if a_t:
        a = load("a_ptr", "BM * BK", kk, "(rm % BM)", "BM", True, True)
    else:
        a = load("a_ptr", "BM * BK", "(rm % BM)", kk, "BK", False, False)
    if b_t:
        b = load("b_ptr", "BK * BN", "(rn % BN)", kk, "BK", False, True)
    else:
        b = load("b_ptr", "BK * BN", kk, "(rn % BN)", "BN", True, False)
    lines = ["@triton.jit",
             "def k(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, "
             "BK: tl.constexpr):",
             "    rm = tl.program_id(0) * BM + tl.arange(0, BM)",
             "    rn = tl.program_id(1) * BN + tl.arange(0, BN)",
             "    rk = tl.arange(0, BK)"]
    if batch:
        lines.append(f"    rb = tl.arange(0, {batch})[:, None, None]")
    shape = f"({batch}, BM, BN)" if batch else "(BM, BN)"
    if start == "zeros" or (loop and start == "none"):
        lines.append(f"    acc = tl.zeros({shape}, dtype={acc_t})")
    elif start == "load":
        lines.append(f"    acc = tl.load(c_ptr + {at('BM * BN')}"
                     + nd("rm[:, None] * BN + (rn % BN)[None, :]") + f").to({acc_t})")
    body = "        " if loop else "    "
    if loop:
        lines.append("    for k in range(0, tl.cdiv(K, BK)):")
    lines += [f"{body}a = {a}", f"{body}b = {b}"]
    extra = (f", input_precision='{prec}'" if prec else "") + \
        (f", out_dtype={acc_t}" if accd == "fp16" else "")
    chained = "" if start == "none" and not loop else ", acc"
    lines.append(f"{body}acc = tl.dot(a, b{chained}{extra})")
    out_t = {"fp16": "fp16", "fp32": "fp32", "i32": "i32"}[accd]
    if epilogue == "scale":
        lines.append("    acc = acc * 2")
    elif epilogue == "relu":
        lines.append("    acc = tl.maximum(acc, 0)")
    elif epilogue == "cast":
        lines.append("    acc = acc.to(tl.int16)" if accd == "i32" else "    acc = acc.to(tl.float16)")
        out_t = "i16" if accd == "i32" else "fp16"
    if epilogue in ("sum0", "sum1", "max1"):
        axis = (0 if epilogue == "sum0" else 1) + (1 if batch else 0)
        reduce = "tl.sum" if epilogue.startswith("sum") else "tl.max"
        lines.append(f"    r = {reduce}(acc, {axis})")
        kept = "rn" if epilogue == "sum0" else "rm"
        width = "BN" if epilogue == "sum0" else "BM"
        idx = f"tl.arange(0, {batch})[:, None] * {width} + {kept}[None, :]" if batch else kept
        lines.append(f"    tl.store(c_ptr + {idx}, r)")
    else:
        mask = (", mask=" + nd("(rm[:, None] < M) & (rn[None, :] < N)")) if masked else ""
        lines.append(f"    tl.store(c_ptr + {at('BM * BN')}" + nd("rm[:, None] * BN + rn[None, :]")
                     + f", acc{mask})")
    sig = f"*{ind}:16, *{ind}:16, *{out_t}:16, i32, i32, i32:16, {bm}, {bn}, {bk}"
    return "\n".join(lines), sig, rng.choice([1, 2, 4, 4, 8, 8]), rng.choice([1, 2, 3, 4])


def descriptor_kernel(rng: random.Random):
    """(source, signature, warps, stages) of a random persistent descriptor matmul."""
    dt = rng.choice(["fp16", "bf16", "fp8e4nv"])
    bm, bn, bk = rng.choice([64, 128]), rng.choice([64, 128, 256]), rng.choice([32, 64, 128])
    k_major = dt == "fp8e4nv" or rng.random() < 0.5  # B stored N x K, read with .T
    epilogue = rng.choice(["plain", "subtiled", "scale", "bias", "sum"])
    acc = "tl.zeros((BM, BN), dtype=tl.float32)" if rng.random() < 0.7 else \
        "tl.full((BM, BN), 1.0, dtype=tl.float32)"
    rm, rn = "(pm * BM + tl.arange(0, BM))", "(pn * BN + tl.arange(0, BN))"
    lines = ["@triton.jit",
             "def k(a_desc, b_desc, c_ptr, bias_ptr, M, N, K, BM: tl.constexpr, "
             "BN: tl.constexpr, BK: tl.constexpr, P: tl.constexpr):",
             "    tm = tl.cdiv(M, BM)",
             "    tn = tl.cdiv(N, BN)",
             f"    for t in tl.range(tl.program_id(0), tm * tn, P, flatten={rng.random() < 0.5}):",
             "        pm = t // tn",
             "        pn = t % tn",
             f"        acc = {acc}",
             f"        for kk in tl.range(tl.cdiv(K, BK), warp_specialize={rng.random() < 0.5}):",
             "            a = a_desc.load([pm * BM, kk * BK])",
             "            b = b_desc.load([pn * BN, kk * BK]).T" if k_major else
             "            b = b_desc.load([kk * BK, pn * BN])",
             "            acc = tl.dot(a, b, acc)"]
    inside = f"({rm}[:, None] < M) & ({rn}[None, :] < N)"
    if epilogue == "scale":
        lines.append("        acc = acc * 0.5")
    elif epilogue == "bias":
        lines.append(f"        acc = acc + tl.load(bias_ptr + {rn}, mask={rn} < N, other=0)[None, :]")
    if epilogue == "sum":
        lines.append(f"        tl.store(bias_ptr + {rm}, tl.sum(acc, 1), mask={rm} < M)")
    elif epilogue == "subtiled":  # tutorial 09's: two halves of the columns
        lines += ["        halves = tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1))",
                  "        c0, c1 = tl.split(halves)",
                  f"        r = {rm}[:, None]",
                  "        n0 = pn * BN + tl.arange(0, BN // 2)[None, :]",
                  "        tl.store(c_ptr + r * N + n0, c0.to(tl.float16), mask=(r < M) & (n0 < N))",
                  "        tl.store(c_ptr + r * N + n0 + BN // 2, c1.to(tl.float16), "
                  "mask=(r < M) & (n0 + BN // 2 < N))"]
    else:
        lines.append(f"        tl.store(c_ptr + {rm}[:, None] * N + {rn}[None, :], "
                     f"acc.to(tl.float16), mask={inside})")
    b_block = f"[{bn}, {bk}]" if k_major else f"[{bk}, {bn}]"
    dims = ", ".join(f"i32{rng.choice([':16', ''])}" for _ in range(3))
    sig = (f"tensordesc<{dt}[{bm}, {bk}]>:16, tensordesc<{dt}{b_block}>:16, *fp16:16, *fp32:16, "
           f"{dims}, {bm}, {bn}, {bk}, {rng.choice([132, 8, 1])}")
    return "\n".join(lines), sig, rng.choice([4, 8]), rng.choice([2, 3, 4])


def attention_kernel(rng: random.Random):
    dt = rng.choice(["fp16", "bf16"])
    d = rng.choice([64, 128])
    bm, bn = rng.choice([(64, 64), (128, 64), (128, 128), (64, 32), (128, 32)])
    warps = rng.choice([4, 8]) if bm == 128 else 4
    source = rng.choice(["device", "host", "pointer"])
    tail = rng.random() < 0.5  # a second, masked loop over the ragged last keys
    # Or, through descriptors, causal: the keys before the program's rows,
    # then the diagonal block under the causal mask, both loops copying by
    # tensor copies (warp-specialize then shares one set of rings).
    causal = not tail and source != "pointer" and rng.random() < 0.5
    lines = ["@triton.jit",
             "def k(q_ptr, k_src, v_src, o_ptr, n, scale, BM: tl.constexpr, BN: tl.constexpr, "
             "D: tl.constexpr):",
             "    first = tl.program_id(1) * n",
             "    rm = tl.program_id(0) * BM + tl.arange(0, BM)",
             "    rd = tl.arange(0, D)",
             "    q = tl.load(q_ptr + (first + rm)[:, None] * D + rd[None, :], mask=rm[:, None] < n,"
             " other=0)"]
    if source == "device":
        lines += ["    rows = tl.num_programs(1) * n",
                  "    kd = tl.make_tensor_descriptor(k_src, shape=[rows, D], strides=[D, 1], "
                  "block_shape=[BN, D])",
                  "    vd = tl.make_tensor_descriptor(v_src, shape=[rows, D], strides=[D, 1], "
                  "block_shape=[BN, D])"]
    elif source == "host":
        lines += ["    kd = k_src", "    vd = v_src"]
    lines += ["    m_i = tl.full([BM], float('-inf'), tl.float32)",
              "    l_i = tl.zeros([BM], tl.float32)",
              "    acc = tl.zeros([BM, D], tl.float32)",
              "    full = n // BN * BN" if tail else
              "    full = tl.program_id(0) * BM" if causal else "    full = n"]
    loops = [("0", "full", False)] + ([("full", "n", True)] if tail else []) + \
        ([("full", "full + BM", False)] if causal else [])
    for lo, hi, masked in loops:
        ws = rng.random() < 0.6
        lines.append(f"    for s in tl.range({lo}, {hi}, BN, warp_specialize={ws}):")
        rn = "(s + tl.arange(0, BN))"
        if source == "pointer" or (masked and source == "device"):
            mask = f", mask={rn}[:, None] < n, other=0" if masked else ""
            lines += [f"        kt = tl.load(k_src + (first + {rn})[:, None] * D + rd[None, :]{mask})",
                      f"        vt = tl.load(v_src + (first + {rn})[:, None] * D + rd[None, :]{mask})"]
        else:
            lines += ["        kt = kd.load([first + s, 0])", "        vt = vd.load([first + s, 0])"]
        lines.append("        qk = tl.dot(q, kt.T) * scale")
        if causal and lo != "0":
            lines.append(f"        qk = tl.where(rm[:, None] >= {rn}[None, :], qk, float('-inf'))")
        if masked:
            lines.append(f"        qk = tl.where({rn}[None, :] < n, qk, float('-inf'))")
        lines += ["        m_new = tl.maximum(m_i, tl.max(qk, 1))",
                  "        p = tl.math.exp2(qk - m_new[:, None])",
                  "        alpha = tl.math.exp2(m_i - m_new)",
                  "        l_i = l_i * alpha + tl.sum(p, 1)",
                  "        acc = tl.dot(p.to(vt.dtype), vt, acc * alpha[:, None])",
                  "        m_i = m_new"]
    lines.append("    tl.store(o_ptr + (first + rm)[:, None] * D + rd[None, :], "
                 "(acc / l_i[:, None]).to(o_ptr.dtype.element_ty), mask=rm[:, None] < n)")
    kv = f"tensordesc<{dt}[{bn}, {d}]>:16" if source == "host" else f"*{dt}:16"
    n = rng.choice(["i32:16", "i32"])
    sig = f"*{dt}:16, {kv}, {kv}, *{dt}:16, {n}, fp32, {bm}, {bn}, {d}"
    return "\n".join(lines), sig, warps, rng.choice([2, 3, 4])


KINDS = {"dot": dot_kernel, "descriptor": descriptor_kernel, "attention": attention_kernel}
SPECIALIZED = [0]  # kernels whose PTX has a producer warp (warp-specialize)
HANDOVER = [0]  # of those, a producer warpgroup handing its registers over (setmaxnreg)
# Compiles that ended with the kernel's own diagnostic: not failures, but a
# generator writing kernels the language rejects tests nothing, so the
# summary says how many (with --show, which).
DIAGNOSED = [0]


def assemble(ptx: pathlib.Path, target: str) -> str | None:
    """ptxas's complaint about `ptx`, or None when it assembles."""
    p = subprocess.run(["ptxas", f"-arch={target}", str(ptx), "-o", str(ptx) + ".cubin"],
                       capture_output=True, text=True, timeout=300)
    return f"ptxas: {p.stderr.strip()[:800]}" if p.returncode != 0 else None


def check(kind: str, seed: int, workdir: pathlib.Path, show: bool) -> int:
    """Compiles and assembles one kernel for every target; returns its failures."""
    body, sig, warps, stages = KINDS[kind](random.Random(seed))
    source = workdir / f"{kind}_{seed}.py"
    source.write_text("import triton\nimport triton.language as tl\n\n\n" + body + "\n")
    failures = 0
    for target in TARGETS:
        ptx = workdir / f"{kind}_{seed}_{target}.ptx"
        options = ["--target", target, "--num-warps", str(warps), "--num-stages", str(stages)]

        def compile_(stage, out):
            return subprocess.run([str(TESSERAC), "compile", str(source), "--kernel", "k",
                                   "--signature", sig, "--emit", stage, "-o", str(out)] + options,
                                  capture_output=True, text=True, timeout=120)

        r = compile_("ptx", ptx)
        what = None
        if r.returncode != 0:
            # Exit 1 with a located message is the kernel's own error; a signal,
            # another status or an internal error is the compiler's.
            if r.returncode != 1 or "internal" in r.stderr.lower():
                what = f"tesserac exit {r.returncode}: {r.stderr.strip()[:800]}"
            else:
                DIAGNOSED[0] += 1
                if show:
                    print(f"DIAGNOSED {kind} seed {seed} {target}: {r.stderr.strip()[:400]}")
        else:
            text = ptx.read_text()
            specialized = "tessera.producer_warps" in text
            SPECIALIZED[0] += specialized
            HANDOVER[0] += "setmaxnreg" in text
            what = assemble(ptx, target)
            if not what and specialized:
                # Its unspecialised twin too, which the loader may run instead.
                twin = workdir / f"{kind}_{seed}_{target}_twin.ptx"
                t = compile_("ptx-unspecialized", twin)
                what = (f"tesserac --emit ptx-unspecialized exit {t.returncode}: "
                        f"{t.stderr.strip()[:800]}" if t.returncode else assemble(twin, target))
        if what:
            failures += 1
            print(f"FAIL {kind} seed {seed} {target} --num-warps {warps} --num-stages {stages} "
                  f"--signature \"{sig}\"\n  {what}")
            if show:
                print(source.read_text())
    return failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=50, help="kernels of each kind (default 50)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--kind", choices=list(KINDS) + ["all"], default="all")
    ap.add_argument("--show", action="store_true", help="print each failing kernel's source")
    args = ap.parse_args()
    if not TESSERAC.exists():
        print(f"stress_ptx: no tesserac at {TESSERAC}; build first (scripts/test.sh)")
        return 1
    if shutil.which("ptxas") is None:
        print("stress_ptx: ptxas is not on PATH (it comes with the CUDA toolkit)")
        return 1
    kinds = list(KINDS) if args.kind == "all" else [args.kind]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            for seed in range(args.seed, args.seed + args.n):
                failures += check(kind, seed, pathlib.Path(tmp), args.show)
    total = len(kinds) * args.n * len(TARGETS)
    print(f"stress_ptx: {total} compiles ({', '.join(kinds)}; seeds {args.seed}.."
          f"{args.seed + args.n - 1}; {', '.join(TARGETS)}), {failures} failing; "
          f"{SPECIALIZED[0]} with a producer warp ({HANDOVER[0]} a warpgroup with setmaxnreg), "
          f"{DIAGNOSED[0]} rejected by the compiler's diagnostics")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
