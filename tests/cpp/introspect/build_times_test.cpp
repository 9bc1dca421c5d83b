#include "introspect/buildtree/build_times.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <thread>

#include "introspect/buildtree/file_api.h"
#include "introspect/support/process.h"

#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

const char* kLog =
    "# ninja log v5\n"
    "0\t100\t0\tCMakeFiles/a.dir/a.cpp.o\t1\n"
    "0\t300\t0\tCMakeFiles/a.dir/b.cpp.o\t2\n"
    "300\t350\t0\tliba.so\t3\n"
    "310\t900\t0\tCMakeFiles/app.dir/main.cpp.o\t4\n"
    "900\t950\t0\tapp\t5\n";

TEST(BuildTimes, SlowestStepsAndTargetsFromTimingAlone) {
  const BuildTimes t = analyze_build_times(parse_ninja_log(kLog, "log"), BuildIndex());
  ASSERT_EQ(t.steps.size(), 5u);
  EXPECT_EQ(t.steps[0].outputs.front(), "CMakeFiles/app.dir/main.cpp.o");
  EXPECT_EQ(t.steps[0].kind, StepKind::Compile);
  EXPECT_EQ(t.steps[0].target, "app");
  ASSERT_GE(t.targets.size(), 2u);
  EXPECT_EQ(t.targets[0].target, "app");
  EXPECT_EQ(t.targets[0].compile_ms, 590);
  EXPECT_EQ(t.last_run_wall_ms, 950);
  // Without dependencies each step waits for the one that finished last before it started.
  EXPECT_FALSE(t.critical_path_from_dependencies);
  std::vector<std::string> path;
  for (auto i : t.critical_path) path.push_back(t.steps[i].outputs.front());
  EXPECT_EQ(path, (std::vector<std::string>{"CMakeFiles/a.dir/b.cpp.o", "CMakeFiles/app.dir/main.cpp.o", "app"}));
}

TEST(BuildTimes, ChromeTraceUsesLanesThatNeverOverlap) {
  const BuildTimes t = analyze_build_times(parse_ninja_log(kLog, "log"), BuildIndex());
  const auto trace = nlohmann::json::parse(chrome_trace_json(t));
  const auto& events = trace.at("traceEvents");
  ASSERT_EQ(events.size(), 5u);
  std::map<int, long long> lane_end;
  for (const auto& e : events) {
    EXPECT_EQ(e.at("ph"), "X");
    const int lane = e.at("tid");
    const long long ts = e.at("ts");
    EXPECT_GE(ts, lane_end[lane]);
    lane_end[lane] = ts + e.at("dur").get<long long>();
  }
  EXPECT_EQ(lane_end.size(), 2u);  // at most two steps ran at once
}

// After a full build, a rebuild of two steps: the critical path is still that of the full build.
TEST(BuildTimes, LastFullBuildIsNotANewerSmallRebuild) {
  const NinjaLog log = parse_ninja_log(std::string(kLog) +
                                           "0\t20\t0\tCMakeFiles/a.dir/a.cpp.o\t6\n"
                                           "20\t30\t0\tliba.so\t7\n",
                                       "log");
  ASSERT_EQ(log.runs, 2);
  const BuildTimes t = analyze_build_times(log, BuildIndex());
  EXPECT_EQ(t.runs, 2);
  EXPECT_EQ(t.newest_run, 1);
  EXPECT_EQ(t.newest_run_steps, 2u);
  EXPECT_EQ(t.last_run, 0);
  EXPECT_EQ(t.last_run_steps, 3u);
  EXPECT_EQ(t.last_run_wall_ms, 950);
  ASSERT_FALSE(t.critical_path.empty());
  EXPECT_EQ(t.steps[t.critical_path.back()].outputs.front(), "app");
}

// A real CMake re-run: build, edit CMakeLists.txt and one source, build again (Ninja re-runs cmake,
// which recompacts the log), then configure once more by hand (another recompaction).
TEST(BuildTimes, CorrectAfterRealCMakeReRuns) {
  testing::TempDir dir("build-times-rerun");
  const auto source = dir / "src";
  std::filesystem::copy(testing::fixture_source("modules"), source, std::filesystem::copy_options::recursive);
  const auto build = dir / "build";
  std::filesystem::create_directories(build);
  write_file_api_query(build);
  auto run = [](const std::vector<std::string>& argv) {
    const auto r = run_process(argv);
    ASSERT_EQ(r.exit_code, 0) << r.output << r.error_output;
  };
  run({testing::cmake_program(), "-S", source.string(), "-B", build.string(), "-G", "Ninja",
       "-DCMAKE_MAKE_PROGRAM=" + std::string(testing::ninja_program()), "-DCMAKE_BUILD_TYPE=Debug"});
  run({testing::ninja_program(), "-C", build.string()});
  const BuildTimes full = analyze_build_times(read_ninja_log(build), BuildIndex(read_file_api(build)));
  ASSERT_EQ(full.runs, 1);
  const std::size_t full_steps = full.steps.size();

  // Runs are told apart by when they started (to within a second): edit a little later, as people do.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  std::ofstream(source / "CMakeLists.txt", std::ios::app) << "# edited\n";
  std::ofstream(source / "src/main.cpp", std::ios::app) << "// edited\n";
  run({testing::ninja_program(), "-C", build.string()});
  run({testing::cmake_program(), "-S", source.string(), "-B", build.string()});

  const NinjaLog log = read_ninja_log(build);
  const BuildTimes t = analyze_build_times(log, BuildIndex(read_file_api(build)));
  EXPECT_TRUE(t.runs_from_mtimes);
  EXPECT_GE(t.runs, 2);
  EXPECT_NE(t.newest_run, t.last_run);
  // The full build keeps every step the rebuild did not redo: all but main.cpp.o, bin/app, build.ninja
  // and the custom target's stamp (which has no output file, so no mtime).
  EXPECT_GE(t.last_run_steps + 4, full_steps);
  EXPECT_LE(t.newest_run_steps, 4u);
  ASSERT_FALSE(t.critical_path.empty());
  for (auto i : t.critical_path) EXPECT_EQ(t.steps[i].run, t.last_run);
  EXPECT_GT(t.critical_path_ms, 0);
}

TEST(BuildTimes, CriticalPathThroughTargetDependencies) {
  const auto build = testing::fixture_build("modules");
  const FileApiReply reply = read_file_api(build);
  const BuildIndex index(reply);
  const BuildTimes t = analyze_build_times(read_ninja_log(build), index);
  EXPECT_TRUE(t.critical_path_from_dependencies);
  ASSERT_FALSE(t.critical_path.empty());
  const BuildStep& last = t.steps[t.critical_path.back()];
  EXPECT_EQ(last.run, t.last_run);
  bool has_link = false;
  for (const auto& s : t.steps) {
    if (s.outputs.front() == "lib/libcore.so") {
      EXPECT_EQ(s.kind, StepKind::Link);
      EXPECT_EQ(s.target, "core");
      has_link = true;
    }
    if (s.outputs.front() == "lib/libbase.a") {
      EXPECT_EQ(s.kind, StepKind::Archive);
    }
  }
  // A fresh fixture build has all steps; a rebuilt one may have only some.
  if (t.steps.size() >= 10) {
    EXPECT_TRUE(has_link);
  }
}

}  // namespace
}  // namespace glassbox::introspect

namespace glassbox::introspect {
namespace {

// Custom commands whose outputs belong to no target — a generator run (a stamp), the source it
// leaves for restat to check, a test list written after a link — have no predecessor in the
// codemodel; the critical path must go on through them to the step they waited for.
TEST(BuildTimes, CriticalPathGoesThroughCustomStepsWithoutTarget) {
  const auto build = testing::fixture_build("modules");
  const FileApiReply reply = read_file_api(build);  // the index points into it
  const BuildIndex index(reply);
  const NinjaLog log = parse_ninja_log(
      "# ninja log v5\n"
      "0\t50\t0\tCMakeFiles/base.dir/src/base.cpp.o\t2\n"
      "0\t100\t0\tCMakeFiles/app.dir/src/main.cpp.o\t9\n"
      "0\t200\t0\tCMakeFiles/objects.dir/src/object_part.cpp.o\t1\n"
      "0\t300\t0\tCMakeFiles/core.dir/src/core.cpp.o\t7\n"
      "200\t600\t0\tgen/codegen.stamp\t3\n"
      "600\t601\t0\tgenerated_table.cpp\t4\n"
      "601\t700\t0\tCMakeFiles/base.dir/generated_table.cpp.o\t5\n"
      "700\t720\t0\tlib/libbase.a\t6\n"
      "720\t740\t0\tlib/libcore.so\t8\n"
      "740\t760\t0\tbin/app\t10\n"
      "760\t900\t0\tapp_tests.cmake\t11\n",
      (build / ".ninja_log").string());
  ASSERT_EQ(log.runs, 1);
  const BuildTimes t = analyze_build_times(log, index);
  ASSERT_TRUE(t.critical_path_from_dependencies);
  std::vector<std::string> path;
  for (auto i : t.critical_path) path.push_back(t.steps[i].outputs.front());
  EXPECT_EQ(path, (std::vector<std::string>{"CMakeFiles/objects.dir/src/object_part.cpp.o", "gen/codegen.stamp",
                                            "generated_table.cpp", "CMakeFiles/base.dir/generated_table.cpp.o",
                                            "lib/libbase.a", "lib/libcore.so", "bin/app", "app_tests.cmake"}));
  EXPECT_EQ(t.critical_path_ms, 200 + 400 + 1 + 99 + 20 + 20 + 20 + 140);
}

}  // namespace
}  // namespace glassbox::introspect
