# tl.map_elementwise: the scalar function's code once per element a thread
# holds (per pack of them), with its `if` as branches; assembled by ptxas
# when the CUDA toolkit is installed.
# RUN: tesserac compile %s --kernel compare_kernel --signature "*i32:16, *i32:16, *i32:16, 128" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=CMP --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel divmod_kernel --signature "*u32:16, *u32:16, *u32:16, *u32:16, 512" --emit ptx --target sm_80 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PACK --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel divmod_kernel --signature "*u32:16, *u32:16, *u32:16, *u32:16, 512" | FileCheck %s --check-prefix=IR
import triton
import triton.language as tl


@triton.jit
def compare(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@triton.jit
def compare_kernel(X, Y, Z, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    z = tl.map_elementwise(compare, x, y)
    tl.store(Z + tl.arange(0, BLOCK), z)

# One element per thread: one compare, two branches.
# CMP: setp.lt.s32 [[P:%p[0-9]+]], [[X:%r[0-9]+]], [[Y:%r[0-9]+]];
# CMP-NEXT: @![[P]] bra
# CMP: setp.eq.s32 [[Q:%p[0-9]+]], [[X]], [[Y]];
# CMP: @![[Q]] bra
# CMP-NOT: setp.lt.s32
# CMP: st.global


@triton.jit
def divmod2(a0, a1, b0, b1):
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@triton.jit
def divmod_kernel(A, B, C, D, BLOCK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    c, d = tl.map_elementwise(divmod2, a, b, pack=2)
    tl.store(C + tl.arange(0, BLOCK), c)
    tl.store(D + tl.arange(0, BLOCK), d)

# Four elements per thread, two calls of two elements: four divisions and
# four remainders.
# PACK-COUNT-4: div.u32
# PACK-NOT: div.u32
# IR: %c:2 = map_elementwise %a, %b {pack = 2} : tile<512xu32>, tile<512xu32> {
# IR-NEXT: ^(%{{.*}}: u32, %{{.*}}: u32, %{{.*}}: u32, %{{.*}}: u32):
