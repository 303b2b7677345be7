"""The example matmul on sm_90a for every block shape, dtype and operand
orientation its autotuner and users reach: which dots run on wgmma, and
ptxas accepts every PTX (wgmma's operand rules are strict: descriptor
operands, register counts per shape, transposes only for 16-bit types).
The GPU suite (tests/gpu/test_dot_gpu.py) checks the results on a Hopper."""

from __future__ import annotations

import os
import pathlib
import subprocess
import tempfile

import pytest

from tessera_testing import REPO, _ptxas, assemble_ptx

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
