"""tessera.runtime.cache: the on-disk cache shared by compiled kernels and
autotuning results. Layout, atomic writes under concurrent processes,
checked entries (corruption is a miss and the entry goes), the disabled
cache, and file-system errors degrading to misses with one warning."""
import json
import os
import subprocess
import sys
import textwrap
import warnings

import pytest

from tessera.runtime import cache
from tessera.runtime.cache import FileCache, hash_key

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.abspath(os.path.join(HERE, "..", "..", "..", "python"))

KEY = hash_key("test", 1)


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.delenv("TESSERA_CACHE_DISABLE", raising=False)
    return FileCache("things", root=str(tmp_path / "root"))


def all_files(root):
    out = []
    for d, _, files in os.walk(root):
        out += [os.path.join(d, f) for f in files]
    return out


# ---------------------------------------------------------------------------- keys and paths


def test_hash_key_is_canonical_and_typed():
    k = hash_key("a", b"b", 3, (4, "x"), None, True, 1.5)
    assert k == hash_key("a", b"b", 3, (4, "x"), None, True, 1.5)
    assert len(k) == 64 and all(c in "0123456789abcdef" for c in k)
    assert hash_key((1, 2)) == hash_key([1, 2])
    distinct = {hash_key(p) for p in ["1", b"1", 1, 1.0, True, None, ("1",), "", ()]}
    assert len(distinct) == 9
    # No ambiguity from concatenation or nesting.
    assert hash_key("ab", "c") != hash_key("a", "bc")
    assert hash_key(("a", "b")) != hash_key("a", "b")
    assert hash_key(("a",), "b") != hash_key("a", ("b",))
    with pytest.raises(TypeError):
        hash_key(object())


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "c"))
    assert cache.default_cache_dir() == str(tmp_path / "c")
    monkeypatch.delenv("TESSERA_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.default_cache_dir() == str(tmp_path / "home" / ".cache" / "tessera")


def test_shared_caches_follow_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("TESSERA_CACHE_DISABLE", raising=False)
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "one"))
    k = cache.kernel_cache()
    assert k.dir == str(tmp_path / "one" / "kernels")
    assert cache.kernel_cache() is k
    assert cache.autotune_cache().dir == str(tmp_path / "one" / "autotune")
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "two"))
    assert cache.kernel_cache().dir == str(tmp_path / "two" / "kernels")


def test_put_get_layout(store):
    assert store.get(KEY) is None
    assert store.put(KEY, b"hello")
    assert store.get(KEY) == b"hello"
    assert store.path(KEY) == os.path.join(store.root, "things", KEY[:2], KEY)
    assert all_files(store.root) == [store.path(KEY)]  # no temporary file left behind
    assert store.put(KEY, bytearray(b"again"))
    assert store.get(KEY) == b"again"
    assert KEY in store
    store.remove(KEY)
    assert store.get(KEY) is None and KEY not in store
    store.remove(KEY)  # removing a missing entry is fine


@pytest.mark.parametrize("bad", ["", "../etc", ".hidden", "a/b", "x" * 300, 12])
def test_bad_keys_are_rejected(store, bad):
    with pytest.raises(ValueError):
        store.get(bad)
    with pytest.raises(ValueError):
        store.put(bad, b"x")


def test_large_and_empty_values(store):
    big = os.urandom(3 << 20)
    store.put(KEY, big)
    assert store.get(KEY) == big
    store.put(KEY, b"")
    assert store.get(KEY) == b""


# ---------------------------------------------------------------------------- checked entries


def test_checked_round_trip(store):
    payload = json.dumps({"best": 3}).encode()
    assert store.put_checked(KEY, payload)
    assert store.get_checked(KEY) == payload
    assert store.get(KEY) != payload  # framed on disk
    assert store.get(KEY).endswith(payload)
    store.put_checked(KEY, b"")
    assert store.get_checked(KEY) == b""


def _damage(data: bytes, how: str) -> bytes:
    if how == "truncate":
        return data[:-5]
    if how == "truncate_header":
        return data[:10]
    if how == "flip_payload":
        b = bytearray(data)
        b[-3] ^= 0x40
        return bytes(b)
    if how == "flip_header":
        b = bytearray(data)
        b[20] ^= 0x01
        return bytes(b)
    if how == "append":
        return data + b"x"
    if how == "empty":
        return b""
    if how == "garbage":
        return b"not a cache entry at all, no magic here"
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["truncate", "truncate_header", "flip_payload", "flip_header", "append",
                                 "empty", "garbage"])
def test_corrupt_checked_entry_is_a_miss_and_removed(store, how):
    store.put_checked(KEY, b'{"timings": [1.0, 2.0, 3.0]}' * 10)
    path = store.path(KEY)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(_damage(data, how))
    assert store.get_checked(KEY) is None
    assert not os.path.exists(path)
    assert store.get_checked(KEY) is None  # still a miss, no error
    store.put_checked(KEY, b"fresh")
    assert store.get_checked(KEY) == b"fresh"


def test_checked_entry_under_another_key_is_rejected(store):
    other = hash_key("other")
    store.put_checked(KEY, b"payload")
    os.makedirs(os.path.dirname(store.path(other)), exist_ok=True)
    os.replace(store.path(KEY), store.path(other))
    assert store.get_checked(other) is None
    assert not os.path.exists(store.path(other))


# ---------------------------------------------------------------------------- disabled


@pytest.mark.parametrize("value", ["1", "true", "YES"])
def test_disabled_cache(store, monkeypatch, value):
    store.put(KEY, b"before")
    monkeypatch.setenv("TESSERA_CACHE_DISABLE", value)
    assert cache.cache_disabled()
    assert store.get(KEY) is None
    assert store.get_checked(KEY) is None
    assert store.put(hash_key("new"), b"x") is False
    assert not store.put_checked(hash_key("new2"), b"x")
    assert not os.path.exists(store.path(hash_key("new")))
    assert cache.kernel_cache() is None and cache.autotune_cache() is None
    monkeypatch.setenv("TESSERA_CACHE_DISABLE", "0")
    assert not cache.cache_disabled()
    assert store.get(KEY) == b"before"


# ---------------------------------------------------------------------------- file-system errors


def _one_warning(ops):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [op() for op in ops]
    msgs = [w for w in caught if "disk cache" in str(w.message)]
    assert len(msgs) == 1, [str(w.message) for w in caught]
    assert issubclass(msgs[0].category, RuntimeWarning)
    return results


def test_root_that_is_a_file_degrades_to_misses(tmp_path, monkeypatch):
    monkeypatch.delenv("TESSERA_CACHE_DISABLE", raising=False)
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"I am a file")
    store = FileCache("k", root=str(blocker))
    results = _one_warning([lambda: store.put(KEY, b"x"), lambda: store.get(KEY),
                            lambda: store.put_checked(KEY, b"y"), lambda: store.get_checked(KEY),
                            lambda: store.remove(KEY)])
    assert results == [False, None, False, None, None]


def test_entry_that_is_a_directory_degrades_to_a_miss(store):
    os.makedirs(store.path(KEY))
    results = _one_warning([lambda: store.get(KEY), lambda: store.get_checked(KEY),
                            lambda: store.put(KEY, b"x")])
    assert results == [None, None, False]
    # the failed write left no temporary file behind
    assert all_files(store.root) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root ignores file permissions")
def test_permission_denied_degrades_to_misses(tmp_path, monkeypatch):
    monkeypatch.delenv("TESSERA_CACHE_DISABLE", raising=False)
    store = FileCache("k", root=str(tmp_path / "root"))
    store.put(KEY, b"value")
    os.chmod(store.path(KEY), 0)
    shard = os.path.dirname(store.path(KEY))
    try:
        os.chmod(shard, 0o500)  # entries cannot be replaced or created
        results = _one_warning([lambda: store.get(KEY), lambda: store.put(KEY, b"new"),
                                lambda: store.put(hash_key("x"), b"x")])
        assert results == [None, False, False]
    finally:
        os.chmod(shard, 0o700)
        os.chmod(store.path(KEY), 0o600)


UNPRIVILEGED = r'''
import os, sys, warnings
sys.path.insert(0, {pydir!r})
from tessera.runtime.cache import FileCache, hash_key
ro = FileCache("k", root={ro!r})
unreadable = FileCache("k", root={unreadable!r})
key = {key!r}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    results = [ro.put(key, b"x"), ro.put_checked(key, b"y"), ro.get(key), ro.get_checked(key)]
print(repr(results), len([w for w in caught if "disk cache" in str(w.message)]))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    results = [unreadable.get(key), unreadable.get_checked(key), unreadable.put(key, b"z")]
print(repr(results), len([w for w in caught if "disk cache" in str(w.message)]))
'''


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to drop privileges")
def test_permission_denied_as_an_unprivileged_user():
    """Root ignores permissions, so run the cache as 'nobody' in a subprocess."""
    import shutil
    import tempfile
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv is not installed")
    top = tempfile.mkdtemp(prefix="tessera-perm-")
    try:
        os.chmod(top, 0o755)
        ro = os.path.join(top, "ro")  # cannot create anything inside
        os.makedirs(ro, mode=0o555)
        os.chmod(ro, 0o555)
        unreadable = os.path.join(top, "unreadable")  # an entry 'nobody' cannot read
        store = FileCache("k", root=unreadable)
        store.put(KEY, b"secret")
        os.chmod(store.path(KEY), 0o600)
        for d in (unreadable, store.dir, os.path.dirname(store.path(KEY))):
            os.chmod(d, 0o755)
        code = UNPRIVILEGED.format(pydir=PYDIR, ro=ro, unreadable=unreadable, key=KEY)
        r = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                            "-c", code], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, TESSERA_CACHE_DISABLE="0"))
        if r.returncode != 0 and "tessera" not in r.stderr:
            pytest.skip(f"cannot run Python as an unprivileged user: {r.stderr.strip()[-200:]}")
        assert r.returncode == 0, r.stderr
        lines = r.stdout.strip().splitlines()
        assert lines == ["[False, False, None, None] 1", "[None, None, False] 1"]
        with open(store.path(KEY), "rb") as f:
            assert f.read() == b"secret"  # untouched
    finally:
        shutil.rmtree(top, ignore_errors=True)


# ---------------------------------------------------------------------------- concurrency

WORKER = r'''
import json, os, sys, time
sys.path.insert(0, {pydir!r})
from tessera.runtime.cache import FileCache
role, ident, root, key, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5])
store = FileCache("race", root=root)
SIZES = {{w: 200_000 + 7919 * w for w in range(8)}}

def value(w):
    return bytes([w + 1]) * SIZES[w]

def ok(data):
    return len(data) in SIZES.values() and data == bytes([data[0]]) * len(data) and \
        len(data) == SIZES[data[0] - 1]

end = time.monotonic() + seconds
stats = {{"writes": 0, "reads": 0, "bad": 0, "checked_misses": 0}}
while time.monotonic() < end:
    if role == "writer":
        store.put(key, value(ident))
        store.put_checked(key + "c", value(ident))
        stats["writes"] += 1
    else:
        data = store.get(key)
        if data is not None:
            stats["reads"] += 1
            stats["bad"] += not ok(data)
        checked = store.get_checked(key + "c")
        if checked is None:
            stats["checked_misses"] += 1
        else:
            stats["bad"] += not ok(checked)
print(json.dumps(stats))
'''


def test_concurrent_writers_and_readers_see_only_whole_values(tmp_path, monkeypatch):
    monkeypatch.delenv("TESSERA_CACHE_DISABLE", raising=False)
    root = str(tmp_path / "root")
    key = hash_key("race")
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(pydir=PYDIR))
    # Seed both entries so readers always find one.
    seed = FileCache("race", root=root)
    seed.put(key, bytes([1]) * 200_000)
    seed.put_checked(key + "c", bytes([1]) * 200_000)
    procs = []
    for role, ident in [("writer", 0), ("writer", 1), ("writer", 2), ("reader", 0), ("reader", 1)]:
        procs.append(subprocess.Popen([sys.executable, str(script), role, str(ident), root, key, "1.5"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    results = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        assert "Warning" not in err, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    writers, readers = results[:3], results[3:]
    assert all(w["writes"] > 0 for w in writers)
    assert all(r["reads"] > 0 for r in readers)
    assert sum(r["bad"] for r in readers) == 0
    assert sum(r["checked_misses"] for r in readers) == 0  # never a partial (corrupt-looking) entry
    # Only the two entries remain: no temporary files left behind.
    assert sorted(os.path.basename(f) for f in all_files(root)) == sorted([key, key + "c"])


def test_cache_module_is_cheap_to_import():
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {PYDIR!r})
        import tessera.runtime.cache
        heavy = [m for m in ("numpy", "torch") if m in sys.modules]
        print(heavy)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
