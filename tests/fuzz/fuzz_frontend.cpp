// libFuzzer target for the front end: lexer, parser and sema/lowering.
//
// Contract checked: on arbitrary bytes, parseModule() returns without
// throwing (a CompileError escaping it is a bug and crashes the run), and
// parseModuleStrict() either returns or throws CompileError; neither crashes,
// hangs, overflows the stack or trips a sanitizer. Successful parses are also
// dumped and failed ones rendered, to exercise those paths on odd ASTs.
// Every top-level function is then lowered as a kernel, with parameters
// specialised from the input's bytes (pointer, scalar or constexpr), and a
// lowered kernel must verify and survive the optimisation passes.
//
// Built with TESSERA_FUZZ_DESERIALIZE (run_fuzz.sh with FUZZ_DESERIALIZE=1),
// the same bytes are also a cached kernel: deserializeKernel() must accept
// them or throw InvalidCachedKernel, both as they are and behind a valid
// header (so the payload reader, the IR parser and the verifier see them);
// an accepted kernel must serialise back to bytes that deserialise again.
// corpus/cached_kernel.bin is a payload of a small kernel to start from.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/frontend.h"
#include "frontend/parser.h"
#include "ir/verifier.h"
#include "passes/pass_manager.h"
#ifdef TESSERA_FUZZ_DESERIALIZE
#include "runtime/serialize.h"
#endif
#include "support/diagnostics.h"

namespace {

void lowerEveryFunction(tessera::SourceManager &sm, const tessera::ast::Module &mod,
                        const uint8_t *data, size_t size) {
  using tessera::frontend::ArgSpec;
  size_t salt = 0;
  for (const auto &s : mod.body) {
    if (s->kind != tessera::ast::StmtKind::FunctionDef) continue;
    std::vector<ArgSpec> args;
    for (size_t i = 0; i < s->params.size(); ++i) {
      uint8_t b = size ? data[(i + salt) % size] : 0;
      ArgSpec a;
      switch (b % 4) {
        case 0:
          a.kind = ArgSpec::Kind::Pointer;
          a.dtype = (b & 4) ? tessera::DType::F16 : tessera::DType::F32;
          a.divisibility = (b & 8) ? 16 : 1;
          break;
        case 1:
          a.kind = ArgSpec::Kind::Scalar;
          a.dtype = (b & 4) ? tessera::DType::I64 : tessera::DType::I32;
          a.equalToOne = (b & 8) != 0;
          break;
        case 2:
          a.kind = ArgSpec::Kind::Scalar;
          a.dtype = tessera::DType::F32;
          break;
        default:
          a.kind = ArgSpec::Kind::Constexpr;
          a.value = tessera::frontend::ConstValue::integer(int64_t{1} << (b % 8));
          break;
      }
      args.push_back(a);
    }
    ++salt;
    try {
      auto m = tessera::frontend::lowerKernel(sm, mod, s->name, args, {});
      std::string err = tessera::verify(*m);
      if (!err.empty()) __builtin_trap();  // lowering produced invalid IR
      tessera::runPasses(*m, {"inline", "canonicalize", "cse", "licm", "dce"}, {});
    } catch (const tessera::CompileError &e) {
      (void)tessera::render(sm, e.diag);
    }
  }
}

#ifdef TESSERA_FUZZ_DESERIALIZE
void deserializeEither(std::string_view bytes) {
  std::shared_ptr<tessera::KernelImpl> k;
  try {
    k = tessera::deserializeKernel(bytes);
  } catch (const tessera::InvalidCachedKernel &) {
    return;
  }
  std::string again = tessera::serializeKernel(*k);
  if (tessera::deserializeKernel(again)->stages() != k->stages()) __builtin_trap();
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
#ifdef TESSERA_FUZZ_DESERIALIZE
  deserializeEither(text);
  deserializeEither(tessera::withHeader(text));
#endif
  tessera::SourceManager sm;
  // Vary the user line/column offsets a little so location arithmetic is
  // exercised with non-default values too.
  uint32_t firstLine = 1 + static_cast<uint32_t>(size % 7);
  uint32_t colOffset = static_cast<uint32_t>(size % 5);
  uint32_t id = sm.addFile("fuzz.py", text, firstLine, colOffset);

  tessera::ast::Module lenient = tessera::frontend::parseModule(sm, id);
  (void)tessera::ast::dump(lenient);
  for (const auto &broken : lenient.brokenDefs) (void)tessera::render(sm, broken.diag);
  lowerEveryFunction(sm, lenient, data, size);

  try {
    tessera::ast::Module strict = tessera::frontend::parseModuleStrict(sm, id);
    (void)tessera::ast::dump(strict);
  } catch (const tessera::CompileError &e) {
    (void)tessera::render(sm, e.diag);
  }
  return 0;
}
