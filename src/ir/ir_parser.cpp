// The Tile IR parser: a recursive-descent reader working directly on
// characters (the type syntax `128x64xf32` does not tokenise well), with
// one-token lookahead done by saving and restoring the position.
#include "ir/ir_parser.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "support/diagnostics.h"

namespace tessera {

namespace {

constexpr int kMaxRegionDepth = 200;  // deeper input is rejected, not a stack overflow
constexpr int64_t kMaxTileDim = int64_t{1} << 31;

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

class IRParser {
 public:
  IRParser(SourceManager &sm, uint32_t fileId) : sm_(sm), fileId_(fileId) {
    // Copies: registering location files may move the SourceManager's storage.
    const SourceFile *f = sm.file(fileId);
    if (!f) internalError("IR parser", "unknown source file id " + std::to_string(fileId));
    text_ = f->text;
    fileName_ = f->name;
    lineStarts_ = f->lineStarts;
    firstLine_ = f->firstLine;
    colOffset_ = f->colOffset;
  }

  std::unique_ptr<Module> parseModule() {
    auto module = std::make_unique<Module>();
    while (true) {
      skipSpace();
      if (atEnd()) break;
      size_t start = pos_;
      if (parseIdentifierOrEmpty() != "func") {
        pos_ = start;
        fail(here(), "expected 'func' to start a function",
             "a module is a list of `func @name(...) { ... }`");
      }
      auto fn = parseFunction(start);
      if (module->lookup(fn->name)) fail(locAt(start), "redefinition of function @" + fn->name);
      module->functions.push_back(std::move(fn));
    }
    return module;
  }

 private:
  // ---- characters and locations ----------------------------------------------
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  char peekAt(size_t offset) const {
    return pos_ + offset < text_.size() ? text_[pos_ + offset] : '\0';
  }

  SourceLoc locAt(size_t pos) const {
    auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), static_cast<uint32_t>(pos));
    size_t index = static_cast<size_t>(it - lineStarts_.begin()) - 1;
    SourceLoc loc;
    loc.file = fileId_;
    loc.line = firstLine_ + static_cast<uint32_t>(index);
    loc.col = static_cast<uint32_t>(pos - lineStarts_[index]) + 1 + colOffset_;
    return loc;
  }
  SourceLoc here() {
    skipSpace();
    return locAt(pos_);
  }

  void skipSpace() {
    while (!atEnd()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && peekAt(1) == '/') {
        while (!atEnd() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  bool tryConsume(std::string_view token) {
    skipSpace();
    if (text_.compare(pos_, token.size(), token) != 0) return false;
    pos_ += token.size();
    return true;
  }

  void expect(std::string_view token, std::string_view context) {
    if (tryConsume(token)) return;
    fail(here(), "expected '" + std::string(token) + "' " + std::string(context) + ", found " +
                     describeNext());
  }

  std::string describeNext() {
    skipSpace();
    if (atEnd()) return "end of input";
    size_t end = pos_;
    if (isIdentChar(text_[pos_]) || text_[pos_] == '%') {
      ++end;
      while (end < text_.size() && isIdentChar(text_[end])) ++end;
    } else {
      ++end;
    }
    return "'" + text_.substr(pos_, end - pos_) + "'";
  }

  // An identifier at the current position (after spaces), or "" when none.
  std::string parseIdentifierOrEmpty() {
    skipSpace();
    if (atEnd() || !isIdentStart(text_[pos_])) return {};
    size_t start = pos_;
    while (!atEnd() && isIdentChar(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  std::string parseIdentifier(std::string_view what) {
    std::string id = parseIdentifierOrEmpty();
    if (id.empty()) fail(here(), "expected " + std::string(what) + ", found " + describeNext());
    return id;
  }

  int64_t parseInt(std::string_view what) {
    skipSpace();
    size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (!isDigit(peek())) {
      pos_ = start;
      fail(here(), "expected " + std::string(what) + ", found " + describeNext());
    }
    while (isDigit(peek())) ++pos_;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
    if (ec != std::errc() || ptr != text_.data() + pos_)
      fail(locAt(start), std::string(what) + " does not fit in 64 bits");
    return value;
  }

  std::string parseString() {
    skipSpace();
    size_t start = pos_;
    if (peek() != '"') fail(here(), "expected a string, found " + describeNext());
    ++pos_;
    std::string out;
    while (true) {
      if (atEnd() || peek() == '\n') fail(locAt(start), "unterminated string");
      char c = text_[pos_++];
      if (c == '"') break;
      if (c != '\\') {
        out += c;
        continue;
      }
      char e = peek();
      ++pos_;
      if (e == '\\' || e == '"') {
        out += e;
      } else if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else if (e == 'x' && std::isxdigit(static_cast<unsigned char>(peek())) &&
                 std::isxdigit(static_cast<unsigned char>(peekAt(1)))) {
        unsigned value = 0;
        std::from_chars(text_.data() + pos_, text_.data() + pos_ + 2, value, 16);
        out += static_cast<char>(value);
        pos_ += 2;
      } else {
        fail(locAt(pos_ - 2), "unknown escape sequence in string",
             "strings accept \\\\, \\\", \\n, \\t and \\xHH");
      }
    }
    return out;
  }

  // ---- types ------------------------------------------------------------------
  DType parseDType(std::string_view what) {
    size_t start = (skipSpace(), pos_);
    std::string name = parseIdentifierOrEmpty();
    if (auto d = dtypeFromIrName(name)) return *d;
    pos_ = start;
    fail(here(), "expected " + std::string(what) + ", found " + describeNext(),
         "element types are i1, i8, i16, i32, i64, u8, u16, u32, u64, f8e4nv, f8e5, f16, bf16, "
         "f32, f64");
  }

  Type parsePtrBody() {
    expect("<", "after 'ptr'");
    DType pointee = parseDType("a pointee type");
    int64_t space = 1;
    if (tryConsume(",")) {
      size_t at = (skipSpace(), pos_);
      space = parseInt("an address space");
      if (space < 0 || space > 255) fail(locAt(at), "address space must be in 0..255");
    }
    expect(">", "to close 'ptr<'");
    return Type::ptr(pointee, static_cast<int>(space));
  }

  std::string parseLayout() {
    skipSpace();
    if (!tryConsume("#")) fail(here(), "expected a layout '#name', found " + describeNext());
    if (peek() == '"') return parseString();
    size_t start = pos_;
    while (!atEnd() && (isIdentChar(peek()) || peek() == '.' || peek() == '$' || peek() == '-'))
      ++pos_;
    if (pos_ == start) fail(locAt(start), "expected a layout name after '#'");
    return text_.substr(start, pos_ - start);
  }

  // tile<...> and memdesc<...>: `(int 'x')* element (',' layout)?`
  Type parseShapedBody(bool isTile) {
    expect("<", isTile ? "after 'tile'" : "after 'memdesc'");
    skipSpace();
    std::vector<int64_t> shape;
    while (isDigit(peek())) {
      size_t start = pos_;
      while (isDigit(peek())) ++pos_;
      int64_t dim = 0;
      auto [ptr, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, dim);
      (void)ptr;
      if (ec != std::errc() || dim <= 0 || dim > kMaxTileDim)
        fail(locAt(start), "tile dimension must be a positive integer no larger than 2^31");
      shape.push_back(dim);
      if (peek() != 'x') fail(locAt(pos_), "expected 'x' after a tile dimension");
      ++pos_;
    }
    Type result;
    size_t elemAt = pos_;
    std::string elem = parseIdentifierOrEmpty();
    if (isTile && elem == "ptr") {
      result = Type::tile(std::move(shape), parsePtrBody());
    } else {
      pos_ = elemAt;
      DType d = parseDType("an element type");
      result = isTile ? Type::tile(std::move(shape), Type::scalar(d))
                      : Type::memdesc(std::move(shape), d);
    }
    if (tryConsume(",")) result.layout = parseLayout();
    expect(">", isTile ? "to close 'tile<'" : "to close 'memdesc<'");
    return result;
  }

  Type parseType(bool allowVoid = false) {
    size_t start = (skipSpace(), pos_);
    std::string name = parseIdentifierOrEmpty();
    if (name == "ptr") return parsePtrBody();
    if (name == "tile") return parseShapedBody(true);
    if (name == "memdesc") return parseShapedBody(false);
    if (allowVoid && name == "void") return Type::voidTy();
    if (auto d = dtypeFromIrName(name)) return Type::scalar(*d);
    pos_ = start;
    fail(here(), "expected a type, found " + describeNext(),
         "types are dtypes (i32, f16, ...), ptr<dtype[, space]>, tile<AxBxelem[, #layout]> and "
         "memdesc<AxBxdtype[, #layout]>");
  }

  std::vector<Type> parseTypeList() {
    std::vector<Type> types{parseType()};
    while (tryConsume(",")) types.push_back(parseType());
    return types;
  }

  // ---- attributes ---------------------------------------------------------------
  Attr parseNumber() {
    size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (isIdentStart(peek())) {  // -inf
      std::string word = parseIdentifierOrEmpty();
      if (word == "inf") return -std::numeric_limits<double>::infinity();
      fail(locAt(start), "expected a number after '-'");
    }
    bool isFloat = false;
    while (isDigit(peek())) ++pos_;
    if (peek() == '.') {
      isFloat = true;
      ++pos_;
      while (isDigit(peek())) ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      isFloat = true;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      while (isDigit(peek())) ++pos_;
    }
    const char *first = text_.data() + start;
    const char *last = text_.data() + pos_;
    if (isFloat) {
      double value = 0;
      auto [ptr, ec] = std::from_chars(first, last, value);
      if (ec != std::errc() || ptr != last) fail(locAt(start), "malformed float literal");
      return value;
    }
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last) fail(locAt(start), "integer does not fit in 64 bits");
    return value;
  }

  Attr parseAttrValue() {
    skipSpace();
    char c = peek();
    if (c == '"') return parseString();
    if (c == '-' || isDigit(c)) return parseNumber();
    if (c == '[') {
      ++pos_;
      std::vector<int64_t> list;
      if (tryConsume("]")) return list;
      do {
        list.push_back(parseInt("an integer in the list"));
      } while (tryConsume(","));
      expect("]", "to close the integer list");
      return list;
    }
    size_t start = pos_;
    std::string word = parseIdentifierOrEmpty();
    if (word == "inf") return std::numeric_limits<double>::infinity();
    if (word == "nan") {
      if (!tryConsume("(")) return std::numeric_limits<double>::quiet_NaN();
      expect("0x", "before the bits of a NaN");
      size_t bitsAt = pos_;
      while (std::isxdigit(static_cast<unsigned char>(peek()))) ++pos_;
      uint64_t bits = 0;
      auto [ptr, ec] = std::from_chars(text_.data() + bitsAt, text_.data() + pos_, bits, 16);
      (void)ptr;
      double value = 0;
      std::memcpy(&value, &bits, sizeof value);
      if (ec != std::errc() || value == value)
        fail(locAt(bitsAt), "nan(0x...) needs the 64 bits of a NaN");
      expect(")", "to close nan(");
      return value;
    }
    if (word == "true") return int64_t{1};
    if (word == "false") return int64_t{0};
    if (word == "type") {
      expect("<", "after 'type'");
      Type t = parseType(/*allowVoid=*/true);
      expect(">", "to close 'type<'");
      return t;
    }
    pos_ = start;
    fail(here(), "expected an attribute value, found " + describeNext(),
         "attribute values are integers, floats, \"strings\", [integer lists] and type<...>");
  }

  std::string parseAttrKey() {
    skipSpace();
    if (peek() == '"') return parseString();
    return parseIdentifier("an attribute name");
  }

  // After '{': is this an attribute dictionary (`{name = ...`) rather than a region?
  bool atAttrDict() {
    skipSpace();
    if (peek() != '{') return false;
    size_t saved = pos_;
    ++pos_;
    skipSpace();
    bool isDict = false;
    if (peek() == '"') {
      // Cannot throw: the key is re-parsed (and reported) when this is a dict.
      size_t end = text_.find('"', pos_ + 1);
      if (end != std::string::npos) {
        pos_ = end + 1;
        isDict = tryConsume("=");
      }
    } else if (!parseIdentifierOrEmpty().empty()) {
      skipSpace();
      isDict = peek() == '=';
    }
    pos_ = saved;
    return isDict;
  }

  void parseAttrDict(Operation &op) {
    expect("{", "to open the attributes");
    do {
      size_t at = (skipSpace(), pos_);
      std::string key = parseAttrKey();
      if (op.attr(key)) fail(locAt(at), "duplicate attribute '" + key + "'");
      expect("=", "after the attribute name");
      op.setAttr(std::move(key), parseAttrValue());
    } while (tryConsume(","));
    expect("}", "to close the attributes");
  }

  // `loc("file":line:col)` when present.
  std::optional<SourceLoc> parseOptionalLoc() {
    skipSpace();
    size_t saved = pos_;
    if (parseIdentifierOrEmpty() != "loc" || !tryConsume("(")) {
      pos_ = saved;
      return std::nullopt;
    }
    std::string file = parseString();
    expect(":", "after the file name of a location");
    size_t at = (skipSpace(), pos_);
    int64_t line = parseInt("a line number");
    expect(":", "after the line of a location");
    int64_t col = parseInt("a column number");
    if (line < 0 || col < 0 || line > std::numeric_limits<uint32_t>::max() ||
        col > std::numeric_limits<uint32_t>::max())
      fail(locAt(at), "location line and column must be non-negative 32-bit numbers");
    expect(")", "to close 'loc('");
    SourceLoc loc;
    loc.file = fileIdFor(file);
    loc.line = static_cast<uint32_t>(line);
    loc.col = static_cast<uint32_t>(col);
    return loc;
  }

  uint32_t fileIdFor(const std::string &name) {
    if (name == fileName_) return fileId_;
    auto it = fileIds_.find(name);
    if (it != fileIds_.end()) return it->second;
    uint32_t id = 0;
    for (uint32_t i = 1; sm_.file(i); ++i)
      if (sm_.file(i)->name == name) {
        id = i;
        break;
      }
    if (!id) id = sm_.addFile(name, "");
    fileIds_[name] = id;
    return id;
  }

  // ---- values -------------------------------------------------------------------
  // `%name` (without the '%' check); identifiers or numbers.
  std::string parseValueName() {
    skipSpace();
    size_t start = pos_;
    if (peek() != '%') fail(here(), "expected a value name '%...', found " + describeNext());
    ++pos_;
    if (isDigit(peek())) {
      while (isDigit(peek())) ++pos_;
    } else if (isIdentStart(peek())) {
      while (isIdentChar(peek())) ++pos_;
    } else {
      fail(locAt(start), "expected a name or number after '%'");
    }
    return text_.substr(start + 1, pos_ - start - 1);
  }

  static std::string hintFor(const std::string &name) {
    return isDigit(name[0]) ? std::string() : name;
  }

  void define(const std::string &name, size_t at, std::vector<Value *> values) {
    if (!values_.emplace(name, std::move(values)).second)
      fail(locAt(at), "redefinition of value '%" + name + "'",
           "every value is defined once per function; rename one of them");
  }

  Value *parseValueUse() {
    size_t at = (skipSpace(), pos_);
    std::string name = parseValueName();
    auto it = values_.find(name);
    if (it == values_.end())
      fail(locAt(at), "use of undefined value '%" + name + "'",
           "values must be defined (by an op or as an argument) before they are used");
    const std::vector<Value *> &group = it->second;
    if (peek() == '#') {
      ++pos_;
      size_t indexAt = pos_;
      if (!isDigit(peek())) fail(locAt(indexAt), "expected a result number after '#'");
      int64_t index = parseInt("a result number");
      if (index < 0 || static_cast<uint64_t>(index) >= group.size())
        fail(locAt(at), "'%" + name + "' has " + std::to_string(group.size()) + " result(s), no #" +
                            std::to_string(index));
      return group[static_cast<size_t>(index)];
    }
    if (group.size() != 1)
      fail(locAt(at), "'%" + name + "' names " + std::to_string(group.size()) + " results",
           "pick one with '%" + name + "#N'");
    return group[0];
  }

  // Whether the `%...` at the current position starts the next op's result
  // definition (`%x =` or `%x:2 =`) rather than continuing an operand list.
  bool atResultDefinition() {
    size_t saved = pos_;
    bool isDef = false;
    skipSpace();
    if (peek() == '%') {
      ++pos_;
      while (isIdentChar(peek())) ++pos_;
      skipSpace();
      if (peek() == '=') {
        isDef = true;
      } else if (peek() == ':') {
        ++pos_;
        skipSpace();
        isDef = isDigit(peek());
      }
    }
    pos_ = saved;
    return isDef;
  }

  // ---- ops, regions, functions ----------------------------------------------------
  void parseOp(Block &block) {
    size_t opStart = (skipSpace(), pos_);
    std::string resultName;
    int64_t resultCount = 0;
    if (peek() == '%') {
      resultName = parseValueName();
      resultCount = 1;
      if (tryConsume(":")) {
        size_t at = (skipSpace(), pos_);
        resultCount = parseInt("a result count");
        if (resultCount < 2 || resultCount > 4096)
          fail(locAt(at), "a result group '%name:N' needs N in 2..4096");
      }
      expect("=", "after the result name");
    }
    size_t mnemonicAt = (skipSpace(), pos_);
    std::string mnemonic = parseIdentifier("an op name");
    std::optional<OpCode> code = opCodeFromMnemonic(mnemonic);
    if (!code)
      fail(locAt(mnemonicAt), "unknown op '" + mnemonic + "'",
           "the ops are listed in src/ir/ops.def");

    auto op = std::make_unique<Operation>();
    op->code = *code;
    op->parent = &block;
    op->loc = locAt(opStart);
    skipSpace();
    if (peek() == '%' && !atResultDefinition()) {
      do {
        op->operands.push_back(parseValueUse());
      } while (tryConsume(","));
    }
    if (atAttrDict()) parseAttrDict(*op);
    std::vector<Type> types;
    size_t typesAt = (skipSpace(), pos_);
    if (tryConsume(":")) types = parseTypeList();
    if (static_cast<int64_t>(types.size()) != resultCount) {
      if (resultCount == 0)
        fail(locAt(typesAt), "'" + mnemonic + "' has result types but no result name",
             "write '%name = " + mnemonic + " ...'");
      fail(locAt(typesAt), "'" + mnemonic + "' defines " + std::to_string(resultCount) +
                               " result(s) but lists " + std::to_string(types.size()) +
                               " result type(s) after ':'");
    }
    for (size_t i = 0; i < types.size(); ++i) {
      auto v = std::make_unique<Value>();
      v->type = std::move(types[i]);
      v->def = op.get();
      v->index = static_cast<unsigned>(i);
      if (i == 0) v->nameHint = hintFor(resultName);
      op->results.push_back(std::move(v));
    }
    skipSpace();
    while (peek() == '{') {
      op->regions.push_back(std::make_unique<Block>());
      op->regions.back()->parentOp = op.get();
      parseRegion(*op->regions.back());
      skipSpace();
    }
    if (auto loc = parseOptionalLoc()) op->loc = *loc;
    // Defined after the regions: an op's results are not visible inside them.
    if (resultCount) {
      std::vector<Value *> group;
      for (auto &r : op->results) group.push_back(r.get());
      define(resultName, opStart, std::move(group));
    }
    Operation *raw = op.get();
    block.ops.push_back(std::move(op));
    raw->self = std::prev(block.ops.end());
    raw->linked = true;
  }

  void parseRegion(Block &block) {
    if (++depth_ > kMaxRegionDepth) fail(here(), "regions are nested too deeply");
    expect("{", "to open a region");
    if (tryConsume("^")) {
      expect("(", "after '^'");
      skipSpace();
      if (peek() != ')') {
        do {
          size_t at = (skipSpace(), pos_);
          std::string name = parseValueName();
          expect(":", "after a region argument name");
          Value *arg = block.addArg(parseType(), hintFor(name));
          define(name, at, {arg});
        } while (tryConsume(","));
      }
      expect(")", "to close the region arguments");
      expect(":", "after the region arguments");
    }
    parseOpsUntilBrace(block, "region");
    --depth_;
  }

  void parseOpsUntilBrace(Block &block, std::string_view what) {
    while (true) {
      skipSpace();
      if (atEnd())
        fail(here(), "expected '}' to close the " + std::string(what) + ", found end of input");
      if (tryConsume("}")) return;
      parseOp(block);
    }
  }

  std::unique_ptr<Function> parseFunction(size_t funcAt) {
    values_.clear();
    auto fn = std::make_unique<Function>();
    fn->loc = locAt(funcAt);
    expect("@", "before the function name");
    fn->name = peek() == '"' ? parseString() : parseIdentifier("a function name");
    expect("(", "to open the parameter list");
    skipSpace();
    if (peek() != ')') {
      do {
        size_t at = (skipSpace(), pos_);
        std::string name = parseValueName();
        expect(":", "after a parameter name");
        Value *arg = fn->body.addArg(parseType(), hintFor(name));
        define(name, at, {arg});
        fn->paramAttrs.push_back(parseParamAttrs());
      } while (tryConsume(","));
    }
    expect(")", "to close the parameter list");
    if (tryConsume("->")) fn->resultTypes = parseTypeList();
    if (auto loc = parseOptionalLoc()) fn->loc = *loc;
    expect("{", "to open the function body");
    parseOpsUntilBrace(fn->body, "function body");
    return fn;
  }

  ParamAttrs parseParamAttrs() {
    ParamAttrs attrs;
    skipSpace();
    if (peek() != '{') return attrs;
    ++pos_;
    do {
      size_t at = (skipSpace(), pos_);
      std::string key = parseIdentifier("a parameter attribute");
      expect("=", "after the parameter attribute name");
      size_t valueAt = (skipSpace(), pos_);
      int64_t value = parseInt("an integer");
      if (key == "divisibility") {
        if (value < 1) fail(locAt(valueAt), "divisibility must be positive");
        attrs.divisibility = value;
      } else if (key == "equal_to_one") {
        if (value != 0 && value != 1) fail(locAt(valueAt), "equal_to_one must be 0 or 1");
        attrs.equalToOne = value == 1;
      } else if (key == "grid_axis") {
        if (value < 0 || value > 2) fail(locAt(valueAt), "grid_axis must be 0, 1 or 2");
        attrs.gridAxis = static_cast<int>(value);
      } else {
        fail(locAt(at), "unknown parameter attribute '" + key + "'",
             "parameters accept 'divisibility', 'equal_to_one' and 'grid_axis'");
      }
    } while (tryConsume(","));
    expect("}", "to close the parameter attributes");
    return attrs;
  }

  SourceManager &sm_;
  uint32_t fileId_;
  std::string text_;
  std::string fileName_;
  std::vector<uint32_t> lineStarts_;
  uint32_t firstLine_ = 1;
  uint32_t colOffset_ = 0;
  size_t pos_ = 0;
  int depth_ = 0;
  std::unordered_map<std::string, std::vector<Value *>> values_;  // function-scoped names
  std::unordered_map<std::string, uint32_t> fileIds_;
};

}  // namespace

std::unique_ptr<Module> parseIR(SourceManager &sm, uint32_t fileId) {
  return IRParser(sm, fileId).parseModule();
}

std::unique_ptr<Module> parseIRString(SourceManager &sm, std::string name, std::string text) {
  uint32_t id = sm.addFile(std::move(name), std::move(text));
  return parseIR(sm, id);
}

}  // namespace tessera
