// Internal to the verifier's type rules (verifier_rules.cpp, the data ops;
// verifier_rules_regions.cpp, the ops with regions, calls and the GPU
// passes' shared-memory ops): the helpers and the Rules class they share.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "ir/printer.h"
#include "ir/verifier_rules.h"

namespace tessera::verifier_detail {

// Triton's limit on the number of elements of one tile.
inline constexpr int64_t kMaxTileElements = int64_t{1} << 20;

inline bool isPowerOfTwo(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

inline bool isIntTy(const Type &t) {
  return t.isIntLike();
}
inline bool isBoolTy(const Type &t) {
  return t.isIntLike() && t.dtype == DType::I1;
}
inline bool isNumeric(const Type &t) {
  return t.isIntLike() || t.isFloatLike();
}

// Equal ignoring layouts.
inline bool sameType(const Type &a, const Type &b) {
  return a.kind == b.kind && a.dtype == b.dtype && a.elemIsPtr == b.elemIsPtr &&
         a.shape == b.shape && (!a.isPtrLike() || a.addrSpace == b.addrSpace);
}
// Both scalars (or pointers), or both tiles of one shape.
inline bool sameShape(const Type &a, const Type &b) {
  return a.isTile() == b.isTile() && a.shape == b.shape;
}
// The type of the values a pointer (tile) points to, with its shape.
inline Type pointeeOf(const Type &ptr) {
  return ptr.withElement(Type::scalar(ptr.dtype));
}

inline std::string shapeStr(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

inline std::string ordinal(size_t i) {
  return "operand #" + std::to_string(i);
}

// Checks one op; every failure names the op's mnemonic.

class Rules {
 public:
  Rules(const Operation &op, const Module *module, OpErrorSink &sink)
      : op_(op), module_(module), sink_(sink) {}

  void check();

 private:
  const Type &in(size_t i) const { return op_.operands[i]->type; }
  const Type &out(size_t i = 0) const { return op_.results[i]->type; }
  std::string ty(const Type &t) const { return printType(t); }

  bool fail(const std::string &message) {
    sink_.error(op_, std::string(op_.info().mnemonic) + ": " + message);
    return false;
  }

  // ---- attribute helpers -------------------------------------------------------
  const int64_t *intAttr(std::string_view name) const {
    const Attr *a = op_.attr(name);
    return a ? std::get_if<int64_t>(a) : nullptr;
  }
  bool requireIntAttr(std::string_view name, int64_t &value) {
    if (const int64_t *v = intAttr(name)) {
      value = *v;
      return true;
    }
    return fail(std::string(op_.attr(name) ? "attribute '" : "missing integer attribute '") +
                std::string(name) + (op_.attr(name) ? "' must be an integer" : "'"));
  }
  bool optionalStringAttr(std::string_view name, std::initializer_list<std::string_view> allowed) {
    const Attr *a = op_.attr(name);
    if (!a) return true;
    const std::string *s = std::get_if<std::string>(a);
    if (!s) return fail("attribute '" + std::string(name) + "' must be a string");
    if (allowed.size() == 0 || std::find(allowed.begin(), allowed.end(), *s) != allowed.end())
      return true;
    std::string list;
    for (std::string_view v : allowed) list += (list.empty() ? "" : ", ") + std::string(v);
    return fail("attribute '" + std::string(name) + "' is \"" + *s + "\"; expected one of " + list);
  }
  bool optionalFlagAttr(std::string_view name) {
    const Attr *a = op_.attr(name);
    if (!a) return true;
    const int64_t *v = std::get_if<int64_t>(a);
    if (!v || (*v != 0 && *v != 1))
      return fail("attribute '" + std::string(name) + "' must be 0 or 1");
    return true;
  }
  // An axis attribute in [0, rank).
  bool axisAttr(int rank, int64_t &axis, std::string_view name = "axis") {
    if (!requireIntAttr(name, axis)) return false;
    if (axis < 0 || axis >= rank)
      return fail(std::string(name) + " " + std::to_string(axis) + " is out of range for rank " +
                  std::to_string(rank));
    return true;
  }

  // ---- shape helpers -------------------------------------------------------------
  bool requireTile(const Type &t, const std::string &what) {
    return (t.isTile() && t.rank() > 0) || fail(what + " must be a tile, got " + ty(t));
  }
  bool requireSameType(const Type &actual, const Type &expected, const std::string &what,
                       const std::string &expectedWhat) {
    if (sameType(actual, expected)) return true;
    return fail(what + " has type " + ty(actual) + ", expected " + ty(expected) + " (" +
                expectedWhat + ")");
  }
  // Result has the operand's element type.
  bool sameElement(const Type &a, const Type &b, const std::string &what) {
    if (a.element() == b.element()) return true;
    return fail(what + ": element type " + ty(b.element()) + " differs from " + ty(a.element()));
  }
  bool requireMask(size_t index, const Type &shapeOf) {
    const Type &mask = in(index);
    if (!isBoolTy(mask) || !sameShape(mask, shapeOf))
      return fail("mask (" + ordinal(index) + ") must be i1 with the shape of " + ty(shapeOf) +
                  ", got " + ty(mask));
    return true;
  }

  // ---- rule groups -----------------------------------------------------------------
  // Every operand and the result share one type, which `accepts` holds for.
  bool elementwiseSameType(bool (*accepts)(const Type &), const char *kind) {
    for (size_t i = 0; i < op_.operands.size(); ++i)
      if (!requireSameType(in(i), out(), ordinal(i), "the result type")) return false;
    if (!accepts(out()))
      return fail("expects " + std::string(kind) + " operands, got " + ty(out()));
    return true;
  }

  void constant();
  void arange();
  void splat();
  void broadcast();
  void expandDims();
  void reshape();
  void permute();
  void join();
  void split();
  void cat();
  void gather();
  void histogram();
  void cmp();
  void select();
  void cast(bool bitcast);
  void addPtr();
  void load();
  void store();
  void atomicRmw();
  void atomicCas();
  void dot();
  void sharedMemory();
  void reduceOrScan(bool isScan);
  void philox();
  void inlineAsm();
  void mapElementwise();
  void hint();
  void forOp();
  void ifOp();
  void whileOp();
  void warpSpecialize();
  void call();
  bool yieldMatches(const Block &region, const std::vector<Type> &want, const std::string &where);

  const Operation &op_;
  const Module *module_;
  OpErrorSink &sink_;
};

}  // namespace tessera::verifier_detail
