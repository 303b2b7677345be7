// Interpreter memory ops: masked loads with `other`, masked stores, bounds
// checks and their messages (file:line:col, program id, element index,
// buffer), atomics from many concurrent programs (counters, float and 16-bit
// CAS loops, a spin lock built from atomic_cas / atomic_xchg).
#include <gtest/gtest.h>

#include <cmath>

#include "kernel_builder.h"
#include "support/numerics.h"
#include "support/source.h"

namespace tessera::testing {
namespace {

using interp::ArgValue;
using interp::HostBuffer;

// out[i] = x[i] + y[i] for i < n, BLOCK elements per program.
void buildVectorAdd(KB &k, int64_t block, bool masked = true) {
  Value *px = k.arg(ptr(DType::F32), "x"), *py = k.arg(ptr(DType::F32), "y");
  Value *po = k.arg(ptr(DType::F32), "out"), *n = k.arg(sc(DType::I32), "n");
  Value *start = k.bin(OpCode::Mul, k.pid(), k.ci(block, sc(DType::I32)));
  Value *offs = k.bin(OpCode::Add, k.splat(start, {block}), k.arange(block));
  Value *mask = masked ? k.cmp("lt", offs, k.splat(n, {block})) : nullptr;
  k.b.setLoc({1, 3, 9});
  Value *x = k.load(k.addptr(px, offs), mask);
  k.b.setLoc({1, 4, 9});
  Value *y = k.load(k.addptr(py, offs), mask);
  k.b.setLoc({1, 5, 5});
  k.store(k.addptr(po, offs), k.bin(OpCode::Add, x, y), mask);
  k.ret();
}

const char *kSource =
    "def vadd(x, y, out, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    a = tl.load(x + offs)\n"
    "    b = tl.load(y + offs)\n"
    "    tl.store(out + offs, a + b)\n";

TEST(InterpMemory, VectorAddMaskedTail) {
  KB k("vadd");
  buildVectorAdd(k, 128);
  const int64_t n = 1000;
  std::vector<float> x(n), y(n), out(1024);
  for (auto &v : x) v = randf();
  for (auto &v : y) v = randf();
  poisonNaN(out);
  std::vector<ArgValue> args{ArgValue::pointer(x.data()), ArgValue::pointer(y.data()),
                             ArgValue::pointer(out.data()), ArgValue::integer(n)};
  std::vector<HostBuffer> bufs{buf(x, "x"), buf(y, "y"), buf(out, "out")};
  interp::run(k.fn, args, bufs, {8, 1, 1});
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], x[i] + y[i]) << i;
  for (int64_t i = n; i < 1024; ++i) ASSERT_TRUE(std::isnan(out[i])) << i;
}

TEST(InterpMemory, MaskedLoadReadsOtherOrZero) {
  KB k("other");
  Value *px = k.arg(ptr(DType::I16), "x"), *po = k.arg(ptr(DType::I16), "out");
  Value *po2 = k.arg(ptr(DType::I16), "out2");
  Value *offs = k.arange(16);
  Value *mask = k.cmp("lt", offs, k.splat(k.ci(5, sc(DType::I32)), {16}));
  Value *other = k.splat(k.ci(-7, sc(DType::I16)), {16});
  // Masked-off lanes point far outside the buffer: they must not be checked.
  Value *far = k.bin(OpCode::Add, offs,
                     k.op(OpCode::Select,
                          {mask, k.splat(k.ci(0, sc(DType::I32)), {16}),
                           k.splat(k.ci(1 << 20, sc(DType::I32)), {16})},
                          tile({16}, DType::I32)));
  k.store(k.addptr(po, offs), k.load(k.addptr(px, far), mask, other));
  k.store(k.addptr(po2, offs), k.load(k.addptr(px, far), mask));
  k.ret();
  std::vector<int16_t> x(5), out(16), out2(16);
  for (auto &v : x) v = static_cast<int16_t>(randBits());
  poison(out);
  poison(out2);
  std::vector<ArgValue> args{ArgValue::pointer(x.data()), ArgValue::pointer(out.data()),
                             ArgValue::pointer(out2.data())};
  std::vector<HostBuffer> bufs{buf(x, "x"), buf(out, "out"), buf(out2, "out2")};
  interp::run(k.fn, args, bufs, {});
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(out[i], i < 5 ? x[i] : -7);
    EXPECT_EQ(out2[i], i < 5 ? x[i] : 0);
  }
}

TEST(InterpMemory, OutOfBoundsLoadNamesLineProgramAndElement) {
  SourceManager sm;
  uint32_t file = sm.addFile("kern.py", kSource);
  ASSERT_EQ(file, 1u);
  KB k("vadd");
  buildVectorAdd(k, 64, /*masked=*/false);
  std::vector<float> x(100), y(128), out(128);
  std::vector<ArgValue> args{ArgValue::pointer(x.data()), ArgValue::pointer(y.data()),
                             ArgValue::pointer(out.data()), ArgValue::integer(100)};
  std::vector<HostBuffer> bufs{buf(x, "x"), buf(y, "y"), buf(out, "out")};
  interp::RunOptions opts;
  opts.sources = &sm;
  try {
    interp::run(k.fn, args, bufs, {2, 1, 1}, opts);
    FAIL() << "expected an out-of-bounds error";
  } catch (const RuntimeError &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("kern.py:3:9: error: out-of-bounds load in kernel vadd: program (1, 0, 0) "
                     "reads element 100 of buffer x (100 elements)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("    a = tl.load(x + offs)\n            ^"), std::string::npos) << m;
  }
}

TEST(InterpMemory, OutOfBoundsStoreAndWildAddress) {
  SourceManager sm;
  sm.addFile("kern.py", kSource);
  KB k("vadd");
  buildVectorAdd(k, 64, /*masked=*/false);
  std::vector<float> x(128), y(128), out(127);
  std::vector<ArgValue> args{ArgValue::pointer(x.data()), ArgValue::pointer(y.data()),
                             ArgValue::pointer(out.data()), ArgValue::integer(128)};
  std::vector<HostBuffer> bufs{buf(x, "x"), buf(y, "y"), buf(out, "out")};
  interp::RunOptions opts;
  opts.sources = &sm;
  try {
    interp::run(k.fn, args, bufs, {2, 1, 1}, opts);
    FAIL();
  } catch (const RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find("kern.py:5:5: error: out-of-bounds store in kernel vadd: "
                                         "program (1, 0, 0) writes element 127 of buffer out "
                                         "(127 elements)"),
              std::string::npos)
        << e.what();
  }

  KB w("wild");
  Value *addr = w.arg(sc(DType::I64), "addr");
  Value *p = w.op(OpCode::Cast, {addr}, ptr(DType::I32));
  w.load(p);
  w.ret();
  std::vector<ArgValue> wargs{ArgValue::integer(16)};
  try {
    interp::run(w.fn, wargs, bufs, {});
    FAIL();
  } catch (const RuntimeError &e) {
    EXPECT_NE(
        std::string(e.what()).find("address 0x10 is outside every buffer passed to the kernel"),
        std::string::npos)
        << e.what();
  }
}

TEST(InterpMemory, AtomicCountersFromManyPrograms) {
  KB k("count");
  Value *pi = k.arg(ptr(DType::I32), "i"), *pf = k.arg(ptr(DType::F32), "f");
  Value *ph = k.arg(ptr(DType::F16), "h"), *pm = k.arg(ptr(DType::I64), "m");
  Value *pb = k.arg(ptr(DType::U8), "bytes");
  auto rmw = [&](Value *p, Value *v, const char *kind) {
    return k.op(OpCode::AtomicRmw, {p, v}, v->type,
                {{"kind", std::string(kind)},
                 {"sem", std::string("acq_rel")},
                 {"scope", std::string("gpu")}});
  };
  rmw(pi, k.ci(1, sc(DType::I32)), "add");
  rmw(pf, k.cf(0.5, sc(DType::F32)), "add");
  rmw(ph, k.cf(1.0, sc(DType::F16)), "add");
  Value *pid64 = k.op(OpCode::Cast, {k.pid()}, sc(DType::I64));
  rmw(pm, pid64, "max");
  // Four adjacent bytes updated concurrently: CAS on the shared word.
  Value *lane = k.op(OpCode::Cast, {k.arange(4)}, tile({4}, DType::I32));
  rmw(k.addptr(pb, lane), k.splat(k.ci(1, sc(DType::U8)), {4}), "add");
  k.ret();
  std::vector<int32_t> i(1, 0);
  std::vector<float> f(1, 0);
  std::vector<uint16_t> h(1, 0);
  std::vector<int64_t> m(1, -5);
  std::vector<uint8_t> bytes(4, 0);
  std::vector<ArgValue> args{ArgValue::pointer(i.data()), ArgValue::pointer(f.data()),
                             ArgValue::pointer(h.data()), ArgValue::pointer(m.data()),
                             ArgValue::pointer(bytes.data())};
  std::vector<HostBuffer> bufs{buf(i, "i"), buf(f, "f"), buf(h, "h"), buf(m, "m"),
                               buf(bytes, "bytes")};
  interp::RunOptions opts;
  opts.numThreads = 4;
  interp::run(k.fn, args, bufs, {250, 2, 2}, opts);
  EXPECT_EQ(i[0], 1000);
  EXPECT_EQ(f[0], 500.0f);
  EXPECT_EQ(num::fromF16(h[0]), 1000.0);
  EXPECT_EQ(m[0], 249);
  for (int b = 0; b < 4; ++b) EXPECT_EQ(bytes[b], 1000 % 256);
}

TEST(InterpMemory, SpinLockProtectedReadModifyWrite) {
  KB k("locked");
  Value *plock = k.arg(ptr(DType::I32), "lock"), *pc = k.arg(ptr(DType::I32), "counter");
  Operation *w = k.b.create(OpCode::While, {}, {}, {}, 2);
  {
    Builder in(w->regions[0].get());
    Value *old = in.op1(OpCode::AtomicCas,
                        {plock, in.constInt(0, sc(DType::I32)), in.constInt(1, sc(DType::I32))},
                        sc(DType::I32), {{"sem", std::string("acquire")}});
    Value *busy = in.op1(OpCode::Cmp, {old, in.constInt(0, sc(DType::I32))}, sc(DType::I1),
                         {{"pred", std::string("ne")}});
    in.create(OpCode::Condition, {busy}, {});
    Builder after(w->regions[1].get());
    after.create(OpCode::Yield, {}, {});
  }
  Value *v = k.load(pc);
  k.store(pc, k.bin(OpCode::Add, v, k.ci(1, sc(DType::I32))));
  k.op(OpCode::AtomicRmw, {plock, k.ci(0, sc(DType::I32))}, sc(DType::I32),
       {{"kind", std::string("xchg")}, {"sem", std::string("release")}});
  k.ret();
  std::vector<int32_t> lock(1, 0), counter(1, 0);
  std::vector<ArgValue> args{ArgValue::pointer(lock.data()), ArgValue::pointer(counter.data())};
  std::vector<HostBuffer> bufs{buf(lock, "lock"), buf(counter, "counter")};
  interp::RunOptions opts;
  opts.numThreads = 4;
  interp::run(k.fn, args, bufs, {3000, 1, 1}, opts);
  EXPECT_EQ(counter[0], 3000);
  EXPECT_EQ(lock[0], 0);
}

TEST(InterpMemory, AtomicCasReturnsOldAndTileRmwIsPerElement) {
  KB k("cas");
  Value *p = k.arg(ptr(DType::I32), "p"), *po = k.arg(ptr(DType::I32), "out");
  Value *offs = k.arange(8);
  Value *ptrs = k.addptr(p, offs);
  Value *old =
      k.op(OpCode::AtomicCas,
           {ptrs, k.splat(k.ci(3, sc(DType::I32)), {8}), k.splat(k.ci(9, sc(DType::I32)), {8})},
           tile({8}, DType::I32));
  k.store(k.addptr(po, offs), old);
  // Masked max: only even lanes.
  Value *even = k.cmp("eq", k.bin(OpCode::And, offs, k.splat(k.ci(1, sc(DType::I32)), {8})),
                      k.splat(k.ci(0, sc(DType::I32)), {8}));
  k.op(OpCode::AtomicRmw, {ptrs, k.splat(k.ci(5, sc(DType::I32)), {8}), even},
       tile({8}, DType::I32), {{"kind", std::string("max")}});
  k.ret();
  std::vector<int32_t> p0{3, 1, 3, 7, 0, 3, 3, 3}, out(8);
  poison(out);
  std::vector<ArgValue> args{ArgValue::pointer(p0.data()), ArgValue::pointer(out.data())};
  std::vector<HostBuffer> bufs{buf(p0, "p"), buf(out, "out")};
  interp::run(k.fn, args, bufs, {});
  std::vector<int32_t> wantOld{3, 1, 3, 7, 0, 3, 3, 3}, wantP{9, 1, 9, 7, 5, 9, 9, 9};
  EXPECT_EQ(out, wantOld);
  EXPECT_EQ(p0, wantP);
}

}  // namespace
}  // namespace tessera::testing
