// The Tile IR verifier, type half: one rule per op of ops.def, selected by a
// switch with no `default:` so that a new op fails the build here until its
// rule is written. The structural walk (verifier.cpp) has already checked the
// op's counts and its regions' terminators. The rules of the ops with
// regions, of calls and of the shared-memory ops are in
// verifier_rules_regions.cpp.
//
// Layouts are not compared: GPU stages attach them, and the rules here are
// about shapes and element types, which layouts do not change.
#include "ir/descriptor_load.h"
#include "ir/inline_asm.h"
#include "ir/op_groups.h"
#include "ir/verifier_rules_impl.h"

namespace tessera::verifier_detail {

void Rules::check() {
  switch (op_.code) {
    case OpCode::Constant:
      return constant();
    case OpCode::ProgramId:
    case OpCode::NumPrograms: {
      int64_t axis = 0;
      if (!requireIntAttr("axis", axis)) return;
      if (axis < 0 || axis > 2) fail("axis must be 0, 1 or 2, got " + std::to_string(axis));
      if (!(out() == Type::scalar(DType::I32))) fail("result must be i32, got " + ty(out()));
      return;
    }
    case OpCode::Arange:
      return arange();
    case OpCode::Splat:
      return splat();
    case OpCode::Broadcast:
      return broadcast();
    case OpCode::ExpandDims:
      return expandDims();
    case OpCode::Reshape:
      return reshape();
    case OpCode::Permute:
      return permute();
    case OpCode::Join:
      return join();
    case OpCode::Split:
      return split();
    case OpCode::Cat:
      return cat();
    case OpCode::Flip:
    case OpCode::Sort: {
      int64_t axis = 0;
      if (!requireTile(in(0), "operand") || !axisAttr(in(0).rank(), axis)) return;
      if (op_.code == OpCode::Sort && !optionalFlagAttr("descending")) return;
      requireSameType(out(), in(0), "result", "the operand type");
      return;
    }
    case OpCode::Gather:
      return gather();
    case OpCode::Histogram:
      return histogram();
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Mul:
      if (elementwiseSameType(isNumeric, "integer or float")) optionalFlagAttr("precise");
      return;
    case OpCode::Div:
    case OpCode::Rem:
    case OpCode::Neg:
    case OpCode::Abs:
      elementwiseSameType(isNumeric, "integer or float");
      return;
    case OpCode::Max:
    case OpCode::Min:
      if (elementwiseSameType(isNumeric, "integer or float")) optionalFlagAttr("propagate_nan");
      return;
    case OpCode::Not:
    TESSERA_BITWISE_CASES:
    case OpCode::Umulhi:
      elementwiseSameType(isIntTy, "integer");
      return;
    case OpCode::Fma:
    TESSERA_UNARY_MATH_CASES:
      if (elementwiseSameType([](const Type &t) { return t.isFloatLike(); }, "float") &&
          op_.code == OpCode::Sqrt)
        optionalFlagAttr("precise");
      return;
    case OpCode::Clamp:
      if (elementwiseSameType([](const Type &t) { return t.isFloatLike(); }, "float"))
        optionalFlagAttr("propagate_nan");
      return;
    case OpCode::Cmp:
      return cmp();
    case OpCode::Select:
      return select();
    case OpCode::Cast:
      return cast(false);
    case OpCode::Bitcast:
      return cast(true);
    case OpCode::AddPtr:
      return addPtr();
    case OpCode::Load:
      return load();
    case OpCode::Store:
      return store();
    case OpCode::AtomicRmw:
      return atomicRmw();
    case OpCode::AtomicCas:
      return atomicCas();
    case OpCode::DescriptorLoad:
    case OpCode::DescriptorStore:
      if (std::string e = checkDescriptorLoad(op_); !e.empty()) fail(e);
      return;
    case OpCode::Dot:
      return dot();
    case OpCode::Reduce:
      return reduceOrScan(false);
    case OpCode::Scan:
      if (optionalFlagAttr("reverse")) reduceOrScan(true);
      return;
    case OpCode::Philox:
      return philox();
    case OpCode::InlineAsm:
      return inlineAsm();
    case OpCode::MapElementwise:
      return mapElementwise();
    case OpCode::ReadSreg:
      if (optionalStringAttr("reg", {"smid", "globaltimer"}) && !op_.attr("reg"))
        fail("missing string attribute 'reg'");
      else if (!(out() == Type::scalar(op_.strAttr("reg") == "smid" ? DType::I32 : DType::I64)))
        fail("result must be i32 for smid and i64 for globaltimer, got " + ty(out()));
      return;
    case OpCode::Print:
      if (optionalStringAttr("prefix", {})) optionalFlagAttr("hex");
      return;
    case OpCode::Assert:
      if (!isIntTy(in(0))) fail("condition must be an integer or i1 value, got " + ty(in(0)));
      optionalStringAttr("message", {});
      return;
    case OpCode::Barrier:
      return;
    case OpCode::LocalAlloc:
    case OpCode::LocalDealloc:
    case OpCode::MemDescIndex:
    case OpCode::MemDescTrans:
    case OpCode::AsyncCopy:
    case OpCode::LocalStore:
    case OpCode::AsyncCommit:
    case OpCode::AsyncWait:
      return sharedMemory();
    case OpCode::BarrierAlloc:
    case OpCode::BarrierDealloc:
    case OpCode::TmaCopy:
    case OpCode::BarrierWait:
    case OpCode::BarrierArrive:
    case OpCode::TensormapCreate:
      if (std::string e = checkTmaOp(op_); !e.empty()) fail(e);
      return;
    case OpCode::Hint:
      return hint();
    case OpCode::ConvertLayout:
      if (!sameType(in(0), out(0))) fail("operand and result must differ only in layout");
      return;
    case OpCode::Assume:
      if (!isBoolTy(in(0))) fail("condition must be i1, got " + ty(in(0)));
      return;
    case OpCode::For:
      return forOp();
    case OpCode::If:
      return ifOp();
    case OpCode::While:
      return whileOp();
    case OpCode::WarpSpecialize:
      return warpSpecialize();
    case OpCode::Yield:
    case OpCode::Return:
      return;  // checked against the enclosing op / function
    case OpCode::Condition:
      if (!(in(0) == Type::scalar(DType::I1)))
        fail("the first operand must be an i1 scalar, got " + ty(in(0)));
      return;
    case OpCode::Call:
      return call();
  }
}

void Rules::constant() {
  const Attr *value = op_.attr("value");
  if (!value) return (void)fail("missing attribute 'value'");
  bool isInt = std::holds_alternative<int64_t>(*value);
  if (!isInt && !std::holds_alternative<double>(*value))
    return (void)fail("attribute 'value' must be an integer or a float");
  if (!isNumeric(out()))
    return (void)fail("result must be an integer or float scalar or tile, got " + ty(out()));
  if (!isInt && out().isIntLike())
    return (void)fail("a float value cannot initialise the integer type " + ty(out()));
  if (isInt && isBoolTy(out()) && std::get<int64_t>(*value) != 0 && std::get<int64_t>(*value) != 1)
    fail("an i1 constant must be 0 or 1");
}

void Rules::arange() {
  int64_t start = 0, end = 0;
  if (!requireIntAttr("start", start) || !requireIntAttr("end", end)) return;
  if (end <= start || !isPowerOfTwo(end - start))
    return (void)fail("end - start must be a positive power of two, got " + std::to_string(end) +
                      " - " + std::to_string(start));
  Type want = Type::tile({end - start}, Type::scalar(DType::I32));
  requireSameType(out(), want, "result", "end - start elements of i32");
}

void Rules::splat() {
  if (in(0).isTile() || in(0).isMemDesc())
    return (void)fail("operand must be a scalar or pointer, got " + ty(in(0)) +
                      " (use broadcast for tiles)");
  if (!requireTile(out(), "result")) return;
  sameElement(in(0), out(), "result");
}

void Rules::broadcast() {
  if (!requireTile(in(0), "operand") || !requireTile(out(), "result")) return;
  if (!sameElement(in(0), out(), "result")) return;
  if (in(0).rank() != out().rank())
    return (void)fail("operand and result must have the same rank, got " + ty(in(0)) + " and " +
                      ty(out()));
  for (int d = 0; d < in(0).rank(); ++d)
    if (in(0).shape[d] != out().shape[d] && in(0).shape[d] != 1)
      return (void)fail("dimension " + std::to_string(d) + " of " + ty(in(0)) +
                        " must be 1 or equal to the result's (" + std::to_string(out().shape[d]) +
                        ")");
}

void Rules::expandDims() {
  if (!requireTile(in(0), "operand") || !requireTile(out(), "result")) return;
  int64_t axis = 0;
  if (!axisAttr(in(0).rank() + 1, axis) || !sameElement(in(0), out(), "result")) return;
  std::vector<int64_t> want = in(0).shape;
  want.insert(want.begin() + axis, 1);
  if (out().shape != want)
    fail("result shape " + shapeStr(out().shape) + " must be " + shapeStr(want) +
         " (a size-1 dimension inserted at axis " + std::to_string(axis) + ")");
}

void Rules::reshape() {
  if (!requireTile(in(0), "operand") || !requireTile(out(), "result")) return;
  if (!sameElement(in(0), out(), "result")) return;
  if (in(0).numel() != out().numel())
    fail("operand has " + std::to_string(in(0).numel()) + " elements but the result has " +
         std::to_string(out().numel()));
}

void Rules::permute() {
  if (!requireTile(in(0), "operand") || !requireTile(out(), "result")) return;
  if (!sameElement(in(0), out(), "result")) return;
  const Attr *a = op_.attr("order");
  const auto *order = a ? std::get_if<std::vector<int64_t>>(a) : nullptr;
  if (!order) return (void)fail("missing integer list attribute 'order'");
  std::vector<int64_t> sorted = *order;
  std::sort(sorted.begin(), sorted.end());
  bool isPermutation = sorted.size() == in(0).shape.size();
  for (size_t i = 0; i < sorted.size(); ++i)
    isPermutation = isPermutation && sorted[i] == static_cast<int64_t>(i);
  if (!isPermutation)
    return (void)fail("order " + shapeStr(*order) + " is not a permutation of the " +
                      std::to_string(in(0).rank()) + " dimensions");
  std::vector<int64_t> want;
  for (int64_t d : *order) want.push_back(in(0).shape[d]);
  if (out().shape != want)
    fail("result shape " + shapeStr(out().shape) + " must be " + shapeStr(want));
}

void Rules::join() {
  if (!requireSameType(in(1), in(0), ordinal(1), "the type of operand #0")) return;
  if (!requireTile(out(), "result") || !sameElement(in(0), out(), "result")) return;
  std::vector<int64_t> want = in(0).shape;
  want.push_back(2);
  if (out().shape != want)
    fail("result shape " + shapeStr(out().shape) + " must be " + shapeStr(want));
}

void Rules::split() {
  if (!requireTile(in(0), "operand")) return;
  if (in(0).shape.back() != 2)
    return (void)fail("the operand's last dimension must be 2, got " + ty(in(0)));
  std::vector<int64_t> shape(in(0).shape.begin(), in(0).shape.end() - 1);
  Type want = in(0).withShape(shape);
  for (size_t i = 0; i < 2; ++i)
    if (!requireSameType(out(i), want, "result #" + std::to_string(i),
                         "the operand without its last dimension"))
      return;
}

void Rules::cat() {
  if (!requireTile(in(0), "operand #0") || !requireTile(out(), "result")) return;
  if (!requireSameType(in(1), in(0), ordinal(1), "the type of operand #0")) return;
  if (!sameElement(in(0), out(), "result")) return;
  std::vector<int64_t> want = in(0).shape;
  want[0] += in(1).shape[0];
  if (out().shape != want)
    fail("result shape " + shapeStr(out().shape) + " must be " + shapeStr(want) +
         " (the operands joined along dimension 0)");
}

void Rules::gather() {
  const Type &src = in(0), &index = in(1);
  if (!requireTile(src, "source") || !requireTile(index, "index")) return;
  if (!isIntTy(index)) return (void)fail("index must be an integer tile, got " + ty(index));
  if (src.rank() != index.rank())
    return (void)fail("source and index must have the same rank, got " + ty(src) + " and " +
                      ty(index));
  int64_t axis = 0;
  if (!axisAttr(src.rank(), axis)) return;
  for (int d = 0; d < src.rank(); ++d)
    if (d != axis && src.shape[d] != index.shape[d])
      return (void)fail("index dimension " + std::to_string(d) +
                        " must match the source's outside the gather axis");
  requireSameType(out(), index.withElement(src.element()), "result",
                  "the index shape with the source element type");
}

void Rules::histogram() {
  const Type &values = in(0);
  if (!requireTile(values, "values") || !isIntTy(values) || values.rank() != 1)
    return (void)fail("values must be a 1-D integer tile, got " + ty(values));
  if (op_.operands.size() == 2 && !requireMask(1, values)) return;
  int64_t bins = 0;
  if (!requireIntAttr("bins", bins)) return;
  requireSameType(out(), Type::tile({bins}, Type::scalar(DType::I32)), "result",
                  "bins elements of i32");
}

void Rules::cmp() {
  if (!requireSameType(in(1), in(0), ordinal(1), "the type of operand #0")) return;
  if (!isNumeric(in(0)) && !in(0).isPtrLike())
    return (void)fail("operands must be integers, floats or pointers, got " + ty(in(0)));
  if (!isBoolTy(out()) || !sameShape(out(), in(0)))
    return (void)fail("result must be i1 with the operands' shape, got " + ty(out()));
  const Attr *pred = op_.attr("pred");
  if (!pred) return (void)fail("missing attribute 'pred'");
  optionalStringAttr("pred", {"eq", "ne", "lt", "le", "gt", "ge"});
}

void Rules::select() {
  if (!isBoolTy(in(0)) || !sameShape(in(0), out()))
    return (void)fail("condition must be i1 with the result's shape, got " + ty(in(0)));
  for (size_t i = 1; i < 3; ++i)
    if (!requireSameType(in(i), out(), ordinal(i), "the result type")) return;
}

void Rules::cast(bool bitcast) {
  const Type &from = in(0), &to = out();
  if (!sameShape(from, to) || from.isMemDesc() || to.isMemDesc())
    return (void)fail("changes the element type only; operand " + ty(from) + " and result " +
                      ty(to) + " differ in shape");
  auto bits = [](const Type &t) { return t.isPtrLike() ? 64 : bitWidth(t.dtype); };
  if (bitcast) {
    if (bits(from) != bits(to))
      fail("operand and result must have the same bit width, got " + ty(from.element()) + " (" +
           std::to_string(bits(from)) + " bits) and " + ty(to.element()) + " (" +
           std::to_string(bits(to)) + " bits)");
    return;
  }
  bool ok = (isNumeric(from) && isNumeric(to)) || (from.isPtrLike() && to.isPtrLike()) ||
            (from.isPtrLike() && isIntTy(to) && bits(to) == 64) ||
            (isIntTy(from) && bits(from) == 64 && to.isPtrLike());
  if (!ok)
    return (void)fail("cannot convert " + ty(from.element()) + " to " + ty(to.element()) +
                      " (pointers convert only to and from 64-bit integers)");
  optionalStringAttr("rounding", {"rtne", "rtz"});
}

void Rules::addPtr() {
  if (!in(0).isPtrLike()) return (void)fail("operand #0 must be a pointer, got " + ty(in(0)));
  if (!isIntTy(in(1)) || !sameShape(in(1), in(0)))
    return (void)fail("offset must be an integer with the pointer's shape, got " + ty(in(1)));
  requireSameType(out(), in(0), "result", "the pointer operand's type");
}

void Rules::load() {
  const Type &ptr = in(0);
  if (!ptr.isPtrLike())
    return (void)fail("operand #0 must be a pointer or pointer tile, got " + ty(ptr));
  if (!requireSameType(out(), pointeeOf(ptr), "result", "the pointee of " + ty(ptr))) return;
  if (op_.operands.size() >= 2 && !requireMask(1, ptr)) return;
  if (op_.operands.size() == 3)
    requireSameType(in(2), out(), "other (" + ordinal(2) + ")", "the result type");
  optionalStringAttr("cache", {});
  optionalStringAttr("evict", {});
  optionalFlagAttr("volatile");
}

void Rules::store() {
  const Type &ptr = in(0);
  if (!ptr.isPtrLike())
    return (void)fail("operand #0 must be a pointer or pointer tile, got " + ty(ptr));
  if (!requireSameType(in(1), pointeeOf(ptr), "value (" + ordinal(1) + ")",
                       "the pointee of " + ty(ptr)))
    return;
  if (op_.operands.size() == 3 && !requireMask(2, ptr)) return;
  optionalStringAttr("cache", {});
  optionalStringAttr("evict", {});
}

void Rules::atomicRmw() {
  const Type &ptr = in(0);
  if (!ptr.isPtrLike())
    return (void)fail("operand #0 must be a pointer or pointer tile, got " + ty(ptr));
  if (!requireSameType(in(1), pointeeOf(ptr), "value (" + ordinal(1) + ")",
                       "the pointee of " + ty(ptr)))
    return;
  if (op_.operands.size() == 3 && !requireMask(2, ptr)) return;
  if (!requireSameType(out(), in(1), "result", "the value type")) return;
  if (!op_.attr("kind")) return (void)fail("missing attribute 'kind'");
  if (!optionalStringAttr("kind", {"add", "max", "min", "and", "or", "xor", "xchg"})) return;
  std::string kind = op_.strAttr("kind");
  if ((kind == "and" || kind == "or" || kind == "xor") && !isIntTy(in(1)))
    fail("'" + kind + "' needs integer values, got " + ty(in(1)));
}

void Rules::atomicCas() {
  const Type &ptr = in(0);
  if (!ptr.isPtrLike())
    return (void)fail("operand #0 must be a pointer or pointer tile, got " + ty(ptr));
  for (size_t i = 1; i < 3; ++i)
    if (!requireSameType(in(i), pointeeOf(ptr), ordinal(i), "the pointee of " + ty(ptr))) return;
  requireSameType(out(), in(2), "result", "the value type");
}

void Rules::dot() {
  const Type &a = in(0), &b = in(1), &acc = in(2);
  for (size_t i = 0; i < 3; ++i) {
    // The GPU reads 2-D operands straight from shared memory (memdesc).
    if (i < 2 && in(i).isMemDesc() && in(i).rank() == 2) continue;
    if (!in(i).isTile() || (in(i).rank() != 2 && in(i).rank() != 3) || in(i).elemIsPtr)
      return (void)fail(ordinal(i) + " must be a 2-D or 3-D (batched) numeric tile, got " +
                        ty(in(i)));
  }
  if (a.rank() != b.rank() || a.rank() != acc.rank())
    return (void)fail("operands must all be 2-D or all 3-D, got " + ty(a) + ", " + ty(b) + ", " +
                      ty(acc));
  int r = a.rank();
  int64_t m = a.shape[r - 2], k = a.shape[r - 1], n = b.shape[r - 1];
  if (b.shape[r - 2] != k)
    return (void)fail("inner dimensions differ: " + ty(a) + " times " + ty(b));
  std::vector<int64_t> want = {m, n};
  if (r == 3) {
    if (b.shape[0] != a.shape[0]) return (void)fail("batch dimensions of a and b differ");
    want.insert(want.begin(), a.shape[0]);
  }
  if (acc.shape != want)
    return (void)fail("accumulator shape " + shapeStr(acc.shape) + " must be " + shapeStr(want));
  bool fp8 =
      bitWidth(a.dtype) == 8 && isFloat(a.dtype) && bitWidth(b.dtype) == 8 && isFloat(b.dtype);
  if (a.dtype != b.dtype && !fp8)
    return (void)fail("a and b must have the same element type, got " + ty(a.element()) + " and " +
                      ty(b.element()));
  if (isFloat(a.dtype) != isFloat(acc.dtype))
    return (void)fail("accumulator element " + ty(acc.element()) + " does not suit " +
                      ty(a.element()) +
                      " inputs (float inputs accumulate in a float type, "
                      "integer inputs in i32)");
  if (!isFloat(a.dtype) && acc.dtype != DType::I32)
    return (void)fail("integer inputs accumulate in i32, got " + ty(acc.element()));
  if (!requireSameType(out(), acc, "result", "the accumulator type")) return;
  optionalStringAttr("input_precision", {});
  optionalFlagAttr("overlap");
  if (op_.operands.size() == 3) return;
  // flatten-loops' form: whether to add acc (false: the product alone).
  if (op_.operands.size() == 4) {
    if (in(3).isTile() || in(3).dtype != DType::I1)
      fail("use_acc must be an i1 scalar, got " + ty(in(3)));
    return;
  }
  // The prefetching form (pipeline-dot-operands, mma.sync): the next
  // iteration's operands, as a and b are, and whether this is the first.
  if (op_.operands.size() != 6)
    return (void)fail(
        "takes (a, b, acc), (a, b, acc, use_acc) or (a, b, acc, next_a, next_b, first), got " +
        std::to_string(op_.operands.size()) + " operands");
  if (!a.isMemDesc() || !b.isMemDesc())
    return (void)fail("prefetches only operands in shared memory (memdesc)");
  if (!requireSameType(in(3), a, "next_a", "a's type") ||
      !requireSameType(in(4), b, "next_b", "b's type"))
    return;
  if (in(5).isTile() || in(5).dtype != DType::I1)
    return (void)fail("first must be an i1 scalar, got " + ty(in(5)));
  int64_t pending = 0;
  requireIntAttr("prefetch_pending", pending);
}

void Rules::reduceOrScan(bool isScan) {
  size_t n = op_.operands.size();
  if (op_.results.size() != n)
    return (void)fail("has " + std::to_string(n) + " operand(s) but " +
                      std::to_string(op_.results.size()) + " result(s); they must match");
  for (size_t i = 0; i < n; ++i) {
    if (!requireTile(in(i), ordinal(i))) return;
    if (!sameShape(in(i), in(0)))
      return (void)fail("operands must all have the shape of " + ty(in(0)));
  }
  int64_t axis = 0;
  if (!axisAttr(in(0).rank(), axis)) return;
  const Block &region = *op_.regions[0];
  std::vector<Type> elements;
  for (size_t i = 0; i < n; ++i) elements.push_back(in(i).element());
  if (region.args.size() != 2 * n)
    return (void)fail("the combine region takes " + std::to_string(2 * n) +
                      " arguments (lhs and rhs of each operand), got " +
                      std::to_string(region.args.size()));
  for (size_t i = 0; i < 2 * n; ++i)
    if (!(region.args[i]->type == elements[i % n]))
      return (void)fail("combine region argument #" + std::to_string(i) + " has type " +
                        ty(region.args[i]->type) + ", expected " + ty(elements[i % n]));
  if (!yieldMatches(region, elements, "the combine region")) return;
  for (size_t i = 0; i < n; ++i) {
    Type want = in(i);
    if (!isScan) {
      std::vector<int64_t> shape = in(i).shape;
      shape.erase(shape.begin() + axis);
      want = in(i).withShape(shape);
    }
    if (!requireSameType(out(i), want, "result #" + std::to_string(i),
                         isScan ? "the operand type" : "the operand without the reduced axis"))
      return;
  }
}

void Rules::philox() {
  if (!in(0).isScalar() || !isIntTy(in(0)))
    return (void)fail("seed must be an integer scalar, got " + ty(in(0)));
  if (!isIntTy(in(1)))
    return (void)fail("offset must be an integer scalar or tile, got " + ty(in(1)));
  Type want = in(1).withElement(Type::scalar(DType::U32));
  for (size_t i = 0; i < 4; ++i)
    if (!requireSameType(out(i), want, "result #" + std::to_string(i),
                         "u32 with the offset's shape"))
      return;
  if (const Attr *rounds = op_.attr("rounds")) {
    const int64_t *v = std::get_if<int64_t>(rounds);
    if (!v || *v <= 0) fail("attribute 'rounds' must be a positive integer");
  }
}

void Rules::inlineAsm() {
  const Attr *text = op_.attr("asm"), *cons = op_.attr("constraints");
  if (!text || !std::get_if<std::string>(text) || !cons || !std::get_if<std::string>(cons))
    return (void)fail("needs string attributes 'asm' and 'constraints'");
  int64_t pack = 0;
  if (!requireIntAttr("pack", pack) || !optionalFlagAttr("pure")) return;
  if (op_.results.empty()) return (void)fail("needs at least one result");
  // Arguments are broadcast to the results' shape (scalars stay scalars
  // only when every argument is one).
  std::vector<Type> args, results;
  for (size_t i = 0; i < op_.results.size(); ++i) {
    if (!sameShape(out(i), out(0)))
      return (void)fail("result #" + std::to_string(i) + " has type " + ty(out(i)) +
                        ", not the shape of result #0 " + ty(out(0)));
    results.push_back(out(i).element());
  }
  for (size_t i = 0; i < op_.operands.size(); ++i) {
    if (!sameShape(in(i), out(0)))
      return (void)fail(ordinal(i) + " has type " + ty(in(i)) + ", not the results' shape " +
                        ty(out(0)));
    args.push_back(in(i).element());
  }
  std::string error, hint;
  if (!planInlineAsm(std::get<std::string>(*text), std::get<std::string>(*cons), args, results,
                     pack, error, hint))
    fail(error);
}

void Rules::mapElementwise() {
  int64_t pack = 0;
  if (!requireIntAttr("pack", pack)) return;
  if (pack < 1 || pack > 64) return (void)fail("pack must be between 1 and 64");
  if (op_.results.empty()) return (void)fail("needs at least one result");
  for (size_t i = 0; i < op_.results.size(); ++i)
    if (!sameShape(out(i), out(0)))
      return (void)fail("result #" + std::to_string(i) + " has type " + ty(out(i)) +
                        ", not the shape of result #0 " + ty(out(0)));
  for (size_t i = 0; i < op_.operands.size(); ++i)
    if (!sameShape(in(i), out(0)))
      return (void)fail(ordinal(i) + " has type " + ty(in(i)) + ", not the results' shape " +
                        ty(out(0)));
  // The region sees `pack` scalars of each argument, in argument order, and
  // yields `pack` scalars of each result.
  const Block &body = *op_.regions[0];
  size_t p = static_cast<size_t>(pack);
  if (body.args.size() != p * op_.operands.size())
    return (void)fail(
        "the region needs pack x operands = " + std::to_string(p * op_.operands.size()) +
        " arguments, has " + std::to_string(body.args.size()));
  for (size_t k = 0; k < body.args.size(); ++k)
    if (!(body.args[k]->type == in(k / p).element()))
      return (void)fail("region argument #" + std::to_string(k) + " must be " +
                        ty(in(k / p).element()) + ", got " + ty(body.args[k]->type));
  const Operation *y = body.terminator();
  if (!y || y->code != OpCode::Yield) return;  // the structural walk reports it
  if (y->operands.size() != p * op_.results.size())
    return (void)fail(
        "the region must yield pack x results = " + std::to_string(p * op_.results.size()) +
        " values, yields " + std::to_string(y->operands.size()));
  for (size_t k = 0; k < y->operands.size(); ++k)
    if (!(y->operands[k]->type == out(k / p).element()))
      return (void)fail("yielded value #" + std::to_string(k) + " must be " +
                        ty(out(k / p).element()) + ", got " + ty(y->operands[k]->type));
}

void Rules::hint() {
  if (!requireSameType(out(), in(0), "result", "the operand type")) return;
  size_t perDim = std::max<size_t>(1, in(0).shape.size());
  for (std::string_view name : {"divisibility", "contiguity", "constancy"}) {
    const Attr *a = op_.attr(name);
    if (!a) continue;
    std::vector<int64_t> values;
    if (const int64_t *v = std::get_if<int64_t>(a))
      values = {*v};
    else if (const auto *list = std::get_if<std::vector<int64_t>>(a))
      values = *list;
    else
      return (void)fail("attribute '" + std::string(name) + "' must be an integer list");
    if (values.size() != perDim && values.size() != 1)
      return (void)fail("attribute '" + std::string(name) + "' needs one value per dimension (" +
                        std::to_string(perDim) + "), got " + std::to_string(values.size()));
    for (int64_t v : values)
      if (v < 1) return (void)fail("attribute '" + std::string(name) + "' values must be >= 1");
  }
}

void checkOpTypes(const Operation &op, const Module *module, OpErrorSink &sink) {
  Rules(op, module, sink).check();
}

std::string checkValueType(const Type &t) {
  switch (t.kind) {
    case Type::Kind::Void:
      return "values cannot have type void";
    case Type::Kind::Scalar:
    case Type::Kind::Ptr:
      return {};
    case Type::Kind::Tile:
    case Type::Kind::MemDesc: {
      if (t.shape.empty()) return "a tile needs at least one dimension, got " + printType(t);
      int64_t numel = 1;
      for (size_t i = 0; i < t.shape.size(); ++i) {
        int64_t d = t.shape[i];
        // A ring's slot count (the leading dim of a rank-3 memdesc) is num_stages.
        bool slots = t.isMemDesc() && t.rank() == 3 && i == 0 && d >= 1;
        if (!isPowerOfTwo(d) && !slots)
          return "tile dimensions must be powers of two, got " + printType(t);
        // Saturating, so that huge dimensions cannot overflow.
        numel =
            (d > kMaxTileElements || numel > kMaxTileElements) ? kMaxTileElements + 1 : numel * d;
      }
      if (t.isTile() && numel > kMaxTileElements)
        return "a tile holds at most " + std::to_string(kMaxTileElements) + " elements, got " +
               printType(t);
      return {};
    }
  }
  return "unknown type kind";
}

}  // namespace tessera::verifier_detail
