// Host time of a GPU launch from C++ with no Python: tessera::compileKernel
// for the GPU, then many launches of a 1-program vector add through
// KernelImpl::launchCuda (parameter packing + cuLaunchKernel), timed by the
// host clock in batches. Separates the driver's cost from
// the Python layer's (bench/launch_breakdown.py).
//
//   build/bench_launch_cpp        (needs a CUDA device)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "runtime/compiler.h"
#include "runtime/cuda_driver.h"

int main() {
  using namespace tessera;
  std::string why;
  if (!cuda::driverAvailable(&why)) {
    std::printf("skipped: %s\n", why.c_str());
    return 0;
  }
  CompileRequest req;
  req.source =
      "import triton\n"
      "import triton.language as tl\n"
      "@triton.jit\n"
      "def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
      "    offs = tl.arange(0, BLOCK)\n"
      "    m = offs < n\n"
      "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m),"
      " mask=m)\n";
  req.kernel = "add";
  req.args = frontend::parseSignature("*fp32:16, *fp32:16, *fp32:16, i32, 16");
  req.target = "sm_90a";
  auto k = compileKernel(req);
  cuda::useDevice(0);
  cuda::DevicePtr x = cuda::memAlloc(64), y = cuda::memAlloc(64), out = cuda::memAlloc(64);
  std::vector<interp::ArgValue> args = {
      interp::ArgValue::pointer(reinterpret_cast<const void *>(x)),
      interp::ArgValue::pointer(reinterpret_cast<const void *>(y)),
      interp::ArgValue::pointer(reinterpret_cast<const void *>(out)),
      interp::ArgValue::integer(16)};
  // Batches of back-to-back launches timed by the host clock, the GPU
  // drained (untimed) between batches: a full launch queue would otherwise
  // make the host wait for the GPU.
  const int batch = 200;
  std::vector<double> reps;
  for (int r = 0; r < 105; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) k->launchCuda(args, {1, 1, 1}, nullptr, 0);
    auto t1 = std::chrono::steady_clock::now();
    cuda::synchronize();
    if (r >= 5) reps.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
  }
  std::sort(reps.begin(), reps.end());
  std::printf("C++ launch (launchCuda, 1 program): median %.2f us, best %.2f us per launch\n",
              reps[reps.size() / 2], reps.front());
  cuda::memFree(x);
  cuda::memFree(y);
  cuda::memFree(out);
  return 0;
}
