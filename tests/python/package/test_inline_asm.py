"""tl.inline_asm_elementwise and tl.extra.cuda on the CPU: the interpreter
refuses inline PTX at the call with a located error (Triton's interpreter
cannot run it either), and gives the CUDA specials their documented host
values. The PTX itself is checked in tests/ptx/inline_asm.py and run on the
device in tests/gpu/test_inline_asm_gpu.py."""
import numpy as np
import pytest

import tessera as triton
import tessera.language as tl


@triton.jit
def shift_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("shl.b32 $0, $1, 3;", "=r,r", [x], dtype=tl.int32,
                                  is_pure=True, pack=1)
    tl.store(y_ptr + tl.arange(0, BLOCK), y)


def test_interpreter_refuses_inline_asm_at_the_call():
    x = np.arange(16, dtype=np.int32)
    y = np.full(16, -1, np.int32)
    with pytest.raises(triton.KernelError) as e:
        shift_kernel[(1,)](x, y, BLOCK=16)
    msg = str(e.value)
    assert "inline PTX assembly (tl.inline_asm_elementwise) runs only on the GPU back end" in msg
    assert "test_inline_asm.py:16:9:" in msg  # the line of the call, with a caret under it
    assert "^" in msg and "launch the kernel on a CUDA device" in msg
    assert (y == -1).all()


@triton.jit
def specials_kernel(out_ptr, times_ptr):
    pid = tl.program_id(0)
    t0 = tl.extra.cuda.globaltimer()
    tl.store(out_ptr + pid, tl.extra.cuda.smid())
    offs = tl.arange(0, tl.extra.cuda.num_threads())
    tl.store(out_ptr + 64 + offs, offs * 0 + tl.extra.cuda.num_warps())
    t1 = tl.extra.cuda.globaltimer()
    tl.store(times_ptr + 2 * pid, t0)
    tl.store(times_ptr + 2 * pid + 1, t1)


@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_cuda_specials_on_the_interpreter(num_warps):
    threads = 32 * num_warps
    out = np.full(64 + 256, -7, np.int32)
    times = np.zeros(2 * 8, np.int64)
    specials_kernel[(8,)](out, times, num_warps=num_warps)
    assert (out[:8] == 0).all()  # one "SM"
    assert (out[8:64] == -7).all()
    # num_threads() is 32 * num_warps of this launch (a constexpr: the
    # arange's length), num_warps() the launch's value.
    assert (out[64:64 + threads] == num_warps).all()
    assert (out[64 + threads:] == -7).all()
    # globaltimer: nanoseconds of a clock that does not go back.
    assert (times > 0).all()
    assert (times[1::2] >= times[0::2]).all()


def test_cuda_specials_through_the_module_names():
    import tessera.language.extra.cuda as cuda

    @triton.jit
    def kernel(out_ptr):
        tl.store(out_ptr, cuda.num_warps() + cuda.smid())

    out = np.full(1, -1, np.int32)
    kernel[(1,)](out, num_warps=2)
    assert out[0] == 2


# Triton's tests pass the specials as tl.constexpr arguments
# (test_core.py's test_num_threads / test_smid); kernel-language functions
# travel as constants by their builtin names.
@triton.jit
def threads_kernel(out_ptr, get_num_threads: tl.constexpr, get_smid: tl.constexpr):
    num_threads: tl.constexpr = get_num_threads()
    offs = tl.arange(0, num_threads)
    tl.store(out_ptr + offs, 1 + get_smid())


@pytest.mark.parametrize("num_warps", [2, 8])
def test_functions_as_constexpr_arguments(num_warps):
    out = np.zeros(512, np.int32)
    threads_kernel[(1,)](out, get_num_threads=tl.extra.cuda.num_threads,
                         get_smid=tl.extra.cuda.smid, num_warps=num_warps)
    assert out.sum() == 32 * num_warps and (out[:32 * num_warps] == 1).all()


@triton.jit
def apply_kernel(x_ptr, y_ptr, FN: tl.constexpr):
    offs = tl.arange(0, 16)
    tl.store(y_ptr + offs, FN(tl.load(x_ptr + offs)))


def test_tl_function_as_constexpr_argument():
    from tessera.language.extra import libdevice
    x = np.random.default_rng().uniform(-0.9, 0.9, 16).astype(np.float32)
    for fn, ref in ((tl.abs, np.abs), (tl.math.exp, np.exp), (libdevice.asin, np.arcsin)):
        y = np.full(16, np.nan, np.float32)
        apply_kernel[(1,)](x, y, FN=fn)
        np.testing.assert_allclose(y, ref(x.astype(np.float64)), rtol=2e-6)


def test_a_host_function_is_still_refused_as_constexpr():
    with pytest.raises(TypeError, match="argument 'FN': a builtin_function_or_method cannot be"):
        apply_kernel[(1,)](np.zeros(16, np.float32), np.zeros(16, np.float32), FN=print)
