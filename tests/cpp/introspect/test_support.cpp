#include "tests/cpp/introspect/test_support.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/support/process.h"

namespace glassbox::introspect::testing {

std::filesystem::path work_dir() { return GLASSBOX_TEST_WORK_DIR; }
const char* cmake_program() { return GLASSBOX_TEST_CMAKE; }
const char* ninja_program() { return GLASSBOX_TEST_NINJA; }

TempDir::TempDir(std::string_view name) {
  static std::atomic<int> counter{0};
  path_ = work_dir() / "tmp" / (std::string(name) + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void write_file(const std::filesystem::path& file, std::string_view content) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw Error("cannot write " + file.string());
}

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::filesystem::path fixture_source(const std::string& name) {
  return std::filesystem::path(GLASSBOX_TEST_FIXTURES) / name;
}

std::filesystem::path fixture_build(const std::string& name) {
  const auto build = work_dir() / ("fixture-" + name);
  std::filesystem::create_directories(work_dir());
  // gtest_discover_tests runs every case in its own process, possibly in parallel: one builder at a time.
  const auto lock_file = work_dir() / ("fixture-" + name + ".lock");
  const int fd = open(lock_file.c_str(), O_CREAT | O_RDWR, 0644);
  if (fd < 0) throw Error("cannot open " + lock_file.string());
  flock(fd, LOCK_EX);
  struct Unlock {
    int fd;
    ~Unlock() { flock(fd, LOCK_UN), close(fd); }
  } unlock{fd};

  if (!std::filesystem::exists(build / "CMakeCache.txt") || !find_reply_index(build)) {
    std::filesystem::create_directories(build);
    write_file_api_query(build);
    const auto r =
        run_process({cmake_program(), "-S", fixture_source(name).string(), "-B", build.string(), "-G", "Ninja",
                     "-DCMAKE_MAKE_PROGRAM=" + std::string(ninja_program()), "-DCMAKE_BUILD_TYPE=Debug"});
    if (r.exit_code != 0) throw Error("configuring fixture " + name + " failed:\n" + r.output + r.error_output);
  }
  const auto r = run_process({cmake_program(), "--build", build.string()});
  if (r.exit_code != 0) throw Error("building fixture " + name + " failed:\n" + r.output + r.error_output);
  return build;
}

}  // namespace glassbox::introspect::testing
