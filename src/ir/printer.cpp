// The Tile IR printer; the grammar is documented in printer.h.
#include "ir/printer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace tessera {

namespace {

bool isIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool isBareLayoutName(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
           c == '-';
  });
}

std::string quoted(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u >= 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Shortest text that reads back to the same bits (std::to_chars guarantees
// the round trip); always recognisable as a float, never as an int.
std::string formatDouble(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (std::isnan(v)) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    if (bits == 0x7ff8000000000000ull) return "nan";
    char hex[32];
    auto [end, ec] = std::to_chars(hex, hex + sizeof hex, bits, 16);
    (void)ec;
    return "nan(0x" + std::string(hex, end) + ")";
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  std::string s(buf, end);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

// Assigns every value of one function (or one detached op) its printed name.
class Namer {
 public:
  void nameTopBlock(const Block &b) {
    countHints(b);
    for (const auto &a : b.args) nameValue(a.get());
    for (const auto &op : b.ops) nameOp(*op);
  }
  void nameDetachedOp(const Operation &op) {
    countHintsOfOp(op);
    nameOp(op);
  }
  // How a use of `v` is spelled (`%x`, `%3`, `%6#1`).
  std::string use(const Value *v) const {
    const std::string *name = names_.find(v);
    return name ? *name : "%<undefined>";
  }
  // How the results of `op` are spelled where they are defined (`%x`, `%6:2`).
  std::string resultGroup(const Operation &op) const {
    const std::string *group = groups_.find(&op);
    return group ? *group : use(op.results[0].get());
  }

 private:
  static const std::string &groupHint(const Operation &op) { return op.results[0]->nameHint; }

  void countHints(const Block &b) {
    for (const auto &a : b.args) ++hintCount_[a->nameHint];
    for (const auto &op : b.ops) countHintsOfOp(*op);
  }
  void countHintsOfOp(const Operation &op) {
    if (!op.results.empty()) ++hintCount_[groupHint(op)];
    for (const auto &r : op.regions) countHints(*r);
  }
  std::string freshName(const std::string &hint) {
    if (isIdentifier(hint) && hintCount_[hint] == 1) return "%" + hint;
    return "%" + std::to_string(nextNumber_++);
  }
  void nameValue(const Value *v) { names_[v] = freshName(v->nameHint); }
  void nameOp(const Operation &op) {
    if (op.results.size() == 1) {
      nameValue(op.results[0].get());
    } else if (op.results.size() > 1) {
      std::string base = freshName(groupHint(op));
      groups_[&op] = base + ":" + std::to_string(op.results.size());
      for (size_t i = 0; i < op.results.size(); ++i)
        names_[op.results[i].get()] = base + "#" + std::to_string(i);
    }
    for (const auto &r : op.regions) {
      for (const auto &a : r->args) nameValue(a.get());
      for (const auto &inner : r->ops) nameOp(*inner);
    }
  }

  std::unordered_map<std::string, int> hintCount_;
  PtrMap<const Value *, std::string> names_;
  PtrMap<const Operation *, std::string> groups_;
  int nextNumber_ = 0;
};

class Printer {
 public:
  Printer(const Namer &namer, const PrintOptions &opts) : namer_(namer), opts_(opts) {}

  std::string location(const SourceLoc &loc) const {
    if (!opts_.locations || !opts_.sm || loc.file == 0) return {};
    const SourceFile *f = opts_.sm->file(loc.file);
    if (!f) return {};
    return " loc(" + quoted(f->name) + ":" + std::to_string(loc.line) + ":" +
           std::to_string(loc.col) + ")";
  }

  void op(const Operation &o, int indent, std::string &out) const {
    out.append(indent, ' ');
    if (!o.results.empty()) out += namer_.resultGroup(o) + " = ";
    out += o.info().mnemonic;
    for (size_t i = 0; i < o.operands.size(); ++i)
      out += (i ? ", " : " ") + namer_.use(o.operands[i]);
    if (!o.attrs.empty()) {
      // Sorted here too: passes may have pushed to attrs directly.
      std::vector<const NamedAttr *> sorted;
      for (const auto &a : o.attrs) sorted.push_back(&a);
      std::stable_sort(sorted.begin(), sorted.end(),
                       [](const NamedAttr *a, const NamedAttr *b) { return a->name < b->name; });
      out += " {";
      for (size_t i = 0; i < sorted.size(); ++i) {
        if (i) out += ", ";
        out += isIdentifier(sorted[i]->name) ? sorted[i]->name : quoted(sorted[i]->name);
        out += " = " + printAttr(sorted[i]->value);
      }
      out += "}";
    }
    for (size_t i = 0; i < o.results.size(); ++i)
      out += (i ? ", " : " : ") + printType(o.results[i]->type);
    for (size_t r = 0; r < o.regions.size(); ++r) {
      out += " {\n";
      block(*o.regions[r], indent, out);
      out.append(indent, ' ');
      out += "}";
    }
    out += location(o.loc);
  }

  // A region's body: its argument header at the op's indentation, its ops
  // one level deeper.
  void block(const Block &b, int indent, std::string &out) const {
    if (!b.args.empty()) {
      out.append(indent, ' ');
      out += "^(";
      for (size_t i = 0; i < b.args.size(); ++i) {
        if (i) out += ", ";
        out += namer_.use(b.args[i].get()) + ": " + printType(b.args[i]->type);
      }
      out += "):\n";
    }
    for (const auto &inner : b.ops) {
      op(*inner, indent + 2, out);
      out += "\n";
    }
  }

  void function(const Function &f, std::string &out) const {
    out += "func @" + (isIdentifier(f.name) ? f.name : quoted(f.name)) + "(";
    for (size_t i = 0; i < f.body.args.size(); ++i) {
      const Value *a = f.body.args[i].get();
      if (i) out += ", ";
      out += namer_.use(a) + ": " + printType(a->type);
      ParamAttrs pa = i < f.paramAttrs.size() ? f.paramAttrs[i] : ParamAttrs{};
      std::vector<std::string> parts;
      if (pa.divisibility != 1)
        parts.push_back("divisibility = " + std::to_string(pa.divisibility));
      if (pa.equalToOne) parts.push_back("equal_to_one = 1");
      if (pa.gridAxis >= 0) parts.push_back("grid_axis = " + std::to_string(pa.gridAxis));
      if (!parts.empty()) {
        out += " {" + parts[0];
        for (size_t p = 1; p < parts.size(); ++p) out += ", " + parts[p];
        out += "}";
      }
    }
    out += ")";
    for (size_t i = 0; i < f.resultTypes.size(); ++i)
      out += (i ? ", " : " -> ") + printType(f.resultTypes[i]);
    out += location(f.loc);
    out += " {\n";
    for (const auto &o : f.body.ops) {
      op(*o, 2, out);
      out += "\n";
    }
    out += "}\n";
  }

 private:
  const Namer &namer_;
  const PrintOptions &opts_;
};

}  // namespace

std::string printType(const Type &t) {
  switch (t.kind) {
    case Type::Kind::Void:
    case Type::Kind::Scalar:
    case Type::Kind::Ptr:
      return t.str();
    case Type::Kind::Tile:
    case Type::Kind::MemDesc: {
      std::string s = t.isTile() ? "tile<" : "memdesc<";
      for (int64_t d : t.shape) s += std::to_string(d) + "x";
      s += t.isTile() ? t.element().str() : irName(t.dtype);
      if (!t.layout.empty())
        s += ", #" + (isBareLayoutName(t.layout.str()) ? t.layout.str() : quoted(t.layout.str()));
      return s + ">";
    }
  }
  return "void";
}

std::string printAttr(const Attr &a) {
  struct Visitor {
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return formatDouble(v); }
    std::string operator()(const std::string &s) const { return quoted(s); }
    std::string operator()(const std::vector<int64_t> &list) const {
      std::string s = "[";
      for (size_t i = 0; i < list.size(); ++i) s += (i ? ", " : "") + std::to_string(list[i]);
      return s + "]";
    }
    std::string operator()(const Type &t) const { return "type<" + printType(t) + ">"; }
  };
  return std::visit(Visitor{}, a);
}

std::string printFunction(const Function &f, const PrintOptions &opts) {
  Namer namer;
  namer.nameTopBlock(f.body);
  std::string out;
  Printer(namer, opts).function(f, out);
  return out;
}

std::string printModule(const Module &m, const PrintOptions &opts) {
  std::string out;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (i) out += "\n";
    out += printFunction(*m.functions[i], opts);
  }
  return out;
}

std::string printOp(const Operation &op, const PrintOptions &opts) {
  // Name the whole enclosing function so that names match printFunction.
  const Operation *root = &op;
  const Block *top = op.parent;
  while (top && top->parentOp) {
    root = top->parentOp;
    top = root->parent;
  }
  Namer namer;
  if (top)
    namer.nameTopBlock(*top);
  else
    namer.nameDetachedOp(*root);
  std::string out;
  Printer(namer, opts).op(op, 0, out);
  return out;
}

}  // namespace tessera
