#include "introspect/buildtree/ninja_deps.h"

#include <gtest/gtest.h>

#include <cstring>

#include "engine/core/error.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

// Writes the binary .ninja_deps format by hand: "# ninjadeps\n", version, records.
class DepsWriter {
 public:
  explicit DepsWriter(int version) : version_(version) {
    bytes_ = "# ninjadeps\n";
    u32(static_cast<uint32_t>(version));
  }
  uint32_t path(const std::string& p) {
    const std::size_t padding = (4 - p.size() % 4) % 4;
    u32(static_cast<uint32_t>(p.size() + padding + 4));
    bytes_ += p;
    bytes_.append(padding, '\0');
    u32(~next_id_);
    return next_id_++;
  }
  void deps(uint32_t out, uint64_t mtime, const std::vector<uint32_t>& inputs) {
    const uint32_t mtime_size = version_ == 4 ? 8 : 4;
    u32(0x80000000u | static_cast<uint32_t>(4 + mtime_size + 4 * inputs.size()));
    u32(out);
    if (version_ == 4) u32(static_cast<uint32_t>(mtime)), u32(static_cast<uint32_t>(mtime >> 32));
    else u32(static_cast<uint32_t>(mtime));
    for (auto i : inputs) u32(i);
  }
  const std::string& bytes() const { return bytes_; }

 private:
  void u32(uint32_t v) {
    char b[4];
    std::memcpy(b, &v, 4);
    bytes_.append(b, 4);
  }
  int version_;
  uint32_t next_id_ = 0;
  std::string bytes_;
};

std::string sample(int version) {
  DepsWriter w(version);
  const auto obj = w.path("CMakeFiles/a.dir/a.cpp.o");
  const auto src = w.path("/src/a.cpp");
  const auto hdr = w.path("/src/a.h");
  w.deps(obj, 1234567890123ull, {src, hdr});
  const auto obj2 = w.path("CMakeFiles/b.dir/b.cpp.o");
  const auto src2 = w.path("/src/b.cpp");
  w.deps(obj2, 7, {src2, hdr});
  w.deps(obj, 99, {src});  // a later record for a.cpp.o replaces the first
  return w.bytes();
}

TEST(NinjaDeps, ReadsBinaryVersion4) {
  const NinjaDeps deps = parse_ninja_deps_binary(sample(4), ".ninja_deps");
  EXPECT_EQ(deps.version, 4);
  EXPECT_FALSE(deps.truncated);
  ASSERT_EQ(deps.records.size(), 2u);
  EXPECT_EQ(deps.records[0].output, "CMakeFiles/a.dir/a.cpp.o");
  EXPECT_EQ(deps.records[0].inputs, (std::vector<std::string>{"/src/a.cpp"}));
  EXPECT_EQ(deps.records[0].mtime, 99);
  EXPECT_EQ(deps.records[1].inputs, (std::vector<std::string>{"/src/b.cpp", "/src/a.h"}));
}

TEST(NinjaDeps, ReadsBinaryVersion3) {
  const NinjaDeps deps = parse_ninja_deps_binary(sample(3), ".ninja_deps");
  EXPECT_EQ(deps.version, 3);
  ASSERT_EQ(deps.records.size(), 2u);
  EXPECT_EQ(deps.records[1].output, "CMakeFiles/b.dir/b.cpp.o");
  EXPECT_EQ(deps.records[1].mtime, 7);
}

TEST(NinjaDeps, TruncatedLogKeepsCompleteRecords) {
  const std::string bytes = sample(4);
  const NinjaDeps deps = parse_ninja_deps_binary(bytes.substr(0, bytes.size() - 6), "d");
  EXPECT_TRUE(deps.truncated);
  EXPECT_EQ(deps.records.size(), 2u);
  EXPECT_EQ(deps.records[0].mtime, 1234567890123);
}

void expect_error(const std::string& bytes, std::string_view expected) {
  try {
    parse_ninja_deps_binary(bytes, "build/.ninja_deps");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("build/.ninja_deps", 0), 0u) << e.what();
  }
}

TEST(NinjaDeps, BadInputs) {
  expect_error("", "missing the \"# ninjadeps\" signature");
  expect_error("# ninja log v5\n", "signature");
  expect_error(DepsWriter(5).bytes(), "unsupported .ninja_deps version 5 (supported: 3 and 4)");
  DepsWriter bad_id(4);
  bad_id.path("a.o");
  bad_id.deps(0, 1, {7});
  expect_error(bad_id.bytes(), "unknown path id 7");
  std::string bad_check = sample(4);
  bad_check[16 + 4 + 24] ^= 1;  // the first path record's checksum
  expect_error(bad_check, "bad checksum");
}

TEST(NinjaDeps, ParsesNinjaToolText) {
  const NinjaDeps deps = parse_ninja_deps_text(
      "CMakeFiles/a.dir/a.cpp.o: #deps 2, deps mtime 1795314647640295187 (VALID)\n"
      "    /src/a.cpp\n"
      "    /src/a.h\n"
      "\n"
      "b.o: #deps 1, deps mtime 5 (STALE)\n"
      "    /src/b.cpp\n"
      "\n",
      "ninja -t deps");
  ASSERT_EQ(deps.records.size(), 2u);
  EXPECT_EQ(deps.records[0].inputs, (std::vector<std::string>{"/src/a.cpp", "/src/a.h"}));
  EXPECT_EQ(deps.records[0].mtime, 1795314647640295187);
  EXPECT_EQ(deps.records[1].output, "b.o");
  EXPECT_THROW(parse_ninja_deps_text("garbage line\n", "t"), Error);
  EXPECT_THROW(parse_ninja_deps_text("    /orphan.h\n", "t"), Error);
}

TEST(NinjaDeps, BinaryAndToolAgreeOnARealBuild) {
  const auto build = testing::fixture_build("modules");
  const NinjaDeps binary = read_ninja_deps(build);
  const NinjaDeps tool = run_ninja_deps_tool(build, testing::ninja_program());
  ASSERT_FALSE(binary.records.empty());
  ASSERT_EQ(binary.records.size(), tool.records.size());
  for (std::size_t i = 0; i < binary.records.size(); ++i) {
    EXPECT_EQ(binary.records[i].output, tool.records[i].output);
    EXPECT_EQ(binary.records[i].inputs, tool.records[i].inputs);
    EXPECT_EQ(binary.records[i].mtime, tool.records[i].mtime);
  }
}

TEST(NinjaDeps, FallsBackToNinjaWhenTheBinaryLogIsUnreadable) {
  const auto build = testing::fixture_build("modules");
  testing::TempDir copy("depscopy");
  // A build dir whose .ninja_deps is corrupt: without ninja, an error; with it, `ninja -t deps`.
  testing::write_file(copy / ".ninja_deps", std::string("# ninjadeps\n\x09\0\0\0", 16));
  EXPECT_THROW(read_ninja_deps(copy.path()), Error);
  // ninja cannot help in a directory that is not a Ninja build: its failure is reported.
  EXPECT_THROW(read_ninja_deps(copy.path(), testing::ninja_program()), Error);
  EXPECT_THROW(read_ninja_deps(copy / "missing"), Error);
  const NinjaDeps deps = read_ninja_deps(build, testing::ninja_program());
  EXPECT_GT(deps.records.size(), 0u);
}

}  // namespace
}  // namespace glassbox::introspect
