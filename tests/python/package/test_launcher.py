"""The launch fast path: `kernel[grid]` is a C++ Launcher once the kernel has
launched, and it binds arguments as the Python binder does. Each test checks
results against NumPy (poisoned outputs, fresh inputs) and counts how many
launches fell back to the general path (JITFunction.run)."""
import numpy as np
import pytest

import tessera as triton
import tessera.language as tl
from tessera.runtime.jit import JITFunction


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr = 64):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


SHIFT = 3


@triton.jit
def shift_kernel(out_ptr):
    tl.store(out_ptr, SHIFT + 1)


@pytest.fixture
def general_path_calls(monkeypatch):
    calls = []
    real = JITFunction.run

    def counting(self, *args, **kwargs):
        calls.append(kwargs.get("grid"))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(JITFunction, "run", counting)
    return calls


def check_axpy(launch, rng, n=300, alpha=1.5):
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    launch(x, y, out, n, alpha)
    np.testing.assert_allclose(out, alpha * x.astype(np.float64) + y, rtol=1e-6, atol=1e-6)


def test_fast_path_binds_like_python(rng, general_path_calls):
    check_axpy(lambda x, y, o, n, a: axpy_kernel[(5,)](x, y, o, n, a), rng)
    assert len(general_path_calls) == 1  # compiled there
    launcher = axpy_kernel[(5,)]
    assert type(launcher).__name__ == "Launcher" and launcher.fn is axpy_kernel
    forms = [
        lambda x, y, o, n, a: axpy_kernel[(5,)](x, y, o, n, a),
        lambda x, y, o, n, a: axpy_kernel[(5, 1, 1)](x, y, o, n, alpha=a),
        lambda x, y, o, n, a: axpy_kernel[(5, 1)](alpha=a, n=n, out_ptr=o, y_ptr=y, x_ptr=x),
        lambda x, y, o, n, a: axpy_kernel[[5]](x, y, o, n, a, BLOCK=64),
        lambda x, y, o, n, a: launcher(x, y, o, n, a),
    ]
    for launch in forms:
        check_axpy(launch, rng)
    assert len(general_path_calls) == 1


def test_callable_grid_called_once_with_every_parameter(rng, general_path_calls):
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    for _ in range(3):
        check_axpy(lambda x, y, o, n, a: axpy_kernel[grid](x, y, o, n, a, BLOCK=32), rng, n=200)
    assert len(seen) == 3
    assert set(seen[-1]) == {"x_ptr", "y_ptr", "out_ptr", "n", "alpha", "BLOCK"}
    assert seen[-1]["BLOCK"] == 32 and seen[-1]["n"] == 200
    assert len(general_path_calls) <= 1


def test_keywords_built_at_run_time(rng, general_path_calls):
    """Keyword names that are not interned (built at run time) bind by value,
    parameters and options alike, on the fast path."""
    check_axpy(lambda x, y, o, n, a: axpy_kernel[(5,)](x, y, o, n, a, num_warps=2), rng)
    before = len(general_path_calls)
    alpha, warps = "".join(["al", "pha"]), "".join(["num_", "warps"])
    check_axpy(lambda x, y, o, n, a: axpy_kernel[(5,)](x, y, o, n, **{alpha: a, warps: 2}), rng)
    assert len(general_path_calls) == before


def test_options_are_part_of_the_key(rng, general_path_calls):
    check_axpy(lambda x, y, o, n, a: axpy_kernel[(5,)](x, y, o, n, a, num_warps=8), rng)
    before = len(general_path_calls)
    check_axpy(lambda x, y, o, n, a: axpy_kernel[(5,)](x, y, o, n, a, num_warps=8), rng)
    assert len(general_path_calls) == before
    # Options the fast path does not key on go through the general path.
    check_axpy(lambda x, y, o, n, a: axpy_kernel[(5,)](x, y, o, n, a, enable_fp_fusion=False), rng)
    assert len(general_path_calls) == before + 1


def test_general_path_reports_binding_errors(rng):
    x = np.zeros(64, dtype=np.float32)
    axpy_kernel[(1,)](x, x, x, 64, 1.0)
    with pytest.raises(TypeError, match="multiple values for argument 'n'"):
        axpy_kernel[(1,)](x, x, x, 64, 1.0, n=3)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'alpha'"):
        axpy_kernel[(1,)](x, x, x, 64)
    with pytest.raises(TypeError, match="unexpected keyword argument 'alhpa'"):
        axpy_kernel[(1,)](x, x, x, 64, 1.0, alhpa=1.0)
    with pytest.raises(TypeError, match="takes"):
        axpy_kernel[(1,)](x, x, x, 64, 1.0, 64, 7)
    with pytest.raises(ValueError, match="grid"):
        axpy_kernel[(-1,)](x, x, x, 64, 1.0)


def test_grid_of_numpy_ints(rng, general_path_calls):
    """NumPy integers (anything with __index__) take the fast path, given or
    returned by a grid function; a grid function that returns a bad grid is
    named in the message."""
    check_axpy(lambda x, y, o, n, a: axpy_kernel[(np.int64(5),)](x, y, o, n, a), rng)
    before = len(general_path_calls)
    check_axpy(lambda x, y, o, n, a: axpy_kernel[(np.int64(5),)](x, y, o, n, a), rng)
    check_axpy(lambda x, y, o, n, a: axpy_kernel[lambda m: (np.int32(5), np.uint8(1))](x, y, o, n, a),
               rng)
    assert len(general_path_calls) == before

    calls = []

    def array_grid(meta):  # not a tuple: the general path takes the result, no second call
        calls.append(1)
        return np.array([5])

    check_axpy(lambda x, y, o, n, a: axpy_kernel[array_grid](x, y, o, n, a), rng)
    check_axpy(lambda x, y, o, n, a: axpy_kernel[array_grid](x, y, o, n, a), rng)
    assert len(calls) == 2

    def bad_grid(meta):
        return (5.0,)

    x = np.zeros(64, dtype=np.float32)
    with pytest.raises(TypeError, match=r"got float in the grid function '.*bad_grid' returned \(5.0,\)"):
        axpy_kernel[bad_grid](x, x, x, 64, 1.0)
    with pytest.raises(TypeError, match=r"grid entries must be integers, got ndarray in \(array"):
        axpy_kernel[(np.array([1, 2]),)](x, x, x, 64, 1.0)


def test_hooks_added_after_first_launch_run(rng):
    x = np.zeros(64, dtype=np.float32)
    axpy_kernel[(1,)](x, x, x, 64, 1.0)
    seen = []
    axpy_kernel.add_pre_run_hook(lambda *args, **kwargs: seen.append(args[3]))
    try:
        check_axpy(lambda x, y, o, n, a: axpy_kernel[(5,)](x, y, o, n, a), rng, n=299)
        assert seen == [299]
    finally:
        axpy_kernel.pre_run_hooks = []
    check_axpy(lambda x, y, o, n, a: axpy_kernel[(5,)](x, y, o, n, a), rng, n=298)
    assert seen == [299]


def test_changed_global_seen_by_fast_path(general_path_calls):
    global SHIFT
    out = np.zeros(1, dtype=np.int32)
    shift_kernel[(1,)](out)
    shift_kernel[(1,)](out)
    assert out[0] == 4
    SHIFT = 10
    try:
        out[0] = -1
        shift_kernel[(1,)](out)
        assert out[0] == 11
        out[0] = -1
        shift_kernel[(1,)](out)  # the new value's kernel, from the fast path
        assert out[0] == 11
    finally:
        SHIFT = 3
    out[0] = -1
    shift_kernel[(1,)](out)
    assert out[0] == 4


def test_debug_attribute_reaches_fast_path(rng):
    check_axpy(lambda x, y, o, n, a: axpy_kernel[(5,)](x, y, o, n, a), rng)
    plain = axpy_kernel[(5,)](np.zeros(320, np.float32), np.zeros(320, np.float32),
                              np.zeros(320, np.float32), 320, 1.0)
    axpy_kernel.debug = True
    try:
        k = axpy_kernel[(5,)](np.zeros(320, np.float32), np.zeros(320, np.float32),
                              np.zeros(320, np.float32), 320, 1.0)
        assert k.metadata.debug and not plain.metadata.debug
        again = axpy_kernel[(5,)](np.zeros(320, np.float32), np.zeros(320, np.float32),
                                  np.zeros(320, np.float32), 320, 1.0)
        assert again is k
    finally:
        axpy_kernel.debug = None
