// The pass manager: names are checked, the verifier runs after every pass
// (GPU passes are registered the same way as Tile IR ones), and the print
// and timing hooks see each pass in order.
#include "passes/pass_manager.h"

#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "support/diagnostics.h"

namespace tessera {
namespace {

using testing::Fn;
using testing::S;

// A pass with a bug: it drops the function's terminator.
void dropTerminator(Module &m) {
  m.functions.front()->body.ops.pop_back();
}
void doNothing(Module &) {}

void registerTestPasses() {
  registerPasses({{"test-drop-terminator", "breaks the IR", &dropTerminator},
                  {"test-nothing", "changes nothing", &doNothing}});
}

TEST(PassManager, UnknownNamesAreReportedWithTheKnownOnes) {
  registerTestPasses();
  EXPECT_EQ(checkPassNames({"cse", "dce", "test-nothing"}), "");
  std::string msg = checkPassNames({"cse", "fuse-everything"});
  EXPECT_NE(msg.find("unknown pass 'fuse-everything'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("canonicalize"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test-nothing"), std::string::npos) << msg;
}

TEST(PassManager, RegisteringTwiceKeepsOneEntry) {
  registerTestPasses();
  size_t before = allPasses().size();
  registerTestPasses();
  EXPECT_EQ(allPasses().size(), before);
}

TEST(PassManager, VerifierAfterEveryPassNamesTheBrokenPass) {
  registerTestPasses();
  Fn f({S(DType::I32)});
  f.finish();
  PassPipelineOptions opts;
  opts.verifyEach = true;  // the default in release builds is off
  try {
    runPasses(f.m, {"test-nothing", "test-drop-terminator", "test-nothing"}, opts);
    FAIL() << "the broken IR was not caught";
  } catch (const CompileError &e) {
    EXPECT_NE(e.diag.message.find("test-drop-terminator"), std::string::npos) << e.diag.message;
    EXPECT_NE(e.diag.message.find("invalid IR"), std::string::npos) << e.diag.message;
  }
}

TEST(PassManager, PrintAndTimingHooksSeeEachPassInOrder) {
  registerTestPasses();
  Fn f({S(DType::I32)});
  f.finish();
  std::vector<PassTiming> timings;
  std::vector<std::string> printed;
  PassPipelineOptions opts;
  opts.timings = &timings;
  opts.printAfter = {"dce"};
  opts.print = [&](const std::string &pass, const Module &) { printed.push_back(pass); };
  runPasses(f.m, {"cse", "dce", "test-nothing", "dce"}, opts);
  ASSERT_EQ(timings.size(), 4u);
  EXPECT_EQ(timings[0].pass, "cse");
  EXPECT_EQ(timings[3].pass, "dce");
  for (const PassTiming &t : timings) EXPECT_GE(t.ms, 0.0);
  EXPECT_EQ(printed, (std::vector<std::string>{"dce", "dce"}));
  printed.clear();
  opts.printAfterAll = true;
  runPasses(f.m, {"cse", "test-nothing"}, opts);
  EXPECT_EQ(printed, (std::vector<std::string>{"cse", "test-nothing"}));
}

}  // namespace
}  // namespace tessera
