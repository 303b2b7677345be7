# tl.inline_asm_elementwise and the tl.extra.cuda specials: the asm text is
# copied inside a { } scope with $N replaced by fresh virtual registers
# (outputs first, then inputs), narrow elements packed four to a .b32, packed
# results unpacked with the signedness of their dtype; every module is
# assembled by ptxas when the CUDA toolkit is installed.
# RUN: tesserac compile %s --kernel shift_wrap --signature "*u32:16, *u32:16, *u32:16, 17, 128" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=WRAP --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel packed_i8 --signature "*u8:16, *i8:16, 512" --emit ptx --target sm_80 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PACK --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel two_results --signature "*u8:16, *fp32:16, *i32:16, *fp32:16, 512" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=MULTI --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel through_pointers --signature "*u8:16, *u8:16, 128" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTRS --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel halves --signature "*fp16:16, *fp16:16, *i32:16, 256" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=HALF --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel specials --signature "*i32:16, *i64:16" --emit ptx --target sm_90a --num-warps 8 -o %t.ptx
# RUN: FileCheck %s --check-prefix=SREG --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel specials --signature "*i32:16, *i64:16" --num-warps 8 | FileCheck %s --check-prefix=SREGIR
import triton
import triton.language as tl


@triton.jit
def shift_wrap(X, Y, Z, n: tl.constexpr, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    s = tl.full([BLOCK], n, tl.int32)
    z = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r, r, r", [x, y, s],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(Z + tl.arange(0, BLOCK), z)

# 128 elements over 128 threads: one call per thread, four fresh registers.
# WRAP: // begin inline asm
# WRAP-NEXT: {
# WRAP-NEXT: shf.l.wrap.b32 [[OUT:%r[0-9]+]], [[X:%r[0-9]+]], [[Y:%r[0-9]+]], [[S:%r[0-9]+]];
# WRAP-NEXT: }
# WRAP-NEXT: // end inline asm
# WRAP-NOT: begin inline asm
# WRAP: st.global


@triton.jit
def packed_i8(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r", [x],
                                  dtype=tl.int8, is_pure=True, pack=4)
    tl.store(Y + tl.arange(0, BLOCK), y)

# Four u8 go in one register, byte k at bits 8k; the four int8 results come
# out sign-extended.
# PACK: ld.global.b32
# PACK: bfi.b32 [[P:%r[0-9]+]], %r{{[0-9]+}}, [[P]], 0, 8;
# PACK-NEXT: bfi.b32 [[P]], %r{{[0-9]+}}, [[P]], 8, 8;
# PACK-NEXT: bfi.b32 [[P]], %r{{[0-9]+}}, [[P]], 16, 8;
# PACK-NEXT: bfi.b32 [[P]], %r{{[0-9]+}}, [[P]], 24, 8;
# PACK-NEXT: mov.b32 [[IN:%r[0-9]+]], [[P]];
# PACK-NEXT: // begin inline asm
# PACK-NEXT: {
# PACK-NEXT: and.b32 [[OUT:%r[0-9]+]], [[IN]], 0x1F1F1F1F; shl.b32 [[OUT]], [[OUT]], 3;
# PACK-NEXT: }
# PACK-NEXT: // end inline asm
# PACK-NEXT: bfe.s32 %r{{[0-9]+}}, [[OUT]], 0, 8;
# PACK: bfe.s32 %r{{[0-9]+}}, [[OUT]], 8, 8;
# PACK: bfe.s32 %r{{[0-9]+}}, [[OUT]], 16, 8;
# PACK: bfe.s32 %r{{[0-9]+}}, [[OUT]], 24, 8;


@triton.jit
def two_results(A, B, C, D, BLOCK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        {
            .reg .b8 tmp<4>;
            mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
            cvt.u32.u8 $0, tmp0;
            cvt.u32.u8 $1, tmp1;
            cvt.u32.u8 $2, tmp2;
            cvt.u32.u8 $3, tmp3;
        }
        cvt.rn.f32.s32 $4, $0;
        cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2;
        cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        """,
        constraints="=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r",
        args=[a, b], dtype=(tl.int32, tl.float32), is_pure=True, pack=4)
    tl.store(C + tl.arange(0, BLOCK), c)
    tl.store(D + tl.arange(0, BLOCK), d)

# Eight outputs, then the packed bytes of a, then four floats of b (moved
# from .f32 into .b32 registers, as "r" asks).
# MULTI: mov.b32 [[B0:%r[0-9]+]], %f{{[0-9]+}};
# MULTI: // begin inline asm
# MULTI: mov.b32 {tmp0, tmp1, tmp2, tmp3}, %r{{[0-9]+}};
# MULTI: max.f32 [[M0:%r[0-9]+]], [[M0]], [[B0]];
# MULTI: // end inline asm
# MULTI: mov.b32 %f{{[0-9]+}}, [[M0]];
# MULTI-NOT: begin inline asm


@triton.jit
def through_pointers(X, Y, BLOCK: tl.constexpr):
    x_ptrs = X + tl.arange(0, BLOCK)
    y_ptrs = Y + tl.arange(0, BLOCK)
    tl.inline_asm_elementwise(
        "ld.global.b8 $0, [$1]; shl.b32 $0, $0, 3; st.global.b8 [$2], $0;", "=r,l,l",
        [x_ptrs, y_ptrs], dtype=tl.int8, is_pure=False, pack=1)

# An impure asm whose result is unused stays; pointers go in .b64 registers.
# PTRS: // begin inline asm
# PTRS-NEXT: {
# PTRS-NEXT: ld.global.b8 [[V:%r[0-9]+]], [[[X:%rd[0-9]+]]]; shl.b32 [[V]], [[V]], 3; st.global.b8 [[[Y:%rd[0-9]+]]], [[V]];


@triton.jit
def halves(X, Y, Z, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    # Two f16 in one .b32 with pack=2; an "h" register for one f16; a scalar
    # argument broadcast; an input tied to output 0 ("0"); $$ is a dollar.
    y = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $1;", "=r,r", [x], dtype=tl.float16,
                                  is_pure=True, pack=2)
    h = tl.inline_asm_elementwise("neg.f16 $0, $1;", "=h,h", [y], dtype=tl.float16,
                                  is_pure=True, pack=1)
    t = tl.inline_asm_elementwise("add.s32 $0, $0, $2; // $$", "=r,0,r", [h.to(tl.int32), 7],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(Y + tl.arange(0, BLOCK), h)
    tl.store(Z + tl.arange(0, BLOCK), t)

# HALF: cvt.u32.u16
# HALF: add.rn.f16x2 [[P:%r[0-9]+]], [[A:%r[0-9]+]], [[A]];
# HALF: bfe.u32 %r{{[0-9]+}}, [[P]], 16, 16;
# HALF: neg.f16 %h{{[0-9]+}}, %h{{[0-9]+}};
# HALF: add.s32 [[T:%r[0-9]+]], [[T]], %r{{[0-9]+}}; // $
# HALF-NEXT: }


@triton.jit
def specials(Out, T):
    start = tl.extra.cuda.globaltimer()
    tl.store(Out + tl.program_id(0), tl.extra.cuda.smid())
    threads: tl.constexpr = tl.extra.cuda.num_threads()
    warps: tl.constexpr = tl.extra.cuda.num_warps()
    end = tl.extra.cuda.globaltimer()
    tl.store(T, end - start)
    tl.store(T + 1, threads * 1000 + warps)

# SREG: mov.u64 %rd{{[0-9]+}}, %globaltimer;
# SREG: mov.u32 %r{{[0-9]+}}, %smid;
# SREG: mov.u64 %rd{{[0-9]+}}, %globaltimer;
# SREGIR: read_sreg {reg = "globaltimer"} : i64
# SREGIR: read_sreg {reg = "smid"} : i32
# SREGIR: read_sreg {reg = "globaltimer"} : i64
# SREGIR: constant {value = 256008} : i64
