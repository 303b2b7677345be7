# tl.inline_asm_elementwise and the tl.extra.cuda specials: the asm text is
# copied inside a { } scope with $N replaced by fresh virtual registers
# (outputs first, then inputs), narrow elements packed four to a .b32, packed
# results unpacked with the signedness of their dtype; every module is
# assembled by ptxas when the CUDA toolkit is installed. The kernels are the
# GPU suite's (tests/gpu/test_inline_asm_gpu.py), which runs them against
# NumPy; `specials` is this file's own.
# RUN: tesserac compile %S/../gpu/test_inline_asm_gpu.py --kernel shift_wrap_kernel --signature "*u32:16, *u32:16, *u32:16, 17, 128" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=WRAP --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %S/../gpu/test_inline_asm_gpu.py --kernel packed_shift_kernel --signature "*u8:16, *i8:16, 512" --emit ptx --target sm_80 -o %t.ptx
# RUN: FileCheck %s --check-prefix=PACK --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_80 %t.ptx -o %t.cubin
# RUN: tesserac compile %S/../gpu/test_inline_asm_gpu.py --kernel packed_two_results_kernel --signature "*u8:16, *fp32:16, *i32:16, *fp32:16, 512" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=MULTI --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %S/../gpu/test_inline_asm_gpu.py --kernel through_pointers_kernel --signature "*u8:16, *u8:16, 128" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=PTRS --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %S/../gpu/test_inline_asm_gpu.py --kernel halves_kernel --signature "*fp16:16, *fp16:16, *i32:16, 256" --emit ptx --target sm_90a -o %t.ptx
# RUN: FileCheck %s --check-prefix=HALF --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel specials --signature "*i32:16, *i64:16" --emit ptx --target sm_90a --num-warps 8 -o %t.ptx
# RUN: FileCheck %s --check-prefix=SREG --input-file %t.ptx
# RUN: ! command -v ptxas >/dev/null || ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: tesserac compile %s --kernel specials --signature "*i32:16, *i64:16" --num-warps 8 | FileCheck %s --check-prefix=SREGIR
import triton
import triton.language as tl


# shift_wrap_kernel:
# 128 elements over 128 threads: one call per thread, four fresh registers.
# WRAP: // begin inline asm
# WRAP-NEXT: {
# WRAP-NEXT: shf.l.wrap.b32 [[OUT:%r[0-9]+]], [[X:%r[0-9]+]], [[Y:%r[0-9]+]], [[S:%r[0-9]+]];
# WRAP-NEXT: }
# WRAP-NEXT: // end inline asm
# WRAP-NOT: begin inline asm
# WRAP: st.global


# packed_shift_kernel:
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


# packed_two_results_kernel:
# Eight outputs, then the packed bytes of a, then four floats of b (moved
# from .f32 into .b32 registers, as "r" asks).
# MULTI: mov.b32 [[B0:%r[0-9]+]], %f{{[0-9]+}};
# MULTI: // begin inline asm
# MULTI: mov.b32 {tmp0, tmp1, tmp2, tmp3}, %r{{[0-9]+}};
# MULTI: max.f32 [[M0:%r[0-9]+]], [[M0]], [[B0]];
# MULTI: // end inline asm
# MULTI: mov.b32 %f{{[0-9]+}}, [[M0]];
# MULTI-NOT: begin inline asm


# through_pointers_kernel:
# An impure asm whose result is unused stays; pointers go in .b64 registers.
# PTRS: // begin inline asm
# PTRS-NEXT: {
# PTRS-NEXT: ld.global.b8 [[V:%r[0-9]+]], [[[X:%rd[0-9]+]]]; shl.b32 [[V]], [[V]], 3; st.global.b8 [[[Y:%rd[0-9]+]]], [[V]];


# halves_kernel: two f16 in one .b32 with pack=2; an "h" register for one
# f16; a scalar argument broadcast; an input tied to output 0 ("0"); $$ is a
# dollar.
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
