// `tesserac aot`: ahead-of-time launchers (runtime/aot.h). Compiles one
// kernel for each --signature given and writes NAME.h and NAME.c, C source
// that launches it through the CUDA driver in a program without Tessera.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "codegen/ptx/gpu_passes.h"
#include "runtime/aot.h"
#include "runtime/compiler.h"
#include "runtime/cuda_driver.h"
#include "runtime/serialize.h"
#include "runtime/source_imports.h"
#include "support/cli.h"

namespace {

constexpr const char *kSummary =
    "Compiles a kernel ahead of time, once per --signature, and writes a C header and "
    "source file (NAME.h, NAME.c) that launch it through the CUDA driver API in a program "
    "that has no Tessera: the PTX is embedded; the launcher takes the grid and a CUstream at "
    "call time, loads the module lazily in the current context (any device; the cubin when "
    "ptxas is installed and the device runs it, else the PTX), and returns a "
    "CUresult, never exiting. With several signatures it dispatches at run time to the first "
    "whose ':16' and ':1' facts hold for the arguments (list the most general last). "
    "Diagnostics exit with 1, usage errors with 2.";

constexpr const char *kEpilog =
    "example:\n"
    "  tesserac aot examples/vector_add.py --kernel add_kernel \\\n"
    "      --signature '*fp32:16, *fp32:16, *fp32:16, i32:16, 1024' \\\n"
    "      --signature '*fp32, *fp32, *fp32, i32, 1024' --target sm_80 -o gen/\n"
    "  cc -c gen/add_kernel.c -I/usr/local/cuda/include   # then link with -lcuda\n"
    "\n"
    "  CUresult r = add_kernel(stream, (n + 1023) / 1024, 1, 1, x, y, out, n);";

// The ptxas to assemble cubins with: --ptxas, else one on PATH, else the
// CUDA toolkit's default place; "" when there is none.
std::string findPtxas(const std::string &given) {
  if (!given.empty()) return given;
  if (const char *path = std::getenv("PATH")) {
    std::string dirs = path;
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      std::string candidate = dirs.substr(start, end - start) + "/ptxas";
      if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
      start = end + 1;
    }
  }
  return access("/usr/local/cuda/bin/ptxas", X_OK) == 0 ? "/usr/local/cuda/bin/ptxas" : "";
}

std::string shellQuote(const std::string &s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// ptxas's cubin of `ptx` for `target` (-lineinfo keeps the source lines for
// profilers), with what ptxas reports of it (-v). Throws tessera::Error with
// ptxas's messages when it fails.
struct Assembled {
  std::string cubin;
  int regs = 0;          // registers a thread
  int stackBytes = 0;    // local memory a thread (the stack frame: spills)
  int staticShared = 0;  // bytes of `.shared` the PTX declares
};

// The number in "<before>N<after>" of ptxas's report, or 0: the first, as
// Tessera's PTX has one entry (ptxas reports several in its own order).
int reported(const std::string &log, const std::string &before, const std::string &after) {
  for (size_t at = log.find(after); at != std::string::npos; at = log.find(after, at + 1)) {
    size_t start = at;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(log[start - 1]))) --start;
    if (start < at && start >= before.size() &&
        log.compare(start - before.size(), before.size(), before) == 0)
      return std::atoi(log.c_str() + start);
  }
  return 0;
}

Assembled assemble(const std::string &ptxas, const std::string &ptx, const std::string &target) {
  char dir[] = "/tmp/tesserac-aot-XXXXXX";
  if (!mkdtemp(dir)) throw tessera::Error("cannot create a temporary folder for ptxas");
  std::string in = std::string(dir) + "/k.ptx", out = std::string(dir) + "/k.cubin",
              log = std::string(dir) + "/log";
  std::ofstream(in, std::ios::binary) << ptx;
  std::string cmd = shellQuote(ptxas) + " -arch=" + target + " -lineinfo -v " + shellQuote(in) +
                    " -o " + shellQuote(out) + " > " + shellQuote(log) + " 2>&1";
  int status = std::system(cmd.c_str());
  std::stringstream bin, messages;
  bin << std::ifstream(out, std::ios::binary).rdbuf();
  messages << std::ifstream(log).rdbuf();
  for (const std::string &f : {in, out, log}) std::remove(f.c_str());
  rmdir(dir);
  if (status != 0 || bin.str().empty())
    throw tessera::Error("ptxas (" + ptxas + ") could not assemble the PTX for " + target + ":\n" +
                         messages.str() + "(--no-cubin embeds the PTX only)");
  const std::string text = messages.str();
  return {bin.str(), reported(text, "Used ", " registers"),
          reported(text, "", " bytes stack frame"), reported(text, ", ", " bytes smem")};
}

// `variant`'s cubin for `target`. As the JIT loader does
// (cuda_driver.h's occupancyBlockTarget), a kernel a few registers short of
// one more resident block per multiprocessor of the target is assembled
// again asking for it (`.minnctapersm`), and that cubin is kept as
// keepHinted says: the launcher loads the cubin as it is, so the loader's own check never runs
// there. The embedded PTX stays as compiled, for GPUs with other limits.
void assembleForOccupancy(const std::string &ptxas, tessera::AotVariant &variant,
                          const std::string &target) {
  const std::string &ptx = variant.kernel->ir("ptx");
  Assembled plain = assemble(ptxas, ptx, target);
  variant.cubin = plain.cubin;
  tessera::ptx::Target t;
  tessera::ptx::parseTarget(target, t);
  namespace cu = tessera::cuda;
  int blocks =
      cu::occupancyBlockTarget(cu::archLimits(t.sm), plain.regs, variant.kernel->launchThreads(),
                               plain.staticShared + variant.kernel->sharedBytes());
  std::string hinted = blocks > 0 ? cu::withMinBlocksPerSm(ptx, blocks) : "";
  if (hinted.empty()) return;
  try {
    Assembled h = assemble(ptxas, hinted, target);
    if (cu::keepHinted(plain.regs, plain.stackBytes, h.regs, h.stackBytes)) {
      variant.cubin = h.cubin;
      variant.minBlocksPerSm = blocks;
      variant.regs = h.regs;
      variant.plainRegs = plain.regs;
    }
  } catch (const tessera::Error &) {
    // ptxas could not fit an instruction in the fewer registers: the plain one.
  }
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

int aotMain(int argc, char **argv) {
  std::string file, kernel, name, outDir = ".", ptxasGiven;
  bool noCubin = false;
  std::vector<std::string> signatures;
  tessera::CompileRequest req;
  req.target = "sm_80";
  tessera::cli::Parser cli("tesserac", "aot FILE.py --kernel NAME --signature SIG... [options]",
                           kSummary);
  const std::string &version = tessera::compilerVersion();
  cli.version(version.substr(version.find(' ') + 1));
  cli.epilog(kEpilog);
  cli.positional("FILE.py", "the kernel's Python source file", file);
  cli.string("--kernel", "NAME", "the @jit function to compile (required)", kernel);
  cli.option("--signature", "SIG",
             "one specialisation, in Triton's AOT syntax (repeat for several; required); they "
             "may differ only in ':16' and ':1' facts",
             [&](const std::string &v) {
               signatures.push_back(v);
               return std::string();
             });
  cli.option("--target", "sm_NN",
             "the GPU to compile for (default sm_80, whose PTX every newer GPU runs): sm_80, "
             "sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120, ...",
             [&](const std::string &v) -> std::string {
               tessera::ptx::Target t;
               if (tessera::ptx::parseTarget(v, t)) {
                 req.target = v;
                 return {};
               }
               return "expects a GPU target, got '" + v +
                      "'; the targets are: " + tessera::ptx::knownTargets();
             });
  cli.integer("--num-warps", "N", "warps per program: 1, 2, 4 (the default), 8, 16 or 32",
              req.numWarps, 1, 32, /*powerOfTwo=*/true);
  cli.integer("--num-stages", "N", "software pipelining depth of loops (1 to 16; default 3)",
              req.numStages, 1, 16);
  cli.flag("--debug", "keep tl.device_assert checks", req.lower.debug);
  cli.string("--name", "NAME",
             "the launcher's C name, and of its files (default: the kernel's name)", name);
  cli.string("-o,--output", "DIR", "the folder to write NAME.h and NAME.c into (default: .)",
             outDir);
  cli.string("--ptxas", "PATH",
             "the ptxas that assembles the embedded cubins (default: ptxas on PATH, else "
             "/usr/local/cuda/bin/ptxas; without one only the PTX is embedded)",
             ptxasGiven);
  cli.flag("--no-cubin", "embed the PTX only (the driver compiles it at the first launch)",
           noCubin);
  if (std::optional<int> exit = cli.parse(argc, argv, 2)) return *exit;
  if (kernel.empty()) return cli.fail("--kernel NAME is required (the @jit function to compile)");
  if (signatures.empty())
    return cli.fail("--signature SIG is required (one for each specialisation to embed)");
  if (name.empty()) name = kernel;
  if (!isIdentifier(name))
    return cli.fail("--name '" + name + "' is not a C identifier (letters, digits and '_')");

  std::optional<std::string> source = tessera::cli::readSourceFile("tesserac", file);
  if (!source) return 1;
  req.source = *source;
  req.fileName = file;
  // @jit helpers imported from other files (runtime/source_imports.h).
  if (auto units = tessera::followImports(file, *source); units.size() > 1) req.units = units;
  req.kernel = kernel;
  // The launchers pass no global scratch and no grid: descriptors made in
  // the kernel keep cp.async on sm_90a, and no kernel is made persistent.
  // So no loop of theirs fills by tensor copies, warp-specialize splits
  // none, and the JIT loader's choice between a specialised kernel and its
  // unspecialised twin does not arise here.
  req.globalScratch = false;
  std::vector<tessera::AotVariant> variants;
  std::set<std::string> warned;
  std::string ptxas = noCubin ? "" : findPtxas(ptxasGiven);
  try {
    for (const std::string &sig : signatures) {
      req.args = tessera::frontend::parseSignature(sig);
      variants.push_back({req.args, sig, tessera::compileKernel(req), ""});
      for (const tessera::CompileWarning &w : variants.back().kernel->warnings())
        if (warned.insert(w.text).second) std::cerr << w.text;  // once, not per signature
      if (!ptxas.empty()) assembleForOccupancy(ptxas, variants.back(), req.target);
    }
    tessera::AotFiles files = tessera::generateAot(name, file, variants);
    for (auto [fileName, text] :
         {std::pair{files.headerName, files.header}, std::pair{files.sourceName, files.source}}) {
      std::string path = outDir + "/" + fileName;
      if (!tessera::cli::writeOutput(path, text)) {
        std::cerr << "tesserac: error: cannot write '" << path
                  << "': check that the folder exists and is writable\n";
        return 1;
      }
    }
  } catch (const tessera::CompilationError &e) {
    std::string_view what = e.what();
    if (what.empty() || what.back() != '\n')
      std::cerr << "tesserac: error: " << what << "\n";
    else
      std::cerr << what;
    return 1;
  } catch (const tessera::CompileError &e) {
    tessera::SourceManager none;
    std::cerr << tessera::render(none, e.diag);
    return 1;
  } catch (const tessera::Error &e) {
    std::cerr << "tesserac: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
