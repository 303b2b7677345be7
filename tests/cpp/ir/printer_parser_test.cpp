// Printer and parser: exact round trips of IR built with the Builder, value
// naming, float bits, locations, error locations, and robustness against
// malformed text (no crash, hang or abort; only CompileError).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "ir/ir_parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/diagnostics.h"

namespace tessera {
namespace {

const Type kI32 = Type::scalar(DType::I32);
const Type kF32 = Type::scalar(DType::F32);
const Type kI1 = Type::scalar(DType::I1);

// The add kernel of the design document, with a loop and an if.
std::unique_ptr<Module> buildKernel() {
  auto m = std::make_unique<Module>();
  auto fn = std::make_unique<Function>();
  fn->name = "add_kernel";
  Value *x = fn->body.addArg(Type::ptr(DType::F32), "x_ptr");
  Value *n = fn->body.addArg(kI32, "n");
  fn->paramAttrs = {{16, false}, {1, true}};
  Builder b(&fn->body);
  Value *pid = b.op1(OpCode::ProgramId, {}, kI32, {{"axis", int64_t{0}}});
  Value *block = b.constInt(128, kI32);
  Value *start = b.op1(OpCode::Mul, {pid, block}, kI32);
  Type tileI32 = Type::tile({128}, kI32);
  Value *range = b.op1(OpCode::Arange, {}, tileI32, {{"start", int64_t{0}}, {"end", int64_t{128}}});
  Value *offsets = b.op1(OpCode::Add, {b.op1(OpCode::Splat, {start}, tileI32), range}, tileI32);
  offsets->nameHint = "offsets";
  Value *limit = b.op1(OpCode::Splat, {n}, tileI32);
  Value *mask =
      b.op1(OpCode::Cmp, {offsets, limit}, Type::tile({128}, kI1), {{"pred", std::string("lt")}});
  Type ptrTile = Type::tile({128}, Type::ptr(DType::F32));
  Value *ptrs = b.op1(OpCode::AddPtr, {b.op1(OpCode::Splat, {x}, ptrTile), offsets}, ptrTile);
  Value *vals = b.op1(OpCode::Load, {ptrs, mask}, Type::tile({128}, kF32),
                      {{"cache", std::string()}, {"evict", std::string()}});
  b.create(OpCode::Store, {ptrs, vals, mask}, {});
  Value *zero = b.constFloat(0.0, kF32);
  Value *izero = b.constInt(0, kI32);
  Operation *loop = b.create(OpCode::For, {izero, n, block, zero, izero}, {kF32, kI32});
  Block &body = *loop->regions[0];
  Value *iv = body.addArg(kI32, "iv");
  Value *acc = body.addArg(kF32, "acc");
  body.addArg(kI32, "count");
  Builder inner(&body);
  Value *next = inner.op1(OpCode::Add, {acc, acc}, kF32);
  inner.create(OpCode::Yield, {next, iv}, {});
  Value *done = b.op1(OpCode::Cmp, {loop->result(1), n}, kI1, {{"pred", std::string("eq")}});
  Operation *branch = b.create(OpCode::If, {done}, {kF32});
  Builder thenB(branch->regions[0].get());
  thenB.create(OpCode::Yield, {loop->result(0)}, {});
  Builder elseB(branch->regions[1].get());
  elseB.create(OpCode::Yield, {zero}, {});
  b.create(OpCode::Return, {}, {});
  m->functions.push_back(std::move(fn));
  return m;
}

std::string roundTrip(const std::string &text, const PrintOptions &opts = {}) {
  SourceManager sm;
  auto m = parseIRString(sm, "t.tir", text);
  PrintOptions withSm = opts;
  withSm.sm = &sm;
  return printModule(*m, withSm);
}

TEST(PrinterParser, BuiltModuleRoundTripsAndVerifies) {
  auto m = buildKernel();
  EXPECT_EQ(verify(*m), "");
  std::string text = printModule(*m);
  EXPECT_NE(text.find("func @add_kernel(%x_ptr: ptr<f32> {divisibility = 16}, %n: i32 "
                      "{equal_to_one = 1}) {"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%offsets = add %4, %3 : tile<128xi32>"), std::string::npos) << text;
  EXPECT_NE(text.find("%12:2 = for %11, %n, %1, %10, %11 : f32, i32 {\n"
                      "  ^(%iv: i32, %acc: f32, %count: i32):\n"
                      "    %13 = add %acc, %acc : f32\n"
                      "    yield %13, %iv\n"
                      "  }"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%15 = if %14 : f32 {\n    yield %12#0\n  } {\n    yield %10\n  }"),
            std::string::npos)
      << text;
  SourceManager sm;
  auto parsed = parseIRString(sm, "k.tir", text);
  EXPECT_EQ(verify(*parsed), "");
  EXPECT_EQ(printModule(*parsed), text);
}

TEST(PrinterParser, DuplicateAndInvalidHintsBecomeNumbers) {
  Function fn;
  fn.name = "f";
  Value *a = fn.body.addArg(kI32, "x");
  Value *c = fn.body.addArg(kI32, "x");
  Builder b(&fn.body);
  Value *s = b.op1(OpCode::Add, {a, c}, kI32);
  s->nameHint = "has space";
  Value *t = b.op1(OpCode::Add, {s, s}, kI32);
  t->nameHint = "9lives";
  b.create(OpCode::Return, {}, {});
  EXPECT_EQ(printFunction(fn),
            "func @f(%0: i32, %1: i32) {\n  %2 = add %0, %1 : i32\n  %3 = add %2, %2 : i32\n"
            "  return\n}\n");
  EXPECT_EQ(printOp(*t->def), "%3 = add %2, %2 : i32");
}

TEST(PrinterParser, FloatsRoundTripBitExactly) {
  std::mt19937_64 rng(42);
  std::vector<double> values = {0.0,
                                -0.0,
                                0.1,
                                1e300,
                                5e-324,
                                -1.5,
                                3.0,
                                1e16,
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::denorm_min()};
  for (int i = 0; i < 500; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    values.push_back(d);
  }
  for (double v : values) {
    std::string text =
        "func @f() {\n  %0 = constant {value = " + printAttr(v) + "} : f64\n  return\n}\n";
    SourceManager sm;
    auto m = parseIRString(sm, "f.tir", text);
    double back = m->functions[0]->body.ops.front()->floatAttr("value");
    uint64_t want, got;
    std::memcpy(&want, &v, sizeof v);
    std::memcpy(&got, &back, sizeof back);
    EXPECT_EQ(want, got) << printAttr(v);
  }
}

TEST(PrinterParser, LocationsPrintAndParse) {
  std::string text =
      "func @k() loc(\"kernel.py\":3:1) {\n"
      "  barrier loc(\"kernel.py\":4:5)\n"
      "  return\n"
      "}\n";
  std::string printed = roundTrip(text, {true, nullptr});
  EXPECT_EQ(printed,
            "func @k() loc(\"kernel.py\":3:1) {\n"
            "  barrier loc(\"kernel.py\":4:5)\n"
            "  return loc(\"t.tir\":3:3)\n"
            "}\n");
  EXPECT_EQ(roundTrip(printed, {true, nullptr}), printed);
  EXPECT_EQ(roundTrip(text), "func @k() {\n  barrier\n  return\n}\n");
}

TEST(PrinterParser, ErrorsPointIntoTheText) {
  SourceManager sm;
  uint32_t id = sm.addFile("chunk.tir", "func @f() {\n  %0 = nope : i32\n}\n", /*firstLine=*/10);
  try {
    parseIR(sm, id);
    FAIL() << "expected a CompileError";
  } catch (const CompileError &e) {
    EXPECT_EQ(e.diag.loc.file, id);
    EXPECT_EQ(e.diag.loc.line, 11u);
    EXPECT_EQ(e.diag.loc.col, 8u);
    EXPECT_EQ(e.diag.message, "unknown op 'nope'");
    EXPECT_NE(render(sm, e.diag).find("chunk.tir:11:8: error: unknown op 'nope'"),
              std::string::npos);
  }
}

TEST(PrinterParser, MalformedTextNeverCrashes) {
  std::string valid = printModule(*buildKernel(), {});
  std::mt19937 rng(7);
  const std::string alphabet = "%{}()<>[]:,=#@^\"\\x0123456789-./ \nabcfiptuy";
  int parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = valid;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text.erase(at, 1 + rng() % 8);
          break;
        case 1:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
        default:
          text[at] = alphabet[rng() % alphabet.size()];
      }
      if (text.empty()) text = "x";
    }
    SourceManager sm;
    try {
      auto m = parseIRString(sm, "fuzz.tir", text);
      ++parsed;
      verify(*m);
      printModule(*m, {true, &sm});
    } catch (const CompileError &) {
    }
  }
  EXPECT_GT(parsed, 0);
  SourceManager sm;
  std::string deep = "func @f(%c: i1) {\n" + std::string(5000, '{');
  EXPECT_THROW(parseIRString(sm, "deep.tir", "func @f() {\n  if %c " + deep), CompileError);
  EXPECT_THROW(parseIRString(sm, "empty.tir", "func"), CompileError);
  EXPECT_EQ(parseIRString(sm, "blank.tir", "  // only a comment\n")->functions.size(), 0u);
}

}  // namespace
}  // namespace tessera
