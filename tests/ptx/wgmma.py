# wgmma on sm_90a: a matmul whose operands both travel by cp.async (the
# tutorial's, rows and columns wrapped with `% M`, storing every row so that
# its wrapped rows are not boxes of the tensor: tests/python/kernels/dots.py)
# runs on wgmma.mma_async from
# swizzled shared memory; the example matmul, whose masked loads read boxes,
# fills the same rings by the copy engine (F16-TMA)
# (tests/python/test_wgmma_ptx.py assembles a matrix of such configurations
# with ptxas).
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel wrapped_matmul --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 32, 1" --emit ptx --target sm_90a --num-warps 8 | FileCheck %s --check-prefix=F16
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 32, 8, 'ieee'" --emit ptx --target sm_90a --num-warps 8 | FileCheck %s --check-prefix=F16-TMA
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp8e4nv:16, *fp8e4nv:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, 1, i32:16, i32:16, 1, 128, 128, 64, 4, 'ieee'" --emit ptx --target sm_90a --num-warps 4 | FileCheck %s --check-prefix=FP8
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp8e4nv:16, *fp8e4nv:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 64, 4, 'ieee'" --emit ptx --target sm_90a --num-warps 4 | FileCheck %s --check-prefix=FP8-MN
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 32, 8, 'ieee'" --emit ptx --target sm_90 --num-warps 8 | FileCheck %s --check-prefix=SM90
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel wrapped_matmul --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32, i32:16, i32:16, i32:16, 128, 128, 32, 1" --emit ptx --target sm_90a --num-warps 8 | FileCheck %s --check-prefix=RAGGED
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel wrapped_matmul --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 32, 1" --emit ttgir --target sm_90a --num-warps 8 | FileCheck %s --check-prefix=LAYOUT

# fp16, 128x128x32 blocks, 8 warps: two warpgroups along M, each one
# m64n128k16 per K step of 16, two K steps. The swizzled rings are 1024-byte
# aligned; a copy's destination is the thread's offset XOR a constant; the
# ring wait makes the copies visible to the async proxy before the barrier.
# The accumulator chain overlaps: each iteration's wgmma group may still run
# when the next starts (wait_group 1), so the copies (two iterations ahead:
# the ring wait leaves one group pending) go after the wgmma, behind a CTA
# barrier, into the slot the previous iteration read, which every
# warpgroup's wait has then retired; the loop's exit waits for the last
# group before anything reads the accumulator.
# F16: .extern .shared .align 1024 .b8 tessera_smem[];
# The warp index is shuffled from lane 0 so ptxas sees it warp-uniform and
# builds the warpgroups' descriptors in uniform registers.
# F16: shr.u32 [[W:%r[0-9]+]], %r{{[0-9]+}}, 5;
# F16-NEXT: shfl.sync.idx.b32 %r{{[0-9]+}}, [[W]], 0, 31, -1;
# F16: xor.b32
# F16: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}}
# F16: [[HEAD:\$L[0-9]+]]:
# F16: cp.async.wait_group 1
# F16-NEXT: fence.proxy.async.shared::cta
# F16-NEXT: bar.sync 0
# F16: wgmma.fence.sync.aligned
# F16: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%f{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1, 0, 1;
# F16: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
# F16-NOT: wgmma.mma_async
# F16: wgmma.commit_group.sync.aligned
# F16-NEXT: wgmma.wait_group.sync.aligned 1
# F16-NOT: cp.async.cg
# F16: bar.sync 0
# F16-NOT: mov.f32
# F16: cp.async.cg.shared.global
# F16: cp.async.commit_group
# F16-NOT: mov.f32
# F16: bra [[HEAD]]
# F16-NEXT: $L{{[0-9]+}}:
# F16-NEXT: wgmma.wait_group.sync.aligned 0
# F16-NOT: mma.sync
# F16-NOT: ldmatrix
# The epilogue leaves the fragments (2 elements per thread per row)
# through shared memory, rows padded by 16 bytes (128 x 128 fp16 = 256-byte
# rows, pitch 272), and stores 16 bytes per thread.
# F16: bar.sync 0
# F16: st.shared.b32
# F16: bar.sync 0
# F16: ld.shared.v4.b32 {[[W0:%r[0-9]+]], [[W1:%r[0-9]+]], [[W2:%r[0-9]+]], [[W3:%r[0-9]+]]}
# F16-NOT: st.global.b32
# F16-NOT: st.global.b16
# The words read from shared memory are stored as they are (not split into
# halves and packed again).
# F16: st.global.v4.b32 [%rd{{[0-9]+}}], {[[W0]], [[W1]], [[W2]], [[W3]]}
# F16-NOT: st.global.b32
# F16-NOT: st.global.b16

# The example's masked loads are boxes (descriptors-from-pointers): both
# rings fill by bulk tensor copies through maps the kernel makes, and no
# thread copies an operand.
# F16-TMA: tensormap.replace.tile.global_address
# F16-TMA: tensormap.replace.tile.global_address
# F16-TMA: cp.async.bulk.tensor.2d
# F16-TMA: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
# F16-TMA-NOT: cp.async.cg
# F16-TMA-NOT: ld.global

# K not known to be a multiple of 16: A's K mask is a prefix of each run of
# 8 (mask_prefix.h), so A still travels by 16-byte copies (each reading the
# run's in-bounds elements and zero-filling the rest) and the dot stays on
# wgmma from swizzled shared memory.
# RAGGED: min.u32 [[N:%r[0-9]+]], %r{{[0-9]+}}, 8
# RAGGED-NEXT: shl.b32 [[N]], [[N]], 1
# RAGGED-NEXT: selp.u32 [[SIZE:%r[0-9]+]], [[N]], 0, %p{{[0-9]+}}
# RAGGED-NEXT: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, [[SIZE]]
# RAGGED-NOT: ld.global
# RAGGED: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
# RAGGED-NOT: ld.global

# fp8 with B stored K-major (column-major B): m64n128k32, no transposes;
# both operands by the copy engine, B's map made over its [N, K] storage
# (maps made in the kernel need PTX 8.6).
# FP8: .version 8.6
# FP8: cp.async.bulk.tensor.2d
# FP8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {%f{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1;
# FP8-NOT: mma.sync

# fp8 with B row-major (N contiguous): wgmma cannot transpose 8-bit
# operands, so the dot stays on mma.sync.
# (Nor does the ring need the async-proxy fence: no wgmma reads it.)
# FP8-MN-NOT: wgmma
# FP8-MN-NOT: fence.proxy.async
# FP8-MN: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32

# Plain sm_90 (no `a`): no wgmma.
# SM90-NOT: wgmma
# SM90: mma.sync.aligned.m16n8k16

# The operands' rings: A 128 x 32 with 64-byte rows (64-byte swizzle), B
# 32 x 128 N-contiguous (128-byte swizzle); the accumulator in the wgmma
# layout: per warp 16 rows of 16 x 8 fragments, warps 16 and 32 rows apart,
# the second warpgroup 64 rows down.
# LAYOUT: local_alloc : memdesc<3x128x32xf16, #"shared<contig=1, swizzle=64>">
# LAYOUT: local_alloc : memdesc<3x32x128xf16, #"shared<contig=1, swizzle=128>">
# LAYOUT: dot {{.*}} : tile<128x128xf32, #"linear<reg=[1:1,0:8,1:8,1:16,1:32,1:64], lane=[1:2,1:4,0:1,0:2,0:4], warp=[0:16,0:32,0:64]>">
