# rotate-dot-loops on sm_90a: attention's forward loop runs P V one
# iteration late. After a first iteration's Q K^T and softmax (before the
# loop), each iteration issues Q K_j^T, then P_{j-1} V_{j-1} (P from
# registers), and the softmax waits for the first group only (wait_group 1)
# while P V runs on; the accumulator's rescaling waits for it (wait_group 0),
# and only then, behind a CTA barrier, do the tensor copies refill the ring
# slot P V read. The last P V follows the loop. With 128x64 tiles on 4
# warps S takes 64 registers a thread and the loop is not rotated: each
# product is waited for as it is issued (S, P and the accumulator would
# hold 224). 128x128 tiles on 8 warps (64 + 32 + 64 = 160) rotate with 3
# stages, not with 2 (the delayed P V would hold one of only two slots).
# No loop rotates with 2 stages, and a large S only where Q K^T reduces
# over 128 or more (at D 64, 128x64 on 4 warps measured slower rotated).
# RUN: tesserac compile %S/../python/package/kernels/flash_attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, 1, i32, 1024, 128, 64, 64, 1" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 -o %t.rotated.ptx
# RUN: FileCheck %s --check-prefix=ROTATED < %t.rotated.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.rotated.ptx -o %t.rotated.cubin
# RUN: tesserac compile %S/../python/package/kernels/flash_attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, 1, i32, 1024, 128, 128, 64, 1" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=PLAIN
# RUN: tesserac compile %S/../python/package/kernels/flash_attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, 1, i32, 1024, 128, 128, 128, 1" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.wide.ptx
# RUN: FileCheck %s --check-prefix=WIDE < %t.wide.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.wide.ptx -o %t.wide.cubin
# RUN: tesserac compile %S/../python/package/kernels/flash_attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, 1, i32, 1024, 128, 128, 128, 1" --emit ptx --target sm_90a --num-warps 8 --num-stages 2 | FileCheck %s --check-prefix=TWOSLOTS
# RUN: tesserac compile %S/../python/package/kernels/flash_attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, 1, i32, 1024, 128, 64, 64, 1" --emit ttgir --target sm_90a --num-warps 4 --num-stages 2 | FileCheck %s --check-prefix=UNROTATED
# RUN: tesserac compile %S/../python/package/kernels/flash_attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, 1, i32, 1024, 64, 128, 64, 1" --emit ttgir --target sm_90a --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=UNROTATED
# RUN: tesserac compile %S/../python/package/kernels/flash_attention.py --kernel attention_fwd_kernel --signature "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, 1, i32, 1024, 128, 64, 64, 1" --emit ptx --target sm_80 --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=SM80
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel streamed_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32, 64, 64, 64" --emit ttgir --target sm_90a --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=STREAMED
# RUN: tesserac compile %S/../python/kernels/dots.py --kernel streamed_attention_kernel --signature "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32, 32, 64, 64" --emit ttgir --target sm_90a --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=NARROW

# The first iteration, peeled: Q K_0^T, waited for, its softmax.
# ROTATED: mbarrier.try_wait.parity
# ROTATED: wgmma.mma_async.sync.aligned.m64n64k16
# ROTATED: wgmma.commit_group.sync.aligned
# ROTATED-NOT: {{ex2|mul.f32}}
# ROTATED: wgmma.wait_group.sync.aligned 0
# ROTATED: ex2.approx.f32
# ROTATED-NOT: m64n128k16
# The loop: Q K_j^T and P_{j-1} V_{j-1} in flight, softmax after the first.
# ROTATED: mbarrier.try_wait.parity
# ROTATED: wgmma.mma_async.sync.aligned.m64n64k16
# ROTATED: wgmma.commit_group.sync.aligned
# ROTATED-NOT: wgmma.wait_group
# ROTATED: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}
# ROTATED: wgmma.commit_group.sync.aligned
# ROTATED-NOT: {{ex2|mul.f32}}
# ROTATED: wgmma.wait_group.sync.aligned 1
# ROTATED: ex2.approx.f32
# ROTATED: wgmma.wait_group.sync.aligned 0
# ROTATED: bar.sync 0
# ROTATED: cp.async.bulk.tensor.2d
# ROTATED: bra
# The last P V, after the loop.
# ROTATED: wgmma.mma_async.sync.aligned.m64n128k16
# ROTATED: wgmma.commit_group.sync.aligned
# ROTATED-NOT: {{ex2|mul.f32}}
# ROTATED: wgmma.wait_group.sync.aligned 0

# 128x128 on 8 warps, 3 stages: rotated, as above.
# WIDE: wgmma.mma_async.sync.aligned.m64n128k16
# WIDE: wgmma.wait_group.sync.aligned 0
# WIDE: ex2.approx.f32
# WIDE: wgmma.commit_group.sync.aligned
# WIDE-NOT: wgmma.wait_group
# WIDE: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}
# WIDE: wgmma.commit_group.sync.aligned
# WIDE: wgmma.wait_group.sync.aligned 1
# WIDE: ex2.approx.f32
# WIDE: wgmma.wait_group.sync.aligned 0

# With 2 stages: each product waited for as it is issued.
# TWOSLOTS-NOT: wgmma.wait_group.sync.aligned 1
# TWOSLOTS: wgmma.commit_group.sync.aligned
# TWOSLOTS-NEXT: wgmma.wait_group.sync.aligned 0
# TWOSLOTS: ex2.approx.f32
# TWOSLOTS: wgmma.commit_group.sync.aligned
# TWOSLOTS-NEXT: wgmma.wait_group.sync.aligned 0
# TWOSLOTS-NOT: wgmma.wait_group.sync.aligned 1

# PLAIN-NOT: wgmma.wait_group.sync.aligned 1
# PLAIN: wgmma.mma_async.sync.aligned.m64n64k16
# PLAIN: wgmma.commit_group.sync.aligned
# PLAIN-NOT: {{ex2|mul.f32}}
# PLAIN: wgmma.wait_group.sync.aligned 0
# PLAIN: wgmma.mma_async.sync.aligned.m64n128k16
# PLAIN: wgmma.commit_group.sync.aligned
# PLAIN-NOT: {{ex2|mul.f32}}
# PLAIN: wgmma.wait_group.sync.aligned 0
# PLAIN-NOT: wgmma.wait_group.sync.aligned 1

# 64x64 on 4 warps with 2 stages, and 128x64 on 4 warps at D 64 with 3:
# the loop as pipeline-dot-operands made it, its dots waited for in place.
# UNROTATED-NOT: wait_on_use
# UNROTATED: = for
# UNROTATED: = dot
# UNROTATED: = dot
# UNROTATED-NOT: wait_on_use

# mma.sync runs as it is issued: nothing to rotate.
# SM80-NOT: wgmma
# SM80: mma.sync.aligned.m16n8k16

# streamed_attention_kernel (tests/python/kernels/dots.py) reads Q again
# each iteration, so both operands of Q K^T come from rings. 64 rows on 4
# warps: both products on wgmma, the loop rotated.
# STREAMED: = if
# STREAMED: = for
# STREAMED: dot {{.*}}wait_on_use = 1
# STREAMED-NEXT: dot {{.*}}wait_on_use = 1

# 32 rows: mma.sync (wgmma tiles are 64 rows), whose Q K^T prefetches its
# first K step's fragments from the next slot; the loop is left as
# pipeline-dot-operands made it.
# NARROW-NOT: wait_on_use
# NARROW-NOT: = if
# NARROW: = dot {{.*}}prefetch_pending = 1
# NARROW-NOT: wait_on_use
# NARROW-NOT: = if
