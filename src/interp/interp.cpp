// The interpreter's driver: argument binding, the worker pool that runs the
// grid's programs, the op dispatch (the one switch over OpCode), structured
// control flow, device_print and device_assert.
//
// Programs run concurrently on pooled worker threads (worker_pool.h) that pull
// program ids from an atomic counter, always at least two workers when the grid has more than
// one program: a kernel spinning on a lock must be able to wait for the
// program holding it. The first failing program sets an abort flag; other
// workers stop pulling programs and loops unwind at their next iteration.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <system_error>
#include <thread>

#include "interp/interp_impl.h"
#include "interp/interp_scalar.h"
#include "interp/worker_pool.h"
#include "ir/op_groups.h"

namespace tessera::interp {

namespace detail {

std::atomic<uint64_t> gInterrupts{0};

std::string programStr(const Frame &f) {
  return "(" + std::to_string(f.pid[0]) + ", " + std::to_string(f.pid[1]) + ", " +
         std::to_string(f.pid[2]) + ")";
}

void runtimeFail(const Frame &f, const Inst &in, const std::string &message,
                 const std::string &hint) {
  throw RuntimeError(renderAt(*f.ctx->opts, in.op->loc, message, hint));
}

namespace {

void copySlot(Frame &f, uint32_t dst, uint32_t src) {
  if (dst == src) return;
  const SlotInfo &d = f.info(dst);
  std::memcpy(f.at(dst), f.at(src), static_cast<size_t>(d.numel) * d.esize);
}

// Copies values[i] -> slots[i] for all i, as if simultaneously (a yield may
// pass an iteration argument to another one), staging through scratch.
void parallelCopy(Frame &f, std::span<const uint32_t> values, std::span<const uint32_t> slots) {
  size_t n = std::min(values.size(), slots.size());
  if (n == 1) return copySlot(f, slots[0], values[0]);
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    const SlotInfo &s = f.info(slots[i]);
    total += static_cast<size_t>(s.numel) * s.esize;
  }
  char *tmp = f.scratchBytes(3, total);
  char *t = tmp;
  for (size_t i = 0; i < n; ++i) {
    const SlotInfo &s = f.info(slots[i]);
    size_t bytes = static_cast<size_t>(s.numel) * s.esize;
    std::memcpy(t, f.at(values[i]), bytes);
    t += bytes;
  }
  t = tmp;
  for (size_t i = 0; i < n; ++i) {
    const SlotInfo &s = f.info(slots[i]);
    size_t bytes = static_cast<size_t>(s.numel) * s.esize;
    std::memcpy(f.at(slots[i]), t, bytes);
    t += bytes;
  }
}

[[noreturn]] void interrupted(const Ctx &c) {
  throw RuntimeError("kernel " + c.prog->fn->name + " was interrupted (SIGINT)");
}

// At every loop iteration: another program failed, or the user pressed Ctrl-C.
inline void checkAbort(const Frame &f) {
  if (f.ctx->abort.load(std::memory_order_relaxed)) throw Aborted{};
  if (gInterrupts.load(std::memory_order_relaxed) != f.ctx->interruptsAtStart) [[unlikely]]
    interrupted(*f.ctx);
}

__extension__ using I128 = __int128;

I128 readWide(const Frame &f, uint32_t slot) {
  const SlotInfo &s = f.info(slot);
  int64_t v = readInt(f, slot, 0);
  if (isUnsigned(s.dtype)) return static_cast<I128>(static_cast<uint64_t>(v));
  return static_cast<I128>(v);
}

Flow execFor(Frame &f, const Inst &in) {
  const CBlock &body = f.prog->blocks[in.regions[0]];
  I128 lb = readWide(f, in.in[0]), ub = readWide(f, in.in[1]), step = readWide(f, in.in[2]);
  std::span<const uint32_t> inits = std::span<const uint32_t>(in.in).subspan(3);
  std::span<const uint32_t> iters = std::span<const uint32_t>(body.args).subspan(1);
  parallelCopy(f, inits, iters);
  if (step == 0 && lb < ub)
    runtimeFail(f, in, "for loop with step 0 in kernel " + f.prog->fn->name + " never ends");
  for (I128 iv = lb; step > 0 ? iv < ub : iv > ub; iv += step) {
    checkAbort(f);
    writeInt(f, body.args[0], 0, static_cast<int64_t>(iv));
    if (execBlock(f, body) == Flow::Return) return Flow::Return;
    parallelCopy(f, body.term->in, iters);
  }
  for (size_t i = 0; i < in.out.size(); ++i) copySlot(f, in.out[i], iters[i]);
  return Flow::Next;
}

Flow execIf(Frame &f, const Inst &in) {
  bool c = readInt(f, in.in[0], 0) != 0;
  const CBlock &b = f.prog->blocks[in.regions[c ? 0 : 1]];
  if (execBlock(f, b) == Flow::Return) return Flow::Return;
  if (b.term) parallelCopy(f, b.term->in, in.out);
  return Flow::Next;
}

Flow execWhile(Frame &f, const Inst &in) {
  const CBlock &before = f.prog->blocks[in.regions[0]];
  const CBlock &after = f.prog->blocks[in.regions[1]];
  parallelCopy(f, in.in, before.args);
  for (;;) {
    checkAbort(f);
    if (execBlock(f, before) == Flow::Return) return Flow::Return;
    const std::vector<uint32_t> &cond = before.term->in;
    std::span<const uint32_t> vals = std::span<const uint32_t>(cond).subspan(1);
    if (readInt(f, cond[0], 0) == 0) {
      parallelCopy(f, vals, in.out);
      return Flow::Next;
    }
    parallelCopy(f, vals, after.args);
    if (execBlock(f, after) == Flow::Return) return Flow::Return;
    parallelCopy(f, after.term->in, before.args);
  }
}

std::string formatElement(const Frame &f, uint32_t slot, int64_t i, bool hex) {
  const SlotInfo &s = f.info(slot);
  const char *p = f.at(slot) + i * s.esize;
  char buf[64];
  if (hex || s.isPtr) {
    uint64_t bits = 0;
    std::memcpy(&bits, p, static_cast<size_t>(s.esize));
    std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, s.esize * 2, bits);
    return buf;
  }
  return withCodec(s.dtype, [&](auto k) -> std::string {
    using K = decltype(k);
    auto v = K::get(loadBits<typename K::S>(p));
    if constexpr (K::isFloat) {
      if constexpr (std::is_same_v<typename K::S, float>) {
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        return std::string(buf, r.ptr);
      } else {
        auto r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(v));
        return std::string(buf, r.ptr);
      }
    } else if constexpr (K::isSigned) {
      return std::to_string(static_cast<int64_t>(v));
    } else {
      return std::to_string(static_cast<uint64_t>(v));
    }
  });
}

void execPrint(Frame &f, const Inst &in) {
  std::string prefix = in.op->strAttr("prefix");
  // The front end normalises prefixes as Triton does (" x: "); the line
  // places its own separators.
  while (!prefix.empty() && (prefix.back() == ' ' || prefix.back() == ':')) prefix.pop_back();
  while (!prefix.empty() && prefix.front() == ' ') prefix.erase(0, 1);
  std::string pid = "pid " + programStr(f);
  std::string text;
  if (in.in.empty()) text = pid + " " + prefix + "\n";
  for (size_t j = 0; j < in.in.size(); ++j) {
    const SlotInfo &s = f.info(in.in[j]);
    std::string label = prefix;
    if (in.in.size() > 1) label += " (operand " + std::to_string(j) + ")";
    for (int64_t i = 0; i < s.numel; ++i) {
      text += pid + " idx " + indexStr(s.shape, i) + " ";
      if (!label.empty()) text += label + ": ";
      text += formatElement(f, in.in[j], i, in.flag) + "\n";
    }
  }
  std::lock_guard<std::mutex> lock(f.ctx->printMu);
  *f.ctx->out << text << std::flush;
}

void execAssert(Frame &f, const Inst &in) {
  if (!f.ctx->opts->debug) return;
  const SlotInfo &s = f.info(in.in[0]);
  for (int64_t i = 0; i < s.numel; ++i) {
    if (readInt(f, in.in[0], i) != 0) continue;
    // "file:line:col: device_assert failed: ..." with the source line below.
    std::string msg = in.op->strAttr("what", "device_assert") +
                      " failed: " + in.op->strAttr("message") + " (program " + programStr(f) +
                      (s.shape.empty() ? std::string()
                       : s.rank() == 1 ? ", index " + std::to_string(i)
                                       : ", index " + indexStr(s.shape, i)) +
                      ")";
    std::string r = renderAt(*f.ctx->opts, in.op->loc, msg, {});
    size_t at = r.find("error: ");
    if (at != std::string::npos) r.erase(at, 7);
    throw RuntimeError(r);
  }
}

}  // namespace

Flow execBlock(Frame &f, const CBlock &b) {
  for (const Inst &in : b.insts) {
    switch (in.code) {
      case OpCode::Constant:
        execConstant(f, in);  // hoisted into Program::once; kept for completeness
        break;
      case OpCode::Arange:
        execArange(f, in);
        break;
      case OpCode::ProgramId:
        writeInt(f, in.out[0], 0, f.pid[in.a]);
        break;
      case OpCode::NumPrograms: {
        const Grid &g = f.ctx->grid;
        writeInt(f, in.out[0], 0, in.a == 0 ? g.x : in.a == 1 ? g.y : g.z);
        break;
      }
      case OpCode::Splat:
        execSplat(f, in);
        break;
      case OpCode::Broadcast:
        execBroadcast(f, in);
        break;
      case OpCode::ExpandDims:
      case OpCode::Reshape:
      case OpCode::Hint:
      case OpCode::ConvertLayout:
        execCopy(f, in);
        break;
      case OpCode::Permute:
        execPermute(f, in);
        break;
      case OpCode::Join:
        execJoin(f, in);
        break;
      case OpCode::Split:
        execSplit(f, in);
        break;
      case OpCode::Cat:
        execCat(f, in);
        break;
      case OpCode::Flip:
        execFlip(f, in);
        break;
      case OpCode::Gather:
        execGather(f, in);
        break;
      case OpCode::Sort:
        execSort(f, in);
        break;
      case OpCode::Histogram:
        execHistogram(f, in);
        break;
      TESSERA_BINARY_CASES:
        execBinary(f, in);
        break;
      case OpCode::Neg:
      case OpCode::Not:
      TESSERA_UNARY_MATH_CASES:
      case OpCode::Abs:
        execUnary(f, in);
        break;
      case OpCode::Cmp:
        execCmp(f, in);
        break;
      case OpCode::Select:
        execSelect(f, in);
        break;
      case OpCode::Fma:
        execFma(f, in);
        break;
      case OpCode::Clamp:
        execClamp(f, in);
        break;
      case OpCode::Cast:
        execCast(f, in);
        break;
      case OpCode::Bitcast:
        execBitcast(f, in);
        break;
      case OpCode::AddPtr:
        execAddPtr(f, in);
        break;
      case OpCode::Load:
        execLoad(f, in);
        break;
      case OpCode::Store:
        execStore(f, in);
        break;
      case OpCode::AtomicRmw:
        execAtomicRmw(f, in);
        break;
      case OpCode::AtomicCas:
        execAtomicCas(f, in);
        break;
      case OpCode::Dot:
        execDot(f, in);
        break;
      case OpCode::Reduce:
        execReduce(f, in);
        break;
      case OpCode::Scan:
        execScan(f, in);
        break;
      case OpCode::MapElementwise:
        execMapElementwise(f, in);
        break;
      case OpCode::Philox:
        execPhilox(f, in);
        break;
      case OpCode::Print:
        execPrint(f, in);
        break;
      case OpCode::Assert:
        execAssert(f, in);
        break;
      case OpCode::Barrier:
      case OpCode::Assume:
        break;  // one program runs as one thread: nothing to wait for
      case OpCode::ReadSreg:
        // One program runs on one host thread: the "SM" is 0, the global
        // timer the host's steady clock in nanoseconds.
        writeInt(f, in.out[0], 0,
                 in.a
                     ? static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                std::chrono::steady_clock::now().time_since_epoch())
                                                .count())
                     : 0);
        break;
      case OpCode::InlineAsm:
      case OpCode::DescriptorLoad:
      case OpCode::DescriptorStore:
      case OpCode::LocalAlloc:
      case OpCode::LocalDealloc:
      case OpCode::MemDescIndex:
      case OpCode::MemDescTrans:
      case OpCode::AsyncCopy:
      case OpCode::LocalStore:
      case OpCode::AsyncCommit:
      case OpCode::AsyncWait:
      case OpCode::BarrierAlloc:
      case OpCode::BarrierDealloc:
      case OpCode::TmaCopy:
      case OpCode::BarrierWait:
      case OpCode::BarrierArrive:
      case OpCode::TensormapCreate:
      case OpCode::WarpSpecialize:
        break;  // refused when the program was compiled (interp_compile.cpp)
      case OpCode::For:
        if (execFor(f, in) == Flow::Return) return Flow::Return;
        break;
      case OpCode::If:
        if (execIf(f, in) == Flow::Return) return Flow::Return;
        break;
      case OpCode::While:
        if (execWhile(f, in) == Flow::Return) return Flow::Return;
        break;
      case OpCode::Yield:
      case OpCode::Condition:
        return Flow::Next;  // the caller reads the terminator's operands
      case OpCode::Return:
        return Flow::Return;
      case OpCode::Call:
        runtimeFail(f, in, "call to @" + in.op->strAttr("callee") + " was not inlined");
    }
  }
  return Flow::Next;
}

namespace {

void bindArgs(const Program &p, std::span<const ArgValue> args, const RunOptions &opts,
              std::vector<std::pair<uint32_t, uint64_t>> &bound) {
  const Function &fn = *p.fn;
  const CBlock &body = p.blocks[0];
  auto fail = [&](const std::string &m) {
    throw RuntimeError(renderAt(opts, fn.loc, "kernel " + fn.name + ": " + m, {}));
  };
  if (args.size() != body.args.size())
    fail("expects " + std::to_string(body.args.size()) + " arguments but " +
         std::to_string(args.size()) + " were passed");
  for (size_t i = 0; i < args.size(); ++i) {
    const SlotInfo &s = p.slots[body.args[i]];
    const std::string &hintName = fn.body.args[i]->nameHint;
    std::string name = "argument " + std::to_string(i) +
                       (hintName.empty() ? std::string() : " (" + hintName + ")");
    if (s.numel != 1 || !s.shape.empty()) fail(name + " is a tile; kernels take scalars");
    const ArgValue &a = args[i];
    uint64_t bits = 0;
    if (s.isPtr) {
      if (a.kind != ArgValue::Kind::Pointer)
        fail(name + " is a pointer, but " +
             (a.kind == ArgValue::Kind::Int ? "an integer" : "a float") + " was passed");
      bits = a.bits;
    } else if (a.kind == ArgValue::Kind::Pointer) {
      fail(name + " is " + irName(s.dtype) + ", but a pointer was passed");
    } else if (isFloat(s.dtype)) {
      double v =
          a.kind == ArgValue::Kind::Float ? a.f : static_cast<double>(static_cast<int64_t>(a.bits));
      bits = constantBits(s.dtype, false, 0, v);
    } else {
      if (a.kind != ArgValue::Kind::Int)
        fail(name + " is " + irName(s.dtype) + ", but a float was passed");
      bits = constantBits(s.dtype, true, static_cast<int64_t>(a.bits), 0);
    }
    bound.emplace_back(body.args[i], bits);
  }
}

void initFrame(Frame &f, const Program &p, Ctx &c,
               const std::vector<std::pair<uint32_t, uint64_t>> &args) {
  f.prog = &p;
  f.ctx = &c;
  f.storage.reset(new char[p.frameBytes + 64]());
  uintptr_t raw = reinterpret_cast<uintptr_t>(f.storage.get());
  f.base = reinterpret_cast<char *>((raw + 63) & ~uintptr_t(63));
  for (const auto &[slot, bits] : args)
    std::memcpy(f.at(slot), &bits, static_cast<size_t>(p.slots[slot].esize));
  for (const Inst &in : p.once) {
    if (in.code == OpCode::Arange)
      execArange(f, in);
    else
      execConstant(f, in);
  }
}

void worker(const Program &p, Ctx &c, std::atomic<int64_t> &next, int64_t total,
            const std::vector<std::pair<uint32_t, uint64_t>> &args) {
  Frame f;
  int64_t pid = -1;
  try {
    initFrame(f, p, c, args);
    for (;;) {
      if (c.abort.load(std::memory_order_relaxed)) return;
      if (gInterrupts.load(std::memory_order_relaxed) != c.interruptsAtStart) interrupted(c);
      pid = next.fetch_add(1);
      if (pid >= total) return;
      int64_t x = pid % c.grid.x, rest = pid / c.grid.x;
      f.pid[0] = static_cast<int32_t>(x);
      f.pid[1] = static_cast<int32_t>(rest % c.grid.y);
      f.pid[2] = static_cast<int32_t>(rest / c.grid.y);
      execBlock(f, p.blocks[0]);
    }
  } catch (const Aborted &) {
  } catch (...) {
    std::string what = "unknown exception";
    bool runtime = false;
    try {
      throw;
    } catch (const RuntimeError &e) {
      what = e.what();
      runtime = true;
    } catch (const std::exception &e) {
      what = e.what();
    } catch (...) {
    }
    std::lock_guard<std::mutex> lock(c.error.mu);
    // Keep the lowest failing program, so reports are stable across runs.
    if (!c.error.set || pid < c.error.program) {
      c.error.set = true;
      c.error.program = pid;
      c.error.message = runtime ? what : "internal error in the interpreter: " + what;
    }
    c.abort.store(true);
  }
}

}  // namespace
}  // namespace detail

Prepared::Prepared(std::unique_ptr<detail::Program> prog) : prog_(std::move(prog)) {}
Prepared::~Prepared() = default;

std::shared_ptr<const Prepared> prepare(const Function &kernel, const RunOptions &opts) {
  return std::make_shared<const Prepared>(detail::compileProgram(kernel, opts));
}

void run(const Function &kernel, std::span<const ArgValue> args,
         std::span<const HostBuffer> buffers, Grid grid, const RunOptions &opts) {
  run(*prepare(kernel, opts), args, buffers, grid, opts);
}

void run(const Prepared &prepared, std::span<const ArgValue> args,
         std::span<const HostBuffer> buffers, Grid grid, const RunOptions &opts) {
  using namespace detail;
  const Program &prog = prepared.program();
  const Function &kernel = *prog.fn;
  constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;  // program_id is i32
  if (grid.x < 0 || grid.y < 0 || grid.z < 0 || grid.x > kMaxDim || grid.y > kMaxDim ||
      grid.z > kMaxDim)
    throw RuntimeError("kernel " + kernel.name + ": grid dimensions must be in [0, 2^31)");
  std::vector<std::pair<uint32_t, uint64_t>> bound;
  bindArgs(prog, args, opts, bound);
  int64_t total = 0;
  if (__builtin_mul_overflow(grid.x, grid.y, &total) ||
      __builtin_mul_overflow(total, grid.z, &total))
    throw RuntimeError("kernel " + kernel.name + ": the grid has too many programs");
  if (total == 0) return;

  Ctx c;
  c.interruptsAtStart = gInterrupts.load();
  c.prog = &prog;
  c.buffers = buffers;
  c.grid = grid;
  c.opts = &opts;
  c.out = opts.printStream ? opts.printStream : &std::cout;
  for (size_t i = 0; i < buffers.size(); ++i) {
    uint64_t lo = reinterpret_cast<uint64_t>(buffers[i].base);
    if (!buffers[i].base || buffers[i].bytes == 0) continue;
    c.ranges.push_back({lo, lo + buffers[i].bytes, static_cast<uint32_t>(i)});
  }
  std::sort(c.ranges.begin(), c.ranges.end(),
            [](const BufRange &a, const BufRange &b) { return a.lo < b.lo; });
  for (const BufRange &r : c.ranges)
    if (!buffers[r.index].readOnly) c.writable.push_back(r);
  if (prog.makesPointers) readMappedMemory(c.mappedReadable, c.mappedWritable);

  // hardware_concurrency() reads /sys on every call: ask once.
  static const int64_t hardwareThreads = std::thread::hardware_concurrency();
  int64_t threads = opts.numThreads > 0 ? opts.numThreads : hardwareThreads;
  threads = std::max<int64_t>(threads, 2);  // a spinning program needs a peer thread
  threads = std::min<int64_t>({threads, total, 256});
  std::atomic<int64_t> next{0};
  runOnThreads(static_cast<int>(threads), [&] { worker(prog, c, next, total, bound); });
  if (c.error.set) throw RuntimeError(c.error.message);
}

void interruptRuns() noexcept {
  detail::gInterrupts.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace tessera::interp
