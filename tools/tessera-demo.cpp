// tessera-demo: compiles the example kernels from their .py files through the
// C++ API, runs them on the CPU interpreter, and checks each against a
// float64 reference computed here, printing the error and the time.
// (scripts/demo.sh runs the same examples from Python, on a GPU when there is one.)
//
//   tessera-demo [EXAMPLES_DIR] [--threads N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/serialize.h"
#include "support/cli.h"
#include "tessera/tessera.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tessera::Error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<float> randomFloats(size_t n, std::mt19937 &rng, float lo = -2, float hi = 2) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto &x : v) x = d(rng);
  return v;
}

struct Report {
  double maxRelErr = 0;
  double ms = 0;
};

// Compares against a float64 reference: max |out - ref| / (1 + |ref|); a NaN fails.
double maxError(const std::vector<float> &out, const std::vector<double> &ref) {
  double err = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    double e = std::fabs(out[i] - ref[i]) / (1 + std::fabs(ref[i]));
    if (std::isnan(out[i]) || std::isnan(e)) return INFINITY;
    err = std::max(err, e);
  }
  return err;
}

double timeIt(const std::function<void()> &fn) {
  fn();  // warm-up
  std::vector<double> ms;
  for (int i = 0; i < 3; ++i) {
    auto t0 = Clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[1];
}

using tessera::Arg;

tessera::RunOptions gRunOptions;  // --threads

Report vectorAdd(const std::string &dir, std::mt19937 &rng) {
  auto k = tessera::compile(readFile(dir + "/vector_add.py"), "add_kernel",
                            "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
                            {.fileName = dir + "/vector_add.py"});
  const int n = 1 << 22;
  auto x = randomFloats(n, rng), y = randomFloats(n, rng);
  std::vector<float> out(n, NAN);
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = double(x[i]) + y[i];
  auto run = [&] {
    k->run({Arg::buffer(x.data(), n * 4), Arg::buffer(y.data(), n * 4),
            Arg::buffer(out.data(), n * 4), Arg::integer(n)},
           {tessera::cdiv(n, 1024)}, gRunOptions);
  };
  Report r;
  r.ms = timeIt(run);
  r.maxRelErr = maxError(out, ref);
  return r;
}

Report gelu(const std::string &dir, std::mt19937 &rng) {
  auto k = tessera::compile(readFile(dir + "/gelu.py"), "gelu_kernel",
                            "*fp32:16, *fp32:16, i32, 1024", {.fileName = dir + "/gelu.py"});
  const int n = (1 << 20) + 77;
  auto x = randomFloats(n, rng, -6, 6);
  std::vector<float> out(n, NAN);
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) {
    double v = x[i];
    ref[i] = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  }
  auto run = [&] {
    k->run({Arg::buffer(x.data(), n * 4), Arg::buffer(out.data(), n * 4), Arg::integer(n)},
           {tessera::cdiv(n, 1024)}, gRunOptions);
  };
  Report r;
  r.ms = timeIt(run);
  r.maxRelErr = maxError(out, ref);
  return r;
}

Report softmax(const std::string &dir, std::mt19937 &rng) {
  const int rows = 1024, cols = 781;
  auto k = tessera::compile(readFile(dir + "/softmax.py"), "softmax_kernel",
                            "*fp32:16, *fp32:16, i32, i32, i32, 1024",
                            {.fileName = dir + "/softmax.py"});
  auto x = randomFloats(size_t(rows) * cols, rng, -5, 5);
  std::vector<float> out(x.size(), NAN);
  std::vector<double> ref(x.size());
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c) m = std::max(m, double(x[r * cols + c]));
    for (int c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int c = 0; c < cols; ++c) ref[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
  auto run = [&] {
    k->run({Arg::buffer(out.data(), out.size() * 4), Arg::buffer(x.data(), x.size() * 4),
            Arg::integer(cols), Arg::integer(cols), Arg::integer(cols)},
           {rows}, gRunOptions);
  };
  Report r;
  r.ms = timeIt(run);
  r.maxRelErr = maxError(out, ref);
  return r;
}

Report matmul(const std::string &dir, std::mt19937 &rng) {
  const int M = 256, N = 192, K = 320;
  auto k = tessera::compile(readFile(dir + "/matmul.py"), "matmul_kernel",
                            "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, i32, i32:1, i32, i32:1, "
                            "i32, i32:1, 64, 64, 32, 8, 'ieee'",
                            {.fileName = dir + "/matmul.py"});
  auto a = randomFloats(size_t(M) * K, rng), b = randomFloats(size_t(K) * N, rng);
  std::vector<float> c(size_t(M) * N, NAN);
  std::vector<double> ref(c.size(), 0);
  for (int i = 0; i < M; ++i)
    for (int kk = 0; kk < K; ++kk)
      for (int j = 0; j < N; ++j) ref[i * N + j] += double(a[i * K + kk]) * b[kk * N + j];
  auto run = [&] {
    k->run({Arg::buffer(a.data(), a.size() * 4), Arg::buffer(b.data(), b.size() * 4),
            Arg::buffer(c.data(), c.size() * 4), Arg::integer(M), Arg::integer(N), Arg::integer(K),
            Arg::integer(K), Arg::integer(1), Arg::integer(N), Arg::integer(1), Arg::integer(N),
            Arg::integer(1)},
           {tessera::cdiv(M, 64) * tessera::cdiv(N, 64)}, gRunOptions);
  };
  Report r;
  r.ms = timeIt(run);
  r.maxRelErr = maxError(c, ref) / K;  // error relative to the sum's magnitude
  return r;
}

Report layerNorm(const std::string &dir, std::mt19937 &rng) {
  const int rows = 512, cols = 1000;
  auto k =
      tessera::compile(readFile(dir + "/layer_norm.py"), "layer_norm_fwd_kernel",
                       "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32, *fp32, i32, i32, fp32, 256",
                       {.fileName = dir + "/layer_norm.py"});
  auto x = randomFloats(size_t(rows) * cols, rng), w = randomFloats(cols, rng),
       b = randomFloats(cols, rng);
  std::vector<float> y(x.size(), NAN), mean(rows, NAN), rstd(rows, NAN);
  std::vector<double> ref(x.size());
  const double eps = 1e-5;
  for (int r = 0; r < rows; ++r) {
    double m = 0, v = 0;
    for (int c = 0; c < cols; ++c) m += x[r * cols + c];
    m /= cols;
    for (int c = 0; c < cols; ++c) v += (x[r * cols + c] - m) * (x[r * cols + c] - m);
    double rs = 1 / std::sqrt(v / cols + eps);
    for (int c = 0; c < cols; ++c) ref[r * cols + c] = (x[r * cols + c] - m) * rs * w[c] + b[c];
  }
  auto run = [&] {
    k->run({Arg::buffer(x.data(), x.size() * 4), Arg::buffer(y.data(), y.size() * 4),
            Arg::buffer(w.data(), w.size() * 4), Arg::buffer(b.data(), b.size() * 4),
            Arg::buffer(mean.data(), rows * 4), Arg::buffer(rstd.data(), rows * 4),
            Arg::integer(cols), Arg::integer(cols), Arg::floating(eps)},
           {rows}, gRunOptions);
  };
  Report r;
  r.ms = timeIt(run);
  r.maxRelErr = maxError(y, ref);
  return r;
}

}  // namespace

int main(int argc, char **argv) {
  std::string dir = "examples";
  tessera::cli::Parser cli(
      "tessera-demo", "[EXAMPLES_DIR] [options]",
      "Compiles the example kernels (vector_add.py, gelu.py, softmax.py, matmul.py, "
      "layer_norm.py) through the C++ API, runs them on the CPU interpreter and checks "
      "each against a float64 reference, printing its error and time. Exit status 0 when "
      "every example is correct, 1 otherwise, 2 on a usage error.");
  const std::string &version = tessera::compilerVersion();
  cli.version(version.substr(version.find(' ') + 1));
  cli.positional("EXAMPLES_DIR", "the folder of the example kernels (default: examples)", dir,
                 /*required=*/false);
  cli.integer("--threads", "N", "interpreter threads (default 0: every hardware thread)",
              gRunOptions.numThreads, 0, 4096);
  if (std::optional<int> exit = cli.parse(argc, argv)) return *exit;
  if (!std::ifstream(dir + "/vector_add.py"))
    return cli.fail("'" + dir +
                    "' holds no vector_add.py: name the examples folder of a Tessera checkout");
  std::mt19937 rng(std::random_device{}());
  struct Example {
    const char *name;
    Report (*fn)(const std::string &, std::mt19937 &);
    double tolerance;
  };
  const Example examples[] = {
      {"vector_add   (4M fp32)", vectorAdd, 1e-6},
      {"gelu         (1M fp32)", gelu, 1e-5},
      {"softmax      (1024x781 fp32)", softmax, 1e-5},
      {"matmul       (256x192x320 fp32)", matmul, 1e-5},
      {"layer_norm   (512x1000 fp32)", layerNorm, 1e-4},
  };
  std::printf(
      "Tessera demo: the example kernels through the C++ API on the CPU interpreter\n"
      "(scripts/demo.sh runs them from Python, on a CUDA GPU when there is one)\n\n");
  std::printf("%-34s %-8s %-12s %s\n", "example", "result", "max error", "time (median of 3)");
  int failures = 0;
  for (const auto &e : examples) {
    try {
      Report r = e.fn(dir, rng);
      bool ok = r.maxRelErr <= e.tolerance;
      failures += !ok;
      std::printf("%-34s %-8s %-12.2e %.1f ms\n", e.name, ok ? "ok" : "WRONG", r.maxRelErr, r.ms);
    } catch (const tessera::Error &err) {
      ++failures;
      std::printf("%-34s FAILED\n%s\n", e.name, err.what());
    }
  }
  std::printf("\n%s\n", failures ? "some examples FAILED" : "all examples correct");
  return failures ? 1 : 0;
}
