"""`triton.profiler` (proton): a small profiler that times named scopes.

    import tessera.profiler as proton

    proton.start("matmul", hook="triton")   # hook: every @jit launch is a scope too
    with proton.scope("cuBLAS", {"flops16": 2 * M * N * K, "bytes": nbytes}):
        torch.matmul(a, b)
    proton.finalize()                       # writes matmul.hatchet

    python -m tessera.profiler.viewer -m tflop16/s,time/ms matmul.hatchet

Scopes nest and are counted per call; `activate`/`deactivate` pause a
session, `enter_scope`/`exit_scope` open and close scopes without `with`.
GPU scopes are timed with CUDA events on PyTorch's current stream (see
profile.py for exactly what that measures); on the CPU interpreter with
the host clock. Proton's other back ends (CUPTI kernel records, PC
sampling, instrumentation) are not provided: asking for them is an error.
"""

from .profile import (  # noqa: F401
    DEFAULT_PROFILE_NAME,
    activate,
    cpu_timed_scope,
    deactivate,
    enter_scope,
    exit_scope,
    finalize,
    profile,
    scope,
    start,
)
from . import viewer  # noqa: F401
