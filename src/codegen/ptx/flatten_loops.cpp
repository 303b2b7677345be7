// flatten-loops: a `for` loop marked flatten (`tl.range(..., flatten=True)`,
// the persistent matmul's loop over tiles) and the one loop nested in it
// become a single loop over every (outer, inner) iteration pair. The
// software pipeline then spans the tiles: the copies for the next tile's
// first K steps are in flight during this tile's last ones and its epilogue,
// instead of each tile starting with an empty ring and ending with a drain
// (Triton's fuse-nested-loops).
//
// Requires: verified Tile IR with calls inlined, after descriptors-from-
// pointers (which makes a dot operand's map once before O) and before the
// passes that pipeline loops (expand-descriptor-loads onwards).
// Guarantees: an outer loop O marked {flatten = 1} whose body is
//   P  pure ops without regions (the tile's coordinates, the accumulator's
//      zeros), which may read O's induction variable t but not O's carried
//      values X, and whose results that depend on t and that I reads are
//      scalars (tiles that only E reads are made again in E)
//   I  one `for` loop over k, its bounds and step defined outside O, with
//      carried values Y whose inits may come from P
//   E  any ops (the epilogue), then O's yield
// with i32 induction variables and constant positive steps (O's may be the
// program count: persistent-programs), becomes
//   nO, nI = the trip counts of O and I (computed in i64)
//   if nI > 0 and nO * nI < 2^31:
//     F: for it in [0, nO * nI), carrying X, Y, r (I's step), t, and C
//        (P's scalars that depend on t and that I or E read, or that the
//        tiles E reads are made of; P's others are made once before F),
//        from r = 0, t = O's first, C = P at t:
//       k = I.lb + r * I.step; I's body at k, each Y from P's init when
//       r == 0, else carried
//       if r == nI - 1: P's tiles that E reads from C, then E, yielding
//       O's next X;  else: X unchanged
//       r, t = (0, t + O.step) after a tile's last step, else (r + 1, t);
//       C = P at the new t after a tile's last step (an `if`), else C
//     yield F's X
//   else: O as it was (without the flatten mark)
// The pipelining passes run the copies' r, t and C ahead in carried values
// of their own (their updates are pure), so each tile's coordinates are
// computed once per tile rather than from `it` every step (an H200 lost 30%
// of tutorial 09's speed dividing `it` and the tile index every step). A Y
// whose init is the constant zero and that only a dot reads as its
// accumulator is not selected: the dot takes a fourth operand, use_acc
// (r != 0), which wgmma applies as the scale of its first product at no
// cost. F takes I's attributes (num_stages) over O's, and {flattened = 1};
// E's `if` is marked {epilogue = 1}: the pipeliners do not order the next
// tiles' copies after its stores, as Triton does not (a store anywhere else
// in F keeps its loads unpipelined).
// Preserves: what the program computes, in the same order per value. P
// runs once more past the last tile, which pure ops allow.
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "codegen/ptx/gpu_passes.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {
namespace {

using passes::constantOf;
using passes::forYield;
using passes::i32Loop;
using passes::positiveConstantStep;
using Mapping = std::unordered_map<const Value *, Value *>;

// The loop over tiles may also step by the program count (at least 1): a
// persistent kernel's (persistent-programs).
bool positiveStep(const Operation &loop) {
  const Operation *d = loop.operand(2)->def;
  return positiveConstantStep(loop) || (d && d->code == OpCode::NumPrograms);
}

// The single inner loop of `outer` when it has the shape the pass takes.
Operation *innerLoopOf(Operation &outer) {
  if (outer.code != OpCode::For || outer.intAttr("flatten") != 1 || !forYield(&outer) ||
      !i32Loop(outer) || !positiveStep(outer))
    return nullptr;
  Operation *inner = nullptr;
  for (auto &o : outer.regions[0]->ops) {
    Operation *op = o.get();
    if (op->code == OpCode::For) {
      if (inner) return nullptr;  // two inner loops
      inner = op;
    } else if (!inner && (!isPureOp(*op) || !op->regions.empty())) {
      return nullptr;  // P must be pure ops, which F may run every iteration
    } else if (inner && isLoop(*op)) {
      return nullptr;  // a loop after the inner one: not the shape we fuse
    }
  }
  if (!inner || !forYield(inner) || !i32Loop(*inner) || !positiveConstantStep(*inner))
    return nullptr;
  for (int i = 0; i < 3; ++i)
    if (passes::isDefinedInside(inner->operand(i), &outer)) return nullptr;
  return inner;
}

class Flattener {
 public:
  Flattener(Function &fn, Operation *outer, Operation *inner)
      : fn_(fn), outer_(outer), inner_(inner), ob_(*outer->regions[0]), ib_(*inner->regions[0]) {}

  // P's ops that depend on t, and their results read after P. False when
  // one reads X (F would recompute it from the epilogue's X, and the
  // pipeliners could not run the coordinates ahead of it), or when I reads
  // a tile of them, which F would carry: for tutorial 09's pointer kernel
  // (its row and column offsets, broadcast to the blocks' shapes) the
  // carried tiles cost more registers (220 a thread against 196) than the
  // fused pipeline gained (569 TFLOP/s nested, 493 fused, on an H200 at K =
  // 8192). A tile only E reads (the store's offsets and mask) is made again
  // in E's branch, once a tile, from the scalars it is made of, which F
  // carries instead.
  bool plan() {
    std::unordered_set<const Value *> tainted{ob_.args[0].get()};
    for (auto &o : ob_.ops) {
      if (o.get() == inner_) break;
      for (const Value *v : o->operands) {
        for (size_t i = 1; i < ob_.args.size(); ++i)
          if (v == ob_.args[i].get()) return false;
        if (tainted.count(v)) variant_.insert(o.get());
      }
      if (variant_.count(o.get()))
        for (auto &r : o->results) tainted.insert(r.get());
    }
    std::unordered_set<const Value *> readByInner;  // I's bounds and inits too
    inner_->walk(
        [&](Operation *op) { readByInner.insert(op->operands.begin(), op->operands.end()); });
    std::unordered_set<const Value *> readAfter = readByInner;
    bool after = false;
    for (auto &o : ob_.ops) {
      if (after)
        o->walk([&](Operation *op) { readAfter.insert(op->operands.begin(), op->operands.end()); });
      after = after || o.get() == inner_;
    }
    // Backwards over P: a variant tile read after P (or by one made again)
    // is made again in E; the scalars those read are carried.
    std::vector<Operation *> p;
    for (auto &o : ob_.ops) {
      if (o.get() == inner_) break;
      p.push_back(o.get());
    }
    std::unordered_set<const Value *> carried;
    for (auto it = p.rbegin(); it != p.rend(); ++it) {
      Operation *op = *it;
      if (!variant_.count(op)) continue;
      bool needed = false, tile = false;
      for (auto &r : op->results) {
        needed = needed || readAfter.count(r.get());
        tile = tile || r->type.isTile();
        if (r->type.isTile() && readByInner.count(r.get())) return false;
      }
      if (!needed) continue;
      if (!tile) {
        for (auto &r : op->results) carried.insert(r.get());
        continue;
      }
      remade_.insert(op);
      readAfter.insert(op->operands.begin(), op->operands.end());
    }
    for (Operation *op : p)
      if (variant_.count(op) && !remade_.count(op))
        for (auto &r : op->results)
          if (carried.count(r.get())) coordinates_.push_back(r.get());
    return true;
  }

  void run() {
    const Type i32 = Type::scalar(DType::I32), i64 = Type::scalar(DType::I64),
               i1 = Type::scalar(DType::I1);
    Builder b;
    b.setInsertionPointBefore(outer_);
    b.setLoc(outer_->loc);
    Value *nO = tripCount(b, *outer_), *nI = tripCount(b, *inner_);
    Value *zero64 = b.constInt(0, i64);
    Value *innerRuns = b.op1(OpCode::Cmp, {nI, zero64}, i1, {{"pred", std::string("gt")}});
    Value *oneAtLeast = b.op1(OpCode::Max, {nI, b.constInt(1, i64)}, i64);
    Value *maxOuter = b.op1(OpCode::Div, {b.constInt(INT32_MAX, i64), oneAtLeast}, i64);
    Value *fits = b.op1(OpCode::Cmp, {nO, maxOuter}, i1, {{"pred", std::string("le")}});
    Value *flat = b.op1(OpCode::And, {innerRuns, fits}, i1);
    std::vector<Type> types;
    for (auto &r : outer_->results) types.push_back(r->type);
    Operation *guard = b.create(OpCode::If, {flat}, types, {}, 2);

    // else: the loop as it was, no longer marked.
    Builder e(guard->regions[1].get());
    e.setLoc(outer_->loc);
    Mapping none;
    Operation *kept = cloneOp(*outer_, e, none);
    kept->removeAttr("flatten");
    std::vector<Value *> keptResults;
    for (auto &r : kept->results) keptResults.push_back(r.get());
    e.create(OpCode::Yield, keptResults, {});

    Builder t(guard->regions[0].get());
    t.setLoc(outer_->loc);
    Value *total = t.op1(OpCode::Cast, {t.op1(OpCode::Mul, {nO, nI}, i64)}, i32);
    Operation *loop = buildFlatLoop(t, total, t.op1(OpCode::Cast, {nI}, i32));
    std::vector<Value *> results;
    for (size_t i = 0; i < outer_->results.size(); ++i)
      results.push_back(loop->result(static_cast<unsigned>(i)));
    t.create(OpCode::Yield, results, {});

    for (size_t i = 0; i < outer_->results.size(); ++i)
      replaceAllUsesWith(fn_.body, outer_->result(static_cast<unsigned>(i)),
                         guard->result(static_cast<unsigned>(i)));
    eraseOp(outer_);
  }

 private:
  // ceil((ub - lb) / step), at least 0, in i64 (no i32 bound overflows).
  static Value *tripCount(Builder &b, const Operation &loop) {
    const Type i64 = Type::scalar(DType::I64);
    Value *lb = b.op1(OpCode::Cast, {loop.operand(0)}, i64);
    Value *ub = b.op1(OpCode::Cast, {loop.operand(1)}, i64);
    Value *step = b.op1(OpCode::Cast, {loop.operand(2)}, i64);
    Value *span = b.op1(OpCode::Sub, {ub, lb}, i64);
    Value *up =
        b.op1(OpCode::Sub, {b.op1(OpCode::Add, {span, step}, i64), b.constInt(1, i64)}, i64);
    return b.op1(OpCode::Max, {b.op1(OpCode::Div, {up, step}, i64), b.constInt(0, i64)}, i64);
  }

  // Whether inner carried value j starts every tile at zero and is read
  // only as the accumulator of one dot: the dot then ignores it on a tile's
  // first iteration instead of F selecting zeros.
  Operation *zeroStartedAccumulator(size_t j) {
    auto c = constantOf(inner_->operand(static_cast<unsigned>(3 + j)));
    if (!c || (c->isFloat ? c->f != 0 || std::signbit(c->f) : c->i != 0)) return nullptr;
    const Value *arg = ib_.args[1 + j].get();
    Operation *reader = nullptr;
    int uses = 0;
    for (auto &o : ib_.ops)
      o->walk([&](Operation *op) {
        for (size_t i = 0; i < op->operands.size(); ++i)
          if (op->operand(i) == arg) {
            ++uses;
            if (op->code == OpCode::Dot && i == 2 && op->operands.size() == 3 && op->parent == &ib_)
              reader = op;
          }
      });
    return uses == 1 ? reader : nullptr;
  }

  // F, at t's point: `total` (i32) iterations, `innerTrips` (i32) a tile.
  Operation *buildFlatLoop(Builder &t, Value *total, Value *innerTrips) {
    const Type i32 = Type::scalar(DType::I32), i1 = Type::scalar(DType::I1);
    const size_t nx = outer_->results.size(), ny = inner_->results.size();
    Operation *outerYield = ob_.terminator();
    Value *outerLb = outer_->operand(0), *outerStep = outer_->operand(2);
    // P at O's first t, before F: the invariant values for good, and the
    // first tile's coordinates.
    Mapping before;
    before[ob_.args[0].get()] = outerLb;
    for (auto &o : ob_.ops) {
      if (o.get() == inner_) break;
      cloneOp(*o, t, before);
    }
    std::vector<Value *> operands{t.constInt(0, i32), total, t.constInt(1, i32)};
    std::vector<Type> types;
    for (size_t i = 0; i < nx; ++i) {
      operands.push_back(outer_->operand(static_cast<unsigned>(3 + i)));
      types.push_back(outer_->result(static_cast<unsigned>(i))->type);
    }
    for (size_t j = 0; j < ny; ++j) {
      operands.push_back(mapped(before, inner_->operand(static_cast<unsigned>(3 + j))));
      types.push_back(inner_->result(static_cast<unsigned>(j))->type);
    }
    operands.push_back(t.constInt(0, i32));  // r
    operands.push_back(outerLb);             // t
    types.push_back(i32);
    types.push_back(i32);
    for (Value *v : coordinates_) {
      operands.push_back(mapped(before, v));
      types.push_back(v->type);
    }
    Operation *loop = t.create(OpCode::For, operands, types);
    for (const NamedAttr &a : outer_->attrs)
      if (a.name != "flatten") loop->setAttr(a.name, a.value);
    for (const NamedAttr &a : inner_->attrs)
      if (a.name != "flatten") loop->setAttr(a.name, a.value);
    loop->setAttr("flattened", int64_t{1});
    Block &fb = *loop->regions[0];
    fb.addArg(i32, "it");
    std::vector<Value *> x, y, coords;
    for (size_t i = 0; i < nx; ++i) x.push_back(fb.addArg(types[i], ob_.args[1 + i]->nameHint));
    for (size_t j = 0; j < ny; ++j)
      y.push_back(fb.addArg(types[nx + j], ib_.args[1 + j]->nameHint));
    Value *r = fb.addArg(i32), *tv = fb.addArg(i32, ob_.args[0]->nameHint);
    for (Value *v : coordinates_) coords.push_back(fb.addArg(v->type, v->nameHint));

    Builder in(&fb);
    in.setLoc(outer_->loc);
    Value *zero = in.constInt(0, i32), *one = in.constInt(1, i32);
    Value *kv = in.op1(
        OpCode::Add, {inner_->operand(0), in.op1(OpCode::Mul, {r, inner_->operand(2)}, i32)}, i32);
    Value *first = in.op1(OpCode::Cmp, {r, zero}, i1, {{"pred", std::string("eq")}});
    Value *lastR = in.op1(OpCode::Sub, {innerTrips, one}, i32);
    Value *last = in.op1(OpCode::Cmp, {r, lastR}, i1, {{"pred", std::string("eq")}});

    // P's values: the invariant ones from before F, the tile's from F's own.
    Mapping m = before;
    m[ob_.args[0].get()] = tv;
    for (size_t i = 0; i < nx; ++i) m[ob_.args[1 + i].get()] = x[i];
    for (size_t c = 0; c < coordinates_.size(); ++c) m[coordinates_[c]] = coords[c];
    // I's body at k, from P's inits on a tile's first iteration.
    m[ib_.args[0].get()] = kv;
    std::vector<Operation *> accumulatorDots;
    Value *useAcc = nullptr;
    for (size_t j = 0; j < ny; ++j) {
      if (Operation *dot = zeroStartedAccumulator(j)) {
        if (!useAcc) useAcc = in.op1(OpCode::Cmp, {r, zero}, i1, {{"pred", std::string("ne")}});
        accumulatorDots.push_back(dot);
        m[ib_.args[1 + j].get()] = y[j];
        continue;
      }
      Value *init = mapped(m, inner_->operand(static_cast<unsigned>(3 + j)));
      const Type &yt = y[j]->type;
      Value *cond = yt.isTile() ? in.op1(OpCode::Splat, {first}, Type::tile(yt.shape, i1)) : first;
      m[ib_.args[1 + j].get()] = in.op1(OpCode::Select, {cond, init, y[j]}, yt);
    }
    for (auto &o : ib_.ops)
      if (o->code != OpCode::Yield) cloneOp(*o, in, m);
    for (Operation *dot : accumulatorDots)
      mapped(m, dot->result())->def->operands.push_back(useAcc);
    Operation *innerYield = ib_.terminator();
    for (size_t j = 0; j < ny; ++j)
      m[inner_->result(static_cast<unsigned>(j))] = mapped(m, innerYield->operand(j));

    // E on a tile's last iteration.
    std::vector<Type> xTypes(types.begin(), types.begin() + static_cast<long>(nx));
    Operation *epilogue = in.create(OpCode::If, {last}, xTypes, {{"epilogue", int64_t{1}}}, 2);
    Builder then(epilogue->regions[0].get());
    then.setLoc(outer_->loc);
    for (auto &o : ob_.ops) {
      if (o.get() == inner_) break;
      if (remade_.count(o.get())) cloneOp(*o, then, m);
    }
    bool after = false;
    for (auto &o : ob_.ops) {
      if (o.get() == inner_) {
        after = true;
        continue;
      }
      if (after && o->code != OpCode::Yield) cloneOp(*o, then, m);
    }
    std::vector<Value *> nextX;
    for (Value *v : outerYield->operands) nextX.push_back(mapped(m, v));
    then.create(OpCode::Yield, nextX, {});
    Builder(epilogue->regions[1].get()).create(OpCode::Yield, x, {});

    // The next iteration's position, and its tile's coordinates: P again
    // where a tile starts, else the same.
    Value *nextR = in.op1(OpCode::Select, {last, zero, in.op1(OpCode::Add, {r, one}, i32)}, i32);
    Value *nextT =
        in.op1(OpCode::Select, {last, in.op1(OpCode::Add, {tv, outerStep}, i32), tv}, i32);
    std::vector<Type> coordTypes;
    for (Value *v : coordinates_) coordTypes.push_back(v->type);
    Operation *nextTile = in.create(OpCode::If, {last}, coordTypes, {}, 2);
    Builder recompute(nextTile->regions[0].get());
    recompute.setLoc(outer_->loc);
    Mapping p = before;
    p[ob_.args[0].get()] = nextT;
    for (auto &o : ob_.ops) {
      if (o.get() == inner_) break;
      if (variant_.count(o.get())) cloneOp(*o, recompute, p);
    }
    std::vector<Value *> fresh;
    for (Value *v : coordinates_) fresh.push_back(mapped(p, v));
    recompute.create(OpCode::Yield, fresh, {});
    Builder(nextTile->regions[1].get()).create(OpCode::Yield, coords, {});

    std::vector<Value *> yielded;
    for (size_t i = 0; i < nx; ++i) yielded.push_back(epilogue->result(static_cast<unsigned>(i)));
    for (size_t j = 0; j < ny; ++j) yielded.push_back(mapped(m, innerYield->operand(j)));
    yielded.push_back(nextR);
    yielded.push_back(nextT);
    for (size_t c = 0; c < coordinates_.size(); ++c)
      yielded.push_back(nextTile->result(static_cast<unsigned>(c)));
    in.create(OpCode::Yield, yielded, {});
    return loop;
  }

  Function &fn_;
  Operation *outer_, *inner_;
  Block &ob_, &ib_;
  std::unordered_set<const Operation *> variant_;  // P's ops that depend on t
  std::vector<Value *> coordinates_;  // their scalars read after P (or by remade_): F carries them
  std::unordered_set<const Operation *> remade_;  // their tiles read after P: made again in E
};

void flattenIn(Function &fn, Block &block) {
  std::vector<Operation *> ops;
  for (auto &o : block.ops) ops.push_back(o.get());
  for (Operation *op : ops) {
    for (auto &r : op->regions) flattenIn(fn, *r);  // inner loops first
    if (Operation *inner = innerLoopOf(*op))
      if (Flattener f(fn, op, inner); f.plan()) f.run();
  }
}

}  // namespace

void flattenLoops(Module &m) {
  bool any = false;
  for (auto &fn : m.functions)
    fn->walk([&](Operation *op) { any = any || op->intAttr("flatten") == 1; });
  if (!any) return;
  for (auto &fn : m.functions) flattenIn(*fn, fn->body);
  runPasses(m, {"canonicalize", "cse", "licm", "dce"}, {});
}

}  // namespace tessera::ptx
