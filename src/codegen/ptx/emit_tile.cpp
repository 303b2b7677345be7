// Tile ops that depend on layouts: arange, broadcast, data movement through
// shared memory (layout conversion, reshape, permute, join, split, cat,
// flip, gather), reductions, scans, dot (FMA lowering; emit_mma.cpp has the tensor-core
// one) and Philox.
//
// Shared-memory protocol of every op here: barrier, write, barrier, read.
// The first barrier keeps the previous user's readers from seeing this op's
// writes; so nothing needs to live in shared memory across ops.
#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include "codegen/ptx/emitter.h"
#include "codegen/ptx/mma.h"
#include "support/diagnostics.h"
#include "support/numerics.h"

namespace tessera::ptx {
namespace {

// The dtype a tile's elements travel as (pointers as u64).
DType travelType(const Type &t) {
  return t.isPtrLike() ? DType::U64 : t.dtype;
}

int64_t dotCoord(const std::vector<int64_t> &c, const std::vector<int64_t> &strides) {
  int64_t s = 0;
  for (size_t d = 0; d < c.size(); ++d) s += c[d] * strides[d];
  return s;
}

}  // namespace

void Emitter::stShared(const std::string &a, int64_t off, DType d, const std::string &r,
                       const std::string &pred) {
  RegClass c = regClassOf(Type::scalar(d));
  std::string guard = pred.empty() ? "" : "@" + pred + " ";
  if (c == RegClass::Pred) {
    std::string t = reg(RegClass::B16);
    ins("selp.u16 " + t + ", 1, 0, " + r);
    ins(guard + "st.shared.u8 " + addr(a, off) + ", " + t);
    return;
  }
  ins(guard + "st.shared." + movType(c) + " " + addr(a, off) + ", " + r);
}

std::string Emitter::ldShared(const std::string &a, int64_t off, DType d) {
  RegClass c = regClassOf(Type::scalar(d));
  if (c == RegClass::Pred) {
    std::string t = reg(RegClass::B16), p = reg(RegClass::Pred);
    ins("ld.shared.u8 " + t + ", " + addr(a, off));
    ins("setp.ne.u16 " + p + ", " + t + ", 0");
    return p;
  }
  std::string r = reg(c);
  ins(std::string("ld.shared.") + movType(c) + " " + r + ", " + addr(a, off));
  return r;
}

// Bytes of one element of type `d` in shared memory (its register's size).
int sharedElemBytes(DType d) {
  switch (regClassOf(Type::scalar(d))) {
    case RegClass::Pred:
      return 1;
    case RegClass::B16:
      return 2;
    case RegClass::B32:
    case RegClass::F32:
      return 4;
    case RegClass::B64:
    case RegClass::F64:
      return 8;
  }
  return 4;
}

std::string Emitter::threadSharedAddress(const LinearLayout &l, const std::vector<int64_t> &strides,
                                         int64_t bytes) {
  std::string key = "sa|" + l.str() + "|" + std::to_string(bytes);
  for (int64_t s : strides) key += "," + std::to_string(s);
  if (auto it = cached_.find(key); it != cached_.end()) return it->second;
  std::string tl = threadLinear(l, strides, bytes);
  std::string a = reg(RegClass::B32);
  prologueIns("add.s32 " + a + ", " + smem_ + ", " + tl);
  return cached_[key] = a;
}

void Emitter::storeTileShared(const Regs &r, const LinearLayout &l, DType d,
                              const std::vector<int64_t> &strides, int64_t base) {
  int64_t bytes = sharedElemBytes(d);
  std::string a = threadSharedAddress(l, strides, bytes);
  for (int i = 0; i < l.numRegs(); ++i)
    stShared(a, base + dotCoord(l.regCoord(i), strides) * bytes, d, r[i]);
}

Regs Emitter::loadTileShared(const LinearLayout &l, DType d, const std::vector<int64_t> &strides,
                             int64_t base, int64_t constOffsetElems) {
  int64_t bytes = sharedElemBytes(d);
  std::string a = threadSharedAddress(l, strides, bytes);
  Regs out;
  for (int i = 0; i < l.numRegs(); ++i)
    out.push_back(
        ldShared(a, base + (dotCoord(l.regCoord(i), strides) + constOffsetElems) * bytes, d));
  return out;
}

std::pair<std::string, std::string> Emitter::splitHalves(const std::string &word) {
  std::string lo = reg(RegClass::B16), hi = reg(RegClass::B16);
  ins("mov.b32 {" + lo + ", " + hi + "}, " + word);
  halfOf_[lo] = {word, 0};
  halfOf_[hi] = {word, 1};
  return {lo, hi};
}

std::string Emitter::packHalves(const std::string &lo, const std::string &hi) {
  auto l = halfOf_.find(lo), h = halfOf_.find(hi);
  if (l != halfOf_.end() && h != halfOf_.end() && l->second.second == 0 && h->second.second == 1 &&
      l->second.first == h->second.first)
    return l->second.first;
  std::string w = reg(RegClass::B32);
  ins("mov.b32 " + w + ", {" + lo + ", " + hi + "}");
  return w;
}

std::string Emitter::packBytes(const Regs &r, size_t first, DType d) {
  // 8-bit values live in 32-bit (int8) or 16-bit (fp8) registers: the low
  // byte of each, r[first] lowest. Bytes 0..3 of one word in order are
  // that word.
  auto b0 = byteOf_.find(r[first]);
  if (b0 != byteOf_.end() && b0->second.second == 0) {
    bool whole = true;
    for (size_t j = 1; j < 4; ++j) {
      auto bj = byteOf_.find(r[first + j]);
      whole = whole && bj != byteOf_.end() && bj->second == std::pair(b0->second.first, int(j));
    }
    if (whole) return b0->second.first;
  }
  // Two pairs from castToFp8InPairs: one mov.
  auto pairAt = [&](size_t j) -> const std::string * {
    auto lo = byteOfPair_.find(r[first + j]), hi = byteOfPair_.find(r[first + j + 1]);
    if (lo == byteOfPair_.end() || hi == byteOfPair_.end() || lo->second.second != 0 ||
        hi->second != std::pair(lo->second.first, 1))
      return nullptr;
    return &lo->second.first;
  };
  if (const std::string *lo = pairAt(0), *hi = pairAt(2); lo && hi) {
    std::string word = reg(RegClass::B32);
    ins("mov.b32 " + word + ", {" + *lo + ", " + *hi + "}");
    return word;
  }
  Regs b32;
  for (size_t j = 0; j < 4; ++j) {
    if (regClassOf(Type::scalar(d)) == RegClass::B32) {
      b32.push_back(r[first + j]);
    } else {
      std::string t = reg(RegClass::B32);
      ins("cvt.u32.u16 " + t + ", " + r[first + j]);
      b32.push_back(t);
    }
  }
  std::string lo = reg(RegClass::B32), hi = reg(RegClass::B32), word = reg(RegClass::B32);
  ins("prmt.b32 " + lo + ", " + b32[0] + ", " + b32[1] + ", 0x0040");
  ins("prmt.b32 " + hi + ", " + b32[2] + ", " + b32[3] + ", 0x0040");
  ins("prmt.b32 " + word + ", " + lo + ", " + hi + ", 0x5410");
  return word;
}

std::optional<Regs> Emitter::castToFp8InPairs(const Operation &op, const std::vector<Regs> &in) {
  const Value *res = op.result();
  if (op.code != OpCode::Cast || !res->type.isTile() || in.size() != 1 ||
      op.operand(0)->type.dtype != DType::F32 || opts_.target.sm < 89 ||
      op.strAttr("rounding") == "rtz")
    return std::nullopt;
  DType to = res->type.dtype;
  if (to != DType::F8E4NV && to != DType::F8E5) return std::nullopt;
  const Regs &x = in[0];
  if (x.size() % 2 != 0) return std::nullopt;
  Regs out;
  for (size_t i = 0; i < x.size(); i += 2) {
    // The first source goes to the upper byte.
    std::string both = reg(RegClass::B16), lo = reg(RegClass::B16), hi = reg(RegClass::B16);
    ins(std::string("cvt.rn.satfinite.") + (to == DType::F8E4NV ? "e4m3x2" : "e5m2x2") + ".f32 " +
        both + ", " + x[i + 1] + ", " + x[i]);
    ins("and.b16 " + lo + ", " + both + ", 255");
    ins("shr.u16 " + hi + ", " + both + ", 8");
    byteOfPair_[lo] = {both, 0};
    byteOfPair_[hi] = {both, 1};
    out.push_back(lo);
    out.push_back(hi);
  }
  return out;
}

Regs Emitter::loadTileSharedPacked(const LinearLayout &l, DType d,
                                   const std::vector<int64_t> &strides, int64_t base) {
  int eb = byteSize(d);
  RegClass c = regClassOf(Type::scalar(d));
  int cd = static_cast<int>(std::find(strides.begin(), strides.end(), 1) - strides.begin());
  // As in storeTileSharedPacked: every other basis along `cd` is a larger
  // power of two, so each vector starts aligned to its width.
  int64_t chunk = std::min<int64_t>(l.contiguousRegs(cd), 16 / eb);
  int64_t words = chunk * eb / 4;
  std::string a = threadSharedAddress(l, strides, eb);
  Regs out;
  for (int i = 0; i < l.numRegs(); i += static_cast<int>(chunk)) {
    int64_t off = base + dotCoord(l.regCoord(i), strides) * eb;
    if (words < 1) {
      for (int j = 0; j < chunk; ++j) out.push_back(ldShared(a, off + j * eb, d));
      continue;
    }
    // 32-bit elements load straight into their registers; 16-bit ones
    // arrive as words of two and are split.
    RegClass wc = eb == 4 ? c : RegClass::B32;
    Regs w;
    for (int64_t k = 0; k < words; ++k) w.push_back(reg(wc));
    std::string v = words == 4 ? ".v4" : words == 2 ? ".v2" : "";
    ins("ld.shared" + v + "." + (wc == RegClass::F32 ? "f32 " : "b32 ") +
        (words == 1 ? w[0] : join(w)) + ", " + addr(a, off));
    for (const std::string &word : w) {
      if (eb == 4) {
        out.push_back(word);
        continue;
      }
      auto [lo, hi] = splitHalves(word);
      out.push_back(lo);
      out.push_back(hi);
    }
  }
  return out;
}

std::optional<Regs> Emitter::convertPacked(const Regs &src, const LinearLayout &from,
                                           const LinearLayout &to, DType d) {
  RegClass c = regClassOf(Type::scalar(d));
  int eb = byteSize(d);
  bool packable = (c == RegClass::B16 || c == RegClass::B32 || c == RegClass::F32) &&
                  eb == sharedElemBytes(d) && (eb == 2 || eb == 4);
  const std::vector<int64_t> &shape = from.shape;
  if (!packable || shape.empty()) return std::nullopt;
  std::vector<int64_t> strides = rowMajorStrides(shape);
  int64_t rowBytes = shape.back() * eb;
  if (shape.size() >= 2 && rowBytes >= 64) {
    // Rows 16 bytes longer: row r starts 16 * r bytes further along the
    // banks, so eight rows written 16 bytes each at once do not collide.
    int64_t pitch = shape.back() + 16 / eb;
    strides[shape.size() - 2] = pitch;
    for (int k = static_cast<int>(shape.size()) - 3; k >= 0; --k)
      strides[k] = strides[k + 1] * shape[k + 1];
  }
  needShared(strides[0] * shape[0] * eb);
  barrier();
  storeTileSharedPacked(src, from, d, strides, 0);
  barrier();
  return loadTileSharedPacked(to, d, strides, 0);
}

Regs Emitter::convertThroughShared(const Regs &src, const LinearLayout &from,
                                   const LinearLayout &to, DType d) {
  int64_t numel = 1;
  for (int64_t s : from.shape) numel *= s;
  if (numel * sharedElemBytes(d) > kMaxConvertBytes) {
    if (std::optional<ConversionHalves> h = halveConversion(from, to)) {
      // Each half in turn through the same staging space; the barrier
      // before the second half's stores follows the first half's loads.
      Regs out(to.numRegs());
      for (int half = 0; half < 2; ++half) {
        Regs part;
        for (int i = 0; i < from.numRegs(); ++i)
          if (((i >> h->fromBit) & 1) == half) part.push_back(src[i]);
        Regs got = convertThroughShared(part, h->from, h->to, d);
        // Result register k of the half is register k of `to` with
        // toBit inserted.
        for (int k = 0; k < h->to.numRegs(); ++k) {
          int low = k & ((1 << h->toBit) - 1);
          out[((k - low) << 1) | (half << h->toBit) | low] = got[k];
        }
      }
      return out;
    }
  }
  if (std::optional<Regs> r = convertPacked(src, from, to, d)) return *r;
  std::vector<int64_t> strides = rowMajorStrides(from.shape);
  needShared(numel * sharedElemBytes(d));
  barrier();
  storeTileShared(src, from, d, strides, 0);
  barrier();
  return loadTileShared(to, d, strides, 0);
}

void Emitter::emitArange(Operation &op) {
  LinearLayout l = layoutOf(op.result());
  int64_t start = op.intAttr("start");
  std::string tc = threadCoord(l, 0);
  Regs out;
  for (int i = 0; i < l.numRegs(); ++i) {
    std::string r = reg(RegClass::B32);
    int64_t offset = start + l.regCoord(i)[0];
    ins("add.s32 " + r + ", " + tc + ", " + std::to_string(offset));
    affine_[r] = {tc, offset};
    out.push_back(r);
  }
  set(op.result(), out);
}

void Emitter::emitBroadcast(Operation &op) {
  const Value *in = op.operand(0), *res = op.result();
  LinearLayout lr = layoutOf(res);
  if (!in->type.isTile()) {
    set(res, Regs(lr.numRegs(), get(in)[0]));
    return;
  }
  LinearLayout li = layoutOf(in);
  const Regs &src = get(in);
  Regs out;
  for (int i = 0; i < lr.numRegs(); ++i) {
    std::vector<int64_t> c = lr.regCoord(i);
    for (size_t d = 0; d < c.size(); ++d)
      if (in->type.shape[d] == 1) c[d] = 0;
    int idx = li.regIndexOf(c);
    if (idx < 0) internalError("emit-ptx", "broadcast operand layout does not match its result");
    out.push_back(src[idx]);
  }
  set(res, out);
}

bool Emitter::shapeOpInRegisters(Operation &op) {
  const Value *x = op.operand(0);
  const LinearLayout &lx = layoutOf(x);
  std::optional<LinearLayout> renamed = renamingLayout(op, lx);
  if (!renamed) return false;
  for (auto &r : op.results)
    if (!(layoutOf(r.get()) == *renamed)) return false;
  switch (op.code) {
    case OpCode::Split: {
      // Register r of a half is the operand's register r with bit b
      // inserted: clear for the first half, set for the second.
      const Regs &in = get(x);
      int b = lx.splitLast()->first, low = (1 << b) - 1;
      Regs first, second;
      for (int r = 0; r < renamed->numRegs(); ++r) {
        int i = (r & low) | ((r & ~low) << 1);
        first.push_back(in[i]);
        second.push_back(in[i | (1 << b)]);
      }
      set(op.result(0), first);
      set(op.result(1), second);
      return true;
    }
    case OpCode::Join: {
      const Value *y = op.operand(1);
      if (!(layoutOf(y) == lx)) return false;
      const Regs &a = get(x), &c = get(y);
      Regs out;
      for (size_t r = 0; r < a.size(); ++r) {
        out.push_back(a[r]);
        out.push_back(c[r]);
      }
      set(op.result(), out);
      return true;
    }
    default:  // reshape, permute: the same registers
      set(op.result(), get(x));
      return true;
  }
}

void Emitter::emitThroughShared(Operation &op) {
  const Value *x = op.operand(0);
  DType d = travelType(x->type);
  int64_t bytes = sharedElemBytes(d);
  LinearLayout lx = layoutOf(x);
  std::vector<int64_t> sx = rowMajorStrides(x->type.shape);
  int64_t numel = x->type.numel();
  auto scaled = [](std::vector<int64_t> s, int64_t k) {
    for (auto &v : s) v *= k;
    return s;
  };
  if (op.code == OpCode::ConvertLayout) {
    std::optional<Regs> r = convertPairsToQuads(x, layoutOf(op.result()));
    if (!r) r = convertThroughShared(get(x), lx, layoutOf(op.result()), d);
    set(op.result(), *r);
    return;
  }
  barrier();
  switch (op.code) {
    case OpCode::Reshape:
    case OpCode::Permute:
    case OpCode::Flip:
    case OpCode::Split:
    case OpCode::Gather:
      needShared(numel * bytes);
      storeTileShared(get(x), lx, d, sx, 0);
      break;
    case OpCode::Join: {
      needShared(2 * numel * bytes);
      storeTileShared(get(x), lx, d, scaled(sx, 2), 0);
      storeTileShared(get(op.operand(1)), layoutOf(op.operand(1)), d, scaled(sx, 2), bytes);
      break;
    }
    case OpCode::Cat: {
      const Value *y = op.operand(1);
      needShared((numel + y->type.numel()) * bytes);
      storeTileShared(get(x), lx, d, sx, 0);
      storeTileShared(get(y), layoutOf(y), d, rowMajorStrides(y->type.shape), numel * bytes);
      break;
    }
    default:
      internalError("emit-ptx", "not a shared-memory op");
  }
  barrier();
  const Value *res = op.result();
  LinearLayout lr = layoutOf(res);
  std::vector<int64_t> sr = rowMajorStrides(res->type.shape);
  switch (op.code) {
    case OpCode::Reshape:
    case OpCode::Join:
    case OpCode::Cat:
      set(res, loadTileShared(lr, d, sr, 0));
      return;
    case OpCode::Permute: {
      std::vector<int64_t> order = op.intsAttr("order");
      std::vector<int64_t> s(order.size());
      for (size_t i = 0; i < order.size(); ++i) s[i] = sx[order[i]];
      set(res, loadTileShared(lr, d, s, 0));
      return;
    }
    case OpCode::Flip: {
      int axis = static_cast<int>(op.intAttr("axis"));
      std::vector<int64_t> s = sx;
      int64_t n = x->type.shape[axis];
      s[axis] = -s[axis];
      set(res, loadTileShared(lr, d, s, 0, (n - 1) * sx[axis]));
      return;
    }
    case OpCode::Split: {
      set(op.result(0), loadTileShared(lr, d, scaled(sr, 2), 0));
      set(op.result(1), loadTileShared(layoutOf(op.result(1)), d, scaled(sr, 2), 0, 1));
      return;
    }
    case OpCode::Gather: {
      // out[c] = x[c with axis := index[c]]
      int axis = static_cast<int>(op.intAttr("axis"));
      std::vector<int64_t> s = sx;
      s[axis] = 0;
      std::string a = threadSharedAddress(lr, s, bytes);
      Regs idx = spread(op.operand(1), lr.numRegs());
      DType id = op.operand(1)->type.dtype;
      Regs out;
      for (int i = 0; i < lr.numRegs(); ++i) {
        std::string i32 = convert(idx[i], id, DType::I32);
        std::string t = reg(RegClass::B32);
        ins("mad.lo.s32 " + t + ", " + i32 + ", " + std::to_string(sx[axis] * bytes) + ", " + a);
        std::vector<int64_t> c = lr.regCoord(i);
        c[axis] = 0;
        out.push_back(ldShared(t, dotCoord(c, s) * bytes, d));
      }
      set(res, out);
      return;
    }
    default:
      internalError("emit-ptx", "not a shared-memory op");
  }
}

// Moves a value between lanes: `shfl.sync.bfly` on 32-bit pieces.
static std::string shuffleXor(Emitter &e, const std::string &v, DType d, int laneMask) {
  RegClass c = regClassOf(Type::scalar(d));
  std::string m = std::to_string(laneMask);
  auto shfl32 = [&](const std::string &x) {
    std::string t = e.reg(RegClass::B32);
    e.ins("shfl.sync.bfly.b32 " + t + ", " + x + ", " + m + ", 31, -1");
    return t;
  };
  switch (c) {
    case RegClass::B32:
      return shfl32(v);
    case RegClass::F32: {
      std::string b = e.reg(RegClass::B32), f = e.reg(RegClass::F32);
      e.ins("mov.b32 " + b + ", " + v);
      e.ins("mov.b32 " + f + ", " + shfl32(b));
      return f;
    }
    case RegClass::B16: {
      std::string w = e.reg(RegClass::B32), h = e.reg(RegClass::B16);
      e.ins("cvt.u32.u16 " + w + ", " + v);
      e.ins("cvt.u16.u32 " + h + ", " + shfl32(w));
      return h;
    }
    case RegClass::Pred: {
      std::string w = e.reg(RegClass::B32), p = e.reg(RegClass::Pred);
      e.ins("selp.b32 " + w + ", 1, 0, " + v);
      e.ins("setp.ne.u32 " + p + ", " + shfl32(w) + ", 0");
      return p;
    }
    case RegClass::B64:
    case RegClass::F64: {
      std::string lo = e.reg(RegClass::B32), hi = e.reg(RegClass::B32), r = e.reg(c);
      e.ins("mov.b64 {" + lo + ", " + hi + "}, " + v);
      e.ins("mov.b64 " + r + ", {" + shfl32(lo) + ", " + shfl32(hi) + "}");
      return r;
    }
  }
  return v;
}

void Emitter::emitReduce(Operation &op) {
  size_t nv = op.operands.size();
  int axis = static_cast<int>(op.intAttr("axis"));
  LinearLayout l = layoutOf(op.operand(0));
  LinearLayout ls = l.sliced(axis);
  const Block &region = *op.regions[0];
  std::vector<Regs> in;
  std::vector<DType> types;
  for (Value *v : op.operands) {
    in.push_back(get(v));
    types.push_back(travelType(v->type));
  }
  auto combine = [&](const std::vector<std::string> &a, const std::vector<std::string> &b) {
    std::vector<std::string> args = a;
    args.insert(args.end(), b.begin(), b.end());
    return inlineRegion(region, args);
  };
  // 1. Within each thread: registers that differ only along the axis.
  std::vector<std::vector<std::string>> acc(ls.numRegs());
  for (int r = 0; r < l.numRegs(); ++r) {
    std::vector<int64_t> c = l.regCoord(r);
    c.erase(c.begin() + axis);
    int g = ls.regIndexOf(c);
    std::vector<std::string> vals;
    for (size_t k = 0; k < nv; ++k) vals.push_back(in[k][r]);
    acc[g] = acc[g].empty() ? vals : combine(acc[g], vals);
  }
  // 2. Across lanes: each value with the one of the lane that differs in
  // lane bit `bit`.
  auto combineAcrossLaneBit = [&](int bit) {
    for (auto &a : acc) {
      std::vector<std::string> other;
      for (size_t k = 0; k < nv; ++k) other.push_back(shuffleXor(*this, a[k], types[k], 1 << bit));
      a = combine(a, other);
    }
  };
  for (size_t i = 0; i < l.lane.size(); ++i)
    if (l.lane[i].dim == axis) combineAcrossLaneBit(static_cast<int>(i));
  // 3. Across warps, through shared memory: slot (result element, warp along axis).
  std::vector<int> warpBits;
  for (size_t i = 0; i < l.warp.size(); ++i)
    if (l.warp[i].dim == axis) warpBits.push_back(static_cast<int>(i));
  if (!warpBits.empty()) {
    int64_t nw = int64_t{1} << warpBits.size();
    int64_t resultNumel = 1;
    for (int64_t s : ls.shape) resultNumel *= s;
    std::vector<int64_t> strides = rowMajorStrides(ls.shape);
    for (auto &s : strides) s *= nw;
    // The number whose bit j is bit bits[j] of `id` (the lane or warp index).
    auto bitsOf = [&](const std::string &id, const std::vector<int> &bits) {
      std::string x = reg(RegClass::B32);
      prologueIns("mov.u32 " + x + ", 0");
      for (size_t j = 0; j < bits.size(); ++j) {
        std::string t = reg(RegClass::B32);
        prologueIns("bfe.u32 " + t + ", " + id + ", " + std::to_string(bits[j]) + ", 1");
        prologueIns("shl.b32 " + t + ", " + t + ", " + std::to_string(j));
        prologueIns("or.b32 " + x + ", " + x + ", " + t);
      }
      return x;
    };
    std::string wa = bitsOf(warp(), warpBits);  // this warp's index along the axis
    std::vector<int64_t> bases;
    int64_t total = 0;
    for (size_t k = 0; k < nv; ++k) {
      bases.push_back(total);
      total += resultNumel * nw * 8;
    }
    needShared(total);
    barrier();
    for (size_t k = 0; k < nv; ++k) {
      int64_t bytes = sharedElemBytes(types[k]);
      std::string a = threadSharedAddress(ls, strides, bytes);
      std::string aw = reg(RegClass::B32);
      ins("mad.lo.s32 " + aw + ", " + wa + ", " + std::to_string(bytes) + ", " + a);
      for (int g = 0; g < ls.numRegs(); ++g)
        stShared(aw, bases[k] + dotCoord(ls.regCoord(g), strides) * bytes, types[k], acc[g][k]);
    }
    barrier();
    // Lanes along the axis hold equal values after step 2: with at least as
    // many of them as warps, lane f of each group of nw such lanes reads
    // warp f's partial and the group combines them by shuffles (one shared
    // load a result element, not nw: softmax's row over 16 warps held 16
    // partials a thread in registers, 40 registers against 32, one block
    // per SM fewer).
    std::vector<int> freeLanes;
    for (size_t i = 0; i < l.lane.size(); ++i)
      if (l.lane[i].dim == axis && freeLanes.size() < warpBits.size())
        freeLanes.push_back(static_cast<int>(i));
    if (freeLanes.size() == warpBits.size()) {
      std::string f = bitsOf(lane(), freeLanes);
      for (size_t k = 0; k < nv; ++k) {
        int64_t bytes = sharedElemBytes(types[k]);
        std::string a = threadSharedAddress(ls, strides, bytes);
        std::string af = reg(RegClass::B32);
        ins("mad.lo.s32 " + af + ", " + f + ", " + std::to_string(bytes) + ", " + a);
        for (int g = 0; g < ls.numRegs(); ++g)
          acc[g][k] = ldShared(af, bases[k] + dotCoord(ls.regCoord(g), strides) * bytes, types[k]);
      }
      for (int bit : freeLanes) combineAcrossLaneBit(bit);
    } else {
      for (int g = 0; g < ls.numRegs(); ++g) {
        std::vector<std::string> r;
        for (int64_t w = 0; w < nw; ++w) {
          std::vector<std::string> vals;
          for (size_t k = 0; k < nv; ++k) {
            int64_t bytes = sharedElemBytes(types[k]);
            std::string a = threadSharedAddress(ls, strides, bytes);
            vals.push_back(
                ldShared(a, bases[k] + (dotCoord(ls.regCoord(g), strides) + w) * bytes, types[k]));
          }
          r = r.empty() ? vals : combine(r, vals);
        }
        acc[g] = r;
      }
    }
  }
  for (size_t k = 0; k < nv; ++k) {
    Regs out;
    for (auto &a : acc) out.push_back(a[k]);
    set(op.result(k), op.result(k)->type.isTile() ? out : Regs{out[0]});
  }
}

void Emitter::emitScan(Operation &op) {
  // Each row along the axis is scanned serially by one thread in shared
  // memory; then every thread reads its elements back.
  size_t nv = op.operands.size();
  int axis = static_cast<int>(op.intAttr("axis"));
  bool reverse = op.intAttr("reverse") != 0;
  const Value *x = op.operand(0);
  int rank = x->type.rank();
  if (rank > 2) unsupported(op, "a scan of a tile of rank above 2");
  LinearLayout l = layoutOf(x);
  std::vector<int64_t> strides = rowMajorStrides(x->type.shape);
  int64_t numel = x->type.numel(), n = x->type.shape[axis];
  int64_t rows = numel / n;
  int64_t step = strides[axis];
  std::vector<DType> types;
  std::vector<int64_t> bases;
  int64_t total = 0;
  for (Value *v : op.operands) {
    types.push_back(travelType(v->type));
    bases.push_back(total);
    total += numel * 8;
  }
  needShared(total);
  barrier();
  for (size_t k = 0; k < nv; ++k)
    storeTileShared(get(op.operand(k)), l, types[k], strides, bases[k]);
  barrier();
  // for (row = tid; row < rows; row += threads)
  std::string row = reg(RegClass::B32), p = reg(RegClass::Pred);
  std::string head = newLabel(), done = newLabel();
  ins("mov.u32 " + row + ", " + tid());
  label(head);
  ins("setp.ge.u32 " + p + ", " + row + ", " + std::to_string(rows));
  ins("@" + p + " bra " + done);
  // The row's first element: for axis = last dim, row * n; for axis 0 of a 2-D tile, row.
  std::string first = reg(RegClass::B32);
  if (axis == rank - 1)
    ins("mul.lo.u32 " + first + ", " + row + ", " + std::to_string(n));
  else
    ins("mov.u32 " + first + ", " + row);
  std::vector<std::string> addrs;
  for (size_t k = 0; k < nv; ++k) {
    std::string a = reg(RegClass::B32);
    ins("mad.lo.s32 " + a + ", " + first + ", " + std::to_string(sharedElemBytes(types[k])) + ", " +
        smemBase());
    addrs.push_back(a);
  }
  std::vector<std::string> acc;
  int64_t firstIdx = reverse ? n - 1 : 0;
  for (size_t k = 0; k < nv; ++k)
    acc.push_back(
        ldShared(addrs[k], bases[k] + firstIdx * step * sharedElemBytes(types[k]), types[k]));
  for (int64_t j = 1; j < n; ++j) {
    int64_t idx = reverse ? n - 1 - j : j;
    std::vector<std::string> vals;
    for (size_t k = 0; k < nv; ++k)
      vals.push_back(
          ldShared(addrs[k], bases[k] + idx * step * sharedElemBytes(types[k]), types[k]));
    std::vector<std::string> args = acc;
    args.insert(args.end(), vals.begin(), vals.end());
    acc = inlineRegion(*op.regions[0], args);
    for (size_t k = 0; k < nv; ++k)
      stShared(addrs[k], bases[k] + idx * step * sharedElemBytes(types[k]), types[k], acc[k]);
  }
  ins("add.u32 " + row + ", " + row + ", " + std::to_string(numThreads()));
  ins("bra " + head);
  label(done);
  barrier();
  for (size_t k = 0; k < nv; ++k) set(op.result(k), loadTileShared(l, types[k], strides, bases[k]));
}

std::optional<std::string> Emitter::useAccPredicate(const Operation &dot) {
  if (dot.operands.size() != 4) return std::nullopt;
  return get(dot.operand(3))[0];
}

void Emitter::zeroUnlessUseAcc(const Operation &dot, const Regs &acc, DType accType) {
  auto p = useAccPredicate(dot);
  if (!p) return;
  std::string zero = accType == DType::F32   ? "0f00000000"
                     : accType == DType::F64 ? "0d0000000000000000"
                                             : "0";
  const std::string mov = std::string("mov.") + movType(regClassOf(Type::scalar(accType))) + " ";
  for (const std::string &r : acc) ins("@!" + *p + " " + mov + r + ", " + zero);
}

void Emitter::emitDot(Operation &op) {
  const Value *a = op.operand(0), *b = op.operand(1), *c = op.operand(2);
  const Value *res = op.result();
  // A batched dot (rank 3) is `batch` independent M x K by K x N products,
  // on tensor cores where mma.sync takes them, else on FMAs.
  int rank = a->type.rank(), md = rank - 2;
  int64_t batch = rank == 3 ? a->type.shape[0] : 1;
  int64_t M = a->type.shape[md], K = a->type.shape[md + 1], N = b->type.shape[md + 1];
  if (auto p = selectWgmma(op, opts_.numWarps, opts_.target.sm, opts_.target.archSpecific))
    return emitWgmmaDot(op, *p);
  if (auto mi = selectMma(op, opts_.target.sm)) return emitMmaDot(op, *mi);
  if (a->type.isMemDesc() || b->type.isMemDesc())
    internalError("emit-ptx", "a dot reads shared memory but does not run on tensor cores");
  DType da = travelType(a->type), db = travelType(b->type), dr = res->type.dtype;
  int64_t ba = sharedElemBytes(da), bb = sharedElemBytes(db);
  // Operands to shared memory, row-major.
  int64_t bOffset = batch * M * K * ba;
  needShared(bOffset + batch * K * N * bb);
  barrier();
  storeTileShared(get(a), layoutOf(a), da, rowMajorStrides(a->type.shape), 0);
  storeTileShared(get(b), layoutOf(b), db, rowMajorStrides(b->type.shape), bOffset);
  barrier();
  LinearLayout l = layoutOf(res);
  bool intAcc = isInt(dr);
  bool f64 = dr == DType::F64;
  DType accT = intAcc ? (bitWidth(dr) == 64 ? DType::I64 : DType::I32)
               : f64  ? DType::F64
                      : DType::F32;
  // Accumulators in the compute type.
  Regs acc;
  Regs cin = spread(c, l.numRegs());
  for (int r = 0; r < l.numRegs(); ++r) {
    std::string v = convert(cin[r], c->type.dtype, accT);
    std::string t = reg(regClassOf(Type::scalar(accT)));
    ins(std::string("mov.") + movType(regClassOf(Type::scalar(accT))) + " " + t + ", " + v);
    acc.push_back(t);
  }
  zeroUnlessUseAcc(op, acc, accT);
  // Byte offsets, at k = 0, of the A row and B column that a result
  // element (batch, m, n) reads: the distinct ones of this thread's
  // registers are loaded once per k.
  auto rowOf = [&](const std::vector<int64_t> &co) {
    return ((rank == 3 ? co[0] * M : 0) + co[md]) * K * ba;
  };
  auto colOf = [&](const std::vector<int64_t> &co) {
    return (rank == 3 ? co[0] * K * N : 0) * bb + co[md + 1] * bb;
  };
  std::set<int64_t> rows, cols;
  for (int r = 0; r < l.numRegs(); ++r) {
    auto co = l.regCoord(r);
    rows.insert(rowOf(co));
    cols.insert(colOf(co));
  }
  // The thread's own part: its coordinates' offsets, added once.
  std::string aBase = reg(RegClass::B32), bBase = reg(RegClass::B32);
  prologueIns("mad.lo.s32 " + aBase + ", " + threadCoord(l, md) + ", " + std::to_string(K * ba) +
              ", " + smemBase());
  std::string tb = reg(RegClass::B32);
  prologueIns("mad.lo.s32 " + tb + ", " + threadCoord(l, md + 1) + ", " + std::to_string(bb) +
              ", " + smemBase());
  prologueIns("add.s32 " + bBase + ", " + tb + ", " + std::to_string(bOffset));
  if (rank == 3) {
    std::string t = threadCoord(l, 0);
    prologueIns("mad.lo.s32 " + aBase + ", " + t + ", " + std::to_string(M * K * ba) + ", " +
                aBase);
    prologueIns("mad.lo.s32 " + bBase + ", " + t + ", " + std::to_string(K * N * bb) + ", " +
                bBase);
  }
  // for k in [0, K): one column of A and one row of B per iteration.
  std::string k = reg(RegClass::B32), p = reg(RegClass::Pred), pa = reg(RegClass::B32),
              pb = reg(RegClass::B32);
  std::string head = newLabel(), done = newLabel();
  ins("mov.u32 " + k + ", 0");
  ins("mov.u32 " + pa + ", " + aBase);
  ins("mov.u32 " + pb + ", " + bBase);
  label(head);
  ins("setp.ge.u32 " + p + ", " + k + ", " + std::to_string(K));
  ins("@" + p + " bra " + done);
  std::map<int64_t, std::string> av, bv;
  for (int64_t m : rows) av[m] = convert(ldShared(pa, m, da), da, accT);
  for (int64_t n : cols) bv[n] = convert(ldShared(pb, n, db), db, accT);
  for (int r = 0; r < l.numRegs(); ++r) {
    auto co = l.regCoord(r);
    const std::string &x = av[rowOf(co)], &y = bv[colOf(co)];
    if (intAcc)
      ins(std::string("mad.lo.") + (accT == DType::I64 ? "s64 " : "s32 ") + acc[r] + ", " + x +
          ", " + y + ", " + acc[r]);
    else
      ins(std::string("fma.rn.") + (f64 ? "f64 " : "f32 ") + acc[r] + ", " + x + ", " + y + ", " +
          acc[r]);
  }
  ins("add.u32 " + k + ", " + k + ", 1");
  ins("add.u32 " + pa + ", " + pa + ", " + std::to_string(ba));
  ins("add.u32 " + pb + ", " + pb + ", " + std::to_string(N * bb));
  ins("bra " + head);
  label(done);
  Regs out;
  for (int r = 0; r < l.numRegs(); ++r) out.push_back(convert(acc[r], accT, dr));
  set(res, out);
}

void Emitter::emitPhilox(Operation &op) {
  const Value *seed = op.operand(0), *off = op.operand(1);
  bool tile = op.result(0)->type.isTile();
  size_t n = tile ? layoutOf(op.result(0)).numRegs() : 1;
  Regs s = spread(seed, n), o = spread(off, n);
  int rounds = static_cast<int>(op.intAttr("rounds", 10));
  auto split = [&](const std::string &v, DType d, std::string &lo, std::string &hi) {
    if (bitWidth(d) == 64) {
      lo = reg(RegClass::B32);
      hi = reg(RegClass::B32);
      ins("mov.b64 {" + lo + ", " + hi + "}, " + v);
    } else {
      lo = v;
      hi = reg(RegClass::B32);
      ins("mov.u32 " + hi + ", 0");
    }
  };
  std::vector<Regs> out(4);
  for (size_t i = 0; i < n; ++i) {
    std::string k0, k1, c0, c1;
    split(s[i], seed->type.dtype, k0, k1);
    split(o[i], off->type.dtype, c0, c1);
    std::string c2 = reg(RegClass::B32), c3 = reg(RegClass::B32);
    ins("mov.u32 " + c2 + ", 0");
    ins("mov.u32 " + c3 + ", 0");
    std::string ka = reg(RegClass::B32), kb = reg(RegClass::B32);
    ins("mov.u32 " + ka + ", " + k0);
    ins("mov.u32 " + kb + ", " + k1);
    std::string c[4] = {c0, c1, c2, c3};
    for (int r = 0; r < rounds; ++r) {
      std::string hi0 = reg(RegClass::B32), lo0 = reg(RegClass::B32), hi1 = reg(RegClass::B32),
                  lo1 = reg(RegClass::B32), n0 = reg(RegClass::B32), n2 = reg(RegClass::B32);
      ins("mul.hi.u32 " + hi0 + ", " + c[0] + ", " + std::to_string(num::kPhilox32RoundA));
      ins("mul.lo.u32 " + lo0 + ", " + c[0] + ", " + std::to_string(num::kPhilox32RoundA));
      ins("mul.hi.u32 " + hi1 + ", " + c[2] + ", " + std::to_string(num::kPhilox32RoundB));
      ins("mul.lo.u32 " + lo1 + ", " + c[2] + ", " + std::to_string(num::kPhilox32RoundB));
      ins("xor.b32 " + n0 + ", " + hi1 + ", " + c[1]);
      ins("xor.b32 " + n0 + ", " + n0 + ", " + ka);
      ins("xor.b32 " + n2 + ", " + hi0 + ", " + c[3]);
      ins("xor.b32 " + n2 + ", " + n2 + ", " + kb);
      c[0] = n0;
      c[1] = lo1;
      c[2] = n2;
      c[3] = lo0;
      if (r + 1 < rounds) {
        std::string na = reg(RegClass::B32), nb = reg(RegClass::B32);
        ins("add.u32 " + na + ", " + ka + ", " + std::to_string(num::kPhilox32KeyA));
        ins("add.u32 " + nb + ", " + kb + ", " + std::to_string(num::kPhilox32KeyB));
        ka = na;
        kb = nb;
      }
    }
    for (int j = 0; j < 4; ++j) out[j].push_back(c[j]);
  }
  for (int j = 0; j < 4; ++j) set(op.result(j), out[j]);
}

// The region's scalar code once per `pack` of a thread's elements, on their
// registers (control flow in the region becomes branches around it); a
// last, partial group repeats its first element.
void Emitter::emitMapElementwise(Operation &op) {
  const Value *res = op.result(0);
  size_t n = res->type.isTile() ? layoutOf(res).numRegs() : 1;
  size_t pack = static_cast<size_t>(op.intAttr("pack", 1));
  std::vector<Regs> in;
  for (Value *v : op.operands) in.push_back(spread(v, n));
  std::vector<Regs> out(op.results.size());
  for (size_t base = 0; base < n; base += pack) {
    std::vector<std::string> args;
    for (const Regs &r : in)
      for (size_t j = 0; j < pack; ++j) args.push_back(r[base + j < n ? base + j : base]);
    std::vector<std::string> ys = inlineRegion(*op.regions[0], args);
    for (size_t r = 0; r < out.size(); ++r)
      for (size_t j = 0; j < pack && base + j < n; ++j) out[r].push_back(ys[r * pack + j]);
  }
  for (size_t r = 0; r < out.size(); ++r) set(op.result(r), out[r]);
}

}  // namespace tessera::ptx
