// Interpreter throughput benchmarks, disabled by default (run with
// --gtest_also_run_disabled_tests --gtest_filter='*Bench*'): vector add over
// 2^24 fp32 elements with BLOCK=1024, and a 4096x1024 row softmax. They print
// elements/s and check the results so a fast wrong answer does not count.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "kernel_builder.h"

namespace tessera::testing {
namespace {

using interp::ArgValue;
using interp::HostBuffer;

int benchThreads() {
  const char *e = std::getenv("TESSERA_BENCH_THREADS");
  return e ? std::atoi(e) : 2;
}

template <class F>
double bestSeconds(int reps, F f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
  }
  return best;
}

TEST(InterpBench, DISABLED_VectorAdd) {
  const int64_t n = int64_t(1) << 24, block = 1024;
  KB k("vadd");
  Value *px = k.arg(ptr(DType::F32), "x"), *py = k.arg(ptr(DType::F32), "y");
  Value *po = k.arg(ptr(DType::F32), "out"), *pn = k.arg(sc(DType::I32), "n");
  Value *start = k.bin(OpCode::Mul, k.pid(), k.ci(block, sc(DType::I32)));
  Value *offs = k.bin(OpCode::Add, k.splat(start, {block}), k.arange(block));
  Value *mask = k.cmp("lt", offs, k.splat(pn, {block}));
  Value *x = k.load(k.addptr(px, offs), mask);
  Value *y = k.load(k.addptr(py, offs), mask);
  k.store(k.addptr(po, offs), k.bin(OpCode::Add, x, y), mask);
  k.ret();
  std::vector<float> xs(n), ys(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = static_cast<float>(i % 1000);
    ys[i] = 0.5f;
  }
  std::vector<ArgValue> args{ArgValue::pointer(xs.data()), ArgValue::pointer(ys.data()),
                             ArgValue::pointer(out.data()), ArgValue::integer(n)};
  std::vector<HostBuffer> bufs{buf(xs, "x"), buf(ys, "y"), buf(out, "out")};
  interp::RunOptions opts;
  opts.numThreads = benchThreads();
  double s = bestSeconds(5, [&] { interp::run(k.fn, args, bufs, {n / block, 1, 1}, opts); });
  for (int64_t i = 0; i < n; i += 4097) ASSERT_EQ(out[i], xs[i] + 0.5f);
  std::printf("vector add: 2^24 fp32, BLOCK=1024, %d threads: %.1f ms, %.1f M elements/s\n",
              opts.numThreads, s * 1e3, n / s / 1e6);
}

TEST(InterpBench, DISABLED_RowSoftmax) {
  const int64_t rows = 4096, cols = 1024;
  KB k("softmax");
  Value *px = k.arg(ptr(DType::F32), "x"), *po = k.arg(ptr(DType::F32), "out");
  Value *base = k.bin(OpCode::Mul, k.pid(), k.ci(cols, sc(DType::I32)));
  Value *offs = k.bin(OpCode::Add, k.splat(base, {cols}), k.arange(cols));
  Value *x = k.load(k.addptr(px, offs));
  Value *m = k.reduce(x, 0, OpCode::Max);
  Value *e = k.op(OpCode::Exp, {k.bin(OpCode::Sub, x, k.splat(m, {cols}))}, x->type);
  Value *sum = k.reduce(e, 0, OpCode::Add);
  k.store(k.addptr(po, offs), k.bin(OpCode::Div, e, k.splat(sum, {cols})));
  k.ret();
  std::vector<float> xs(rows * cols), out(rows * cols);
  for (auto &v : xs) v = randf(-3, 3);
  std::vector<ArgValue> args{ArgValue::pointer(xs.data()), ArgValue::pointer(out.data())};
  std::vector<HostBuffer> bufs{buf(xs, "x"), buf(out, "out")};
  interp::RunOptions opts;
  opts.numThreads = benchThreads();
  double s = bestSeconds(3, [&] { interp::run(k.fn, args, bufs, {rows, 1, 1}, opts); });
  for (int64_t r = 0; r < rows; r += 511) {
    double mx = -1e30, sm = 0;
    for (int64_t c = 0; c < cols; ++c) mx = std::max<double>(mx, xs[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) sm += std::exp(xs[r * cols + c] - mx);
    for (int64_t c = 0; c < cols; c += 97)
      ASSERT_NEAR(out[r * cols + c], std::exp(xs[r * cols + c] - mx) / sm, 1e-6);
  }
  std::printf("row softmax: 4096x1024 fp32, %d threads: %.1f ms, %.1f M elements/s\n",
              opts.numThreads, s * 1e3, rows * cols / s / 1e6);
}

}  // namespace
}  // namespace tessera::testing
