"""Compiled kernels as Triton exposes them: `kernel.asm`, `kernel.metadata`,
`n_regs`/`n_spills`, and `compiled[grid](*args)` launches."""

from __future__ import annotations

import re

from ..runtime.errors import CompilationError, KernelError, OutOfResources

# cuda_info's message when a kernel needs more shared memory than allowed.
_SHARED_TOO_BIG = re.compile(r"needs (\d+) bytes of shared memory per block .* allows at most (\d+)")

__all__ = ["CompiledKernel", "CompilationError", "KernelMetadata"]


class KernelMetadata:
    """What `compiled.metadata` holds (attribute access, like Triton's named
    tuple): name, hash, target (a GPUTarget: ("cuda", 90, 32) on an H100,
    ("cpu", "interpreter", 32) on the interpreter), backend_name, arch,
    num_warps, num_stages, num_ctas, maxnreg, shared (bytes of shared
    memory; 0 on the CPU), cluster_dims, the scratch sizes (0: Tessera's
    kernels need none), Triton's option fields with the values Tessera
    applies, debug, constants (the constexpr values by parameter name) and
    signature (parameter -> type)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def _asdict(self) -> dict:
        return dict(self.__dict__)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"KernelMetadata({inner})"


class CompiledKernel:
    """One specialisation of a @jit function, compiled.

    `asm` maps each IR stage ("ttir-initial", "ttir") to its text. On the CPU
    back end `n_regs`, `n_spills` and `metadata.shared` are 0."""

    def __init__(self, kernel, runtime_params: list[int], num_params: int, metadata: KernelMetadata,
                 device: int = -1):
        self._kernel = kernel  # tessera._C.Kernel
        self._runtime_params = runtime_params  # indices of runtime parameters
        self._num_params = num_params
        self.metadata = metadata
        self.name = kernel.name
        self.hash = metadata.hash
        self.n_regs = 0
        self.n_spills = 0
        self.n_max_threads = 1
        self.function = None
        self.packed_metadata = None
        self._asm = None
        self._device = device
        if device >= 0:
            self._init_handles()

    @property
    def asm(self) -> dict:
        if self._asm is None:
            self._asm = {stage: self._kernel.ir(stage) for stage in self._kernel.stages}
        return self._asm

    @property
    def kernel(self):
        """The extension's kernel object (serialise, run)."""
        return self._kernel

    def _init_handles(self) -> None:
        """Loads the kernel onto its device (GPU kernels) and reads its
        register, spill and shared-memory use; nothing to do on the CPU."""
        if self._device < 0:
            return
        try:
            regs, local, shared, warps = self._kernel.cuda_info(self._device)
        except KernelError as e:
            # More shared memory than the device has: OutOfResources, which
            # the autotuner skips (as Triton does) and callers can catch.
            m = _SHARED_TOO_BIG.search(str(e))
            if m is None:
                raise
            raise OutOfResources(int(m.group(1)), int(m.group(2)), "shared memory") from e
        self.n_regs = regs
        self.n_spills = local // 4
        self.n_max_threads = 32 * warps
        self.metadata.shared = shared

    def launch_metadata(self, grid, stream, *args):
        return None

    def run_runtime_args(self, args, grid) -> None:
        """Runs with only the runtime arguments, in order."""
        g = _grid3(grid)
        self._kernel.run(list(args), g)

    def __getitem__(self, grid):
        """`compiled[grid](*args)`: every kernel argument in order (constexpr
        ones too, as with Triton; they must equal the compiled values)."""
        g = _grid3(grid)

        def launcher(*args):
            if len(args) == self._num_params:
                args = [args[i] for i in self._runtime_params]
            elif len(args) != len(self._runtime_params):
                raise TypeError(f"{self.name}: expected {self._num_params} arguments "
                                f"(or the {len(self._runtime_params)} runtime ones), got {len(args)}")
            self._kernel.run(list(args), g)

        return launcher

    def __repr__(self) -> str:
        return f"<tessera CompiledKernel {self.name} {self.hash[:12]}>"


def _grid3(grid) -> tuple[int, int, int]:
    from ..runtime.jit import _check_grid  # the launch path's grid check and messages

    return _check_grid(grid, grid_functions=False)
