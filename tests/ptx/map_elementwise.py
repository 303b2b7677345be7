# tl.map_elementwise: the scalar function's code once per element a thread
# holds (per pack of them), with its `if` as branches; assembled by ptxas
# when the CUDA toolkit is installed. The kernels are the CPU suite's
# (tests/python/package/test_map_elementwise.py), which the GPU suite runs too.
# RUN: tesserac compile %S/../python/package/test_map_elementwise.py --kernel compare_kernel --signature "*i32:16, *i32:16, *i32:16, 128" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=CMP --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %S/../python/package/test_map_elementwise.py --kernel divmod_kernel --signature "*u32:16, *u32:16, *u32:16, *u32:16, 512, 2" --emit ptx --target sm_80 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PACK --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.ptx -o %t.cubin
# RUN: tesserac compile %S/../python/package/test_map_elementwise.py --kernel divmod_kernel --signature "*u32:16, *u32:16, *u32:16, *u32:16, 512, 2" | FileCheck %s --check-prefix=IR

# compare_kernel: gap_or_double(x, y) per element (branches on x < y, then
# x == y). One element per thread: one compare, two branches.
# CMP: setp.lt.s32 [[P:%p[0-9]+]], [[X:%r[0-9]+]], [[Y:%r[0-9]+]];
# CMP-NEXT: @![[P]] bra
# CMP: setp.eq.s32 [[Q:%p[0-9]+]], [[X]], [[Y]];
# CMP: @![[Q]] bra
# CMP-NOT: setp.lt.s32
# CMP: st.global

# divmod_kernel with PACK=2 (divmod2 over pairs of elements): four elements
# per thread, two calls of two elements: four divisions and four remainders.
# PACK-COUNT-4: div.u32
# PACK-NOT: div.u32
# IR: %c:2 = map_elementwise %a, %b {pack = 2} : tile<512xu32>, tile<512xu32> {
# IR-NEXT: ^(%{{.*}}: u32, %{{.*}}: u32, %{{.*}}: u32, %{{.*}}: u32):
