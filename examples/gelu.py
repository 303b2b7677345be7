"""GELU with the tanh approximation, elementwise over a flat tensor:

    gelu(x) = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))
"""
import triton
import triton.language as tl

SQRT_2_OVER_PI = 0.7978845608028654


@triton.jit
def tanh(x):
    # tanh(x) = 1 - 2 / (exp(2x) + 1); exact at both tails (exp -> 0 or inf).
    return 1.0 - 2.0 / (tl.exp(2.0 * x) + 1.0)


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    inner = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + tanh(inner))
    tl.store(out_ptr + offsets, y, mask=mask)
