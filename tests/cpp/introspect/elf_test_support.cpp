#include "tests/cpp/introspect/elf_test_support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <thread>

#include "introspect/support/process.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect::testing {

std::filesystem::path core_library() { return GLASSBOX_TEST_CORE_LIBRARY; }
std::filesystem::path dlopen_library() { return GLASSBOX_TEST_DLOPEN_LIBRARY; }
std::filesystem::path source_dir() { return GLASSBOX_TEST_SOURCE_DIR; }
const char* objcopy_program() { return GLASSBOX_TEST_OBJCOPY; }
const char* strip_program() { return GLASSBOX_TEST_STRIP; }

bool run_tool(const std::vector<std::string>& argv) {
  const ProcessResult r = run_process(argv);
  if (r.exit_code == 0) return true;
  ADD_FAILURE() << argv.front() << " exited with " << r.exit_code << ": " << r.error_output;
  return false;
}

uint32_t line_containing(const std::string& file, std::string_view text) {
  std::ifstream in(source_dir() / file);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  return 0;
}

void patch_file(const std::filesystem::path& file, uint64_t offset, std::string_view bytes) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << "cannot patch " << file;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

void finish_within(double seconds, const std::function<void()>& work, const std::function<void()>& on_timeout) {
  std::packaged_task<void()> task(work);
  std::future<void> done = task.get_future();
  std::thread runner(std::move(task));
  if (done.wait_for(std::chrono::duration<double>(seconds)) == std::future_status::timeout) {
    on_timeout();
    std::fprintf(stderr, "[  FAILED  ] did not finish within %.0f s\n", seconds);
    std::fflush(nullptr);
    std::_Exit(1);  // the runner cannot be stopped; leave without waiting for it
  }
  runner.join();
  done.get();
}

}  // namespace glassbox::introspect::testing
