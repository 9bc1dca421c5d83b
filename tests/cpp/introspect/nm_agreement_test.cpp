// `glassbox symbols` against binutils' nm on real binaries: the same names as `nm -C` (and
// `nm -D -C`), symbol for symbol, on Debian's libraries and on the torch wheel's libtorch_cpu.so.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>

#include "introspect/binary/demangle.h"
#include "introspect/binary/elf_file.h"
#include "introspect/binary/symbol_listing.h"
#include "introspect/support/process.h"
#include "real_binaries.h"

namespace glassbox::introspect {
namespace {

using testing::FetchedFile;

// The names nm prints (after the address and type columns), sorted.
std::vector<std::string> nm_names(const std::filesystem::path& file, const std::vector<std::string>& flags) {
  std::vector<std::string> argv{GLASSBOX_TEST_NM};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(file.string());
  const ProcessResult nm = run_process(argv);
  EXPECT_EQ(nm.exit_code, 0) << nm.error_output;
  std::vector<std::string> names;
  std::istringstream lines(nm.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() < 19) continue;
    names.push_back(line.substr(19));  // 16 hex digits, ' ', the letter, ' '
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> glassbox_names(const std::filesystem::path& file, SymbolTables tables) {
  SymbolQuery q;
  q.tables = tables;
  const SymbolListing listing = list_symbols(file, q);
  std::vector<std::string> names;
  names.reserve(listing.symbols.size());
  for (const auto& ls : listing.symbols) names.push_back(listing.symbol(ls).demangled);
  std::sort(names.begin(), names.end());
  return names;
}

// Equal sorted lists, or the first differences each way.
void expect_same_names(const std::vector<std::string>& nm, const std::vector<std::string>& ours,
                       const std::string& what) {
  EXPECT_EQ(ours.size(), nm.size()) << what << ": symbol counts";
  std::vector<std::string> only_nm, only_ours;
  std::set_difference(nm.begin(), nm.end(), ours.begin(), ours.end(), std::back_inserter(only_nm));
  std::set_difference(ours.begin(), ours.end(), nm.begin(), nm.end(), std::back_inserter(only_ours));
  std::ostringstream diff;
  for (std::size_t i = 0; i < only_nm.size() && i < 8; ++i) diff << "\n  nm only:       " << only_nm[i];
  for (std::size_t i = 0; i < only_ours.size() && i < 8; ++i) diff << "\n  glassbox only: " << only_ours[i];
  EXPECT_TRUE(only_nm.empty() && only_ours.empty()) << what << ": " << only_nm.size() << " names only in nm -C, "
                                                    << only_ours.size() << " only in glassbox" << diff.str();
}

std::size_t count_mangled(const std::vector<std::string>& names) {
  return static_cast<std::size_t>(
      std::count_if(names.begin(), names.end(), [](const std::string& n) { return is_mangled(n); }));
}

class DebianLibrary : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

// Debian ships its libraries stripped: their .dynsym, with symbol versions, is what nm -D lists.
TEST_P(DebianLibrary, DynamicSymbolsAreNmsNames) {
  const auto [package, suffix] = GetParam();
  const FetchedFile lib = testing::debian_package_file(package, suffix);
  if (lib.path.empty()) GTEST_SKIP() << lib.why_not;
  const auto nm = nm_names(lib.path, {"-D", "-C"});
  ASSERT_GT(nm.size(), 100u);
  expect_same_names(nm, glassbox_names(lib.path, SymbolTables::Dynsym), lib.path.string());
}

INSTANTIATE_TEST_SUITE_P(Packages, DebianLibrary,
                         ::testing::Values(std::make_pair("libstdc++6", "/libstdc++.so.6.0.30"),
                                           std::make_pair("libclang-cpp14", "/libclang-cpp.so.14"),
                                           std::make_pair("libdw1", ".so"), std::make_pair("cmake", "/bin/cmake")),
                         [](const auto& info) {
  std::string n = info.param.first;
  std::replace_if(
      n.begin(), n.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return n;
});

TEST(DebianLibraryVersions, DefaultAndHiddenVersionsAsNmPrintsThem) {
  const FetchedFile lib = testing::debian_package_file("libstdc++6", "/libstdc++.so.6.0.30");
  if (lib.path.empty()) GTEST_SKIP() << lib.why_not;
  const auto ours = glassbox_names(lib.path, SymbolTables::Dynsym);
  const auto has = [&](const std::string& n) { return std::binary_search(ours.begin(), ours.end(), n); };
  EXPECT_TRUE(has("std::runtime_error::what() const@@GLIBCXX_3.4"));  // defined, default version
  EXPECT_TRUE(has("memcpy@GLIBC_2.14"));                              // needed from libc
  EXPECT_FALSE(has("GLIBCXX_3.4@@GLIBCXX_3.4"));                      // the version's own symbol
  EXPECT_TRUE(has("GLIBCXX_3.4"));
}

// The acceptance case: every name of the PyPI wheel's libtorch_cpu.so as nm -C prints it.
class TorchWheel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { lib_ = new FetchedFile(testing::torch_wheel_library("libtorch_cpu.so")); }
  static void TearDownTestSuite() { delete lib_; }
  void SetUp() override {
    if (lib_->path.empty()) GTEST_SKIP() << "the torch wheel cannot be downloaded here: " << lib_->why_not;
  }
  static FetchedFile* lib_;
};
FetchedFile* TorchWheel::lib_ = nullptr;

TEST_F(TorchWheel, SymtabNamesAreNmsNames) {
  const auto nm = nm_names(lib_->path, {"-C"});
  const auto ours = glassbox_names(lib_->path, SymbolTables::Preferred);
  ASSERT_GT(nm.size(), 100000u);
  expect_same_names(nm, ours, "libtorch_cpu.so .symtab");
  // Names left mangled are those binutils does not demangle either.
  EXPECT_EQ(count_mangled(ours), count_mangled(nm));
  if (demangler_name() != "libiberty") std::cout << "note: built without libiberty: abi::__cxa_demangle\n";
}

// The command prints names demangled while it writes them (not through list_symbols' names).
std::vector<std::string> cli_names(const std::filesystem::path& file, const std::vector<std::string>& flags) {
  std::vector<std::string> argv{GLASSBOX_TEST_CLI, "symbols", file.string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  const ProcessResult p = run_process(argv);
  EXPECT_EQ(p.exit_code, 0) << p.error_output;
  std::vector<std::string> names;
  std::istringstream lines(p.output);
  for (std::string line; std::getline(lines, line);)
    if (line.size() > 28) names.push_back(line.substr(28));  // 16 hex digits, size (8), letter
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(TorchWheel, CommandPrintsNmsNames) {
  expect_same_names(nm_names(lib_->path, {"-C"}), cli_names(lib_->path, {"--threads", "2"}), "glassbox symbols");
}

TEST_F(TorchWheel, DynamicNamesWithVersionsAreNmsNames) {
  expect_same_names(nm_names(lib_->path, {"-D", "-C"}), glassbox_names(lib_->path, SymbolTables::Dynsym),
                    "libtorch_cpu.so .dynsym");
}

// Lines: nm -l's "file:line" after a tab, its paths normalized as glassbox prints them.
using Lines = std::map<std::string, std::vector<std::string>>;  // name -> lines of its symbols

std::string normalized(const std::string& place) {
  const auto colon = place.rfind(':');
  if (place.empty() || colon == std::string::npos) return place;
  return std::filesystem::path(place.substr(0, colon)).lexically_normal().string() + place.substr(colon);
}

Lines nm_lines(const std::filesystem::path& file) {
  const ProcessResult nm = run_process({GLASSBOX_TEST_NM, "-C", "-l", file.string()});
  EXPECT_EQ(nm.exit_code, 0) << nm.error_output;
  Lines out;
  std::istringstream lines(nm.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() < 19 || line[17] == 'U' || line[17] == 'w' || line[17] == 'v') continue;  // undefined
    const std::string rest = line.substr(17);                                                 // "T name\tfile:line"
    const auto tab = rest.find('\t');
    out[rest.substr(0, tab)].push_back(tab == std::string::npos ? "" : normalized(rest.substr(tab + 1)));
  }
  for (auto& [name, v] : out) std::sort(v.begin(), v.end());
  return out;
}

Lines glassbox_lines(const std::filesystem::path& file) {
  SymbolQuery q;
  q.lines = true;
  const SymbolListing listing = list_symbols(file, q);
  EXPECT_EQ(listing.dwarf->status(), DwarfLines::Status::Present) << listing.dwarf->message();
  Lines out;
  for (const auto& ls : listing.symbols) {
    if (ls.nm == 'U' || ls.nm == 'w' || ls.nm == 'v') continue;
    const std::string place = ls.line.valid() ? std::string(ls.line.file) + ":" + std::to_string(ls.line.line) : "";
    out[std::string(1, ls.nm) + " " + listing.symbol(ls).demangled].push_back(normalized(place));
  }
  for (auto& [name, v] : out) std::sort(v.begin(), v.end());
  return out;
}

struct LineAgreement {
  std::size_t data = 0, data_same = 0, clones = 0, clones_same = 0, all = 0, all_same = 0;
  std::vector<std::string> differences;
};

// A GCC clone: "f() [clone .cold]" demangled, "f.cold" in C.
bool is_clone(const std::string& name) {
  for (const char* suffix : {"[clone .", ".cold", ".isra.", ".constprop.", ".part."})
    if (name.find(suffix) != std::string::npos) return true;
  return false;
}

LineAgreement compare_lines(const Lines& nm, const Lines& ours) {
  LineAgreement a;
  for (const auto& [name, places] : nm) {
    const auto it = ours.find(name);
    for (std::size_t i = 0; i < places.size(); ++i) {
      const bool same = it != ours.end() && i < it->second.size() && it->second[i] == places[i];
      const bool data = std::string("dDbBrRu").find(name[0]) != std::string::npos;
      ++a.all, a.all_same += same;
      if (data) ++a.data, a.data_same += same;
      if (is_clone(name)) ++a.clones, a.clones_same += same;
      if (!same && a.differences.size() < 10)
        a.differences.push_back(name + "\n      nm -l: " + places[i] + "\n   glassbox: " +
                                (it != ours.end() && i < it->second.size() ? it->second[i] : "(missing)"));
    }
  }
  return a;
}

std::string describe(const LineAgreement& a) {
  std::ostringstream s;
  s << a.all_same << "/" << a.all << " symbols on the same line as nm -l; data objects " << a.data_same << "/" << a.data
    << ", clones " << a.clones_same << "/" << a.clones;
  for (const auto& d : a.differences) s << "\n  " << d;
  return s.str();
}

// A library built here with -O2 -g: clones whose .cold parts hold inlined header code, data
// objects of every kind. Every defined symbol on nm -l's line.
TEST(NmLines, ClonesAndDataObjectsOfAFixture) {
  const std::filesystem::path lib = GLASSBOX_TEST_CLONES_LIBRARY;
  const Lines nm = nm_lines(lib);
  const LineAgreement a = compare_lines(nm, glassbox_lines(lib));
  std::cout << describe(a) << "\n";
  EXPECT_EQ(a.all_same, a.all) << describe(a);
  EXPECT_GE(a.clones, 3u);  // compute and compute_all's .cold parts, helper's .constprop copy
  EXPECT_GE(a.data, 4u);    // table, counter, Holder::member, compute_all's calls
  // The .cold part of compute() is placed at compute(), not in the header its code comes from.
  const auto cold = nm.find("t compute(int) [clone .cold]");
  ASSERT_NE(cold, nm.end());
  EXPECT_NE(cold->second.front().find("clones_and_data.cpp:"), std::string::npos) << cold->second.front();
}

// Debian's libc6-dbg: the .symtab and DWARF of the C library (the debug file of libc.so.6, found by
// its build id), C and assembler code with GCC's .cold/.isra/.constprop/.part clones and
// thousands of data objects.
TEST(NmLines, DebianLibcDebugFile) {
  const FetchedFile libc = testing::debian_package_file("libc6", "/libc.so.6");
  if (libc.path.empty()) GTEST_SKIP() << libc.why_not;
  const std::string id = ElfFile::read(libc.path).build_id();
  const std::filesystem::path debug =
      std::filesystem::path("/usr/lib/debug/.build-id") / id.substr(0, 2) / (id.substr(2) + ".debug");
  if (!std::filesystem::exists(debug)) GTEST_SKIP() << debug << " is missing (apt-get install libc6-dbg)";
  const LineAgreement a = compare_lines(nm_lines(debug), glassbox_lines(debug));
  std::cout << "libc6-dbg: " << describe(a) << "\n";
  EXPECT_GE(a.clones, 100u);
  EXPECT_EQ(a.clones_same, a.clones) << describe(a);
  EXPECT_GE(a.data_same * 100, a.data * 98) << describe(a);
  EXPECT_GE(a.all_same * 100, a.all * 95) << describe(a);
}

}  // namespace
}  // namespace glassbox::introspect
