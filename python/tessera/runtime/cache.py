"""The on-disk cache shared by compiled kernels and autotuning results.

Layout: ``<root>/<subdir>/<key[:2]>/<key>``, where ``<root>`` is
``default_cache_dir()`` and ``<subdir>`` names the kind of entry
(``kernels``, ``autotune``). Keys are strings of hex digits (letters, digits,
``_`` and ``-`` are accepted), usually made by ``hash_key``.

Environment:
  TESSERA_CACHE_DIR        the root (default ``~/.cache/tessera``).
  TESSERA_CACHE_DISABLE=1  turns the disk cache off: every ``get`` misses and
                           ``put`` writes nothing (also "true", "yes", "on").
  TESSERA_CACHE_FSYNC=1    fsyncs each entry before it is renamed into place
                           (durability across power loss; off by default).

Guarantees:
  * Writes are atomic: an entry is written to a uniquely named temporary file
    (``.<key>.<pid>.<random>.tmp``) in the entry's own directory and renamed
    over the entry with ``os.replace``, so a reader sees either no entry, the
    old one or the new one, never a partial file. Several processes may read
    and write the same keys at once; the last writer wins.
  * The cache never fails its caller over the file system: an unreadable
    entry, a directory without permission or a full disk is a miss (or a
    write that did not happen), reported by at most one ``warnings.warn`` per
    cache root and process.
  * ``get``/``put`` store bytes as given. ``get_checked``/``put_checked``
    frame the payload with a magic, its length and a BLAKE2b digest (of the
    key and the payload), so any payload (compiled kernels, JSON autotuning
    results) is checked: a truncated, damaged or misplaced entry (another
    key's file copied over this one) is removed and reads as a miss.
  * Only regular files of at most 256 MiB are read: a FIFO, a device or a
    symbolic link in an entry's place (which would block or read without
    end) is removed and reads as a miss.

Only the standard library is imported, and only cheap modules.
"""

from __future__ import annotations

import hashlib
import os
import stat
import warnings

__all__ = ["FileCache", "cache_disabled", "default_cache_dir", "hash_key", "kernel_cache",
           "autotune_cache"]

_TRUE_VALUES = ("1", "true", "yes", "on")
_KEY_CHARS = frozenset("0123456789abcdefABCDEFghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ_-")
_MAX_KEY_LEN = 200

# Framing of checked entries: magic, payload length (8 bytes, little endian),
# digest (32 bytes), payload.
_MAGIC = b"TSRCACHE\x01\x00\x00\x00"
_LEN_BYTES = 8
_DIGEST_BYTES = 32
_HEADER_BYTES = len(_MAGIC) + _LEN_BYTES + _DIGEST_BYTES

_warned_roots: set = set()

# The largest entry read (compiled kernels are kilobytes to a few MB).
_MAX_ENTRY_BYTES = 256 << 20


def default_cache_dir() -> str:
    """knobs.cache.dir: $TESSERA_CACHE_DIR or $TRITON_CACHE_DIR, else ~/.cache/tessera."""
    from .. import knobs
    return os.path.abspath(os.path.expanduser(knobs.cache.dir))


def cache_disabled() -> bool:
    """True when knobs.cache.disable (TESSERA_CACHE_DISABLE) asks for no disk cache."""
    from .. import knobs
    return bool(knobs.cache.disable)


def _encode(part, out: list) -> None:
    """Appends an unambiguous, type-tagged encoding of `part` to `out`."""
    if part is None:
        out.append(b"N")
    elif part is True or part is False:
        out.append(b"T" if part else b"F")
    elif isinstance(part, int):
        s = str(int(part)).encode()
        out.append(b"i%d:" % len(s) + s)
    elif isinstance(part, float):
        s = float(part).hex().encode()
        out.append(b"f%d:" % len(s) + s)
    elif isinstance(part, str):
        s = part.encode("utf-8", "surrogatepass")
        out.append(b"s%d:" % len(s) + s)
    elif isinstance(part, (bytes, bytearray, memoryview)):
        s = bytes(part)
        out.append(b"b%d:" % len(s) + s)
    elif isinstance(part, (tuple, list)):
        out.append(b"t%d:" % len(part))
        for p in part:
            _encode(p, out)
    else:
        raise TypeError(f"hash_key: cannot hash a {type(part).__name__} "
                        "(use str, bytes, int, float, bool, None, or tuples/lists of them)")


def hash_key(*parts) -> str:
    """A 64-digit hex key: BLAKE2b-256 over a canonical, type-tagged encoding of
    `parts` (str, bytes, int, float, bool, None, and tuples or lists of them;
    a tuple and a list with the same elements hash alike)."""
    out: list = []
    _encode(parts, out)
    return hashlib.blake2b(b"".join(out), digest_size=32).hexdigest()


def _digest(key: str, payload: bytes) -> bytes:
    h = hashlib.blake2b(digest_size=_DIGEST_BYTES, person=b"tessera-cache")
    h.update(key.encode())
    h.update(b"\0")
    h.update(payload)
    return h.digest()


def _check_key(key) -> str:
    if not isinstance(key, str) or not key or len(key) > _MAX_KEY_LEN or not _KEY_CHARS.issuperset(key):
        raise ValueError(f"cache keys are 1 to {_MAX_KEY_LEN} hex digits (letters, digits, '_', '-'), "
                         f"got {key!r}")
    return key


class FileCache:
    """Entries of one kind (`subdir`) under the cache root (`root`, default
    `default_cache_dir()` at construction)."""

    def __init__(self, subdir: str, root: str | None = None):
        if not subdir or os.sep in subdir or subdir.startswith("."):
            raise ValueError(f"FileCache: bad subdirectory name {subdir!r}")
        self.subdir = subdir
        self.root = os.path.abspath(root) if root is not None else default_cache_dir()
        self.dir = os.path.join(self.root, subdir)

    def __repr__(self) -> str:
        return f"FileCache({self.dir!r})"

    @property
    def enabled(self) -> bool:
        return not cache_disabled()

    def path(self, key: str) -> str:
        """Where the entry for `key` lives (whether or not it exists)."""
        _check_key(key)
        return os.path.join(self.dir, key[:2], key)

    def _warn(self, what: str, err: BaseException) -> None:
        if self.root in _warned_roots:
            return
        _warned_roots.add(self.root)
        warnings.warn(f"tessera: the disk cache at {self.root} is not usable ({what}: {err}); "
                      "carrying on without it (set TESSERA_CACHE_DIR to another directory, or "
                      "TESSERA_CACHE_DISABLE=1 to silence this)", RuntimeWarning, stacklevel=3)

    # ---- raw entries ---------------------------------------------------------------------

    def get(self, key: str) -> bytes | None:
        """The bytes stored under `key`, or None (no entry, cache disabled, or
        an entry that cannot be read)."""
        path = self.path(key)
        if cache_disabled():
            return None
        # No blocking open (a FIFO), no following a final symbolic link (to
        # /dev/zero, say), and then only a regular file of bounded size.
        flags = (os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
                 | getattr(os, "O_NOFOLLOW", 0))
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            return None
        except OSError as e:
            if os.path.islink(path):  # O_NOFOLLOW refused it
                self.remove(key)
                return None
            self._warn("reading", e)  # permission, I/O error
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_ENTRY_BYTES:
                bad = True
            else:
                chunks, total = [], 0
                while total <= _MAX_ENTRY_BYTES:
                    chunk = os.read(fd, min(1 << 20, _MAX_ENTRY_BYTES + 1 - total))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    total += len(chunk)
                bad = total > _MAX_ENTRY_BYTES  # grew while read
        except (OSError, ValueError) as e:  # a directory in the way, I/O error
            self._warn("reading", e)
            return None
        finally:
            os.close(fd)
        if bad:
            self.remove(key)
            return None
        return b"".join(chunks)

    def put(self, key: str, data) -> bool:
        """Stores `data` (bytes-like) under `key` atomically. True when written;
        False when the cache is disabled or the write failed."""
        path = self.path(key)
        data = bytes(data)
        if cache_disabled():
            return False
        directory = os.path.dirname(path)
        tmp = os.path.join(directory, f".{key}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
        try:
            os.makedirs(directory, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o644)
            try:
                view = memoryview(data)
                while view:
                    n = os.write(fd, view)
                    view = view[n:]
                if os.environ.get("TESSERA_CACHE_FSYNC", "") in _TRUE_VALUES:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
            return True
        except OSError as e:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            self._warn("writing", e)
            return False

    def remove(self, key: str) -> None:
        """Deletes the entry for `key` if present (a corrupt entry, say)."""
        path = self.path(key)
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            self._warn("removing an entry", e)

    def __contains__(self, key: str) -> bool:
        return not cache_disabled() and os.path.isfile(self.path(key))

    # ---- checked entries -----------------------------------------------------------------

    def put_checked(self, key: str, payload) -> bool:
        """Like `put`, with the payload framed by a magic, its length and a
        digest, for `get_checked`."""
        payload = bytes(payload)
        header = _MAGIC + len(payload).to_bytes(_LEN_BYTES, "little") + _digest(key, payload)
        return self.put(key, header + payload)

    def get_checked(self, key: str) -> bytes | None:
        """The payload stored by `put_checked`, or None. An entry that fails the
        check (truncated, damaged, written by something else, or stored
        under another key) is removed and reads as a miss."""
        data = self.get(key)
        if data is None:
            return None
        payload = unframe(key, data)
        if payload is None:
            self.remove(key)
        return payload


def unframe(key: str, data: bytes) -> bytes | None:
    """The payload of a checked entry, or None when it does not check out."""
    if len(data) < _HEADER_BYTES or not data.startswith(_MAGIC):
        return None
    start = len(_MAGIC)
    n = int.from_bytes(data[start:start + _LEN_BYTES], "little")
    digest = data[start + _LEN_BYTES:_HEADER_BYTES]
    payload = data[_HEADER_BYTES:]
    if len(payload) != n or _digest(key, payload) != digest:
        return None
    return payload


_caches: dict = {}


def _shared(subdir: str) -> FileCache | None:
    if cache_disabled():
        return None
    root = default_cache_dir()
    c = _caches.get((subdir, root))
    if c is None:
        c = _caches[(subdir, root)] = FileCache(subdir, root)
    return c


def kernel_cache() -> FileCache | None:
    """The cache of compiled kernels under the current root, or None when the
    disk cache is disabled."""
    return _shared("kernels")


def autotune_cache() -> FileCache | None:
    """The cache of autotuning results under the current root, or None when
    the disk cache is disabled."""
    return _shared("autotune")
