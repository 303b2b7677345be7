# A while loop whose condition is a few scalar ops is emitted rotated, as
# LLVM rotates loops: the condition once before the loop, then again at the
# bottom of the body, whose back edge is one conditional branch. What ptxas
# hoists out of the body then runs only when the loop is entered (a grouped
# GEMM's tile loop runs zero times in most of its groups).
# RUN: tesserac compile %s --kernel walk --signature "*i32:16, *i32:16, i32" --emit ptx | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def walk(sizes_ptr, out_ptr, n_groups):
    tile = tl.program_id(0)
    start = 0
    for g in range(n_groups):
        count = tl.load(sizes_ptr + g)
        while tile >= start and tile < start + count:
            tl.store(out_ptr + tile, (tile - start) // (count % 7 + 1))
            tile += 132
        start += count

# The test before the loop jumps past it...
# CHECK: setp.ge.s32
# CHECK: @!{{%p[0-9]+}} bra [[EXIT:\$L[0-9]+]];
# CHECK-NEXT: [[BODY:\$L[0-9]+]]:
# CHECK: st.global
# ...and the test at the bottom jumps back to the body.
# CHECK: setp.ge.s32
# CHECK: @{{%p[0-9]+}} bra [[BODY]];
# CHECK-NEXT: [[EXIT]]:
