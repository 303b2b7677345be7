// A process-wide pool of interpreter worker threads, so a launch does not pay
// for creating threads (tens of microseconds each) every time.
//
// Contract: run(n, fn) calls fn() on n threads at once (the caller's thread
// is one of them) and returns when all have returned. fn must not throw. If
// the pool is serving another launch (several host threads launching at
// once), the extra threads are created for this launch instead, so
// concurrently running programs are always truly concurrent (a kernel
// spinning on a lock needs its peer to make progress).
#pragma once

#include <functional>

namespace tessera::interp::detail {

void runOnThreads(int n, const std::function<void()> &fn);

}  // namespace tessera::interp::detail
