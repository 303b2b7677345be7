"""Vector addition, the first Triton tutorial: one program per BLOCK_SIZE
elements, the ragged end masked off.

    python3 examples/vector_add.py
"""
import numpy as np

import tessera as triton
import tessera.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)


def add(x, y):
    """x + y for two arrays (NumPy, or CPU PyTorch tensors) of the same shape."""
    out = np.empty_like(x) if isinstance(x, np.ndarray) else x.new_empty(x.shape)
    n = out.size if isinstance(out, np.ndarray) else out.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    return out


def demo(rng, n=1 << 22):
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = add(x, y)
    ref = x.astype(np.float64) + y
    return {"name": "vector_add", "size": f"{n} fp32", "out": out, "ref": ref, "tolerance": 1e-6,
            "tessera": lambda: add(x, y), "numpy": lambda: x + y}


if __name__ == "__main__":
    from demo import run_one
    run_one(demo)
