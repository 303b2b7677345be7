#include "frontend/builtin_util.h"

namespace tessera::frontend {

bool isPowerOfTwo(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

Type tileOf(const std::vector<int64_t> &shape, DType d) {
  return shape.empty() ? Type::scalar(d) : Type::tile(shape, Type::scalar(d));
}

std::vector<int64_t> blockShape(Lowerer &l, const SVal &v, SourceLoc loc, const std::string &what) {
  std::vector<int64_t> shape;
  if (v.kind == SVal::Kind::Tuple) {
    for (const auto &e : v.elems) shape.push_back(l.constInt(e, loc, what + " dimensions"));
  } else {
    shape.push_back(l.constInt(v, loc, what));
  }
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (!isPowerOfTwo(d))
      l.error(loc, what + " must have power-of-two dimensions, got " + std::to_string(d),
              "round the block size up with triton.next_power_of_2() and mask the extra lanes");
    numel *= d;
    if (numel > (1 << 20))
      l.error(loc, what + " has more than 1048576 elements, the largest tile Tessera supports");
  }
  return shape;
}

int64_t normalizeAxis(Lowerer &l, const SVal &axis, int rank, SourceLoc loc) {
  int64_t a = l.constInt(axis, loc, "axis");
  if (a < -rank || a >= rank)
    l.error(loc, "axis " + std::to_string(a) + " is out of range for a tensor of rank " +
                     std::to_string(rank));
  return a < 0 ? a + rank : a;
}

void requireFloat32or64(Lowerer &l, Value *v, const std::string &fn, SourceLoc loc) {
  DType d = v->type.dtype;
  if (v->type.isPtrLike() || (d != DType::F32 && d != DType::F64))
    l.error(loc,
            fn + " does not support " +
                (v->type.isPtrLike() ? std::string("pointers") : std::string(tritonName(d))) +
                "; it supports float32 and float64",
            "convert the argument first, e.g. x.to(tl.float32)");
}

std::vector<Value *> promoteAll(Lowerer &l, const std::vector<SVal> &vals, SourceLoc loc,
                                bool divOrMod) {
  // Pairwise promotion gives the common dtype, as repeated binary ops would.
  SVal acc = vals[0];
  DType d = l.dtypeOf(vals[0]);
  for (size_t i = 1; i < vals.size(); ++i) {
    d = l.promote(acc, vals[i], divOrMod, loc);
    acc = vals[i].isTensor() ? vals[i] : acc;
    if (!acc.isTensor()) acc = vals[i];
    // Track a representative tensor of dtype d for further promotion.
    for (const auto &v : vals)
      if (v.isTensor() && v.v->type.dtype == d) acc = v;
  }
  std::vector<Value *> out;
  for (const auto &v : vals) out.push_back(l.toValue(v, loc, d));
  std::vector<int64_t> shape;
  for (Value *v : out) shape = l.broadcastShapes(shape, v->type.shape, loc);
  for (Value *&v : out) v = l.broadcastTo(v, shape, loc);
  return out;
}

CombineBuilder simpleCombine(OpCode op, std::vector<NamedAttr> attrs) {
  return [op, attrs](Lowerer &l, const std::vector<Value *> &lhs, const std::vector<Value *> &rhs,
                     SourceLoc loc) {
    return std::vector<Value *>{l.emit(op, {lhs[0], rhs[0]}, lhs[0]->type, loc, attrs)};
  };
}

std::vector<Value *> buildReduce(Lowerer &l, const std::vector<Value *> &operands, int64_t axis,
                                 const CombineBuilder &combine, SourceLoc loc, OpCode code,
                                 std::vector<NamedAttr> extraAttrs) {
  Builder &b = l.builder();
  std::vector<Type> resultTypes;
  for (Value *v : operands) {
    std::vector<int64_t> shape = v->type.shape;
    if (code == OpCode::Reduce) shape.erase(shape.begin() + axis);
    resultTypes.push_back(v->type.withShape(shape));
  }
  extraAttrs.push_back({"axis", axis});
  b.setLoc(loc);
  Operation *op = b.create(code, operands, resultTypes, extraAttrs);
  Block *save = b.block();
  Block &region = *op->regions[0];
  std::vector<Value *> lhs, rhs;
  for (Value *v : operands) lhs.push_back(region.addArg(v->type.element()));
  for (Value *v : operands) rhs.push_back(region.addArg(v->type.element()));
  b.setInsertionPointToEnd(&region);
  std::vector<Value *> combined = combine(l, lhs, rhs, loc);
  for (size_t i = 0; i < combined.size(); ++i)
    if (combined[i]->type != lhs[i]->type)
      l.error(loc,
              "the combine function returns " + combined[i]->type.str() + " for operand " +
                  std::to_string(i) + " but the operand is " + lhs[i]->type.str(),
              "a reduce/scan combine function must return values of its inputs' types");
  if (combined.size() != operands.size())
    l.error(loc, "the combine function returns " + std::to_string(combined.size()) +
                     " values but " + std::to_string(operands.size()) + " are reduced");
  b.setLoc(loc);
  b.create(OpCode::Yield, combined, {});
  b.setInsertionPointToEnd(save);
  std::vector<Value *> out;
  for (auto &r : op->results) out.push_back(r.get());
  return out;
}

Value *oneElementScalar(Lowerer &l, Value *tile, SourceLoc loc, const std::string &what) {
  if (tile->type.numel() != 1)
    l.error(loc,
            what + " needs a tensor of one element, got " + tile->type.str() + " (" +
                std::to_string(tile->type.numel()) + " elements)",
            "reduce it first (tl.max, tl.sum, ...) or index one element out");
  if (tile->type.isPtrLike())
    l.error(loc, what + " of a pointer tensor is not supported",
            "offset the base pointer with a scalar instead");
  Value *flat = tile;
  if (tile->type.rank() != 1)
    flat = l.emit(OpCode::Reshape, {tile}, tile->type.withShape({1}), loc);
  // A reduction over one element is that element; the combine (keep the
  // left value) is valid for every element type.
  auto keepLeft = [](Lowerer &, const std::vector<Value *> &lhs, const std::vector<Value *> &,
                     SourceLoc) { return lhs; };
  return buildReduce(l, {flat}, 0, keepLeft, loc)[0];
}

}  // namespace tessera::frontend
