// PTX emission: the module text, registers, the prologue, structured control
// flow, and the dispatch over every op of ops.def (no `default:`, so a new op
// fails the build here until the GPU back end handles or rejects it).
//
// Requires: layouts assigned (assign_layouts.cpp) on a verified, inlined
// kernel. Guarantees: PTX for the target that `ptxas` accepts, or a
// CompileError at the first op the GPU back end does not support yet.
#include <bit>
#include <functional>
#include <set>
#include <sstream>

#include "codegen/ptx/emitter.h"
#include "codegen/ptx/mma.h"
#include "codegen/ptx/repeated_barriers.h"
#include "ir/op_groups.h"
#include "ir/printer.h"
#include "support/diagnostics.h"

namespace tessera::ptx {

RegClass regClassOf(const Type &elem) {
  if (elem.isPtr()) return RegClass::B64;
  switch (elem.dtype) {
    case DType::I1:
      return RegClass::Pred;
    case DType::I8:
    case DType::I16:
    case DType::I32:
    case DType::U8:
    case DType::U16:
    case DType::U32:
      return RegClass::B32;
    case DType::I64:
    case DType::U64:
      return RegClass::B64;
    case DType::F8E4NV:
    case DType::F8E5:
    case DType::F8E4B15:
    case DType::F8E4B8:
    case DType::F8E5B16:
    case DType::F16:
    case DType::BF16:
      return RegClass::B16;
    case DType::F32:
      return RegClass::F32;
    case DType::F64:
      return RegClass::F64;
  }
  return RegClass::B32;
}

const char *movType(RegClass c) {
  switch (c) {
    case RegClass::Pred:
      return "pred";
    case RegClass::B16:
      return "b16";
    case RegClass::B32:
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

// ptxas refuses any byte outside printable ASCII, comments and file names
// included: others become %XX (a kernel or file name may be UTF-8).
static std::string asciiOnly(std::string_view text) {
  static const char *hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '%') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

static const char *regPrefix(RegClass c) {
  switch (c) {
    case RegClass::Pred:
      return "%p";
    case RegClass::B16:
      return "%h";
    case RegClass::B32:
      return "%r";
    case RegClass::B64:
      return "%rd";
    case RegClass::F32:
      return "%f";
    case RegClass::F64:
      return "%fd";
  }
  return "%r";
}

std::string addr(const std::string &base, int64_t off) {
  if (off == 0) return "[" + base + "]";
  return "[" + base + "+" + std::to_string(off) + "]";
}

std::string join(const Regs &r, size_t from, size_t n) {
  n = std::min(n, r.size() - from);
  std::string s = "{";
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + r[from + i];
  return s + "}";
}

Emitter::Emitter(Function &fn, const PtxOptions &opts) : fn_(fn), opts_(opts) {
  // PTX 8.0 is the floor of every instruction emitted; newer targets
  // (sm_100: 8.6, sm_120: 8.7) need the version that introduced them.
  needPtxVersion(minPtxVersion(opts.target));
}

std::string Emitter::reg(RegClass c) {
  int &n = counts_[static_cast<int>(c)];
  return regPrefix(c) + std::to_string(n++);
}

const Regs &Emitter::get(const Value *v) const {
  Regs *const *r = regs_.find(v);
  if (!r) internalError("emit-ptx", "a value was used before it was emitted");
  return **r;
}

Regs Emitter::spread(const Value *v, size_t n) const {
  const Regs &r = get(v);
  if (v->type.isTile()) {
    if (r.size() != n) internalError("emit-ptx", "operand layouts disagree");
    return r;
  }
  return Regs(n, r.at(0));
}

const LinearLayout &Emitter::layoutOf(const Value *v) const {
  std::list<LinearLayout> &parsed = layouts_[v->type.layout.key()];
  for (const LinearLayout &l : parsed)
    if (l.shape == v->type.shape) return l;
  auto l = LinearLayout::parse(v->type.layout.str(), v->type.shape);
  if (!l) internalError("emit-ptx", "tile without a valid layout: " + v->type.str());
  return parsed.emplace_back(std::move(*l));
}

void Emitter::unsupported(const Operation &op, const std::string &what) const {
  fail(op.loc, what + " is not supported by the GPU back end yet",
       "run this kernel on the CPU (TESSERA_BACKEND=cpu) until it is");
}

void Emitter::needShared(int64_t bytes) {
  sharedBytes_ = std::max(sharedBytes_, bytes);
  if (!liveRings_.empty()) scratchWhileRings_ = std::max(scratchWhileRings_, bytes);
}

const std::string &Emitter::ringArea() {
  if (ringArea_.empty()) ringArea_ = reg(RegClass::B32);
  return ringArea_;
}

int64_t Emitter::allocateInRingArea(const Value *v, int64_t bytes, int64_t align) {
  int64_t offset = (ringBytes_ + align - 1) / align * align;
  ringBytes_ = offset + bytes;
  ringPeak_ = std::max(ringPeak_, ringBytes_);
  liveRings_.push_back({v, ringBytes_});
  return offset;
}

void Emitter::freeInRingArea(const Value *v) {
  std::erase_if(liveRings_, [&](const auto &live) { return live.first == v; });
  ringBytes_ = 0;
  for (const auto &live : liveRings_) ringBytes_ = std::max(ringBytes_, live.second);
}

std::string Emitter::threadCoord(const LinearLayout &l, int dim) {
  std::string key = "tc|" + l.str() + "|" + std::to_string(dim);
  if (auto it = cached_.find(key); it != cached_.end()) return it->second;
  std::string acc;
  auto part = [&](const std::vector<Basis> &bases, const std::string &src) {
    // Runs of consecutive input bits mapping to consecutive powers of two in
    // `dim` are one shift and mask.
    for (size_t i = 0; i < bases.size();) {
      if (bases[i].dim != dim) {
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < bases.size() && bases[j].dim == dim && bases[j].value == bases[j - 1].value * 2)
        ++j;
      int shift = std::countr_zero(static_cast<uint64_t>(bases[i].value));
      std::string t = reg(RegClass::B32);
      prologueIns("bfe.u32 " + t + ", " + src + ", " + std::to_string(i) + ", " +
                  std::to_string(j - i));
      if (shift) prologueIns("shl.b32 " + t + ", " + t + ", " + std::to_string(shift));
      if (acc.empty()) {
        acc = t;
      } else {
        std::string s = reg(RegClass::B32);
        prologueIns("or.b32 " + s + ", " + acc + ", " + t);
        acc = s;
      }
      i = j;
    }
  };
  part(l.lane, lane_);
  part(l.warp, warp_);
  if (acc.empty()) {
    acc = reg(RegClass::B32);
    prologueIns("mov.u32 " + acc + ", 0");
  }
  return cached_[key] = acc;
}

std::string Emitter::threadLinear(const LinearLayout &l, const std::vector<int64_t> &strides,
                                  int64_t scale) {
  std::string key = "tl|" + l.str() + "|" + std::to_string(scale);
  for (int64_t s : strides) key += "," + std::to_string(s);
  if (auto it = cached_.find(key); it != cached_.end()) return it->second;
  std::string acc = reg(RegClass::B32);
  prologueIns("mov.u32 " + acc + ", 0");
  for (size_t d = 0; d < strides.size(); ++d) {
    std::string c = threadCoord(l, static_cast<int>(d));
    std::string s = reg(RegClass::B32);
    prologueIns("mad.lo.s32 " + s + ", " + c + ", " + std::to_string(strides[d] * scale) + ", " +
                acc);
    acc = s;
  }
  return cached_[key] = acc;
}

std::string Emitter::ownerPred(const LinearLayout &l) {
  unsigned lm = l.replicatedLaneMask(), wm = l.replicatedWarpMask();
  if (lm == 0 && wm == 0) return {};
  std::string key = "own|" + std::to_string(lm) + "|" + std::to_string(wm);
  if (auto it = cached_.find(key); it != cached_.end()) return it->second;
  std::string t = reg(RegClass::B32), u = reg(RegClass::B32), p = reg(RegClass::Pred);
  prologueIns("and.b32 " + t + ", " + lane_ + ", " + std::to_string(lm));
  prologueIns("and.b32 " + u + ", " + warp_ + ", " + std::to_string(wm));
  prologueIns("or.b32 " + t + ", " + t + ", " + u);
  prologueIns("setp.eq.u32 " + p + ", " + t + ", 0");
  return cached_[key] = p;
}

int Emitter::useCount(const Value *v) {
  if (!uses_) uses_ = countUses(fn_);
  return uses_->get(v, 0);
}

bool Emitter::usesWgmma() {
  if (!usesWgmma_) {
    usesWgmma_ = false;
    fn_.walk([&](Operation *op) {
      if (op->code == OpCode::Dot &&
          selectWgmma(*op, opts_.numWarps, opts_.target.sm, opts_.target.archSpecific))
        usesWgmma_ = true;
    });
  }
  return *usesWgmma_;
}

bool Emitter::registersReadOnce(const Value *v) {
  if (useCount(v) != 1) return false;
  const Operation *d = v->def;
  if (!d) return true;
  switch (d->code) {
    // Ops that may hand on their operands' registers (emitOp's alias and
    // shapeOpInRegisters): what they renamed must be read nowhere else
    // either. (A split's other half holds other registers.)
    case OpCode::ExpandDims:
    case OpCode::Hint:
    case OpCode::Broadcast:
    case OpCode::ConvertLayout:
    case OpCode::Reshape:
    case OpCode::Permute:
    case OpCode::Split:
    case OpCode::Join:
      for (const Value *o : d->operands)
        if (o->type.isTile() && !registersReadOnce(o)) return false;
      return true;
    case OpCode::Cast:     // to the same type, or a bitcast within a register
    case OpCode::Bitcast:  // class, may return its operand's registers
      return !d->operand(0)->type.isTile() || registersReadOnce(d->operand(0));
    default:
      return true;
  }
}

bool Emitter::resultUsed(const Value *v) {
  return useCount(v) > 0;
}

void Emitter::setLoc(const SourceLoc &loc) {
  if (!loc.known() || loc == lastLoc_) return;
  lastLoc_ = loc;
  auto it = files_.find(loc.file);
  if (it == files_.end()) it = files_.emplace(loc.file, static_cast<int>(files_.size()) + 1).first;
  body_ += "\t.loc " + std::to_string(it->second) + " " + std::to_string(loc.line) + " " +
           std::to_string(loc.col) + "\n";
}

void Emitter::copyInto(const Regs &dst, const Regs &src, const Type &t) {
  const char *mt = movType(regClassOf(t.element()));
  for (size_t i = 0; i < dst.size(); ++i)
    if (dst[i] != src[i]) ins(std::string("mov.") + mt + " " + dst[i] + ", " + src[i]);
}

static Regs freshRegs(Emitter &e, const Value *v) {
  Regs r;
  size_t n = v->type.isTile() ? e.layoutOf(v).numRegs() : 1;
  for (size_t i = 0; i < n; ++i) r.push_back(e.regFor(v->type));
  return r;
}

void Emitter::emitBlock(Block &b) {
  const CopiesToInterleave moved = copiesToInterleave(b);
  size_t mark = 0;
  for (auto &op : b.ops) {
    if (op->code == OpCode::Yield || op->code == OpCode::Condition) continue;
    if (op.get() == moved.first) mark = body_.size();
    setLoc(op->loc);
    waitForWgmmaReaders(*op);
    emitOp(*op);
    if (op.get() == moved.commit) setAsideCopies(mark);
    if (op.get() == moved.dot && !deferredCopies_.empty())
      internalError("emit-ptx", "a pipelined loop's copies were not emitted with its dot");
  }
}

void Emitter::waitForWgmmaReaders(const Operation &op) {
  if (wgmmaGroups_.empty()) return;
  std::set<std::string> reads;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    // The next wgmma of the chain reads its accumulator in the async proxy.
    if (op.code == OpCode::Dot && i == 2 && op.intAttr("overlap", 0)) continue;
    if (Regs *const *regs = regs_.find(op.operand(i)))
      reads.insert((*regs)->begin(), (*regs)->end());
  }
  waitForWgmmaRegisters(reads, {});
}

void Emitter::waitForWgmmaRegisters(const std::set<std::string> &reads,
                                    const std::set<std::string> &writes) {
  auto hits = [](const std::set<std::string> &a, const std::set<std::string> &b) {
    for (const std::string &r : a)
      if (b.count(r)) return true;
    return false;
  };
  size_t newest = 0;  // 1 + the index of the newest group touched
  for (size_t g = 0; g < wgmmaGroups_.size(); ++g) {
    const WgmmaGroup &w = wgmmaGroups_[g];
    if (hits(reads, w.acc) || hits(writes, w.acc) || hits(writes, w.aWords)) newest = g + 1;
  }
  if (newest > 0) waitForWgmmaGroups(wgmmaGroups_.size() - newest);
}

void Emitter::waitForWgmmaGroups(size_t pending) {
  ins("wgmma.wait_group.sync.aligned " + std::to_string(pending));
  while (wgmmaGroups_.size() > pending) wgmmaGroups_.pop_front();
}

// Copies the yielded values into `targets` as one parallel copy: through
// temporaries when a target is also a source.
static void parallelCopy(Emitter &e, const std::vector<Regs> &targets,
                         const std::vector<Value *> &sources,
                         const std::function<void(const Regs &, const Regs &, const Type &)> &mov) {
  std::vector<Regs> from;
  std::set<std::string> targetNames;
  for (const Regs &t : targets) targetNames.insert(t.begin(), t.end());
  for (size_t i = 0; i < targets.size(); ++i) {
    Regs src = e.spread(sources[i], targets[i].size());
    if (src == targets[i]) {  // updated in place (a wgmma accumulator): nothing to copy
      from.push_back(src);
      continue;
    }
    bool clash = false;
    for (const std::string &s : src) clash |= targetNames.count(s) > 0;
    if (clash) {
      e.waitForWgmmaRegisters(std::set<std::string>(src.begin(), src.end()), {});
      Regs tmp;
      for (size_t k = 0; k < src.size(); ++k) tmp.push_back(e.regFor(sources[i]->type));
      mov(tmp, src, sources[i]->type);
      src = tmp;
    }
    from.push_back(src);
  }
  // What the copies read and write, for the wgmma groups still running.
  std::set<std::string> reads, writes;
  for (size_t i = 0; i < targets.size(); ++i)
    for (size_t k = 0; k < targets[i].size(); ++k)
      if (targets[i][k] != from[i][k]) {
        reads.insert(from[i][k]);
        writes.insert(targets[i][k]);
      }
  e.waitForWgmmaRegisters(reads, writes);
  for (size_t i = 0; i < targets.size(); ++i) mov(targets[i], from[i], sources[i]->type);
}

void Emitter::emitFor(Operation &op) {
  Block &body = *op.regions[0];
  const Value *lb = op.operand(0), *ub = op.operand(1), *step = op.operand(2);
  bool wide = lb->type.dtype == DType::I64 || lb->type.dtype == DType::U64;
  RegClass ic = wide ? RegClass::B64 : RegClass::B32;
  std::string it = wide ? "s64" : "s32";
  std::string iv = reg(ic);
  ins(std::string("mov.") + movType(ic) + " " + iv + ", " + get(lb)[0]);
  bool negative = step->def && step->def->code == OpCode::Constant &&
                  std::holds_alternative<int64_t>(*step->def->attr("value")) &&
                  std::get<int64_t>(*step->def->attr("value")) < 0;
  // The body is emitted once for every iteration: it starts with no group
  // running but those it leaves running itself (see the back edge below).
  if (!wgmmaGroups_.empty()) waitForWgmmaGroups(0);
  std::vector<Regs> carried;
  auto mov = [&](const Regs &d, const Regs &s, const Type &t) { copyInto(d, s, t); };
  for (size_t i = 0; i < op.results.size(); ++i) {
    carried.push_back(freshRegs(*this, op.result(i)));
    copyInto(carried.back(), spread(op.operand(3 + i), carried.back().size()), op.result(i)->type);
  }
  prepareInvariantDivisors(op);
  std::string head = newLabel(), exit = newLabel();
  label(head);
  std::string p = reg(RegClass::Pred);
  ins("setp." + std::string(negative ? "le." : "ge.") + it + " " + p + ", " + iv + ", " +
      get(ub)[0]);
  ins("@" + p + " bra " + exit);
  set(body.args[0].get(), {iv});
  for (size_t i = 0; i < carried.size(); ++i) set(body.args[1 + i].get(), carried[i]);
  emitBlock(body);
  // Only an accumulator chain updated in place may run across the back
  // edge: its next reader is its own next wgmma (or the wait after the loop).
  size_t leftRunning = 0;
  while (leftRunning < wgmmaGroups_.size() &&
         wgmmaGroups_[wgmmaGroups_.size() - 1 - leftRunning].carried)
    ++leftRunning;
  if (leftRunning < wgmmaGroups_.size()) waitForWgmmaGroups(leftRunning);
  if (Operation *y = body.terminator(); y && !carried.empty())
    parallelCopy(*this, carried, y->operands, mov);
  ins("add." + it + " " + iv + ", " + iv + ", " + get(step)[0]);
  ins("bra " + head);
  label(exit);
  // A wgmma group the body left running ends with the loop (ptxas
  // serializes wgmma when its accumulators stay in flight any further).
  if (!wgmmaGroups_.empty()) waitForWgmmaGroups(0);
  invariantDivisors_.pop_back();
  for (size_t i = 0; i < carried.size(); ++i) set(op.result(i), carried[i]);
}

// The carried value of the loop around `op` (an if in a for body) that
// result i replaces: the loop yields the result back into that value, a
// branch yields the value itself, and nothing after the if reads its
// registers (through the value, or through one that shares them: a
// renaming op's result, a hint, a cast that changes nothing). The result
// may then live in the value's registers: the branch that keeps it copies
// nothing (a flattened loop's tile coordinates, recomputed as a tile
// starts, would otherwise be copied out and back every iteration).
Value *Emitter::carriedInPlace(const Operation &op, unsigned i) {
  Block *body = op.parent;
  if (!body || !body->parentOp || body->parentOp->code != OpCode::For ||
      useCount(op.result(i)) != 1)
    return nullptr;
  Operation *yield = body->terminator();
  Value *arg = nullptr;
  for (size_t p = 0; yield && p < yield->operands.size(); ++p)
    if (yield->operand(p) == op.result(i) && p + 1 < body->args.size())
      arg = body->args[p + 1].get();
  if (!arg) return nullptr;
  bool kept = false;
  for (auto &region : op.regions)
    if (Operation *y = region->terminator(); y && y->operand(i) == arg) kept = true;
  Regs *const *own = regs_.find(arg);
  if (!kept || !own) return nullptr;
  const std::set<std::string> shared((*own)->begin(), (*own)->end());
  bool after = false, clash = false;
  for (auto &o : body->ops) {
    if (o.get() == &op) {
      after = true;
      continue;
    }
    if (after)
      o->walk([&](Operation *in) {
        for (const Value *v : in->operands)
          if (Regs *const *r = regs_.find(v))
            for (const std::string &x : **r) clash = clash || shared.count(x) > 0;
      });
  }
  return clash ? nullptr : arg;
}

void Emitter::emitIf(Operation &op) {
  std::vector<Regs> results;
  for (unsigned i = 0; i < op.results.size(); ++i) {
    Value *arg = carriedInPlace(op, i);
    results.push_back(arg ? get(arg) : freshRegs(*this, op.result(i)));
  }
  auto mov = [&](const Regs &d, const Regs &s, const Type &t) { copyInto(d, s, t); };
  std::string elseL = newLabel(), end = newLabel();
  ins("@!" + get(op.operand(0))[0] + " bra " + elseL);
  // Each branch starts with the groups running before the if and ends
  // every group it started; after the if, the groups from before it are
  // listed still (either branch may have waited for them, or not).
  const std::deque<WgmmaGroup> before = wgmmaGroups_;
  const uint64_t newestBefore = wgmmaCommits_;
  for (int k = 0; k < 2; ++k) {
    Block &b = *op.regions[k];
    wgmmaGroups_ = before;
    emitBlock(b);
    if (Operation *y = b.terminator(); y && !results.empty())
      parallelCopy(*this, results, y->operands, mov);
    if (!wgmmaGroups_.empty() && wgmmaGroups_.back().id > newestBefore) waitForWgmmaGroups(0);
    wgmmaGroups_ = before;
    if (k == 0) {
      ins("bra " + end);
      label(elseL);
    }
  }
  label(end);
  for (size_t i = 0; i < results.size(); ++i) set(op.result(i), results[i]);
}

void Emitter::barrier() {
  if (side_ == Side::Producer) internalError("emit-ptx", "a CTA barrier in a producer region");
  ins(side_ == Side::Consumers ? "bar.sync 1, " + std::to_string(numThreads()) : "bar.sync 0");
}

// The consumer warps run region 0; the producer warp (or warpgroup),
// numbered after them, runs region 1 (scalar code and tensor copies), and
// both end at the kernel's return. Where the op gives register counts, each
// side first moves to its own with setmaxnreg (ptxas allocates .maxntid's
// even share at launch, 168 a thread with 8 consumer warps and a producer
// warpgroup, and fits the code after each setmaxnreg in its new count).
void Emitter::emitWarpSpecialize(Operation &op) {
  producerWarps_ = static_cast<int>(op.intAttr("producer_warps"));
  std::string producer = newLabel(), end = newLabel(), isProducer = reg(RegClass::Pred);
  ins("setp.ge.u32 " + isProducer + ", " + tid_ + ", " + std::to_string(numThreads()));
  ins("@" + isProducer + " bra " + producer);
  side_ = Side::Consumers;
  if (int64_t regs = op.intAttr("consumer_registers", 0))
    ins("setmaxnreg.inc.sync.aligned.u32 " + std::to_string(regs));
  emitBlock(*op.regions[0]);
  if (!wgmmaGroups_.empty()) waitForWgmmaGroups(0);
  ins("bra " + end);
  label(producer);
  side_ = Side::Producer;
  // The whole warpgroup hands its registers over before its other warps end.
  if (int64_t regs = op.intAttr("producer_registers", 0))
    ins("setmaxnreg.dec.sync.aligned.u32 " + std::to_string(regs));
  if (producerWarps_ > 1) {  // the first producer warp does the work
    std::string notLead = reg(RegClass::Pred);
    ins("setp.ne.u32 " + notLead + ", " + warp_ + ", " + std::to_string(leadWarp()));
    ins("@" + notLead + " bra " + end);
  }
  emitBlock(*op.regions[1]);
  side_ = Side::All;
  label(end);
}

void Emitter::emitWhile(Operation &op) {
  Block &before = *op.regions[0], &after = *op.regions[1];
  auto mov = [&](const Regs &d, const Regs &s, const Type &t) { copyInto(d, s, t); };
  std::vector<Regs> args, results;
  for (auto &a : before.args) args.push_back(freshRegs(*this, a.get()));
  for (auto &r : op.results) results.push_back(freshRegs(*this, r.get()));
  // As in emitFor; no group runs across the while's back edge.
  if (!wgmmaGroups_.empty()) waitForWgmmaGroups(0);
  for (size_t i = 0; i < args.size(); ++i)
    copyInto(args[i], spread(op.operand(i), args[i].size()), before.args[i]->type);
  Operation *cond = before.terminator();
  // The condition, its values forwarded into `results`; returns the
  // predicate register.
  auto test = [&]() {
    for (size_t i = 0; i < args.size(); ++i) set(before.args[i].get(), args[i]);
    emitBlock(before);
    std::vector<Value *> forwarded(cond->operands.begin() + 1, cond->operands.end());
    if (!results.empty()) parallelCopy(*this, results, forwarded, mov);
    return get(cond->operand(0))[0];
  };
  std::string exit = newLabel();
  if (rotatable(before)) {
    // Rotated, as LLVM rotates loops: the condition once before the loop
    // and again at its bottom, so the body's back edge is one conditional
    // branch, and what ptxas hoists out of the body runs only once the loop
    // is entered (a grouped GEMM's tile loop runs zero times in most of its
    // group iterations).
    std::string body = newLabel();
    ins("@!" + test() + " bra " + exit);
    label(body);
    for (size_t i = 0; i < results.size(); ++i) set(after.args[i].get(), results[i]);
    emitBlock(after);
    if (Operation *y = after.terminator(); y && !args.empty())
      parallelCopy(*this, args, y->operands, mov);
    if (!wgmmaGroups_.empty()) waitForWgmmaGroups(0);
    ins("@" + test() + " bra " + body);
    label(exit);
    for (size_t i = 0; i < results.size(); ++i) set(op.result(i), results[i]);
    return;
  }
  std::string head = newLabel();
  label(head);
  ins("@!" + test() + " bra " + exit);
  for (size_t i = 0; i < results.size(); ++i) set(after.args[i].get(), results[i]);
  emitBlock(after);
  if (Operation *y = after.terminator(); y && !args.empty())
    parallelCopy(*this, args, y->operands, mov);
  if (!wgmmaGroups_.empty()) waitForWgmmaGroups(0);
  ins("bra " + head);
  label(exit);
  for (size_t i = 0; i < results.size(); ++i) set(op.result(i), results[i]);
}

// Whether a while's condition block may be emitted twice (see emitWhile):
// a few scalar ops that allocate nothing, synchronise nothing and write no
// memory (loads may repeat: the condition runs once per test either way).
bool Emitter::rotatable(const Block &before) {
  if (before.ops.size() > 24) return false;
  for (const auto &o : before.ops) {
    if (o->code == OpCode::Condition) continue;
    if (!o->regions.empty() || writesMemOp(*o)) return false;
    if (!isPureOp(*o) && o->code != OpCode::Load) return false;
    for (const auto &r : o->results)
      if (!r->type.isScalar()) return false;
  }
  return true;
}

std::vector<std::string> Emitter::inlineRegion(const Block &b,
                                               const std::vector<std::string> &args) {
  for (size_t i = 0; i < b.args.size(); ++i) set(b.args[i].get(), {args[i]});
  for (auto &op : b.ops) {
    if (op->code == OpCode::Yield) {
      std::vector<std::string> out;
      for (Value *v : op->operands) out.push_back(get(v)[0]);
      return out;
    }
    emitOp(*op);
  }
  internalError("emit-ptx", "region without a yield");
}

// An int32 tile added to an arange (or to such a sum): x + (base + c) is
// written (x + base) + c, one add of x per distinct (x, base) and one add
// of an immediate per element. The result is affine in turn. The arange's
// registers then die where it is defined (ptxas drops them), where before
// they stayed live to the add: a loop-invariant `offs_n` of 16 registers per
// thread across attention's diagonal loop, for its causal mask, held 64x64
// fp8 tiles at 175 registers instead of 168 (two programs per SM, not three).
std::optional<Regs> Emitter::addToAffine(const Operation &op, const std::vector<Regs> &in) {
  const Value *res = op.result();
  if (op.code != OpCode::Add || in.size() != 2 || !res->type.isTile() ||
      res->type.dtype != DType::I32)
    return std::nullopt;
  auto affineAll = [&](const Regs &r) {
    return std::all_of(r.begin(), r.end(), [&](const std::string &x) { return affine_.count(x); });
  };
  int k = affineAll(in[1]) ? 1 : affineAll(in[0]) ? 0 : -1;
  if (k < 0) return std::nullopt;
  std::map<std::pair<std::string, std::string>, std::string> sums;
  Regs out;
  for (size_t i = 0; i < in[k].size(); ++i) {
    auto [base, c] = affine_.at(in[k][i]);
    const std::string &x = in[1 - k][i];
    std::string &t = sums[{x, base}];
    if (t.empty()) {
      t = reg(RegClass::B32);
      ins("add.s32 " + t + ", " + x + ", " + base);
    }
    std::string d = t;
    if (c != 0) {
      d = reg(RegClass::B32);
      ins("add.s32 " + d + ", " + t + ", " + std::to_string(c));
    }
    affine_[d] = {t, c};
    out.push_back(d);
  }
  return out;
}

void Emitter::emitOp(Operation &op) {
  auto elementwise = [&] {
    const Value *res = op.result();
    size_t n = res->type.isTile() ? layoutOf(res).numRegs() : 1;
    std::vector<Regs> ins_;
    for (Value *v : op.operands) ins_.push_back(spread(v, n));
    if (std::optional<Regs> pairs = castToFp8InPairs(op, ins_)) {
      set(res, *pairs);
      return;
    }
    if (std::optional<Regs> sums = addToAffine(op, ins_)) {
      set(res, *sums);
      return;
    }
    // A float32 tile op whose first operand is a loop-carried value read
    // nowhere else (attention's acc * alpha) writes into that value's
    // registers: a wgmma then accumulates there in place, and the loop's
    // back edge has nothing to copy.
    const Value *a0 = op.operands.empty() ? nullptr : op.operand(0);
    bool inPlace = (op.code == OpCode::Mul || op.code == OpCode::Add) && res->type.isTile() &&
                   res->type.dtype == DType::F32 && a0 && !a0->def && a0->type == res->type &&
                   a0->owner == op.parent && op.parent->parentOp &&
                   op.parent->parentOp->code == OpCode::For && useCount(a0) == 1;
    Regs out;
    for (size_t i = 0; i < n; ++i) {
      std::vector<std::string> in;
      for (auto &r : ins_) in.push_back(r[i]);
      if (inPlace) inPlaceResult_ = ins_[0][i];
      out.push_back(scalarOp(op, in));
      inPlaceResult_.clear();
    }
    set(res, out);
  };
  auto alias = [&] { set(op.result(), get(op.operand(0))); };
  switch (op.code) {
    case OpCode::Constant: {
      std::string r = constant(op.result()->type.element(), *op.attr("value"));
      size_t n = op.result()->type.isTile() ? layoutOf(op.result()).numRegs() : 1;
      set(op.result(), Regs(n, r));
      return;
    }
    case OpCode::ProgramId:
    case OpCode::NumPrograms: {
      static const char *axes[] = {"x", "y", "z"};
      int axis = static_cast<int>(op.intAttr("axis"));
      std::string r = reg(RegClass::B32);
      ins(std::string("mov.u32 ") + r + ", " +
          (op.code == OpCode::ProgramId ? "%ctaid." : "%nctaid.") + axes[axis & 3]);
      set(op.result(), {r});
      return;
    }
    case OpCode::Arange:
      return emitArange(op);
    case OpCode::Splat:
      set(op.result(), Regs(layoutOf(op.result()).numRegs(), get(op.operand(0))[0]));
      return;
    case OpCode::Broadcast:
      return emitBroadcast(op);
    case OpCode::ExpandDims:
    case OpCode::Hint:
      return alias();
    case OpCode::Reshape:
    case OpCode::Permute:
    case OpCode::Join:
    case OpCode::Split:
      if (shapeOpInRegisters(op)) return;
      [[fallthrough]];
    case OpCode::ConvertLayout:
    case OpCode::Cat:
    case OpCode::Flip:
    case OpCode::Gather:
      if (op.code == OpCode::ConvertLayout &&
          op.operand(0)->type.layout == op.result()->type.layout)
        return alias();
      return emitThroughShared(op);
    case OpCode::Sort:
      return emitSort(op);
    case OpCode::Histogram:
      return emitHistogram(op);
    TESSERA_BINARY_CASES:
    case OpCode::Neg:
    case OpCode::Not:
    case OpCode::Cmp:
    case OpCode::Select:
    case OpCode::Fma:
    case OpCode::Clamp:
    TESSERA_UNARY_MATH_CASES:
    case OpCode::Abs:
    case OpCode::Cast:
    case OpCode::Bitcast:
    case OpCode::AddPtr:
      return elementwise();
    case OpCode::Load:
      return emitLoad(op);
    case OpCode::Store:
      return emitStore(op);
    case OpCode::AtomicRmw:
    case OpCode::AtomicCas:
      return emitAtomic(op);
    case OpCode::DescriptorLoad:
    case OpCode::DescriptorStore:
      internalError("emit-ptx", std::string(op.info().mnemonic) +
                                    " reached code generation unexpanded "
                                    "(expand-descriptor-loads runs first)");
    case OpCode::Dot:
      return emitDot(op);
    case OpCode::Reduce:
      return emitReduce(op);
    case OpCode::Scan:
      return emitScan(op);
    case OpCode::Philox:
      return emitPhilox(op);
    case OpCode::MapElementwise:
      return emitMapElementwise(op);
    case OpCode::InlineAsm:
      return emitInlineAsm(op);
    case OpCode::ReadSreg:
      return emitReadSreg(op);
    case OpCode::Print:
      return emitPrint(op);
    case OpCode::Assert:
      if (opts_.debug) emitAssert(op);
      return;
    case OpCode::Barrier:
      return barrier();
    case OpCode::LocalAlloc:
    case OpCode::LocalDealloc:
    case OpCode::MemDescIndex:
    case OpCode::MemDescTrans:
    case OpCode::AsyncCopy:
    case OpCode::LocalStore:
    case OpCode::AsyncCommit:
    case OpCode::AsyncWait:
      return emitSharedMemoryOp(op);
    case OpCode::BarrierAlloc:
    case OpCode::BarrierDealloc:
    case OpCode::TmaCopy:
    case OpCode::BarrierWait:
    case OpCode::BarrierArrive:
      return emitTmaOp(op);
    case OpCode::TensormapCreate:
      return emitTensormapCreate(op);
    case OpCode::Assume:
      return;
    case OpCode::For:
      return emitFor(op);
    case OpCode::If:
      return emitIf(op);
    case OpCode::While:
      return emitWhile(op);
    case OpCode::WarpSpecialize:
      return emitWarpSpecialize(op);
    case OpCode::Yield:
    case OpCode::Condition:
      return;
    case OpCode::Return:
      ins("ret");
      return;
    case OpCode::Call:
      return unsupported(op, "a call that was not inlined");
  }
}

static std::string paramType(const Type &t) {
  if (t.isPtr()) return ".u64";
  switch (t.dtype) {
    case DType::I64:
    case DType::U64:
      return ".u64";
    case DType::F64:
      return ".f64";
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::F8E4NV:
    case DType::F8E5:
    case DType::F8E4B15:
      return ".f32";
    default:
      return ".u32";
  }
}

PtxKernel Emitter::run() {
  // Prologue: thread coordinates and the shared-memory base.
  tid_ = reg(RegClass::B32);
  lane_ = reg(RegClass::B32);
  warp_ = reg(RegClass::B32);
  smem_ = reg(RegClass::B32);
  prologueIns("mov.u32 " + tid_ + ", %tid.x");
  prologueIns("and.b32 " + lane_ + ", " + tid_ + ", 31");
  // The warp index through a shuffle from lane 0: the same value, but one
  // ptxas knows is uniform across the warp, so what derives from it (a
  // warpgroup's wgmma descriptors, its shared-memory offsets) lives in
  // uniform registers; computed from %tid alone it took an R2UR per
  // descriptor word before every wgmma.
  std::string warpOfThread = reg(RegClass::B32);
  prologueIns("shr.u32 " + warpOfThread + ", " + tid_ + ", 5");
  prologueIns("shfl.sync.idx.b32 " + warp_ + ", " + warpOfThread + ", 0, 31, -1");
  prologueIns("mov.u32 " + smem_ + ", tessera_smem");

  std::string params;
  std::string entry = ptxEntryName(fn_.name);
  for (size_t i = 0; i < fn_.body.args.size(); ++i) {
    const Value *a = fn_.body.args[i].get();
    std::string pname = entry + "_param_" + std::to_string(i);
    params += std::string(i ? ",\n" : "") + "\t.param " + paramType(a->type) + " " + pname;
    std::string pt = paramType(a->type);
    if (a->type.isPtr()) {
      std::string r = reg(RegClass::B64);
      prologueIns("ld.param.u64 " + r + ", [" + pname + "]");
      prologueIns("cvta.to.global.u64 " + r + ", " + r);
      set(a, {r});
      continue;
    }
    DType d = a->type.dtype;
    if (pt == ".f32" && d != DType::F32) {
      std::string f = reg(RegClass::F32);
      prologueIns("ld.param.f32 " + f + ", [" + pname + "]");
      set(a, {convert(f, DType::F32, d)});
      prologue_ += body_;  // convert() emitted into the (still empty) body: move it after the load
      body_.clear();
      continue;
    }
    RegClass c = regClassOf(a->type);
    if (c == RegClass::Pred) {
      std::string r = reg(RegClass::B32), p = reg(RegClass::Pred);
      prologueIns("ld.param.u32 " + r + ", [" + pname + "]");
      prologueIns("setp.ne.u32 " + p + ", " + r + ", 0");
      set(a, {p});
      continue;
    }
    std::string r = reg(c);
    prologueIns("ld.param" + pt + " " + r + ", [" + pname + "]");
    set(a, {r});
  }
  fn_.walk([&](Operation *op) { warpSpecialized_ |= op->code == OpCode::WarpSpecialize; });
  emitBlock(fn_.body);
  if (!ringArea_.empty()) {
    // 1024-byte aligned: the 128-byte swizzle of wgmma's operands is a
    // function of the address bits.
    int64_t offset = (scratchWhileRings_ + 1023) / 1024 * 1024;
    prologueIns("add.u32 " + ringArea_ + ", " + smem_ + ", " + std::to_string(offset));
    needShared(offset + ringPeak_);
  }
  finishKernelTensorMaps(entry);

  std::ostringstream out;
  // The launch parameters travel with the PTX (the runtime reads them back).
  out << "//\n// Generated by Tessera for kernel '" << asciiOnly(fn_.name) << "'\n//\n";
  out << "// tessera.num_warps = " << opts_.numWarps << "\n";
  // The launch adds the producer warp of a warp-specialised kernel.
  if (producerWarps_) out << "// tessera.producer_warps = " << producerWarps_ << "\n";
  // A persistent kernel: the index of its first grid parameter (the
  // launcher passes the grid there and runs fewer programs).
  for (size_t i = 0; i < fn_.paramAttrs.size(); ++i)
    if (fn_.paramAttrs[i].gridAxis == 0) out << "// tessera.persistent = " << i << "\n";
  out << "// tessera.shared_bytes = " << sharedBytes_ << "\n" << tensorMapHeader() << "\n";
  out << ".version " << ptxVersion_ / 10 << "." << ptxVersion_ % 10 << "\n.target "
      << opts_.target.name() << "\n.address_size 64\n\n";
  for (auto &[id, idx] : files_) {
    const SourceFile *f = opts_.sources ? opts_.sources->file(id) : nullptr;
    std::string name = asciiOnly(f ? f->name : "<kernel>");
    std::string esc;
    for (char ch : name) {
      if (ch == '"' || ch == '\\') esc += '\\';
      esc += ch;
    }
    out << ".file " << idx << " \"" << esc << "\"\n";
  }
  out << ".extern .shared .align 1024 .b8 tessera_smem[];\n" << debugDeclarations() << "\n";
  out << ".visible .entry " << entry << "(\n"
      << params << tensorMapParams(entry) << "\n)\n.maxntid " << launchThreads() << ", 1, 1\n";
  // Triton's maxnreg: a cap on registers per thread (more programs per SM,
  // spills past it), on the entry only.
  if (opts_.maxRegisters > 0) out << ".maxnreg " << opts_.maxRegisters << "\n";
  out << "{\n";
  static const RegClass classes[] = {RegClass::Pred, RegClass::B16, RegClass::B32,
                                     RegClass::B64,  RegClass::F32, RegClass::F64};
  static const char *decl[] = {".pred", ".b16", ".b32", ".b64", ".f32", ".f64"};
  for (int i = 0; i < 6; ++i)
    if (int n = counts_[static_cast<int>(classes[i])])
      out << "\t.reg " << decl[i] << " " << regPrefix(classes[i]) << "<" << n << ">;\n";
  std::string code = prologue_ + "\n" + body_;
  dropRepeatedBarriers(code);
  out << localDeclarations() << "\n" << code << "}\n";
  PtxKernel k;
  k.ptx = out.str();
  k.entry = entry;
  k.numWarps = opts_.numWarps;
  k.sharedBytes = static_cast<int>(sharedBytes_);
  return k;
}

}  // namespace tessera::ptx
