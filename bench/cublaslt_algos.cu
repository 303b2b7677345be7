// The ceiling for the sm_80 path: every algorithm cuBLASLt offers for an fp16
// matmul with fp32 accumulation (column-major, no transposes, fp16 out), at
// every tile and stage count it accepts, timed on this GPU. On Hopper the
// algorithms enumerated this way are the Ampere-style ones (mma.sync kernels
// such as cutlass_80_tensorop_*_s16816gemm_*): the Hopper kernels that
// torch.matmul runs need settings this enumeration does not make. So the best
// row is what NVIDIA's own mma.sync code reaches on the GPU, the bound to
// hold `TESSERA_TARGET=sm_80` against (scripts/gpu.sh ampere runs both and
// names the best row's kernel with ncu).
//
//   nvcc -O2 -std=c++17 -arch=sm_90 bench/cublaslt_algos.cu -lcublasLt -o build-gpu/cublaslt_algos
//   build-gpu/cublaslt_algos [N]              every algorithm's best row, N^3 (default 4096)
//   build-gpu/cublaslt_algos N ID TILE STAGES one row, timed in three rounds
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    if (int e_ = static_cast<int>(x)) {                                        \
      std::fprintf(stderr, "%s failed with %d (line %d)\n", #x, e_, __LINE__); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void fillUniform(half *p, size_t n, unsigned seed) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  p[i] = __float2half((x & 0xffff) / 65536.0f - 0.5f);
}

struct Problem {
  int n;
  half *a, *b, *c;
  void *workspace;
  size_t workspaceBytes = 64 << 20;
  cublasLtHandle_t handle;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t layout;  // the same for A, B and C: n x n, leading dimension n

  // Algorithm `id` for this problem's types, or false where there is none.
  bool init(int id, cublasLtMatmulAlgo_t &algo) {
    return cublasLtMatmulAlgoInit(handle, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F,
                                  CUDA_R_16F, CUDA_R_16F, id, &algo) == CUBLAS_STATUS_SUCCESS;
  }
  // An algorithm with one tile and stage setting, or false where cuBLASLt
  // refuses it for this problem.
  bool configure(int id, uint32_t tile, uint32_t stages, cublasLtMatmulAlgo_t &algo) {
    if (!init(id, algo)) return false;
    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile);
    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                         sizeof stages);
    cublasLtMatmulHeuristicResult_t result;
    if (cublasLtMatmulAlgoCheck(handle, op, layout, layout, layout, layout, &algo, &result) !=
        CUBLAS_STATUS_SUCCESS)
      return false;
    return result.workspaceSize <= workspaceBytes;
  }
  cublasStatus_t run(const cublasLtMatmulAlgo_t &algo) {
    const float one = 1, zero = 0;
    return cublasLtMatmul(handle, op, &one, a, layout, b, layout, &zero, c, layout, c, layout,
                          &algo, workspace, workspaceBytes, nullptr);
  }
  // TFLOP/s: the median of 15 batches of back-to-back launches (CUDA events
  // around each batch), after about 300 ms of launches back to back, as
  // bench/gpu.py's bench() times: every configuration, and the sm_80 path
  // that scripts/gpu.sh ampere times beside them, at the sustained clock
  // rather than the boost clock of a GPU's first 40-150 ms of load.
  double tflops(const cublasLtMatmulAlgo_t &algo) {
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    run(algo);
    cudaEventRecord(start);
    run(algo);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float oneMs = 0;
    cudaEventElapsedTime(&oneMs, start, stop);
    for (int i = 0, warm = static_cast<int>(300 / std::max(oneMs, 0.005f)); i < warm; ++i)
      run(algo);
    std::vector<float> perCall;
    for (int batch = 0; batch < 15; ++batch) {
      cudaEventRecord(start);
      for (int i = 0; i < 10; ++i) run(algo);
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      perCall.push_back(ms / 10);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(perCall.begin(), perCall.end());
    return 2.0 * n * n * static_cast<double>(n) / (perCall[perCall.size() / 2] * 1e-3) / 1e12;
  }
};

static std::vector<uint32_t> capability(const cublasLtMatmulAlgo_t &algo,
                                        cublasLtMatmulAlgoCapAttributes_t what) {
  size_t bytes = 0;
  cublasLtMatmulAlgoCapGetAttribute(&algo, what, nullptr, 0, &bytes);
  std::vector<uint32_t> ids(bytes / sizeof(uint32_t));
  if (bytes) cublasLtMatmulAlgoCapGetAttribute(&algo, what, ids.data(), bytes, &bytes);
  if (ids.empty()) ids.push_back(0);  // "undefined": the algorithm picks
  return ids;
}

int main(int argc, char **argv) {
  Problem p;
  p.n = argc > 1 ? std::atoi(argv[1]) : 4096;
  size_t elems = static_cast<size_t>(p.n) * p.n;
  CHECK(cudaMalloc(&p.a, elems * sizeof(half)));
  CHECK(cudaMalloc(&p.b, elems * sizeof(half)));
  CHECK(cudaMalloc(&p.c, elems * sizeof(half)));
  CHECK(cudaMalloc(&p.workspace, p.workspaceBytes));
  unsigned blocks = static_cast<unsigned>((elems + 255) / 256);
  fillUniform<<<blocks, 256>>>(p.a, elems, 1);
  fillUniform<<<blocks, 256>>>(p.b, elems, 2);
  CHECK(cublasLtCreate(&p.handle));
  CHECK(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CHECK(cublasLtMatrixLayoutCreate(&p.layout, CUDA_R_16F, p.n, p.n, p.n));

  if (argc == 5) {
    cublasLtMatmulAlgo_t algo;
    if (!p.configure(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), algo)) {
      std::printf("cuBLASLt refuses algorithm %s, tile %s, stages %s\n", argv[2], argv[3], argv[4]);
      return 1;
    }
    for (int round = 0; round < 3; ++round)
      std::printf("algorithm %s tile %s stages %s: %.1f TFLOP/s\n", argv[2], argv[3], argv[4],
                  p.tflops(algo));
    return 0;
  }

  int ids[1024], count = 0;
  CHECK(cublasLtMatmulAlgoGetIds(p.handle, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F,
                                 CUDA_R_16F, CUDA_R_16F, 1024, ids, &count));
  std::printf(
      "fp16 %d^3, fp32 accumulation: %d cuBLASLt algorithms; each one's best tile "
      "(cublasLtMatmulTile_t) and stages (cublasLtMatmulStages_t):\n",
      p.n, count);
  for (int k = 0; k < count; ++k) {
    cublasLtMatmulAlgo_t algo;
    if (!p.init(ids[k], algo)) continue;
    double best = 0;
    uint32_t bestTile = 0, bestStages = 0;
    for (uint32_t tile : capability(algo, CUBLASLT_ALGO_CAP_TILE_IDS))
      for (uint32_t stages : capability(algo, CUBLASLT_ALGO_CAP_STAGES_IDS)) {
        cublasLtMatmulAlgo_t one;
        if (!p.configure(ids[k], tile, stages, one) || p.run(one) != CUBLAS_STATUS_SUCCESS)
          continue;
        CHECK(cudaDeviceSynchronize());
        double t = p.tflops(one);
        if (t > best) best = t, bestTile = tile, bestStages = stages;
      }
    if (best > 0)
      std::printf("algorithm %d tile %u stages %u: %.1f TFLOP/s\n", ids[k], bestTile, bestStages,
                  best);
  }
  return 0;
}
