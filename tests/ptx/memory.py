# Global memory: 16-byte vectors where axis info proves contiguity and
# alignment, scalar accesses where it does not, sub-word types packed into
# 32-bit words, cache hints, masked loads with `other`.
# RUN: tesserac compile %s --kernel copy --signature "*fp32:16, *fp32:16, i32:16, 1024" --emit ptx --target sm_90a | FileCheck %s --check-prefix=ALIGNED
# RUN: tesserac compile %s --kernel copy --signature "*fp32, *fp32, i32, 1024" --emit ptx --target sm_80 | FileCheck %s --check-prefix=UNALIGNED
# RUN: tesserac compile %s --kernel copy --signature "*fp16:16, *fp16:16, i32:16, 1024" --emit ptx | FileCheck %s --check-prefix=HALF
# RUN: tesserac compile %s --kernel hints --signature "*fp32:16, *fp32:16, i32:16" --emit ptx | FileCheck %s --check-prefix=HINTS
import triton
import triton.language as tl


@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m, other=1.5), mask=m)

# ALIGNED: // tessera.num_warps = 4
# ALIGNED: .target sm_90a
# ALIGNED: .file 1 "{{.*}}memory.py"
# ALIGNED: .visible .entry copy(
# ALIGNED: .maxntid 128, 1, 1
# ALIGNED: mov.u32 %r{{[0-9]+}}, %ctaid.x
# ALIGNED: .loc 1 15
# ALIGNED: mov.f32 [[OTHER:%f[0-9]+]], 0f3FC00000
# ALIGNED: @%p{{[0-9]+}} ld.global.v4.b32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, [%rd{{[0-9]+}}]
# ALIGNED: st.global.v4.b32
# ALIGNED-NOT: ld.global.b32

# UNALIGNED: .target sm_80
# UNALIGNED-NOT: ld.global.v4
# UNALIGNED: ld.global.b32
# UNALIGNED-NOT: st.global.v4
# UNALIGNED: st.global.b32

# HALF: ld.global.v4.b32
# HALF: bfe.u32
# HALF: cvt.u16.u32 %h
# HALF: mov.b32 %r{{[0-9]+}}, {%h{{[0-9]+}}, %h{{[0-9]+}}}
# HALF: st.global.v4.b32


@triton.jit
def hints(x_ptr, y_ptr, n):
    offs = tl.arange(0, 512)
    x = tl.load(x_ptr + offs, cache_modifier=".cg")
    y = tl.load(y_ptr + offs, eviction_policy="evict_last")
    tl.store(y_ptr + offs, x + y, cache_modifier=".cs")

# HINTS: ld.global.cg.v4.b32
# HINTS: ld.global.L1::evict_last.v4.b32
# HINTS: st.global.cs.v4.b32


# A half-precision scalar parameter travels as f32 and is converted after it is loaded.
# RUN: tesserac compile %s --kernel store_scalar --signature "*fp16:16, fp16" --emit ptx | FileCheck %s --check-prefix=PARAM
@triton.jit
def store_scalar(x_ptr, s):
    tl.store(x_ptr, s)

# PARAM: ld.param.f32 [[F:%f[0-9]+]], [store_scalar_param_1]
# PARAM-NEXT: cvt.rn.f16.f32 %h{{[0-9]+}}, [[F]]


# `tl.multiple_of(p, ...)` written as a statement, its result unused, still
# tells later uses of p (Triton annotates the value itself; its grouped GEMM
# tutorial relies on it): 16-byte loads in the loop with the hint, 4-byte
# ones without.
# RUN: tesserac compile %s --kernel rows --signature "*fp32:16, *fp32:16, i32, 1" --emit ptx | FileCheck %s --check-prefix=STMT-HINT
# RUN: tesserac compile %s --kernel rows --signature "*fp32:16, *fp32:16, i32, 0" --emit ptx | FileCheck %s --check-prefix=NO-HINT
@triton.jit
def rows(x_ptr, y_ptr, ld, HINT: tl.constexpr):
    ptrs = x_ptr + tl.program_id(0) * ld + tl.arange(0, 512)
    acc = tl.zeros((512,), tl.float32)
    for i in range(4):
        if HINT:
            tl.multiple_of(ptrs, 16)
        acc += tl.load(ptrs)
        ptrs += ld
    tl.store(y_ptr + tl.arange(0, 512), acc)

# STMT-HINT: ld.global.v4.b32
# STMT-HINT-NOT: ld.global.b32
# NO-HINT-NOT: ld.global.v4.b32
# NO-HINT: ld.global.b32


# Hints nested in one another, as a statement, hint the innermost name
# (test_core's test_vectorization_hints): offsets from a loaded base become
# 16-byte loads with the hints and stay 4-byte ones without.
# RUN: tesserac compile %s --kernel nested_hints --signature "*fp32:16, *fp32:16, *i32:16, i32:16, 1" --emit ptx | FileCheck %s --check-prefix=NESTED
# RUN: tesserac compile %s --kernel nested_hints --signature "*fp32:16, *fp32:16, *i32:16, i32:16, 0" --emit ptx | FileCheck %s --check-prefix=NO-HINT
@triton.jit
def nested_hints(dst, src, off, n, HINT: tl.constexpr):
    offsets = tl.program_id(0) * 1024 + tl.arange(0, 1024)
    offsets = offsets + tl.load(off)
    if HINT:
        tl.max_contiguous(tl.multiple_of(offsets, 1024), 1024)
    tl.store(dst + offsets, tl.load(src + offsets, mask=offsets < n), mask=offsets < n)

# NESTED: ld.global.v4.b32
# NESTED: st.global.v4.b32


# A descriptor made in the kernel promises what Triton documents: a 16-byte
# aligned base and strides of whole 16-byte units, so its rows load as
# 16-byte vectors from an unaligned pointer argument with a run-time stride
# (where the last extent n keeps the bounds mask whole over 8 elements; the
# tensor memory accelerator, not used yet, would not need that).
# RUN: tesserac compile %s --kernel desc_copy --signature "*fp16, *fp16:16, i32, i32:16, i32" --emit ptx | FileCheck %s --check-prefix=DESC
@triton.jit
def desc_copy(x_ptr, y_ptr, m, n, ld):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[m, n], strides=[ld, 1], block_shape=[32, 64])
    tile = desc.load([tl.program_id(0) * 32, 0])
    rows = tl.arange(0, 32)[:, None]
    cols = tl.arange(0, 64)[None, :]
    tl.store(y_ptr + rows * 64 + cols, tile)

# DESC: ld.global.v4.b32
# DESC-NOT: ld.global.b16
# The block's row and column offsets meet by expand_dims (canonicalize turns
# the lowering's [n] -> [1, n] reshape into one), so no offset tile moves
# through shared memory.
# DESC-NOT: st.shared
# DESC-NOT: bar.sync


# A host TensorDescriptor in the signature, Triton's AOT form
# `tensordesc<fp16[64, 64]>` (`:16`: base aligned and shape dims multiples of
# 16, as Python specialises): the kernel takes the base pointer, one i32 per
# shape dim and one i64 per stride but the last; loads are 16-byte vectors.
# RUN: tesserac compile %s --kernel host_desc_copy --signature "tensordesc<fp16[32, 64]>:16, *fp16:16" --emit ptx | FileCheck %s --check-prefix=HOST-DESC
# RUN: tesserac compile %s --kernel host_desc_copy --signature "tensordesc<fp16[32, 64]>:16:nan, *fp16:16" --emit ttir | FileCheck %s --check-prefix=HOST-DESC-TTIR
# RUN: tesserac compile %s --kernel host_desc_copy --signature "tensordesc<fp16[32, 64]>:16:nan, *fp16:16" --emit ttgir | FileCheck %s --check-prefix=HOST-DESC-NAN
@triton.jit
def host_desc_copy(desc, y_ptr):
    tile = desc.load([tl.program_id(0) * 32, 0])
    rows = tl.arange(0, 32)[:, None]
    cols = tl.arange(0, 64)[None, :]
    tl.store(y_ptr + rows * 64 + cols, tile)

# HOST-DESC: .param .u64 host_desc_copy_param_0,
# HOST-DESC-NEXT: .param .u32 host_desc_copy_param_1,
# HOST-DESC-NEXT: .param .u32 host_desc_copy_param_2,
# HOST-DESC-NEXT: .param .u64 host_desc_copy_param_3,
# HOST-DESC-NEXT: .param .u64 host_desc_copy_param_4
# HOST-DESC: ld.global.v4.b32
# HOST-DESC-NOT: ld.global.b16
# The Tile IR keeps the load whole (a descriptor_load); the GPU passes expand
# it to a masked load whose padding is NaN where the block leaves the tensor.
# HOST-DESC-TTIR: descriptor_load %desc, %desc_shape0, %desc_shape1, %desc_stride0, {{.*}} {block = [32, 64], padding = "nan"} : tile<32x64xf16>
# HOST-DESC-NAN-NOT: descriptor_load
# HOST-DESC-NAN: constant {value = nan} : tile<32x64xf16
# HOST-DESC-NAN: load {{.*}} : tile<32x64xf16


# A tile loaded along rows and stored along columns (a transpose): the
# stored value (and its mask, recomputed) goes through shared memory, so the
# store writes 16-byte vectors too instead of one element per lane.
# RUN: tesserac compile %s --kernel transpose --signature "*fp32:16, *fp32:16, i32:16, i32:16" --emit ptx | FileCheck %s --check-prefix=TRANSPOSE
@triton.jit
def transpose(x_ptr, z_ptr, m, n):
    rm = tl.program_id(0) * 64 + tl.arange(0, 64)
    rn = tl.program_id(1) * 64 + tl.arange(0, 64)
    mask = (rm[:, None] < m) & (rn[None, :] < n)
    x = tl.load(x_ptr + rm[:, None] * n + rn[None, :], mask=mask)
    tl.store(z_ptr + rm[:, None] + rn[None, :] * m, x, mask=mask)

# TRANSPOSE: ld.global.v4.b32
# TRANSPOSE: st.shared.v4.b32
# TRANSPOSE: bar.sync
# TRANSPOSE: st.global.v4.b32
# TRANSPOSE-NOT: st.global.b32


# A bound known only at run time (n, no divisibility) ends runs of a row
# anywhere: each 16-byte vector is stored whole when its last element is in
# bounds (the mask is a prefix mask over the run), else element by element
# under the masks of the elements less that of the whole vector.
# RUN: tesserac compile %s --kernel ragged_store --signature "*fp16:16, i32, i32:16" --emit ptx | FileCheck %s --check-prefix=RAGGED
# RUN: tesserac compile %s --kernel ragged_store --signature "*fp16:16, i32:16, i32:16" --emit ptx | FileCheck %s --check-prefix=ALIGNED-BOUND
@triton.jit
def ragged_store(y_ptr, n, ld):
    rows = tl.arange(0, 16)[:, None]
    cols = tl.arange(0, 64)[None, :]
    tl.store(y_ptr + rows * ld + cols, (rows * 64 + cols).to(tl.float16), mask=cols < n)

# RAGGED: .visible .entry ragged_store(
# RAGGED: and.pred [[PART:%p[0-9]+]], [[FIRST:%p[0-9]+]], ![[LAST:%p[0-9]+]]
# RAGGED: @[[LAST]] st.global.v4.b32 [[[BASE:%rd[0-9]+]]]
# RAGGED-NEXT: @[[PART]] st.global.b16 [[[BASE]]]
# The vector's other elements are addressed from its first: no address
# arithmetic of their own.
# RAGGED-NEXT: @{{%p[0-9]+}} st.global.b16 [[[BASE]]+2]
# RAGGED: @{{%p[0-9]+}} st.global.b16 [[[BASE]]+12]
# RAGGED: ret

# ALIGNED-BOUND: .visible .entry ragged_store(
# ALIGNED-BOUND-NOT: st.global.b16
# ALIGNED-BOUND: st.global.v4.b32
# ALIGNED-BOUND-NOT: st.global.b16
# ALIGNED-BOUND: ret


# Loads the same way: a vector whose last element is in bounds loads whole
# (16 bytes), the others element by element into the same registers, each
# under its own mask less the whole vector's; masked-off elements keep
# `other`.
# RUN: tesserac compile %s --kernel ragged_load --signature "*fp16:16, *fp32:16, i32" --emit ptx | FileCheck %s --check-prefix=RAGGED-LOAD
# RUN: tesserac compile %s --kernel ragged_load --signature "*fp16:16, *fp32:16, i32" --emit ptx --target sm_80 | FileCheck %s --check-prefix=RAGGED-LOAD
@triton.jit
def ragged_load(x_ptr, y_ptr, n):
    offs = tl.program_id(0) * 1024 + tl.arange(0, 1024)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1.0)
    tl.store(y_ptr + tl.program_id(0), tl.sum(x.to(tl.float32)))

# RAGGED-LOAD: .visible .entry ragged_load(
# RAGGED-LOAD: and.pred [[PART:%p[0-9]+]], {{%p[0-9]+}}, ![[LAST:%p[0-9]+]]
# RAGGED-LOAD: @[[LAST]] ld.global.v4.b32 {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, [[[BASE:%rd[0-9]+]]]
# RAGGED-LOAD: @[[PART]] ld.global.b16 [[H:%h[0-9]+]], [[[BASE]]]
# RAGGED-LOAD-NEXT: ld.global.b16 {{%h[0-9]+}}, [[[BASE]]+2]
# RAGGED-LOAD-NOT: ld.global.v4
# RAGGED-LOAD: ret


# Bytes two to a thread: a pair whose last byte is in bounds loads under that
# byte's mask, both bytes of it (a pair is narrower than the packed-word
# path); no byte loads unpredicated, so the bytes past n keep `other`.
# RUN: tesserac compile %s --kernel ragged_byte_load --signature "*i8:16, *i32:16, i32" --emit ptx | FileCheck %s --check-prefix=BYTE-LOAD
@triton.jit
def ragged_byte_load(x_ptr, y_ptr, n):
    offs = tl.program_id(0) * 256 + tl.arange(0, 256)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1)
    tl.store(y_ptr + tl.program_id(0), tl.sum(x.to(tl.int32)))

# BYTE-LOAD: .visible .entry ragged_byte_load(
# BYTE-LOAD-NOT: {{^[[:space:]]*}}ld.global
# BYTE-LOAD: @[[PAIR:%p[0-9]+]] ld.global.s8
# BYTE-LOAD-NEXT: @[[PAIR]] ld.global.s8
# BYTE-LOAD-NEXT: @{{%p[0-9]+}} ld.global.s8
# BYTE-LOAD-NOT: {{^[[:space:]]*}}ld.global
# BYTE-LOAD: ret
