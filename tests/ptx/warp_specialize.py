# warp-specialize on sm_90a: a loop marked tl.range(..., warp_specialize=True)
# whose K and V rings fill by tensor copies gets a producer warp: it builds
# the tensor maps, waits for each slot's release and issues the copies,
# while the consumers only wait for data and arrive on the releases,
# synchronising among themselves on named barrier 1. Where the loop was
# rotated with a large S on two consumer warpgroups (128x128 tiles on 8
# warps, 3 stages), a producer warpgroup instead, which hands its registers
# to the consumers with setmaxnreg.
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 128, 128, 128, 1" --emit ptx --target sm_90a --num-warps 8 --num-stages 2 -o %t.ws8.ptx
# RUN: FileCheck %s --check-prefix=WS8 < %t.ws8.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ws8.ptx -o %t.ws8.cubin
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 128, 128, 128, 1" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.wg.ptx
# RUN: FileCheck %s --check-prefix=WG < %t.wg.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a -v %t.wg.ptx -o %t.wg.cubin 2>&1 | FileCheck %s --check-prefix=WG-PTXAS
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 128, 128, 128, 0" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.unasked.ptx
# RUN: cmp %t.wg.ptx %t.unasked.ptx
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 128, 128, 128, 0" --emit ptx-unspecialized --target sm_90a --num-warps 8 --num-stages 3 | FileCheck %s --check-prefix=OFF
# RUN: tesserac compile %S/../../examples/attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 128, 128, 128, 1, 1" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.causal-wg.ptx
# RUN: tesserac compile %S/../../examples/attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 128, 128, 128, 1, 0" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.causal-unasked.ptx
# RUN: cmp %t.causal-wg.ptx %t.causal-unasked.ptx
# RUN: FileCheck %s --check-prefix=WG < %t.causal-wg.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a -v %t.causal-wg.ptx -o %t.causal-wg.cubin 2>&1 | FileCheck %s --check-prefix=WG-PTXAS
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 64, 64, 128, 1" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 -o %t.ws4.ptx
# RUN: FileCheck %s --check-prefix=WS4 < %t.ws4.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ws4.ptx -o %t.ws4.cubin
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 128, 128, 128, 1" --emit ttgir --target sm_90a --num-warps 8 --num-stages 2 | FileCheck %s --check-prefix=SPLIT
# RUN: tesserac compile %S/../gpu/test_tma_gpu.py --kernel desc_matmul --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 64]>:16, *fp16:16, i32, i32, i32, 128, 128, 64, 0, 1" --emit ptx --target sm_90a --num-warps 8 --num-stages 4 -o %t.matmul.ptx
# RUN: FileCheck %s --check-prefix=MATMUL < %t.matmul.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.matmul.ptx -o %t.matmul.cubin
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 64, 64, 128, 1" --emit ttgir --target sm_90a --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=PEELED
# RUN: tesserac compile %S/../../examples/attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 128, 128, 128, 1, 1" --emit ptx --target sm_90a --num-warps 8 --num-stages 2 -o %t.causal.ptx
# RUN: FileCheck %s --check-prefix=CAUSAL < %t.causal.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.causal.ptx -o %t.causal.cubin
# RUN: tesserac compile %S/../../examples/attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 128, 128, 128, 1, 1" --emit ptx-unspecialized --target sm_90a --num-warps 8 --num-stages 2 -o %t.twin.ptx
# RUN: FileCheck %s --check-prefix=TWIN < %t.twin.ptx
# The copying thread is tid == 32 * lead warp in a warp-specialized kernel
# (elect.sync measured slower there), the lane elect.sync picks in its twin.
# RUN: ! grep -q elect.sync %t.causal.ptx
# RUN: grep -q elect.sync %t.twin.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.twin.ptx -o %t.twin.cubin
# RUN: ! tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 128, 128, 128, 0" --emit ptx-unspecialized --target sm_90a --num-warps 8 --num-stages 2 > %t.no-twin 2>&1
# RUN: FileCheck %s --check-prefix=NO-TWIN < %t.no-twin
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 128, 128, 128, 0" --emit ptx --target sm_90a --num-warps 8 --num-stages 2 | FileCheck %s --check-prefix=OFF
# RUN: tesserac compile %s --kernel pipelined_then_marked --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 64]>:16, *fp16:16, *fp16:16, *fp32:16, i32, i32, i32:16, 128, 128, 64" --emit ptx --target sm_90a --num-warps 8 --num-stages 4 | FileCheck %s --check-prefix=OFF
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 128, 128, 128, 1" --emit ptx --target sm_90a --num-warps 32 --num-stages 2 | FileCheck %s --check-prefix=OFF
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel descriptor_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 64, 64, 64, 1" --emit ptx --target sm_80 --num-warps 4 --num-stages 3 -o %t.sm80.ptx
# RUN: FileCheck %s --check-prefix=OFF < %t.sm80.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin

# The launch counts the producer warp.
# WS8: // tessera.num_warps = 8
# WS8-NEXT: // tessera.producer_warps = 1
# WS8: .maxntid 288, 1, 1
# WS8-NOT: maxnreg
# Before the split every thread initialises and publishes the barriers.
# WS8: mbarrier.init.shared::cta.b64 {{.*}}, 1;
# WS8: mbarrier.init.shared::cta.b64 {{.*}}, 256;
# WS8: bar.sync 0;
# WS8: setp.ge.u32 [[PRODUCER:%p[0-9]+]], %r0, 256;
# WS8-NEXT: @[[PRODUCER]] bra [[PRODUCE:\$L[0-9]+]];
# The consumers: no copy, no tensor map, no CTA-wide barrier.
# WS8-NOT: cp.async.bulk.tensor
# WS8-NOT: tensormap.replace
# WS8-NOT: bar.sync 0
# WS8: mbarrier.arrive.shared::cta.b64
# WS8: mbarrier.try_wait.parity
# WS8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
# WS8: bar.sync 1, 256;
# WS8: [[PRODUCE]]:
# WS8-NOT: wgmma
# WS8: tensormap.replace.tile.global_address
# WS8: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], 65536;
# WS8: cp.async.bulk.tensor.2d
# In the loop, the release wait where a copy follows, then the copies.
# WS8: mbarrier.try_wait.parity
# WS8: mbarrier.arrive.expect_tx
# WS8: cp.async.bulk.tensor.2d
# WS8-NOT: wgmma
# WS8: ret;

# Not marked, the same kernel is split all the same (its copying loop
# rotated with a large S on two warpgroups: the producer warpgroup measured
# faster), into the same PTX, and so is the causal example's (two copying
# loops, one after the other); the twin is not split.
# The producer warpgroup: 12 warps launched (ptxas allocates 168 registers
# a thread), the consumers raise theirs to 240 before anything else, the
# producers lower theirs to 24 before three of their warps end.
# WG: // tessera.producer_warps = 4
# WG: .maxntid 384, 1, 1
# WG: setp.ge.u32 [[PRODUCER:%p[0-9]+]], %r0, 256;
# WG-NEXT: @[[PRODUCER]] bra [[PRODUCE:\$L[0-9]+]];
# WG-NEXT: setmaxnreg.inc.sync.aligned.u32 240;
# WG: wgmma.wait_group.sync.aligned 1
# WG: [[PRODUCE]]:
# WG-NEXT: setmaxnreg.dec.sync.aligned.u32 24;
# WG-NEXT: setp.ne.u32 [[NOTLEAD:%p[0-9]+]], %r{{[0-9]+}}, 8;
# WG-NEXT: @[[NOTLEAD]] bra
# WG: cp.async.bulk.tensor.2d
# WG-PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
# WG-PTXAS: Used 168 registers

# One consumer warpgroup, and a loop rotated (rotate-dot-loops): its
# peeled first iteration's copies, in a branch, move too.
# WS4: // tessera.producer_warps = 1
# WS4: .maxntid 160, 1, 1
# WS4: setp.ge.u32 [[PRODUCER:%p[0-9]+]], %r0, 128;
# WS4-NOT: cp.async.bulk.tensor
# WS4: bar.sync 1, 128;
# WS4: cp.async.bulk.tensor.2d
# WS4: ret;

# The Tile IR, allocations first, then the split; the producer's loop carries
# only the slots and phase the copies need, and waits for a release
# only where its copy runs.
# Q's buffer, staged before the loop, stays below the rings (the ring area
# is a stack: above them it would keep a later loop's rings from reusing
# their bytes).
# SPLIT: local_alloc : memdesc<1x128x128xf16
# SPLIT-NEXT: local_alloc : memdesc<2x128x128xf16
# SPLIT-NEXT: local_alloc : memdesc<2x128x128xf16
# SPLIT-NEXT: barrier_alloc {count = 2}
# SPLIT-NEXT: barrier_alloc {arrivals = 256, count = 2}
# SPLIT-NEXT: warp_specialize {producer_warps = 1} {
# SPLIT-NOT: tma_copy
# SPLIT-NOT: first_thread
# SPLIT: for {{.*}} {warp_specialize = 1}
# SPLIT: barrier_arrive
# SPLIT: barrier_wait
# SPLIT-NOT: tma_copy
# SPLIT: store
# SPLIT-NEXT: yield
# SPLIT-NEXT: } {
# SPLIT: tensormap_create
# SPLIT: tma_copy {{.*}} {expect = 65536
# SPLIT: for {{.*}} : i32, i32, i32 {
# SPLIT: if [[RUNS:%[0-9]+]] {
# SPLIT-NEXT: barrier_wait {{.*}} {first_thread = 1}
# SPLIT: tma_copy {{.*}}, [[RUNS]], {{.*}} {expect = 65536

# The rotated loop in the producer: the peeled first iteration (in the
# branch that the loop runs at all) and the loop in it.
# PEELED: warp_specialize {producer_warps = 1} {
# PEELED-NOT: tma_copy
# PEELED: } {
# PEELED: if
# PEELED: barrier_wait {{.*}} {first_thread = 1}
# PEELED: tma_copy
# PEELED: for
# PEELED: barrier_wait {{.*}} {first_thread = 1}
# PEELED: tma_copy

# A matmul's K loop with host descriptors: the maps are kernel parameters,
# and the producer warp copies from them.
# MATMUL: // tessera.producer_warps = 1
# MATMUL: .maxntid 288, 1, 1
# MATMUL-NOT: cp.async.bulk.tensor
# MATMUL: wgmma.mma_async
# MATMUL: cp.async.bulk.tensor.2d
# MATMUL-NOT: wgmma
# MATMUL: ret;

# Unmarked, 32 warps (no room for a 33rd in a block), an earlier loop's
# rings freed before the marked loop's (hoisted, they would live on beneath
# them: 256 KiB of shared memory where 128 do), or no tensor copies to take
# (sm_80's cp.async rings): no split.
# OFF-NOT: producer_warps
# OFF-NOT: bar.sync 1
# OFF: ret;

import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def pipelined_then_marked(a_desc, b_desc, x_ptr, y_ptr, c_ptr, M, N, K, BM: tl.constexpr,
                          BN: tl.constexpr, BK: tl.constexpr):
    # A cp.async-pipelined loop, then a marked loop of tensor copies whose
    # rings reuse the first loop's bytes.
    rk, rm, rn = tl.arange(0, BK), tl.arange(0, BM), tl.arange(0, BN)
    first = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(y_ptr + (k + rk)[:, None] * N + rn[None, :])
        first = tl.dot(x, y, first)
    second = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([tl.program_id(0) * BM, k * BK])
        b = b_desc.load([tl.program_id(1) * BN, k * BK]).T
        second = tl.dot(a, b, second)
    rows = tl.program_id(0) * BM + rm
    tl.store(c_ptr + rows, tl.sum(first + second, 1), mask=rows < M)


# The example's causal attention: its two marked loops, one after the other,
# copy into one set of rings (the shared memory of the kernel without a
# producer warp, where each loop had rings of its own in the same bytes).
# Where the second loop's rings were allocated, the consumers arrive on a
# barrier of 256 arrivals; the producer waits on it before the second
# loop's first copy.
# Its unspecialised twin (what the loader runs instead where the producer
# warp would spill or cost a block per SM), the kernel compiled unmarked:
# the same copies, issued by the consumers' first thread.
# TWIN: // tessera.num_warps = 8
# TWIN-NOT: producer_warps
# TWIN: // tessera.shared_bytes = 164096
# TWIN: .maxntid 256, 1, 1
# TWIN-NOT: setp.ge.u32 {{%p[0-9]+}}, %r0, 256;
# TWIN: cp.async.bulk.tensor
# TWIN: ret;
# NO-TWIN: error: kernel 'descriptor_attention_kernel' is not warp-specialised
# NO-TWIN-SAME: --emit ptx prints its PTX

# CAUSAL: // tessera.producer_warps = 1
# CAUSAL: // tessera.shared_bytes = 164096
# CAUSAL: .maxntid 288, 1, 1
# CAUSAL: mbarrier.init.shared::cta.b64 [{{%r[0-9]+}}+8], 256;
# CAUSAL-NEXT: fence.mbarrier_init
# CAUSAL: mbarrier.init.shared::cta.b64 [[[READY:%r[0-9]+]]+0], 256;
# CAUSAL-NEXT: fence.mbarrier_init
# CAUSAL: setp.ge.u32 [[PRODUCER:%p[0-9]+]], %r0, 256;
# CAUSAL-NEXT: @[[PRODUCER]] bra
# CAUSAL: mad.lo.u32 [[ARRIVE:%r[0-9]+]], {{%r[0-9]+}}, 8, [[READY]];
# CAUSAL-NEXT: mbarrier.arrive.shared::cta.b64 _, [[[ARRIVE]]];
# CAUSAL: mad.lo.u32 [[WAIT:%r[0-9]+]], {{%r[0-9]+}}, 8, [[READY]];
# CAUSAL: mbarrier.try_wait.parity.shared::cta.b64 {{%p[0-9]+}}, [[[WAIT]]]
# CAUSAL: cp.async.bulk.tensor
# CAUSAL: ret;
