import triton
import triton.language as tl


@triton.jit
def edge_constants(p, n, N: tl.constexpr):
    # Edge constants for the mutator to recombine: the int64 and uint64
    # bounds, -1 divisors, huge shifts and powers, float extremes.
    a = -9223372036854775807 - 1
    b = a // -1 + a % -1 - (a >> 63) + (1 << 63) - 0xFFFFFFFFFFFFFFFF
    c = (1 << 100) >> 90 + 2 ** 64 - 1 + 3 ** 40 + abs(-2**63) + int(1e18) + tl.cdiv(a, -1)
    d = -(2**127) * 2 // -1 + (1 << 127) - ~0 + (-1) ** 63 + 0 ** 0
    for i in tl.static_range(64):
        for j in tl.static_range(N):
            tl.store(p + i * j, i + j)
    x = tl.full((1 << 20,), 2147483647, tl.int32) + 1
    y = tl.broadcast_to(x[:, None], (1 << 20, 1 << 40))
    tl.store(p + tl.arange(0, 16) * 4611686018427387904, n // -1 % 0 << 64 >> -1)
    z = 1e308 * 10 - float("inf") + float("nan") + 5e-324 / 2
