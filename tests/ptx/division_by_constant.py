# Integer division by a constant: ptxas divides by an immediate as by any
# register (a float reciprocal and corrections), so the emitter writes a
# power of two as shifts and another 32-bit divisor as a multiply-high.
# RUN: tesserac compile %s --kernel by_constants --signature "*i32:16, *u32:16, *i64:16, i32" --emit ptx | FileCheck %s
# RUN: tesserac compile %s --kernel cdiv_grid --signature "*i32:16, i32, i32, 64" --emit ptx | FileCheck %s --check-prefix=CDIV
import triton
import triton.language as tl


@triton.jit
def by_constants(p, u, w, n):
    x = tl.load(p + tl.arange(0, 32))
    y = tl.load(u + tl.arange(0, 32))
    z = tl.load(w + tl.arange(0, 32))
    tl.store(p + tl.arange(0, 32), x // 16 + x % 16 + x // 7 + x % 1)
    tl.store(u + tl.arange(0, 32), y // 16 + y % 16 + y // 7)
    tl.store(w + tl.arange(0, 32), z // 1024 + z % 1024)

# Signed by 16: the dividend biased by 15 where negative, then shifted;
# the remainder is the dividend less the quotient's multiple of 16.
# CHECK: shr.s32 [[S:%r[0-9]+]], [[X:%r[0-9]+]], 31;
# CHECK-NEXT: shr.u32 [[S]], [[S]], 28;
# CHECK-NEXT: add.s32 [[B:%r[0-9]+]], [[X]], [[S]];
# CHECK-NEXT: shr.s32 %r{{[0-9]+}}, [[B]], 4;
# CHECK: and.b32 [[M:%r[0-9]+]], {{%r[0-9]+}}, -16;
# CHECK-NEXT: sub.s32 %r{{[0-9]+}}, [[X]], [[M]];
# By 7: the multiplier 2^32 * (2^3 - 7) / 7 + 1 = 613566757.
# CHECK: mul.hi.u32 %r{{[0-9]+}}, 613566757,
# Unsigned: a shift and a mask.
# CHECK: shr.u32 %r{{[0-9]+}}, %r{{[0-9]+}}, 4;
# CHECK: and.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 15;
# 64-bit by a power of two.
# CHECK: shr.s64 [[S64:%rd[0-9]+]], [[X64:%rd[0-9]+]], 63;
# CHECK-NEXT: shr.u64 [[S64]], [[S64]], 54;
# Nothing divides in full.
# CHECK-NOT: div.s
# CHECK-NOT: rem.s
# CHECK-NOT: div.u
# CHECK-NOT: rem.u


@triton.jit
def cdiv_grid(out, m, n, BLOCK: tl.constexpr):
    tl.store(out + tl.program_id(0), tl.cdiv(m, BLOCK) * tl.cdiv(n, BLOCK))

# tl.cdiv(m, 64): (m + 63) // 64 with no division instruction.
# CDIV-NOT: div.s32
# CDIV: shr.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, 6;
# CDIV-NOT: div.s32
