// Seeded mutation fuzzing of the binary readers: real ELF files (a glassbox library and the DWARF
// fixtures) with bits flipped, bytes set to boundary values, truncated, and header, section-header
// and symbol fields overwritten, are read with ElfFile, DwarfLines, the registration finder and
// list_symbols. Each must succeed or throw glassbox::Error: never crash, hang or throw anything else.
// The inputs depend on the seed file's bytes, so each build of the test library tries other ones.
//   GLASSBOX_FUZZ_SECONDS  time per case (default 3; the 60 s run: GLASSBOX_FUZZ_SECONDS=60)
//   GLASSBOX_FUZZ_SEED     the random seed (default: fixed, so runs repeat)
// A failing input is kept as <build>/tests/cpp/introspect/work/elf-fuzz-failure.so.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "engine/core/error.h"
#include "introspect/binary/binary_registrations.h"
#include "introspect/binary/symbol_listing.h"
#include "tests/cpp/introspect/elf_test_support.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

double fuzz_seconds() {
  const char* s = std::getenv("GLASSBOX_FUZZ_SECONDS");
  return s ? std::atof(s) : 3.0;
}

// One input of about a megabyte reads in milliseconds; one that takes this long is a hang.
constexpr double kInputSeconds = 60;

uint64_t fuzz_seed() {
  const char* s = std::getenv("GLASSBOX_FUZZ_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 20261122;
}

class ElfMutator {
 public:
  explicit ElfMutator(uint64_t seed) : rng_(seed) {}

  std::string mutate(std::string s) {
    for (int r = 0, rounds = 1 + static_cast<int>(pick(3)); r < rounds && !s.empty(); ++r) {
      switch (pick(7)) {
        case 0:  // flip bits anywhere
          for (int i = 0, n = 1 + static_cast<int>(pick(16)); i < n; ++i)
            s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
          break;
        case 1:  // truncate
          s.resize(pick(s.size()));
          break;
        case 2:  // an ELF header field: offsets, counts, sizes, indexes
          put_field(s, 16 + pick(48), 1 + pick(8));
          break;
        case 3:  // a field of a section header
          if (uint64_t shoff = read<uint64_t>(s, 40), shnum = read<uint16_t>(s, 60); shnum && shoff < s.size())
            put_field(s, shoff + 64 * pick(shnum) + pick(64), 1 << pick(4));
          break;
        case 4:  // a field of a symbol or a note, or DWARF: somewhere in the second half
          put_field(s, s.size() / 2 + pick(s.size() / 2), 1 << pick(4));
          break;
        case 5:  // a run of bytes set to one value
          for (std::size_t at = pick(s.size()), n = 1 + pick(256); n-- && at < s.size(); ++at)
            s[at] = interesting_byte();
          break;
        case 6:  // a chunk copied over another place
          if (s.size() > 64) {
            const std::size_t from = pick(s.size() - 32), to = pick(s.size() - 32);
            std::memmove(s.data() + to, s.data() + from, 1 + pick(31));
          }
          break;
      }
    }
    return s;
  }

  std::size_t pick(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

 private:
  template <class T>
  static T read(const std::string& s, std::size_t at) {
    T v{};
    if (at + sizeof(T) <= s.size()) std::memcpy(&v, s.data() + at, sizeof(T));
    return v;
  }
  char interesting_byte() {
    static const unsigned char values[] = {0, 1, 2, 0x7f, 0x80, 0xfe, 0xff, 0x40, 0x10};
    return static_cast<char>(values[pick(std::size(values))]);
  }
  // Overwrites `width` bytes at `at` with 0, all ones, a small or a huge value, or random bits.
  void put_field(std::string& s, std::size_t at, std::size_t width) {
    if (at >= s.size()) return;
    width = std::min(width, s.size() - at);
    uint64_t v;
    switch (pick(5)) {
      case 0: v = 0; break;
      case 1: v = ~uint64_t{0}; break;
      case 2: v = pick(70); break;
      case 3: v = uint64_t{1} << pick(64); break;
      default: v = rng_(); break;
    }
    std::memcpy(s.data() + at, &v, std::min<std::size_t>(width, sizeof v));
  }

  std::mt19937_64 rng_;
};

// Reads `file` the ways the tools do; returns whether everything was accepted.
bool read_everything(const std::filesystem::path& file) {
  const ElfFile elf = ElfFile::read(file);
  DwarfOptions none;
  none.debug_dirs = {"/nonexistent"};
  const DwarfLines lines = DwarfLines::read(elf, none);
  for (const auto& s : elf.symbols()) lines.lookup(s.address);
  find_binary_registrations(elf, &lines);
  SymbolQuery q;
  q.lines = true;
  q.dwarf = none;
  const SymbolListing listing = list_symbols(file, q);
  sizes_by_section(listing);
  sizes_by_source(listing);
  return lines.status() == DwarfLines::Status::Present;
}

void fuzz(const std::string& name, const std::filesystem::path& seed_file) {
  const std::string seed = testing::slurp(seed_file);
  ASSERT_GT(seed.size(), 64u);
  testing::TempDir dir("elffuzz-" + name);
  const auto input = dir / "input.so";
  ElfMutator mutator(fuzz_seed() ^ std::hash<std::string>{}(name));
  testing::write_file(input, seed);
  ASSERT_TRUE(read_everything(input)) << "the unchanged seed must read with its DWARF";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(fuzz_seconds());
  std::size_t tried = 0, accepted = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string mutant = mutator.mutate(seed);
    testing::write_file(input, mutant);
    ++tried;
    const auto kept = testing::work_dir() / "elf-fuzz-failure.so";
    try {
      testing::finish_within(
          kInputSeconds, [&] { read_everything(input); },
          [&] {
        testing::write_file(kept, mutant);
        std::fprintf(stderr, "%s: input %zu was still being read after %.0f s; kept as %s\n", name.c_str(), tried,
                     kInputSeconds, kept.c_str());
          });
      ++accepted;
    } catch (const Error&) {
      // the expected outcome for a broken file
    } catch (const std::exception& e) {
      testing::write_file(kept, mutant);
      FAIL() << name << ": threw " << typeid(e).name() << " (not glassbox::Error): " << e.what() << "; input kept as "
             << kept;
    }
  }
  std::printf("[ fuzz     ] %s: %zu inputs in %.0f s (%zu read, %zu rejected with glassbox::Error)\n", name.c_str(),
              tried, fuzz_seconds(), accepted, tried - accepted);
  EXPECT_GT(tried, 0u);
}

TEST(ElfFuzz, RegisteringLibrary) { fuzz("dlopen_library", testing::dlopen_library()); }
TEST(ElfFuzz, Dwarf4Library) { fuzz("dwarf4_library", GLASSBOX_TEST_DWARF4_LIBRARY); }

}  // namespace
}  // namespace glassbox::introspect
