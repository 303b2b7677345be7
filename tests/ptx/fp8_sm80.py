# fp8 below sm_89 (no e4m3x2/e5m2x2 cvt instructions): the conversions are
# done in integer and f16/f32 instructions with the hardware's results
# (emit_fp8.cpp); sm_89 and newer keep the cvt instructions.
# RUN: tesserac compile %s --kernel scale --signature "*fp8e4nv:16, *fp8e5:16, fp32, 1024" --emit ptx --target sm_80 \
# RUN:   | FileCheck %s --check-prefix=SM80 --implicit-check-not=e4m3x2 --implicit-check-not=e5m2x2
# RUN: tesserac compile %s --kernel scale --signature "*fp8e5:16, *fp8e4nv:16, fp32, 1024" --emit ptx --target sm_80 \
# RUN:   | FileCheck %s --check-prefix=SM80-E5 --implicit-check-not=e4m3x2 --implicit-check-not=e5m2x2
# RUN: tesserac compile %s --kernel scale --signature "*fp8e4nv:16, *fp8e5:16, fp32, 1024" --emit ptx --target sm_90a \
# RUN:   | FileCheck %s --check-prefix=SM90
# float8e4b15 has no cvt instruction on any GPU: software on sm_90a too
# (E4M3FN's sequences with bias 15, so no multiply when decoding), and the
# PTX assembles.
# RUN: tesserac compile %s --kernel scale --signature "*fp8e4b15:16, *fp8e4b15:16, fp32, 1024" --emit ptx --target sm_90a -o %t.b15.ptx
# RUN: FileCheck %s --check-prefix=B15 --implicit-check-not=e4m3x2 --implicit-check-not=e5m2x2 < %t.b15.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.b15.ptx -o %t.b15.cubin
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, s, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(x_ptr + offs).to(tl.float32)
    tl.store(y_ptr + offs, (x * s).to(y_ptr.dtype.element_ty))

# e4m3 -> f16: fields placed in f16's, times 2^8 (exact), sign, NaN (0x7F).
# SM80: .target sm_80
# SM80: ld.global
# SM80: and.b16 [[M:%h[0-9]+]], %h{{[0-9]+}}, 0x7F
# SM80-NEXT: shl.b16 [[H:%h[0-9]+]], [[M]], 7
# SM80-NEXT: mov.b16 [[K:%h[0-9]+]], 0x5C00
# SM80-NEXT: mul.rn.f16 [[H]], [[H]], [[K]]
# SM80: setp.gt.u16 [[NAN:%p[0-9]+]], [[M]], 0x7E
# SM80-NEXT: selp.b16 [[H]], 0x7FFF, [[H]], [[NAN]]
# SM80-NEXT: cvt.f32.f16 %f{{[0-9]+}}, [[H]]
# SM80: mul.f32
# f32 -> e5m2: integer round to nearest even (2^20 - 1 plus the kept lsb),
# rebias (112 << 2), subnormals through an add of 2^7 (whose ulp is the e5m2
# subnormal step 2^-16), clamp to 0x7B, NaN -> 0x7F.
# SM80: and.b32 [[A:%r[0-9]+]], [[X:%r[0-9]+]], 0x7FFFFFFF
# SM80-NEXT: shr.u32 {{%r[0-9]+}}, [[A]], 21
# SM80: add.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0xFFFFF
# SM80: sub.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0x1C0
# SM80: add.rn.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, 0f43000000
# SM80: setp.lt.u32 {{%p[0-9]+}}, [[A]], 0x38800000
# SM80: min.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0x7B
# SM80: setp.gt.u32 {{%p[0-9]+}}, [[A]], 0x7F800000
# SM80-NEXT: selp.b32 {{%r[0-9]+}}, 0x7F, {{%r[0-9]+}}, {{%p[0-9]+}}
# SM80: st.global

# e5m2 -> f16 is a shift (same bias as f16); f32 -> e4m3 clamps to 0x7E.
# SM80-E5: shl.b16 [[H:%h[0-9]+]], [[M:%h[0-9]+]], 8
# SM80-E5-NOT: mul.rn.f16
# SM80-E5: setp.gt.u16 [[NAN:%p[0-9]+]], [[M]], 0x7C
# SM80-E5: cvt.f32.f16
# SM80-E5: sub.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0x3C0
# SM80-E5: add.rn.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, 0f46800000
# SM80-E5: setp.lt.u32 {{%p[0-9]+}}, {{%r[0-9]+}}, 0x3C800000
# SM80-E5: min.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0x7E

# SM90: .target sm_90a
# SM90: cvt.rn.f16x2.e4m3x2
# SM90: cvt.f32.f16
# SM90: cvt.rn.satfinite.e5m2x2.f32
# SM90-NOT: add.rn.f32

# B15: .target sm_90a
# B15: and.b16 [[M:%h[0-9]+]], %h{{[0-9]+}}, 0x7F
# B15-NEXT: shl.b16 {{%h[0-9]+}}, [[M]], 7
# B15-NOT: mul.rn.f16
# B15: setp.gt.u16 {{%p[0-9]+}}, [[M]], 0x7E
# B15: cvt.f32.f16
# B15: sub.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0x380
# B15: setp.lt.u32 {{%p[0-9]+}}, {{%r[0-9]+}}, 0x38800000
# B15: min.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0x7E
