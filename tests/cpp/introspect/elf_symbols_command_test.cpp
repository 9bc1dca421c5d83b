// `glassbox symbols`, in-process through run_cli() and as the program (for what it says on stderr).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "introspect/cli/commands.h"
#include "introspect/support/process.h"
#include "tests/cpp/introspect/cli_run.h"
#include "tests/cpp/introspect/elf_test_support.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect::cli {
namespace {

TEST(SymbolsCommand, GrepWithLines) {
  const std::string lib = testing::core_library().string();
  const CliRun r = run({"symbols", lib, "--grep", "^glassbox::Library::def\\(.*location\\)$", "--lines"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  ASSERT_TRUE(std::getline(lines, line)) << r.out;
  EXPECT_TRUE(contains(line, " T glassbox::Library::def(std::basic_string_view<char")) << line;
  const std::string at = "/registry/library.cpp:" +
                         std::to_string(testing::line_containing("registry/library.cpp", "Library& Library::def("));
  EXPECT_TRUE(contains(line, "\t") && contains(line, at)) << line;
  EXPECT_FALSE(std::getline(lines, line)) << "one symbol expected, also got: " << line;
}

TEST(SymbolsCommand, ListsLikeNmSortedByAddress) {
  const CliRun r = run({"symbols", testing::core_library().string()});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::size_t count = 0, undefined = 0;
  std::string previous;
  for (std::string line; std::getline(lines, line); ++count) {
    ASSERT_GE(line.size(), 28u) << line;
    if (line[0] == ' ') {
      ++undefined;
      continue;
    }
    const std::string address = line.substr(0, 16);
    EXPECT_LE(previous, address);
    previous = address;
  }
  EXPECT_GT(count, 300u);
  EXPECT_GT(undefined, 10u);
  EXPECT_TRUE(contains(r.out, " U std::runtime_error::what() const@GLIBCXX_3.4\n")) << "undefined, versioned";
  const CliRun raw = run({"symbols", testing::core_library().string(), "--no-demangle", "--grep", "Library3def"});
  EXPECT_TRUE(contains(raw.out, " T _ZN8glassbox7Library3defE")) << raw.out;
  const CliRun dyn = run({"symbols", testing::core_library().string(), "-D", "--grep", "glassbox_library_impl_init"});
  EXPECT_EQ(dyn.out, "");  // static blocks are not exported
}

TEST(SymbolsCommand, SizesBySectionAndSource) {
  const std::string lib = testing::core_library().string();
  CliRun r = run({"symbols", lib, "--by", "section"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "vm size")) << r.out;
  EXPECT_TRUE(contains(r.out, " .text\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "total: ")) << r.out;
  r = run({"symbols", lib, "--by", "source"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "/registry/library.cpp\n")) << r.out;
  r = run({"symbols", lib, "--by", "source", "--json"});
  const auto doc = nlohmann::json::parse(r.out);
  uint64_t bytes = 0;
  for (const auto& s : doc["sizes"]) bytes += s["symbol_bytes"].get<uint64_t>();
  EXPECT_GT(bytes, 10000u);
  EXPECT_EQ(doc["line_info"]["status"], "present");
  EXPECT_EQ(run({"symbols", lib, "--by", "colour"}).status, 2);
}

TEST(SymbolsCommand, Json) {
  const CliRun r = run(
      {"symbols", testing::core_library().string(), "--json", "--lines", "--grep", "Library::def\\(.*location\\)$"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["soname"], "libglassbox_core.so");
  EXPECT_EQ(doc["build_id"].get<std::string>().size(), 40u);
  ASSERT_GE(doc["symbols"].size(), 1u);
  const auto& s = doc["symbols"][0];
  EXPECT_EQ(s["type"], "func");
  EXPECT_EQ(s["binding"], "global");
  EXPECT_EQ(s["section"], ".text");
  EXPECT_EQ(s["table"], ".symtab");
  EXPECT_TRUE(testing::ends_with(s["file"].get<std::string>(), "/registry/library.cpp"));
  EXPECT_GT(s["line"].get<int>(), 0);
}

TEST(SymbolsCommand, Registrations) {
  CliRun r = run({"symbols", testing::dlopen_library().string(), "--registrations"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, ": 2 registrations")) << r.out;
  EXPECT_TRUE(contains(r.out, "GLASSBOX_LIBRARY_IMPL")) << r.out;
  EXPECT_TRUE(contains(r.out, "dlopen_test_library.cpp:")) << r.out;
  r = run({"symbols", testing::dlopen_library().string(), "--registrations", "--json"});
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["registrations"].size(), 2u);
  EXPECT_EQ(doc["registrations"][1]["dispatch_key"], "CPU");
  EXPECT_EQ(doc["registrations"][1]["namespace"], "t_dl");
}

TEST(SymbolsCommand, BadInputAndStrippedFiles) {
  testing::TempDir dir("symcli");
  testing::write_file(dir / "notes.txt", "plain text\n");
  CliRun r = run({"symbols", (dir / "notes.txt").string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "glassbox: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "notes.txt: not an ELF file")) << r.err;
  EXPECT_EQ(run({"symbols", testing::core_library().string(), "--grep", "("}).status, 1);
  // A stripped copy lists its symbols and says on stderr that line info is missing.
  const auto stripped = dir / "libstripped.so";
  ASSERT_TRUE(testing::run_tool(
      {testing::objcopy_program(), "--strip-debug", testing::core_library().string(), stripped.string()}));
  const ProcessResult p =
      run_process({GLASSBOX_TEST_CLI, "symbols", stripped.string(), "--lines", "--grep", "Library::def"});
  EXPECT_EQ(p.exit_code, 0) << p.error_output;
  EXPECT_TRUE(contains(p.output, "glassbox::Library::def(")) << p.output;
  EXPECT_FALSE(contains(p.output, "library.cpp:")) << p.output;
  EXPECT_TRUE(contains(p.error_output, "libstripped.so: no DWARF line information")) << p.error_output;
  EXPECT_TRUE(contains(p.error_output, "symbols are listed without lines")) << p.error_output;
}

}  // namespace
}  // namespace glassbox::introspect::cli
