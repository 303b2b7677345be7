// cse: common-subexpression elimination.
//
// Requires: valid Tile IR (defs precede uses in pre-order).
// Guarantees: of two pure, region-free ops with the same opcode, operands
// (either order for commutative binary ops), attributes (floats compared
// bitwise, so 0.0 and -0.0 stay apart) and result types, the later one is
// replaced by the earlier one when the earlier one's block encloses the
// later one: a value defined in an outer block replaces an identical one in a
// nested block, never the reverse, and sibling regions (then/else, loop
// before/after) never share.
// Preserves: ops with side effects or regions (loads are not pure and are
// never merged, since a store may come between them), op order, locations.
#include <bit>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "passes/pass_utils.h"

namespace tessera {
namespace {

using namespace passes;

bool sameAttr(const Attr &a, const Attr &b) {
  if (a.index() != b.index()) return false;
  if (auto *da = std::get_if<double>(&a))
    return std::bit_cast<uint64_t>(*da) == std::bit_cast<uint64_t>(std::get<double>(b));
  return a == b;
}

bool sameAttrs(const Operation &a, const Operation &b) {
  if (a.attrs.size() != b.attrs.size()) return false;
  for (size_t i = 0; i < a.attrs.size(); ++i)  // kept sorted by name
    if (a.attrs[i].name != b.attrs[i].name || !sameAttr(a.attrs[i].value, b.attrs[i].value))
      return false;
  return true;
}

bool sameOperands(const Operation &a, const Operation &b) {
  if (a.operands == b.operands) return true;
  return hasFlag(a.code, opflags::Commutative) && a.operands.size() == 2 &&
         b.operands.size() == 2 && a.operands[0] == b.operands[1] && a.operands[1] == b.operands[0];
}

bool equivalent(const Operation &a, const Operation &b) {
  if (a.code != b.code || a.results.size() != b.results.size()) return false;
  for (size_t i = 0; i < a.results.size(); ++i)
    if (a.results[i]->type != b.results[i]->type) return false;
  return sameOperands(a, b) && sameAttrs(a, b);
}

// Hash of what equivalent() compares; commutative operands hash in any order.
size_t hashOp(const Operation &op) {
  size_t h = std::hash<int>()(static_cast<int>(op.code));
  size_t ops = 0;
  for (Value *v : op.operands) {
    size_t hv = std::hash<const void *>()(v);
    ops = hasFlag(op.code, opflags::Commutative) ? ops + hv : ops * 31 + hv;
  }
  h = h * 1000003 ^ ops;
  for (const auto &a : op.attrs) h = h * 31 + std::hash<std::string>()(a.name);
  return h;
}

class CSE {
 public:
  explicit CSE(Graveyard &gy) : gy_(gy) {}

  void run(Function &fn) {
    runBlock(fn.body);
    vm_.apply(fn);
  }

 private:
  using Scope = std::unordered_multimap<size_t, Operation *>;

  Operation *lookup(Operation *op, size_t h) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto [lo, hi] = s->equal_range(h);
      for (auto it = lo; it != hi; ++it)
        if (equivalent(*it->second, *op)) return it->second;
    }
    return nullptr;
  }

  void runBlock(Block &b) {
    scopes_.emplace_back();
    for (auto it = b.ops.begin(); it != b.ops.end();) {
      Operation *op = (it++)->get();  // advance first: op may be buried
      vm_.remapOperands(op);
      for (auto &r : op->regions) runBlock(*r);
      if (!hasFlag(op->code, opflags::Pure) || !op->regions.empty()) continue;
      size_t h = hashOp(*op);
      if (Operation *prev = lookup(op, h)) {
        for (size_t i = 0; i < op->results.size(); ++i) vm_.map(op->result(i), prev->result(i));
        gy_.bury(op);
      } else {
        scopes_.back().emplace(h, op);
      }
    }
    scopes_.pop_back();
  }

  Graveyard &gy_;
  ValueMap vm_;
  std::vector<Scope> scopes_;
};

}  // namespace

void cse(Module &m) {
  for (auto &fn : m.functions) {
    Graveyard gy;
    CSE(gy).run(*fn);
  }
}

}  // namespace tessera
