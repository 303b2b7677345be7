"""Row softmax for rows longer than one block (online softmax).

A first sweep over the row's column blocks keeps a running maximum m and a
running sum s of exp(x - m), rescaling s whenever m grows; a second sweep
writes exp(x - m) / s.
"""
import numpy as np

import tessera as triton
import tessera.language as tl


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
        x = tl.load(row_in + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK_SIZE):
        mask = start + cols < n_cols
        x = tl.load(row_in + start + cols, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(row_out + start + cols, tl.exp(x - m) / s, mask=mask)


def softmax_online(x, block=256):
    n_rows, n_cols = x.shape
    out = np.empty_like(x)
    softmax_online_kernel[(n_rows,)](out, x, x.strides[0] // x.itemsize, out.strides[0] // out.itemsize,
                                     n_cols, BLOCK_SIZE=block)
    return out


def demo(rng, shape=(256, 5000)):
    x = rng.standard_normal(shape, dtype=np.float32) * 4
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))

    def numpy_softmax():
        e32 = np.exp(x - x.max(axis=1, keepdims=True))
        return e32 / e32.sum(axis=1, keepdims=True)

    return {"name": "softmax_online", "size": f"{shape[0]}x{shape[1]} fp32", "out": softmax_online(x),
            "ref": e / e.sum(axis=1, keepdims=True), "tolerance": 1e-5,
            "tessera": lambda: softmax_online(x), "numpy": numpy_softmax}


if __name__ == "__main__":
    from demo import run_one
    run_one(demo)
