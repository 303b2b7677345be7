# flatten-loops: a persistent matmul whose loop over tiles is marked
# flatten=True (tutorial 09's form) becomes one loop over (tile, K step)
# pairs, guarded by "the K loop runs and the pairs fit in i32" with the
# loops as written in the other branch. The fused loop carries its position
# (r, t) and the tile's coordinates, recomputed in an `if` as a tile starts;
# the dot takes use_acc (r != 0) instead of a zeroed accumulator; the
# epilogue runs in an `if` on the tile's last K step. On sm_90a one ring of
# tensor copies spans the tiles: the copies' coordinates run ahead in
# carried values of their own, the wgmma chain stays in flight across the
# back edge (wait_group 1), the first product of a tile scales d by use_acc,
# and the epilogue waits for the chain (wait_group 0) inside its branch.
# Without flatten=True nothing changes, nor where a tile's coordinates are
# index tiles rather than scalars. On sm_80 the accumulator is zeroed
# under !use_acc before mma.sync. A division by a value read before a loop
# is a multiply-high in the loop, its multiplier computed before it.
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel descriptor_persistent --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[256, 64]>:16, tensordesc<fp16[128, 256]>:16, i32:16, i32:16, i32:16, 128, 256, 64, 8, 132, True" --emit ttgir --target sm_90a --num-warps 8 --print-after flatten-loops 2>&1 >/dev/null | FileCheck %s --check-prefix=IR
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel descriptor_persistent --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[256, 64]>:16, tensordesc<fp16[128, 256]>:16, i32:16, i32:16, i32:16, 128, 256, 64, 8, 132, True" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.flat.ptx
# RUN: FileCheck %s --check-prefix=PTX < %t.flat.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.flat.ptx -o %t.flat.cubin
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel descriptor_persistent --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[256, 64]>:16, tensordesc<fp16[128, 256]>:16, i32:16, i32:16, i32:16, 128, 256, 64, 8, 132, False" --emit ttgir --target sm_90a --num-warps 8 | FileCheck %s --check-prefix=NESTED
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel descriptor_persistent --signature "tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 128]>:16, i32:16, i32:16, i32:16, 128, 128, 64, 8, 132, True" --emit ptx --target sm_80 --num-warps 8 --num-stages 3 -o %t.sm80.ptx
# RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel pointer_persistent --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 64, 8, 132, True" --emit ttgir --target sm_90a --num-warps 8 | FileCheck %s --check-prefix=TILES
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel row_sums --signature "tensordesc<fp32[32, 64]>:16, *fp32:16, *i32:16, i32, i32, 32, 64, 3" --emit ttgir --target sm_90a --print-after flatten-loops 2>&1 >/dev/null | FileCheck %s --check-prefix=GENERAL
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel doubling_persistent --signature "tensordesc<fp16[64, 64]>:16, tensordesc<fp16[64, 64]>:16, *fp32:16, i32:16, i32:16, i32:16, 64, 64, 64, True" --emit ttgir --target sm_90a --num-warps 4 | FileCheck %s --check-prefix=STORES
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel divide_both_ways --signature "*i32:16, *i32:16, *i32:16, i32, 2, 128" --emit ptx --target sm_90a | FileCheck %s --check-prefix=BOTH
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel divide_in_loop --signature "*i32:16, *i32:16, *i32:16, *i32:16, i32, 4, 128, False" --emit ptx --target sm_90a -o %t.div.ptx
# RUN: FileCheck %s --check-prefix=DIV < %t.div.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.div.ptx -o %t.div.cubin
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel carried_pointer_persistent --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 256, 64, 8, 132" --emit ttgir --target sm_90a --num-warps 8 --print-after flatten-loops 2>&1 >/dev/null | FileCheck %s --check-prefix=CARRIED
# RUN: tesserac compile %S/../gpu/test_flatten_gpu.py --kernel carried_pointer_persistent --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 256, 64, 8, 132" --emit ptx --target sm_90a --num-warps 8 --num-stages 3 -o %t.carried.ptx
# RUN: FileCheck %s --check-prefix=CARRIEDPTX < %t.carried.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.carried.ptx -o %t.carried.cubin

# The example's loop made persistent (pointers carried by the K loop):
# descriptors-from-pointers first, with the tile's rows and columns as the
# boxes' coordinates (not provably >= 0: unbounded_below) and the maps'
# bases the matrices'; then the loops fuse, the epilogue's row and column
# tiles made again in its branch from the carried scalars.
# CARRIED: for {{.*}} {flattened = 1}
# CARRIED: descriptor_load %a_ptr, {{.*}} unbounded_below = [0]} : tile<128x64xf16>
# CARRIED: descriptor_load %b_ptr, {{.*}} unbounded_below = [1]} : tile<64x256xf16>
# CARRIED: dot
# CARRIED: if %{{[0-9]+}} {epilogue = 1} {
# CARRIED-NEXT: splat %{{[0-9]+}} : tile<128xi32>
# CARRIED: store
# One map per operand made before the loops; a negative tile coordinate
# traps where the copy engine would read padding.
# CARRIEDPTX: tensormap.cp_fenceproxy
# CARRIEDPTX: tensormap.cp_fenceproxy
# CARRIEDPTX-NOT: tensormap.cp_fenceproxy
# CARRIEDPTX: setp.lt.and.s32
# CARRIEDPTX-NEXT: trap
# CARRIEDPTX: cp.async.bulk.tensor.2d
# CARRIEDPTX: wgmma.mma_async

# The guard: if (the K loop runs, the pairs fit) fused, else as written.
# IR: if
# IR: for {{.*}} {flattened = 1} : i32, tile<128x256xf32>, i32, i32, i32, i32 {
# IR-NEXT: ^(%it: i32, %{{[0-9]+}}: i32, %{{[0-9]+}}: tile<128x256xf32>, %[[R:[0-9]+]]: i32, %{{[0-9a-z_]+}}: i32, %{{[0-9]+}}: i32, %{{[0-9]+}}: i32):
# IR: %[[LAST:[0-9]+]] = cmp %[[R]], %{{[0-9]+}} {pred = "eq"} : i1
# IR: %[[USE:[0-9]+]] = cmp %[[R]], %{{[0-9]+}} {pred = "ne"} : i1
# IR: descriptor_load
# IR: descriptor_load
# IR: dot %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[USE]] {
# IR: if %[[LAST]] {epilogue = 1} : i32 {
# IR: descriptor_store
# IR: select %[[LAST]]
# IR: select %[[LAST]]
# The next tile's coordinates, computed as it starts.
# IR: if %[[LAST]] : i32, i32 {
# IR: yield
# IR: {
# IR-NOT: flattened
# IR: for %start_pid,
# IR: for

# The loop: wait for the slot, the tile's products (the first scaled by
# use_acc), one group left running, the epilogue in a branch.
# PTX: mbarrier.try_wait.parity
# PTX: setp.ne.s32 %[[USE:p[0-9]+]],
# PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, %[[USE]], 1, 1, 0, 0;
# PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, %p{{[0-9]+}}, 1, 1, 0, 0;
# PTX: wgmma.commit_group.sync.aligned
# PTX-NEXT: wgmma.wait_group.sync.aligned 1
# PTX: bra
# PTX-NOT: mbarrier.try_wait
# PTX: wgmma.wait_group.sync.aligned 0
# PTX: st.global.v4.b32
# The copies for a later step (this tile's or the next one's), then around.
# PTX: mbarrier.arrive.shared::cta.b64
# PTX: cp.async.bulk.tensor.2d
# PTX: cp.async.bulk.tensor.2d
# PTX: bra

# NESTED-NOT: flattened
# NESTED: for %start_pid,
# NESTED: for
# NESTED-NOT: dot {{.*}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} {

# Coordinates that are index tiles (tutorial 09's pointer kernel): nested.
# TILES-NOT: flattened

# A sum starting at 1.0 each tile: selected on a tile's first step.
# GENERAL: for {{.*}} {flattened = 1}
# GENERAL: %[[FIRST:[0-9]+]] = cmp %{{[0-9]+}}, %{{[0-9]+}} {pred = "eq"} : i1
# GENERAL: %[[EACH:[0-9]+]] = splat %[[FIRST]] : tile<32xi1>
# GENERAL: select %[[EACH]], %{{[0-9]+}}, %{{[0-9a-z_]+}} : tile<32xf32>

# SM80: cp.async.cg.shared.global
# SM80: @!%p{{[0-9]+}} mov.f32 %f{{[0-9]+}}, 0f00000000;
# SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

# A store in the K loop (not the epilogue's): the fused loop's loads are
# not pipelined past it.
# STORES: for {{.*}} {flattened = 1}
# STORES-NOT: {{tma_copy|async_copy}}
# STORES: = dot
# STORES-NOT: {{tma_copy|async_copy}}
# STORES: store %
# STORES: if %{{[0-9]+}} {epilogue = 1}

# One divisor read as i32 and as u32: a multiplier for each.
# BOTH: abs.s32
# BOTH: clz.b32
# BOTH: clz.b32
# BOTH: bra

# DIV: clz.b32
# DIV: div.u64
# DIV: bra
# DIV-NOT: div.s32
# DIV-NOT: rem.s32
# DIV: mul.hi.u32
# DIV: mul.hi.u32
# DIV: bra
