#pragma once
// Running the glassbox CLI in-process from a test: its exit status and what it printed.
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "introspect/cli/commands.h"

namespace glassbox::introspect::cli {

struct CliRun {
  int status;
  std::string out, err;
};

inline CliRun run(std::vector<std::string> argv) {
  std::ostringstream out, err;
  const int status = run_cli(argv, out, err);
  return {status, out.str(), err.str()};
}

inline bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace glassbox::introspect::cli
