#include "introspect/buildtree/compile_flags.h"

#include <array>
#include <string_view>

#include "introspect/support/paths.h"

namespace glassbox::introspect {
namespace {

// Flags whose value may be given as the next argument; joined forms are handled separately.
struct IncludeFlag {
  std::string_view flag;
  IncludeKind kind;
};
constexpr std::array<IncludeFlag, 5> kIncludeFlags{{{"-isystem", IncludeKind::System},
                                                    {"-iquote", IncludeKind::Quote},
                                                    {"-idirafter", IncludeKind::After},
                                                    {"--include-directory=", IncludeKind::User},
                                                    {"-I", IncludeKind::User}}};

// Other flags that consume the following argument (so it is not mistaken for an input).
constexpr std::array<std::string_view, 18> kFlagsWithValue{
    "-MF",       "-MT",      "-MQ",          "-include", "-imacros",   "-isysroot",
    "--sysroot", "-iprefix", "-iwithprefix", "-Xclang",  "-Xlinker",   "-Xpreprocessor",
    "-target",   "-arch",    "-aux-info",    "-ccbin",   "-Xcompiler", "--param"};

bool takes_value(std::string_view arg) {
  for (auto f : kFlagsWithValue)
    if (arg == f) return true;
  return false;
}

std::string resolve(std::string_view dir, const std::filesystem::path& base) {
  return normalize_path(dir, base.native());
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

const char* include_kind_name(IncludeKind kind) {
  switch (kind) {
    case IncludeKind::User: return "user";
    case IncludeKind::System: return "system";
    case IncludeKind::Quote: return "quote";
    case IncludeKind::After: return "after";
  }
  return "user";
}

CompileFlags classify_compile_flags(const std::vector<std::string>& arguments, const std::filesystem::path& directory) {
  CompileFlags flags;
  if (arguments.empty()) return flags;
  flags.compiler = arguments[0];
  const size_t n = arguments.size();
  for (size_t i = 1; i < n; ++i) {
    const std::string_view arg = arguments[i];
    const bool has_next = i + 1 < n;
    auto value_of = [&](std::string_view flag, std::string& out) {
      // "-Ifoo" (joined) or "-I foo" (separate). Returns false when `arg` is not this flag.
      if (!starts_with(arg, flag)) return false;
      if (arg.size() > flag.size()) {
        out = std::string(arg.substr(flag.size()));
        return true;
      }
      if (!has_next) return false;
      out = arguments[++i];
      return true;
    };

    std::string value;
    bool matched = false;
    for (const auto& inc : kIncludeFlags) {
      if (value_of(inc.flag, value)) {
        flags.includes.push_back({resolve(value, directory), inc.kind});
        matched = true;
        break;
      }
    }
    if (matched) continue;
    if (value_of("-D", value)) {
      flags.defines.push_back(value);
    } else if (value_of("-U", value)) {
      flags.undefines.push_back(value);
    } else if (starts_with(arg, "-std=") || starts_with(arg, "--std=")) {
      flags.standard = std::string(arg.substr(arg.find('=') + 1));
    } else if (starts_with(arg, "-std:")) {  // MSVC spelling, seen in clang-cl databases
      flags.standard = std::string(arg.substr(5));
    } else if (arg == "--std" && has_next) {
      flags.standard = arguments[++i];
    } else if (arg == "-o" && has_next) {
      flags.output = arguments[++i];
    } else if (starts_with(arg, "-o") && arg.size() > 2) {
      flags.output = std::string(arg.substr(2));
    } else if (arg == "-x" && has_next) {
      flags.language = arguments[++i];
    } else if (arg == "-c") {
      // compile only: implied by being in the database
    } else if (takes_value(arg) && has_next) {
      flags.other_flags.push_back(std::string(arg) + " " + arguments[++i]);
    } else if (!arg.empty() && arg[0] == '-') {
      flags.other_flags.emplace_back(arg);
    } else {
      flags.inputs.emplace_back(arg);
    }
  }
  return flags;
}

}  // namespace glassbox::introspect
