// Helpers for building small Tile IR functions in pass tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <vector>

#include "ir/ir.h"
#include "passes/pass_utils.h"

namespace tessera::testing {

inline Type S(DType d) {
  return Type::scalar(d);
}
inline Type T(std::vector<int64_t> shape, DType d) {
  return Type::tile(std::move(shape), S(d));
}
inline Type P(DType d) {
  return Type::ptr(d);
}
inline Type TP(std::vector<int64_t> shape, DType d) {
  return Type::tile(std::move(shape), P(d));
}

// A module with one function whose parameters have the given types; the
// builder appends to its body. finish() adds `return` of the given values.
struct Fn {
  Module m;
  Function *fn;
  Builder b;

  explicit Fn(std::vector<Type> params = {}, std::vector<ParamAttrs> attrs = {},
              const char *name = "k") {
    m.functions.push_back(std::make_unique<Function>());
    fn = m.functions.back().get();
    fn->name = name;
    for (auto &t : params) fn->body.addArg(t);
    attrs.resize(params.size());
    fn->paramAttrs = attrs;
    b.setInsertionPointToEnd(&fn->body);
  }
  Value *arg(unsigned i) { return fn->body.args.at(i).get(); }
  Operation *finish(std::vector<Value *> results = {}) {
    for (Value *v : results) fn->resultTypes.push_back(v->type);
    return b.create(OpCode::Return, std::move(results), {});
  }
  // Operand i of the function's final return.
  Value *ret(unsigned i = 0) { return fn->body.terminator()->operand(i); }

  Value *ci(int64_t v, Type t = S(DType::I32)) { return b.constInt(v, t); }
  Value *cf(double v, Type t = S(DType::F32)) { return b.constFloat(v, t); }
  Value *bin(OpCode c, Value *x, Value *y, std::vector<NamedAttr> attrs = {}) {
    return b.op1(c, {x, y}, x->type, std::move(attrs));
  }
  Value *un(OpCode c, Value *x, Type t, std::vector<NamedAttr> attrs = {}) {
    return b.op1(c, {x}, std::move(t), std::move(attrs));
  }
  Value *cmp(const char *pred, Value *x, Value *y) {
    Type t = x->type.withElement(S(DType::I1));
    return b.op1(OpCode::Cmp, {x, y}, t, {{"pred", std::string(pred)}});
  }
  Value *store(Value *p, Value *v) {
    b.create(OpCode::Store, {p, v}, {});
    return nullptr;
  }

  // for lb, ub, step, inits: returns the op; body gets iv + iter args and
  // the builder is NOT moved into it (use inside()).
  Operation *forOp(Value *lb, Value *ub, Value *step, std::vector<Value *> inits) {
    std::vector<Value *> ops{lb, ub, step};
    std::vector<Type> types;
    for (Value *v : inits) {
      ops.push_back(v);
      types.push_back(v->type);
    }
    Operation *f = b.create(OpCode::For, ops, types);
    Block &body = *f->regions[0];
    body.addArg(lb->type);
    for (Value *v : inits) body.addArg(v->type);
    return f;
  }
  Operation *ifOp(Value *cond, std::vector<Type> types) {
    return b.create(OpCode::If, {cond}, std::move(types));
  }
};

// Runs `fn` with the builder moved into `blk` and restores it afterwards.
template <class F>
void inside(Fn &f, Block *blk, F fn) {
  Builder saved = f.b;
  f.b.setInsertionPointToEnd(blk);
  fn();
  f.b = saved;
}

inline int countOps(Function &fn, OpCode c) {
  int n = 0;
  fn.walk([&](Operation *op) { n += op->code == c; });
  return n;
}

inline int countAllOps(Function &fn) {
  int n = 0;
  fn.walk([&](Operation *) { ++n; });
  return n;
}

inline std::optional<int64_t> constInt(const Value *v) {
  auto s = passes::constantOf(v);
  if (!s || s->isFloat) return std::nullopt;
  return s->i;
}

inline std::optional<double> constFloat(const Value *v) {
  auto s = passes::constantOf(v);
  if (!s || !s->isFloat) return std::nullopt;
  return s->f;
}

}  // namespace tessera::testing
