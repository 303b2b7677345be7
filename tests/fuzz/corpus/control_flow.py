import triton
import triton.language as tl

@triton.jit
def helper(x, y):
    if x > 0:
        return x + y
    return x - y

@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid >= n:
        return
    acc = 0.0
    offs = tl.arange(0, BLOCK)
    for i in range(0, n, 2):
        if i > 10:
            break
        if i == 4:
            continue
        acc += tl.load(x_ptr + i * BLOCK + offs)
    s = tl.sum(acc, axis=0)
    t = helper(s, 1.0)
    j = 0
    while j < n:
        j += 1
    tl.store(out_ptr + pid, t + j)
