#pragma once
// Running a program (no shell) and capturing what it prints: used to re-run cmake on a build
// directory and to ask Ninja for its deps when the binary log cannot be read.
#include <string>
#include <vector>

namespace glassbox::introspect {

struct ProcessResult {
  int exit_code = -1;        // 127 when the program could not be started
  std::string output;        // stdout
  std::string error_output;  // stderr
};

ProcessResult run_process(const std::vector<std::string>& argv);

// The full path of `program` found on PATH, or empty.
std::string find_program(const std::string& program);

}  // namespace glassbox::introspect
