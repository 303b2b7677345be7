// The command-line parser every Tessera tool uses (tesserac, tessera-opt,
// tessera-demo), so all of them read their arguments the same way:
//
//   --name VALUE and --name=VALUE   both spellings, for every option
//   -o FILE and -oFILE              short options
//   --flag                          flags take no value (--flag=x is an error)
//   --                              ends the options (a later `-x` is a positional)
//   -                               a positional (standard input, by convention)
//   -h, --help                      the help on stdout, every option described; exit 0
//   --version                       the version on stdout; exit 0
//
// Numbers are checked (all digits, within the option's range); an unknown
// option is refused with the closest known name. Errors are one line on
// stderr, `TOOL: error: MESSAGE`, followed by a line saying how to get the
// help, and parse() returns exit status 2 (the usual status of a usage error).
//
//   cli::Parser p("tessera-opt", "FILE.tir [options]", "Runs Tile IR passes.");
//   p.integer("--num-warps", "N", "warps per program", opts.numWarps, 1, 32);
//   p.positional("FILE.tir", "the input ('-': standard input)", opts.input);
//   if (std::optional<int> exit = p.parse(argc, argv)) return *exit;
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cli {

class Parser {
 public:
  // `usage` follows the tool's name on the usage line ("compile FILE.py
  // --kernel NAME [options]"); `summary` is the help's first paragraph.
  Parser(std::string tool, std::string usage, std::string summary);

  // What --version prints (after the tool's name). Without it there is no --version.
  void version(std::string text) { version_ = std::move(text); }
  // Text printed after the options in --help (examples, environment, exit status).
  void epilog(std::string text) { epilog_ = std::move(text); }

  // `names` is the spellings separated by commas: "--debug", "-o,--output",
  // "--passes,--pass" (the first long one is the name errors use).
  // A setter returns "" on success or a sentence saying what is wrong with the value.
  using Setter = std::function<std::string(const std::string &value)>;
  void option(std::string names, std::string metavar, std::string help, Setter set);
  void flag(std::string names, std::string help, bool &out);
  void string(std::string names, std::string metavar, std::string help, std::string &out);
  // A comma-separated list; repeating the option appends.
  void list(std::string names, std::string metavar, std::string help,
            std::vector<std::string> &out);
  // A decimal integer in [lo, hi] (and a power of two when asked).
  void integer(std::string names, std::string metavar, std::string help, int &out, int lo, int hi,
               bool powerOfTwo = false);

  // Positional arguments, filled in order; a required one that is missing is
  // an error, and one more than declared is an error.
  void positional(std::string metavar, std::string help, std::string &out, bool required = true);

  // Parses argv[first..argc). Returns nothing when the tool should go on; an
  // exit status when it should stop (0 after --help or --version, printed on
  // `out`; 2 after an error, printed on `err`).
  std::optional<int> parse(int argc, const char *const *argv, int first = 1);
  std::optional<int> parse(int argc, const char *const *argv, int first, std::ostream &out,
                           std::ostream &err);

  // Reports a usage error found after parsing (a missing required option, a
  // bad combination) the way parse() does; returns 2.
  int fail(const std::string &message) const;
  int fail(const std::string &message, std::ostream &err) const;

  std::string help() const;
  const std::string &tool() const { return tool_; }

 private:
  struct Option {
    std::vector<std::string> names;  // "-o", "--output", ...
    std::string metavar;             // empty for a flag
    std::string help;
    Setter set;
  };
  struct Positional {
    std::string metavar, help;
    std::string *out;
    bool required;
  };
  const Option *find(std::string_view name) const;
  std::string suggest(std::string_view name) const;

  std::string tool_, usage_, summary_, version_, epilog_;
  std::vector<Option> options_;
  std::vector<Positional> positionals_;
};

// Parses a whole decimal integer in [lo, hi]; nullopt for anything else
// ("", "abc", "12x", out of range).
std::optional<long long> parseInteger(std::string_view text, long long lo, long long hi);

// Writes `text` to `path` through a temporary file in the same folder
// renamed into place, so a failed run never leaves a half-written output
// (the -o FILE of the tools). False when the file cannot be written.
bool writeOutput(const std::string &path, const std::string &text);

// Reads the kernel source file `path` (at most kMaxSourceBytes). Nullopt
// after printing "TOOL: error: ..." on stderr when it cannot be read or is
// larger.
std::optional<std::string> readSourceFile(std::string_view tool, const std::string &path);

// Splits "a,b,,c" into {"a", "b", "c"}.
std::vector<std::string> splitCommas(std::string_view text);

}  // namespace tessera::cli
