// The driver's floor for a launch, with no Tessera code: host time per launch
// of a 1-block vector add compiled by nvcc, through the runtime's <<<>>> and
// through cuLaunchKernel, on the legacy default stream (where PyTorch,
// Triton and Tessera launch by default) and on a stream of its own. Timed as
// bench/launch_cpp.cpp times Tessera's C++ launch: batches of back-to-back
// launches, the GPU drained (untimed) between batches. Given a PTX file and
// its entry (a Tessera kernel with the same four parameters), also launches
// that through cuLaunchKernel: the same driver call on Tessera's code.
//
//   nvcc -O2 -o build-gpu/launch_raw bench/launch_raw.cu -lcuda
//   build-gpu/launch_raw [KERNEL.ptx ENTRY]
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

__global__ void add(const float *x, const float *y, float *out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = x[i] + y[i];
}

template <class Launch>
static double medianUs(Launch launch, int batch = 200) {
  std::vector<double> reps;
  for (int r = 0; r < 105; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) launch();
    auto t1 = std::chrono::steady_clock::now();
    cudaDeviceSynchronize();
    if (r >= 5) reps.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
  }
  std::sort(reps.begin(), reps.end());
  return reps[reps.size() / 2];
}

int main(int argc, char **argv) {
  float *x, *y, *out;
  if (cudaMalloc(&x, 64) != cudaSuccess) {
    std::printf("skipped: no CUDA device\n");
    return 0;
  }
  cudaMalloc(&y, 64);
  cudaMalloc(&out, 64);
  int n = 16;
  CUfunction f;
  cudaGetFuncBySymbol(&f, reinterpret_cast<const void *>(add));
  void *params[] = {&x, &y, &out, &n};
  cudaStream_t own;
  cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
  std::printf("raw <<<>>> default stream      %6.2f us\n",
              medianUs([&] { add<<<1, 128>>>(x, y, out, n); }));
  std::printf("raw cuLaunchKernel default     %6.2f us\n", medianUs([&] {
                cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr);
              }));
  std::printf("raw cuLaunchKernel own stream  %6.2f us\n",
              medianUs([&] { cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, own, params, nullptr); }));
  std::printf(
      "raw cuLaunchKernel, batches of 20 %6.2f us\n",
      medianUs([&] { cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr); }, 20));
  if (argc == 3) {
    std::ifstream in(argv[1]);
    std::stringstream ptx;
    ptx << in.rdbuf();
    CUmodule m;
    CUfunction g;
    if (cuModuleLoadData(&m, ptx.str().c_str()) != CUDA_SUCCESS ||
        cuModuleGetFunction(&g, m, argv[2]) != CUDA_SUCCESS) {
      std::printf("could not load %s (%s)\n", argv[1], argv[2]);
      return 1;
    }
    std::printf("cuLaunchKernel of %s        %6.2f us\n", argv[2], medianUs([&] {
                  cuLaunchKernel(g, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr);
                }));
    std::printf(
        "  batches of 20                %6.2f us\n",
        medianUs([&] { cuLaunchKernel(g, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr); }, 20));
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
