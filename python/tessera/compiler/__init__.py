"""Compiled kernels as Triton exposes them: `kernel.asm`, `kernel.metadata`,
`n_regs`/`n_spills`, and `compiled[grid](*args)` launches."""

from __future__ import annotations

import re

from ..runtime.errors import CompilationError, KernelError, OutOfResources
from . import errors  # noqa: F401  (`triton.compiler.errors.X` without importing it, as in Triton)

# cuda_info's message when a kernel needs more shared memory than allowed.
_SHARED_TOO_BIG = re.compile(r"needs (\d+) bytes of shared memory per block .* allows at most (\d+)")

__all__ = ["ASTSource", "CompiledKernel", "CompilationError", "KernelMetadata", "compile"]


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
                 device: int = -1, flatten=None):
        self._kernel = kernel  # tessera._C.Kernel
        self._runtime_params = runtime_params  # indices of runtime parameters
        self._num_params = num_params
        # A kernel given tuples: the arguments to the leaves the parameters
        # above count (tuple_args.py).
        self._flatten = flatten
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
        from .. import knobs
        knobs.runtime.kernel_load_start_hook(None, None, self.name, {}, self.hash)
        if device >= 0:
            self._init_handles()
        knobs.runtime.kernel_load_end_hook(None, None, self.name, {}, self.hash)

    @property
    def asm(self) -> dict:
        """IR stages by name ("ttir-initial", "ttir", and on the GPU
        "ttgir", "ptx"; a warp-specialised kernel also has
        "ptx-unspecialized", the PTX without its producer warp that the
        loader runs instead where the producer warp would spill or cost a
        block per SM); for a GPU kernel also "cubin" and "sass" on first
        access (see _Asm)."""
        if self._asm is None:
            self._asm = _Asm({stage: self._kernel.ir(stage) for stage in self._kernel.stages})
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
            regs, local, shared, threads = self._kernel.cuda_info(self._device)
        except KernelError as e:
            # More shared memory than the device has: OutOfResources, which
            # the autotuner skips (as Triton does) and callers can catch.
            m = _SHARED_TOO_BIG.search(str(e))
            if m is None:
                raise
            raise OutOfResources(int(m.group(1)), int(m.group(2)), "shared memory") from e
        self.n_regs = regs
        self.n_spills = local // 4
        # A warp-specialised kernel's producer warp too, where the loader
        # kept that variant (not its unspecialised twin).
        self.n_max_threads = threads
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
            if self._flatten is not None:
                args = self._flatten(args)
            if len(args) == self._num_params:
                args = [args[i] for i in self._runtime_params]
            elif len(args) != len(self._runtime_params):
                raise TypeError(f"{self.name}: expected {self._num_params} arguments "
                                f"(or the {len(self._runtime_params)} runtime ones), got {len(args)}")
            self._kernel.run(list(args), g)

        return launcher

    def __repr__(self) -> str:
        return f"<tessera CompiledKernel {self.name} {self.hash[:12]}>"


class _Asm(dict):
    """A kernel's stages. "cubin" and "sass", which Triton also lists, are
    made from the PTX when first asked for, by NVIDIA's ptxas and cuobjdump
    (`knobs.nvidia`: TRITON_PTXAS_PATH / TRITON_CUOBJDUMP_PATH or the tools
    on PATH). Tessera's own launches never need them: the driver assembles
    the PTX."""

    def __missing__(self, key):
        if key not in ("cubin", "sass") or "ptx" not in self:
            raise KeyError(key)
        if key == "cubin":
            value = _assemble(self["ptx"])
        else:
            value = _disassemble(self["cubin"])
        self[key] = value
        return value


def _run_tool(name: str, what: str, args: list) -> str:
    """Runs knobs.nvidia.<name> with `args`; its stdout. A missing tool is a
    KeyError (the key cannot be made), a failing one a CompilationError."""
    import os
    import subprocess

    from .. import knobs

    tool = getattr(knobs.nvidia, name)
    if not tool.path or not os.path.isfile(tool.path):
        raise KeyError(f"asm[{what!r}] needs NVIDIA's {name}: set TRITON_{name.upper()}_PATH or "
                       "put it on PATH (Tessera's own launches do not need it)")
    run = subprocess.run([tool.path, *args], capture_output=True, text=True)
    if run.returncode != 0:
        raise CompilationError(f"{tool.path} failed making asm[{what!r}]:\n{run.stderr.strip()}")
    return run.stdout


def _assemble(ptx: str) -> bytes:
    import os
    import tempfile

    m = re.search(r"^\.target\s+(sm_\w+)", ptx, re.M)
    if m is None:
        raise KeyError("asm['cubin']: the PTX names no .target")
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "kernel.ptx"), os.path.join(d, "kernel.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        _run_tool("ptxas", "cubin", [f"-arch={m.group(1)}", src, "-o", out])
        with open(out, "rb") as f:
            return f.read()


def _disassemble(cubin: bytes) -> str:
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "kernel.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        return _run_tool("cuobjdump", "sass", ["-sass", path])


def _grid3(grid) -> tuple[int, int, int]:
    from ..runtime.jit import _check_grid  # the launch path's grid check and messages

    return _check_grid(grid, grid_functions=False)


from .compile import ASTSource, compile  # noqa: E402  (uses the classes above)
