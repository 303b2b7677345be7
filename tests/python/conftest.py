"""pytest configuration: puts the harness on the path and gives each test a
fresh random generator whose seed is printed (shown on failure)."""

from __future__ import annotations

import os
import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
# The IR verifier after every pass, as under ctest (release builds skip it
# otherwise), so a pass that breaks the IR fails here, named.
os.environ.setdefault("TESSERA_VERIFY_EACH", "1")

import tessera_testing as tt  # noqa: E402


def pytest_report_header(config: pytest.Config) -> str:
    return f"tessera library: {tt.library_path()}"


@pytest.fixture
def rng() -> np.random.Generator:
    seed = int(os.environ.get("TESSERA_TEST_SEED", "0")) or int.from_bytes(os.urandom(4), "little")
    print(f"random seed: {seed} (rerun with TESSERA_TEST_SEED={seed})")
    return np.random.default_rng(seed)


def pytest_terminal_summary(terminalreporter) -> None:
    s = tt.ptx_stats
    if s["assembled"] == 0 and s["unsupported"] == 0:
        return  # this run compiled nothing through the C ABI harness
    if tt._ptxas() is None:
        terminalreporter.write_line("ptx check: skipped (no ptxas, or TESSERA_PTX_CHECK=0)")
    else:
        terminalreporter.write_line(
            f"ptx check: {s['assembled']} PTX modules assembled by ptxas for "
            f"{', '.join(tt.PTX_TARGETS)}; {s['unsupported']} kernels use ops the GPU back end "
            "does not support yet")
