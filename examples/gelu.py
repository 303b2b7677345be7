"""GELU with the tanh approximation, elementwise over a flat tensor:

    gelu(x) = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))

A global constant and a @jit helper are read by the kernel.
"""
import numpy as np

import tessera as triton
import tessera.language as tl

# Triton kernels read only tl.constexpr globals.
SQRT_2_OVER_PI = tl.constexpr(0.7978845608028654)


@triton.jit
def one_plus_tanh(x):
    # 1 + tanh(x) = 2 / (1 + exp(-2x)): no cancellation where tanh(x) nears -1
    # (1 - 2 / (exp(2x) + 1), then + 1, lost float32's digits there), and
    # exact at both tails (exp -> inf or 0).
    return 2.0 / (1.0 + tl.exp(-2.0 * x))


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    inner = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
    y = 0.5 * x * one_plus_tanh(inner)
    tl.store(out_ptr + offsets, y, mask=mask)


def gelu(x):
    out = np.empty_like(x)
    n = x.size
    gelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
    return out


def gelu_numpy(x):
    return 0.5 * x * (1.0 + np.tanh(SQRT_2_OVER_PI.value * (x + 0.044715 * x * x * x)))


def demo(rng, n=1 << 20):
    x = rng.standard_normal(n, dtype=np.float32) * 3
    return {"name": "gelu", "size": f"{n} fp32", "out": gelu(x), "ref": gelu_numpy(x.astype(np.float64)),
            "tolerance": 1e-5, "tessera": lambda: gelu(x), "numpy": lambda: gelu_numpy(x)}


if __name__ == "__main__":
    from demo import run_one
    run_one(demo)
