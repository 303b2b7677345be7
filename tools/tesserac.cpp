// tesserac: the Tessera compiler driver.
//
//   tesserac compile FILE.py --kernel NAME --signature "*fp32:16, *fp32, i32, 1024"
//            [--emit ir|ttir|ttir-initial|ttgir|ptx] [--target sm_80|sm_90|sm_90a] [--num-warps N]
//            [--num-stages N] [--debug] [--passes a,b,c] [--no-opt]
//            [--print-after a,b] [--print-after-all] [--time-passes]
//            [--split-input-file]
//
// --passes replaces the Tile IR pipeline (the GPU passes always follow it for
// a GPU target); --print-after / --print-after-all print the IR after those
// passes (Tile IR or GPU) on stderr, --time-passes a table of pass times.
//
// --split-input-file compiles each part of FILE between lines `# -----`
// separately (same kernel name and signature; line numbers stay those of
// FILE), reporting every part's diagnostics: diagnostic tests keep many cases
// in one file.
// Prints the requested stage to stdout; diagnostics go to stderr with a
// non-zero exit status.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "runtime/compiler.h"
#include "support/source.h"

namespace {

int usage(const char *msg) {
  if (msg) std::cerr << "tesserac: error: " << msg << "\n";
  std::cerr << "usage: tesserac compile FILE.py --kernel NAME --signature SIG\n"
               "                [--emit ir|ttir|ttir-initial|ttgir|ptx] [--target "
               "sm_80|sm_90|sm_90a] [--num-warps N] [--num-stages N] [--debug]\n"
               "                [--passes a,b,c] [--no-opt] [--print-after a,b] "
               "[--print-after-all] [--time-passes]\n"
               "                [--split-input-file]\n";
  return 2;
}

std::vector<std::string> splitComma(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

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

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return usage(nullptr);
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h") return usage(nullptr), 0;
  if (cmd != "compile") return usage(("unknown command '" + cmd + "'").c_str());
  std::string file, kernel, signature, emit = "ttir";
  bool haveSignature = false, split = false;
  tessera::CompileRequest req;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *name) -> std::string {
      std::string prefix = std::string(name) + "=";
      if (a.rfind(prefix, 0) == 0) return a.substr(prefix.size());
      if (i + 1 >= argc) {
        usage((std::string(name) + " needs a value").c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--kernel" || a.rfind("--kernel=", 0) == 0)
      kernel = value("--kernel");
    else if (a == "--signature" || a.rfind("--signature=", 0) == 0) {
      signature = value("--signature");
      haveSignature = true;
    } else if (a == "--emit" || a.rfind("--emit=", 0) == 0)
      emit = value("--emit");
    else if (a == "--passes" || a.rfind("--passes=", 0) == 0)
      req.passes = splitComma(value("--passes"));
    else if (a == "--target" || a.rfind("--target=", 0) == 0)
      req.target = value("--target");
    else if (a == "--num-warps" || a.rfind("--num-warps=", 0) == 0)
      req.numWarps = std::atoi(value("--num-warps").c_str());
    else if (a == "--num-stages" || a.rfind("--num-stages=", 0) == 0)
      req.numStages = std::atoi(value("--num-stages").c_str());
    else if (a == "--debug")
      req.lower.debug = true;
    else if (a == "--print-after" || a.rfind("--print-after=", 0) == 0)
      req.printAfter = splitComma(value("--print-after"));
    else if (a == "--print-after-all")
      req.printAfterAll = true;
    else if (a == "--time-passes")
      req.timePasses = true;
    else if (a == "--no-opt")
      req.optimize = false;
    else if (a == "--split-input-file")
      split = true;
    else if (!a.empty() && a[0] == '-')
      return usage(("unknown option '" + a + "'").c_str());
    else if (file.empty())
      file = a;
    else
      return usage("more than one input file");
  }
  if (file.empty()) return usage("no input file");
  if (kernel.empty()) return usage("--kernel is required");
  if (emit == "ir") emit = "ttir";  // the optimised Tile IR
  if (emit != "ttir" && emit != "ttir-initial" && emit != "ttgir" && emit != "ptx")
    return usage(
        ("unknown --emit stage '" + emit + "' (use ir, ttir, ttir-initial, ttgir or ptx)").c_str());
  if ((emit == "ttgir" || emit == "ptx") && req.target.empty()) req.target = "sm_90a";
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << "tesserac: error: cannot read '" << file << "'\n";
    return 1;
  }
  std::optional<std::string> text = tessera::readAtMost(in);
  if (!text) {
    std::cerr << "tesserac: error: '" << file << "' is larger than "
              << (tessera::kMaxSourceBytes >> 20) << " MiB, the most a kernel source may be\n";
    return 1;
  }
  req.fileName = file;
  req.kernel = kernel;
  std::vector<std::string> parts = split ? splitParts(*text) : std::vector<std::string>{*text};
  int status = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    req.source = parts[i];
    try {
      if (haveSignature) req.args = tessera::frontend::parseSignature(signature);
      auto k = tessera::compileKernel(req);
      if (split && i) std::cout << "# -----\n";
      std::cout << k->ir(emit);
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
  return status;
}
