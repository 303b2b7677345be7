// Prefix masks (see mask_prefix.h): found by walking from the mask through
// ANDs, broadcasts and expand_dims to the one comparison whose value changes
// inside a run.
#include "codegen/ptx/mask_prefix.h"

#include <algorithm>

namespace tessera::ptx {
namespace {

bool isIntTile(const Value *v) {
  return v->type.isTile() && !v->type.elemIsPtr && isInt(v->type.dtype) &&
         (bitWidth(v->type.dtype) == 32 || bitWidth(v->type.dtype) == 64);
}

std::optional<PrefixMask> walk(const AxisInfoMap &info, Value *v, int dim) {
  Operation *def = v->def;
  if (!def || !v->type.isTile()) return std::nullopt;
  switch (def->code) {
    case OpCode::And: {
      // One side holds the comparison; the other must be constant over its runs.
      for (int side = 0; side < 2; ++side) {
        Value *term = def->operand(side), *other = def->operand(1 - side);
        if (!other->type.isTile() || other->type.shape != v->type.shape) continue;
        auto p = walk(info, term, dim);
        if (!p) continue;
        p->run = std::min(p->run, info.get(other).constancy[dim]);
        if (p->run >= 2) return p;
      }
      return std::nullopt;
    }
    case OpCode::Broadcast: {
      Value *src = def->operand(0);
      if (!src->type.isTile() || src->type.rank() != v->type.rank() || src->type.shape[dim] == 1)
        return std::nullopt;
      auto p = walk(info, src, dim);
      if (p) p->path.push_back(def);
      return p;
    }
    case OpCode::ExpandDims: {
      int axis = static_cast<int>(def->intAttr("axis"));
      if (axis == dim || !def->operand(0)->type.isTile()) return std::nullopt;
      auto p = walk(info, def->operand(0), axis < dim ? dim - 1 : dim);
      if (p) p->path.push_back(def);
      return p;
    }
    case OpCode::Cmp: {
      std::string pred = def->strAttr("pred");
      bool rising = pred == "lt" || pred == "le";  // x on the left
      if (!rising && pred != "gt" && pred != "ge") return std::nullopt;
      Value *x = def->operand(rising ? 0 : 1), *b = def->operand(rising ? 1 : 0);
      if (!isIntTile(x) || !isIntTile(b) || x->type.shape != v->type.shape ||
          b->type.shape != v->type.shape || x->type.dtype != b->type.dtype)
        return std::nullopt;
      PrefixMask p;
      p.cmp = def;
      p.x = x;
      p.bound = b;
      p.inclusive = pred == "le" || pred == "ge";
      p.run = std::min(info.get(x).contiguity[dim], info.get(b).constancy[dim]);
      if (p.run < 2) return std::nullopt;
      return p;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<PrefixMask> prefixMask(const AxisInfoMap &info, Value *mask, int dim) {
  if (!mask->type.isTile() || dim < 0 || dim >= mask->type.rank()) return std::nullopt;
  return walk(info, mask, dim);
}

Value *buildPrefixLimit(Builder &b, const PrefixMask &p) {
  const Type &xt = p.x->type;
  Value *limit = b.op1(OpCode::Sub, {p.bound, p.x}, Type::tile(xt.shape, xt.element()));
  for (Operation *op : p.path) {
    Type t = Type::tile(op->result()->type.shape, xt.element());
    limit = b.op1(op->code, {limit}, t, op->attrs);
  }
  return limit;
}

}  // namespace tessera::ptx
