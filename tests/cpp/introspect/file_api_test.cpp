#include "introspect/buildtree/file_api.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "introspect/buildtree/file_api_objects.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

using testing::TempDir;
using testing::write_file;

// A hand-written reply: one configuration, a shared library and an executable linking it.
// `minor` sets the codemodel's minor version; 2.x replies may carry members glassbox does not know.
void write_reply(const std::filesystem::path& build, int major, int minor,
                 const std::string& index_name = "index-2026-01-01T00-00-00-0000.json") {
  const auto reply = build / ".cmake/api/v1/reply";
  const std::string version = R"({"major": )" + std::to_string(major) + R"(, "minor": )" + std::to_string(minor) + "}";
  write_file(reply / index_name, R"({
    "cmake": {"version": {"string": "3.30.0"}, "generator": {"name": "Ninja", "multiConfig": false}},
    "objects": [
      {"kind": "codemodel", "version": )" +
                                     version + R"(, "jsonFile": "codemodel.json"},
      {"kind": "cache", "version": {"major": 2, "minor": 0}, "jsonFile": "cache.json"},
      {"kind": "toolchains", "version": {"major": 1, "minor": 0}, "jsonFile": "toolchains.json"},
      {"kind": "cmakeFiles", "version": {"major": 1, "minor": 1}, "jsonFile": "files.json"}
    ],
    "reply": {}
  })");
  write_file(reply / "codemodel.json", R"({
    "kind": "codemodel", "version": )" + version +
                                           R"(,
    "paths": {"source": "/src", "build": "/src/build"},
    "futureMember": [1, 2, 3],
    "configurations": [{
      "name": "Release",
      "projects": [{"name": "demo"}],
      "directories": [{"source": ".", "build": ".", "projectIndex": 0, "targetIndexes": [0, 1]},
                      {"source": "lib", "build": "lib", "parentIndex": 0, "projectIndex": 0}],
      "targets": [{"name": "core", "id": "core::@1", "directoryIndex": 1, "jsonFile": "target-core.json"},
                  {"name": "app", "id": "app::@0", "directoryIndex": 0, "jsonFile": "target-app.json"}]
    }]
  })");
  write_file(reply / "target-core.json", R"({
    "name": "core", "id": "core::@1", "type": "SHARED_LIBRARY", "nameOnDisk": "libcore.so",
    "paths": {"source": "lib", "build": "lib"},
    "artifacts": [{"path": "lib/libcore.so"}],
    "backtrace": 1,
    "backtraceGraph": {"commands": ["add_library"], "files": ["lib/CMakeLists.txt"],
                       "nodes": [{"file": 0}, {"file": 0, "line": 7, "command": 0, "parent": 0}]},
    "sources": [{"path": "lib/core.cpp", "compileGroupIndex": 0, "sourceGroupIndex": 0},
                {"path": "/src/build/gen.cpp", "compileGroupIndex": 0, "isGenerated": true}],
    "sourceGroups": [{"name": "Source Files", "sourceIndexes": [0]}],
    "compileGroups": [{"language": "CXX", "languageStandard": {"standard": "20"},
                       "compileCommandFragments": [{"fragment": "-O2"}],
                       "includes": [{"path": "/src/include"}, {"path": "/usr/include/x", "isSystem": true}],
                       "defines": [{"define": "core_EXPORTS"}], "sourceIndexes": [0, 1]}],
    "link": {"language": "CXX", "commandFragments": [{"fragment": "-lm", "role": "libraries"}]}
  })");
  write_file(reply / "target-app.json", R"({
    "name": "app", "id": "app::@0", "type": "EXECUTABLE",
    "artifacts": [{"path": "bin/app"}],
    "sources": [{"path": "main.cpp", "compileGroupIndex": 0}],
    "compileGroups": [{"language": "CXX", "sourceIndexes": [0]}],
    "link": {"language": "CXX", "commandFragments": [{"fragment": "", "role": "flags"},
                                                     {"fragment": "lib/libcore.so", "role": "libraries"}]},
    "dependencies": [{"id": "core::@1"}]
  })");
  write_file(reply / "cache.json", R"({"entries": [
    {"name": "CMAKE_BUILD_TYPE", "type": "STRING", "value": "Release",
     "properties": [{"name": "HELPSTRING", "value": "Choose the type of build."}]},
    {"name": "FOO", "type": "BOOL", "value": "ON", "properties": [{"name": "ADVANCED", "value": "1"}]}]})");
  write_file(reply / "toolchains.json", R"({"toolchains": [{"language": "CXX",
    "compiler": {"path": "/usr/bin/c++", "id": "GNU", "version": "12.2.0",
                 "implicit": {"includeDirectories": ["/usr/include"], "linkLibraries": ["stdc++"]}},
    "sourceFileExtensions": ["cpp", "cc"]}]})");
  write_file(reply / "files.json", R"({"inputs": [{"path": "CMakeLists.txt"}, {"path": "lib/CMakeLists.txt"},
    {"path": "/usr/share/cmake/Modules/X.cmake", "isCMake": true, "isExternal": true}]})");
}

void check_reply(const FileApiReply& reply) {
  EXPECT_EQ(reply.cmake_version, "3.30.0");
  EXPECT_EQ(reply.generator, "Ninja");
  EXPECT_EQ(reply.codemodel.source_dir, "/src");
  const Configuration& config = reply.configuration();
  EXPECT_EQ(config.name, "Release");
  ASSERT_EQ(config.targets.size(), 2u);
  ASSERT_EQ(config.directories.size(), 2u);
  EXPECT_EQ(config.directories[1].parent, 0);
  EXPECT_EQ(config.directories[0].project, "demo");

  const Target* core = config.find_target("core");
  ASSERT_NE(core, nullptr);
  EXPECT_EQ(core->type, "SHARED_LIBRARY");
  EXPECT_EQ(core->artifacts, (std::vector<std::string>{"lib/libcore.so"}));
  ASSERT_TRUE(core->defined_at.has_value());
  EXPECT_EQ(core->defined_at->file, "lib/CMakeLists.txt");
  EXPECT_EQ(core->defined_at->line, 7);
  EXPECT_EQ(core->defined_at->command, "add_library");
  ASSERT_EQ(core->sources.size(), 2u);
  EXPECT_FALSE(core->sources[0].generated);
  EXPECT_EQ(core->sources[0].source_group, "Source Files");
  EXPECT_TRUE(core->sources[1].generated);
  EXPECT_EQ(core->sources[1].compile_group, 0);
  ASSERT_EQ(core->compile_groups.size(), 1u);
  EXPECT_EQ(core->compile_groups[0].language_standard, "20");
  EXPECT_EQ(core->compile_groups[0].defines, (std::vector<std::string>{"core_EXPORTS"}));
  EXPECT_TRUE(core->compile_groups[0].includes[1].system);
  ASSERT_EQ(core->link_fragments.size(), 1u);
  EXPECT_EQ(core->link_fragments[0].role, "libraries");

  const Target* app = config.find_target("app::@0");
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(app->dependencies, (std::vector<std::string>{"core::@1"}));
  EXPECT_FALSE(app->defined_at.has_value());
  EXPECT_EQ(app->source_dir, ".");  // from the codemodel's directory when the target omits paths

  ASSERT_NE(reply.cache_entry("FOO"), nullptr);
  EXPECT_TRUE(reply.cache_entry("FOO")->advanced);
  EXPECT_EQ(reply.cache_entry("CMAKE_BUILD_TYPE")->help, "Choose the type of build.");
  ASSERT_EQ(reply.toolchains.size(), 1u);
  EXPECT_EQ(reply.toolchains[0].compiler_id, "GNU");
  EXPECT_EQ(reply.toolchains[0].implicit_link_libraries, (std::vector<std::string>{"stdc++"}));
  EXPECT_EQ(reply.cmake_inputs, (std::vector<std::string>{"CMakeLists.txt", "lib/CMakeLists.txt"}));
}

TEST(FileApi, ReadsCodemodel2_0) {
  TempDir build("fileapi20");
  write_reply(build.path(), 2, 0);
  const FileApiReply reply = read_file_api(build.path());
  EXPECT_EQ(reply.codemodel.version.minor, 0);
  check_reply(reply);
}

TEST(FileApi, ReadsLaterMinorVersions) {
  TempDir build("fileapi2x");
  write_reply(build.path(), 2, 9);
  const FileApiReply reply = read_file_api(build.path());
  EXPECT_EQ(reply.codemodel.version.minor, 9);
  check_reply(reply);
}

TEST(FileApi, PicksTheNewestIndex) {
  TempDir build("fileapinewest");
  write_reply(build.path(), 2, 0, "index-2026-01-01T00-00-00-0000.json");
  write_file(build / ".cmake/api/v1/reply/index-2025-01-01T00-00-00-0000.json", "{broken");
  const auto index = find_reply_index(build.path());
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->filename(), "index-2026-01-01T00-00-00-0000.json");
  EXPECT_NO_THROW(read_file_api(build.path()));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FileApi, RefusesOtherMajorVersions) {
  TempDir build("fileapi3");
  write_reply(build.path(), 3, 0);
  const std::string what = error_of([&] { read_file_api(build.path()); });
  EXPECT_NE(what.find("codemodel version 3.0"), std::string::npos) << what;
  EXPECT_NE(what.find("codemodel.json"), std::string::npos) << what;
  EXPECT_NE(what.find("glassbox reads codemodel 2.x"), std::string::npos) << what;
}

TEST(FileApi, MissingOrHalfConfiguredBuildDirectory) {
  TempDir build("fileapimissing");
  std::string what = error_of([&] { read_file_api(build / "nope"); });
  EXPECT_NE(what.find("no such build directory"), std::string::npos) << what;
  what = error_of([&] { read_file_api(build.path()); });
  EXPECT_NE(what.find("no CMake File API reply"), std::string::npos) << what;
  EXPECT_NE(what.find("not a configured CMake build directory"), std::string::npos) << what;
  write_file(build / "CMakeCache.txt", "# half configured\n");
  what = error_of([&] { read_file_api(build.path()); });
  EXPECT_NE(what.find("--configure"), std::string::npos) << what;
  EXPECT_NE(what.find("client-glassbox/query.json"), std::string::npos) << what;
}

TEST(FileApi, TruncatedAndMissingObjects) {
  TempDir build("fileapitrunc");
  write_reply(build.path(), 2, 3);
  const auto target = build / ".cmake/api/v1/reply/target-core.json";
  const std::string text = testing::slurp(target);
  write_file(target, text.substr(0, text.size() / 2));
  std::string what = error_of([&] { read_file_api(build.path()); });
  EXPECT_NE(what.find("target-core.json: truncated JSON"), std::string::npos) << what;
  std::filesystem::remove(target);
  what = error_of([&] { read_file_api(build.path()); });
  EXPECT_NE(what.find("target-core.json: cannot read"), std::string::npos) << what;
}

TEST(FileApi, WrongTypesAreNamed) {
  TempDir build("fileapitypes");
  write_reply(build.path(), 2, 0);
  write_file(build / ".cmake/api/v1/reply/target-app.json", R"({"name": "app", "id": 5, "type": "EXECUTABLE"})");
  const std::string what = error_of([&] { read_file_api(build.path()); });
  EXPECT_NE(what.find("target-app.json: id: expected a string, found number"), std::string::npos) << what;
}

TEST(FileApi, QueryConfigureAndReadARealBuild) {
  const auto build = testing::fixture_build("modules");
  // configure: write the query and re-run cmake, which answers with a fresh reply.
  const FileApiReply reply = read_file_api(build, {true, testing::cmake_program()});
  EXPECT_TRUE(std::filesystem::exists(build / ".cmake/api/v1/query/client-glassbox/query.json"));
  EXPECT_EQ(reply.codemodel.version.major, 2);
  EXPECT_EQ(reply.generator, "Ninja");
  const Configuration& config = reply.configuration();
  for (const char* name : {"api", "app", "base", "core", "docs", "objects"}) {
    EXPECT_NE(config.find_target(name), nullptr) << name;
  }
  EXPECT_EQ(config.find_target("app")->defined_at->file, "CMakeLists.txt");
  EXPECT_GT(config.find_target("app")->defined_at->line, 0);
  EXPECT_EQ(config.find_target("app")->defined_at->command, "add_executable");
  EXPECT_FALSE(reply.toolchains.empty());
  EXPECT_NE(reply.cache_entry("CMAKE_BUILD_TYPE"), nullptr);
  EXPECT_THROW(reply.configuration("NoSuchConfig"), Error);
}

TEST(FileApi, DefinitionSiteIsTheCallInTheTargetsOwnCMakeLists) {
  // add_library inside a helper function (cmake/helpers.cmake), called from lib/CMakeLists.txt:4,
  // itself inside an external module: the directory's own call is what a reader wants.
  TempDir build("fileapibacktrace");
  write_reply(build.path(), 2, 0);
  write_file(build / ".cmake/api/v1/reply/target-core.json", R"({
    "name": "core", "id": "core::@1", "type": "SHARED_LIBRARY", "paths": {"source": "lib", "build": "lib"},
    "backtrace": 3,
    "backtraceGraph": {"commands": ["add_library", "make_library", "_internal"],
                       "files": ["lib/CMakeLists.txt", "cmake/helpers.cmake", "/usr/share/cmake/Modules/X.cmake"],
                       "nodes": [{"file": 0}, {"file": 0, "line": 4, "command": 1, "parent": 0},
                                 {"file": 1, "line": 12, "command": 2, "parent": 1},
                                 {"file": 2, "line": 99, "command": 0, "parent": 2}]}
  })");
  const FileApiReply reply = read_file_api(build.path());
  const Target* core = reply.configuration().find_target("core");
  ASSERT_NE(core, nullptr);
  ASSERT_EQ(core->backtrace.size(), 3u);
  EXPECT_EQ(core->backtrace[0].file, "/usr/share/cmake/Modules/X.cmake");
  EXPECT_EQ(core->defined_at->file, "lib/CMakeLists.txt");
  EXPECT_EQ(core->defined_at->line, 4);
  EXPECT_EQ(core->defined_at->command, "make_library");
}

TEST(FileApi, ConfigureNeedsAConfiguredDirectory) {
  TempDir build("fileapiconfigure");
  const std::string what = error_of([&] { read_file_api(build.path(), {true, testing::cmake_program()}); });
  EXPECT_NE(what.find("no CMakeCache.txt"), std::string::npos) << what;
}

}  // namespace
}  // namespace glassbox::introspect
