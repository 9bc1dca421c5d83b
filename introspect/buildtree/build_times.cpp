#include "introspect/buildtree/build_times.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace glassbox::introspect {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

StepKind classify(const std::string& output, const BuildIndex& index, std::string* target) {
  if (const Target* t =
          index.configuration() ? index.target_of_artifact(absolute_path(output, index.build_dir())) : nullptr) {
    *target = t->name;
    if (t->type == "STATIC_LIBRARY") return StepKind::Archive;
    if (t->type == "OBJECT_LIBRARY") return StepKind::Compile;
    return t->type == "UTILITY" ? StepKind::Custom : StepKind::Link;
  }
  *target = target_from_object_path(output);
  if (ends_with(output, ".o") || ends_with(output, ".obj")) return StepKind::Compile;
  if (ends_with(output, ".a")) return StepKind::Archive;
  if (ends_with(output, ".so") || output.find(".so.") != std::string::npos) return StepKind::Link;
  return StepKind::Custom;
}

// The steps of `run` each step waits for, from the codemodel: a link or archive waits for its
// target's compiles and for the link steps of the targets it depends on; a compile waits for the
// custom commands generating its target's sources.
std::vector<std::vector<std::size_t>> dependencies_from_codemodel(const BuildTimes& times, const BuildIndex& index,
                                                                  int run) {
  std::vector<std::vector<std::size_t>> preds(times.steps.size());
  std::unordered_map<std::string, std::vector<std::size_t>> compiles_of, links_of;
  std::unordered_map<std::string, std::size_t> step_of_output;
  for (std::size_t i = 0; i < times.steps.size(); ++i) {
    const BuildStep& s = times.steps[i];
    if (s.run != run) continue;
    for (const auto& o : s.outputs) step_of_output[absolute_path(o, index.build_dir())] = i;
    if (s.target.empty()) continue;
    if (s.kind == StepKind::Compile) compiles_of[s.target].push_back(i);
    else links_of[s.target].push_back(i);
  }
  for (std::size_t i = 0; i < times.steps.size(); ++i) {
    const BuildStep& s = times.steps[i];
    if (s.run != run || s.target.empty()) continue;
    const Target* t = index.configuration()->find_target(s.target);
    if (!t) continue;
    if (s.kind == StepKind::Compile) {
      for (const auto& src : t->sources) {
        if (!src.generated) continue;
        auto it = step_of_output.find(absolute_path(src.path, index.source_dir()));
        // Object files of an object library are "generated sources" too, linked but not waited for.
        if (it != step_of_output.end() && times.steps[it->second].kind != StepKind::Compile)
          preds[i].push_back(it->second);
      }
      continue;
    }
    if (auto it = compiles_of.find(t->name); it != compiles_of.end()) {
      preds[i].insert(preds[i].end(), it->second.begin(), it->second.end());
    }
    for (const auto& dep_id : t->dependencies) {
      const Target* dep = index.target_by_id(dep_id);
      if (!dep) continue;
      if (auto it = links_of.find(dep->name); it != links_of.end()) {
        preds[i].insert(preds[i].end(), it->second.begin(), it->second.end());
      }
      if (dep->type == "OBJECT_LIBRARY") {
        if (auto it = compiles_of.find(dep->name); it != compiles_of.end())
          preds[i].insert(preds[i].end(), it->second.begin(), it->second.end());
      }
    }
  }
  return preds;
}

// The step of `run` that finished last before step `i` began (steps.size() when none did).
std::size_t finished_last_before(const BuildTimes& times, std::size_t i, int run) {
  std::size_t best = times.steps.size();
  for (std::size_t j = 0; j < times.steps.size(); ++j) {
    if (j == i || times.steps[j].run != run || times.steps[j].end_ms > times.steps[i].start_ms) continue;
    if (best == times.steps.size() || times.steps[j].end_ms > times.steps[best].end_ms) best = j;
  }
  return best;
}

// Without dependency information: each step waited for the step that finished last before it began.
std::vector<std::vector<std::size_t>> dependencies_from_timing(const BuildTimes& times, int run) {
  std::vector<std::vector<std::size_t>> preds(times.steps.size());
  for (std::size_t i = 0; i < times.steps.size(); ++i) {
    if (times.steps[i].run != run) continue;
    if (const std::size_t best = finished_last_before(times, i, run); best != times.steps.size())
      preds[i].push_back(best);
  }
  return preds;
}

// The codemodel knows what targets wait for, not what a custom command waits for: a command whose
// output belongs to no target (a generated source, a stamp, a test list written after a link) has no
// predecessor there. Such a step, and any other non-compile step the codemodel gives none, takes the
// step that finished last before it began, so that the walk goes on through it. A compile with no
// predecessor is where a chain begins.
void add_timing_where_codemodel_is_silent(const BuildTimes& times, int run,
                                          std::vector<std::vector<std::size_t>>& preds) {
  for (std::size_t i = 0; i < times.steps.size(); ++i) {
    const BuildStep& s = times.steps[i];
    if (s.run != run || !preds[i].empty() || s.kind == StepKind::Compile) continue;
    if (const std::size_t best = finished_last_before(times, i, run); best != times.steps.size())
      preds[i].push_back(best);
  }
}

void find_critical_path(BuildTimes& times, const BuildIndex& index) {
  std::size_t last = times.steps.size();
  int64_t run_start = INT64_MAX, run_end = 0;
  for (std::size_t i = 0; i < times.steps.size(); ++i) {
    const BuildStep& s = times.steps[i];
    if (s.run != times.last_run) continue;
    run_start = std::min(run_start, s.start_ms);
    run_end = std::max(run_end, s.end_ms);
    if (last == times.steps.size() || s.end_ms > times.steps[last].end_ms) last = i;
  }
  if (last == times.steps.size()) return;
  times.last_run_wall_ms = run_end - run_start;
  times.critical_path_from_dependencies = index.configuration() != nullptr;
  auto preds = times.critical_path_from_dependencies ? dependencies_from_codemodel(times, index, times.last_run)
                                                     : dependencies_from_timing(times, times.last_run);
  if (times.critical_path_from_dependencies) add_timing_where_codemodel_is_silent(times, times.last_run, preds);
  // Walk back from the step that finished last, each time to the predecessor that finished last.
  std::unordered_set<std::size_t> seen;
  for (std::size_t at = last; seen.insert(at).second;) {
    times.critical_path.push_back(at);
    times.critical_path_ms += times.steps[at].duration_ms();
    std::size_t next = times.steps.size();
    for (std::size_t p : preds[at])
      if (next == times.steps.size() || times.steps[p].end_ms > times.steps[next].end_ms) next = p;
    if (next == times.steps.size()) break;
    at = next;
  }
  std::reverse(times.critical_path.begin(), times.critical_path.end());
}

// The run that left the most steps in the log (the newest of equals): the last full build. An
// edit-and-rebuild or a CMake re-run after it leaves a handful of steps in a newer run, whose
// "critical path" says nothing about the build. Counted are the steps still in the log (the latest
// per output), so a rebuild of most of the project takes over.
void choose_last_full_run(BuildTimes& times) {
  std::map<int, std::size_t> steps_of_run;
  for (const BuildStep& s : times.steps) ++steps_of_run[s.run];
  for (const auto& [run, n] : steps_of_run) {
    if (n >= times.last_run_steps) {
      times.last_run = run;
      times.last_run_steps = n;
    }
  }
  if (!steps_of_run.empty()) {
    times.newest_run = steps_of_run.rbegin()->first;
    times.newest_run_steps = steps_of_run.rbegin()->second;
  }
}

}  // namespace

const char* step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::Compile: return "compile";
    case StepKind::Link: return "link";
    case StepKind::Archive: return "archive";
    case StepKind::Custom: return "custom";
  }
  return "custom";
}

BuildTimes analyze_build_times(const NinjaLog& log, const BuildIndex& index) {
  BuildTimes times;
  times.log_file = log.file;
  for (const NinjaJob& job : log.jobs) {
    BuildStep step;
    step.outputs = job.outputs;
    step.start_ms = job.start_ms;
    step.end_ms = job.end_ms;
    step.run = job.run;
    step.kind = classify(job.outputs.front(), index, &step.target);
    times.steps.push_back(std::move(step));
  }
  times.runs = log.runs;
  times.runs_from_mtimes = log.runs_from_mtimes;
  times.stale_entries = log.stale_entries;
  choose_last_full_run(times);
  std::stable_sort(times.steps.begin(), times.steps.end(),
                   [](const BuildStep& a, const BuildStep& b) { return a.duration_ms() > b.duration_ms(); });

  std::map<std::string, TargetTime> per_target;
  for (const BuildStep& s : times.steps) {
    TargetTime& t = per_target[s.target.empty() ? std::string("(other)") : s.target];
    t.target = s.target.empty() ? "(other)" : s.target;
    ++t.steps;
    if (s.kind == StepKind::Compile) t.compile_ms += s.duration_ms();
    else if (s.kind == StepKind::Custom) t.other_ms += s.duration_ms();
    else t.link_ms += s.duration_ms();
  }
  for (auto& [name, t] : per_target) times.targets.push_back(t);
  std::stable_sort(times.targets.begin(), times.targets.end(),
                   [](const TargetTime& a, const TargetTime& b) { return a.total_ms() > b.total_ms(); });
  find_critical_path(times, index);
  return times;
}

std::string chrome_trace_json(const BuildTimes& times) {
  std::vector<const BuildStep*> run;
  for (const auto& s : times.steps)
    if (s.run == times.last_run) run.push_back(&s);
  std::stable_sort(run.begin(), run.end(), [](auto* a, auto* b) { return a->start_ms < b->start_ms; });
  std::vector<int64_t> lane_free_at;  // end time of the last step on each lane
  nlohmann::json events = nlohmann::json::array();
  for (const BuildStep* s : run) {
    std::size_t lane = 0;
    while (lane < lane_free_at.size() && lane_free_at[lane] > s->start_ms) ++lane;
    if (lane == lane_free_at.size()) lane_free_at.push_back(0);
    lane_free_at[lane] = s->end_ms;
    nlohmann::json args = {{"outputs", s->outputs}, {"target", s->target}};
    events.push_back({{"name", s->outputs.front()},
                      {"cat", step_kind_name(s->kind)},
                      {"ph", "X"},
                      {"ts", s->start_ms * 1000},
                      {"dur", s->duration_ms() * 1000},
                      {"pid", 1},
                      {"tid", lane},
                      {"args", std::move(args)}});
  }
  nlohmann::json trace = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
  return trace.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace glassbox::introspect
