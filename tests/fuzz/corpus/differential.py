# A program of the differential generator (tests/python/differential, seed 151):
# identities, stores read back, loops, ifs, reductions and scans for the mutator.
import triton
import triton.language as tl


@triton.jit
def diff_151(x0, x1, x2, x3, x4, x5, x6, x7, o0, o1, o2, n, s0, s1, s_n, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    idx = pid * (BM * BN) + rm[:, None] * BN + rn[None, :]
    inb = idx < n
    if s0 > 4:
        v1 = (tl.max(((tl.load(x0 + idx + 5, mask=inb & (rn[None, :] < s_n), other=0.0)) / (tl.load(x0 + idx + 5, mask=(rm[:, None] % 2 == 0) & inb, other=2.0))).to(tl.float16), axis=0)).to(tl.float16)
    else:
        v1 = (((tl.full((BN,), float("nan"), tl.bfloat16)) - tl.load(x3 + rn + 13)) % (tl.where(tl.load(x1 + rn + 6) != tl.load(x1 + rn + 3), tl.load(x2 + rn + 1).to(tl.float16), tl.load(x0 + rn + 6)))).to(tl.float16)
    tl.store(o0 + idx, ((tl.load(x0 + idx, mask=(rm[:, None] % 2 == 0) & inb, other=0.5)) % tl.load(x0 + idx + 8, mask=inb, other=0.5)).to(tl.float16), mask=inb)
    for i2 in range(0, s1):
        t3 = tl.load(o0 + idx, mask=inb, other=-3.0)
        tl.store(o0 + idx, (t3 * 2).to(tl.float16), mask=inb)
    v4 = tl.load(o0 + idx, mask=inb, other=-3.0)
    t5 = -tl.load(x6 + 13)
    v6 = tl.broadcast_to(((t5 % -4) & (((tl.cumsum((tl.full((BM,), 7, tl.int32)).to(tl.int8), axis=0)).to(tl.int8)) ^ (tl.minimum((tl.load(x4 + rm * 1 + 3).to(tl.int8)), tl.load(x5 + rm * 2 + 6)))))[:, None], (BM, BN))
    tl.store(o1 + idx + 31, tl.broadcast_to((tl.minimum((tl.maximum(tl.load(x7 + rm * 2 + 4), tl.load(x4 + rm * 1 + 8))), (-tl.load(x4 + rm * 2 + 14))))[:, None], (BM, BN)), mask=inb & (rm[:, None] != 1))
    tl.store(o2 + idx, v4, mask=inb)
