"""scripts/sass_loops.py: the loops of a kernel's SASS, read from cuobjdump's
text (no GPU needed; the run through ptxas and cuobjdump only where both are
installed)."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("sass_loops", ROOT / "scripts" / "sass_loops.py")
sass_loops = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sass_loops)

# Two functions as cuobjdump prints them (encodings trimmed): `k` has a loop
# at 0x0020-0x0060 holding an inner one at 0x0030-0x0040, padding the count
# leaves out, and the branch to itself that ends every function.
SASS = """
\tcode for sm_90a
\t\tFunction : k
\t.headerflags\t@"EF_CUDA_SM90"
        /*0000*/                   LDC R1, c[0x0][0x28] ;           /* 0x00000a00ff017b82 */
        /*0010*/                   S2R R0, SR_TID.X ;               /* 0x0000000000007919 */
        /*0020*/                   DEPBAR.LE SB0, 0x4 ;             /* 0x000080000000791a */
        /*0030*/              @!PT LDS RZ, [RZ] ;                   /* 0x00000000fffff984 */
        /*0040*/               @P1 BRA 0x30 ;                       /* 0xfffffffc00fc7947 */
        /*0050*/                   HMMA.16816.F32 R12, R20.reuse, R24, R12 ;
        /*0060*/              @!P0 BRA 0x20 ;                       /* 0xfffffffc00fc7947 */
        /*0070*/                   EXIT ;                           /* 0x000000000000794d */
        /*0080*/                   BRA 0x80;                        /* 0xfffffffc00fc7947 */
        /*0090*/                   NOP;                             /* 0x0000000000007918 */
\t\tFunction : other
        /*0000*/                   EXIT ;                           /* 0x000000000000794d */
"""


def test_functions_and_instructions_are_read():
    functions = sass_loops.parse_sass(SASS)
    assert list(functions) == ["k", "other"]
    assert [address for address, _ in functions["k"]] == list(range(0, 0xA0, 0x10))
    assert functions["k"][5] == (0x50, "HMMA.16816.F32 R12, R20.reuse, R24, R12")
    assert sass_loops.opcode("@!P0 BRA 0x20") == "BRA"
    assert sass_loops.opcode("LDGSTS.E.BYPASS.128 [R44], desc[UR10][R20.64], P0") == "LDGSTS"


def test_loops_are_backward_branches_outermost_first():
    found = sass_loops.loops(sass_loops.parse_sass(SASS)["k"])
    assert [(start, end) for start, end, _ in found] == [(0x20, 0x60), (0x30, 0x40)]
    outer = sass_loops.executed(found[0][2])
    assert [sass_loops.opcode(t) for t in outer] == ["DEPBAR", "BRA", "HMMA", "BRA"]
    assert sass_loops.describe(outer, 1) == "BRA 2"
    assert sass_loops.loops(sass_loops.parse_sass(SASS)["other"]) == []


@pytest.mark.skipif(not (sass_loops.find_tool("ptxas") and sass_loops.find_tool("cuobjdump")),
                    reason="needs ptxas and cuobjdump (the CUDA toolkit, or Triton's wheel)")
def test_a_tesserac_kernel_through_the_tools(tmp_path):
    build = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", ROOT / "build"))
    ptx = tmp_path / "mm.ptx"
    subprocess.run([str(build / "tesserac"), "compile", str(ROOT / "examples" / "matmul.py"),
                    "--kernel", "matmul_kernel", "--signature",
                    "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, "
                    "i32:16, 1, 16, 64, 128, 8", "--emit", "ptx", "--target", "sm_90a",
                    "--num-warps", "4", "--num-stages", "6", "-o", str(ptx)], check=True)
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "sass_loops.py"), str(ptx)],
                         capture_output=True, text=True, check=True).stdout
    assert "registers" in out and "matmul_kernel:" in out
    # The K loop of this mma.sync kernel: its products and its copies.
    assert any("HMMA" in line and "LDGSTS" in line for line in out.splitlines()
               if line.strip().startswith("loop"))
