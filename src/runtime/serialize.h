// Compiled kernels as bytes, for the disk cache of the Python package, and
// the compiler's version string that is part of every cache key.
//
// A serialised kernel is self-checking: a magic, a format version, the
// compiler version that wrote it and a checksum of the payload come first, so
// a truncated, corrupt or stale entry is rejected (and the caller recompiles)
// instead of being trusted. The payload holds the kernel's name, its debug
// flag, its source units (run-time errors quote kernel lines from them), the
// text of every IR stage, and the final IR once more with source locations;
// deserialising parses and verifies that IR instead of compiling, so it is
// fast (tens of microseconds for a matmul kernel) and a rebuilt kernel
// reports errors at the same file:line:col as the one that was serialised.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "runtime/compiler.h"
#include "tessera/tessera.h"

namespace tessera {

// Why bytes were not accepted as a kernel; what() starts with "cached kernel
// is invalid: ".
class InvalidCachedKernel : public Error {
 public:
  explicit InvalidCachedKernel(const std::string &why)
      : Error("cached kernel is invalid: " + why) {}
};

// "tessera 0.1.0 ir-<12 hex digits>"; the hash covers the op, dtype and pass
// tables and a revision number bumped by hand (version.cpp says when).
const std::string &compilerVersion();

// 64-bit FNV-1a over little-endian 8-byte words (then the tail bytes): any
// single changed byte changes the result, at a word per multiply.
uint64_t checksum64(std::string_view bytes, uint64_t seed = 0xcbf29ce484222325ull);

std::string serializeKernel(const KernelImpl &kernel);

// The header serializeKernel puts before a payload, then the payload: for
// tests and the fuzzer, which build payloads of their own. The header's
// length does not depend on the payload.
std::string withHeader(std::string_view payload);

// Throws InvalidCachedKernel when `bytes` are not exactly what
// serializeKernel wrote with this compiler version; never reads outside
// `bytes`, whatever they hold.
std::shared_ptr<KernelImpl> deserializeKernel(std::string_view bytes);

}  // namespace tessera
