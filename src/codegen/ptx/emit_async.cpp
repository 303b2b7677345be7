// Shared-memory rings and asynchronous copies: the ops pipeline-dot-operands
// and stage-dot-operands make (local_alloc, memdesc_index, async_copy,
// local_store, async_commit, async_wait, local_dealloc).
//
// Requires: memdesc values whose layout is a SharedLayout; async_copy's
// pointer tile (and mask) in a distributed layout.
// Emits: a memdesc value is one u32 register, the shared address of its
// first byte. Rings live in the ring area (Emitter::ringArea), one after the
// other, each slot 128-byte aligned; local_alloc starts with a barrier, so
// that threads still reading scratch that overlaps the ring area are done
// before any copy lands there. async_copy issues one `cp.async` per run of
// registers that are contiguous and aligned in both memories (16 bytes: the
// L2-only `.cg` form; 4 or 8 bytes: `.ca`), with a source size of 0 where the
// mask is off, which fills the destination with zeros and reads nothing. A
// copy with a limit (a prefix mask, mask_prefix.h) reads only the run's
// first elements the mask keeps, and zero-fills the rest.
// Runs narrower than 4 bytes (2-byte elements that axis info cannot pair)
// are loaded and stored synchronously, element by element. Replicas of an
// element (layouts with fewer elements than threads) issue nothing.
// local_store writes a tile's registers with st.shared (vectors of up to
// 16 bytes where its registers run along the buffer's contiguous dim), then, in a kernel
// with wgmma, the proxy fence that makes them visible to it.
// async_wait is `cp.async.wait_group N` and a barrier: a thread's wait covers
// only its own copies, and the barrier makes everybody's visible.
#include <algorithm>
#include <bit>
#include <functional>
#include <memory>

#include "codegen/ptx/emitter.h"
#include "support/diagnostics.h"

namespace tessera::ptx {
namespace {

SharedLayout sharedLayoutOf(const Value *v) {
  auto l = SharedLayout::parse(v->type.layout.str());
  if (!l) internalError("emit-ptx", "memdesc without a shared layout: " + v->type.str());
  return *l;
}

std::vector<int64_t> tileShape(const Type &memdesc) {
  return {memdesc.shape.end() - 2, memdesc.shape.end()};
}

}  // namespace

std::function<std::string(int)> Emitter::sharedAddresses(const Value *dst, const LinearLayout &l) {
  SharedLayout sl = sharedLayoutOf(dst);
  int eb = byteSize(dst->type.dtype);
  std::vector<int64_t> strides(2);
  strides[sl.contig] = 1;
  strides[1 - sl.contig] = sl.pitch / eb;
  // Padded: the thread's base plus a constant per register. Swizzled: the
  // thread's offset XOR a constant per register (their linear parts have
  // disjoint bits, and the swizzle is an XOR of row bits into chunk bits).
  std::vector<int64_t> shape = tileShape(dst->type);
  std::string base = reg(RegClass::B32);
  if (sl.swizzle)
    ins("mov.u32 " + base + ", " + get(dst)[0]);
  else
    ins("add.u32 " + base + ", " + get(dst)[0] + ", " + threadLinear(l, strides, eb));
  std::string thread = sl.swizzle ? swizzledThreadOffset(l, sl, shape, eb) : "";
  // The bits a thread's offset may have set: a register's offset with none
  // of them XORs in as it adds (rows in whole 8-row groups, columns past
  // the lanes'), so it goes into the instruction, after one add of the
  // thread's offset to the base.
  int64_t threadBits = 0;
  for (const auto *bases : {&l.lane, &l.warp})
    for (const Basis &bs : *bases)
      if (!bs.isZero())
        threadBits |= sl.offset(shape, bs.dim == sl.contig ? 0 : bs.value,
                                bs.dim == sl.contig ? bs.value : 0, eb);
  auto threadBase = std::make_shared<std::string>();
  return [this, l, sl, strides, shape, eb, base, thread, threadBits, threadBase](int i) {
    auto c = l.regCoord(i);
    int64_t row = c[1 - sl.contig], col = c[sl.contig];
    if (!sl.swizzle) return addr(base, (c[0] * strides[0] + c[1] * strides[1]) * eb);
    int64_t off = sl.offset(shape, row, col, eb);
    if ((off & threadBits) == 0) {
      if (threadBase->empty()) {
        *threadBase = reg(RegClass::B32);
        ins("add.u32 " + *threadBase + ", " + thread + ", " + base);
      }
      return addr(*threadBase, off);
    }
    std::string t = reg(RegClass::B32), a = reg(RegClass::B32);
    ins("xor.b32 " + t + ", " + thread + ", " + std::to_string(off));
    ins("add.u32 " + a + ", " + t + ", " + base);
    return addr(a, 0);
  };
}

void Emitter::emitLocalStore(Operation &op) {
  const Value *dst = op.operand(0), *value = op.operand(1);
  SharedLayout sl = sharedLayoutOf(dst);
  DType d = dst->type.dtype;
  int eb = byteSize(d);
  LinearLayout l = layoutOf(value);
  const Regs &src = get(value);
  // Registers that run along the buffer's contiguous dim (the first
  // register bits step it by 1, 2, ...) go up to 16 bytes at a time: the
  // thread's first element of such a run is aligned to the run (lane and
  // warp bits are larger steps), and the swizzle moves whole 16-byte
  // chunks, so the run stays contiguous and aligned.
  int run = 0;
  while (run < static_cast<int>(l.reg.size()) && l.reg[run].dim == sl.contig &&
         l.reg[run].value == (int64_t{1} << run))
    ++run;
  // (8-byte elements go one at a time: words are built from 1-, 2- and
  // 4-byte ones.)
  const int vecBytes = eb <= 4 ? std::min(16, eb << run) : eb;
  const int per = eb <= 4 && vecBytes >= 4 ? vecBytes / eb : 1;  // elements a store
  std::string owner = ownerPred(l);
  std::string guard = owner.empty() ? "" : "@" + owner + " ";
  auto destination = sharedAddresses(dst, l);
  for (int i = 0; i < l.numRegs(); i += per) {
    std::string where = destination(i);
    if (per == 1) {
      ins(guard + "st.shared." + scalarMemType(d) + " " + where + ", " + src[i]);
      continue;
    }
    Regs words;
    for (int w = 0; w < vecBytes / 4; ++w) {
      int f = i + w * 4 / eb;
      words.push_back(eb == 4   ? src[f]
                      : eb == 2 ? packHalves(src[f], src[f + 1])
                                : packBytes(src, static_cast<size_t>(f), d));
    }
    std::string type = eb == 4 ? scalarMemType(d) : "b32";
    if (words.size() == 1)
      ins(guard + "st.shared." + type + " " + where + ", " + words[0]);
    else
      ins(guard + "st.shared.v" + std::to_string(words.size()) + "." + type + " " + where + ", " +
          join(words));
  }
  // wgmma reads shared memory through the async proxy: this thread's
  // stores must be visible to it before the barrier that publishes them.
  if (usesWgmma()) ins("fence.proxy.async.shared::cta");
}

std::string Emitter::swizzledThreadOffset(const LinearLayout &l, const SharedLayout &sl,
                                          const std::vector<int64_t> &shape, int eb) {
  std::string key = "swz|" + l.str() + "|" + sl.str() + "|" + std::to_string(shape[0]) + "x" +
                    std::to_string(shape[1]) + "|" + std::to_string(eb);
  if (auto it = cached_.find(key); it != cached_.end()) return it->second;
  // Each lane or warp bit moves the thread by one basis vector: its offset
  // (the swizzle of a row basis included) is XORed in when the bit is set.
  std::string acc = reg(RegClass::B32);
  prologueIns("mov.u32 " + acc + ", 0");
  auto addBits = [&](const std::vector<Basis> &bases, const std::string &id) {
    for (size_t i = 0; i < bases.size(); ++i) {
      const Basis &b = bases[i];
      if (b.isZero()) continue;
      int64_t row = b.dim == sl.contig ? 0 : b.value, col = b.dim == sl.contig ? b.value : 0;
      int64_t c = sl.offset(shape, row, col, eb);
      std::string t = reg(RegClass::B32);
      prologueIns("bfe.u32 " + t + ", " + id + ", " + std::to_string(i) + ", 1");
      prologueIns("mul.lo.u32 " + t + ", " + t + ", " + std::to_string(c));
      prologueIns("xor.b32 " + acc + ", " + acc + ", " + t);
    }
  };
  addBits(l.lane, lane_);
  addBits(l.warp, warp_);
  return cached_[key] = acc;
}

// The bytes a prefix-masked run of `n` elements keeps where its first is
// on: min(limit, n) elements (min(limit, n - 1) + 1 when inclusive). The
// limit is `bound - x` modulo 2^width, which an unsigned min reads right:
// where the first element is on, it is the exact distance to the bound.
std::string Emitter::keptBytes(const std::string &limit, DType d, int n, int eb, bool inclusive) {
  std::string k = reg(RegClass::B32);
  std::string cap = std::to_string(inclusive ? n - 1 : n);
  if (bitWidth(d) == 64) {
    std::string w = reg(RegClass::B64);
    ins("min.u64 " + w + ", " + limit + ", " + cap);
    ins("cvt.u32.u64 " + k + ", " + w);
  } else {
    ins("min.u32 " + k + ", " + limit + ", " + cap);
  }
  if (inclusive) ins("add.u32 " + k + ", " + k + ", 1");
  if (eb > 1)
    ins("shl.b32 " + k + ", " + k + ", " + std::to_string(std::countr_zero(unsigned(eb))));
  return k;
}

void Emitter::emitSharedMemoryOp(Operation &op) {
  switch (op.code) {
    case OpCode::LocalAlloc: {
      const Type &t = op.result()->type;
      SharedLayout sl = sharedLayoutOf(op.result());
      int64_t bytes = t.shape[0] * sl.slotBytes(tileShape(t), byteSize(t.dtype));
      // Swizzled slots sit on 1024-byte boundaries (the swizzle is of
      // absolute addresses); others on 128 bytes, which the 16-byte
      // cp.async and ldmatrix rows need and the padded pitches' bank
      // pattern assumes. The mbarriers before them leave 8-byte offsets.
      int64_t align = sl.swizzle ? 1024 : 128;
      barrier();
      std::string r = reg(RegClass::B32);
      int64_t offset = allocateInRingArea(op.result(), bytes, align);
      ins("add.u32 " + r + ", " + ringArea() + ", " + std::to_string(offset));
      set(op.result(), {r});
      return;
    }
    case OpCode::LocalDealloc:
      // The next loop's rings reuse freed bytes: the barrier at their
      // local_alloc orders every read of the old rings (wgmma groups
      // waited for at the loop exit) before the new copies.
      freeInRingArea(op.operand(0));
      return;
    case OpCode::MemDescIndex: {
      const Value *ring = op.operand(0);
      int64_t slot =
          sharedLayoutOf(ring).slotBytes(tileShape(ring->type), byteSize(ring->type.dtype));
      std::string r = reg(RegClass::B32);
      ins("mad.lo.s32 " + r + ", " + get(op.operand(1))[0] + ", " + std::to_string(slot) + ", " +
          get(ring)[0]);
      set(op.result(), {r});
      return;
    }
    case OpCode::MemDescTrans:
      // The same bytes: only the type (shape and contiguous dim) changes.
      set(op.result(), get(op.operand(0)));
      return;
    case OpCode::AsyncCommit:
      ins("cp.async.commit_group");
      return;
    case OpCode::AsyncWait:
      ins("cp.async.wait_group " + std::to_string(op.intAttr("pending")));
      // wgmma reads shared memory through the async proxy: make this
      // thread's copies visible to it before the barrier publishes them
      // (a MEMBAR in SASS, so only in kernels that have a wgmma).
      if (usesWgmma()) ins("fence.proxy.async.shared::cta");
      barrier();
      return;
    case OpCode::AsyncCopy:
      break;
    case OpCode::LocalStore:
      return emitLocalStore(op);
    default:
      internalError("emit-ptx", std::string("not a shared-memory op: ") + op.info().mnemonic);
  }

  const Value *dst = op.operand(0), *ptr = op.operand(1);
  const Value *mask = op.operands.size() > 2 ? op.operand(2) : nullptr;
  const Value *limit = op.operands.size() > 3 ? op.operand(3) : nullptr;
  SharedLayout sl = sharedLayoutOf(dst);
  DType d = dst->type.dtype;
  int eb = byteSize(d);
  LinearLayout l = layoutOf(ptr);
  // Registers run along the layout's fastest dim; a run is one copy only
  // when that dim is also contiguous in shared memory.
  // A prefix-masked copy's runs are as long as the pass proved them, not as
  // the mask's constancy.
  int vec = 1;
  if (!l.reg.empty() && l.reg[0].dim == sl.contig)
    vec = limit ? std::min<int>(accessVectorWidth(*this, ptr, nullptr, l),
                                static_cast<int>(op.intAttr("prefix_run")))
                : accessVectorWidth(*this, ptr, mask, l);
  if (vec * eb < 4) vec = 1;
  const Regs &ptrs = get(ptr);
  Regs masks = mask ? spread(mask, ptrs.size()) : Regs{};
  Regs limits = limit && vec > 1 ? spread(limit, ptrs.size()) : Regs{};
  std::string owner = ownerPred(l);
  std::string guard = owner.empty() ? "" : "@" + owner + " ";
  auto destination = sharedAddresses(dst, l);
  for (int i = 0; i < l.numRegs(); i += vec) {
    std::string where = destination(i);
    int bytes = vec * eb;
    if (bytes >= 4) {
      std::string kind = bytes == 16 ? "cp.async.cg.shared.global " : "cp.async.ca.shared.global ";
      std::string copy = kind + where + ", [" + ptrs[i] + "], " + std::to_string(bytes);
      if (mask) {
        std::string size = reg(RegClass::B32);
        std::string full = std::to_string(bytes);
        if (!limits.empty())
          full = keptBytes(limits[i], limit->type.dtype, vec, eb, op.intAttr("inclusive") != 0);
        ins("selp.u32 " + size + ", " + full + ", 0, " + masks[i]);
        copy += ", " + size;
      }
      ins(guard + copy);
      continue;
    }
    // One element: a masked-off one is 0, as the zero-filling copy makes it.
    std::string mt = scalarMemType(d);
    RegClass rc = regClassOf(Type::scalar(d));
    std::string v = reg(rc);
    ins(std::string("mov.") + movType(rc) + " " + v + ", 0");
    std::string p = mask ? masks[i] : owner;
    if (mask && !owner.empty()) {
      p = reg(RegClass::Pred);
      ins("and.pred " + p + ", " + masks[i] + ", " + owner);
    }
    ins((p.empty() ? "" : "@" + p + " ") + "ld.global." + mt + " " + v + ", [" + ptrs[i] + "]");
    ins(guard + "st.shared." + mt + " " + where + ", " + v);
  }
}

}  // namespace tessera::ptx
