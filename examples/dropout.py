"""Dropout with a seed: element i is kept when tl.rand(seed, i) > p and then
scaled by 1 / (1 - p); dropped elements are 0. The same seed gives the same
mask, so no mask tensor needs to be stored for the backward pass.
"""
import numpy as np

import tessera as triton
import tessera.language as tl


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    r = tl.rand(seed, offsets)
    keep = r > p
    out = tl.where(keep, x / (1 - p), 0.0)
    tl.store(out_ptr + offsets, out, mask=mask)


def dropout(x, p, seed):
    out = np.empty_like(x)
    n = x.size
    dropout_kernel[(triton.cdiv(n, 1024),)](x, out, n, p, seed, BLOCK_SIZE=1024)
    return out


def demo(rng, n=1 << 20, p=0.3):
    x = rng.standard_normal(n, dtype=np.float32)
    seed = int(rng.integers(0, 2**31 - 1))
    out = dropout(x, p, seed)
    again = dropout(x, p, seed)
    kept = out != 0
    # Reference: kept elements are x / (1 - p); the kept fraction is near 1 - p.
    ref = np.where(kept, x.astype(np.float64) / (1 - p), 0.0)
    fraction = kept.mean()
    assert np.array_equal(out, again), "the same seed must give the same mask"
    assert abs(fraction - (1 - p)) < 0.01, f"kept {fraction:.3f} of the elements, expected {1 - p}"
    return {"name": "dropout", "size": f"{n} fp32", "out": out, "ref": ref, "tolerance": 1e-6,
            "tessera": lambda: dropout(x, p, seed),
            "numpy": lambda: np.where(np.random.default_rng(seed).random(n) > p, x / (1 - p), 0.0)}


if __name__ == "__main__":
    from demo import run_one
    run_one(demo)
