"""Layer norm forward: one program per row, the row walked in BLOCK_SIZE chunks.

    y = (x - mean) * rstd * w + b,   rstd = 1 / sqrt(var + eps)

Mean and rstd of each row are stored too (what a backward pass needs).
"""
import triton
import triton.language as tl


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
