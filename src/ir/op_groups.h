// Named groups of ops, for switches that treat a group alike (tinygrad's
// GroupOp). A group is a run of case labels written as one label,
//
//   switch (op.code) {
//     TESSERA_UNARY_MATH_CASES:
//       return unary(op);
//
// so a switch keeps its exhaustiveness (no `default:`) without copying the
// list: an op joins a group here, once, and every switch over the group
// handles it.
#pragma once

// Integer bit operations: and, or, xor and the shifts.
#define TESSERA_BITWISE_CASES \
  case OpCode::And:           \
  case OpCode::Or:            \
  case OpCode::Xor:           \
  case OpCode::Shl:           \
  case OpCode::Shr

// Two operands of one type, one result of that type: arithmetic, the
// bitwise ops, max/min and umulhi (cmp, whose result is i1, is not here).
#define TESSERA_BINARY_CASES \
  case OpCode::Add:          \
  case OpCode::Sub:          \
  case OpCode::Mul:          \
  case OpCode::Div:          \
  case OpCode::Rem:          \
  TESSERA_BITWISE_CASES:     \
  case OpCode::Max:          \
  case OpCode::Min:          \
  case OpCode::Umulhi

// One float operand, one result of its type: tl.exp ... tl.ceil (sqrt also
// takes {precise}).
#define TESSERA_UNARY_MATH_CASES \
  case OpCode::Exp:              \
  case OpCode::Exp2:             \
  case OpCode::Log:              \
  case OpCode::Log2:             \
  case OpCode::Sqrt:             \
  case OpCode::Rsqrt:            \
  case OpCode::Sin:              \
  case OpCode::Cos:              \
  case OpCode::Erf:              \
  case OpCode::Floor:            \
  case OpCode::Ceil
