// See loop_carried.h.
#include "codegen/ptx/loop_carried.h"

#include <memory>

#include "passes/pass_utils.h"

namespace tessera::ptx {

bool LoopSlices::collect(Value *v, std::unordered_set<Operation *> &seen,
                         std::unordered_set<Value *> &carried, bool ifs) const {
  if (v == iv() || !passes::isDefinedInside(v, loop_)) return true;
  Operation *def = v->def;
  if (!def) {  // a block argument: the loop's own carried values only
    for (size_t i = 1; i < body_.args.size(); ++i)
      if (body_.args[i].get() == v) {
        carried.insert(v);
        return true;
      }
    return false;
  }
  if (def->parent != &body_) return false;
  if (seen.count(def)) return true;
  if (ifs && def->code == OpCode::If) {
    bool pure = true;
    std::vector<Value *> reads;  // what the regions read from outside the if
    for (auto &r : def->regions)
      for (auto &o : r->ops)
        o->walk([&](Operation *in) {
          pure = pure && in->regions.empty() && (isPureOp(*in) || in->code == OpCode::Yield);
          for (Value *x : in->operands)
            if (!passes::isDefinedInside(x, def)) reads.push_back(x);
        });
    if (!pure) return false;
    seen.insert(def);
    reads.push_back(def->operand(0));
    for (Value *x : reads)
      if (!collect(x, seen, carried, ifs)) return false;
    return true;
  }
  if (!isPureOp(*def) || !def->regions.empty()) return false;
  seen.insert(def);
  for (Value *o : def->operands)
    if (!collect(o, seen, carried, ifs)) return false;
  return true;
}

std::vector<Operation *> LoopSlices::inProgramOrder(
    const std::unordered_set<Operation *> &set) const {
  std::vector<Operation *> out;
  for (auto &o : body_.ops)
    if (set.count(o.get())) out.push_back(o.get());
  return out;
}

std::optional<Advancing> LoopSlices::advancing(Value *arg, bool resultUsed) const {
  if (resultUsed) return std::nullopt;
  const unsigned index = arg->index - 1;
  Value *next = body_.terminator()->operand(index);
  std::unordered_set<Operation *> seen;
  std::unordered_set<Value *> carried;
  if (!collect(next, seen, carried)) return std::nullopt;
  if (carried.size() != 1 || !carried.count(arg)) return std::nullopt;
  return Advancing{arg, index, inProgramOrder(seen)};
}

bool LoopSlices::onlyUsedBy(const Advancing &a, const std::unordered_set<Operation *> &allowed,
                            const std::unordered_set<Operation *> &loads) const {
  std::unordered_set<const Value *> tainted = {a.arg};
  for (auto &o : body_.ops) {
    Operation *op = o.get();
    bool depends = false;
    op->walk([&](Operation *inner) {
      for (Value *v : inner->operands) depends = depends || tainted.count(v);
    });
    if (!depends) continue;
    if (op == body_.terminator()) {
      for (size_t i = 0; i < op->operands.size(); ++i)
        if (tainted.count(op->operand(i)) && i != a.index) return false;
      continue;
    }
    if (loads.count(op)) continue;
    if (!allowed.count(op)) return false;
    for (auto &r : op->results) tainted.insert(r.get());
  }
  return true;
}

std::optional<Shadowed> LoopSlices::shadow(const std::unordered_set<Value *> &seeds) const {
  std::unordered_set<Value *> group(seeds.begin(), seeds.end());
  std::vector<Value *> work(seeds.begin(), seeds.end());
  std::unordered_set<Operation *> ops;
  Operation *yield = body_.terminator();
  while (!work.empty()) {
    Value *arg = work.back();
    work.pop_back();
    std::unordered_set<Value *> reached;
    if (!collect(yield->operand(arg->index - 1), ops, reached, /*ifs=*/true)) return std::nullopt;
    for (Value *r : reached)
      if (group.insert(r).second) work.push_back(r);
  }
  Shadowed out;
  for (size_t i = 1; i < body_.args.size(); ++i)
    if (group.count(body_.args[i].get())) {
      out.args.push_back(body_.args[i].get());
      out.indices.push_back(static_cast<unsigned>(i - 1));
    }
  out.update = inProgramOrder(ops);
  return out;
}

Value *appendCarried(Operation *loop, Value *init) {
  loop->operands.push_back(init);
  Value *arg = loop->regions[0]->addArg(init->type);
  auto r = std::make_unique<Value>();
  r->type = init->type;
  r->def = loop;
  r->index = static_cast<unsigned>(loop->results.size());
  loop->results.push_back(std::move(r));
  return arg;
}

}  // namespace tessera::ptx
