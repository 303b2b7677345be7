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
  for (size_t i = 0; i < n; ++i)
    if (paramIndex(p.shape[i]) != base + 1 + static_cast<int>(i)) return -1;
  for (size_t i = 0; i + 1 < n; ++i)
    if (paramIndex(p.strides[i]) != base + 1 + static_cast<int>(n + i)) return -1;
  auto last = passes::constantOf(p.strides.back());
  if (!last || last->isFloat || last->i != 1) return -1;
  return base;
}

bool madeInKernel(const Operation &load, const Function &fn) {
  if (load.code != OpCode::DescriptorLoad || hostDescriptorParam(load, fn) >= 0) return false;
  DescriptorLoadParts p = descriptorLoadParts(load);
  auto last = passes::constantOf(p.strides.back());
  if (!last || last->isFloat || last->i != 1) return false;
  const Value *base = p.base;
  if (!base->def)
    return base->owner == &fn.body && fn.paramAttrs.at(base->index).divisibility % 16 == 0;
  if (base->def->code != OpCode::Hint) return false;
  std::vector<int64_t> div = base->def->intsAttr("divisibility");
  return !div.empty() && div[0] > 0 && div[0] % 16 == 0;
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
  // Every use a dot operand in the same body, directly or through `.T`.
  const Value *v = load.result();
  int uses = 0;
  bool ok = true;
  for (const auto &op : body->ops)
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
  return ok && uses > 0 && usesIn(*body, v) == uses;
}

}  // namespace tessera::ptx
