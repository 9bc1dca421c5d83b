#pragma once
// A small argument parser shared by the glassbox commands: positionals, --flags, --options VALUE
// (or --option=VALUE), short aliases (-o), repeatable options, and generated --help text.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"

namespace glassbox::introspect::cli {

// Wrong usage of a command (unknown option, missing value); the CLI prints it with the usage line.
class UsageError : public Error {
 public:
  using Error::Error;
};

class ParsedArguments {
 public:
  bool help = false;  // --help / -h was given

  bool has(std::string_view name) const;
  std::string value(std::string_view name, std::string_view fallback = {}) const;  // the last one given
  std::vector<std::string> values(std::string_view name) const;                    // all, in order
  int integer(std::string_view name, int fallback) const;                          // UsageError if not a number
  std::string positional(std::string_view name) const;

 private:
  friend class ArgumentParser;
  std::map<std::string, std::vector<std::string>, std::less<>> options_;
  std::map<std::string, std::string, std::less<>> positionals_;
};

class ArgumentParser {
 public:
  ArgumentParser(std::string usage_name, std::string summary);

  ArgumentParser& positional(std::string name, std::string help, bool required = true);
  ArgumentParser& flag(std::string name, std::string help, std::string short_name = {});
  ArgumentParser& option(std::string name, std::string value_name, std::string help, std::string short_name = {},
                         bool repeatable = false);
  // A paragraph printed after the options (examples, notes).
  ArgumentParser& epilog(std::string text);

  // Throws UsageError; returns with help = true (and nothing checked) when --help is among args.
  ParsedArguments parse(const std::vector<std::string>& args) const;
  std::string help() const;
  std::string usage() const;

 private:
  struct Spec {
    std::string name, short_name, value_name, help;
    bool takes_value = false, repeatable = false;
  };
  struct Positional {
    std::string name, help;
    bool required = true;
  };
  const Spec* find_long(std::string_view name) const;
  const Spec* find_short(std::string_view name) const;

  std::string usage_name_, summary_, epilog_;
  std::vector<Spec> specs_;
  std::vector<Positional> positionals_;
};

}  // namespace glassbox::introspect::cli
