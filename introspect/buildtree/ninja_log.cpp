#include "introspect/buildtree/ninja_log.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <unordered_map>

#include "engine/core/error.h"
#include "introspect/buildtree/ninja_manifest.h"
#include "introspect/support/json_file.h"

namespace glassbox::introspect {
namespace {

constexpr std::string_view kHeaderPrefix = "# ninja log v";

template <class Int>
bool parse_number(std::string_view text, Int& out, int base = 10) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return ec == std::errc() && ptr == text.data() + text.size();
}

[[noreturn]] void bad_line(std::string_view origin, size_t line_no, std::string_view problem) {
  throw Error(detail::str_cat(origin, ":", line_no, ": ", problem));
}

// An output's mtime in milliseconds of wall-clock time, or -1 when it does not look like one. Ninja has
// written seconds (before 1.10) and nanoseconds (since); 0 means the output was missing.
int64_t mtime_ms(int64_t mtime) {
  if (mtime >= 100'000'000'000'000'000) return mtime / 1'000'000;  // nanoseconds (after 1973)
  if (mtime >= 100'000'000'000'000) return mtime / 1'000;          // microseconds
  if (mtime >= 100'000'000'000) return mtime;                      // milliseconds
  if (mtime >= 100'000'000) return mtime * 1'000;                  // seconds
  return -1;
}

// Which build run wrote each entry. A log Ninja only appended to is in run order, each run's end
// times growing (entries are written as commands finish), so a smaller end time starts a new run.
// But CMake's generator recompacts the log after every (re)configure, which rewrites it in hash
// order: file order then means nothing. Every entry's output mtime minus its end time is the wall
// clock time its run started, so entries are grouped by that when the mtimes are wall clock times.
// A command's outputs share one run (an unchanged output under `restat` keeps an older mtime, so the
// newest of them counts), and an entry without an mtime joins the newest run of its stretch of
// growing end times in the file (one run, in a log that was only appended to).
constexpr int64_t kSameRunToleranceMs = 1000;

void assign_runs(NinjaLog& log, const std::vector<int>& segment_of_entry, int segments) {
  log.runs = segments;
  log.runs_from_mtimes = false;
  if (log.entries.empty()) return;
  std::map<std::tuple<int64_t, int64_t, uint64_t>, int64_t> job_start;  // (start, end, hash) -> newest run start
  for (const auto& e : log.entries) {
    const int64_t m = mtime_ms(e.mtime);
    if (m < 0) continue;
    auto [it, inserted] = job_start.try_emplace({e.start_ms, e.end_ms, e.command_hash}, m - e.end_ms);
    if (!inserted) it->second = std::max(it->second, m - e.end_ms);
  }
  if (job_start.empty()) return;  // no wall clock times: keep file order

  std::vector<int64_t> starts;
  for (const auto& [key, start] : job_start) starts.push_back(start);
  std::sort(starts.begin(), starts.end());
  std::vector<int64_t> run_first_start = {starts.front()};
  for (size_t i = 1; i < starts.size(); ++i)
    if (starts[i] - starts[i - 1] > kSameRunToleranceMs) run_first_start.push_back(starts[i]);
  auto cluster_of_start = [&](int64_t start) {
    return static_cast<int>(std::upper_bound(run_first_start.begin(), run_first_start.end(), start) -
                            run_first_start.begin()) -
           1;
  };
  // An mtime can make a start look earlier (an unchanged output under `restat` keeps an older one),
  // never later. So a job alone in its cluster, with a later cluster after it, is such an output:
  // it joins the next cluster instead of counting as a run of its own.
  const int clusters = static_cast<int>(run_first_start.size());
  std::vector<int> jobs_in_cluster(clusters, 0);
  for (const auto& [key, start] : job_start) ++jobs_in_cluster[cluster_of_start(start)];
  std::vector<int> run_of_cluster(clusters);
  int runs = 0;
  for (int c = clusters - 1; c >= 0; --c)
    run_of_cluster[c] = (jobs_in_cluster[c] == 1 && c + 1 < clusters) ? run_of_cluster[c + 1] : runs++;
  for (int& r : run_of_cluster) r = runs - 1 - r;  // numbered oldest first
  auto run_of_start = [&](int64_t start) { return run_of_cluster[cluster_of_start(start)]; };

  std::vector<int> run_of_segment(segments, -1);
  std::vector<int> run(log.entries.size(), -1);
  for (size_t i = 0; i < log.entries.size(); ++i) {
    const auto& e = log.entries[i];
    auto it = job_start.find({e.start_ms, e.end_ms, e.command_hash});
    if (it == job_start.end()) continue;
    run[i] = run_of_start(it->second);
    run_of_segment[segment_of_entry[i]] = std::max(run_of_segment[segment_of_entry[i]], run[i]);
  }
  for (size_t i = 0; i < log.entries.size(); ++i) {
    if (run[i] < 0) run[i] = std::max(0, run_of_segment[segment_of_entry[i]]);
    log.entries[i].run = run[i];
  }
  log.runs = runs;
  log.runs_from_mtimes = true;
}

}  // namespace

NinjaLog parse_ninja_log(std::string_view text, std::string_view origin,
                         const std::unordered_set<std::string>* live_outputs) {
  NinjaLog log;
  log.file = std::string(origin);
  const size_t header_end = text.find('\n');
  const std::string_view header = text.substr(0, header_end);
  if (header.substr(0, kHeaderPrefix.size()) != kHeaderPrefix) {
    throw Error(detail::str_cat(origin, ": not a .ninja_log (expected a first line \"# ninja log vN\")"));
  }
  if (!parse_number(header.substr(kHeaderPrefix.size()), log.version)) {
    throw Error(detail::str_cat(origin, ": unreadable version in header \"", header, "\""));
  }
  if (log.version < NinjaLog::kOldestVersion || log.version > NinjaLog::kNewestVersion) {
    throw Error(detail::str_cat(origin, ": unsupported .ninja_log version ", log.version,
                                " (supported: ", NinjaLog::kOldestVersion, " to ", NinjaLog::kNewestVersion, ")"));
  }

  std::unordered_map<std::string, size_t> index_of_output;
  std::vector<int> segment_of_entry;  // file-order segment (see assign_runs) of each entry's latest line
  int segment = -1;
  size_t pos = header_end == std::string_view::npos ? text.size() : header_end + 1;
  size_t line_no = 1;
  int64_t previous_end = 0;
  int64_t newest_mtime = INT64_MIN;  // the newest output (the last line among equals)
  bool newest_stale = false;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    // Ninja writes whole lines; a last line without a newline is an interrupted write: skip it.
    if (last && std::count(line.begin(), line.end(), '\t') < 4) break;

    // start, end and mtime from the left; the hash after the last tab; the output in between (so an
    // output path containing a tab still reads correctly).
    std::string_view fields[5];
    size_t start = 0;
    for (int f = 0; f < 3; ++f) {
      const size_t tab = line.find('\t', start);
      if (tab == std::string_view::npos) bad_line(origin, line_no, "expected 5 tab-separated fields");
      fields[f] = line.substr(start, tab - start);
      start = tab + 1;
    }
    const size_t last_tab = line.rfind('\t');
    if (last_tab == std::string_view::npos || last_tab < start)
      bad_line(origin, line_no, "expected 5 tab-separated fields");
    fields[3] = line.substr(start, last_tab - start);
    fields[4] = line.substr(last_tab + 1);
    NinjaLogEntry entry;
    if (!parse_number(fields[0], entry.start_ms) || !parse_number(fields[1], entry.end_ms)) {
      bad_line(origin, line_no, "start and end must be integers (milliseconds)");
    }
    if (!parse_number(fields[2], entry.mtime)) bad_line(origin, line_no, "mtime must be an integer");
    if (fields[3].empty()) bad_line(origin, line_no, "empty output path");
    if (!parse_number(fields[4], entry.command_hash, 16)) bad_line(origin, line_no, "command hash must be hexadecimal");
    if (entry.end_ms < entry.start_ms) bad_line(origin, line_no, "end time before start time");
    entry.output = std::string(fields[3]);
    if (segment < 0 || entry.end_ms < previous_end) ++segment;
    previous_end = entry.end_ms;
    entry.run = segment;
    const bool stale = live_outputs && !live_outputs->count(entry.output) &&
                       !live_outputs->count(std::filesystem::path(entry.output).lexically_normal().string());
    if (entry.mtime >= newest_mtime) newest_mtime = entry.mtime, newest_stale = stale;
    if (stale) {
      ++log.stale_entries;
      continue;
    }

    auto [it, inserted] = index_of_output.try_emplace(entry.output, log.entries.size());
    if (inserted) {
      log.entries.push_back(std::move(entry));
      segment_of_entry.push_back(segment);
    } else {
      log.entries[it->second] = std::move(entry);
      segment_of_entry[it->second] = segment;
    }
  }
  // The newest output was built from the current manifest: if the manifest here does not declare
  // it, it is not that one (read the log whole rather than drop what may be current).
  if (newest_stale) return parse_ninja_log(text, origin, nullptr);
  assign_runs(log, segment_of_entry, segment + 1);

  // Group outputs of one command: the same hash, start and end.
  std::map<std::tuple<int, int64_t, int64_t, uint64_t>, size_t> job_of;
  std::vector<size_t> order(log.entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& x = log.entries[a];
    const auto& y = log.entries[b];
    return x.run != y.run ? x.run < y.run : x.start_ms < y.start_ms;
  });
  for (size_t i : order) {
    const auto& e = log.entries[i];
    auto [it, inserted] = job_of.try_emplace({e.run, e.start_ms, e.end_ms, e.command_hash}, log.jobs.size());
    if (inserted) log.jobs.push_back(NinjaJob{e.start_ms, e.end_ms, e.command_hash, {}, e.run});
    log.jobs[it->second].outputs.push_back(e.output);
  }
  return log;
}

NinjaLog read_ninja_log(const std::filesystem::path& build_dir_or_file) {
  std::error_code ec;
  std::filesystem::path file = build_dir_or_file;
  if (!std::filesystem::exists(file, ec)) throw Error(file.string() + ": no such file or directory");
  if (std::filesystem::is_directory(file, ec)) file /= ".ninja_log";
  if (!std::filesystem::exists(file, ec)) {
    throw Error(file.string() + ": no such file; is this a Ninja build directory that has been built?");
  }
  // The outputs the build still has, when its manifest is there to say (a log read on its own is
  // taken whole).
  std::optional<std::unordered_set<std::string>> live;
  const std::filesystem::path dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  if (std::filesystem::exists(dir / "build.ninja", ec)) {
    try {
      live = read_ninja_manifest_outputs(dir / "build.ninja", dir);
    } catch (const Error&) {
    }
  }
  return parse_ninja_log(read_text_file(file), file.string(), live && !live->empty() ? &*live : nullptr);
}

}  // namespace glassbox::introspect
