#include "introspect/build/build_times.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
