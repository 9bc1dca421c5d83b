#pragma once
// The outputs a Ninja manifest declares (build.ninja and the files it includes), so that
// .ninja_log entries of outputs the build no longer has (left from an older configuration) can be
// told apart from those of the current build.
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_set>

namespace glassbox::introspect {

// Every explicit and implicit output of every build statement in `manifest` and in the files it
// includes or subninjas (relative to `build_dir`, where Ninja runs), as Ninja names them: escapes
// undone ("$ ", "$:", "$$") and top-level variables expanded (CMake's ${cmake_ninja_workdir}).
// Throws glassbox::Error when `manifest` cannot be read.
std::unordered_set<std::string> read_ninja_manifest_outputs(const std::filesystem::path& manifest,
                                                            const std::filesystem::path& build_dir);
std::unordered_set<std::string> parse_ninja_manifest_outputs(std::string_view text,
                                                             const std::filesystem::path& build_dir);

}  // namespace glassbox::introspect
