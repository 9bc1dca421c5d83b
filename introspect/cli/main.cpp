// The glassbox command-line tool.
#include <iostream>

#include "introspect/cli/commands.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::vector<std::string> args(argv + 1, argv + argc);
  const int status = glassbox::introspect::cli::run_cli(args, std::cout, std::cerr);
  std::cout.flush();
  return status;
}
