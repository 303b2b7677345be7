// The AST of the Python subset kernels are written in. Nodes are plain tagged
// structs (one for expressions, one for statements); every node carries the
// location of its first character. The parser accepts Python's statement and
// expression grammar broadly (so host code around kernels in a .py file
// parses); sema decides what the kernel language supports and reports the
// rest with the construct's name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "support/source.h"

namespace tessera::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

enum class BinOp {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  MatMul,
  LShift,
  RShift,
  BitAnd,
  BitOr,
  BitXor
};
enum class UnaryOp { Neg, Pos, Invert, Not };
enum class CmpOp { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };
enum class BoolOp { And, Or };

const char *spelling(BinOp op);    // "+", "//", ...
const char *spelling(UnaryOp op);  // "-", "~", "not", ...
const char *spelling(CmpOp op);    // "==", "is not", ...

enum class ExprKind {
  Name,   // str = identifier
  Int,    // ival (a literal that does not fit in uint64 is a parse error)
  Float,  // fval
  Str,    // str = decoded value (adjacent literals concatenated)
  Bool,   // ival = 0 / 1
  None,
  Ellipsis,
  Attribute,       // a.str            (a = object)
  Subscript,       // a[b]             (b = index; a Tuple for x[:, None])
  Slice,           // a:b:c            (each may be null)
  Tuple,           // list             (also the implicit tuple `a, b`)
  List,            // list
  Call,            // a(list..., keywords...)
  BinOp,           // a binop b
  UnaryOp,         // unop a
  BoolOp,          // list joined by boolop (2 or more)
  Compare,         // a cmpops[0] list[0] cmpops[1] list[1] ...
  IfExp,           // b if a else c    (a = test, b = body, c = orelse)
  JoinedStr,       // f-string: list of Str and FormattedValue parts
  FormattedValue,  // {a!conv:spec}    (str = format spec text, ival = conversion char or 0)
  Starred,         // *a
  ListComp,        // [a for ...]      (list = CompFor clauses, outermost first)
  CompFor,         // for a in b if list[0] if list[1] ...  (a clause of a ListComp)
  NamedExpr,       // str := a         (the walrus operator)
  Unsupported,     // str = construct name ("lambda", "list comprehension", "dict", ...)
};

struct Keyword {
  std::string name;  // empty for **kwargs
  ExprPtr value;
  SourceLoc loc;
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  std::string str;
  uint64_t ival = 0;
  double fval = 0;
  ExprPtr a, b, c;
  std::vector<ExprPtr> list;
  std::vector<Keyword> keywords;  // Call
  BinOp binop = BinOp::Add;
  UnaryOp unop = UnaryOp::Neg;
  BoolOp boolop = BoolOp::And;
  std::vector<CmpOp> cmpops;
  // Levels of nodes below and including this one, kept by the parser to
  // refuse expressions nested too deeply (Parser::finish). In the node: a
  // side table of every node's height cost a hash probe per node.
  uint32_t height = 1;
};

struct Param {
  std::string name;
  ExprPtr annotation;    // may be null
  ExprPtr defaultValue;  // may be null
  SourceLoc loc;
  enum class Kind { Normal, VarArgs, KwOnly, VarKw } kind = Kind::Normal;
};

enum class StmtKind {
  FunctionDef,  // name, params, body, decorators, returns (a)
  Return,       // a (may be null)
  Assign,       // targets = a; targets[0] = targets[1] = ... = a
  AugAssign,    // target (targets[0]) binop= a
  AnnAssign,    // targets[0] : annotation (b) [= a]
  For,          // for targets[0] in a: body else: orelse
  While,        // while a: body else: orelse
  If,           // if a: body else: orelse (elif is a nested If in orelse)
  ExprStmt,     // a
  Pass,
  Break,
  Continue,
  Assert,       // assert a, b
  Import,       // names: (name = dotted module, asname)
  ImportFrom,   // module from `module`, names: (name, asname)
  Global,       // names (name only)
  Nonlocal,     // names
  ClassDef,     // name, body, decorators (parsed so host code is tolerated)
  With,         // with items (targets[i] = context expr, exprs... ) : body
  Unsupported,  // str = construct name ("try", "raise", "del", "yield", ...)
};

struct ImportName {
  std::string name;
  std::string asname;  // empty when none
  SourceLoc loc;
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  std::string name;  // FunctionDef / ClassDef name; ImportFrom module; Unsupported construct
  std::vector<Param> params;        // FunctionDef
  std::vector<ExprPtr> decorators;  // FunctionDef / ClassDef
  std::vector<ExprPtr> targets;     // Assign / AugAssign / AnnAssign / For / With
  ExprPtr a, b;
  BinOp binop = BinOp::Add;  // AugAssign
  Body body, orelse;
  std::vector<ImportName> names;  // Import / ImportFrom / Global / Nonlocal
  int importLevel = 0;            // ImportFrom: number of leading dots
  SourceLoc endLoc;               // FunctionDef: location after its last line
};

// A parsed .py file. Top-level statements that are not valid Python are
// skipped (host code is not ours to judge) and remembered in `skipped`;
// a def whose body fails to parse is kept with its diagnostic so that using it
// as a kernel reports the error.
struct Module {
  uint32_t file = 0;
  Body body;
  struct BrokenDef {
    std::string name;
    Diagnostic diag;
  };
  std::vector<BrokenDef> brokenDefs;
};

// Compact S-expression dumps, for tests and debugging (ast_dump.cpp), e.g.
// `(= x (+ a (* b 2)))`; a Module dumps one top-level statement per line.
std::string dump(const Expr &e);
std::string dump(const Stmt &s);
std::string dump(const Module &m);

}  // namespace tessera::ast
