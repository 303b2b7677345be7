"""Block pointers of 8- and 16-bit elements load as descriptor loads (so the
tensor memory accelerator may serve them on sm_90a): rank 2, one stride the
constant 1, in either order, checking the boundary_check dims only. Against
NumPy on fresh random inputs with poisoned outputs: the blocks read what
the masked load read before, the unchecked dims are still reported out of
bounds on the interpreter, and other block pointers keep masked loads."""

from __future__ import annotations

import numpy as np
import pytest

import tessera as triton
import tessera.language as tl

POISON = -77


@triton.jit
def block_copy(src, dst, M, N, stride_m, stride_n, ORDER: tl.constexpr, BM: tl.constexpr,
               BN: tl.constexpr, CHECK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    p = tl.make_block_ptr(src, (M, N), (stride_m, stride_n), (pid_m * BM, pid_n * BN), (BM, BN),
                          ORDER)
    if CHECK == 2:
        x = tl.load(p, boundary_check=(0, 1), padding_option="zero")
    elif CHECK == 1:
        x = tl.load(p, boundary_check=(1, ), padding_option="zero")
    else:
        x = tl.load(p)
    rows = pid_m * BM + tl.arange(0, BM)[:, None]
    cols = pid_n * BN + tl.arange(0, BN)[None, :]
    tl.store(dst + rows * (N + BN) + cols, x)


def run(src, M, N, order, check, BM=16, BN=32):
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    dst = np.full((grid[0] * BM, N + BN), POISON, src.dtype)
    k = block_copy[grid](src, dst, M, N, src.strides[0] // src.itemsize,
                         src.strides[1] // src.itemsize, order, BM, BN, check)
    return dst, k


def expected(src, M, N, rows, cols):
    want = np.zeros((rows, cols), src.dtype)
    want[:M, :N] = src[:M, :N]
    return want


@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.float32])
@pytest.mark.parametrize("layout", ["rows", "columns"])
def test_checked_blocks_read_padding_outside(rng, dtype, layout):
    M, N = 45, 70  # ragged in both dims
    data = (rng.standard_normal((M, N)) * 20).astype(dtype)
    # Row-major (order (1, 0)) or a column-major view (order (0, 1)).
    src = data if layout == "rows" else np.asfortranarray(data)
    order = (1, 0) if layout == "rows" else (0, 1)
    dst, k = run(src, M, N, order, 2)
    np.testing.assert_array_equal(dst[:, :96], expected(src, M, N, dst.shape[0], 96))
    ir = k.asm["ttir"]
    if dtype == np.float32:
        assert "descriptor_load" not in ir
    else:
        assert "descriptor_load" in ir and "checks" not in ir
        assert ("permute" in ir) == (layout == "columns")


@pytest.fixture
def rng(request):
    return np.random.default_rng(abs(hash(request.node.name)) % (1 << 32))


def test_only_the_boundary_check_dims_are_checked(rng):
    # Rows in bounds (the array has them), columns checked: the descriptor
    # load checks dim 1 only.
    M, N, BM = 32, 50, 16
    src = (rng.standard_normal((M, N)) * 20).astype(np.float16)
    dst, k = run(src, M, N, (1, 0), 1, BM=BM)
    np.testing.assert_array_equal(dst[:, :64], expected(src, M, N, M, 64))
    assert "checks = [1]" in k.asm["ttir"]


def test_unchecked_reads_past_the_array_are_reported(rng):
    M, N = 40, 64  # rows 40..47 of the last block are past the array
    src = (rng.standard_normal((M, N)) * 20).astype(np.float16)
    with pytest.raises(Exception, match="out-of-bounds load"):
        run(src, M, N, (1, 0), 0)


def test_unchecked_blocks_inside_the_array(rng):
    M, N = 48, 64
    src = (rng.standard_normal((M, N)) * 20).astype(np.float16)
    dst, _ = run(src, M, N, (1, 0), 0)
    np.testing.assert_array_equal(dst[:, :N], src)


@triton.jit
def block_ptr_dtype_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    # A block pointer's dtype is a pointer to its block: element_ty is the
    # block's type, and casting to it keeps the element type.
    p = tl.make_block_ptr(base=src_ptr, shape=(n,), strides=(1,), offsets=(0,),
                          block_shape=(BLOCK,), order=(0,))
    v = tl.load(p, boundary_check=(0,), padding_option="zero")
    tl.store(dst_ptr + tl.arange(0, BLOCK), (v * 2).to(p.dtype.element_ty))
    tl.static_assert(p.type.element_ty == tl.float16)


def test_block_ptr_dtype_is_a_pointer_to_its_block(rng):
    src = rng.standard_normal(16).astype(np.float16)
    dst = np.full(16, np.nan, np.float16)
    block_ptr_dtype_kernel[(1,)](src, dst, 13, BLOCK=16)
    want = np.zeros(16, np.float16)
    want[:13] = (src[:13].astype(np.float32) * 2).astype(np.float16)
    np.testing.assert_array_equal(dst, want)


@triton.jit
def advance_method_kernel(x_ptr, out_ptr, N: tl.constexpr):
    p = tl.make_block_ptr(base=x_ptr, shape=(2 * N,), strides=(1,), offsets=(0,),
                          block_shape=(N,), order=(0,))
    p = p.advance((N,))  # tl.advance as a method, as Triton's tensors have it
    tl.store(out_ptr + tl.arange(0, N), tl.load(p))


def test_advance_as_a_method(rng):
    x = rng.standard_normal(32).astype(np.float32)
    out = np.full(16, np.nan, np.float32)
    advance_method_kernel[(1,)](x, out, N=16)
    np.testing.assert_array_equal(out, x[16:])


@pytest.mark.parametrize("statement", ["tl.advance(p, (N,))", "p.advance((N,))"])
def test_dropped_advance_is_an_error(tmp_path, statement):
    # tl.advance changes nothing; calling it for its effect is a mistake
    # Triton refuses too (must_use_result), here at the call in your file.
    src = tmp_path / "dropped_advance.py"
    src.write_text("import tessera as triton\nimport tessera.language as tl\n\n\n@triton.jit\n"
                   "def k(x_ptr, N: tl.constexpr):\n"
                   "    p = tl.make_block_ptr(base=x_ptr, shape=(2 * N,), strides=(1,), "
                   "offsets=(0,), block_shape=(N,), order=(0,))\n"
                   f"    {statement}\n    tl.store(x_ptr + tl.arange(0, N), tl.load(p))\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("dropped_advance", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(triton.CompilationError, match="result of tl.advance is not being used") as e:
        mod.k[(1,)](np.zeros(32, np.float32), N=16)
    assert "dropped_advance.py:8:5" in str(e.value) and "p = tl.advance(p" in str(e.value)
