"""Tiled matmul C = A @ B with a K loop and an fp32 accumulator, autotuned.

Programs are numbered in groups of GROUP_SIZE_M block-rows so that programs
running together reuse the same B columns (better L2 reuse on a GPU). Edges
are masked, so M, N and K need not be multiples of the block sizes. The block
sizes are chosen by @triton.autotune per (M, N, K), timing each config once.
"""
import numpy as np

import tessera as triton
import tessera.language as tl


def configs():
    # Tensor-core-sized tiles (those Triton's matmul tutorial tunes over) for
    # large matrices, small ones for small matrices: (BM, BN, BK, warps, stages).
    sizes = [(128, 256, 64, 8, 3), (64, 256, 32, 4, 4), (128, 128, 64, 4, 4),
             (128, 128, 32, 4, 4), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4),
             (64, 64, 32, 4, 3), (32, 64, 64, 4, 3), (32, 32, 32, 4, 3),
             # A few rows (M of 16: a skinny product, memory-bound, B read
             # once) want deep K steps and a deep ring to keep B streaming.
             (16, 64, 128, 4, 6),
             # 128-byte K rows for 1-byte (fp8) operands, as the tutorial's
             # fp8 configs; 16-bit operands need more shared memory than an
             # SM has for these, so the autotuner skips them there.
             (128, 256, 128, 8, 3), (256, 128, 128, 8, 3), (128, 128, 128, 4, 4)]
    return [triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk,
                           "GROUP_SIZE_M": 8}, num_warps=w, num_stages=s)
            for bm, bn, bk, w, s in sizes]


@triton.autotune(configs=configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                  INPUT_PRECISION: tl.constexpr = "ieee"):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    # Grouped ordering: GROUP_SIZE_M block-rows share each run over the columns.
    pids_per_group = GROUP_SIZE_M * num_pid_n
    group = pid // pids_per_group
    first_pid_m = group * GROUP_SIZE_M
    group_rows = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % pids_per_group) % group_rows
    pid_n = (pid % pids_per_group) // group_rows

    rm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    rn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    rk = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn

    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_left = K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b):
    M, K = a.shape
    K2, N = b.shape
    assert K == K2, "inner dimensions differ"
    c = np.empty((M, N), dtype=np.float32)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_SIZE_M"]) * triton.cdiv(N, meta["BLOCK_SIZE_N"]),)  # noqa: E731
    item = a.itemsize
    matmul_kernel[grid](a, b, c, M, N, K, a.strides[0] // item, a.strides[1] // item,
                        b.strides[0] // item, b.strides[1] // item, c.strides[0] // 4, c.strides[1] // 4)
    return c


def demo(rng, shape=(256, 192, 320)):
    M, N, K = shape
    a = rng.standard_normal((M, K), dtype=np.float32)
    b = rng.standard_normal((K, N), dtype=np.float32)
    out = matmul(a, b)  # the first call autotunes
    return {"name": "matmul (autotuned)", "size": f"{M}x{N}x{K} fp32", "out": out,
            "ref": a.astype(np.float64) @ b, "tolerance": 1e-5,
            "tessera": lambda: matmul(a, b), "numpy": lambda: a @ b}


if __name__ == "__main__":
    from demo import run_one
    run_one(demo)
