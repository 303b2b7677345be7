"""Layer norm, forward and backward, as in Triton's layer-norm tutorial.

Forward: one program per row, the row walked in BLOCK_SIZE chunks:

    y = (x - mean) * rstd * w + b,   rstd = 1 / sqrt(var + eps)

Mean and rstd of each row are stored for the backward pass.

Backward: one program per row computes dx, and adds its share of dw and db
into one of GROUP_SIZE_M partial rows. Rows of the same group take turns
through a spin lock built from tl.atomic_cas / tl.atomic_xchg; a second
kernel sums the partial rows into dw and db.
"""
import numpy as np

import tessera as triton
import tessera.language as tl


@triton.jit
def layer_norm_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, row_stride, n_cols,
                          eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * row_stride
    y_row = y_ptr + row * row_stride
    cols = tl.arange(0, BLOCK_SIZE)
    # Mean.
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        c = start + cols
        acc += tl.load(x_row + c, mask=c < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    # Variance (two-pass, numerically safe).
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        c = start + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=0.0).to(tl.float32)
        d = tl.where(c < n_cols, x - mean, 0.0)
        acc += d * d
    var = tl.sum(acc, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    # Normalise and apply the affine transform.
    for start in range(0, n_cols, BLOCK_SIZE):
        c = start + cols
        mask = c < n_cols
        w = tl.load(w_ptr + c, mask=mask)
        b = tl.load(b_ptr + c, mask=mask)
        x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_row + c, y, mask=mask)


@triton.jit
def layer_norm_bwd_dx_kernel(dx_ptr, dy_ptr, partial_dw_ptr, partial_db_ptr, x_ptr, w_ptr,
                             mean_ptr, rstd_ptr, locks_ptr, row_stride, n_cols,
                             GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / n_cols
    c2 = tl.sum(wdy, axis=0) / n_cols
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(dx_ptr + row * row_stride + cols, dx, mask=mask)

    # This row's share of dw and db goes to partial row `group`, one program
    # at a time: locks_ptr[group] is the lock, locks_ptr[GROUP_SIZE_M + group]
    # says whether the partial row holds data yet.
    group = row % GROUP_SIZE_M
    lock = locks_ptr + group
    filled = locks_ptr + GROUP_SIZE_M + group
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    pdw_ptrs = partial_dw_ptr + group * n_cols + cols
    pdb_ptrs = partial_db_ptr + group * n_cols + cols
    pdw = dy * xhat
    pdb = dy
    if tl.load(filled) == 0:
        tl.atomic_xchg(filled, 1)
    else:
        pdw += tl.load(pdw_ptrs, mask=mask, other=0.0)
        pdb += tl.load(pdb_ptrs, mask=mask, other=0.0)
    tl.store(pdw_ptrs, pdw, mask=mask)
    tl.store(pdb_ptrs, pdb, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def layer_norm_bwd_dwdb_kernel(partial_dw_ptr, partial_db_ptr, dw_ptr, db_ptr, n_groups, n_cols,
                               BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for start in range(0, n_groups, BLOCK_SIZE_M):
        rows = start + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < n_groups) & (cols[None, :] < n_cols)
        offs = rows[:, None] * n_cols + cols[None, :]
        dw += tl.load(partial_dw_ptr + offs, mask=mask, other=0.0)
        db += tl.load(partial_db_ptr + offs, mask=mask, other=0.0)
    tl.store(dw_ptr + cols, tl.sum(dw, axis=0), mask=cols < n_cols)
    tl.store(db_ptr + cols, tl.sum(db, axis=0), mask=cols < n_cols)


def layer_norm_forward(x, w, b, eps=1e-5):
    """(y, mean, rstd) for a 2-D float32 array x normalised over its rows."""
    n_rows, n_cols = x.shape
    y = np.empty_like(x)
    mean = np.empty(n_rows, dtype=np.float32)
    rstd = np.empty(n_rows, dtype=np.float32)
    block = min(1024, triton.next_power_of_2(n_cols))
    layer_norm_fwd_kernel[(n_rows,)](x, y, w, b, mean, rstd, x.strides[0] // 4, n_cols, eps,
                                     BLOCK_SIZE=block)
    return y, mean, rstd


def layer_norm_backward(dy, x, w, mean, rstd):
    """(dx, dw, db) given the upstream gradient dy and the forward's outputs."""
    n_rows, n_cols = x.shape
    block_n = triton.next_power_of_2(n_cols)
    group_size_m = 64 if n_cols <= 1024 else 32 if n_cols <= 4096 else 16
    locks = np.zeros(2 * group_size_m, dtype=np.int32)
    partial_dw = np.empty((group_size_m, n_cols), dtype=np.float32)
    partial_db = np.empty((group_size_m, n_cols), dtype=np.float32)
    dx = np.empty_like(x)
    layer_norm_bwd_dx_kernel[(n_rows,)](dx, dy, partial_dw, partial_db, x, w, mean, rstd, locks,
                                        x.strides[0] // 4, n_cols, GROUP_SIZE_M=group_size_m,
                                        BLOCK_SIZE_N=block_n)
    dw = np.empty(n_cols, dtype=np.float32)
    db = np.empty(n_cols, dtype=np.float32)
    groups = min(group_size_m, n_rows)
    layer_norm_bwd_dwdb_kernel[(triton.cdiv(n_cols, 128),)](partial_dw, partial_db, dw, db, groups,
                                                           n_cols, BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
    return dx, dw, db


def forward_numpy(x, w, b, eps=1e-5):
    mean = x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    return (x - mean) * rstd * w + b, mean[:, 0], rstd[:, 0]


def backward_numpy(dy, x, w, eps=1e-5):
    n = x.shape[1]
    mean = x.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    wdy = w * dy
    c1 = (xhat * wdy).sum(axis=1, keepdims=True) / n
    c2 = wdy.sum(axis=1, keepdims=True) / n
    return (wdy - (xhat * c1 + c2)) * rstd, (dy * xhat).sum(axis=0), dy.sum(axis=0)


def demo(rng, shape=(512, 1000)):
    m, n = shape
    x = rng.standard_normal(shape, dtype=np.float32) * 2 + 0.5
    w = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    dy = rng.standard_normal(shape, dtype=np.float32)
    y, mean, rstd = layer_norm_forward(x, w, b)
    x64, w64, dy64 = x.astype(np.float64), w.astype(np.float64), dy.astype(np.float64)
    y_ref = forward_numpy(x64, w64, b.astype(np.float64))[0]
    dx, dw, db = layer_norm_backward(dy, x, w, mean, rstd)
    dx_ref, dw_ref, db_ref = backward_numpy(dy64, x64, w64)
    got = np.concatenate([dx.ravel(), dw, db])
    ref = np.concatenate([dx_ref.ravel(), dw_ref, db_ref])
    return [
        {"name": "layer_norm forward", "size": f"{m}x{n} fp32", "out": y, "ref": y_ref,
         "tolerance": 1e-5, "tessera": lambda: layer_norm_forward(x, w, b),
         "numpy": lambda: forward_numpy(x, w, b)},
        {"name": "layer_norm backward", "size": f"{m}x{n} fp32", "out": got, "ref": ref,
         "tolerance": 1e-5, "tessera": lambda: layer_norm_backward(dy, x, w, mean, rstd),
         "numpy": lambda: backward_numpy(dy, x, w)},
    ]


if __name__ == "__main__":
    from demo import run_one
    run_one(demo)
