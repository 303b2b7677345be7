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
#include <vector>

#include "passes/pass_utils.h"

namespace tessera {
namespace {

using namespace passes;

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
  for (const auto &a : op.attrs) {
    h = h * 31 + std::hash<std::string>()(a.name);
    // Numbers too (bitwise, as sameAttr compares them), so that constants
    // of one type do not all share a hash and a probe sequence.
    if (auto *i = std::get_if<int64_t>(&a.value)) h = h * 31 + static_cast<size_t>(*i);
    if (auto *d = std::get_if<double>(&a.value)) h = h * 31 + std::bit_cast<uint64_t>(*d);
  }
  return h;
}

// The ops of one block by hash: open addressing, probed linearly, several
// ops per hash allowed. std::unordered_multimap allocated a node per op and
// divided per lookup, a third of the pass on a long kernel.
class Scope {
 public:
  Operation *find(const Operation &op, size_t h) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = home(h);; i = (i + 1) & mask()) {
      const Slot &s = slots_[i];
      if (!s.op) return nullptr;
      if (s.hash == h && equivalent(*s.op, op)) return s.op;
    }
  }
  void insert(Operation *op, size_t h) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    size_t i = home(h);
    while (slots_[i].op) i = (i + 1) & mask();
    slots_[i] = {h, op};
    ++size_;
  }

 private:
  struct Slot {
    size_t hash = 0;
    Operation *op = nullptr;
  };
  size_t mask() const { return slots_.size() - 1; }
  // Fibonacci hashing: hashOp's low bits are mostly pointer alignment.
  size_t home(size_t h) const {
    return static_cast<size_t>((static_cast<uint64_t>(h) * 0x9E3779B97F4A7C15ull) >>
                               (64 - std::countr_zero(slots_.size())));
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : 2 * old.size(), Slot{});
    for (const Slot &s : old)
      if (s.op) {
        size_t i = home(s.hash);
        while (slots_[i].op) i = (i + 1) & mask();
        slots_[i] = s;
      }
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

class CSE {
 public:
  explicit CSE(Graveyard &gy) : gy_(gy) {}

  // No ValueMap::apply afterwards: only results of ops already walked are
  // mapped, and their uses come later in pre-order (this pass's Requires),
  // where runBlock remaps them; a second walk over the function found
  // nothing left to rewrite.
  void run(Function &fn) { runBlock(fn.body); }

 private:
  Operation *lookup(Operation *op, size_t h) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      if (Operation *prev = s->find(*op, h)) return prev;
    return nullptr;
  }

  void runBlock(Block &b) {
    scopes_.emplace_back();
    for (auto it = b.ops.begin(); it != b.ops.end();) {
      Operation *op = (it++)->get();  // advance first: op may be buried
      vm_.remapOperands(op);
      for (auto &r : op->regions) runBlock(*r);
      if (!isPureOp(*op) || !op->regions.empty()) continue;
      size_t h = hashOp(*op);
      if (Operation *prev = lookup(op, h)) {
        for (size_t i = 0; i < op->results.size(); ++i) vm_.map(op->result(i), prev->result(i));
        gy_.bury(op);
      } else {
        scopes_.back().insert(op, h);
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
