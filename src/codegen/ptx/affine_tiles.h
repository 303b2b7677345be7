// Affine tiles: integer and pointer tiles whose element at index (i0, i1,
// ...) is base + sum_d coef[d] * i_d, with base and coefficients written as
// polynomials over scalar values of the kernel (its leaves: parameters,
// program ids, loop counters, any scalar the analysis does not look into).
// descriptors-from-pointers reads a pointer tile and its mask in this form
// to find the box a `tl.load` reads.
//
// The arithmetic is over the integers: i32 and i64 additions and products
// are read as exact, assuming, as axis info does of dividends, that a
// kernel's offsets do not wrap; narrower integers (which do at sizes a
// kernel reaches) are leaves. (descriptors-from-pointers takes a mask's
// bound only as a sum of the kernel's values: a product there, an element
// count, wraps at realistic sizes.)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"
#include "support/ptr_map.h"

namespace tessera::ptx {

// A sum of terms coefficient * product of leaves. Leaves are numbered in the
// order the analysis meets them (LeafTable), so that the order of terms,
// and the code made from them, does not depend on addresses.
class Poly {
 public:
  using Monomial = std::vector<int>;  // leaf numbers, increasing, repeated for powers

  Poly() = default;
  static Poly constant(int64_t c);
  static Poly leaf(int id);

  const std::map<Monomial, int64_t> &terms() const { return terms_; }
  bool isZero() const { return terms_.empty(); }
  std::optional<int64_t> constantValue() const;  // when it has no leaf

  Poly operator+(const Poly &o) const;
  Poly operator-(const Poly &o) const;
  Poly operator*(const Poly &o) const;
  Poly scaled(int64_t c) const;
  // This divided by `d` when every term divides exactly by `d`'s only term
  // (a monomial with its coefficient); nullopt otherwise.
  std::optional<Poly> dividedBy(const Poly &d) const;
  // The terms for which `keep` holds of some leaf of theirs, and the others.
  Poly termsWithLeaf(const std::function<bool(int)> &keep, bool with) const;
  size_t size() const { return terms_.size(); }
  int degree() const;
  bool operator==(const Poly &o) const {
    return terms_ == o.terms_ && !overflowed_ && !o.overflowed_;
  }
  // Whether a coefficient left the range of int64 on the way here (from
  // constants of the kernel): such a polynomial means nothing.
  bool overflowed() const { return overflowed_; }

 private:
  void add(const Monomial &m, int64_t c);
  std::map<Monomial, int64_t> terms_;
  bool overflowed_ = false;
};

// The leaves of the polynomials of one analysis.
class LeafTable {
 public:
  int idOf(Value *v);
  Value *value(int id) const { return leaves_.at(id); }

 private:
  std::vector<Value *> leaves_;
  PtrMap<Value *, int> ids_;
};

// A tile (or scalar, rank 0) in affine form. For pointers, `pointer` is the
// scalar pointer the offsets (in elements) are added to.
struct AffineTile {
  Value *pointer = nullptr;
  Poly base;
  std::vector<Poly> coef;  // one per dim
  // Per dim (empty: none): the form holds only for indices below this bound
  // along the dim; past it the element is something else. Made by an index
  // wrapped into range, `(x0 + tl.arange(0, n)) % M`, the style of Triton's
  // matmul tutorial: it equals x0 + i for i < M - x0.
  std::vector<std::optional<Poly>> exactBelow;
  bool uniform() const;  // every coefficient zero
  bool overflowed() const;
  bool wrapped() const;  // some dim has an exactBelow
};

class AffineAnalysis {
 public:
  AffineAnalysis() = default;
  // With the kernel's `tl.assume(a >= b)` facts (and >, <=, <, and
  // conjunctions) whose a - b is a sum (no product, which may have wrapped in
  // the kernel), each holding where its assume dominates. Triton's matmul
  // tutorial assumes its grouped program ids non-negative.
  explicit AffineAnalysis(Function &fn);
  // The affine form of `v` (an integer or pointer scalar or tile), or
  // nullopt. A carried value of a `for` loop whose yield adds a uniform
  // step (`p += BLOCK_K * stride`) is its initial value plus the step times
  // the iterations done, (iv - lb) / step_of_loop.
  std::optional<AffineTile> of(Value *v);
  LeafTable &leaves() { return leaves_; }
  // Whether `p` is >= 0 for every value its leaves take when `at` runs:
  // positive terms over program ids, their counts, and loop counters that
  // count up from a lower bound that is itself such a polynomial
  // (attention's diagonal loop starts at its program's first row) by a
  // constant or by the program count (a persistent loop over tiles), and
  // remainders, quotients, minima and maxima of such values
  // (nonNegativeLeaf), and a persistent kernel's grid sizes; or such terms
  // plus a positive multiple of a polynomial an assume before `at`
  // (dominating it) says is >= 0.
  bool nonNegative(const Poly &p, const Operation *at, int depth = 0);
  // Whether `p` is >= 0 but where a divisor of unknown sign is negative:
  // positive multiples of leaves nonNegative takes and of signed quotients
  // and remainders (and minima) of such values (a tile index divided by a
  // count of tiles, which is negative only for a negative size).
  bool nonNegativeBarDivisors(const Poly &p, const Operation *at, int depth = 0);

 private:
  std::optional<AffineTile> compute(Value *v);
  std::optional<AffineTile> carried(Value *arg);
  Poly scalarPoly(Value *v);
  void assume(Value *cond, const Operation *where);
  bool nonNegativeTerms(const Poly &p, const Operation *at, int depth);
  bool nonNegativeLeaf(const Operation &def, const Operation *at, int depth, bool barDivisors);
  struct Assumed {
    Poly nonNegative;
    const Operation *where;  // the assume
  };
  std::unordered_set<const Value *> gridParams_;  // ParamAttrs::gridAxis >= 0
  std::vector<Assumed> assumed_;
  PtrMap<Value *, std::optional<AffineTile>> memo_;
  LeafTable leaves_;
};

// Builds, at b's point, the value of `p` as a scalar of integer type `t`
// (leaves converted to it).
Value *materialize(Builder &b, const Poly &p, const LeafTable &leaves, DType t);

}  // namespace tessera::ptx
