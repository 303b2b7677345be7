// Builtins: tensor descriptors, as Triton 3.6 documents them.
// tl.make_tensor_descriptor builds one in a kernel; a host TensorDescriptor
// argument arrives as one (lower_stmt.cpp). desc.load / desc.store /
// desc.atomic_* / desc.gather / desc.scatter and tl.load_tensor_descriptor /
// tl.store_tensor_descriptor address a block of the tensor at run-time
// offsets.
//
// A descriptor is not a value of the IR. A load keeps its parts together
// as a descriptor_load op (ir/descriptor_load.h), so that the GPU passes can
// hand it to the tensor memory accelerator. Every other access becomes a
// tile of plain pointers masked by the tensor's bounds in every dimension
// (out-of-bounds elements read the padding value, zero or NaN, and are never
// written), so every back end runs it with the ordinary load/store ops; a
// descriptor_load means the same masked load.
#include <cmath>

#include "frontend/builtin_util.h"

namespace tessera::frontend {

namespace {

using A = CallArgs;

constexpr size_t kMaxRank = 5;  // what the tensor memory accelerator addresses

// elems = base, shape[n], strides[n]; ints = block; ints2 = {nan padding}.
struct DescParts {
  Value *base;
  std::vector<Value *> shape, strides;
  std::vector<int64_t> block;
  bool nanPadding;
};

// The descriptor: the first parameter ("desc" of tl.*_tensor_descriptor,
// "self" of the methods).
const SVal &descArg(Lowerer &l, A &a) {
  const SVal &v = a.values[0];
  if (v.kind != SVal::Kind::TensorDesc)
    l.error(a.locs[0], a.name + " expects a tensor descriptor, got " + describe(v),
            "make one with tl.make_tensor_descriptor or pass a TensorDescriptor argument");
  return v;
}

DescParts parts(const SVal &d) {
  DescParts p;
  size_t n = d.ints.size();
  p.base = d.elems[0].v;
  for (size_t i = 0; i < n; ++i) {
    p.shape.push_back(d.elems[1 + i].v);
    p.strides.push_back(d.elems[1 + n + i].v);
  }
  p.block = d.ints;
  p.nanPadding = !d.ints2.empty() && d.ints2[0] != 0;
  return p;
}

std::vector<SVal> listArg(const SVal &v) {
  return v.kind == SVal::Kind::Tuple ? v.elems : std::vector<SVal>{v};
}

// An integer scalar (shape entry, stride, offset) of type `want`.
// Triton's _convert_elem_to_ir_value: 64-bit offsets are refused.
Value *descScalar(Lowerer &l, const SVal &v, DType want, SourceLoc loc, const std::string &what) {
  l.builder().setLoc(loc);
  if (v.isIntLike()) {
    if (want == DType::I32 && (v.i < INT32_MIN || v.i > INT32_MAX))
      l.error(loc,
              "tensor descriptor " + what + " must fit in 32 bits, got " + std::to_string(v.i));
    return l.constantInt(v.i, Type::scalar(want));
  }
  if (!v.isTensor() || v.v->type.isTile() || v.v->type.isPtrLike() || !isInt(v.v->type.dtype))
    l.error(loc, "expected an integer scalar in the " + what + " of a tensor descriptor, got " +
                     describe(v));
  if (what == "offsets" && bitWidth(v.v->type.dtype) == 64)
    l.error(loc, "tensor descriptors only support 32-bit offsets, got " + describe(v),
            "add a .to(tl.int32)");
  return l.castTo(v.v, want, loc);
}

std::vector<Value *> descScalars(Lowerer &l, const SVal &v, DType want, SourceLoc loc,
                                 const std::string &what) {
  std::vector<Value *> out;
  for (const SVal &e : listArg(v)) out.push_back(descScalar(l, e, want, loc, what));
  return out;
}

void checkBlock(Lowerer &l, DType elem, const std::vector<int64_t> &block, SourceLoc loc) {
  if (block.empty() || block.size() > kMaxRank)
    l.error(loc, "a tensor descriptor has 1 to 5 dimensions, got " + std::to_string(block.size()));
  int64_t contig = block.back() * (bitWidth(elem) / 8);
  if (contig < 16)
    l.error(loc,
            "Descriptor block shape must have at least 16 bytes in the last dimension, but got " +
                std::to_string(block.back()) + " * " + std::to_string(bitWidth(elem) / 8) + " = " +
                std::to_string(contig) + " bytes",
            "widen the last block dimension (the tensor memory accelerator moves 16-byte rows)");
}

}  // namespace

SVal descriptorValue(Value *base, const std::vector<Value *> &shape,
                     const std::vector<Value *> &strides, const std::vector<int64_t> &block,
                     bool nanPadding) {
  SVal r;
  r.kind = SVal::Kind::TensorDesc;
  r.elems.push_back(SVal::tensor(base));
  for (Value *v : shape) r.elems.push_back(SVal::tensor(v));
  for (Value *v : strides) r.elems.push_back(SVal::tensor(v));
  r.ints = block;
  r.ints2 = {nanPadding ? 1 : 0};
  return r;
}

namespace {

SVal makeTensorDescriptor(Lowerer &l, A &a) {
  const SVal &baseV = a["base"];
  if (!baseV.isTensor() || !baseV.v->type.isPtr())
    l.error(
        a.locOf("base"),
        "tl.make_tensor_descriptor expects `base` to be a scalar pointer, got " + describe(baseV),
        "pass a kernel pointer argument (optionally plus a scalar offset)");
  Value *base = baseV.v;
  DType elem = base->type.dtype;
  if (elem == DType::I1)
    l.error(a.locOf("base"), "tensor descriptors of tl.int1 are not supported",
            "store booleans as tl.int8 and compare with zero after loading");
  std::vector<int64_t> block =
      blockShape(l, a["block_shape"], a.locOf("block_shape"), "block_shape");
  checkBlock(l, elem, block, a.locOf("block_shape"));
  size_t n = block.size();
  std::vector<SVal> shapeV = listArg(a["shape"]), strideV = listArg(a["strides"]);
  if (shapeV.size() != n)
    l.error(a.locOf("shape"), "expected " + std::to_string(n) + " shape entries (one per " +
                                  "dimension of block_shape), got " +
                                  std::to_string(shapeV.size()));
  if (strideV.size() != n)
    l.error(a.locOf("strides"),
            "expected " + std::to_string(n) + " strides, got " + std::to_string(strideV.size()));
  const SVal &last = strideV.back();
  if (!last.isIntLike() || last.i != 1)
    l.error(a.locOf("strides"),
            "Tensor descriptor last dim must be 1 but got " +
                (last.isIntLike() ? std::to_string(last.i) : describe(last)),
            "the last dimension must be contiguous (stride 1, a compile-time constant)");
  std::string pad = l.constStr(a["padding_option"], a.locOf("padding_option"), "padding_option");
  if (pad != "zero" && pad != "nan")
    l.error(a.locOf("padding_option"), "padding option '" + pad + "' not supported",
            "use 'zero' (the default) or 'nan'");
  if (pad == "nan" && !isFloat(elem))
    l.error(a.locOf("padding_option"), "Padding option `nan` is not supported for integer blocks",
            "use padding_option='zero'");
  std::vector<Value *> shape = descScalars(l, a["shape"], DType::I32, a.locOf("shape"), "shape");
  std::vector<Value *> strides =
      descScalars(l, a["strides"], DType::I64, a.locOf("strides"), "strides");
  // Triton documents the contract of a descriptor made in a kernel: the base
  // 16-byte aligned, every stride but the last a multiple of 16 bytes. Said
  // to axis info, the tiles' rows load as 16-byte vectors.
  auto hinted = [&](Value *v, int64_t divisibility) {
    return l.emit(OpCode::Hint, {v}, v->type, a.loc,
                  {{"divisibility", std::vector<int64_t>{divisibility}}});
  };
  base = hinted(base, 16);
  int64_t strideElems = std::max<int64_t>(1, 16 / byteSize(elem));
  for (size_t i = 0; i + 1 < n; ++i) strides[i] = hinted(strides[i], strideElems);
  return descriptorValue(base, shape, strides, block, pad == "nan");
}

// The call's block offsets (i32), one per dim of `d`.
std::vector<Value *> blockOffsets(Lowerer &l, const DescParts &d, const SVal &offsetsV,
                                  SourceLoc loc, const std::string &fn) {
  std::vector<Value *> offsets = descScalars(l, offsetsV, DType::I32, loc, "offsets");
  if (offsets.size() != d.block.size())
    l.error(loc, fn + " needs " + std::to_string(d.block.size()) + " offsets (one per " +
                     "dimension of the descriptor), got " + std::to_string(offsets.size()));
  return offsets;
}

// The block at `offsets` as block-pointer parts (every dim checked).
BlockParts blockAt(Lowerer &l, const DescParts &d, const SVal &offsetsV, SourceLoc loc,
                   const std::string &fn) {
  std::vector<Value *> offsets = blockOffsets(l, d, offsetsV, loc, fn);
  BlockParts p;
  p.base = d.base;
  for (Value *s : d.shape) p.shape.push_back(l.castTo(s, DType::I64, loc));
  p.strides = d.strides;
  p.offsets = offsets;
  p.block = d.block;
  return p;
}

std::vector<int64_t> allDims(size_t n) {
  std::vector<int64_t> dims(n);
  for (size_t i = 0; i < n; ++i) dims[i] = static_cast<int64_t>(i);
  return dims;
}

Value *padding(Lowerer &l, const DescParts &d, const std::vector<int64_t> &shape, SourceLoc loc) {
  DType elem = d.base->type.dtype;
  l.builder().setLoc(loc);
  Value *other = d.nanPadding ? l.constant(std::nan(""), Type::scalar(elem))
                              : l.constantInt(0, Type::scalar(elem));
  return l.broadcastTo(other, shape, loc);
}

Value *maskedLoad(Lowerer &l, const DescParts &d, Value *ptrs, Value *mask, SourceLoc loc) {
  Type rt = ptrs->type.withElement(Type::scalar(d.base->type.dtype));
  return l.emit(OpCode::Load, {ptrs, mask, padding(l, d, ptrs->type.shape, loc)}, rt, loc,
                {{"cache", std::string()}, {"evict", std::string()}, {"volatile", int64_t{0}}});
}

// The operands of a descriptor_load or descriptor_store of `d`'s block at
// the call's offsets: base, shapes, strides, offsets.
std::vector<Value *> blockOperands(Lowerer &l, A &a, const DescParts &d) {
  std::vector<Value *> offsets = blockOffsets(l, d, a["offsets"], a.locOf("offsets"), a.name);
  std::vector<Value *> ops{d.base};
  ops.insert(ops.end(), d.shape.begin(), d.shape.end());
  ops.insert(ops.end(), d.strides.begin(), d.strides.end());
  ops.insert(ops.end(), offsets.begin(), offsets.end());
  return ops;
}

// A descriptor_load: the GPU passes either hand it to the tensor memory
// accelerator or expand it as the other accesses here are
// (ir/descriptor_load.h).
SVal load(Lowerer &l, A &a) {
  DescParts d = parts(descArg(l, a));
  std::vector<Value *> ops = blockOperands(l, a, d);
  return SVal::tensor(
      l.emit(OpCode::DescriptorLoad, ops, Type::tile(d.block, Type::scalar(d.base->type.dtype)),
             a.loc, {{"block", d.block}, {"padding", std::string(d.nanPadding ? "nan" : "zero")}}));
}

std::string shapeText(const std::vector<int64_t> &s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

// The stored value: a tile of exactly `shape` (Triton's validate_store_like),
// converted to the descriptor's element type.
Value *storedValue(Lowerer &l, A &a, const DescParts &d, const std::vector<int64_t> &shape) {
  Value *val = l.tensorArg(a["value"], a.locOf("value"), "the stored value");
  if (val->type.isPtrLike()) l.error(a.locOf("value"), "storing pointers is not supported");
  if (val->type.shape != shape)
    l.error(a.locOf("value"),
            a.name + ": the value has shape " + shapeText(val->type.shape) +
                " but the descriptor's block is " + shapeText(shape),
            "store a tile of the block's shape");
  return l.castTo(val, d.base->type.dtype, a.locOf("value"));
}

void maskedStore(Lowerer &l, Value *ptrs, Value *val, Value *mask, SourceLoc loc) {
  l.checkWritablePointer(ptrs, loc, "a descriptor store");
  l.builder().setLoc(loc);
  l.builder().create(OpCode::Store, {ptrs, val, mask}, {},
                     {{"cache", std::string()}, {"evict", std::string()}});
}

// A descriptor_store: expanded as the other accesses here are
// (ir/descriptor_load.h), by the GPU passes or before the interpreter runs.
SVal store(Lowerer &l, A &a) {
  DescParts d = parts(descArg(l, a));
  Value *val = storedValue(l, a, d, d.block);
  std::vector<Value *> ops = blockOperands(l, a, d);
  l.checkWritablePointer(d.base, a.loc, "a descriptor store");
  ops.push_back(val);
  l.builder().setLoc(a.loc);
  l.builder().create(OpCode::DescriptorStore, ops, {}, {{"block", d.block}});
  return SVal::none();
}

// desc.atomic_<op>(offsets, value): an element-wise atomic on the block, as
// the tensor memory accelerator's reductions do (relaxed, nothing returned).
SVal atomic(Lowerer &l, A &a, const std::string &op, std::initializer_list<DType> allowed) {
  DescParts d = parts(descArg(l, a));
  DType elem = d.base->type.dtype;
  if (std::find(allowed.begin(), allowed.end(), elem) == allowed.end()) {
    std::string names;
    for (DType t : allowed) names += (names.empty() ? "" : ", ") + std::string(tritonName(t));
    l.error(a.locs[0], a.name + " does not support " + tritonName(elem) + " descriptors",
            "supported element types: " + names);
  }
  Value *val = storedValue(l, a, d, d.block);
  Value *ptrs, *mask;
  blockAddresses(l, blockAt(l, d, a["offsets"], a.locOf("offsets"), a.name),
                 allDims(d.block.size()), a.loc, ptrs, mask);
  l.emit(OpCode::AtomicRmw, {ptrs, val, mask}, val->type, a.loc,
         {{"kind", op}, {"scope", std::string("gpu")}, {"sem", std::string("relaxed")}});
  return SVal::none();
}

SVal atomicAdd(Lowerer &l, A &a) {
  return atomic(l, a, "add",
                {DType::U32, DType::I32, DType::U64, DType::F32, DType::F16, DType::BF16});
}
SVal atomicMin(Lowerer &l, A &a) {
  return atomic(l, a, "min", {DType::U32, DType::I32, DType::U64, DType::I64});
}
SVal atomicMax(Lowerer &l, A &a) {
  return atomic(l, a, "max", {DType::U32, DType::I32, DType::U64, DType::I64});
}
SVal atomicAnd(Lowerer &l, A &a) {
  return atomic(l, a, "and", {DType::U32, DType::I32, DType::U64, DType::I64});
}
SVal atomicOr(Lowerer &l, A &a) {
  return atomic(l, a, "or", {DType::U32, DType::I32, DType::U64, DType::I64});
}
SVal atomicXor(Lowerer &l, A &a) {
  return atomic(l, a, "xor", {DType::U32, DType::I32, DType::U64, DType::I64});
}

// gather / scatter: rows x_offsets[i] (a 1-D tile) of a 2-D descriptor whose
// block is one row, columns y_offset + [0, block[1]).
void rowAddresses(Lowerer &l, A &a, const DescParts &d, Value *&ptrs, Value *&mask,
                  std::vector<int64_t> &shape) {
  SourceLoc loc = a.loc;
  if (d.block.size() != 2 || d.block[0] != 1)
    l.error(
        a.locs[0],
        a.name + " needs a 2-D descriptor whose block is one row, got block " + shapeText(d.block),
        "make the descriptor with block_shape=[1, COLUMNS]");
  Value *rows = l.tensorArg(a["x_offsets"], a.locOf("x_offsets"), "x_offsets");
  if (rows->type.rank() != 1 || rows->type.isPtrLike() || !isInt(rows->type.dtype))
    l.error(a.locOf("x_offsets"),
            "x_offsets must be a 1-D tile of integers, got " + describe(SVal::tensor(rows)));
  if (rows->type.shape[0] < 8)
    l.error(a.locOf("x_offsets"),
            a.name + " must have at least 8 rows, got " + std::to_string(rows->type.shape[0]));
  int64_t nr = rows->type.shape[0], nc = d.block[1];
  shape = {nr, nc};
  Value *col0 = descScalar(l, a["y_offset"], DType::I32, a.locOf("y_offset"), "offsets");
  Type i1 = Type::scalar(DType::I1);
  // Rows [nr, 1] and columns [1, nc], each checked against its bound.
  Value *r = l.castTo(l.castTo(rows, DType::I32, loc), DType::I64, loc);
  r = l.emit(OpCode::Reshape, {r}, r->type.withShape({nr, 1}), loc);
  Value *c = l.emit(OpCode::Arange, {}, tileOf({nc}, DType::I32), loc,
                    {{"end", nc}, {"start", int64_t{0}}});
  c = l.emit(OpCode::Add, {l.broadcastTo(col0, {nc}, loc), c}, c->type, loc);
  c = l.castTo(c, DType::I64, loc);
  c = l.emit(OpCode::Reshape, {c}, c->type.withShape({1, nc}), loc);
  auto inBounds = [&](Value *idx, Value *bound) {
    const std::vector<int64_t> &s = idx->type.shape;
    l.builder().setLoc(loc);
    Value *zero = l.broadcastTo(l.constantInt(0, Type::scalar(DType::I64)), s, loc);
    Value *ge = l.emit(OpCode::Cmp, {idx, zero}, idx->type.withElement(i1), loc,
                       {{"pred", std::string("ge")}});
    Value *hi = l.broadcastTo(l.castTo(bound, DType::I64, loc), s, loc);
    Value *lt = l.emit(OpCode::Cmp, {idx, hi}, idx->type.withElement(i1), loc,
                       {{"pred", std::string("lt")}});
    return l.broadcastTo(l.emit(OpCode::And, {ge, lt}, ge->type, loc), shape, loc);
  };
  Value *rowIn = inBounds(r, d.shape[0]), *colIn = inBounds(c, d.shape[1]);
  mask = l.emit(OpCode::And, {rowIn, colIn}, rowIn->type, loc);
  Value *rowOff = l.emit(OpCode::Mul, {r, l.broadcastTo(d.strides[0], {nr, 1}, loc)}, r->type, loc);
  Value *offset =
      l.emit(OpCode::Add, {l.broadcastTo(rowOff, shape, loc), l.broadcastTo(c, shape, loc)},
             tileOf(shape, DType::I64), loc);
  Value *base = l.broadcastTo(d.base, shape, loc);
  ptrs = l.emit(OpCode::AddPtr, {base, offset}, base->type, loc);
}

SVal gather(Lowerer &l, A &a) {
  DescParts d = parts(descArg(l, a));
  Value *ptrs, *mask;
  std::vector<int64_t> shape;
  rowAddresses(l, a, d, ptrs, mask, shape);
  return SVal::tensor(maskedLoad(l, d, ptrs, mask, a.loc));
}

SVal scatter(Lowerer &l, A &a) {
  DescParts d = parts(descArg(l, a));
  Value *ptrs, *mask;
  std::vector<int64_t> shape;
  rowAddresses(l, a, d, ptrs, mask, shape);
  maskedStore(l, ptrs, storedValue(l, a, d, shape), mask, a.loc);
  return SVal::none();
}

}  // namespace

std::vector<BuiltinDef> descriptorBuiltins() {
  return {
      {"tl.make_tensor_descriptor",
       {"base", "shape", "strides", "block_shape", "padding_option='zero'"},
       makeTensorDescriptor},
      {"tl.load_tensor_descriptor", {"desc", "offsets"}, load},
      {"tl.store_tensor_descriptor", {"desc", "offsets", "value"}, store},
      {"tensor_descriptor.load", {"self", "offsets"}, load},
      {"tensor_descriptor.store", {"self", "offsets", "value"}, store},
      {"tensor_descriptor.atomic_add", {"self", "offsets", "value"}, atomicAdd},
      {"tensor_descriptor.atomic_min", {"self", "offsets", "value"}, atomicMin},
      {"tensor_descriptor.atomic_max", {"self", "offsets", "value"}, atomicMax},
      {"tensor_descriptor.atomic_and", {"self", "offsets", "value"}, atomicAnd},
      {"tensor_descriptor.atomic_or", {"self", "offsets", "value"}, atomicOr},
      {"tensor_descriptor.atomic_xor", {"self", "offsets", "value"}, atomicXor},
      {"tensor_descriptor.gather", {"self", "x_offsets", "y_offset"}, gather},
      {"tensor_descriptor.scatter", {"self", "value", "x_offsets", "y_offset"}, scatter},
  };
}

}  // namespace tessera::frontend
