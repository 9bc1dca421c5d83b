// Seeded random-corpus fuzzing of the readers: valid inputs mutated (truncated, bytes flipped,
// chunks inserted, deleted, duplicated, spliced with another input) must either parse or throw
// glassbox::Error, never crash or throw anything else.
//   GLASSBOX_FUZZ_SECONDS  time per reader (default 10)
//   GLASSBOX_FUZZ_SEED     the random seed (default: fixed, so runs repeat)
// A failing input is written to <build>/tests/cpp/introspect/work/fuzz-failure-<reader>.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <random>

#include "engine/core/error.h"
#include "introspect/buildtree/compile_database.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/buildtree/ninja_deps.h"
#include "introspect/buildtree/ninja_log.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

double fuzz_seconds() {
  const char* s = std::getenv("GLASSBOX_FUZZ_SECONDS");
  return s ? std::atof(s) : 10.0;
}

uint64_t fuzz_seed() {
  const char* s = std::getenv("GLASSBOX_FUZZ_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 20261122;
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string mutate(const std::string& input, const std::vector<std::string>& corpus) {
    std::string s = input;
    const int rounds = 1 + static_cast<int>(pick(4));
    for (int r = 0; r < rounds; ++r) {
      switch (pick(7)) {
        case 0:  // truncate
          s.resize(pick(s.size() + 1));
          break;
        case 1:  // flip bytes
          for (int i = 0, n = 1 + static_cast<int>(pick(8)); i < n && !s.empty(); ++i)
            s[pick(s.size())] ^= static_cast<char>(1 + pick(255));
          break;
        case 2: {  // insert interesting bytes
          static const char* const kTokens[] = {"\"",   "{",    "}",     "[",  "]",  ",",
                                                ":",    "\\",   "\t",    "\n", "-1", "99999999999999999999",
                                                "null", "true", "\"x\"", "'",  "@",  "\0"};
          const std::string token = kTokens[pick(std::size(kTokens))];
          s.insert(pick(s.size() + 1), token.empty() ? std::string(1, '\0') : token);
          break;
        }
        case 3: {  // delete a chunk
          if (s.empty()) break;
          const size_t at = pick(s.size());
          s.erase(at, pick(std::min<size_t>(64, s.size() - at) + 1));
          break;
        }
        case 4: {  // duplicate a chunk
          if (s.empty()) break;
          const size_t at = pick(s.size());
          const std::string chunk = s.substr(at, pick(128) + 1);
          s.insert(pick(s.size() + 1), chunk);
          break;
        }
        case 5: {  // splice with another corpus member
          const std::string& other = corpus[pick(corpus.size())];
          s = s.substr(0, pick(s.size() + 1)) + other.substr(pick(other.size() + 1));
          break;
        }
        case 6:  // random garbage bytes
          for (int i = 0, n = 1 + static_cast<int>(pick(16)); i < n; ++i)
            s.insert(pick(s.size() + 1), 1, static_cast<char>(pick(256)));
          break;
      }
    }
    return s;
  }

  size_t pick(size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

 private:
  std::mt19937_64 rng_;
};

// Runs `reader` on mutated inputs until the time is up. Returns the number of inputs tried.
size_t fuzz(const std::string& name, const std::vector<std::string>& corpus,
            const std::function<void(const std::string&)>& reader, bool seeds_must_parse = true) {
  Mutator mutator(fuzz_seed() ^ std::hash<std::string>{}(name));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(fuzz_seconds());
  size_t tried = 0, accepted = 0;
  if (seeds_must_parse) {
    for (const auto& seed : corpus) {
      EXPECT_NO_THROW(reader(seed)) << name << ": a seed input must parse";
    }
  }
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string input = mutator.mutate(corpus[mutator.pick(corpus.size())], corpus);
    ++tried;
    try {
      reader(input);
      ++accepted;
    } catch (const Error&) {
      // the expected outcome for a broken input
    } catch (const std::exception& e) {
      testing::write_file(testing::work_dir() / ("fuzz-failure-" + name), input);
      ADD_FAILURE() << name << ": threw " << typeid(e).name() << " (not glassbox::Error): " << e.what()
                    << "; input saved to " << (testing::work_dir() / ("fuzz-failure-" + name));
      return tried;
    }
  }
  std::printf("[ fuzz     ] %s: %zu inputs in %.0f s (%zu parsed, %zu rejected with glassbox::Error)\n", name.c_str(),
              tried, fuzz_seconds(), accepted, tried - accepted);
  return tried;
}

std::vector<std::string> files_under(const std::filesystem::path& dir, std::string_view suffix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(e.path().string());
    }
  }
  return out;
}

TEST(ReaderFuzz, CompileDatabase) {
  const auto build = testing::fixture_build("modules");
  const std::vector<std::string> corpus = {
      testing::slurp(build / "compile_commands.json"),
      R"([{"directory": "/b", "arguments": ["c++", "-I", "x", "-DA=\"1\"", "@r.rsp", "-o", "a.o", "-c", "a.cpp"], "file": "a.cpp", "output": "a.o"}])",
      R"([{"directory": "/b", "command": "c++ '-DX=a b' \"-I/q\\\"x\" -isystem /s -std=c++20 -c a.cpp", "file": "a.cpp"}])"};
  EXPECT_GT(fuzz("compile_commands.json", corpus, [](const std::string& s) { parse_compile_database(s, "fuzz"); }), 0u);
}

TEST(ReaderFuzz, NinjaLog) {
  const auto build = testing::fixture_build("modules");
  std::string real = testing::slurp(build / ".ninja_log");
  std::vector<std::string> corpus = {real, "# ninja log v6\n0\t10\t0\ta.o\tff\n5\t20\t1\tb.o\tff\n",
                                     "# ninja log v7\n1\t2\t3\tout\tdeadbeef\n"};
  EXPECT_GT(fuzz("ninja_log", corpus, [](const std::string& s) { parse_ninja_log(s, "fuzz"); }), 0u);
}

TEST(ReaderFuzz, NinjaDeps) {
  const auto build = testing::fixture_build("modules");
  const std::vector<std::string> binary = {testing::slurp(build / ".ninja_deps")};
  EXPECT_GT(fuzz("ninja_deps", binary, [](const std::string& s) { parse_ninja_deps_binary(s, "fuzz"); }), 0u);
  const auto text = run_ninja_deps_tool(build, testing::ninja_program());
  std::string printed;
  for (const auto& r : text.records) {
    printed += r.output + ": #deps " + std::to_string(r.inputs.size()) + ", deps mtime 1 (VALID)\n";
    for (const auto& i : r.inputs) printed += "    " + i + "\n";
    printed += "\n";
  }
  EXPECT_GT(fuzz("ninja_deps_text", {printed}, [](const std::string& s) { parse_ninja_deps_text(s, "fuzz"); }), 0u);
}

TEST(ReaderFuzz, FileApiReply) {
  const auto build = testing::fixture_build("modules");
  // A private copy of the reply, one of whose files is replaced by a mutant each time.
  testing::TempDir copy("fuzzreply");
  const auto reply_dir = copy / ".cmake/api/v1/reply";
  std::filesystem::create_directories(reply_dir);
  const auto index = find_reply_index(build);
  ASSERT_TRUE(index.has_value());
  for (const auto& e : std::filesystem::directory_iterator(index->parent_path())) {
    std::filesystem::copy_file(e.path(), reply_dir / e.path().filename());
  }
  const auto copied_index = reply_dir / index->filename();
  std::vector<std::string> files = {copied_index.string()};
  for (const auto& f : files_under(reply_dir, ".json"))
    if (f.find("index-") == std::string::npos && f.find("cache-") == std::string::npos) files.push_back(f);
  std::vector<std::string> corpus;
  for (const auto& f : files) corpus.push_back(testing::slurp(f));

  Mutator chooser(fuzz_seed());
  size_t which = 0;
  EXPECT_GT(fuzz(
                "file_api", corpus,
                [&](const std::string& s) {
    which = chooser.pick(files.size());
    testing::write_file(files[which], s);
    struct Restore {
      const std::string& file;
      const std::string& original;
      ~Restore() { testing::write_file(file, original); }
    } restore{files[which], corpus[which]};
    read_file_api_index(copied_index);
                },
                /*seeds_must_parse=*/false),
            0u);
}

}  // namespace
}  // namespace glassbox::introspect
