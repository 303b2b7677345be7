// tessera-opt: reads textual Tile IR, verifies it, runs named passes and
// prints the result. The driver of the IR tests (tests/ir, tests/lit.py).
//
//   tessera-opt FILE.tir [--pass=a,b,c] [--print-after=PASS] [--print-after-all]
//               [--split-input-file] [--verify-diagnostics] [--print-locations]
//               [--list-passes]
//
// FILE '-' reads standard input. With --split-input-file the input is cut at
// lines `// -----` and each chunk is processed on its own (an error in one
// does not stop the others), keeping the line numbers of the whole file;
// outputs are separated by `// -----`. Errors are rendered as
// `file:line:col: error: ...` with the line and a caret on stderr.
//
// --verify-diagnostics checks the errors against `// expected-error {{text}}`
// comments instead (`expected-error@+N` / `@-N` for another line): every
// error must be expected on its line and every expectation met.
//
// Exit status: 0 on success, 1 on any error.
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>

#include "codegen/ptx/gpu_passes.h"
#include "ir/ir_parser.h"
#include "ir/printer.h"
#include "ir/verifier_diagnostics.h"
#include "passes/pass_manager.h"
#include "support/diagnostics.h"
#include "support/source.h"

namespace {

using namespace tessera;

struct Options {
  std::string input;
  std::vector<std::string> passes;
  std::set<std::string> printAfter;
  bool printAfterAll = false;
  bool splitInputFile = false;
  bool verifyDiagnostics = false;
  bool printLocations = false;
  bool listPasses = false;
  int numWarps = 4;           // GPU passes: warps per program
  int numStages = 3;          // GPU passes: software pipelining depth
  int targetSm = 80;          // GPU passes: the tensor-core instructions a dot may use
  bool archSpecific = false;  // sm_90a
};

constexpr const char *kUsage =
    "usage: tessera-opt FILE.tir [--pass=a,b,c] [--print-after=PASS] [--print-after-all]\n"
    "                   [--split-input-file] [--verify-diagnostics] [--print-locations]\n"
    "                   [--list-passes] [--num-warps=N] [--num-stages=N] [--target=sm_NN]\n"
    "FILE '-' reads standard input.\n";

std::vector<std::string> splitCommas(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// Returns an error message, or "" when the arguments are fine.
std::string parseArgs(int argc, char **argv, Options &opts) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *prefix) { return arg.substr(std::string(prefix).size()); };
    if (arg.rfind("--pass=", 0) == 0) {
      for (auto &p : splitCommas(value("--pass="))) opts.passes.push_back(p);
    } else if (arg.rfind("--print-after=", 0) == 0) {
      for (auto &p : splitCommas(value("--print-after="))) opts.printAfter.insert(p);
    } else if (arg == "--print-after-all") {
      opts.printAfterAll = true;
    } else if (arg == "--split-input-file") {
      opts.splitInputFile = true;
    } else if (arg == "--verify-diagnostics") {
      opts.verifyDiagnostics = true;
    } else if (arg == "--print-locations") {
      opts.printLocations = true;
    } else if (arg.rfind("--num-warps=", 0) == 0) {
      opts.numWarps = std::atoi(value("--num-warps=").c_str());
      if (opts.numWarps < 1 || opts.numWarps > 32 || (opts.numWarps & (opts.numWarps - 1)))
        return "--num-warps must be a power of two from 1 to 32";
    } else if (arg.rfind("--num-stages=", 0) == 0) {
      opts.numStages = std::atoi(value("--num-stages=").c_str());
      if (opts.numStages < 1 || opts.numStages > 16) return "--num-stages must be from 1 to 16";
    } else if (arg.rfind("--target=", 0) == 0) {
      ptx::Target t;
      if (!ptx::parseTarget(value("--target="), t))
        return "--target must be sm_80, sm_90, sm_90a, ...";
      opts.targetSm = t.sm;
      opts.archSpecific = t.archSpecific;
    } else if (arg == "--list-passes") {
      opts.listPasses = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg.size() > 1 && arg[0] == '-') {
      return "unknown option '" + arg + "'";
    } else if (opts.input.empty()) {
      opts.input = arg;
    } else {
      return "more than one input file ('" + opts.input + "' and '" + arg + "')";
    }
  }
  if (opts.input.empty() && !opts.listPasses) return "no input file (use '-' for stdin)";
  if (std::string bad = checkPassNames(opts.passes); !bad.empty()) return bad;
  if (std::string bad = checkPassNames({opts.printAfter.begin(), opts.printAfter.end()});
      !bad.empty())
    return "--print-after: " + bad;
  return {};
}

struct Chunk {
  std::string text;
  uint32_t firstLine = 1;
};

std::vector<Chunk> splitInput(const std::string &text, bool split) {
  if (!split) return {{text, 1}};
  std::vector<Chunk> chunks(1);
  uint32_t line = 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    size_t next = end == std::string::npos ? text.size() : end + 1;
    std::string_view lineText(text.data() + pos, next - pos);
    size_t first = lineText.find_first_not_of(" \t");
    if (first != std::string_view::npos && lineText.substr(first).rfind("// -----", 0) == 0) {
      chunks.push_back({"", line + 1});
    } else {
      chunks.back().text.append(lineText);
    }
    pos = next;
    ++line;
  }
  return chunks;
}

struct Expectation {
  uint32_t line;
  std::string substring;
  bool met = false;
};

std::vector<Expectation> findExpectations(const Chunk &chunk) {
  static const std::regex kPattern(R"(expected-error(@([+-]?)(\d+))?\s*\{\{(.*?)\}\})");
  std::vector<Expectation> out;
  std::istringstream in(chunk.text);
  std::string line;
  for (uint32_t n = chunk.firstLine; std::getline(in, line); ++n) {
    for (std::sregex_iterator it(line.begin(), line.end(), kPattern), end; it != end; ++it) {
      const std::smatch &m = *it;
      int64_t target = n;
      if (m[1].matched) {
        int64_t offset = std::stoll(m[3].str());
        if (m[2].str() == "+")
          target = n + offset;
        else if (m[2].str() == "-")
          target = n - offset;
        else
          target = offset;
      }
      out.push_back({static_cast<uint32_t>(std::max<int64_t>(target, 0)), m[4].str()});
    }
  }
  return out;
}

// Matches `errors` against the chunk's expected-error comments; prints the
// mismatches and returns whether there were none.
bool checkExpectations(const SourceManager &sm, uint32_t fileId, const Chunk &chunk,
                       const std::vector<Diagnostic> &errors) {
  std::vector<Expectation> expected = findExpectations(chunk);
  bool ok = true;
  for (const Diagnostic &d : errors) {
    bool matched = false;
    for (auto &e : expected)
      if (!e.met && d.loc.file == fileId && e.line == d.loc.line &&
          d.message.find(e.substring) != std::string::npos) {
        e.met = matched = true;
        break;
      }
    if (!matched) {
      ok = false;
      std::cerr << "unexpected " << render(sm, d);
    }
  }
  const std::string &name = sm.file(fileId)->name;
  for (const auto &e : expected)
    if (!e.met) {
      ok = false;
      std::cerr << name << ":" << e.line << ": error: expected error \"" << e.substring
                << "\" was not produced\n";
    }
  return ok;
}

// Parses, verifies, transforms and prints one chunk; returns its errors.
std::vector<Diagnostic> processChunk(SourceManager &sm, uint32_t fileId, const Options &opts,
                                     std::string &output) {
  std::unique_ptr<Module> module;
  try {
    module = parseIR(sm, fileId);
  } catch (const CompileError &e) {
    return {e.diag};
  }
  std::vector<Diagnostic> errors = collectVerifierErrors(*module);
  if (!errors.empty()) return errors;
  PrintOptions printOpts{opts.printLocations, &sm};
  PassPipelineOptions pipeline;
  pipeline.printAfter.insert(opts.printAfter.begin(), opts.printAfter.end());
  pipeline.printAfterAll = opts.printAfterAll;
  pipeline.print = [&](const std::string &pass, const Module &m) {
    output += "// IR after pass '" + pass + "'\n" + printModule(m, printOpts) + "\n";
  };
  try {
    module->numWarps = opts.numWarps;
    module->numStages = opts.numStages;
    module->targetSm = opts.targetSm;
    module->archSpecific = opts.archSpecific;
    runPasses(*module, opts.passes, pipeline);
  } catch (const CompileError &e) {
    return {e.diag};
  }
  output += printModule(*module, printOpts);
  return {};
}

int run(int argc, char **argv) {
  Options opts;
  if (std::string problem = parseArgs(argc, argv, opts); !problem.empty()) {
    std::cerr << "tessera-opt: error: " << problem << "\n" << kUsage;
    return 1;
  }
  if (opts.listPasses) {
    if (allPasses().empty()) std::cout << "(no passes registered)\n";
    for (const auto &p : allPasses()) std::cout << p.name << "\t" << p.description << "\n";
    return 0;
  }
  std::string text;
  std::string name = opts.input == "-" ? "<stdin>" : opts.input;
  std::optional<std::string> read;
  if (opts.input == "-") {
    read = readAtMost(std::cin);
  } else {
    std::ifstream in(opts.input, std::ios::binary);
    if (!in) {
      std::cerr << "tessera-opt: error: cannot open '" << opts.input << "'\n";
      return 1;
    }
    read = readAtMost(in);
  }
  if (!read) {
    std::cerr << "tessera-opt: error: '" << name << "' is larger than " << (kMaxSourceBytes >> 20)
              << " MiB, the most an IR input may be\n";
    return 1;
  }
  text = std::move(*read);

  SourceManager sm;
  bool ok = true;
  std::vector<Chunk> chunks = splitInput(text, opts.splitInputFile);
  for (size_t i = 0; i < chunks.size(); ++i) {
    uint32_t fileId = sm.addFile(name, chunks[i].text, chunks[i].firstLine);
    std::string output;
    std::vector<Diagnostic> errors = processChunk(sm, fileId, opts, output);
    if (opts.verifyDiagnostics) {
      ok = checkExpectations(sm, fileId, chunks[i], errors) && ok;
    } else {
      for (const auto &d : errors) std::cerr << render(sm, d);
      ok = ok && errors.empty();
    }
    if (i) std::cout << "// -----\n";
    std::cout << output;
  }
  std::cout.flush();
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  try {
    tessera::registerPasses(tessera::ptx::gpuPasses());
    return run(argc, argv);
  } catch (const tessera::CompileError &e) {
    std::cerr << "tessera-opt: error: " << e.diag.message << "\n";
  } catch (const std::exception &e) {
    std::cerr << "tessera-opt: internal error: " << e.what() << "\n";
  }
  return 1;
}
