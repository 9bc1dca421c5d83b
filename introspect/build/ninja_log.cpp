#include "introspect/build/ninja_log.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>

#include "engine/core/error.h"
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

}  // namespace

NinjaLog parse_ninja_log(std::string_view text, std::string_view origin) {
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
    throw Error(detail::str_cat(origin, ": unsupported .ninja_log version ", log.version, " (supported: ",
                                NinjaLog::kOldestVersion, " to ", NinjaLog::kNewestVersion, ")"));
  }

  std::unordered_map<std::string, size_t> index_of_output;
  size_t pos = header_end == std::string_view::npos ? text.size() : header_end + 1;
  size_t line_no = 1;
  int64_t previous_end = 0;
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
    if (last_tab == std::string_view::npos || last_tab < start) bad_line(origin, line_no, "expected 5 tab-separated fields");
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
    if (log.runs == 0 || entry.end_ms < previous_end) ++log.runs;
    previous_end = entry.end_ms;
    entry.run = log.runs - 1;

    auto [it, inserted] = index_of_output.try_emplace(entry.output, log.entries.size());
    if (inserted) log.entries.push_back(std::move(entry));
    else log.entries[it->second] = std::move(entry);
  }

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
  return parse_ninja_log(read_text_file(file), file.string());
}

}  // namespace glassbox::introspect
