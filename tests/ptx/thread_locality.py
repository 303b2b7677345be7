# thread-locality: a loop that combines a reduction into its accumulator
# reduces only within each thread inside the loop (the reshape that gives
# a row's registers their own dim is a register alias, no shared memory)
# and goes across lanes (shfl) and warps (bar.sync, shared memory) once,
# after the loop. The PTX is assembled by ptxas when it is installed.
# RUN: tesserac compile %s --kernel row_sum --signature "*fp32:16, *fp32:16, i32:16, 32, 256" --emit ptx --target sm_80 -o %t.row.ptx
# RUN: FileCheck %s --check-prefix=ROW < %t.row.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.row.ptx -o %t.row.cubin
# RUN: tesserac compile %s --kernel row_sum --signature "*fp32:16, *fp32:16, i32:16, 32, 256" --emit ptx --target sm_90a -o %t.row90.ptx
# RUN: FileCheck %s --check-prefix=ROW < %t.row90.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.row90.ptx -o %t.row90.cubin
# RUN: tesserac compile %s --kernel col_sum --signature "*fp32:16, *fp32:16, i32:16, i32:16, 64, 128" --emit ptx --target sm_80 -o %t.col.ptx
# RUN: FileCheck %s --check-prefix=COL < %t.col.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.col.ptx -o %t.col.cubin
# RUN: tesserac compile %s --kernel row_xor --signature "*i32:16, *i32:16, i32:16, 16, 128" --emit ptx --target sm_80 --num-stages 1 -o %t.xor.ptx
# RUN: FileCheck %s --check-prefix=XOR < %t.xor.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.xor.ptx -o %t.xor.cubin
import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, y_ptr, N, BM: tl.constexpr, BK: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    acc = tl.zeros([BM], tl.float32)
    for k in range(0, N, BK):
        cols = k + tl.arange(0, BK)
        x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
        acc = acc + tl.sum(x, 1)
    tl.store(y_ptr + rows, acc)

# Each thread adds its 4 consecutive elements of 8 rows into 8 partials in
# the loop; lanes (xor 1..16 of the row's 64 threads) and the 2 warps along
# the row only after it.
# ROW: .entry row_sum(
# ROW: [[LOOP:\$L[0-9]+]]:
# ROW-NOT: shfl.sync
# ROW-NOT: bar.sync
# ROW-NOT: .shared
# ROW: ld.global.v4.b32
# ROW-NOT: shfl.sync
# ROW-NOT: bar.sync
# ROW-NOT: .shared
# ROW: bra [[LOOP]];
# ROW-NEXT: $L{{[0-9]+}}:
# ROW-NEXT: mov.b32
# ROW-NEXT: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1, 31, -1;
# ROW: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 31, -1;
# ROW: bar.sync 0;
# ROW: st.shared.f32
# ROW: bar.sync 0;
# ROW: ld.shared.f32
# ROW: st.global


@triton.jit
def col_sum(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    acc = tl.zeros([BN], tl.float32)
    for m in range(0, M, BM):
        rows = m + tl.arange(0, BM)
        x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
        acc += tl.sum(x, 0)
    tl.store(y_ptr + cols, acc)

# Axis 0: 16 rows per thread in registers, the 4 warps along the columns'
# sum: shared memory once, after the loop; no lane holds a bit of the axis.
# COL: .entry col_sum(
# COL: [[LOOP:\$L[0-9]+]]:
# COL-NOT: bar.sync
# COL-NOT: .shared
# COL: ld.global.v4.b32
# COL-NOT: bar.sync
# COL-NOT: .shared
# COL: bra [[LOOP]];
# COL-NEXT: $L{{[0-9]+}}:
# COL-NEXT: bar.sync 0;
# COL-NOT: shfl.sync.bfly
# COL: st.shared.f32
# COL: bar.sync 0;
# COL: ld.shared.f32


@triton.jit
def xor_comb(a, b):
    return a ^ b


@triton.jit
def row_xor(x_ptr, y_ptr, N, BM: tl.constexpr, BK: tl.constexpr):
    rows = tl.arange(0, BM)
    acc = tl.load(y_ptr + rows)
    for k in range(0, N, BK):
        cols = k + tl.arange(0, BK)
        x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
        acc = acc ^ tl.reduce(x, 1, xor_comb)
    tl.store(y_ptr + rows, acc)

# tl.reduce with a user combine, an integer, an initial value loaded before
# the loop (combined after it) and no pipelining.
# XOR: .entry row_xor(
# XOR: [[LOOP:\$L[0-9]+]]:
# XOR-NOT: shfl.sync
# XOR-NOT: bar.sync
# XOR: xor.b32
# XOR-NOT: shfl.sync
# XOR-NOT: bar.sync
# XOR: bra [[LOOP]];
# XOR-NEXT: $L{{[0-9]+}}:
# XOR: shfl.sync.bfly.b32
# XOR: xor.b32
