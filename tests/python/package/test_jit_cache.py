"""The disk cache as users meet it: a second process finds kernels on disk;
editing a kernel, a callee or a global constant recompiles; a corrupt entry
is rebuilt; several processes may fill the cache at once."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.abspath(os.path.join(HERE, "..", "..", "..", "python"))

KERNEL = '''
import tessera as triton
import tessera.language as tl
from helper import bump

OFFSET = {offset}


@triton.jit
def k(x_ptr, out_ptr):
    offs = tl.arange(0, 64)
    tl.store(out_ptr + offs, bump(tl.load(x_ptr + offs)) + OFFSET)
'''

HELPER = '''
import tessera as triton


@triton.jit
def bump(x):
    return x + {bump}
'''

DRIVER = '''
import json, sys
sys.path.insert(0, {pydir!r})
sys.path.insert(0, {moddir!r})
import numpy as np
import tessera
from tessera.runtime.jit import stats
import kmod
{prelude}
x = np.arange(64, dtype=np.float32)
out = np.full(64, np.nan, dtype=np.float32)
kmod.k[(1,)](x, out)
print(json.dumps({{"compiles": stats.compiles, "disk_hits": stats.disk_hits, "out": out.tolist()}}))
'''


def write(moddir, offset=0, bump=1):
    with open(os.path.join(moddir, "kmod.py"), "w") as f:
        f.write(KERNEL.format(offset=offset))
    with open(os.path.join(moddir, "helper.py"), "w") as f:
        f.write(HELPER.format(bump=bump))


def start(moddir, cache, prelude=""):
    script = DRIVER.format(pydir=PYDIR, moddir=str(moddir), prelude=prelude)
    env = dict(os.environ, TESSERA_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(p):
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def run(moddir, cache, prelude=""):
    return finish(start(moddir, cache, prelude))


def expect(result, offset, bump):
    assert result["out"] == [float(i + bump + offset) for i in range(64)]


def cache_files(cache):
    found = []
    for root, _, files in os.walk(cache):
        found += [os.path.join(root, f) for f in files if not f.startswith(".")]
    return found


@pytest.fixture
def dirs(tmp_path):
    moddir = tmp_path / "mod"
    moddir.mkdir()
    return moddir, tmp_path / "cache"


def test_second_process_hits_disk(dirs):
    moddir, cache = dirs
    write(moddir)
    first = run(moddir, cache)
    assert (first["compiles"], first["disk_hits"]) == (1, 0)
    expect(first, 0, 1)
    second = run(moddir, cache)
    assert (second["compiles"], second["disk_hits"]) == (0, 1)
    expect(second, 0, 1)


def test_rebuilt_compiler_recompiles(dirs):
    # A rebuilt extension (another size or modification time, same version)
    # must not serve what its predecessor compiled.
    moddir, cache = dirs
    write(moddir)
    run(moddir, cache)
    rebuilt = ("import tessera.runtime.kernel_build as B; "
               "B._COMPILER_ID = B._compiler_id()[:1] + (0, 0)")
    again = run(moddir, cache, rebuilt)
    assert (again["compiles"], again["disk_hits"]) == (1, 0)
    expect(again, 0, 1)


@pytest.mark.parametrize("change", ["kernel", "callee", "global"])
def test_edits_recompile(dirs, change):
    moddir, cache = dirs
    write(moddir)
    run(moddir, cache)
    if change == "kernel":
        src = (moddir / "kmod.py").read_text().replace("+ OFFSET)", "+ OFFSET + 0 * 1)")
        (moddir / "kmod.py").write_text(src)
        offset, bump = 0, 1
    elif change == "callee":
        write(moddir, 0, 7)
        offset, bump = 0, 7
    else:
        write(moddir, 100, 1)
        offset, bump = 100, 1
    again = run(moddir, cache)
    assert again["compiles"] == 1, f"editing the {change} must recompile"
    expect(again, offset, bump)


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty"])
def test_corrupt_entry_is_rebuilt(dirs, damage):
    moddir, cache = dirs
    write(moddir)
    run(moddir, cache)
    files = cache_files(cache)
    assert files
    for path in files:
        data = open(path, "rb").read()
        if damage == "truncate":
            data = data[: len(data) // 2]
        elif damage == "flip":
            data = bytearray(data)
            data[len(data) // 2] ^= 0x5A
            data = bytes(data)
        else:
            data = b""
        open(path, "wb").write(data)
    again = run(moddir, cache)
    assert again["compiles"] == 1
    expect(again, 0, 1)
    third = run(moddir, cache)
    assert (third["compiles"], third["disk_hits"]) == (0, 1)


def test_processes_share_the_cache(dirs):
    moddir, cache = dirs
    write(moddir)
    procs = [start(moddir, cache) for _ in range(4)]
    for p in procs:
        expect(finish(p), 0, 1)
    after = run(moddir, cache)
    assert (after["compiles"], after["disk_hits"]) == (0, 1)
