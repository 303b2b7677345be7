"""Row softmax for rows longer than one block (online softmax).

A first sweep over the row's column blocks keeps a running maximum m and a
running sum s of exp(x - m), rescaling s whenever m grows; a second sweep
writes exp(x - m) / s.
"""
import triton
import triton.language as tl


@triton.jit
def softmax_online_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                          BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    row_in = in_ptr + row * in_row_stride
    row_out = out_ptr + row * out_row_stride
    cols = tl.arange(0, BLOCK_SIZE)
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        mask = start + cols < n_cols
        x = tl.load(row_in + start + cols, mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK_SIZE):
        mask = start + cols < n_cols
        x = tl.load(row_in + start + cols, mask=mask, other=-float("inf"))
        tl.store(row_out + start + cols, tl.exp(x - m) / s, mask=mask)
