#include "interp/worker_pool.h"

#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace tessera::interp::detail {
namespace {

class WorkerPool {
 public:
  // Runs fn on `helpers` pool threads; false (nothing run) when busy.
  bool tryRun(int helpers, const std::function<void()> &fn) {
    std::unique_lock<std::mutex> lock(mu_);
    if (busy_) return false;
    grow(helpers);
    if (static_cast<int>(threads_.size()) < helpers) return false;
    busy_ = true;
    job_ = &fn;
    wanted_ = helpers;
    taken_ = 0;
    running_ = helpers;
    ++generation_;
    wake_.notify_all();
    lock.unlock();
    fn();
    lock.lock();
    done_.wait(lock, [&] { return running_ == 0; });
    busy_ = false;
    job_ = nullptr;
    return true;
  }

  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto &t : threads_) t.join();
  }

 private:
  void grow(int n) {
    try {
      while (static_cast<int>(threads_.size()) < n) threads_.emplace_back([this] { loop(); });
    } catch (const std::system_error &) {
      // Out of threads: the caller falls back to creating its own.
    }
  }

  void loop() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || (generation_ != seen && taken_ < wanted_); });
      if (stop_) return;
      seen = generation_;
      ++taken_;
      const std::function<void()> *job = job_;
      lock.unlock();
      (*job)();
      lock.lock();
      if (--running_ == 0) done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void()> *job_ = nullptr;
  uint64_t generation_ = 0;
  int wanted_ = 0, taken_ = 0, running_ = 0;
  bool busy_ = false, stop_ = false;
};

}  // namespace

void runOnThreads(int n, const std::function<void()> &fn) {
  if (n <= 1) return fn();
  static WorkerPool pool;
  // A forked child inherits the pool's bookkeeping but not its threads.
  static const pid_t owner = getpid();
  if (getpid() == owner && pool.tryRun(n - 1, fn)) return;
  std::vector<std::thread> extra;
  try {
    for (int t = 1; t < n; ++t) extra.emplace_back(fn);
  } catch (const std::system_error &) {
    // Out of threads: run with the workers that started and this one.
  }
  fn();
  for (auto &t : extra) t.join();
}

}  // namespace tessera::interp::detail
