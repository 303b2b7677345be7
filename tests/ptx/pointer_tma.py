# Masked loads of pointer tiles on the tensor memory accelerator, sm_90a
# (descriptors-from-pointers): a dot operand's load whose pointers are
# base + i * stride + j (or the transpose) and whose mask bounds each dim
# becomes a descriptor_load; the kernel makes its map before the loop and
# the ring fills by bulk tensor copies. The kernels are the GPU suite's
# (tests/gpu/test_pointer_tma_gpu.py), by name; everything assembles with
# ptxas.
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, i32:16, 1, 64, 128, 64, 1, 0" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=KN < %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, i32:16, 1, 64, 128, 64, 1, 0" --emit ttgir --target sm_90a | FileCheck %s --check-prefix=KN-IR
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, 1, i32:16, 64, 128, 64, 1, 0" --emit ttgir --target sm_90a | FileCheck %s --check-prefix=NK-IR
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, i32:16, 1, 64, 128, 64, 0, 0" --emit ttgir --target sm_90a | FileCheck %s --check-prefix=UNMASKED
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, i32:16, 1, 64, 128, 64, 2, 0" --emit ttgir --target sm_90a | FileCheck %s --check-prefix=KN-IR
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, i32:16, 1, 64, 128, 64, 1, 1" --emit ttgir --target sm_90a | FileCheck %s --check-prefix=KN-IR
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul_persistent --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, 64, 128, 64, 7" --emit ttgir --target sm_90a | FileCheck %s --check-prefix=PERS
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel both_ways --signature "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32:16, i32:16, i32:16, 64, 64, 32, 64" --emit ptx --target sm_90a | FileCheck %s --check-prefix=BOTH
# Rows wrapped with `% M` (Triton's matmul tutorial): a box when the store
# masks the wrapped rows, pointer loads when it stores every row.
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel wrapped_rows --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, 64, 128, 64, 0" --emit ptx --target sm_90a | FileCheck %s --check-prefix=KN
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel wrapped_rows --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, 64, 128, 64, 1" --emit ptx --target sm_90a | FileCheck %s --check-prefix=CP-ASYNC
# The tutorial's grouped program order: its block row is >= 0 only by the
# kernel's tl.assume, which must come before the loads.
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel grouped_wrapped --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, 64, 128, 64, 4, 1" --emit ptx --target sm_90a | FileCheck %s --check-prefix=KN
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel grouped_wrapped --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, 64, 128, 64, 4, 3" --emit ptx --target sm_90a | FileCheck %s --check-prefix=CP-ASYNC
# Loads that stay on cp.async: a mask that is not a box, a row stride not
# known to be a multiple of 16 bytes, a dot on mma.sync (32 rows, fewer
# than a warpgroup's 64), and every target but sm_90a.
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, i32:16, 1, 32, 128, 64, 1, 0" --emit ptx --target sm_90a --print-after descriptors-from-pointers -o %t.mma.ptx 2> %t.mma.ir
# RUN: FileCheck %s --check-prefix=MMA-SYNC --input-file %t.mma.ir
# RUN: FileCheck %s --check-prefix=CP-ASYNC --input-file %t.mma.ptx
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, i32:16, 1, 64, 128, 64, 3, 0" --emit ptx --target sm_90a | FileCheck %s --check-prefix=CP-ASYNC
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32, i32:16, i32:16, 1, 64, 128, 64, 1, 0" --emit ptx --target sm_90a | FileCheck %s --check-prefix=CP-ASYNC
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, i32:16, 1, 64, 128, 64, 1, 0" --emit ptx --target sm_90 | FileCheck %s --check-prefix=CP-ASYNC
# RUN: tesserac compile %S/../gpu/test_pointer_tma_gpu.py --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, i32:16, i32:16, i32:16, i32:16, 1, 64, 128, 64, 1, 0" --emit ptx --target sm_80 | FileCheck %s --check-prefix=CP-ASYNC

# Both operands by the copy engine: two maps, built before the loop, and no
# thread copying an operand. Where the kernel is persistent
# (persistent-programs: the row strides known multiples of 16), two more
# maps serve the loops flatten-loops keeps as written.
# KN: // tessera.global_scratch = {{256|512}}
# KN: tensormap.cp_fenceproxy
# KN: tensormap.cp_fenceproxy
# KN: cp.async.bulk.tensor.2d
# KN: wgmma.mma_async.sync.aligned
# KN-NOT: cp.async.cg
# KN-NOT: ld.global
# A [64, 64] box of A, two [64, 64] boxes of B's [64, 128] block; both dims
# checked (no `checks` attribute).
# KN-IR: tensormap_create %{{.*}} {box = [64, 64], padding = "zero", swizzle = 128} : i64
# KN-IR-NEXT: tensormap_create %{{.*}} {box = [64, 64], padding = "zero", swizzle = 128} : i64
# KN-IR: for
# KN-IR: tma_copy
# KN-IR-NOT: async_copy
# B stored [N, K] (its K stride 1): the map is over that storage, a box of
# 128 rows of B^T, which wgmma reads transposed.
# NK-IR: tensormap_create %{{.*}} {box = [64, 64], padding = "zero", swizzle = 128} : i64
# NK-IR-NEXT: tensormap_create %{{.*}} {box = [128, 64], padding = "zero", swizzle = 128} : i64
# NK-IR: memdesc_trans
# NK-IR-NOT: async_copy
# Without masks no dim is checked.
# UNMASKED: tensormap_create %{{.*}} {box = [64, 64], checks = [], padding = "zero", swizzle = 128} : i64
# UNMASKED-NEXT: tensormap_create %{{.*}} {box = [64, 64], checks = [], padding = "zero", swizzle = 128} : i64
# A persistent loop: the maps move with the tile, so they are made in the
# outer loop, before the K loop.
# PERS: for %{{[0-9]+}}, %tiles
# PERS: tensormap_create
# PERS-NEXT: tensormap_create
# PERS: = for
# One load read both ways (X @ y_t and y_t^T @ Z): the transposed box's
# transpose is the box itself, so both dots read its ring and every load
# is a tensor copy.
# BOTH: tensormap.cp_fenceproxy
# BOTH: tensormap.cp_fenceproxy
# BOTH: tensormap.cp_fenceproxy
# BOTH: wgmma.mma_async
# BOTH-NOT: cp.async.cg
# BOTH-NOT: ld.global
# A dot on mma.sync: its loads are not converted (they would come back from
# pipeline-dot-operands as masked loads of box arithmetic).
# MMA-SYNC: for
# MMA-SYNC-NOT: descriptor_load
# MMA-SYNC: dot
# CP-ASYNC-NOT: tensormap
# CP-ASYNC-NOT: cp.async.bulk.tensor
# CP-ASYNC: cp.async.cg.shared.global
