"""python -m tessera: a Triton program runs unchanged, `import triton`
giving Tessera, while PyTorch's own imports of triton are left alone."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]

PROGRAM = textwrap.dedent('''
    import sys
    import numpy as np
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice
    from triton import testing
    import helper_mod

    @triton.jit
    def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, libdevice.exp(tl.load(x_ptr + offs, mask=m)) + 1, mask=m)

    x = np.linspace(-1, 1, 100).astype(np.float32)
    y = np.zeros_like(x)
    add[(triton.cdiv(100, 32),)](x, y, 100, BLOCK=32)
    assert np.allclose(y, np.exp(x) + 1, rtol=1e-6)
    print("triton is", triton.__name__, tl.__name__, libdevice.__name__, testing.__name__)
    print("reprs", repr(tl.int8), repr(triton.language.bfloat16),
          eval(repr(tl.float16)) is tl.float16)
    print("helper sees", helper_mod.which())
    print("main", __name__, __file__.endswith("prog.py"), sys.argv[1:])
    import torchprobe
    print("torch sees", torchprobe.seen())
    try:
        import triton.tools.no_such_thing
    except ModuleNotFoundError as e:
        print("missing:", e)
''')

HELPER = "import triton\n\ndef which():\n    return triton.__name__\n"
# A module whose name starts with `torch`, as inductor's do: its import of
# triton is not aliased (it finds the real Triton, or none where none is
# installed, but never Tessera).
TORCH_PROBE = textwrap.dedent('''
    __name__ = "torch._probe"
    def seen():
        try:
            import triton
        except ImportError:
            return "no triton"
        return "tessera" if triton.__name__.startswith("tessera") else "the real triton"
''')


def run(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    return subprocess.run([sys.executable, "-m", "tessera", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_runs_a_triton_program_unchanged(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    (tmp_path / "helper_mod.py").write_text(HELPER)
    (tmp_path / "torchprobe.py").write_text(TORCH_PROBE)
    r = run([str(tmp_path / "prog.py"), "a", "--b"], cwd=os.getcwd())
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert ("triton is tessera tessera.language tessera.language.extra.libdevice "
            "tessera.testing") in out
    assert "reprs triton.language.int8 triton.language.bfloat16 True" in out
    assert "helper sees tessera" in out
    assert "main __main__ True ['a', '--b']" in out
    assert "torch sees no triton" in out or "torch sees the real triton" in out
    assert "missing: No module named 'triton.tools.no_such_thing': Tessera has no" in out


def test_module_mode_and_usage(tmp_path):
    (tmp_path / "modprog.py").write_text("import sys, triton\nprint(triton.__name__, sys.argv[1:])\n")
    r = run(["-m", "modprog", "x"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "tessera ['x']" in r.stdout
    r = run([], cwd=tmp_path)
    assert r.returncode == 2 and "usage: python -m tessera" in r.stderr
    r = run(["nope.py"], cwd=tmp_path)
    assert r.returncode == 2 and "can't open file 'nope.py'" in r.stderr


def test_triton_internal_blas_and_profiler_imports_resolve(tmp_path):
    # Tutorial 09's imports: Triton's compiled module (for its cuBLAS
    # binding) and proton, both under their Triton names.
    (tmp_path / "blasprog.py").write_text(textwrap.dedent('''
        import triton.profiler as proton
        import triton.profiler.viewer as proton_viewer
        from triton._C.libtriton import nvidia
        print(proton.__name__, proton_viewer.__name__, nvidia.cublas.CublasLt.__module__)
    '''))
    r = run([str(tmp_path / "blasprog.py")], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["tessera.profiler", "tessera.profiler.viewer",
                                "tessera.runtime.libtriton"]


def test_cublaslt_facade_multiplies_by_the_transpose(rng):
    torch = pytest.importorskip("torch")
    from tessera.runtime.libtriton import nvidia

    blas = nvidia.cublas.CublasLt(torch.empty(1024, dtype=torch.uint8))
    a = torch.from_numpy(rng.standard_normal((37, 19)).astype(np.float32))
    b = torch.from_numpy(rng.standard_normal((23, 19)).astype(np.float32))
    c = torch.full((37, 23), float("nan"))
    blas.matmul(a, b, c)
    want = a.double().numpy() @ b.double().numpy().T
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"C = A @ B.T\), so C must be 37x23, got \(23, 37\)"):
        blas.matmul(a, b, torch.empty(23, 37))
