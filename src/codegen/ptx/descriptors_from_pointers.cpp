// descriptors-from-pointers: on sm_90a, a masked tl.load of a tile of
// pointers that reads a box of a row-major matrix, inside the K loop of a
// matmul whose dot runs on wgmma (mma.h's wgmmaMayRead: 64-row warpgroup
// tiles; an mma.sync dot reads its ring through cp.async whatever the load
// is), becomes a descriptor_load, so that the tensor memory accelerator
// fills the dot's ring (as it does for a tensor descriptor or a block
// pointer) instead of cp.async copies addressed thread by thread:
//
//   a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :],
//               mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
//
// The load qualifies when (affine_tiles.h) its pointers are p + i * s0 + j *
// s1 with s0 or s1 the constant 1, their mask is a conjunction of
// comparisons i < U0 and j < U1 (a dim may have none), and `other` is 0 or
// NaN (or absent). The box then starts at coordinates (c0, c1), the parts
// of the pointer's offset that change with the loop (p advanced by BK * s1
// per iteration: c1 = BK * k), over a tensor of shape (c0 + U0, c1 + U1)
// and base p minus those parts. In a persistent kernel, whose loop over
// tiles is marked flatten and holds the K loop, the parts that change with
// the tile (c0 = pid_m * BM) are coordinates too, and the map is made once
// before the loop over tiles rather than once a tile. The load is exact
// when that base, the shapes and the strides do not change in the loop
// (the map is made once before it), the coordinates are provably >= 0 (the
// copy engine pads a negative one where the pointer load would have read
// memory; a tile's coordinate, seldom provable, is unbounded_below
// instead where it is >= 0 but for a negative divisor: descriptor_load.h),
// and the base is 16-byte aligned and the non-unit stride a multiple of 16
// bytes as axis info proves. A dim without a bound is unchecked, as a block
// pointer's dim outside boundary_check.
//
// An index wrapped into range, `(x0 + tl.arange(0, n)) % M` (Triton's
// matmul tutorial), is x0 + i below M - x0 and a wrapped row past it: the
// box checks that bound, so the copy engine reads zeros where the load read
// wrapped rows, which is exact when no store keeps those rows (the loaded
// tile is one dot's A or B, the product accumulates in the loop, and every
// store of it masks the same bound; wrappedElementsUnstored).
//
// Requires: one optimised, inlined kernel; runs before flatten-loops,
// which fuses a loop over tiles with the K loop once their loads no longer
// read the tile's offsets as tiles, before expand-descriptor-loads, which
// turns a load whose first dim is the contiguous one and hints the
// alignment, and before pipeline-dot-operands, which serves the load on
// the copy engine or expands it back into a masked pointer load of the
// same elements.
// Guarantees: every load it replaces reads, in every element, what the
// pointer load read, but for wrapped elements that reach no store. Only on
// sm_90a with global scratch (maps made in the kernel); elsewhere it does
// nothing.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "codegen/ptx/affine_tiles.h"
#include "codegen/ptx/gpu_passes.h"
#include "codegen/ptx/layout.h"
#include "codegen/ptx/mma.h"
#include "codegen/ptx/tma.h"
#include "passes/axis_info.h"
#include "passes/pass_utils.h"

namespace tessera::ptx {
namespace {

// What the mask says of each dim of the load: nullopt when it bounds
// nothing there, else U with i_dim < U.
using Limits = std::vector<std::optional<Poly>>;

// Adds the bounds of `mask` (whose dim k is the load's dim axes[k]) to
// `limits`; false when the mask is not a conjunction of such bounds.
bool collectBounds(AffineAnalysis &affine, Value *mask, const std::vector<int> &axes,
                   Limits &limits) {
  Operation *d = mask->def;
  if (!d) return false;
  if (auto c = passes::constantOf(mask); c && !c->isFloat) return c->i != 0;
  switch (d->code) {
    case OpCode::And:
      return collectBounds(affine, d->operand(0), axes, limits) &&
             collectBounds(affine, d->operand(1), axes, limits);
    case OpCode::Broadcast:
      return collectBounds(affine, d->operand(0), axes, limits);
    case OpCode::ExpandDims: {
      std::vector<int> inner = axes;
      int64_t axis = d->intAttr("axis");
      if (axis < 0 || axis >= static_cast<int64_t>(inner.size())) return false;
      inner.erase(inner.begin() + axis);
      return collectBounds(affine, d->operand(0), inner, limits);
    }
    case OpCode::Cmp: {
      if (!isSigned(d->operand(0)->type.dtype)) return false;
      std::string pred = d->strAttr("pred");
      bool swap = pred == "gt" || pred == "ge", inclusive = pred == "le" || pred == "ge";
      if (pred != "lt" && pred != "le" && !swap) return false;
      Value *e = d->operand(swap ? 1 : 0), *limit = d->operand(swap ? 0 : 1);
      std::optional<AffineTile> x = affine.of(e), l = affine.of(limit);
      if (!x || !l || x->pointer || l->pointer || x->wrapped() || l->wrapped() ||
          x->coef.size() != axes.size() || l->coef.size() != axes.size())
        return false;
      // e < limit  <=>  0 < limit - e = U - i_dim. Along a dim of size 1
      // the index is always 0: a slope there bounds nothing (it is a
      // condition on the other dims, or on none, which is not a box).
      const std::vector<int64_t> &shape = d->result()->type.shape;
      int dim = -1;
      for (size_t k = 0; k < axes.size(); ++k) {
        Poly slope = l->coef[k] - x->coef[k];
        if (slope.isZero() || (k < shape.size() && shape[k] == 1)) continue;
        if (slope.constantValue() != -1 || dim >= 0) return false;
        dim = axes[k];
      }
      if (dim < 0 || limits[dim]) return false;
      // The bound is rebuilt in 64 bits: a product of the kernel's values
      // there (x * y, an element count) may wrap in the kernel's 32 bits
      // where the rebuilt one does not, so only sums of them are taken.
      Poly bound = l->base - x->base + Poly::constant(inclusive ? 1 : 0);
      if (bound.degree() > 1) return false;
      limits[dim] = bound;
      return true;
    }
    default:
      return false;
  }
}

// What axis info proves `p` (an integer polynomial) divisible by.
int64_t divisibility(const Poly &p, const LeafTable &leaves, const AxisInfoMap &info) {
  int64_t best = kMaxDivisibility;
  for (const auto &[m, c] : p.terms()) {
    uint64_t magnitude = c < 0 ? 0 - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
    int64_t d =
        static_cast<int64_t>(std::min<uint64_t>(magnitude & (~magnitude + 1), kMaxDivisibility));
    for (int id : m) d = std::min(kMaxDivisibility, d * info.get(leaves.value(id)).divisibility[0]);
    best = std::min(best, d);
  }
  return best;
}

// Whether coordinate `c` of a dim no mask bounds is the loop's counter
// times a constant that moves it by at most `box` elements an iteration.
// The coordinate is an int32 and nothing else bounds it: walking a dim box by
// box, it passes 2^31 only past a tensor that long along that dim; a larger
// step (a row advance on the contiguous dim, `p += BK * N` with the row
// stride an argument) could pass it in a tensor of 2^31 elements in all.
bool stepsAtMostABox(const Poly &c, const Operation *loop, int64_t box, const LeafTable &leaves) {
  if (c.isZero()) return true;
  if (c.size() != 1) return false;
  const auto &[m, coef] = *c.terms().begin();
  std::optional<int64_t> step = passes::positiveConstantStep(*loop);
  if (m.size() != 1 || !step || coef <= 0) return false;
  // The counter itself (in a loop over tiles, a tile's index may vary too).
  if (leaves.value(*m.begin()) != loop->regions[0]->args[0].get()) return false;
  return coef <= box && coef * *step <= box;
}

// Whether every dot reading `load` (directly or through a transpose; only
// dots do, feedsDotsOnly says) could run on wgmma with the loaded tile
// contiguous along its dim `contig`. An mma.sync dot's ring fills by
// cp.async: its box would come back as a masked load of 64-bit box
// arithmetic, dearer than the pointers it was (a 16x64x128 matmul's K step
// took 208 SASS instructions against 104, and 365 once persistent).
bool readByWgmma(Operation *load, int contig, const Module &m) {
  bool ok = true;
  for (const auto &o : load->parent->ops) {
    if (o->code != OpCode::Dot) continue;
    for (int i = 0; i < 2; ++i) {
      const Value *u = o->operand(i);
      int c = u == load->result() ? contig : -1;
      if (u->def && u->def->code == OpCode::Permute && u->def->operand(0) == load->result())
        c = 1 - contig;
      if (c >= 0) ok = ok && wgmmaMayRead(*o, i, c, m.numWarps, m.targetSm, m.archSpecific);
    }
  }
  return ok;
}

class Converter {
 public:
  Converter(Function &fn, const Module &m)
      : fn_(fn), module_(m), info_(analyzeAxisInfo(fn)), affine_(fn) {}
  bool convert(Operation *load);

 private:
  bool wrappedElementsUnstored(Operation *load, const std::vector<bool> &wrapped,
                               const Limits &bounds);
  std::vector<std::pair<Operation *, unsigned>> usesOf(const Value *v);

  Function &fn_;
  const Module &module_;
  AxisInfoMap info_;
  AffineAnalysis affine_;
};

// The loop over which the map stays fixed: the loop over tiles that holds
// `loop` directly where it is marked flatten (a persistent kernel's, which
// flatten-loops fuses with `loop` next), else `loop` itself.
Operation *mapScope(Operation *loop) {
  Operation *outer = loop->parent->parentOp;
  if (outer && outer->code == OpCode::For && outer->intAttr("flatten") == 1) return outer;
  return loop;
}

bool Converter::convert(Operation *load) {
  Operation *loop = load->parent->parentOp;
  const Type &out = load->result()->type;
  if (!loop || loop->code != OpCode::For || out.shape.size() != 2 || load->intAttr("volatile"))
    return false;
  Operation *scope = mapScope(loop);
  int eb = byteSize(out.dtype);
  if ((eb != 1 && eb != 2) || !feedsDotsOnly(load->result(), *load->parent)) return false;
  std::optional<AffineTile> ptrs = affine_.of(load->operand(0));
  // The scalar pointer the offsets start from is the map's base: made
  // before the loop, so not one the loop changes (a carried or loaded one).
  if (!ptrs || !ptrs->pointer || ptrs->coef.size() != 2 ||
      passes::isDefinedInside(ptrs->pointer, scope))
    return false;
  LeafTable &leaves = affine_.leaves();
  auto varying = [&](int id) { return passes::isDefinedInside(leaves.value(id), scope); };
  auto invariant = [&](const Poly &p) { return p.termsWithLeaf(varying, true).isZero(); };
  const Poly &s0 = ptrs->coef[0], &s1 = ptrs->coef[1];
  bool rowMajor = s1.constantValue() == 1, colMajor = s0.constantValue() == 1;
  if ((!rowMajor && !colMajor) || !invariant(s0) || !invariant(s1)) return false;
  if (!readByWgmma(load, rowMajor ? 1 : 0, module_)) return false;

  // The mask's bounds, and the padding `other` asks for.
  Limits limits(2);
  if (load->operands.size() >= 2 && !collectBounds(affine_, load->operand(1), {0, 1}, limits))
    return false;
  bool nan = false;
  if (load->operands.size() >= 3) {
    auto other = passes::constantOf(load->operand(2));
    if (!other) return false;
    nan = other->isFloat && std::isnan(other->f);
    bool zero = other->isFloat ? other->f == 0 && !std::signbit(other->f) : other->i == 0;
    if (!zero && !nan) return false;
  }

  // A wrapped dim (an index taken `% M`) reads exactly below its bound:
  // the box checks that bound, so past it the copy engine reads the padding
  // where the load read a wrapped row, which must then reach no store.
  std::vector<bool> wrapped(2, false);
  for (int d = 0; d < 2 && ptrs->wrapped(); ++d) {
    if (!ptrs->exactBelow[d]) continue;
    if (limits[d] && !(*limits[d] == *ptrs->exactBelow[d])) return false;
    limits[d] = *ptrs->exactBelow[d];
    wrapped[d] = true;
  }
  if ((wrapped[0] || wrapped[1]) && !wrappedElementsUnstored(load, wrapped, limits)) return false;

  // The offset's parts that change in the loop are the coordinates: each
  // term goes to the dim whose stride divides it, the non-unit stride first.
  std::vector<Poly> coord(2);
  const Poly &wide = rowMajor ? s0 : s1;
  int wideDim = rowMajor ? 0 : 1;
  Poly moving = ptrs->base.termsWithLeaf(varying, true);
  for (const auto &[m, c] : moving.terms()) {
    Poly term = Poly::constant(c);
    for (int id : m) term = term * Poly::leaf(id);
    if (std::optional<Poly> q = term.dividedBy(wide); q && wide.constantValue() != 1)
      coord[wideDim] = coord[wideDim] + *q;
    else
      coord[1 - wideDim] = coord[1 - wideDim] + term;
  }
  std::vector<Poly> shape(2);
  std::vector<int64_t> unboundedBelow;
  for (int d = 0; d < 2; ++d) {
    // A tile's coordinate (a persistent kernel's row of tiles) is seldom
    // provably >= 0: it comes of divisions by counts of tiles made of the
    // kernel's arguments. Where it is >= 0 but for a negative divisor (a
    // negative size), the box reads below 0 as the pointer load did
    // (descriptor_load.h, unbounded_below): no lower bound where it is
    // expanded, a trap where the copy engine would read the padding. A
    // coordinate that may be negative otherwise (a halo: pid * BM - 8)
    // keeps the pointer load.
    if (!affine_.nonNegative(coord[d], load)) {
      if (scope == loop || !limits[d] || !affine_.nonNegativeBarDivisors(coord[d], load))
        return false;
      unboundedBelow.push_back(d);
    }
    if (limits[d]) {
      shape[d] = *limits[d] + coord[d];
      if (!invariant(shape[d])) return false;
    } else if (!stepsAtMostABox(coord[d], loop, out.shape[d], leaves)) {
      return false;
    }
  }
  Poly offset = ptrs->base.termsWithLeaf(varying, false);
  for (const Poly *p : {&offset, &coord[0], &coord[1], &shape[0], &shape[1]})
    if (p->overflowed()) return false;

  // The copy engine's rules, as axis info proves them.
  if (info_.get(ptrs->pointer).divisibility[0] % 16 != 0 ||
      divisibility(offset, leaves, info_) * eb % 16 != 0 ||
      divisibility(wide, leaves, info_) * eb % 16 != 0)
    return false;
  std::vector<int64_t> block = out.shape;
  if (colMajor && !rowMajor) std::swap(block[0], block[1]);
  if (!tmaBoxFits(block, eb, SharedLayout::swizzleFor(block[1] * eb))) return false;

  // The descriptor before the loop (over tiles), the coordinates at the load.
  Builder b;
  b.setLoc(load->loc);
  b.setInsertionPointBefore(scope);
  Value *base = ptrs->pointer;
  if (!offset.isZero())
    base = b.op1(OpCode::AddPtr, {base, materialize(b, offset, leaves, DType::I64)}, base->type);
  std::vector<Value *> operands{base};
  std::vector<int64_t> checks;
  for (int d = 0; d < 2; ++d) {
    operands.push_back(limits[d] ? materialize(b, shape[d], leaves, DType::I64)
                                 : b.constInt(0, Type::scalar(DType::I64)));
    if (limits[d]) checks.push_back(d);
  }
  operands.push_back(materialize(b, s0, leaves, DType::I64));
  operands.push_back(materialize(b, s1, leaves, DType::I64));
  b.setInsertionPointBefore(load);
  for (int d = 0; d < 2; ++d) operands.push_back(materialize(b, coord[d], leaves, DType::I32));
  std::vector<NamedAttr> attrs{{"block", out.shape},
                               {"padding", std::string(nan ? "nan" : "zero")}};
  if (checks.size() != 2) attrs.push_back({"checks", checks});
  if (!unboundedBelow.empty()) attrs.push_back({"unbounded_below", unboundedBelow});
  Value *box = b.op1(OpCode::DescriptorLoad, operands, out, std::move(attrs));
  replaceAllUsesWith(*load->parent, load->result(), box);
  eraseOp(load);
  return true;
}

std::vector<std::pair<Operation *, unsigned>> Converter::usesOf(const Value *v) {
  std::vector<std::pair<Operation *, unsigned>> uses;
  fn_.walk([&](Operation *op) {
    for (unsigned i = 0; i < op->operands.size(); ++i)
      if (op->operands[i] == v) uses.push_back({op, i});
  });
  return uses;
}

// Whether the elements of `load` past the bound of a wrapped dim reach no
// store: the load is one dot's A (its dim 0 the product's rows) or B (its
// dim 1 the product's columns), possibly through `.T`; the dot accumulates
// into a carried value that only it reads and only the yield takes; after
// the loop that value goes through elementwise ops only to stores whose
// masks keep each such dim below the same bound. (A dot's output row reads
// only its A row, a column only its B column.)
bool Converter::wrappedElementsUnstored(Operation *load, const std::vector<bool> &wrapped,
                                        const Limits &bounds) {
  Operation *loop = load->parent->parentOp;
  auto uses = usesOf(load->result());
  if (uses.size() != 1) return false;
  auto [dot, operand] = uses[0];
  bool flip = false;
  if (dot->code == OpCode::Permute && dot->intsAttr("order") == std::vector<int64_t>{1, 0}) {
    auto next = usesOf(dot->result());
    if (next.size() != 1) return false;
    std::tie(dot, operand) = next[0];
    flip = true;
  }
  if (dot->code != OpCode::Dot || operand > 1 || dot->parent != load->parent) return false;
  // The product's dim of each wrapped dim of the load; none may be summed over.
  std::vector<std::pair<int, Poly>> tainted;
  for (int d = 0; d < 2; ++d) {
    if (!wrapped[d]) continue;
    int dotDim = flip ? 1 - d : d;
    if (dotDim != (operand == 0 ? 0 : 1)) return false;
    tainted.push_back({dotDim, *bounds[d]});
  }
  // acc = dot(a, b, acc) carried by the loop and nothing else.
  Value *acc = dot->operand(2);
  Operation *yield = passes::forYield(loop);
  if (!yield || acc->def || acc->owner != load->parent || acc->index == 0) return false;
  unsigned n = acc->index - 1;
  auto accUses = usesOf(acc), dotUses = usesOf(dot->result());
  if (accUses.size() != 1 || dotUses.size() != 1 || dotUses[0].first != yield ||
      dotUses[0].second != n)
    return false;
  // After the loop: elementwise ops, then masked stores.
  std::vector<Value *> work{loop->result(n)};
  for (size_t w = 0; w < work.size(); ++w) {
    if (work.size() > 64) return false;
    for (auto [op, i] : usesOf(work[w])) {
      if (op->code == OpCode::Store && i == 1 && op->operands.size() == 3) {
        Limits kept(2);
        if (!collectBounds(affine_, op->operand(2), {0, 1}, kept)) return false;
        for (const auto &[dim, bound] : tainted)
          if (!kept[dim] || !(*kept[dim] == bound)) return false;
        continue;
      }
      // Not map_elementwise or inline asm: with pack > 1 an element's result
      // may come from its neighbour's operand.
      bool elementwise = hasFlag(op->code, opflags::Elementwise) && isPureOp(*op) &&
                         op->code != OpCode::MapElementwise && op->code != OpCode::InlineAsm &&
                         op->results.size() == 1 && op->result()->type.shape == work[w]->type.shape;
      if (!elementwise) return false;
      work.push_back(op->result());
    }
  }
  return true;
}

}  // namespace

void descriptorsFromPointers(Module &m) {
  if (m.targetSm != 90 || !m.archSpecific || !m.globalScratch) return;
  int converted = 0;
  for (auto &fn : m.functions) {
    std::vector<Operation *> loads;
    // (Only a 2-D tile load directly in a for body may convert: the axis
    // info the Converter computes first is not worth it without one.)
    fn->walk([&](Operation *op) {
      const Operation *loop = op->parent->parentOp;
      if (op->code == OpCode::Load && op->result()->type.isTile() &&
          op->result()->type.shape.size() == 2 && loop && loop->code == OpCode::For)
        loads.push_back(op);
    });
    if (loads.empty()) continue;
    Converter c(*fn, m);
    for (Operation *load : loads) converted += c.convert(load);
  }
  if (converted == 0) return;
  runPasses(m, {"canonicalize", "cse", "licm", "dce"}, {});
}

}  // namespace tessera::ptx
