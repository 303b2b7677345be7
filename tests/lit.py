#!/usr/bin/env python3
"""A small lit-like test runner (Python 3 standard library only).

    python3 tests/lit.py --tools-dir BUILD_DIR FILE...

Each FILE holds its own commands:

  // RUN: tessera-opt %s --pass=cse | FileCheck %s
      Runs through bash with `set -o pipefail`; fails on a non-zero exit.
      A line ending in `\\` continues on the next RUN line.
  // VERIFY: tessera-opt %s --split-input-file
      Runs expecting a non-zero exit (a zero one when the file expects only
      warnings). Every diagnostic on its stderr of the form
      `PATH:LINE:COL: error: MESSAGE` (PATH being this file) must match an
      `expected-error {{substring}}` comment on LINE (or one written on another
      line as `expected-error@+N {{...}}` / `expected-error@-N {{...}}`), every
      `PATH:LINE:COL: warning: MESSAGE` an `expected-warning {{...}}` comment
      alike, and every expected diagnostic must be produced.

`#` works in place of `//`. Substitutions: %s (the file), %S (its directory),
%t (a temporary path for this test), tessera-opt / tesserac (the binaries in
--tools-dir), FileCheck (FileCheck-14 on PATH, or /usr/lib/llvm-14/bin/FileCheck).
Exit status: 0 when every file passes, 1 otherwise.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

RUN_RE = re.compile(r"^\s*(?://|#)\s*RUN:\s?(.*)$")
VERIFY_RE = re.compile(r"^\s*(?://|#)\s*VERIFY:\s?(.*)$")
EXPECTED_RE = re.compile(r"expected-(error|warning)(?:@([+-])(\d+))?\s*\{\{(.*?)\}\}")
DIAG_RE = re.compile(r"^(.*?):(\d+):(\d+): (error|warning): (.*)$")
TOOLS = ("tessera-opt", "tesserac")
TIMEOUT_S = 120


class TestFailure(Exception):
    pass


def find_filecheck():
    for candidate in ("FileCheck-14", "FileCheck"):
        path = shutil.which(candidate)
        if path:
            return path
    fallback = "/usr/lib/llvm-14/bin/FileCheck"
    return fallback if os.access(fallback, os.X_OK) else None


def read_commands(lines, pattern):
    """Commands of one kind, joining lines that end in a backslash."""
    commands, pending = [], None
    for line in lines:
        m = pattern.match(line)
        if not m:
            continue
        text = m.group(1).rstrip()
        text = text if pending is None else pending + " " + text.lstrip()
        if text.endswith("\\"):
            pending = text[:-1].rstrip()
        else:
            commands.append(text)
            pending = None
    if pending is not None:
        commands.append(pending)
    return commands


def substitute(command, path, tmp, tools_dir, filecheck):
    def tool(name, binary):
        return re.sub(r"(?<![\w./-])" + re.escape(name) + r"(?![\w.-])",
                      lambda _: binary, command)

    for name in TOOLS:
        command = tool(name, os.path.join(tools_dir, name))
    if re.search(r"(?<![\w./-])FileCheck(?![\w.-])", command):
        if filecheck is None:
            raise TestFailure("FileCheck is needed but was not found: install llvm-14 "
                              "(FileCheck-14 on PATH or /usr/lib/llvm-14/bin/FileCheck)")
        command = tool("FileCheck", filecheck)
    return (command.replace("%s", path).replace("%S", os.path.dirname(path))
            .replace("%t", tmp))


def run_shell(command):
    try:
        return subprocess.run(["bash", "-o", "pipefail", "-c", command],
                              capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise TestFailure(f"timed out after {TIMEOUT_S}s: {command}")


def expected_diagnostics(lines):
    """[kind, line, substring, met] for each expected-error and
    expected-warning comment."""
    out = []
    for number, line in enumerate(lines, start=1):
        for m in EXPECTED_RE.finditer(line):
            kind, sign, offset, text = m.groups()
            target = number
            if sign == "+":
                target = number + int(offset)
            elif sign == "-":
                target = number - int(offset)
            out.append([kind, target, text, False])
    return out


def same_file(diag_path, path):
    if os.path.abspath(diag_path) == os.path.abspath(path):
        return True
    return os.path.basename(diag_path) == os.path.basename(path)


def check_verify(command, result, path, lines):
    expected = expected_diagnostics(lines)
    errors_expected = any(e[0] == "error" for e in expected)
    if errors_expected and result.returncode == 0:
        raise TestFailure(f"VERIFY command succeeded but was expected to fail: {command}")
    if not errors_expected and result.returncode != 0:
        raise TestFailure(f"VERIFY command failed (exit {result.returncode}) where only warnings "
                          f"were expected: {command}\n--- stderr ---\n{result.stderr}")
    problems = []
    diagnostics = 0
    for line in result.stderr.splitlines():
        m = DIAG_RE.match(line)
        if not m:
            continue
        diag_path, diag_line, _, kind, message = m.groups()
        diagnostics += 1
        match = None
        if same_file(diag_path, path):
            for e in expected:
                if not e[3] and e[0] == kind and e[1] == int(diag_line) and e[2] in message:
                    match = e
                    break
        if match:
            match[3] = True
        else:
            problems.append(f"  unexpected {kind} at line {diag_line}: {message}")
    for kind, target, text, met in expected:
        if not met:
            problems.append(f"  expected {kind} at line {target} not produced: {{{{{text}}}}}")
    if diagnostics == 0:
        problems.append("  the command exited with status "
                        f"{result.returncode} but printed no 'file:line:col: error:' or "
                        "'warning:' lines")
    if problems:
        raise TestFailure("VERIFY mismatch for: " + command + "\n" + "\n".join(problems) +
                          "\n--- stderr ---\n" + result.stderr)


def run_file(path, tools_dir, filecheck):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    runs = read_commands(lines, RUN_RE)
    verifies = read_commands(lines, VERIFY_RE)
    if not runs and not verifies:
        raise TestFailure("no RUN: or VERIFY: lines")
    with tempfile.TemporaryDirectory(prefix="lit-") as tmpdir:
        tmp = os.path.join(tmpdir, "t")
        for raw in runs:
            command = substitute(raw, path, tmp, tools_dir, filecheck)
            result = run_shell(command)
            if result.returncode != 0:
                raise TestFailure(f"RUN failed (exit {result.returncode}): {command}\n"
                                  f"--- stdout ---\n{result.stdout}\n--- stderr ---\n"
                                  f"{result.stderr}")
        for raw in verifies:
            command = substitute(raw, path, tmp, tools_dir, filecheck)
            check_verify(command, run_shell(command), path, lines)


def main(argv):
    parser = argparse.ArgumentParser(description="Run lit-style IR tests.")
    parser.add_argument("--tools-dir", required=True, help="directory of tessera-opt etc.")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    tools_dir = os.path.abspath(args.tools_dir)
    filecheck = find_filecheck()
    failed = 0
    for file in args.files:
        path = os.path.abspath(file)
        try:
            run_file(path, tools_dir, filecheck)
            print(f"PASS: {file}")
        except (TestFailure, OSError) as e:
            failed += 1
            print(f"FAIL: {file}\n{e}")
    print(f"{len(args.files) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
