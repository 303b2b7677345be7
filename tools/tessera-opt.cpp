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
#include "runtime/serialize.h"
#include "support/cli.h"
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
  std::string output;         // -o FILE; stdout when empty
};

constexpr const char *kSummary =
    "Reads textual Tile IR, verifies it, runs the passes named by --pass in order and "
    "prints the result on stdout (or into -o FILE). Errors are rendered as "
    "'file:line:col: error: ...' with the line and a caret on stderr, exit status 1; "
    "usage errors exit with 2.";

// Declares the options on `cli`, writing into `opts`.
void declareOptions(cli::Parser &cli, Options &opts) {
  cli.positional("FILE.tir", "the Tile IR to read ('-': standard input)", opts.input,
                 /*required=*/false);
  cli.option("--pass,--passes", "a,b,c",
             "the passes to run, in order (repeatable; --list-passes names them)",
             [&opts](const std::string &v) {
               for (std::string &p : cli::splitCommas(v)) opts.passes.push_back(std::move(p));
               return checkPassNames(opts.passes);
             });
  cli.option("--print-after", "a,b", "print the IR after these passes (before the output)",
             [&opts](const std::string &v) {
               std::vector<std::string> names = cli::splitCommas(v);
               opts.printAfter.insert(names.begin(), names.end());
               return checkPassNames(names);
             });
  cli.flag("--print-after-all", "print the IR after every pass", opts.printAfterAll);
  cli.flag("--split-input-file",
           "cut the input at '// -----' lines and process each part on its own (an "
           "error in one does not stop the others; line numbers stay the file's)",
           opts.splitInputFile);
  cli.flag("--verify-diagnostics",
           "check the errors against '// expected-error {{text}}' comments "
           "('expected-error@+N' / '@-N' for another line) instead of printing them",
           opts.verifyDiagnostics);
  cli.flag("--print-locations", "print every op's source location", opts.printLocations);
  cli.flag("--list-passes", "print the passes with a line on each and exit", opts.listPasses);
  cli.integer("--num-warps", "N", "GPU passes: warps per program (1 to 32, a power of two; 4)",
              opts.numWarps, 1, 32, /*powerOfTwo=*/true);
  cli.integer("--num-stages", "N", "GPU passes: software pipelining depth (1 to 16; 3)",
              opts.numStages, 1, 16);
  cli.option("--target", "sm_NN",
             "GPU passes: the target whose tensor-core instructions a dot may use "
             "(sm_80, the default, sm_90, sm_90a, sm_100, sm_120, ...)",
             [&opts](const std::string &v) -> std::string {
               ptx::Target t;
               if (!ptx::parseTarget(v, t))
                 return "expects a GPU target, got '" + v +
                        "'; the targets are: " + ptx::knownTargets();
               opts.targetSm = t.sm;
               opts.archSpecific = t.archSpecific;
               return {};
             });
  cli.string("-o,--output", "FILE", "write the output to FILE instead of stdout ('-': stdout)",
             opts.output);
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
  // Always verified, release build or not: this tool is where a pass is
  // developed and tested, on inputs small enough that the checks cost nothing.
  pipeline.verifyEach = true;
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
  cli::Parser cli("tessera-opt", "FILE.tir [--pass=a,b,c] [options]", kSummary);
  const std::string &version = compilerVersion();
  cli.version(version.substr(version.find(' ') + 1));
  declareOptions(cli, opts);
  if (std::optional<int> exit = cli.parse(argc, argv)) return *exit;
  if (opts.input.empty() && !opts.listPasses)
    return cli.fail("no input file: name a .tir file, or '-' for standard input");
  if (opts.listPasses) {
    if (allPasses().empty()) std::cout << "(no passes registered)\n";
    for (const auto &p : allPasses()) std::cout << p.name << "\t" << p.description << "\n";
    return 0;
  }
  std::string text, result;
  std::string name = opts.input == "-" ? "<stdin>" : opts.input;
  std::optional<std::string> read;
  if (opts.input == "-") {
    read = readAtMost(std::cin);
  } else {
    std::ifstream in(opts.input, std::ios::binary);
    if (!in) {
      std::cerr << "tessera-opt: error: cannot open '" << opts.input << "': check the path\n";
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
    if (i) result += "// -----\n";
    result += output;
  }
  if (opts.output.empty() || opts.output == "-") {
    std::cout << result;
    std::cout.flush();
  } else if (ok && !cli::writeOutput(opts.output, result)) {
    std::cerr << "tessera-opt: error: cannot write '" << opts.output
              << "': check that its folder exists and is writable\n";
    return 1;
  }
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
