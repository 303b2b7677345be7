import triton
import triton.language as tl


@triton.jit
def cast_kernel(x_ptr, out_ptr, n, DST: tl.constexpr, BITCAST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x.to(DST, bitcast=BITCAST)
    tl.static_assert(y.dtype == DST)
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def fp8_roundtrip_kernel(x_ptr, bits_ptr, back_ptr, n, F8: tl.constexpr, BLOCK: tl.constexpr):
    # fp32 -> fp8 (round to nearest even), stored as raw bytes, and back to fp32.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x.to(F8)
    tl.store(bits_ptr + offs, y.to(tl.uint8, bitcast=True), mask=mask)
    tl.store(back_ptr + offs, y.to(tl.float32), mask=mask)


@triton.jit
def cast_fn_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # tl.cast spelled as a function, and a cast of a zeros_like tile.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.cast(x, tl.int32) + tl.zeros_like(x, dtype=tl.int32)
    tl.store(out_ptr + offs, y, mask=mask)
