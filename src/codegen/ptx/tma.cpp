#include "codegen/ptx/tma.h"

#include "codegen/ptx/layout.h"
#include "ir/descriptor_load.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {
namespace {

int usesIn(const Block &b, const Value *v) {
  int n = 0;
  for (const auto &op : b.ops) {
    for (const Value *u : op->operands) n += u == v;
    for (const auto &r : op->regions) n += usesIn(*r, v);
  }
  return n;
}

}  // namespace

int hostDescriptorParam(const Operation &load, const Function &fn) {
  if (load.code != OpCode::DescriptorLoad) return -1;
  DescriptorLoadParts p = descriptorLoadParts(load);
  size_t n = p.block.size();
  auto paramIndex = [&](const Value *v) -> int {
    if (v->def || v->owner != &fn.body) return -1;
    return static_cast<int>(v->index);
  };
  int base = paramIndex(p.base);
  if (base < 0 || fn.paramAttrs.at(base).divisibility % 16 != 0) return -1;
  // A TensorDescriptor argument's shapes are i32 (a block pointer's i64).
  for (size_t i = 0; i < n; ++i)
    if (paramIndex(p.shape[i]) != base + 1 + static_cast<int>(i) ||
        !(p.shape[i]->type == Type::scalar(DType::I32)))
      return -1;
  for (size_t i = 0; i + 1 < n; ++i)
    if (paramIndex(p.strides[i]) != base + 1 + static_cast<int>(n + i)) return -1;
  auto last = passes::constantOf(p.strides.back());
  if (!last || last->isFloat || last->i != 1) return -1;
  return base;
}

namespace {

// What the IR states `v` is divisible by: a parameter's specialisation, a
// hint, a constant, through integer casts (1 when it states nothing).
int64_t statedDivisibility(const Value *v, const Function &fn) {
  while (v->def && v->def->code == OpCode::Cast && isInt(v->def->operand(0)->type.dtype) &&
         bitWidth(v->type.dtype) >= bitWidth(v->def->operand(0)->type.dtype))
    v = v->def->operand(0);
  if (!v->def) return v->owner == &fn.body ? fn.paramAttrs.at(v->index).divisibility : 1;
  if (v->def->code == OpCode::Hint) {
    std::vector<int64_t> div = v->def->intsAttr("divisibility");
    return div.empty() || div[0] < 1 ? 1 : div[0];
  }
  if (auto c = passes::constantOf(v); c && !c->isFloat) {
    uint64_t u = static_cast<uint64_t>(c->i), low = u & (~u + 1);  // the lowest set bit
    return u == 0 || low > (uint64_t{1} << 30) ? int64_t{1} << 30 : static_cast<int64_t>(low);
  }
  return 1;
}

}  // namespace

bool madeInKernel(const Operation &load, const Function &fn) {
  if (load.code != OpCode::DescriptorLoad || hostDescriptorParam(load, fn) >= 0) return false;
  DescriptorLoadParts p = descriptorLoadParts(load);
  auto last = passes::constantOf(p.strides.back());
  if (!last || last->isFloat || last->i != 1) return false;
  // The base 16-byte aligned, the other strides multiples of 16 bytes.
  if (statedDivisibility(p.base, fn) % 16 != 0) return false;
  int eb = byteSize(p.base->type.dtype);
  for (size_t i = 0; i + 1 < p.strides.size(); ++i)
    if (statedDivisibility(p.strides[i], fn) * eb % 16 != 0) return false;
  return true;
}

bool tmaBoxFits(const std::vector<int64_t> &shape, int elemBytes, int swizzle) {
  if (shape.size() != 2 || swizzle == 0) return false;
  int64_t rowBytes = shape[1] * elemBytes;
  if (rowBytes % swizzle != 0 || shape[0] > 256) return false;
  return rowBytes == swizzle || shape[0] * swizzle % 1024 == 0;
}

bool tmaMayServe(const Operation &load, const Function &fn, const Module &m) {
  if (m.targetSm != 90 || !m.archSpecific) return false;
  if (hostDescriptorParam(load, fn) < 0 && !(m.globalScratch && madeInKernel(load, fn)))
    return false;
  DescriptorLoadParts p = descriptorLoadParts(load);
  if (p.block.size() != 2) return false;
  DType d = p.base->type.dtype;
  int eb = byteSize(d);
  // 16-bit and 8-bit elements (fp8 is K-major, pipeline-dot-operands
  // checks), in boxes of the ring's 128-, 64- or 32-byte swizzle.
  if (eb != 2 && eb != 1) return false;
  if (p.nanPadding && d != DType::F16 && d != DType::BF16) return false;
  int swizzle = SharedLayout::swizzleFor(p.block[1] * eb);
  if (!tmaBoxFits(p.block, eb, swizzle)) return false;
  const Block *body = load.parent;
  if (!body->parentOp || body->parentOp->code != OpCode::For) return false;
  // The descriptor defined before the loop (its map is made there).
  for (const Value *v : p.descriptor())
    if (passes::isDefinedInside(v, body->parentOp)) return false;
  return feedsDotsOnly(load.result(), *body);
}

bool feedsDotsOnly(const Value *v, const Block &body) {
  int uses = 0;
  bool ok = true;
  for (const auto &op : body.ops)
    for (size_t i = 0; i < op->operands.size(); ++i) {
      const Value *u = op->operands[i];
      if (u == v) {
        ++uses;
        bool transpose =
            op->code == OpCode::Permute && op->intsAttr("order") == std::vector<int64_t>{1, 0};
        ok = ok && ((op->code == OpCode::Dot && i < 2) || transpose);
      } else if (u->def && u->def->code == OpCode::Permute && u->def->operand(0) == v) {
        ok = ok && op->code == OpCode::Dot && i < 2;
      }
    }
  // Nothing nested reads it either (the loop above sees the body's own ops).
  return ok && uses > 0 && usesIn(body, v) == uses;
}

Value *tensorMapBefore(Operation *loop, const Operation &load, int swizzle, const Function &fn) {
  if (!madeInKernel(load, fn)) return nullptr;
  DescriptorLoadParts p = descriptorLoadParts(load);
  const Type &t = load.result()->type;
  std::vector<Value *> ops = p.descriptor();
  std::vector<NamedAttr> attrs{
      {"box", std::vector<int64_t>{t.shape[0], swizzle / byteSize(t.dtype)}},
      {"padding", std::string(p.nanPadding ? "nan" : "zero")},
      {"swizzle", int64_t{swizzle}}};
  // A block pointer's dims outside its boundary_check are not bounded by
  // its shape.
  std::vector<int64_t> checks;
  for (int64_t d = 0; d < 2; ++d)
    if (p.checked[d]) checks.push_back(d);
  if (checks.size() != 2) attrs.push_back({"checks", checks});
  Operation *at = loop;
  for (Operation *outer = at->parent->parentOp; outer && isLoop(*outer);
       outer = at->parent->parentOp) {
    bool inside = false;
    for (Value *v : ops) inside = inside || passes::isDefinedInside(v, outer);
    if (inside) break;
    at = outer;
  }
  Builder b;
  b.setInsertionPointBefore(at);
  b.setLoc(load.loc);
  Operation *made =
      b.create(OpCode::TensormapCreate, ops, {Type::scalar(DType::I64)}, std::move(attrs));
  for (auto &o : at->parent->ops) {
    if (o.get() == made) break;
    if (o->code == OpCode::TensormapCreate && o->operands == made->operands &&
        passes::sameAttrs(*o, *made)) {
      eraseOp(made);
      return o->result();
    }
  }
  return made->result();
}

}  // namespace tessera::ptx
