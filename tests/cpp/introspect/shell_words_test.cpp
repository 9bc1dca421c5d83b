#include "introspect/buildtree/shell_words.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"

namespace glassbox::introspect {
namespace {

using Words = std::vector<std::string>;

TEST(ShellWords, SplitsOnBlanks) {
  EXPECT_EQ(split_shell_words("  c++  -c\ta.cpp\n-o a.o "), (Words{"c++", "-c", "a.cpp", "-o", "a.o"}));
  EXPECT_TRUE(split_shell_words("   ").empty());
}

TEST(ShellWords, SingleQuotesAreLiteral) {
  EXPECT_EQ(split_shell_words(R"(-D'A=hello world' '\n$x')"), (Words{"-DA=hello world", R"(\n$x)"}));
}

TEST(ShellWords, DoubleQuotesEscapeOnlySpecialCharacters) {
  EXPECT_EQ(split_shell_words(R"("-DMSG=\"hi\"" "a\b" "\$HOME" "x\\y")"),
            (Words{R"(-DMSG="hi")", R"(a\b)", "$HOME", R"(x\y)"}));
}

TEST(ShellWords, BackslashOutsideQuotes) {
  EXPECT_EQ(split_shell_words(R"(a\ b c\"d)"), (Words{"a b", "c\"d"}));
  EXPECT_EQ(split_shell_words("a\\\nb"), (Words{"ab"}));
}

TEST(ShellWords, AdjacentPartsJoin) {
  EXPECT_EQ(split_shell_words(R"(-I"/a b"/c'd e')"), (Words{"-I/a b/cd e"}));
  EXPECT_EQ(split_shell_words("'' \"\""), (Words{"", ""}));
}

TEST(ShellWords, UnterminatedQuotesAreErrors) {
  EXPECT_THROW(split_shell_words("a 'b", "entry 3"), Error);
  EXPECT_THROW(split_shell_words("a \"b"), Error);
  EXPECT_THROW(split_shell_words("a \\"), Error);
  try {
    split_shell_words("'x", "compile_commands.json: entry 3.command");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("entry 3.command: unterminated single quote"), std::string::npos) << e.what();
  }
}

TEST(ShellWords, QuoteRoundTrips) {
  for (std::string w : {"plain", "with space", "it's", "", "$x\"y\\z", "tab\there"}) {
    EXPECT_EQ(split_shell_words(quote_shell_word(w)), Words{w}) << w;
  }
}

}  // namespace
}  // namespace glassbox::introspect
