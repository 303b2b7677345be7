// Interpreter compute ops against double-precision references: dot (fp32
// ieee/tf32/tf32x3, fp16, batched, int8), reduce (fast paths and a generic
// argmax region), scan (forward, reverse, generic), sort, histogram, gather,
// and the shape ops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernel_builder.h"
#include "support/numerics.h"

namespace tessera::testing {
namespace {

using interp::ArgValue;
using interp::HostBuffer;

int64_t numelOf(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}
Value *loadTile(KB &k, Value *p, std::vector<int64_t> shape) {
  int64_t n = numelOf(shape);
  Value *flat = k.load(k.addptr(p, k.arange(n)));
  return k.op(OpCode::Reshape, {flat}, tile(shape, p->type.dtype));
}
void storeTile(KB &k, Value *p, Value *v) {
  int64_t n = v->type.numel();
  Value *flat = v->type.rank() == 1 ? v : k.op(OpCode::Reshape, {v}, tile({n}, v->type.dtype));
  k.store(k.addptr(p, k.arange(n)), flat);
}

// Runs `k` once with the given host vectors as pointer arguments.
template <class... V>
void runWith(KB &k, V &...vs) {
  std::vector<ArgValue> args{ArgValue::pointer(vs.data())...};
  std::vector<HostBuffer> bufs{buf(vs, "b")...};
  interp::run(k.fn, args, bufs, {});
}

std::vector<float> randVec(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (auto &x : v) x = randf(-2, 2);
  return v;
}

// out = a @ b + c for fp32 operands with a precision.
std::vector<float> runDotF32(const std::vector<float> &a, const std::vector<float> &b,
                             const std::vector<float> &c, int64_t B, int64_t M, int64_t K,
                             int64_t N, const char *prec) {
  KB k("dot");
  Value *pa = k.arg(ptr(DType::F32)), *pb = k.arg(ptr(DType::F32)), *pc = k.arg(ptr(DType::F32));
  Value *po = k.arg(ptr(DType::F32));
  auto shp = [&](int64_t x, int64_t y) {
    return B > 1 ? std::vector<int64_t>{B, x, y} : std::vector<int64_t>{x, y};
  };
  Value *d =
      k.op(OpCode::Dot,
           {loadTile(k, pa, shp(M, K)), loadTile(k, pb, shp(K, N)), loadTile(k, pc, shp(M, N))},
           tile(shp(M, N), DType::F32), {{"input_precision", std::string(prec)}});
  storeTile(k, po, d);
  k.ret();
  std::vector<float> out(static_cast<size_t>(B * M * N));
  poisonNaN(out);
  auto a1 = a, b1 = b, c1 = c;
  runWith(k, a1, b1, c1, out);
  return out;
}

double refDot(const std::vector<float> &a, const std::vector<float> &b, const std::vector<float> &c,
              int64_t bt, int64_t m, int64_t n, int64_t M, int64_t K, int64_t N, bool tf32,
              double *absSum) {
  double acc = c[(bt * M + m) * N + n];
  *absSum = std::fabs(acc);
  for (int64_t k = 0; k < K; ++k) {
    double x = a[(bt * M + m) * K + k], y = b[(bt * K + k) * N + n];
    if (tf32) {
      x = num::toTF32(static_cast<float>(x), false);
      y = num::toTF32(static_cast<float>(y), false);
    }
    acc += x * y;
    *absSum += std::fabs(x * y);
  }
  return acc;
}

TEST(InterpCompute, DotF32IeeeTf32AndBatched) {
  for (int64_t B : {1, 2}) {
    int64_t M = 16, K = 32, N = 8;
    auto a = randVec(B * M * K), b = randVec(B * K * N), c = randVec(B * M * N);
    auto ieee = runDotF32(a, b, c, B, M, K, N, "ieee");
    auto tf = runDotF32(a, b, c, B, M, K, N, "tf32");
    auto x3 = runDotF32(a, b, c, B, M, K, N, "tf32x3");
    int differ = 0;
    for (int64_t bt = 0; bt < B; ++bt)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          size_t i = static_cast<size_t>((bt * M + m) * N + n);
          double s1, s2;
          double want = refDot(a, b, c, bt, m, n, M, K, N, false, &s1);
          double wantTf = refDot(a, b, c, bt, m, n, M, K, N, true, &s2);
          ASSERT_NEAR(ieee[i], want, 1e-6 * s1 + 1e-7);
          ASSERT_NEAR(x3[i], want, 1e-5 * s1 + 1e-7);
          ASSERT_NEAR(tf[i], wantTf, 1e-6 * s2 + 1e-7);
          differ += tf[i] != ieee[i];
        }
    EXPECT_GT(differ, 0) << "tf32 rounding had no effect";
  }
}

TEST(InterpCompute, DotF16AndInt8) {
  int64_t M = 16, K = 16, N = 16;
  std::vector<uint16_t> a(M * K), b(K * N);
  std::vector<float> c(M * N, 0.5f), out(M * N);
  for (auto &x : a) x = num::toF16(randf(-2, 2));
  for (auto &x : b) x = num::toF16(randf(-2, 2));
  poisonNaN(out);
  KB k("dot16");
  Value *pa = k.arg(ptr(DType::F16)), *pb = k.arg(ptr(DType::F16)), *pc = k.arg(ptr(DType::F32));
  Value *po = k.arg(ptr(DType::F32));
  Value *d =
      k.op(OpCode::Dot, {loadTile(k, pa, {M, K}), loadTile(k, pb, {K, N}), loadTile(k, pc, {M, N})},
           tile({M, N}, DType::F32));
  storeTile(k, po, d);
  k.ret();
  runWith(k, a, b, c, out);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0.5, s = 0.5;
      for (int64_t kk = 0; kk < K; ++kk) {
        double p = num::fromF16(a[m * K + kk]) * num::fromF16(b[kk * N + n]);
        acc += p;
        s += std::fabs(p);
      }
      ASSERT_NEAR(out[m * N + n], acc, 1e-6 * s);
    }

  std::vector<int8_t> ia(M * K), ib(K * N);
  std::vector<int32_t> ic(M * N), iout(M * N);
  for (auto &x : ia) x = static_cast<int8_t>(randBits());
  for (auto &x : ib) x = static_cast<int8_t>(randBits());
  for (auto &x : ic) x = static_cast<int32_t>(randBits() % 1000);
  poison(iout);
  KB ki("doti8");
  Value *qa = ki.arg(ptr(DType::I8)), *qb = ki.arg(ptr(DType::I8)), *qc = ki.arg(ptr(DType::I32));
  Value *qo = ki.arg(ptr(DType::I32));
  Value *di = ki.op(OpCode::Dot,
                    {loadTile(ki, qa, {M, K}), loadTile(ki, qb, {K, N}), loadTile(ki, qc, {M, N})},
                    tile({M, N}, DType::I32));
  storeTile(ki, qo, di);
  ki.ret();
  runWith(ki, ia, ib, ic, iout);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      int64_t acc = ic[m * N + n];
      for (int64_t kk = 0; kk < K; ++kk) acc += int64_t(ia[m * K + kk]) * ib[kk * N + n];
      ASSERT_EQ(iout[m * N + n], acc);
    }
}

TEST(InterpCompute, ReduceFastPathsAndScalarResult) {
  int64_t R = 8, C = 32;
  auto x = randVec(R * C);
  std::vector<float> rowSum(R), colMax(C), total(1);
  poisonNaN(rowSum);
  poisonNaN(colMax);
  poisonNaN(total);
  KB k("red");
  Value *px = k.arg(ptr(DType::F32)), *ps = k.arg(ptr(DType::F32)), *pm = k.arg(ptr(DType::F32));
  Value *pt = k.arg(ptr(DType::F32));
  Value *t = loadTile(k, px, {R, C});
  Value *sum = k.reduce(t, 1, OpCode::Add);
  storeTile(k, ps, sum);
  storeTile(k, pm, k.reduce(t, 0, OpCode::Max));
  k.store(pt, k.reduce(sum, 0, OpCode::Add));  // rank 1 -> scalar
  k.ret();
  runWith(k, x, rowSum, colMax, total);
  double all = 0;
  for (int64_t r = 0; r < R; ++r) {
    double s = 0;
    for (int64_t c = 0; c < C; ++c) s += x[r * C + c];
    all += s;
    EXPECT_NEAR(rowSum[r], s, 1e-5);
  }
  for (int64_t c = 0; c < C; ++c) {
    float m = -INFINITY;
    for (int64_t r = 0; r < R; ++r) m = std::max(m, x[r * C + c]);
    EXPECT_EQ(colMax[c], m);
  }
  EXPECT_NEAR(total[0], all, 1e-4);
}

TEST(InterpCompute, ReduceGenericArgmaxRegion) {
  int64_t R = 4, C = 64;
  auto x = randVec(R * C);
  x[5] = x[9] = 100.0f;  // a tie in row 0: the lower index wins
  std::vector<int32_t> idx(R);
  std::vector<float> val(R);
  poison(idx);
  poisonNaN(val);
  KB k("argmax");
  Value *px = k.arg(ptr(DType::F32)), *pi = k.arg(ptr(DType::I32)), *pv = k.arg(ptr(DType::F32));
  Value *t = loadTile(k, px, {R, C});
  Value *cols = k.op(
      OpCode::Broadcast,
      {k.op(OpCode::ExpandDims, {k.arange(C)}, tile({1, C}, DType::I32), {{"axis", int64_t(0)}})},
      tile({R, C}, DType::I32));
  Operation *red =
      k.b.create(OpCode::Reduce, {t, cols}, {tile({R}, DType::F32), tile({R}, DType::I32)},
                 {{"axis", int64_t(1)}}, 1);
  {
    Block *body = red->regions[0].get();
    Value *v1 = body->addArg(sc(DType::F32)), *i1 = body->addArg(sc(DType::I32));
    Value *v2 = body->addArg(sc(DType::F32)), *i2 = body->addArg(sc(DType::I32));
    Builder in(body);
    auto cmp = [&](const char *p, Value *a, Value *b) {
      return in.op1(OpCode::Cmp, {a, b}, sc(DType::I1), {{"pred", std::string(p)}});
    };
    Value *tie = in.op1(OpCode::And, {cmp("eq", v1, v2), cmp("lt", i1, i2)}, sc(DType::I1));
    Value *pick = in.op1(OpCode::Or, {cmp("gt", v1, v2), tie}, sc(DType::I1));
    Value *v = in.op1(OpCode::Select, {pick, v1, v2}, sc(DType::F32));
    Value *i = in.op1(OpCode::Select, {pick, i1, i2}, sc(DType::I32));
    in.create(OpCode::Yield, {v, i}, {});
  }
  storeTile(k, pi, red->result(1));
  storeTile(k, pv, red->result(0));
  k.ret();
  runWith(k, x, idx, val);
  for (int64_t r = 0; r < R; ++r) {
    auto it = std::max_element(x.begin() + r * C, x.begin() + (r + 1) * C);
    EXPECT_EQ(idx[r], it - (x.begin() + r * C));
    EXPECT_EQ(val[r], *it);
  }
  EXPECT_EQ(idx[0], 5);
}

TEST(InterpCompute, ScanForwardReverseAndGeneric) {
  int64_t R = 4, C = 16;
  std::vector<int32_t> x(R * C), fwd(R * C), rev(R * C), gen(R * C);
  for (auto &v : x) v = static_cast<int32_t>(randBits() % 100) - 50;
  poison(fwd);
  poison(rev);
  poison(gen);
  KB k("scan");
  Value *px = k.arg(ptr(DType::I32)), *pf = k.arg(ptr(DType::I32)), *pr = k.arg(ptr(DType::I32));
  Value *pg = k.arg(ptr(DType::I32));
  Value *t = loadTile(k, px, {R, C});
  storeTile(k, pf, k.reduceOp(OpCode::Scan, t, 1, OpCode::Add, true)->result());
  storeTile(k, pr, k.reduceOp(OpCode::Scan, t, 0, OpCode::Add, true, true)->result());
  storeTile(k, pg, k.reduceOp(OpCode::Scan, t, 1, OpCode::Sub, true)->result());  // generic path
  k.ret();
  runWith(k, x, fwd, rev, gen);
  for (int64_t r = 0; r < R; ++r) {
    int32_t s = 0, g = 0;
    for (int64_t c = 0; c < C; ++c) {
      s += x[r * C + c];
      g = c == 0 ? x[r * C] : g - x[r * C + c];
      ASSERT_EQ(fwd[r * C + c], s);
      ASSERT_EQ(gen[r * C + c], g);
    }
  }
  for (int64_t c = 0; c < C; ++c) {
    int32_t s = 0;
    for (int64_t r = R - 1; r >= 0; --r) {
      s += x[r * C + c];
      ASSERT_EQ(rev[r * C + c], s);
    }
  }
}

TEST(InterpCompute, SortHistogramGather) {
  int64_t R = 4, C = 32;
  auto x = randVec(R * C);
  x[3] = NAN;
  std::vector<float> asc(R * C), desc(R * C);
  poisonNaN(asc);
  poisonNaN(desc);
  std::vector<int32_t> vals(R * C), hist(16), gidx(R * C);
  for (auto &v : vals) v = static_cast<int32_t>(randBits() % 22) - 2;
  for (auto &v : gidx) v = static_cast<int32_t>(randBits() % C);
  std::vector<float> gathered(R * C);
  poisonNaN(gathered);
  poison(hist);
  KB k("misc");
  Value *px = k.arg(ptr(DType::F32)), *pa = k.arg(ptr(DType::F32)), *pd = k.arg(ptr(DType::F32));
  Value *pv = k.arg(ptr(DType::I32)), *ph = k.arg(ptr(DType::I32)), *pgi = k.arg(ptr(DType::I32));
  Value *pg = k.arg(ptr(DType::F32));
  Value *t = loadTile(k, px, {R, C});
  storeTile(k, pa, k.op(OpCode::Sort, {t}, t->type, {{"axis", int64_t(1)}}));
  storeTile(k, pd,
            k.op(OpCode::Sort, {t}, t->type, {{"axis", int64_t(1)}, {"descending", int64_t(1)}}));
  Value *v = k.load(k.addptr(pv, k.arange(R * C)));
  Value *odd =
      k.cmp("ne", k.bin(OpCode::And, k.arange(R * C), k.splat(k.ci(1, sc(DType::I32)), {R * C})),
            k.splat(k.ci(0, sc(DType::I32)), {R * C}));
  storeTile(k, ph,
            k.op(OpCode::Histogram, {v, odd}, tile({16}, DType::I32), {{"bins", int64_t(16)}}));
  Value *g = k.op(OpCode::Gather, {t, loadTile(k, pgi, {R, C})}, t->type, {{"axis", int64_t(1)}});
  storeTile(k, pg, g);
  k.ret();
  runWith(k, x, asc, desc, vals, hist, gidx, gathered);
  auto lessNanLast = [](float a, float b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
  for (int64_t r = 0; r < R; ++r) {
    std::vector<float> row(x.begin() + r * C, x.begin() + (r + 1) * C);
    std::stable_sort(row.begin(), row.end(), lessNanLast);
    for (int64_t c = 0; c < C; ++c) {
      float w = row[c], got = asc[r * C + c];
      ASSERT_TRUE(w == got || (std::isnan(w) && std::isnan(got)));
      float wd = row[C - 1 - c], gd = desc[r * C + c];
      if (r != 0) {
        ASSERT_EQ(gd, wd);
      }
      float gw = x[r * C + gidx[r * C + c]], gg = gathered[r * C + c];
      ASSERT_TRUE(gw == gg || (std::isnan(gw) && std::isnan(gg)));
    }
  }
  EXPECT_TRUE(std::isnan(desc[0]));  // NaN sorts first when descending
  std::vector<int32_t> want(16, 0);
  for (int64_t i = 0; i < R * C; ++i)
    if ((i & 1) && vals[i] >= 0 && vals[i] < 16) ++want[vals[i]];
  EXPECT_EQ(hist, want);
}

TEST(InterpCompute, GatherIndexOutOfRangeIsAnError) {
  std::vector<float> x(8);
  std::vector<int32_t> idx{0, 1, 2, 8, 0, 0, 0, 0};
  KB k("g");
  Value *px = k.arg(ptr(DType::F32)), *pi = k.arg(ptr(DType::I32));
  k.op(OpCode::Gather, {loadTile(k, px, {8}), loadTile(k, pi, {8})}, tile({8}, DType::F32),
       {{"axis", int64_t(0)}});
  k.ret();
  try {
    runWith(k, x, idx);
    FAIL();
  } catch (const RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find("gather index 8 is out of range"), std::string::npos)
        << e.what();
  }
}

TEST(InterpCompute, ShapeOps) {
  std::vector<int32_t> x(4 * 8 * 2);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i);
  std::vector<int32_t> perm(64), bc(32), joined(64), split1(32), cat(64), flip(64);
  for (auto *v : {&perm, &bc, &joined, &split1, &cat, &flip}) poison(*v);
  KB k("shape");
  Value *px = k.arg(ptr(DType::I32)), *pp = k.arg(ptr(DType::I32)), *pb = k.arg(ptr(DType::I32));
  Value *pj = k.arg(ptr(DType::I32)), *ps = k.arg(ptr(DType::I32)), *pc = k.arg(ptr(DType::I32));
  Value *pf = k.arg(ptr(DType::I32));
  Value *t = loadTile(k, px, {4, 8, 2});
  storeTile(k, pp,
            k.op(OpCode::Permute, {t}, tile({2, 4, 8}, DType::I32),
                 {{"order", std::vector<int64_t>{2, 0, 1}}}));
  Value *row =
      k.op(OpCode::ExpandDims, {k.arange(8)}, tile({1, 8}, DType::I32), {{"axis", int64_t(0)}});
  storeTile(k, pb, k.op(OpCode::Broadcast, {row}, tile({4, 8}, DType::I32)));
  Value *a = k.arange(32),
        *b = k.bin(OpCode::Mul, k.arange(32), k.splat(k.ci(-1, sc(DType::I32)), {32}));
  Value *j = k.op(OpCode::Join, {a, b}, tile({32, 2}, DType::I32));
  storeTile(k, pj, j);
  Operation *sp = k.b.create(OpCode::Split, {j}, {tile({32}, DType::I32), tile({32}, DType::I32)});
  storeTile(k, ps, sp->result(1));
  storeTile(k, pc, k.op(OpCode::Cat, {a, b}, tile({64}, DType::I32)));
  Value *t2 = loadTile(k, px, {8, 8});
  storeTile(k, pf, k.op(OpCode::Flip, {t2}, t2->type, {{"axis", int64_t(1)}}));
  k.ret();
  runWith(k, x, perm, bc, joined, split1, cat, flip);
  for (int i = 0; i < 2; ++i)
    for (int p = 0; p < 4; ++p)
      for (int q = 0; q < 8; ++q) ASSERT_EQ(perm[(i * 4 + p) * 8 + q], x[(p * 8 + q) * 2 + i]);
  for (int i = 0; i < 32; ++i) {
    ASSERT_EQ(bc[i], i % 8);
    ASSERT_EQ(joined[2 * i], i);
    ASSERT_EQ(joined[2 * i + 1], -i);
    ASSERT_EQ(split1[i], -i);
    ASSERT_EQ(cat[i], i);
    ASSERT_EQ(cat[32 + i], -i);
  }
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) ASSERT_EQ(flip[r * 8 + c], x[r * 8 + 7 - c]);
}

}  // namespace
}  // namespace tessera::testing
