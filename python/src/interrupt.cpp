// Ctrl-C during an interpreter run. The run holds no GIL and Python runs
// its signal handlers only between bytecodes, so without help SIGINT waits
// for the kernel to end (forever for an endless loop). While a run is in
// progress a SIGINT handler of ours asks the interpreter to stop
// (tessera_interrupt_runs), then calls the handler it replaced (Python's,
// which trips KeyboardInterrupt for the next PyErr_CheckSignals).

#include <signal.h>

#include <atomic>
#include <mutex>

#include "tessera_ext.h"

namespace tessera_py {
namespace {

std::mutex gMu;
int gActive = 0;             // runs in progress that installed or share the handler
bool gInstalled = false;     // our handler is SIGINT's
struct sigaction gPrevious;  // the handler ours replaced
std::atomic<uint64_t> gFired{0};

void onSigint(int sig, siginfo_t *info, void *ctx) {
  gFired.fetch_add(1, std::memory_order_relaxed);
  tessera_interrupt_runs();
  if (gPrevious.sa_flags & SA_SIGINFO)
    gPrevious.sa_sigaction(sig, info, ctx);
  else
    gPrevious.sa_handler(sig);
}

}  // namespace

SigintScope::SigintScope() : start_(gFired.load(std::memory_order_relaxed)) {
  std::lock_guard<std::mutex> lock(gMu);
  if (gActive++ > 0) return;
  struct sigaction cur;
  if (sigaction(SIGINT, nullptr, &cur) != 0) return;
  // SIG_DFL ends the process and SIG_IGN drops the signal: both already do
  // what the user asked, with or without a run in progress.
  bool isFunction = (cur.sa_flags & SA_SIGINFO)
                        ? cur.sa_sigaction != nullptr
                        : cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN;
  if (!isFunction) return;
  struct sigaction ours = {};
  ours.sa_sigaction = onSigint;
  ours.sa_flags = SA_SIGINFO | (cur.sa_flags & SA_RESTART);
  sigemptyset(&ours.sa_mask);
  gPrevious = cur;
  gInstalled = sigaction(SIGINT, &ours, nullptr) == 0;
}

SigintScope::~SigintScope() {
  std::lock_guard<std::mutex> lock(gMu);
  if (--gActive > 0 || !gInstalled) return;
  sigaction(SIGINT, &gPrevious, nullptr);
  gInstalled = false;
}

bool SigintScope::fired() const {
  return gFired.load(std::memory_order_relaxed) != start_;
}

void raiseInterrupted() {
  tessera_clear_error();
  // Python's handler ran with ours: KeyboardInterrupt (or what the user's
  // handler raises) is pending.
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw nb::python_error();
}

}  // namespace tessera_py
