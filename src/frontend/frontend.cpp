#include "frontend/frontend.h"

#include <cctype>

#include "frontend/lowering.h"

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
std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\n");
  size_t e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

[[noreturn]] void badEntry(const std::string &entry, const std::string &why) {
  fail({}, "bad signature entry '" + entry + "': " + why,
       "entries look like '*fp32:16' (pointer), 'i32' or 'i32:16' (scalar), '1024' (constexpr)");
}
}  // namespace

std::vector<ArgSpec> parseSignature(const std::string &signature) {
  std::vector<ArgSpec> out;
  if (trim(signature).empty()) return out;
  size_t start = 0;
  while (start <= signature.size()) {
    size_t comma = signature.find(',', start);
    std::string entry = trim(
        signature.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? signature.size() + 1 : comma + 1;
    if (entry.empty()) badEntry(entry, "empty entry");
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
      type = trim(entry.substr(0, colon));
      hint = trim(entry.substr(colon + 1));
    }
    bool ptr = !type.empty() && type[0] == '*';
    if (ptr) type = trim(type.substr(1));
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
