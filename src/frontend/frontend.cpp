#include "frontend/frontend.h"

#include <cctype>

#include "frontend/lowering.h"
#include "support/text.h"

namespace tessera::frontend {

std::unique_ptr<Module> lowerKernel(SourceManager &sm, const std::vector<LowerUnit> &units,
                                    const std::string &name, const std::vector<ArgSpec> &args,
                                    const LowerOptions &opts) {
  if (units.empty() || !units[0].module) internalError("frontend", "no source unit to lower");
  Lowerer l(sm, opts, units);
  return l.lowerKernel(name, args);
}

std::unique_ptr<Module> lowerKernel(SourceManager &sm, const ast::Module &mod,
                                    const std::string &name, const std::vector<ArgSpec> &args,
                                    const LowerOptions &opts) {
  return lowerKernel(sm, {LowerUnit{&mod, nullptr}}, name, args, opts);
}

namespace {
[[noreturn]] void badEntry(const std::string &entry, const std::string &why) {
  fail({}, "bad signature entry '" + entry + "': " + why,
       "entries look like '*fp32:16' (pointer), 'i32' or 'i32:16' (scalar), '1024' (constexpr), "
       "'tensordesc<fp16[64, 64]>' (host tensor descriptor)");
}

// The entries of a signature: split at the commas outside <...>, [...] and
// quotes (a descriptor's block shape has its own commas).
std::vector<std::string> splitEntries(const std::string &signature) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i <= signature.size(); ++i) {
    char c = i < signature.size() ? signature[i] : ',';
    if (quote) {
      if (c == quote) quote = 0;
      if (i < signature.size()) continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '<' || c == '[') ++depth;
    if ((c == '>' || c == ']') && depth > 0) --depth;
    if (c == ',' && (depth == 0 || i == signature.size())) {
      out.emplace_back(trim(signature.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

// `tensordesc<DTYPE[B0, B1, ...]>` (Triton's AOT form for a host
// TensorDescriptor), then optional hints: `:16`, the base 16-byte aligned and
// every dim of the shape a multiple of 16 (what Python specialises on);
// `:nan`, out-of-bounds elements read NaN.
ArgSpec parseDescriptorEntry(const std::string &entry) {
  ArgSpec a;
  a.kind = ArgSpec::Kind::TensorDesc;
  size_t open = entry.find('<'), close = entry.rfind('>');
  size_t lb = entry.find('['), rb = entry.rfind(']');
  if (close == std::string::npos || lb == std::string::npos || rb == std::string::npos ||
      !(open < lb && lb < rb && rb < close))
    badEntry(entry, "a descriptor is written 'tensordesc<fp16[64, 64]>'");
  std::string type(trim(entry.substr(open + 1, lb - open - 1)));
  auto d = dtypeFromSignatureName(type);
  if (!d) badEntry(entry, "unknown type '" + type + "'");
  a.dtype = *d;
  std::string dims = entry.substr(lb + 1, rb - lb - 1);
  for (size_t at = 0; at <= dims.size();) {
    size_t comma = dims.find(',', at);
    std::string dim(
        trim(dims.substr(at, comma == std::string::npos ? std::string::npos : comma - at)));
    at = comma == std::string::npos ? dims.size() + 1 : comma + 1;
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(dim, &used, 10);
    } catch (const std::logic_error &) {
      used = 0;
    }
    if (dim.empty() || used != dim.size() || v < 1)
      badEntry(entry, "the block shape must be positive integers, got '" + dim + "'");
    a.block.push_back(v);
  }
  if (trim(entry.substr(rb + 1, close - rb - 1)) != "")
    badEntry(entry, "expected '>' after the block shape");
  std::string hints = entry.substr(close + 1);
  for (size_t at = 0; at < hints.size();) {
    if (hints[at] != ':') badEntry(entry, "hints after '>' are ':16' and ':nan'");
    size_t next = hints.find(':', at + 1);
    std::string hint(
        trim(hints.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1)));
    at = next == std::string::npos ? hints.size() : next;
    if (hint == "16") {
      a.divisibility = 16;
      a.shapeDivisibility.assign(a.block.size(), 16);
    } else if (hint == "nan") {
      a.nanPadding = true;
    } else {
      badEntry(entry, "hints after '>' are ':16' and ':nan', got ':" + hint + "'");
    }
  }
  return a;
}
}  // namespace

std::optional<TupleType> parseTupleType(const std::string &s) {
  auto identifier = [](std::string_view w) {
    if (w.empty() || std::isdigit(static_cast<unsigned char>(w[0]))) return false;
    for (char c : w)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
  };
  size_t open = s.find('(');
  if (open == std::string::npos || s.back() != ')') return std::nullopt;
  TupleType t;
  t.name = s.substr(0, open);
  if (!identifier(t.name)) return std::nullopt;
  std::string_view rest(s.data() + open + 1, s.size() - open - 2);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view field = rest.substr(0, comma);
    if (!identifier(field)) return std::nullopt;
    for (const std::string &f : t.fields)
      if (f == field) return std::nullopt;
    t.fields.emplace_back(field);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
    if (rest.empty()) return std::nullopt;  // "P(a,)"
  }
  return t;
}

std::vector<ArgSpec> parseSignature(const std::string &signature) {
  std::vector<ArgSpec> out;
  if (trim(signature).empty()) return out;
  for (const std::string &entry : splitEntries(signature)) {
    if (entry.empty()) badEntry(entry, "empty entry");
    if (entry.rfind("tensordesc", 0) == 0) {
      out.push_back(parseDescriptorEntry(entry));
      continue;
    }
    ArgSpec a;
    // Constexprs: numbers, booleans, None, quoted strings, tl dtypes.
    char c0 = entry[0];
    if (std::isdigit(static_cast<unsigned char>(c0)) || c0 == '-' ||
        (c0 == '.' && entry.size() > 1)) {
      a.kind = ArgSpec::Kind::Constexpr;
      try {
        size_t used = 0;
        if (entry.find_first_of(".eE") != std::string::npos && entry.rfind("0x", 0) != 0) {
          a.value = ConstValue::floating(std::stod(entry, &used));
        } else {
          a.value = ConstValue::integer(std::stoll(entry, &used, 0));
        }
        if (used != entry.size()) badEntry(entry, "not a number");
      } catch (const std::logic_error &) {
        badEntry(entry, "not a number");
      }
      out.push_back(a);
      continue;
    }
    if (entry == "True" || entry == "False") {
      a.kind = ArgSpec::Kind::Constexpr;
      a.value = ConstValue::boolean(entry == "True");
      out.push_back(a);
      continue;
    }
    if (entry == "None") {
      a.kind = ArgSpec::Kind::Constexpr;
      out.push_back(a);
      continue;
    }
    if (c0 == '\'' || c0 == '"') {
      if (entry.size() < 2 || entry.back() != c0) badEntry(entry, "unterminated string");
      a.kind = ArgSpec::Kind::Constexpr;
      a.value = ConstValue::string(entry.substr(1, entry.size() - 2));
      out.push_back(a);
      continue;
    }
    if (entry.rfind("tl.", 0) == 0) {
      auto d = dtypeFromTritonName(entry.substr(3));
      if (!d) badEntry(entry, "unknown dtype");
      a.kind = ArgSpec::Kind::Constexpr;
      a.value = ConstValue::dtypeValue(*d);
      out.push_back(a);
      continue;
    }
    std::string type = entry, hint;
    if (auto colon = entry.find(':'); colon != std::string::npos) {
      type = std::string(trim(entry.substr(0, colon)));
      hint = std::string(trim(entry.substr(colon + 1)));
    }
    bool ptr = !type.empty() && type[0] == '*';
    if (ptr) type = std::string(trim(type.substr(1)));
    auto d = dtypeFromSignatureName(type);
    if (!d && type == "i1") d = DType::I1;
    if (!d) badEntry(entry, "unknown type '" + type + "'");
    a.kind = ptr ? ArgSpec::Kind::Pointer : ArgSpec::Kind::Scalar;
    a.dtype = *d;
    if (!hint.empty()) {
      if (hint == "16")
        a.divisibility = 16;
      else if (hint == "1" && !ptr && isInt(*d))
        a.equalToOne = true;
      else
        badEntry(entry, "the hint after ':' must be 16 (divisibility) or 1 (equal to one)");
      if (!ptr && isFloat(*d)) badEntry(entry, "hints apply to pointers and integers");
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace tessera::frontend
