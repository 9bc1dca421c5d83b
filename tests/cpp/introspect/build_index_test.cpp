#include "introspect/build/build_index.h"

#include <gtest/gtest.h>

#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

TEST(BuildIndex, TargetFromObjectPath) {
  EXPECT_EQ(target_from_object_path("CMakeFiles/core.dir/src/core.cpp.o"), "core");
  EXPECT_EQ(target_from_object_path("engine/CMakeFiles/glassbox_core.dir/engine/core/a.cpp.o"), "glassbox_core");
  EXPECT_EQ(target_from_object_path("/b/x/CMakeFiles/t.dir/CMakeFiles/u.dir/odd.o"), "u");
  EXPECT_EQ(target_from_object_path("lib/libcore.so"), "");
  EXPECT_EQ(target_from_object_path("CMakeFiles/.dir/a.o"), "");
  EXPECT_EQ(target_from_object_path("CMakeFiles/3.25.1/CompilerIdCXX/a.out"), "");
}

TEST(BuildIndex, AbsolutePath) {
  EXPECT_EQ(absolute_path("lib/./libc.so", "/b"), "/b/lib/libc.so");
  EXPECT_EQ(absolute_path("/x/../y", "/b"), "/y");
  EXPECT_EQ(absolute_path("CMakeFiles/objects.dir/./src/a.o", "/b/"), "/b/CMakeFiles/objects.dir/src/a.o");
}

TEST(BuildIndex, MapsOutputsToTargets) {
  const auto build = testing::fixture_build("modules");
  const FileApiReply reply = read_file_api(build);
  const BuildIndex index(reply);
  EXPECT_EQ(index.target_of_output("lib/libcore.so"), "core");
  EXPECT_EQ(index.target_of_output((build / "bin/app").string()), "app");
  EXPECT_EQ(index.target_of_output("CMakeFiles/base.dir/src/base.cpp.o"), "base");
  EXPECT_EQ(index.target_of_output("generated_table.cpp"), "");
  EXPECT_EQ(index.target_of_artifact_name("libbase.a")->name, "base");
  const auto& compiling = index.targets_of_source((testing::fixture_source("modules") / "src/core.cpp").string());
  ASSERT_EQ(compiling.size(), 1u);
  EXPECT_EQ(compiling[0]->name, "core");
}

}  // namespace
}  // namespace glassbox::introspect
