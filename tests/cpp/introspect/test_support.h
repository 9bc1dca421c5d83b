#pragma once
// Shared by the introspect tests: temporary directories, writing files, and the fixture projects
// configured and built once (under a lock, so parallel test processes share one build).
#include <filesystem>
#include <string>
#include <string_view>

namespace glassbox::introspect::testing {

// A fresh empty directory under the test work dir, removed at destruction.
class TempDir {
 public:
  explicit TempDir(std::string_view name);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view child) const { return path_ / child; }

 private:
  std::filesystem::path path_;
};

void write_file(const std::filesystem::path& file, std::string_view content);
std::string slurp(const std::filesystem::path& file);

// The build directory of fixtures/<name>, configured (with the glassbox File API query) and built
// with the test's cmake and ninja. Throws when configuring or building fails.
std::filesystem::path fixture_build(const std::string& name);
std::filesystem::path fixture_source(const std::string& name);

std::filesystem::path work_dir();
const char* cmake_program();
const char* ninja_program();

}  // namespace glassbox::introspect::testing
