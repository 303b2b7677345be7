#include "passes/pass_utils.h"

#include <algorithm>
#include <bit>

#include "support/numerics.h"

namespace tessera::passes {

int64_t wrapInt(uint64_t v, DType t) {
  int w = bitWidth(t);
  if (w >= 64) return static_cast<int64_t>(v);
  uint64_t mask = (uint64_t{1} << w) - 1;
  v &= mask;
  if (isSigned(t) && ((v >> (w - 1)) & 1)) v |= ~mask;
  return static_cast<int64_t>(v);
}

std::optional<NarrowFloat> narrowFloat(DType t) {
  using num::fromF8E4B15, num::fromF8E4B8, num::fromF8E4NV, num::fromF8E5, num::fromF8E5B16;
  switch (t) {
    case DType::F16:
      return NarrowFloat{num::toF16, num::fromF16};
    case DType::BF16:
      return NarrowFloat{num::toBF16, num::fromBF16};
    case DType::F8E4NV:
      return NarrowFloat{[](double x) -> uint16_t { return num::toF8E4NV(x); },
                         [](uint16_t b) { return fromF8E4NV(static_cast<uint8_t>(b)); }};
    case DType::F8E5:
      return NarrowFloat{[](double x) -> uint16_t { return num::toF8E5(x); },
                         [](uint16_t b) { return fromF8E5(static_cast<uint8_t>(b)); }};
    case DType::F8E4B15:
      return NarrowFloat{[](double x) -> uint16_t { return num::toF8E4B15(x); },
                         [](uint16_t b) { return fromF8E4B15(static_cast<uint8_t>(b)); }};
    case DType::F8E4B8:
      return NarrowFloat{[](double x) -> uint16_t { return num::toF8E4B8(x); },
                         [](uint16_t b) { return fromF8E4B8(static_cast<uint8_t>(b)); }};
    case DType::F8E5B16:
      return NarrowFloat{[](double x) -> uint16_t { return num::toF8E5B16(x); },
                         [](uint16_t b) { return fromF8E5B16(static_cast<uint8_t>(b)); }};
    default:
      return std::nullopt;
  }
}

double roundToFloat(double x, DType t) {
  if (t == DType::F32) return num::roundF32(x);
  if (auto nf = narrowFloat(t)) return nf->decode(nf->encode(x));
  return x;  // f64, or not a float dtype (callers never ask)
}

std::optional<Scalar> constantOf(const Value *v) {
  if (!v || !v->def || v->def->code != OpCode::Constant) return std::nullopt;
  const Type &t = v->type;
  if (t.isPtrLike() || !(t.isScalar() || t.isTile())) return std::nullopt;
  const Attr *a = v->def->attr("value");
  if (!a) return std::nullopt;
  if (isFloat(t.dtype)) {
    if (auto *d = std::get_if<double>(a)) return Scalar::ofFloat(roundToFloat(*d, t.dtype));
    if (auto *i = std::get_if<int64_t>(a))
      return Scalar::ofFloat(roundToFloat(static_cast<double>(*i), t.dtype));
    return std::nullopt;
  }
  if (auto *i = std::get_if<int64_t>(a))
    return Scalar::ofInt(wrapInt(static_cast<uint64_t>(*i), t.dtype));
  return std::nullopt;  // a float spelling of an integer constant: leave it alone
}

Value *makeConstant(Builder &b, const Type &t, const Scalar &s) {
  Attr v = s.isFloat ? Attr(s.f) : Attr(s.i);
  return b.op1(OpCode::Constant, {}, t, {{"value", std::move(v)}});
}

Value *ValueMap::lookup(Value *v) const {
  // Chains (a -> b -> c) arise when a replacement is itself replaced later.
  for (int guard = 0; guard < 1000; ++guard) {
    Value *const *to = map_.find(v);
    if (!to || *to == v) return v;
    v = *to;
  }
  return v;
}

bool ValueMap::remapOperands(Operation *op) const {
  if (map_.empty()) return false;
  bool changed = false;
  for (auto &v : op->operands) {
    Value *n = lookup(v);
    if (n != v) {
      v = n;
      changed = true;
    }
  }
  return changed;
}

void ValueMap::apply(Function &fn) const {
  if (map_.empty()) return;
  fn.walk([&](Operation *op) { remapOperands(op); });
}

void replaceResults(Function &fn, const std::function<Value *(Operation *)> &rewrite) {
  ValueMap vm;
  Graveyard gy;
  std::function<void(Block &)> walk = [&](Block &b) {
    for (auto it = b.ops.begin(); it != b.ops.end();) {
      Operation *op = (it++)->get();  // advance first: op may be buried
      vm.remapOperands(op);
      for (auto &r : op->regions) walk(*r);
      if (Value *v = rewrite(op)) {
        vm.map(op->result(0), v);
        gy.bury(op);
      }
    }
  };
  walk(fn.body);
  vm.apply(fn);
}

OpList::iterator iteratorOf(Operation *op) {
  return op->linked ? op->self : op->parent->ops.end();
}

void Graveyard::bury(Operation *op) {
  if (!op->linked) return;  // buried already
  auto it = op->self;
  dead_.push_back(std::move(*it));
  op->parent->ops.erase(it);
  op->linked = false;
}

bool hasWriteEffects(Operation *op) {
  bool writes = false;
  op->walk([&](Operation *o) {
    if (writesMemOp(*o) || o->code == OpCode::Call) writes = true;
  });
  return writes;
}

bool writesGlobalMemory(Operation *op) {
  bool writes = false;
  op->walk([&](Operation *o) {
    switch (o->code) {
      case OpCode::AsyncCopy:
      case OpCode::LocalStore:
      case OpCode::AsyncCommit:
      case OpCode::AsyncWait:
      case OpCode::LocalAlloc:
      case OpCode::LocalDealloc:
      case OpCode::TmaCopy:
      case OpCode::BarrierAlloc:
      case OpCode::BarrierWait:
      case OpCode::BarrierArrive:
      case OpCode::BarrierDealloc:
      case OpCode::Barrier:
      case OpCode::TensormapCreate:
        return;
      default:
        writes = writes || writesMemOp(*o) || o->code == OpCode::Call;
    }
  });
  return writes;
}

bool isRemovableWhenUnused(Operation *op) {
  if (hasFlag(op->code, opflags::Terminator)) return false;
  if (op->code == OpCode::Call) return false;
  if (isPureOp(*op)) return !hasWriteEffects(op);
  // A load that only reads; the structured control-flow ops when nothing
  // inside them writes.
  if (!writesMemOp(*op) && hasFlag(op->code, opflags::ReadsMem))
    return !op->regions.empty() ? !hasWriteEffects(op) : true;
  if (op->code == OpCode::For || op->code == OpCode::If || op->code == OpCode::While)
    return !hasWriteEffects(op);
  return false;
}

void eraseUnusedOps(Function &fn, Block &block, bool nested,
                    const std::function<bool(const Operation &)> &removable) {
  // One sweep, last to first, with the counts kept as ops go (as dce
  // does): an op's readers come after it or inside later ops, so each has
  // gone or stayed by the time the op is reached.
  auto uses = countUses(fn);
  std::function<void(Block &)> sweep = [&](Block &b) {
    std::vector<Operation *> ops;
    for (auto &o : b.ops) ops.push_back(o.get());
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      Operation *op = *it;
      bool used = false;
      for (auto &r : op->results) used = used || uses[r.get()] > 0;
      if (!op->results.empty() && !used && removable(*op)) {
        op->walk([&](Operation *o) {
          for (Value *v : o->operands) --uses[v];
        });
        eraseOp(op);
      } else if (nested) {
        for (auto &r : op->regions) sweep(*r);
      }
    }
  };
  sweep(block);
}

std::optional<int64_t> positiveConstantStep(const Operation &loop) {
  auto s = constantOf(loop.operand(2));
  if (!s || s->isFloat || s->i <= 0) return std::nullopt;
  return s->i;
}

bool i32Loop(const Operation &loop) {
  return loop.operand(0)->type == Type::scalar(DType::I32);
}

Operation *forYield(Operation *loop) {
  if (loop->regions.size() != 1) return nullptr;
  Block &body = *loop->regions[0];
  Operation *yield = body.terminator();
  size_t n = loop->results.size();
  if (!yield || yield->operands.size() != n || body.args.size() != n + 1 ||
      loop->operands.size() != n + 3)
    return nullptr;
  return yield;
}

bool yieldsBackInto(const Value *next, const Value *arg) {
  Operation *loop = arg->owner ? arg->owner->parentOp : nullptr;
  if (arg->def || !loop || loop->code != OpCode::For || arg->index == 0) return false;
  Operation *yield = forYield(loop);
  return yield && yield->operand(arg->index - 1) == next;
}

bool sameAttrs(const Operation &a, const Operation &b) {
  if (a.attrs.size() != b.attrs.size()) return false;
  for (size_t i = 0; i < a.attrs.size(); ++i) {  // kept sorted by name
    const Attr &x = a.attrs[i].value, &y = b.attrs[i].value;
    if (a.attrs[i].name != b.attrs[i].name || x.index() != y.index()) return false;
    if (auto *dx = std::get_if<double>(&x)) {
      if (std::bit_cast<uint64_t>(*dx) != std::bit_cast<uint64_t>(std::get<double>(y)))
        return false;
    } else if (x != y) {
      return false;
    }
  }
  return true;
}

bool isDefinedInside(const Value *v, const Operation *op) {
  const Block *b = v->def ? v->def->parent : v->owner;
  while (b) {
    const Operation *p = b->parentOp;
    if (!p) return false;
    if (p == op) return true;
    b = p->parent;
  }
  return false;
}

void moveBefore(Operation *op, Operation *before) {
  Block *from = op->parent;
  Block *to = before->parent;
  auto src = iteratorOf(op);
  auto dst = iteratorOf(before);
  to->ops.splice(dst, from->ops, src);
  op->parent = to;
}

}  // namespace tessera::passes
