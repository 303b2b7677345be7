# persistent-programs: on sm_90a the example matmul (one tile a program,
# pointer loads carried by the K loop) becomes one program an SM looping
# over the grid's tiles: three grid parameters after its own, the loop over
# tiles from program_id(0) by num_programs(0), program ids from the tile,
# the PTX header naming the first grid parameter for the launcher; then
# descriptors-from-pointers and flatten-loops make one ring span the tiles.
# Left as written: other targets, a kernel with an atomic (programs that may
# wait on each other), dot operands the copy engine cannot read (rows not
# known to be 16-byte multiples, or a dot on mma.sync: 32-row blocks), a row coordinate that may be negative (a
# halo), a K loop marked warp_specialize and its unspecialised twin, and
# kernels for ahead-of-time launchers (which pass no grid).
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8, 'ieee'" --emit ptx --target sm_90a --num-warps 8 --print-after persistent-programs,flatten-loops -o %t.ptx 2> %t.ir
# RUN: FileCheck %s --check-prefix=IR < %t.ir
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8, 'ieee'" --emit ptx --target sm_90 --num-warps 8 | FileCheck %s --check-prefix=KEPT
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8, 'ieee'" --emit ptx --target sm_80 --num-warps 8 | FileCheck %s --check-prefix=KEPT
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32, i32, 1, i32, 1, i32:16, 1, 128, 256, 64, 8, 'ieee'" --emit ptx --target sm_90a --num-warps 8 | FileCheck %s --check-prefix=KEPT
# RUN: tesserac compile %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 32, 64, 128, 8, 'ieee'" --emit ptx --target sm_90a --num-warps 4 --num-stages 4 | FileCheck %s --check-prefix=KEPT
# RUN: tesserac compile %s --kernel matmul_counting_tiles --signature "*fp16:16, *fp16:16, *fp32:16, *i32:16, i32:16, i32:16, i32:16, 64, 64, 32" --emit ptx --target sm_90a --num-warps 4 | FileCheck %s --check-prefix=KEPT
# RUN: tesserac compile %s --kernel matmul_specialized --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, 64, 64, 32" --emit ptx --target sm_90a --num-warps 4 | FileCheck %s --check-prefix=KEPT
# RUN: tesserac compile %s --kernel matmul_specialized --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, 64, 64, 32" --emit ptx-unspecialized --target sm_90a --num-warps 4 | FileCheck %s --check-prefix=KEPT
# RUN: tesserac compile %s --kernel matmul_with_halo --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, 64, 64, 32" --emit ptx --target sm_90a --num-warps 4 | FileCheck %s --check-prefix=KEPT --implicit-check-not=setp.lt.and.s32
# RUN: rm -rf %t.aot && mkdir -p %t.aot
# RUN: tesserac aot %S/../../examples/matmul.py --kernel matmul_kernel --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8, 'ieee'" --name mm --num-warps 8 --target sm_90a -o %t.aot
# RUN: FileCheck %s --check-prefix=AOT --implicit-check-not=tessera.persistent --input-file %t.aot/mm.c
import triton
import triton.language as tl


@triton.jit
def matmul_counting_tiles(a_ptr, b_ptr, c_ptr, done_ptr, M, N, K, BM: tl.constexpr,
                          BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
    tl.atomic_add(done_ptr, 1)


@triton.jit
def matmul_specialized(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=True):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

# Rows read from 8 before the tile (a halo, a_ptr past its first 8 rows):
# the row coordinate may be negative where the pointer load reads memory,
# so it keeps the pointer load, and the kernel one tile a program.
@triton.jit
def matmul_with_halo(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                     BK: tl.constexpr):
    rm = tl.program_id(0) * BM - 8 + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

# IR: // IR of kernel 'matmul_kernel' after pass 'persistent-programs'
# IR: %grid_x: i32 {grid_axis = 0}, %grid_y: i32 {grid_axis = 1}, %grid_z: i32 {grid_axis = 2})
# IR: %[[START:[0-9]+]] = program_id {axis = 0} : i32
# IR-NEXT: %[[STEP:[0-9]+]] = num_programs {axis = 0} : i32
# IR-NEXT: %[[XY:[0-9]+]] = mul %grid_x, %grid_y : i32
# IR-NEXT: %[[ALL:[0-9]+]] = mul %[[XY]], %grid_z : i32
# IR-NEXT: for %[[START]], %[[ALL]], %[[STEP]] {flatten = 1} {
# IR-NEXT: ^(%tile: i32):
# IR-NEXT: %[[PID:[0-9]+]] = rem %tile, %grid_x : i32
# IR-NOT: program_id
# IR: div %[[PID]], %pids_per_group
# IR: for
# IR: dot
# IR: store
# IR: yield
# IR: return
# IR: // IR of kernel 'matmul_kernel' after pass 'flatten-loops'
# IR: for {{.*}} {flattened = 1}
# IR: descriptor_load %a_ptr,
# IR: descriptor_load %b_ptr,
# IR: if %{{[0-9]+}} {epilogue = 1} {
# IR: store

# PTX: // tessera.persistent = 9
# PTX: .param .u32 matmul_kernel_param_9,
# PTX-NEXT: .param .u32 matmul_kernel_param_10,
# PTX-NEXT: .param .u32 matmul_kernel_param_11
# PTX: ld.param.u32 %r{{[0-9]+}}, [matmul_kernel_param_9];
# PTX: cp.async.bulk.tensor.2d
# PTX: wgmma.mma_async

# KEPT-NOT: tessera.persistent
# KEPT: .entry

# AOT: tessera.num_warps = 8
