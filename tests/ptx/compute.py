# Reductions (registers, warp shuffles, shared memory across warps), math
# lowering (Triton's approximations and the precise forms), atomics and the
# FMA lowering of tl.dot.
# RUN: tesserac compile %s --kernel row_softmax --signature "*fp32:16, *fp32:16, 1024" --emit ptx | FileCheck %s --check-prefix=SOFTMAX
# RUN: tesserac compile %s --kernel math --signature "*fp32:16, 256" --emit ptx | FileCheck %s --check-prefix=MATH
# RUN: tesserac compile %s --kernel counts --signature "*i32:16, *i32:16, *fp32:16" --emit ptx | FileCheck %s --check-prefix=ATOMIC
# RUN: tesserac compile %s --kernel atomic_copies --signature "*i32:16, *i32:16" --emit ptx | FileCheck %s --check-prefix=COPIES
# RUN: tesserac compile %s --kernel shift_signed --signature "*i8:16, *u8:16, *u8:16" --emit ptx | FileCheck %s --check-prefix=SHIFT
# RUN: tesserac compile %s --kernel small_dot --signature "*fp32:16, *fp32:16, *fp32:16" --emit ptx | FileCheck %s --check-prefix=DOT
# RUN: tesserac compile %s --kernel row_softmax --signature "*fp32:16, *fp32:16, 1024" --emit ttgir | FileCheck %s --check-prefix=TTGIR
# RUN: tesserac compile %s --kernel u32_to_half --signature "*i64:16, *fp16:16" --emit ptx | FileCheck %s --check-prefix=U32F
import triton
import triton.language as tl


@triton.jit
def row_softmax(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + offs, e / tl.sum(e, axis=0))

# SOFTMAX: max.f32
# SOFTMAX: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 31, -1
# SOFTMAX: bar.sync 0
# SOFTMAX: st.shared.f32
# SOFTMAX: bar.sync 0
# The four warps' partials: lane f of each group of four reads warp f's, and
# two shuffles combine them (one shared load, not four).
# SOFTMAX: ld.shared.f32 [[P:%f[0-9]+]]
# SOFTMAX-NOT: ld.shared
# SOFTMAX: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1, 31, -1
# SOFTMAX-NOT: ld.shared
# SOFTMAX: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 2, 31, -1
# SOFTMAX: mul.f32 %f{{[0-9]+}}, %f{{[0-9]+}}, 0f3FB8AA3B
# SOFTMAX-NEXT: ex2.approx.f32
# SOFTMAX: div.full.f32

# TTGIR: load {{.*}} : tile<1024xf32, #"linear<reg=[0:1,0:2,0:512], lane=[0:4,0:8,0:16,0:32,0:64], warp=[0:128,0:256]>">
# TTGIR: reduce


@triton.jit
def math(x_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.sqrt(x) + tl.sqrt_rn(x) + tl.div_rn(x, 3.0) + tl.fdiv(x, 3.0) + tl.rsqrt(x) + tl.log(x)
    tl.store(x_ptr + offs, y + tl.sin(x) + tl.erf(x) + tl.floor(x))

# MATH-DAG: sqrt.approx.f32
# MATH-DAG: sqrt.rn.f32
# MATH-DAG: div.rn.f32
# MATH-DAG: div.full.f32
# MATH-DAG: rsqrt.approx.f32
# MATH-DAG: lg2.approx.f32
# MATH-DAG: sin.approx.f32
# The argument reduction by 2pi in two parts: float(2pi), then 2pi's
# remainder (float(2pi) - 2pi), not pi's.
# MATH-DAG: fma.rn.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, 0fC0C90FDB, {{%f[0-9]+}};
# MATH-DAG: fma.rn.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, 0f343BBD2E, {{%f[0-9]+}};
# MATH-DAG: cvt.rmi.f32.f32


@triton.jit
def counts(hist_ptr, total_ptr, x_ptr):
    offs = tl.arange(0, 128)
    tl.atomic_add(hist_ptr + offs % 8, 1)
    tl.atomic_max(total_ptr, tl.sum(offs, axis=0), sem="relaxed", scope="cta")
    tl.atomic_add(x_ptr + offs, 1.0)

# ATOMIC: atom.global.gpu.acq_rel.add.u32
# ATOMIC: atom.global.cta.relaxed.max.s32
# ATOMIC: st.shared
# ATOMIC: atom.global.gpu.acq_rel.add.f32


@triton.jit
def atomic_copies(x_ptr, out_ptr):
    # A 32x1 tile over 128 threads: one owner per element runs the atomic,
    # and its old value reaches the copies through shared memory.
    rows = tl.arange(0, 32)[:, None]
    old = tl.atomic_add(x_ptr + rows, 1)
    tl.store(out_ptr + rows * 32 + tl.arange(0, 32)[None, :], tl.broadcast_to(old, (32, 32)))

# COPIES: @[[OWN:%p[0-9]+]] atom.global.gpu.acq_rel.add.u32 [[OLD:%r[0-9]+]]
# COPIES: bar.sync 0;
# COPIES: @[[OWN]] st.shared.b32 [{{.*}}], [[OLD]];
# COPIES: bar.sync 0;
# COPIES: ld.shared.b32


@triton.jit
def shift_signed(x_ptr, y_ptr, out_ptr):
    # int8 >> uint8: promoted to uint8, shifted arithmetically (Triton's
    # rule): the uint8 bits are sign-extended again before shr.s32.
    offs = tl.arange(0, 128)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) >> tl.load(y_ptr + offs))

# SHIFT: and.b32 [[U:%r[0-9]+]], {{%r[0-9]+}}, 255;
# SHIFT: bfe.s32 [[S:%r[0-9]+]], [[U]], 0, 8;
# SHIFT: shr.s32 {{%r[0-9]+}}, [[S]],


@triton.jit
def u32_to_half(x_ptr, out_ptr):
    offs = tl.arange(0, 128)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(tl.int8).to(tl.uint32).to(tl.float16))

# uint32 -> float in 16-bit halves, hi * 2^16 + lo rounded once: ptxas made
# a signed I2F.S8 of cvt.rn.f32.u32 (and of cvt.rn.f32.u64 after a
# cvt.u64.u32) applied to an int8's sign extension.
# U32F: bfe.s32 [[S:%r[0-9]+]], {{%r[0-9]+}}, 0, 8;
# U32F-NEXT: and.b32 [[LO:%r[0-9]+]], [[S]], 65535;
# U32F-NEXT: shr.u32 [[HI:%r[0-9]+]], [[S]], 16;
# U32F-NEXT: cvt.rn.f32.u32 [[FLO:%f[0-9]+]], [[LO]];
# U32F-NEXT: cvt.rn.f32.u32 [[FHI:%f[0-9]+]], [[HI]];
# U32F-NEXT: fma.rn.f32 [[F:%f[0-9]+]], [[FHI]], 0f47800000, [[FLO]];
# U32F-NEXT: cvt.rn.f16.f32 {{%h[0-9]+}}, [[F]];


@triton.jit
def small_dot(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b, input_precision="ieee"))

# fp32 "ieee" stays exact on FMAs (tests/ptx/dot_mma.py has the tensor cores).
# DOT: st.shared.f32
# DOT: bar.sync 0
# DOT: ld.shared.f32
# DOT: fma.rn.f32
# DOT-NOT: mma.sync


# RUN: tesserac compile %s --kernel sort_hist --signature "*fp32:16, *fp32:16, *i32:16, 256" --emit ptx | FileCheck %s --check-prefix=SORT
@triton.jit
def sort_hist(x_ptr, y_ptr, h_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.sort(x, descending=True))
    tl.store(h_ptr + tl.arange(0, 16), tl.histogram(x.to(tl.int32), 16))

# SORT: setp.nan.f32
# SORT: xor.pred
# SORT: bar.sync 0
# SORT: red.shared.add.u32


# RUN: tesserac compile %s --kernel debugging --signature "*fp32:16, i32" --emit ptx --debug | FileCheck %s --check-prefix=DEBUG
# RUN: tesserac compile %s --kernel debugging --signature "*fp32:16, i32" --emit ptx | FileCheck %s --check-prefix=NODEBUG
@triton.jit
def debugging(x_ptr, n):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.device_print("x", x)
    tl.device_assert(x < 100.0, "x is small")

# DEBUG: .extern .func (.param .b32 func_retval0) vprintf
# DEBUG: .extern .func __assertfail
# DEBUG: .local .align 8 .b8 tessera_printbuf
# DEBUG: call.uni (retval0), vprintf, (param0, param1);
# DEBUG: call.uni __assertfail
# NODEBUG: vprintf
# NODEBUG-NOT: __assertfail


# Compare-and-swap of 16-bit elements is atom.cas.b16 (sm_70 and later):
# halves stay in their .b16 registers, int16 is narrowed and sign-extended
# back. (Triton's PTX leaves out the default .gpu scope of a CAS.)
# RUN: tesserac compile %s --kernel cas16 --signature "*fp16:16, *fp16:16" --emit ptx | FileCheck %s --check-prefix=CASH
# RUN: tesserac compile %s --kernel cas16 --signature "*i16:16, *i16:16" --emit ptx | FileCheck %s --check-prefix=CASI
@triton.jit
def cas16(x_ptr, out_ptr):
    offs = tl.arange(0, 128)
    zero = tl.zeros((128,), x_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, tl.atomic_cas(x_ptr + offs, zero, zero + 3, sem="acquire"))

# CASH: atom.global.acquire.cas.b16 %h{{[0-9]+}}, [%rd{{[0-9]+}}], %h{{[0-9]+}}, %h{{[0-9]+}}
# CASI: cvt.u16.u32 %h
# CASI: atom.global.acquire.cas.b16 [[OLD:%h[0-9]+]]
# CASI-NEXT: cvt.s32.s16 %r{{[0-9]+}}, [[OLD]]
