# Index arithmetic: an int32 value added to an arange adds to the arange's
# thread coordinate once, then each element's offset as an immediate, so the
# arange's registers are not kept live to the add (a causal mask's column
# offsets across a loop).
# RUN: tesserac compile %s --kernel causal_mask --signature "*fp32:16, i32, 64" --emit ptx | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def causal_mask(out_ptr, n, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        keep = rows[:, None] >= start + cols[None, :]
        acc += tl.where(keep, 1.0, 0.0)
    tl.store(out_ptr + rows[:, None] * BLOCK + cols[None, :], acc)

# The columns' arange: its thread coordinate plus 0, 1, 2, 3.
# CHECK: add.s32 %r{{[0-9]+}}, [[TC:%r[0-9]+]], 3;
# In the loop: start + coordinate once, then the offsets.
# CHECK: {{^\$L[0-9]+}}:
# CHECK: add.s32 [[T:%r[0-9]+]], %r{{[0-9]+}}, [[TC]];
# CHECK-NEXT: add.s32 %r{{[0-9]+}}, [[T]], 1;
# CHECK-NEXT: add.s32 %r{{[0-9]+}}, [[T]], 2;
# CHECK-NEXT: add.s32 %r{{[0-9]+}}, [[T]], 3;
# CHECK: bra
