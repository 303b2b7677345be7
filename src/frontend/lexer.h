// Python 3 tokeniser.
//
// Contract: Lexer::next() returns the tokens of one registered source file in
// order, Python-style: NEWLINE ends each logical line, INDENT/DEDENT track an
// indentation stack (tabs advance to the next multiple of 8), newlines inside
// (), [] and {} and after a backslash are ignored, blank and comment-only
// lines produce nothing. The stream always ends with NEWLINE (if the last line
// had tokens), the closing DEDENTs and then Eof forever. Lexical errors throw
// CompileError (tessera::fail) at the offending character; the lexer never
// reads outside the buffer, whatever its bytes.
//
// Locations are in the user's numbering: line = SourceFile::firstLine + line
// index, col = byte column (1-based) + SourceFile::colOffset.
//
// String literals are decoded here, except f-strings: their content range is
// handed to the parser, which splits it and parses the replacement fields with
// an "embedded" lexer over the same buffer (so locations stay exact).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/source.h"

namespace tessera::frontend {

enum class TokKind : uint8_t {
  Eof,
  Newline,
  Indent,
  Dedent,
  Name,       // identifiers, including soft keywords (match, case, type)
  Keyword,    // hard keywords: if, def, None, True, ...
  Int,        // intValue
  Float,      // floatValue
  Imaginary,  // 1j, 2.5J (kept only so the parser can name it)
  String,     // any string or bytes literal; see the string fields
  Op,         // operators and delimiters, spelled in `text`
};

const char *tokKindName(TokKind kind);

struct Token {
  TokKind kind = TokKind::Eof;
  std::string_view text;  // the source spelling (empty for synthesized tokens)
  SourceLoc loc;
  uint32_t offset = 0;  // byte offset of the first character
  uint64_t intValue = 0;
  double floatValue = 0;
  // String literals.
  std::string strValue;  // decoded value (not for f-strings)
  bool isBytes = false;
  bool isRaw = false;
  bool isFString = false;
  uint32_t contentBegin = 0, contentEnd = 0;  // offsets of the text between the quotes

  bool is(TokKind k, std::string_view spelling) const { return kind == k && text == spelling; }
  bool isOp(std::string_view spelling) const { return is(TokKind::Op, spelling); }
  bool isKeyword(std::string_view spelling) const { return is(TokKind::Keyword, spelling); }
  // "'if'", "identifier 'x'", "end of line", ... for "found ..." in messages.
  std::string describe() const;
};

class Lexer {
 public:
  // Tokenises the whole file `fileId`.
  Lexer(const SourceManager &sm, uint32_t fileId);
  // Tokenises bytes [begin, end) of the file as the inside of brackets (no
  // NEWLINE/INDENT/DEDENT), ending with Eof: the replacement fields of
  // f-strings.
  static Lexer embedded(const SourceManager &sm, uint32_t fileId, uint32_t begin, uint32_t end);

  Token next();

  // Continues at `offset`, which must be the start of a line, with a fresh
  // indentation and bracket state (the lenient module parser's recovery).
  void restartAt(uint32_t offset);

  SourceLoc locAt(uint32_t offset) const;
  const SourceFile &file() const { return *file_; }
  uint32_t fileId() const { return fileId_; }
  // True when `offset` lies inside a string literal spanning several lines
  // that was tokenised so far (recovery must not restart inside one).
  bool insideMultilineString(uint32_t offset) const;
  // Decodes the escape sequences of a (non-raw) string body [begin, end) the
  // way Python does; used for plain literals and the literal pieces of
  // f-strings.
  std::string decodeEscapes(uint32_t begin, uint32_t end, bool isBytes) const;

 private:
  Lexer(const SourceManager &sm, uint32_t fileId, uint32_t begin, uint32_t end, bool embedded);

  char peekChar(uint32_t ahead = 0) const {
    return pos_ + ahead < end_ ? text_[pos_ + ahead] : '\0';
  }
  bool atEnd() const { return pos_ >= end_; }
  Token make(TokKind kind, uint32_t begin);
  [[noreturn]] void errorAt(uint32_t offset, std::string message, std::string hint = {}) const;

  void processIndentation();
  void skipSpaceAndComments();
  Token lexName();
  Token lexNumber();
  Token lexString(uint32_t begin, uint32_t quotePos);
  Token lexOperator();
  Token endOfInput();

  const SourceFile *file_;
  uint32_t fileId_;
  std::string_view text_;
  uint32_t pos_, end_;
  bool embedded_;
  bool atLineStart_ = true;
  bool lineHasTokens_ = false;
  std::vector<uint32_t> indentStack_{0};
  std::vector<std::pair<char, uint32_t>> brackets_;  // opener and its offset
  std::deque<Token> pending_;                        // queued DEDENTs
  std::vector<std::pair<uint32_t, uint32_t>> multilineStrings_;
  // The line of the last locAt: tokens come in order, so the next one is
  // mostly on it or the line after (no search over a long file's lines).
  mutable size_t lastLine_ = 0;
};

}  // namespace tessera::frontend
