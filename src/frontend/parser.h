// Python parser: source text -> ast::Module (see ast.h).
//
// Contract:
//  - parseModuleStrict() throws CompileError (tessera::fail) at the first
//    lexical or syntax error, located at the offending token.
//  - parseModule() never throws a CompileError: a top-level statement that is
//    not valid Python is skipped, and parsing resumes at the next line that
//    starts in column 1 (host code around kernels is not ours to judge); a
//    top-level `def` whose header or body fails is also recorded in
//    Module::brokenDefs with its diagnostic, so that using it as a kernel
//    reports the error.
//  - Constructs outside the kernel language are parsed (so that their syntax
//    is checked and their tokens consumed) and represented as Unsupported
//    nodes naming the construct: "lambda", "list comprehension", "dict
//    display", "try statement", ...; sema reports them when a kernel uses them.
//  - Nesting is bounded (kMaxNesting): deeper input is an error "expression
//    nested too deeply", never a stack overflow; ASTs handed out are at most
//    about kMaxNesting high, so recursive consumers are safe too.
//
// Representation choices that ast.h leaves open:
//  - With: targets[i] is the i-th context expression; when any item has
//    `as`, `a` is a Tuple whose i-th element is that item's target (None
//    when the item has none).
//  - ClassDef: the base-class/keyword arguments are kept as a Call in `a`
//    (callee = the class name) when present.
//  - ImportFrom: `from . import x` has an empty module name and importLevel 1;
//    `import *` is the name "*".
//  - Unsupported statements keep the first body they parsed in `body`.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "frontend/ast.h"
#include "frontend/lexer.h"
#include "support/source.h"

namespace tessera::frontend {

ast::Module parseModule(const SourceManager &sm, uint32_t fileId);
ast::Module parseModuleStrict(const SourceManager &sm, uint32_t fileId);

// S-expression dumps for tests (defined in ast_dump.cpp, declared in ast.h).
using ast::dump;

namespace detail {

constexpr int kMaxNesting = 200;

// Counts one level of recursion on `counter`; fails with `message` at `loc`
// instead of going past kMaxNesting.
class DepthGuard {
 public:
  DepthGuard(int &counter, SourceLoc loc, const char *message);
  ~DepthGuard() { --counter_; }
  DepthGuard(const DepthGuard &) = delete;
  DepthGuard &operator=(const DepthGuard &) = delete;

 private:
  int &counter_;
};

// The recursive-descent parser; shared by parser.cpp (statements),
// parse_expr.cpp (expressions) and parse_fstring.cpp (string literals).
class Parser {
 public:
  Parser(const SourceManager &sm, uint32_t fileId);

  ast::Module parseModule(bool strict);

 private:
  // A parser over an f-string replacement field, sharing the nesting budget
  // of its parent.
  Parser(const SourceManager &sm, Lexer lexer, int depth);

  // --- tokens
  const Token &tok() { return peek(0); }
  const Token &peek(size_t ahead);
  Token take();
  bool atOp(std::string_view op) { return tok().isOp(op); }
  bool atKeyword(std::string_view kw) { return tok().isKeyword(kw); }
  bool acceptOp(std::string_view op);
  bool acceptKeyword(std::string_view kw);
  // Consumes `op` or fails with "expected 'op' <context>, found ...".
  Token expectOp(std::string_view op, std::string_view context);
  Token expectKeyword(std::string_view kw, std::string_view context);
  std::string expectName(std::string_view context);
  [[noreturn]] void errorExpected(std::string_view what, std::string_view context);
  [[noreturn]] void error(SourceLoc loc, std::string message, std::string hint = {});

  // --- nodes
  ast::ExprPtr newExpr(ast::ExprKind kind, SourceLoc loc);
  // Records the height of a node whose children are attached and fails when
  // it exceeds the nesting limit; every composite node goes through here.
  ast::ExprPtr finish(ast::ExprPtr e);
  uint32_t heightOf(const ast::Expr *e) const;
  ast::ExprPtr unsupported(SourceLoc loc, std::string construct);

  // --- statements (parser.cpp)
  ast::StmtPtr newStmt(ast::StmtKind kind, SourceLoc loc);
  void parseStatement(ast::Body &out);
  void parseSimpleStatements(ast::Body &out);
  ast::StmtPtr parseSimpleStatement();
  ast::StmtPtr parseExpressionStatement();
  ast::StmtPtr parseCompoundStatement();
  ast::Body parseBlock(std::string_view owner, SourceLoc ownerLoc);
  ast::StmtPtr parseDecorated();
  ast::StmtPtr parseFunctionDef(std::vector<ast::ExprPtr> decorators);
  std::vector<ast::Param> parseParameters(std::string_view closer, bool annotations);
  ast::StmtPtr parseClassDef(std::vector<ast::ExprPtr> decorators);
  ast::StmtPtr parseIf();
  ast::StmtPtr parseWhile();
  ast::StmtPtr parseFor();
  ast::StmtPtr parseWith();
  ast::StmtPtr parseTry();
  ast::StmtPtr parseMatch();
  ast::StmtPtr parseAsync();
  ast::StmtPtr parseImport();
  ast::StmtPtr parseFromImport();
  std::string parseDottedName(std::string_view context);
  void checkAssignTarget(const ast::Expr &e, std::string_view what);

  // --- expressions (parse_expr.cpp)
  ast::ExprPtr parseTestListStar(bool allowYield);  // a, *b, c (Tuple when a comma)
  ast::ExprPtr parseNamedTest();                    // test [:= test]
  ast::ExprPtr parseTest();                         // lambda, ternary
  ast::ExprPtr parseTestNoCond();
  ast::ExprPtr parseLambda();
  ast::ExprPtr parseOrTest();
  ast::ExprPtr parseAndTest();
  ast::ExprPtr parseNotTest();
  ast::ExprPtr parseComparison();
  ast::ExprPtr parseBinary(int level);
  ast::ExprPtr parseFactor();
  ast::ExprPtr parsePower();
  ast::ExprPtr parsePrimary();
  ast::ExprPtr parseAtom();
  ast::ExprPtr parseStarOrNamed();  // *bitor | namedtest
  ast::ExprPtr parseTargetList();   // for-loop and comprehension targets
  ast::ExprPtr parseYield();
  ast::ExprPtr parseParenthesized();
  ast::ExprPtr parseListDisplay();
  ast::ExprPtr parseBraceDisplay();
  ast::ExprPtr parseCall(ast::ExprPtr callee);
  ast::ExprPtr parseSubscript(ast::ExprPtr value);
  ast::ExprPtr parseSliceItem();
  // The `for ... in ... if ...` clauses of a comprehension (CompFor nodes).
  std::vector<ast::ExprPtr> parseComprehensionClauses();

  // --- string literals (parse_fstring.cpp)
  ast::ExprPtr parseStrings();
  void appendFString(const Token &t, std::vector<ast::ExprPtr> &parts);
  ast::ExprPtr parseReplacementField(uint32_t begin, uint32_t end);

  const SourceManager &sm_;
  uint32_t fileId_;
  Lexer lexer_;
  std::deque<Token> lookahead_;
  int depth_ = 0;
  int stmtDepth_ = 0;
  uint32_t lastLine_ = 0;            // line of the last consumed token
  std::string currentTopLevelDef_;   // lenient mode: name of the def being parsed
  uint32_t topLevelHeaderLine_ = 0;  // lenient mode: line of its `def`/`class`
};

}  // namespace detail
}  // namespace tessera::frontend
