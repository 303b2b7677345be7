/* The same kernel through Tessera's C ABI, from C. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera/capi.h>

static const char *kSource =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0 + 1.0, mask=mask)\n";

int main(void) {
  enum { N = 10000 };
  static float x[N], y[N];
  for (int i = 0; i < N; ++i) {
    x[i] = 0.5f * (float)i;
    y[i] = NAN;
  }
  tessera_compile_options opts;
  tessera_compile_options_init(&opts);
  opts.file_name = "scale.py";
  tessera_kernel *k =
      tessera_compile_signature(kSource, "scale", "*fp32:16, *fp32:16, i32, 1024", &opts);
  if (!k) {
    fprintf(stderr, "%s\n", tessera_last_error());
    return 1;
  }
  tessera_run_arg args[3] = {{TESSERA_RUN_BUFFER, x, sizeof x, "x", 0, 0.0},
                             {TESSERA_RUN_BUFFER, y, sizeof y, "y", 0, 0.0},
                             {TESSERA_RUN_INT, NULL, 0, "n", N, 0.0}};
  if (tessera_kernel_run(k, args, 3, (N + 1023) / 1024, 1, 1, 0) != TESSERA_OK) {
    fprintf(stderr, "%s\n", tessera_last_error());
    tessera_kernel_free(k);
    return 1;
  }
  tessera_kernel_free(k);
  for (int i = 0; i < N; ++i)
    if (y[i] != 2 * x[i] + 1) {
      fprintf(stderr, "wrong: y[%d] = %g\n", i, (double)y[i]);
      return 1;
    }
  printf("scale_c: %d elements correct (%s)\n", N, tessera_version());
  return 0;
}
