// The tools' command-line parser (cli.h).
#include "support/cli.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "support/source.h"

namespace tessera::cli {

namespace {

constexpr size_t kHelpColumn = 26;
constexpr size_t kWidth = 80;

// Levenshtein distance, for "did you mean" (option names are short).
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Appends `help` word-wrapped to kWidth columns, continuing a line now at
// `column` and indenting later lines by `indent` (options' help stays in its
// column); a '\n' in the text forces a break.
void wrap(std::string &out, const std::string &help, size_t indent, size_t column) {
  size_t pos = 0;
  bool lineStart = true;
  while (pos < help.size()) {
    if (help[pos] == '\n') {
      out.append(1, '\n').append(indent, ' ');
      column = indent;
      lineStart = true;
      ++pos;
      continue;
    }
    if (help[pos] == ' ') {
      ++pos;
      continue;
    }
    size_t end = help.find_first_of(" \n", pos);
    if (end == std::string::npos) end = help.size();
    size_t length = end - pos;
    if (!lineStart && column + 1 + length > kWidth) {
      out.append(1, '\n').append(indent, ' ');
      column = indent;
      lineStart = true;
    }
    if (!lineStart) {
      out += ' ';
      ++column;
    }
    out.append(help, pos, length);
    column += length;
    lineStart = false;
    pos = end;
  }
  out += "\n";
}

void appendHelp(std::string &out, const std::string &spec, const std::string &help) {
  out += "  " + spec;
  size_t column = 2 + spec.size();
  if (column + 2 > kHelpColumn) {
    out += "\n";
    column = 0;
  }
  out += std::string(kHelpColumn - column, ' ');
  wrap(out, help, kHelpColumn, kHelpColumn);
}

}  // namespace

std::optional<long long> parseInteger(std::string_view text, long long lo, long long hi) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    return std::nullopt;
  return v;
}

std::optional<std::string> readSourceFile(std::string_view tool, const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << tool << ": error: cannot read '" << path << "': check the path\n";
    return std::nullopt;
  }
  std::optional<std::string> source = readAtMost(in);
  if (!source)
    std::cerr << tool << ": error: '" << path << "' is larger than " << (kMaxSourceBytes >> 20)
              << " MiB, the most a kernel source may be\n";
  return source;
}

bool writeOutput(const std::string &path, const std::string &text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out || !(out << text) || !out.flush()) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  std::remove(tmp.c_str());
  return false;
}

std::vector<std::string> splitCommas(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

Parser::Parser(std::string tool, std::string usage, std::string summary)
    : tool_(std::move(tool)), usage_(std::move(usage)), summary_(std::move(summary)) {}

void Parser::option(std::string names, std::string metavar, std::string help, Setter set) {
  Option o;
  o.names = splitCommas(names);
  o.metavar = std::move(metavar);
  o.help = std::move(help);
  o.set = std::move(set);
  options_.push_back(std::move(o));
}

void Parser::flag(std::string names, std::string help, bool &out) {
  option(std::move(names), "", std::move(help), [&out](const std::string &) {
    out = true;
    return std::string();
  });
}

void Parser::string(std::string names, std::string metavar, std::string help, std::string &out) {
  option(std::move(names), std::move(metavar), std::move(help), [&out](const std::string &v) {
    out = v;
    return std::string();
  });
}

void Parser::list(std::string names, std::string metavar, std::string help,
                  std::vector<std::string> &out) {
  option(std::move(names), std::move(metavar), std::move(help), [&out](const std::string &v) {
    for (std::string &item : splitCommas(v)) out.push_back(std::move(item));
    return std::string();
  });
}

void Parser::integer(std::string names, std::string metavar, std::string help, int &out, int lo,
                     int hi, bool powerOfTwo) {
  auto set = [&out, lo, hi, powerOfTwo](const std::string &v) {
    std::optional<long long> n = parseInteger(v, lo, hi);
    if (!n || (powerOfTwo && (*n & (*n - 1))))
      return std::string("expects ") + (powerOfTwo ? "a power of two" : "an integer") + " from " +
             std::to_string(lo) + " to " + std::to_string(hi) + ", got '" + v + "'";
    out = static_cast<int>(*n);
    return std::string();
  };
  option(std::move(names), std::move(metavar), std::move(help), set);
}

void Parser::positional(std::string metavar, std::string help, std::string &out, bool required) {
  positionals_.push_back({std::move(metavar), std::move(help), &out, required});
}

const Parser::Option *Parser::find(std::string_view name) const {
  for (const Option &o : options_)
    for (const std::string &n : o.names)
      if (name == n) return &o;
  return nullptr;
}

std::string Parser::suggest(std::string_view name) const {
  std::vector<std::string> names = {"--help", "--version"};
  for (const Option &o : options_)
    for (const std::string &n : o.names)
      if (n.rfind("--", 0) == 0) names.push_back(n);
  std::string best;
  size_t bestDistance = 3;  // suggest only close spellings
  for (const std::string &n : names)
    if (size_t d = editDistance(name, n); d < bestDistance) {
      bestDistance = d;
      best = n;
    }
  return best;
}

std::string Parser::help() const {
  std::string out = "usage: " + tool_ + (usage_.empty() ? "" : " " + usage_) + "\n";
  if (!summary_.empty()) {
    out += "\n";
    wrap(out, summary_, 0, 0);
  }
  if (!positionals_.empty()) {
    out += "\narguments:\n";
    for (const Positional &p : positionals_) appendHelp(out, p.metavar, p.help);
  }
  out += "\noptions:\n";
  for (const Option &o : options_) {
    // Long-only options line up with the long names of those with a short one.
    std::string spec = o.names.front().rfind("--", 0) == 0 ? "    " : "";
    for (size_t i = 0; i < o.names.size(); ++i) spec += (i ? ", " : "") + o.names[i];
    if (!o.metavar.empty()) spec += " " + o.metavar;
    appendHelp(out, spec, o.help);
  }
  appendHelp(out, "-h, --help", "print this help and exit");
  if (!version_.empty()) appendHelp(out, "    --version", "print the version and exit");
  if (!epilog_.empty()) out += "\n" + epilog_ + (epilog_.back() == '\n' ? "" : "\n");
  return out;
}

int Parser::fail(const std::string &message) const {
  return fail(message, std::cerr);
}

int Parser::fail(const std::string &message, std::ostream &err) const {
  err << tool_ << ": error: " << message << "\n"
      << "Run '" << tool_ << " --help' for the options.\n";
  return 2;
}

std::optional<int> Parser::parse(int argc, const char *const *argv, int first) {
  return parse(argc, argv, first, std::cout, std::cerr);
}

std::optional<int> Parser::parse(int argc, const char *const *argv, int first, std::ostream &out,
                                 std::ostream &err) {
  size_t nextPositional = 0;
  bool optionsEnded = false;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    bool isOption = !optionsEnded && arg.size() > 1 && arg[0] == '-';
    if (!isOption) {
      if (nextPositional == positionals_.size()) {
        if (positionals_.empty())
          return fail("unexpected argument '" + arg + "': " + tool_ + " takes no file names", err);
        return fail("unexpected argument '" + arg + "' (" + positionals_.back().metavar + " is '" +
                        *positionals_.back().out + "')",
                    err);
      }
      *positionals_[nextPositional++].out = arg;
      continue;
    }
    if (arg == "--") {
      optionsEnded = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      out << help();
      return 0;
    }
    if (arg == "--version" && !version_.empty()) {
      out << tool_ << " " << version_ << "\n";
      return 0;
    }
    // --name=value, -oVALUE, or the name alone.
    std::string name = arg;
    std::optional<std::string> value;
    if (arg.rfind("--", 0) == 0) {
      if (size_t eq = arg.find('='); eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
      }
    } else if (arg.size() > 2) {
      name = arg.substr(0, 2);
      value = arg.substr(2);
    }
    const Option *o = find(name);
    if (!o) {
      std::string msg = "unknown option '" + name + "'";
      if (std::string close = suggest(name); !close.empty())
        msg += "; did you mean '" + close + "'?";
      return fail(msg, err);
    }
    if (o->metavar.empty()) {
      if (value) return fail("option '" + name + "' takes no value", err);
      value = "";
    } else if (!value) {
      if (i + 1 >= argc)
        return fail("option '" + name + "' needs a value (" + name + " " + o->metavar + ")", err);
      value = argv[++i];
    }
    if (std::string problem = o->set(*value); !problem.empty())
      return fail("option '" + name + "': " + problem, err);
  }
  for (size_t p = nextPositional; p < positionals_.size(); ++p)
    if (positionals_[p].required)
      return fail("missing " + positionals_[p].metavar + " (" + positionals_[p].help + ")", err);
  return std::nullopt;
}

}  // namespace tessera::cli
