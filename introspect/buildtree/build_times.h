#pragma once
// Where a build's time went, from .ninja_log: the slowest compiles and links, totals per target,
// the critical path of the last build run, and a Chrome trace (chrome://tracing, Perfetto).
#include <cstdint>
#include <string>
#include <vector>

#include "introspect/buildtree/build_index.h"
#include "introspect/buildtree/ninja_log.h"

namespace glassbox::introspect {

enum class StepKind { Compile, Link, Archive, Custom };
const char* step_kind_name(StepKind kind);  // "compile", "link", "archive", "custom"

struct BuildStep {
  std::vector<std::string> outputs;  // what the command produced (the first names it)
  StepKind kind = StepKind::Custom;
  std::string target;  // "" when unknown
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int run = 0;
  int64_t duration_ms() const { return end_ms - start_ms; }
};

struct TargetTime {
  std::string target;
  int64_t compile_ms = 0;  // summed over its compiles (CPU time, not wall time)
  int64_t link_ms = 0;     // link or archive
  int64_t other_ms = 0;    // custom commands attributed to it
  std::size_t steps = 0;
  int64_t total_ms() const { return compile_ms + link_ms + other_ms; }
};

struct BuildTimes {
  std::string log_file;
  std::vector<BuildStep> steps;     // every command's latest timing, slowest first
  std::vector<TargetTime> targets;  // slowest first
  int runs = 0;                     // build runs found in the log (NinjaLog::runs)
  bool runs_from_mtimes = false;    // NinjaLog::runs_from_mtimes
  std::size_t stale_entries = 0;    // NinjaLog::stale_entries
  int last_run = 0;                 // the last full build (the run with most steps in the log):
                                    // what the critical path and trace describe
  std::size_t last_run_steps = 0;
  int newest_run = 0;  // the newest run, which may be a small rebuild
  std::size_t newest_run_steps = 0;
  int64_t last_run_wall_ms = 0;
  std::vector<std::size_t> critical_path;  // indexes into steps, first to last
  int64_t critical_path_ms = 0;
  bool critical_path_from_dependencies = false;  // true: from the File API; false: from timing alone
};

// `index` may be empty (no File API reply); targets then come from object-file paths only.
BuildTimes analyze_build_times(const NinjaLog& log, const BuildIndex& index);

// Chrome trace event JSON of the last run: one complete ("X") event per step, on lanes that never
// overlap, so parallelism is visible.
std::string chrome_trace_json(const BuildTimes& times);

}  // namespace glassbox::introspect
