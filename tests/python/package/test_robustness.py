"""Bad or hostile input never crashes, hangs or gives a silent wrong answer
(issue 13). Each case once did: a case that crashed or hung the process runs
in a child interpreter with a timeout, so a regression fails one test
instead of killing the suite."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[3] / "python"


_children = 0


def run_child(body: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs `body` in a fresh interpreter that imports tessera from this tree;
    returns the finished process (a crash is a negative return code)."""
    prelude = textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(PYTHON_DIR)!r})
        import numpy as np
        import tessera as triton
        import tessera.language as tl
        """)
    global _children
    _children += 1
    # A file, not -c: kernels are read from their source file.
    script = pathlib.Path(os.environ["TESSERA_CACHE_DIR"]) / f"robustness_child_{_children}.py"
    script.write_text(prelude + textwrap.dedent(body))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ))


_sources = 0


def module_from_source(body: str):
    """A module on disk of `body` after the tessera imports (the front end
    reads a kernel's source from its file), imported."""
    global _sources
    _sources += 1
    path = pathlib.Path(os.environ["TESSERA_CACHE_DIR"]) / f"robustness_src_{_sources}.py"
    path.write_text("import tessera as triton\nimport tessera.language as tl\n\n" + body)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def kernel_from_source(src: str, name: str = "k"):
    """The @jit kernel `name` of `src` (a def)."""
    return getattr(module_from_source("@triton.jit\n" + src), name)


def child_ok(body: str, timeout: float = 120) -> str:
    proc = run_child(body, timeout)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
    return proc.stdout


# ------------------------------------------------ compile-time integers


def test_int64_min_floordiv_minus_one_is_exact():
    # Was SIGFPE in the compiler's constant folding, killing the process.
    out = child_ok("""
        @triton.jit
        def k(out):
            x = -9223372036854775807 - 1
            tl.store(out, x // -1)
            tl.store(out + 1, x % -1)
            tl.store(out + 2, tl.cdiv(x, -1))
        o = np.full(3, 7, np.uint64)
        k[(1,)](o)
        print(o.tolist())
        """)
    # Python: 2**63 (a uint64 constant, as Triton types it), 0, and Triton's
    # cdiv, (x + d - 1) // d: 2**63 + 2.
    assert out.split() == ["[9223372036854775808,", "0,", "9223372036854775810]"]


@triton.jit
def exact_int_kernel(out):
    # Intermediates leave 64 bits; each result is representable.
    tl.store(out, (1 << 64) - 1)
    tl.store(out + 1, (1 << 100) >> 90)
    tl.store(out + 2, abs(-2**63))
    tl.store(out + 3, int(2.0**70) - 2**70 + 5)
    tl.store(out + 4, 2**64 // 3)
    tl.store(out + 5, tl.cdiv(2**64 - 2, 2))


def test_compile_time_integers_are_exact():
    out = np.zeros(6, np.uint64)
    exact_int_kernel[(1,)](out)
    want = [(1 << 64) - 1, (1 << 100) >> 90, 2**63, 5, 2**64 // 3, -(-(2**64 - 2) // 2)]
    assert out.tolist() == want


@pytest.mark.parametrize("expr,number", [
    ("1 << 100", str(1 << 100)),
    ("abs(-2**64)", str(2**64)),
    ("-(2**63) - 1", str(-(2**63) - 1)),
    ("int(1e30)", str(int(1e30))),
    ("3 ** 200", "more than 127 bits"),
    ("int(1e300)", "more than 127 bits"),
    ("tl.cdiv(2**64, 1)", str(2**64)),
])
def test_nonrepresentable_integer_is_an_error(expr, number):
    k = kernel_from_source(f"def k(out):\n    tl.store(out, {expr})\n")
    with pytest.raises(triton.CompilationError, match="Nonrepresentable integer") as e:
        k[(1,)](np.zeros(1, np.int64))
    assert number in str(e.value)


# ------------------------------------------------ read-only memory


@triton.jit
def store_one_kernel(out):
    tl.store(out + tl.arange(0, 4), tl.full((4,), 5, tl.int32))


@triton.jit
def atomic_kernel(out):
    tl.atomic_add(out, 1)


@triton.jit
def copy_kernel(src, dst):
    i = tl.arange(0, 4)
    tl.store(dst + i, tl.load(src + i))


def _readonly_array():
    a = np.zeros(4, np.int32)
    a.setflags(write=False)
    return a


class ArrayInterface:
    """An exporter of only __array_interface__ (no .dtype attribute)."""

    def __init__(self, a, readonly):
        self.a = a
        self.__array_interface__ = {"data": (a.ctypes.data, readonly), "typestr": a.dtype.str,
                                    "shape": a.shape, "version": 3}


@pytest.mark.parametrize("make", [
    _readonly_array,
    lambda: np.frombuffer(bytes(16), np.int32),
    lambda: memoryview(bytes(16)).cast("i"),
    lambda: ArrayInterface(_readonly_array(), True),
], ids=["readonly-ndarray", "frombuffer-bytes", "memoryview-bytes", "array-interface"])
@pytest.mark.parametrize("kernel", [store_one_kernel, atomic_kernel], ids=["store", "atomic"])
def test_store_into_readonly_memory_is_refused(make, kernel):
    target = make()
    before = bytes(memoryview(target.a if isinstance(target, ArrayInterface) else target).cast("B"))
    with pytest.raises(triton.KernelError, match="read-only buffer out") as e:
        kernel[(1,)](target)
    assert "pass a writable copy" in str(e.value)
    after = bytes(memoryview(target.a if isinstance(target, ArrayInterface) else target).cast("B"))
    assert after == before


def test_bytes_constant_is_not_changed():
    # The immutable bytes object itself (here a code constant) was written.
    child_ok("""
        @triton.jit
        def k(out):
            tl.store(out, 1)
        def f():
            return b"\\0\\0\\0\\0"
        try:
            k[(1,)](np.frombuffer(f(), np.int32))
        except triton.KernelError as e:
            assert "read-only" in str(e)
        else:
            raise AssertionError("no error")
        assert f() == bytes(4)
        """)


def test_readonly_mmap_store_is_an_error_not_sigsegv(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(16))
    out = child_ok(f"""
        import mmap
        @triton.jit
        def k(src, dst):
            i = tl.arange(0, 4)
            tl.store(dst + i, tl.load(src + i) + 1)
        with open({str(path)!r}, "rb") as f:
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            ro = np.frombuffer(m, np.int32)
            dst = np.zeros(4, np.int32)
            k[(1,)](ro, dst)  # loads from read-only memory are fine
            print(dst.tolist())
            try:
                k[(1,)](dst, ro)
            except triton.KernelError as e:
                print("refused" if "read-only buffer dst" in str(e) else e)
        """)
    assert out.split("\n")[:2] == ["[1, 1, 1, 1]", "refused"]


def test_loads_from_readonly_memory_work():
    src = np.arange(4, dtype=np.int32)
    src.setflags(write=False)
    dst = np.zeros(4, np.int32)
    copy_kernel[(1,)](src, dst)
    assert dst.tolist() == [0, 1, 2, 3]
    dst2 = np.zeros(4, np.int32)
    copy_kernel[(1,)](ArrayInterface(np.arange(4, dtype=np.int32), True), dst2)
    assert dst2.tolist() == [0, 1, 2, 3]


def test_array_interface_without_dtype_is_accepted():
    src = np.arange(4, dtype=np.float32) + 0.5
    dst = np.zeros(4, np.float32)
    copy_kernel[(1,)](ArrayInterface(src, False), ArrayInterface(dst, False))
    assert dst.tolist() == src.tolist()


def test_big_endian_array_is_refused():
    x = np.arange(4, dtype=">i4")
    dst = np.zeros(4, np.int32)
    with pytest.raises(TypeError, match="big-endian"):
        copy_kernel[(1,)](x, dst)
    with pytest.raises(TypeError, match="big-endian"):
        copy_kernel[(1,)](ArrayInterface(x, False), dst)
    copy_kernel[(1,)](x.astype(x.dtype.newbyteorder("=")), dst)
    assert dst.tolist() == [0, 1, 2, 3]


# ------------------------------------------------ buffers held during a run


def test_buffer_cannot_be_resized_while_the_kernel_runs():
    # The view was released before the kernel ran with the GIL released: a
    # thread freeing the bytearray meanwhile made the kernel write freed
    # memory (heap corruption, SIGABRT). Now the resize is refused.
    out = child_ok("""
        import threading, time
        @triton.jit
        def slow(out, n):
            i = 0
            acc = tl.zeros((256,), tl.int32)
            while i < n:
                acc += 1
                i += 1
            tl.store(out + tl.arange(0, 256), acc)
        buf = bytearray(1024)
        slow[(1,)](buf, 1)  # compiled before timing anything
        t0 = time.perf_counter()
        slow[(1,)](buf, 20000)
        per_run = time.perf_counter() - t0
        n = int(20000 * 1.0 / max(per_run, 1e-6))  # about a second
        started = threading.Event()
        def run():
            started.set()
            slow[(1,)](buf, n)
        t = threading.Thread(target=run)
        t.start()
        started.wait()
        time.sleep(0.2)
        try:
            del buf[:]
            print("resized while running" if t.is_alive() else "finished too early")
        except BufferError:
            print("refused")
        t.join()
        # A bytearray is a uint8 buffer: the int32 count is stored truncated.
        print(list(buf[:256]) == [n % 256] * 256)
        """)
    assert out.split() == ["refused", "True"], out


# ------------------------------------------------ Ctrl-C


@pytest.mark.parametrize("launch", [
    "endless[(1,)](out, 1)",          # a while loop that never ends
    "one_store[(2**31 - 1,)](out)",   # 2^31 - 1 programs
], ids=["endless-loop", "huge-grid"])
def test_ctrl_c_stops_a_running_kernel(launch):
    # SIGINT was ignored until the kernel ended (never, for an endless loop).
    import signal
    import time

    script = textwrap.dedent(f"""\
        import sys, time
        sys.path.insert(0, {str(PYTHON_DIR)!r})
        import numpy as np
        import tessera as triton
        import tessera.language as tl

        @triton.jit
        def endless(out, n):
            i = 0
            while n > 0:
                i += 1
            tl.store(out, i)

        @triton.jit
        def one_store(out):
            tl.store(out, 1)

        out = np.zeros(1, np.int32)
        endless[(1,)](out, 0)  # compiled before the timed launch
        one_store[(1,)](out)
        print("running", flush=True)
        try:
            {launch}
        except KeyboardInterrupt:
            print("KeyboardInterrupt", time.monotonic(), flush=True)
        """)
    path = pathlib.Path(os.environ["TESSERA_CACHE_DIR"]) / f"ctrl_c_{abs(hash(launch))}.py"
    path.write_text(script)
    proc = subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "running"
        time.sleep(0.5)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, out
    word, stamp = out.split()
    assert word == "KeyboardInterrupt"
    assert float(stamp) - sent < 1.0  # the target: within a second


# ------------------------------------------------ input sizes


BUILD = pathlib.Path(os.environ.get("TESSERA_BUILD_DIR", pathlib.Path(__file__).resolve().parents[3] / "build"))


@pytest.mark.parametrize("tool", ["tesserac", "tessera-opt"])
def test_endless_input_file_is_refused(tool):
    # /dev/zero was read until std::bad_alloc aborted the tool.
    exe = BUILD / tool
    if not exe.exists():
        pytest.skip(f"{exe} is not built")
    args = [str(exe), "compile", "/dev/zero", "--kernel", "k", "--signature", "i32"] \
        if tool == "tesserac" else [str(exe), "/dev/zero"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert "is larger than 64 MiB" in r.stderr


@pytest.mark.parametrize("build", [
    # ("tuple", [("tuple", [... ("int", 1) ...])]), 100,000 deep
    "v = ('int', 1)\nfor _ in range(100_000):\n    v = ('tuple', [v])",
    # a tuple constant whose element list contains the constant itself
    "elems = []\nv = ('tuple', elems)\nelems.append(v)",
], ids=["100000-deep", "self-containing"])
def test_deep_or_cyclic_constant_is_refused(build):
    # Both overflowed the stack (SIGSEGV) in the extension.
    out = child_ok(build + textwrap.dedent("""
        from tessera._ext import load
        C = load()
        SRC = ("import triton\\nimport triton.language as tl\\n@triton.jit\\n"
               "def k(p, V: tl.constexpr):\\n    tl.store(p, 1)\\n")
        try:
            C.compile([(SRC, "t.py", 1, 0, [])], "k", [("ptr", "i32", False), ("constexpr", v)])
        except ValueError as e:
            print(e)
        """))
    assert "nested more than 64 deep" in out


def test_huge_column_offset_gives_a_short_message():
    # A col_offset of 2**32 - 1 built a 4-billion-character caret line.
    from tessera._ext import load

    C = load()
    src = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(p):\n    tl.store(p, nope)\n"
    with pytest.raises(Exception, match="column offset") as e:
        C.compile([(src, "t.py", 1, 2**32 - 1, [])], "k", [("ptr", "i32", False)])
    assert len(str(e.value)) < 1000
    # The largest offset allowed still gives a message of bounded width.
    with pytest.raises(Exception, match="undefined name 'nope'") as e:
        C.compile([(src, "t.py", 1, 1 << 16, [])], "k", [("ptr", "i32", False)])
    assert len(str(e.value)) < 1000
    assert "..." in str(e.value)


# ------------------------------------------------ the disk cache

CACHE_SCRIPT = textwrap.dedent("""\
    import os, sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import tessera as triton
    import tessera.language as tl

    @triton.jit
    def add(x, y, out):
        i = tl.arange(0, 4)
        tl.store(out + i, tl.load(x + i) + tl.load(y + i))

    @triton.jit
    def sub(x, y, out):
        i = tl.arange(0, 4)
        tl.store(out + i, tl.load(x + i) - tl.load(y + i))

    def entries():
        root = os.path.join(os.environ["TESSERA_CACHE_DIR"], "kernels")
        return {os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if not f.startswith(".")}

    x, y = np.arange(4, dtype=np.float32) + 10, np.arange(4, dtype=np.float32)
    out = np.zeros(4, np.float32)
    if sys.argv[2] == "fill":  # one entry each, their paths in order
        before = entries()
        add[(1,)](x, y, out)
        a = entries() - before
        sub[(1,)](x, y, out)
        print(*a, *(entries() - before - a))
    else:
        add[(1,)](x, y, out)
        print(out.tolist() == (x + y).tolist(), triton.runtime.jit.stats.disk_hits)
    """)


def run_cache_script(tmp_path, mode, cache_dir):
    script = tmp_path / "cache_kernels.py"
    script.write_text(CACHE_SCRIPT)
    r = subprocess.run([sys.executable, str(script), str(PYTHON_DIR), mode], capture_output=True,
                       text=True, timeout=60, env=dict(os.environ, TESSERA_CACHE_DIR=str(cache_dir)))
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


@pytest.mark.parametrize("damage", ["other-kernel", "fifo", "symlink-dev-zero"])
def test_cache_entry_that_is_not_this_kernels_is_a_miss(tmp_path, damage):
    # Copying sub's entry over add's made add subtract, silently; a FIFO in
    # its place blocked forever; a symbolic link to /dev/zero read 5 GB.
    cache_dir = tmp_path / "cache"
    add_path, sub_path = run_cache_script(tmp_path, "fill", cache_dir)
    assert run_cache_script(tmp_path, "run", cache_dir) == ["True", "1"]  # a hit
    os.unlink(add_path)
    if damage == "other-kernel":
        import shutil

        shutil.copyfile(sub_path, add_path)
    elif damage == "fifo":
        os.mkfifo(add_path)
    else:
        os.symlink("/dev/zero", add_path)
    assert run_cache_script(tmp_path, "run", cache_dir) == ["True", "0"]  # a miss, recompiled
    assert os.path.isfile(add_path) and not os.path.islink(add_path)  # and rewritten
    assert run_cache_script(tmp_path, "run", cache_dir) == ["True", "1"]


# ------------------------------------------------ pointer arithmetic


@triton.jit
def load_at_kernel(x, out, off):
    tl.store(out, tl.load(x + off))


@triton.jit
def masked_far_kernel(x, out, off):
    i = tl.arange(0, 4)
    o = tl.where(i < 2, i, off)
    tl.store(out + i, tl.load(x + o, mask=i < 2, other=-1))


@pytest.mark.parametrize("off", [2**62, 2**62 + 1, -(2**62), 2**63 - 1, -(2**63)])
def test_pointer_offset_past_the_address_space_is_an_error(off):
    # x + 2**62 (4-byte elements) wrapped to x itself: element 0, no error.
    x = np.arange(8, dtype=np.float32) + 1
    out = np.zeros(1, np.float32)
    with pytest.raises(triton.KernelError, match="pointer arithmetic overflowed"):
        load_at_kernel[(1,)](x, out, off)
    load_at_kernel[(1,)](x, out, 3)
    assert out[0] == 4
    # Masked lanes may hold such offsets.
    out4 = np.zeros(4, np.float32)
    masked_far_kernel[(1,)](x, out4, off)
    assert out4.tolist() == [1, 2, -1, -1]


# ------------------------------------------------ threads


def test_first_launches_from_many_threads():
    # The threads raced on loading the extension: "module 'tessera._C' has
    # no attribute 'Dispatcher'".
    for _ in range(3):
        out = child_ok("""
            import threading
            @triton.jit
            def k(out, v):
                tl.store(out, v)
            outs = [np.zeros(1, np.int32) for _ in range(8)]
            errors = []
            barrier = threading.Barrier(8)
            def run(i):
                barrier.wait()
                try:
                    k[(1,)](outs[i], i)
                except Exception as e:
                    errors.append(repr(e))
            ts = [threading.Thread(target=run, args=(i,)) for i in range(8)]
            for t in ts: t.start()
            for t in ts: t.join()
            print(errors or [int(o[0]) for o in outs])
            """)
        assert out.strip() == str(list(range(8))), out


# ------------------------------------------------ kernel sources


def test_source_is_read_at_decoration_not_at_first_launch():
    # Editing the file after the import changed the program that ran.
    k = kernel_from_source(textwrap.dedent("""\
        def k(out):
            tl.store(out, 1 + 1)
        """))
    path = pathlib.Path(k.fn.__code__.co_filename)
    path.write_text(path.read_text().replace("1 + 1", "5 + 5"))
    import linecache

    linecache.checkcache(str(path))
    out = np.zeros(1, np.int32)
    k[(1,)](out)
    assert out[0] == 2


def test_decorator_argument_that_reads_as_a_def_is_not_compiled():
    # A decorator argument holding a "def k(" line was compiled instead of
    # the function's body.
    mod = module_from_source(
        "def note(text):\n    return lambda f: f\n\n"
        "@triton.jit\n@note(\"\"\"\ndef k(out):\n    tl.store(out, 99)\n\"\"\")\n"
        "def k(out):\n    tl.store(out, 7)\n")
    out = np.zeros(1, np.int32)
    mod.k[(1,)](out)
    assert out[0] == 7


def test_string_continued_by_a_backslash_ends_with_its_kernel():
    # A one-line string continued onto the next line with a backslash (as
    # inline-asm texts often are) threw the bracket count off: the nested
    # kernel's source ran on to the end of the file, and the next test
    # function's kernel of the same name was compiled in its place.
    mod = module_from_source(
        "def make():\n"
        "    @triton.jit\n    def k(out):\n"
        "        tl.static_assert(True, \"one \\\n      two (\")\n"
        "        tl.store(out, 7)\n\n"
        "    return k\n\n"
        "def make_other():\n"
        "    @triton.jit\n    def k(out, mode):\n        pass\n\n"
        "    return k\n")
    out = np.zeros(1, np.int32)
    mod.make()[(1,)](out)
    assert out[0] == 7


# ------------------------------------------------ messages


@triton.jit
def store_n_kernel(out, n):
    tl.store(out, n)


@pytest.mark.parametrize("options,error,text", [
    (dict(num_warps=0), ValueError, "num_warps must be a power of 2 from 1 to 32, got 0"),
    (dict(num_warps=3), AssertionError, "num_warps must be a power of 2"),
    (dict(num_stages=10**20), ValueError, "num_stages must be an int from 0 to 16"),
    (dict(num_stages=1.5), TypeError, "num_stages must be an int"),
    (dict(debug="yes"), TypeError, "debug must be True, False or None, got 'yes'"),
])
def test_launch_options_are_checked_on_the_cpu(options, error, text):
    with pytest.raises(error, match=text):
        store_n_kernel[(1,)](np.zeros(1, np.int32), 1, **options)


def test_grid_past_64_bits_says_what_the_limit_is():
    # Was a bare "OverflowError: int too big to convert".
    with pytest.raises(ValueError, match=r"grid dimensions must be in \[0, 2\^31\)"):
        store_n_kernel[(2**63,)](np.zeros(1, np.int32), 1)


def test_out_of_bounds_through_an_empty_array_names_it():
    # Was "address 0x... is outside every buffer passed to the kernel".
    with pytest.raises(triton.KernelError, match="writes element 0 of buffer out, which is empty"):
        store_n_kernel[(1,)](np.zeros(0, np.int32), 1)


# ------------------------------------------------ loop-carried types


def test_loop_carried_int_reassigned_float_is_an_error():
    # Was converted silently (1.5 stored as 1); Triton rejects it.
    k = kernel_from_source(textwrap.dedent("""\
        def k(out, n):
            y = 0
            for i in range(n):
                y = 1.5
            tl.store(out, y)
        """))
    with pytest.raises(triton.CompilationError,
                       match="Loop-carried variable y has initial type int32 but is re-assigned "
                             "to fp32 in loop"):
        k[(1,)](np.zeros(1, np.float32), 3)
