"""`triton.compile(ASTSource(...))`: a @jit function compiled from types
alone, as Triton's compiler entry point does, then launched."""
from __future__ import annotations

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl
from tessera.compiler import ASTSource


@triton.jit
def scaled_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, alpha * x + tl.load(y_ptr + offs, mask=m), mask=m)


SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32",
             "BLOCK": "constexpr"}


@pytest.mark.parametrize("key", ["BLOCK", (5,)])
def test_compile_from_types_then_launch(key):
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    aligned = {(i,): [["tt.divisibility", 16]] for i in range(3)}  # as NumPy's arrays are
    k = triton.compile(ASTSource(scaled_add, SIGNATURE, constexprs={key: 128}, attrs=aligned),
                       options={"num_warps": 2})
    assert "ttir" in k.asm and k.metadata.num_warps == 2 and k.metadata.constants == {"BLOCK": 128}
    for args in ((x, y, None, 1000, 2.5, 128), (x, y, None, 1000, 2.5)):  # all, or runtime ones
        out = np.full(1000, np.nan, np.float32)
        k[(8,)](*[out if a is None else a for a in args])
        np.testing.assert_allclose(out, 2.5 * x + y, rtol=1e-6)
    # The kernel a launch with these types would use: no second compile.
    before = triton.runtime.jit.stats.compiles
    out = np.zeros(1000, np.float32)
    scaled_add[(8,)](x, y, out, 1000, 2.5, BLOCK=128, num_warps=2)
    assert triton.runtime.jit.stats.compiles == before


def test_attributes_specialise_as_a_launch_would():
    # tt.divisibility on the pointers and on n: the IR says so.
    attrs = {(0,): [["tt.divisibility", 16]], (3,): [["tt.divisibility", 16]]}
    k = triton.compile(ASTSource(scaled_add, SIGNATURE, constexprs={"BLOCK": 64}, attrs=attrs))
    assert "divisibility = 16" in k.asm["ttir"]


def test_compile_errors_say_what_to_fix():
    with pytest.raises(TypeError, match="ASTSource"):
        triton.compile("kernel.ttir")
    with pytest.raises(ValueError, match="has no parameter 'nope'"):
        ASTSource(scaled_add, dict(SIGNATURE, nope="i32"))
    with pytest.raises(ValueError, match="no type for parameter 'alpha'"):
        sig = {k: v for k, v in SIGNATURE.items() if k != "alpha"}
        triton.compile(ASTSource(scaled_add, sig, constexprs={"BLOCK": 64}))
    with pytest.raises(ValueError, match="'n' has a constexpr value"):
        triton.compile(ASTSource(scaled_add, SIGNATURE, constexprs={"BLOCK": 64, "n": 3}))
    with pytest.raises(ValueError, match="'cuda' and 'cpu'"):
        triton.compile(ASTSource(scaled_add, SIGNATURE, constexprs={"BLOCK": 64}),
                       target=triton.GPUTarget("hip", "gfx942", 64))


def test_constexprs_may_be_left_out_of_the_signature():
    # Triton's form: the signature types the runtime parameters, constexprs
    # gives the others their values.
    rng = np.random.default_rng()
    x, y = rng.standard_normal(300).astype(np.float32), rng.standard_normal(300).astype(np.float32)
    sig = {k: v for k, v in SIGNATURE.items() if k != "BLOCK"}
    src = ASTSource(scaled_add, sig, constexprs={"BLOCK": 64})
    k = triton.compile(src)
    assert src.signature == sig  # the caller's object is left as it was
    out = np.full(300, np.nan, np.float32)
    k[(5,)](x, y, out, 300, -1.5)
    np.testing.assert_allclose(out, -1.5 * x + y, rtol=1e-6)


@triton.jit(do_not_specialize=["N"])
def constexpr_not_specialised(out, N: tl.constexpr):
    tl.store(out, N)


def test_do_not_specialize_on_a_constexpr_is_a_compile_error():
    out = np.zeros(1, np.int32)
    with pytest.raises(triton.CompilationError, match="N marked as constexpr and listed in "
                       "do_not_specialize: a tl.constexpr parameter is always specialised"):
        constexpr_not_specialised[(1,)](out, 5)
    with pytest.raises(triton.CompilationError, match="N marked as constexpr"):
        triton.compile(ASTSource(constexpr_not_specialised, {"out": "*i32"}, constexprs={"N": 5}))
