# The tensor memory accelerator on sm_90a: a matmul whose operands come from
# host tensor descriptors (TensorDescriptor arguments) fills its shared
# rings with bulk tensor copies (cp.async.bulk.tensor) that complete on one
# mbarrier per slot, and the dots read the rings on wgmma. The tensor maps
# are 128-byte parameters after the kernel's own, which the runtime builds
# from the header lines; everything assembles with ptxas.
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 64]>:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64, 0" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.ptx
# RUN: FileCheck %s --check-prefix=TMA < %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<bf16[64, 64]>:16:nan, tensordesc<bf16[64, 128]>:16:nan, *fp32:16, i32:16, i32:16, i32:16, 64, 128, 64, 1" --emit ptx --target sm_90a --num-warps 4 --num-stages 4 -o %t.kn.ptx
# RUN: FileCheck %s --check-prefix=KN < %t.kn.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.kn.ptx -o %t.kn.cubin
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 64]>:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64, 0" --emit ttgir --target sm_90a --num-warps 8 --num-stages 3 | FileCheck %s --check-prefix=IR
# Where the copy engine does not serve the loads, they stay masked loads
# staged by cp.async: sm_80 and sm_90 (no wgmma), one stage (no ring), a
# base not known to be 16-byte aligned.
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 64]>:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64, 0" --emit ptx --target sm_80 --num-warps 8 | FileCheck %s --check-prefix=NO-TMA
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 64]>:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64, 0" --emit ptx --target sm_90 --num-warps 8 | FileCheck %s --check-prefix=NO-TMA
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 64]>:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64, 0" --emit ptx --target sm_90a --num-warps 8 --num-stages 1 | FileCheck %s --check-prefix=NO-TMA
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64, 0" --emit ptx --target sm_90a --num-warps 8 | FileCheck %s --check-prefix=NO-TMA
# Narrower rows take the 64- and 32-byte swizzles (boxes as wide as the
# rows), fp8 (K-major) its bytes as UINT8 (0).
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<fp16[64, 32]>:16, tensordesc<fp16[128, 32]>:16, *fp16:16, i32:16, i32:16, i32:16, 64, 128, 32, 0" --emit ptx --target sm_90a --num-warps 4 -o %t.64.ptx
# RUN: FileCheck %s --check-prefix=SW64 < %t.64.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.64.ptx -o %t.64.cubin
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<fp16[64, 16]>:16, tensordesc<fp16[128, 16]>:16, *fp16:16, i32:16, i32:16, i32:16, 64, 128, 16, 0" --emit ptx --target sm_90a --num-warps 4 | FileCheck %s --check-prefix=SW32
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<fp8e4nv[64, 128]>:16, tensordesc<fp8e4nv[128, 128]>:16, *fp16:16, i32:16, i32:16, i32:16, 64, 128, 128, 0" --emit ptx --target sm_90a --num-warps 4 -o %t.fp8.ptx
# RUN: FileCheck %s --check-prefix=FP8 < %t.fp8.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.fp8.ptx -o %t.fp8.cubin
# The kernels are the GPU suite's (tests/gpu/test_tma_gpu.py), by name.
# The copy engine needs the innermost coordinate 16-byte aligned (else an
# illegal instruction): loads 3 halves into each K step take the pointer
# path, 8 halves keep the copy engine (tests/gpu/test_tma_gpu.py runs both).
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul_k_shift --signature "tensordesc<fp16[64, 64]>:16, tensordesc<fp16[128, 64]>:16, *fp32:16, i32:16, i32:16, i32:16, 3, 64, 128, 64" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=K-SHIFT-3 --implicit-check-not=cp.async.bulk.tensor
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul_k_shift --signature "tensordesc<fp16[64, 64]>:16, tensordesc<fp16[128, 64]>:16, *fp32:16, i32:16, i32:16, i32:16, 8, 64, 128, 64" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=K-SHIFT-8

# One tensor map per descriptor: its base parameter, its rank, the
# CUtensorMapDataType (6: fp16), the box innermost first (64 halves = the
# 128-byte swizzle, 128 rows), the swizzle (3: 128 bytes) and the fill (0:
# zeros). They are 64-byte aligned 128-byte parameters after the kernel's
# own.
# TMA: // tessera.tensormap = 0 2 6 64 128 3 0
# TMA-NEXT: // tessera.tensormap = 4 2 6 64 128 3 0
# TMA: .version 8.0
# TMA: .param .u32 desc_matmul_param_11,
# TMA-NEXT: .param .align 64 .b8 desc_matmul_param_12[128],
# TMA-NEXT: .param .align 64 .b8 desc_matmul_param_13[128]
# The copying thread is the lane elect.sync picks in warp 0 (lane 0), so
# that ptxas knows one thread of a uniform warp issues each tensor copy
# (under tid == 0 it looped over the active threads around each one).
# TMA: elect.sync %r{{[0-9]+}}|[[ELECTED:%p[0-9]+]], -1;
# TMA-NEXT: and.pred [[FIRST:%p[0-9]+]], %p{{[0-9]+}}, [[ELECTED]];
# TMA: mov.u64 [[MAPA:%rd[0-9]+]], desc_matmul_param_12;
# TMA-NEXT: cvta.param.u64 [[MAPA]], [[MAPA]];
# Thread 0 initialises one barrier per slot (3 stages), fences the
# initialisation, and the CTA barrier publishes it.
# TMA: @[[FIRST]] mbarrier.init.shared::cta.b64 [[[BARS:%r[0-9]+]]+0], 1;
# TMA: mbarrier.init.shared::cta.b64 [[[BARS]]+16], 1;
# TMA-NEXT: fence.mbarrier_init.release.cluster;
# TMA-NEXT: fence.proxy.async.shared::cta;
# TMA-NEXT: bar.sync 0;
# With two warpgroups, a second barrier per slot releases it: every thread
# (256) arrives on it once it is done reading the slot.
# TMA: mbarrier.init.shared::cta.b64 [[[FREED:%r[0-9]+]]+0], 256;
# TMA: mbarrier.init.shared::cta.b64 [[[FREED]]+16], 256;
# TMA-NEXT: fence.mbarrier_init.release.cluster;
# The prologue copies iterations 0 and 1: both operands on one barrier,
# which expects their 32768 bytes; coordinates innermost first.
# TMA: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], 32768;
# TMA-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [[[MAPA]], {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}];
# TMA: cp.async.bulk.tensor.2d
# TMA: mbarrier.arrive.expect_tx
# TMA: cp.async.bulk.tensor.2d
# TMA: cp.async.bulk.tensor.2d
# In the loop: the wait for this iteration's slot, the wgmma (its group
# left running: wait_group 1 retires the previous iteration's), then the
# release of the previous iteration's slot (no warpgroup reads it any more):
# every thread arrives, thread 0 alone waits for all of them (its warp
# reconverging after), no CTA barrier; then the copies two iterations ahead
# into it.
# TMA: [[HEAD:\$L[0-9]+]]:
# TMA: [[SPIN:\$L[0-9]+]]:
# TMA-NEXT: mbarrier.try_wait.parity.shared::cta.b64 [[DONE:%p[0-9]+]], [{{%r[0-9]+}}], [[PHASE:%r[0-9]+]];
# TMA-NEXT: @![[DONE]] bra [[SPIN]];
# TMA: wgmma.mma_async
# TMA: wgmma.commit_group.sync.aligned;
# TMA-NEXT: wgmma.wait_group.sync.aligned 1;
# TMA-NOT: bar.sync
# TMA: mbarrier.arrive.shared::cta.b64 _, [[[SLOT:%r[0-9]+]]];
# TMA-NOT: bar.sync
# TMA: @!%p0 bra [[PAST:\$L[0-9]+]];
# TMA-NEXT: [[RSPIN:\$L[0-9]+]]:
# TMA-NEXT: mbarrier.try_wait.parity.shared::cta.b64 [[RDONE:%p[0-9]+]], [{{%r[0-9]+}}], [[PHASE]];
# TMA-NEXT: @![[RDONE]] bra [[RSPIN]];
# TMA-NEXT: [[PAST]]:
# TMA-NEXT: bar.warp.sync -1;
# TMA-NOT: bar.sync
# TMA: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], 32768;
# TMA: cp.async.bulk.tensor.2d
# TMA: cp.async.bulk.tensor.2d
# TMA-NOT: bar.sync
# TMA: bra [[HEAD]]
# After the loop both sets of barriers are invalidated before the area is
# reused.
# TMA: bar.sync 0;
# TMA-NEXT: @%p{{[0-9]+}} mbarrier.inval.shared::cta.b64 [[[FREED]]+0];
# TMA: bar.sync 0;
# TMA-NEXT: @%p{{[0-9]+}} mbarrier.inval.shared::cta.b64 [[[BARS]]+0];
# TMA-NOT: cp.async.cg
# TMA-NOT: cp.async.wait_group

# B with N contiguous: [64, 128] bf16 is two 128-byte column blocks, two
# messages 8192 bytes apart with the inner coordinate 64 apart; NaN fill
# (fill 1, bf16 is 9).
# KN: // tessera.tensormap = 0 2 9 64 64 3 1
# KN-NEXT: // tessera.tensormap = 4 2 9 64 64 3 1
# KN: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], 24576;
# KN: add.u32 {{%r[0-9]+}}, [[SLOT:%r[0-9]+]], 8192;
# KN-NEXT: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 64;
# KN: wgmma.mma_async
# One warpgroup keeps the CTA barrier: it is the warpgroup's own.
# KN: bar.sync 0;
# KN: mbarrier.arrive.expect_tx
# KN-NOT: mbarrier.arrive.shared

# The Tile IR of the loop: the rings, the barriers, the copies with their
# coordinates (outermost first) and the carried phase.
# IR: local_alloc : memdesc<3x128x64xf16, #"shared<contig=1, swizzle=128>">
# IR: %[[BARS:[0-9]+]] = barrier_alloc {count = 3} : i32
# IR-NEXT: %[[FREED:[0-9]+]] = barrier_alloc {arrivals = 256, count = 3} : i32
# IR: tma_copy {{.*}}, %[[BARS]], {{.*}} {expect = 32768, padding = "zero", tensormap = 0}
# IR: tma_copy {{.*}}, %[[BARS]], {{.*}} {expect = 0, padding = "zero", tensormap = 4}
# IR: for
# IR: barrier_wait %[[BARS]], %[[READ:[0-9]+]], %[[PHASE:[0-9]+]]
# IR: memdesc_trans
# IR: dot {{.*}}overlap = 1
# IR: barrier_arrive %[[FREED]], %[[WRITE:[0-9]+]]
# IR-NEXT: barrier_wait %[[FREED]], %[[WRITE]], %[[PHASE]] {first_thread = 1}
# IR: tma_copy
# IR: xor
# IR: yield
# IR: barrier_dealloc %[[FREED]]
# IR-NEXT: barrier_dealloc %[[BARS]]
# IR-NOT: descriptor_load

# SW64: // tessera.tensormap = 0 2 6 32 64 2 0
# SW64-NEXT: // tessera.tensormap = 4 2 6 32 128 2 0
# SW64: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], 12288;
# SW64: wgmma.mma_async
# SW32: // tessera.tensormap = 0 2 6 16 64 1 0
# SW32-NEXT: // tessera.tensormap = 4 2 6 16 128 1 0
# FP8: // tessera.tensormap = 0 2 0 128 64 3 0
# FP8-NEXT: // tessera.tensormap = 4 2 0 128 128 3 0
# FP8: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], 24576;
# FP8: wgmma.mma_async.sync.aligned.{{.*}}.e4m3.e4m3

# NO-TMA-NOT: cp.async.bulk
# NO-TMA-NOT: mbarrier
# NO-TMA-NOT: .b8 desc_matmul_param_{{[0-9]+}}[128]
# NO-TMA: .entry desc_matmul

# K-SHIFT-3: mma.sync
# K-SHIFT-8: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
