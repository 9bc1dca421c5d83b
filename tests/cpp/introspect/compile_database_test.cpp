#include "introspect/buildtree/compile_database.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

using testing::TempDir;
using testing::write_file;

TEST(CompileDatabase, CommandFormWithShellQuoting) {
  const auto db = parse_compile_database(R"([{
    "directory": "/b",
    "command": "/usr/bin/c++ -DMSG=\"\\\"hi there\\\"\" -I../inc -I /abs/inc -isystem/sys -iquote q -std=c++20 -O2 -o obj/a.o -c ../src/a.cpp",
    "file": "../src/a.cpp"
  }])",
                                         "test.json");
  ASSERT_EQ(db.commands.size(), 1u);
  const auto& c = db.commands[0];
  EXPECT_EQ(c.file, "/src/a.cpp");
  EXPECT_EQ(c.output, "/b/obj/a.o");
  EXPECT_EQ(c.compiler(), "/usr/bin/c++");
  EXPECT_EQ(c.flags.defines, (std::vector<std::string>{"MSG=\"hi there\""}));
  ASSERT_EQ(c.flags.includes.size(), 4u);
  EXPECT_EQ(c.flags.includes[0], (IncludeDir{"/inc", IncludeKind::User}));
  EXPECT_EQ(c.flags.includes[1], (IncludeDir{"/abs/inc", IncludeKind::User}));
  EXPECT_EQ(c.flags.includes[2], (IncludeDir{"/sys", IncludeKind::System}));
  EXPECT_EQ(c.flags.includes[3], (IncludeDir{"/b/q", IncludeKind::Quote}));
  EXPECT_EQ(c.flags.standard, "c++20");
  EXPECT_EQ(c.flags.other_flags, (std::vector<std::string>{"-O2"}));
}

TEST(CompileDatabase, ArgumentsFormAndOutputField) {
  const auto db = parse_compile_database(R"([{
    "directory": "/b",
    "arguments": ["clang++", "-D", "A=1", "-UB", "-isystem", "/x y/z", "--std=gnu++17", "-fPIC", "-MF", "a.d", "-c", "/s/a.cpp"],
    "file": "/s/a.cpp",
    "output": "CMakeFiles/t.dir/a.cpp.o"
  }])",
                                         "test.json");
  const auto& c = db.commands.at(0);
  EXPECT_EQ(c.arguments.size(), 12u);
  EXPECT_EQ(c.output, "/b/CMakeFiles/t.dir/a.cpp.o");
  EXPECT_EQ(c.flags.defines, (std::vector<std::string>{"A=1"}));
  EXPECT_EQ(c.flags.undefines, (std::vector<std::string>{"B"}));
  EXPECT_EQ(c.flags.includes.at(0), (IncludeDir{"/x y/z", IncludeKind::System}));
  EXPECT_EQ(c.flags.standard, "gnu++17");
  EXPECT_EQ(c.flags.other_flags, (std::vector<std::string>{"-fPIC", "-MF a.d"}));
  EXPECT_EQ(c.flags.inputs, (std::vector<std::string>{"/s/a.cpp"}));
}

TEST(CompileDatabase, ResponseFilesRelativeToDirectory) {
  TempDir dir("rsp");
  write_file(dir / "flags.rsp", "-DFROM_RSP=1 '-I/quoted dir' @nested.rsp\n");
  write_file(dir / "nested.rsp", "-std=c++17\n");
  const std::string json = R"([{"directory": ")" + dir.path().string() +
                           R"(", "command": "g++ @flags.rsp @missing.rsp -c a.cpp", "file": "a.cpp"}])";
  const auto db = parse_compile_database(json, "test.json");
  const auto& c = db.commands.at(0);
  EXPECT_EQ(c.flags.defines, (std::vector<std::string>{"FROM_RSP=1"}));
  EXPECT_EQ(c.flags.includes.at(0).path, "/quoted dir");
  EXPECT_EQ(c.flags.standard, "c++17");
  // A response file that does not exist stays an argument, as the compiler would treat it, with a warning.
  EXPECT_EQ(c.flags.inputs, (std::vector<std::string>{"@missing.rsp", "a.cpp"}));
  ASSERT_EQ(db.warnings.size(), 1u);
  EXPECT_NE(db.warnings[0].find("missing.rsp: response file does not exist"), std::string::npos);
}

TEST(CompileDatabase, FindSource) {
  const auto db = parse_compile_database(
      R"([{"directory": "/b", "arguments": ["cc", "-c", "x.c"], "file": "/s/x.c"},
          {"directory": "/s", "arguments": ["cc", "-c", "y.c"], "file": "y.c"}])",
      "t.json");
  EXPECT_EQ(db.find_source("/s/x.c").size(), 1u);
  EXPECT_EQ(db.find_source("/s/y.c").size(), 1u);
  EXPECT_TRUE(db.find_source("/s/z.c").empty());
}

void expect_error(std::string_view json, std::string_view expected) {
  try {
    parse_compile_database(json, "build/compile_commands.json");
    FAIL() << "no error for " << json;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("build/compile_commands.json"), std::string::npos) << e.what();
  }
}

TEST(CompileDatabase, BadInputsNameTheFileAndProblem) {
  expect_error(R"([{"directory": "/b", "command": "cc -c a.c", "file": "a.c"})", "truncated JSON");
  expect_error(R"({"directory": "/b"})", "expected a JSON array");
  expect_error(R"([{"command": "cc", "file": "a.c"}])", "entry 0.directory: missing");
  expect_error(R"([{"directory": "/b", "file": "a.c"}])", "neither \"arguments\" nor \"command\"");
  expect_error(R"([{"directory": "/b", "file": "a.c", "command": "cc 'a"}])", "unterminated single quote");
  expect_error(R"([{"directory": "/b", "file": 3, "command": "cc"}])", "entry 0.file: expected a string");
  expect_error(R"([{"directory": "/b", "file": "a.c", "arguments": "cc"}])", "arguments: expected an array");
  expect_error(R"([{"directory": "/b", "file": "a.c", "arguments": []}])", "empty command");
  expect_error("[1, ", "truncated JSON");
  expect_error("[} ", "invalid JSON at byte");
}

TEST(CompileDatabase, MissingFileOrDirectory) {
  TempDir dir("nodb");
  EXPECT_THROW(read_compile_database(dir / "nope"), Error);
  try {
    read_compile_database(dir.path());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CMAKE_EXPORT_COMPILE_COMMANDS"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace glassbox::introspect
