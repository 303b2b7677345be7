// Python parser: string literals. Adjacent literals are concatenated; a
// sequence with an f-string becomes a JoinedStr of Str and FormattedValue
// parts. Replacement fields are split here (Python 3.11 rules: the field may
// not contain the enclosing quote, a backslash or '#') and their expressions
// parsed by a nested Parser over the same buffer, so their locations are the
// user's.
#include "frontend/parser.h"
#include "support/diagnostics.h"

namespace tessera::frontend::detail {

using ast::ExprKind;
using ast::ExprPtr;

namespace {

// Appends literal text to the parts, merging with a preceding Str part.
template <typename MakeStr>
void appendLiteral(std::vector<ExprPtr> &parts, std::string text, SourceLoc loc,
                   const MakeStr &makeStr) {
  if (text.empty()) return;
  if (!parts.empty() && parts.back()->kind == ExprKind::Str) {
    parts.back()->str += text;
    return;
  }
  ExprPtr s = makeStr(loc);
  s->str = std::move(text);
  parts.push_back(std::move(s));
}

}  // namespace

ExprPtr Parser::parseStrings() {
  SourceLoc loc = tok().loc;
  std::vector<ExprPtr> parts;
  std::string plain;
  bool anyFString = false, anyBytes = false, anyText = false;
  auto makeStr = [&](SourceLoc at) { return newExpr(ExprKind::Str, at); };
  while (tok().kind == TokKind::String) {
    Token t = take();
    (t.isBytes ? anyBytes : anyText) = true;
    if (anyBytes && anyText)
      error(t.loc, "cannot mix bytes and non-bytes literals",
            "write both literals with or without the 'b' prefix");
    if (t.isFString) {
      anyFString = true;
      appendFString(t, parts);
    } else {
      plain += t.strValue;
      appendLiteral(parts, t.strValue, t.loc, makeStr);
    }
  }
  if (anyBytes) return unsupported(loc, "bytes literal");
  if (!anyFString) {
    ExprPtr s = newExpr(ExprKind::Str, loc);
    s->str = std::move(plain);
    return s;
  }
  ExprPtr joined = newExpr(ExprKind::JoinedStr, loc);
  joined->list = std::move(parts);
  return finish(std::move(joined));
}

void Parser::appendFString(const Token &t, std::vector<ExprPtr> &parts) {
  std::string_view text = lexer_.file().text;
  const uint32_t end = t.contentEnd;
  auto makeStr = [&](SourceLoc at) { return newExpr(ExprKind::Str, at); };
  // Literal text between fields is gathered in `literal`, decoding escapes
  // piecewise (never splitting an escape sequence).
  std::string literal;
  SourceLoc literalLoc;
  uint32_t pieceBegin = t.contentBegin;
  auto addPiece = [&](uint32_t pieceEnd) {
    if (pieceEnd <= pieceBegin) return;
    if (literal.empty()) literalLoc = lexer_.locAt(pieceBegin);
    literal += t.isRaw ? std::string(text.substr(pieceBegin, pieceEnd - pieceBegin))
                       : lexer_.decodeEscapes(pieceBegin, pieceEnd, false);
  };
  auto flushLiteral = [&] {
    appendLiteral(parts, std::move(literal), literalLoc, makeStr);
    literal.clear();
  };
  uint32_t i = t.contentBegin;
  while (i < end) {
    char c = text[i];
    if (c == '\\') {
      // A backslash before a brace does not escape it (Python < 3.12).
      i += (i + 1 < end && text[i + 1] != '{' && text[i + 1] != '}') ? 2 : 1;
      continue;
    }
    if (c == '}') {
      if (i + 1 < end && text[i + 1] == '}') {
        addPiece(i + 1);
        i += 2;
        pieceBegin = i;
        continue;
      }
      error(lexer_.locAt(i), "f-string: single '}' is not allowed", "write '}}' for a literal '}'");
    }
    if (c != '{') {
      ++i;
      continue;
    }
    if (i + 1 < end && text[i + 1] == '{') {
      addPiece(i + 1);
      i += 2;
      pieceBegin = i;
      continue;
    }
    // A replacement field: {expr[=][!conv][:spec]}.
    addPiece(i);
    SourceLoc fieldLoc = lexer_.locAt(i);
    uint32_t exprBegin = i + 1;
    uint32_t k = exprBegin;
    int depth = 0;
    bool selfDocumenting = false;
    for (;; ++k) {
      if (k >= end) error(fieldLoc, "f-string: expecting '}'", "close the replacement field");
      char ch = text[k];
      if (ch == '\\') error(lexer_.locAt(k), "f-string expression part cannot include a backslash");
      if (ch == '#') error(lexer_.locAt(k), "f-string expression part cannot include '#'");
      if (ch == '\'' || ch == '"') {
        bool triple = k + 2 < end && text[k + 1] == ch && text[k + 2] == ch;
        uint32_t quoteLen = triple ? 3 : 1;
        uint32_t q = k + quoteLen;
        while (q < end && !(text[q] == ch &&
                            (!triple || (q + 2 < end && text[q + 1] == ch && text[q + 2] == ch))))
          ++q;
        if (q >= end) error(lexer_.locAt(k), "f-string: unterminated string");
        k = q + quoteLen - 1;
        continue;
      }
      if (ch == '(' || ch == '[' || ch == '{') {
        ++depth;
        continue;
      }
      if (ch == ')' || ch == ']' || ch == '}') {
        if (depth == 0 && ch == '}') break;
        if (depth > 0) --depth;
        continue;
      }
      if (depth > 0) continue;
      char next = k + 1 < end ? text[k + 1] : '\0';
      if ((ch == '!' && next != '=') || ch == ':') break;
      if (ch == '=' && next != '=' && k > exprBegin && text[k - 1] != '=' && text[k - 1] != '!' &&
          text[k - 1] != '<' && text[k - 1] != '>') {
        selfDocumenting = true;
        break;
      }
    }
    uint32_t exprEnd = k;
    if (text.substr(exprBegin, exprEnd - exprBegin).find_first_not_of(" \t\r\n\f") ==
        std::string_view::npos)
      error(fieldLoc, "f-string: empty expression not allowed");
    ExprPtr value = parseReplacementField(exprBegin, exprEnd);
    ExprPtr field = newExpr(ExprKind::FormattedValue, fieldLoc);
    field->a = std::move(value);
    if (selfDocumenting) {
      // f"{x=}" prints the expression's text, then its repr.
      if (literal.empty()) literalLoc = lexer_.locAt(exprBegin);
      literal += std::string(text.substr(exprBegin, k + 1 - exprBegin));
      ++k;
    }
    flushLiteral();
    if (k < end && text[k] == '!') {
      char conversion = k + 1 < end ? text[k + 1] : '\0';
      if (conversion != 's' && conversion != 'r' && conversion != 'a')
        error(lexer_.locAt(k + 1),
              "f-string: invalid conversion character: expected 's', 'r', or 'a'");
      field->ival = static_cast<uint64_t>(conversion);
      k += 2;
    }
    bool hasSpec = false;
    if (k < end && text[k] == ':') {
      hasSpec = true;
      uint32_t specBegin = ++k;
      int nested = 0;
      while (k < end && !(text[k] == '}' && nested == 0)) {
        if (text[k] == '{') ++nested;
        if (text[k] == '}') --nested;
        ++k;
      }
      field->str = std::string(text.substr(specBegin, k - specBegin));
    }
    if (k >= end || text[k] != '}')
      error(k < end ? lexer_.locAt(k) : fieldLoc, "f-string: expecting '}'",
            "close the replacement field");
    if (selfDocumenting && field->ival == 0 && !hasSpec) field->ival = 'r';
    parts.push_back(finish(std::move(field)));
    i = k + 1;
    pieceBegin = i;
  }
  addPiece(end);
  flushLiteral();
}

ExprPtr Parser::parseReplacementField(uint32_t begin, uint32_t end) {
  DepthGuard guard(depth_, lexer_.locAt(begin), "expression nested too deeply");
  Parser nested(sm_, Lexer::embedded(sm_, fileId_, begin, end), depth_);
  ExprPtr e = nested.atKeyword("yield") ? nested.parseYield() : nested.parseTestListStar(false);
  if (nested.tok().kind != TokKind::Eof)
    nested.errorExpected("'}'", "after the f-string expression");
  return e;
}

}  // namespace tessera::frontend::detail
