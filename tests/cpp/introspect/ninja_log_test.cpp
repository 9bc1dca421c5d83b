#include "introspect/buildtree/ninja_log.h"

#include <gtest/gtest.h>

#include <map>

#include "engine/core/error.h"
#include "introspect/buildtree/ninja_manifest.h"
#include "introspect/support/json_file.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

std::string log_text(int version) {
  return "# ninja log v" + std::to_string(version) + "\n" +
         "0\t120\t1700000000000000001\tCMakeFiles/a.dir/a.cpp.o\t1a2b\n"
         "5\t300\t1700000000000000002\tgen.h\tff00\n"
         "5\t300\t1700000000000000002\tgen.cpp\tff00\n"
         "300\t410\t0\tlib/liba.so\tabc\n";
}

TEST(NinjaLog, ReadsVersions5To7) {
  for (int version : {5, 6, 7}) {
    const NinjaLog log = parse_ninja_log(log_text(version), ".ninja_log");
    EXPECT_EQ(log.version, version);
    ASSERT_EQ(log.entries.size(), 4u);
    EXPECT_EQ(log.entries[0].output, "CMakeFiles/a.dir/a.cpp.o");
    EXPECT_EQ(log.entries[0].start_ms, 0);
    EXPECT_EQ(log.entries[0].end_ms, 120);
    EXPECT_EQ(log.entries[0].mtime, 1700000000000000001);
    EXPECT_EQ(log.entries[0].command_hash, 0x1a2bu);
    EXPECT_EQ(log.entries[3].duration_ms(), 110);
    EXPECT_EQ(log.runs, 1);
  }
}

TEST(NinjaLog, GroupsOutputsOfOneCommand) {
  const NinjaLog log = parse_ninja_log(log_text(5), "l");
  ASSERT_EQ(log.jobs.size(), 3u);
  EXPECT_EQ(log.jobs[1].outputs, (std::vector<std::string>{"gen.h", "gen.cpp"}));
  EXPECT_EQ(log.jobs[1].command_hash, 0xff00u);
}

TEST(NinjaLog, LaterEntriesReplaceEarlierOnesAndStartNewRuns) {
  const NinjaLog log = parse_ninja_log(
      "# ninja log v5\n"
      "0\t100\t1\ta.o\t1\n"
      "0\t200\t1\tb.o\t2\n"
      "0\t50\t2\ta.o\t3\n",  // a second run rebuilt a.o
      "l");
  ASSERT_EQ(log.entries.size(), 2u);
  EXPECT_EQ(log.entries[0].output, "a.o");
  EXPECT_EQ(log.entries[0].end_ms, 50);
  EXPECT_EQ(log.entries[0].command_hash, 3u);
  EXPECT_EQ(log.entries[0].run, 1);
  EXPECT_EQ(log.entries[1].run, 0);
  EXPECT_EQ(log.runs, 2);
}

// CMake recompacts the log after a (re)configure: one line per output, in hash order. The runs are
// then told apart by each output's mtime minus its end time (when the run started, wall clock).
TEST(NinjaLog, RecompactedLogRunsComeFromMtimes) {
  const int64_t first = 1'700'000'000'000;  // ms: the full build started here
  const int64_t second = first + 60'000;    // a rebuild one minute later
  auto line = [](int64_t run_start_ms, int start, int end, const char* out, const char* hash) {
    return std::to_string(start) + "\t" + std::to_string(end) + "\t" +
           std::to_string((run_start_ms + end) * 1'000'000 - 3) + "\t" + out + "\t" + hash + "\n";
  };
  const std::string text = "# ninja log v5\n" + line(second, 0, 40, "b.o", "b2") + line(first, 0, 900, "c.o", "c1") +
                           line(first, 10, 300, "gen.h", "e1") + line(second, 40, 90, "app", "f2") +
                           line(first, 0, 100, "a.o", "a1") +
                           // an unchanged output of a restat command keeps the mtime of an older run
                           line(first - 600'000, 10, 300, "gen.cpp", "e1") +
                           "910\t950\t0\tdeleted.txt\td1\n";  // no mtime: the newest run of its file-order stretch
  const NinjaLog log = parse_ninja_log(text, "l");
  EXPECT_TRUE(log.runs_from_mtimes);
  EXPECT_EQ(log.runs, 2);
  std::map<std::string, int> run;
  for (const auto& e : log.entries) run[e.output] = e.run;
  EXPECT_EQ(run,
            (std::map<std::string, int>{
                {"a.o", 0}, {"b.o", 1}, {"c.o", 0}, {"gen.h", 0}, {"gen.cpp", 0}, {"app", 1}, {"deleted.txt", 1}}));
  // gen.h and gen.cpp are still one command
  size_t jobs_with_two = 0;
  for (const auto& j : log.jobs) jobs_with_two += j.outputs.size() == 2;
  EXPECT_EQ(jobs_with_two, 1u);
}

TEST(NinjaLog, AnUnchangedRestatOutputDoesNotMakeARunOfItsOwn) {
  // One build of three jobs; the generator's output was left unchanged (restat), so its mtime is ten
  // minutes older than the build and its start looks ten minutes earlier. A later rebuild of one step.
  const int64_t build = 1'700'000'000'000, rebuild = build + 120'000;
  auto line = [](int64_t run_start_ms, int start, int end, const char* out, const char* hash) {
    return std::to_string(start) + "\t" + std::to_string(end) + "\t" +
           std::to_string((run_start_ms + end) * 1'000'000) + "\t" + out + "\t" + hash + "\n";
  };
  const std::string text = "# ninja log v5\n" + line(build, 0, 100, "a.o", "a1") + line(rebuild, 0, 50, "b.o", "b2") +
                           line(build - 600'000, 0, 20, "gen.cpp", "e1") + line(build, 100, 400, "lib.so", "c1") +
                           line(rebuild, 50, 80, "app", "f2");
  const NinjaLog log = parse_ninja_log(text, "l");
  EXPECT_TRUE(log.runs_from_mtimes);
  EXPECT_EQ(log.runs, 2);
  std::map<std::string, int> run;
  for (const auto& e : log.entries) run[e.output] = e.run;
  EXPECT_EQ(run, (std::map<std::string, int>{{"a.o", 0}, {"gen.cpp", 0}, {"lib.so", 0}, {"b.o", 1}, {"app", 1}}));
}

TEST(NinjaLog, InterruptedLastLineIsSkipped) {
  const NinjaLog log = parse_ninja_log("# ninja log v6\n0\t1\t0\ta.o\t1\n5\t9\t0\tb.", "l");
  EXPECT_EQ(log.entries.size(), 1u);
}

TEST(NinjaLog, EmptyLogHasNoEntries) { EXPECT_TRUE(parse_ninja_log("# ninja log v5\n", "l").entries.empty()); }

void expect_error(std::string_view text, std::string_view expected) {
  try {
    parse_ninja_log(text, "build/.ninja_log");
    FAIL() << "no error for: " << text;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(expected), std::string::npos) << what;
    EXPECT_EQ(what.rfind("build/.ninja_log", 0), 0u) << what;
  }
}

TEST(NinjaLog, BadInputs) {
  expect_error("# ninja log v4\n", "unsupported .ninja_log version 4 (supported: 5 to 7)");
  expect_error("# ninja log v8\n", "unsupported .ninja_log version 8");
  expect_error("# ninja log vX\n", "unreadable version");
  expect_error("", "not a .ninja_log");
  expect_error("hello\n", "not a .ninja_log");
  expect_error("# ninja log v5\n1\t2\t3\n", ":2: expected 5 tab-separated fields");
  expect_error("# ninja log v5\nx\t2\t3\ta.o\tff\n", ":2: start and end must be integers");
  expect_error("# ninja log v5\n1\t2\t3\ta.o\tzz\n", ":2: command hash must be hexadecimal");
  expect_error("# ninja log v5\n9\t2\t3\ta.o\tff\n", "end time before start time");
}

TEST(NinjaLog, ReadsFromBuildDirectory) {
  testing::TempDir dir("ninjalog");
  EXPECT_THROW(read_ninja_log(dir.path()), Error);
  testing::write_file(dir / ".ninja_log", log_text(7));
  EXPECT_EQ(read_ninja_log(dir.path()).entries.size(), 4u);
  EXPECT_EQ(read_ninja_log(dir / ".ninja_log").version, 7);
}

}  // namespace
}  // namespace glassbox::introspect

namespace glassbox::introspect {
namespace {

TEST(NinjaManifest, OutputsWithEscapesVariablesImplicitOutputsAndIncludes) {
  testing::TempDir dir("ninja-manifest");
  testing::write_file(dir / "rules.ninja", "rule CC\n  command = cc $in -o $out\nbuild from/include.o: CC x.c\n");
  testing::write_file(dir / "build.ninja",
                      "# a comment: build not/this.o\n"
                      "workdir = /abs/build/\n"
                      "include rules.ninja\n"
                      "build a.o: CC a.c\n"
                      "  description = build indented/binding.o\n"
                      "build with$ space.o | implicit.stamp ${workdir}gen.cpp: CC b.c || order_only\n"
                      "build colon$:name.o $\n"
                      "    continued.o: CC c.c\n"
                      "build $workdir/var.o: phony\n");
  const auto outputs = read_ninja_manifest_outputs(dir / "build.ninja", dir.path());
  const std::unordered_set<std::string> expected = {
      "from/include.o",     "a.o",          "with space.o", "implicit.stamp",
      "/abs/build/gen.cpp", "colon:name.o", "continued.o",  "/abs/build/var.o"};
  EXPECT_EQ(outputs, expected);
}

// Steps of an older configuration stay in .ninja_log until Ninja recompacts it; where build.ninja is
// there to say, they are left out (they would make a "last full build" of outputs that no longer exist).
TEST(NinjaLog, OutputsTheManifestNoLongerHasAreLeftOut) {
  testing::TempDir dir("ninja-log-stale");
  testing::write_file(dir / "build.ninja", "rule CC\n  command = cc\nbuild a.o: CC a.c\nbuild app: CC a.o\n");
  testing::write_file(dir / ".ninja_log",
                      "# ninja log v5\n"  // recompacted: in no particular order
                      "0\t100\t1700000100000000000\ta.o\t1\n"
                      "100\t120\t1700000100000000000\tapp\t2\n"
                      "0\t50\t1700000000000000000\told/one_tests.cmake\t3\n"
                      "50\t90\t1700000000000000000\told/two_tests.cmake\t4\n"
                      "90\t95\t1700000000000000000\told/three_tests.cmake\t5\n");
  const NinjaLog log = read_ninja_log(dir.path());
  EXPECT_EQ(log.stale_entries, 3u);
  ASSERT_EQ(log.entries.size(), 2u);
  EXPECT_EQ(log.entries[0].output, "a.o");
  EXPECT_EQ(log.entries[1].output, "app");
  // Read on its own, the same text keeps everything.
  EXPECT_EQ(parse_ninja_log(read_text_file(dir / ".ninja_log"), "log").entries.size(), 5u);
  // A manifest that does not declare the newest output is not the one Ninja built with.
  testing::write_file(dir / ".ninja_log",
                      read_text_file(dir / ".ninja_log") + "95\t99\t1700000200000000000\tnew/output\t6\n");
  const NinjaLog other = read_ninja_log(dir.path());
  EXPECT_EQ(other.stale_entries, 0u);
  EXPECT_EQ(other.entries.size(), 6u);
}

// CMake's own manifest: generated sources are declared twice, the second through a variable.
TEST(NinjaManifest, ARealCMakeBuild) {
  const auto build = testing::fixture_build("modules");
  const auto outputs = read_ninja_manifest_outputs(build / "build.ninja", build);
  for (const std::string o :
       {"lib/libcore.so", "lib/libbase.a", "bin/app", "CMakeFiles/core.dir/src/core.cpp.o", "generated_table.cpp"})
    EXPECT_TRUE(outputs.count(o)) << o;
  EXPECT_TRUE(outputs.count((build / "generated_table.cpp").string()));
  // Every output of the fixture's real log is one the manifest declares.
  const NinjaLog log = read_ninja_log(build);
  EXPECT_EQ(log.stale_entries, 0u);
  EXPECT_FALSE(log.entries.empty());
}

}  // namespace
}  // namespace glassbox::introspect
