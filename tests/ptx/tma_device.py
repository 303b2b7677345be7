# Tensor descriptors made in the kernel (tl.make_tensor_descriptor) on the
# tensor memory accelerator, sm_90a: the kernel builds each tensor map in a
# 128-byte shared staging buffer (warp 0 zeroes it, thread 0 sets the
# fields with tensormap.replace), copies it to its program's slot of the
# global scratch with the tensormap proxy's release fence, acquires it, and
# the ring copies read it. The scratch and the padding block (an empty
# tensor's map points there) are two .u64 parameters after the kernel's own;
# a header line tells the runtime the scratch bytes per program. Everything
# assembles with ptxas. The kernels are the GPU suite's
# (tests/gpu/test_tma_device_gpu.py), by name.
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel made_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32, i32, i64:16, i64:16, 64, 128, 64, 0, 'zero'" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 -o %t.ptx
# RUN: FileCheck %s --check-prefix=MAKE < %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel made_matmul --signature "*bf16:16, *bf16:16, *fp32:16, i32, i32, i32, i32, i32, i64:16, i64:16, 64, 128, 64, 1, 'nan'" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 -o %t.nan.ptx
# RUN: FileCheck %s --check-prefix=NAN < %t.nan.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.nan.ptx -o %t.nan.cubin
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel made_matmul_persistent --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, 128, 128, 64, 7" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.pers.ptx
# RUN: FileCheck %s --check-prefix=PERS < %t.pers.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.pers.ptx -o %t.pers.cubin
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel made_matmul_grouped --signature "*i64:16, *i64:16, *i64:16, *i32:16, 4, 64, 128, 64, 8, 5" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 -o %t.group.ptx
# RUN: FileCheck %s --check-prefix=GROUP < %t.group.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.group.ptx -o %t.group.cubin
# Block pointers load as descriptor loads: B read through its transpose
# (strides (1, stride_bn), order (0, 1)) is turned into the load of the
# [N, K] block once its loop-carried strides are known, and both rings fill
# by the copy engine with maps made in the kernel.
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel block_ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:1, i32:16, 64, 128, 64, 1, 1" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 -o %t.bp.ptx
# RUN: FileCheck %s --check-prefix=BLOCKPTR < %t.bp.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.bp.ptx -o %t.bp.cubin
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel block_ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:1, i32:16, 64, 128, 64, 1, 1" --emit ttgir --target sm_90a --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=BLOCKPTR-IR
# Where axis info cannot prove the base aligned (the signature says
# nothing of the pointers), the loads stay masked loads.
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel block_ptr_matmul --signature "*fp16, *fp16, *fp32:16, i32, i32, i32, i32:16, i32:1, i32:16, 64, 128, 64, 1, 1" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=NO-TMA-BP
# In the Tile IR, one tensormap_create per descriptor before the loop, each copy
# taking its map as the last operand (no tensormap attribute).
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel made_matmul_persistent --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, 128, 128, 64, 7" --emit ttgir --target sm_90a --num-warps 8 --num-stages 3 | FileCheck %s --check-prefix=IR
# Elsewhere the loads stay masked loads staged by cp.async, and the kernel
# takes no scratch: sm_80, sm_90 (no wgmma), one stage.
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel made_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32, i32, i64:16, i64:16, 64, 128, 64, 0, 'zero'" --emit ptx --target sm_80 --num-warps 4 | FileCheck %s --check-prefix=NO-TMA
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel made_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32, i32, i64:16, i64:16, 64, 128, 64, 0, 'zero'" --emit ptx --target sm_90 --num-warps 4 | FileCheck %s --check-prefix=NO-TMA
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel made_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32, i32, i64:16, i64:16, 64, 128, 64, 0, 'zero'" --emit ptx --target sm_90a --num-warps 4 --num-stages 1 | FileCheck %s --check-prefix=NO-TMA

# MAKE: // tessera.global_scratch = 256
# MAKE-NEXT: // tessera.map_stride = 8 2
# MAKE-NEXT: // tessera.map_stride = 9 2
# MAKE: .version 8.6
# MAKE: .param .u64 made_matmul_param_9,
# MAKE-NEXT: .param .u64 made_matmul_param_10,
# MAKE-NEXT: .param .u64 made_matmul_param_11
# This program's slots: the scratch plus the linear program id times 256.
# MAKE: ld.param.u64 [[SCRATCH:%rd[0-9]+]], [made_matmul_param_10];
# MAKE: mad.lo.u64 [[SLOTS:%rd[0-9]+]], {{%rd[0-9]+}}, 256, [[SCRATCH]];
# MAKE-NEXT: ld.param.u64 [[PAD:%rd[0-9]+]], [made_matmul_param_11];
# MAKE-NEXT: add.u32 [[STAGE:%r[0-9]+]], {{%r[0-9]+}}, {{[0-9]+}};
# A's map: an empty shape (rows or columns below 1) points it at the
# padding block, one element; the row stride in bytes.
# MAKE: setp.lt.s32 [[EMPTY:%p[0-9]+]], [[ROWS:%r[0-9]+]], 1;
# MAKE-NEXT: setp.lt.or.s32 [[EMPTY]], [[COLS:%r[0-9]+]], 1, [[EMPTY]];
# MAKE-NEXT: add.u64 [[ADDR:%rd[0-9]+]], [[PAD]], 0;
# MAKE-NEXT: selp.b64 [[ADDR]], [[ADDR]], {{%rd[0-9]+}}, [[EMPTY]];
# MAKE-NEXT: selp.b32 [[R:%r[0-9]+]], 1, [[ROWS]], [[EMPTY]];
# MAKE-NEXT: selp.b32 [[C:%r[0-9]+]], 1, [[COLS]], [[EMPTY]];
# MAKE-NEXT: mul.lo.s64 [[BYTES:%rd[0-9]+]], {{%rd[0-9]+}}, 2;
# MAKE-NEXT: selp.b64 [[BYTES]], 16, [[BYTES]], [[EMPTY]];
# A stride or base the copy engine cannot take (a negative stride, a base
# against the contract) traps (the runtime names a stride argument first).
# MAKE-NEXT: setp.lt.s64 [[BAD:%p[0-9]+]], [[BYTES]], 16;
# MAKE-NEXT: setp.ge.or.s64 [[BAD]], [[BYTES]], 1099511627776, [[BAD]];
# MAKE-NEXT: and.b64 [[LOW:%rd[0-9]+]], [[BYTES]], 15;
# MAKE-NEXT: setp.ne.or.u64 [[BAD]], [[LOW]], 0, [[BAD]];
# MAKE-NEXT: and.b64 [[LOW2:%rd[0-9]+]], [[ADDR]], 15;
# MAKE-NEXT: setp.ne.or.u64 [[BAD]], [[LOW2]], 0, [[BAD]];
# MAKE-NEXT: @[[BAD]] trap;
# MAKE-NEXT: add.u64 [[MAPA:%rd[0-9]+]], [[SLOTS]], 0;
# Warp 0 alone: zero the staging buffer, thread 0 sets the fields (box
# innermost first: 64 halves by 64 rows; fp16 is 6, the 128-byte swizzle
# 3), the copy to global memory with the release fence, the acquire.
# MAKE-NEXT: setp.ne.u32 [[NOTW0:%p[0-9]+]], {{%r[0-9]+}}, 0;
# MAKE-NEXT: @[[NOTW0]] bra [[SKIP:\$L[0-9]+]];
# MAKE-NEXT: mad.lo.u32 [[WORD:%r[0-9]+]], {{%r[0-9]+}}, 4, [[STAGE]];
# MAKE-NEXT: st.shared.u32 [[[WORD]]], 0;
# MAKE-NEXT: bar.warp.sync -1;
# MAKE-NEXT: @[[T0:%p[0-9]+]] tensormap.replace.tile.global_address.shared::cta.b1024.b64 [[[STAGE]]], [[ADDR]];
# MAKE-NEXT: @[[T0]] tensormap.replace.tile.rank.shared::cta.b1024.b32 [[[STAGE]]], 1;
# MAKE-NEXT: @[[T0]] tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [[[STAGE]]], 0, 64;
# MAKE-NEXT: @[[T0]] tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [[[STAGE]]], 1, 64;
# MAKE-NEXT: @[[T0]] tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [[[STAGE]]], 0, [[C]];
# MAKE-NEXT: @[[T0]] tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [[[STAGE]]], 1, [[R]];
# MAKE-NEXT: @[[T0]] tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [[[STAGE]]], 0, [[BYTES]];
# MAKE-NEXT: @[[T0]] tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [[[STAGE]]], 0, 1;
# MAKE-NEXT: @[[T0]] tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [[[STAGE]]], 1, 1;
# MAKE-NEXT: @[[T0]] tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [[[STAGE]]], 6;
# MAKE-NEXT: @[[T0]] tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [[[STAGE]]], 3;
# MAKE-NEXT: bar.warp.sync -1;
# MAKE-NEXT: tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [[[MAPA]]], [[[STAGE]]], 128;
# MAKE-NEXT: fence.proxy.tensormap::generic.acquire.gpu [[[MAPA]]], 128;
# MAKE-NEXT: cp.async.bulk.commit_group;
# MAKE-NEXT: cp.async.bulk.wait_group.read 0;
# MAKE-NEXT: [[SKIP]]:
# MAKE-NEXT: cvta.global.u64 [[GENA:%rd[0-9]+]], [[MAPA]];
# B's map is the next slot, 128 bytes on; the copies read the maps.
# MAKE: add.u64 [[MAPB:%rd[0-9]+]], [[SLOTS]], 128;
# MAKE: cvta.global.u64 [[GENB:%rd[0-9]+]], [[MAPB]];
# MAKE: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [[[GENA]], {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}];
# MAKE: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [[[GENB]], {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}];
# MAKE-NOT: ld.global

# bf16 is 10 in tensormap.replace's numbering (9 on the host); the NaN
# fill; an empty NaN-padded tensor points 16 bytes into the padding block
# (its 0xff half).
# NAN: add.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 16;
# NAN: tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [{{%r[0-9]+}}], 10;
# NAN-NEXT: @{{%p[0-9]+}} tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [{{%r[0-9]+}}], 3;
# NAN-NEXT: @{{%p[0-9]+}} tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [{{%r[0-9]+}}], 1;

# A persistent kernel builds its two maps once, before the loop over tiles.
# PERS: tensormap.cp_fenceproxy
# PERS: tensormap.cp_fenceproxy
# PERS: cvta.global.u64
# PERS: [[TILES:\$L[0-9]+]]:
# PERS-NOT: tensormap
# PERS: cp.async.bulk.tensor
# PERS-NOT: tensormap
# PERS: bra [[TILES]];

# A grouped kernel makes its descriptors from pointers it loads for each
# tile: the maps are rebuilt in the loop over tiles, in the same two slots.
# GROUP: // tessera.global_scratch = 256
# GROUP: [[TILES:\$L[0-9]+]]:
# GROUP: ld.global
# GROUP: tensormap.cp_fenceproxy
# GROUP: tensormap.cp_fenceproxy
# GROUP: cp.async.bulk.tensor
# GROUP: bra [[TILES]];

# IR: tensormap_create %{{[a-z_0-9]+}}, %M, %K, %{{[0-9]+}}, %{{[0-9]+}} {box = [128, 64], padding = "zero", swizzle = 128} : i64
# IR: tensormap_create %{{[a-z_0-9]+}}, %N, %K, %{{[0-9]+}}, %{{[0-9]+}} {box = [128, 64], padding = "zero", swizzle = 128} : i64
# IR: for
# IR: for
# IR: tma_copy {{.*}}, %{{[0-9]+}} {expect = 0, padding = "zero"}
# IR-NOT: tensormap = 

# BLOCKPTR: // tessera.global_scratch = 256
# BLOCKPTR: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [{{%r[0-9]+}}], 0, 64;
# BLOCKPTR-NEXT: @{{%p[0-9]+}} tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [{{%r[0-9]+}}], 1, 64;
# BLOCKPTR: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [{{%r[0-9]+}}], 0, 64;
# BLOCKPTR-NEXT: @{{%p[0-9]+}} tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [{{%r[0-9]+}}], 1, 128;
# BLOCKPTR: cp.async.bulk.tensor.2d
# BLOCKPTR: wgmma.mma_async
# Without boundary_check a block's shape bounds nothing: both dims of the
# map are 2^31, past any coordinate (no bounds check, as in the masked
# load), and not above: the copy engine faults on a dim above 2^31.
# RUN: tesserac compile %S/../gpu/test_tma_device_gpu.py --kernel block_ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:1, i32:16, 64, 128, 64, 1, 0" --emit ptx --target sm_90a --num-warps 4 --num-stages 3 | FileCheck %s --check-prefix=UNCHECKED
# UNCHECKED: setp.ne.u32 [[NONE:%p[0-9]+]], 0, 0;
# UNCHECKED-NEXT: mov.u32 [[ALL:%r[0-9]+]], 2147483648;
# UNCHECKED-NEXT: mov.u32 {{%r[0-9]+}}, 2147483648;
# UNCHECKED: tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [{{%r[0-9]+}}], 0, {{%r[0-9]+}};
# BLOCKPTR-IR: tensormap_create %a_ptr, {{.*}} {box = [64, 64], padding = "zero", swizzle = 128}
# BLOCKPTR-IR: tensormap_create %b_ptr, {{.*}} {box = [128, 64], padding = "zero", swizzle = 128}
# BLOCKPTR-IR: memdesc_trans
# BLOCKPTR-IR-NOT: descriptor_load
# NO-TMA-BP-NOT: tensormap
# NO-TMA-BP-NOT: cp.async.bulk
# NO-TMA-BP: .entry block_ptr_matmul

# NO-TMA-NOT: tensormap
# NO-TMA-NOT: global_scratch
# NO-TMA-NOT: cp.async.bulk
# NO-TMA: .entry made_matmul
