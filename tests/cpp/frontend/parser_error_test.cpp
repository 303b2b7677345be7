// Parser tests for diagnostics (message and location of the first error),
// nesting limits, user line/column offsets, and the lenient module parse
// (skipped top-level code, brokenDefs).
#include <gtest/gtest.h>

#include "frontend/parser.h"
#include "support/diagnostics.h"

namespace tessera::frontend {
namespace {

Diagnostic parseError(const std::string &src, uint32_t firstLine = 1, uint32_t colOffset = 0) {
  SourceManager sm;
  uint32_t id = sm.addFile("t.py", src, firstLine, colOffset);
  try {
    parseModuleStrict(sm, id);
  } catch (const CompileError &e) {
    return e.diag;
  }
  ADD_FAILURE() << "no error for: " << src;
  return {};
}

struct Expected {
  const char *src;
  const char *message;
  uint32_t line, col;
};

TEST(ParseError, MessagesAndLocations) {
  const Expected cases[] = {
      {"if x\n  pass\n", "expected ':' after the 'if' condition, found end of line", 1, 5},
      {"while x y:\n  pass\n", "expected ':' after the 'while' condition, found identifier 'y'", 1,
       9},
      {"for i range(3):\n  pass\n",
       "expected 'in' after the 'for' target, found identifier 'range'", 1, 7},
      {"def f(x:\n  pass\n", "expected an expression, found 'pass'", 2, 3},
      {"def f(x):\n  return (\n", "'(' was never closed", 2, 10},
      {"def (x):\n  pass\n", "expected a name after 'def', found '('", 1, 5},
      {"def f(x) int:\n  pass\n",
       "expected ':' after the function signature, found identifier 'int'", 1, 10},
      {"if x:\npass\n", "expected an indented block after 'if' statement on line 1", 2, 1},
      {"def f():\n", "expected an indented block after function definition on line 1", 2, 1},
      {"  x = 1\n", "unexpected indent", 1, 3},
      {"x = 1 2\n", "expected end of line after statement, found number '2'", 1, 7},
      {"x = (1 2)\n", "expected ',' or ')' in the parenthesized expression, found number '2'", 1,
       8},
      {"f(a b)\n", "expected ',' or ')' in the call arguments, found identifier 'b'", 1, 5},
      {"x[1 2]\n", "expected ',' or ']' in the subscript, found number '2'", 1, 5},
      {"x = \n", "expected an expression, found end of line", 1, 5},
      {"x = a if b\n", "expected 'else' in the conditional expression, found end of line", 1, 11},
      {"f(a=1, b)\n", "positional argument follows keyword argument", 1, 8},
      {"f(a=1, a=2)\n", "keyword argument repeated: a", 1, 8},
      {"f(a + 1 = 2)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1, 9},
      {"f() = 1\n", "cannot assign to function call", 1, 1},
      {"1 = x\n", "cannot assign to literal", 1, 1},
      {"a < b = 1\n", "cannot assign to comparison", 1, 1},
      {"a, b += 1\n", "cannot use augmented assignment with a tuple", 1, 1},
      {"a, b: int\n", "only a single target (not a tuple) can be annotated", 1, 1},
      {"def f(a=1, b):\n  pass\n",
       "parameter 'b' without a default follows a parameter with a default", 1, 12},
      {"def f(a, a):\n  pass\n", "duplicate parameter 'a' in function definition", 1, 10},
      {"def f(*):\n  pass\n", "named parameters must follow a bare '*'", 1, 7},
      {"x.(y)\n", "expected a name after '.', found '('", 1, 3},
      {"x = a.if\n", "expected a name after '.', found keyword 'if'", 1, 7},
      {"try:\n  pass\nx = 1\n",
       "expected 'except' or 'finally' after the 'try' block, found identifier 'x'", 3, 1},
      {"@dec\nx = 1\n", "expected 'def' or 'class' after decorator, found identifier 'x'", 2, 1},
      {"s = f'{}'\n", "f-string: empty expression not allowed", 1, 7},
      {"s = f'{x'\n", "f-string: expecting '}'", 1, 7},
      {"s = f'a}'\n", "f-string: single '}' is not allowed", 1, 8},
      {"s = f'{x!z}'\n", "f-string: invalid conversion character: expected 's', 'r', or 'a'", 1,
       10},
      {"s = f'{a b}'\n", "expected '}' after the f-string expression, found identifier 'b'", 1, 10},
      {"s = 'a' b'c'\n", "cannot mix bytes and non-bytes literals", 1, 9},
      {"x = 99999999999999999999\n", "integer literal too large", 1, 5},
      {"if x:\n  pass\n else:\n  pass\n", "unindent does not match any outer indentation level", 3,
       2},
  };
  for (const Expected &c : cases) {
    Diagnostic d = parseError(c.src);
    EXPECT_EQ(d.message, c.message) << c.src;
    EXPECT_EQ(d.loc.line, c.line) << c.src;
    EXPECT_EQ(d.loc.col, c.col) << c.src;
  }
}

TEST(ParseError, LocationsUseFirstLineAndColOffset) {
  Diagnostic d = parseError("def k(x):\n    y = x +\n", 120, 4);
  EXPECT_EQ(d.message, "expected an expression, found end of line");
  EXPECT_EQ(d.loc.line, 121u);
  EXPECT_EQ(d.loc.col, 4u + 12u);
}

TEST(ParseError, RenderedWithCaret) {
  SourceManager sm;
  uint32_t id = sm.addFile("k.py", "x = (1 2)\n");
  try {
    parseModuleStrict(sm, id);
    FAIL();
  } catch (const CompileError &e) {
    EXPECT_EQ(render(sm, e.diag),
              "k.py:1:8: error: expected ',' or ')' in the parenthesized expression, found number "
              "'2'\n    x = (1 2)\n           ^\n");
  }
}

TEST(ParseError, NestingLimits) {
  auto deep = [](const std::string &open, const std::string &inner, const std::string &close,
                 int n) {
    std::string s = "x = ";
    for (int i = 0; i < n; ++i) s += open;
    s += inner;
    for (int i = 0; i < n; ++i) s += close;
    return s + "\n";
  };
  EXPECT_EQ(parseError(deep("(", "1", ")", 5000)).message, "expression nested too deeply");
  EXPECT_EQ(parseError(deep("[", "1", "]", 5000)).message, "expression nested too deeply");
  EXPECT_EQ(parseError(deep("f(", "1", ")", 5000)).message, "expression nested too deeply");
  EXPECT_EQ(parseError(deep("-", "1", "", 100000)).message, "expression nested too deeply");
  EXPECT_EQ(parseError(deep("not ", "1", "", 5000)).message, "expression nested too deeply");
  EXPECT_EQ(parseError(deep("a if b else ", "1", "", 5000)).message,
            "expression nested too deeply");
  EXPECT_EQ(parseError(deep("2 ** ", "1", "", 5000)).message, "expression nested too deeply");
  EXPECT_EQ(parseError(deep("lambda: ", "1", "", 5000)).message, "expression nested too deeply");
  EXPECT_EQ(parseError(deep("", "1", " + 1", 100000)).message, "expression nested too deeply");
  EXPECT_EQ(parseError(deep("", "x", ".y", 100000)).message, "expression nested too deeply");
  EXPECT_EQ(parseError(deep("", "x", "[0]", 100000)).message, "expression nested too deeply");
  EXPECT_EQ(parseError(deep("(", "x", " + 1) + 1", 150)).message, "expression nested too deeply");
  EXPECT_EQ(
      parseError(deep("f'{", std::string(300, '(') + "x" + std::string(300, ')'), "}'", 1)).message,
      "expression nested too deeply");
  std::string elifs = "if a:\n  pass\n";
  for (int i = 0; i < 5000; ++i) elifs += "elif a:\n  pass\n";
  EXPECT_EQ(parseError(elifs).message, "too many nested blocks or 'elif' branches");
}

// ---------------------------------------------------------------- lenient

TEST(ParseModule, SkipsInvalidTopLevelCode) {
  SourceManager sm;
  uint32_t id = sm.addFile("m.py",
                           "x = 1\n"
                           "this is not python $$$\n"
                           "  still part of it\n"
                           "print >>sys.stderr, 'py2'\n"
                           "y = 2\n"
                           "s = '''\n"
                           "text at column one ( \n"
                           "'''\n"
                           "z = (\n"
                           "w = 3\n");
  ast::Module m = parseModule(sm, id);
  EXPECT_EQ(dump(m),
            "(= x 1)\n(expr (tuple (>> print (. sys stderr)) \"py2\"))\n(= y 2)\n"
            "(= s \"\\ntext at column one ( \\n\")\n(= w 3)");
  EXPECT_TRUE(m.brokenDefs.empty());
  EXPECT_EQ(m.file, id);
}

TEST(ParseModule, RecordsBrokenDefs) {
  SourceManager sm;
  uint32_t id = sm.addFile("m.py",
                           "@jit\n"
                           "def good(x):\n"
                           "    return x\n"
                           "\n"
                           "@jit\n"
                           "def bad(x):\n"
                           "    y = x +\n"
                           "    return y\n"
                           "\n"
                           "def also_good():\n"
                           "    pass\n"
                           "class C:\n"
                           "    def m(self) oops\n"
                           "def last(:\n"
                           "    pass\n");
  ast::Module m = parseModule(sm, id);
  ASSERT_EQ(m.body.size(), 2u);
  EXPECT_EQ(m.body[0]->name, "good");
  EXPECT_EQ(m.body[1]->name, "also_good");
  ASSERT_EQ(m.brokenDefs.size(), 2u);
  EXPECT_EQ(m.brokenDefs[0].name, "bad");
  EXPECT_EQ(m.brokenDefs[0].diag.message, "expected an expression, found end of line");
  EXPECT_EQ(m.brokenDefs[0].diag.loc, (SourceLoc{id, 7, 12}));
  EXPECT_EQ(m.brokenDefs[1].name, "last");
}

TEST(ParseModule, StrictThrowsOnFirstError) {
  SourceManager sm;
  uint32_t id = sm.addFile("m.py", "x = 1\ny = $\nz = (\n");
  try {
    parseModuleStrict(sm, id);
    FAIL();
  } catch (const CompileError &e) {
    EXPECT_EQ(e.diag.loc, (SourceLoc{id, 2, 5}));
  }
}

TEST(ParseModule, NeverThrowsOnGarbage) {
  const char *inputs[] = {"\xff\xfe\x00\x01", "((((",    "'''", "def",       "@",
                          "if:\n\tx\n  y",    "f'{",     "\\",  "x = [1,\n", "class\n",
                          "\x0c\x0c",         "lambda *"};
  for (const char *src : inputs) {
    SourceManager sm;
    uint32_t id = sm.addFile("g.py", src);
    EXPECT_NO_THROW(parseModule(sm, id)) << src;
  }
}

}  // namespace
}  // namespace tessera::frontend
