// Tile IR types: spelling, element/shape helpers and dtype tables.
#include "ir/types.h"

#include <gtest/gtest.h>

#include "ir/printer.h"

namespace tessera {
namespace {

TEST(Types, Spelling) {
  EXPECT_EQ(Type::scalar(DType::F32).str(), "f32");
  EXPECT_EQ(Type::ptr(DType::F16).str(), "ptr<f16>");
  EXPECT_EQ(Type::ptr(DType::F16, 3).str(), "ptr<f16, 3>");
  EXPECT_EQ(Type::tile({128, 64}, Type::scalar(DType::F32)).str(), "tile<128x64xf32>");
  EXPECT_EQ(Type::tile({128}, Type::ptr(DType::F16)).str(), "tile<128xptr<f16>>");
  Type withLayout = Type::tile({64, 64}, Type::scalar(DType::F32));
  withLayout.layout = "mma0";
  EXPECT_EQ(withLayout.str(), "tile<64x64xf32, #mma0>");
  EXPECT_EQ(Type::memdesc({64, 64}, DType::F16, "shared0").str(), "memdesc<64x64xf16, #shared0>");
}

TEST(Types, PrintTypeMatchesStrAndQuotesOddLayouts) {
  Type t = Type::tile({4}, Type::scalar(DType::BF16));
  EXPECT_EQ(printType(t), t.str());
  t.layout = "blocked<{1, 2}>";
  EXPECT_EQ(printType(t), "tile<4xbf16, #\"blocked<{1, 2}>\">");
}

TEST(Types, LayoutNamesAreInterned) {
  // Equal text gives one interned string, so == on types keeps comparing
  // layouts by their text.
  std::string built = std::string("blocked<") + "{1, 2}>";
  LayoutName a = built, b = "blocked<{1, 2}>", c = "mma0";
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.key(), b.key());
  EXPECT_NE(a, c);
  EXPECT_EQ(a.str(), "blocked<{1, 2}>");
  EXPECT_TRUE(LayoutName().empty());
  EXPECT_EQ(LayoutName(""), LayoutName());
  EXPECT_EQ(LayoutName().str(), "");
  Type t1 = Type::tile({4}, Type::scalar(DType::F32)), t2 = t1;
  t1.layout = "mma0";
  EXPECT_NE(t1, t2);
  t2.layout = std::string("mma") + "0";
  EXPECT_EQ(t1, t2);
}

TEST(Types, ElementAndShapeHelpers) {
  Type ptrTile = Type::tile({8, 4}, Type::ptr(DType::I32, 3));
  EXPECT_TRUE(ptrTile.isPtrLike());
  EXPECT_EQ(ptrTile.element(), Type::ptr(DType::I32, 3));
  EXPECT_EQ(ptrTile.numel(), 32);
  EXPECT_EQ(ptrTile.rank(), 2);
  EXPECT_EQ(ptrTile.withElement(Type::scalar(DType::F32)).str(), "tile<8x4xf32>");
  EXPECT_EQ(ptrTile.withShape({}).str(), "ptr<i32, 3>");
  EXPECT_EQ(Type::scalar(DType::F16).withShape({2, 2}).str(), "tile<2x2xf16>");
  EXPECT_TRUE(Type::scalar(DType::F8E5).isFloatLike());
  EXPECT_TRUE(Type::scalar(DType::I1).isIntLike());
  EXPECT_FALSE(Type::ptr(DType::I32).isIntLike());
}

TEST(Types, DTypeTablesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(DType::F64); ++i) {
    auto d = static_cast<DType>(i);
    EXPECT_EQ(dtypeFromIrName(irName(d)), d);
    EXPECT_EQ(dtypeFromTritonName(tritonName(d)), d);
    EXPECT_EQ(dtypeFromSignatureName(signatureName(d)), d);
  }
  EXPECT_EQ(bitWidth(DType::BF16), 16);
  EXPECT_EQ(byteSize(DType::I1), 1);
  EXPECT_FALSE(dtypeFromIrName("f33").has_value());
}

}  // namespace
}  // namespace tessera
