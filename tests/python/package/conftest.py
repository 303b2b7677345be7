"""pytest configuration of the package suite (run with --confcutdir, so
tests/python/conftest.py does not apply): puts python/ and this directory on
sys.path, points the disk cache at a fresh temporary directory, and gives
each test a fresh random generator whose seed is printed (shown on failure)."""

from __future__ import annotations

import atexit
import os
import pathlib
import shutil
import sys
import tempfile

import pytest

HERE = pathlib.Path(__file__).resolve().parent
# TESSERA_TEST_INSTALLED=1 tests the installed package (pip install .)
# instead of the source tree's python/ with the extension of a build tree.
if os.environ.get("TESSERA_TEST_INSTALLED") != "1":
    sys.path.insert(0, str(HERE.parents[2] / "python"))
sys.path.insert(0, str(HERE))
os.environ["TESSERA_CACHE_DIR"] = tempfile.mkdtemp(prefix="tessera-test-cache-")
atexit.register(shutil.rmtree, os.environ["TESSERA_CACHE_DIR"], True)
# The IR verifier after every pass, as under ctest (release builds skip it
# otherwise), so a pass that breaks the IR fails here, named.
os.environ.setdefault("TESSERA_VERIFY_EACH", "1")


@pytest.fixture
def rng():
    import numpy as np

    seed = int(os.environ.get("TESSERA_TEST_SEED", "0")) or int.from_bytes(os.urandom(4), "little")
    print(f"random seed: {seed} (rerun with TESSERA_TEST_SEED={seed})")
    return np.random.default_rng(seed)
