// drop-repeated-barriers on PTX text: which barriers go and which stay.
#include "codegen/ptx/repeated_barriers.h"

#include <gtest/gtest.h>

namespace tessera::ptx {
namespace {

int count(const std::string &text, const std::string &what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(RepeatedBarriers, OnlyRegisterWorkBetweenTwoBarriersDropsTheSecond) {
  std::string t =
      "\tst.shared.u32 [%r1], %r2;\n\tbar.sync 0;\n\tadd.u32 %r3, %r4, 0;\n"
      "\t@%p1 mov.b32 %r5, 7;\n\t.loc 1 2 3\n\tbar.sync 0;\n\tld.shared.u32 %r6, [%r1];\n";
  EXPECT_EQ(dropRepeatedBarriers(t), 1);
  EXPECT_EQ(count(t, "bar.sync 0;"), 1);
  // The first barrier stays, before the read it orders.
  EXPECT_LT(t.find("bar.sync 0;"), t.find("ld.shared"));
  EXPECT_NE(t.find("@%p1 mov.b32 %r5, 7;"), std::string::npos);
}

TEST(RepeatedBarriers, BarriersBeforeAnyMemoryAccessGo) {
  std::string t =
      "\tmov.u32 %r0, %tid.x;\n\tld.param.u64 %rd1, [k_param_0];\n"
      "\tshfl.sync.idx.b32 %r2, %r0, 0, 31, -1;\n\tbar.sync 0;\n\tadd.u32 %r3, %r2, 8;\n"
      "\tbar.sync 0;\n\tst.shared.u32 [%r3], %r0;\n\tbar.sync 0;\n\tld.shared.u32 %r4, [%r3];\n";
  EXPECT_EQ(dropRepeatedBarriers(t), 2);
  EXPECT_EQ(count(t, "bar.sync 0;"), 1);
  EXPECT_LT(t.find("st.shared"), t.find("bar.sync 0;"));
}

TEST(RepeatedBarriers, MemoryLabelsBranchesAndOtherBarriersKeepThem) {
  const char *between[] = {
      "\tld.shared.u32 %r1, [%r2];\n",
      "\tcp.async.commit_group;\n",
      "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];\n",
      "$L3:\n",
      "\t@%p0 bra $L4;\n",
      "\tmbarrier.arrive.shared.b64 %rd1, [%r1];\n",
      "\tbar.sync 1, 256;\n",
      "\tfence.proxy.async.shared::cta;\n",
      "\t{\n"};
  for (const char *b : between) {
    std::string t = std::string("\tst.shared.u32 [%r1], %r2;\n\tbar.sync 0;\n") + b +
                    "\tbar.sync 0;\n\tld.shared.u32 %r6, [%r1];\n";
    EXPECT_EQ(dropRepeatedBarriers(t), 0) << b;
    EXPECT_EQ(count(t, "bar.sync 0;"), 2) << b;
  }
}

TEST(RepeatedBarriers, InlineAsmIsLeftAsWritten) {
  // A program's own barriers may pair with another warp's bar.arrive.
  std::string t =
      "\tbar.sync 0;\n\t// begin inline asm\n\t{\nbar.sync 2, 64;\nbar.sync 2, 64;\n"
      "bar.sync 0; bar.sync 0;\n\t}\n\t// end inline asm\n\tbar.sync 0;\n";
  const std::string asmPart = t.substr(t.find("// begin"), t.find("// end") - t.find("// begin"));
  // The first barrier opens the kernel; the one after the asm stays.
  EXPECT_EQ(dropRepeatedBarriers(t), 1);
  EXPECT_NE(t.find(asmPart), std::string::npos);
  EXPECT_EQ(count(t, "bar.sync 0;"), 3);
}

TEST(RepeatedBarriers, NamedBarriersRepeatOnlyThemselves) {
  std::string t =
      "\tst.shared.u32 [%r1], %r2;\n\tbar.sync 1, 256;\n\tmov.b32 %r3, 0;\n\tbar.sync 1, 256;\n"
      "\tbar.sync 0;\n\tld.shared.u32 %r6, [%r1];\n";
  // The repeated named barrier goes; the CTA barrier after it is a different
  // one (the producer warp is not in the named one) and stays.
  EXPECT_EQ(dropRepeatedBarriers(t), 1);
  EXPECT_EQ(count(t, "bar.sync 1, 256;"), 1);
  EXPECT_EQ(count(t, "bar.sync 0;"), 1);
}

}  // namespace
}  // namespace tessera::ptx
