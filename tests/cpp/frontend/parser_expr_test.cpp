// Parser tests for expressions: precedence and associativity (through the
// dump), subscripts and slices, calls, literals, f-strings, constructs that
// become Unsupported, and locations.
#include <gtest/gtest.h>

#include "frontend/parser.h"
#include "support/diagnostics.h"

namespace tessera::frontend {
namespace {

// Dump of the expression statement `src`.
std::string expr(const std::string &src) {
  SourceManager sm;
  uint32_t id = sm.addFile("t.py", src + "\n");
  ast::Module m = parseModuleStrict(sm, id);
  if (m.body.size() != 1 || m.body[0]->kind != ast::StmtKind::ExprStmt) return "<not one expr>";
  return dump(*m.body[0]->a);
}

TEST(ParseExpr, Atoms) {
  EXPECT_EQ(expr("x"), "x");
  EXPECT_EQ(expr("42"), "42");
  EXPECT_EQ(expr("1.5"), "1.5");
  EXPECT_EQ(expr("1."), "1.0");
  EXPECT_EQ(expr("'a' \"b\""), "\"ab\"");
  EXPECT_EQ(expr("True"), "True");
  EXPECT_EQ(expr("None"), "None");
  EXPECT_EQ(expr("..."), "...");
  EXPECT_EQ(expr("3j"), "(unsupported \"complex literal\")");
  EXPECT_EQ(expr("b'x'"), "(unsupported \"bytes literal\")");
}

TEST(ParseExpr, ArithmeticPrecedence) {
  EXPECT_EQ(expr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr("a * b // c % d @ e"), "(@ (% (// (* a b) c) d) e)");
  EXPECT_EQ(expr("-a ** b"), "(- (** a b))");
  EXPECT_EQ(expr("a ** b ** c"), "(** a (** b c))");
  EXPECT_EQ(expr("a ** -b"), "(** a (- b))");
  EXPECT_EQ(expr("~a + +b"), "(+ (~ a) (+ b))");
  EXPECT_EQ(expr("a << b + c"), "(<< a (+ b c))");
  EXPECT_EQ(expr("a | b ^ c & d"), "(| a (^ b (& c d)))");
  EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
}

TEST(ParseExpr, BooleanAndComparison) {
  EXPECT_EQ(expr("a or b and not c"), "(or a (and b (not c)))");
  EXPECT_EQ(expr("a or b or c"), "(or a b c)");
  EXPECT_EQ(expr("a < b <= c"), "(cmp a < b <= c)");
  EXPECT_EQ(expr("a is not b"), "(cmp a is not b)");
  EXPECT_EQ(expr("a not in b"), "(cmp a not in b)");
  EXPECT_EQ(expr("not a == b"), "(not (cmp a == b))");
  EXPECT_EQ(expr("a & b == c"), "(cmp (& a b) == c)");
}

TEST(ParseExpr, Ternary) {
  EXPECT_EQ(expr("a if c else b"), "(ifexp c a b)");
  EXPECT_EQ(expr("a if c else b if d else e"), "(ifexp c a (ifexp d b e))");
  EXPECT_EQ(expr("x + 1 if c or d else y"), "(ifexp (or c d) (+ x 1) y)");
}

TEST(ParseExpr, AttributesAndCalls) {
  EXPECT_EQ(expr("tl.program_id(axis=0)"), "(call (. tl program_id) (kw axis 0))");
  EXPECT_EQ(expr("f(a, *b, c=1, **d)"), "(call f a (* b) (kw c 1) (** d))");
  EXPECT_EQ(expr("x.to(tl.float32).T"), "(. (call (. x to) (. tl float32)) T)");
  EXPECT_EQ(expr("f()()"), "(call (call f))");
  EXPECT_EQ(expr("f(a,)"), "(call f a)");
  EXPECT_EQ(expr("f(x for x in y)"), "(call f (unsupported \"generator expression\"))");
}

TEST(ParseExpr, SubscriptsAndSlices) {
  EXPECT_EQ(expr("x[:, None]"), "(sub x (tuple (slice _ _ _) None))");
  EXPECT_EQ(expr("x[None, :]"), "(sub x (tuple None (slice _ _ _)))");
  EXPECT_EQ(expr("x[1:2, ::3]"), "(sub x (tuple (slice 1 2 _) (slice _ _ 3)))");
  EXPECT_EQ(expr("x[i]"), "(sub x i)");
  EXPECT_EQ(expr("x[i,]"), "(sub x (tuple i))");
  EXPECT_EQ(expr("x[a:]"), "(sub x (slice a _ _))");
  EXPECT_EQ(expr("x[:b:]"), "(sub x (slice _ b _))");
  EXPECT_EQ(expr("x[...]"), "(sub x ...)");
  EXPECT_EQ(expr("x[0][1]"), "(sub (sub x 0) 1)");
}

TEST(ParseExpr, TuplesAndLists) {
  EXPECT_EQ(expr("a, b"), "(tuple a b)");
  EXPECT_EQ(expr("a,"), "(tuple a)");
  EXPECT_EQ(expr("()"), "(tuple)");
  EXPECT_EQ(expr("(a,)"), "(tuple a)");
  EXPECT_EQ(expr("(a)"), "a");
  EXPECT_EQ(expr("[1, 2,]"), "(list 1 2)");
  EXPECT_EQ(expr("[]"), "(list)");
  EXPECT_EQ(expr("[*a, b]"), "(list (* a) b)");
}

TEST(ParseExpr, ListComprehension) {
  EXPECT_EQ(expr("[x for x in y if x for z in w]"), "(listcomp x (for x y x) (for z w))");
  EXPECT_EQ(expr("[a + b for a, b in t]"), "(listcomp (+ a b) (for (tuple a b) t))");
}

TEST(ParseExpr, UnsupportedConstructs) {
  EXPECT_EQ(expr("lambda x, y=1, *a, k, **kw: x + y"), "(unsupported \"lambda\")");
  EXPECT_EQ(expr("lambda: 0"), "(unsupported \"lambda\")");
  EXPECT_EQ(expr("(x for x in y)"), "(unsupported \"generator expression\")");
  EXPECT_EQ(expr("{}"), "(unsupported \"dict display\")");
  EXPECT_EQ(expr("{a: b, **c}"), "(unsupported \"dict display\")");
  EXPECT_EQ(expr("{a: b for a in c}"), "(unsupported \"dict comprehension\")");
  EXPECT_EQ(expr("{a, *b}"), "(unsupported \"set display\")");
  EXPECT_EQ(expr("{a for a in b}"), "(unsupported \"set comprehension\")");
  EXPECT_EQ(expr("await x"), "(unsupported \"await expression\")");
  EXPECT_EQ(expr("(yield x)"), "(unsupported \"yield expression\")");
}

TEST(ParseExpr, NamedExpressions) {
  EXPECT_EQ(expr("(y := 3)"), "(:= y 3)");
  EXPECT_EQ(expr("f(y := a + 1, 2)"), "(call f (:= y (+ a 1)) 2)");
}

TEST(ParseExpr, FStrings) {
  EXPECT_EQ(expr("f'a{x}b'"), "(fstr \"a\" (fmt x) \"b\")");
  EXPECT_EQ(expr("f'{x!r:>10}'"), "(fstr (fmt x !r :\">10\"))");
  EXPECT_EQ(expr("f'{{x}}'"), "(fstr \"{x}\")");
  EXPECT_EQ(expr("f'{a + b[0]}'"), "(fstr (fmt (+ a (sub b 0))))");
  EXPECT_EQ(expr("f'{d[\"k\"]}'"), "(fstr (fmt (sub d \"k\")))");
  EXPECT_EQ(expr("f'{x=}'"), "(fstr \"x=\" (fmt x !r))");
  EXPECT_EQ(expr("f'{a != b}'"), "(fstr (fmt (cmp a != b)))");
  EXPECT_EQ(expr("f'{x:{w}}'"), "(fstr (fmt x :\"{w}\"))");
  EXPECT_EQ(expr("'a' f'{x}' 'b'"), "(fstr \"a\" (fmt x) \"b\")");
  EXPECT_EQ(expr("f'\\n{x}'"), "(fstr \"\\n\" (fmt x))");
  EXPECT_EQ(expr("rf'\\n{x}'"), "(fstr \"\\\\n\" (fmt x))");
  EXPECT_EQ(expr("f''"), "(fstr)");
  EXPECT_EQ(expr("f'{f\"{x}\"}'"), "(fstr (fmt (fstr (fmt x))))");
}

TEST(ParseExpr, FStringLocations) {
  SourceManager sm;
  uint32_t id = sm.addFile("t.py", "s = f'ab{x + y}'\n", 10, 4);
  ast::Module m = parseModuleStrict(sm, id);
  const ast::Expr &joined = *m.body[0]->a;
  EXPECT_EQ(joined.loc, (SourceLoc{id, 10, 9}));
  EXPECT_EQ(joined.list[0]->loc, (SourceLoc{id, 10, 11}));  // "ab"
  EXPECT_EQ(joined.list[1]->loc, (SourceLoc{id, 10, 13}));  // {
  const ast::Expr &sum = *joined.list[1]->a;
  EXPECT_EQ(sum.loc, (SourceLoc{id, 10, 14}));
  EXPECT_EQ(sum.b->loc, (SourceLoc{id, 10, 18}));
}

TEST(ParseExpr, MultilineFStringLocations) {
  SourceManager sm;
  uint32_t id = sm.addFile("t.py", "s = f'''\n{\n  y}'''\n");
  ast::Module m = parseModuleStrict(sm, id);
  const ast::Expr &joined = *m.body[0]->a;
  ASSERT_EQ(joined.list.size(), 2u);
  EXPECT_EQ(joined.list[1]->a->loc, (SourceLoc{id, 3, 3}));
}

TEST(ParseExpr, Locations) {
  SourceManager sm;
  uint32_t id = sm.addFile("t.py", "x = a + f(b)[c]\n");
  ast::Module m = parseModuleStrict(sm, id);
  const ast::Expr &sum = *m.body[0]->a;
  EXPECT_EQ(sum.loc, (SourceLoc{id, 1, 5}));
  EXPECT_EQ(sum.b->loc, (SourceLoc{id, 1, 9}));      // subscript starts at f
  EXPECT_EQ(sum.b->b->loc, (SourceLoc{id, 1, 14}));  // c
  EXPECT_EQ(sum.b->a->list[0]->loc, (SourceLoc{id, 1, 11}));
  EXPECT_EQ(m.body[0]->targets[0]->loc, (SourceLoc{id, 1, 1}));
}

TEST(ParseExpr, KeywordLocations) {
  SourceManager sm;
  uint32_t id = sm.addFile("t.py", "f(a, mask=m)\n");
  ast::Module m = parseModuleStrict(sm, id);
  EXPECT_EQ(m.body[0]->a->keywords[0].loc, (SourceLoc{id, 1, 6}));
  EXPECT_EQ(m.body[0]->a->keywords[0].value->loc, (SourceLoc{id, 1, 11}));
}

TEST(ParseExpr, DeepButReasonableNesting) {
  std::string src = std::string(60, '(') + "x" + std::string(60, ')');
  EXPECT_EQ(expr(src), "x");
  std::string sum = "x";
  for (int i = 0; i < 100; ++i) sum += " + x";
  EXPECT_NO_THROW(expr(sum));
}

}  // namespace
}  // namespace tessera::frontend
