// Parser tests for statements: every statement kind, decorators, parameter
// lists, blocks, and the Unsupported statements.
#include <gtest/gtest.h>

#include <cstdio>

#include "frontend/parser.h"
#include "support/diagnostics.h"

namespace tessera::frontend {
namespace {

std::string parse(const std::string &src) {
  SourceManager sm;
  uint32_t id = sm.addFile("t.py", src);
  return dump(parseModuleStrict(sm, id));
}

TEST(ParseStmt, Assignments) {
  EXPECT_EQ(parse("x = 1\n"), "(= x 1)");
  EXPECT_EQ(parse("a = b = c\n"), "(= a b c)");
  EXPECT_EQ(parse("a, b = f()\n"), "(= (tuple a b) (call f))");
  EXPECT_EQ(parse("(a, b), [c, *d] = x\n"), "(= (tuple (tuple a b) (list c (* d))) x)");
  EXPECT_EQ(parse("x.y[i] = 1, 2\n"), "(= (sub (. x y) i) (tuple 1 2))");
  EXPECT_EQ(parse("acc += tl.dot(a, b)\n"), "(+= acc (call (. tl dot) a b))");
  EXPECT_EQ(parse("x //= 2\nx **= 2\nx >>= 1\nx @= y\n"),
            "(//= x 2)\n(**= x 2)\n(>>= x 1)\n(@= x y)");
  EXPECT_EQ(parse("x: int = 3\n"), "(: x int 3)");
  EXPECT_EQ(parse("x: tl.constexpr\n"), "(: x (. tl constexpr))");
}

TEST(ParseStmt, SimpleStatements) {
  EXPECT_EQ(parse("pass\n"), "(pass)");
  EXPECT_EQ(parse("while x:\n  break\n  continue\n"), "(while x (body (break) (continue)))");
  EXPECT_EQ(parse("return\n"), "(return)");
  EXPECT_EQ(parse("return a, b\n"), "(return (tuple a b))");
  EXPECT_EQ(parse("assert x, 'msg'\n"), "(assert x \"msg\")");
  EXPECT_EQ(parse("assert x\n"), "(assert x)");
  EXPECT_EQ(parse("global a, b\nnonlocal c\n"), "(global a b)\n(nonlocal c)");
  EXPECT_EQ(parse("f(x); g(y);\n"), "(expr (call f x))\n(expr (call g y))");
}

TEST(ParseStmt, Imports) {
  EXPECT_EQ(parse("import triton\n"), "(import triton)");
  EXPECT_EQ(parse("import triton.language as tl, os\n"), "(import (as triton.language tl) os)");
  EXPECT_EQ(parse("from triton import jit\n"), "(from triton jit)");
  EXPECT_EQ(parse("from . import a as b\n"), "(from . (as a b))");
  EXPECT_EQ(parse("from ..x.y import (a,\n b,)\n"), "(from ..x.y a b)");
  EXPECT_EQ(parse("from m import *\n"), "(from m *)");
  EXPECT_EQ(parse("from ... import z\n"), "(from ... z)");
}

TEST(ParseStmt, IfElifElse) {
  EXPECT_EQ(parse("if a:\n  x\nelif b:\n  y\nelse:\n  z\n"),
            "(if a (body (expr x)) (else (if b (body (expr y)) (else (expr z)))))");
  EXPECT_EQ(parse("if a: x = 1; y = 2\n"), "(if a (body (= x 1) (= y 2)))");
}

TEST(ParseStmt, Loops) {
  EXPECT_EQ(parse("for i in range(0, n, 2):\n  s += i\nelse:\n  pass\n"),
            "(for i (call range 0 n 2) (body (+= s i)) (else (pass)))");
  EXPECT_EQ(parse("for a, b in zip(x, y):\n  pass\n"),
            "(for (tuple a b) (call zip x y) (body (pass)))");
  EXPECT_EQ(parse("for k in tl.static_range(4):\n  pass\n"),
            "(for k (call (. tl static_range) 4) (body (pass)))");
  EXPECT_EQ(parse("while i < n:\n  i += 1\nelse:\n  pass\n"),
            "(while (cmp i < n) (body (+= i 1)) (else (pass)))");
}

TEST(ParseStmt, FunctionDefinitions) {
  EXPECT_EQ(parse("def f():\n  pass\n"), "(def f (params) (body (pass)))");
  EXPECT_EQ(parse("def f(x, y: int, z=1, *args, k: str = 'a', **kw) -> int:\n  return x\n"),
            "(def f (params x (y : int) (z = 1) *args (kw:k : str = \"a\") **kw) (-> int) "
            "(body (return x)))");
  EXPECT_EQ(parse("def f(a, /, b, *, c):\n  pass\n"), "(def f (params a b kw:c) (body (pass)))");
  EXPECT_EQ(parse("def f(BLOCK: tl.constexpr):\n  pass\n"),
            "(def f (params (BLOCK : (. tl constexpr))) (body (pass)))");
  EXPECT_EQ(parse("def f(): return 1\n"), "(def f (params) (body (return 1)))");
}

TEST(ParseStmt, Decorators) {
  EXPECT_EQ(parse("@triton.jit\ndef k(x):\n  pass\n"),
            "(def k (params x) (decorators (. triton jit)) (body (pass)))");
  EXPECT_EQ(parse("@a\n@b(c=1)\ndef k():\n  pass\n"),
            "(def k (params) (decorators a (call b (kw c 1))) (body (pass)))");
  EXPECT_EQ(parse("@dataclass\nclass C:\n  x: int\n"),
            "(class C (decorators dataclass) (body (: x int)))");
}

TEST(ParseStmt, FunctionLocations) {
  SourceManager sm;
  uint32_t id = sm.addFile("t.py", "@jit\ndef k(x, y):\n    a = 1\n\n    return a\nz = 2\n");
  ast::Module m = parseModuleStrict(sm, id);
  const ast::Stmt &def = *m.body[0];
  EXPECT_EQ(def.loc, (SourceLoc{id, 2, 1}));
  EXPECT_EQ(def.decorators[0]->loc, (SourceLoc{id, 1, 2}));
  EXPECT_EQ(def.params[1].loc, (SourceLoc{id, 2, 10}));
  EXPECT_EQ(def.body[1]->loc, (SourceLoc{id, 5, 5}));
  EXPECT_EQ(def.endLoc.line, 6u);
  EXPECT_EQ(m.body[1]->loc, (SourceLoc{id, 6, 1}));
}

TEST(ParseStmt, Classes) {
  EXPECT_EQ(parse("class A(B, metaclass=M):\n  def f(self):\n    pass\n"),
            "(class A (call A B (kw metaclass M)) (body (def f (params self) (body (pass)))))");
  EXPECT_EQ(parse("class A:\n  pass\n"), "(class A (body (pass)))");
}

TEST(ParseStmt, With) {
  EXPECT_EQ(parse("with a as b, c:\n  pass\n"), "(with (item a as b) (item c) (body (pass)))");
  EXPECT_EQ(parse("with (a as b, c as d,):\n  pass\n"),
            "(with (item a as b) (item c as d) (body (pass)))");
  EXPECT_EQ(parse("with (a):\n  pass\n"), "(with (item a) (body (pass)))");
}

TEST(ParseStmt, UnsupportedStatements) {
  EXPECT_EQ(parse("try:\n  x\nexcept ValueError as e:\n  y\nelse:\n  z\nfinally:\n  w\n"),
            "(unsupported \"try statement\")");
  EXPECT_EQ(parse("raise ValueError('x') from e\n"), "(unsupported \"raise statement\")");
  EXPECT_EQ(parse("raise\n"), "(unsupported \"raise statement\")");
  EXPECT_EQ(parse("del a, b[0]\n"), "(unsupported \"del statement\")");
  EXPECT_EQ(parse("yield x\n"), "(expr (unsupported \"yield expression\"))");
  EXPECT_EQ(parse("x = yield\n"), "(= x (unsupported \"yield expression\"))");
  EXPECT_EQ(parse("async def f():\n  await g()\n"), "(unsupported \"async function\")");
  EXPECT_EQ(parse("match p:\n  case [a, {'k': b}] if a:\n    pass\n  case _:\n    pass\n"),
            "(unsupported \"match statement\")");
  EXPECT_EQ(parse("match = 1\nmatch(x)\n"), "(= match 1)\n(expr (call match x))");
}

TEST(ParseStmt, KernelLikeSource) {
  const char *src = R"(import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    acc = tl.zeros((BLOCK_SIZE, BLOCK_SIZE), dtype=tl.float32)
    b = tl.load(y_ptr + offsets[:, None] * 4 + offsets[None, :])
    tl.static_assert(BLOCK_SIZE % 16 == 0, f"bad block {BLOCK_SIZE}")
    tl.store(out_ptr + offsets, x, mask=mask)
)";
  SourceManager sm;
  uint32_t id = sm.addFile("k.py", src);
  ast::Module m = parseModuleStrict(sm, id);
  ASSERT_EQ(m.body.size(), 3u);
  EXPECT_EQ(m.body[2]->body.size(), 8u);
  EXPECT_EQ(dump(*m.body[2]->body[1]),
            "(= offsets (+ (* pid BLOCK_SIZE) (call (. tl arange) 0 BLOCK_SIZE)))");
  EXPECT_EQ(dump(*m.body[2]->body[5]),
            "(= b (call (. tl load) (+ (+ y_ptr (* (sub offsets (tuple (slice _ _ _) None)) 4)) "
            "(sub offsets (tuple None (slice _ _ _))))))");
}

}  // namespace
}  // namespace tessera::frontend

namespace tessera::frontend {
namespace {

// The fuzzer's seed corpus is realistic host + kernel code covering most of
// the grammar; it must parse strictly.
TEST(ParseStmt, FuzzSeedCorpusParsesStrictly) {
  for (const char *name : {"add.py", "softmax.py", "matmul.py", "misc.py"}) {
    std::string path = std::string(TESSERA_SOURCE_DIR) + "/tests/fuzz/corpus/" + name;
    std::FILE *f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr) << path;
    std::string text;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
    std::fclose(f);
    SourceManager sm;
    uint32_t id = sm.addFile(name, text);
    try {
      ast::Module m = parseModuleStrict(sm, id);
      EXPECT_FALSE(m.body.empty()) << name;
    } catch (const CompileError &e) {
      ADD_FAILURE() << render(sm, e.diag);
    }
  }
}

}  // namespace
}  // namespace tessera::frontend
