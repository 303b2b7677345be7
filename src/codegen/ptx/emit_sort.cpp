// tl.sort (a bitonic network in shared memory) and tl.histogram (shared-
// memory atomics). Both use the shared-memory protocol of emit_tile.cpp:
// barrier, write, barrier, work (with barriers between steps), barrier, read.
#include <bit>

#include "codegen/ptx/emitter.h"
#include "support/diagnostics.h"

namespace tessera::ptx {

// a > b in the sort's order: NaN above every number, so it sorts last
// ascending (the interpreter's order).
static std::string greaterThan(Emitter &e, const std::string &a, const std::string &b, DType d) {
  std::string p = e.reg(RegClass::Pred);
  if (isFloat(d)) {
    bool dbl = d == DType::F64;
    std::string x = dbl ? a : e.toF32(a, d), y = dbl ? b : e.toF32(b, d);
    std::string t = dbl ? "f64" : "f32";
    std::string gt = e.reg(RegClass::Pred), an = e.reg(RegClass::Pred), bn = e.reg(RegClass::Pred);
    e.ins("setp.gt." + t + " " + gt + ", " + x + ", " + y);
    e.ins("setp.nan." + t + " " + an + ", " + x + ", " + x);
    e.ins("setp.num." + t + " " + bn + ", " + y + ", " + y);
    e.ins("and.pred " + an + ", " + an + ", " + bn);
    e.ins("or.pred " + p + ", " + gt + ", " + an);
    return p;
  }
  if (d == DType::I1) {
    std::string nb = e.reg(RegClass::Pred);
    e.ins("not.pred " + nb + ", " + b);
    e.ins("and.pred " + p + ", " + a + ", " + nb);
    return p;
  }
  std::string t =
      bitWidth(d) == 64 ? (isUnsigned(d) ? "u64" : "s64") : (isUnsigned(d) ? "u32" : "s32");
  e.ins("setp.gt." + t + " " + p + ", " + a + ", " + b);
  return p;
}

void Emitter::emitSort(Operation &op) {
  const Value *x = op.operand(0);
  int axis = static_cast<int>(op.intAttr("axis"));
  bool descending = op.intAttr("descending") != 0;
  DType d = x->type.dtype;
  int64_t bytes = sharedElemBytes(d);
  int64_t numel = x->type.numel(), n = x->type.shape[axis];
  std::vector<int64_t> strides = rowMajorStrides(x->type.shape);
  int64_t inner = strides[axis];
  LinearLayout l = layoutOf(x);
  needShared(numel * bytes);
  barrier();
  storeTileShared(get(x), l, d, strides, 0);
  barrier();
  for (int64_t k = 2; k <= n; k *= 2) {
    for (int64_t j = k / 2; j > 0; j /= 2) {
      std::string e = reg(RegClass::B32), p = reg(RegClass::Pred);
      std::string head = newLabel(), next = newLabel(), done = newLabel();
      ins("mov.u32 " + e + ", " + tid());
      label(head);
      ins("setp.ge.u32 " + p + ", " + e + ", " + std::to_string(numel));
      ins("@" + p + " bra " + done);
      // The element's position along the axis and its partner's.
      std::string pos = reg(RegClass::B32), other = reg(RegClass::B32), skip = reg(RegClass::Pred);
      ins("shr.u32 " + pos + ", " + e + ", " +
          std::to_string(std::countr_zero(static_cast<uint64_t>(inner))));
      ins("and.b32 " + pos + ", " + pos + ", " + std::to_string(n - 1));
      ins("xor.b32 " + other + ", " + pos + ", " + std::to_string(j));
      ins("setp.le.u32 " + skip + ", " + other + ", " + pos);
      ins("@" + skip + " bra " + next);
      std::string e2 = reg(RegClass::B32), aa = reg(RegClass::B32), ab = reg(RegClass::B32);
      ins("xor.b32 " + e2 + ", " + e + ", " + std::to_string(j * inner));
      ins("mad.lo.s32 " + aa + ", " + e + ", " + std::to_string(bytes) + ", " + smemBase());
      ins("mad.lo.s32 " + ab + ", " + e2 + ", " + std::to_string(bytes) + ", " + smemBase());
      std::string a = ldShared(aa, 0, d), b = ldShared(ab, 0, d);
      // This pair ascends when bit k of its position is clear (reversed for descending).
      std::string t = reg(RegClass::B32), up = reg(RegClass::Pred);
      ins("and.b32 " + t + ", " + pos + ", " + std::to_string(k));
      ins(std::string(descending ? "setp.ne.u32 " : "setp.eq.u32 ") + up + ", " + t + ", 0");
      std::string gt = greaterThan(*this, a, b, d);
      std::string keep = reg(RegClass::Pred);
      ins("xor.pred " + keep + ", " + up + ", " + gt);  // swap when up == (a > b)
      ins("@" + keep + " bra " + next);
      stShared(aa, 0, d, b);
      stShared(ab, 0, d, a);
      label(next);
      ins("add.u32 " + e + ", " + e + ", " + std::to_string(numThreads()));
      ins("bra " + head);
      label(done);
      barrier();
    }
  }
  set(op.result(), loadTileShared(layoutOf(op.result()), d, strides, 0));
}

void Emitter::emitHistogram(Operation &op) {
  const Value *x = op.operand(0);
  const Value *mask = op.operands.size() > 1 ? op.operand(1) : nullptr;
  int64_t bins = op.intAttr("bins");
  DType d = x->type.dtype;
  if (isFloat(d)) unsupported(op, "tl.histogram of floats");
  needShared(bins * 4);
  barrier();
  // Zero the bins.
  {
    std::string b = reg(RegClass::B32), p = reg(RegClass::Pred), a = reg(RegClass::B32);
    std::string head = newLabel(), done = newLabel();
    ins("mov.u32 " + b + ", " + tid());
    label(head);
    ins("setp.ge.u32 " + p + ", " + b + ", " + std::to_string(bins));
    ins("@" + p + " bra " + done);
    ins("mad.lo.s32 " + a + ", " + b + ", 4, " + smemBase());
    ins("st.shared.u32 [" + a + "], 0");
    ins("add.u32 " + b + ", " + b + ", " + std::to_string(numThreads()));
    ins("bra " + head);
    label(done);
  }
  barrier();
  size_t n = x->type.isTile() ? layoutOf(x).numRegs() : 1;
  Regs vals = spread(x, n);
  Regs masks = mask ? spread(mask, n) : Regs(n, "");
  std::string own = x->type.isTile() ? ownerPred(layoutOf(x)) : firstThreadPred();
  bool wide = bitWidth(d) == 64;
  for (size_t i = 0; i < n; ++i) {
    // In range: 0 <= v < bins (an unsigned compare covers both).
    std::string p = reg(RegClass::Pred);
    ins("setp.lt." + std::string(wide ? "u64 " : "u32 ") + p + ", " + vals[i] + ", " +
        std::to_string(bins));
    if (!masks[i].empty()) ins("and.pred " + p + ", " + p + ", " + masks[i]);
    if (!own.empty()) ins("and.pred " + p + ", " + p + ", " + own);
    std::string idx = vals[i];
    if (wide) {
      idx = reg(RegClass::B32);
      ins("cvt.u32.u64 " + idx + ", " + vals[i]);
    }
    std::string a = reg(RegClass::B32);
    ins("mad.lo.s32 " + a + ", " + idx + ", 4, " + smemBase());
    ins("@" + p + " red.shared.add.u32 [" + a + "], 1");
  }
  barrier();
  const Value *res = op.result();
  set(res, loadTileShared(layoutOf(res), DType::I32, rowMajorStrides(res->type.shape), 0));
}

}  // namespace tessera::ptx
