#!/usr/bin/env python3
"""The loops of a kernel's machine code (SASS), with no GPU: each PTX file is
assembled by ptxas and disassembled by cuobjdump, and every loop (a backward
branch) is printed with its instruction count and its most frequent opcodes
(ptxas's padding left out), after the kernel's registers, spills and length.

Two compilers' code for one kernel, side by side, say where one does more
work a K step (Tessera's PTX from `tesserac compile ... --emit ptx`, Triton's
from `kernel.asm["ptx"]` or `triton.compile(...)`, which needs no GPU either):

    scripts/sass_loops.py tessera.ptx triton.ptx [--arch sm_90a] [--top 12]

ptxas comes from PATH or $CUDA_HOME/bin; cuobjdump from there too, or from an
installed Triton's bundled tools (the CUDA toolkit does not always carry it).
"""
import argparse
import collections
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

INSTRUCTION = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
BRANCH_TARGET = re.compile(r"\bBRA(?:\.[A-Z.]+)?\s+(?:`\(\.L_x_\d+\)\s*)?0x([0-9a-f]+)\b")
PREDICATE = re.compile(r"^@!?U?P\w+\s+")


def find_tools(name):
    """Every copy of a CUDA tool found, in order: PATH, $CUDA_HOME/bin (or
    $CUDA_PATH, /usr/local/cuda), an installed Triton's bundled one."""
    found = [shutil.which(name)]
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and (pathlib.Path(home) / "bin" / name).is_file():
            found.append(str(pathlib.Path(home) / "bin" / name))
    try:
        import triton  # noqa: F401  (only for the tools its wheel carries)
        bundled = pathlib.Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name
        if bundled.is_file():
            found.append(str(bundled))
    except ImportError:
        pass
    unique = []
    for path in found:
        if path and os.path.realpath(path) not in map(os.path.realpath, unique):
            unique.append(path)
    return unique


def find_tool(name):
    """A CUDA tool's path, or None."""
    tools = find_tools(name)
    return tools[0] if tools else None


def parse_sass(text):
    """[(address, instruction text)] of every function in cuobjdump's output,
    as one list per function: {name: [(address, text), ...]}."""
    functions, current = {}, None
    for line in text.splitlines():
        if "Function :" in line:
            current = line.split("Function :", 1)[1].strip()
            functions[current] = []
            continue
        m = INSTRUCTION.match(line)
        if m and current is not None:
            functions[current].append((int(m.group(1), 16), m.group(2)))
    return functions


def opcode(text):
    """The opcode of an instruction, without its predicate and modifiers."""
    return PREDICATE.sub("", text).split()[0].split(".")[0]


def loops(instructions):
    """Every loop of one function: (start, end, [instruction texts]) for each
    backward branch, outermost (widest) first."""
    index = {address: i for i, (address, _) in enumerate(instructions)}
    found = []
    for i, (address, text) in enumerate(instructions):
        m = BRANCH_TARGET.search(text)
        if not m:
            continue
        target = int(m.group(1), 16)
        # (A branch to itself ends every function: not a loop.)
        if target < address and target in index:
            found.append((target, address, [t for _, t in instructions[index[target]:i + 1]]))
    return sorted(found, key=lambda loop: loop[0] - loop[1])


def executed(texts):
    """The instructions that may run: not ptxas's padding (NOP, and loads
    predicated on never, `@!PT LDS RZ, [RZ]`)."""
    return [t for t in texts if not t.startswith("@!PT") and opcode(t) != "NOP"]


def describe(texts, top):
    counts = collections.Counter(opcode(t) for t in texts)
    return ", ".join(f"{name} {n}" for name, n in counts.most_common(top))


def assemble(ptx, arch, workdir):
    """(ptxas's -v report, cuobjdump's SASS) of one PTX file."""
    ptxases, cuobjdump = find_tools("ptxas"), find_tool("cuobjdump")
    if not ptxases or not cuobjdump:
        missing = " and ".join(n for n, t in (("ptxas", ptxases), ("cuobjdump", cuobjdump)) if not t)
        sys.exit(f"sass_loops: {missing} not found: install the CUDA toolkit (or Triton, whose "
                 "wheel carries cuobjdump) or put it on PATH")
    if arch is None:
        m = re.search(r"^\s*\.target\s+(sm_\w+)", pathlib.Path(ptx).read_text(), re.M)
        arch = m.group(1) if m else "sm_90a"
    cubin = pathlib.Path(workdir) / (pathlib.Path(ptx).stem + ".cubin")
    # A newer compiler's PTX (a later .version) may need a newer ptxas: each
    # one found is tried in turn.
    for ptxas in ptxases:
        run = subprocess.run([ptxas, f"-arch={arch}", "-v", ptx, "-o", str(cubin)],
                             capture_output=True, text=True)
        if run.returncode == 0:
            break
    else:
        sys.exit(f"sass_loops: ptxas failed on {ptx}:\n{run.stderr}")
    sass = subprocess.run([cuobjdump, "-sass", str(cubin)], capture_output=True, text=True)
    if sass.returncode != 0:
        sys.exit(f"sass_loops: cuobjdump failed on {cubin}:\n{sass.stderr}")
    return run.stderr, sass.stdout


def report(ptx, arch, top, workdir):
    info, sass = assemble(ptx, arch, workdir)
    print(f"== {ptx}")
    for line in info.splitlines():
        if "registers" in line or "spill" in line:
            print("  " + line.split(":", 1)[-1].strip())
    for name, instructions in parse_sass(sass).items():
        print(f"  {name}: {len(executed([t for _, t in instructions]))} instructions")
        for start, end, texts in loops(instructions):
            texts = executed(texts)
            print(f"    loop {start:#06x}-{end:#06x}: {len(texts)} instructions; {describe(texts, top)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ptx", nargs="+", help="PTX files")
    ap.add_argument("--arch", help="the target ptxas assembles for (default: each file's .target)")
    ap.add_argument("--top", type=int, default=12, help="opcodes listed a loop (default 12)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        for ptx in args.ptx:
            report(ptx, args.arch, args.top, workdir)


if __name__ == "__main__":
    main()
