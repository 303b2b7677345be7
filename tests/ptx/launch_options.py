# Triton's launch options that change GPU code, through tesserac:
# enable_fp_fusion (contract-fp; --no-fp-fusion), enable_reflect_ftz (the
# exp2 lowering; --no-reflect-ftz) and maxnreg (--maxnreg); and the TTGIR's
# header naming the target as Triton's does ("cuda:80").
# RUN: tesserac compile %s --kernel mul_add --signature "*fp32:16, *fp32:16" --emit ptx --target sm_90a -o %t.fused.ptx
# RUN: FileCheck %s --check-prefix=FUSED < %t.fused.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.fused.ptx -o %t.fused.cubin
# RUN: tesserac compile %s --kernel mul_add --signature "*fp32:16, *fp32:16" --emit ptx --target sm_90a --no-fp-fusion -o %t.apart.ptx
# RUN: FileCheck %s --check-prefix=APART < %t.apart.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.apart.ptx -o %t.apart.cubin
# RUN: tesserac compile %s --kernel exp2 --signature "*fp32:16" --emit ptx --target sm_80 | FileCheck %s --check-prefix=FTZ
# RUN: tesserac compile %s --kernel exp2 --signature "*fp32:16" --emit ptx --target sm_80 --no-reflect-ftz | FileCheck %s --check-prefix=NO-FTZ
# RUN: tesserac compile %s --kernel exp2 --signature "*fp32:16" --emit ttgir --target sm_80 | FileCheck %s --check-prefix=TARGET
# RUN: tesserac compile %s --kernel exp2 --signature "*fp32:16" --emit ptx --target sm_90a --maxnreg 42 -o %t.maxnreg.ptx
# RUN: FileCheck %s --check-prefix=MAXNREG < %t.maxnreg.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.maxnreg.ptx -o %t.maxnreg.cubin
# RUN: tesserac compile %s --kernel exp2 --signature "*fp32:16" --emit ptx --target sm_90a | FileCheck %s --check-prefix=NO-MAXNREG
import triton
import triton.language as tl


@triton.jit
def mul_add(x_ptr, y_ptr):
    # x * 1.5 + y fuses into one fma; the product with two uses (its own
    # store too) stays a mul, which ptxas may still contract.
    i = tl.arange(0, 128)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(x_ptr + i, x * 1.5 + y)
    p = x * y
    tl.store(y_ptr + i, p + 2.0 + p)

# FUSED: fma.rn.f32
# FUSED-NOT: mul.rn.f32
# FUSED-NOT: add.rn.f32
# FUSED: mul.f32
# Fusion off: every operation rounded on its own (.rn, never contracted).
# APART-NOT: fma.rn.f32
# APART: mul.rn.f32
# APART: add.rn.f32
# APART-NOT: {{(mul|add)}}.f32


@triton.jit
def exp2(data):
    ptrs = data + tl.arange(0, 128)
    tl.store(ptrs, tl.math.exp2(tl.load(ptrs)))

# FTZ: ex2.approx.ftz.f32
# NO-FTZ-NOT: ftz
# NO-FTZ: ex2.approx.f32
# TARGET: // tessera.target = cuda:80 (sm_80)
# TARGET-NEXT: func @exp2
# MAXNREG: .visible .entry exp2(
# MAXNREG: .maxntid 128, 1, 1
# MAXNREG-NEXT: .maxnreg 42
# MAXNREG-NEXT: {
# NO-MAXNREG-NOT: .maxnreg
