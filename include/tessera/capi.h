/* Tessera's C ABI (#include <tessera/capi.h>, link tessera::tessera or
 * `pkg-config --libs tessera`): compile a kernel written in the Triton kernel
 * language, inspect it, and run it on the CPU reference interpreter or launch
 * it on a CUDA GPU.
 *
 * This is the boundary the Python package binds to. It uses only C types; no
 * C++ exception ever crosses it. Every function that can fail reports the
 * failure by its return value (NULL or a non-zero tessera_status) and records
 * a message and a status in thread-local storage, read back with
 * tessera_last_error() and tessera_last_status(). A successful call leaves
 * the last error alone.
 *
 *   tessera_compile_options opts;
 *   tessera_compile_options_init(&opts);
 *   opts.file_name = "vector_add.py";
 *   tessera_kernel *k = tessera_compile_signature(src, "add_kernel",
 *                                                 "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
 * &opts); if (!k) { fprintf(stderr, "%s", tessera_last_error()); return 1; } tessera_run_arg
 * args[4] = {{TESSERA_RUN_BUFFER, x, n * 4, "x"}, ..., {TESSERA_RUN_INT, NULL, 0, NULL, n, 0.0}};
 *   if (tessera_kernel_run(k, args, 4, (n + 1023) / 1024, 1, 1, 0) != TESSERA_OK)
 *     fprintf(stderr, "%s", tessera_last_error());
 *   tessera_kernel_free(k);
 *
 * Strings are NUL-terminated UTF-8. Strings returned by a kernel handle stay
 * valid until the handle is freed; the last-error string stays valid until
 * the next failing call on the same thread. A kernel handle is immutable:
 * queries and runs may be issued concurrently from several threads.
 */
#ifndef TESSERA_CAPI_H_
#define TESSERA_CAPI_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct layout or a function signature below changes. */
#define TESSERA_CAPI_VERSION 8

/* ---------------------------------------------------------------- status */

typedef enum tessera_status {
  TESSERA_OK = 0,
  /* A user error in the kernel or its specialisation. The message is the
   * rendered diagnostic: file:line:col, the source line, a caret, a hint. */
  TESSERA_ERROR_COMPILATION = 1,
  /* A failure while running a kernel: out-of-bounds access (with the kernel's
   * file:line:col, the program id and the element index), failed
   * device_assert, a wrong number or kind of run arguments. */
  TESSERA_ERROR_KERNEL = 2,
  /* A bad call of this API: NULL where a value is required, an unknown enum
   * value or dtype name, an index out of range. */
  TESSERA_ERROR_INVALID_ARGUMENT = 3,
  /* A bug in Tessera (the message names the pass) or out of memory. */
  TESSERA_ERROR_INTERNAL = 4
} tessera_status;

/* The message of the last failing call on this thread ("" if none). */
TESSERA_CAPI_EXPORT const char *tessera_last_error(void);
/* The status of the last failing call on this thread (TESSERA_OK if none). */
TESSERA_CAPI_EXPORT tessera_status tessera_last_status(void);
/* Forgets the last error of this thread. */
TESSERA_CAPI_EXPORT void tessera_clear_error(void);

/* TESSERA_CAPI_VERSION of the library actually loaded. */
TESSERA_CAPI_EXPORT int tessera_capi_version(void);

/* ------------------------------------------------------- compile inputs */

/* A compile-time value: a tl.constexpr argument (or a global constant). */
typedef enum tessera_value_kind {
  TESSERA_VALUE_NONE = 0,
  TESSERA_VALUE_BOOL = 1,   /* i: 0 or 1 */
  TESSERA_VALUE_INT = 2,    /* i */
  TESSERA_VALUE_FLOAT = 3,  /* f */
  TESSERA_VALUE_STRING = 4, /* s */
  /* s: "fp32"/"i32"/... or "float32"/"int32"/..., optional "tl." prefix; a
     leading "*" makes it the pointer type to that dtype ("*fp16") */
  TESSERA_VALUE_DTYPE = 5,
  /* elems[0 .. num_elems); s: NULL, or a namedtuple's class and fields,
     "Point(x,y)", read as attributes (p.x) */
  TESSERA_VALUE_TUPLE = 6,
  /* s: a kernel-language function by its builtin name ("tl.exp", "cuda.smid",
     "libdevice.asin"), e.g. a function passed as a tl.constexpr */
  TESSERA_VALUE_BUILTIN = 7,
  /* A namedtuple class, which a kernel may call to build one: s is its
     "Name(field,...)"; elems the defaults of its last fields. i > 0 makes
     it an aggregate class (triton.aggregate) whose last i - 1 elems are its
     class attributes, each a TUPLE (STRING name, BOOL binds self, value):
     methods (FUNCTION values; bound to the instance when the BOOL is 1),
     "__init__" among them when the class defines one, and the defaults of
     fields (named as the field, BOOL 0), which Cls(...) takes for a field
     not passed. */
  TESSERA_VALUE_TUPLE_TYPE = 8,
  /* A @jit function passed as a compile-time value: the function named s of
     source unit i (tessera_compile_units; 0 for the other entry points) */
  TESSERA_VALUE_FUNCTION = 9
} tessera_value_kind;

typedef struct tessera_value {
  int32_t kind; /* tessera_value_kind */
  int64_t i;
  double f;
  const char *s;
  const struct tessera_value *elems;
  size_t num_elems;
} tessera_value;

/* How one kernel parameter is specialised (Triton's rules). */
typedef enum tessera_arg_kind {
  TESSERA_ARG_POINTER = 0,   /* a pointer to `dtype` elements */
  TESSERA_ARG_SCALAR = 1,    /* a runtime scalar of type `dtype` */
  TESSERA_ARG_CONSTEXPR = 2, /* a tl.constexpr parameter, `value` */
  /* A host TensorDescriptor of `dtype` elements: `value` is the block shape
   * (a TUPLE of 1 to 5 power-of-two INTs) or a TUPLE (block shape, STRING
   * padding "zero" / "nan"[, TUPLE of INT 16 / 1: each shape dimension known
   * divisible by 16 or not]). The kernel takes the descriptor as its base
   * (a BUFFER run argument), then one INT per dimension of its shape, then
   * one INT per stride but the last (which must be 1). `divisibility` as for
   * POINTER. */
  TESSERA_ARG_TENSOR_DESC = 3,
  /* A tuple passed for one parameter (Triton's tuple arguments): `elems`
   * holds one spec per element, tuples nested to at most 64 levels. The
   * kernel sees a tuple; it takes the runtime elements' run arguments in
   * order, depth first, and none for the CONSTEXPR ones. `dtype` is NULL for
   * a plain tuple, or a namedtuple's class and fields, "Point(x,y)", which
   * the kernel reads as attributes (p.x). */
  TESSERA_ARG_TUPLE = 4
} tessera_arg_kind;

typedef struct tessera_arg_spec {
  int32_t kind; /* tessera_arg_kind */
  /* POINTER, TENSOR_DESC: the pointee, SCALAR: the type; Triton signature names "i1",
   * "i8".."i64", "u8".."u64", "fp8e4nv", "fp8e5", "fp16", "bf16", "fp32",
   * "fp64" (the tl names "float32", "int32", ... are accepted too). */
  const char *dtype;
  /* POINTER, TENSOR_DESC (bytes) and integer SCALAR: 16 when known divisible by 16, else 1
   * (0 means 1). */
  int64_t divisibility;
  /* Integer SCALAR: non-zero when the value is known to be 1. */
  int32_t equal_to_1;
  tessera_value value;                  /* CONSTEXPR, TENSOR_DESC */
  const struct tessera_arg_spec *elems; /* TUPLE: elems[0 .. num_elems) */
  size_t num_elems;
} tessera_arg_spec;

/* A name visible to the kernel besides the file's own top-level definitions
 * (it overrides a top-level definition of the same name). */
typedef enum tessera_global_kind {
  TESSERA_GLOBAL_CONSTANT = 0, /* value */
  /* module, dotted: "triton.language". Any other module (a user's module of
   * helpers) is usable only through its attributes: `alias.attr` in a kernel
   * is the global named "alias.attr" of the same unit (any kind, so a
   * submodule is another MODULE_ALIAS, "alias.sub"). */
  TESSERA_GLOBAL_MODULE_ALIAS = 1,
  /* A @jit function defined in another source unit: `unit` indexes the units
   * array of tessera_compile_units (0 for tessera_compile), `function` is its
   * name there. Its own names resolve in its own unit. */
  TESSERA_GLOBAL_JIT_FUNCTION = 2,
  /* A name the host language knows but a kernel cannot use (a plain Python
   * function, an array, a class). `description` says what it is ("a Python
   * function that is not @jit"); using the name is a compile error that
   * quotes it at the use. */
  TESSERA_GLOBAL_OPAQUE = 3
} tessera_global_kind;

typedef struct tessera_global {
  const char *name;
  int32_t kind; /* tessera_global_kind */
  tessera_value value;
  const char *module;
  int32_t unit;
  const char *function;
  const char *description;
} tessera_global;

/* One source text and the names its functions see (tessera_compile_units).
 * Each unit has its own scope: its top-level definitions, then `globals`
 * (which win over them), then Python's builtins and the tl modules. */
typedef struct tessera_source_unit {
  const char *source;    /* a whole .py file or a single (dedented) function */
  const char *file_name; /* shown in diagnostics; NULL: "<kernel>" */
  uint32_t first_line;   /* line of the source's first line in that file (>= 1) */
  uint32_t col_offset;   /* columns removed from every line (dedent) */
  const tessera_global *globals;
  size_t num_globals;
} tessera_source_unit;

typedef struct tessera_compile_options {
  const char *file_name; /* shown in diagnostics; NULL: "<kernel>" */
  uint32_t first_line;   /* line of the source's first line in that file (>= 1) */
  uint32_t col_offset;   /* columns removed from every line (dedent) */
  int32_t debug;         /* non-zero: keep device_assert checks */
  int32_t optimize;      /* non-zero: run the optimisation passes (default) */
  /* Comma-separated pass names replacing the default pipeline; NULL or "": default. */
  const char *passes;
  const tessera_global *globals;
  size_t num_globals;
  /* GPU code generation: "sm_80", "sm_90", "sm_90a", "sm_100", "sm_120", ...
   * or "native" (the device of the current CUDA context) adds the stages
   * "ttgir" and "ptx"; NULL or "": the CPU only. */
  const char *target;
  int32_t num_warps;  /* warps per program on the GPU (a power of two; default 4) */
  int32_t num_stages; /* GPU: loads in flight per loop, in iterations (1-16; default 3) */
  /* GPU, non-zero: every float add, sub and mul rounds on its own, never
   * fused into an fma (Triton's enable_fp_fusion=False). */
  int32_t no_fp_fusion;
  /* GPU, non-zero: exp2 keeps subnormal results instead of flushing them to
   * zero (Triton's enable_reflect_ftz=False). */
  int32_t no_reflect_ftz;
  /* GPU: registers per thread the kernel may use (16-255; Triton's
   * maxnreg); 0: no cap. */
  int32_t max_registers;
} tessera_compile_options;

/* Fills `opts` with the defaults: file "<kernel>", first line 1, column
 * offset 0, no debug, optimised, default passes, no globals, no GPU target,
 * 4 warps. */
TESSERA_CAPI_EXPORT void tessera_compile_options_init(tessera_compile_options *opts);

/* ------------------------------------------------------------- compiling */

typedef struct tessera_kernel tessera_kernel; /* opaque */

/* Compiles kernel `kernel_name` of `source` (a whole .py file or a single
 * function) with one spec per kernel parameter, in order (missing trailing
 * parameters take their defaults, which must be constexpr). `opts` may be
 * NULL for the defaults. Returns NULL on failure (see tessera_last_error). */
TESSERA_CAPI_EXPORT tessera_kernel *tessera_compile(const char *source, const char *kernel_name,
                                                    const tessera_arg_spec *args, size_t num_args,
                                                    const tessera_compile_options *opts);

/* The same with a Triton AOT signature string, e.g.
 * "*fp32:16, *fp32, i32, 1024": `*T` pointer, `T` scalar, `:16` divisible by
 * 16, `:1` equal to one, a number / True / False / None / 'string' / tl.float16
 * a constexpr. */
TESSERA_CAPI_EXPORT tessera_kernel *tessera_compile_signature(const char *source,
                                                              const char *kernel_name,
                                                              const char *signature,
                                                              const tessera_compile_options *opts);

/* Compiles kernel `kernel_name`, defined in units[0], where the kernel and
 * its callees may live in several source units (the Python layer passes one
 * unit per @jit function it reaches). `args` as for tessera_compile; of
 * `opts` only debug, optimize and passes are used (file names, lines and
 * globals come from the units). Returns NULL on failure. */
TESSERA_CAPI_EXPORT tessera_kernel *tessera_compile_units(const tessera_source_unit *units,
                                                          size_t num_units, const char *kernel_name,
                                                          const tessera_arg_spec *args,
                                                          size_t num_args,
                                                          const tessera_compile_options *opts);

/* Frees a kernel; NULL is ignored. */
TESSERA_CAPI_EXPORT void tessera_kernel_free(tessera_kernel *kernel);

/* ------------------------------------------------------------ inspecting */

TESSERA_CAPI_EXPORT const char *tessera_kernel_name(const tessera_kernel *kernel);

/* IR stages in pipeline order ("ttir-initial", "ttir"). */
TESSERA_CAPI_EXPORT size_t tessera_kernel_num_stages(const tessera_kernel *kernel);
TESSERA_CAPI_EXPORT const char *tessera_kernel_stage_name(const tessera_kernel *kernel,
                                                          size_t index);
/* The IR text of a stage by name; NULL (with TESSERA_ERROR_INVALID_ARGUMENT)
 * when the kernel has no such stage. */
TESSERA_CAPI_EXPORT const char *tessera_kernel_ir(const tessera_kernel *kernel, const char *stage);

/* Runtime parameters: one per kernel parameter that is not a tl.constexpr,
 * in order. The type is a signature spelling: "*fp32" (pointer), "i32". */
TESSERA_CAPI_EXPORT size_t tessera_kernel_num_params(const tessera_kernel *kernel);
TESSERA_CAPI_EXPORT const char *tessera_kernel_param_name(const tessera_kernel *kernel,
                                                          size_t index);
TESSERA_CAPI_EXPORT const char *tessera_kernel_param_type(const tessera_kernel *kernel,
                                                          size_t index);

/* The compile's warnings (code that compiles but is likely a mistake, where
 * Triton warns too), in the order found; none for a deserialised kernel.
 * tessera_kernel_warning returns warning `index` rendered as a diagnostic
 * ("file:line:col: warning: ...", the source line, a caret, a note) and,
 * where `file`/`line` are not NULL, its file name and line. */
TESSERA_CAPI_EXPORT size_t tessera_kernel_num_warnings(const tessera_kernel *kernel);
TESSERA_CAPI_EXPORT const char *tessera_kernel_warning(const tessera_kernel *kernel, size_t index,
                                                       const char **file, int32_t *line);

/* ------------------------------------------------------------ persisting */

/* Serialises a compiled kernel (its sources, IR stages with locations and
 * options) into a self-checking byte string for a disk cache. On success
 * *data (free it with tessera_free) and *size are set. */
TESSERA_CAPI_EXPORT tessera_status tessera_kernel_serialize(const tessera_kernel *kernel,
                                                            char **data, size_t *size);

/* Rebuilds a kernel from tessera_kernel_serialize's bytes without compiling
 * (the IR is parsed and verified). Returns NULL with
 * TESSERA_ERROR_INVALID_ARGUMENT when the bytes are truncated, corrupt or
 * from another compiler version: the caller then recompiles. Every such
 * message starts with "tessera: cached kernel is invalid: ". Any bytes are
 * safe to pass; none are read outside [data, data + size). */
TESSERA_CAPI_EXPORT tessera_kernel *tessera_kernel_deserialize(const void *data, size_t size);

/* Frees memory returned by this API (tessera_kernel_serialize). */
TESSERA_CAPI_EXPORT void tessera_free(void *p);

/* The compiler's version string, "tessera 0.1.0 ir-<12 hex digits>"; part of
 * every cache key, it changes when the compiler's output may change (the hash
 * covers the op, dtype and pass tables and a revision number that
 * src/runtime/version.cpp says when to bump). */
TESSERA_CAPI_EXPORT const char *tessera_version(void);

/* The qualified names of the builtins kernels may call ("tl.load",
 * "tensor.to", "triton.cdiv", "builtins.min"), for the Python stubs'
 * completeness test: sorted, without duplicates, the same on every call.
 * tessera_builtin_name returns NULL for an index >= the count. */
TESSERA_CAPI_EXPORT size_t tessera_builtin_count(void);
TESSERA_CAPI_EXPORT const char *tessera_builtin_name(size_t index);

/* --------------------------------------------------------------- running */

typedef enum tessera_run_arg_kind {
  TESSERA_RUN_BUFFER = 0,         /* data, bytes, name */
  TESSERA_RUN_INT = 1,            /* i */
  TESSERA_RUN_FLOAT = 2,          /* f */
  TESSERA_RUN_BUFFER_READONLY = 3 /* as BUFFER; a store or atomic into it is an error */
} tessera_run_arg_kind;

/* One runtime argument. A BUFFER is host memory of `bytes` bytes starting at
 * `data`; the interpreter checks every unmasked access against it. `name`
 * (may be NULL: the parameter's name) is used in error messages. An INT is
 * accepted for a float parameter; a FLOAT is not accepted for an integer. */
typedef struct tessera_run_arg {
  int32_t kind; /* tessera_run_arg_kind */
  const void *data;
  size_t bytes;
  const char *name;
  int64_t i;
  double f;
} tessera_run_arg;

/* Runs every program of the grid (gx, gy, gz; each >= 1, 0 programs is a
 * no-op) on the interpreter with `num_threads` workers (0: all hardware
 * threads). `args` has one entry per runtime parameter. Returns TESSERA_OK,
 * or an error status with the message in tessera_last_error(). */
TESSERA_CAPI_EXPORT tessera_status tessera_kernel_run(const tessera_kernel *kernel,
                                                      const tessera_run_arg *args, size_t num_args,
                                                      int64_t gx, int64_t gy, int64_t gz,
                                                      int32_t num_threads);

/* Asks every tessera_kernel_run in progress in this process to stop: each
 * returns TESSERA_ERROR_KERNEL ("... was interrupted (SIGINT)") at its next
 * program or loop iteration. Async-signal-safe, for a SIGINT handler; runs
 * started afterwards are not affected. */
TESSERA_CAPI_EXPORT void tessera_interrupt_runs(void);

/* Launches the kernel's PTX (it must have been compiled with a target) on
 * CUDA device `device` (-1: the device of the current CUDA context, as
 * cudaSetDevice chose), through its primary context, on `stream` (a
 * CUstream or cudaStream_t; NULL: the default stream).
 * Pointer arguments are TESSERA_RUN_BUFFER entries whose `data` is a device
 * address (`bytes` is not used). The module is loaded on the device's
 * primary context at the first launch. Asynchronous: faults surface at the
 * next synchronising call. */
TESSERA_CAPI_EXPORT tessera_status tessera_kernel_launch_cuda(const tessera_kernel *kernel,
                                                              const tessera_run_arg *args,
                                                              size_t num_args, int64_t gx,
                                                              int64_t gy, int64_t gz, void *stream,
                                                              int32_t device);

/* What a GPU-compiled kernel uses on `device` (loads its module). */
typedef struct tessera_cuda_info {
  int32_t num_regs;     /* registers per thread */
  int32_t local_bytes;  /* local memory per thread (register spills) */
  int32_t shared_bytes; /* dynamic shared memory per program */
  int32_t num_warps;
  /* threads a launch's block has: 32 x num_warps, and a warp-specialised
   * kernel's producer warps where the device runs it so */
  int32_t block_threads;
} tessera_cuda_info;
TESSERA_CAPI_EXPORT tessera_status tessera_kernel_cuda_info(const tessera_kernel *kernel,
                                                            int32_t device, tessera_cuda_info *out);

/* Whether the CUDA driver can be used here; when not, `why` (if not NULL)
 * receives a sentence saying why (valid until the next call). */
TESSERA_CAPI_EXPORT int32_t tessera_cuda_available(const char **why);
/* Compute capability (major * 10 + minor) of `device`, or -1 with the error set. */
TESSERA_CAPI_EXPORT int32_t tessera_cuda_capability(int32_t device);
/* Number of CUDA devices, or -1 with the error set (no driver). */
TESSERA_CAPI_EXPORT int32_t tessera_cuda_device_count(void);

/* What the driver reports about a device (queried once, then cached). */
typedef struct tessera_cuda_device_props {
  char name[256];
  int32_t major, minor; /* compute capability */
  int32_t multiprocessor_count;
  int32_t max_threads_per_block;
  int32_t warp_size;
  int32_t max_regs_per_block;
  int32_t max_shared_per_block; /* the default limit */
  int32_t max_shared_optin;     /* the opt-in maximum a kernel may request */
  int32_t l2_bytes;
  int64_t total_memory; /* bytes */
  int32_t sm_clock_khz, mem_clock_khz, mem_bus_width_bits;
} tessera_cuda_device_props;
TESSERA_CAPI_EXPORT tessera_status tessera_cuda_device_properties(int32_t device,
                                                                  tessera_cuda_device_props *out);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_CAPI_H_ */
