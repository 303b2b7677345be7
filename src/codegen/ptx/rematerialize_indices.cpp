// rematerialize-indices: index and address tiles computed before a loop and
// read only after it are computed again after the loop; those computed
// before a loop that holds a loop (a loop over tiles around a key or K
// loop) and read in it only outside its inner loops are computed again in
// its body.
//
// Requires: verified Tile IR (the GPU passes before assign-layouts have run).
// Guarantees: no integer, boolean or pointer tile defined by cheap
// arithmetic (isCheapIndexOp) in a block is read by an op that follows a
// loop of that block, except where the loop's body reads it too (it is
// live across the loop anyway) or rebuilding it would need a tile that the
// loop does not read (a loaded tile a mask compares: keeping it would cost
// more registers than the mask). Such a reader reads a copy made right
// after the loop, rebuilt from scalars and from tiles the loop reads.
// Nor is such a tile read inside a `for` loop L of its block whose body
// holds a loop, where no loop nested in L reads it (nor a tile it is
// rebuilt from): those readers read a copy made in L's body, before the
// first op there that reads it. (Done first, so that a copy read again
// after the inner loop gets its own copy there by the rule above.)
// Originals left with no reader are erased.
// Preserves: what the program computes (the copies are pure and identical).
//
// Why: CSE shares arithmetic wherever it is equal, so a kernel that loads a
// tile before its main loop and stores one of the same shape after it (an
// attention kernel's Q and O, a matmul with a residual) keeps one set of
// addresses and bounds masks for both. That set lives in registers through
// the whole loop: for attention's 128x128 Q/O tiles, 16 64-bit addresses and
// 32 predicates per thread, about 70 registers the loop's accumulators need.
// Recomputing them after the loop costs a few dozen instructions once.
// Likewise licm hoists a loop over tiles' invariant index tiles (the
// column offsets and bounds of each tile's Q load) out of it, where they
// live through every inner loop: a persistent attention kernel took 216
// registers against the one-tile kernel's 168. Recomputing them costs a
// few dozen instructions a tile.
#include <map>
#include <unordered_set>

#include "codegen/ptx/gpu_passes.h"
#include "ir/op_groups.h"
#include "passes/pass_utils.h"

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

// Copies into the bodies of `block`'s loops over inner loops the index
// tiles of `block` that those bodies read only outside their inner loops.
class Sinker {
 public:
  explicit Sinker(Block &block) : block_(block) {}

  void run() {
    size_t i = 0;
    for (auto &op : block_.ops) position_[op.get()] = i++;
    for (auto &op : block_.ops)
      if (op->code == OpCode::For) sinkInto(*op);
  }

 private:
  // (Nothing to do for a loop that holds no loop.)
  void sinkInto(Operation &loop) {
    Block &body = *loop.regions[0];
    // What the loops nested in `loop` read in their bodies (their own
    // operands are read once, before they run).
    std::unordered_set<const Value *> innerReads;
    bool holdsLoop = false;
    for (auto &op : body.ops)
      op->walk([&](Operation *o) {
        if (!isLoop(*o)) return;
        holdsLoop = true;
        for (auto &region : o->regions)
          for (auto &inner : region->ops)
            inner->walk(
                [&](Operation *r) { innerReads.insert(r->operands.begin(), r->operands.end()); });
      });
    if (!holdsLoop) return;
    std::unordered_map<const Value *, Value *> copies;
    sinkable_.clear();
    // Top-level ops of the body in order; each reader of a sinkable tile
    // (itself or an op nested in it) reads a copy made just before it.
    for (auto it = body.ops.begin(); it != body.ops.end(); ++it) {
      Operation *top = it->get();
      top->walk([&](Operation *user) {
        for (Value *&v : user->operands)
          if (sinkable(v, loop, innerReads)) v = copyBefore(v, body, it, copies);
      });
    }
  }

  // A cheap index tile of this block defined before `loop`, that no inner
  // loop reads, rebuildable from scalars and such tiles.
  bool sinkable(Value *v, Operation &loop, const std::unordered_set<const Value *> &innerReads) {
    Operation *def = v->def;
    if (!def || def->parent != &block_ || !isCheapIndexOp(*def) ||
        position_.at(def) >= position_.at(&loop) || innerReads.count(v))
      return false;
    if (auto it = sinkable_.find(v); it != sinkable_.end()) return it->second;
    bool ok = true;
    for (Value *o : def->operands) ok = ok && (!o->type.isTile() || sinkable(o, loop, innerReads));
    return sinkable_[v] = ok;
  }

  // `v`'s copy in `body` (made before `at`, with the copies of its tile
  // operands, unless made already).
  Value *copyBefore(Value *v, Block &body, OpList::iterator at,
                    std::unordered_map<const Value *, Value *> &copies) {
    if (auto it = copies.find(v); it != copies.end()) return it->second;
    std::unordered_map<const Value *, Value *> mapping;
    for (Value *o : v->def->operands)
      if (o->type.isTile()) mapping[o] = copyBefore(o, body, at, copies);
    Builder b;
    b.setInsertionPoint(&body, at);
    return copies[v] = cloneOp(*v->def, b, mapping)->result();
  }

  Block &block_;
  std::unordered_map<const Operation *, size_t> position_;
  std::unordered_map<const Value *, bool> sinkable_;  // for the loop sinkInto serves
};

void rematerializeBlock(Block &block) {
  // Copies into loops over inner loops first (they may move readers into
  // the loop bodies), then inner blocks (a loop body's own loops), then
  // this one.
  Sinker(block).run();
  for (auto &op : block.ops)
    for (auto &region : op->regions) rematerializeBlock(*region);
  Rematerializer(block).run();
}

}  // namespace

void rematerializeIndices(Module &m) {
  for (auto &fn : m.functions) {
    rematerializeBlock(fn->body);
    // Originals whose every reader now reads a copy.
    passes::eraseUnusedOps(*fn, fn->body, /*nested=*/true,
                           [](const Operation &op) { return isCheapIndexOp(op); });
  }
}

}  // namespace tessera::ptx
