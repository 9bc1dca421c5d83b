// The client side of the File API: writing the query, re-running cmake, finding the reply index.
#include <algorithm>
#include <fstream>

#include "engine/core/error.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/support/process.h"

namespace glassbox::introspect {
namespace {

std::filesystem::path api_dir(const std::filesystem::path& build_dir) { return build_dir / ".cmake" / "api" / "v1"; }

constexpr std::string_view kQuery = R"({
  "requests": [
    {"kind": "codemodel", "version": 2},
    {"kind": "cache", "version": 2},
    {"kind": "cmakeFiles", "version": 1},
    {"kind": "toolchains", "version": 1}
  ]
}
)";

}  // namespace

void write_file_api_query(const std::filesystem::path& build_dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(build_dir, ec)) {
    throw Error(build_dir.string() + ": no such build directory");
  }
  const auto dir = api_dir(build_dir) / "query" / ("client-" + std::string(kFileApiClient));
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(dir.string() + ": cannot create the File API query directory: " + ec.message());
  const auto file = dir / "query.json";
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << kQuery;
  if (!out) throw Error(file.string() + ": cannot write the File API query");
}

void run_cmake_configure(const std::filesystem::path& build_dir, const std::string& cmake) {
  std::error_code ec;
  if (!std::filesystem::exists(build_dir / "CMakeCache.txt", ec)) {
    throw Error(build_dir.string() +
                ": not a configured CMake build directory (no CMakeCache.txt); run cmake -S <source> -B " +
                build_dir.string() + " first");
  }
  const ProcessResult result = run_process({cmake, build_dir.string()});
  if (result.exit_code != 0) {
    throw Error(detail::str_cat(cmake, " ", build_dir.string(), ": failed (exit ", result.exit_code, ")\n",
                                result.output, result.error_output));
  }
}

std::optional<std::filesystem::path> find_reply_index(const std::filesystem::path& build_dir) {
  const auto reply = api_dir(build_dir) / "reply";
  std::error_code ec;
  if (!std::filesystem::is_directory(reply, ec)) return std::nullopt;
  std::optional<std::filesystem::path> newest;
  for (const auto& entry : std::filesystem::directory_iterator(reply, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("index-", 0) != 0 || entry.path().extension() != ".json") continue;
    // Index names embed a timestamp, so the lexicographically last one is the newest.
    if (!newest || name > newest->filename().string()) newest = entry.path();
  }
  return newest;
}

FileApiReply read_file_api(const std::filesystem::path& build_dir, const FileApiOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(build_dir, ec)) throw Error(build_dir.string() + ": no such build directory");
  if (!std::filesystem::is_directory(build_dir, ec)) throw Error(build_dir.string() + ": not a directory");
  if (options.configure) {
    write_file_api_query(build_dir);
    run_cmake_configure(build_dir, options.cmake);
  }
  const auto index = find_reply_index(build_dir);
  if (!index) {
    const bool configured = std::filesystem::exists(build_dir / "CMakeCache.txt", ec);
    const std::string query_dir = (api_dir(build_dir) / "query" / ("client-" + std::string(kFileApiClient))).string();
    throw Error(detail::str_cat(
        build_dir.string(), ": no CMake File API reply (", (api_dir(build_dir) / "reply").string(),
        " has no index-*.json). ",
        configured ? "Re-run with --configure (writes the query to " + query_dir + "/query.json and runs `cmake " +
                         build_dir.string() + "`), or write that query yourself and re-run cmake."
                   : std::string("It is not a configured CMake build directory (no CMakeCache.txt); configure it "
                                 "with cmake first.")));
  }
  return read_file_api_index(*index);
}

}  // namespace glassbox::introspect
