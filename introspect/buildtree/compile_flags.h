#pragma once
// Classifying a compiler's argument list: include directories, macro definitions, the language
// standard, the output, and everything else. GCC/Clang spellings (joined and separate forms).
#include <filesystem>
#include <string>
#include <vector>

namespace glassbox::introspect {

enum class IncludeKind { User, System, Quote, After };
const char* include_kind_name(IncludeKind kind);  // "user", "system", "quote", "after"

struct IncludeDir {
  std::string path;  // resolved against the entry's directory when relative
  IncludeKind kind = IncludeKind::User;
  bool operator==(const IncludeDir&) const = default;
};

struct CompileFlags {
  std::string compiler;  // argv[0]
  std::vector<IncludeDir> includes;
  std::vector<std::string> defines;      // -DNAME or -DNAME=VALUE, as "NAME" / "NAME=VALUE"
  std::vector<std::string> undefines;    // -UNAME
  std::string standard;                  // "c++20", "gnu++17", "c11"; empty when not given
  std::string language;                  // from -x, else empty
  std::string output;                    // -o value, empty when not given
  std::vector<std::string> inputs;       // non-flag arguments (the source file among them)
  std::vector<std::string> other_flags;  // the rest, a flag and its separate value joined by a space
};

// Classifies `arguments` (argv[0] is the compiler). Relative include directories are resolved
// against `directory`.
CompileFlags classify_compile_flags(const std::vector<std::string>& arguments, const std::filesystem::path& directory);

}  // namespace glassbox::introspect
