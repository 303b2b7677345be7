// rematerialize-indices: index and address tiles computed before a loop and
// read only after it are computed again after the loop.
//
// Requires: verified Tile IR (the GPU passes before assign-layouts have run).
// Guarantees: no integer, boolean or pointer tile defined by cheap
// arithmetic (isCheapIndexOp) in a block is read by an op that follows a
// loop of that block, except where the loop's body reads it too (it is
// live across the loop anyway) or rebuilding it would need a tile that the
// loop does not read (a loaded tile a mask compares: keeping it would cost
// more registers than the mask). Such a reader reads a copy made right
// after the loop, rebuilt from scalars and from tiles the loop reads.
// Preserves: what the program computes (the copies are pure and identical).
//
// Why: CSE shares arithmetic wherever it is equal, so a kernel that loads a
// tile before its main loop and stores one of the same shape after it (an
// attention kernel's Q and O, a matmul with a residual) keeps one set of
// addresses and bounds masks for both. That set lives in registers through
// the whole loop: for attention's 128x128 Q/O tiles, 16 64-bit addresses and
// 32 predicates per thread, about 70 registers the loop's accumulators need.
// Recomputing them after the loop costs a few dozen instructions once.
#include <map>
#include <unordered_set>

#include "codegen/ptx/gpu_passes.h"
#include "ir/op_groups.h"

namespace tessera::ptx {

namespace {

// Pure ops on integer, boolean and pointer tiles that cost an instruction
// or two per element, recomputable from their operands at any later point.
bool isCheapIndexOp(const Operation &op) {
  if (op.results.size() != 1 || !op.regions.empty()) return false;
  const Type &t = op.result()->type;
  if (!t.isTile() || (!t.isPtrLike() && isFloat(t.dtype))) return false;
  switch (op.code) {
    case OpCode::Constant:
    case OpCode::Splat:
    case OpCode::Arange:
    case OpCode::Broadcast:
    case OpCode::ExpandDims:
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Mul:
    TESSERA_BITWISE_CASES:
    case OpCode::Not:
    case OpCode::Max:
    case OpCode::Min:
    case OpCode::Cmp:
    case OpCode::Select:
    case OpCode::Cast:
    case OpCode::AddPtr:
    case OpCode::Hint:
      return true;
    default:
      return false;
  }
}

class Rematerializer {
 public:
  explicit Rematerializer(Block &block) : block_(block) {}

  void run() {
    // Positions of the block's ops, doubled: a copy made after the loop at
    // 2i sits at 2i + 1, after it and before the next op.
    std::vector<Operation *> order;
    for (auto &op : block_.ops) order.push_back(op.get());
    for (size_t i = 0; i < order.size(); ++i) position_[order[i]] = 2 * i;
    Operation *lastLoop = nullptr;
    for (Operation *op : order) {
      if (lastLoop) {
        op->walk([&](Operation *user) {
          for (Value *&v : user->operands) v = copyAfter(v, lastLoop);
        });
      }
      if (isLoop(*op)) lastLoop = op;
    }
  }

 private:
  // `v` itself, or its copy after `loop` when v is a cheap index tile of
  // this block defined before the loop that the loop does not read.
  Value *copyAfter(Value *v, Operation *loop) {
    if (!rebuildable(v, loop) || readsInside(loop, v)) return v;
    auto key = std::make_pair(v, loop);
    if (auto it = copies_.find(key); it != copies_.end()) return it->second;
    std::unordered_map<const Value *, Value *> mapping;
    for (Value *o : v->def->operands) mapping[o] = copyAfter(o, loop);
    Builder b;
    auto at = insertAt_.find(loop);
    b.setInsertionPoint(&block_, at != insertAt_.end() ? at->second : std::next(loop->self));
    Operation *copy = cloneOp(*v->def, b, mapping);
    position_[copy] = position_.at(loop) + 1;
    insertAt_[loop] = std::next(copy->self);
    return copies_[key] = copy->result();
  }

  // Whether `v` is a cheap index tile of this block defined before `loop`
  // whose operands are all to be had after the loop without keeping a
  // tile live through it that the loop does not read (a loaded tile that
  // a mask compares, say, is not worth its registers).
  bool rebuildable(Value *v, Operation *loop) {
    Operation *def = v->def;
    if (!def || def->parent != &block_ || !isCheapIndexOp(*def) ||
        position_.at(def) >= position_.at(loop))
      return false;
    auto key = std::make_pair(v, loop);
    if (auto it = rebuildable_.find(key); it != rebuildable_.end()) return it->second;
    bool ok = true;
    for (Value *o : def->operands)
      ok = ok && (!o->type.isTile() || readsInside(loop, o) || rebuildable(o, loop));
    return rebuildable_[key] = ok;
  }

  // Whether an op in `loop`'s body reads `v` (then `v` is live through the
  // loop whatever follows it). The loop's own operands (bounds, initial
  // values) are read once, before it runs. The body is walked once per loop.
  bool readsInside(Operation *loop, Value *v) {
    auto [it, fresh] = readInside_.try_emplace(loop);
    if (fresh)
      for (auto &region : loop->regions)
        for (auto &op : region->ops)
          op->walk([&](Operation *inner) {
            it->second.insert(inner->operands.begin(), inner->operands.end());
          });
    return it->second.count(v) != 0;
  }

  Block &block_;
  std::unordered_map<const Operation *, size_t> position_;
  std::map<std::pair<Value *, Operation *>, Value *> copies_;
  std::map<std::pair<Value *, Operation *>, bool> rebuildable_;
  std::unordered_map<const Operation *, std::unordered_set<const Value *>> readInside_;
  // Where the next copy after each loop goes: after the copies made so far,
  // which it may read.
  std::unordered_map<const Operation *, OpList::iterator> insertAt_;
};

void rematerializeBlock(Block &block) {
  // Inner blocks first (a loop body's own loops), then this one.
  for (auto &op : block.ops)
    for (auto &region : op->regions) rematerializeBlock(*region);
  Rematerializer(block).run();
}

}  // namespace

void rematerializeIndices(Module &m) {
  for (auto &fn : m.functions) rematerializeBlock(fn->body);
}

}  // namespace tessera::ptx
