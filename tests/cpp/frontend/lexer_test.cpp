// Lexer tests: token kinds and spellings, locations (with firstLine and
// colOffset), indentation, numbers, string decoding and lexical errors.
#include "frontend/lexer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/diagnostics.h"

namespace tessera::frontend {
namespace {

struct Lexed {
  SourceManager sm;
  std::vector<Token> tokens;
};

std::unique_ptr<Lexed> lex(const std::string &src, uint32_t firstLine = 1, uint32_t colOffset = 0) {
  auto out = std::make_unique<Lexed>();
  uint32_t id = out->sm.addFile("t.py", src, firstLine, colOffset);
  Lexer lexer(out->sm, id);
  for (int guard = 0; guard < 10000; ++guard) {
    out->tokens.push_back(lexer.next());
    if (out->tokens.back().kind == TokKind::Eof) break;
  }
  return out;
}

// Kinds and spellings in a compact form: names as themselves, NEWLINE as
// `;`, INDENT as `{`, DEDENT as `}`, strings as their decoded value in quotes.
std::string summary(const std::string &src) {
  auto lexed = lex(src);
  std::string out;
  for (const Token &t : lexed->tokens) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case TokKind::Newline:
        out += ';';
        break;
      case TokKind::Indent:
        out += '{';
        break;
      case TokKind::Dedent:
        out += '}';
        break;
      case TokKind::Eof:
        out += "EOF";
        break;
      case TokKind::String:
        out += (t.isFString ? "f'" : "'") + t.strValue + "'";
        break;
      default:
        out += std::string(t.text);
    }
  }
  return out;
}

Diagnostic lexError(const std::string &src) {
  try {
    lex(src);
  } catch (const CompileError &e) {
    return e.diag;
  }
  ADD_FAILURE() << "no error for: " << src;
  return {};
}

TEST(Lexer, SimpleLine) {
  EXPECT_EQ(summary("x = a + 1\n"), "x = a + 1 ; EOF");
}

TEST(Lexer, NewlineAddedAtEndOfFile) {
  EXPECT_EQ(summary("x"), "x ; EOF");
}

TEST(Lexer, EmptyAndCommentOnly) {
  EXPECT_EQ(summary(""), "EOF");
  EXPECT_EQ(summary("# hi\n\n   # there\n"), "EOF");
}

TEST(Lexer, IndentDedent) {
  EXPECT_EQ(summary("if a:\n    b\n    c\nd\n"), "if a : ; { b ; c ; } d ; EOF");
  EXPECT_EQ(summary("if a:\n  if b:\n    c\n"), "if a : ; { if b : ; { c ; } } EOF");
}

TEST(Lexer, BlankAndCommentLinesDoNotAffectIndentation) {
  EXPECT_EQ(summary("if a:\n\n    b\n  # odd comment\n    c\n"), "if a : ; { b ; c ; } EOF");
}

TEST(Lexer, TabsAdvanceToMultipleOfEight) {
  EXPECT_EQ(summary("if a:\n\tb\n        c\n"), "if a : ; { b ; c ; } EOF");
}

TEST(Lexer, InconsistentDedentIsAnError) {
  Diagnostic d = lexError("if a:\n    b\n  c\n");
  EXPECT_EQ(d.message, "unindent does not match any outer indentation level");
  EXPECT_EQ(d.loc.line, 3u);
  EXPECT_EQ(d.loc.col, 3u);
}

TEST(Lexer, ImplicitLineJoining) {
  EXPECT_EQ(summary("f(a,\n  b)\n"), "f ( a , b ) ; EOF");
  EXPECT_EQ(summary("x = [1,\n\n2]\n"), "x = [ 1 , 2 ] ; EOF");
  EXPECT_EQ(summary("x = 1 + \\\n    2\n"), "x = 1 + 2 ; EOF");
}

TEST(Lexer, Operators) {
  EXPECT_EQ(summary("a **= b //= c >>= d <<= e := f -> g ... @ h != i"),
            "a **= b //= c >>= d <<= e := f -> g ... @ h != i ; EOF");
}

TEST(Lexer, KeywordsAndNames) {
  auto lexed = lex("if match None x_1 é");
  EXPECT_EQ(lexed->tokens[0].kind, TokKind::Keyword);
  EXPECT_EQ(lexed->tokens[1].kind, TokKind::Name);  // soft keyword
  EXPECT_EQ(lexed->tokens[2].kind, TokKind::Keyword);
  EXPECT_EQ(lexed->tokens[3].kind, TokKind::Name);
  EXPECT_EQ(lexed->tokens[4].kind, TokKind::Name);
  EXPECT_EQ(lexed->tokens[4].text, "é");
}

TEST(Lexer, Locations) {
  auto lexed = lex("x = 1\nif y:\n    z\n");
  const auto &t = lexed->tokens;
  EXPECT_EQ(t[0].loc, (SourceLoc{1, 1, 1}));
  EXPECT_EQ(t[2].loc, (SourceLoc{1, 1, 5}));
  EXPECT_EQ(t[4].loc, (SourceLoc{1, 2, 1}));  // if
  EXPECT_EQ(t[5].loc, (SourceLoc{1, 2, 4}));  // y
  EXPECT_EQ(t[9].loc, (SourceLoc{1, 3, 5}));  // z
}

TEST(Lexer, LocationsUseFirstLineAndColOffset) {
  auto lexed = lex("x = 1\ny\n", 40, 4);
  EXPECT_EQ(lexed->tokens[0].loc, (SourceLoc{1, 40, 5}));
  EXPECT_EQ(lexed->tokens[2].loc, (SourceLoc{1, 40, 9}));
  EXPECT_EQ(lexed->tokens[4].loc, (SourceLoc{1, 41, 5}));
}

TEST(Lexer, Integers) {
  auto lexed = lex("0 42 1_000 0x_fF 0o17 0b101 18446744073709551615");
  std::vector<uint64_t> want = {0, 42, 1000, 255, 15, 5, 18446744073709551615ull};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(lexed->tokens[i].kind, TokKind::Int) << i;
    EXPECT_EQ(lexed->tokens[i].intValue, want[i]) << i;
  }
}

TEST(Lexer, Floats) {
  auto lexed = lex("1. .5 1e-3 1_000.5 2E+2 1e999");
  std::vector<double> want = {1.0, 0.5, 1e-3, 1000.5, 200.0, HUGE_VAL};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(lexed->tokens[i].kind, TokKind::Float) << i;
    EXPECT_EQ(lexed->tokens[i].floatValue, want[i]) << i;
  }
}

TEST(Lexer, Imaginary) {
  auto lexed = lex("3j 1.5J");
  EXPECT_EQ(lexed->tokens[0].kind, TokKind::Imaginary);
  EXPECT_EQ(lexed->tokens[1].kind, TokKind::Imaginary);
}

TEST(Lexer, NumberErrors) {
  EXPECT_EQ(lexError("18446744073709551616").message, "integer literal too large");
  EXPECT_EQ(lexError("0x1_0000_0000_0000_0000").message, "integer literal too large");
  EXPECT_EQ(lexError("1abc").message, "invalid decimal literal");
  EXPECT_EQ(lexError("1__0").message, "invalid decimal literal");
  EXPECT_EQ(lexError("0x").message, "invalid hexadecimal literal");
  EXPECT_EQ(lexError("0o8").message, "invalid octal literal");
  EXPECT_EQ(lexError("012").message, "leading zeros in decimal integer literals are not permitted");
  EXPECT_EQ(lexError("x = 12_").loc.col, 7u);
}

TEST(Lexer, StringsAndPrefixes) {
  EXPECT_EQ(summary("'a' \"b\" r'\\n' R\"x\" u'c' '''t\nq''' \"\"\"d\"\"\""),
            "'a' 'b' '\\n' 'x' 'c' 't\nq' 'd' ; EOF");
  auto lexed = lex("b'x' Rb'y' bR'z' f'{a}' Fr'{b}' rF'c'");
  EXPECT_TRUE(lexed->tokens[0].isBytes);
  EXPECT_TRUE(lexed->tokens[1].isBytes && lexed->tokens[1].isRaw);
  EXPECT_TRUE(lexed->tokens[2].isBytes && lexed->tokens[2].isRaw);
  EXPECT_TRUE(lexed->tokens[3].isFString);
  EXPECT_TRUE(lexed->tokens[4].isFString && lexed->tokens[4].isRaw);
  EXPECT_TRUE(lexed->tokens[5].isFString && lexed->tokens[5].isRaw);
}

TEST(Lexer, EscapeSequences) {
  auto lexed = lex(R"('\n\t\\\'\"\x41\u00e9\101\q' '\U0001F600' b'\x41\u1234')");
  EXPECT_EQ(lexed->tokens[0].strValue,
            "\n\t\\'\"A\xC3\xA9"
            "A\\q");
  EXPECT_EQ(lexed->tokens[1].strValue, "\xF0\x9F\x98\x80");
  EXPECT_EQ(lexed->tokens[2].strValue, "A\\u1234");
}

TEST(Lexer, BackslashNewlineInString) {
  EXPECT_EQ(lex("'a\\\nb'")->tokens[0].strValue, "ab");
}

TEST(Lexer, StringErrors) {
  Diagnostic d = lexError("x = 'abc\ny = 1\n");
  EXPECT_EQ(d.message, "unterminated string literal");
  EXPECT_EQ(d.loc.line, 1u);
  EXPECT_EQ(d.loc.col, 5u);
  EXPECT_EQ(lexError("x = '''abc\n").message, "unterminated triple-quoted string literal");
  EXPECT_EQ(lexError("'\\N{DASH}'").message, "\\N{...} escapes are not supported");
  EXPECT_EQ(lexError("'\\x4'").message, "truncated \\xXX escape");
  EXPECT_EQ(lexError("b'\xC3\xA9'").message, "bytes can only contain ASCII literal characters");
}

TEST(Lexer, BracketErrors) {
  Diagnostic d = lexError("x = (1,\n 2\n");
  EXPECT_EQ(d.message, "'(' was never closed");
  EXPECT_EQ(d.loc.col, 5u);
  EXPECT_EQ(lexError("x = 1)").message, "unmatched ')'");
  EXPECT_EQ(lexError("x = (1]").message,
            "closing parenthesis ']' does not match opening parenthesis '(' on line 1");
}

TEST(Lexer, InvalidCharacters) {
  EXPECT_EQ(lexError("x = $").message, "invalid character '$' in source");
  Diagnostic d = lexError("x = \x01");
  EXPECT_EQ(d.message, "invalid character 0x01 in source");
  EXPECT_EQ(d.loc.col, 5u);
  EXPECT_EQ(lexError("x = 1 \\ 2").message,
            "unexpected character after line continuation character");
}

TEST(Lexer, TooManyIndentationLevels) {
  std::string src;
  for (int i = 0; i < 120; ++i) src += std::string(i, ' ') + "if x:\n";
  EXPECT_EQ(lexError(src).message, "too many levels of indentation");
}

TEST(Lexer, CrLfLineEndings) {
  EXPECT_EQ(summary("if a:\r\n  b\r\n"), "if a : ; { b ; } EOF");
}

TEST(Lexer, EmbeddedLexerIgnoresNewlines) {
  SourceManager sm;
  uint32_t id = sm.addFile("t.py", "f'{a +\n b}'");
  Lexer lexer = Lexer::embedded(sm, id, 3, 9);
  std::vector<std::string> texts;
  for (Token t = lexer.next(); t.kind != TokKind::Eof; t = lexer.next()) texts.emplace_back(t.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"a", "+", "b"}));
}

}  // namespace
}  // namespace tessera::frontend
