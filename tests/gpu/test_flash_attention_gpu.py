"""Flash attention forward and backward written as the course notes'
reading list writes it (tests/python/package/kernels/flash_attention.py),
on the GPU against float64 PyTorch with fresh random inputs; every output
starts as NaN. Also: the loader's occupancy hint takes that forward's
registers down to fit one more block per SM where a few registers keep it
out (LoadedKernel::load, occupancyBlockTarget), and only there."""
import pathlib
import sys

import pytest

from conftest import skip_without_gpu

skip_without_gpu()

import torch  # noqa: E402

TESTS = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS / "python" / "package"))
sys.path.insert(0, str(TESTS / "python"))
from kernels.flash_attention import FlashAttention, attention_fwd_kernel, reference  # noqa: E402
from tessera_testing import (_ptxas, hint_kept, hinted_report, occupancy_hint_blocks,  # noqa: E402
                             occupancy_register_cap, ptxas_report)

CASES = [(64, (128, 64), 4, 3), (64, (64, 32), 4, 4), (128, (128, 64), 8, 3)]


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim,blocks,num_warps,num_stages", CASES,
                         ids=[f"d{c[0]}-{c[1][0]}x{c[1][1]}-w{c[2]}" for c in CASES])
def test_forward_and_backward_match_pytorch(gen, causal, head_dim, blocks, num_warps, num_stages):
    batch, heads, seq = 2, 3, 512
    q, k, v = (torch.randn(batch, heads, seq, head_dim, generator=gen, device="cuda")
               .mul_(0.5).half().requires_grad_() for _ in range(3))
    scale = head_dim ** -0.5
    o = FlashAttention.apply(q, k, v, causal, scale, blocks, num_warps, num_stages)
    do = torch.randn(o.shape, generator=gen, device="cuda").half()
    o.backward(do)
    grads = [t.grad.clone() for t in (q, k, v)]

    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    ref = reference(q64, k64, v64, causal, scale)
    ref.backward(do.double())
    assert (o.double() - ref).abs().max().item() <= 1e-2
    for name, got, want in zip("qkv", grads, (q64.grad, k64.grad, v64.grad)):
        err = (got.double() - want).abs().max().item()
        assert err <= 2e-2 * max(1.0, want.abs().max().item()), f"d{name}: max error {err}"


# (head dim, blocks, warps, stages, causal): with ptxas 12 the first is
# two registers over what two 8-warp blocks per SM allow (130 against 128);
# the others fit their occupancy already.
HINT_CASES = [(64, (128, 128), 8, 2, True), (64, (128, 64), 4, 3, True),
              (64, (128, 64), 4, 3, False)]


@pytest.mark.parametrize("head_dim,blocks,num_warps,num_stages,causal", HINT_CASES,
                         ids=[f"d{c[0]}-{c[1][0]}x{c[1][1]}-w{c[2]}-{'causal' if c[4] else 'full'}"
                              for c in HINT_CASES])
def test_occupancy_hint_where_the_rule_asks(head_dim, blocks, num_warps, num_stages, causal):
    # The loader asks ptxas for one more block per SM (.minnctapersm) where
    # the rule (tessera_testing.occupancy_hint_blocks, from ptxas's report
    # of the kernel's PTX) says a register step keeps it out: the loaded
    # kernel then fits that occupancy, as long as ptxas can do it spilling
    # at most 16 bytes a thread more.
    if _ptxas() is None:
        pytest.skip("needs ptxas (the CUDA toolkit) to count the unhinted registers")
    major, minor = torch.cuda.get_device_capability()
    if major != 9:
        pytest.skip("the rule's limits are written for sm_90 (H100/H200)")
    attention_fwd_kernel.cache.get(torch.cuda.current_device(), {}).clear()
    q, k, v = (torch.randn(1, 2, 512, head_dim, device="cuda").half() for _ in range(3))
    FlashAttention.apply(q, k, v, causal, 0.125, blocks, num_warps, num_stages)
    torch.cuda.synchronize()
    kernel = next(iter(attention_fwd_kernel.cache[torch.cuda.current_device()].values()))
    ptx = kernel.asm["ptx"]
    before = ptxas_report(ptx, "sm_90a")
    threads = 32 * num_warps
    want = occupancy_hint_blocks(before["regs"], threads, kernel.metadata.shared)
    # Whether ptxas manages the hint within the rule's spill allowance.
    takes = bool(want) and hint_kept(before, hinted_report(ptx, want, "sm_90a"))
    if takes and kernel.n_regs <= occupancy_register_cap(want, threads):
        return  # hinted, as the rule asks
    if kernel.n_regs != before["regs"]:
        pytest.skip(f"the driver's JIT gives {kernel.n_regs} registers where the toolkit's ptxas "
                    f"gives {before['regs']}: their versions differ, so the rule cannot be "
                    "checked against this ptxas")
    assert not takes, f"{kernel.n_regs} registers: the loader did not ask for {want} blocks per SM"
