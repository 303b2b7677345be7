"""pytest configuration of the differential suite (run with --confcutdir,
so tests/python/conftest.py, which is for the ctypes suite, does not
apply): puts python/ and this directory on sys.path and turns the disk
cache off (every program is compiled once per run and never again)."""

from __future__ import annotations

import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "python"))
sys.path.insert(0, str(HERE))
os.environ["TESSERA_CACHE_DISABLE"] = "1"
# The IR verifier after every pass, as under ctest (release builds skip it
# otherwise), so a pass that breaks the IR fails here, named.
os.environ.setdefault("TESSERA_VERIFY_EACH", "1")
