#include "runtime/source_imports.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "frontend/parser.h"
#include "support/text.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxUnits = 64;

std::optional<std::string> readFile(const fs::path &p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec) || fs::file_size(p, ec) > kMaxSourceBytes || ec)
    return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The file of module `dotted` (relative import: `level` leading dots) as
// seen from a file in `dir`, or empty.
fs::path moduleFile(const fs::path &dir, const std::string &dotted, int level) {
  std::string head = dotted.substr(0, dotted.find('.'));
  if (level == 0 && (head == "triton" || head == "tessera")) return {};
  fs::path base = dir;
  for (int i = 1; i < level; ++i) base = base.parent_path();
  fs::path p = base;
  std::stringstream parts(dotted);
  for (std::string part; std::getline(parts, part, '.');) p /= part;
  std::error_code ec;
  if (dotted.empty())
    return fs::is_regular_file(base / "__init__.py", ec) ? base / "__init__.py" : fs::path();
  if (fs::is_regular_file(p.string() + ".py", ec)) return p.string() + ".py";
  if (fs::is_regular_file(p / "__init__.py", ec)) return p / "__init__.py";
  return {};
}

class Follower {
 public:
  std::vector<SourceUnit> run(const std::string &file, const std::string &source) {
    add(fs::path(file), keyOf(fs::path(file)), source);
    for (size_t i = 0; i < units_.size(); ++i) bindImports(i);
    return std::move(units_);
  }

 private:
  struct Parsed {
    fs::path path;
    ast::Module module;
  };

  // A file's name in index_: one per file however it is reached.
  static std::string keyOf(const fs::path &path) {
    std::error_code ec;
    fs::path key = fs::weakly_canonical(path, ec);
    return (ec ? path : key).string();
  }

  // The unit of `path` (read and parsed once), or -1.
  int unitOf(const fs::path &path) {
    std::string key = keyOf(path);
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    if (units_.size() >= kMaxUnits) return -1;
    std::optional<std::string> text = readFile(path);
    if (!text) return -1;
    return add(path, key, *text);
  }

  int add(const fs::path &path, const std::string &key, const std::string &text) {
    int id = static_cast<int>(units_.size());
    index_[key] = id;
    SourceUnit u;
    u.source = text;
    u.fileName = path.string();
    units_.push_back(std::move(u));
    uint32_t fileId = sm_.addFile(path.string(), text);
    parsed_.push_back({path, frontend::parseModule(sm_, fileId)});
    return id;
  }

  // The @jit functions defined at the top of unit `u`.
  std::vector<std::string> jitFunctions(size_t u) const {
    std::vector<std::string> out;
    for (const auto &s : parsed_[u].module.body)
      if (s->kind == ast::StmtKind::FunctionDef)
        for (const auto &d : s->decorators)
          if (frontend::isJitDecorator(*d)) {
            out.push_back(s->name);
            break;
          }
    return out;
  }

  void bindModule(size_t into, const std::string &bind, const std::string &dotted, int unit) {
    if (unit < 0) return;
    frontend::Global alias;
    alias.kind = frontend::Global::Kind::ModuleAlias;
    alias.module = dotted;
    units_[into].globals[bind] = alias;
    for (const std::string &f : jitFunctions(static_cast<size_t>(unit)))
      units_[into].globals[bind + "." + f] = jitGlobal(unit, f);
  }

  static frontend::Global jitGlobal(int unit, const std::string &name) {
    frontend::Global g;
    g.kind = frontend::Global::Kind::JitFunction;
    g.unit = static_cast<uint32_t>(unit);
    g.function = name;
    return g;
  }

  void bindImports(size_t u) {
    fs::path dir = parsed_[u].path.parent_path();
    // Copied: reading further files grows parsed_.
    std::vector<const ast::Stmt *> imports;
    for (const auto &s : parsed_[u].module.body)
      if (s->kind == ast::StmtKind::Import || s->kind == ast::StmtKind::ImportFrom)
        imports.push_back(s.get());
    for (const ast::Stmt *s : imports) {
      if (s->kind == ast::StmtKind::Import) {
        for (const auto &n : s->names) {
          // `import a.b` binds `a`, whose attribute `b` is a module: only
          // a single name, or one bound `as`, is followed.
          if (n.asname.empty() && n.name.find('.') != std::string::npos) continue;
          fs::path f = moduleFile(dir, n.name, 0);
          if (!f.empty()) bindModule(u, n.asname.empty() ? n.name : n.asname, n.name, unitOf(f));
        }
        continue;
      }
      fs::path f = moduleFile(dir, s->name, s->importLevel);
      int unit = f.empty() ? -1 : unitOf(f);
      std::vector<std::string> fns;
      if (unit >= 0) fns = jitFunctions(static_cast<size_t>(unit));
      for (const auto &n : s->names) {
        std::string bind = n.asname.empty() ? n.name : n.asname;
        if (std::find(fns.begin(), fns.end(), n.name) != fns.end()) {
          units_[u].globals[bind] = jitGlobal(unit, n.name);
          continue;
        }
        // `from package import module`.
        std::string sub = s->name.empty() ? n.name : s->name + "." + n.name;
        fs::path g = moduleFile(dir, sub, s->importLevel);
        if (!g.empty()) bindModule(u, bind, sub, unitOf(g));
      }
    }
  }

  SourceManager sm_;
  std::vector<SourceUnit> units_;
  std::vector<Parsed> parsed_;
  std::map<std::string, int> index_;
};

// Whether `source` may import a module other than triton and tessera:
// some line holds the word `import` and is not one plain `import triton...`,
// `import tessera...`, `from triton... import` or `from tessera... import`.
// A "yes" from a comment or string only costs the full parse; a "no" means
// no import statement names another module. Most kernel files import only
// triton, and parsing a long one twice was a tenth of compiling it.
bool mayImportOthers(std::string_view source) {
  auto isWordChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto plain = [](std::string_view line) {
    for (std::string_view kw : {"import ", "from "})
      for (std::string_view pkg : {"triton", "tessera"}) {
        if (line.substr(0, kw.size()) != kw) continue;
        std::string_view rest = trim(line.substr(kw.size()));
        if (rest.substr(0, pkg.size()) != pkg) continue;
        char next = rest.size() > pkg.size() ? rest[pkg.size()] : ' ';
        if (next != '.' && next != ' ') continue;
        return line.find_first_of(",;\\(") == std::string_view::npos;
      }
    return false;
  };
  for (size_t start = 0; start < source.size();) {
    size_t end = std::min(source.find('\n', start), source.size());
    std::string_view line = source.substr(start, end - start);
    start = end + 1;
    for (size_t at = line.find("import"); at != std::string_view::npos;
         at = line.find("import", at + 1)) {
      bool word = (at == 0 || !isWordChar(line[at - 1])) &&
                  (at + 6 == line.size() || !isWordChar(line[at + 6]));
      if (word && !plain(trim(line))) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<SourceUnit> followImports(const std::string &file, const std::string &source) {
  SourceUnit only;
  only.source = source;
  only.fileName = file;
  if (!mayImportOthers(source)) return {only};
  try {
    return Follower().run(file, source);
  } catch (const std::exception &) {
    return {only};  // a file the parser refuses is the compile's to report
  }
}

}  // namespace tessera
