"""tesserac aot decides the loader's occupancy hint at build time
(tools/tesserac_aot.cpp): for configurations of the matmul example and a
flash-attention forward, the launcher's cubin is ptxas's cubin of the PTX
with `.minnctapersm N` exactly where the rule
(tessera_testing.occupancy_hint_blocks, applied to ptxas's report of the
plain PTX) asks for N blocks per SM and the hinted PTX assembles to fewer
registers, spilling at most 16 bytes a thread more; everywhere else the
plain PTX's. The embedded PTX is always the plain one (other GPUs JIT it
under their own limits). Skipped without a build's tesserac or without
ptxas."""
import os
import pathlib
import re
import struct
import subprocess

import pytest

from tessera_testing import (REPO, _ptxas, hint_kept, hinted_report, occupancy_hint_blocks,
                             occupancy_register_cap, ptxas_report, with_min_blocks_per_sm)

TESSERAC = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", REPO / "build")) / "tesserac"
MATMUL = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, "
ATTENTION = ("*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, 1, "
             "i32, 4096, ")
# (file, kernel, signature, warps, stages); the attention forwards with
# 32-wide key blocks are those that ptxas 12 leaves a step short of one more
# block (172 registers where 168 fit three blocks of 4 warps; 136 where
# 128 fit four).
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
    pytest.param("tests/python/package/kernels/flash_attention.py", "attention_fwd_kernel",
                 ATTENTION + "64, 128, 32, 3", 4, 3, id="attention-d64-128x32-causal-w4"),
    pytest.param("tests/python/package/kernels/flash_attention.py", "attention_fwd_kernel",
                 ATTENTION + "128, 64, 32, 1", 4, 2, id="attention-d128-64x32-w4"),
]


def embedded_ptx(c_source: str) -> str:
    """The PTX a generated launcher embeds (its first specialisation)."""
    body = re.search(r"static const char tsr_ptx_0\[\] =\n(.*?);\n", c_source, re.S).group(1)
    pieces = re.findall(r'"((?:[^"\\]|\\.)*)"', body)
    return "".join(pieces).encode("latin-1").decode("unicode_escape")


def embedded_cubin(c_source: str) -> tuple[bytes, str]:
    """The cubin a generated launcher embeds, and the comment above it."""
    m = re.search(r"/\* (ptxas's cubin[^*]*) \*/\nstatic const unsigned char tsr_cubin_0\[\] = "
                  r"\{(.*?)\};", c_source, re.S)
    return bytes(int(x, 16) for x in re.findall(r"0x([0-9a-f]{2})", m.group(2))), m.group(1)


def elf_sections(cubin: bytes) -> dict:
    """Section name -> contents of a 64-bit ELF, less ptxas's tool note (it
    records the command line)."""
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    entsize, count, names = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * entsize) for i in range(count)]
    table = headers[names][4]
    out = {}
    for h in headers:
        name = cubin[table + h[0]:cubin.index(b"\0", table + h[0])].decode()
        if name != ".note.nv.tkinfo":
            out[name] = cubin[h[4]:h[4] + h[5]] if h[1] != 8 else h[5]  # (NOBITS: its size)
    return out


def assembled(ptx: str, tmp_path) -> bytes:
    path = tmp_path / "expected.ptx"
    path.write_text(ptx)
    subprocess.run([_ptxas(), "-arch=sm_90a", "-lineinfo", str(path), "-o",
                    str(tmp_path / "expected.cubin")], check=True)
    return (tmp_path / "expected.cubin").read_bytes()


def launcher(tmp_path, config, cubin: bool) -> str:
    file, kernel, sig, warps, stages = config
    out = tmp_path / ("cubin" if cubin else "ptx")
    out.mkdir()
    r = subprocess.run([str(TESSERAC), "aot", str(REPO / file), "--kernel", kernel, "--signature",
                        sig, "--target", "sm_90a", "--num-warps", str(warps), "--num-stages",
                        str(stages), "-o", str(out)] + ([] if cubin else ["--no-cubin"]),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return (out / f"{kernel}.c").read_text()


@pytest.mark.skipif(not TESSERAC.exists(), reason="needs the tesserac binary of a build")
@pytest.mark.skipif(_ptxas() is None, reason="needs ptxas (the CUDA toolkit)")
@pytest.mark.parametrize("file,kernel,sig,warps,stages", CONFIGS)
def test_launcher_embeds_the_occupancy_hint_where_the_rule_asks(tmp_path, file, kernel, sig, warps,
                                                                stages):
    config = (file, kernel, sig, warps, stages)
    plain = embedded_ptx(launcher(tmp_path, config, cubin=False))
    source = launcher(tmp_path, config, cubin=True)
    assert embedded_ptx(source) == plain and ".minnctapersm" not in plain
    cubin, comment = embedded_cubin(source)
    threads = 32 * warps
    shared = int(re.search(r"// tessera.shared_bytes = (\d+)", plain).group(1))
    before = ptxas_report(plain, "sm_90a")
    want = occupancy_hint_blocks(before["regs"], threads, shared)
    asked = re.search(r"asked for (\d+) blocks per SM \(\.minnctapersm \d+\): (\d+) registers "
                      r"a thread, (\d+) without", comment)
    if asked:
        assert want > 0 and int(asked.group(1)) == want
        after = ptxas_report(with_min_blocks_per_sm(plain, want), "sm_90a")
        assert (int(asked.group(2)), int(asked.group(3))) == (after["regs"], before["regs"])
        assert hint_kept(before, after)
        assert after["regs"] <= occupancy_register_cap(want, threads)
        assert elf_sections(cubin) == elf_sections(
            assembled(with_min_blocks_per_sm(plain, want), tmp_path))
        assert re.search(r"tsr_min_blocks\[1\] = \{" + str(want) + r"\}", source)
        return
    assert elf_sections(cubin) == elf_sections(assembled(plain, tmp_path))
    assert "tsr_min_blocks[1] = {0}" in source
    if want:  # asked for but refused: the hinted PTX must do no better
        assert not hint_kept(before, hinted_report(plain, want, "sm_90a"))
