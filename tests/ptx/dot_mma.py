# tl.dot on tensor cores (mma.sync, sm_80+): the matmul example and small
# dots of every dtype the instruction takes. In a loop (num_stages >= 2) the
# operands travel global -> shared by cp.async into a ring of num_stages
# buffers (pipeline-dot-operands), swizzled; otherwise they go from
# registers to padded shared memory in 16-byte stores. Fragments come back by ldmatrix
# (.trans for an operand stored M- or N-contiguous), one mma.sync per 16x8
# accumulator tile; fp32 "ieee" and fp8 below sm_89 stay on FMAs.
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 32, 8, 'ieee'" --emit ptx --target sm_80 --num-warps 8 | FileCheck %s --check-prefix=EXAMPLE
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8, 'ieee'" --emit ptx --target sm_80 --num-warps 8 | FileCheck %s --check-prefix=INTERLEAVED
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8, 'ieee'" --emit ttgir --target sm_80 --num-warps 8 | FileCheck %s --check-prefix=SWIZZLED
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8, 'ieee'" --emit ptx --target sm_80 --num-warps 8 | FileCheck %s --check-prefix=SWZPTX
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 32, 8, 'ieee'" --emit ptx --target sm_80 --num-warps 8 --num-stages 1 | FileCheck %s --check-prefix=REGS
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 32, 8, 'ieee'" --emit ptx --target sm_80 --num-warps 8 | FileCheck %s --check-prefix=RAGGED
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 32, 8, 'ieee'" --emit ttgir --target sm_80 --num-warps 8 | FileCheck %s --check-prefix=LAYOUT
# RUN: tesserac compile %s --kernel small --signature "*bf16:16, *bf16:16, *fp32:16, 0" --emit ptx --target sm_80 | FileCheck %s --check-prefix=BF16
# RUN: tesserac compile %s --kernel small --signature "*fp16:16, *fp16:16, *fp16:16, 0" --emit ptx --target sm_80 | FileCheck %s --check-prefix=F16ACC
# RUN: tesserac compile %s --kernel small --signature "*fp32:16, *fp32:16, *fp32:16, 0" --emit ptx --target sm_80 | FileCheck %s --check-prefix=TF32
# RUN: tesserac compile %s --kernel small --signature "*fp32:16, *fp32:16, *fp32:16, 1" --emit ptx --target sm_80 | FileCheck %s --check-prefix=TF32X3
# RUN: tesserac compile %s --kernel small --signature "*fp32:16, *fp32:16, *fp32:16, 2" --emit ptx --target sm_80 | FileCheck %s --check-prefix=IEEE
# RUN: tesserac compile %s --kernel small --signature "*fp32:16, *fp32:16, *fp32:16, 3" --emit ptx --target sm_80 | FileCheck %s --check-prefix=BF16X3
# RUN: tesserac compile %s --kernel small --signature "*fp32:16, *fp32:16, *fp32:16, 3" --emit ptx --target sm_90a -o %t.bf16x3.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.bf16x3.ptx -o %t.bf16x3.cubin
# RUN: tesserac compile %s --kernel rows --signature "*i8:16, *i8:16, *i32:16" --emit ptx --target sm_80 | FileCheck %s --check-prefix=INT8
# RUN: tesserac compile %s --kernel small --signature "*fp8e4nv:16, *fp8e5:16, *fp32:16, 0" --emit ptx --target sm_90a | FileCheck %s --check-prefix=FP8
# RUN: tesserac compile %s --kernel small --signature "*fp8e4nv:16, *fp8e4nv:16, *fp32:16, 0" --emit ptx --target sm_80 | FileCheck %s --check-prefix=FP8-SM80
# RUN: tesserac compile %s --kernel transposed --signature "*fp16:16, *fp16:16, *fp32:16" --emit ptx --target sm_80 | FileCheck %s --check-prefix=TRANS
# RUN: tesserac compile %s --kernel wide --signature "*fp16:16, *fp16:16, *fp32:16, i32, 128, 256, 128" --emit ptx --target sm_90a --num-warps 8 -o %t.wide.ptx
# RUN: FileCheck %s --check-prefix=BANDS < %t.wide.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.wide.ptx -o %t.wide.cubin
# RUN: tesserac compile %s --kernel wide --signature "*i8:16, *i8:16, *i32:16, i32, 128, 256, 128" --emit ptx --target sm_80 --num-warps 8 | FileCheck %s --check-prefix=BANDS-INT
# RUN: tesserac compile %s --kernel residual --signature "*fp16:16, *fp16:16, *fp32:16, 64, 64, 64" --emit ptx --target sm_80 --num-warps 4 -o %t.residual.ptx
# RUN: FileCheck %s --check-prefix=RESIDUAL < %t.residual.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.residual.ptx -o %t.residual.cubin
# RUN: tesserac compile %s --kernel batched --signature "*fp16:16, *fp16:16, *fp32:16, 4" --emit ptx --target sm_80 --num-warps 4 -o %t.batched.ptx
# RUN: FileCheck %s --check-prefix=BATCHED < %t.batched.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.batched.ptx -o %t.batched.cubin
# RUN: tesserac compile %s --kernel batched --signature "*fp16:16, *fp16:16, *fp32:16, 16" --emit ptx --target sm_90a --num-warps 4 -o %t.batched16.ptx
# RUN: FileCheck %s --check-prefix=BATCHED16 < %t.batched16.ptx
# RUN: FileCheck %s --check-prefix=MMA64 < %t.batched16.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.batched16.ptx -o %t.batched16.cubin
import triton
import triton.language as tl

# The example (examples/matmul.py) with 128x128x32 blocks and 8 warps: each
# warp a 64x32 accumulator tile (4x4 instruction tiles), K loop of two steps.
# Three stages: two iterations' copies (16 bytes each, zero-filled where
# masked) and the wait for the first before the loop; at its top, the
# copies for two iterations ahead (with one K step before the wait, they
# are not spread among the products: INTERLEAVED below). The dot
# prefetches (CUTLASS's Ampere loop): its first K step reads fragments the
# previous iteration loaded (the first iteration loads its own; later ones
# branch around those loads); before its last K step it waits for the next
# slot's group, crosses the barrier and loads that slot's first K step into
# the same registers. Nothing in flight after the loop.
# EXAMPLE: .version 8.0
# EXAMPLE: cp.async.cg.shared.global [%r{{[0-9]+}}{{(\+[0-9]+)?}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}}
# EXAMPLE: cp.async.commit_group
# EXAMPLE: cp.async.cg.shared.global
# EXAMPLE: cp.async.commit_group
# EXAMPLE: cp.async.wait_group 1
# EXAMPLE-NEXT: bar.sync 0
# EXAMPLE: [[HEAD:\$L[0-9]+]]:
# EXAMPLE-NOT: bar.sync
# EXAMPLE: cp.async.cg.shared.global
# EXAMPLE: cp.async.commit_group
# EXAMPLE-NOT: bar.sync
# EXAMPLE: @!%p{{[0-9]+}} bra.uni [[LOADED:\$L[0-9]+]]
# EXAMPLE-NEXT: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[F0:%r[0-9]+]],
# EXAMPLE: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {[[G0:%r[0-9]+]],
# EXAMPLE: [[LOADED]]:
# EXAMPLE-NOT: bar.sync
# EXAMPLE-NOT: cp.async
# EXAMPLE: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, {[[F0]], %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {[[G0]], %r{{[0-9]+}}}
# EXAMPLE-NOT: fma.rn.f32
# EXAMPLE-NOT: bar.sync
# EXAMPLE-NOT: cp.async
# EXAMPLE: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# EXAMPLE: cp.async.wait_group 1
# EXAMPLE-NEXT: bar.sync 0
# EXAMPLE-NEXT: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {[[F0]],
# EXAMPLE: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {[[G0]],
# EXAMPLE: mma.sync.aligned.m16n8k16
# EXAMPLE-NOT: cp.async
# EXAMPLE-NOT: ldmatrix
# EXAMPLE: bra [[HEAD]]
# EXAMPLE: cp.async.wait_group 0
# EXAMPLE: st.global

# The rings are swizzled (128-byte rows: the swizzle wgmma reads), not
# padded: a padded row starts 16 bytes past the last one's 128-byte
# alignment, and a copy's line that lands across two of shared memory's
# goes to L2 as two requests. ldmatrix reads the swizzle conflict-free:
# each K step's column has its own lane address (made before the loop,
# added to the slot's address), and A's 16-row tiles are whole 8-row
# groups apart, which the swizzle leaves alone, so they stay immediates.
# SWIZZLED: local_alloc : memdesc<3x128x64xf16, #"shared<contig=1, swizzle=128>">
# SWIZZLED: local_alloc : memdesc<3x64x256xf16, #"shared<contig=1, swizzle=128>">
# SWZPTX: xor.b32
# SWZPTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{.*}}}, [[[A:%r[0-9]+]]];
# SWZPTX-NEXT: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{.*}}}, [[[A]]+2048];
# SWZPTX-NEXT: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{.*}}}, [[[A]]+4096];
# SWZPTX-NEXT: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{.*}}}, [[[A]]+6144];
# SWZPTX-NEXT: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{.*}}}, [[[B0:%r[0-9]+]]];
# SWZPTX-NEXT: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{.*}}}, [[[B1:%r[0-9]+]]];

# 128x256x64 blocks: four K steps, three before the wait. The copies for
# two iterations ahead are issued one at a time among those steps'
# mma.sync (CUTLASS's order: ptxas keeps cp.async where the PTX puts
# them), and their commit comes before the wait.
# INTERLEAVED: [[HEAD:\$L[0-9]+]]:
# INTERLEAVED-NOT: bar.sync
# INTERLEAVED-NOT: cp.async
# INTERLEAVED: [[LOADED:\$L[0-9]+]]:
# INTERLEAVED-NOT: cp.async
# INTERLEAVED: mma.sync.aligned.m16n8k16
# INTERLEAVED-NOT: bar.sync
# INTERLEAVED: cp.async.cg.shared.global
# INTERLEAVED-NEXT: mma.sync.aligned.m16n8k16
# INTERLEAVED-NOT: bar.sync
# INTERLEAVED: cp.async.cg.shared.global
# INTERLEAVED-NEXT: mma.sync.aligned.m16n8k16
# INTERLEAVED-NOT: bar.sync
# INTERLEAVED: cp.async.commit_group
# INTERLEAVED-NOT: bar.sync
# INTERLEAVED: cp.async.wait_group 1
# INTERLEAVED-NEXT: bar.sync 0
# INTERLEAVED-NOT: cp.async
# INTERLEAVED: bra [[HEAD]]

# One stage: operands through registers, no asynchronous copies.
# REGS-NOT: cp.async
# REGS: bar.sync 0
# REGS: st.shared.v4.b32
# REGS: bar.sync 0
# REGS: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# REGS: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# REGS-NOT: cp.async

# A K that axis info cannot prove a multiple of 16: A's mask `rk < k_left`
# changes inside a run of 8 columns, but only once, as a prefix of the run
# (mask_prefix.h). The copies stay 16 bytes; each reads min(k_left - rk, 8)
# elements where the run's first is in bounds and zero-fills the rest.
# RAGGED: min.u32 [[N:%r[0-9]+]], %r{{[0-9]+}}, 8
# RAGGED-NEXT: shl.b32 [[N]], [[N]], 1
# RAGGED-NEXT: selp.u32 [[SIZE:%r[0-9]+]], [[N]], 0, %p{{[0-9]+}}
# RAGGED-NEXT: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, [[SIZE]]
# RAGGED-NOT: ld.global
# RAGGED: cp.async.wait_group 1
# RAGGED: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# RAGGED-NOT: ld.global

# The accumulator (and the store of it) in the mma layout: element pairs
# along N per thread, lanes 4 x 8, warps 2 along N then 4 along M.
# LAYOUT: dot {{.*}}#"linear<reg=[1:1,0:8,1:8,1:16,0:16,0:32], lane=[1:2,1:4,0:1,0:2,0:4], warp=[1:32,1:64,0:64]>">
# The epilogue converts only the accumulator (through shared memory): the
# rows and the row mask, which A's copies read in another layout, are
# recomputed in the store's layout where they would have been converted.
# LAYOUT-NOT: convert_layout
# LAYOUT: convert_layout {{.*}} : tile<128x128xf16,
# LAYOUT-NEXT: store
# LAYOUT-NOT: convert_layout


@triton.jit
def small(a_ptr, b_ptr, c_ptr, PREC: tl.constexpr):
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
    prec = "tf32" if PREC == 0 else ("tf32x3" if PREC == 1 else ("ieee" if PREC == 2 else "bf16x3"))
    acc = tl.zeros((32, 32), dtype=c_ptr.dtype.element_ty)
    acc = tl.dot(a, b, acc, input_precision=prec, out_dtype=c_ptr.dtype.element_ty)
    tl.store(c_ptr + r[:, None] * 32 + r[None, :], acc)

# BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# F16ACC: mov.b32 %r{{[0-9]+}}, {%h{{[0-9]+}}, %h{{[0-9]+}}}
# F16ACC: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}
# F16ACC: mov.b32 {%h{{[0-9]+}}, %h{{[0-9]+}}}, %r{{[0-9]+}}
# fp32 operands are stored K-contiguous (ldmatrix.trans moves 16-bit elements only).
# TF32-NOT: .trans
# TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# TF32X3: and.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, -8192
# TF32X3: sub.f32
# TF32X3: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# TF32X3-NEXT: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# TF32X3-NEXT: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
# IEEE-NOT: mma.sync
# bf16x3: each fp32 operand as two bf16 parts (cvt.rn.bf16.f32 of x and of
# x minus its head), three bf16 products per instruction tile.
# BF16X3: cvt.rn.bf16.f32
# BF16X3: sub.f32
# BF16X3: cvt.rn.bf16.f32
# BF16X3-NOT: tf32
# BF16X3-COUNT-3: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
# IEEE: fma.rn.f32
# FP8: .version 8.4
# FP8: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32
# FP8-SM80-NOT: mma.sync
# FP8-SM80: fma.rn.f32


@triton.jit
def transposed(a_ptr, b_ptr, c_ptr):
    # A read M-contiguous, B read K-contiguous: ldmatrix.trans for A only.
    r = tl.arange(0, 64)
    k = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] + k[None, :] * 64)
    b = tl.load(b_ptr + k[:, None] + r[None, :] * 32)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], tl.dot(a, b))

# TRANS-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{.*}}, [%r[[A:[0-9]+]]]
# TRANS-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{.*}}, [%r[[B:[0-9]+]]]
# TRANS-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{.*}}, [%r[[A]]+
# TRANS-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{.*}}, [%r[[B]]+
# TRANS: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32


@triton.jit
def rows(a_ptr, b_ptr, c_ptr):
    m = tl.arange(0, 64)
    k = tl.arange(0, 32)
    a = tl.load(a_ptr + m[:, None] * 32 + k[None, :])
    b = tl.load(b_ptr + k[:, None] * 64 + m[None, :])
    tl.store(c_ptr + m[:, None] * 64 + m[None, :], tl.dot(a, b))

# Bytes packed four to a word (B, N-contiguous in registers, is stored
# K-contiguous since ldmatrix.trans moves 16-bit elements only).
# INT8: prmt.b32
# INT8: st.shared.v4.b32
# INT8: st.shared.b8
# INT8-NOT: .trans
# INT8: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32


@triton.jit
def wide(a_ptr, b_ptr, c_ptr, M, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=c_ptr.dtype.element_ty)
    for k in range(0, K, 32):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M, other=0)
        b = tl.load(b_ptr + (k + rk)[:, None] * BLOCK_N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc, mask=rm[:, None] < M)

# A 128x256 fp32 (or int32) accumulator is 128 KiB: it reaches the store's
# layout in two bands of 64 rows (rows whose bit 8 is clear, then set), each
# staged in the same 64 rows of padded shared memory (64 x 1040 bytes, less
# than the ring the loop used), so the stores are 16 bytes wide.
# BANDS: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
# BANDS: bar.sync 0
# BANDS-COUNT-32: st.shared.v2.b32
# BANDS: bar.sync 0
# BANDS-COUNT-16: ld.shared.v4.f32
# BANDS: bar.sync 0
# BANDS-COUNT-32: st.shared.v2.b32
# BANDS: bar.sync 0
# BANDS-COUNT-16: ld.shared.v4.f32
# BANDS-NOT: bar.sync
# BANDS: st.global.v4.b32
# BANDS-NOT: st.global.v2
# BANDS-INT: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32
# BANDS-INT: st.global.v4.b32
# BANDS-INT-NOT: st.global.v2


@triton.jit
def residual(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    cs = c_ptr + rm[:, None] * N + rn[None, :]
    c = tl.dot(a, b)
    c += tl.load(cs)
    tl.store(cs, c)

# C += A B: the residual is read in its own coalesced layout and converted
# into the accumulator's (here it becomes the mma's initial accumulator),
# and the sum converted back for the store, so both move 16 bytes per
# thread, as Triton's epilogue does.
# RESIDUAL-COUNT-16: ld.global.v4.b32
# RESIDUAL: st.shared.v4.b32
# RESIDUAL: ld.shared.v2.f32
# RESIDUAL: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# RESIDUAL: st.shared.v2.b32
# RESIDUAL: ld.shared.v4.f32
# RESIDUAL: st.global.v4.b32
# RESIDUAL-NOT: ld.global.v2
# RESIDUAL-NOT: st.global.v2


@triton.jit
def batched(a_ptr, b_ptr, c_ptr, B: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + rb * 1024 + r[None, :, None] * 32 + r[None, None, :])
    b = tl.load(b_ptr + rb * 1024 + r[None, :, None] * 32 + r[None, None, :])
    tl.store(c_ptr + rb * 1024 + r[None, :, None] * 32 + r[None, None, :], tl.dot(a, b))

# A batched dot on mma.sync (wgmma has no batched form, so on sm_90a too).
# With B = 4 and 4 warps each warp multiplies one batch entry: the
# operands' matrices lie 2560 bytes apart in shared memory (32 rows of
# 64 + 16 bytes), and the warp's entry is added to its ldmatrix addresses;
# per entry 2 x 4 instruction tiles, two K steps: 16 mma.sync a thread.
# BATCHED-NOT: fma.rn.f32
# BATCHED: mad.lo.s32 [[A:%r[0-9]+]], [[W:%r[0-9]+]], 2560, [[A]];
# BATCHED: mad.lo.s32 [[B:%r[0-9]+]], [[W]], 2560, [[B]];
# BATCHED-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# BATCHED-NOT: mma.sync
# BATCHED-NOT: fma.rn.f32
# With B = 16 a warp takes entries w, w + 4, w + 8 and w + 12, one after
# the other, 4 x 2560 bytes apart: 64 mma.sync a thread.
# BATCHED16-NOT: wgmma
# BATCHED16: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{.*}}, {{\[}}[[A:%r[0-9]+]]{{\]}};
# BATCHED16: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{.*}}, {{\[}}[[A]]+10240{{\]}};
# BATCHED16: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{.*}}, {{\[}}[[A]]+20480{{\]}};
# BATCHED16: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{.*}}, {{\[}}[[A]]+30720{{\]}};
# BATCHED16-NOT: wgmma
# MMA64-COUNT-64: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# MMA64-NOT: mma.sync
