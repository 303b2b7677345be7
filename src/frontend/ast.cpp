#include "frontend/ast.h"

namespace tessera::ast {

const char *spelling(BinOp op) {
  switch (op) {
    case BinOp::Add:
      return "+";
    case BinOp::Sub:
      return "-";
    case BinOp::Mul:
      return "*";
    case BinOp::Div:
      return "/";
    case BinOp::FloorDiv:
      return "//";
    case BinOp::Mod:
      return "%";
    case BinOp::Pow:
      return "**";
    case BinOp::MatMul:
      return "@";
    case BinOp::LShift:
      return "<<";
    case BinOp::RShift:
      return ">>";
    case BinOp::BitAnd:
      return "&";
    case BinOp::BitOr:
      return "|";
    case BinOp::BitXor:
      return "^";
  }
  return "?";
}

const char *spelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
      return "-";
    case UnaryOp::Pos:
      return "+";
    case UnaryOp::Invert:
      return "~";
    case UnaryOp::Not:
      return "not";
  }
  return "?";
}

const char *spelling(CmpOp op) {
  switch (op) {
    case CmpOp::Eq:
      return "==";
    case CmpOp::NotEq:
      return "!=";
    case CmpOp::Lt:
      return "<";
    case CmpOp::LtE:
      return "<=";
    case CmpOp::Gt:
      return ">";
    case CmpOp::GtE:
      return ">=";
    case CmpOp::Is:
      return "is";
    case CmpOp::IsNot:
      return "is not";
    case CmpOp::In:
      return "in";
    case CmpOp::NotIn:
      return "not in";
  }
  return "?";
}

}  // namespace tessera::ast
