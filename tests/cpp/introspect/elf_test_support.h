#pragma once
// Shared by the binary-reader tests: glassbox's own libraries, copies of them changed with objcopy
// and strip, byte-level damage, and the line of a source text.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace glassbox::introspect::testing {

std::filesystem::path core_library();    // build/dev/lib/libglassbox_core.so
std::filesystem::path dlopen_library();  // the registering test library (tests/cpp/registry)
std::filesystem::path source_dir();      // the repository

// Runs a program; fails the current test (and returns false) when it does not exit with 0.
bool run_tool(const std::vector<std::string>& argv);
const char* objcopy_program();
const char* strip_program();

// The 1-based line of `file` (under source_dir()) that first contains `text`; 0 when none does.
uint32_t line_containing(const std::string& file, std::string_view text);

// Overwrites bytes of `file` at `offset`.
void patch_file(const std::filesystem::path& file, uint64_t offset, std::string_view bytes);

bool ends_with(std::string_view text, std::string_view suffix);

// Runs `work` on a thread of its own and rethrows what it throws. When it has not returned after
// `seconds`, `on_timeout` runs and the process ends with a failure: a reader that hangs fails the
// test at once, saying so, instead of running into ctest's time limit.
void finish_within(double seconds, const std::function<void()>& work, const std::function<void()>& on_timeout);

}  // namespace glassbox::introspect::testing
