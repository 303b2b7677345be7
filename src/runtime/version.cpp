// The compiler's version string (tessera_version()), part of every cache key.
#include <cstdio>

#include "runtime/serialize.h"

namespace tessera {

namespace {

constexpr const char *kReleaseVersion = "0.1.0";

// Bump kCompilerRevision whenever the compiler's output or the meaning of its
// IR may change without a change to ops.def, dtypes.def or passes.def: a new
// lowering rule, a pass that rewrites differently, different interpreter
// semantics, a new field in the serialised format, later code generation.
// The disk caches trust an entry whose version string matches, so a change
// that is not reflected here serves kernels built by the old compiler.
constexpr int kCompilerRevision = 22;

// The op, dtype and pass tables as the preprocessor sees them (comments
// dropped): a change to any entry changes the version.
constexpr const char kTables[] =
#define OP(E, mn, nops, nres, nreg, flags) \
  "op " #E " " mn " " #nops " " #nres " " #nreg " " #flags "\n"
#include "ir/ops.def"
#define DTYPE(E, ir, triton, sig, bits, cls) \
  "dtype " #E " " ir " " triton " " sig " " #bits " " #cls "\n"
#include "ir/dtypes.def"
#define PASS(fn, name, desc) "pass " #fn " " name "\n"
#include "passes/passes.def"
    ;

}  // namespace

const std::string &compilerVersion() {
  static const std::string version = [] {
    std::string key = std::string(kTables) + "revision " + std::to_string(kCompilerRevision);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(checksum64(key)));
    return std::string("tessera ") + kReleaseVersion + " ir-" + std::string(hex, 12);
  }();
  return version;
}

}  // namespace tessera
