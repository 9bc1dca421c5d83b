#include "tests/cpp/introspect/elf_test_support.h"

#include <gtest/gtest.h>

#include <fstream>

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

}  // namespace glassbox::introspect::testing
