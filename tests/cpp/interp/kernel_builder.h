// Test helper: builds Tile IR kernels with tessera::Builder (no textual IR,
// whose parser is written concurrently) and runs them through the
// interpreter. Also random inputs and poisoning helpers shared by the tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ir.h"

namespace tessera::testing {

inline Type sc(DType d) {
  return Type::scalar(d);
}
inline Type ptr(DType d) {
  return Type::ptr(d);
}
inline Type tile(std::vector<int64_t> shape, DType d) {
  return Type::tile(std::move(shape), sc(d));
}
inline Type ptrTile(std::vector<int64_t> shape, DType d) {
  return Type::tile(std::move(shape), ptr(d));
}

// A kernel under construction.
struct KB {
  Function fn;
  Builder b;
  explicit KB(std::string name) {
    fn.name = std::move(name);
    b.setInsertionPointToEnd(&fn.body);
  }
  Value *arg(Type t, std::string name = {}) {
    fn.paramAttrs.push_back({});
    return fn.body.addArg(std::move(t), std::move(name));
  }
  Value *op(OpCode c, std::vector<Value *> in, Type t, std::vector<NamedAttr> attrs = {}) {
    return b.op1(c, std::move(in), std::move(t), std::move(attrs));
  }
  Value *ci(int64_t v, Type t) { return b.constInt(v, std::move(t)); }
  Value *cf(double v, Type t) { return b.constFloat(v, std::move(t)); }
  Value *pid(int axis = 0) {
    return op(OpCode::ProgramId, {}, sc(DType::I32), {{"axis", int64_t(axis)}});
  }
  Value *arange(int64_t n) {
    return op(OpCode::Arange, {}, tile({n}, DType::I32), {{"start", int64_t(0)}, {"end", n}});
  }
  Value *splat(Value *v, std::vector<int64_t> shape) {
    return op(OpCode::Splat, {v}, v->type.withShape(std::move(shape)));
  }
  Value *bin(OpCode c, Value *a, Value *x, std::vector<NamedAttr> attrs = {}) {
    return op(c, {a, x}, a->type, std::move(attrs));
  }
  Value *cmp(const char *pred, Value *a, Value *x) {
    return op(OpCode::Cmp, {a, x}, a->type.withElement(sc(DType::I1)),
              {{"pred", std::string(pred)}});
  }
  // ptr + offsets (tile of offsets; the pointer is splat first).
  Value *addptr(Value *p, Value *offs) {
    Value *ps = p->type.isTile() ? p : splat(p, offs->type.shape);
    return op(OpCode::AddPtr, {ps, offs}, ps->type);
  }
  Value *load(Value *p, Value *mask = nullptr, Value *other = nullptr) {
    std::vector<Value *> in{p};
    if (mask) in.push_back(mask);
    if (other) in.push_back(other);
    return op(OpCode::Load, in, p->type.withElement(sc(p->type.dtype)));
  }
  void store(Value *p, Value *v, Value *mask = nullptr) {
    std::vector<Value *> in{p, v};
    if (mask) in.push_back(mask);
    b.create(OpCode::Store, in, {});
  }
  void ret() { b.create(OpCode::Return, {}, {}); }
  // A binary combine region (lhs, rhs) -> code(lhs, rhs) for reduce/scan.
  Operation *reduceOp(OpCode code, Value *x, int64_t axis, OpCode combine, bool scan = false,
                      bool reverse = false) {
    std::vector<int64_t> rs = x->type.shape;
    if (!scan) rs.erase(rs.begin() + axis);
    std::vector<NamedAttr> attrs{{"axis", axis}};
    if (scan) attrs.push_back({"reverse", int64_t(reverse)});
    Operation *r = b.create(code, {x}, {x->type.withShape(rs)}, attrs, 1);
    Block *body = r->regions[0].get();
    Type e = x->type.element();
    Value *l = body->addArg(e), *rr = body->addArg(e);
    Builder inner(body);
    Value *c = inner.op1(combine, {l, rr}, e);
    inner.create(OpCode::Yield, {c}, {});
    return r;
  }
  Value *reduce(Value *x, int64_t axis, OpCode combine) {
    return reduceOp(OpCode::Reduce, x, axis, combine)->result();
  }
};

inline std::mt19937_64 &rng() {
  static std::mt19937_64 g(std::random_device{}());
  return g;
}
inline float randf(float lo = -4, float hi = 4) {
  return std::uniform_real_distribution<float>(lo, hi)(rng());
}
inline uint64_t randBits() {
  return rng()();
}

template <class T>
void poison(std::vector<T> &v) {
  std::memset(v.data(), 0xAB, v.size() * sizeof(T));
}
inline void poisonNaN(std::vector<float> &v) {
  for (float &x : v) x = std::numeric_limits<float>::quiet_NaN();
}

template <class T>
interp::HostBuffer buf(const std::vector<T> &v, const char *name) {
  return {v.data(), v.size() * sizeof(T), name};
}

}  // namespace tessera::testing
