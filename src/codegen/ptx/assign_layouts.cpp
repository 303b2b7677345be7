// assign-layouts: gives every tile value a distributed layout (layout.h),
// chosen so that global memory accesses are coalesced and vectorised.
//
// Requires: verified Tile IR with calls inlined; Module::numWarps set.
// Guarantees: every tile-typed op result and block argument carries a layout
// attribute (LinearLayout::str()), and
//   - the tile operands and results of an elementwise op, load, store,
//     atomic, async_copy, hint and philox share one layout; so do the values a for, if
//     or while carries (init, block argument, yielded value, result), and the
//     accumulator and result of a dot;
//   - expand_dims: result == operand.expanded(axis);
//   - broadcast: operand == result.collapsed(the broadcast dims);
//   - reduce with a tile result: result == operand.sliced(axis); scan: the
//     results share the operands' layout;
//   - reshape, permute, split and join: where one side's layout is set and
//     the other's is not, the other gets the layout that makes the op a
//     renaming of registers (LinearLayout::reshaped, permuted, splitLast,
//     joinedLast; a split whose last dim lanes hold has none); the results
//     of such ops of a tensor-core accumulator are pinned with it, as its
//     reductions are; a join's two operands share one layout. Otherwise
//     any layouts, as for the other shape ops;
//   - other shape ops, dot operands: any layouts (the emitter moves data
//     through shared memory), except operand A of a wgmma dot that reads it
//     from registers: it has wgmmaOperandALayout, converted right after its
//     definition where its class has another (so a Q loaded before the
//     attention loop is converted once, and a P computed in the
//     accumulator layout of a previous wgmma needs no conversion);
//   - a dot that runs on tensor cores (mma.h's selectWgmma on sm_90a, else
//     selectMma for Module::targetSm): its result has the instruction's
//     accumulator layout (wgmma's or mma.sync's; for mma.sync dots that
//     feed one another in a block that also reduces rows of their values,
//     chainedDots, the one with the warps along M, so that a 16-bit
//     result is the next dot's A in registers as it is), and so does
//     everything sharing its layout (the loop-carried accumulator, the
//     epilogue's arithmetic), since moving the accumulator out of the
//     fragments the instruction writes would cost a trip through shared
//     memory per iteration;
//   - a store whose pointers would move wider vectors, or touch half the
//     32-byte sectors or fewer, in their own coalesced layout than in its
//     value's (an accumulator's, or a tile loaded along another dimension)
//     stores a convert_layout of the value (separateStores).
// convert_layout ops are inserted where these constraints would disagree,
// except for index tiles (aranges, splats and constants through shape ops
// and a few integer ops), which are recomputed in the wanted layout there.
// Preserves: what the program computes (convert_layout is an identity).
//
// How: values that must share a layout are unified (union-find) into
// classes. A class containing a global memory access takes the layout that
// access prefers (from axis info: the most contiguous dim fastest, up to 16
// bytes per thread when contiguity and alignment allow), unless a
// tensor-core dot pinned it (its accumulator's class, and the classes of
// reductions and shape ops of it); layouts then flow between classes across
// expand_dims, reshape, permute, split and join (both ways), broadcast
// (result to operand) and reduce (operand to result); a class still unset gets the
// default layout of its shape, and flow resumes. Tensor-core dots pin their
// class first; anchors then set only unpinned classes. Constants, splats,
// aranges, broadcasts and expand_dims used by several ops are first
// duplicated per use, each copy next to its user, so unrelated users do not
// end up in one class (a mask `rows < n` shared by a load before a loop and
// a store of the accumulator after it would otherwise give the load the
// accumulator's layout) and no such value stays live across a loop.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/layout.h"
#include "codegen/ptx/mma.h"
#include "ir/op_groups.h"
#include "passes/axis_info.h"
#include "support/diagnostics.h"

namespace tessera::ptx {
namespace {

bool isTile(const Value *v) {
  return v->type.isTile();
}

// The 2-D dots of a block that feed one another there, through any ops,
// where the block also reduces rows of a value made from them (attention's
// forward: S = Q K^T feeds O += P V, and S's row maxima and sums rescale
// O): Triton's rule for mma.sync layouts then puts the warps along M
// (mmaWarpSplit's rowsFirst), so the row statistics reduce within a warp
// and meet O's rows where they are. Chained dots without such a reduction
// (attention's backward) keep the balanced split: all along M, each warp
// would read all of B's fragments, for more registers and no barrier saved.
std::unordered_set<const Operation *> chainedDots(Function &fn) {
  std::unordered_set<const Operation *> chained;
  bool anyDot = false;  // (the walk below costs a map lookup per operand)
  fn.walk([&](Operation *o) { anyDot = anyDot || o->code == OpCode::Dot; });
  if (!anyDot) return chained;
  std::function<void(Block &)> visit = [&](Block &b) {
    // Each value of the block: the dots of the block it derives from.
    std::unordered_map<const Value *, std::vector<const Operation *>> from;
    std::vector<const Operation *> linked;
    bool rowsReduced = false;
    for (auto &op : b.ops) {
      std::vector<const Operation *> src;
      op->walk([&](Operation *o) {
        for (const Value *v : o->operands)
          if (auto it = from.find(v); it != from.end())
            src.insert(src.end(), it->second.begin(), it->second.end());
      });
      if (op->code == OpCode::Dot && op->operand(0)->type.rank() == 2) {
        for (const Operation *d : src) linked.push_back(d), linked.push_back(op.get());
        src.push_back(op.get());
      }
      if (op->code == OpCode::Reduce && !src.empty() && op->operand(0)->type.isTile() &&
          op->intAttr("axis") == op->operand(0)->type.rank() - 1)
        rowsReduced = true;
      std::sort(src.begin(), src.end());
      src.erase(std::unique(src.begin(), src.end()), src.end());
      if (!src.empty())
        for (auto &r : op->results) from[r.get()] = src;
      for (auto &region : op->regions) visit(*region);
    }
    if (rowsReduced) chained.insert(linked.begin(), linked.end());
  };
  visit(fn.body);
  return chained;
}

// Integer and boolean arithmetic that rematerializeIndexConverts may
// recompute: exact, side-effect free, a few instructions per element. Casts
// between integer types too: indices widened to 64 bits (`offs.to(tl.int64)`,
// or the addresses of a 64-bit pointer analysis) are one cvt an element.
bool isIndexArithmetic(const Operation &op) {
  switch (op.code) {
  TESSERA_BINARY_CASES:
  case OpCode::Cast:
  case OpCode::Neg:
  case OpCode::Not:
  case OpCode::Cmp:
  case OpCode::Select:
    break;
    default:
      return false;
  }
  auto integral = [](const Value *v) { return !v->type.isPtrLike() && isInt(v->type.dtype); };
  for (const Value *v : op.operands)
    if (!integral(v)) return false;
  return op.results.size() == 1 && integral(op.result());
}

// Ops whose tile operands and results all share one layout.
bool sharesLayout(OpCode c) {
  if (hasFlag(c, opflags::Elementwise)) return true;
  switch (c) {
    case OpCode::Load:
    case OpCode::Store:
    case OpCode::AtomicRmw:
    case OpCode::AtomicCas:
    case OpCode::Hint:
    case OpCode::Philox:
    case OpCode::Scan:
    case OpCode::AsyncCopy:  // its pointers and mask (the destination is a memdesc)
      return true;
    default:
      return false;
  }
}

class Assigner {
 public:
  Assigner(Function &fn, int numWarps, int targetSm, bool archSpecific)
      : fn_(fn), numWarps_(numWarps), targetSm_(targetSm), archSpecific_(archSpecific) {}

  void run() {
    duplicateLeaves();
    info_ = analyzeMemoryAxisInfo(fn_);
    assign();
    if (separateStores()) {
      cls_ = {};
      assign();
    }
    apply();
  }

 private:
  // The layout for every class: union-find, then resolution.
  void assign() {
    for (auto &a : fn_.body.args) add(a.get());
    fn_.walk([&](Operation *op) { collect(op); });
    resolve();
  }

  // How a global access moves its tile at best: `vec` consecutive elements
  // per thread along `dim`, the dim its pointers are most contiguous in, as
  // alignment allows (at most 16 bytes); `order` lists dims fastest first.
  struct Access {
    std::vector<int> order;
    int dim = 0;
    int64_t vec = 1;
    int elemBytes = 1;
  };

  // The dimension a thread holds most consecutive elements of.
  static int fastestDim(const LinearLayout &l) {
    int best = 0;
    for (int d = 1; d < static_cast<int>(l.shape.size()); ++d)
      if (l.contiguousRegs(d) > l.contiguousRegs(best)) best = d;
    return best;
  }

  // A store whose class took another layout than its own coalesced one
  // writes narrower vectors, or none: a tensor-core accumulator (a matmul's
  // or attention's epilogue) keeps the instruction's fragment layout, in
  // which a thread holds 2 consecutive elements per row (4-byte stores for
  // fp16); a tile loaded along one dimension and stored along the other (a
  // transpose) keeps the load's, so each lane writes its own row. Where the
  // store's own layout moves wider vectors along the dimension its pointers
  // are contiguous in, it gets a convert_layout of its value (through shared
  // memory, packed), so the store is anchored by its pointers and writes up
  // to 16 bytes per thread, as Triton's epilogue and layout conversions do.
  // A residual read into an accumulator's class (C + A B's C, loaded
  // outside any loop) likewise loads in its own layout and converts (a
  // separated load); the store to the same pointers then shares that
  // layout. Returns whether any access changed, after which the classes are
  // computed again; a convert that ends up an identity is removed (apply).
  bool separateStores() {
    bool changed = false;
    std::optional<PtrMap<const Value *, int>> uses;  // counted once a store needs it
    for (Operation *op : cls_.anchors) {
      if (op->code == OpCode::Load) {
        changed |= separateResidualLoad(op);
        continue;
      }
      if (op->code != OpCode::Store) continue;
      Value *value = op->operand(1);
      if (!isTile(value) || (value->def && value->def->code == OpCode::ConvertLayout)) continue;
      const auto &shape = value->type.shape;
      const Access access = accessOf(op);
      LinearLayout want = coalescedFor(op, access);
      const LinearLayout &have = cls_.layouts.at(find(value));
      // Outside an accumulator's class only a transpose pays for the trip
      // through shared memory: a store that is merely narrower (a reduced
      // row's sliced layout, an access less aligned than the load that
      // won the class) still writes whole sectors in order.
      if (!cls_.pinned.count(find(value))) {
        int haveAlong = fastestDim(have);
        if (shape.size() < 2 || haveAlong == access.dim || have.contiguousRegs(haveAlong) == 1)
          continue;
      }
      if (!conversionWidens(access, want, have, value)) continue;
      // The mask too where something else reads it (a load's mask the
      // store shares, which would tie the store to the load's class again;
      // it is recomputed, an index tile, where rematerializeIndexConverts
      // can).
      Builder b;
      b.setInsertionPointBefore(op);
      b.setLoc(op->loc);
      if (!uses) uses = countUses(fn_);
      for (unsigned i = 1; i < op->operands.size(); ++i) {
        Value *v = op->operands[i];
        if (!isTile(v) || (i == 2 && uses->get(v) < 2)) continue;
        op->operands[i] = b.op1(OpCode::ConvertLayout, {v}, v->type);
        storeConverts_.push_back({op->operands[i]->def, op});
      }
      changed = true;
    }
    return changed;
  }

  // Whether access `a` of tile `v` costs less in its own layout `want`
  // than in its class's `have` (wider vectors along the dim its pointers are
  // contiguous in, or half the 32-byte sectors or fewer: an accumulator's
  // fragment rows are 8 or 16 bytes wide, so an unaligned epilogue store
  // touches a sector per row where a row of lanes fills whole ones), and the
  // conversion between them can be staged: a tile over kMaxConvertBytes
  // converts in bands of rows, which needs a row bit both layouts hold in
  // registers.
  static bool conversionWidens(const Access &a, const LinearLayout &want, const LinearLayout &have,
                               const Value *v) {
    int64_t bytes = v->type.numel() * sharedElemBytes(v->type.dtype);
    // Sectors are counted (a walk over every register, lane and warp) only
    // where the vectors do not already decide.
    const bool cheaper = want.contiguousRegs(a.dim) > have.contiguousRegs(a.dim) ||
                         2 * want.sectorsTouched(a.dim, a.vec, a.elemBytes) <=
                             have.sectorsTouched(a.dim, a.vec, a.elemBytes);
    return cheaper && conversionBands(have, want, bytes).has_value();
  }

  // See separateStores. A load in a loop keeps the accumulator's layout: a
  // conversion per iteration would cost more than the narrower accesses.
  bool separateResidualLoad(Operation *op) {
    Value *res = op->result();
    if (!isTile(res) || !cls_.pinned.count(find(res))) return false;
    for (Operation *p = op->parent->parentOp; p; p = p->parent->parentOp)
      if (isLoop(*p)) return false;
    const Access access = accessOf(op);
    if (!conversionWidens(access, coalescedFor(op, access), cls_.layouts.at(find(res)), res))
      return false;
    Builder b;
    b.setInsertionPoint(op->parent, std::next(op->self));
    b.setLoc(op->loc);
    Value *conv = b.op1(OpCode::ConvertLayout, {res}, res->type);
    replaceAllUsesWith(fn_.body, res, conv);
    conv->def->operands[0] = res;  // the line above rewrote the convert's own operand too
    loadConverts_.push_back(conv->def);
    return true;
  }

  // ---- union-find ----
  Value *find(Value *v) {
    // Every value met here was added, so find() never misses (and never
    // inserts, which would move the entries under `p`).
    for (;;) {
      Value **p = cls_.parent.find(v);
      if (*p == v) return v;
      Value *grand = *cls_.parent.find(*p);
      *p = grand;  // path halving
      v = grand;
    }
  }
  void add(Value *v) {
    if (isTile(v) && cls_.parent.insert(v, v)) cls_.order.push_back(v);
  }
  void unite(Value *a, Value *b) {
    if (!isTile(a) || !isTile(b) || a->type.shape != b->type.shape) return;
    add(a);
    add(b);
    a = find(a);
    b = find(b);
    if (a != b) cls_.parent[b] = a;
  }

  // Constants, splats, aranges, broadcasts and expand_dims with several
  // uses: one copy per use, so unrelated users do not share a class. Each
  // copy goes just before its user, lifted out of the loops and branches
  // that the original's block encloses: a value used both before and after
  // a loop is then not kept in registers across it (the copy after the
  // loop recomputes it from its operands, which are copied in turn in the
  // next round), while users inside a loop still get their copy before it.
  // These ops only replicate or compute registers from scalars, so copies
  // cost little and never repeat per iteration.
  void duplicateLeaves() {
    auto isLeaf = [](const Value *v) {
      if (!v->def || !isTile(v)) return false;
      OpCode c = v->def->code;
      return c == OpCode::Constant || c == OpCode::Splat || c == OpCode::Arange ||
             c == OpCode::Broadcast || c == OpCode::ExpandDims;
    };
    for (bool again = true; again;) {
      again = false;
      // One walk: every use of a leaf, and how many each leaf has.
      PtrMap<const Value *, int> uses;
      std::vector<std::pair<Operation *, unsigned>> sites;  // (user, operand index)
      fn_.walk([&](Operation *op) {
        for (unsigned i = 0; i < op->operands.size(); ++i) {
          Value *v = op->operands[i];
          if (!isLeaf(v)) continue;
          ++uses[v];
          sites.push_back({op, i});
        }
      });
      PtrSet<const Value *> firstKept;
      for (auto [user, i] : sites) {
        Value *v = user->operands[i];
        if (uses.get(v) < 2 || firstKept.insert(v)) continue;
        Operation *def = v->def;
        Operation *at = user;
        while (at->parent != def->parent && at->parent->parentOp) at = at->parent->parentOp;
        Builder b;
        b.setInsertionPointBefore(at);
        b.setLoc(def->loc);
        std::unordered_map<const Value *, Value *> mapping;
        Operation *copy = cloneOp(*def, b, mapping);
        user->operands[i] = copy->result();
        // After this round every leaf has one use, save the operands of
        // copies, which gained one: only a copy reading a leaf (a broadcast
        // of a splat, not a splat of a scalar) can call for another round,
        // and skipping a round that would find nothing saves a use count
        // and a walk over the whole kernel.
        for (Value *o : copy->operands) again = again || isLeaf(o);
      }
    }
  }

  void relate(Operation *op) { cls_.relations.push_back(op); }

  void collect(Operation *op) {
    for (auto &r : op->results) add(r.get());
    for (auto &region : op->regions)
      for (auto &a : region->args) add(a.get());
    for (Value *v : op->operands) add(v);
    OpCode c = op->code;
    if (sharesLayout(c)) {
      Value *first = nullptr;
      auto join = [&](Value *v) {
        if (!isTile(v)) return;
        if (first)
          unite(first, v);
        else
          first = v;
      };
      for (Value *v : op->operands) join(v);
      for (auto &r : op->results) join(r.get());
    }
    switch (c) {
      case OpCode::For: {
        // operands: lb, ub, step, init...; region args: iv, iter...
        Block &body = *op->regions[0];
        Operation *y = body.terminator();
        for (size_t i = 0; i < op->results.size(); ++i) {
          unite(op->result(i), op->operand(3 + i));
          unite(op->result(i), body.args[1 + i].get());
          if (y) unite(op->result(i), y->operand(i));
        }
        break;
      }
      case OpCode::If:
        for (auto &region : op->regions)
          if (Operation *y = region->terminator())
            for (size_t i = 0; i < op->results.size(); ++i) unite(op->result(i), y->operand(i));
        break;
      case OpCode::While: {
        Block &before = *op->regions[0], &after = *op->regions[1];
        Operation *cond = before.terminator(), *y = after.terminator();
        for (size_t i = 0; i < op->operands.size(); ++i) {
          unite(op->operand(i), before.args[i].get());
          if (y) unite(op->operand(i), y->operand(i));
        }
        for (size_t i = 0; i < op->results.size(); ++i) {
          unite(op->result(i), after.args[i].get());
          if (cond) unite(op->result(i), cond->operand(1 + i));
        }
        break;
      }
      case OpCode::Dot:
        unite(op->operand(2), op->result());
        cls_.dots.push_back(op);
        break;
      case OpCode::Reduce:
        for (size_t i = 1; i < op->operands.size(); ++i) unite(op->operand(0), op->operand(i));
        relate(op);
        break;
      case OpCode::Histogram:
        // The values and their mask are read register by register together.
        if (op->operands.size() > 1) unite(op->operand(0), op->operand(1));
        break;
      case OpCode::ExpandDims:
      case OpCode::Broadcast:
      case OpCode::Reshape:
      case OpCode::Permute:
      case OpCode::Split:
        relate(op);
        break;
      case OpCode::Join:
        // Halves in one layout join by interleaving their registers.
        unite(op->operand(0), op->operand(1));
        relate(op);
        break;
      default:
        break;
    }
    if (c == OpCode::Load || c == OpCode::Store || c == OpCode::AtomicRmw ||
        c == OpCode::AtomicCas || c == OpCode::AsyncCopy)
      if (isTile(pointerOf(op))) cls_.anchors.push_back(op);
  }

  static Value *pointerOf(Operation *op) {
    return op->operand(op->code == OpCode::AsyncCopy ? 1 : 0);
  }

  Access accessOf(Operation *op) {
    const Value *ptr = pointerOf(op);
    AxisInfo ai = info_.get(ptr);
    int rank = static_cast<int>(ptr->type.shape.size());
    Access a;
    a.order.resize(rank);
    for (int d = 0; d < rank; ++d) a.order[d] = rank - 1 - d;
    std::stable_sort(a.order.begin(), a.order.end(),
                     [&](int x, int y) { return ai.contiguity[x] > ai.contiguity[y]; });
    a.elemBytes = byteSize(ptr->type.dtype);
    a.dim = a.order[0];
    int64_t alignElems = std::max<int64_t>(1, ai.divisibility[a.dim] / a.elemBytes);
    a.vec = std::min({ai.contiguity[a.dim], alignElems, std::max<int64_t>(1, 16 / a.elemBytes)});
    int64_t threads = 32 * numWarps_;
    a.vec =
        std::max<int64_t>(1, std::min(a.vec, std::max<int64_t>(1, ptr->type.numel() / threads)));
    return a;
  }

  // The layout a global access prefers: Triton's coalescing rule.
  LinearLayout coalescedFor(Operation *op, const Access &a) const {
    return LinearLayout::coalesced(pointerOf(op)->type.shape, numWarps_, a.vec, a.order);
  }
  LinearLayout preferred(Operation *op) { return coalescedFor(op, accessOf(op)); }

  static int vecOf(const LinearLayout &l, const std::vector<int64_t> &shape) {
    int best = 1;
    for (size_t d = 0; d < shape.size(); ++d)
      best = std::max<int>(best, static_cast<int>(l.contiguousRegs(static_cast<int>(d))));
    return best;
  }

  bool setIfUnset(Value *v, const LinearLayout &l) {
    Value *r = find(v);
    if (cls_.layouts.count(r)) return false;
    cls_.layouts.emplace(r, l);
    return true;
  }
  const LinearLayout *layoutOf(Value *v) {
    auto it = cls_.layouts.find(find(v));
    return it == cls_.layouts.end() ? nullptr : &it->second;
  }

  static std::vector<int> broadcastDims(Operation *op) {
    std::vector<int> dims;
    const auto &in = op->operand(0)->type.shape, &out = op->result()->type.shape;
    for (size_t d = 0; d < out.size(); ++d)
      if (in[d] != out[d]) dims.push_back(static_cast<int>(d));
    return dims;
  }

  bool flow() {
    bool changed = false;
    for (Operation *op : cls_.relations) {
      Value *in = op->operand(0), *out = op->result();
      if (!isTile(in)) continue;
      const LinearLayout *li = layoutOf(in);
      const LinearLayout *lo = isTile(out) ? layoutOf(out) : nullptr;
      int axis = static_cast<int>(op->intAttr("axis"));
      switch (op->code) {
        case OpCode::ExpandDims:
          if (li && !lo) changed |= setIfUnset(out, li->expanded(axis));
          if (lo && !li) changed |= setIfUnset(in, lo->sliced(axis));
          break;
        case OpCode::Broadcast:
          if (lo && !li) changed |= setIfUnset(in, lo->collapsed(broadcastDims(op)));
          break;
        case OpCode::Reduce:
          if (li && isTile(out))
            for (auto &r : op->results)
              if (!layoutOf(r.get())) changed |= setIfUnset(r.get(), li->sliced(axis));
          break;
        case OpCode::Reshape:
        case OpCode::Permute:
        case OpCode::Split:
        case OpCode::Join:
          if (li && !lo) {
            if (auto l = renamingLayout(*op, *li)) changed |= setResults(op, *l);
          } else if (lo && !li) {
            if (auto l = operandLayout(op, *lo)) changed |= setIfUnset(in, *l);
          }
          break;
        default:
          break;
      }
    }
    return changed;
  }

  // The reverse of renamingLayout: the operand layout for a result's.
  static std::optional<LinearLayout> operandLayout(const Operation *op, const LinearLayout &out) {
    switch (op->code) {
      case OpCode::Reshape:
        return out.reshaped(op->operand(0)->type.shape);
      case OpCode::Permute: {
        std::vector<int64_t> order = op->intsAttr("order"), inverse(order.size());
        for (size_t i = 0; i < order.size(); ++i) inverse[order[i]] = static_cast<int64_t>(i);
        return out.permuted(inverse);
      }
      case OpCode::Split:
        return out.joinedLast();
      case OpCode::Join:
        if (auto half = out.splitLast(); half && half->first == 0) return half->second;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }
  // Sets every tile result of `op` (both halves of a split) to `l` where unset.
  bool setResults(Operation *op, const LinearLayout &l) {
    bool changed = false;
    for (auto &r : op->results)
      if (isTile(r.get())) changed |= setIfUnset(r.get(), l);
    return changed;
  }

  void resolve() {
    const std::unordered_set<const Operation *> chained = chainedDots(fn_);
    for (Operation *op : cls_.dots) {
      const auto &s = op->result()->type.shape;
      if (auto p = selectWgmma(*op, numWarps_, targetSm_, archSpecific_)) {
        if (setIfUnset(op->result(), wgmmaAccumulatorLayout(s[0], s[1], *p, numWarps_)))
          cls_.pinned.insert(find(op->result()));
        continue;
      }
      if (!selectMma(*op, targetSm_)) continue;
      if (setIfUnset(op->result(), mmaAccumulatorLayout(s, numWarps_, chained.count(op) > 0)))
        cls_.pinned.insert(find(op->result()));
    }
    // Reductions of a pinned accumulator (attention's row maximum and row
    // sum) keep its layout, sliced, and are pinned too: an anchor (the store
    // of a statistic after the loop) would otherwise give the loop-carried
    // statistics another layout and a conversion per iteration.
    // So do the results of reshapes, permutes, splits and joins of one
    // (tutorial 09's epilogue subtiles: reshape, permute, split), in the
    // layouts that make them renamings of registers.
    for (bool grew = true; grew;) {
      grew = false;
      for (Operation *op : cls_.relations) {
        if (!isTile(op->operand(0))) continue;
        Value *in = find(op->operand(0));
        if (!cls_.pinned.count(in)) continue;
        const LinearLayout &li = cls_.layouts.at(in);
        std::optional<LinearLayout> out = op->code == OpCode::Reduce
                                              ? li.sliced(static_cast<int>(op->intAttr("axis")))
                                              : renamingLayout(*op, li);
        if (!out) continue;
        for (auto &r : op->results)
          if (isTile(r.get()) && setIfUnset(r.get(), *out)) {
            cls_.pinned.insert(find(r.get()));
            grew = true;
          }
      }
    }
    // Anchors: per class, the access that vectorises widest (first wins ties).
    // A load of fewer elements than the program has threads anchors only a
    // class no other layout reaches: one that feeds a broadcast into an
    // accumulator (attention backward's row statistics, a bias) reads in
    // the sliced layout of its user instead, each thread its own elements
    // (from L1, as the others read the same lines), where its coalesced
    // layout would cost a conversion through shared memory and two CTA
    // barriers per use. Triton's layout propagation does the same.
    std::vector<Operation *> smallLoads;
    auto anchor = [&](Operation *op) {
      LinearLayout l = preferred(op);
      Value *r = find(pointerOf(op));
      if (cls_.pinned.count(r)) return;
      auto it = cls_.layouts.find(r);
      if (it == cls_.layouts.end())
        cls_.layouts.emplace(r, l);
      else if (vecOf(l, l.shape) > vecOf(it->second, l.shape))
        it->second = l;
    };
    for (Operation *op : cls_.anchors) {
      if (op->code == OpCode::Load && !op->intAttr("volatile") &&
          op->result()->type.numel() < 32 * static_cast<int64_t>(numWarps_)) {
        smallLoads.push_back(op);
        continue;
      }
      anchor(op);
    }
    if (!smallLoads.empty()) {
      while (flow()) {
      }
      for (Operation *op : smallLoads)
        if (!layoutOf(op->result())) anchor(op);
    }
    // Layouts are never unset, so the search for the first value without
    // one resumes where the last one stopped (restarting it from the front
    // made this quadratic in the number of classes).
    size_t next = 0;
    for (;;) {
      while (flow()) {
      }
      while (next < cls_.order.size() && layoutOf(cls_.order[next])) ++next;
      if (next == cls_.order.size()) break;
      Value *unset = cls_.order[next];
      setIfUnset(unset, LinearLayout::defaultFor(unset->type.shape, numWarps_));
    }
  }

  static Type withLayout(Type t, const LinearLayout &l) {
    t.layout = l.str();
    return t;
  }

  // Inserts `convert_layout v` before `user` and makes operand i use it.
  void convertOperand(Operation *user, unsigned i, const LinearLayout &want) {
    Builder b;
    b.setInsertionPointBefore(user);
    b.setLoc(user->loc);
    Value *v = user->operands[i];
    user->operands[i] = b.op1(OpCode::ConvertLayout, {v}, withLayout(v->type, want));
  }

  // Inserts `convert_layout v` right after v's definition (at the top of
  // the function for an argument) and makes operand i of `user` use it.
  void convertAfterDef(Operation *user, unsigned i, const LinearLayout &want) {
    Value *v = user->operands[i];
    Builder b;
    if (Operation *def = v->def) {
      b.setInsertionPoint(def->parent, std::next(def->self));
      b.setLoc(def->loc);
    } else {
      b.setInsertionPoint(v->owner, v->owner->ops.begin());
      b.setLoc(user->loc);
    }
    user->operands[i] = b.op1(OpCode::ConvertLayout, {v}, withLayout(v->type, want));
  }

  void apply() {
    // One name per class: a class may hold every value of a long kernel,
    // and printing its layout once per value was a tenth of the pass.
    PtrMap<Value *, LayoutName> names;
    for (Value *v : cls_.order) {
      LayoutName &name = names[find(v)];
      if (name.empty()) name = layoutOf(v)->str();
      v->type.layout = name;
    }
    for (auto [conv, store] : storeConverts_)
      if (conv->operand(0)->type.layout == conv->result()->type.layout) {
        for (Value *&v : store->operands)
          if (v == conv->result()) v = conv->operand(0);
        eraseOp(conv);
      }
    for (Operation *conv : loadConverts_)
      if (conv->operand(0)->type.layout == conv->result()->type.layout) {
        replaceAllUsesWith(fn_.body, conv->result(), conv->operand(0));
        eraseOp(conv);
      }
    for (Operation *op : cls_.dots) {
      Value *a = op->operand(0);
      if (!isTile(a)) continue;
      auto p = selectWgmma(*op, numWarps_, targetSm_, archSpecific_);
      if (!p) continue;
      const auto &s = a->type.shape;
      LinearLayout want = wgmmaOperandALayout(s[0], s[1], *p, numWarps_);
      if (!(*layoutOf(a) == want)) convertAfterDef(op, 0, want);
    }
    for (Operation *op : cls_.relations) {
      Value *in = op->operand(0), *out = op->result();
      if (!isTile(in)) continue;
      LinearLayout li = *LinearLayout::parse(in->type.layout.str(), in->type.shape);
      int axis = static_cast<int>(op->intAttr("axis"));
      switch (op->code) {
        case OpCode::ExpandDims: {
          LinearLayout lo = *LinearLayout::parse(out->type.layout.str(), out->type.shape);
          if (!(li.expanded(axis) == lo)) convertOperand(op, 0, lo.sliced(axis));
          break;
        }
        case OpCode::Broadcast: {
          LinearLayout lo = *LinearLayout::parse(out->type.layout.str(), out->type.shape);
          LinearLayout want = lo.collapsed(broadcastDims(op));
          if (!(li == want)) convertOperand(op, 0, want);
          break;
        }
        case OpCode::Reduce: {
          if (!isTile(out)) break;
          LinearLayout want = li.sliced(axis);
          for (auto &r : op->results) {
            LinearLayout have = *LinearLayout::parse(r->type.layout.str(), r->type.shape);
            if (have == want) continue;
            // The reduce produces `want`; a convert after it gives the users theirs.
            Value *res = r.get();
            Type userType = res->type;
            res->type = withLayout(res->type, want);
            Builder b;
            b.setInsertionPoint(op->parent, std::next(op->self));
            b.setLoc(op->loc);
            Value *conv = b.op1(OpCode::ConvertLayout, {res}, userType);
            replaceAllUsesWith(fn_.body, res, conv);
            conv->def->operands[0] = res;
          }
          break;
        }
        default:
          break;
      }
    }
    rematerializeIndexConverts();
  }

  // A convert_layout of an index tile (made from aranges, splats and
  // constants through shape ops and a few integer ops: a matmul's rows
  // `pid_m * BM + tl.arange(0, BM)` and its masks `rows < M`) becomes the
  // tile recomputed in the wanted layout, as Triton's layout-conversion
  // removal rematerialises it: a few integer instructions per element
  // instead of a trip through shared memory and two barriers. The sm_80
  // matmul converted A's rows and its row mask (as bytes) for the epilogue
  // this way. Only where a conversion was inserted, so no other user's
  // registers change; the sources left unused are erased.
  void rematerializeIndexConverts() {
    constexpr int kMaxRecomputed = 8;
    PtrMap<const Value *, int> costs;
    // Integer ops of v's expression counted as a tree; -1 where it reads
    // anything else or has more than the bound.
    std::function<int(const Value *)> indexCost = [&](const Value *v) -> int {
      if (!v->def || !isTile(v)) return -1;
      if (const int *known = costs.find(v)) return *known;
      const Operation &d = *v->def;
      OpCode c = d.code;
      bool basic = c == OpCode::Constant || c == OpCode::Splat || c == OpCode::Arange ||
                   c == OpCode::Broadcast || c == OpCode::ExpandDims || c == OpCode::ConvertLayout;
      int n = -1;
      if (basic || isIndexArithmetic(d)) {
        n = basic ? 0 : 1;
        for (const Value *o : d.operands) {
          if (!isTile(o)) continue;
          int k = indexCost(o);
          n = k < 0 ? -1 : n + k;
          if (n < 0) break;
        }
        if (n > kMaxRecomputed) n = -1;
      }
      costs[v] = n;
      return n;
    };
    std::vector<Operation *> converts;
    fn_.walk([&](Operation *op) {
      if (op->code == OpCode::ConvertLayout && indexCost(op->operand(0)) >= 0)
        converts.push_back(op);
    });
    for (Operation *conv : converts) {
      Builder b;
      b.setInsertionPointBefore(conv);
      b.setLoc(conv->loc);
      std::map<std::pair<const Value *, std::string>, Value *> built;
      std::function<Value *(Value *, const LinearLayout &)> rebuild =
          [&](Value *v, const LinearLayout &l) -> Value * {
        if (!isTile(v)) return v;
        auto key = std::make_pair(static_cast<const Value *>(v), l.str());
        if (auto it = built.find(key); it != built.end()) return it->second;
        Operation &d = *v->def;
        if (d.code == OpCode::ConvertLayout) return built[key] = rebuild(d.operand(0), l);
        std::unordered_map<const Value *, Value *> mapping;
        for (Value *o : d.operands) {
          if (!isTile(o)) continue;
          LinearLayout lo = l;
          if (d.code == OpCode::ExpandDims) lo = l.sliced(static_cast<int>(d.intAttr("axis")));
          if (d.code == OpCode::Broadcast) lo = l.collapsed(broadcastDims(&d));
          mapping[o] = rebuild(o, lo);
        }
        Operation *copy = cloneOp(d, b, mapping);
        copy->result()->type = withLayout(copy->result()->type, l);
        return built[key] = copy->result();
      };
      Value *src = conv->operand(0);
      LinearLayout want =
          *LinearLayout::parse(conv->result()->type.layout.str(), conv->result()->type.shape);
      replaceAllUsesWith(fn_.body, conv->result(), rebuild(src, want));
      eraseOp(conv);
    }
    if (converts.empty()) return;
    // The sources nobody reads any more (the costs were of values erased
    // since, whose addresses new ones may reuse).
    costs = PtrMap<const Value *, int>();
    for (bool changed = true; changed;) {
      costs = PtrMap<const Value *, int>();
      changed = false;
      PtrMap<const Value *, int> uses = countUses(fn_);
      std::vector<Operation *> dead;
      fn_.walk([&](Operation *op) {
        if (op->results.size() == 1 && isTile(op->result()) && uses.get(op->result(), 0) == 0 &&
            indexCost(op->result()) >= 0)
          dead.push_back(op);
      });
      for (Operation *op : dead) eraseOp(op);
      changed = !dead.empty();
    }
  }

  Function &fn_;
  int numWarps_, targetSm_;
  bool archSpecific_;
  AxisInfoMap info_;
  // What one assign() computes: the classes and their layouts. Computing
  // them again (after separateStores) starts from an empty one.
  struct Classes {
    PtrMap<Value *, Value *> parent;  // union-find over every tile value
    std::vector<Value *> order;       // every tile value, in program order
    std::vector<Operation *> anchors, relations, dots;
    std::unordered_set<Value *> pinned;                 // class roots with a tensor-core layout
    std::unordered_map<Value *, LinearLayout> layouts;  // class root -> layout
  };
  Classes cls_;
  // (convert_layout, its store), added by separateStores.
  std::vector<std::pair<Operation *, Operation *>> storeConverts_;
  // The convert_layout after each load separateResidualLoad separated.
  std::vector<Operation *> loadConverts_;
};

}  // namespace

std::optional<LinearLayout> renamingLayout(const Operation &op, const LinearLayout &operand) {
  switch (op.code) {
    case OpCode::Reshape:
      return operand.reshaped(op.result()->type.shape);
    case OpCode::Permute:
      return operand.permuted(op.intsAttr("order"));
    case OpCode::Split:
      if (auto half = operand.splitLast()) return half->second;
      return std::nullopt;
    case OpCode::Join:
      return operand.joinedLast();
    default:
      return std::nullopt;
  }
}

void assignLayouts(Module &m) {
  if (m.numWarps <= 0 || (m.numWarps & (m.numWarps - 1)) != 0)
    internalError("assign-layouts", "num_warps must be a power of two");
  for (auto &fn : m.functions) {
    // A GPU function is a kernel: its results would need layouts no caller
    // agrees on. Front-end kernels have none (callees are inlined); textual
    // IR given to tessera-opt may.
    for (const Type &t : fn->resultTypes)
      if (t.isTile()) {
        SourceLoc loc = fn->body.ops.empty() ? SourceLoc{} : fn->body.ops.back()->loc;
        fail(loc,
             "assign-layouts lays out kernels, and @" + fn->name +
                 " returns a tile (functions that return values must be inlined first)",
             "run --pass=inline before assign-layouts, or give the layout pass only kernels");
      }
    Assigner(*fn, m.numWarps, m.targetSm, m.archSpecific).run();
  }
}

}  // namespace tessera::ptx
