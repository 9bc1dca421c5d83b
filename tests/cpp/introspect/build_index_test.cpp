#include "introspect/buildtree/build_index.h"

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

FileApiReply one_target_reply(const std::filesystem::path& build, const std::string& artifact) {
  FileApiReply reply;
  reply.codemodel.build_dir = build.string();
  reply.codemodel.source_dir = build.string();
  Configuration config;
  Target foo;
  foo.name = "foo";
  foo.id = "foo::@1";
  foo.type = "SHARED_LIBRARY";
  foo.artifacts = {artifact};
  config.targets.push_back(foo);
  reply.codemodel.configurations.push_back(config);
  return reply;
}

// libfoo.so -> libfoo.so.0 -> libfoo.so.0.1: a link line or a dependent's DT_NEEDED may name any of them.
TEST(BuildIndex, SharedLibraryVersionSymlinksAndSonames) {
  testing::TempDir dir("soname");
  const auto lib = dir / "lib";
  testing::write_file(lib / "libfoo.so.0.1", "not really ELF");
  std::filesystem::create_symlink("libfoo.so.0.1", lib / "libfoo.so.0");
  std::filesystem::create_symlink("libfoo.so.0", lib / "libfoo.so");

  // The artifact CMake lists is the real file: its symlinks resolve to it.
  const FileApiReply real = one_target_reply(dir.path(), "lib/libfoo.so.0.1");
  const BuildIndex by_real(real);
  for (const char* name : {"libfoo.so", "libfoo.so.0", "libfoo.so.0.1"}) {
    const Target* t = by_real.target_of_artifact((lib / name).string());
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->name, "foo");
  }
  // The artifact is the linker name and the files are not there (not built yet, or another machine):
  // the versioned names match by name.
  const FileApiReply unbuilt = one_target_reply(dir.path() / "elsewhere", "lib/libfoo.so");
  const BuildIndex by_name(unbuilt);
  ASSERT_NE(by_name.target_of_artifact((dir / "elsewhere/lib/libfoo.so.0").string()), nullptr);
  ASSERT_NE(by_name.target_of_artifact_name("libfoo.so.0.1"), nullptr);
  EXPECT_EQ(by_name.target_of_artifact((dir / "elsewhere/lib/libfoo.so.x").string()), nullptr);
  EXPECT_EQ(by_name.target_of_artifact((dir / "elsewhere/lib/libbar.so.0").string()), nullptr);
  EXPECT_EQ(by_name.target_of_artifact_name("libfoo.so.0a"), nullptr);
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
