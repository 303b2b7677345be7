"""The cases of tests/python/package/test_libdevice.py on the GPU: the same
kernels, inputs and references (loaded from that file), CUDA tensors, the
same tolerances; and, since the compositions use exact operations only, the
GPU's results equal the interpreter's bit for bit (the fast_* functions,
the hardware approximations, excepted)."""
import importlib.util
import sys

import pytest

from conftest import ROOT, skip_without_gpu

skip_without_gpu()
import numpy as np  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "libdevice_cases", ROOT / "tests/python/package/test_libdevice.py")
cases = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = cases  # its dataclasses look their module up there
_spec.loader.exec_module(cases)


@pytest.fixture
def rng():
    import os
    seed = int(os.environ.get("TESSERA_TEST_SEED", "0")) or int.from_bytes(os.urandom(4), "little")
    print(f"random seed: {seed} (rerun with TESSERA_TEST_SEED={seed})")
    return np.random.default_rng(seed)


APPROX = [(c, d) for c in cases.APPROX for d in c.dtypes]
EXACT = [(c, d) for c in cases.EXACT for d in c.dtypes]


@pytest.mark.parametrize("case,dt", APPROX, ids=[cases.case_id(c, d) for c, d in APPROX])
def test_approximate(case, dt, rng):
    cases.check_approximate(case, dt, rng, device="cuda")


# Known differences, measured on an H100 (issue 10's note): these give other
# bits on the GPU than on the interpreter (test_approximate still holds them
# to their ulp bounds), and the conversions below give CUDA's cvt results
# (e.g. float2ll_rn(NaN) = INT64_MIN) where the interpreter and the reference
# say 0. Strict: fixing one makes its case fail here until it is removed.
NOT_BIT_IDENTICAL = {"exp-float32", "exp-float64", "exp10-float32", "exp10-float64",
                     "expm1-float32", "expm1-float64",
                     "cosh-float32", "cosh-float64", "sqrt-float32", "normcdfinv-float32",
                     "normcdfinv-float64"}
CONVERSIONS_DIFFER = {
    "float2ll_rn", "float2ull_rn", "double2int_rn", "double2uint_rn", "double2ll_rn",
    "double2ull_rn", "float2ll_rz", "float2ull_rz", "double2int_rz", "double2uint_rz",
    "double2ll_rz", "double2ull_rz", "double2float_rz", "float2ll_rd", "float2ull_rd",
    "double2int_rd", "double2uint_rd", "double2ll_rd", "double2ull_rd", "float2ll_ru",
    "float2ull_ru", "double2int_ru", "double2uint_ru", "double2ll_ru", "double2ull_ru", "llrint",
    "llround"}


def _known(values, name, reason):
    return pytest.param(*values, marks=pytest.mark.xfail(strict=True, reason=reason)) \
        if name in (NOT_BIT_IDENTICAL if reason.startswith("bits") else CONVERSIONS_DIFFER) \
        else pytest.param(*values)


@pytest.mark.parametrize("case,dt", [_known((c, d), cases.case_id(c, d),
                                            "bits differ from the interpreter's")
                                     for c, d in APPROX],
                         ids=[cases.case_id(c, d) for c, d in APPROX])
def test_same_bits_as_the_interpreter(case, dt, rng):
    args = case.gen(rng, dt)
    gpu = cases.launch(case.fn, args, dt, "cuda")
    cpu = cases.launch(case.fn, args, dt, "cpu")
    assert np.array_equal(gpu.view(np.uint8), cpu.view(np.uint8)), case.fn


@pytest.mark.parametrize("case,dt", EXACT, ids=[cases.case_id(c, d) for c, d in EXACT])
def test_exact(case, dt, rng):
    cases.check_exact(case, dt, rng, device="cuda")


@pytest.mark.parametrize("case,sig", [(c, s) for c in cases.INT_CASES for s in c.sigs],
                         ids=[f"{c.fn}-{'-'.join(d.name for d in s[0])}"
                              for c in cases.INT_CASES for s in c.sigs])
def test_integer(case, sig, rng):
    cases.check_integer(case, sig, rng, device="cuda")


@pytest.mark.parametrize("op,mode,dt", [(o, m, d) for o, m in cases.ROUNDED
                                        for d in (cases.F32, cases.F64)])
def test_rounding_direction(op, mode, dt, rng):
    cases.check_rounding_direction(op, mode, dt, rng, device="cuda")


@pytest.mark.parametrize("name,gen,ref,out",
                         [_known(c, c[0], "conversion semantics differ") for c in cases.CONVERSIONS],
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(cases.CONVERSIONS)])
def test_conversion(name, gen, ref, out, rng):
    cases.check_conversion(name, gen, ref, out, rng, device="cuda")


def test_reinterpretation(rng):
    cases.check_reinterpretation(rng, device="cuda")


@pytest.mark.parametrize("case", cases.FAST, ids=[f"{c.fn}-{i}" for i, c in enumerate(cases.FAST)])
def test_fast(case, rng):
    cases.check_fast(case, rng, device="cuda")


@pytest.mark.parametrize("fn,n", [("j0", 0), ("j1", 1)])
def test_bessel_j(fn, n, rng):
    cases.check_bessel_j(fn, n, rng, device="cuda")


def test_bessel_y_wronskian(rng):
    cases.check_bessel_y_wronskian(rng, device="cuda")
