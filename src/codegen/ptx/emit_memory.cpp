// Global memory: loads, stores and atomics.
//
// A tile access is split into vectors: runs of registers that are
// consecutive elements of the layout's fastest dim, as long as axis info
// proves the addresses contiguous and aligned to the vector's size and the
// mask constant across it (16 bytes per thread at most, so a warp moves
// whole 128-byte lines). Masked-off lanes of a load get `other` (0 without
// one). Stores and atomics are issued only by the thread that owns an
// element, never by its replicas. A scalar atomic is issued by thread 0 and
// its result shared with the program through shared memory.
#include <algorithm>
#include <bit>
#include <functional>

#include "codegen/ptx/emitter.h"
#include "codegen/ptx/mask_prefix.h"
#include "support/diagnostics.h"

namespace tessera::ptx {
namespace {

// "atom.global.gpu.acq_rel.": the state space, scope and ordering in the
// order Triton's PTX writes them (programs and tests look for that text);
// its compare-and-swap leaves out the default scope, .gpu.
std::string atomHead(const std::string &sem, const std::string &scope, bool cas = false) {
  if (cas && scope == "gpu") return "atom.global." + sem + ".";
  return "atom.global." + scope + "." + sem + ".";
}

// Bytes an element takes in memory.
int memBytes(DType d) {
  return byteSize(d);
}

std::string cacheSuffix(const Operation &op, bool load) {
  std::string c = op.strAttr("cache");
  if (!c.empty() && c[0] != '.') c = "." + c;
  static const std::vector<std::string> loadOk = {".ca", ".cg", ".cs", ".lu", ".cv"};
  static const std::vector<std::string> storeOk = {".wb", ".cg", ".cs", ".wt"};
  const auto &allowed = load ? loadOk : storeOk;
  bool ok = std::find(allowed.begin(), allowed.end(), c) != allowed.end();
  if (ok) return c;
  std::string e = op.strAttr("evict");
  if (e == "evict_first" || e == "evict_last") return ".L1::" + e;
  return {};
}

}  // namespace

std::string Emitter::firstThreadPred() {
  std::string key = "first|" + std::to_string(leadWarp());
  auto it = cached_.find(key);
  if (it != cached_.end()) return it->second;
  std::string p = reg(RegClass::Pred);
  if (opts_.target.sm < 90 || warpSpecialized_) {
    prologueIns("setp.eq.u32 " + p + ", " + tid_ + ", " + std::to_string(32 * leadWarp()));
    return cached_[key] = p;
  }
  // The lane elect.sync picks in the lead warp: lane 0, as the whole warp
  // runs the prologue, but ptxas then knows that one thread of a uniform
  // warp holds it, and issues a tensor copy under it as one instruction
  // (under tid == 0 it wrapped each in a loop over the active threads' map
  // addresses: 15 loops in the example matmul's kernel). Not in a
  // warp-specialized kernel: there the producer warp copies, and on an H200
  // attention measured 2-3% slower with elect.sync than without (while the
  // kernels without a producer warp gained up to 10%).
  std::string warp = reg(RegClass::B32), inWarp = reg(RegClass::Pred), lane = reg(RegClass::B32),
              elected = reg(RegClass::Pred);
  prologueIns("shr.u32 " + warp + ", " + tid_ + ", 5");
  prologueIns("setp.eq.u32 " + inWarp + ", " + warp + ", " + std::to_string(leadWarp()));
  prologueIns("elect.sync " + lane + "|" + elected + ", -1");
  prologueIns("and.pred " + p + ", " + inWarp + ", " + elected);
  return cached_[key] = p;
}

int accessVectorWidth(Emitter &e, const Value *ptr, const Value *mask, const LinearLayout &l) {
  int rank = ptr->type.rank();
  if (l.reg.empty()) return 1;
  int dim = l.reg[0].dim;
  int64_t vec = l.contiguousRegs(dim);
  AxisInfo pi = e.axis.get(ptr);
  int64_t bytes = memBytes(ptr->type.dtype);
  vec = std::min(vec, pi.contiguity[dim]);
  vec = std::min(vec, std::max<int64_t>(1, pi.divisibility[dim] / bytes));
  vec = std::min<int64_t>(vec, std::max<int64_t>(1, 16 / bytes));
  if (mask && mask->type.isTile()) vec = std::min(vec, e.axis.get(mask).constancy[dim]);
  (void)rank;
  return static_cast<int>(std::bit_floor(static_cast<uint64_t>(std::max<int64_t>(1, vec))));
}

// Splits `w` (a b32 word) into `n` elements of `d` (8 or 16 bits).
static Regs unpackWord(Emitter &e, const std::string &w, DType d, int n) {
  Regs out;
  int bits = 32 / n;
  for (int i = 0; i < n; ++i) {
    RegClass c = regClassOf(Type::scalar(d));
    if (c == RegClass::B16) {
      std::string t = e.reg(RegClass::B32), h = e.reg(RegClass::B16);
      e.ins("bfe.u32 " + t + ", " + w + ", " + std::to_string(i * bits) + ", " +
            std::to_string(bits));
      e.ins("cvt.u16.u32 " + h + ", " + t);
      out.push_back(h);
    } else if (c == RegClass::Pred) {
      std::string t = e.reg(RegClass::B32), p = e.reg(RegClass::Pred);
      e.ins("bfe.u32 " + t + ", " + w + ", " + std::to_string(i * bits) + ", " +
            std::to_string(bits));
      e.ins("setp.ne.u32 " + p + ", " + t + ", 0");
      out.push_back(p);
    } else {
      std::string t = e.reg(RegClass::B32);
      e.ins(std::string(isSigned(d) ? "bfe.s32 " : "bfe.u32 ") + t + ", " + w + ", " +
            std::to_string(i * bits) + ", " + std::to_string(bits));
      out.push_back(t);
    }
  }
  return out;
}

// Packs `n` elements of `d` (8 or 16 bits each) into one b32 word.
static std::string packWord(Emitter &e, const std::vector<std::string> &vals, DType d) {
  int n = static_cast<int>(vals.size());
  if (n == 2 && regClassOf(Type::scalar(d)) == RegClass::B16) return e.packHalves(vals[0], vals[1]);
  int bits = 32 / n;
  std::string w = e.reg(RegClass::B32);
  e.ins("mov.b32 " + w + ", 0");
  for (int i = 0; i < n; ++i) {
    std::string v = vals[i];
    RegClass c = regClassOf(Type::scalar(d));
    std::string t = e.reg(RegClass::B32);
    if (c == RegClass::B16)
      e.ins("cvt.u32.u16 " + t + ", " + v);
    else if (c == RegClass::Pred)
      e.ins("selp.b32 " + t + ", 1, 0, " + v);
    else
      t = v;
    e.ins("bfi.b32 " + w + ", " + t + ", " + w + ", " + std::to_string(i * bits) + ", " +
          std::to_string(bits));
  }
  return w;
}

std::string scalarMemType(DType d) {
  switch (regClassOf(Type::scalar(d))) {
    case RegClass::Pred:
      return "u8";
    case RegClass::B16:
      return memBytes(d) == 1 ? "u8" : "b16";
    case RegClass::B32:
      if (memBytes(d) == 1) return isSigned(d) ? "s8" : "u8";
      if (memBytes(d) == 2) return isSigned(d) ? "s16" : "u16";
      return "b32";
    case RegClass::B64:
      return "b64";
    case RegClass::F32:
      return "f32";
    case RegClass::F64:
      return "f64";
  }
  return "b32";
}

// A mask that ends each run of the contiguous dim early (a bound read at
// run time: a descriptor's shape made in the kernel, an N without
// divisibility) cuts accesses to single elements. Where it is a prefix mask
// over runs at least as long as the unmasked vector, a vector's last element
// being in bounds means all of it is, and then the vector moves whole: the
// width of those whole vectors, or `vec` where the mask is not of that kind.
static int wholeVectorWidth(Emitter &e, const Value *ptr, const Value *mask, const LinearLayout &l,
                            int vec) {
  if (!mask || !mask->type.isTile()) return vec;
  int whole = accessVectorWidth(e, ptr, nullptr, l);
  if (whole <= vec) return vec;
  auto prefix = prefixMask(e.axis, const_cast<Value *>(mask), l.reg[0].dim);
  return prefix && prefix->run >= whole ? whole : vec;
}

// `address` (a register, or a register plus an offset) `bytes` further on.
static std::string offsetAddress(const std::string &address, int64_t bytes) {
  if (bytes == 0) return address;
  size_t plus = address.find('+');
  if (plus == std::string::npos) return address + "+" + std::to_string(bytes);
  return address.substr(0, plus) + "+" +
         std::to_string(std::stoll(address.substr(plus + 1)) + bytes);
}

// The accesses of a load or store of `masks.size()` elements (laid out as
// `l`, null for a scalar), `vec` at a time under their masks; or, where
// wholeVectorWidth allows wider vectors, per such vector: whole under its
// last element's mask, then its elements `vec` at a time under their masks
// less that one (straight-line code: a branch around them made ptxas save
// and restore predicates across it, more instructions than it skipped).
// A whole vector's elements are contiguous, so those past its first are
// addressed from it (`ptrs` becomes `[a+2]`, `[a+4]`, ...): their own
// address registers go unused and ptxas drops their arithmetic, which was
// most of a ragged epilogue's instructions. `access(first, width, masks,
// count)` reads masks[i] and ptrs[i] for each width-wide piece i of
// [first, first + count).
using RunAccess = std::function<void(size_t, int, const Regs &, size_t)>;
static void accessVectors(Emitter &e, const Value *ptr, const Value *mask, const LinearLayout *l,
                          const Regs &masks, Regs &ptrs, int bytes, int vec,
                          const RunAccess &access) {
  int whole = l ? wholeVectorWidth(e, ptr, mask, *l, vec) : vec;
  if (whole <= vec) {
    access(0, vec, masks, masks.size());
    return;
  }
  Regs one(masks.size()), each(masks.size());  // each vector fills only its own slots
  for (size_t i = 0; i < masks.size(); i += whole) {
    const std::string &last = masks[i + whole - 1];
    one[i] = last;
    // (The last `vec` elements share the whole vector's mask: never alone.)
    for (int j = 0; j < whole - vec; ++j) {
      each[i + j] = e.reg(RegClass::Pred);
      e.ins("and.pred " + each[i + j] + ", " + masks[i + j] + ", !" + last);
    }
    access(i, whole, one, whole);
    for (int j = 1; j < whole - vec; ++j) ptrs[i + j] = offsetAddress(ptrs[i], int64_t{j} * bytes);
    access(i, vec, each, whole - vec);
  }
}

void Emitter::emitLoad(Operation &op) {
  const Value *ptr = op.operand(0);
  const Value *mask = op.operands.size() > 1 ? op.operand(1) : nullptr;
  const Value *other = op.operands.size() > 2 ? op.operand(2) : nullptr;
  const Value *res = op.result();
  DType d = res->type.dtype;
  RegClass rc = regClassOf(res->type.element());
  std::string space = op.intAttr("volatile") ? "ld.volatile.global" : "ld.global";
  std::string suffix = op.intAttr("volatile") ? "" : cacheSuffix(op, true);
  size_t n = res->type.isTile() ? layoutOf(res).numRegs() : 1;
  Regs ptrs = spread(ptr, n);
  Regs masks = mask ? spread(mask, n) : Regs(n, "");
  Regs others = other ? spread(other, n) : Regs();
  int vec = res->type.isTile() ? accessVectorWidth(*this, ptr, mask, layoutOf(res)) : 1;
  int bytes = memBytes(d);
  // Each element's register: what masked-off lanes keep (`other`, or 0)
  // until a load under its mask replaces it. A whole vector and then its
  // elements one by one may load into the same element.
  Regs out(n);
  auto loadRuns = [&](size_t first, int width, const Regs &runMasks, size_t count) {
    for (size_t i = first; i < first + count; i += width) {
      Regs dst;
      for (int j = 0; j < width; ++j) {
        std::string &r = out[i + j];
        if (r.empty()) {
          r = reg(rc);
          std::string init = other ? others[i + j] : "";
          if (rc == RegClass::Pred && !other)
            ins("setp.ne.u32 " + r + ", " + lane() + ", " + lane());
          if (rc == RegClass::Pred && other) ins("mov.pred " + r + ", " + init);
          if (rc != RegClass::Pred)
            ins(std::string("mov.") + movType(rc) + " " + r + ", " +
                (other ? init
                       : (rc == RegClass::F32   ? "0f00000000"
                          : rc == RegClass::F64 ? "0d0000000000000000"
                                                : "0")));
        }
        dst.push_back(r);
      }
      std::string pred = runMasks[i].empty() ? "" : "@" + runMasks[i] + " ";
      int total = width * bytes;
      if (total >= 4 && bytes >= 4) {
        // Bit types for every width, as Triton writes them (ld.global.v4.b32):
        // they take float registers as well as integer ones.
        std::string t = bytes == 8 ? "b64" : "b32";
        std::string list;
        for (int j = 0; j < width; ++j) list += (j ? ", " : "") + dst[j];
        if (width == 1)
          ins(pred + space + suffix + "." + t + " " + dst[0] + ", [" + ptrs[i] + "]");
        else
          ins(pred + space + suffix + ".v" + std::to_string(width) + "." + t + " {" + list +
              "}, [" + ptrs[i] + "]");
      } else if (total >= 4) {
        // Sub-word elements: whole b32 words, then split.
        int words = total / 4, per = width / words;
        Regs w;
        for (int k = 0; k < words; ++k) {
          // Masked-off words keep the elements' values: pack them.
          w.push_back(packWord(*this, Regs(dst.begin() + k * per, dst.begin() + (k + 1) * per), d));
        }
        std::string list;
        for (int k = 0; k < words; ++k) list += (k ? ", " : "") + w[k];
        if (words == 1)
          ins(pred + space + suffix + ".b32 " + w[0] + ", [" + ptrs[i] + "]");
        else
          ins(pred + space + suffix + ".v" + std::to_string(words) + ".b32 {" + list + "}, [" +
              ptrs[i] + "]");
        for (int k = 0; k < words; ++k) {
          Regs parts = unpackWord(*this, w[k], d, per);
          for (int j = 0; j < per; ++j) out[i + k * per + j] = parts[j];
        }
      } else {
        for (int j = 0; j < width; ++j) {
          std::string mt = scalarMemType(d);
          // A whole vector gives only its first element a mask (accessVectors):
          // the others load under that one, never unconditionally.
          const std::string &m = runMasks[i + j].empty() ? runMasks[i] : runMasks[i + j];
          std::string p = m.empty() ? "" : "@" + m + " ";
          if (rc == RegClass::Pred) {
            std::string t = reg(RegClass::B16), q = reg(RegClass::Pred);
            ins("selp.u16 " + t + ", 1, 0, " + dst[j]);
            ins(p + space + suffix + ".u8 " + t + ", [" + ptrs[i + j] + "]");
            ins("setp.ne.u16 " + q + ", " + t + ", 0");
            out[i + j] = q;
          } else {
            ins(p + space + suffix + "." + mt + " " + dst[j] + ", [" + ptrs[i + j] + "]");
          }
        }
      }
    }
  };
  accessVectors(*this, ptr, mask, res->type.isTile() ? &layoutOf(res) : nullptr, masks, ptrs, bytes,
                vec, loadRuns);
  set(res, out);
}

void Emitter::emitStore(Operation &op) {
  const Value *ptr = op.operand(0), *val = op.operand(1);
  const Value *mask = op.operands.size() > 2 ? op.operand(2) : nullptr;
  bool tile = ptr->type.isTile();
  DType d = ptr->type.dtype;
  RegClass rc = regClassOf(Type::scalar(d));
  std::string suffix = cacheSuffix(op, false);
  size_t n = tile ? layoutOf(ptr).numRegs() : 1;
  Regs ptrs = spread(ptr, n), vals = spread(val, n);
  Regs masks = mask ? spread(mask, n) : Regs(n, "");
  std::string own = tile ? ownerPred(layoutOf(ptr)) : firstThreadPred();
  int vec = tile ? accessVectorWidth(*this, ptr, mask, layoutOf(ptr)) : 1;
  int bytes = memBytes(d);
  auto storeRuns = [&](size_t first, int width, const Regs &runMasks, size_t count) {
    for (size_t i = first; i < first + count; i += width) {
      std::string p;
      if (!runMasks[i].empty() && !own.empty()) {
        p = reg(RegClass::Pred);
        ins("and.pred " + p + ", " + runMasks[i] + ", " + own);
      } else {
        p = !runMasks[i].empty() ? runMasks[i] : own;
      }
      std::string pred = p.empty() ? "" : "@" + p + " ";
      int total = width * bytes;
      if (total >= 4 && bytes >= 4) {
        std::string t = bytes == 8 ? "b64" : "b32";
        std::string list;
        for (int j = 0; j < width; ++j) list += (j ? ", " : "") + vals[i + j];
        if (width == 1)
          ins(pred + "st.global" + suffix + "." + t + " [" + ptrs[i] + "], " + vals[i]);
        else
          ins(pred + "st.global" + suffix + ".v" + std::to_string(width) + "." + t + " [" +
              ptrs[i] + "], {" + list + "}");
      } else if (total >= 4) {
        int words = total / 4, per = width / words;
        Regs w;
        for (int k = 0; k < words; ++k)
          w.push_back(packWord(
              *this, Regs(vals.begin() + i + k * per, vals.begin() + i + (k + 1) * per), d));
        std::string list;
        for (int k = 0; k < words; ++k) list += (k ? ", " : "") + w[k];
        if (words == 1)
          ins(pred + "st.global" + suffix + ".b32 [" + ptrs[i] + "], " + w[0]);
        else
          ins(pred + "st.global" + suffix + ".v" + std::to_string(words) + ".b32 [" + ptrs[i] +
              "], {" + list + "}");
      } else {
        for (int j = 0; j < width; ++j) {
          std::string v = vals[i + j];
          std::string mt = scalarMemType(d);
          std::string pj = p;
          if (j > 0 && !runMasks[i + j].empty()) {
            pj = reg(RegClass::Pred);
            if (own.empty())
              pj = runMasks[i + j];
            else
              ins("and.pred " + pj + ", " + runMasks[i + j] + ", " + own);
          }
          std::string pr = pj.empty() ? "" : "@" + pj + " ";
          if (rc == RegClass::Pred) {
            std::string t = reg(RegClass::B16);
            ins("selp.u16 " + t + ", 1, 0, " + v);
            v = t;
            mt = "u8";
          } else if (rc == RegClass::B16 && bytes == 1) {
            mt = "b8";
            std::string t = reg(RegClass::B32);
            ins("cvt.u32.u16 " + t + ", " + v);
            v = t;
            mt = "u8";
          } else if (rc == RegClass::B32 && bytes < 4) {
            mt = bytes == 1 ? "u8" : "u16";
          }
          ins(pr + "st.global" + suffix + "." + mt + " [" + ptrs[i + j] + "], " + v);
        }
      }
    }
  };
  accessVectors(*this, ptr, mask, tile ? &layoutOf(ptr) : nullptr, masks, ptrs, bytes, vec,
                storeRuns);
}

void Emitter::emitAtomic(Operation &op) {
  bool cas = op.code == OpCode::AtomicCas;
  const Value *ptr = op.operand(0);
  const Value *res = op.result();
  DType d = res->type.dtype;
  bool tile = ptr->type.isTile();
  size_t n = tile ? layoutOf(ptr).numRegs() : 1;
  Regs ptrs = spread(ptr, n);
  Regs a = spread(op.operand(1), n);
  Regs b = cas ? spread(op.operand(2), n) : Regs();
  const Value *mask = !cas && op.operands.size() > 2 ? op.operand(2) : nullptr;
  Regs masks = mask ? spread(mask, n) : Regs(n, "");
  std::string own = tile ? ownerPred(layoutOf(ptr)) : firstThreadPred();

  std::string sem = op.strAttr("sem", "acq_rel"), scope = op.strAttr("scope", "gpu");
  if (sem != "relaxed" && sem != "acquire" && sem != "release" && sem != "acq_rel") sem = "acq_rel";
  if (scope != "gpu" && scope != "cta" && scope != "sys") scope = "gpu";
  std::string kind = cas ? "cas" : op.strAttr("kind");
  int bits = bitWidth(d);
  if (bits != 32 && bits != 64 && !(bits == 16 && kind == "add" && isFloat(d)) &&
      !(bits == 16 && kind == "cas"))
    unsupported(op, "an atomic on " + std::string(tritonName(d)));
  std::string type, opn = kind;
  bool f = isFloat(d);
  if (kind == "add") {
    type = d == DType::F16    ? "noftz.f16"
           : d == DType::BF16 ? "noftz.bf16"
           : f                ? (bits == 64 ? "f64" : "f32")
                              : (bits == 64 ? "u64" : "u32");
  } else if (kind == "max" || kind == "min" || kind == "umax" || kind == "umin") {
    if (f && bits == 16) unsupported(op, "tl.atomic_" + kind + " on 16-bit floats");
    opn = kind[0] == 'u' ? kind.substr(1) : kind;
    type = (isUnsigned(d) || kind[0] == 'u' ? "u" : "s") + std::to_string(bits);
  } else if (kind == "and" || kind == "or" || kind == "xor" || kind == "xchg" || kind == "cas") {
    if (kind == "xchg") opn = "exch";
    type = "b" + std::to_string(bits);
  } else {
    unsupported(op, "tl.atomic_" + kind);
  }
  RegClass rc = regClassOf(res->type.element());
  Regs out;
  for (size_t i = 0; i < n; ++i) {
    std::string p;
    if (!masks[i].empty() && !own.empty()) {
      p = reg(RegClass::Pred);
      ins("and.pred " + p + ", " + masks[i] + ", " + own);
    } else {
      p = !masks[i].empty() ? masks[i] : own;
    }
    std::string r = reg(rc);
    ins(std::string("mov.") + movType(rc) + " " + r + ", " +
        (rc == RegClass::F32   ? "0f00000000"
         : rc == RegClass::F64 ? "0d0000000000000000"
                               : "0"));
    // Bit-typed atomics take integer registers: move float operands over.
    // 16-bit floats already live in .b16 registers; 16-bit integers live
    // widened in .b32 ones and are narrowed.
    auto asBits = [&](const std::string &v) {
      if (bits == 16 && type[0] == 'b') {
        if (f) return v;
        std::string t = reg(RegClass::B16);
        ins("cvt.u16.u32 " + t + ", " + v);
        return t;
      }
      if (type[0] != 'b' || !f) return v;
      std::string t = reg(bits == 64 ? RegClass::B64 : RegClass::B32);
      ins(std::string("mov.b") + std::to_string(bits) + " " + t + ", " + v);
      return t;
    };
    if (f && (opn == "max" || opn == "min")) {
      // Floats through integer atomics: non-negative floats order as signed
      // integers of their bits, negative ones in reverse as unsigned. So a
      // non-negative value takes the signed op, a negative one the opposite
      // unsigned op (max <-> min).
      RegClass ic = bits == 64 ? RegClass::B64 : RegClass::B32;
      std::string w = reg(ic), old = reg(ic), nonneg = reg(RegClass::Pred),
                  pa = reg(RegClass::Pred), pb = reg(RegClass::Pred);
      std::string bt = std::to_string(bits);
      ins("mov.b" + bt + " " + w + ", " + a[i]);
      ins("mov.b" + bt + " " + old + ", 0");
      ins(std::string("setp.ge.") + (bits == 64 ? "s64 " : "s32 ") + nonneg + ", " + w + ", 0");
      if (p.empty()) {
        ins("mov.pred " + pa + ", " + nonneg);
        ins("not.pred " + pb + ", " + nonneg);
      } else {
        std::string neg = reg(RegClass::Pred);
        ins("not.pred " + neg + ", " + nonneg);
        ins("and.pred " + pa + ", " + p + ", " + nonneg);
        ins("and.pred " + pb + ", " + p + ", " + neg);
      }
      std::string other = opn == "max" ? "min" : "max";
      std::string head = atomHead(sem, scope);
      ins("@" + pa + " " + head + opn + ".s" + bt + " " + old + ", [" + ptrs[i] + "], " + w);
      ins("@" + pb + " " + head + other + ".u" + bt + " " + old + ", [" + ptrs[i] + "], " + w);
      ins("mov.b" + bt + " " + r + ", " + old);
      out.push_back(r);
      continue;
    }
    std::string dst = r;
    if (bits == 16 && type[0] == 'b' && !f)
      dst = reg(RegClass::B16);
    else if (bits != 16 && type[0] == 'b' && f)
      dst = reg(bits == 64 ? RegClass::B64 : RegClass::B32);
    std::string text = (p.empty() ? "" : "@" + p + " ") + atomHead(sem, scope, cas) + opn + "." +
                       type + " " + dst + ", [" + ptrs[i] + "], " + asBits(a[i]);
    if (cas) text += ", " + asBits(b[i]);
    ins(text);
    if (dst != r && bits == 16)
      ins(std::string(isUnsigned(d) ? "cvt.u32.u16 " : "cvt.s32.s16 ") + r + ", " + dst);
    else if (dst != r)
      ins(std::string("mov.b") + std::to_string(bits) + " " + r + ", " + dst);
    out.push_back(r);
  }
  if (tile && !own.empty() && resultUsed(res)) {
    // Only the owner of each element ran its atomic; the threads holding
    // copies of it (a replicated layout: an Nx1 tile, a 1-element tile) get
    // the owner's old value through shared memory.
    LinearLayout l = layoutOf(res);
    std::vector<int64_t> strides = rowMajorStrides(res->type.shape);
    int64_t bytes = sharedElemBytes(d);
    needShared(res->type.numel() * bytes);
    barrier();
    std::string a = threadSharedAddress(l, strides, bytes);
    for (size_t i = 0; i < n; ++i) {
      int64_t off = 0;
      std::vector<int64_t> c = l.regCoord(static_cast<int>(i));
      for (size_t k = 0; k < c.size(); ++k) off += c[k] * strides[k];
      stShared(a, off * bytes, d, out[i], own);
    }
    barrier();
    out = loadTileShared(l, d, strides, 0);
  }
  if (!tile) {
    // Every thread sees thread 0's result.
    needShared(8);
    barrier();
    ins("@" + own + " st.shared." + std::string(movType(rc)) + " [" + smem_ + "], " + out[0]);
    barrier();
    std::string r = reg(rc);
    ins("ld.shared." + std::string(movType(rc)) + " " + r + ", [" + smem_ + "]");
    out[0] = r;
  }
  set(res, out);
}

}  // namespace tessera::ptx
