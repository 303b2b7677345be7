// Compiles a kernel written in the Triton kernel language with Tessera's C++
// API and runs it on the CPU interpreter: y = 2 * x + 1 over 10,000 floats.
#include <tessera/tessera.h>

#include <cmath>
#include <cstdio>
#include <vector>

static const char *kSource = R"(
import triton
import triton.language as tl

@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0 + 1.0, mask=mask)
)";

int main() {
  const int n = 10000;
  std::vector<float> x(n), y(n, NAN);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * i;
  try {
    auto k = tessera::compile(kSource, "scale", "*fp32:16, *fp32:16, i32, 1024",
                              {.fileName = "scale.py"});
    k->run({tessera::Arg::buffer(x.data(), n * 4), tessera::Arg::buffer(y.data(), n * 4),
            tessera::Arg::integer(n)},
           {tessera::cdiv(n, 1024)});
  } catch (const tessera::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  for (int i = 0; i < n; ++i)
    if (y[i] != 2 * x[i] + 1) {
      std::fprintf(stderr, "wrong: y[%d] = %g, expected %g\n", i, y[i], 2 * x[i] + 1);
      return 1;
    }
  std::printf("scale_cpp: %d elements correct\n", n);
  return 0;
}
