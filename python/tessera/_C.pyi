"""Type stub and contract of `tessera._C`, the nanobind extension over the C ABI
(include/tessera/capi.h). The Python package resolves globals, builds specialisations
and owns the caches; the extension compiles, (de)serialises and launches.

Encoded compile-time values (`Const` below) are tagged tuples, so that a dtype
and a string never look alike:
    ("none",) ("bool", b) ("int", i) ("float", f) ("str", s)
    ("dtype", "fp32")            # a Triton signature name: i1 i8..i64 u8..u64
                                 # fp8e4nv fp8e5 fp16 bf16 fp32 fp64
    ("tuple", [Const, ...])
    ("builtin", "cuda.smid")     # a kernel-language function by its builtin name
"""

from typing import Any, Callable, Optional, Sequence

CAPI_VERSION: int  # tessera_capi_version() of the linked core
VERSION: str  # tessera_version(): part of every cache key

Const = tuple

# A kernel parameter's specialisation, one per kernel parameter, in order:
#   ("ptr", dtype, div16: bool)                  pointer to `dtype` elements
#   ("scalar", dtype, div16: bool, eq1: bool)    runtime scalar
#   ("constexpr", Const)                         compile-time value
ArgSpec = tuple

# A name visible to a unit's functions:
#   (name, "const", Const)
#   (name, "module", "triton.language")          dotted module path
#   (name, "jit", (unit_index, function_name))   a @jit function in another unit
#   (name, "opaque", "a Python function that is not @jit")
GlobalEntry = tuple

# (source, file_name, first_line, col_offset, [GlobalEntry, ...]); units[0]
# holds the kernel.
Unit = tuple


def set_error_types(compilation_error: type, kernel_error: type) -> None:
    """Exception classes raised for TESSERA_ERROR_COMPILATION and
    TESSERA_ERROR_KERNEL (the message is the rendered diagnostic). Invalid API
    use raises ValueError, internal errors RuntimeError."""


def set_resolver(resolver: Callable[[Any], tuple]) -> None:
    """Called for a pointer argument that does not export a usable buffer
    (PyTorch tensors, __array_interface__ objects, reinterpret wrappers, NumPy
    arrays of ml_dtypes types). Returns (dtype, data_ptr, nbytes): the
    signature dtype name, the address of the first element and the bytes the
    kernel may touch from there. Raises TypeError for anything else (the
    extension adds the parameter name)."""


def compile(units: Sequence[Unit], kernel_name: str, specs: Sequence[ArgSpec], *,
            debug: bool = False, optimize: bool = True, passes: str = "", target: str = "",
            num_warps: int = 4, num_stages: int = 3, fp_fusion: bool = True,
            reflect_ftz: bool = True, maxnreg: int = 0) -> "Kernel":
    """tessera_compile_units. Raises the compilation error type on user errors."""


def builtin_names() -> list[str]:
    """tessera_builtin_name for every builtin."""


class Kernel:
    """A compiled kernel (immutable; shareable between threads)."""

    name: str
    stages: list[str]  # IR stage names in pipeline order
    params: list[tuple[str, str]]  # runtime parameters: (name, "*fp32" / "i32")
    # The compile's warnings: (rendered "file:line:col: warning: ..." text,
    # file, line); none for a deserialised kernel.
    warnings: list[tuple[str, str, int]]

    def ir(self, stage: str) -> str: ...

    def serialize(self) -> bytes: ...

    @staticmethod
    def deserialize(data: bytes) -> "Kernel":
        """Raises ValueError when the bytes are corrupt or from another version."""

    def run(self, args: Sequence[Any], grid: tuple[int, int, int], num_threads: int = 0) -> None:
        """Runs on the interpreter. `args` has one value per runtime parameter:
        arrays/tensors (buffer protocol or the resolver), int, float, bool.
        Releases the GIL while the programs run."""

    def cuda_info(self, device: int) -> tuple[int, int, int, int]:
        """tessera_kernel_cuda_info: (registers a thread, local bytes a
        thread, dynamic shared bytes, threads a block) of the kernel as
        loaded on `device` (loads it; a warp-specialised kernel's variant
        the loader kept, with or without its producer warp)."""


# Parameter modes for Dispatcher.
RUNTIME: int  # = 0: specialised (dtype; ints on ==1 and %16; pointers on 16-byte alignment)
NOSPEC: int  # = 1: do_not_specialize (dtype only)
NOALIGN: int  # = 2: do_not_specialize_on_alignment (pointers: no alignment fact)
CONSTEXPR: int  # = 3: a tl.constexpr parameter (its value is part of the key)


class Dispatcher:
    """The launch fast path of one @jit function: a map from specialisation
    key to compiled kernel, and argument packing, in C++.

    `args` below is the tuple of every kernel parameter's value, in parameter
    order (defaults applied by the caller). Keys of runtime arguments:
      bool -> i1; int -> i32 if it fits, else i64, else u64 (else TypeError),
        with ==1 and %16 facts unless NOSPEC; float -> fp32;
      None -> a constexpr None;
      objects with a buffer (or the resolver) -> pointer to its dtype, with the
        16-byte alignment fact unless NOALIGN/NOSPEC.
    Constexpr values key by their exact type plus Python equality and hash
    (1024, True, a tl.dtype object, a string; True and 1 are different keys).
    Unsupported values raise TypeError: "argument 'x_ptr' of kernel 'add':
    expected a tensor, an array, an int, a float or a bool, got str".
    """

    def __init__(self, kernel_name: str, param_names: Sequence[str], modes: Sequence[int]) -> None: ...

    def specialize(self, args: tuple) -> list:
        """One entry per parameter: the ArgSpec of a runtime argument, or for a
        constexpr parameter ("constexpr", value) with the raw Python value
        (the Python layer encodes it)."""

    def run(self, args: tuple, grid: tuple[int, int, int], extra: Any = None,
            num_threads: int = 0) -> Optional[Any]:
        """If a kernel was added for this key and `extra` (a hashable of launch
        options that change code, e.g. (num_warps, num_stages, debug)): runs it
        with the runtime arguments and returns its payload; else returns None
        and runs nothing. Grid entries are ints >= 0 (0 runs nothing)."""

    def add(self, args: tuple, extra: Any, kernel: Kernel, payload: Any) -> None:
        """Records `kernel` (and `payload`, returned by run) for the key of `args`."""

    def clear(self) -> None:
        """Forgets every added kernel (the configuration stays)."""

    def configure(self, defaults: Sequence[Optional[tuple]], hooks: list,
                  debug: Optional[bool]) -> None:
        """What Launcher needs to bind arguments like the Python binder: per
        parameter (default,) or None, the JITFunction's pre_run_hooks list
        (the fast path declines while it is non-empty) and @jit's debug."""

    def set_globals(self, used: Sequence[tuple[str, dict, Any]]) -> None:
        """The (name, module dict, value) of every global the kernel read; the
        fast path declines when one no longer holds an equal value."""

    def launcher(self, fn: Any, grid: Any) -> "Launcher":
        """`fn[grid]` for a JITFunction `fn` whose dispatcher this is."""

    def __len__(self) -> int: ...


class Launcher:
    """What `kernel[grid]` returns once the kernel has launched. Calling it
    with the kernel's arguments binds them in C++ (positional, keyword,
    defaults, the options num_warps/num_stages/num_ctas/maxnreg/debug),
    evaluates a callable grid once, and runs the added kernel for their key.
    Anything else (no kernel for the key, hooks, other options, a changed
    global, a binding error, a grid that is not ints) calls
    fn.run(*args, grid=..., warmup=False, **kwargs) instead."""

    fn: Any
    grid: Any

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


class TunedLauncher:
    """What `kernel[grid]` returns for an autotuned kernel. Called with
    positional arguments whose launch token (tuning_key.launch_token) the
    kernel's TuningCache memo holds, it launches the memo's config through
    the kernel's Dispatcher without running Python (setting best_config and,
    while it runs, _launch_args); any other call goes to
    kernel._run_grid(grid, *args, **kwargs)."""

    kernel: Any
    grid: Any

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


def tuned_launcher(kernel: Any, grid: Any) -> TunedLauncher:
    """kernel[grid] of an Autotuner."""


def set_key_kinds(kinds: dict) -> None:
    """tuning_key.KEY_KINDS (type -> what its values add to the key), which the
    launch token consults."""


def interp_ns_total() -> int:
    """Nanoseconds spent inside tessera_kernel_run (the interpreter) since
    the last interp_reset, summed over launches (benchmarks)."""


def interp_runs() -> int: ...


def interp_reset() -> None: ...


def cuda_available() -> tuple[bool, str]:
    """(True, "") when the CUDA driver loads and initialises, else (False, why)."""


def cuda_capability(device: int) -> int:
    """Compute capability of `device` as major * 10 + minor (90 on an H100)."""


def cuda_device_count() -> int:
    """Number of CUDA devices; raises when there is no driver."""


def cuda_device_properties(device: int) -> dict[str, Any]:
    """The driver's facts about `device` under Triton's key names: name,
    major, minor, multiprocessor_count, max_threads_per_block, warpSize,
    max_num_regs, max_shared_mem (the opt-in maximum), max_shared_mem_default,
    l2_bytes, total_memory, sm_clock_rate and mem_clock_rate (kHz),
    mem_bus_width (bits)."""
