// The Tile IR printer: the textual form that ir_parser.h reads back.
//
// Contract: printing is a pure function of the IR, and for every module m,
// printModule(*parseIR(printModule(m))) == printModule(m) (with or without
// locations). The format is generic: it is driven by ops.def, so a new op
// needs no change here or in the parser.
//
// Grammar (`//` starts a comment that runs to the end of the line):
//
//   module     ::= function*
//   function   ::= 'func' '@' symbol '(' (param (',' param)*)? ')'
//                  ('->' type (',' type)*)? location? '{' op* '}'
//   param      ::= value-def ':' type ('{' param-attr (',' param-attr)* '}')?
//   param-attr ::= 'divisibility' '=' int | 'equal_to_one' '=' int
//                  (printed only when not the default 1 / 0)
//   op         ::= (result-def '=')? mnemonic (value-use (',' value-use)*)?
//                  attr-dict? (':' type (',' type)*)? region* location?
//   result-def ::= '%' name (':' int)?          // `%6:2`: a group of two results
//   value-use  ::= '%' name ('#' int)?          // `%6#1`: the group's second result
//   value-def  ::= '%' name
//   name       ::= [A-Za-z_][A-Za-z0-9_]* | [0-9]+
//   region     ::= '{' ('^' '(' (value-def ':' type (',' ...)*)? ')' ':')? op* '}'
//   attr-dict  ::= '{' key '=' attr (',' key '=' attr)* '}'   // sorted by key
//   key        ::= identifier | string
//   attr       ::= int                           // 42, -1 (true/false read as 1/0)
//                | float                         // 1.0, 2.5e-08, inf, -inf, nan,
//                                                // nan(0x7ff0000000000001) for a NaN
//                                                // with another bit pattern
//                | string                        // "a\"b", escapes \\ \" \n \t \xHH
//                | '[' (int (',' int)*)? ']'     // int list
//                | 'type' '<' type '>'
//   type       ::= dtype                         // i1 i8 i16 i32 i64 u8..u64 f8e4nv
//                                                // f8e5 f16 bf16 f32 f64
//                | 'ptr' '<' dtype (',' int)? '>'               // address space
//                | 'tile' '<' (int 'x')* (dtype | ptr-type) (',' layout)? '>'
//                | 'memdesc' '<' (int 'x')* dtype (',' layout)? '>'
//   layout     ::= '#' [A-Za-z0-9_.$-]+ | '#' string
//   location   ::= 'loc' '(' string ':' int ':' int ')'    // file, line, column
//   symbol     ::= identifier | string
//
// Result types follow ':'; operand types are not printed (the definitions
// carry them). The mnemonic's arity comes from the number of value uses and
// types, so it is not needed from ops.def while parsing.
//
// Value names: a value prints as its nameHint when that is an identifier
// used by no other value of the function, else as a number; numbers count up
// in print order from 0 within each function.
#pragma once

#include <string>

#include "ir/ir.h"
#include "support/source.h"

namespace tessera {

struct PrintOptions {
  bool locations = false;             // append ` loc("file":line:col)` to ops and functions
  const SourceManager *sm = nullptr;  // names the files of locations; needed for `locations`
};

std::string printModule(const Module &m, const PrintOptions &opts = {});
std::string printFunction(const Function &f, const PrintOptions &opts = {});
// One op (with its regions), named consistently with printFunction of the
// function that holds it; no trailing newline.
std::string printOp(const Operation &op, const PrintOptions &opts = {});
// A type as the IR text spells it (as Type::str(), but a layout name that is
// not a plain identifier is quoted so that it parses back).
std::string printType(const Type &t);
// An attribute value as the IR text spells it.
std::string printAttr(const Attr &a);

}  // namespace tessera
