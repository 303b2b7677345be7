"""tl.dot on the GPU against PyTorch: every dtype pair and input precision,
shapes from 16 to 256 (ragged ones masked, K not a multiple of the block),
transposed and strided operands, accumulator chaining, fp16 accumulation,
an epilogue on the accumulator, several warp counts. Fresh random inputs,
outputs poisoned before each launch, float64 references.

Run it on the Hopper path and, with TESSERA_TARGET=sm_80, on the mma.sync
path of the same GPU."""
import os

import pytest

from conftest import ROOT, skip_without_gpu, torch

skip_without_gpu()

import tessera as triton  # noqa: E402
import tessera.language as tl  # noqa: E402


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < left), other=0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < left) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, input_precision=PREC, out_dtype=c_ptr.dtype.element_ty)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def capability():
    return torch.cuda.get_device_capability()


def target_sm():
    forced = os.environ.get("TESSERA_TARGET", "")
    if forced:
        return int(forced.removeprefix("sm_").rstrip("a"))
    major, minor = capability()
    return 10 * major + minor


def random_operand(shape, dtype, gen):
    if dtype in (torch.int8, torch.uint8):
        lo, hi = (-128, 128) if dtype == torch.int8 else (0, 256)
        return torch.randint(lo, hi, shape, device="cuda", generator=gen, dtype=torch.int32).to(dtype)
    return torch.randn(shape, device="cuda", generator=gen).to(dtype)


def poisoned(shape, dtype):
    if dtype == torch.int32:
        return torch.full(shape, -12345, dtype=dtype, device="cuda")
    return torch.full(shape, float("nan"), dtype=dtype, device="cuda")


def rel_err(out, ref):
    out = out.double()
    assert not torch.isnan(out).any(), "an output element was not written (NaN poison left)"
    return ((out - ref).norm() / ref.norm()).item()


# (input dtype, accumulator/output dtype, input_precision, relative tolerance)
CASES = {
    "fp16": (torch.float16, torch.float32, "ieee", 1e-3),
    "fp16-acc16": (torch.float16, torch.float16, "ieee", 2e-2),
    "bf16": (torch.bfloat16, torch.float32, "ieee", 1e-3),
    "tf32": (torch.float32, torch.float32, "tf32", 2e-3),
    "tf32x3": (torch.float32, torch.float32, "tf32x3", 1e-5),
    "bf16x3": (torch.float32, torch.float32, "bf16x3", 3e-5),
    "bf16x6": (torch.float32, torch.float32, "bf16x6", 1e-5),
    "ieee": (torch.float32, torch.float32, "ieee", 1e-5),
    "int8": (torch.int8, torch.int32, "ieee", 0),
    "uint8": (torch.uint8, torch.int32, "ieee", 0),
    "fp8e4m3": (torch.float8_e4m3fn, torch.float32, "ieee", 1e-2),
    "fp8e5m2": (torch.float8_e5m2, torch.float32, "ieee", 1e-2),
}


def run_case(name, M, N, K, block, gen, num_warps=4, a_t=False, b_t=False):
    dt, acc_dt, prec, tol = CASES[name]
    if dt in (torch.float8_e4m3fn, torch.float8_e5m2) and capability() < (8, 9):
        pytest.skip("fp8 needs sm_89 or newer")
    a = random_operand((K, M) if a_t else (M, K), dt, gen)
    b = random_operand((N, K) if b_t else (K, N), dt, gen)
    a = a.t() if a_t else a
    b = b.t() if b_t else b
    c = poisoned((M, N), acc_dt)
    BM, BN, BK = block
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BM=BM, BN=BN, BK=BK, PREC=prec,
                        num_warps=num_warps)
    ref = a.double() @ b.double()  # exact for the integer cases (|sums| < 2^53)
    if tol == 0:
        assert torch.equal(c.long(), ref.long()), "integer dot differs from the exact product"
    else:
        err = rel_err(c, ref.double())
        assert err <= tol, f"{name} {M}x{N}x{K} block {block}: relative error {err:.3g} > {tol}"


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("mnk,block", [
    ((16, 16, 32), (16, 16, 32)),
    ((64, 64, 64), (64, 64, 32)),
    ((128, 256, 64), (128, 128, 64)),
    ((256, 128, 256), (64, 128, 64)),
])
def test_dot_dtypes_and_shapes(gen, name, mnk, block):
    run_case(name, *mnk, block, gen)


@pytest.mark.parametrize("name", ["fp16", "bf16", "tf32", "int8", "fp8e4m3"])
@pytest.mark.parametrize("mnk", [(100, 72, 40), (33, 129, 250), (4000 // 16, 17, 65)])
def test_dot_ragged(gen, name, mnk):
    """Edges masked, K not a multiple of the block."""
    run_case(name, *mnk, (64, 64, 32), gen)


@triton.jit
def ragged_k_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sbn, scm,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, FORM: tl.constexpr):
    # A (M x K) and B^T (N x K) K-contiguous in rows of sam / sbn elements;
    # the K bound in the four ways a kernel writes it.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        if FORM == 0:
            kin = rk < left
        elif FORM == 1:
            kin = rk <= left - 1
        elif FORM == 2:
            kin = left > rk
        else:
            kin = left - 1 >= rk
        a = tl.load(a_ptr + rm[:, None] * sam + (k * BK + rk)[None, :],
                    mask=(rm[:, None] < M) & kin[None, :], other=0)
        bt = tl.load(b_ptr + rn[:, None] * sbn + (k * BK + rk)[None, :],
                     mask=kin[None, :] & (rn[:, None] < N), other=0)
        acc = tl.dot(a, bt.T, acc)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("name", ["fp16", "bf16", "tf32", "int8", "fp8e4m3"])
@pytest.mark.parametrize("form", [0, 1, 2, 3])
@pytest.mark.parametrize("mnk,block,warps", [((128, 128, 77), (128, 128, 32), 8),
                                             ((100, 72, 200), (64, 64, 64), 4),
                                             ((64, 256, 1003), (64, 128, 64), 4)])
def test_dot_ragged_k_in_aligned_rows(gen, name, form, mnk, block, warps):
    """K unknown to be a multiple of 16 with rows 16-byte aligned: the K
    masks cut runs of 16 bytes short (copied whole, zero-filled past K)."""
    dt, acc_dt, _, tol = CASES[name]  # fp32 inputs: tl.dot's default tf32
    if dt == torch.float8_e4m3fn and capability() < (8, 9):
        pytest.skip("fp8 needs sm_89 or newer")
    M, N, K = mnk
    pitch = (K + 15) // 16 * 16 + 16
    # Garbage past K in every row: a copy reading past its bound shows.
    a = random_operand((M, pitch), dt, gen)[:, :K]
    bt = random_operand((N, pitch), dt, gen)[:, :K]
    c = poisoned((M, N), acc_dt)
    BM, BN, BK = block
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    ragged_k_kernel[grid](a, bt, c, M, N, K, pitch, pitch, N, BM=BM, BN=BN, BK=BK, FORM=form,
                          num_warps=warps)
    ref = a.double() @ bt.double().T
    if tol == 0:
        assert torch.equal(c.long(), ref.long()), "integer dot differs from the exact product"
    else:
        err = rel_err(c, ref)
        assert err <= max(tol, 2e-3), f"{name} {mnk} form {form}: relative error {err:.3g}"


@pytest.mark.parametrize("name", ["fp16", "bf16", "tf32", "int8"])
@pytest.mark.parametrize("a_t,b_t", [(True, False), (False, True), (True, True)])
def test_dot_transposed_operands(gen, name, a_t, b_t):
    run_case(name, 96, 80, 96, (32, 64, 32), gen, a_t=a_t, b_t=b_t)


@pytest.mark.parametrize("num_warps", [1, 2, 8])
@pytest.mark.parametrize("block", [(16, 64, 16), (64, 16, 64), (128, 64, 32)])
def test_dot_warps(gen, num_warps, block):
    run_case("fp16", 160, 96, 80, block, gen, num_warps=num_warps)


@pytest.mark.parametrize("name", ["tf32", "int8", "fp16", "bf16x3"])
@pytest.mark.parametrize("mnk", [(256, 512, 64), (200, 300, 72)])
@pytest.mark.parametrize("num_warps", [4, 8])
def test_dot_epilogue_in_bands(gen, name, mnk, num_warps):
    """128x256 fp32/int32 accumulators (128 KiB) reach the store's layout in
    two bands of rows through one 64 KiB staging area; ragged edges masked."""
    run_case(name, *mnk, (128, 256, 32), gen, num_warps=num_warps)


@triton.jit
def residual_kernel(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr, BM: tl.constexpr,
                    BN: tl.constexpr):
    # C += A B in place: the residual is read and the sum written through
    # the same pointers, each in its own coalesced layout.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0)
    cs = c_ptr + rm[:, None] * N + rn[None, :]
    inside = (rm[:, None] < M) & (rn[None, :] < N)
    c = tl.dot(a, b) + tl.load(cs, mask=inside, other=0)
    tl.store(cs, c, mask=inside)


@pytest.mark.parametrize("block,num_warps", [((64, 64), 4), ((128, 256), 8), ((128, 128), 4)])
@pytest.mark.parametrize("mn", [(256, 256), (190, 300)])
def test_dot_residual_added_in_place(gen, block, num_warps, mn):
    M, N = mn
    K = 32
    a = random_operand((M, K), torch.float16, gen)
    b = random_operand((K, N), torch.float16, gen)
    c0 = torch.randn(M, N, device="cuda", generator=gen)
    c = c0.clone()
    grid = (triton.cdiv(M, block[0]), triton.cdiv(N, block[1]))
    residual_kernel[grid](a, b, c, M, N, K=K, BM=block[0], BN=block[1], num_warps=num_warps)
    ref = c0.double() + a.double() @ b.double()
    assert rel_err(c, ref) <= 1e-3


@triton.jit
def epilogue_kernel(a_ptr, b_ptr, bias_ptr, c_in_ptr, out_ptr, M: tl.constexpr,
                    N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    # The accumulator starts from a loaded tile; two dots chain into it.
    acc = tl.load(c_in_ptr + rm[:, None] * N + rn[None, :])
    acc = tl.dot(a, b, acc)
    acc = tl.dot(a, b, acc)
    acc = acc + tl.load(bias_ptr + rn)[None, :]
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], tl.maximum(acc, 0.0).to(tl.float16))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_dot_chain_and_epilogue(gen, dtype):
    M, N, K = 64, 128, 32
    a = random_operand((M, K), dtype, gen)
    b = random_operand((K, N), dtype, gen)
    bias = torch.randn(N, device="cuda", generator=gen)
    c_in = torch.randn(M, N, device="cuda", generator=gen)
    out = poisoned((M, N), torch.float16)
    epilogue_kernel[(1,)](a, b, bias, c_in, out, M=M, N=N, K=K)
    ref = torch.relu(c_in.double() + 2 * (a.double() @ b.double()) + bias.double()[None, :])
    assert rel_err(out, ref) <= 2e-3


def test_target_is_the_one_asked_for():
    """The suite runs on the path TESSERA_TARGET names: sm_90a's pipelined
    matmul on wgmma (fp16 operands both ways round), sm_80 on mma.sync."""
    a = torch.randn(64, 64, device="cuda").half()
    c = torch.empty(64, 64, device="cuda")
    k = matmul_kernel[(1, 1)](a, a, c, 64, 64, 64, 64, 1, 64, 1, 64, 1, BM=64, BN=64, BK=32,
                              PREC="ieee")
    ptx = k.asm["ptx"]
    assert f".target sm_{target_sm()}" in ptx
    if ".target sm_90a" in ptx:
        assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in ptx
        assert "mma.sync" not in ptx
    else:
        assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx


@triton.jit
def batched_kernel(a_ptr, b_ptr, out_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                   K: tl.constexpr, PREC: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    a = tl.load(a_ptr + rb * M * K + rm * K + tl.arange(0, K)[None, None, :])
    b = tl.load(b_ptr + rb * K * N + tl.arange(0, K)[None, :, None] * N + rn)
    tl.store(out_ptr + rb * M * N + rm * N + rn, tl.dot(a, b, input_precision=PREC))


@pytest.mark.parametrize("bmnk", [(2, 16, 16, 16), (4, 32, 16, 64), (8, 16, 32, 16), (2, 64, 64, 32)])
@pytest.mark.parametrize("dtype,prec", [(torch.float32, "ieee"), (torch.float16, "ieee")])
def test_batched_dot(gen, bmnk, dtype, prec):
    """Rank-3 tl.dot (one product per batch entry) on the GPU."""
    bs, m, n, k = bmnk
    a = random_operand((bs, m, k), dtype, gen)
    b = random_operand((bs, k, n), dtype, gen)
    out = poisoned((bs, m, n), torch.float32)
    batched_kernel[(1,)](a, b, out, B=bs, M=m, N=n, K=k, PREC=prec)
    assert rel_err(out, torch.bmm(a.double(), b.double())) <= 1e-5


@triton.jit
def batched_loop_kernel(a_ptr, b_ptr, c_ptr, K, sab, sam, sak, sbb, sbk, sbn,
                        B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr,
                        PREC: tl.constexpr):
    # Program p multiplies batch entries p * B .. p * B + B - 1, chaining
    # the accumulator over K in blocks of BK (the last one masked).
    rb = (tl.program_id(0) * B + tl.arange(0, B))[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rk = tl.arange(0, BK)
    acc = tl.zeros((B, M, N), dtype=c_ptr.dtype.element_ty)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(a_ptr + rb * sab + rm * sam + kk[None, None, :] * sak,
                    mask=kk[None, None, :] < K, other=0)
        b = tl.load(b_ptr + rb * sbb + kk[None, :, None] * sbk + rn * sbn,
                    mask=kk[None, :, None] < K, other=0)
        acc = tl.dot(a, b, acc, input_precision=PREC, out_dtype=c_ptr.dtype.element_ty)
    tl.store(c_ptr + rb * M * N + rm * N + rn, acc)


# (entries per program, M, N, BK, K, warps): fewer entries than warps (the
# rest split each entry's tile), one a warp, several a warp; K ragged.
BATCH_SHAPES = [(1, 16, 16, 32, 64, 4), (2, 32, 64, 32, 96, 4), (4, 64, 32, 64, 128, 4),
                (16, 16, 32, 32, 40, 4), (8, 64, 64, 32, 64, 8), (4, 32, 16, 32, 64, 1)]


# Every type with both operands row-major; 16- and 32-bit ones (both staging
# orders) with A or B read transposed too.
BATCH_CASES = ([(name, "nn") for name in ("fp16", "fp16-acc16", "bf16", "tf32", "tf32x3", "int8",
                                          "fp8e4m3", "ieee")] +
               [(name, layout) for name in ("fp16", "bf16", "tf32") for layout in ("tn", "nt")])


@pytest.mark.parametrize("name,layout", BATCH_CASES)
@pytest.mark.parametrize("shape", BATCH_SHAPES)
def test_batched_dot_on_tensor_cores(gen, name, shape, layout):
    """Rank-3 tl.dot on mma.sync (sm_80 and sm_90a alike: wgmma has no
    batched form), two programs, operands read transposed through their
    strides."""
    dt, acc_dt, prec, tol = CASES[name]
    if dt == torch.float8_e4m3fn and capability() < (8, 9):
        pytest.skip("fp8 needs sm_89 or newer")
    B, M, N, BK, K, warps = shape
    programs = 2
    a = random_operand((programs * B, K, M) if layout == "tn" else (programs * B, M, K), dt, gen)
    b = random_operand((programs * B, N, K) if layout == "nt" else (programs * B, K, N), dt, gen)
    a = a.transpose(1, 2) if layout == "tn" else a
    b = b.transpose(1, 2) if layout == "nt" else b
    c = poisoned((programs * B, M, N), acc_dt)
    k = batched_loop_kernel[(programs,)](a, b, c, K, *a.stride(), *b.stride(), B=B, M=M, N=N,
                                         BK=BK, PREC=prec, num_warps=warps)
    # fp32 "ieee" stays on FMAs, and so does fp8 below sm_89 (in software).
    on_fmas = name == "ieee" or (dt == torch.float8_e4m3fn and target_sm() < 89)
    assert ("mma.sync" in k.asm["ptx"]) != on_fmas
    ref = torch.bmm(a.double(), b.double())
    if tol == 0:
        assert torch.equal(c.long(), ref.long()), "integer dot differs from the exact product"
    else:
        err = rel_err(c, ref)
        assert err <= tol, f"{name} {shape} {layout}: relative error {err:.3g} > {tol}"


@triton.jit
def matmul_read_transposed_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                                  A_T: tl.constexpr, B_T: tl.constexpr):
    # The operands are loaded as the transposes of the dot's tiles and
    # transposed back with `.T`, as Triton's attention tutorial reads K.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        if A_T:
            a = tl.load(a_ptr + kk[:, None] * sak + rm[None, :] * sam,
                        mask=(kk[:, None] < K) & (rm[None, :] < M), other=0).T
        else:
            a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak,
                        mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        if B_T:
            b = tl.load(b_ptr + rn[:, None] * sbn + kk[None, :] * sbk,
                        mask=(rn[:, None] < N) & (kk[None, :] < K), other=0).T
        else:
            b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn,
                        mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, out_dtype=c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("name", ["fp16", "bf16", "int8", "fp8e4m3"])
@pytest.mark.parametrize("a_t,b_t", [(False, True), (True, False), (True, True)])
@pytest.mark.parametrize("stored_t", [False, True])
@pytest.mark.parametrize("mnk,block,warps", [((128, 128, 128), (128, 64, 64), 4),
                                             ((200, 136, 100), (64, 64, 32), 4),
                                             ((256, 128, 256), (128, 128, 64), 8)])
def test_dot_of_loads_read_transposed(gen, name, a_t, b_t, stored_t, mnk, block, warps):
    # On sm_90a the ring holds the loaded tile and wgmma (or ldmatrix on
    # sm_80) reads it through a transposed view.
    dt, _, _, tol = CASES[name]
    if dt == torch.float8_e4m3fn and capability() < (8, 9):
        pytest.skip("fp8 needs sm_89 or newer")
    M, N, K = mnk
    a = random_operand((K, M) if stored_t else (M, K), dt, gen)
    b = random_operand((N, K) if stored_t else (K, N), dt, gen)
    a = a.t() if stored_t else a
    b = b.t() if stored_t else b
    acc_dt = torch.int32 if dt == torch.int8 else torch.float32
    c = poisoned((M, N), acc_dt)
    BM, BN, BK = block
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    matmul_read_transposed_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                        b.stride(1), c.stride(0), c.stride(1), BM=BM, BN=BN,
                                        BK=BK, A_T=a_t, B_T=b_t, num_warps=warps)
    ref = a.double() @ b.double()
    if tol == 0:
        assert torch.equal(c.long(), ref.long()), "integer dot differs from the exact product"
    else:
        assert rel_err(c, ref) <= tol


def dot_kernels():
    """tests/python/kernels/dots.py (written against `triton`), with Tessera as triton."""
    import importlib.util
    import pathlib
    import sys
    path = pathlib.Path(__file__).resolve().parents[1] / "python" / "kernels" / "dots.py"
    saved = {n: sys.modules.get(n) for n in ("triton", "triton.language")}
    sys.modules.update({"triton": triton, "triton.language": tl})
    try:
        spec = importlib.util.spec_from_file_location("tessera_test_dot_kernels", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m
    return module


DOTS = dot_kernels()


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("bm,bn,d,warps", [(128, 32, 64, 4), (64, 64, 128, 4), (128, 64, 64, 8)])
def test_one_load_read_by_two_dots(gen, dt, bm, bn, d, warps):
    # kt feeds Q K^T as it is and dS K transposed, from one ring on sm_90a.
    steps = 5
    a = random_operand((bm, d), dt, gen)
    k = random_operand((steps * bn, d), dt, gen)
    out = poisoned((bm, d), torch.float32)
    DOTS.shared_operand_kernel[(1,)](a, k, out, steps, BM=bm, BN=bn, D=d, num_warps=warps)
    ref = torch.zeros((bm, d), dtype=torch.float64, device="cuda")
    for i in range(steps):
        ki = k[i * bn:(i + 1) * bn].double()
        ref += (a.double() @ ki.T).to(dt).double() @ ki
    assert rel_err(out, ref) <= 1e-2


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("bm,bn,bk,warps", [(128, 128, 64, 4), (64, 256, 32, 4), (128, 256, 64, 8)])
def test_accumulating_sum_of_dots(gen, dt, bm, bn, bk, warps):
    # acc += tl.dot(a, b): one chained accumulator (combine-dot-add).
    steps = 6
    a = random_operand((bm, steps * bk), dt, gen)
    b = random_operand((steps * bk, bn), dt, gen)
    out = poisoned((bm, bn), torch.float32)
    DOTS.accumulate_kernel[(1,)](a, b, out, steps, BM=bm, BN=bn, BK=bk, num_warps=warps,
                                 num_stages=3)
    assert rel_err(out, a.double() @ b.double()) <= 1e-5


@pytest.mark.parametrize("m,n,d,warps", [(64, 64, 64, 4), (128, 64, 64, 4), (128, 128, 64, 8)])
def test_wgmma_and_mma_sync_products_in_one_accumulator(gen, m, n, d, warps):
    # acc += q @ k_j (B loaded: wgmma on sm_90a) and acc += q @ (x * j) (B
    # computed in registers: mma.sync), one accumulator for both.
    steps = 4
    q = random_operand((m, d), torch.float16, gen)
    k = random_operand((steps * d, n), torch.float16, gen)
    x = random_operand((d, n), torch.float16, gen)
    out = poisoned((m, n), torch.float32)
    DOTS.mixed_chain_kernel[(1,)](q, k, x, out, steps, M=m, N=n, D=d, num_warps=warps)
    ref = torch.zeros((m, n), dtype=torch.float64, device="cuda")
    x2 = x * 2
    for j in range(steps):
        ref += q.double() @ k[j * d:(j + 1) * d].double()
        ref += q.double() @ (x2 * j).double()
    assert rel_err(out, ref) <= 1e-5


@pytest.mark.parametrize("m,n,k,warps", [(64, 64, 64, 4), (128, 128, 64, 8)])
def test_accumulator_from_before_the_loop(gen, m, n, k, warps):
    # dot(a_j, b_j, c) in a loop, c loaded before it and read only there: the
    # product may not update c's registers in place (each iteration adds to
    # c as loaded).
    steps = 3
    a = random_operand((steps * m, k), torch.float16, gen)
    b = random_operand((steps * k, n), torch.float16, gen)
    c = random_operand((m, n), torch.float32, gen)
    out = poisoned((m, n), torch.float32)
    DOTS.invariant_accumulator_kernel[(1,)](a, b, c, out, steps, M=m, N=n, K=k, num_warps=warps)
    ref = sum(a[j * m:(j + 1) * m].double() @ b[j * k:(j + 1) * k].double() + c.double()
              for j in range(steps)) * 0.5
    assert rel_err(out, ref) <= 1e-5


@pytest.mark.parametrize("bm", [64, 32])
def test_streamed_attention_rotated_or_not(gen, bm):
    # 64 rows: wgmma, the loop rotated; 32 rows: mma.sync with a prefetching
    # Q K^T, not rotated (it once was, reading fragments never loaded).
    bn, d, steps = 64, 64, 5
    n = steps * bn
    q = random_operand((n + bm, d), torch.float16, gen)
    k = random_operand((n, d), torch.float16, gen)
    v = random_operand((bn, d), torch.float16, gen)
    out = poisoned((bm, d), torch.float32)
    DOTS.streamed_attention_kernel[(1,)](q, k, v, out, n, BM=bm, BN=bn, D=d, num_warps=4,
                                         num_stages=3)
    m = torch.full((bm,), float("-inf"), dtype=torch.float64, device="cuda")
    l_sum = torch.zeros((bm,), dtype=torch.float64, device="cuda")
    acc = torch.zeros((bm, d), dtype=torch.float64, device="cuda")
    for j in range(0, n, bn):
        s = q[j:j + bm].double() @ k[j:j + bn].double().T
        m_new = torch.maximum(m, s.max(dim=1).values)
        p = torch.exp(s - m_new[:, None])
        alpha = torch.exp(m - m_new)
        l_sum = l_sum * alpha + p.sum(dim=1)
        acc = acc * alpha[:, None] + p.half().double() @ v.double()
        m = m_new
    assert rel_err(out, acc / l_sum[:, None]) <= 5e-3


@pytest.mark.parametrize("bm,bn,bk,warps", [(128, 64, 64, 4), (64, 128, 32, 4), (128, 128, 64, 8)])
def test_products_combined_elementwise(gen, bm, bn, bk, warps):
    # One product on wgmma, one on mma.sync (its B is also summed), their
    # accumulators combined: the wgmma one converts its layout.
    steps = 4
    a = random_operand((bm, bk), torch.float16, gen)
    b = random_operand((steps, bk, bn), torch.float16, gen)
    c = random_operand((steps, bk, bn), torch.float16, gen)
    out = poisoned((bm, bn), torch.float32)
    DOTS.mixed_tensor_core_kernel[(1,)](a, b, c, out, steps, BM=bm, BN=bn, BK=bk,
                                        num_warps=warps)
    a64, b64, c64 = a.double(), b.double(), c.double()
    ref = sum((a64 @ b64[i]) * (a64 @ c64[i]) + b64[i].sum(dim=0)[None, :] for i in range(steps))
    assert rel_err(out, ref) <= 1e-5


@pytest.mark.parametrize("dt", [torch.int8, torch.uint8])
@pytest.mark.parametrize("bm,bn,bk,warps", [(128, 128, 64, 4), (64, 256, 128, 4), (128, 256, 64, 8)])
def test_int8_k_major_exact(gen, dt, bm, bn, bk, warps):
    # Both operands K-major: wgmma's integer form on sm_90a, int32 sums.
    steps = 3
    a = random_operand((bm, steps * bk), dt, gen)
    b = random_operand((bn, steps * bk), dt, gen)  # B stored N x K
    out = poisoned((bm, bn), torch.int32)
    DOTS.k_major_8bit_kernel[(1,)](a, b, out, steps, BM=bm, BN=bn, BK=bk, num_warps=warps)
    ref = a.cpu().long() @ b.cpu().long().T  # (no int64 matmul on CUDA)
    assert torch.equal(out.cpu().long(), ref), "int8 dot differs from the exact product"


@pytest.mark.parametrize("dt", [torch.float8_e4m3fn, torch.float8_e5m2])
@pytest.mark.parametrize("q", [32, 64, None])
@pytest.mark.parametrize("bm,bn,bk,warps", [(128, 256, 128, 8), (64, 64, 64, 4)])
def test_fp8_imprecise_accumulation_promoted(gen, dt, q, bm, bn, bk, warps):
    # max_num_imprecise_acc = q: partial sums of q products added in fp32.
    if capability() < (8, 9):
        pytest.skip("fp8 needs sm_89 or newer")
    if q is not None and q > bk:
        pytest.skip("q is at most the dot's K")
    steps = 4
    a = random_operand((bm, steps * bk), dt, gen)
    b = random_operand((bn, steps * bk), dt, gen)
    out = poisoned((bm, bn), torch.float32)
    DOTS.k_major_8bit_kernel[(1,)](a, b, out, steps, BM=bm, BN=bn, BK=bk, Q=q, num_warps=warps)
    err = rel_err(out, a.double() @ b.double().T)
    assert err <= (2e-3 if q else 1e-2), f"relative error {err:.3g}"


@pytest.mark.parametrize("bm,bn,bk,warps", [(64, 64, 64, 4), (128, 128, 64, 8), (128, 64, 128, 4)])
def test_fp8_product_read_from_registers(gen, bm, bn, bk, warps):
    # An fp8 A computed in the kernel (attention's P cast to fp8) is read by
    # wgmma from registers.
    if capability() < (8, 9):
        pytest.skip("fp8 needs sm_89 or newer")
    steps = 3
    x = random_operand((bm, steps * bk), torch.float16, gen)
    b = random_operand((bn, steps * bk), torch.float8_e4m3fn, gen)
    out = poisoned((bm, bn), torch.float32)
    DOTS.fp8_register_a_kernel[(1,)](x, b, out, steps, BM=bm, BN=bn, BK=bk, num_warps=warps)
    p = (x * 0.5).to(torch.float8_e4m3fn)
    err = rel_err(out, p.double() @ b.double().T)
    assert err <= 5e-3, f"relative error {err:.3g}"


@pytest.mark.parametrize("bm,bn,d,warps", [(64, 64, 64, 4), (128, 128, 128, 8), (128, 64, 128, 4),
                                           (64, 128, 64, 8)])
def test_fp8_two_products(gen, bm, bn, d, warps):
    # fp8 attention's shape: P = (Q K^T * c) cast to fp8, then P V with P
    # from registers (moved within each row's lanes by shuffles).
    if capability() < (8, 9):
        pytest.skip("fp8 needs sm_89 or newer")
    steps = 3
    # Small integers in Q and K: S is exact on any accumulator, so P's
    # rounding to fp8 is the same here and in the reference.
    q = torch.randint(-3, 4, (bm, d), device="cuda", generator=gen).to(torch.float8_e4m3fn)
    k = torch.randint(-3, 4, (steps * bn, d), device="cuda", generator=gen).to(torch.float8_e4m3fn)
    vt = random_operand((d, steps * bn), torch.float8_e4m3fn, gen)
    out = poisoned((bm, d), torch.float32)
    DOTS.fp8_two_products_kernel[(1,)](q, k, vt, out, steps, BM=bm, BN=bn, D=d, num_warps=warps)
    s = (q.double() @ k.double().T) * 0.0625
    p = s.float().to(torch.float8_e4m3fn).double()
    ref = p @ vt.double().T
    err = rel_err(out, ref)
    assert err <= 5e-3, f"relative error {err:.3g}"


@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
def test_broadcast_product(gen, dt):
    # sum(x[:, :, None] * y[None, :, :], axis=1): a dot (no spilled
    # BM x BK x BN tile), exact products as the multiply had them.
    m, n, k, bm, bn, bk = 256, 192, 160, 128, 32, 32
    x = torch.randn((m, k), device="cuda", generator=gen, dtype=dt)
    y = torch.randn((k, n), device="cuda", generator=gen, dtype=dt)
    z = poisoned((m, n), dt)
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "language_ops_cases", ROOT / "tests/python/package/test_language_ops.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    cases.broadcast_product_kernel[(m // bm, n // bn)](z, x, y, M=m, N=n, K=k, BM=bm, BN=bn, BK=bk)
    assert rel_err(z, x.double() @ y.double()) <= (1e-6 if dt == torch.float32 else 1e-14)


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16, torch.float8_e4m3fn,
                                torch.float8_e5m2])
@pytest.mark.parametrize("mnk,warps", [((64, 64, 32), 4), ((128, 128, 64), 4), ((128, 256, 64), 8)])
@pytest.mark.parametrize("x_t,y_t", [(False, False), (True, True)])
@pytest.mark.parametrize("chain", [False, True])
def test_single_dot(gen, dt, mnk, warps, x_t, y_t, chain):
    # One product outside any loop (on sm_90a: wgmma, its operands copied once
    # to shared memory), optionally chained into a second whose A is the
    # first's result cast back to `dt` (Triton's test_dot "chain-dot").
    if dt.itemsize == 1 and capability() < (8, 9):
        pytest.skip("fp8 needs sm_89 or newer")
    M, N, K = mnk
    x = random_operand((K, M) if x_t else (M, K), dt, gen)
    y = random_operand((N, K) if y_t else (K, N), dt, gen)
    x, y = (x.t() if x_t else x), (y.t() if y_t else y)
    w = (random_operand((N, N), torch.float32, gen) * 0.1).to(dt)
    out = poisoned((M, N), torch.float32)
    DOTS.single_dot_kernel[(1,)](x, y, w, out, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                 w.stride(0), w.stride(1), M=M, N=N, K=K, CHAIN=chain,
                                 num_warps=warps)
    ref = x.double() @ y.double()
    if chain:
        # The cast rounds each element of the first product once: the
        # reference rounds the exact product the same way.
        ref = ref.to(dt).double() @ w.double()
    err = rel_err(out, ref)
    assert err <= (2e-2 if dt.itemsize == 1 else 1e-2), f"relative error {err:.3g}"


def heads_attention(q, k, v, heads, n, scale):
    # softmax(Q K^T * scale) V in float64 for each head's n rows.
    return torch.cat([
        torch.softmax(q[h * n:(h + 1) * n].double() @ k[h * n:(h + 1) * n].double().T * scale,
                      dim=1) @ v[h * n:(h + 1) * n].double() for h in range(heads)
    ])


# (BM, BN, warps, stages): one producer warp beside 8 or 4; 64x64 on 4 warps
# is rotated; 128x128 on 8 warps with 3 stages too, at D 128 with a producer
# warpgroup handing its registers over (setmaxnreg).
WS_CONFIGS = [(128, 128, 8, 2), (128, 64, 8, 3), (128, 64, 4, 3), (64, 64, 4, 3), (64, 32, 4, 4),
              (128, 128, 8, 3)]


@pytest.mark.parametrize("ws", [True, False])
@pytest.mark.parametrize("bm,bn,warps,stages", WS_CONFIGS)
@pytest.mark.parametrize("d", [64, 128])
def test_warp_specialized_attention(gen, d, bm, bn, warps, stages, ws):
    # tl.range(..., warp_specialize=True) on a loop whose K and V come by
    # tensor copies (sm_90a): a producer warp issues them. The same kernel
    # with and without, against a float64 online softmax; several heads, so
    # each program's copies address its own rows.
    if d == 128 and bm * bn >= 128 * 128 and warps == 4:
        pytest.skip("S and O of 128x128 tiles take more registers than 4 warps have")
    heads, n = 3, 512
    q, k, v = (random_operand((heads * n, d), torch.float16, gen) for _ in range(3))
    out = poisoned((heads * n, d), torch.float16)
    kern = DOTS.descriptor_attention_kernel[(n // bm, heads)](q, k, v, out, n, 0.3, BM=bm, BN=bn,
                                                              D=d, WS=ws, num_warps=warps,
                                                              num_stages=stages)
    ref = heads_attention(q, k, v, heads, n, 0.3)
    assert rel_err(out, ref) <= 5e-3
    specialized = "tessera.producer_warps" in kern.asm["ptx"]
    # 128x128 on 8 warps with 3 stages at D 128 is split unasked too.
    unasked = (d, bm, bn, warps, stages) == (128, 128, 128, 8, 3)
    assert specialized == ((ws or unasked) and ".target sm_90a" in kern.asm["ptx"])
    # (The loader runs the unspecialised twin where the producer warp would
    # spill or cost a block per SM.)
    producers = 4 if "setmaxnreg" in kern.asm["ptx"] else 1
    assert producers == 1 or unasked
    assert kern.n_max_threads in ({32 * warps, 32 * (warps + producers)} if specialized
                                  else {32 * warps})


@pytest.mark.parametrize("programs", [1, 5, 132])
@pytest.mark.parametrize("ws", [True, False])
@pytest.mark.parametrize("bm,bn,warps,stages", [(128, 128, 8, 2), (128, 64, 8, 3), (64, 64, 4, 3)])
@pytest.mark.parametrize("d", [64, 128])
def test_tiled_attention(gen, d, bm, bn, warps, stages, ws, programs):
    # The attention above written persistent: a loop over tiles around the
    # marked key loop, Q by descriptor too, its K and V rings filled by
    # tensor copies tile after tile. Tiles fewer than, equal to and more
    # than the programs (one program runs 15 tiles).
    heads, n = 5, 384
    q, k, v = (random_operand((heads * n, d), torch.float16, gen) for _ in range(3))
    out = poisoned((heads * n, d), torch.float16)
    DOTS.tiled_attention_kernel[(programs,)](q, k, v, out, n, heads, 0.3, BM=bm, BN=bn, D=d, WS=ws,
                                             PROGRAMS=programs, num_warps=warps,
                                             num_stages=stages)
    ref = heads_attention(q, k, v, heads, n, 0.3)
    assert rel_err(out, ref) <= 5e-3


@pytest.mark.parametrize("programs", [3, 132])
@pytest.mark.parametrize("ws", [True, False])
@pytest.mark.parametrize("bm,bn,bk,warps,stages", [(128, 128, 64, 8, 3), (128, 64, 64, 4, 4)])
def test_tiled_matmul(gen, bm, bn, bk, warps, stages, ws, programs):
    # Tutorial 09's persistent matmul as it runs with warp_specialize on
    # Hopper: the loop over tiles marked, not flattened, the K loop inside;
    # M, N ragged.
    m, n, k = 517, 389, 448
    a = random_operand((m, k), torch.float16, gen)
    b = random_operand((n, k), torch.float16, gen)
    c = poisoned((m, n), torch.float32)
    DOTS.tiled_matmul_kernel[(programs,)](a, b, c, m, n, k, BM=bm, BN=bn, BK=bk, WS=ws,
                                          PROGRAMS=programs, num_warps=warps, num_stages=stages)
    assert rel_err(c, a.double() @ b.double().T) <= 1e-3
