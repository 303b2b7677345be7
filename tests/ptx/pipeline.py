# Software pipelining (num_stages): a loop's loads for later iterations are
# issued before the loop and one iteration ahead in it. num_stages=1 (the
# option, or tl.range's keyword for one loop) keeps one load per iteration.
# RUN: tesserac compile %s --kernel row_sum --signature "*fp32:16, *fp32:16, i32:16, 512" --emit ptx --target sm_90a | FileCheck %s --check-prefix=THREE
# RUN: tesserac compile %s --kernel row_sum --signature "*fp32:16, *fp32:16, i32:16, 512" --emit ptx --target sm_90a --num-stages 1 | FileCheck %s --check-prefix=ONE
# RUN: tesserac compile %s --kernel row_sum_one_stage --signature "*fp32:16, *fp32:16, i32:16, 512" --emit ptx --target sm_90a | FileCheck %s --check-prefix=ONE
# VERIFY: tesserac compile %s --kernel bad_stages --signature "*fp32:16, i32:16" --emit ptx --target sm_90a
import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        acc += tl.load(x_ptr + start + cols, mask=start + cols < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


@triton.jit
def row_sum_one_stage(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in tl.range(0, n, BLOCK, num_stages=1):
        acc += tl.load(x_ptr + start + cols, mask=start + cols < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


@triton.jit
def bad_stages(x_ptr, n):
    for i in tl.range(0, n, num_stages=0):  # expected-error {{num_stages must be from 1 to 16, got 0}}
        tl.store(x_ptr + i, 1.0)

# Two iterations loaded before the loop (a 16-byte vector each), one in it.
# THREE: .visible .entry row_sum(
# THREE: ld.global.v4.b32
# THREE: ld.global.v4.b32
# THREE: [[HEAD:\$L[0-9]+]]:
# THREE: ld.global.v4.b32
# THREE-NOT: ld.global
# THREE: bra [[HEAD]]

# ONE: .visible .entry
# ONE-NOT: ld.global
# ONE: {{\$L[0-9]+}}:
# ONE: ld.global.v4.b32
# ONE-NOT: ld.global
# ONE: bra
