"""GPU benchmark: Tessera against PyTorch eager, torch.compile and the same
kernel source compiled by Triton, in one run on one GPU, with a
device-to-device copy as the bandwidth ceiling.

  memory-bound  vector add and GeLU over 2^28 fp32; fused softmax at
                4096x1024, 4096x4096, 8192x8192, 32768x512 (fp32, bf16);
                layer norm forward at 4096x8192. Medians of CUDA-event
                timings. Shapes whose tensors would fit in L2 rotate among
                enough copies that every call reads from device memory. TB/s
                counts each input read once and each output written once.
  cold compile  first call in a fresh process with empty caches (compile,
                load, launch) of the softmax and matmul examples.
  launch        host time per launch of a cached kernel with torch tensors
                (batches of 200 launches, the GPU drained untimed between
                batches), Tessera vs Triton vs torch.add; plain, with a grid
                lambda, and under each compiler's own @autotune (two configs,
                the key tuned: the usual launch of an autotuned kernel).
  matmul        the autotuned example matmul (examples/matmul.py, the same
                source for Tessera and Triton) against torch.matmul (cuBLAS;
                torch._scaled_mm for fp8): 4096^3 and 8192^3 in fp16, bf16
                and fp8 e4m3 (B transposed, as cuBLAS wants), a skinny case
                (M = 16, N = K = 8192) and a ragged one (4000^3), TFLOP/s.
  attention     the example fused attention forward (examples/attention.py,
                the same source for Tessera and Triton, each at its best of a
                few block configurations) against PyTorch's SDPA (FlashAttention
                backend): batch 4, 32 heads, fp16, HEAD_DIM 64 and 128,
                N_CTX 4096 and 8192, causal and not, TFLOP/s.
  attention_bwd the example's backward (dQ, dK, dV; the same source for both)
                against SDPA's backward: N_CTX 4096, HEAD_DIM 64 and 128,
                causal and not, TFLOP/s (2.5x the forward's FLOPs).

The run ends with the performance targets (bench/targets.py) that its rows
were checked against, met and missed.

    python3 bench/gpu.py [--quick] [--only PARTS] [--rounds R] [--out FILE]
"""
import argparse
import importlib.util
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402

import tessera  # noqa: E402
from targets import FA3_PUBLISHED_TFLOPS, Targets, attention_bounds, matmul_bounds, ratio  # noqa: E402

LINES = []
TARGETS = Targets()


def say(s=""):
    print(s, flush=True)
    LINES.append(s)


def triton_module(name):
    """The example `name` with its imports pointed at Triton: the same kernel source."""
    src = (ROOT / "examples" / f"{name}.py").read_text()
    src = src.replace("import tessera as triton", "import triton").replace(
        "import tessera.language as tl", "import triton.language as tl")
    d = pathlib.Path(tempfile.mkdtemp(prefix="tessera_bench_"))
    path = d / f"triton_{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"triton_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def bench(fn, reps=25, warmup_ms=300):
    """Median milliseconds of one call of `fn`, by CUDA events around a batch
    of back-to-back calls (so the host's launch time, which overlaps the
    previous kernel, is not counted as device time), the batch sized to take
    about 2 ms. Every input here is many times larger than L2, so no flush
    is needed between calls.

    Before timing, `fn` runs back to back for about `warmup_ms`: a GPU runs
    its first 40-150 ms of sustained load at its boost clock and then slows
    (an H200 from 1980 to 1470-1700 MHz, every matmul about 13% slower,
    bench/results/h100_matmul.txt), so without this a function timed just
    after an idle moment read faster than one timed after another's load,
    and a comparison depended on the order it ran in. Every function is now
    timed in the sustained state."""
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    one = max(s.elapsed_time(e), 1e-3)
    for _ in range(int(warmup_ms / max(one, 5e-3))):
        fn()
    inner = max(1, min(200, int(2.0 / one)))
    times = []
    for _ in range(reps):
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / inner)
    return statistics.median(times)


def copies_for(nbytes):
    """How many copies of a case's tensors to rotate among so that one pass
    over them (about 4x the L2 size) cannot be served from L2."""
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    return max(1, -(-4 * l2 // nbytes))


class Rotation:
    """Calls fn(*args[i]) with i advancing on every call."""

    def __init__(self, fn, args):
        self.fn, self.args, self.i = fn, args, 0

    def __call__(self):
        a = self.args[self.i]
        self.i = (self.i + 1) % len(self.args)
        return self.fn(*a)


def row(name, nbytes, results, copy_tbs):
    """results: {impl: ms or None}; prints TB/s and ratios to Triton and the copy."""
    parts = []
    tess = results.get("tessera")
    for impl, ms in results.items():
        if ms is None:
            parts.append(f"{impl} n/a")
            continue
        tbs = nbytes / ms / 1e9
        parts.append(f"{impl} {tbs:5.2f} TB/s")
    tri = results.get("triton")
    vs_triton = f"tessera/triton {tri / tess:5.2f}x" if tess and tri else "tessera/triton n/a"
    frac = f"of copy {nbytes / tess / 1e9 / copy_tbs:5.2f}" if tess else ""
    say(f"{name:28s} " + " | ".join(parts) + f" || {vs_triton} {frac}")


def try_compile(f):
    try:
        g = torch.compile(f)
        return g
    except Exception as e:  # noqa: BLE001
        say(f"  torch.compile unavailable: {e}")
        return None


def memory_bound(quick):
    import gelu as t_gelu
    import layer_norm as t_ln
    import softmax as t_softmax
    import vector_add as t_add
    tr_add, tr_gelu, tr_softmax, tr_ln = (triton_module(n) for n in
                                          ("vector_add", "gelu", "softmax", "layer_norm"))
    n = 1 << (24 if quick else 28)
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    copy_ms = bench(lambda: out.copy_(x))
    copy_tbs = 2 * 4 * n / copy_ms / 1e9
    say(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}, "
        f"triton {__import__('triton').__version__}")
    say(f"{'copy (ceiling)':28s} {copy_tbs:5.2f} TB/s")

    grid = (triton_cdiv(n, 1024),)
    add_c = try_compile(lambda a, b: a + b)
    # Correctness first: each implementation's output checked once.
    t_add.add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    assert torch.equal(out, x + y), "tessera vector add is wrong"
    row("vector add fp32 2^%d" % (n.bit_length() - 1), 3 * 4 * n, {
        "tessera": bench(lambda: t_add.add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)),
        "triton": bench(lambda: tr_add.add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)),
        "torch": bench(lambda: torch.add(x, y, out=out)),
        "compile": bench(lambda: add_c(x, y)) if add_c else None}, copy_tbs)

    # A length with no divisibility (odd): the mask ends a vector anywhere, so
    # a compiler that cannot see it is a prefix mask loads element by element.
    for dtype in (torch.float32, torch.float16):
        m = n - 1
        xr, yr = x[:m].to(dtype), y[:m].to(dtype)
        outr = torch.empty_like(xr)
        gr = (triton_cdiv(m, 1024),)
        outr.fill_(float("nan"))
        t_add.add_kernel[gr](xr, yr, outr, m, BLOCK_SIZE=1024)
        assert torch.equal(outr, xr + yr), "tessera ragged vector add is wrong"
        name = "fp32" if dtype == torch.float32 else "fp16"
        row(f"vector add {name} 2^{n.bit_length() - 1}-1", 3 * xr.element_size() * m, {
            "tessera": bench(lambda: t_add.add_kernel[gr](xr, yr, outr, m, BLOCK_SIZE=1024)),
            "triton": bench(lambda: tr_add.add_kernel[gr](xr, yr, outr, m, BLOCK_SIZE=1024)),
            "torch": bench(lambda: torch.add(xr, yr, out=outr)),
            "compile": None}, copy_tbs)
        xr = yr = outr = None  # freed (rebound, not del: the timed lambdas name them)

    gelu_ref = lambda a: torch.nn.functional.gelu(a, approximate="tanh")  # noqa: E731
    gelu_c = try_compile(gelu_ref)
    t_gelu.gelu_kernel[grid](x, out, n, BLOCK_SIZE=1024)
    err = ((out - gelu_ref(x)).norm() / gelu_ref(x).norm()).item()
    assert err < 1e-5, f"tessera gelu is wrong ({err})"
    row("gelu fp32 2^%d" % (n.bit_length() - 1), 2 * 4 * n, {
        "tessera": bench(lambda: t_gelu.gelu_kernel[grid](x, out, n, BLOCK_SIZE=1024)),
        "triton": bench(lambda: tr_gelu.gelu_kernel[grid](x, out, n, BLOCK_SIZE=1024)),
        "torch": bench(lambda: gelu_ref(x)),
        "compile": bench(lambda: gelu_c(x)) if gelu_c else None}, copy_tbs)
    x = y = out = None  # freed (rebound, not del: the timed lambdas name them)

    shapes = [(4096, 1024), (4096, 4096), (8192, 8192), (32768, 512)]
    if quick:
        shapes = shapes[:2]
    sm_c = try_compile(lambda a: torch.softmax(a, dim=1))
    for dtype in (torch.float32, torch.bfloat16):
        for (m, k) in shapes:
            nbytes = 2 * m * k * torch.finfo(dtype).bits // 8
            pairs = []
            for _ in range(copies_for(nbytes)):
                a = torch.randn(m, k, device="cuda").to(dtype)
                pairs.append((a, torch.empty_like(a)))
            block = triton_next_pow2(k)
            warps = 4 if block <= 1024 else 8 if block <= 4096 else 16

            def launcher(mod):
                def run(a, o):
                    mod.softmax_kernel[(m,)](o, a, a.stride(0), o.stride(0), k, BLOCK_SIZE=block,
                                             num_warps=warps)
                return run
            a, o = pairs[0]
            launcher(t_softmax)(a, o)
            err = ((o.double() - torch.softmax(a.double(), 1)).norm() /
                   torch.softmax(a.double(), 1).norm()).item()
            assert err < (1e-5 if dtype == torch.float32 else 1e-2), f"softmax wrong ({err})"
            row(f"softmax {str(dtype)[6:]} {m}x{k}", nbytes, {
                "tessera": bench(Rotation(launcher(t_softmax), pairs)),
                "triton": bench(Rotation(launcher(tr_softmax), pairs)),
                "torch": bench(Rotation(lambda a, o: torch.softmax(a, dim=1), pairs)),
                "compile": bench(Rotation(lambda a, o: sm_c(a), pairs)) if sm_c else None},
                copy_tbs)
            a = o = pairs = None  # freed (rebound, not del: the timed lambdas name them)

    m, k = 4096, 8192
    a = torch.randn(m, k, device="cuda")
    w = torch.randn(k, device="cuda")
    b = torch.randn(k, device="cuda")
    yv = torch.empty_like(a)
    mean = torch.empty(m, device="cuda")
    rstd = torch.empty(m, device="cuda")
    ln_c = try_compile(lambda t: torch.nn.functional.layer_norm(t, (k,), w, b, 1e-5))

    def run_ln(mod):
        mod.layer_norm_fwd_kernel[(m,)](a, yv, w, b, mean, rstd, a.stride(0), k, 1e-5,
                                        BLOCK_SIZE=1024, num_warps=8)
    run_ln(t_ln)
    ref = torch.nn.functional.layer_norm(a, (k,), w, b, 1e-5)
    assert ((yv - ref).norm() / ref.norm()).item() < 1e-5, "layer norm wrong"
    row(f"layer norm fwd fp32 {m}x{k}", 2 * a.numel() * 4, {
        "tessera": bench(lambda: run_ln(t_ln)),
        "triton": bench(lambda: run_ln(tr_ln)),
        "torch": bench(lambda: torch.nn.functional.layer_norm(a, (k,), w, b, 1e-5)),
        "compile": bench(lambda: ln_c(a)) if ln_c else None}, copy_tbs)


def triton_cdiv(a, b):
    return (a + b - 1) // b


def triton_next_pow2(n):
    return 1 << (n - 1).bit_length()


COLD = r'''
import os, sys, time, pathlib
sys.path.insert(0, {python!r}); sys.path.insert(0, {examples!r})
import torch
torch.empty(1, device="cuda"); torch.cuda.synchronize()
which, kind = {which!r}, {kind!r}
if which == "triton":
    import importlib.util, tempfile
    src = pathlib.Path({examples!r}, kind + ".py").read_text()
    src = src.replace("import tessera as triton", "import triton").replace("import tessera.language as tl", "import triton.language as tl")
    p = pathlib.Path(tempfile.mkdtemp()) / ("t_" + kind + ".py"); p.write_text(src)
    spec = importlib.util.spec_from_file_location("t_" + kind, p); mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
else:
    import importlib; mod = importlib.import_module(kind)
if kind == "softmax":
    a = torch.randn(4096, 1024, device="cuda"); o = torch.empty_like(a)
    t0 = time.perf_counter()
    mod.softmax_kernel[(4096,)](o, a, 1024, 1024, 1024, BLOCK_SIZE=1024)
else:
    a = torch.randn(512, 512, device="cuda"); b = torch.randn(512, 512, device="cuda"); c = torch.empty(512, 512, device="cuda")
    k = mod.matmul_kernel.fn if hasattr(mod.matmul_kernel, "fn") else mod.matmul_kernel
    t0 = time.perf_counter()
    k[(64,)](a, b, c, 512, 512, 512, 512, 1, 512, 1, 512, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8)
torch.cuda.synchronize()
print((time.perf_counter() - t0) * 1e3)
'''


def cold_compile():
    for kind in ("softmax", "matmul"):
        res = {}
        for which in ("tessera", "triton"):
            times = []
            for _ in range(3):
                with tempfile.TemporaryDirectory() as cache:
                    env = dict(os.environ, TESSERA_CACHE_DIR=cache, TRITON_CACHE_DIR=cache)
                    code = COLD.format(python=str(ROOT / "python"), examples=str(ROOT / "examples"),
                                       which=which, kind=kind)
                    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                       text=True, env=env)
                    if r.returncode != 0:
                        say(f"cold compile {kind} {which} failed: {r.stderr[-2000:]}")
                        break
                    times.append(float(r.stdout.split()[-1]))
            res[which] = statistics.median(times) if times else None
        t, tr = res["tessera"], res["triton"]
        faster = f"{tr / t:6.1f}x faster" if t and tr else "n/a"
        say(f"cold compile {kind:8s}  tessera {t or float('nan'):8.1f} ms | triton "
            f"{tr or float('nan'):8.1f} ms || {faster}")
        if kind == "matmul":
            TARGETS.check("cold compile, matmul example", {"ms": t}, [("ms", "<=", 50.0)])


def host_us_per_launch(f, batch=200, batches=50):
    """Host time of one launch: batches of back-to-back launches timed by the
    host clock, the GPU drained (untimed) between batches so that a full
    launch queue never makes the host wait for the GPU. Median over batches."""
    for _ in range(3):
        for _ in range(batch):
            f()
        torch.cuda.synchronize()
    reps = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(batch):
            f()
        reps.append((time.perf_counter() - t0) / batch * 1e6)
        torch.cuda.synchronize()
    return statistics.median(reps)


def launch_overhead():
    import vector_add as t_add
    tr_add = triton_module("vector_add")
    x = torch.randn(16, device="cuda")
    y = torch.randn(16, device="cuda")
    out = torch.empty_like(x)
    grid = lambda meta: (tessera.cdiv(16, meta["BLOCK_SIZE"]),)  # noqa: E731

    def autotuned(lib, kernel):  # the example's kernel under each compiler's own @autotune
        configs = [lib.Config({"BLOCK_SIZE": b}) for b in (256, 1024)]
        return lib.autotune(configs=configs, key=["n_elements"])(lib.jit(kernel.fn))
    import triton as triton_lib
    t_tuned, tr_tuned = autotuned(tessera, t_add.add_kernel), autotuned(triton_lib, tr_add.add_kernel)
    cases = {
        "tessera": lambda: t_add.add_kernel[(1,)](x, y, out, 16, BLOCK_SIZE=1024),
        "triton": lambda: tr_add.add_kernel[(1,)](x, y, out, 16, BLOCK_SIZE=1024),
        "tessera, grid lambda": lambda: t_add.add_kernel[grid](x, y, out, 16, BLOCK_SIZE=1024),
        "triton, grid lambda": lambda: tr_add.add_kernel[grid](x, y, out, 16, BLOCK_SIZE=1024),
        "tessera, autotuned": lambda: t_tuned[grid](x, y, out, 16),
        "triton, autotuned": lambda: tr_tuned[grid](x, y, out, 16),
        "torch.add": lambda: torch.add(x, y, out=out),
    }
    # Interleaved rounds, so that a change of the machine's state during the
    # run affects every contender alike; the median over rounds is reported.
    res = {k: [] for k in cases}
    for _ in range(5):
        for k, f in cases.items():
            res[k].append(host_us_per_launch(f))
    m = {k: statistics.median(v) for k, v in res.items()}
    say(f"launch (host us/launch)  tessera {m['tessera']:6.2f} | triton {m['triton']:6.2f} | "
        f"torch.add {m['torch.add']:6.2f} || tessera/triton {m['tessera'] / m['triton']:5.2f}")
    say(f"launch, grid lambda      tessera {m['tessera, grid lambda']:6.2f} | triton "
        f"{m['triton, grid lambda']:6.2f} || tessera/triton "
        f"{m['tessera, grid lambda'] / m['triton, grid lambda']:5.2f}")
    say(f"launch, autotuned        tessera {m['tessera, autotuned']:6.2f} | triton "
        f"{m['triton, autotuned']:6.2f} || tessera/triton "
        f"{m['tessera, autotuned'] / m['triton, autotuned']:5.2f}")


MATMUL_CASES = [("fp16", 4096, 4096, 4096), ("fp16", 8192, 8192, 8192),
                ("bf16", 4096, 4096, 4096), ("bf16", 8192, 8192, 8192),
                ("fp8", 4096, 4096, 4096), ("fp8", 8192, 8192, 8192),
                ("fp16", 16, 8192, 8192), ("fp16", 4000, 4000, 4000)]


def matmul(quick, rounds=1):
    import matmul as t_mm
    tr_mm = triton_module("matmul")
    dtypes = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp8": torch.float8_e4m3fn}
    cases = MATMUL_CASES[:1] if quick else MATMUL_CASES
    for name, M, N, K in cases:
        dt = dtypes[name]
        a = torch.randn(M, K, device="cuda").to(dt)
        if dt == torch.float8_e4m3fn:
            b = torch.randn(N, K, device="cuda").to(dt).t()
            one = torch.tensor(1.0, device="cuda")
            ref_fn = lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.float16)  # noqa: E731
            out_dt = torch.float16
        else:
            b = torch.randn(K, N, device="cuda").to(dt)
            ref_fn = lambda: a @ b  # noqa: E731
            out_dt = dt
        ref = ref_fn().double()
        flops = 2 * M * N * K
        runs, res = {"cublas": ref_fn}, {}
        for impl, mod in (("tessera", t_mm), ("triton", tr_mm)):
            c = torch.full((M, N), float("nan"), device="cuda", dtype=out_dt)
            grid = lambda meta: (triton_cdiv(M, meta["BLOCK_SIZE_M"]) *  # noqa: E731
                                 triton_cdiv(N, meta["BLOCK_SIZE_N"]),)

            def run(mod=mod, c=c, grid=grid):
                mod.matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                        b.stride(1), c.stride(0), c.stride(1))
            try:
                run()  # the first call autotunes
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001
                say(f"  {impl} {name} {M}x{N}x{K} failed: {str(e).splitlines()[0][:200]}")
                continue
            err = ((c.double() - ref).norm() / ref.norm()).item()
            if not err <= 2e-2:
                say(f"  {impl} {name} {M}x{N}x{K}: relative error {err:.2e} against cuBLAS")
            runs[impl] = run
            res[impl + "_cfg"] = config_name(mod.matmul_kernel)
        spread = median_rounds(runs, flops, rounds, res)
        t, tr, cb = res.get("tessera"), res.get("triton"), res["cublas"]
        vs = {"triton": ratio(t, tr), "cublas": ratio(t, cb)}
        fmt = lambda v: f"{v:6.1f}" if v else "   n/a"  # noqa: E731
        say(f"matmul {name:4s} {M:5d}x{N:5d}x{K:5d}  tessera {fmt(t)} | triton {fmt(tr)} | "
            f"cuBLAS {fmt(cb)} TFLOP/s || tessera/triton {fmt_ratio(vs['triton'])} tessera/cuBLAS "
            f"{fmt_ratio(vs['cublas'])}  (tuned: tessera {res.get('tessera_cfg', '-')}, "
            f"triton {res.get('triton_cfg', '-')}){spread}")
        TARGETS.check(f"matmul {name} {M}x{N}x{K}", vs,
                      matmul_bounds(name, M, N, K, os.environ.get("TESSERA_TARGET", "")))


def fmt_ratio(r):
    """A row's Tessera / peer ratio (targets.ratio), nan where not measured."""
    return f"{r if r is not None else float('nan'):5.2f}"


def median_rounds(runs, flops, rounds, res, first=None):
    """Times each of `runs` ({name: fn}) in turn, round after round, until
    each has `rounds` timings (`first`: {name: TFLOP/s} of a round already
    timed), and sets res[name] to the median TFLOP/s. Returns the spread as
    a note for the row ("" for one round)."""
    rates = {impl: [first[impl]] if first else [] for impl in runs}
    for _ in range(rounds - (1 if first else 0)):
        for impl, fn in runs.items():
            rates[impl].append(flops / bench(fn) / 1e9)
    for impl, r in rates.items():
        res[impl] = statistics.median(r)
    if rounds <= 1:
        return ""
    return f" [{rounds} rounds: " + ", ".join(
        f"{impl} {min(r):.0f}-{max(r):.0f}" for impl, r in rates.items()) + "]"


def config_name(autotuned):
    """The config an autotuned matmul_kernel picked, as BMxBNxBK w<warps> s<stages>:
    which tile a row's number came from (a choice that differs between runs
    explains a row that moves)."""
    c = getattr(autotuned, "best_config", None)
    if c is None:
        return "-"
    k = c.kwargs
    return (f"{k['BLOCK_SIZE_M']}x{k['BLOCK_SIZE_N']}x{k['BLOCK_SIZE_K']}"
            f"w{c.num_warps}s{c.num_stages}")


# (block_m, block_n, num_warps, num_stages, warp_specialize): the last three
# run the key loop with a producer warp issuing its copies (Hopper).
ATTENTION_CONFIGS = [(128, 64, 8, 3, False), (128, 128, 8, 2, False), (128, 128, 8, 3, False),
                     (128, 64, 4, 3, False), (64, 64, 4, 3, False), (128, 128, 8, 2, True),
                     (128, 64, 8, 3, True), (128, 128, 8, 3, True)]


def attention(quick, rounds=1):
    import attention as t_att
    tr_att = triton_module("attention")
    cases = [(d, n, c) for d in (64, 128) for n in (4096, 8192) for c in (False, True)]
    if quick:
        cases = cases[:2]
    Z, H = 4, 32
    for head_dim, n_ctx, causal in cases:
        q, k, v = (torch.randn(Z, H, n_ctx, head_dim, device="cuda", dtype=torch.float16)
                   for _ in range(3))
        flops = 4 * Z * H * n_ctx * n_ctx * head_dim * (0.5 if causal else 1.0)
        sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(  # noqa: E731
            q, k, v, is_causal=causal)
        ref = sdpa().double()
        res = {"sdpa": flops / bench(sdpa) / 1e9}
        runs = {"sdpa": sdpa}
        for impl, mod in (("tessera", t_att), ("triton", tr_att)):
            best = None
            for bm, bn, warps, stages, ws in ATTENTION_CONFIGS:
                o = torch.full_like(q, float("nan"))
                # Bound now: the best config's run is called again after the search.
                def run(mod=mod, bm=bm, bn=bn, warps=warps, stages=stages, ws=ws, o=o):
                    return mod.attention(q, k, v, causal=causal, block_m=bm, block_n=bn,
                                         num_warps=warps, num_stages=stages, o=o,
                                         warp_specialize=ws)
                try:
                    run()
                    torch.cuda.synchronize()
                except Exception as e:  # noqa: BLE001
                    say(f"  {impl} attention {bm}x{bn} w{warps} s{stages}{' ws' if ws else ''} failed: "
                        f"{str(e).splitlines()[0][:200]}")
                    continue
                err = ((o.double() - ref).norm() / ref.norm()).item()
                if not err <= 1e-2:
                    say(f"  {impl} attention {bm}x{bn}: relative error {err:.2e} against SDPA")
                    continue
                t = flops / bench(run) / 1e9
                if best is None or t > best[0]:
                    best = (t, f"{bm}x{bn}w{warps}s{stages}{'ws' if ws else ''}", run)
            res[impl] = best[0] if best else None
            res[impl + "_cfg"] = best[1] if best else "-"
            if best:
                runs[impl] = best[2]
        # The search's timings are the first round; more rounds time SDPA
        # and each compiler's best config in turn.
        spread = median_rounds(runs, flops, rounds, res, first={i: res[i] for i in runs})
        t, tr, sd = res.get("tessera"), res.get("triton"), res["sdpa"]
        vs = {"triton": ratio(t, tr), "sdpa": ratio(t, sd), "fa3": ratio(t, FA3_PUBLISHED_TFLOPS)}
        fmt = lambda x: f"{x:6.1f}" if x else "   n/a"  # noqa: E731
        say(f"attention fwd D={head_dim:3d} N={n_ctx:5d} {'causal' if causal else 'full  '}  "
            f"tessera {fmt(t)} | triton {fmt(tr)} | SDPA {fmt(sd)} TFLOP/s || tessera/triton "
            f"{fmt_ratio(vs['triton'])} tessera/SDPA {fmt_ratio(vs['sdpa'])}  (best: tessera "
            f"{res['tessera_cfg']}, triton {res['triton_cfg']}){spread}")
        TARGETS.check(f"attention fwd D {head_dim} N {n_ctx}{' causal' if causal else ''}", vs,
                      attention_bounds(head_dim, causal))


# (block_m, block_n, warps, stages); 32x128 on 4 warps with 5 stages is what
# Triton's tutorial 06 runs its backward with (BLOCK_M1/N2 32, BLOCK_N1/M2 128).
ATTENTION_BWD_CONFIGS = [(64, 64, 4, 2), (32, 128, 4, 2), (64, 128, 8, 2), (64, 128, 4, 3),
                         (32, 64, 4, 3), (32, 128, 4, 3), (32, 128, 4, 5)]


def attention_bwd(quick):
    """The example's backward (dQ, dK, dV from O, lse and dO) by both
    compilers, SDPA's backward (autograd) as the ceiling; 2.5x the forward's
    FLOPs (five products of the forward's two)."""
    import attention as t_att
    tr_att = triton_module("attention")
    cases = [(d, 4096, c) for d in (64, 128) for c in (False, True)]
    if quick:
        cases = cases[:1]
    Z, H = 4, 32
    for head_dim, n_ctx, causal in cases:
        q, k, v, do = (torch.randn(Z, H, n_ctx, head_dim, device="cuda", dtype=torch.float16)
                       for _ in range(4))
        flops = 10 * Z * H * n_ctx * n_ctx * head_dim * (0.5 if causal else 1.0)
        qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
        out = torch.nn.functional.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)
        sdpa = lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)  # noqa: E731
        refs = sdpa()
        res = {"sdpa": flops / bench(sdpa) / 1e9}
        for impl, mod in (("tessera", t_att), ("triton", tr_att)):
            best = None
            try:
                o, lse = mod.attention(q, k, v, causal=causal, block_m=128, block_n=64,
                                       num_warps=8)
            except Exception as e:  # noqa: BLE001
                say(f"  {impl} attention forward failed: {str(e).splitlines()[0][:200]}")
                continue
            for bm, bn, warps, stages in ATTENTION_BWD_CONFIGS:
                grads = [torch.full_like(q, float("nan")) for _ in range(3)]
                run = lambda: mod.attention_backward(  # noqa: E731
                    q, k, v, o, lse, do, causal=causal, block_m=bm, block_n=bn,
                    num_warps=warps, num_stages=stages, dq=grads[0], dk=grads[1], dv=grads[2])
                try:
                    run()
                    torch.cuda.synchronize()
                except Exception as e:  # noqa: BLE001
                    say(f"  {impl} attention bwd {bm}x{bn} w{warps} s{stages} failed: "
                        f"{str(e).splitlines()[0][:200]}")
                    continue
                err = max(((g.double() - r.double()).norm() / r.double().norm()).item()
                          for g, r in zip(grads, refs))
                if not err <= 2e-2:
                    say(f"  {impl} attention bwd {bm}x{bn}: relative error {err:.2e} against SDPA")
                    continue
                t = flops / bench(run) / 1e9
                if best is None or t > best[0]:
                    best = (t, f"{bm}x{bn}w{warps}s{stages}")
            res[impl] = best[0] if best else None
            res[impl + "_cfg"] = best[1] if best else "-"
        t, tr, sd = res.get("tessera"), res.get("triton"), res["sdpa"]
        fmt = lambda x: f"{x:6.1f}" if x else "   n/a"  # noqa: E731
        vs = {"triton": ratio(t, tr), "sdpa": ratio(t, sd)}
        say(f"attention bwd D={head_dim:3d} N={n_ctx:5d} {'causal' if causal else 'full  '}  "
            f"tessera {fmt(t)} | triton {fmt(tr)} | SDPA {fmt(sd)} TFLOP/s || tessera/triton "
            f"{fmt_ratio(vs['triton'])} tessera/SDPA {fmt_ratio(vs['sdpa'])}  (best: tessera "
            f"{res.get('tessera_cfg')}, triton {res.get('triton_cfg')})")
        TARGETS.check(f"attention bwd D {head_dim} N {n_ctx}{' causal' if causal else ''}", vs,
                      attention_bounds(head_dim, causal, backward=True))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--only", default="memory,matmul,attention,attention_bwd,cold,launch")
    ap.add_argument("--rounds", type=int, default=1,
                    help="matmul and attention: time each implementation (attention: at its "
                         "best config) this many times, alternating, and report the median "
                         "(the spread too)")
    args = ap.parse_args()
    parts = args.only.split(",")
    try:
        if "memory" in parts:
            memory_bound(args.quick)
        if "matmul" in parts:
            matmul(args.quick, args.rounds)
        if "attention" in parts:
            attention(args.quick, args.rounds)
        if "attention_bwd" in parts:
            attention_bwd(args.quick)
        if "launch" in parts:
            launch_overhead()
        if "cold" in parts:
            cold_compile()
        for line in TARGETS.report():
            say(line)
    finally:
        if args.out:
            pathlib.Path(args.out).write_text("\n".join(LINES) + "\n")


if __name__ == "__main__":
    main()
