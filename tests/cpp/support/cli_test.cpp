// Tests for support/cli: both spellings of every option, short options,
// checked numbers, positionals, help and version on stdout, and the one-line
// errors with their exit status.
#include "support/cli.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace tessera::cli {
namespace {

struct Tool {
  std::string input, output, name;
  int warps = 4;
  bool debug = false;
  std::vector<std::string> passes;
  Parser parser{"tool", "FILE [options]", "Does things to FILE."};
  std::ostringstream out, err;

  Tool() {
    parser.version("1.2.3");
    parser.positional("FILE", "the input", input);
    parser.string("-o,--output", "FILE", "where to write", output);
    parser.string("--name", "NAME", "a name", name);
    parser.integer("--num-warps", "N", "warps", warps, 1, 32, /*powerOfTwo=*/true);
    parser.flag("--debug", "debug", debug);
    parser.list("--passes,--pass", "a,b", "passes", passes);
  }
  std::optional<int> parse(std::vector<const char *> args) {
    args.insert(args.begin(), "tool");
    return parser.parse(static_cast<int>(args.size()), args.data(), 1, out, err);
  }
};

TEST(Cli, BothSpellingsOfAnOption) {
  Tool t;
  EXPECT_EQ(t.parse({"in.py", "--name", "a", "--num-warps=8", "-o", "x.ptx"}), std::nullopt);
  EXPECT_EQ(t.input, "in.py");
  EXPECT_EQ(t.name, "a");
  EXPECT_EQ(t.warps, 8);
  EXPECT_EQ(t.output, "x.ptx");
  Tool u;
  EXPECT_EQ(u.parse({"--name=b", "-oy.ptx", "--output=z", "in.py"}), std::nullopt);
  EXPECT_EQ(u.name, "b");
  EXPECT_EQ(u.output, "z");  // the last one wins
  EXPECT_EQ(u.err.str(), "");
}

TEST(Cli, ListsAppendAndAliasesWork) {
  Tool t;
  EXPECT_EQ(t.parse({"f", "--passes", "a,b", "--pass=c", "--passes=,d,"}), std::nullopt);
  EXPECT_EQ(t.passes, (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(Cli, NumbersAreChecked) {
  for (const char *bad : {"abc", "", "3", "64", "0", "8x", "-4", "99999999999999999999"}) {
    Tool t;
    std::string arg = std::string("--num-warps=") + bad;
    EXPECT_EQ(t.parse({"f", arg.c_str()}), 2) << bad;
    EXPECT_EQ(t.err.str(),
              "tool: error: option '--num-warps': expects a power of two from 1 to "
              "32, got '" +
                  std::string(bad) + "'\nRun 'tool --help' for the options.\n");
    EXPECT_EQ(t.warps, 4);
  }
  EXPECT_EQ(parseInteger("+12", 0, 100), 12);
  EXPECT_EQ(parseInteger("-1", -5, 5), -1);
  EXPECT_EQ(parseInteger(" 1", 0, 5), std::nullopt);
}

TEST(Cli, FlagsTakeNoValue) {
  Tool t;
  EXPECT_EQ(t.parse({"f", "--debug"}), std::nullopt);
  EXPECT_TRUE(t.debug);
  Tool u;
  EXPECT_EQ(u.parse({"f", "--debug=yes"}), 2);
  EXPECT_NE(u.err.str().find("option '--debug' takes no value"), std::string::npos);
}

TEST(Cli, UsageErrorsAreOneLineWithAHint) {
  Tool t;
  EXPECT_EQ(t.parse({"f", "--num-warp", "4"}), 2);
  EXPECT_EQ(t.err.str(),
            "tool: error: unknown option '--num-warp'; did you mean '--num-warps'?\n"
            "Run 'tool --help' for the options.\n");
  Tool u;
  EXPECT_EQ(u.parse({"f", "--name"}), 2);
  EXPECT_NE(u.err.str().find("option '--name' needs a value (--name NAME)"), std::string::npos);
  Tool v;
  EXPECT_EQ(v.parse({}), 2);
  EXPECT_NE(v.err.str().find("missing FILE (the input)"), std::string::npos);
  Tool w;
  EXPECT_EQ(w.parse({"a", "b"}), 2);
  EXPECT_NE(w.err.str().find("unexpected argument 'b'"), std::string::npos);
  Tool x;
  EXPECT_EQ(x.parse({"f", "--zzzzzzzz"}), 2);
  EXPECT_EQ(x.err.str().find("did you mean"), std::string::npos);  // nothing close
  EXPECT_EQ(x.out.str(), "");
}

TEST(Cli, DashIsAPositionalAndDoubleDashEndsOptions) {
  Tool t;
  EXPECT_EQ(t.parse({"-"}), std::nullopt);
  EXPECT_EQ(t.input, "-");
  Tool u;
  EXPECT_EQ(u.parse({"--", "--debug"}), std::nullopt);
  EXPECT_EQ(u.input, "--debug");
  EXPECT_FALSE(u.debug);
}

TEST(Cli, HelpAndVersionGoToStdout) {
  Tool t;
  EXPECT_EQ(t.parse({"--help"}), 0);
  std::string help = t.out.str();
  EXPECT_EQ(help.rfind("usage: tool FILE [options]\n\nDoes things to FILE.\n", 0), 0u) << help;
  for (const char *line :
       {"  FILE                    the input\n", "  -o, --output FILE       where to write\n",
        "      --num-warps N       warps\n",
        "      --passes, --pass a,b\n                          passes\n",
        "  -h, --help              print this help and exit\n",
        "      --version           print the version and exit\n"})
    EXPECT_NE(help.find(line), std::string::npos) << line << "\n" << help;
  EXPECT_EQ(t.err.str(), "");
  Tool u;
  EXPECT_EQ(u.parse({"-h", "--bogus"}), 0);  // help wins over later mistakes
  Tool v;
  EXPECT_EQ(v.parse({"--version"}), 0);
  EXPECT_EQ(v.out.str(), "tool 1.2.3\n");
}

TEST(Cli, LongHelpIsWrappedInItsColumn) {
  std::string s;
  Parser p("t", "", "");
  p.string("--x", "V",
           "a long description that goes on and on well past the right margin of a terminal", s);
  std::string help = p.help();
  EXPECT_NE(
      help.find("      --x V               a long description that goes on and on well past the\n"
                "                          right margin of a terminal\n"),
      std::string::npos)
      << help;
}

TEST(Cli, SplitCommas) {
  EXPECT_EQ(splitCommas("a,,b,"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(splitCommas("").empty());
}

}  // namespace
}  // namespace tessera::cli
