# A persistent kernel's loop over tiles around a loop of tensor copies
# (pipeline-dot-operands' ringsOutlive): the rings and their barriers are
# made once, before the loop over tiles, which carries the ring's position
# from one tile's loop to the next; each tile's first copies wait for their
# slots' release. Marked warp_specialize, the producer runs the loop over
# tiles too, so it copies the next tile's K and V while the consumers finish
# this one. Only there: unmarked, the loop's rings stay in the tile, as do
# rings of more than half a block's shared memory (128x128 tiles at 3
# stages: the epilogue's scratch would not fit beside them). (The kernel: tests/gpu/test_persistent_gpu.py, which runs
# it.)
# RUN: tesserac compile %S/../gpu/test_persistent_gpu.py --kernel persistent_attention --signature "tensordesc<fp16[128, 128]>:16, tensordesc<fp16[64, 128]>:16, tensordesc<fp16[64, 128]>:16, tensordesc<fp16[128, 128]>:16, i32, i32, fp32, 128, 64, 128, 1" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.ws.ptx
# RUN: FileCheck %s --check-prefix=SPLIT < %t.ws.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ws.ptx -o %t.ws.cubin
# RUN: tesserac compile %S/../gpu/test_persistent_gpu.py --kernel persistent_attention --signature "tensordesc<fp16[128, 128]>:16, tensordesc<fp16[64, 128]>:16, tensordesc<fp16[64, 128]>:16, tensordesc<fp16[128, 128]>:16, i32, i32, fp32, 128, 64, 128, 0" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.one.ptx
# RUN: FileCheck %s --check-prefix=ONE < %t.one.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.one.ptx -o %t.one.cubin
# RUN: tesserac compile %S/../gpu/test_persistent_gpu.py --kernel persistent_attention --signature "tensordesc<fp16[128, 128]>:16, tensordesc<fp16[128, 128]>:16, tensordesc<fp16[128, 128]>:16, tensordesc<fp16[128, 128]>:16, i32, i32, fp32, 128, 128, 128, 1" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.large.ptx
# RUN: FileCheck %s --check-prefix=LARGE < %t.large.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.large.ptx -o %t.large.cubin

# Split: the barriers are made once, before the split; the producer's loop
# over tiles waits for a slot's release before each of a tile's first
# copies, then runs the tile's loop of copies.
# SPLIT: // tessera.producer_warps = 1
# SPLIT: mbarrier.init.shared::cta.b64 {{.*}}, 1;
# SPLIT: mbarrier.init.shared::cta.b64 {{.*}}, 256;
# SPLIT-NOT: $L
# SPLIT: setp.ge.u32 [[PRODUCER:%p[0-9]+]], %r0, 256;
# SPLIT-NEXT: @[[PRODUCER]] bra [[PRODUCE:\$L[0-9]+]];
# SPLIT-NOT: mbarrier.init
# SPLIT: [[PRODUCE]]:
# SPLIT: [[TILES:\$L[0-9]+]]:
# SPLIT: mbarrier.try_wait.parity.shared::cta.b64
# SPLIT: cp.async.bulk.tensor
# SPLIT: bra [[TILES]];
# SPLIT: ret;

# Unmarked: not split, the barriers made in each tile, as before.
# ONE-NOT: producer_warps
# ONE: [[TILES:\$L[0-9]+]]:
# ONE: mbarrier.init.shared::cta.b64
# ONE: cp.async.bulk.tensor
# ONE: mbarrier.inval
# ONE: bra [[TILES]];

# 192 KiB of rings: made in each tile, the loop as it was (not split).
# LARGE-NOT: producer_warps
# LARGE: [[TILES:\$L[0-9]+]]:
# LARGE: mbarrier.init.shared::cta.b64
# LARGE: cp.async.bulk.tensor
# LARGE: mbarrier.inval
# LARGE: bra [[TILES]];
