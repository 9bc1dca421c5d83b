// ElfFile against glassbox's own libraries (cross-checked with nm and readelf) and bad files.
#include "introspect/binary/elf_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>

#include "engine/core/error.h"
#include "introspect/support/process.h"
#include "tests/cpp/introspect/elf_test_support.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

using testing::ends_with;

const ElfSymbol* find_symbol(const ElfFile& elf, std::string_view demangled_prefix, SymbolTable table) {
  for (const auto& s : elf.symbols())
    if (s.table == table && s.demangled.rfind(demangled_prefix, 0) == 0 && s.name.find('.') == std::string::npos)
      return &s;
  return nullptr;
}

std::string error_of(const std::filesystem::path& file) {
  try {
    ElfFile::read(file);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

TEST(ElfFile, CoreLibraryHeaderDynamicAndBuildId) {
  const ElfFile elf = ElfFile::read(testing::core_library());
  EXPECT_EQ(elf.type_name(), "shared library");
  EXPECT_EQ(elf.soname(), "libglassbox_core.so");
  EXPECT_NE(std::find(elf.needed().begin(), elf.needed().end(), "libstdc++.so.6"), elf.needed().end());
  ASSERT_EQ(elf.build_id().size(), 40u) << elf.build_id();
  const ProcessResult notes = run_process({"readelf", "-n", testing::core_library().string()});
  if (notes.exit_code == 0) {
    EXPECT_TRUE(contains(notes.output, "Build ID: " + elf.build_id())) << notes.output;
  }
  EXPECT_TRUE(elf.has_symtab());
  EXPECT_TRUE(elf.has_dynsym());
  EXPECT_TRUE(elf.has_debug_info());  // the dev preset builds with -g
  ASSERT_NE(elf.section(".text"), nullptr);
  EXPECT_TRUE(elf.section(".text")->executable());
  EXPECT_TRUE(elf.warnings().empty());
}

TEST(ElfFile, CoreLibrarySymbols) {
  const ElfFile elf = ElfFile::read(testing::core_library());
  const ElfSymbol* def = find_symbol(elf, "glassbox::Library::def(", SymbolTable::Symtab);
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->name.rfind("_ZN8glassbox7Library3defE", 0), 0u) << def->name;
  EXPECT_EQ(def->type, SymbolType::Function);
  EXPECT_EQ(def->binding, SymbolBinding::Global);
  EXPECT_EQ(def->visibility, SymbolVisibility::Default);
  EXPECT_EQ(def->section, ".text");
  EXPECT_GT(def->size, 0u);
  EXPECT_EQ(nm_letter(*def, elf.sections()), 'T');
  // Exported, so in .dynsym too, at the same address.
  const ElfSymbol* dyn = find_symbol(elf, "glassbox::Library::def(", SymbolTable::Dynsym);
  ASSERT_NE(dyn, nullptr);
  EXPECT_EQ(dyn->address, def->address);
  // A static registration block: local, in .symtab only.
  const ElfSymbol* block = find_symbol(elf, "glassbox_library_impl_init___AutogradCPU_", SymbolTable::Symtab);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->binding, SymbolBinding::Local);
  EXPECT_EQ(nm_letter(*block, elf.sections()), 't');
  EXPECT_EQ(find_symbol(elf, "glassbox_library_impl_init___AutogradCPU_", SymbolTable::Dynsym), nullptr);
}

// Every defined .symtab symbol, demangled, as `nm -C` lists it (address, letter, name).
TEST(ElfFile, SameSymbolsAsNm) {
  const ProcessResult nm = run_process({"nm", "-C", testing::core_library().string()});
  if (nm.exit_code != 0) GTEST_SKIP() << "nm is not available";
  std::multiset<std::string> expected, ours;
  std::istringstream lines(nm.output);
  for (std::string line; std::getline(lines, line);)
    if (line.size() > 19) expected.insert(line);
  ElfReadOptions o;
  o.tables = SymbolTables::Symtab;
  const ElfFile elf = ElfFile::read(testing::core_library(), o);
  for (const auto& s : elf.symbols()) {
    if (s.type == SymbolType::Section || s.type == SymbolType::File || s.name.empty()) continue;
    char address[17];
    std::snprintf(address, sizeof address, "%016llx", static_cast<unsigned long long>(s.address));
    ours.insert((s.defined() ? std::string(address) : std::string(16, ' ')) + " " + nm_letter(s, elf.sections()) + " " +
                s.demangled);
  }
  EXPECT_EQ(ours.size(), expected.size());
  std::vector<std::string> missing, extra;
  std::set_difference(expected.begin(), expected.end(), ours.begin(), ours.end(), std::back_inserter(missing));
  std::set_difference(ours.begin(), ours.end(), expected.begin(), expected.end(), std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << missing.size() << " lines of nm not produced, e.g. " << missing.front();
  EXPECT_TRUE(extra.empty()) << extra.size() << " lines not in nm, e.g. " << extra.front();
}

TEST(ElfFile, TablesToRead) {
  ElfReadOptions o;
  o.tables = SymbolTables::Dynsym;
  const ElfFile dyn = ElfFile::read(testing::core_library(), o);
  EXPECT_FALSE(dyn.symbols().empty());
  EXPECT_TRUE(
      std::all_of(dyn.symbols().begin(), dyn.symbols().end(), [](auto& s) { return s.table == SymbolTable::Dynsym; }));
  o.tables = SymbolTables::Preferred;
  const ElfFile pref = ElfFile::read(testing::core_library(), o);
  EXPECT_TRUE(std::all_of(pref.symbols().begin(), pref.symbols().end(),
                          [](auto& s) { return s.table == SymbolTable::Symtab; }));
  o.demangle = false;
  const ElfFile raw = ElfFile::read(testing::core_library(), o);
  EXPECT_TRUE(std::all_of(raw.symbols().begin(), raw.symbols().end(), [](auto& s) { return s.demangled == s.name; }));
}

TEST(ElfFile, ModuleLibraryNeedsCore) {
  const ElfFile elf = ElfFile::read(testing::dlopen_library());
  EXPECT_NE(std::find(elf.needed().begin(), elf.needed().end(), "libglassbox_core.so"), elf.needed().end());
  EXPECT_EQ(elf.soname(), "");
}

TEST(ElfFile, FullyStrippedCopyStillListsDynamicSymbols) {
  testing::TempDir dir("elfstrip");
  const auto copy = dir / "libstripped.so";
  ASSERT_TRUE(testing::run_tool(
      {testing::strip_program(), "--strip-all", "-o", copy.string(), testing::core_library().string()}));
  const ElfFile elf = ElfFile::read(copy);
  EXPECT_FALSE(elf.has_symtab());
  EXPECT_FALSE(elf.has_debug_info());
  EXPECT_NE(find_symbol(elf, "glassbox::Library::def(", SymbolTable::Dynsym), nullptr);
  EXPECT_EQ(elf.build_id(), ElfFile::read(testing::core_library()).build_id());
}

TEST(ElfFile, BadFilesSayWhatIsWrong) {
  testing::TempDir dir("elfbad");
  const std::string real = testing::slurp(testing::core_library());
  ASSERT_GT(real.size(), 4096u);
  auto write = [&](const char* name, std::string_view content) {
    testing::write_file(dir / name, content);
    return dir / name;
  };
  std::string e = error_of(write("notes.txt", "these are not the bytes you are looking for\n"));
  EXPECT_TRUE(contains(e, "notes.txt: not an ELF file (it starts with bytes 74 68 65 73")) << e;
  e = error_of(write("empty.so", ""));
  EXPECT_TRUE(contains(e, "empty.so: not an ELF file (the file is empty)")) << e;
  e = error_of(write("tiny.so", real.substr(0, 3)));
  EXPECT_TRUE(contains(e, "tiny.so: truncated ELF file (3 bytes")) << e;
  e = error_of(write("header.so", real.substr(0, 40)));
  EXPECT_TRUE(contains(e, "header.so: truncated ELF file (40 bytes; the ELF64 header needs 64)")) << e;
  e = error_of(write("half.so", real.substr(0, real.size() / 2)));
  EXPECT_TRUE(contains(e, "half.so: truncated ELF file (")) << e;
  EXPECT_TRUE(contains(e, "the section header table")) << e;
  std::string elf32 = real;
  elf32[4] = 1;  // EI_CLASS = ELFCLASS32
  e = error_of(write("lib32.so", elf32));
  EXPECT_TRUE(contains(e, "lib32.so: 32-bit ELF (ELFCLASS32) is not supported")) << e;
  std::string big = real;
  big[5] = 2;  // EI_DATA = ELFDATA2MSB
  e = error_of(write("big.so", big));
  EXPECT_TRUE(contains(e, "big.so: big-endian ELF (ELFDATA2MSB) is not supported")) << e;
  std::string entsize = real;
  entsize[58] = 17;  // e_shentsize
  e = error_of(write("entsize.so", entsize));
  EXPECT_TRUE(contains(e, "entsize.so: corrupt ELF header: section header entries of 17 bytes (expected 64)")) << e;
  e = error_of(dir / "missing.so");
  EXPECT_TRUE(contains(e, "missing.so: cannot open: No such file or directory")) << e;
  e = error_of(dir.path());
  EXPECT_TRUE(contains(e, ": not a regular file")) << e;
}

TEST(ElfFile, DamagedSymbolTableIsAnError) {
  testing::TempDir dir("elfsymtab");
  const auto copy = dir / "lib.so";
  std::filesystem::copy_file(testing::core_library(), copy);
  const ElfFile good = ElfFile::read(copy);
  // Point .symtab's string-table link (sh_link) at section 0.
  const std::string bytes = testing::slurp(copy);
  uint64_t shoff;
  std::memcpy(&shoff, bytes.data() + 40, 8);
  std::size_t index = 0;
  for (; index < good.sections().size(); ++index)
    if (good.sections()[index].name == ".symtab") break;
  ASSERT_LT(index, good.sections().size());
  testing::patch_file(copy, shoff + index * 64 + 40, std::string(4, '\0'));
  const std::string e = error_of(copy);
  EXPECT_TRUE(contains(e, "lib.so: corrupt symbol table .symtab: its string table (section 0) is not a string table"))
      << e;
}

}  // namespace
}  // namespace glassbox::introspect
