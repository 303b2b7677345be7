// Python parser: expressions, by precedence from the loosest (lambda,
// ternary) to the tightest (atoms). Every recursion that input can drive
// arbitrarily deep (brackets, unary operators, `not`, ternary else-chains,
// `**`, lambda bodies) holds a DepthGuard, and every composite node passes
// through finish(), which bounds the height of left-leaning chains.
#include <algorithm>

#include "frontend/parser.h"
#include "support/diagnostics.h"

namespace tessera::frontend::detail {

using ast::ExprKind;
using ast::ExprPtr;

namespace {

constexpr const char *kTooDeep = "expression nested too deeply";

bool startsExpression(const Token &t) {
  switch (t.kind) {
    case TokKind::Name:
    case TokKind::Int:
    case TokKind::Float:
    case TokKind::Imaginary:
    case TokKind::String:
      return true;
    case TokKind::Keyword:
      return t.text == "None" || t.text == "True" || t.text == "False" || t.text == "not" ||
             t.text == "lambda" || t.text == "await";
    case TokKind::Op:
      return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" ||
             t.text == "~" || t.text == "*" || t.text == "...";
    default:
      return false;
  }
}

struct BinaryLevel {
  std::string_view spellings[5];
  ast::BinOp ops[5];
};

// Binary operator levels, loosest first; level 5's operands are factors.
const BinaryLevel kBinaryLevels[] = {
    {{"|"}, {ast::BinOp::BitOr}},
    {{"^"}, {ast::BinOp::BitXor}},
    {{"&"}, {ast::BinOp::BitAnd}},
    {{"<<", ">>"}, {ast::BinOp::LShift, ast::BinOp::RShift}},
    {{"+", "-"}, {ast::BinOp::Add, ast::BinOp::Sub}},
    {{"*", "/", "//", "%", "@"},
     {ast::BinOp::Mul, ast::BinOp::Div, ast::BinOp::FloorDiv, ast::BinOp::Mod, ast::BinOp::MatMul}},
};
constexpr int kTightestBinaryLevel = 5;

}  // namespace

ExprPtr Parser::parseTestListStar(bool allowYield) {
  if (allowYield && atKeyword("yield")) return parseYield();
  SourceLoc loc = tok().loc;
  auto item = [&]() -> ExprPtr {
    if (!atOp("*")) return parseTest();
    SourceLoc starLoc = take().loc;
    ExprPtr e = newExpr(ExprKind::Starred, starLoc);
    e->a = parseBinary(0);
    return finish(std::move(e));
  };
  ExprPtr first = item();
  if (!atOp(",")) return first;
  ExprPtr tuple = newExpr(ExprKind::Tuple, loc);
  tuple->list.push_back(std::move(first));
  while (acceptOp(",")) {
    if (!startsExpression(tok())) break;
    tuple->list.push_back(item());
  }
  return finish(std::move(tuple));
}

ExprPtr Parser::parseNamedTest() {
  if (tok().kind == TokKind::Name && peek(1).isOp(":=")) {
    ExprPtr e = newExpr(ExprKind::NamedExpr, tok().loc);
    e->str = take().text;
    take();
    e->a = parseTest();
    return finish(std::move(e));
  }
  return parseTest();
}

ExprPtr Parser::parseTest() {
  if (atKeyword("lambda")) return parseLambda();
  ExprPtr body = parseOrTest();
  if (!atKeyword("if")) return body;
  take();
  DepthGuard guard(depth_, body->loc, kTooDeep);
  ExprPtr e = newExpr(ExprKind::IfExp, body->loc);
  e->a = parseOrTest();
  expectKeyword("else", "in the conditional expression");
  e->c = parseTest();
  e->b = std::move(body);
  return finish(std::move(e));
}

ExprPtr Parser::parseTestNoCond() {
  if (atKeyword("lambda")) return parseLambda();
  return parseOrTest();
}

ExprPtr Parser::parseLambda() {
  SourceLoc loc = take().loc;
  DepthGuard guard(depth_, loc, kTooDeep);
  parseParameters(":", /*annotations=*/false);
  expectOp(":", "after the lambda parameters");
  parseTest();
  return unsupported(loc, "lambda");
}

ExprPtr Parser::parseOrTest() {
  ExprPtr first = parseAndTest();
  if (!atKeyword("or")) return first;
  ExprPtr e = newExpr(ExprKind::BoolOp, first->loc);
  e->boolop = ast::BoolOp::Or;
  e->list.push_back(std::move(first));
  while (acceptKeyword("or")) e->list.push_back(parseAndTest());
  return finish(std::move(e));
}

ExprPtr Parser::parseAndTest() {
  ExprPtr first = parseNotTest();
  if (!atKeyword("and")) return first;
  ExprPtr e = newExpr(ExprKind::BoolOp, first->loc);
  e->boolop = ast::BoolOp::And;
  e->list.push_back(std::move(first));
  while (acceptKeyword("and")) e->list.push_back(parseNotTest());
  return finish(std::move(e));
}

ExprPtr Parser::parseNotTest() {
  if (!atKeyword("not")) return parseComparison();
  SourceLoc loc = take().loc;
  DepthGuard guard(depth_, loc, kTooDeep);
  ExprPtr e = newExpr(ExprKind::UnaryOp, loc);
  e->unop = ast::UnaryOp::Not;
  e->a = parseNotTest();
  return finish(std::move(e));
}

ExprPtr Parser::parseComparison() {
  ExprPtr first = parseBinary(0);
  ExprPtr compare;
  for (;;) {
    const Token &t = tok();
    ast::CmpOp op;
    if (t.isOp("<")) {
      op = ast::CmpOp::Lt;
    } else if (t.isOp(">")) {
      op = ast::CmpOp::Gt;
    } else if (t.isOp("==")) {
      op = ast::CmpOp::Eq;
    } else if (t.isOp(">=")) {
      op = ast::CmpOp::GtE;
    } else if (t.isOp("<=")) {
      op = ast::CmpOp::LtE;
    } else if (t.isOp("!=")) {
      op = ast::CmpOp::NotEq;
    } else if (t.isKeyword("in")) {
      op = ast::CmpOp::In;
    } else if (t.isKeyword("not") && peek(1).isKeyword("in")) {
      take();
      op = ast::CmpOp::NotIn;
    } else if (t.isKeyword("is")) {
      op = peek(1).isKeyword("not") ? ast::CmpOp::IsNot : ast::CmpOp::Is;
      if (op == ast::CmpOp::IsNot) take();
    } else {
      break;
    }
    take();
    if (!compare) {
      compare = newExpr(ExprKind::Compare, first->loc);
      compare->a = std::move(first);
    }
    compare->cmpops.push_back(op);
    compare->list.push_back(parseBinary(0));
  }
  return compare ? finish(std::move(compare)) : std::move(first);
}

ExprPtr Parser::parseBinary(int level) {
  auto operand = [&] {
    return level == kTightestBinaryLevel ? parseFactor() : parseBinary(level + 1);
  };
  ExprPtr lhs = operand();
  const BinaryLevel &ops = kBinaryLevels[level];
  for (;;) {
    const Token &t = tok();
    if (t.kind != TokKind::Op) break;
    int match = -1;
    for (int i = 0; i < 5 && !ops.spellings[i].empty(); ++i)
      if (t.text == ops.spellings[i]) match = i;
    if (match < 0) break;
    take();
    ExprPtr e = newExpr(ExprKind::BinOp, lhs->loc);
    e->binop = ops.ops[match];
    e->a = std::move(lhs);
    e->b = operand();
    lhs = finish(std::move(e));
  }
  return lhs;
}

ExprPtr Parser::parseFactor() {
  const Token &t = tok();
  if (t.kind != TokKind::Op || (t.text != "-" && t.text != "+" && t.text != "~"))
    return parsePower();
  ast::UnaryOp op = t.text == "-"   ? ast::UnaryOp::Neg
                    : t.text == "+" ? ast::UnaryOp::Pos
                                    : ast::UnaryOp::Invert;
  SourceLoc loc = take().loc;
  DepthGuard guard(depth_, loc, kTooDeep);
  ExprPtr e = newExpr(ExprKind::UnaryOp, loc);
  e->unop = op;
  e->a = parseFactor();
  return finish(std::move(e));
}

ExprPtr Parser::parsePower() {
  ExprPtr base;
  if (atKeyword("await")) {
    SourceLoc loc = take().loc;
    DepthGuard guard(depth_, loc, kTooDeep);
    parsePrimary();
    base = unsupported(loc, "await expression");
  } else {
    base = parsePrimary();
  }
  if (!atOp("**")) return base;
  take();
  DepthGuard guard(depth_, base->loc, kTooDeep);
  ExprPtr e = newExpr(ExprKind::BinOp, base->loc);
  e->binop = ast::BinOp::Pow;
  e->a = std::move(base);
  e->b = parseFactor();
  return finish(std::move(e));
}

ExprPtr Parser::parsePrimary() {
  ExprPtr value = parseAtom();
  for (;;) {
    if (atOp(".")) {
      take();
      ExprPtr e = newExpr(ExprKind::Attribute, value->loc);
      e->str = expectName("after '.'");
      e->a = std::move(value);
      value = finish(std::move(e));
    } else if (atOp("(")) {
      value = parseCall(std::move(value));
    } else if (atOp("[")) {
      value = parseSubscript(std::move(value));
    } else {
      return value;
    }
  }
}

ExprPtr Parser::parseCall(ExprPtr callee) {
  SourceLoc openLoc = take().loc;
  DepthGuard guard(depth_, openLoc, kTooDeep);
  ExprPtr call = newExpr(ExprKind::Call, callee->loc);
  call->a = std::move(callee);
  bool sawKeyword = false, sawKwargs = false;
  while (!atOp(")")) {
    SourceLoc argLoc = tok().loc;
    if (acceptOp("**")) {
      call->keywords.push_back({"", parseTest(), argLoc});
      sawKwargs = true;
    } else if (atOp("*")) {
      take();
      if (sawKwargs)
        error(argLoc, "iterable argument unpacking follows keyword argument unpacking");
      ExprPtr star = newExpr(ExprKind::Starred, argLoc);
      star->a = parseTest();
      call->list.push_back(finish(std::move(star)));
    } else if (tok().kind == TokKind::Name && peek(1).isOp("=")) {
      std::string name(take().text);
      take();
      for (const auto &k : call->keywords)
        if (k.name == name) error(argLoc, "keyword argument repeated: " + name);
      call->keywords.push_back({name, parseTest(), argLoc});
      sawKeyword = true;
    } else {
      if (sawKeyword || sawKwargs)
        error(argLoc,
              sawKwargs ? "positional argument follows keyword argument unpacking"
                        : "positional argument follows keyword argument",
              "put positional arguments before keyword arguments");
      ExprPtr arg = parseNamedTest();
      if (atKeyword("for") || (atKeyword("async") && peek(1).isKeyword("for"))) {
        parseComprehensionClauses();
        arg = unsupported(argLoc, "generator expression");
      }
      if (atOp("="))
        error(tok().loc, "expression cannot contain assignment, perhaps you meant \"==\"?",
              "a keyword argument must be a plain name before '='");
      call->list.push_back(std::move(arg));
    }
    if (!acceptOp(",")) break;
  }
  if (!atOp(")")) errorExpected("',' or ')'", "in the call arguments");
  take();
  return finish(std::move(call));
}

ExprPtr Parser::parseSubscript(ExprPtr value) {
  SourceLoc openLoc = take().loc;
  DepthGuard guard(depth_, openLoc, kTooDeep);
  ExprPtr e = newExpr(ExprKind::Subscript, value->loc);
  e->a = std::move(value);
  ExprPtr index = parseSliceItem();
  if (atOp(",")) {
    ExprPtr tuple = newExpr(ExprKind::Tuple, index->loc);
    tuple->list.push_back(std::move(index));
    while (acceptOp(",")) {
      if (atOp("]")) break;
      tuple->list.push_back(parseSliceItem());
    }
    index = finish(std::move(tuple));
  }
  if (!atOp("]")) errorExpected("',' or ']'", "in the subscript");
  take();
  e->b = std::move(index);
  return finish(std::move(e));
}

ExprPtr Parser::parseSliceItem() {
  SourceLoc loc = tok().loc;
  ExprPtr lower;
  if (atOp("*")) {
    take();
    ExprPtr star = newExpr(ExprKind::Starred, loc);
    star->a = parseBinary(0);
    return finish(std::move(star));
  }
  if (!atOp(":")) {
    lower = parseNamedTest();
    if (!atOp(":")) return lower;
  }
  take();
  ExprPtr slice = newExpr(ExprKind::Slice, loc);
  slice->a = std::move(lower);
  if (!atOp(":") && !atOp(",") && !atOp("]")) slice->b = parseTest();
  if (acceptOp(":") && !atOp(",") && !atOp("]")) slice->c = parseTest();
  return finish(std::move(slice));
}

ExprPtr Parser::parseAtom() {
  const Token &t = tok();
  SourceLoc loc = t.loc;
  switch (t.kind) {
    case TokKind::Name: {
      ExprPtr e = newExpr(ExprKind::Name, loc);
      e->str = std::string(take().text);
      return e;
    }
    case TokKind::Int: {
      ExprPtr e = newExpr(ExprKind::Int, loc);
      e->ival = take().intValue;
      return e;
    }
    case TokKind::Float: {
      ExprPtr e = newExpr(ExprKind::Float, loc);
      e->fval = take().floatValue;
      return e;
    }
    case TokKind::Imaginary:
      take();
      return unsupported(loc, "complex literal");
    case TokKind::String:
      return parseStrings();
    case TokKind::Keyword:
      if (t.text == "None") {
        take();
        return newExpr(ExprKind::None, loc);
      }
      if (t.text == "True" || t.text == "False") {
        ExprPtr e = newExpr(ExprKind::Bool, loc);
        e->ival = take().text == "True";
        return e;
      }
      break;
    case TokKind::Op:
      if (t.text == "(") return parseParenthesized();
      if (t.text == "[") return parseListDisplay();
      if (t.text == "{") return parseBraceDisplay();
      if (t.text == "...") {
        take();
        return newExpr(ExprKind::Ellipsis, loc);
      }
      break;
    default:
      break;
  }
  errorExpected("an expression", "");
}

ExprPtr Parser::parseStarOrNamed() {
  if (!atOp("*")) return parseNamedTest();
  SourceLoc loc = take().loc;
  ExprPtr e = newExpr(ExprKind::Starred, loc);
  e->a = parseBinary(0);
  return finish(std::move(e));
}

ExprPtr Parser::parseTargetList() {
  SourceLoc loc = tok().loc;
  auto item = [&]() -> ExprPtr {
    if (!atOp("*")) return parseBinary(0);
    SourceLoc starLoc = take().loc;
    ExprPtr e = newExpr(ExprKind::Starred, starLoc);
    e->a = parseBinary(0);
    return finish(std::move(e));
  };
  ExprPtr first = item();
  if (!atOp(",")) return first;
  ExprPtr tuple = newExpr(ExprKind::Tuple, loc);
  tuple->list.push_back(std::move(first));
  while (acceptOp(",")) {
    if (!startsExpression(tok())) break;
    tuple->list.push_back(item());
  }
  return finish(std::move(tuple));
}

ExprPtr Parser::parseYield() {
  SourceLoc loc = take().loc;
  if (acceptKeyword("from")) {
    parseTest();
  } else if (startsExpression(tok())) {
    parseTestListStar(false);
  }
  return unsupported(loc, "yield expression");
}

ExprPtr Parser::parseParenthesized() {
  SourceLoc loc = take().loc;
  DepthGuard guard(depth_, loc, kTooDeep);
  if (acceptOp(")")) return finish(newExpr(ExprKind::Tuple, loc));
  if (atKeyword("yield")) {
    ExprPtr y = parseYield();
    expectOp(")", "after the yield expression");
    return y;
  }
  ExprPtr first = parseStarOrNamed();
  if (atKeyword("for") || (atKeyword("async") && peek(1).isKeyword("for"))) {
    parseComprehensionClauses();
    expectOp(")", "after the generator expression");
    return unsupported(loc, "generator expression");
  }
  if (acceptOp(")")) return first;
  ExprPtr tuple = newExpr(ExprKind::Tuple, loc);
  tuple->list.push_back(std::move(first));
  while (acceptOp(",")) {
    if (atOp(")")) break;
    tuple->list.push_back(parseStarOrNamed());
  }
  if (!atOp(")")) errorExpected("',' or ')'", "in the parenthesized expression");
  take();
  return finish(std::move(tuple));
}

ExprPtr Parser::parseListDisplay() {
  SourceLoc loc = take().loc;
  DepthGuard guard(depth_, loc, kTooDeep);
  ExprPtr list = newExpr(ExprKind::List, loc);
  if (acceptOp("]")) return finish(std::move(list));
  list->list.push_back(parseStarOrNamed());
  if (atKeyword("for") || (atKeyword("async") && peek(1).isKeyword("for"))) {
    // Evaluated at compile time into a tuple (Lowerer::listComprehension).
    ExprPtr comp = newExpr(ExprKind::ListComp, loc);
    comp->a = std::move(list->list[0]);
    comp->list = parseComprehensionClauses();
    expectOp("]", "after the list comprehension");
    return finish(std::move(comp));
  }
  while (acceptOp(",")) {
    if (atOp("]")) break;
    list->list.push_back(parseStarOrNamed());
  }
  if (!atOp("]")) errorExpected("',' or ']'", "in the list display");
  take();
  return finish(std::move(list));
}

ExprPtr Parser::parseBraceDisplay() {
  SourceLoc loc = take().loc;
  DepthGuard guard(depth_, loc, kTooDeep);
  if (acceptOp("}")) return unsupported(loc, "dict display");
  bool isDict;
  auto dictItem = [&] {
    if (acceptOp("**")) {
      parseBinary(0);
      return;
    }
    parseTest();
    expectOp(":", "after the dict key");
    parseTest();
  };
  if (acceptOp("**")) {
    parseBinary(0);
    isDict = true;
  } else {
    parseStarOrNamed();
    isDict = acceptOp(":");
    if (isDict) parseTest();
  }
  if (atKeyword("for") || (atKeyword("async") && peek(1).isKeyword("for"))) {
    parseComprehensionClauses();
    expectOp("}", "after the comprehension");
    return unsupported(loc, isDict ? "dict comprehension" : "set comprehension");
  }
  while (acceptOp(",")) {
    if (atOp("}")) break;
    if (isDict) {
      dictItem();
    } else {
      parseStarOrNamed();
    }
  }
  if (!atOp("}"))
    errorExpected("',' or '}'", isDict ? "in the dict display" : "in the set display");
  take();
  return unsupported(loc, isDict ? "dict display" : "set display");
}

std::vector<ExprPtr> Parser::parseComprehensionClauses() {
  std::vector<ExprPtr> clauses;
  while (atKeyword("for") || (atKeyword("async") && peek(1).isKeyword("for"))) {
    SourceLoc loc = peek(0).loc;
    if (acceptKeyword("async")) error(loc, "async comprehensions are not supported in kernels");
    take();
    ExprPtr clause = newExpr(ExprKind::CompFor, loc);
    clause->a = parseTargetList();
    checkAssignTarget(*clause->a, "assign to");
    expectKeyword("in", "after the comprehension target");
    clause->b = parseOrTest();
    while (acceptKeyword("if")) clause->list.push_back(parseTestNoCond());
    clauses.push_back(finish(std::move(clause)));
  }
  return clauses;
}

}  // namespace tessera::frontend::detail
