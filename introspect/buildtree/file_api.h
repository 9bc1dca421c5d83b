#pragma once
// The CMake File API (cmake-file-api(7)): a client writes a query under
// <build>/.cmake/api/v1/query/client-<name>/, CMake answers at generate time with a reply index
// (reply/index-*.json) naming JSON objects: the codemodel (directories, targets), the cache, the
// CMake input files and the toolchains. Codemodel 2.x (any minor) is accepted.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace glassbox::introspect {

inline constexpr std::string_view kFileApiClient = "glassbox";

struct ObjectVersion {
  int major = 0;
  int minor = 0;
};

// Where something was defined: the CMakeLists.txt (relative to the source dir when inside) and line.
struct DefinitionSite {
  std::string file;
  int line = 0;
  std::string command;  // add_library, add_executable, target_link_libraries, ...
};

struct TargetSource {
  std::string path;  // relative to the source dir when inside it, else absolute
  bool generated = false;
  int compile_group = -1;    // index into Target::compile_groups, -1 when not compiled
  std::string source_group;  // IDE group ("Source Files", "Object Libraries")
};

struct CompileInclude {
  std::string path;
  bool system = false;
};

struct CompileGroup {
  std::string language;                // CXX, C, CUDA, ...
  std::string language_standard;       // "20" (codemodel >= 2.2), else empty
  std::vector<std::string> fragments;  // compileCommandFragments
  std::vector<CompileInclude> includes;
  std::vector<std::string> defines;
  std::vector<int> source_indexes;
};

struct CommandFragment {
  std::string fragment;
  std::string role;  // flags, libraries, libraryPath, frameworkPath (link only)
};

struct Target {
  std::string name;
  std::string id;    // "name::@hash", unique within the reply
  std::string type;  // EXECUTABLE, STATIC_LIBRARY, SHARED_LIBRARY, MODULE_LIBRARY,
                     // OBJECT_LIBRARY, INTERFACE_LIBRARY, UTILITY
  std::string name_on_disk;
  std::vector<std::string> artifacts;  // relative to the build dir when inside it, else absolute
  std::string source_dir;              // the target's directory, relative to the top source dir
  std::string build_dir;
  std::string folder;
  bool generator_provided = false;  // ALL_BUILD and friends
  std::vector<TargetSource> sources;
  std::vector<CompileGroup> compile_groups;
  std::string link_language;
  std::vector<CommandFragment> link_fragments;
  std::vector<CommandFragment> archive_fragments;
  std::vector<std::string> dependencies;     // ids of targets that must be built first (build order)
  std::optional<DefinitionSite> defined_at;  // the call in the target's own CMakeLists.txt when there is one
  std::vector<DefinitionSite> backtrace;     // the whole call stack, innermost first
  std::string json_file;                     // the reply object it was read from
};

struct Directory {
  std::string source;  // relative to the top source dir ("." for the top)
  std::string build;
  int parent = -1;
  std::vector<int> targets;  // indexes into Configuration::targets
  std::string project;
};

struct Configuration {
  std::string name;  // "" for single-config generators
  std::vector<Directory> directories;
  std::vector<Target> targets;

  const Target* find_target(std::string_view name_or_id) const;
};

struct CodeModel {
  ObjectVersion version;
  std::string source_dir;  // absolute
  std::string build_dir;   // absolute
  std::vector<Configuration> configurations;
};

struct CacheEntry {
  std::string name;
  std::string value;
  std::string type;  // BOOL, PATH, STRING, INTERNAL, ...
  bool advanced = false;
  std::string help;
};

struct Toolchain {
  std::string language;
  std::string compiler_path;
  std::string compiler_id;  // GNU, Clang, NVIDIA, ...
  std::string compiler_version;
  std::vector<std::string> implicit_includes;
  std::vector<std::string> implicit_link_directories;
  std::vector<std::string> implicit_link_libraries;
  std::vector<std::string> source_extensions;
};

struct FileApiReply {
  std::string build_dir;
  std::string index_file;     // the reply index that was read
  std::string cmake_version;  // "3.25.1"
  std::string generator;      // "Ninja"
  bool multi_config = false;
  CodeModel codemodel;
  std::vector<CacheEntry> cache;
  std::vector<std::string> cmake_inputs;  // CMakeLists.txt and included .cmake files (cmakeFiles)
  std::vector<Toolchain> toolchains;

  // The configuration to use: the named one, else the first. Throws when it does not exist.
  const Configuration& configuration(std::string_view name = {}) const;
  const CacheEntry* cache_entry(std::string_view name) const;
};

// Writes the glassbox query (codemodel-v2, cache-v2, cmakeFiles-v1, toolchains-v1) into a build
// directory; CMake answers it the next time it generates there.
void write_file_api_query(const std::filesystem::path& build_dir);

// Re-runs `cmake <build_dir>` so CMake answers the query. Throws with CMake's output on failure.
void run_cmake_configure(const std::filesystem::path& build_dir, const std::string& cmake = "cmake");

// The newest reply index (lexicographically last index-*.json), or nullopt when there is none.
std::optional<std::filesystem::path> find_reply_index(const std::filesystem::path& build_dir);

struct FileApiOptions {
  bool configure = false;  // write the query and re-run cmake first
  std::string cmake = "cmake";
};

// Reads the newest reply of a build directory. With no reply, the error explains how to get one.
FileApiReply read_file_api(const std::filesystem::path& build_dir, const FileApiOptions& options = {});

// Reads one reply index file (the objects it names are looked up next to it).
FileApiReply read_file_api_index(const std::filesystem::path& index_file);

}  // namespace glassbox::introspect
