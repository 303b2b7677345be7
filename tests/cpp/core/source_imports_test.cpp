// followImports (runtime/source_imports.h): a file that imports only triton
// or tessera is one unit without being parsed (mayImportOthers), and every
// other way of writing an import still reaches the helper file beside it.
#include "runtime/source_imports.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

class FollowImports : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tessera_imports_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "helpers.py")
        << "import triton\n\n@triton.jit\ndef one():\n    return 1\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  size_t units(const std::string &source) {
    std::string file = (dir_ / "kernel.py").string();
    auto u = tessera::followImports(file, source);
    EXPECT_FALSE(u.empty());
    EXPECT_EQ(u[0].source, source);
    EXPECT_EQ(u[0].fileName, file);
    return u.size();
  }

  fs::path dir_;
};

TEST_F(FollowImports, TritonAndTesseraAloneAreOneUnit) {
  EXPECT_EQ(units("import triton\nimport triton.language as tl\nfrom tessera import jit\n"
                  "x = 1  # important: not an import\n"),
            1u);
}

TEST_F(FollowImports, EveryFormOfAnotherImportIsFollowed) {
  for (const char *line :
       {"import helpers\n", "import triton, helpers\n", "import triton; import helpers\n",
        "from helpers import one\n", "from . import helpers\n",
        "import triton_helpers as t\nimport helpers\n",
        "from triton import (jit,\n  language)\nimport helpers as h\n"})
    EXPECT_EQ(units(std::string("import triton\n") + line), 2u) << line;
}

}  // namespace
