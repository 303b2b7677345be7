#include "codegen/ptx/layout.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <set>

namespace tessera::ptx {

std::vector<int64_t> LinearLayout::coord(int r, int lane, int warp) const {
  std::vector<int64_t> c(shape.size(), 0);
  auto add = [&](const std::vector<Basis> &bases, int bits) {
    for (size_t i = 0; i < bases.size(); ++i)
      if ((bits >> i) & 1 && !bases[i].isZero()) c[bases[i].dim] ^= bases[i].value;
  };
  add(reg, r);
  add(this->lane, lane);
  add(this->warp, warp);
  return c;
}

static unsigned zeroMask(const std::vector<Basis> &bases) {
  unsigned m = 0;
  for (size_t i = 0; i < bases.size(); ++i)
    if (bases[i].isZero()) m |= 1u << i;
  return m;
}
unsigned LinearLayout::replicatedLaneMask() const {
  return zeroMask(lane);
}
unsigned LinearLayout::replicatedWarpMask() const {
  return zeroMask(warp);
}

static int log2i(int64_t v) {
  return std::countr_zero(static_cast<uint64_t>(v));
}

LinearLayout LinearLayout::blocked(const std::vector<int64_t> &shape,
                                   const std::vector<int64_t> &sizePerThread,
                                   const std::vector<int64_t> &threadsPerWarp,
                                   const std::vector<int64_t> &warpsPerCTA,
                                   const std::vector<int> &order) {
  LinearLayout l;
  l.shape = shape;
  std::vector<int64_t> covered(shape.size(), 1);
  // Bits of one level (registers, lanes, warps) for `counts` per dim, fastest
  // dim first; parts beyond the shape are zero bases (or dropped registers).
  auto level = [&](std::vector<Basis> &out, const std::vector<int64_t> &counts, bool keepZero) {
    for (int d : order)
      for (int b = 0; b < log2i(counts[d]); ++b) {
        if (covered[d] < shape[d]) {
          out.push_back({d, covered[d]});
          covered[d] *= 2;
        } else if (keepZero) {
          out.push_back({});
        }
      }
  };
  level(l.reg, sizePerThread, false);
  level(l.lane, threadsPerWarp, true);
  level(l.warp, warpsPerCTA, true);
  for (int d : order)
    while (covered[d] < shape[d]) {
      l.reg.push_back({d, covered[d]});
      covered[d] *= 2;
    }
  return l;
}

LinearLayout LinearLayout::coalesced(const std::vector<int64_t> &shape, int numWarps, int64_t vec,
                                     const std::vector<int> &order) {
  size_t rank = shape.size();
  std::vector<int64_t> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  spt[order[0]] = std::min<int64_t>(vec, shape[order[0]]);
  int64_t lanes = 32, warps = numWarps;
  for (int d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    tpw[d] = std::min(lanes, room);
    lanes /= tpw[d];
  }
  tpw[order[0]] *= lanes;  // a tile smaller than a warp: replicate
  for (int d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    wpc[d] = std::min(warps, room);
    warps /= wpc[d];
  }
  wpc[order.back()] *= warps;
  return blocked(shape, spt, tpw, wpc, order);
}

LinearLayout LinearLayout::defaultFor(const std::vector<int64_t> &shape, int numWarps) {
  std::vector<int> order;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) order.push_back(d);
  return coalesced(shape, numWarps, 1, order);
}

static void dropZeroRegs(std::vector<Basis> &reg) {
  std::erase_if(reg, [](const Basis &b) { return b.isZero(); });
}

LinearLayout LinearLayout::sliced(int axis) const {
  LinearLayout l = *this;
  l.shape.erase(l.shape.begin() + axis);
  for (auto *bases : {&l.reg, &l.lane, &l.warp})
    for (Basis &b : *bases) {
      if (b.dim == axis)
        b = {};
      else if (b.dim > axis)
        --b.dim;
    }
  dropZeroRegs(l.reg);
  return l;
}

LinearLayout LinearLayout::expanded(int axis) const {
  LinearLayout l = *this;
  l.shape.insert(l.shape.begin() + axis, 1);
  for (auto *bases : {&l.reg, &l.lane, &l.warp})
    for (Basis &b : *bases)
      if (!b.isZero() && b.dim >= axis) ++b.dim;
  return l;
}

LinearLayout LinearLayout::collapsed(const std::vector<int> &dims) const {
  LinearLayout l = *this;
  for (int d : dims) l.shape[d] = 1;
  for (auto *bases : {&l.reg, &l.lane, &l.warp})
    for (Basis &b : *bases)
      for (int d : dims)
        if (b.dim == d) b = {};
  dropZeroRegs(l.reg);
  return l;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

LinearLayout LinearLayout::reshaped(const std::vector<int64_t> &newShape) const {
  std::vector<int64_t> from = rowMajorStrides(shape), to = rowMajorStrides(newShape);
  LinearLayout l = *this;
  l.shape = newShape;
  // Every dim is a power of two, so a basis is one bit of the flat index,
  // and that bit lies in exactly one dim of the new shape (none of size 1).
  for (auto *bases : {&l.reg, &l.lane, &l.warp})
    for (Basis &b : *bases) {
      if (b.isZero()) continue;
      int64_t flat = b.value * from[b.dim];
      for (size_t d = 0; d < newShape.size(); ++d)
        if (flat >= to[d] && flat < to[d] * newShape[d]) {
          b = {static_cast<int>(d), flat / to[d]};
          break;
        }
    }
  return l;
}

LinearLayout LinearLayout::permuted(const std::vector<int64_t> &order) const {
  LinearLayout l = *this;
  std::vector<int> newDim(shape.size());
  for (size_t i = 0; i < order.size(); ++i) {
    l.shape[i] = shape[order[i]];
    newDim[order[i]] = static_cast<int>(i);
  }
  for (auto *bases : {&l.reg, &l.lane, &l.warp})
    for (Basis &b : *bases)
      if (!b.isZero()) b.dim = newDim[b.dim];
  return l;
}

std::optional<std::pair<int, LinearLayout>> LinearLayout::splitLast() const {
  int last = static_cast<int>(shape.size()) - 1;
  if (last < 0 || shape[last] != 2) return std::nullopt;
  for (size_t i = 0; i < reg.size(); ++i)
    if (reg[i].dim == last) return std::pair{static_cast<int>(i), sliced(last)};
  return std::nullopt;
}

LinearLayout LinearLayout::joinedLast() const {
  LinearLayout l = *this;
  l.shape.push_back(2);
  l.reg.insert(l.reg.begin(), Basis{static_cast<int>(shape.size()), 1});
  return l;
}

int LinearLayout::regIndexOf(const std::vector<int64_t> &regPart) const {
  std::vector<int64_t> rest = regPart;
  int idx = 0;
  for (size_t i = 0; i < reg.size(); ++i)
    if (rest[reg[i].dim] & reg[i].value) {
      idx |= 1 << i;
      rest[reg[i].dim] ^= reg[i].value;
    }
  for (int64_t v : rest)
    if (v != 0) return -1;
  return idx;
}

int64_t LinearLayout::contiguousRegs(int dim) const {
  int64_t n = 1;
  for (const Basis &b : reg) {
    if (b.dim != dim || b.value != n) break;
    n *= 2;
  }
  return n;
}

int64_t LinearLayout::sectorsTouched(int dim, int64_t vec, int elemBytes) const {
  vec = std::min(vec, contiguousRegs(dim));
  const unsigned lanes = 1u << lane.size(), laneDup = replicatedLaneMask();
  const unsigned warps = 1u << warp.size(), warpDup = replicatedWarpMask();
  int64_t total = 0;
  std::set<std::vector<int64_t>> sectors;  // (coordinates, dim's in sectors) per instruction
  for (unsigned w = 0; w < warps; ++w) {
    if (w & warpDup) continue;
    for (int r = 0; r < numRegs(); r += static_cast<int>(vec)) {
      sectors.clear();
      for (unsigned l = 0; l < lanes; ++l) {
        if (l & laneDup) continue;
        // An aligned vector of at most 16 bytes lies in one sector.
        std::vector<int64_t> c = coord(r, static_cast<int>(l), static_cast<int>(w));
        c[dim] = c[dim] * elemBytes / 32;
        sectors.insert(std::move(c));
      }
      total += static_cast<int64_t>(sectors.size());
    }
  }
  return total;
}

// The layout of the half of a tile whose dim `dim` has bit `v` fixed,
// with register bit `bit` (which holds v) dropped.
static LinearLayout halfLayout(const LinearLayout &l, int bit, int dim, int64_t v) {
  LinearLayout h = l;
  h.reg.erase(h.reg.begin() + bit);
  h.shape[dim] /= 2;
  for (auto *bases : {&h.reg, &h.lane, &h.warp})
    for (Basis &b : *bases)
      if (b.dim == dim && b.value > v) b.value /= 2;
  return h;
}

std::optional<ConversionHalves> halveConversion(const LinearLayout &from, const LinearLayout &to) {
  if (from.shape != to.shape) return std::nullopt;
  std::optional<ConversionHalves> best;
  int64_t bestValue = 0;
  for (size_t i = 0; i < from.reg.size(); ++i) {
    const Basis &b = from.reg[i];
    if (b.isZero() || b.dim + 1 >= static_cast<int>(from.shape.size()) || b.value <= bestValue)
      continue;
    for (size_t j = 0; j < to.reg.size(); ++j)
      if (to.reg[j] == b) {
        int fi = static_cast<int>(i), tj = static_cast<int>(j);
        best = ConversionHalves{halfLayout(from, fi, b.dim, b.value),
                                halfLayout(to, tj, b.dim, b.value), fi, tj};
        bestValue = b.value;
      }
  }
  return best;
}

std::optional<int> conversionBands(const LinearLayout &from, const LinearLayout &to,
                                   int64_t bytes) {
  LinearLayout a = from, b = to;
  int halvings = 0;
  for (; bytes > kMaxConvertBytes; bytes /= 2, ++halvings) {
    std::optional<ConversionHalves> h = halveConversion(a, b);
    if (!h) return std::nullopt;
    a = h->from;
    b = h->to;
  }
  return halvings;
}

static void printBases(std::string &s, const char *name, const std::vector<Basis> &bases) {
  s += name;
  s += "=[";
  for (size_t i = 0; i < bases.size(); ++i) {
    if (i) s += ",";
    s += bases[i].isZero() ? "-"
                           : std::to_string(bases[i].dim) + ":" + std::to_string(bases[i].value);
  }
  s += "]";
}

std::string LinearLayout::str() const {
  std::string s = "linear<";
  printBases(s, "reg", reg);
  s += ", ";
  printBases(s, "lane", lane);
  s += ", ";
  printBases(s, "warp", warp);
  return s + ">";
}

std::optional<LinearLayout> LinearLayout::parse(std::string_view s,
                                                const std::vector<int64_t> &shape) {
  size_t pos = 0;
  auto skipSpace = [&] {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
  };
  auto eat = [&](std::string_view tok) {
    skipSpace();
    if (s.substr(pos, tok.size()) != tok) return false;
    pos += tok.size();
    return true;
  };
  auto number = [&](int64_t &v) {
    skipSpace();
    size_t start = pos;
    v = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
      v = v * 10 + (s[pos++] - '0');
    return pos > start;
  };
  auto bases = [&](std::string_view name, std::vector<Basis> &out) {
    if (!eat(name) || !eat("=") || !eat("[")) return false;
    if (eat("]")) return true;
    do {
      if (eat("-")) {
        out.push_back({});
        continue;
      }
      int64_t d, v;
      if (!number(d) || !eat(":") || !number(v)) return false;
      if (d >= static_cast<int64_t>(shape.size()) || v <= 0 || v >= shape[d] ||
          !std::has_single_bit(static_cast<uint64_t>(v)))
        return false;
      out.push_back({static_cast<int>(d), v});
    } while (eat(","));
    return eat("]");
  };
  LinearLayout l;
  l.shape = shape;
  if (!eat("linear<") || !bases("reg", l.reg) || !eat(",") || !bases("lane", l.lane) || !eat(",") ||
      !bases("warp", l.warp) || !eat(">"))
    return std::nullopt;
  skipSpace();
  if (pos != s.size() || l.lane.size() != 5) return std::nullopt;
  // Every element must be covered exactly once by the non-zero bases.
  std::vector<int64_t> seen(shape.size(), 0);
  for (auto *bs : {&l.reg, &l.lane, &l.warp})
    for (const Basis &b : *bs) {
      if (b.isZero()) continue;
      if (seen[b.dim] & b.value) return std::nullopt;
      seen[b.dim] |= b.value;
    }
  for (size_t d = 0; d < shape.size(); ++d)
    if (seen[d] != shape[d] - 1) return std::nullopt;
  for (const Basis &b : l.reg)
    if (b.isZero()) return std::nullopt;
  return l;
}

SharedLayout SharedLayout::padded(const std::vector<int64_t> &shape, int contig, int elemBytes) {
  return {contig, shape[contig] * elemBytes + 16};
}

SharedLayout SharedLayout::swizzled(int contig, int bytes) {
  return {contig, bytes, bytes};
}

int SharedLayout::swizzleFor(int64_t contiguousBytes) {
  return contiguousBytes >= 128 ? 128 : contiguousBytes >= 64 ? 64 : contiguousBytes >= 32 ? 32 : 0;
}

int64_t SharedLayout::slotBytes(const std::vector<int64_t> &shape, int elemBytes) const {
  if (swizzle) {
    int64_t columns = (shape[shape.size() - 2 + contig] * elemBytes + swizzle - 1) / swizzle;
    return (columns * rows(shape) * swizzle + 1023) / 1024 * 1024;
  }
  return (rows(shape) * pitch + 127) / 128 * 128;
}

int64_t SharedLayout::linearOffset(const std::vector<int64_t> &shape, int64_t row, int64_t col,
                                   int elemBytes) const {
  int64_t cb = col * elemBytes;
  if (!swizzle) return row * pitch + cb;
  return cb / swizzle * (rows(shape) * swizzle) + row * swizzle + cb % swizzle;
}

int64_t SharedLayout::offset(const std::vector<int64_t> &shape, int64_t row, int64_t col,
                             int elemBytes) const {
  int64_t lin = linearOffset(shape, row, col, elemBytes);
  if (!swizzle) return lin;
  // The hardware's swizzle on address bits: the 16-byte chunk index (bits
  // 4 and up, one bit per doubling of the swizzle width past 16 bytes) XOR
  // the same number of bits from bit 7 up.
  int64_t chunks = swizzle / 16 - 1;
  return lin ^ (((lin >> 7) & chunks) << 4);
}

std::string SharedLayout::str() const {
  if (swizzle)
    return "shared<contig=" + std::to_string(contig) + ", swizzle=" + std::to_string(swizzle) + ">";
  return "shared<contig=" + std::to_string(contig) + ", pitch=" + std::to_string(pitch) + ">";
}

std::optional<SharedLayout> SharedLayout::parse(std::string_view s) {
  SharedLayout l;
  int contig = -1;
  long long pitch = -1;
  std::string text(s);
  int swizzle = 0;
  if (std::sscanf(text.c_str(), "shared<contig=%d, swizzle=%d>", &contig, &swizzle) == 2) {
    if ((contig != 0 && contig != 1) || (swizzle != 32 && swizzle != 64 && swizzle != 128))
      return std::nullopt;
    if (text != swizzled(contig, swizzle).str()) return std::nullopt;
    return swizzled(contig, swizzle);
  }
  if (std::sscanf(text.c_str(), "shared<contig=%d, pitch=%lld>", &contig, &pitch) != 2 ||
      (contig != 0 && contig != 1) || pitch <= 0 || pitch % 16 != 0)
    return std::nullopt;
  if (text != SharedLayout{contig, pitch}.str()) return std::nullopt;
  l.contig = contig;
  l.pitch = pitch;
  return l;
}

}  // namespace tessera::ptx
