// Builtins: atomics (atomic_add/max/min/and/or/xor/xchg/cas) and block
// pointers (make_block_ptr, advance, and the block-pointer forms of tl.load and
// tl.store). Block pointers never reach the IR: a store through one, and a
// load of other than a rank-2 block of 8- or 16-bit elements, becomes a tile
// of plain pointers plus a boundary mask, handled by the ordinary load/store
// ops; such a rank-2 load becomes a descriptor_load (blockAsDescriptorLoad),
// which means the same masked load and which the tensor memory accelerator
// may serve.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "frontend/builtin_util.h"
#include "ir/descriptor_load.h"

namespace tessera::frontend {

namespace {

using A = CallArgs;

// ---- atomics ---------------------------------------------------------------------------

std::string semArg(Lowerer &l, A &a) {
  if (a["sem"].isNone()) return "acq_rel";
  std::string s = l.constStr(a["sem"], a.locOf("sem"), "sem");
  if (s != "acq_rel" && s != "acquire" && s != "release" && s != "relaxed")
    l.error(a.locOf("sem"), "memory semantic '" + s + "' not supported",
            "use 'acq_rel' (the default), 'acquire', 'release' or 'relaxed'");
  return s;
}

std::string scopeArg(Lowerer &l, A &a) {
  if (a["scope"].isNone()) return "gpu";
  std::string s = l.constStr(a["scope"], a.locOf("scope"), "scope");
  if (s != "gpu" && s != "cta" && s != "sys")
    l.error(a.locOf("scope"), "memory scope '" + s + "' not supported",
            "use 'gpu' (the default), 'cta' or 'sys'");
  return s;
}

Value *atomicPointer(Lowerer &l, A &a) {
  const SVal &p = a["pointer"];
  if (p.kind == SVal::Kind::BlockPtr)
    l.error(a.locOf("pointer"), a.name + " does not accept block pointers",
            "compute a tile of pointers, e.g. ptr + offsets");
  if (!p.isTensor() || !p.v->type.isPtrLike())
    l.error(a.locOf("pointer"),
            a.name + " expects a pointer or a tensor of pointers, got " + describe(p),
            "pass a kernel pointer argument plus offsets, e.g. x_ptr + offsets");
  l.checkWritablePointer(p.v, a.locOf("pointer"), a.name);
  return p.v;
}

// Triton's atom_red_typechecking_impl, for the operation `op` ("add", ...).
void checkAtomicDType(Lowerer &l, A &a, DType elem, const std::string &op) {
  std::string dt = tritonName(elem);
  SourceLoc loc = a.locOf("pointer");
  if ((elem == DType::F16 || elem == DType::BF16) && op != "add")
    l.error(loc, a.name + " does not support " + dt, "only tl.atomic_add accepts 16-bit floats");
  if (elem == DType::I1 || elem == DType::I8 || elem == DType::I16 || elem == DType::U8 ||
      elem == DType::U16)
    l.error(loc, a.name + " does not support " + dt,
            "atomics need 32- or 64-bit elements; use an int32 buffer");
  if (isFp8(elem))
    l.error(loc, a.name + " does not support " + dt, "atomics on float8 are not supported");
  if ((op == "and" || op == "or" || op == "xor") && isFloat(elem))
    l.error(loc, a.name + " needs integer elements, got " + dt,
            "bitwise atomics apply to integer buffers");
  if ((op == "max" || op == "min") && isFloat(elem) && elem != DType::F32 && elem != DType::F64)
    l.error(loc, a.name + " does not support " + dt);
}

// The mask (cast to bool) and the pointer broadcast to a common shape. A tile
// value needs a tile pointer: the pointer decides how many atomics happen.
void atomicShapes(Lowerer &l, A &a, Value *&ptr, Value *&mask, std::vector<Value *> &vals,
                  const std::vector<std::string> &valNames) {
  bool hasMask = std::find(a.params.begin(), a.params.end(), "mask") != a.params.end();
  if (hasMask && !a["mask"].isNone()) {
    mask = l.cast(l.tensorArg(a["mask"], a.locOf("mask"), "the mask"), Type::scalar(DType::I1),
                  a.locOf("mask"));
    if (mask->type.isTile() && !ptr->type.isTile())
      ptr = l.broadcastTo(ptr, mask->type.shape, a.loc);
    mask = l.broadcastTo(mask, ptr->type.shape, a.locOf("mask"));
  }
  for (size_t i = 0; i < vals.size(); ++i) {
    const std::string &name = valNames[i];
    if (vals[i]->type.isPtrLike())
      l.error(a.locOf(name), a.name + " does not accept pointers as '" + name + "'");
    if (!ptr->type.isTile() && vals[i]->type.isTile())
      l.error(a.locOf(name),
              a.name + ": '" + name + "' is a tensor (" + describe(SVal::tensor(vals[i])) +
                  ") but the pointer is a scalar",
              "add offsets to the pointer so it has the value's shape, e.g. ptr + tl.arange(0, N)");
    vals[i] = l.broadcastTo(vals[i], ptr->type.shape, a.locOf(name));
    vals[i] = l.castTo(vals[i], ptr->type.dtype, a.locOf(name));
  }
}

SVal atomicRmw(Lowerer &l, A &a, const char *kind) {
  Value *ptr = atomicPointer(l, a);
  checkAtomicDType(l, a, ptr->type.dtype, kind);
  std::string sem = semArg(l, a), scope = scopeArg(l, a);
  Value *mask = nullptr;
  std::vector<Value *> vals{l.tensorArg(a["val"], a.locOf("val"), "the value of " + a.name)};
  atomicShapes(l, a, ptr, mask, vals, {"val"});
  std::vector<Value *> ops{ptr, vals[0]};
  if (mask) ops.push_back(mask);
  return SVal::tensor(l.emit(OpCode::AtomicRmw, ops, vals[0]->type, a.loc,
                             {{"kind", std::string(kind)}, {"scope", scope}, {"sem", sem}}));
}

SVal atomicAdd(Lowerer &l, A &a) {
  return atomicRmw(l, a, "add");
}
SVal atomicMax(Lowerer &l, A &a) {
  return atomicRmw(l, a, "max");
}
SVal atomicMin(Lowerer &l, A &a) {
  return atomicRmw(l, a, "min");
}
SVal atomicAnd(Lowerer &l, A &a) {
  return atomicRmw(l, a, "and");
}
SVal atomicOr(Lowerer &l, A &a) {
  return atomicRmw(l, a, "or");
}
SVal atomicXor(Lowerer &l, A &a) {
  return atomicRmw(l, a, "xor");
}
SVal atomicXchg(Lowerer &l, A &a) {
  return atomicRmw(l, a, "xchg");
}

SVal atomicCas(Lowerer &l, A &a) {
  Value *ptr = atomicPointer(l, a);
  DType elem = ptr->type.dtype;
  int bits = bitWidth(elem);
  if (bits != 16 && bits != 32 && bits != 64)
    l.error(a.locOf("pointer"),
            std::string("tl.atomic_cas only supports elements of width 16, 32 or 64, got ") +
                tritonName(elem));
  std::string sem = semArg(l, a), scope = scopeArg(l, a);
  Value *mask = nullptr;
  std::vector<Value *> vals{l.tensorArg(a["cmp"], a.locOf("cmp"), "the compared value"),
                            l.tensorArg(a["val"], a.locOf("val"), "the new value")};
  atomicShapes(l, a, ptr, mask, vals, {"cmp", "val"});
  return SVal::tensor(l.emit(OpCode::AtomicCas, {ptr, vals[0], vals[1]}, vals[1]->type, a.loc,
                             {{"scope", scope}, {"sem", sem}}));
}

// ---- block pointers ------------------------------------------------------------------------

std::vector<SVal> listArg(const SVal &v) {
  return v.kind == SVal::Kind::Tuple ? v.elems : std::vector<SVal>{v};
}

// Triton's _convert_elem_to_ir_value: shape and strides become i64 scalars,
// offsets i32 scalars. Constants become runtime values too, so a block
// pointer has the same structure before and after tl.advance (loop-carried).
Value *blockScalar(Lowerer &l, const SVal &v, bool i64, SourceLoc loc, const std::string &what) {
  DType d = i64 ? DType::I64 : DType::I32;
  if (v.isIntLike()) {
    if (!i64 &&
        (v.i < std::numeric_limits<int32_t>::min() || v.i > std::numeric_limits<int32_t>::max()))
      l.error(loc, "block pointers only support 32-bit " + what + ", got " + std::to_string(v.i));
    l.builder().setLoc(loc);
    return l.constantInt(v.i, Type::scalar(d));
  }
  if (!v.isTensor())
    l.error(loc, "the " + what + " of a block pointer must be integers, got " + describe(v));
  Value *x = v.v;
  if (x->type.isTile() || x->type.isPtrLike() || !isInt(x->type.dtype))
    l.error(loc, "expected an integer scalar in the " + what + " of a block pointer, got " +
                     describe(v));
  if (i64) return l.castTo(x, DType::I64, loc);
  if (x->type.dtype != DType::I32)
    l.error(loc, "block pointers only support 32-bit offsets, got " + describe(v),
            "add a .to(tl.int32) or use regular indexing for 64-bit support");
  return x;
}

std::vector<Value *> blockScalars(Lowerer &l, const SVal &v, bool i64, SourceLoc loc,
                                  const std::string &what) {
  std::vector<Value *> out;
  for (const SVal &e : listArg(v)) out.push_back(blockScalar(l, e, i64, loc, what));
  return out;
}

SVal makeBlockPtr(Lowerer &l, A &a) {
  const SVal &baseV = a["base"];
  if (!baseV.isTensor() || !baseV.v->type.isPtr())
    l.error(a.locOf("base"),
            "tl.make_block_ptr expects `base` to be a scalar pointer, got " + describe(baseV),
            "pass a kernel pointer argument (optionally plus a scalar offset)");
  Value *base = baseV.v;
  // Bools live in memory as bytes, as with plain pointers.
  if (base->type.dtype == DType::I1)
    base = l.cast(base, Type::ptr(DType::I8, base->type.addrSpace), a.loc);
  std::vector<Value *> shape = blockScalars(l, a["shape"], true, a.locOf("shape"), "shape");
  std::vector<Value *> strides = blockScalars(l, a["strides"], true, a.locOf("strides"), "strides");
  std::vector<Value *> offsets =
      blockScalars(l, a["offsets"], false, a.locOf("offsets"), "offsets");
  std::vector<int64_t> block =
      blockShape(l, a["block_shape"], a.locOf("block_shape"), "block_shape");
  std::vector<int64_t> order = l.constInts(a["order"], a.locOf("order"), "the order");
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      l.error(a.locOf("order"), "expected a permutation of (0, 1, ..., len(order)-1) in order");
  size_t n = block.size();
  if (shape.size() != n || strides.size() != n || offsets.size() != n || order.size() != n)
    l.error(a.loc,
            "tl.make_block_ptr: shape, strides, offsets, block_shape and order must have the "
            "same length (got " +
                std::to_string(shape.size()) + ", " + std::to_string(strides.size()) + ", " +
                std::to_string(offsets.size()) + ", " + std::to_string(n) + ", " +
                std::to_string(order.size()) + ")",
            "give one entry per dimension of the block");
  SVal r;
  r.kind = SVal::Kind::BlockPtr;
  r.elems.push_back(SVal::tensor(base));
  for (auto *group : {&shape, &strides, &offsets})
    for (Value *v : *group) r.elems.push_back(SVal::tensor(v));
  r.ints = block;
  r.ints2 = order;
  return r;
}

const SVal &blockPtrArg(Lowerer &l, const SVal &v, SourceLoc loc, const std::string &fn) {
  if (v.kind != SVal::Kind::BlockPtr)
    l.error(loc, fn + " expects a block pointer made by tl.make_block_ptr, got " + describe(v));
  return v;
}

// Rank of a block pointer and its parts: elems = base, shape[n], strides[n], offsets[n].
BlockParts parts(const SVal &bp) {
  BlockParts p;
  size_t n = bp.ints.size();
  p.base = bp.elems[0].v;
  for (size_t i = 0; i < n; ++i) {
    p.shape.push_back(bp.elems[1 + i].v);
    p.strides.push_back(bp.elems[1 + n + i].v);
    p.offsets.push_back(bp.elems[1 + 2 * n + i].v);
  }
  p.block = bp.ints;
  return p;
}

SVal advance(Lowerer &l, A &a) {
  SVal bp = blockPtrArg(l, a["base"], a.locOf("base"), "tl.advance");
  std::vector<Value *> offs = blockScalars(l, a["offsets"], false, a.locOf("offsets"), "offsets");
  size_t n = bp.ints.size();
  if (offs.size() != n)
    l.error(a.locOf("offsets"), "tl.advance needs " + std::to_string(n) + " offsets (one per " +
                                    "dimension of the block), got " + std::to_string(offs.size()));
  SVal r = bp;
  for (size_t i = 0; i < n; ++i) {
    SVal &o = r.elems[1 + 2 * n + i];
    o = l.binary(ast::BinOp::Add, o, SVal::tensor(offs[i]), a.loc);
  }
  return r;
}

std::vector<int64_t> boundaryCheck(Lowerer &l, const SVal &v, size_t rank, SourceLoc loc) {
  std::vector<int64_t> dims;
  if (v.isNone() || (v.kind == SVal::Kind::Tuple && v.elems.empty())) return dims;
  dims = l.constInts(v, loc, "boundary_check");
  std::set<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= static_cast<int64_t>(rank))
      l.error(loc, "boundary_check dimension " + std::to_string(d) +
                       " is out of range for a block of rank " + std::to_string(rank));
    if (!seen.insert(d).second) l.error(loc, "duplicate dimension in boundary_check");
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

}  // namespace

void blockAddresses(Lowerer &l, const BlockParts &p, const std::vector<int64_t> &checked,
                    SourceLoc loc, Value *&ptrs, Value *&mask) {
  const std::vector<int64_t> &block = p.block;
  size_t n = block.size();
  Type i1 = Type::scalar(DType::I1);
  Value *offset = nullptr;
  mask = nullptr;
  for (size_t d = 0; d < n; ++d) {
    Value *r = l.emit(OpCode::Arange, {}, tileOf({block[d]}, DType::I32), loc,
                      {{"end", block[d]}, {"start", int64_t{0}}});
    Value *idx =
        l.emit(OpCode::Add, {l.broadcastTo(p.offsets[d], {block[d]}, loc), r}, r->type, loc);
    idx = l.castTo(idx, DType::I64, loc);
    // Shape [1, .., block[d], .., 1] so the dims broadcast against each other.
    std::vector<int64_t> s(n, 1);
    s[d] = block[d];
    if (n > 1) idx = l.emit(OpCode::Reshape, {idx}, idx->type.withShape(s), loc);
    Value *term = l.emit(OpCode::Mul, {idx, l.broadcastTo(p.strides[d], s, loc)}, idx->type, loc);
    term = l.broadcastTo(term, block, loc);
    offset = offset ? l.emit(OpCode::Add, {offset, term}, term->type, loc) : term;
    if (std::find(checked.begin(), checked.end(), static_cast<int64_t>(d)) == checked.end())
      continue;
    l.builder().setLoc(loc);
    Value *zero = l.broadcastTo(l.constantInt(0, Type::scalar(DType::I64)), s, loc);
    Value *ge = l.emit(OpCode::Cmp, {idx, zero}, idx->type.withElement(i1), loc,
                       {{"pred", std::string("ge")}});
    Value *lt = l.emit(OpCode::Cmp, {idx, l.broadcastTo(p.shape[d], s, loc)},
                       idx->type.withElement(i1), loc, {{"pred", std::string("lt")}});
    Value *in = l.broadcastTo(l.emit(OpCode::And, {ge, lt}, ge->type, loc), block, loc);
    mask = mask ? l.emit(OpCode::And, {mask, in}, in->type, loc) : in;
  }
  Value *base = l.broadcastTo(p.base, block, loc);
  ptrs = l.emit(OpCode::AddPtr, {base, offset}, base->type, loc);
}

namespace {

// The integer a value is, looking through casts (nullopt if not constant).
std::optional<int64_t> intConstant(const Value *v) {
  while (v->def && v->def->code == OpCode::Cast && isInt(v->def->operand(0)->type.dtype))
    v = v->def->operand(0);
  if (!v->def || v->def->code != OpCode::Constant) return std::nullopt;
  const Attr *a = v->def->attr("value");
  const int64_t *i = a ? std::get_if<int64_t>(a) : nullptr;
  return i ? std::optional<int64_t>(*i) : std::nullopt;
}

// A rank-2 block of 8- or 16-bit elements loads as a descriptor_load,
// checking the boundary_check dims only. It means the same load
// (ir/descriptor_load.h), and on sm_90a the tensor memory accelerator may
// fill a dot's ring from it. When the first dim is the one of stride 1
// here (order (0, 1)), the transposed block is loaded and transposed back;
// when that is known only once the callee is inlined,
// expand-descriptor-loads turns it then. Else null.
Value *blockAsDescriptorLoad(Lowerer &l, const BlockParts &p, const std::vector<int64_t> &checked,
                             bool nan, SourceLoc loc) {
  DType elem = p.base->type.dtype;
  if (p.block.size() != 2 || (byteSize(elem) != 1 && byteSize(elem) != 2)) return nullptr;
  std::vector<Value *> ops{p.base};
  ops.insert(ops.end(), p.shape.begin(), p.shape.end());
  ops.insert(ops.end(), p.strides.begin(), p.strides.end());
  ops.insert(ops.end(), p.offsets.begin(), p.offsets.end());
  std::vector<NamedAttr> attrs{{"block", p.block}, {"padding", std::string(nan ? "nan" : "zero")}};
  if (checked.size() != 2) attrs.push_back({"checks", checked});
  Value *v = l.emit(OpCode::DescriptorLoad, ops, Type::tile(p.block, Type::scalar(elem)), loc,
                    std::move(attrs));
  bool firstContiguous = intConstant(p.strides[1]) != 1 && intConstant(p.strides[0]) == 1;
  return firstContiguous ? transposeDescriptorLoad(*v->def) : v;
}

SVal loadBlockPtr(Lowerer &l, A &a) {
  BlockParts p = parts(blockPtrArg(l, a["pointer"], a.locOf("pointer"), "tl.load"));
  DType elem = p.base->type.dtype;
  std::string pad = l.constStr(a["padding_option"], a.locOf("padding_option"), "padding_option");
  if (pad != "" && pad != "zero" && pad != "nan")
    l.error(a.locOf("padding_option"), "padding option '" + pad + "' not supported",
            "use 'zero' or 'nan'");
  if (pad == "nan" && !isFloat(elem))
    l.error(a.locOf("padding_option"),
            "padding option 'nan' is not supported for integer block pointers",
            "use padding_option='zero'");
  std::vector<int64_t> checked =
      boundaryCheck(l, a["boundary_check"], p.block.size(), a.locOf("boundary_check"));
  if (Value *v = blockAsDescriptorLoad(l, p, checked, pad == "nan", a.loc)) return SVal::tensor(v);
  Value *ptrs, *mask;
  blockAddresses(l, p, checked, a.loc, ptrs, mask);
  Type rt = ptrs->type.withElement(Type::scalar(elem));
  std::vector<Value *> ops{ptrs};
  if (mask) {
    // Out-of-bounds elements read the padding value (zero when unspecified).
    l.builder().setLoc(a.loc);
    Value *other = pad == "nan" ? l.constant(std::nan(""), Type::scalar(elem))
                                : l.constantInt(0, Type::scalar(elem));
    ops.push_back(mask);
    ops.push_back(l.broadcastTo(other, p.block, a.loc));
  }
  return SVal::tensor(
      l.emit(OpCode::Load, ops, rt, a.loc,
             {{"cache", std::string()}, {"evict", std::string()}, {"volatile", int64_t{0}}}));
}

SVal storeBlockPtr(Lowerer &l, A &a) {
  BlockParts p = parts(blockPtrArg(l, a["pointer"], a.locOf("pointer"), "tl.store"));
  DType elem = p.base->type.dtype;
  const SVal &v = a["value"];
  Value *val;
  if (v.isNumber()) {
    val = l.toValue(v, a.locOf("value"), elem);
  } else {
    val = l.tensorArg(v, a.locOf("value"), "the stored value");
    if (val->type.isPtrLike()) l.error(a.locOf("value"), "storing pointers is not supported");
    if (val->type.isTile() && val->type.shape != p.block) {
      std::string bs, vs;
      for (int64_t d : p.block) bs += (bs.empty() ? "" : ", ") + std::to_string(d);
      for (int64_t d : val->type.shape) vs += (vs.empty() ? "" : ", ") + std::to_string(d);
      l.error(a.locOf("value"), "block shape [" + bs + "] and value shape [" + vs + "] mismatch",
              "the stored tile must have the block pointer's block_shape");
    }
    if (val->type.dtype != elem)
      l.error(a.locOf("value"),
              std::string("block element type (") + tritonName(elem) +
                  ") and value element type (" + tritonName(val->type.dtype) + ") mismatch",
              std::string("convert the value first, e.g. x.to(tl.") + tritonName(elem) + ")");
  }
  val = l.broadcastTo(val, p.block, a.locOf("value"));
  std::vector<int64_t> checked =
      boundaryCheck(l, a["boundary_check"], p.block.size(), a.locOf("boundary_check"));
  Value *ptrs, *mask;
  blockAddresses(l, p, checked, a.loc, ptrs, mask);
  l.checkWritablePointer(ptrs, a.locOf("pointer"), "tl.store");
  std::vector<Value *> ops{ptrs, val};
  if (mask) ops.push_back(mask);
  l.builder().setLoc(a.loc);
  l.builder().create(OpCode::Store, ops, {}, {{"cache", std::string()}, {"evict", std::string()}});
  return SVal::none();
}

}  // namespace

std::vector<BuiltinDef> memoryBuiltins() {
  return {
      {"tl.atomic_add", {"pointer", "val", "mask=None", "sem=None", "scope=None"}, atomicAdd},
      {"tl.atomic_max", {"pointer", "val", "mask=None", "sem=None", "scope=None"}, atomicMax},
      {"tl.atomic_min", {"pointer", "val", "mask=None", "sem=None", "scope=None"}, atomicMin},
      {"tl.atomic_and", {"pointer", "val", "mask=None", "sem=None", "scope=None"}, atomicAnd},
      {"tl.atomic_or", {"pointer", "val", "mask=None", "sem=None", "scope=None"}, atomicOr},
      {"tl.atomic_xor", {"pointer", "val", "mask=None", "sem=None", "scope=None"}, atomicXor},
      {"tl.atomic_xchg", {"pointer", "val", "mask=None", "sem=None", "scope=None"}, atomicXchg},
      {"tl.atomic_cas", {"pointer", "cmp", "val", "sem=None", "scope=None"}, atomicCas},
      {"tl.make_block_ptr",
       {"base", "shape", "strides", "offsets", "block_shape", "order"},
       makeBlockPtr},
      {"tl.advance", {"base", "offsets"}, advance},
      {"tl._load_block_ptr", {"pointer", "boundary_check=()", "padding_option=''"}, loadBlockPtr},
      {"tl._store_block_ptr", {"pointer", "value", "boundary_check=()"}, storeBlockPtr},
  };
}

}  // namespace tessera::frontend
