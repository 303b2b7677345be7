"""Fused row softmax: one program per row, the whole row in one block.

BLOCK_SIZE is the next power of two >= n_cols; the extra lanes load -inf so
they add nothing to the sum. As in Triton's tutorial, the kernel is compiled
once with `warmup` and then launched through the compiled handle.
"""
import numpy as np

import tessera as triton
import tessera.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


def softmax(x):
    n_rows, n_cols = x.shape
    out = np.empty_like(x)
    block = triton.next_power_of_2(n_cols)
    softmax_kernel[(n_rows,)](out, x, x.strides[0] // x.itemsize, out.strides[0] // out.itemsize,
                              n_cols, BLOCK_SIZE=block)
    return out


def softmax_numpy(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def demo(rng, shape=(1823, 781)):
    x = rng.standard_normal(shape, dtype=np.float32) * 4
    return {"name": "softmax", "size": f"{shape[0]}x{shape[1]} fp32", "out": softmax(x),
            "ref": softmax_numpy(x.astype(np.float64)), "tolerance": 1e-5,
            "tessera": lambda: softmax(x), "numpy": lambda: softmax_numpy(x)}


if __name__ == "__main__":
    from demo import run_one
    run_one(demo)
