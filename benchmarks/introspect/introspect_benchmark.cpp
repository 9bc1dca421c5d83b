// Parses a synthetic compile_commands.json of 20,000 entries and a synthetic CMake File API reply
// of 2,000 targets (both generated here), then builds the module graph of that reply. Prints the
// best of a few runs against the targets (0.5 s each).
//   introspect_benchmark [entries=20000] [targets=2000] [runs=3]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "introspect/buildtree/compile_database.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/buildtree/module_graph.h"

namespace gi = glassbox::introspect;

namespace {

std::string synthetic_compile_commands(int entries) {
  std::string out = "[\n";
  for (int i = 0; i < entries; ++i) {
    const std::string dir = "src/module" + std::to_string(i % 200);
    const std::string file = dir + "/file" + std::to_string(i) + ".cpp";
    const std::string target = "target" + std::to_string(i % 2000);
    out +=
        "{\n  \"directory\": \"/home/dev/project/build\",\n  \"command\": \"/usr/bin/c++ -DTARGET_EXPORTS "
        "-DUSE_FEATURE=1 -DNAME=\\\"" +
        target + "\\\" -I/home/dev/project/include -I/home/dev/project/" + dir +
        " -isystem /opt/deps/include -isystem /usr/local/cuda/include -O2 -g -DNDEBUG -std=gnu++17 -fPIC "
        "-Wall -Wextra -Wno-unused-parameter -fvisibility=hidden -MD -MT CMakeFiles/" +
        target + ".dir/" + file + ".o -MF CMakeFiles/" + target + ".dir/" + file + ".o.d -o CMakeFiles/" + target +
        ".dir/" + file + ".o -c /home/dev/project/" + file + "\",\n  \"file\": \"/home/dev/project/" + file +
        "\",\n  \"output\": \"CMakeFiles/" + target + ".dir/" + file + ".o\"\n}" + (i + 1 < entries ? ",\n" : "\n");
  }
  return out + "]\n";
}

void write(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
}

// A reply like a large project's: targets in 100 directories, each a shared library with 8 sources
// linking two earlier targets and depending on a third.
void write_synthetic_reply(const std::filesystem::path& build, int targets) {
  const auto reply = build / ".cmake/api/v1/reply";
  std::filesystem::create_directories(reply);
  std::string list, target_indexes;
  for (int t = 0; t < targets; ++t) {
    const std::string name = "target" + std::to_string(t);
    const std::string dir = "src/module" + std::to_string(t % 100);
    list += std::string(t ? ",\n" : "") + "{\"name\": \"" + name + "\", \"id\": \"" + name +
            "::@1\", \"directoryIndex\": 0, "
            "\"projectIndex\": 0, \"jsonFile\": \"target-" +
            name + ".json\"}";
    target_indexes += std::string(t ? "," : "") + std::to_string(t);
    std::string sources, link, deps;
    for (int s = 0; s < 8; ++s) {
      sources += std::string(s ? "," : "") + "{\"path\": \"" + dir + "/" + name + "_" + std::to_string(s) +
                 ".cpp\", \"compileGroupIndex\": 0, \"sourceGroupIndex\": 0, \"backtrace\": 1}";
    }
    for (int d = 1; d <= 2 && t - d >= 0; ++d) {
      link += ", {\"fragment\": \"lib/libtarget" + std::to_string(t - d) +
              ".so\", \"role\": \"libraries\", \"backtrace\": 2}";
      deps += std::string(deps.empty() ? "" : ",") + "{\"id\": \"target" + std::to_string(t - d) +
              "::@1\", \"backtrace\": 2}";
    }
    if (t >= 3) deps += std::string(deps.empty() ? "" : ",") + "{\"id\": \"target" + std::to_string(t - 3) + "::@1\"}";
    write(
        reply / ("target-" + name + ".json"),
        "{\"name\": \"" + name + "\", \"id\": \"" + name +
            "::@1\", \"type\": \"SHARED_LIBRARY\", \"nameOnDisk\": \"lib" + name + ".so\", \"paths\": {\"source\": \"" +
            dir + "\", \"build\": \"" + dir +
            "\"}, "
            "\"artifacts\": [{\"path\": \"lib/lib" +
            name +
            ".so\"}], \"backtrace\": 1, "
            "\"backtraceGraph\": {\"commands\": [\"add_library\", \"target_link_libraries\"], \"files\": [\"" +
            dir +
            "/CMakeLists.txt\"], \"nodes\": [{\"file\": 0}, {\"file\": 0, \"line\": 3, \"command\": 0, \"parent\": 0}, "
            "{\"file\": 0, \"line\": 9, \"command\": 1, \"parent\": 0}]}, "
            "\"compileGroups\": [{\"language\": \"CXX\", \"languageStandard\": {\"standard\": \"17\"}, "
            "\"compileCommandFragments\": [{\"fragment\": \"-O2 -g -fPIC\"}], \"includes\": [{\"path\": "
            "\"/p/include\"}, "
            "{\"path\": \"/opt/deps/include\", \"isSystem\": true}], \"defines\": [{\"define\": \"" +
            name +
            "_EXPORTS\"}], "
            "\"sourceIndexes\": [0,1,2,3,4,5,6,7]}], \"sourceGroups\": [{\"name\": \"Source Files\", "
            "\"sourceIndexes\": [0,1,2,3,4,5,6,7]}], \"sources\": [" +
            sources +
            "], "
            "\"link\": {\"language\": \"CXX\", \"commandFragments\": [{\"fragment\": \"\", \"role\": \"flags\"}, "
            "{\"fragment\": \"-Wl,-rpath,/p/build/lib\", \"role\": \"libraries\"}" +
            link + ", {\"fragment\": \"-lpthread\", \"role\": \"libraries\"}]}, \"dependencies\": [" + deps + "]}\n");
  }
  write(
      reply / "codemodel-v2.json",
      "{\"kind\": \"codemodel\", \"version\": {\"major\": 2, \"minor\": 6}, \"paths\": {\"source\": \"/p\", \"build\": "
      "\"/p/build\"}, \"configurations\": [{\"name\": \"Release\", \"projects\": [{\"name\": \"synthetic\"}], "
      "\"directories\": [{\"source\": \".\", \"build\": \".\", \"projectIndex\": 0, \"targetIndexes\": [" +
          target_indexes + "]}], \"targets\": [" + list + "]}]}\n");
  write(reply / "index-2026-01-01T00-00-00-0000.json",
        "{\"cmake\": {\"version\": {\"string\": \"3.30.0\"}, \"generator\": {\"name\": \"Ninja\"}}, \"objects\": "
        "[{\"kind\": \"codemodel\", \"version\": {\"major\": 2, \"minor\": 6}, \"jsonFile\": \"codemodel-v2.json\"}], "
        "\"reply\": {}}\n");
}

double best_of(int runs, const std::function<void()>& work) {
  double best = 1e30;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

void report(const char* what, double seconds, double target) {
  std::printf("%-58s %8.3f s   (target <= %.1f s: %s)\n", what, seconds, target, seconds <= target ? "met" : "MISSED");
}

}  // namespace

int main(int argc, char** argv) {
  const int entries = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int targets = argc > 2 ? std::atoi(argv[2]) : 2000;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 3;

  const std::string text = synthetic_compile_commands(entries);
  // Results are kept until the end so that freeing one run's result is not timed in the next.
  std::vector<gi::CompileDatabase> databases;
  databases.reserve(runs);
  const double db_seconds = best_of(runs, [&] { databases.push_back(gi::parse_compile_database(text, "synthetic")); });
  const size_t parsed = databases.back().commands.size();
  char label[128];
  std::snprintf(label, sizeof label, "compile_commands.json, %d entries (%.1f MB)", static_cast<int>(parsed),
                text.size() / 1e6);
  report(label, db_seconds, 0.5);

  const auto build = std::filesystem::temp_directory_path() / ("glassbox-bench-" + std::to_string(getpid()));
  write_synthetic_reply(build, targets);
  std::vector<gi::FileApiReply> replies;
  replies.reserve(runs);
  const double api_seconds = best_of(runs, [&] { replies.push_back(gi::read_file_api(build)); });
  const gi::FileApiReply& reply = replies.back();
  const size_t read_targets = reply.configuration().targets.size();
  std::snprintf(label, sizeof label, "File API reply, %d targets", static_cast<int>(read_targets));
  report(label, api_seconds, 0.5);

  std::vector<glassbox::graphs::Graph> graphs;
  graphs.reserve(runs);
  const double graph_seconds =
      best_of(runs, [&] { graphs.push_back(gi::build_module_graph(reply, nullptr, nullptr)); });
  const size_t nodes = graphs.back().node_count(), edges = graphs.back().edge_count();
  std::snprintf(label, sizeof label, "module graph of it (%zu nodes, %zu edges)", nodes, edges);
  report(label, graph_seconds, 0.5);
  std::filesystem::remove_all(build);
  return 0;
}
