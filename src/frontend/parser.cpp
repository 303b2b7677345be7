// Python parser: module driver, error recovery and statements. Expressions
// are in parse_expr.cpp, string literals in parse_fstring.cpp; see parser.h
// for the contract.
#include "frontend/parser.h"

#include <algorithm>

#include "support/diagnostics.h"

namespace tessera::frontend {

using ast::ExprKind;
using ast::ExprPtr;
using ast::StmtKind;
using ast::StmtPtr;

ast::Module parseModule(const SourceManager &sm, uint32_t fileId) {
  detail::Parser parser(sm, fileId);
  return parser.parseModule(/*strict=*/false);
}

ast::Module parseModuleStrict(const SourceManager &sm, uint32_t fileId) {
  detail::Parser parser(sm, fileId);
  return parser.parseModule(/*strict=*/true);
}

namespace detail {

DepthGuard::DepthGuard(int &counter, SourceLoc loc, const char *message) : counter_(counter) {
  if (counter_ >= kMaxNesting)
    fail(loc, message, "split the construct into smaller pieces with intermediate variables");
  ++counter_;
}

Parser::Parser(const SourceManager &sm, uint32_t fileId)
    : sm_(sm), fileId_(fileId), lexer_(sm, fileId) {}

Parser::Parser(const SourceManager &sm, Lexer lexer, int depth)
    : sm_(sm), fileId_(lexer.fileId()), lexer_(std::move(lexer)), depth_(depth) {}

// ---------------------------------------------------------------- tokens

const Token &Parser::peek(size_t ahead) {
  while (lookahead_.size() <= ahead) lookahead_.push_back(lexer_.next());
  return lookahead_[ahead];
}

Token Parser::take() {
  peek(0);
  Token t = std::move(lookahead_.front());
  lookahead_.pop_front();
  if (t.kind != TokKind::Indent && t.kind != TokKind::Dedent && t.kind != TokKind::Eof)
    lastLine_ = t.loc.line;
  return t;
}

bool Parser::acceptOp(std::string_view op) {
  if (!atOp(op)) return false;
  take();
  return true;
}

bool Parser::acceptKeyword(std::string_view kw) {
  if (!atKeyword(kw)) return false;
  take();
  return true;
}

void Parser::error(SourceLoc loc, std::string message, std::string hint) {
  fail(loc, std::move(message), std::move(hint));
}

void Parser::errorExpected(std::string_view what, std::string_view context) {
  std::string message = "expected " + std::string(what);
  if (!context.empty()) message += " " + std::string(context);
  message += ", found " + tok().describe();
  error(tok().loc, std::move(message));
}

Token Parser::expectOp(std::string_view op, std::string_view context) {
  if (!atOp(op)) errorExpected("'" + std::string(op) + "'", context);
  return take();
}

Token Parser::expectKeyword(std::string_view kw, std::string_view context) {
  if (!atKeyword(kw)) errorExpected("'" + std::string(kw) + "'", context);
  return take();
}

std::string Parser::expectName(std::string_view context) {
  if (tok().kind != TokKind::Name) {
    if (tok().kind == TokKind::Keyword)
      error(tok().loc,
            "expected a name " + std::string(context) + ", found keyword " + tok().describe(),
            "keywords cannot be used as names");
    errorExpected("a name", context);
  }
  return std::string(take().text);
}

// ---------------------------------------------------------------- nodes

ExprPtr Parser::newExpr(ExprKind kind, SourceLoc loc) {
  auto e = std::make_unique<ast::Expr>();
  e->kind = kind;
  e->loc = loc;
  return e;
}

uint32_t Parser::heightOf(const ast::Expr *e) const {
  return e ? e->height : 0;
}

ExprPtr Parser::finish(ExprPtr e) {
  uint32_t h = std::max({heightOf(e->a.get()), heightOf(e->b.get()), heightOf(e->c.get())});
  for (const auto &x : e->list) h = std::max(h, heightOf(x.get()));
  for (const auto &k : e->keywords) h = std::max(h, heightOf(k.value.get()));
  ++h;
  if (h > static_cast<uint32_t>(kMaxNesting))
    error(e->loc, "expression nested too deeply",
          "split the expression into smaller pieces with intermediate variables");
  e->height = h;
  return e;
}

ExprPtr Parser::unsupported(SourceLoc loc, std::string construct) {
  ExprPtr e = newExpr(ExprKind::Unsupported, loc);
  e->str = std::move(construct);
  return e;
}

StmtPtr Parser::newStmt(StmtKind kind, SourceLoc loc) {
  auto s = std::make_unique<ast::Stmt>();
  s->kind = kind;
  s->loc = loc;
  return s;
}

// ---------------------------------------------------------------- module

ast::Module Parser::parseModule(bool strict) {
  ast::Module module;
  module.file = fileId_;
  const SourceFile &file = lexer_.file();
  uint32_t lastRestart = 0;
  for (;;) {
    bool haveStart = false;
    uint32_t startLine = 0;
    try {
      currentTopLevelDef_.clear();
      topLevelHeaderLine_ = 0;
      if (tok().kind == TokKind::Eof) break;
      startLine = tok().loc.line;
      haveStart = true;
      parseStatement(module.body);
    } catch (const CompileError &e) {
      if (strict) throw;
      if (!currentTopLevelDef_.empty()) module.brokenDefs.push_back({currentTopLevelDef_, e.diag});
      // Resume at the next line that starts in column 1 with code, outside
      // any string literal seen so far, after the statement's first line
      // (after the `def` line for a decorated def, which must not be parsed
      // and recorded twice).
      if (!haveStart) startLine = e.diag.loc.line;
      startLine = std::max(startLine, topLevelHeaderLine_);
      uint32_t lineIndex = startLine >= file.firstLine ? startLine - file.firstLine : 0;
      uint32_t restart = static_cast<uint32_t>(file.text.size());
      for (size_t i = lineIndex + 1; i < file.lineStarts.size(); ++i) {
        uint32_t offset = file.lineStarts[i];
        if (offset <= lastRestart || offset >= file.text.size()) continue;
        char c = file.text[offset];
        if (c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' || c == '#') continue;
        if (lexer_.insideMultilineString(offset)) continue;
        restart = offset;
        break;
      }
      lastRestart = restart;
      lookahead_.clear();
      lexer_.restartAt(restart);
      depth_ = 0;
      stmtDepth_ = 0;
    }
  }
  return module;
}

// ---------------------------------------------------------------- statements

void Parser::parseStatement(ast::Body &out) {
  const Token &t = tok();
  if (t.kind == TokKind::Indent)
    error(t.loc, "unexpected indent", "indent a line only to start a block (after a ':')");
  if (t.kind == TokKind::Dedent) error(t.loc, "unexpected dedent");
  if (t.kind == TokKind::Newline) {
    take();
    return;
  }
  if (t.kind == TokKind::Keyword) {
    std::string_view k = t.text;
    if (k == "if" || k == "while" || k == "for" || k == "try" || k == "with" || k == "def" ||
        k == "class" || k == "async") {
      out.push_back(parseCompoundStatement());
      return;
    }
  }
  if (t.isOp("@")) {
    out.push_back(parseDecorated());
    return;
  }
  // `match` is a soft keyword: a statement only when a subject follows.
  if (t.is(TokKind::Name, "match")) {
    TokKind next = peek(1).kind;
    if (next == TokKind::Name || next == TokKind::Int || next == TokKind::Float ||
        next == TokKind::String ||
        (next == TokKind::Keyword && !peek(1).isKeyword("in") && !peek(1).isKeyword("is") &&
         !peek(1).isKeyword("and") && !peek(1).isKeyword("or") && !peek(1).isKeyword("if"))) {
      out.push_back(parseMatch());
      return;
    }
  }
  parseSimpleStatements(out);
}

StmtPtr Parser::parseCompoundStatement() {
  std::string_view k = tok().text;
  if (k == "if") return parseIf();
  if (k == "while") return parseWhile();
  if (k == "for") return parseFor();
  if (k == "try") return parseTry();
  if (k == "with") return parseWith();
  if (k == "async") return parseAsync();
  if (k == "def") return parseFunctionDef({});
  return parseClassDef({});
}

void Parser::parseSimpleStatements(ast::Body &out) {
  for (;;) {
    out.push_back(parseSimpleStatement());
    if (!acceptOp(";")) break;
    if (tok().kind == TokKind::Newline || tok().kind == TokKind::Eof) break;
  }
  if (tok().kind == TokKind::Eof) return;
  if (tok().kind != TokKind::Newline)
    error(tok().loc, "expected end of line after statement, found " + tok().describe(),
          "put each statement on its own line or separate them with ';'");
  take();
}

ast::Body Parser::parseBlock(std::string_view owner, SourceLoc ownerLoc) {
  ast::Body body;
  DepthGuard guard(stmtDepth_, tok().loc, "too many nested blocks or 'elif' branches");
  if (tok().kind != TokKind::Newline) {
    if (tok().kind == TokKind::Eof || tok().kind == TokKind::Indent ||
        tok().kind == TokKind::Dedent)
      error(tok().loc, "expected a statement after " + std::string(owner) + " on line " +
                           std::to_string(ownerLoc.line));
    parseSimpleStatements(body);
    return body;
  }
  take();
  if (tok().kind != TokKind::Indent)
    error(tok().loc,
          "expected an indented block after " + std::string(owner) + " on line " +
              std::to_string(ownerLoc.line),
          "indent the body, or write 'pass' for an empty one");
  take();
  while (tok().kind != TokKind::Dedent && tok().kind != TokKind::Eof) parseStatement(body);
  if (tok().kind == TokKind::Dedent) take();
  return body;
}

StmtPtr Parser::parseSimpleStatement() {
  const Token &t = tok();
  SourceLoc loc = t.loc;
  if (t.kind == TokKind::Keyword) {
    std::string_view k = t.text;
    auto atEndOfStatement = [&] {
      return tok().kind == TokKind::Newline || tok().kind == TokKind::Eof || atOp(";");
    };
    if (k == "pass" || k == "break" || k == "continue") {
      take();
      return newStmt(k == "pass"    ? StmtKind::Pass
                     : k == "break" ? StmtKind::Break
                                    : StmtKind::Continue,
                     loc);
    }
    if (k == "return") {
      take();
      StmtPtr s = newStmt(StmtKind::Return, loc);
      if (!atEndOfStatement()) s->a = parseTestListStar(false);
      return s;
    }
    if (k == "raise") {
      take();
      StmtPtr s = newStmt(StmtKind::Unsupported, loc);
      s->name = "raise statement";
      if (!atEndOfStatement()) {
        s->a = parseTest();
        if (acceptKeyword("from")) s->b = parseTest();
      }
      return s;
    }
    if (k == "del") {
      take();
      StmtPtr s = newStmt(StmtKind::Unsupported, loc);
      s->name = "del statement";
      s->a = parseTargetList();
      checkAssignTarget(*s->a, "delete");
      return s;
    }
    if (k == "global" || k == "nonlocal") {
      take();
      StmtPtr s = newStmt(k == "global" ? StmtKind::Global : StmtKind::Nonlocal, loc);
      do {
        SourceLoc nameLoc = tok().loc;
        s->names.push_back({expectName("after '" + std::string(k) + "'"), "", nameLoc});
      } while (acceptOp(","));
      return s;
    }
    if (k == "import") return parseImport();
    if (k == "from") return parseFromImport();
    if (k == "assert") {
      take();
      StmtPtr s = newStmt(StmtKind::Assert, loc);
      s->a = parseTest();
      if (acceptOp(",")) s->b = parseTest();
      return s;
    }
  }
  return parseExpressionStatement();
}

namespace {

bool augmentedOp(std::string_view op, ast::BinOp &out) {
  static const std::pair<std::string_view, ast::BinOp> table[] = {
      {"+=", ast::BinOp::Add},     {"-=", ast::BinOp::Sub},       {"*=", ast::BinOp::Mul},
      {"/=", ast::BinOp::Div},     {"//=", ast::BinOp::FloorDiv}, {"%=", ast::BinOp::Mod},
      {"**=", ast::BinOp::Pow},    {"@=", ast::BinOp::MatMul},    {"<<=", ast::BinOp::LShift},
      {">>=", ast::BinOp::RShift}, {"&=", ast::BinOp::BitAnd},    {"|=", ast::BinOp::BitOr},
      {"^=", ast::BinOp::BitXor}};
  for (const auto &[spelling, binop] : table) {
    if (spelling == op) {
      out = binop;
      return true;
    }
  }
  return false;
}

const char *describeForAssignment(const ast::Expr &e) {
  switch (e.kind) {
    case ExprKind::Call:
      return "function call";
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Str:
    case ExprKind::JoinedStr:
    case ExprKind::Ellipsis:
      return "literal";
    case ExprKind::Bool:
      return e.ival ? "True" : "False";
    case ExprKind::None:
      return "None";
    case ExprKind::Compare:
      return "comparison";
    case ExprKind::IfExp:
      return "conditional expression";
    case ExprKind::BoolOp:
    case ExprKind::BinOp:
    case ExprKind::UnaryOp:
      return "expression";
    case ExprKind::Unsupported:
      return "this expression";
    default:
      return "expression";
  }
}

}  // namespace

void Parser::checkAssignTarget(const ast::Expr &e, std::string_view what) {
  switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::Attribute:
    case ExprKind::Subscript:
      return;
    case ExprKind::Starred:
      checkAssignTarget(*e.a, what);
      return;
    case ExprKind::Tuple:
    case ExprKind::List:
      for (const auto &item : e.list) checkAssignTarget(*item, what);
      return;
    default:
      error(e.loc, "cannot " + std::string(what) + " " + describeForAssignment(e),
            what == "assign to" && e.kind == ExprKind::Compare
                ? "use '==' to compare and '=' to assign"
                : "the target must be a name, an attribute, a subscript or a tuple of those");
  }
}

StmtPtr Parser::parseExpressionStatement() {
  SourceLoc loc = tok().loc;
  ExprPtr first = atKeyword("yield") ? parseYield() : parseTestListStar(false);
  if (atOp(":")) {
    take();
    if (first->kind == ExprKind::Tuple || first->kind == ExprKind::List)
      error(first->loc, "only a single target (not a tuple) can be annotated");
    checkAssignTarget(*first, "assign to");
    StmtPtr s = newStmt(StmtKind::AnnAssign, loc);
    s->b = parseTest();
    s->targets.push_back(std::move(first));
    if (acceptOp("=")) s->a = atKeyword("yield") ? parseYield() : parseTestListStar(false);
    return s;
  }
  ast::BinOp binop;
  if (tok().kind == TokKind::Op && augmentedOp(tok().text, binop)) {
    take();
    if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute &&
        first->kind != ExprKind::Subscript)
      error(first->loc,
            std::string("cannot use augmented assignment with ") +
                (first->kind == ExprKind::Tuple ? "a tuple" : describeForAssignment(*first)),
            "augmented assignment needs a single name, attribute or subscript");
    StmtPtr s = newStmt(StmtKind::AugAssign, loc);
    s->binop = binop;
    s->targets.push_back(std::move(first));
    s->a = atKeyword("yield") ? parseYield() : parseTestListStar(false);
    return s;
  }
  if (atOp("=")) {
    StmtPtr s = newStmt(StmtKind::Assign, loc);
    std::vector<ExprPtr> chain;
    chain.push_back(std::move(first));
    while (acceptOp("="))
      chain.push_back(atKeyword("yield") ? parseYield() : parseTestListStar(false));
    s->a = std::move(chain.back());
    chain.pop_back();
    for (auto &target : chain) {
      checkAssignTarget(*target, "assign to");
      s->targets.push_back(std::move(target));
    }
    return s;
  }
  StmtPtr s = newStmt(StmtKind::ExprStmt, loc);
  s->a = std::move(first);
  return s;
}

StmtPtr Parser::parseDecorated() {
  std::vector<ExprPtr> decorators;
  while (atOp("@")) {
    take();
    decorators.push_back(parseNamedTest());
    if (tok().kind != TokKind::Newline) errorExpected("end of line", "after decorator");
    take();
  }
  if (atKeyword("def")) return parseFunctionDef(std::move(decorators));
  if (atKeyword("class")) return parseClassDef(std::move(decorators));
  if (atKeyword("async") && peek(1).isKeyword("def")) return parseAsync();
  errorExpected("'def' or 'class'", "after decorator");
}

StmtPtr Parser::parseFunctionDef(std::vector<ExprPtr> decorators) {
  SourceLoc defLoc = expectKeyword("def", "").loc;
  StmtPtr s = newStmt(StmtKind::FunctionDef, defLoc);
  s->name = expectName("after 'def'");
  if (stmtDepth_ == 0 && currentTopLevelDef_.empty()) {
    currentTopLevelDef_ = s->name;
    topLevelHeaderLine_ = defLoc.line;
  }
  s->decorators = std::move(decorators);
  expectOp("(", "after the function name");
  s->params = parseParameters(")", /*annotations=*/true);
  expectOp(")", "after the parameters");
  if (acceptOp("->")) s->a = parseTest();
  expectOp(":", "after the function signature");
  s->body = parseBlock("function definition", defLoc);
  const SourceFile &file = lexer_.file();
  s->endLoc = SourceLoc{fileId_, lastLine_ + 1, 1 + file.colOffset};
  return s;
}

std::vector<ast::Param> Parser::parseParameters(std::string_view closer, bool annotations) {
  std::vector<ast::Param> params;
  bool seenStar = false, seenVarKw = false, seenDefault = false;
  auto checkDuplicate = [&](const ast::Param &p) {
    for (const auto &q : params)
      if (q.name == p.name)
        error(p.loc, "duplicate parameter '" + p.name + "' in function definition");
  };
  while (!atOp(closer)) {
    SourceLoc loc = tok().loc;
    if (seenVarKw) error(loc, "parameters cannot follow the '**' parameter");
    ast::Param p;
    p.loc = loc;
    if (acceptOp("/")) {
      if (seenStar || params.empty())
        error(loc, "'/' must come after at least one parameter and before '*'");
      if (!acceptOp(",")) break;
      continue;
    }
    if (acceptOp("*")) {
      if (seenStar) error(loc, "'*' parameter may appear only once");
      seenStar = true;
      if (atOp(",") || atOp(closer)) {
        if (!atOp(",") || peek(1).isOp(closer))
          error(loc, "named parameters must follow a bare '*'");
        take();
        continue;
      }
      p.kind = ast::Param::Kind::VarArgs;
    } else if (acceptOp("**")) {
      seenVarKw = true;
      p.kind = ast::Param::Kind::VarKw;
    } else {
      p.kind = seenStar ? ast::Param::Kind::KwOnly : ast::Param::Kind::Normal;
    }
    p.loc = tok().loc;
    p.name = expectName("for a parameter");
    checkDuplicate(p);
    if (annotations && acceptOp(":")) p.annotation = parseTest();
    if (atOp("=")) {
      if (p.kind == ast::Param::Kind::VarArgs || p.kind == ast::Param::Kind::VarKw)
        error(tok().loc, "a '*' or '**' parameter cannot have a default value");
      take();
      p.defaultValue = parseTest();
      if (p.kind == ast::Param::Kind::Normal) seenDefault = true;
    } else if (p.kind == ast::Param::Kind::Normal && seenDefault) {
      error(p.loc,
            "parameter '" + p.name + "' without a default follows a parameter with a default");
    }
    params.push_back(std::move(p));
    if (!acceptOp(",")) break;
  }
  return params;
}

StmtPtr Parser::parseClassDef(std::vector<ExprPtr> decorators) {
  SourceLoc classLoc = expectKeyword("class", "").loc;
  StmtPtr s = newStmt(StmtKind::ClassDef, classLoc);
  if (stmtDepth_ == 0) topLevelHeaderLine_ = classLoc.line;
  SourceLoc nameLoc = tok().loc;
  s->name = expectName("after 'class'");
  s->decorators = std::move(decorators);
  if (atOp("(")) {
    ExprPtr callee = newExpr(ExprKind::Name, nameLoc);
    callee->str = s->name;
    s->a = parseCall(std::move(callee));
  }
  expectOp(":", "after the class name");
  s->body = parseBlock("class definition", classLoc);
  return s;
}

StmtPtr Parser::parseIf() {
  Token keyword = take();  // 'if' or 'elif'
  std::string what(keyword.text);
  StmtPtr s = newStmt(StmtKind::If, keyword.loc);
  s->a = parseNamedTest();
  expectOp(":", "after the '" + what + "' condition");
  s->body = parseBlock("'" + what + "' statement", keyword.loc);
  if (atKeyword("elif")) {
    // The elif chain is a right-nested If; the guard keeps its height bounded.
    DepthGuard guard(stmtDepth_, tok().loc, "too many nested blocks or 'elif' branches");
    s->orelse.push_back(parseIf());
  } else if (atKeyword("else")) {
    SourceLoc elseLoc = take().loc;
    expectOp(":", "after 'else'");
    s->orelse = parseBlock("'else' clause", elseLoc);
  }
  return s;
}

StmtPtr Parser::parseWhile() {
  SourceLoc loc = take().loc;
  StmtPtr s = newStmt(StmtKind::While, loc);
  s->a = parseNamedTest();
  expectOp(":", "after the 'while' condition");
  s->body = parseBlock("'while' statement", loc);
  if (atKeyword("else")) {
    SourceLoc elseLoc = take().loc;
    expectOp(":", "after 'else'");
    s->orelse = parseBlock("'else' clause", elseLoc);
  }
  return s;
}

StmtPtr Parser::parseFor() {
  SourceLoc loc = take().loc;
  StmtPtr s = newStmt(StmtKind::For, loc);
  ExprPtr target = parseTargetList();
  checkAssignTarget(*target, "assign to");
  s->targets.push_back(std::move(target));
  expectKeyword("in", "after the 'for' target");
  s->a = parseTestListStar(false);
  expectOp(":", "after the 'for' iterable");
  s->body = parseBlock("'for' statement", loc);
  if (atKeyword("else")) {
    SourceLoc elseLoc = take().loc;
    expectOp(":", "after 'else'");
    s->orelse = parseBlock("'else' clause", elseLoc);
  }
  return s;
}

StmtPtr Parser::parseWith() {
  SourceLoc loc = take().loc;
  StmtPtr s = newStmt(StmtKind::With, loc);
  // `with (a as b, c):` groups items in parentheses; tell it from a
  // parenthesised expression by what follows the matching ')'.
  bool grouped = false;
  if (atOp("(")) {
    int depth = 0;
    bool sawAsOrComma = false;
    for (size_t k = 0;; ++k) {
      const Token &t = peek(k);
      if (t.kind == TokKind::Eof || t.kind == TokKind::Newline) break;
      if (t.isOp("(") || t.isOp("[") || t.isOp("{")) ++depth;
      if (t.isOp(")") || t.isOp("]") || t.isOp("}")) {
        if (--depth == 0) {
          grouped = sawAsOrComma && peek(k + 1).isOp(":");
          break;
        }
      }
      if (depth == 1 && (t.isKeyword("as") || t.isOp(","))) sawAsOrComma = true;
    }
  }
  if (grouped) take();
  std::vector<ExprPtr> asTargets;
  bool anyAs = false;
  SourceLoc itemsLoc = tok().loc;
  do {
    if (grouped && atOp(")")) break;  // trailing comma
    SourceLoc itemLoc = tok().loc;
    s->targets.push_back(parseTest());
    if (acceptKeyword("as")) {
      ExprPtr target = parseBinary(0);
      checkAssignTarget(*target, "assign to");
      asTargets.push_back(std::move(target));
      anyAs = true;
    } else {
      asTargets.push_back(newExpr(ExprKind::None, itemLoc));
    }
  } while (acceptOp(","));
  if (grouped) expectOp(")", "after the 'with' items");
  if (anyAs) {
    ExprPtr tuple = newExpr(ExprKind::Tuple, itemsLoc);
    tuple->list = std::move(asTargets);
    s->a = finish(std::move(tuple));
  }
  expectOp(":", "after the 'with' items");
  s->body = parseBlock("'with' statement", loc);
  return s;
}

StmtPtr Parser::parseTry() {
  SourceLoc loc = take().loc;
  StmtPtr s = newStmt(StmtKind::Unsupported, loc);
  s->name = "try statement";
  expectOp(":", "after 'try'");
  s->body = parseBlock("'try' statement", loc);
  bool handlers = false;
  while (atKeyword("except")) {
    SourceLoc exceptLoc = take().loc;
    handlers = true;
    acceptOp("*");
    if (!atOp(":")) {
      parseTest();
      if (acceptKeyword("as")) expectName("after 'as'");
    }
    expectOp(":", "after the 'except' clause");
    parseBlock("'except' clause", exceptLoc);
  }
  if (handlers && atKeyword("else")) {
    SourceLoc elseLoc = take().loc;
    expectOp(":", "after 'else'");
    parseBlock("'else' clause", elseLoc);
  }
  if (atKeyword("finally")) {
    SourceLoc finallyLoc = take().loc;
    expectOp(":", "after 'finally'");
    parseBlock("'finally' clause", finallyLoc);
  } else if (!handlers) {
    errorExpected("'except' or 'finally'", "after the 'try' block");
  }
  return s;
}

StmtPtr Parser::parseMatch() {
  SourceLoc loc = take().loc;
  StmtPtr s = newStmt(StmtKind::Unsupported, loc);
  s->name = "match statement";
  s->a = parseTestListStar(false);
  expectOp(":", "after the 'match' subject");
  if (tok().kind != TokKind::Newline) errorExpected("end of line", "after 'match ...:'");
  take();
  if (tok().kind != TokKind::Indent)
    error(tok().loc,
          "expected an indented block after 'match' statement on line " + std::to_string(loc.line));
  take();
  DepthGuard guard(stmtDepth_, loc, "too many nested blocks or 'elif' branches");
  do {
    if (!tok().is(TokKind::Name, "case")) errorExpected("'case'", "in 'match' statement");
    SourceLoc caseLoc = take().loc;
    // Patterns are not part of the kernel language: skip them, keeping
    // brackets balanced, up to the ':' that opens the case body.
    int depth = 0;
    while (!(depth == 0 && atOp(":"))) {
      const Token &t = tok();
      if (t.kind == TokKind::Newline || t.kind == TokKind::Eof)
        errorExpected("':'", "after the 'case' pattern");
      if (t.isOp("(") || t.isOp("[") || t.isOp("{")) ++depth;
      if (t.isOp(")") || t.isOp("]") || t.isOp("}")) --depth;
      take();
    }
    take();
    parseBlock("'case' clause", caseLoc);
  } while (tok().kind != TokKind::Dedent && tok().kind != TokKind::Eof);
  if (tok().kind == TokKind::Dedent) take();
  return s;
}

StmtPtr Parser::parseAsync() {
  SourceLoc loc = take().loc;
  StmtPtr inner;
  std::string what;
  if (atKeyword("def")) {
    inner = parseFunctionDef({});
    what = "async function";
  } else if (atKeyword("for")) {
    inner = parseFor();
    what = "async for statement";
  } else if (atKeyword("with")) {
    inner = parseWith();
    what = "async with statement";
  } else {
    errorExpected("'def', 'for' or 'with'", "after 'async'");
  }
  StmtPtr s = newStmt(StmtKind::Unsupported, loc);
  s->name = std::move(what);
  s->body = std::move(inner->body);
  return s;
}

std::string Parser::parseDottedName(std::string_view context) {
  std::string name = expectName(context);
  while (acceptOp(".")) name += "." + expectName("after '.'");
  return name;
}

StmtPtr Parser::parseImport() {
  SourceLoc loc = take().loc;
  StmtPtr s = newStmt(StmtKind::Import, loc);
  do {
    ast::ImportName n;
    n.loc = tok().loc;
    n.name = parseDottedName("after 'import'");
    if (acceptKeyword("as")) n.asname = expectName("after 'as'");
    s->names.push_back(std::move(n));
  } while (acceptOp(","));
  return s;
}

StmtPtr Parser::parseFromImport() {
  SourceLoc loc = take().loc;
  StmtPtr s = newStmt(StmtKind::ImportFrom, loc);
  for (;;) {
    if (acceptOp(".")) {
      ++s->importLevel;
    } else if (acceptOp("...")) {
      s->importLevel += 3;
    } else {
      break;
    }
  }
  if (!atKeyword("import")) s->name = parseDottedName("after 'from'");
  expectKeyword("import", "after the module name");
  if (atOp("*")) {
    s->names.push_back({"*", "", take().loc});
    return s;
  }
  bool parenthesized = acceptOp("(");
  do {
    if (parenthesized && atOp(")")) break;
    ast::ImportName n;
    n.loc = tok().loc;
    n.name = expectName("in the import list");
    if (acceptKeyword("as")) n.asname = expectName("after 'as'");
    s->names.push_back(std::move(n));
  } while (acceptOp(","));
  if (parenthesized) expectOp(")", "after the import list");
  if (s->names.empty()) errorExpected("a name", "in the import list");
  return s;
}

}  // namespace detail
}  // namespace tessera::frontend
