// Python 3 tokeniser; see lexer.h for the contract.
#include "frontend/lexer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "support/diagnostics.h"

namespace tessera::frontend {
namespace {

// Python, like CPython's tokenizer, caps indentation depth; deeper code is
// rejected rather than recursed into.
constexpr size_t kMaxIndentLevels = 100;

constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

// Operators, longest first so that the first match is the maximal munch.
constexpr std::array<std::string_view, 48> kOperators = {
    "**=", "//=", ">>=", "<<=", "...", "!=", "%=", "&=", "**", "*=", "+=", "-=",
    "->",  "//",  "/=",  ":=",  "<<",  "<=", "==", ">=", ">>", "@=", "^=", "|=",
    "!",   "%",   "&",   "(",   ")",   "*",  "+",  ",",  "-",  ".",  "/",  ":",
    ";",   "<",   "=",   ">",   "@",   "[",  "]",  "^",  "{",  "|",  "}",  "~"};

bool isIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
// The offset of the first byte of `s` that is not part of well-formed
// UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), or
// npos. Python refuses such a file; names must not carry such bytes into
// the IR and PTX.
size_t invalidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return i;
    uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 2) return i;
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n;
  }
  return std::string_view::npos;
}

bool isIdentChar(unsigned char c) {
  return isIdentStart(c) || (c >= '0' && c <= '9');
}
bool isDigitIn(char c, int base) {
  if (base == 16) return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  return c >= '0' && c < '0' + base;
}
int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

char closerOf(char opener) {
  return opener == '(' ? ')' : opener == '[' ? ']' : '}';
}

// A string prefix (r, b, u, f and their legal pairs, any case).
bool isStringPrefix(std::string_view s, bool &raw, bool &bytes, bool &fstr) {
  if (s.empty() || s.size() > 2) return false;
  raw = bytes = fstr = false;
  bool unicode = false;
  for (char ch : s) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    bool &flag = c == 'r' ? raw : c == 'b' ? bytes : c == 'f' ? fstr : unicode;
    if ((c != 'r' && c != 'b' && c != 'f' && c != 'u') || flag) return false;
    flag = true;
  }
  if (unicode && s.size() > 1) return false;  // u combines with nothing
  return !(bytes && fstr);
}

std::string printable(unsigned char c) {
  if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02X", c);
  return buf;
}

}  // namespace

const char *tokKindName(TokKind kind) {
  switch (kind) {
    case TokKind::Eof:
      return "end of input";
    case TokKind::Newline:
      return "end of line";
    case TokKind::Indent:
      return "indent";
    case TokKind::Dedent:
      return "dedent";
    case TokKind::Name:
      return "identifier";
    case TokKind::Keyword:
      return "keyword";
    case TokKind::Int:
      return "integer literal";
    case TokKind::Float:
      return "float literal";
    case TokKind::Imaginary:
      return "imaginary literal";
    case TokKind::String:
      return "string literal";
    case TokKind::Op:
      return "operator";
  }
  return "token";
}

std::string Token::describe() const {
  switch (kind) {
    case TokKind::Keyword:
    case TokKind::Op:
      return "'" + std::string(text) + "'";
    case TokKind::Name:
      return "identifier '" + std::string(text) + "'";
    case TokKind::Int:
    case TokKind::Float:
    case TokKind::Imaginary:
      return "number '" + std::string(text) + "'";
    default:
      return tokKindName(kind);
  }
}

Lexer::Lexer(const SourceManager &sm, uint32_t fileId, uint32_t begin, uint32_t end, bool embedded)
    : file_(sm.file(fileId)), fileId_(fileId), pos_(begin), end_(end), embedded_(embedded) {
  if (!file_) internalError("lexer", "unknown source file id " + std::to_string(fileId));
  text_ = file_->text;
  end_ = std::min<uint32_t>(end_, static_cast<uint32_t>(text_.size()));
  if (embedded_) atLineStart_ = false;
}

Lexer::Lexer(const SourceManager &sm, uint32_t fileId) : Lexer(sm, fileId, 0, UINT32_MAX, false) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte order mark
}

Lexer Lexer::embedded(const SourceManager &sm, uint32_t fileId, uint32_t begin, uint32_t end) {
  return Lexer(sm, fileId, begin, end, true);
}

SourceLoc Lexer::locAt(uint32_t offset) const {
  const auto &starts = file_->lineStarts;
  auto onLine = [&](size_t i) {
    return i < starts.size() && starts[i] <= offset &&
           (i + 1 == starts.size() || offset < starts[i + 1]);
  };
  size_t line = lastLine_;
  if (!onLine(line) && !onLine(++line)) {
    auto it = std::upper_bound(starts.begin(), starts.end(), offset);
    line = static_cast<size_t>(it - starts.begin()) - 1;
  }
  lastLine_ = line;
  return SourceLoc{fileId_, file_->firstLine + static_cast<uint32_t>(line),
                   offset - starts[line] + 1 + file_->colOffset};
}

bool Lexer::insideMultilineString(uint32_t offset) const {
  for (const auto &[begin, end] : multilineStrings_)
    if (offset > begin && offset < end) return true;
  return false;
}

void Lexer::restartAt(uint32_t offset) {
  pos_ = std::min(offset, end_);
  atLineStart_ = true;
  lineHasTokens_ = false;
  indentStack_.assign(1, 0);
  brackets_.clear();
  pending_.clear();
}

void Lexer::errorAt(uint32_t offset, std::string message, std::string hint) const {
  fail(locAt(offset), std::move(message), std::move(hint));
}

Token Lexer::make(TokKind kind, uint32_t begin) {
  Token t;
  t.kind = kind;
  t.offset = begin;
  t.text = text_.substr(begin, pos_ - begin);
  t.loc = locAt(begin);
  return t;
}

Token Lexer::next() {
  if (!pending_.empty()) {
    Token t = std::move(pending_.front());
    pending_.pop_front();
    return t;
  }
  for (;;) {
    if (atLineStart_ && brackets_.empty() && !embedded_) {
      processIndentation();
      if (!pending_.empty()) return next();
    }
    skipSpaceAndComments();
    if (atEnd()) return endOfInput();
    char c = peekChar();
    if (c == '\n' || (c == '\r' && peekChar(1) == '\n')) {
      uint32_t begin = pos_;
      pos_ += c == '\r' ? 2 : 1;
      if (embedded_ || !brackets_.empty()) continue;  // implicit line joining
      atLineStart_ = true;
      lineHasTokens_ = false;
      Token t = make(TokKind::Newline, begin);
      t.text = {};
      return t;
    }
    lineHasTokens_ = true;
    if (c >= '0' && c <= '9') return lexNumber();
    if (c == '.' && peekChar(1) >= '0' && peekChar(1) <= '9') return lexNumber();
    if (c == '"' || c == '\'') return lexString(pos_, pos_);
    if (isIdentStart(static_cast<unsigned char>(c))) return lexName();
    return lexOperator();
  }
}

void Lexer::processIndentation() {
  // Measure the indentation of the next line that holds a token; blank and
  // comment-only lines do not count.
  for (;;) {
    uint32_t column = 0;
    while (!atEnd()) {
      char c = peekChar();
      if (c == ' ') {
        ++column;
      } else if (c == '\t') {
        column = (column / 8 + 1) * 8;
      } else if (c == '\f') {
        column = 0;
      } else {
        break;
      }
      ++pos_;
    }
    char c = peekChar();
    if (atEnd()) {
      atLineStart_ = false;
      return;
    }
    if (c == '#') {
      while (!atEnd() && peekChar() != '\n') ++pos_;
      c = peekChar();
    }
    if (c == '\r' && peekChar(1) == '\n') {
      pos_ += 2;
      continue;
    }
    if (c == '\n') {
      ++pos_;
      continue;
    }
    if (atEnd()) {
      atLineStart_ = false;
      return;
    }
    atLineStart_ = false;
    if (column > indentStack_.back()) {
      if (indentStack_.size() > kMaxIndentLevels) errorAt(pos_, "too many levels of indentation");
      indentStack_.push_back(column);
      Token t = make(TokKind::Indent, pos_);
      pending_.push_back(std::move(t));
    } else {
      while (column < indentStack_.back()) {
        indentStack_.pop_back();
        Token t = make(TokKind::Dedent, pos_);
        pending_.push_back(std::move(t));
      }
      if (column != indentStack_.back())
        errorAt(pos_, "unindent does not match any outer indentation level",
                "indent this line exactly as far as an enclosing block");
    }
    return;
  }
}

void Lexer::skipSpaceAndComments() {
  while (!atEnd()) {
    char c = peekChar();
    if (c == ' ' || c == '\t' || c == '\f' || (c == '\r' && peekChar(1) != '\n')) {
      ++pos_;
    } else if (c == '#') {
      while (!atEnd() && peekChar() != '\n' && !(peekChar() == '\r' && peekChar(1) == '\n')) ++pos_;
    } else if (c == '\\') {
      uint32_t at = pos_;
      ++pos_;
      if (peekChar() == '\r' && peekChar(1) == '\n') ++pos_;
      if (atEnd()) errorAt(at, "unexpected end of file after line continuation character");
      if (peekChar() != '\n')
        errorAt(at + 1, "unexpected character after line continuation character",
                "a backslash continues a line only when it is the line's last character");
      ++pos_;
    } else {
      return;
    }
  }
}

Token Lexer::endOfInput() {
  if (embedded_) return make(TokKind::Eof, end_);
  if (!brackets_.empty()) {
    auto [opener, offset] = brackets_.back();
    errorAt(offset, std::string("'") + opener + "' was never closed",
            std::string("add the matching '") + closerOf(opener) + "'");
  }
  uint32_t at = pos_;
  if (lineHasTokens_) {
    lineHasTokens_ = false;
    Token t = make(TokKind::Newline, at);
    t.text = {};
    return t;
  }
  while (indentStack_.size() > 1) {
    indentStack_.pop_back();
    pending_.push_back(make(TokKind::Dedent, at));
  }
  if (!pending_.empty()) return next();
  return make(TokKind::Eof, at);
}

Token Lexer::lexName() {
  uint32_t begin = pos_;
  while (!atEnd() && isIdentChar(static_cast<unsigned char>(peekChar()))) ++pos_;
  std::string_view word = text_.substr(begin, pos_ - begin);
  if (size_t bad = invalidUtf8(word); bad != std::string_view::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(word[bad]));
    errorAt(begin + static_cast<uint32_t>(bad),
            std::string("a name holds a byte that is not UTF-8 (") + hex + ")",
            "save the file as UTF-8 (Python reads source files as UTF-8)");
  }
  bool raw, bytes, fstr;
  if ((peekChar() == '"' || peekChar() == '\'') && isStringPrefix(word, raw, bytes, fstr))
    return lexString(begin, pos_);
  bool keyword = std::find(kKeywords.begin(), kKeywords.end(), word) != kKeywords.end();
  return make(keyword ? TokKind::Keyword : TokKind::Name, begin);
}

Token Lexer::lexNumber() {
  uint32_t begin = pos_;
  // Digits in `base` with single underscores between them; returns false
  // when there were none.
  auto digits = [&](int base, const char *what) {
    uint32_t start = pos_;
    while (!atEnd()) {
      char c = peekChar();
      if (isDigitIn(c, base)) {
        ++pos_;
      } else if (c == '_' && pos_ > start && isDigitIn(peekChar(1), base)) {
        ++pos_;
      } else {
        break;
      }
    }
    if (peekChar() == '_') errorAt(pos_, std::string("invalid ") + what + " literal");
    return pos_ > start;
  };
  auto checkEnd = [&](const char *what) {
    if (isIdentChar(static_cast<unsigned char>(peekChar())))
      errorAt(pos_, std::string("invalid ") + what + " literal");
  };
  char c1 = static_cast<char>(std::tolower(static_cast<unsigned char>(peekChar(1))));
  if (peekChar() == '0' && (c1 == 'x' || c1 == 'o' || c1 == 'b')) {
    int base = c1 == 'x' ? 16 : c1 == 'o' ? 8 : 2;
    const char *what = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
    pos_ += 2;
    if (peekChar() == '_') ++pos_;
    if (!digits(base, what)) errorAt(pos_, std::string("invalid ") + what + " literal");
    if (peekChar() >= '0' && peekChar() <= '9')
      errorAt(pos_, std::string("invalid digit '") + peekChar() + "' in " + what + " literal");
    checkEnd(what);
    Token t = make(TokKind::Int, begin);
    uint64_t value = 0;
    for (char c : t.text.substr(2)) {
      if (c == '_') continue;
      uint64_t digit = static_cast<uint64_t>(hexValue(c));
      if (value > (UINT64_MAX - digit) / static_cast<uint64_t>(base))
        errorAt(begin, "integer literal too large",
                "integer literals must fit in 64 bits (at most 18446744073709551615)");
      value = value * static_cast<uint64_t>(base) + digit;
    }
    t.intValue = value;
    return t;
  }
  bool isFloat = false;
  digits(10, "decimal");
  if (peekChar() == '.') {
    isFloat = true;
    ++pos_;
    if (peekChar() >= '0' && peekChar() <= '9') digits(10, "decimal");
  }
  char e = peekChar();
  if (e == 'e' || e == 'E') {
    char s = peekChar(1);
    uint32_t expDigits = pos_ + ((s == '+' || s == '-') ? 2 : 1);
    if (expDigits < end_ && text_[expDigits] >= '0' && text_[expDigits] <= '9') {
      isFloat = true;
      pos_ = expDigits;
      digits(10, "decimal");
    }
  }
  if (peekChar() == 'j' || peekChar() == 'J') {
    ++pos_;
    checkEnd("imaginary");
    return make(TokKind::Imaginary, begin);
  }
  checkEnd("decimal");
  Token t = make(isFloat ? TokKind::Float : TokKind::Int, begin);
  std::string clean;
  for (char c : t.text)
    if (c != '_') clean += c;
  if (isFloat) {
    double value = 0;
    auto [ptr, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), value);
    // from_chars reports out-of-range for overflow/underflow; Python gives
    // inf / 0 there, so follow it.
    if (ec == std::errc::result_out_of_range) {
      bool negativeExponent =
          clean.find("e-") != std::string::npos || clean.find("E-") != std::string::npos;
      value = negativeExponent ? 0.0 : HUGE_VAL;
    } else if (ec != std::errc()) {
      errorAt(begin, "invalid float literal");
    }
    (void)ptr;
    t.floatValue = value;
    return t;
  }
  if (clean.size() > 1 && clean[0] == '0' && clean.find_first_not_of('0') != std::string::npos)
    errorAt(begin, "leading zeros in decimal integer literals are not permitted",
            "use an 0o prefix for octal integers");
  uint64_t value = 0;
  for (char c : clean) {
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10)
      errorAt(begin, "integer literal too large",
              "integer literals must fit in 64 bits (at most 18446744073709551615)");
    value = value * 10 + digit;
  }
  t.intValue = value;
  return t;
}

Token Lexer::lexString(uint32_t begin, uint32_t quotePos) {
  bool raw = false, bytes = false, fstr = false;
  isStringPrefix(text_.substr(begin, quotePos - begin), raw, bytes, fstr);
  pos_ = quotePos;
  char quote = peekChar();
  bool triple = peekChar(1) == quote && peekChar(2) == quote;
  uint32_t quoteLen = triple ? 3 : 1;
  pos_ += quoteLen;
  uint32_t contentBegin = pos_;
  uint32_t contentEnd = 0;
  for (;;) {
    if (atEnd())
      errorAt(begin,
              triple ? "unterminated triple-quoted string literal" : "unterminated string literal",
              std::string("close the string with ") +
                  (triple ? std::string(3, quote) : std::string(1, quote)));
    char c = peekChar();
    if (c == '\\') {
      pos_ += 2;  // the escaped character never ends the string, even in raw strings
      if (pos_ > end_) pos_ = end_;
      continue;
    }
    if (c == '\n' && !triple)
      errorAt(begin, "unterminated string literal",
              std::string("close the string with ") + quote + " before the end of the line");
    if (c == quote && (!triple || (peekChar(1) == quote && peekChar(2) == quote))) {
      contentEnd = pos_;
      pos_ += quoteLen;
      break;
    }
    ++pos_;
  }
  Token t = make(TokKind::String, begin);
  t.isRaw = raw;
  t.isBytes = bytes;
  t.isFString = fstr;
  t.contentBegin = contentBegin;
  t.contentEnd = contentEnd;
  if (text_.substr(begin, pos_ - begin).find('\n') != std::string_view::npos)
    multilineStrings_.emplace_back(begin, pos_);
  if (bytes) {
    for (uint32_t i = contentBegin; i < contentEnd; ++i)
      if (static_cast<unsigned char>(text_[i]) >= 0x80)
        errorAt(i, "bytes can only contain ASCII literal characters");
  }
  if (!fstr) {
    t.strValue = raw ? std::string(text_.substr(contentBegin, contentEnd - contentBegin))
                     : decodeEscapes(contentBegin, contentEnd, bytes);
  }
  return t;
}

std::string Lexer::decodeEscapes(uint32_t begin, uint32_t end, bool isBytes) const {
  std::string out;
  out.reserve(end - begin);
  uint32_t i = begin;
  auto at = [&](uint32_t k) { return k < end ? text_[k] : '\0'; };
  while (i < end) {
    char c = text_[i];
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    uint32_t escapeBegin = i;
    char e = at(i + 1);
    i += 2;
    switch (e) {
      case '\n':
        break;  // backslash-newline joins the lines
      case '\r':
        if (at(i) == '\n') ++i;
        break;
      case '\\':
        out += '\\';
        break;
      case '\'':
        out += '\'';
        break;
      case '"':
        out += '"';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        uint32_t value = static_cast<uint32_t>(e - '0');
        for (int k = 0; k < 2 && at(i) >= '0' && at(i) <= '7'; ++k, ++i)
          value = value * 8 + static_cast<uint32_t>(at(i) - '0');
        if (isBytes)
          out += static_cast<char>(value & 0xFF);
        else
          appendUtf8(out, value);
        break;
      }
      case 'x':
      case 'u':
      case 'U': {
        if (isBytes && e != 'x') {
          out += '\\';
          out += e;
          break;
        }
        int width = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t value = 0;
        for (int k = 0; k < width; ++k, ++i) {
          int h = hexValue(at(i));
          if (h < 0)
            errorAt(escapeBegin,
                    std::string("truncated \\") + e + std::string(width, 'X') + " escape");
          value = value * 16 + static_cast<uint32_t>(h);
        }
        if (value > 0x10FFFF) errorAt(escapeBegin, "illegal Unicode character in escape");
        if (isBytes)
          out += static_cast<char>(value);
        else
          appendUtf8(out, value);
        break;
      }
      case 'N':
        if (!isBytes)
          errorAt(escapeBegin, "\\N{...} escapes are not supported",
                  "write the character itself or use a \\u escape");
        [[fallthrough]];
      default:
        // Python keeps unknown escapes verbatim (with a warning).
        out += '\\';
        if (escapeBegin + 1 < end) out += e;
        i = std::min(i, end);
        break;
    }
  }
  return out;
}

Token Lexer::lexOperator() {
  uint32_t begin = pos_;
  std::string_view rest = text_.substr(pos_, std::min<uint32_t>(3, end_ - pos_));
  for (std::string_view op : kOperators) {
    if (rest.substr(0, op.size()) != op) continue;
    pos_ += static_cast<uint32_t>(op.size());
    char c = op[0];
    if (op.size() == 1 && (c == '(' || c == '[' || c == '{')) {
      brackets_.emplace_back(c, begin);
    } else if (op.size() == 1 && (c == ')' || c == ']' || c == '}')) {
      if (brackets_.empty()) {
        if (!embedded_) errorAt(begin, std::string("unmatched '") + c + "'");
      } else if (closerOf(brackets_.back().first) != c) {
        errorAt(begin, std::string("closing parenthesis '") + c +
                           "' does not match opening parenthesis '" + brackets_.back().first +
                           "' on line " + std::to_string(locAt(brackets_.back().second).line));
      } else {
        brackets_.pop_back();
      }
    }
    return make(TokKind::Op, begin);
  }
  unsigned char c = static_cast<unsigned char>(peekChar());
  if (c == '$' || c == '?' || c == '`')
    errorAt(begin, std::string("invalid character '") + static_cast<char>(c) + "' in source");
  errorAt(begin, "invalid character " + printable(c) + " in source");
}

}  // namespace tessera::frontend
