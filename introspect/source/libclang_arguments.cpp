#include "introspect/source/libclang_arguments.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string_view>

#include "introspect/support/paths.h"

namespace glassbox::introspect {
namespace {

// libclang older than 15 has no __builtin_source_location, which libstdc++'s <source_location>
// needs; this stand-in (searched before the standard library) gives it one built on the older
// builtins (constexpr, not consteval: clang 14 rejects consteval in default arguments), and defers
// to the real header wherever the builtin exists.
constexpr std::string_view kSourceLocationShim = R"(#pragma once
#if __has_builtin(__builtin_source_location)
#include_next <source_location>
#else
namespace std {
struct source_location {
  static constexpr source_location current(const char* file = __builtin_FILE(),
                                           const char* function = __builtin_FUNCTION(),
                                           unsigned line = __builtin_LINE(), unsigned column = __builtin_COLUMN()) noexcept {
    source_location l;
    l.file_ = file, l.function_ = function, l.line_ = line, l.column_ = column;
    return l;
  }
  constexpr source_location() noexcept = default;
  constexpr unsigned line() const noexcept { return line_; }
  constexpr unsigned column() const noexcept { return column_; }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
 private:
  const char* file_ = "";
  const char* function_ = "";
  unsigned line_ = 0, column_ = 0;
};
}  // namespace std
#endif
)";

// The shims' directory (one per user, under the temporary directory), written once per process:
// to a private name first, then renamed, so concurrent scans never read half a file.
const std::string& shim_directory() {
  static const std::string dir = [] {
    const auto path =
        std::filesystem::temp_directory_path() / ("glassbox-libclang-shims-" + std::to_string(::getuid()));
    std::filesystem::create_directories(path);
    const auto tmp = path / ("source_location." + std::to_string(::getpid()));
    std::ofstream(tmp, std::ios::binary | std::ios::trunc) << kSourceLocationShim;
    std::filesystem::rename(tmp, path / "source_location");
    return path.string();
  }();
  return dir;
}

}  // namespace

bool is_cuda_unit(const CompileCommand& c) {
  return c.file.ends_with(".cu") || c.compiler().ends_with("nvcc") || c.flags.language == "cu" ||
         c.flags.language == "cuda";
}

// The flags libclang needs from a compile command: language, standard, includes, macros, forced
// includes. Everything else is the compiler's business (and may be GCC- or nvcc-only).
std::vector<std::string> libclang_arguments(const CompileCommand& c) {
  std::vector<std::string> a;
  const bool c_language = c.file.ends_with(".c") || c.flags.language == "c";
  if (is_cuda_unit(c)) {
    a = {"-x", "cuda", "--cuda-host-only", "-nocudalib"};
    const auto bin = std::filesystem::path(c.compiler()).parent_path();
    if (!bin.empty()) a.push_back("--cuda-path=" + bin.parent_path().string());
  } else {
    a = {"-x", c_language ? "c" : "c++"};
  }
  if (!c.flags.standard.empty()) a.push_back("-std=" + c.flags.standard);
  if (!c_language) a.insert(a.end(), {"-isystem", shim_directory()});
  for (const auto& inc : c.flags.includes) {
    switch (inc.kind) {
      case IncludeKind::User: a.push_back("-I" + inc.path); break;
      case IncludeKind::System: a.insert(a.end(), {"-isystem", inc.path}); break;
      case IncludeKind::Quote: a.insert(a.end(), {"-iquote", inc.path}); break;
      case IncludeKind::After: a.insert(a.end(), {"-idirafter", inc.path}); break;
    }
  }
  for (const auto& d : c.flags.defines) a.push_back("-D" + d);
  for (const auto& u : c.flags.undefines) a.push_back("-U" + u);
  for (const auto& f : c.flags.other_flags) {
    for (const char* forced : {"-include ", "-imacros "}) {
      if (f.rfind(forced, 0) == 0) {
        a.push_back(std::string(forced).substr(0, std::string(forced).size() - 1));
        a.push_back(normalize_path(f.substr(std::string(forced).size()), c.directory));
      }
    }
  }
  a.push_back("-w");  // errors are what matter here
  return a;
}

}  // namespace glassbox::introspect
