// Internal to the interpreter: the compiled form of a kernel and the
// per-thread frame that programs execute in.
//
// run() first compiles the Function once: every Value gets a dense slot (a
// fixed byte range of a frame, sized from its static type), and every
// Operation becomes an Inst with its operand/result slots and its attributes
// decoded (so nothing is looked up by name while programs run). Each worker
// thread owns one Frame, reused for all the programs it runs; constants and
// aranges are materialised into it once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "interp/interp.h"

namespace tessera::interp::detail {

enum class Bin : uint8_t { Add, Sub, Mul, Div, Rem, And, Or, Xor, Shl, Shr, Max, Min, Umulhi };
enum class Un : uint8_t {
  Neg,
  Not,
  Exp,
  Exp2,
  Log,
  Log2,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Abs,
  Erf,
  Floor,
  Ceil
};
enum class Pred : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
enum class Rmw : uint8_t { Add, Max, Min, And, Or, Xor, Xchg };
enum class DotPrec : uint8_t { Ieee, Tf32, Tf32x3 };

struct SlotInfo {
  size_t offset = 0;  // byte offset in the frame
  int64_t numel = 1;
  int esize = 1;             // bytes per element
  DType dtype = DType::I32;  // element dtype (the pointee for pointers)
  bool isPtr = false;
  std::vector<int64_t> shape;  // empty for scalars
  int rank() const { return static_cast<int>(shape.size()); }
  // The dtype whose arithmetic applies: pointers compare/add as u64.
  DType arith() const { return isPtr ? DType::U64 : dtype; }
};

struct Inst {
  OpCode code = OpCode::Barrier;
  const Operation *op = nullptr;
  std::vector<uint32_t> in, out;  // slots of operands / results
  std::vector<uint32_t> regions;  // indices into Program::blocks
  uint8_t sub = 0;                // Bin / Un / Pred / Rmw / DotPrec, per op
  bool flag = false;              // propagate_nan, descending, reverse, hex, rtz, fast path
  int64_t a = 0, b = 0;           // axis, start, bins, rounds, ...
  uint64_t bits = 0;              // constant: the element's bit pattern
  std::vector<int64_t> ints;      // permute order
};

struct CBlock {
  std::vector<uint32_t> args;  // slots of the block arguments
  std::vector<Inst> insts;     // includes the terminator, if any
  const Inst *term = nullptr;  // yield / condition ending the block (or null)
};

struct Program {
  const Function *fn = nullptr;
  // The kernel with its descriptor_loads expanded (ir/descriptor_load.h),
  // which `fn` points into; null when the kernel had none.
  std::unique_ptr<Function> expanded;
  std::vector<SlotInfo> slots;
  std::vector<CBlock> blocks;  // blocks[0] is the function body
  std::vector<Inst> once;      // constants and aranges, run once per frame
  size_t frameBytes = 0;
  // The kernel turns integers into pointers (tutorial 08's table of matrix
  // addresses): its accesses may reach memory no argument covers.
  bool makesPointers = false;
};

struct BufRange {
  uint64_t lo = 0, hi = 0;  // [lo, hi)
  uint32_t index = 0;       // into the caller's buffers
};

struct ErrorBox {
  std::mutex mu;
  bool set = false;
  int64_t program = 0;
  std::string message;
};

// Shared, read-mostly state of one run().
// The tag of an address whose pointer arithmetic left the 64-bit address
// space (add_ptr with a huge offset): no buffer lies at or above it, so an
// unmasked access through it is reported, not wrapped into a buffer.
inline constexpr uint64_t kOverflowedAddress = uint64_t{1} << 63;

// How many times interruptRuns() was called: a run stops when it changes.
extern std::atomic<uint64_t> gInterrupts;

struct Ctx {
  const Program *prog = nullptr;
  std::span<const HostBuffer> buffers;
  std::vector<BufRange> ranges;    // sorted by lo
  std::vector<BufRange> writable;  // the ranges of buffers that are not read-only
  // For kernels that make pointers from integers: the process's mapped memory
  // (readable / writable), tried after the buffers. Indices are meaningless.
  std::vector<BufRange> mappedReadable, mappedWritable;
  Grid grid;
  const RunOptions *opts = nullptr;
  std::ostream *out = nullptr;
  std::mutex printMu;
  std::atomic<bool> abort{false};
  uint64_t interruptsAtStart = 0;  // gInterrupts when the run began
  ErrorBox error;
};

// The process's mapped memory, readable and writable, sorted (Linux; empty
// elsewhere): where pointers made from integers may point.
void readMappedMemory(std::vector<BufRange> &readable, std::vector<BufRange> &writable);

// Thrown inside a worker when another program failed: unwinds quietly.
struct Aborted {};

struct Frame {
  const Program *prog = nullptr;
  Ctx *ctx = nullptr;
  char *base = nullptr;
  std::unique_ptr<char[]> storage;
  int32_t pid[3] = {0, 0, 0};
  std::vector<char> scratch[4];  // reused temporaries of reduce/dot/sort

  template <class T = char>
  T *at(uint32_t slot) const {
    return reinterpret_cast<T *>(base + prog->slots[slot].offset);
  }
  const SlotInfo &info(uint32_t slot) const { return prog->slots[slot]; }
  char *scratchBytes(int i, size_t bytes) {
    if (scratch[i].size() < bytes) scratch[i].resize(bytes);
    return scratch[i].data();
  }
};

enum class Flow { Next, Return };

// ---- interp.cpp ---------------------------------------------------------------
Flow execBlock(Frame &f, const CBlock &b);
// Renders "file:line:col: error: message" with the source line, for errors
// raised while a program runs.
[[noreturn]] void runtimeFail(const Frame &f, const Inst &in, const std::string &message,
                              const std::string &hint = {});
std::string programStr(const Frame &f);  // "(x, y, z)"
std::string indexStr(const std::vector<int64_t> &shape, int64_t flat);

// ---- interp_compile.cpp ---------------------------------------------------------
// Throws RuntimeError for IR the interpreter cannot run.
std::unique_ptr<Program> compileProgram(const Function &fn, const RunOptions &opts);
std::string locPrefix(const RunOptions &opts, SourceLoc loc);  // "file:l:c: " or ""
std::string renderAt(const RunOptions &opts, SourceLoc loc, const std::string &message,
                     const std::string &hint);

// ---- interp_elementwise.cpp ------------------------------------------------------
void execConstant(Frame &f, const Inst &in);
void execArange(Frame &f, const Inst &in);
void execBinary(Frame &f, const Inst &in);
void execUnary(Frame &f, const Inst &in);
void execCmp(Frame &f, const Inst &in);
void execSelect(Frame &f, const Inst &in);
void execFma(Frame &f, const Inst &in);
void execClamp(Frame &f, const Inst &in);
void execCast(Frame &f, const Inst &in);
void execBitcast(Frame &f, const Inst &in);
void execAddPtr(Frame &f, const Inst &in);
void execPhilox(Frame &f, const Inst &in);
// Integer value of element i of a slot (sign- or zero-extended by dtype).
int64_t readInt(const Frame &f, uint32_t slot, int64_t i);
void writeInt(Frame &f, uint32_t slot, int64_t i, int64_t v);
// Bit pattern of `v` (an int or float attribute value) as an element of dt.
uint64_t constantBits(DType dt, bool isInt, int64_t iv, double fv);

// ---- interp_memory.cpp -----------------------------------------------------------
void execLoad(Frame &f, const Inst &in);
void execStore(Frame &f, const Inst &in);
void execAtomicRmw(Frame &f, const Inst &in);
void execAtomicCas(Frame &f, const Inst &in);

// ---- interp_shape.cpp ------------------------------------------------------------
void execSplat(Frame &f, const Inst &in);
void execBroadcast(Frame &f, const Inst &in);
void execCopy(Frame &f, const Inst &in);  // expand_dims, reshape, hint
void execPermute(Frame &f, const Inst &in);
void execJoin(Frame &f, const Inst &in);
void execSplit(Frame &f, const Inst &in);
void execCat(Frame &f, const Inst &in);
void execFlip(Frame &f, const Inst &in);
void execGather(Frame &f, const Inst &in);

// ---- interp_reduce.cpp -----------------------------------------------------------
void execReduce(Frame &f, const Inst &in);
void execMapElementwise(Frame &f, const Inst &in);  // interp_reduce.cpp
void execScan(Frame &f, const Inst &in);
void execSort(Frame &f, const Inst &in);
void execHistogram(Frame &f, const Inst &in);

// ---- interp_dot.cpp --------------------------------------------------------------
void execDot(Frame &f, const Inst &in);

}  // namespace tessera::interp::detail
