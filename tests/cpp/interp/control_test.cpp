// Interpreter control flow (for with positive/negative/zero-trip ranges and
// tile iter args, if with results, while, early return), Philox against the
// reference implementation, device_print / device_assert, and the argument
// and IR errors run() reports.
#include <gtest/gtest.h>

#include <sstream>

#include "kernel_builder.h"
#include "support/numerics.h"
#include "support/source.h"

namespace tessera::testing {
namespace {

using interp::ArgValue;
using interp::HostBuffer;

// sum of iv over range(lb, ub, step), and a tile accumulating splat(iv).
Value *buildFor(KB &k, int64_t lb, int64_t ub, int64_t step, Value **tileOut) {
  Type i32 = sc(DType::I32);
  Value *init = k.ci(100, i32), *tinit = k.splat(k.ci(0, i32), {4});
  Operation *f =
      k.b.create(OpCode::For, {k.ci(lb, i32), k.ci(ub, i32), k.ci(step, i32), init, tinit},
                 {i32, tile({4}, DType::I32)}, {}, 1);
  Block *body = f->regions[0].get();
  Value *iv = body->addArg(i32), *acc = body->addArg(i32),
        *tacc = body->addArg(tile({4}, DType::I32));
  Builder in(body);
  Value *s = in.op1(OpCode::Add, {acc, iv}, i32);
  Value *ts = in.op1(OpCode::Add, {tacc, in.op1(OpCode::Splat, {iv}, tile({4}, DType::I32))},
                     tile({4}, DType::I32));
  in.create(OpCode::Yield, {s, ts}, {});
  *tileOut = f->result(1);
  return f->result(0);
}

TEST(InterpControl, ForLoopsCarryValues) {
  struct Case {
    int64_t lb, ub, step;
  } cases[] = {{3, 20, 4}, {10, 0, -3}, {5, 5, 1}, {7, 2, 1}, {-4, 4, 3}};
  for (const Case &c : cases) {
    KB k("loop");
    Value *po = k.arg(ptr(DType::I32)), *pt = k.arg(ptr(DType::I32));
    Value *t;
    Value *r = buildFor(k, c.lb, c.ub, c.step, &t);
    k.store(po, r);
    k.store(k.addptr(pt, k.arange(4)), t);
    k.ret();
    std::vector<int32_t> out(1), tout(4);
    poison(out);
    poison(tout);
    std::vector<ArgValue> args{ArgValue::pointer(out.data()), ArgValue::pointer(tout.data())};
    std::vector<HostBuffer> bufs{buf(out, "out"), buf(tout, "t")};
    interp::run(k.fn, args, bufs, {});
    int32_t want = 0;
    for (int64_t i = c.lb; c.step > 0 ? i < c.ub : i > c.ub; i += c.step)
      want += static_cast<int32_t>(i);
    EXPECT_EQ(out[0], 100 + want) << c.lb << " " << c.ub << " " << c.step;
    EXPECT_EQ(tout[3], want);
  }
}

TEST(InterpControl, IfWithResultsAndEarlyReturn) {
  KB k("branch");
  Value *po = k.arg(ptr(DType::F32));
  Value *pid = k.pid();
  Value *isZero = k.cmp("eq", pid, k.ci(0, sc(DType::I32)));
  Operation *iff = k.b.create(OpCode::If, {isZero}, {sc(DType::F32)}, {}, 2);
  {
    Builder t(iff->regions[0].get());
    t.create(OpCode::Yield, {t.constFloat(1.5, sc(DType::F32))}, {});
    Builder e(iff->regions[1].get());
    e.create(OpCode::Yield, {e.constFloat(2.5, sc(DType::F32))}, {});
  }
  // Program 2 returns before storing.
  Value *isTwo = k.cmp("eq", pid, k.ci(2, sc(DType::I32)));
  Operation *ret = k.b.create(OpCode::If, {isTwo}, {}, {}, 2);
  Builder(ret->regions[0].get()).create(OpCode::Return, {}, {});
  k.store(k.addptr(po, pid), iff->result());
  k.ret();
  std::vector<float> out(4);
  poisonNaN(out);
  std::vector<ArgValue> args{ArgValue::pointer(out.data())};
  std::vector<HostBuffer> bufs{buf(out, "out")};
  interp::run(k.fn, args, bufs, {4, 1, 1});
  EXPECT_EQ(out[0], 1.5f);
  EXPECT_EQ(out[1], 2.5f);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(out[3], 2.5f);
}

TEST(InterpControl, WhileLoopCollatz) {
  KB k("collatz");
  Value *pn = k.arg(ptr(DType::I64)), *po = k.arg(ptr(DType::I32));
  Type i64 = sc(DType::I64), i32 = sc(DType::I32);
  Value *n0 = k.load(k.addptr(pn, k.pid()));
  Operation *w = k.b.create(OpCode::While, {n0, k.ci(0, i32)}, {i64, i32}, {}, 2);
  {
    Block *bb = w->regions[0].get();
    Value *n = bb->addArg(i64), *s = bb->addArg(i32);
    Builder b(bb);
    Value *c =
        b.op1(OpCode::Cmp, {n, b.constInt(1, i64)}, sc(DType::I1), {{"pred", std::string("ne")}});
    b.create(OpCode::Condition, {c, n, s}, {});
    Block *ab = w->regions[1].get();
    Value *an = ab->addArg(i64), *as = ab->addArg(i32);
    Builder a(ab);
    Value *odd =
        a.op1(OpCode::Cmp, {a.op1(OpCode::And, {an, a.constInt(1, i64)}, i64), a.constInt(1, i64)},
              sc(DType::I1), {{"pred", std::string("eq")}});
    Value *up = a.op1(OpCode::Add,
                      {a.op1(OpCode::Mul, {an, a.constInt(3, i64)}, i64), a.constInt(1, i64)}, i64);
    Value *down = a.op1(OpCode::Div, {an, a.constInt(2, i64)}, i64);
    Value *next = a.op1(OpCode::Select, {odd, up, down}, i64);
    a.create(OpCode::Yield, {next, a.op1(OpCode::Add, {as, a.constInt(1, i32)}, i32)}, {});
  }
  k.store(k.addptr(po, k.pid()), w->result(1));
  k.ret();
  std::vector<int64_t> n{27, 1, 6, 97};
  std::vector<int32_t> out(4);
  poison(out);
  std::vector<ArgValue> args{ArgValue::pointer(n.data()), ArgValue::pointer(out.data())};
  std::vector<HostBuffer> bufs{buf(n, "n"), buf(out, "out")};
  interp::run(k.fn, args, bufs, {4, 1, 1});
  std::vector<int32_t> want;
  for (int64_t v : n) {
    int32_t s = 0;
    while (v != 1) {
      v = (v & 1) ? 3 * v + 1 : v / 2;
      ++s;
    }
    want.push_back(s);
  }
  EXPECT_EQ(out, want);
}

TEST(InterpControl, PhiloxMatchesReferenceAndIsDeterministic) {
  KB k("rand");
  Value *pseed = k.arg(sc(DType::I64), "seed");
  std::vector<Value *> outs;
  for (int j = 0; j < 4; ++j) outs.push_back(k.arg(ptr(DType::U32)));
  Value *offs = k.bin(OpCode::Add, k.arange(64),
                      k.splat(k.bin(OpCode::Mul, k.pid(), k.ci(64, sc(DType::I32))), {64}));
  Operation *ph = k.b.create(OpCode::Philox, {pseed, offs},
                             {tile({64}, DType::U32), tile({64}, DType::U32),
                              tile({64}, DType::U32), tile({64}, DType::U32)},
                             {{"rounds", int64_t(10)}});
  for (int j = 0; j < 4; ++j) k.store(k.addptr(outs[j], offs), ph->result(j));
  k.ret();
  int64_t seed = 0x123456789abcLL;
  std::vector<std::vector<uint32_t>> r1(4, std::vector<uint32_t>(128)), r2 = r1;
  auto runOnce = [&](std::vector<std::vector<uint32_t>> &r) {
    for (auto &v : r) poison(v);
    std::vector<ArgValue> args{ArgValue::integer(seed)};
    std::vector<HostBuffer> bufs;
    for (auto &v : r) {
      args.push_back(ArgValue::pointer(v.data()));
      bufs.push_back(buf(v, "r"));
    }
    interp::run(k.fn, args, bufs, {2, 1, 1});
  };
  runOnce(r1);
  runOnce(r2);
  EXPECT_EQ(r1, r2);
  for (uint32_t i = 0; i < 128; ++i) {
    uint32_t c[4] = {i, 0, 0, 0};
    num::philox4x32(c, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), 10);
    for (int j = 0; j < 4; ++j) ASSERT_EQ(r1[j][i], c[j]) << i;
  }
}

TEST(InterpControl, DevicePrintFormat) {
  KB k("pr");
  Value *x = k.arange(2);
  k.b.create(OpCode::Print, {x}, {}, {{"prefix", std::string("x: ")}});
  k.b.create(OpCode::Print, {k.cf(0.5, sc(DType::F32))}, {}, {{"prefix", std::string("h")}});
  k.ret();
  std::ostringstream os;
  interp::RunOptions opts;
  opts.printStream = &os;
  interp::run(k.fn, {}, {}, {1, 1, 1}, opts);
  EXPECT_EQ(
      os.str(),
      "pid (0, 0, 0) idx (0) x: 0\npid (0, 0, 0) idx (1) x: 1\npid (0, 0, 0) idx () h: 0.5\n");
}

TEST(InterpControl, DeviceAssertOnlyInDebug) {
  SourceManager sm;
  sm.addFile("k.py", "def k():\n    tl.device_assert(x < 3, 'x too big')\n");
  KB k("asrt");
  Value *ok = k.cmp("lt", k.arange(8), k.splat(k.ci(3, sc(DType::I32)), {8}));
  k.b.setLoc({1, 2, 5});
  k.b.create(OpCode::Assert, {ok}, {}, {{"message", std::string("x too big")}});
  k.ret();
  interp::RunOptions opts;
  opts.sources = &sm;
  interp::run(k.fn, {}, {}, {2, 1, 1}, opts);  // not checked without debug
  opts.debug = true;
  try {
    interp::run(k.fn, {}, {}, {1, 1, 1}, opts);
    FAIL();
  } catch (const RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "k.py:2:5: device_assert failed: x too big (program (0, 0, 0), index 3)"),
              std::string::npos)
        << e.what();
  }
}

TEST(InterpControl, ArgumentMismatchesAreReported) {
  KB k("args");
  k.arg(ptr(DType::F32), "x");
  k.arg(sc(DType::I32), "n");
  k.ret();
  auto expectError = [&](std::vector<ArgValue> args, const char *what) {
    try {
      interp::run(k.fn, args, {}, {});
      FAIL() << what;
    } catch (const RuntimeError &e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  float f = 0;
  expectError({ArgValue::pointer(&f)}, "expects 2 arguments but 1 were passed");
  expectError({ArgValue::integer(3), ArgValue::integer(3)},
              "argument 0 (x) is a pointer, but an integer was passed");
  expectError({ArgValue::pointer(&f), ArgValue::pointer(&f)},
              "argument 1 (n) is i32, but a pointer was passed");
}

TEST(InterpControl, CallIsNotInlinedError) {
  KB k("caller");
  k.b.create(OpCode::Call, {}, {}, {{"callee", std::string("helper")}});
  k.ret();
  try {
    interp::run(k.fn, {}, {}, {});
    FAIL();
  } catch (const RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find("call to @helper was not inlined"), std::string::npos);
  }
}

TEST(InterpControl, MalformedIrIsRejectedNotCrashed) {
  KB k("bad");
  Value *a = k.arange(8);
  Value *b = k.ci(1, sc(DType::I64));
  k.op(OpCode::Add, {a, b}, tile({8}, DType::I32));  // mixed dtypes
  k.ret();
  EXPECT_THROW(interp::run(k.fn, {}, {}, {}), RuntimeError);
  KB k2("bad2");
  k2.op(OpCode::Add, {k2.arange(8), k2.arange(4)}, tile({8}, DType::I32));  // mismatched shapes
  EXPECT_THROW(interp::run(k2.fn, {}, {}, {}), RuntimeError);
}

}  // namespace
}  // namespace tessera::testing
