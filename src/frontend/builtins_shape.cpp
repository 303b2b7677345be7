// Builtins: shape manipulation (reshape, view, ravel, expand_dims, squeeze,
// unsqueeze, broadcast_to, broadcast, trans, permute, join, split,
// interleave, cat, flip), gather, sort and histogram. Parameter names and the checks follow
// Triton's core.py/semantic.py so keyword calls and misuse behave alike.
#include <algorithm>
#include <set>

#include "frontend/builtin_util.h"

namespace tessera::frontend {

namespace {

using A = CallArgs;

std::string shapeStr(const std::vector<int64_t> &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// Triton's _unwrap_shape: `f(x, 4, 8)` and `f(x, (4, 8))` mean the same.
SVal varargTuple(const A &a) {
  if (a.varargs.size() == 1 && a.varargs[0].kind == SVal::Kind::Tuple) return a.varargs[0];
  return SVal::tuple(a.varargs);
}

SourceLoc varargLoc(const A &a) {
  return a.varargLocs.empty() ? a.loc : a.varargLocs[0];
}

Value *tileArg(Lowerer &l, const SVal &v, SourceLoc loc, const std::string &fn,
               const std::string &what = "input") {
  Value *x = l.tensorArg(v, loc, "the " + what + " of " + fn);
  if (!x->type.isTile())
    l.error(loc, fn + " needs a tensor " + what + ", got " + describe(v),
            "build a tile first, e.g. with tl.arange or tl.full");
  return x;
}

Value *reshapeTo(Lowerer &l, Value *x, const std::vector<int64_t> &shape, SourceLoc loc) {
  if (x->type.shape == shape) return x;
  return l.emit(OpCode::Reshape, {x}, x->type.withShape(shape), loc);
}

SVal reshapeImpl(Lowerer &l, A &a, const SVal &shapeV, SourceLoc shapeLoc) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the input of " + a.name);
  // tl.view has no can_reorder parameter (it may always reorder).
  if (std::find(a.params.begin(), a.params.end(), "can_reorder") != a.params.end())
    l.constBool(a["can_reorder"], a.locOf("can_reorder"), "can_reorder");
  if (shapeV.kind == SVal::Kind::Tuple && shapeV.elems.empty())
    l.error(shapeLoc, a.name + " needs a shape", "pass the new dimensions, e.g. x.reshape(4, 8)");
  std::vector<int64_t> shape = blockShape(l, shapeV, shapeLoc, "the shape of " + a.name);
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  if (numel != x->type.numel())
    l.error(shapeLoc,
            a.name + ": cannot reshape " + describe(a["input"]) + " (" +
                std::to_string(x->type.numel()) + " elements) to " + shapeStr(shape) + " (" +
                std::to_string(numel) + " elements)",
            "the new shape must have the same number of elements");
  // A scalar has one element: reshaping it to [1, ...] is a splat.
  if (!x->type.isTile()) return SVal::tensor(l.broadcastTo(x, shape, a.loc));
  // Row-major order is kept even with can_reorder=True: a valid choice of order.
  return SVal::tensor(reshapeTo(l, x, shape, a.loc));
}

SVal reshape(Lowerer &l, A &a) {
  return reshapeImpl(l, a, varargTuple(a), varargLoc(a));
}

SVal ravel(Lowerer &l, A &a) {
  Value *x = tileArg(l, a["x"], a.locOf("x"), a.name);
  l.constBool(a["can_reorder"], a.locOf("can_reorder"), "can_reorder");
  return SVal::tensor(reshapeTo(l, x, {x->type.numel()}, a.loc));
}

SVal expandDims(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the input of " + a.name);
  std::vector<int64_t> axes = l.constInts(a["axis"], a.locOf("axis"), "the axis of " + a.name);
  int newRank = x->type.rank() + static_cast<int>(axes.size());
  for (int64_t &ax : axes) {
    if (ax < -newRank || ax >= newRank)
      l.error(a.locOf("axis"),
              a.name + ": invalid axis " + std::to_string(ax) +
                  ", out of range for the result's rank " + std::to_string(newRank),
              "axes count from 0 (or from -rank) in the result");
    if (ax < 0) ax += newRank;
  }
  std::set<int64_t> unique(axes.begin(), axes.end());
  if (unique.size() != axes.size())
    l.error(a.locOf("axis"), a.name + ": duplicate axes, normalized axes = " + shapeStr(axes));
  std::sort(axes.begin(), axes.end());
  for (int64_t ax : axes) {
    std::vector<int64_t> s = x->type.shape;
    s.insert(s.begin() + ax, 1);
    if (!x->type.isTile())
      x = l.emit(OpCode::Splat, {x}, Type::tile(s, x->type), a.loc);
    else
      x = l.emit(OpCode::ExpandDims, {x}, x->type.withShape(s), a.loc, {{"axis", ax}});
  }
  return SVal::tensor(x);
}

// The dimension `dim` of a rank-`rank` result or operand, negative
// counting from the end, or a diagnostic.
int64_t dimArg(Lowerer &l, A &a, int64_t rank) {
  int64_t d = l.constInt(a["dim"], a.locOf("dim"), "the dim of " + a.name);
  if (d < -rank || d >= rank)
    l.error(
        a.locOf("dim"),
        a.name + ": dim " + std::to_string(d) + " is out of range for rank " + std::to_string(rank),
        "dims count from 0 (or from -rank)");
  return d < 0 ? d + rank : d;
}

// tl.squeeze (Triton's standard library): x without its dimension `dim`,
// which must have size 1.
SVal squeeze(Lowerer &l, A &a) {
  Value *x = tileArg(l, a["x"], a.locOf("x"), a.name);
  std::vector<int64_t> shape = x->type.shape;
  int64_t d = dimArg(l, a, static_cast<int64_t>(shape.size()));
  if (shape[d] != 1)
    l.error(a.locOf("dim"),
            a.name + ": dimension " + std::to_string(d) + " of " + describe(a["x"]) + " has size " +
                std::to_string(shape[d]) + ", not 1",
            "only a dimension of size 1 can be squeezed; tl.reshape changes others");
  shape.erase(shape.begin() + d);
  return SVal::tensor(reshapeTo(l, x, shape, a.loc));
}

// tl.unsqueeze: x with a dimension of size 1 inserted at `dim` (0 to rank;
// negative counts from the end of the result), as tl.expand_dims.
SVal unsqueeze(Lowerer &l, A &a) {
  Value *x = tileArg(l, a["x"], a.locOf("x"), a.name);
  int64_t d = dimArg(l, a, x->type.rank() + 1);
  std::vector<int64_t> shape = x->type.shape;
  shape.insert(shape.begin() + d, 1);
  return SVal::tensor(
      l.emit(OpCode::ExpandDims, {x}, x->type.withShape(shape), a.loc, {{"axis", d}}));
}

SVal broadcastToFn(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the input of " + a.name);
  SourceLoc sl = varargLoc(a);
  std::vector<int64_t> shape = blockShape(l, varargTuple(a), sl, "the shape of " + a.name);
  if (x->type.isTile()) {
    // Triton's broadcast_impl_shape does not add leading dimensions.
    if (x->type.rank() != static_cast<int>(shape.size()))
      l.error(
          sl,
          "cannot broadcast, rank mismatch: " + shapeStr(x->type.shape) + ", " + shapeStr(shape),
          "add the missing dimensions first, e.g. x[None, :] or tl.expand_dims");
    for (size_t i = 0; i < shape.size(); ++i)
      if (x->type.shape[i] != shape[i] && x->type.shape[i] != 1)
        l.error(sl, "cannot broadcast: the expanded size (" + std::to_string(shape[i]) +
                        ") must match the existing size (" + std::to_string(x->type.shape[i]) +
                        ") at non-singleton dimension " + std::to_string(i) + ": " +
                        shapeStr(x->type.shape) + ", " + shapeStr(shape));
  }
  return SVal::tensor(l.broadcastTo(x, shape, a.loc));
}

SVal broadcastFn(Lowerer &l, A &a) {
  Value *x = l.tensorArg(a["input"], a.locOf("input"), "the input of " + a.name);
  Value *y = l.tensorArg(a["other"], a.locOf("other"), "the other operand of " + a.name);
  l.broadcastPair(x, y, a.loc);
  return SVal::tuple({SVal::tensor(x), SVal::tensor(y)});
}

Value *permuteImpl(Lowerer &l, Value *x, const std::vector<int64_t> &dims, SourceLoc loc,
                   const std::string &fn) {
  if (static_cast<int>(dims.size()) != x->type.rank())
    l.error(loc,
            fn + ": the dims " + shapeStr(dims) + " must have the same length as the input shape " +
                shapeStr(x->type.shape),
            "give one entry per dimension");
  std::vector<int64_t> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      l.error(loc, fn + ": the dims must be a permutation of 0, 1, ..., n-1, but were " +
                       shapeStr(dims));
  bool identity = true;
  std::vector<int64_t> shape;
  for (size_t i = 0; i < dims.size(); ++i) {
    shape.push_back(x->type.shape[dims[i]]);
    identity = identity && dims[i] == static_cast<int64_t>(i);
  }
  if (identity) return x;
  return l.emit(OpCode::Permute, {x}, x->type.withShape(shape), loc, {{"order", dims}});
}

SVal permute(Lowerer &l, A &a) {
  Value *x = tileArg(l, a["input"], a.locOf("input"), a.name);
  std::vector<int64_t> dims = l.constInts(varargTuple(a), varargLoc(a), "the dims of " + a.name);
  return SVal::tensor(permuteImpl(l, x, dims, a.loc, a.name));
}

SVal trans(Lowerer &l, A &a) {
  Value *x = tileArg(l, a["input"], a.locOf("input"), a.name);
  SVal dimsV = varargTuple(a);
  // No dims: the last two swap (a batched transpose), as Triton's.
  int rank = x->type.rank();
  if (dimsV.elems.empty() && rank < 2)
    l.error(a.loc, "tl.trans invoked with a 0- or 1-dimensional tensor",
            "a 1-D tensor needs no transpose; reshape it to 2-D first");
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) dims.push_back(d);
  if (rank >= 2) std::swap(dims[rank - 1], dims[rank - 2]);
  if (!dimsV.elems.empty()) dims = l.constInts(dimsV, varargLoc(a), "the dims of " + a.name);
  return SVal::tensor(permuteImpl(l, x, dims, a.loc, "tl.trans"));
}

// Broadcasts a and b to a common shape and dtype for join/interleave. A
// Python number takes the other operand's dtype.
void joinOperands(Lowerer &l, A &a, Value *&x, Value *&y) {
  SVal av = a["a"], bv = a["b"];
  if (av.isNumber() && bv.isTensor())
    x = l.toValue(av, a.locOf("a"), bv.v->type.dtype);
  else
    x = l.tensorArg(av, a.locOf("a"), "the first operand of " + a.name);
  if (bv.isNumber())
    y = l.toValue(bv, a.locOf("b"), x->type.dtype);
  else
    y = l.tensorArg(bv, a.locOf("b"), "the second operand of " + a.name);
  if (x->type.element() != y->type.element())
    l.error(a.loc,
            a.name + " needs operands of the same type, got " + describe(SVal::tensor(x)) +
                " and " + describe(SVal::tensor(y)),
            "convert one of them with .to()");
  l.broadcastPair(x, y, a.loc);
}

Value *joinValues(Lowerer &l, Value *x, Value *y, SourceLoc loc) {
  bool scalars = !x->type.isTile();
  if (scalars) {
    x = l.emit(OpCode::Splat, {x}, Type::tile({1}, x->type), loc);
    y = l.emit(OpCode::Splat, {y}, Type::tile({1}, y->type), loc);
  }
  std::vector<int64_t> shape = x->type.shape;
  shape.push_back(2);
  Value *j = l.emit(OpCode::Join, {x, y}, x->type.withShape(shape), loc);
  return scalars ? reshapeTo(l, j, {2}, loc) : j;
}

SVal join(Lowerer &l, A &a) {
  Value *x, *y;
  joinOperands(l, a, x, y);
  return SVal::tensor(joinValues(l, x, y, a.loc));
}

SVal interleave(Lowerer &l, A &a) {
  Value *x, *y;
  joinOperands(l, a, x, y);
  Value *j = joinValues(l, x, y, a.loc);
  if (j->type.rank() == 1) return SVal::tensor(j);
  std::vector<int64_t> shape(j->type.shape.begin(), j->type.shape.end() - 2);
  shape.push_back(2 * j->type.shape[j->type.rank() - 2]);
  return SVal::tensor(reshapeTo(l, j, shape, a.loc));
}

SVal split(Lowerer &l, A &a) {
  Value *x = tileArg(l, a["a"], a.locOf("a"), a.name);
  if (x->type.shape.back() != 2)
    l.error(a.locOf("a"),
            a.name + " needs a tensor whose last dimension is 2, got " + describe(a["a"]),
            "split undoes tl.join; reshape so the pairs form the last dimension");
  bool rank1 = x->type.rank() == 1;
  if (rank1)
    x = l.emit(OpCode::ExpandDims, {x}, x->type.withShape({1, 2}), a.loc, {{"axis", int64_t{0}}});
  std::vector<int64_t> shape(x->type.shape.begin(), x->type.shape.end() - 1);
  Type t = x->type.withShape(shape);
  l.builder().setLoc(a.loc);
  Operation *op = l.builder().create(OpCode::Split, {x}, {t, t});
  Value *lhs = op->result(0), *rhs = op->result(1);
  if (rank1) {
    // A [2] tensor splits into two scalars: reduce each [1] half to its element.
    auto takeFirst = [](Lowerer &, const std::vector<Value *> &l0, const std::vector<Value *> &,
                        SourceLoc) { return l0; };
    lhs = buildReduce(l, {lhs}, 0, takeFirst, a.loc)[0];
    rhs = buildReduce(l, {rhs}, 0, takeFirst, a.loc)[0];
  }
  return SVal::tuple({SVal::tensor(lhs), SVal::tensor(rhs)});
}

SVal cat(Lowerer &l, A &a) {
  Value *x = tileArg(l, a["input"], a.locOf("input"), a.name);
  Value *y = tileArg(l, a["other"], a.locOf("other"), a.name, "other operand");
  // Tessera's cat keeps the order, so can_reorder=False is honoured too.
  l.constBool(a["can_reorder"], a.locOf("can_reorder"), "can_reorder");
  if (x->type != y->type)
    l.error(a.loc,
            a.name + " needs two tensors of the same shape and dtype, got " + describe(a["input"]) +
                " and " + describe(a["other"]),
            "the concatenated dimension must stay a power of two; convert dtypes with .to()");
  // Cat joins along dim 0; another dim (Triton 3.6's `dim`, used when the
  // order is kept) is brought to the front and back again.
  int rank = x->type.rank();
  int64_t dim = a["dim"].isNone() ? 0 : normalizeAxis(l, a["dim"], rank, a.locOf("dim"));
  std::vector<int64_t> order(rank);
  for (int i = 0; i < rank; ++i) order[i] = i;
  std::rotate(order.begin(), order.begin() + dim, order.begin() + dim + 1);
  std::vector<int64_t> back(rank);
  for (int i = 0; i < rank; ++i) back[order[i]] = i;
  x = permuteImpl(l, x, order, a.loc, a.name);
  y = permuteImpl(l, y, order, a.loc, a.name);
  std::vector<int64_t> shape = x->type.shape;
  shape[0] *= 2;
  Value *joined = l.emit(OpCode::Cat, {x, y}, x->type.withShape(shape), a.loc);
  return SVal::tensor(permuteImpl(l, joined, back, a.loc, a.name));
}

SVal flip(Lowerer &l, A &a) {
  Value *x = tileArg(l, a["x"], a.locOf("x"), a.name);
  int64_t dim = a["dim"].isNone() ? x->type.rank() - 1
                                  : normalizeAxis(l, a["dim"], x->type.rank(), a.locOf("dim"));
  if (x->type.shape[dim] == 1) return SVal::tensor(x);
  return SVal::tensor(l.emit(OpCode::Flip, {x}, x->type, a.loc, {{"axis", dim}}));
}

SVal gather(Lowerer &l, A &a) {
  Value *src = tileArg(l, a["src"], a.locOf("src"), a.name, "source");
  Value *idx = tileArg(l, a["index"], a.locOf("index"), a.name, "index");
  if (idx->type.isPtrLike() || !isInt(idx->type.dtype) || idx->type.dtype == DType::I1)
    l.error(a.locOf("index"),
            a.name + ": the index must be an integer tensor, got " + describe(a["index"]));
  int rank = src->type.rank();
  if (idx->type.rank() != rank)
    l.error(a.loc, a.name + ": the source and index tensors must have the same rank, got " +
                       describe(a["src"]) + " and " + describe(a["index"]));
  int64_t axis = normalizeAxis(l, a["axis"], rank, a.locOf("axis"));
  for (int d = 0; d < rank; ++d)
    if (d != axis && idx->type.shape[d] != src->type.shape[d])
      l.error(a.loc,
              a.name + ": index dimension " + std::to_string(d) + " (" +
                  std::to_string(idx->type.shape[d]) + ") must match the source's (" +
                  std::to_string(src->type.shape[d]) + ")",
              "only the gather axis may differ in size");
  return SVal::tensor(l.emit(OpCode::Gather, {src, idx}, idx->type.withElement(src->type.element()),
                             a.loc, {{"axis", axis}}));
}

// tl.sort and tl.topk: `x` sorted along `dim` (only the last is supported)
// as `descending` says.
Value *sortLastDim(Lowerer &l, A &a, Value *x, bool descending) {
  int rank = x->type.rank();
  int64_t dim = a["dim"].isNone() ? rank - 1 : normalizeAxis(l, a["dim"], rank, a.locOf("dim"));
  if (dim != rank - 1)
    l.error(a.locOf("dim"),
            a.name + ": only the minor dimension (" + std::to_string(rank - 1) +
                ") is currently supported, got dim=" + std::to_string(dim),
            "permute the dimension to sort to the end with tl.permute");
  return l.emit(OpCode::Sort, {x}, x->type, a.loc,
                {{"axis", dim}, {"descending", int64_t{descending}}});
}

Value *sortableArg(Lowerer &l, A &a) {
  Value *x = tileArg(l, a["x"], a.locOf("x"), a.name);
  if (x->type.isPtrLike()) l.error(a.locOf("x"), a.name + " does not accept pointers");
  return x;
}

SVal sort(Lowerer &l, A &a) {
  Value *x = sortableArg(l, a);
  return SVal::tensor(
      sortLastDim(l, a, x, l.constBool(a["descending"], a.locOf("descending"), "descending")));
}

// tl.topk: the k largest (or smallest) elements along the last dim, in
// order. Sorted, the row reshaped into N/k groups of k holds them in group
// 0, and every later group's j-th element is no larger (smaller) than
// group 0's, so a max (min) over the groups is group 0: no slicing op needed.
SVal topk(Lowerer &l, A &a) {
  Value *x = sortableArg(l, a);
  int64_t n = x->type.shape.back(), k = l.constInt(a["k"], a.locOf("k"), "k");
  if (k < 1 || k > n || (k & (k - 1)))
    l.error(a.locOf("k"), a.name + ": k must be a power of two from 1 to " + std::to_string(n) +
                              ", got " + std::to_string(k));
  bool desc = l.constBool(a["descending"], a.locOf("descending"), "descending");
  Value *sorted = sortLastDim(l, a, x, desc);
  if (k == n) return SVal::tensor(sorted);
  std::vector<int64_t> groups = x->type.shape;
  groups.back() = n / k;
  groups.push_back(k);
  Value *g = l.emit(OpCode::Reshape, {sorted}, x->type.withShape(groups), a.loc);
  std::vector<SourceLoc> locs(2, a.loc);
  std::vector<SVal> args{SVal::tensor(g), SVal::integer(x->type.rank() - 1)};
  return l.call(SVal::builtin(desc ? "tl.max" : "tl.min"), args, locs, {}, {}, a.loc);
}

SVal histogram(Lowerer &l, A &a) {
  Value *x = tileArg(l, a["input"], a.locOf("input"), a.name);
  if (x->type.rank() != 1)
    l.error(a.locOf("input"), a.name + " only supports 1-D input, got " + describe(a["input"]),
            "flatten it first with tl.ravel");
  if (x->type.isPtrLike() || !isInt(x->type.dtype))
    l.error(a.locOf("input"), a.name + " only supports integer input, got " + describe(a["input"]));
  std::vector<int64_t> bins = blockShape(l, a["num_bins"], a.locOf("num_bins"), "num_bins");
  std::vector<Value *> ops{x};
  if (!a["mask"].isNone()) {
    Value *m = l.tensorArg(a["mask"], a.locOf("mask"), "the mask");
    if (m->type.isPtrLike() || m->type.dtype != DType::I1)
      l.error(a.locOf("mask"), a.name + ": the mask should be bool, got " + describe(a["mask"]),
              "compare to get a mask, e.g. offs < n");
    ops.push_back(l.broadcastTo(m, x->type.shape, a.locOf("mask")));
  }
  return SVal::tensor(
      l.emit(OpCode::Histogram, ops, tileOf(bins, DType::I32), a.loc, {{"bins", bins[0]}}));
}

}  // namespace

std::vector<BuiltinDef> shapeBuiltins() {
  return {
      {"tl.reshape", {"input", "*shape", "can_reorder=False"}, reshape},
      {"tl.view", {"input", "*shape"}, reshape},
      {"tl.ravel", {"x", "can_reorder=False"}, ravel},
      {"tl.expand_dims", {"input", "axis"}, expandDims},
      {"tl.squeeze", {"x", "dim"}, squeeze},
      {"tl.unsqueeze", {"x", "dim"}, unsqueeze},
      {"tl.broadcast_to", {"input", "*shape"}, broadcastToFn},
      {"tl.broadcast", {"input", "other"}, broadcastFn},
      {"tl.trans", {"input", "*dims"}, trans},
      {"tl.permute", {"input", "*dims"}, permute},
      {"tl.join", {"a", "b"}, join},
      {"tl.split", {"a"}, split},
      {"tl.interleave", {"a", "b"}, interleave},
      {"tl.cat", {"input", "other", "can_reorder=False", "dim=0"}, cat},
      {"tl.flip", {"x", "dim=None"}, flip},
      {"tl.gather", {"src", "index", "axis"}, gather},
      {"tl.sort", {"x", "dim=None", "descending=False"}, sort},
      {"tl.topk", {"x", "k", "dim=None", "descending=True"}, topk},
      {"tl.histogram", {"input", "num_bins", "mask=None"}, histogram},
  };
}

}  // namespace tessera::frontend
