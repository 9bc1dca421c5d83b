// DwarfLines: compile units and address -> file:line on glassbox's libraries (DWARF 4 and 5), a
// stripped copy, separate debug files (by build id and by .gnu_debuglink) and damaged DWARF.
#include "introspect/binary/dwarf_lines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "introspect/binary/elf_file.h"
#include "tests/cpp/introspect/elf_test_support.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

using testing::ends_with;

const ElfSymbol& symbol(const ElfFile& elf, std::string_view demangled_prefix) {
  for (const auto& s : elf.symbols())
    if (s.defined() && s.demangled.rfind(demangled_prefix, 0) == 0 && s.name.find('.') == std::string::npos) return s;
  throw std::runtime_error("no symbol " + std::string(demangled_prefix));
}

DwarfOptions only_in(const std::filesystem::path& dir) {
  DwarfOptions o;
  o.debug_dirs = {dir.string()};
  return o;
}

// Library::def's first instruction is on the line that opens its definition.
void expect_library_def_placed(const ElfFile& elf, const DwarfLines& lines) {
  const SourceLine at = lines.lookup(symbol(elf, "glassbox::Library::def(").address);
  EXPECT_TRUE(ends_with(at.file, "/registry/library.cpp")) << at.file;
  EXPECT_EQ(at.line, testing::line_containing("registry/library.cpp", "Library& Library::def("));
}

TEST(DwarfLines, CoreLibraryUnitsAndLines) {
  const ElfFile elf = ElfFile::read(testing::core_library());
  const DwarfLines lines = DwarfLines::read(elf);
  ASSERT_EQ(lines.status(), DwarfLines::Status::Present) << lines.message();
  EXPECT_FALSE(lines.from_separate_file());
  EXPECT_EQ(lines.debug_file(), elf.path());
  EXPECT_TRUE(lines.errors().empty());
  EXPECT_GT(lines.row_count(), 1000u);
  const auto& units = lines.units();
  const auto library = std::find_if(units.begin(), units.end(),
                                    [](const CompileUnit& u) { return ends_with(u.name, "registry/library.cpp"); });
  ASSERT_NE(library, units.end());
  EXPECT_GE(library->version, 4);
  EXPECT_NE(library->producer.find("GNU C++"), std::string::npos) << library->producer;
  EXPECT_FALSE(library->comp_dir.empty());
  EXPECT_TRUE(ends_with(library->source(), "/registry/library.cpp")) << library->source();
  EXPECT_GT(library->line_rows, 0u);
  expect_library_def_placed(elf, lines);
  EXPECT_FALSE(lines.lookup(0).valid());
}

TEST(DwarfLines, Dwarf4AndDwarf5) {
  for (const char* path : {GLASSBOX_TEST_DWARF4_LIBRARY, GLASSBOX_TEST_DWARF5_LIBRARY}) {
    const ElfFile elf = ElfFile::read(path);
    const DwarfLines lines = DwarfLines::read(elf);
    ASSERT_EQ(lines.status(), DwarfLines::Status::Present) << path;
    ASSERT_EQ(lines.units().size(), 1u) << path;
    const int version = std::string(path).find("dwarf4") != std::string::npos ? 4 : 5;
    EXPECT_EQ(lines.units()[0].version, version) << path;
    const std::string source = "tests/cpp/introspect/fixtures/binaries/dwarf_version_library.cpp";
    SourceLine at = lines.lookup(symbol(elf, "dwarf_fixture_square").address);
    EXPECT_TRUE(ends_with(at.file, source)) << at.file;
    EXPECT_EQ(at.line, testing::line_containing(source, "dwarf_fixture_square starts here")) << path;
    at = lines.lookup(symbol(elf, "dwarf_fixture::twice(int)").address);
    EXPECT_EQ(at.line, testing::line_containing(source, "twice starts here")) << path;
    // The lines a function's code comes from: its opening line and its body, nothing of its
    // neighbours, nothing of another file.
    const ElfSymbol& twice = symbol(elf, "dwarf_fixture::twice(int)");
    const std::vector<uint32_t> code = lines.lines_in(twice.address, twice.address + twice.size, at.file);
    ASSERT_FALSE(code.empty()) << path;
    EXPECT_EQ(code.front(), at.line) << path;
    EXPECT_TRUE(std::is_sorted(code.begin(), code.end()));
    EXPECT_LE(code.back(), testing::line_containing(source, "}  // namespace dwarf_fixture")) << path;
    EXPECT_NE(std::find(code.begin(), code.end(), testing::line_containing(source, "return 2 * x;")), code.end())
        << path;
    EXPECT_TRUE(lines.lines_in(twice.address, twice.address + twice.size, "/elsewhere.cpp").empty());
    EXPECT_TRUE(lines.lines_in(twice.address, twice.address, at.file).empty());
  }
}

TEST(DwarfLines, StrippedCopySaysLinesAreMissing) {
  testing::TempDir dir("dwarfstrip");
  const auto copy = dir / "libstripped.so";
  ASSERT_TRUE(testing::run_tool(
      {testing::objcopy_program(), "--strip-debug", testing::core_library().string(), copy.string()}));
  const ElfFile elf = ElfFile::read(copy);
  EXPECT_FALSE(elf.has_debug_info());
  EXPECT_NO_THROW(symbol(elf, "glassbox::Library::def("));  // .symtab kept
  const DwarfLines lines = DwarfLines::read(elf, only_in(dir.path()));
  EXPECT_EQ(lines.status(), DwarfLines::Status::Missing);
  EXPECT_NE(lines.message().find("no DWARF line information"), std::string::npos) << lines.message();
  EXPECT_NE(lines.message().find("no separate debug file for build id " + elf.build_id()), std::string::npos)
      << lines.message();
  EXPECT_FALSE(lines.lookup(symbol(elf, "glassbox::Library::def(").address).valid());
}

TEST(DwarfLines, SeparateDebugFileByBuildId) {
  testing::TempDir dir("dwarfbuildid");
  const auto stripped = dir / "libcore.so";
  const ElfFile original = ElfFile::read(testing::core_library());
  const std::string id = original.build_id();
  const auto debug = dir / "debug" / ".build-id" / id.substr(0, 2) / (id.substr(2) + ".debug");
  std::filesystem::create_directories(debug.parent_path());
  ASSERT_TRUE(testing::run_tool(
      {testing::objcopy_program(), "--only-keep-debug", testing::core_library().string(), debug.string()}));
  ASSERT_TRUE(testing::run_tool(
      {testing::objcopy_program(), "--strip-debug", testing::core_library().string(), stripped.string()}));
  const ElfFile elf = ElfFile::read(stripped);
  EXPECT_EQ(find_separate_debug_file(elf, {(dir / "debug").string()}), debug);
  const DwarfLines lines = DwarfLines::read(elf, only_in(dir / "debug"));
  ASSERT_EQ(lines.status(), DwarfLines::Status::Present) << lines.message();
  EXPECT_TRUE(lines.from_separate_file());
  EXPECT_EQ(lines.debug_file(), debug.string());
  expect_library_def_placed(elf, lines);
  DwarfOptions no_search = only_in(dir / "debug");
  no_search.separate_debug_files = false;
  EXPECT_EQ(DwarfLines::read(elf, no_search).status(), DwarfLines::Status::Missing);
}

TEST(DwarfLines, SeparateDebugFileByDebuglink) {
  testing::TempDir dir("dwarflink");
  const auto debug = dir / "libcore.debug";
  const auto stripped = dir / "libcore.so";
  ASSERT_TRUE(testing::run_tool(
      {testing::objcopy_program(), "--only-keep-debug", testing::core_library().string(), debug.string()}));
  ASSERT_TRUE(testing::run_tool({testing::objcopy_program(), "--strip-debug", "--add-gnu-debuglink=" + debug.string(),
                                 testing::core_library().string(), stripped.string()}));
  const ElfFile elf = ElfFile::read(stripped);
  EXPECT_EQ(elf.debuglink(), "libcore.debug");
  const DwarfLines lines = DwarfLines::read(elf, only_in(dir / "nothing-here"));
  ASSERT_EQ(lines.status(), DwarfLines::Status::Present) << lines.message();
  EXPECT_TRUE(ends_with(lines.debug_file(), "libcore.debug"));
  expect_library_def_placed(elf, lines);
}

// Overwrites a section's bytes with a pattern; symbols must still be read, DWARF problems reported.
void damage_section(const std::filesystem::path& file, const std::string& name, char fill) {
  const ElfFile elf = ElfFile::read(file);
  const ElfSection* s = elf.section(name);
  ASSERT_NE(s, nullptr) << name;
  testing::patch_file(file, s->offset, std::string(s->size, fill));
}

TEST(DwarfLines, CorruptLineTablesAreReportedPerUnit) {
  testing::TempDir dir("dwarfbadlines");
  const auto copy = dir / "lib.so";
  std::filesystem::copy_file(testing::core_library(), copy);
  damage_section(copy, ".debug_line", '\xff');
  const ElfFile elf = ElfFile::read(copy);
  EXPECT_NO_THROW(symbol(elf, "glassbox::Library::def("));
  const DwarfLines lines = DwarfLines::read(elf, only_in(dir.path()));
  ASSERT_FALSE(lines.errors().empty());
  EXPECT_NE(lines.errors().front().find("lib.so: compile unit "), std::string::npos) << lines.errors().front();
  EXPECT_NE(lines.errors().front().find("unreadable line table"), std::string::npos) << lines.errors().front();
  EXPECT_EQ(lines.row_count(), 0u);
}

TEST(DwarfLines, CorruptDebugInfoIsReported) {
  testing::TempDir dir("dwarfbadinfo");
  const auto copy = dir / "lib.so";
  std::filesystem::copy_file(testing::core_library(), copy);
  damage_section(copy, ".debug_info", '\x07');
  const ElfFile elf = ElfFile::read(copy);
  EXPECT_NO_THROW(symbol(elf, "glassbox::Library::def("));
  const DwarfLines lines = DwarfLines::read(elf, only_in(dir.path()));
  EXPECT_TRUE(lines.status() == DwarfLines::Status::Corrupt || !lines.errors().empty());
  const std::string said = lines.status() == DwarfLines::Status::Corrupt ? lines.message() : lines.errors().front();
  EXPECT_NE(said.find("lib.so"), std::string::npos) << said;
}

// The offsets of the "has children" bytes of every abbreviation in a .debug_abbrev section.
std::vector<std::size_t> children_flags(std::string_view abbrev) {
  std::size_t at = 0;
  auto uleb = [&] {
    uint64_t v = 0;
    for (int shift = 0; at < abbrev.size(); shift += 7) {
      const auto byte = static_cast<unsigned char>(abbrev[at++]);
      if (shift < 64) v |= uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) break;
    }
    return v;
  };
  std::vector<std::size_t> flags;
  while (at < abbrev.size()) {
    if (uleb() == 0) continue;  // the end of one unit's table
    uleb();                     // the tag
    flags.push_back(at++);
    for (;;) {
      const uint64_t name = uleb(), form = uleb();
      if (form == 0x21) uleb();  // DW_FORM_implicit_const carries its value (SLEB: same length)
      if (name == 0 && form == 0) break;
    }
  }
  return flags;
}

// Every abbreviation made to claim children: each DIE's next DIE is then both its child and its
// sibling, and a walk that follows both meets the DIEs of a unit 2^depth times over. The reader
// must still finish at once, with its symbols.
TEST(DwarfLines, AbbreviationsClaimingChildrenAreWalkedOnce) {
  testing::TempDir dir("dwarfchildren");
  const auto copy = dir / "lib.so";
  std::filesystem::copy_file(testing::dlopen_library(), copy);
  {
    const ElfFile elf = ElfFile::read(copy);
    const ElfSection* s = elf.section(".debug_abbrev");
    ASSERT_NE(s, nullptr);
    const std::string bytes = testing::slurp(copy).substr(s->offset, s->size);
    const std::vector<std::size_t> flags = children_flags(bytes);
    ASSERT_GT(std::count_if(flags.begin(), flags.end(), [&](std::size_t f) { return bytes[f] == 0; }), 10);
    for (std::size_t f : flags) testing::patch_file(copy, s->offset + f, "\x01");
  }
  testing::finish_within(
      60,
      [&] {
    const ElfFile elf = ElfFile::read(copy);
    const DwarfLines lines = DwarfLines::read(elf, only_in(dir.path()));
    for (const auto& sym : elf.symbols()) lines.lookup(sym.address);
    EXPECT_FALSE(elf.symbols().empty());
      },
      [] { std::fprintf(stderr, "DwarfLines::read walked the damaged units for a minute\n"); });
}

}  // namespace
}  // namespace glassbox::introspect
