#include "ir/descriptor_load.h"

#include <algorithm>
#include <cmath>

#include "ir/printer.h"

namespace tessera {

namespace {

constexpr size_t kMaxRank = 5;  // what the tensor memory accelerator addresses

bool isPowerOfTwo(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

// The optional `checks` (or `unbounded_below`) attribute: dims of a
// rank-`n` block, increasing.
bool validChecks(const Operation &op, size_t n, const char *name = "checks") {
  const Attr *a = op.attr(name);
  if (!a) return true;
  const auto *dims = std::get_if<std::vector<int64_t>>(a);
  if (!dims) return false;
  for (size_t i = 0; i < dims->size(); ++i)
    if ((*dims)[i] < 0 || (*dims)[i] >= static_cast<int64_t>(n) ||
        (i > 0 && (*dims)[i] <= (*dims)[i - 1]))
      return false;
  return true;
}

}  // namespace

DescriptorLoadParts descriptorLoadParts(const Operation &op) {
  DescriptorLoadParts p;
  p.block = op.intsAttr("block");
  size_t n = p.block.size();
  p.base = op.operands.at(0);
  for (size_t i = 0; i < n; ++i) {
    p.shape.push_back(op.operands.at(1 + i));
    p.strides.push_back(op.operands.at(1 + n + i));
    p.offsets.push_back(op.operands.at(1 + 2 * n + i));
  }
  p.nanPadding = op.strAttr("padding") == "nan";
  p.checked.assign(n, op.attr("checks") == nullptr);
  if (op.attr("checks"))
    for (int64_t d : op.intsAttr("checks"))
      if (d >= 0 && static_cast<size_t>(d) < n) p.checked[d] = true;
  p.unboundedBelow.assign(n, false);
  if (op.attr("unbounded_below"))
    for (int64_t d : op.intsAttr("unbounded_below"))
      if (d >= 0 && static_cast<size_t>(d) < n) p.unboundedBelow[d] = true;
  return p;
}

std::vector<Value *> DescriptorLoadParts::descriptor() const {
  std::vector<Value *> parts{base};
  parts.insert(parts.end(), shape.begin(), shape.end());
  parts.insert(parts.end(), strides.begin(), strides.end());
  return parts;
}

std::string checkDescriptorLoad(const Operation &op) {
  const Attr *blockAttr = op.attr("block");
  const auto *block = blockAttr ? std::get_if<std::vector<int64_t>>(blockAttr) : nullptr;
  if (!block) return "missing integer-list attribute 'block'";
  size_t n = block->size();
  if (n < 1 || n > kMaxRank) return "block must have 1 to 5 dimensions";
  for (int64_t d : *block)
    if (!isPowerOfTwo(d)) return "block dimensions must be powers of two";
  std::string pad = op.strAttr("padding", "zero");
  if (pad != "zero" && pad != "nan")
    return "padding must be \"zero\" or \"nan\", got \"" + pad + "\"";
  if (!validChecks(op, n)) return "checks must list dims of the block in increasing order";
  if (!validChecks(op, n, "unbounded_below"))
    return "unbounded_below must list dims of the block in increasing order";
  if (op.attr("unbounded_below") && op.attr("checks")) {
    const std::vector<int64_t> checks = op.intsAttr("checks");
    for (int64_t d : op.intsAttr("unbounded_below"))
      if (std::find(checks.begin(), checks.end(), d) == checks.end())
        return "unbounded_below dim " + std::to_string(d) + " is not a checked dim";
  }
  const bool store = op.code == OpCode::DescriptorStore;
  if (store && op.attr("padding")) return "a store takes no padding";
  if (op.operands.size() != 1 + 3 * n + (store ? 1 : 0))
    return "a block of rank " + std::to_string(n) + " takes " +
           std::to_string(1 + 3 * n + (store ? 1 : 0)) + " operands (base, shapes, strides, " +
           (store ? "offsets, value" : "offsets") + "), got " + std::to_string(op.operands.size());
  const Type &base = op.operands[0]->type;
  if (!base.isPtr()) return "operand #0 (base) must be a scalar pointer, got " + printType(base);
  if (pad == "nan" && !isFloat(base.dtype)) return "padding \"nan\" needs a float element type";
  auto want = [&](size_t first, DType d, const char *what) -> std::string {
    for (size_t i = first; i < first + n; ++i)
      if (!(op.operands[i]->type == Type::scalar(d)))
        return std::string(what) + " (operand #" + std::to_string(i) + ") must be " + irName(d) +
               ", got " + printType(op.operands[i]->type);
    return {};
  };
  for (size_t i = 1; i <= n; ++i)  // i32 (descriptors) or i64 (block pointers)
    if (!(op.operands[i]->type == Type::scalar(DType::I32)) &&
        !(op.operands[i]->type == Type::scalar(DType::I64)))
      return "a shape (operand #" + std::to_string(i) + ") must be i32 or i64, got " +
             printType(op.operands[i]->type);
  if (std::string e = want(1 + n, DType::I64, "a stride"); !e.empty()) return e;
  if (std::string e = want(1 + 2 * n, DType::I32, "an offset"); !e.empty()) return e;
  Type expect = Type::tile(*block, Type::scalar(base.dtype));
  const Type &out = store ? op.operands.back()->type : op.results[0]->type;
  if (!out.isTile() || out.shape != expect.shape || out.dtype != expect.dtype || out.elemIsPtr)
    return std::string(store ? "the stored value" : "result") + " must be " + printType(expect) +
           ", got " + printType(out);
  return {};
}

std::string checkTmaOp(const Operation &op) {
  auto isScalar = [&](size_t i, DType d) { return op.operands[i]->type == Type::scalar(d); };
  // The barriers operand: the result of a barrier_alloc (the emitter reads
  // their count there).
  auto barriers = [&](size_t i) {
    const Operation *d = op.operands[i]->def;
    return isScalar(i, DType::I32) && d && d->code == OpCode::BarrierAlloc;
  };
  switch (op.code) {
    case OpCode::BarrierAlloc: {
      const Attr *a = op.attr("count");
      const int64_t *count = a ? std::get_if<int64_t>(a) : nullptr;
      if (!count || *count < 1 || *count > 64) return "count must be an integer from 1 to 64";
      if (const Attr *n = op.attr("arrivals")) {
        const int64_t *arrivals = std::get_if<int64_t>(n);
        if (!arrivals || *arrivals < 1 || *arrivals > 1024)
          return "arrivals must be an integer from 1 to 1024";
      }
      if (!(op.results[0]->type == Type::scalar(DType::I32)))
        return "result must be i32 (the barriers' shared address)";
      return {};
    }
    case OpCode::BarrierDealloc:
      return barriers(0) ? "" : "operand must be the result of a barrier_alloc";
    case OpCode::BarrierWait:
      if (!barriers(0) || !isScalar(1, DType::I32) || !isScalar(2, DType::I32))
        return "takes (barriers of a barrier_alloc, slot i32, phase i32)";
      return {};
    case OpCode::BarrierArrive:
      if (!barriers(0) || !isScalar(1, DType::I32))
        return "takes (barriers of a barrier_alloc, slot i32)";
      return {};
    case OpCode::TmaCopy: {
      // A host descriptor's map is a kernel parameter (the attribute); a
      // map made in the kernel is the last operand.
      const Attr *t = op.attr("tensormap");
      bool madeInKernel = !t;
      if (t && (!std::get_if<int64_t>(t) || op.intAttr("tensormap") < 0))
        return "tensormap must be the index of the descriptor's base parameter";
      if (op.operands.size() < 5 + (madeInKernel ? 1u : 0u))
        return "takes (destination, barriers, slot, coordinates..., runs), then the map of "
               "a tensormap_create where there is no tensormap attribute";
      size_t n = op.operands.size() - (madeInKernel ? 1 : 0);
      if (madeInKernel) {
        const Operation *d = op.operands[n]->def;
        if (!d || d->code != OpCode::TensormapCreate)
          return "without a tensormap attribute, the last operand must be a tensormap_create";
      }
      const Type &dst = op.operands[0]->type;
      if (!dst.isMemDesc() || static_cast<size_t>(dst.rank()) != n - 4)
        return "destination must be a memdesc with one dim per coordinate, got " + printType(dst);
      if (!barriers(1) || !isScalar(2, DType::I32))
        return "takes the barriers of a barrier_alloc and an i32 slot";
      for (size_t i = 3; i + 1 < n; ++i)
        if (!isScalar(i, DType::I32)) return "coordinates must be i32";
      if (!isScalar(n - 1, DType::I1)) return "runs must be i1";
      if (op.intAttr("expect") < 0) return "expect must be at least 0";
      if (!validChecks(op, n - 4, "unbounded_below"))
        return "unbounded_below must list dims of the destination in increasing order";
      std::string pad = op.strAttr("padding", "zero");
      if (pad != "zero" && pad != "nan") return "padding must be \"zero\" or \"nan\"";
      return {};
    }
    case OpCode::TensormapCreate: {
      // Rank 2, as the emitter builds maps.
      auto shape = [&](size_t i) { return isScalar(i, DType::I32) || isScalar(i, DType::I64); };
      if (op.operands.size() != 5 || !op.operands[0]->type.isPtr() ||
          op.operands[0]->type.isTile() || !shape(1) || !shape(2) || !isScalar(3, DType::I64) ||
          !isScalar(4, DType::I64))
        return "takes (base pointer, 2 shapes i32 or i64, 2 strides i64)";
      if (!(op.results[0]->type == Type::scalar(DType::I64)))
        return "result must be i64 (the map's global address)";
      const Attr *box = op.attr("box");
      const auto *dims = box ? std::get_if<std::vector<int64_t>>(box) : nullptr;
      if (!dims || dims->size() != 2 || (*dims)[0] < 1 || (*dims)[0] > 256 || (*dims)[1] < 1 ||
          (*dims)[1] > 256)
        return "box must be [rows, columns], each from 1 to 256";
      int64_t swizzle = op.intAttr("swizzle", -1);
      if (swizzle != 32 && swizzle != 64 && swizzle != 128)
        return "swizzle must be 32, 64 or 128 (bytes)";
      std::string pad = op.strAttr("padding", "zero");
      if (pad != "zero" && pad != "nan") return "padding must be \"zero\" or \"nan\"";
      if (!validChecks(op, 2)) return "checks must list dims 0 and 1 in increasing order";
      return {};
    }
    default:
      return "not a tensor memory accelerator op";
  }
}

namespace {

// A scalar or tile broadcast to `shape`: splat a scalar, stretch size-1 dims
// of a tile of the same rank.
Value *broadcastTo(Builder &b, Value *v, const std::vector<int64_t> &shape) {
  if (!v->type.isTile()) return b.op1(OpCode::Splat, {v}, Type::tile(shape, v->type));
  if (v->type.shape == shape) return v;
  return b.op1(OpCode::Broadcast, {v}, v->type.withShape(shape));
}

// The block's pointers, and its mask of elements inside the shape in every
// checked dim (null when none is checked), built at `b`.
// The ops follow the order in which the front end built them before the ops
// existed, so that code generation that expands every descriptor access sees
// the IR it always saw.
void blockPointers(Builder &b, const DescriptorLoadParts &p, Value *&ptrs, Value *&mask) {
  const std::vector<int64_t> &block = p.block;
  size_t n = block.size();
  const Type i1 = Type::scalar(DType::I1), i32 = Type::scalar(DType::I32),
             i64 = Type::scalar(DType::I64);
  std::vector<Value *> shape64;
  for (Value *s : p.shape) shape64.push_back(s->type == i64 ? s : b.op1(OpCode::Cast, {s}, i64));
  Value *offset = nullptr;
  mask = nullptr;
  for (size_t d = 0; d < n; ++d) {
    Value *r = b.op1(OpCode::Arange, {}, Type::tile({block[d]}, i32),
                     {{"end", block[d]}, {"start", int64_t{0}}});
    Value *idx = b.op1(OpCode::Add, {broadcastTo(b, p.offsets[d], {block[d]}), r}, r->type);
    idx = b.op1(OpCode::Cast, {idx}, idx->type.withElement(i64));
    // Shape [1, .., block[d], .., 1] so the dims broadcast against each other.
    std::vector<int64_t> s(n, 1);
    s[d] = block[d];
    if (n > 1) idx = b.op1(OpCode::Reshape, {idx}, idx->type.withShape(s));
    Value *term = b.op1(OpCode::Mul, {idx, broadcastTo(b, p.strides[d], s)}, idx->type);
    term = broadcastTo(b, term, block);
    offset = offset ? b.op1(OpCode::Add, {offset, term}, term->type) : term;
    if (!p.checked[d]) continue;
    Value *ge = nullptr;
    if (!p.unboundedBelow[d]) {
      Value *zero = broadcastTo(b, b.constInt(0, i64), s);
      ge =
          b.op1(OpCode::Cmp, {idx, zero}, idx->type.withElement(i1), {{"pred", std::string("ge")}});
    }
    Value *in = b.op1(OpCode::Cmp, {idx, broadcastTo(b, shape64[d], s)}, idx->type.withElement(i1),
                      {{"pred", std::string("lt")}});
    if (ge) in = b.op1(OpCode::And, {ge, in}, ge->type);
    in = broadcastTo(b, in, block);
    mask = mask ? b.op1(OpCode::And, {mask, in}, in->type) : in;
  }
  Value *base = broadcastTo(b, p.base, block);
  ptrs = b.op1(OpCode::AddPtr, {base, offset}, base->type);
}

}  // namespace

void expandDescriptorLoad(Operation &op) {
  DescriptorLoadParts p = descriptorLoadParts(op);
  Builder b;
  b.setInsertionPointBefore(&op);
  b.setLoc(op.loc);
  Value *ptrs, *mask;
  blockPointers(b, p, ptrs, mask);
  Type elem = Type::scalar(p.base->type.dtype);
  std::vector<Value *> operands{ptrs};
  if (mask) {
    Value *pad = p.nanPadding          ? b.constFloat(std::nan(""), elem)
                 : isFloat(elem.dtype) ? b.constFloat(0.0, elem)
                                       : b.constInt(0, elem);
    operands.insert(operands.end(), {mask, broadcastTo(b, pad, p.block)});
  }
  Value *loaded =
      b.op1(OpCode::Load, operands, op.results[0]->type,
            {{"cache", std::string()}, {"evict", std::string()}, {"volatile", int64_t{0}}});
  replaceAllUsesWith(*op.parent, op.results[0].get(), loaded);
  eraseOp(&op);
}

void expandDescriptorStore(Operation &op) {
  DescriptorLoadParts p = descriptorLoadParts(op);
  Builder b;
  b.setInsertionPointBefore(&op);
  b.setLoc(op.loc);
  Value *ptrs, *mask;
  blockPointers(b, p, ptrs, mask);
  std::vector<Value *> operands{ptrs, op.operands.back()};
  if (mask) operands.push_back(mask);
  b.create(OpCode::Store, operands, {}, {{"cache", std::string()}, {"evict", std::string()}});
  eraseOp(&op);
}

namespace {
bool anyDescriptorLoad(const Block &b) {
  for (const auto &op : b.ops) {
    if (op->code == OpCode::DescriptorLoad || op->code == OpCode::DescriptorStore) return true;
    for (const auto &r : op->regions)
      if (anyDescriptorLoad(*r)) return true;
  }
  return false;
}
}  // namespace

Value *transposeDescriptorLoad(Operation &op) {
  DescriptorLoadParts p = descriptorLoadParts(op);
  Builder b;
  b.setInsertionPointBefore(&op);
  b.setLoc(op.loc);
  std::vector<Value *> ops{p.base,       p.shape[1],   p.shape[0],  p.strides[1],
                           p.strides[0], p.offsets[1], p.offsets[0]};
  std::vector<int64_t> block{p.block[1], p.block[0]}, checks, below;
  for (int64_t d : {1, 0}) {
    if (p.checked[d]) checks.push_back(1 - d);
    if (p.unboundedBelow[d]) below.push_back(1 - d);
  }
  std::vector<NamedAttr> attrs{{"block", block}, {"padding", op.strAttr("padding", "zero")}};
  if (checks.size() != 2) attrs.push_back({"checks", checks});
  if (!below.empty()) attrs.push_back({"unbounded_below", below});
  const Type &t = op.results[0]->type;
  Operation *load = b.create(OpCode::DescriptorLoad, ops, {t.withShape(block)}, std::move(attrs));
  Value *back =
      b.op1(OpCode::Permute, {load->result()}, t, {{"order", std::vector<int64_t>{1, 0}}});
  replaceAllUsesWith(*op.parent, op.results[0].get(), back);
  eraseOp(&op);
  return back;
}

bool hasDescriptorLoads(const Function &fn) {
  return anyDescriptorLoad(fn.body);
}

int expandDescriptorLoads(Function &fn, const std::function<bool(const Operation &)> &keep) {
  std::vector<Operation *> accesses;
  fn.walk([&](Operation *o) {
    if ((o->code == OpCode::DescriptorLoad || o->code == OpCode::DescriptorStore) &&
        !(keep && keep(*o)))
      accesses.push_back(o);
  });
  for (Operation *o : accesses)
    o->code == OpCode::DescriptorStore ? expandDescriptorStore(*o) : expandDescriptorLoad(*o);
  return static_cast<int>(accesses.size());
}

}  // namespace tessera
