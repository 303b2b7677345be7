"""tesserac aot decides the loader's occupancy hint at build time
(tools/tesserac_aot.cpp): for configurations of the matmul example and a
flash-attention forward, the launcher embeds the PTX with `.minnctapersm N` exactly where the rule
(tessera_testing.occupancy_hint_blocks, applied to ptxas's report of the
plain PTX) asks for N blocks per SM and the hinted PTX assembles to fewer
registers, spilling at most 16 bytes a thread more; everywhere else the
plain PTX. Skipped without a build's tesserac or without ptxas."""
import os
import pathlib
import re
import subprocess

import pytest

from tessera_testing import (REPO, _ptxas, occupancy_hint_blocks, occupancy_register_cap,
                             ptxas_report)

TESSERAC = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", REPO / "build")) / "tesserac"
MATMUL = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, "
ATTENTION = ("*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, 1, "
             "i32, 4096, ")
# (file, kernel, signature, warps, stages); 64x64x32 with 2 warps is the
# one that ptxas 12 leaves a step short of one more block.
CONFIGS = [
    pytest.param("examples/matmul.py", "matmul_kernel", MATMUL + "64, 64, 32, 8, 'ieee'", 2, 3,
                 id="matmul-64x64x32-w2"),
    pytest.param("examples/matmul.py", "matmul_kernel", MATMUL + "128, 128, 64, 8, 'ieee'", 4, 3,
                 id="matmul-128x128x64-w4"),
    pytest.param("examples/matmul.py", "matmul_kernel", MATMUL + "64, 128, 32, 8, 'ieee'", 1, 2,
                 id="matmul-64x128x32-w1"),
    pytest.param("tests/python/package/kernels/flash_attention.py", "attention_fwd_kernel",
                 ATTENTION + "64, 128, 64, 3", 4, 3, id="attention-d64-128x64-causal-w4"),
    pytest.param("tests/python/package/kernels/flash_attention.py", "attention_fwd_kernel",
                 ATTENTION + "128, 128, 64, 1", 8, 2, id="attention-d128-128x64-w8"),
]


def embedded_ptx(c_source: str) -> str:
    """The PTX a generated launcher embeds (its first specialisation)."""
    body = re.search(r"static const char tsr_ptx_0\[\] =\n(.*?);\n", c_source, re.S).group(1)
    pieces = re.findall(r'"((?:[^"\\]|\\.)*)"', body)
    return "".join(pieces).encode("latin-1").decode("unicode_escape")


def launcher_ptx(tmp_path, config, cubin: bool) -> str:
    file, kernel, sig, warps, stages = config
    out = tmp_path / ("cubin" if cubin else "ptx")
    out.mkdir()
    r = subprocess.run([str(TESSERAC), "aot", str(REPO / file), "--kernel", kernel, "--signature",
                        sig, "--target", "sm_90a", "--num-warps", str(warps), "--num-stages",
                        str(stages), "-o", str(out)] + ([] if cubin else ["--no-cubin"]),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return embedded_ptx((out / f"{kernel}.c").read_text())


@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.skipif(_ptxas() is None, reason="needs ptxas (the CUDA toolkit)")
@pytest.mark.parametrize("file,kernel,sig,warps,stages", CONFIGS)
def test_launcher_embeds_the_occupancy_hint_where_the_rule_asks(tmp_path, file, kernel, sig, warps,
                                                                stages):
    config = (file, kernel, sig, warps, stages)
    plain = launcher_ptx(tmp_path, config, cubin=False)  # --no-cubin: never hinted
    embedded = launcher_ptx(tmp_path, config, cubin=True)
    assert ".minnctapersm" not in plain
    threads = 32 * warps
    shared = int(re.search(r"// tessera.shared_bytes = (\d+)", plain).group(1))
    before = ptxas_report(plain, "sm_90a")
    want = occupancy_hint_blocks(before["regs"], threads, shared)
    hint = f"\n.minnctapersm {want}"
    hinted = re.sub(r"(\n\.maxntid [^\n]*)", lambda m: m.group(1) + hint, plain, count=1)
    if ".minnctapersm" in embedded:
        assert want > 0 and embedded == hinted
        after = ptxas_report(embedded, "sm_90a")
        assert after["regs"] < before["regs"]
        assert after["regs"] <= occupancy_register_cap(want, threads)
        assert after["stack"] <= before["stack"] + 16
        return
    assert embedded == plain
    if want:  # asked for but refused: the hinted PTX must do no better
        try:
            after = ptxas_report(hinted, "sm_90a")
        except AssertionError:
            return  # ptxas could not fit an instruction in the registers
        assert after["regs"] >= before["regs"] or after["stack"] > before["stack"] + 16
