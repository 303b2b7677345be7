"""Every example of examples/ through the Python API, at several sizes
including ragged ones, against float64 NumPy references."""
import os
import subprocess
import sys

import numpy as np
import pytest

EXAMPLES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples"))
sys.path.insert(0, EXAMPLES)

import demo  # noqa: E402  (examples/demo.py)


def check(cases):
    for case in cases if isinstance(cases, list) else [cases]:
        err = demo.max_rel_error(case["out"], case["ref"])
        assert err <= case["tolerance"], f"{case['name']} {case['size']}: error {err:.3e}"


@pytest.mark.parametrize("n", [1, 1000, 4096, 100003])
def test_vector_add(rng, n):
    import vector_add
    check(vector_add.demo(rng, n))


@pytest.mark.parametrize("n", [3, 5000])
def test_gelu(rng, n):
    import gelu
    check(gelu.demo(rng, n))


@pytest.mark.parametrize("shape", [(1, 1), (7, 33), (33, 781), (4, 1024)])
def test_softmax(rng, shape):
    import softmax
    check(softmax.demo(rng, shape))


@pytest.mark.parametrize("shape", [(2, 5), (3, 1000), (5, 2049)])
def test_softmax_online(rng, shape):
    import softmax_online
    check(softmax_online.demo(rng, shape))


@pytest.mark.parametrize("shape", [(16, 16, 16), (100, 37, 65), (129, 64, 200)])
def test_matmul_autotuned(rng, shape):
    import matmul
    check(matmul.demo(rng, shape))
    assert matmul.matmul_kernel.best_config is not None


@pytest.mark.parametrize("shape", [(1, 8), (37, 100), (300, 1000), (70, 3000)])
def test_layer_norm_forward_backward(rng, shape):
    import layer_norm
    check(layer_norm.demo(rng, shape))


@pytest.mark.parametrize("n", [1000, 1 << 16])
def test_dropout(rng, n):
    import dropout
    check(dropout.demo(rng, n, 0.25 if n > 1000 else 0.0))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape,blocks", [((1, 2, 200, 64), (64, 32, 4)),
                                          ((2, 1, 77, 16), (32, 16, 4)),
                                          ((1, 1, 128, 32), (64, 64, 4))])
def test_attention(rng, causal, shape, blocks):
    import attention
    q, k, v = (rng.standard_normal(shape).astype(np.float16) for _ in range(3))
    bm, bn, warps = blocks
    o, lse = attention.attention(q, k, v, causal=causal, block_m=bm, block_n=bn, num_warps=warps)
    ref = attention.reference(q, k, v, causal=causal)
    assert np.abs(o.astype(np.float64) - ref).max() < 2e-3
    s = q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2) / np.sqrt(shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, -np.inf)
    top = s.max(-1, keepdims=True)
    ref_lse = (top[..., 0] + np.log(np.exp(s - top).sum(-1))) / np.log(2)
    np.testing.assert_allclose(lse, ref_lse, rtol=0, atol=1e-4)


@pytest.mark.parametrize("layout", ["bhsd", "bshd-one-head", "bshd-one-batch"])
def test_attention_head_strides(rng, layout):
    """Heads walked as one Z * H axis: views whose size-1 dims carry any
    stride (torch's BSHD transposes) work; strides that do not fold into
    one axis are refused."""
    torch = pytest.importorskip("torch")
    import attention
    shape = {"bhsd": (2, 3, 64, 32), "bshd-one-head": (2, 64, 1, 32),
             "bshd-one-batch": (1, 64, 3, 32)}[layout]
    q, k, v = (torch.from_numpy(rng.standard_normal(shape).astype(np.float16)) for _ in range(3))
    if layout != "bhsd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    o, _ = attention.attention(q, k, v, block_m=32, block_n=16, num_warps=4)
    ref = attention.reference(q.numpy(), k.numpy(), v.numpy())
    assert np.abs(o.double().numpy() - ref).max() < 2e-3
    folded = torch.zeros(3, 2, 64, 32, dtype=torch.float16).transpose(0, 1)
    with pytest.raises(AssertionError, match="batch stride must be H times the head stride"):
        attention.attention(folded, folded, folded)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_warp_specialized(rng, causal):
    # warp_specialize is a GPU schedule: on the interpreter the same results.
    import attention
    q, k, v = (rng.standard_normal((1, 2, 80, 32)).astype(np.float16) for _ in range(3))
    o, lse = attention.attention(q, k, v, causal=causal, block_m=32, block_n=16, num_warps=4,
                                 warp_specialize=True)
    assert np.abs(o.astype(np.float64) - attention.reference(q, k, v, causal=causal)).max() < 2e-3


def test_attention_fp8_numpy_gives_fp16(rng):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    import attention
    q, k, v = (rng.standard_normal((1, 2, 64, 32)).astype(ml_dtypes.float8_e4m3fn)
               for _ in range(3))
    o, _ = attention.attention(q, k, v, block_m=32, block_n=16, num_warps=4)
    assert o.dtype == np.float16
    ref = attention.reference(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64))
    assert np.linalg.norm(o.astype(np.float64) - ref) / np.linalg.norm(ref) < 4e-2


@pytest.mark.parametrize("dtype", ["float8_e5m2", "float8_e4m3fn"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("v_keys_contiguous", [False, True])
def test_attention_fp8(dtype, causal, v_keys_contiguous):
    """fp8 Q, K and V (torch tensors on the CPU) give fp16 O; P is rounded to
    fp8 before P V, which bounds the error against the exact attention of
    the same fp8 values (about 2% for e4m3, 4% for e5m2 here)."""
    torch = pytest.importorskip("torch")
    import attention
    g = torch.Generator().manual_seed(int(np.random.default_rng().integers(2**31)))
    q, k, v = (torch.randn(1, 2, 150, 32, generator=g).to(getattr(torch, dtype))
               for _ in range(3))
    if v_keys_contiguous:
        v = v.transpose(-1, -2).contiguous().transpose(-1, -2)
    o, lse = attention.attention(q, k, v, causal=causal, block_m=64, block_n=32, num_warps=4)
    assert o.dtype == torch.float16
    ref = attention.reference(q.double().numpy(), k.double().numpy(), v.double().numpy(),
                              causal=causal)
    err = np.linalg.norm(o.double().numpy() - ref) / np.linalg.norm(ref)
    assert err < (4e-2 if dtype == "float8_e4m3fn" else 8e-2), err


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape,blocks", [((1, 2, 200, 64), (64, 32)),
                                          ((2, 1, 77, 16), (16, 32)),
                                          ((1, 1, 128, 32), (64, 64))])
def test_attention_backward(rng, causal, shape, blocks):
    import attention
    q, k, v, do = (rng.standard_normal(shape).astype(np.float16) for _ in range(4))
    o, lse = attention.attention(q, k, v, causal=causal, block_m=64, block_n=16, num_warps=4)
    bm, bn = blocks
    grads = attention.attention_backward(q, k, v, o, lse, do, causal=causal, block_m=bm,
                                         block_n=bn)
    refs = attention.reference_backward(q, k, v, do, causal=causal)
    for name, g, r in zip(("dq", "dk", "dv"), grads, refs):
        # P and dS are rounded to fp16 before their products, as on the GPU.
        err = np.abs(g.astype(np.float64) - r).max() / np.abs(r).max()
        assert err < 3e-3, (name, err)


def test_demo_script_runs():
    env = dict(os.environ)
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "demo.py"), "--quick"], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all examples correct" in r.stdout
