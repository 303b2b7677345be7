// tesserac: the Tessera compiler driver.
//
//   tesserac compile FILE.py --kernel NAME --signature "*fp32:16, *fp32, i32, 1024"
//            [--emit ir|ttir|ttir-initial|ttgir|ptx|ptx-unspecialized] [--target sm_NN]
//            [-o FILE] ...
//   tesserac aot FILE.py --kernel NAME --signature SIG [--signature SIG2 ...] -o DIR
//            (tesserac_aot.cpp)
//
// `tesserac --help` describes every option (the parser is support/cli.h,
// shared with the other tools). --passes replaces the Tile IR pipeline (the
// GPU passes always follow it for a GPU target); --print-after /
// --print-after-all print the IR after those passes on stderr.
//
// --split-input-file compiles each part of FILE between lines `# -----`
// separately (same kernel name and signature; line numbers stay those of
// FILE), reporting every part's diagnostics: diagnostic tests keep many cases
// in one file.
//
// The requested stage goes to stdout (or -o FILE, written only when every
// part compiled); diagnostics go to stderr with exit status 1, usage errors
// exit with 2.
#include <algorithm>
#include <iostream>
#include <sstream>

#include "codegen/ptx/gpu_passes.h"
#include "runtime/compiler.h"
#include "runtime/serialize.h"
#include "runtime/source_imports.h"
#include "support/cli.h"
#include "support/source.h"

namespace {

// The cases of a --split-input-file: the part before the first `# -----`
// line is a shared preamble (imports, helpers); every later part is compiled
// after it, padded with empty lines so that line numbers stay those of FILE.
std::vector<std::string> splitParts(const std::string &text) {
  std::string preamble;
  std::vector<std::string> parts;
  size_t lines = 0;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++lines;
    if (line.rfind("# -----", 0) == 0) {
      size_t preambleLines =
          static_cast<size_t>(std::count(preamble.begin(), preamble.end(), '\n'));
      parts.push_back(preamble + std::string(lines - preambleLines, '\n'));
      continue;
    }
    (parts.empty() ? preamble : parts.back()) += line + "\n";
  }
  if (parts.empty()) parts.push_back(preamble);
  return parts;
}

constexpr const char *kSummary =
    "Compiles one kernel of a Python file written in the Triton kernel language, "
    "specialised by a signature, and prints the IR or PTX of the stage asked for on "
    "stdout (or into -o FILE). Diagnostics go to stderr with exit status 1; usage "
    "errors exit with 2.";

constexpr const char *kEpilog =
    "signature: Triton's AOT syntax, one entry per parameter: '*fp32' a pointer, 'i32'\n"
    "a scalar, ':16' divisible by 16, ':1' equal to one, a bare value (1024, 'ieee',\n"
    "True, tl.float16) a tl.constexpr, 'tensordesc<fp16[64, 64]>' a host tensor\n"
    "descriptor (':16' after it: base and shape aligned to 16; ':nan': NaN padding);\n"
    "parameters left out take their defaults.\n"
    "\n"
    "example:\n"
    "  tesserac compile examples/vector_add.py --kernel add_kernel \\\n"
    "      --signature '*fp32:16, *fp32:16, *fp32:16, i32, 1024' --emit ptx -o add.ptx\n"
    "\n"
    "environment: TESSERA_PRINT_AFTER=a,b (or all) and TESSERA_TIME_PASSES=1 act as\n"
    "--print-after and --time-passes.\n"
    "\n"
    "tesserac aot --help: C launchers of kernels compiled ahead of time.";

}  // namespace

int aotMain(int argc, char **argv);  // tesserac_aot.cpp

int main(int argc, char **argv) {
  std::string file, kernel, signature, emit = "ttir", output;
  bool haveSignature = false, split = false, noOpt = false;
  tessera::CompileRequest req;
  tessera::registerPasses(tessera::ptx::gpuPasses());
  tessera::cli::Parser cli("tesserac", "compile FILE.py --kernel NAME [--signature SIG] [options]",
                           kSummary);
  const std::string &version = tessera::compilerVersion();
  cli.version(version.substr(version.find(' ') + 1));
  cli.epilog(kEpilog);
  cli.positional("FILE.py", "the kernel's Python source file", file);
  cli.string("--kernel", "NAME", "the @jit function to compile (required)", kernel);
  cli.option("--signature", "SIG",
             "the parameters' types and constexpr values, e.g. '*fp32:16, i32, 1024' "
             "(see 'signature' below); without it every parameter needs a default",
             [&](const std::string &v) {
               signature = v;
               haveSignature = true;
               return std::string();
             });
  cli.option("--emit", "STAGE",
             "what to print: ttir (the optimised Tile IR, the default; also 'ir'), "
             "ttir-initial (before the passes), ttgir (with GPU layouts), ptx, or "
             "ptx-unspecialized (a warp-specialised kernel's PTX without its producer warp, "
             "which the loader runs instead where that spills less or fits more blocks)",
             [&](const std::string &v) -> std::string {
               emit = v == "ir" ? "ttir" : v;
               if (emit == "ttir" || emit == "ttir-initial" || emit == "ttgir" || emit == "ptx" ||
                   emit == tessera::kUnspecializedPtxStage)
                 return {};
               return "expects ir, ttir, ttir-initial, ttgir, ptx or ptx-unspecialized, got '" + v +
                      "'";
             });
  cli.option("--target", "sm_NN",
             "the GPU to compile for (sm_90a when --emit is ttgir or ptx and no "
             "target is given): sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120, ...",
             [&](const std::string &v) -> std::string {
               tessera::ptx::Target t;
               if (tessera::ptx::parseTarget(v, t)) {
                 req.target = v;
                 return {};
               }
               return "expects a GPU target, got '" + v +
                      "'; the targets are: " + tessera::ptx::knownTargets();
             });
  cli.integer("--num-warps", "N",
              "warps per program on the GPU: 1, 2, 4 (the default), 8, 16 or 32", req.numWarps, 1,
              32, /*powerOfTwo=*/true);
  cli.integer("--num-stages", "N",
              "loop iterations whose loads are in flight at once on the GPU (1 to 16; "
              "default 3; 1 turns software pipelining off)",
              req.numStages, 1, 16);
  cli.flag("--debug", "keep tl.device_assert checks (as TRITON_DEBUG=1)", req.lower.debug);
  bool noFpFusion = false, noReflectFtz = false;
  cli.integer("--maxnreg", "N",
              "GPU: registers per thread the kernel may use (16 to 255; Triton's maxnreg)",
              req.maxRegisters, 16, 255);
  cli.flag("--no-fp-fusion",
           "GPU: round every float add, sub and mul on its own, never fused into an fma "
           "(Triton's enable_fp_fusion=False)",
           noFpFusion);
  cli.flag("--no-reflect-ftz",
           "GPU: exp2 keeps subnormal results instead of flushing them to zero (Triton's "
           "enable_reflect_ftz=False)",
           noReflectFtz);
  auto passList = [](std::vector<std::string> &out) {
    return [&out](const std::string &v) {
      for (std::string &p : tessera::cli::splitCommas(v)) out.push_back(std::move(p));
      return tessera::checkPassNames(out);
    };
  };
  cli.option("--passes", "a,b,c",
             "the Tile IR passes to run instead of the default pipeline (the GPU "
             "passes always follow for a GPU target)",
             passList(req.passes));
  cli.flag("--no-opt", "run no Tile IR pass (the lowered IR as it is)", noOpt);
  cli.option("--print-after", "a,b", "print the IR after these passes (Tile IR or GPU) on stderr",
             passList(req.printAfter));
  cli.flag("--print-after-all", "print the IR after every pass on stderr", req.printAfterAll);
  cli.flag("--time-passes", "print a table of each pass's time on stderr", req.timePasses);
  cli.flag("--split-input-file",
           "compile each part of FILE between '# -----' lines on its own (the part "
           "before the first is a shared preamble; line numbers stay FILE's)",
           split);
  cli.string("-o,--output", "FILE", "write the output to FILE instead of stdout ('-': stdout)",
             output);
  if (argc > 1 && std::string_view(argv[1]) == "aot") return aotMain(argc, argv);
  if (argc > 1 && std::string_view(argv[1]) != "compile") {
    std::string_view first = argv[1];
    if (first == "-h" || first == "--help" || first == "--version") return *cli.parse(2, argv);
    return cli.fail("unknown command '" + std::string(first) +
                    "' (the commands are 'compile' and 'aot')");
  }
  if (argc < 2) return cli.fail("no command given (tesserac compile FILE.py --kernel NAME ...)");
  if (std::optional<int> exit = cli.parse(argc, argv, 2)) return *exit;
  if (kernel.empty()) return cli.fail("--kernel NAME is required (the @jit function to compile)");
  req.optimize = !noOpt;
  req.fpFusion = !noFpFusion;
  req.reflectFtz = !noReflectFtz;
  const bool gpuStage = emit == "ttgir" || emit == "ptx" || emit == tessera::kUnspecializedPtxStage;
  if (gpuStage && req.target.empty()) req.target = "sm_90a";
  std::optional<std::string> source = tessera::cli::readSourceFile("tesserac", file);
  if (!source) return 1;
  req.fileName = file;
  req.kernel = kernel;
  req.keepStages = {emit};
  req.stagesOnly = true;  // printed, never run
  std::vector<std::string> parts = split ? splitParts(*source) : std::vector<std::string>{*source};
  // @jit helpers imported from other files (runtime/source_imports.h); the
  // parts of a split file are compiled on their own.
  if (!split)
    if (auto units = tessera::followImports(file, *source); units.size() > 1) req.units = units;
  int status = 0;
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) {
    req.source = parts[i];
    try {
      if (haveSignature) req.args = tessera::frontend::parseSignature(signature);
      auto k = tessera::compileKernel(req);
      for (const tessera::CompileWarning &w : k->warnings()) std::cerr << w.text;
      if (split && i) text += "# -----\n";
      if (emit == tessera::kUnspecializedPtxStage && k->ir(emit).empty())
        throw tessera::CompilationError(
            "kernel '" + kernel +
            "' is not warp-specialised (warp-specialize, on sm_90a only, splits a loop "
            "marked tl.range(..., warp_specialize=True), and unmarked an attention loop "
            "rotated on 8 warps or more; it split none here), so it has no unspecialised "
            "twin; --emit ptx prints its PTX");
      text += k->ir(emit);
      // The last kernel's IR is left for the process's exit to reclaim, as
      // clang's -disable-free does: freeing a long kernel's ops one by one
      // was a tenth of compiling it. Held by a static, so leak checkers
      // count it reachable.
      if (i + 1 == parts.size()) {
        static auto *keep = new std::shared_ptr<tessera::CompiledKernel>();
        *keep = std::move(k);
      }
    } catch (const tessera::CompilationError &e) {
      // Diagnostics come rendered (file:line:col, caret, newline); messages
      // about the request itself (a pass name, a target) are one sentence.
      std::string_view what = e.what();
      if (what.empty() || what.back() != '\n')
        std::cerr << "tesserac: error: " << what << "\n";
      else
        std::cerr << what;
      status = 1;
    } catch (const tessera::CompileError &e) {
      tessera::SourceManager none;
      std::cerr << tessera::render(none, e.diag);
      status = 1;
    }
  }
  if (output.empty() || output == "-") {
    std::cout << text;
  } else if (status == 0 && !tessera::cli::writeOutput(output, text)) {
    std::cerr << "tesserac: error: cannot write '" << output
              << "': check that its folder exists and is writable\n";
    status = 1;
  }
  return status;
}
