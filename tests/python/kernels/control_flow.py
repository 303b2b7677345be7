import triton
import triton.language as tl


@triton.jit
def square(x):
    return x * x


@triton.jit
def add_then_square(x, y):
    return square(x + y)


@triton.jit
def two_results(x):
    return x + 1, x * 2


@triton.jit
def for_loop_kernel(out_ptr, n, BLOCK: tl.constexpr):
    # Loop-carried tile and scalar: acc[i] = sum_{k<n} (i + k), count = n.
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    count = 0
    for k in range(n):
        acc += offs + k
        count += 1
    tl.store(out_ptr + offs, acc + count * 0)
    tl.store(out_ptr + BLOCK, count)


@triton.jit
def range_step_kernel(out_ptr, lo, hi, step):
    # range with a runtime start, stop and step (positive).
    total = 0
    for i in range(lo, hi, step):
        total += i
    tl.store(out_ptr, total)


@triton.jit
def tl_range_kernel(out_ptr, n):
    total = 0
    for i in tl.range(0, n, 2):
        total += i
    # None for a hint means the kernel's own setting, as in Triton.
    for i in tl.range(0, n, 2, num_stages=None, loop_unroll_factor=None):
        total += i
    tl.store(out_ptr, total)


@triton.jit
def while_kernel(x_ptr, out_ptr):
    # Collatz step count of x (runtime trip count, loop-carried scalar).
    x = tl.load(x_ptr + tl.program_id(0))
    steps = 0
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    tl.store(out_ptr + tl.program_id(0), steps)


@triton.jit
def if_else_kernel(x_ptr, out_ptr):
    # A runtime if/else yielding a value.
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid)
    if v > 0:
        r = v * 2
    elif v < -5:
        r = -v
    else:
        r = v - 100
    tl.store(out_ptr + pid, r)


@triton.jit
def early_return_kernel(out_ptr, n):
    # Programs past n return before storing; the rest store their id.
    pid = tl.program_id(0)
    if pid >= n:
        return
    tl.store(out_ptr + pid, pid + 1)


@triton.jit
def static_range_kernel(out_ptr, N: tl.constexpr):
    offs = tl.arange(0, 8)
    acc = tl.zeros([8], dtype=tl.int32)
    for i in tl.static_range(N):
        acc += offs * i
    for j in tl.static_range(1, 7, 3):
        acc += j
    tl.store(out_ptr + offs, acc)


@triton.jit
def constexpr_if_kernel(x_ptr, out_ptr, MODE: tl.constexpr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    if MODE == 0:
        y = x + 1
    elif MODE == 1:
        y = x * 3
    else:
        y = this_name_does_not_exist(x)  # noqa: F821  pruned: never lowered
    tl.store(out_ptr + offs, y)


@triton.jit
def nested_call_kernel(x_ptr, y_ptr, out_ptr, out2_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    a, b = two_results(x)
    tl.store(out_ptr + offs, add_then_square(a, y))
    tl.store(out2_ptr + offs, b)


@triton.jit
def break_continue_kernel(out_ptr, n):
    # Sum of odd i < n, stopping once i reaches 11.
    total = 0
    for i in range(n):
        if i >= 11:
            break
        if i % 2 == 0:
            continue
        total += i
    tl.store(out_ptr, total)


@triton.jit
def ternary_expr_kernel(x_ptr, out_ptr, FLIP: tl.constexpr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    y = -x if FLIP else x
    tl.store(out_ptr + offs, y)
