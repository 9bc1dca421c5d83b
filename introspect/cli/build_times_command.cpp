// glassbox build-times BUILD_DIR: where the build's time went, from .ninja_log.
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "introspect/buildtree/build_times.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/cli/arguments.h"
#include "introspect/cli/commands.h"
#include "introspect/cli/text_table.h"

namespace glassbox::introspect::cli {
namespace {

ArgumentParser build_times_parser() {
  ArgumentParser p("glassbox build-times",
                   "Where the build's time went, from BUILD_DIR/.ninja_log (versions 5 to 7): the slowest\n"
                   "compiles and links, totals per target, and the critical path of the last full build\n"
                   "(through the targets' dependencies when the CMake File API reply is there).");
  p.positional("BUILD_DIR", "a Ninja build directory (or a .ninja_log file)");
  p.option("top", "N", "rows in the slowest-steps and per-target tables (default 15)")
      .option("trace", "FILE", "write the last run as a Chrome trace (chrome://tracing, ui.perfetto.dev)")
      .flag("json", "print steps, targets and the critical path as JSON");
  return p;
}

nlohmann::json step_json(const BuildStep& s) {
  return {{"outputs", s.outputs}, {"kind", step_kind_name(s.kind)}, {"target", s.target}, {"start_ms", s.start_ms},
          {"end_ms", s.end_ms},   {"duration_ms", s.duration_ms()}, {"run", s.run}};
}

void print_json(const BuildTimes& t, std::ostream& out) {
  nlohmann::json steps = nlohmann::json::array(), targets = nlohmann::json::array(), path = nlohmann::json::array();
  for (const auto& s : t.steps) steps.push_back(step_json(s));
  for (const auto& x : t.targets) {
    targets.push_back({{"target", x.target},
                       {"compile_ms", x.compile_ms},
                       {"link_ms", x.link_ms},
                       {"other_ms", x.other_ms},
                       {"total_ms", x.total_ms()},
                       {"steps", x.steps}});
  }
  for (auto i : t.critical_path) path.push_back(step_json(t.steps[i]));
  nlohmann::json doc = {
      {"log", t.log_file},
      {"steps", steps},
      {"targets", targets},
      {"runs", {{"count", t.runs}, {"found_from", t.runs_from_mtimes ? "mtimes" : "file order"}}},
      {"stale_entries", t.stale_entries},
      {"last_run", {{"run", t.last_run}, {"wall_ms", t.last_run_wall_ms}, {"steps", t.last_run_steps}}},
      {"critical_path",
       {{"steps", path}, {"ms", t.critical_path_ms}, {"from_dependencies", t.critical_path_from_dependencies}}}};
  out << doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void print_tables(const BuildTimes& t, std::size_t top, std::ostream& out) {
  out << t.log_file << ": " << t.steps.size() << " steps";
  if (t.stale_entries) out << " (" << t.stale_entries << " entries of outputs build.ninja no longer has left out)";
  out << "\n\n";
  out << "slowest steps\n";
  TextTable steps({">time", "kind", "target", "output"});
  for (std::size_t i = 0; i < t.steps.size() && i < top; ++i) {
    const auto& s = t.steps[i];
    steps.add_row({format_ms(s.duration_ms()), step_kind_name(s.kind), s.target, elide_front(s.outputs.front(), 70)});
  }
  steps.print(out);

  out << "\nper target (summed; compiles run in parallel)\n";
  TextTable targets({"target", ">total", ">compile", ">link", ">other", ">steps"});
  for (std::size_t i = 0; i < t.targets.size() && i < top; ++i) {
    const auto& x = t.targets[i];
    targets.add_row({x.target, format_ms(x.total_ms()), format_ms(x.compile_ms), format_ms(x.link_ms),
                     format_ms(x.other_ms), std::to_string(x.steps)});
  }
  targets.print(out);

  out << "\n"
      << t.runs << " build run" << (t.runs == 1 ? "" : "s") << " in the log (told apart by "
      << (t.runs_from_mtimes ? "output mtimes" : "file order") << "); the last full build is run " << t.last_run + 1
      << " with " << t.last_run_steps << " steps still in the log";
  if (t.newest_run != t.last_run) {
    out << " (the newest, run " << t.newest_run + 1 << ", rebuilt only " << t.newest_run_steps << ")";
  }
  out << "\n";
  out << "critical path of the last full build (" << format_ms(t.critical_path_ms) << " of "
      << format_ms(t.last_run_wall_ms) << " wall time; "
      << (t.critical_path_from_dependencies ? "through target dependencies" : "from timing alone") << ")\n";
  TextTable path({">start", ">time", "kind", "target", "output"});
  for (auto i : t.critical_path) {
    const auto& s = t.steps[i];
    path.add_row({format_ms(s.start_ms), format_ms(s.duration_ms()), step_kind_name(s.kind), s.target,
                  elide_front(s.outputs.front(), 60)});
  }
  path.print(out);
}

}  // namespace

int run_build_times(const CommandArgs& args, std::ostream& out) {
  const ArgumentParser parser = build_times_parser();
  const ParsedArguments parsed = parser.parse(args);
  if (parsed.help) {
    out << parser.help();
    return 0;
  }
  const std::filesystem::path where = parsed.positional("BUILD_DIR");
  const NinjaLog log = read_ninja_log(where);
  std::optional<FileApiReply> reply;
  std::error_code ec;
  if (std::filesystem::is_directory(where, ec) && find_reply_index(where)) {
    try {
      reply = read_file_api(where);
    } catch (const Error& e) {
      std::cerr << "glassbox: warning: " << e.what() << " (critical path from timing alone)\n";
    }
  }
  const BuildIndex index = reply ? BuildIndex(*reply) : BuildIndex();
  const BuildTimes times = analyze_build_times(log, index);
  if (parsed.has("trace")) {
    const std::string file = parsed.value("trace");
    std::ofstream trace(file, std::ios::binary | std::ios::trunc);
    if (!trace) throw Error(file + ": cannot open for writing");
    trace << chrome_trace_json(times);
    if (!trace) throw Error(file + ": write failed");
  }
  if (parsed.has("json")) print_json(times, out);
  else print_tables(times, static_cast<std::size_t>(std::max(1, parsed.integer("top", 15))), out);
  if (parsed.has("trace") && !parsed.has("json")) out << "\ntrace written to " << parsed.value("trace") << "\n";
  return 0;
}

}  // namespace glassbox::introspect::cli
