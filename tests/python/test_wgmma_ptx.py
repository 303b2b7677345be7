"""The example matmul on sm_90a for every block shape, dtype and operand
orientation its autotuner and users reach: which dots run on wgmma, and
ptxas accepts every PTX (wgmma's operand rules are strict: descriptor
operands, register counts per shape, transposes only for 16-bit types).
The GPU suite (tests/gpu/test_dot_gpu.py) checks the results on a Hopper."""

from __future__ import annotations

import os
import re
import pathlib
import subprocess
import tempfile

import pytest

from tessera_testing import REPO, _ptxas, assemble_ptx, ptxas_report

TESSERAC = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", REPO / "build")) / "tesserac"

# (a, b, c dtypes, A K-contiguous, B N-contiguous, BM, BN, BK, warps, wgmma shape or None)
CASES = [
    ("fp16", "fp16", "fp16", True, True, 128, 256, 64, 8, "m64n256k16.f32.f16.f16"),
    ("fp16", "fp16", "fp16", True, True, 64, 256, 32, 4, "m64n256k16.f32.f16.f16"),
    ("fp16", "fp16", "fp16", True, True, 128, 128, 64, 4, "m64n128k16.f32.f16.f16"),
    ("fp16", "fp16", "fp16", True, True, 64, 64, 32, 4, "m64n64k16.f32.f16.f16"),
    ("fp16", "fp16", "fp16", False, True, 128, 128, 32, 4, "m64n128k16.f32.f16.f16"),
    ("fp16", "fp16", "fp16", True, False, 128, 64, 64, 4, "m64n64k16.f32.f16.f16"),
    ("bf16", "bf16", "bf16", True, True, 128, 128, 32, 8, "m64n128k16.f32.bf16.bf16"),
    ("fp8e4nv", "fp8e4nv", "fp16", True, False, 128, 256, 64, 8, "m64n256k32.f32.e4m3.e4m3"),
    ("fp8e5", "fp8e4nv", "fp16", True, False, 128, 128, 128, 4, "m64n128k32.f32.e5m2.e4m3"),
    ("fp8e4nv", "fp8e4nv", "fp16", True, True, 128, 128, 64, 4, None),  # B not K-major
    ("fp16", "fp16", "fp16", True, True, 32, 64, 32, 4, None),  # 32 rows: below one warpgroup's 64
]


def signature(a, b, c, a_k_contig, b_n_contig, bm, bn, bk):
    sa = "i32:16, 1" if a_k_contig else "1, i32:16"
    sb = "i32:16, 1" if b_n_contig else "1, i32:16"
    return (f"*{a}:16, *{b}:16, *{c}:16, i32:16, i32:16, i32:16, {sa}, {sb}, i32:16, 1, "
            f"{bm}, {bn}, {bk}, 8, 'ieee'")


@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[5]}x{c[6]}x{c[7]}-w{c[8]}-"
                         f"{'k' if c[3] else 'm'}{'n' if c[4] else 'k'}")
def test_matmul_on_wgmma(case):
    a, b, c, ak, bn_, bm, bn, bk, warps, shape = case
    r = subprocess.run([str(TESSERAC), "compile", str(REPO / "examples/matmul.py"), "--kernel",
                        "matmul_kernel", "--signature", signature(a, b, c, ak, bn_, bm, bn, bk),
                        "--emit", "ptx", "--target", "sm_90a", "--num-warps", str(warps)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ptx = r.stdout
    if shape is None:
        assert "wgmma" not in ptx and "mma.sync" in ptx
    else:
        assert f"wgmma.mma_async.sync.aligned.{shape} " in ptx
        assert "mma.sync" not in ptx and "ldmatrix" not in ptx
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")
        # ptxas serializes wgmma (a large slowdown, with only a note) when
        # anything reads an accumulator while a group may still write it.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "k.ptx")
            with open(path, "w") as f:
                f.write(ptx)
            r = subprocess.run([_ptxas(), "-arch=sm_90a", "-v", path, "-o", os.devnull],
                               capture_output=True, text=True)
        assert "serialized" not in r.stderr, r.stderr


# A K not known to be a multiple of 16 (an `i32` K in the signature): the K
# masks of K-contiguous operands change inside a run of 16 bytes, but as a
# prefix of it (mask_prefix.h), so those operands still travel by 16-byte
# copies that read only the run's first elements (`min` of the distance to
# K and the run) and zero-fill the rest; the dot stays on the tensor cores
# and nothing is loaded element by element.
RAGGED_K = [
    ("fp16", "fp16", "fp16", True, True, 128, 128, 64, 8, "m64n128k16.f32.f16.f16"),
    ("bf16", "bf16", "bf16", True, False, 128, 128, 32, 4, "m64n128k16.f32.bf16.bf16"),
    ("fp16", "fp16", "fp16", False, False, 64, 128, 64, 4, "m64n128k16.f32.f16.f16"),
    ("fp8e4nv", "fp8e4nv", "fp16", True, False, 128, 256, 64, 8, "m64n256k32.f32.e4m3.e4m3"),
]


@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("case,target", [(c, t) for c in RAGGED_K for t in ("sm_90a", "sm_80")
                                         if not (c[0] == "fp8e4nv" and t == "sm_80")],
                         ids=lambda v: v if isinstance(v, str) else
                         f"{v[0]}-{'k' if v[3] else 'm'}{'n' if v[4] else 'k'}")
def test_ragged_k_copies_whole_runs(case, target):
    # (fp8 dots run on FMAs below sm_89, from plain loads.)
    a, b, c, ak, bn_, bm, bn, bk, warps, shape = case
    sig = signature(a, b, c, ak, bn_, bm, bn, bk).replace(
        "i32:16, i32:16, i32:16, ", "i32:16, i32:16, i32, ", 1)
    r = subprocess.run([str(TESSERAC), "compile", str(REPO / "examples/matmul.py"), "--kernel",
                        "matmul_kernel", "--signature", sig, "--emit", "ptx", "--target", target,
                        "--num-warps", str(warps)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ptx = r.stdout
    assert "ld.global" not in ptx
    if target == "sm_90a":
        # The masked loads are boxes: the copy engine reads them, zero-filling
        # past K (tests/ptx/pointer_tma.py).
        assert "cp.async.bulk.tensor.2d" in ptx
        assert "cp.async.cg" not in ptx
        assert f"wgmma.mma_async.sync.aligned.{shape} " in ptx
    else:
        assert "cp.async.cg.shared.global" in ptx
        assert "min.u32" in ptx  # the run's in-bounds length
        assert "mma.sync.aligned" in ptx
    if _ptxas() is not None:
        assemble_ptx(ptx, target)


# Offsets wrapped into range with `% M` / `% N` (no row or column masks; the
# style of Triton's matmul tutorial; tests/python/kernels/dots.py). Storing
# every row (STORE_ALL) the loads stay on cp.async, whose runs of 16
# elements N % 16 == 0 keeps contiguous: with an N of unknown alignment a run
# may wrap anywhere and B is loaded element by element. With the store
# masked, the copy engine reads the boxes (descriptors-from-pointers), and
# N's alignment does not matter: it is a shape, not a stride.


@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("n_spec,store_all,on_wgmma,copy_engine",
                         [("i32:16", 1, True, False), ("i32", 1, False, False),
                          ("i32:16", 0, True, True), ("i32", 0, True, True)])
def test_wrapped_offsets_run_on_wgmma(n_spec, store_all, on_wgmma, copy_engine):
    src = REPO / "tests/python/kernels/dots.py"
    sig = (f"*fp16:16, *fp16:16, *fp16:16, i32:16, {n_spec}, i32:16, i32:16, i32:16, i32:16, "
           f"128, 128, 64, {store_all}")
    r = subprocess.run([str(TESSERAC), "compile", str(src), "--kernel", "wrapped_matmul",
                        "--signature", sig, "--emit", "ptx", "--target", "sm_90a",
                        "--num-warps", "4"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert ("wgmma.mma_async" in r.stdout) == on_wgmma
    assert ("cp.async.bulk.tensor" in r.stdout) == copy_engine
    if _ptxas() is not None:
        assemble_ptx(r.stdout, "sm_90a")


# The example attention (examples/attention.py): Q K^T reads Q (loaded once,
# before the loops, and staged in shared memory by cp.async) and K (a
# swizzled ring) from shared memory; P V reads P, the softmax of the first
# product computed in its accumulator layout, from registers. Every dot runs on wgmma, and no layout conversion runs per
# iteration (the softmax statistics keep the accumulator's row layout) when
# the warpgroups split only M.
ATTENTION = [(64, 128, 64, 8, 3), (128, 128, 64, 8, 3), (64, 128, 128, 8, 2),
             (64, 128, 64, 4, 3), (64, 64, 64, 4, 3), (128, 64, 64, 8, 2)]


@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("causal", [0, 1])
@pytest.mark.parametrize("cfg", ATTENTION, ids=lambda c: "d{}-{}x{}-w{}-s{}".format(*c))
def test_attention_on_wgmma_with_register_operands(dtype, causal, cfg):
    head_dim, bm, bn, warps, stages = cfg
    # Strides: Q's, K's and V's head and row, V's head dim (1), O's head and row.
    sig = (f"*{dtype}:16, *{dtype}:16, *{dtype}:16, *{dtype}:16, *fp32:16, fp32, i32, "
           + ", ".join(["i32:16"] * 6 + ["1"] + ["i32:16"] * 2)
           + f", {head_dim}, {bm}, {bn}, {causal}, 0")

    def compile_to(emit):
        r = subprocess.run([str(TESSERAC), "compile", str(REPO / "examples/attention.py"),
                            "--kernel", "attention_fwd_kernel", "--signature", sig, "--emit",
                            emit, "--target", "sm_90a", "--num-warps", str(warps),
                            "--num-stages", str(stages)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout

    ptx = compile_to("ptx")
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")
    types = "f32.f16.f16" if dtype == "fp16" else "f32.bf16.bf16"
    # Warpgroups split M first (64 rows each), then N.
    groups = warps // 4
    split_n = groups // min(groups, bm // 64)
    qk = f"wgmma.mma_async.sync.aligned.m64n{bn // split_n}k16.{types}"
    pv = f"wgmma.mma_async.sync.aligned.m64n{head_dim // split_n}k16.{types}"
    # Q K^T: both operands by descriptor; P V: A from four 32-bit registers.
    lines = [line.strip() for line in ptx.splitlines()]
    assert any(line.startswith(qk) and "}, %rd" in line for line in lines), qk
    assert any(line.startswith(pv) and "}, {%r" in line for line in lines), pv
    assert "ld.global" not in ptx  # Q reaches shared memory by cp.async
    # exp2 as Triton lowers it (flushing subnormal results).
    assert "ex2.approx.ftz.f32" in ptx and "ex2.approx.f32" not in ptx
    assert "mma.sync" not in ptx and "ldmatrix" not in ptx
    if split_n > 1:  # P must be gathered from the warpgroups that split its columns
        return
    ttgir = compile_to("ttgir")
    in_loop, depth = False, 0
    for line in ttgir.splitlines():
        if " = for " in line:
            in_loop, depth = True, 0
        if in_loop:
            depth += line.count("{") - line.count("}")
            assert "convert_layout" not in line, line
            if depth <= 0 and "}" in line:
                in_loop = False


# The example attention in fp8 (V stored keys-contiguous, the tutorial's
# layout, so P V's B operand is K-major): both products on wgmma with the
# inputs' fp8 type, P converted to it in registers. With V head-dim
# contiguous, P V cannot read V K-major and runs on mma.sync instead.
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("dtype,name", [("fp8e5", "e5m2"), ("fp8e4nv", "e4m3")])
@pytest.mark.parametrize("v_keys_contiguous", [True, False])
def test_attention_fp8(dtype, name, v_keys_contiguous):
    v_strides = "1, i32:16" if v_keys_contiguous else "i32:16, 1"
    sig = (f"*{dtype}:16, *{dtype}:16, *{dtype}:16, *fp16:16, *fp32:16, fp32, i32, "
           + ", ".join(["i32:16"] * 5) + f", {v_strides}, i32:16, i32:16, 128, 64, 128, 1, 0")
    r = subprocess.run([str(TESSERAC), "compile", str(REPO / "examples/attention.py"), "--kernel",
                        "attention_fwd_kernel", "--signature", sig, "--emit", "ptx", "--target",
                        "sm_90a", "--num-warps", "4", "--num-stages", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ptx = r.stdout
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")
    products = set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k32\.f32\.(\w+)\.(\w+)",
                              ptx))
    assert products == {("128", name, name)}, products
    # Q K^T always reads descriptors; P V reads P from registers when V is K-major.
    assert any(re.match(r"wgmma.*}, {%r", line.strip()) for line in ptx.splitlines()) == \
        v_keys_contiguous
    assert ("mma.sync" in ptx) != v_keys_contiguous


@pytest.mark.parametrize("causal", [0, 1])
@pytest.mark.parametrize("cfg", [(128, 128, 8, 2), (64, 64, 4, 3), (128, 128, 8, 3)],
                         ids=lambda c: "{}x{}-w{}-s{}".format(*c))
def test_attention_warp_specialized(causal, cfg):
    # attention(..., warp_specialize=True): the key loop whose K and V come
    # by tensor copies gets a producer warp (the masked loop after it copies
    # by cp.async, in the consumers). Causal, both loops copy by tensor
    # copies, one after the other, into one set of rings: the shared memory
    # is the unspecialised kernel's, a few barriers more and at most one more
    # 1024-byte alignment step (two sets of rings would be tens of KB more).
    # 128x128 on 8 warps with 3 stages is rotated with an S of 64 registers
    # a thread: a producer warpgroup hands its registers to the consumers
    # (setmaxnreg), which then hold S, P and the accumulator without a spill;
    # there the kernel not marked is split too (causal, both its copying
    # loops), into the same PTX.
    bm, bn, warps, stages = cfg
    producers = 4 if (bm, bn, warps, stages) == (128, 128, 8, 3) else 1
    unasked = producers == 4

    def compile_(ws, emit="ptx"):
        sig = ("*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32, "
               + ", ".join(["i32:16"] * 6 + ["1"] + ["i32:16"] * 2)
               + f", 128, {bm}, {bn}, {causal}, {ws}")
        r = subprocess.run([str(TESSERAC), "compile", str(REPO / "examples/attention.py"),
                            "--kernel", "attention_fwd_kernel", "--signature", sig, "--emit", emit,
                            "--target", "sm_90a", "--num-warps", str(warps), "--num-stages",
                            str(stages)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout

    ptx, twin = compile_(1), compile_(1, "ptx-unspecialized")
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")
        assemble_ptx(twin, "sm_90a")
    assert f"// tessera.producer_warps = {producers}" in ptx
    assert f".maxntid {32 * (warps + producers)}, 1, 1" in ptx
    handover = re.findall(r"setmaxnreg\.(inc|dec)\.sync\.aligned\.u32 (\d+);", ptx)
    assert handover == ([("inc", "240"), ("dec", "24")] if producers == 4 else []), handover
    if producers == 4 and _ptxas() is not None:
        assert ptxas_report(ptx, "sm_90a")["stack"] == 0
    assert f"bar.sync 1, {32 * warps};" in ptx
    shared = lambda p: int(re.search(r"tessera.shared_bytes = (\d+)", p).group(1))  # noqa: E731
    assert shared(ptx) <= shared(twin) + 1024 + 64
    # The unspecialised twin, which the loader runs where the producer warp
    # spills or costs a block: the kernel compiled unmarked (and not split
    # unasked).
    assert "producer_warps" not in twin and f".maxntid {32 * warps}, 1, 1" in twin
    assert "cp.async.bulk.tensor" in twin
    unmarked = compile_(0)
    assert unmarked == (ptx if unasked else twin)
    if unasked:
        assert compile_(0, "ptx-unspecialized") == twin
    # The launch facts other than the block and its shared memory are the same.
    facts = r"// tessera\.(?:tensormap|map_stride|global_scratch) = .*"
    assert re.findall(facts, twin) == re.findall(facts, ptx)


def assert_buffers_aligned(ptx):
    # The ring area holds the rings, the operands staged before a loop and
    # the mbarriers (8 bytes each): every buffer starts on 128 bytes (1024
    # when swizzled), wherever the barriers sit. A padded buffer after three
    # barriers once sat at 8 mod 16 and its 16-byte cp.async faulted
    # (misaligned address).
    bars = set(re.findall(r"mbarrier\.init\.shared::cta\.b64 \[(%r\d+)\+0\]", ptx))
    assert bars, "no mbarriers in the kernel"
    area = re.search(r"add\.u32 " + re.escape(next(iter(bars))) + r", (%r\d+), \d+;", ptx).group(1)
    offsets = re.findall(r"add\.u32 (%r\d+), " + re.escape(area) + r", (\d+);", ptx)
    buffers = [int(n) for r, n in offsets if r not in bars]
    assert len(buffers) >= 2, offsets
    assert all(n % 128 == 0 for n in buffers), offsets


# The example attention's backward: dV += P^T dO and dK += dS^T Q (dQ += dS K
# in the dQ kernel) read their first operand, computed in the loop, from
# registers and accumulate in place. Each leaves its wgmma group running
# (wait_group 1) past its last instruction, into the next product or the
# next iteration, whose own waits retire it before the registers are
# rewritten; the loops' products that are read at once (S, dP) wait for
# themselves. Every loop ends with wait_group 0.
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("kernel, dots, overlapping", [("attention_bwd_dkdv_kernel", 4, 2),
                                                       ("attention_bwd_dq_kernel", 3, 1)])
@pytest.mark.parametrize("causal", [0, 1])
def test_attention_backward_accumulators_stay_in_flight(kernel, dots, overlapping, causal):
    ptrs = 8 if kernel == "attention_bwd_dkdv_kernel" else 7
    sig = ", ".join(["*fp16:16"] * 4 + ["*fp32:16"] * 2 + ["*fp16:16"] * (ptrs - 6)) + \
        f", fp32, i32, i32:16, i32:16, 64, 64, 128, {causal}"
    if kernel == "attention_bwd_dq_kernel":
        sig = sig.replace("64, 64, 128,", "64, 128, 64,")
    r = subprocess.run([str(TESSERAC), "compile", str(REPO / "examples/attention.py"), "--kernel",
                        kernel, "--signature", sig, "--emit", "ptx", "--target", "sm_90a",
                        "--num-warps", "8", "--num-stages", "3"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ptx = r.stdout
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")
    lines = [line.strip() for line in ptx.splitlines()]
    # dK/dV: whole blocks, the ragged tail and, if causal, the diagonal; dQ:
    # whole blocks, then the diagonal and ragged ones.
    loops = 2 + causal if kernel == "attention_bwd_dkdv_kernel" else 2
    waits = [lines[i + 1] for i, line in enumerate(lines)
             if line.startswith("wgmma.commit_group")]
    assert waits.count("wgmma.wait_group.sync.aligned 1;") == overlapping * loops, waits
    assert waits.count("wgmma.wait_group.sync.aligned 0;") == (dots - overlapping) * loops, waits
    # The words of the register operand are copied just before the fence.
    for i, line in enumerate(lines):
        if line.startswith("wgmma.mma_async") and "}, {%r" in line:
            fence = max(j for j in range(i) if lines[j] == "wgmma.fence.sync.aligned;")
            assert lines[fence - 1].startswith("setp") or lines[fence - 1].startswith("mov.b32")
    exits = [lines[i + 2] for i, line in enumerate(lines) if line.startswith("bra $L")]
    assert exits.count("wgmma.wait_group.sync.aligned 0;") == loops, exits


# Kernels from tests/python/kernels/dots.py: one load read by two dots (as
# it is and transposed) fills one ring that both wgmma dots read; a wgmma
# product combined with an mma.sync one (whose B stays in registers) has
# its accumulator converted to the layout the other pinned.
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("kernel,sig,wgmma,mma_sync", [
    ("shared_operand_kernel", "*fp16:16, *fp16:16, *fp32:16, i32, 128, 32, 64", 12, 0),
    ("shared_operand_kernel", "*fp16:16, *fp16:16, *fp32:16, i32, 64, 64, 128", 12, 0),
    ("mixed_tensor_core_kernel", "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32, 128, 64, 64", 8, 64),
])
def test_dots_sharing_rings_and_layouts(kernel, sig, wgmma, mma_sync):
    def compile_to(emit):
        r = subprocess.run([str(TESSERAC), "compile", str(REPO / "tests/python/kernels/dots.py"),
                            "--kernel", kernel, "--signature", sig, "--emit", emit, "--target",
                            "sm_90a", "--num-warps", "4", "--num-stages", "3"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout

    ptx = compile_to("ptx")
    assert ptx.count("wgmma.mma_async") == wgmma
    assert ptx.count("mma.sync") == mma_sync
    assert_buffers_aligned(ptx)
    if kernel == "shared_operand_kernel":
        # One ring for kt, read directly and through memdesc_trans.
        ttgir = compile_to("ttgir")
        assert ttgir.count("local_alloc") == 2  # a, staged once; kt's ring
        assert "memdesc_trans" in ttgir
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")


# `acc += tl.dot(a, b)` is one wgmma accumulator chain (combine-dot-add):
# each iteration's group may still run when the next starts (wait_group 1),
# and no add per element follows each product. Without the combine, every
# product was waited for (wait_group 0 only) and added in 64 add.f32 per
# thread.
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
def test_accumulating_dots_chain_on_wgmma():
    r = subprocess.run([str(TESSERAC), "compile", str(REPO / "tests/python/kernels/dots.py"),
                        "--kernel", "accumulate_kernel", "--signature",
                        "*fp16:16, *fp16:16, *fp32:16, i32, 128, 128, 64", "--emit", "ptx",
                        "--target", "sm_90a", "--num-warps", "4", "--num-stages", "3"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ptx = r.stdout
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    assert "add.f32" not in ptx
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")


def compile_dots(kernel, sig, warps=4, emit="ptx", stages=3, target="sm_90a"):
    r = subprocess.run([str(TESSERAC), "compile", str(REPO / "tests/python/kernels/dots.py"),
                        "--kernel", kernel, "--signature", sig, "--emit", emit, "--target",
                        target, "--num-warps", str(warps), "--num-stages", str(stages)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def wgmma_lines(ptx):
    return [line.strip() for line in ptx.splitlines() if "wgmma.mma_async" in line]


# int8 and uint8 with K-major operands run on wgmma with int32 accumulators:
# the integer form, .satfinite as mma.sync's, has no scale or transpose
# immediates (ptxas rejects them).
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("a,b,bm,bn,bk,warps,shape", [
    ("i8", "i8", 128, 128, 64, 4, "m64n128k32.satfinite.s32.s8.s8"),
    ("u8", "u8", 64, 256, 128, 4, "m64n256k32.satfinite.s32.u8.u8"),
    ("i8", "i8", 128, 256, 64, 8, "m64n256k32.satfinite.s32.s8.s8"),
])
def test_int8_on_wgmma(a, b, bm, bn, bk, warps, shape):
    ptx = compile_dots("k_major_8bit_kernel", f"*{a}:16, *{b}:16, *i32:16, i32, {bm}, {bn}, {bk}",
                       warps)
    lines = wgmma_lines(ptx)
    assert lines and all(line.startswith(f"wgmma.mma_async.sync.aligned.{shape} ") for line in lines)
    # d, a-desc, b-desc, scale-d: nothing after the predicate.
    assert all(re.search(r"%rd\d+, %rd\d+, %p\d+;$", line) for line in lines), lines[0]
    assert "mma.sync" not in ptx and "add.f32" not in ptx
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")


# max_num_imprecise_acc = Q on fp8: each dot sums Q of K in a fresh partial
# accumulator and adds it into the fp32 one: BK / Q add.f32 per accumulator
# register and dot (Triton's count), none without Q, one per dot at Q = BK.
# The same on mma.sync (sm_89, or a B that is not K-major on sm_90a).
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("target", ["sm_90a", "sm_89"])
@pytest.mark.parametrize("bm,bn,bk,warps,q", [
    (128, 256, 128, 8, 32), (128, 256, 128, 8, 64), (128, 256, 128, 8, 128),
    (64, 64, 64, 8, 32), (128, 128, 64, 4, None), (128, 128, 64, 4, 0),
])
def test_fp8_imprecise_accumulation_is_promoted(bm, bn, bk, warps, q, target):
    sig = f"*fp8e4nv:16, *fp8e4nv:16, *fp32:16, i32, {bm}, {bn}, {bk}, {q}"
    ptx = compile_dots("k_major_8bit_kernel", sig, warps, target=target)
    acc_regs = bm * bn // (32 * warps)
    promotions = bk // q if q else 0
    # Made persistent (sm_90a), the kernel holds its K loop twice: fused
    # with the loop over tiles, and as written where the fusion does not
    # apply (flatten-loops' guard).
    loops = 2 if "tessera.persistent" in ptx else 1
    assert ptx.count("add.f32") == acc_regs * promotions * loops
    if target == "sm_89":
        assert "mma.sync" in ptx and "wgmma" not in ptx
        if _ptxas() is not None:
            assemble_ptx(ptx, "sm_89")
        return
    assert wgmma_lines(ptx) and "mma.sync" not in ptx
    if promotions:  # each promoted sum is waited for before its adds
        assert "wgmma.wait_group.sync.aligned 1" not in ptx
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")


# An fp8 A computed in registers feeds wgmma from four 32-bit registers of
# four fp8 values each (the m64nNk32 A fragment); B comes by descriptor.
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("bm,bn,bk,warps", [(64, 64, 64, 4), (128, 128, 64, 8), (128, 64, 128, 4)])
def test_fp8_operand_a_from_registers(bm, bn, bk, warps):
    ptx = compile_dots("fp8_register_a_kernel",
                       f"*fp16:16, *fp8e4nv:16, *fp32:16, i32, {bm}, {bn}, {bk}", warps)
    lines = wgmma_lines(ptx)
    groups = warps // 4
    split_n = groups // min(groups, bm // 64)
    shape = f"m64n{bn // split_n}k32.f32.e4m3.e4m3"
    assert lines and all(line.startswith(f"wgmma.mma_async.sync.aligned.{shape} ") for line in lines)
    assert all(re.search(r"\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %p\d+, 1, 1;$", line)
               for line in lines), lines[0]
    assert "mma.sync" not in ptx
    # The loop's only dot accumulates in place but reads A from registers that
    # the next iteration rewrites before any other wgmma waits: it waits for
    # its own group (no wait_group 1).
    plain = [line.strip() for line in ptx.splitlines()]
    waits = [plain[i + 1] for i, line in enumerate(plain) if line.startswith("wgmma.commit_group")]
    assert waits and all(w == "wgmma.wait_group.sync.aligned 0;" for w in waits), waits
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")


# fp8 attention's P: cast to fp8 in the accumulator layout of S = Q K^T
# (two K values per thread), it reaches P V's register operand (four) by
# two shuffles per 32-bit word within each row's four lanes, with no
# shared-memory round trip (no barrier) between the two products.
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("bm,bn,d,warps", [(64, 64, 64, 4), (128, 128, 128, 8), (128, 64, 128, 4)])
def test_fp8_p_reaches_the_register_operand_by_shuffles(bm, bn, d, warps):
    ptx = compile_dots("fp8_two_products_kernel",
                       f"*fp8e4nv:16, *fp8e4nv:16, *fp8e4nv:16, *fp32:16, i32, {bm}, {bn}, {d}",
                       warps)
    lines = [line.strip() for line in ptx.splitlines()]
    first_wait = next(i for i, line in enumerate(lines) if line.startswith("wgmma.wait_group"))
    second = next(i for i, line in enumerate(lines)
                  if i > first_wait and line.startswith("wgmma.mma_async"))
    between = lines[first_wait:second]
    groups = warps // 4
    rows_per_group = bm // min(groups, bm // 64)
    words = rows_per_group * bn // 128 // 4  # P's 32-bit words per thread
    assert sum(line.startswith("shfl.sync.idx.b32") for line in between) == 2 * words
    assert not any(line.startswith(("bar.sync", "st.shared", "ld.shared")) for line in between)
    assert "}, {%r" in lines[second]  # A from registers
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")


# A dot outside any loop runs on wgmma too (stage-dot-operands): each
# loaded operand is loaded with 16-byte vectors (as Triton's test_dot
# requires) and stored once into swizzled shared memory. 8-bit operands
# stored N-major are transposed on the way (wgmma reads them K-major only);
# the chained second product reads its A (the first's result) from
# registers. On sm_80 the same kernels stay in registers (mma.sync for
# 16-bit types).
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("dt,m,n,k,warps,y_n_major,shape", [
    ("fp16", 64, 64, 32, 4, True, "m64n64k16.f32.f16.f16"),
    ("bf16", 128, 128, 64, 4, False, "m64n128k16.f32.bf16.bf16"),
    ("fp8e4nv", 128, 128, 64, 4, True, "m64n128k32.f32.e4m3.e4m3"),
    ("fp8e5", 128, 256, 64, 8, False, "m64n256k32.f32.e5m2.e5m2"),
])
@pytest.mark.parametrize("chain", [False, True])
def test_single_dot_on_wgmma(dt, m, n, k, warps, y_n_major, shape, chain):
    strides = "i32:16, 1" if y_n_major else "1, i32:16"
    sig = (f"*{dt}:16, *{dt}:16, *{dt}:16, *fp32:16, i32:16, 1, {strides}, i32:16, 1, "
           f"{m}, {n}, {k}, {chain}")
    ptx = compile_dots("single_dot_kernel", sig, warps)
    lines = wgmma_lines(ptx)
    per_dot = (m // 64 // min(warps // 4, m // 64)) * (k // int(shape.split("k")[1].split(".")[0]))
    assert lines and all(line.startswith(f"wgmma.mma_async.sync.aligned.{shape} ")
                         for line in lines), lines[:1]
    assert "mma.sync" not in ptx and "cp.async" not in ptx
    assert "ld.global.v4" in ptx and "st.shared" in ptx
    # Each product's stores, then the fence and the barrier, then its wgmma.
    assert ptx.count("fence.proxy.async.shared::cta") >= (3 if chain else 2)
    if chain:  # the second product's A from registers: `{%r..}` in place of a descriptor
        assert any("}, {%r" in line for line in lines)
    assert len(lines) >= per_dot
    if _ptxas() is not None:
        assemble_ptx(ptx, "sm_90a")
    ampere = compile_dots("single_dot_kernel", sig, warps, target="sm_80")
    assert "wgmma" not in ampere and "cp.async" not in ampere
    assert ("mma.sync" in ampere) == (not dt.startswith("fp8"))  # fp8 tensor cores: sm_89+


# A wgmma product and an mma.sync product chained into one accumulator
# (the second dot's B is computed in registers, so it cannot run on wgmma):
# the accumulator keeps wgmma's layout, and the mma.sync dot converts it in
# and out of its own through shared memory (emit_mma.cpp). This once
# stopped the compiler with an internal error on sm_90a.
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
def test_wgmma_and_mma_sync_products_in_one_accumulator():
    sig = "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32, 64, 64, 64"
    ampere = compile_dots("mixed_chain_kernel", sig, 4, target="sm_80")
    hopper = compile_dots("mixed_chain_kernel", sig, 4)
    assert "mma.sync" in ampere and "wgmma" not in ampere
    assert "mma.sync" in hopper and wgmma_lines(hopper)
    if _ptxas() is not None:
        assemble_ptx(ampere, "sm_80")
        assemble_ptx(hopper, "sm_90a")


# Tutorial 09's epilogue subtiles: the accumulator reshaped to (BM, 2, BN/2),
# permuted to (BM, BN/2, 2) and split into two column halves. On wgmma's
# accumulator layout a register bit holds the half, so the three ops rename
# registers (assign-layouts gives their results the layouts that make them
# free) and the epilogue reads shared memory as often as the whole tile's:
# once per element, through the conversion to 16-byte stores.
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("blocks,warps", [((128, 256, 64), 8), ((128, 128, 64), 4),
                                          ((64, 128, 32), 4)])
def test_subtiled_epilogue_moves_no_data(blocks, warps):
    def ptx(split):
        sig = f"*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, {', '.join(map(str, blocks))}, " \
            f"{split}, 0"
        r = subprocess.run([str(TESSERAC), "compile", str(REPO / "tests/gpu/test_shape_ops_gpu.py"),
                            "--kernel", "subtiled_matmul", "--signature", sig, "--emit", "ptx",
                            "--target", "sm_90a", "--num-warps", str(warps), "--num-stages", "3"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout
    whole, halves = ptx(0), ptx(1)
    if _ptxas() is not None:
        assemble_ptx(halves, "sm_90a")
    loads = [len(re.findall(r"ld\.shared\.v4", p)) for p in (whole, halves)]
    assert loads[0] > 0 and loads[0] == loads[1], loads
    assert halves.count("ld.shared") == whole.count("ld.shared")


# A renamed view of x (x.T, or x joined and reshaped) as a wgmma
# accumulator, x read again after the dot: the registers are shared, so the
# dot copies them into accumulator registers of its own instead of
# updating them in place (tests/gpu/test_shape_ops_gpu.py checks the
# results).
@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.parametrize("join", [0, 1])
def test_renamed_accumulator_is_copied(join):
    r = subprocess.run([str(TESSERAC), "compile", str(REPO / "tests/gpu/test_shape_ops_gpu.py"),
                        "--kernel", "view_as_accumulator", "--signature",
                        f"*fp16:16, *fp16:16, *fp32:16, *fp32:16, 64, 64, 32, {join}", "--emit",
                        "ptx", "--target", "sm_90a", "--num-warps", "4"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = [line.strip() for line in r.stdout.splitlines()]
    w = next(i for i, line in enumerate(lines) if line.startswith("wgmma.mma_async"))
    acc = re.search(r"\{([^}]*)\}", lines[w]).group(1).replace(" ", "").split(",")
    for reg in acc:
        last = next(line for line in reversed(lines[:w])
                    if re.match(r"\S+\s+" + re.escape(reg) + r",", line))
        assert last.startswith("mov.f32 " + reg + ", %f"), (reg, last)
