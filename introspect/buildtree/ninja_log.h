#pragma once
// .ninja_log: one line per output of each command Ninja ran, appended build after build.
// Versions 5, 6 and 7 share the line layout "start\tend\tmtime\toutput\tcommand-hash" (times in
// milliseconds since the build started); they differ in the mtime width and the hash function.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace glassbox::introspect {

struct NinjaLogEntry {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int64_t mtime = 0;
  std::string output;
  uint64_t command_hash = 0;
  int run = 0;  // which build run wrote it: 0 for the oldest in the file (see NinjaLog::runs)
  int64_t duration_ms() const { return end_ms - start_ms; }
};

// One command and every output it produced (entries sharing the hash and the times).
struct NinjaJob {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  uint64_t command_hash = 0;
  std::vector<std::string> outputs;
  int run = 0;
  int64_t duration_ms() const { return end_ms - start_ms; }
};

struct NinjaLog {
  std::string file;
  int version = 0;
  std::vector<NinjaLogEntry> entries;  // one per output; a later line replaces an earlier one
  std::vector<NinjaJob> jobs;          // entries grouped by command, in start order
  // Build runs, oldest first; start and end times of different runs are not comparable. Found from the
  // outputs' mtimes (wall clock) when they have them, because CMake recompacts the log after every
  // (re)configure and recompaction loses the file order; else from file order, where a smaller end
  // time starts the next run.
  int runs = 0;
  bool runs_from_mtimes = false;
  // Entries left out because the build's manifest (build.ninja) no longer declares their output: an
  // older configuration's steps, which Ninja keeps in the log until it recompacts it.
  std::size_t stale_entries = 0;

  static constexpr int kOldestVersion = 5;
  static constexpr int kNewestVersion = 7;
};

// Reads <build_dir>/.ninja_log (or the file itself). Where the log's folder has a build.ninja, only
// the entries of outputs it declares are kept (NinjaLog::stale_entries counts the others).
NinjaLog read_ninja_log(const std::filesystem::path& build_dir_or_file);
// `live_outputs`: when given, the outputs whose entries are kept (see read_ninja_manifest_outputs).
NinjaLog parse_ninja_log(std::string_view text, std::string_view origin,
                         const std::unordered_set<std::string>* live_outputs = nullptr);

}  // namespace glassbox::introspect
