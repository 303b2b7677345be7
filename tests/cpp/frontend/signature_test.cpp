// parseSignature: Triton's AOT signature syntax, host tensor descriptors
// included, and the errors of malformed entries.
#include <gtest/gtest.h>

#include "frontend/frontend.h"
#include "support/diagnostics.h"

namespace tessera::frontend {
namespace {

std::string errorOf(const std::string &sig) {
  try {
    parseSignature(sig);
  } catch (const CompileError &e) {
    return e.diag.message;
  }
  ADD_FAILURE() << "no error for: " << sig;
  return {};
}

TEST(Signature, ScalarsPointersAndConstexprs) {
  auto a = parseSignature("*fp32:16, i32:1, i64, 1024, 'a,b<c', tl.float16");
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a[0].kind, ArgSpec::Kind::Pointer);
  EXPECT_EQ(a[0].divisibility, 16);
  EXPECT_TRUE(a[1].equalToOne);
  EXPECT_EQ(a[2].dtype, DType::I64);
  EXPECT_EQ(a[3].value.i, 1024);
  // A quoted comma (or bracket) does not split the entry.
  EXPECT_EQ(a[4].value.s, "a,b<c");
  EXPECT_EQ(a[5].value.dtype, DType::F16);
}

TEST(Signature, TensorDescriptors) {
  auto a = parseSignature("tensordesc<fp16[128, 64]>, tensordesc<bf16[64]>:16:nan, i32");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].kind, ArgSpec::Kind::TensorDesc);
  EXPECT_EQ(a[0].dtype, DType::F16);
  EXPECT_EQ(a[0].block, (std::vector<int64_t>{128, 64}));
  EXPECT_EQ(a[0].divisibility, 1);
  EXPECT_TRUE(a[0].shapeDivisibility.empty());
  EXPECT_FALSE(a[0].nanPadding);
  EXPECT_EQ(a[1].dtype, DType::BF16);
  EXPECT_EQ(a[1].block, (std::vector<int64_t>{64}));
  EXPECT_EQ(a[1].divisibility, 16);
  EXPECT_EQ(a[1].shapeDivisibility, (std::vector<int64_t>{16}));
  EXPECT_TRUE(a[1].nanPadding);
  EXPECT_EQ(a[2].kind, ArgSpec::Kind::Scalar);
}

TEST(Signature, MalformedDescriptors) {
  EXPECT_NE(errorOf("tensordesc<fp16 128>").find("a descriptor is written"), std::string::npos);
  EXPECT_NE(errorOf("tensordesc<f17[8]>").find("unknown type 'f17'"), std::string::npos);
  EXPECT_NE(errorOf("tensordesc<fp16[8, 0]>").find("positive integers, got '0'"),
            std::string::npos);
  EXPECT_NE(errorOf("tensordesc<fp16[8,]>").find("positive integers, got ''"), std::string::npos);
  EXPECT_NE(errorOf("tensordesc<fp16[8]x>").find("expected '>'"), std::string::npos);
  EXPECT_NE(errorOf("tensordesc<fp16[8]>:32").find("got ':32'"), std::string::npos);
  EXPECT_NE(errorOf("tensordesc<fp16[8]>16").find("hints after '>'"), std::string::npos);
  EXPECT_NE(errorOf("*fp32, , i32").find("empty entry"), std::string::npos);
}

// A namedtuple class as the host describes it (tuple argument specs,
// namedtuple constants and classes).
TEST(Signature, TupleTypes) {
  auto t = parseTupleType("View(ptr,shape,strides)");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->name, "View");
  EXPECT_EQ(t->fields, (std::vector<std::string>{"ptr", "shape", "strides"}));
  auto empty = parseTupleType("Unit()");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->fields.empty());
  for (const char *bad :
       {"View", "View(a,)", "View(a,a)", "(a)", "1View(a)", "View(a b)", "View(a", "View(,a)"})
    EXPECT_FALSE(parseTupleType(bad).has_value()) << bad;
}

}  // namespace
}  // namespace tessera::frontend
