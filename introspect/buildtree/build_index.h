#pragma once
// Who produced what in a build directory: artifacts and object files mapped to their targets,
// sources to the targets compiling them. Built from the File API reply, with CMake's object-file
// naming (".../CMakeFiles/<target>.dir/...") as the fallback when there is none.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "introspect/buildtree/file_api.h"

namespace glassbox::introspect {

// `path` made absolute against `base` and normalised lexically ("a/./b" -> "a/b").
std::string absolute_path(std::string_view path, std::string_view base);

// The target named by CMake's object directory in `output` ("x/CMakeFiles/core.dir/a.cpp.o" ->
// "core"), or "" when the path does not follow that layout.
std::string target_from_object_path(std::string_view output);

class BuildIndex {
 public:
  BuildIndex() = default;
  // From a reply (configuration: "" for the first).
  BuildIndex(const FileApiReply& reply, std::string_view configuration = {});

  const std::string& build_dir() const { return build_dir_; }
  const std::string& source_dir() const { return source_dir_; }
  const Configuration* configuration() const { return configuration_; }

  // The target that produced `output` (relative to the build dir or absolute): an artifact's
  // target, an object file's target, else "".
  std::string target_of_output(std::string_view output) const;
  // The target whose artifact is `path` (absolute), or nullptr. A shared library's version symlinks and
  // SONAME ("libfoo.so.0", "libfoo.so.0.1" for the artifact libfoo.so) name it too.
  const Target* target_of_artifact(std::string_view path) const;
  // The target of an artifact whose file name is `file_name` ("libcore.so", or "libcore.so.1"), or nullptr.
  const Target* target_of_artifact_name(std::string_view file_name) const;
  // Targets compiling `source` (absolute path).
  const std::vector<const Target*>& targets_of_source(std::string_view source) const;
  const Target* target_by_id(std::string_view id) const;

 private:
  std::string build_dir_, source_dir_;
  const Configuration* configuration_ = nullptr;
  std::unordered_map<std::string, const Target*> by_artifact_;       // absolute artifact path
  std::unordered_map<std::string, const Target*> by_artifact_name_;  // file name
  std::unordered_map<std::string, const Target*> by_real_artifact_;  // symlinks resolved
  std::unordered_map<std::string, std::vector<const Target*>> by_source_;
  std::unordered_map<std::string, const Target*> by_id_;
};

}  // namespace glassbox::introspect
