// drop-repeated-barriers: a peephole over the kernel's PTX text.
#pragma once

#include <string>

namespace tessera::ptx {

// Removes each CTA barrier (`bar.sync 0;`, or a named `bar.sync N, T;`)
// that repeats the previous identical one, or opens the kernel, with only
// register arithmetic between them: no memory access, branch, label,
// call or other barrier. Such a barrier orders nothing the one before it
// (or the kernel's start) has not ordered already. The emitter places a
// barrier before each shared-memory allocation and around staged tiles,
// so a kernel's first allocations came with one barrier each.
// `text` is the kernel body (declarations and instructions, one a line).
// Returns how many barriers it removed.
int dropRepeatedBarriers(std::string &text);

}  // namespace tessera::ptx
