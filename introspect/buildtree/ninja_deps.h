#pragma once
// Header dependencies Ninja recorded for each output (from the compiler's depfile), read from the
// binary .ninja_deps log, or from the text of `ninja -t deps` when the binary log is unusable.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace glassbox::introspect {

struct NinjaDepsRecord {
  std::string output;               // as Ninja knows it (relative to the build directory when inside)
  int64_t mtime = 0;                // the output's mtime when the deps were recorded
  std::vector<std::string> inputs;  // the source first, then the headers it included
};

struct NinjaDeps {
  std::string file;
  int version = 0;                       // 3 or 4 for the binary log; 0 when read from `ninja -t deps`
  std::vector<NinjaDepsRecord> records;  // one per output; a later record replaces an earlier one
  bool truncated = false;                // the log ended inside a record (an interrupted write)

  const NinjaDepsRecord* find(std::string_view output) const;
};

// Reads <build_dir>/.ninja_deps; when it is missing or unreadable and `ninja` is given, falls back
// to running `ninja -C build_dir -t deps`.
NinjaDeps read_ninja_deps(const std::filesystem::path& build_dir, const std::string& ninja = "");

// The binary format: "# ninjadeps\n", an int32 version, then records, each an uint32 size whose
// top bit marks a deps record (otherwise a path record). Little-endian, as Ninja writes it here.
NinjaDeps parse_ninja_deps_binary(std::string_view bytes, std::string_view origin);

// The text printed by `ninja -t deps`.
NinjaDeps parse_ninja_deps_text(std::string_view text, std::string_view origin);

// Runs `ninja -C build_dir -t deps` and parses its output.
NinjaDeps run_ninja_deps_tool(const std::filesystem::path& build_dir, const std::string& ninja);

}  // namespace glassbox::introspect
