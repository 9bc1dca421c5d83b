#include "introspect/buildtree/compile_database.h"

#include "engine/core/error.h"
#include "introspect/buildtree/shell_words.h"
#include "introspect/support/json_file.h"
#include "introspect/support/paths.h"

namespace glassbox::introspect {
namespace {

constexpr int kMaxResponseDepth = 16;

std::string resolve_path(const std::string& path, const std::string& directory) {
  return normalize_path(path, directory);
}

void expand_into(const std::vector<std::string>& arguments, const std::filesystem::path& directory,
                 std::vector<std::string>* warnings, int depth, std::vector<std::string>& out) {
  for (const auto& arg : arguments) {
    if (arg.size() < 2 || arg[0] != '@') {
      out.push_back(arg);
      continue;
    }
    std::filesystem::path file(arg.substr(1));
    if (file.is_relative()) file = directory / file;
    std::error_code ec;
    if (depth >= kMaxResponseDepth || !std::filesystem::is_regular_file(file, ec)) {
      if (warnings) {
        warnings->push_back(depth >= kMaxResponseDepth
                                ? file.string() + ": response files nested too deeply; kept as an argument"
                                : file.string() + ": response file does not exist; kept as an argument");
      }
      out.push_back(arg);
      continue;
    }
    // GCC and Clang split response files with shell-like quoting.
    const auto words = split_shell_words(read_text_file(file), file.string());
    expand_into(words, directory, warnings, depth + 1, out);
  }
}

CompileCommand parse_entry(nlohmann::json& entry, size_t index, std::string_view origin,
                           std::vector<std::string>& warnings) {
  const std::string what = "entry " + std::to_string(index);
  if (!entry.is_object()) throw Error(detail::str_cat(origin, ": ", what, ": expected an object"));
  CompileCommand cmd;
  cmd.directory = json_string(entry, "directory", origin, what);
  cmd.file = resolve_path(json_string(entry, "file", origin, what), cmd.directory);

  std::vector<std::string> argv;
  if (auto it = entry.find("arguments"); it != entry.end()) {
    if (!it->is_array()) throw Error(detail::str_cat(origin, ": ", what, ".arguments: expected an array"));
    argv.reserve(it->size());
    for (auto& a : *it) {
      if (!a.is_string()) throw Error(detail::str_cat(origin, ": ", what, ".arguments: expected strings"));
      argv.push_back(std::move(a.get_ref<std::string&>()));
    }
  } else if (auto cmd_it = entry.find("command"); cmd_it != entry.end()) {
    if (!cmd_it->is_string()) throw Error(detail::str_cat(origin, ": ", what, ".command: expected a string"));
    try {
      argv = split_shell_words(cmd_it->get_ref<const std::string&>(), "");
    } catch (const Error& e) {  // the context is built only when needed: this runs per entry
      throw Error(detail::str_cat(origin, ": ", what, ".command", e.what()));
    }
  } else {
    throw Error(detail::str_cat(origin, ": ", what, ": has neither \"arguments\" nor \"command\""));
  }
  // Only pay for the expansion when an argument looks like a response file.
  bool has_response = false;
  for (const auto& a : argv) has_response |= (a.size() > 1 && a[0] == '@');
  cmd.arguments = has_response ? expand_response_files(argv, cmd.directory, &warnings) : std::move(argv);
  if (cmd.arguments.empty()) throw Error(detail::str_cat(origin, ": ", what, ": empty command"));

  cmd.flags = classify_compile_flags(cmd.arguments, cmd.directory);
  const std::string output = json_string_or(entry, "output", "", origin);
  if (!output.empty()) cmd.output = resolve_path(output, cmd.directory);
  else if (!cmd.flags.output.empty()) cmd.output = resolve_path(cmd.flags.output, cmd.directory);
  return cmd;
}

}  // namespace

std::vector<std::string> expand_response_files(const std::vector<std::string>& arguments,
                                               const std::filesystem::path& directory,
                                               std::vector<std::string>* warnings) {
  std::vector<std::string> out;
  out.reserve(arguments.size());
  expand_into(arguments, directory, warnings, 0, out);
  return out;
}

std::vector<const CompileCommand*> CompileDatabase::find_source(std::string_view source) const {
  std::vector<const CompileCommand*> found;
  const std::filesystem::path wanted(source);
  for (const auto& cmd : commands) {
    if (cmd.file == source) {
      found.push_back(&cmd);
    } else if (wanted.is_relative() && (std::filesystem::path(cmd.directory) / wanted).lexically_normal() == cmd.file) {
      found.push_back(&cmd);
    }
  }
  return found;
}

CompileDatabase parse_compile_database(std::string_view text, std::string_view origin) {
  nlohmann::json root = parse_json(text, origin);
  if (!root.is_array()) {
    throw Error(detail::str_cat(origin, ": expected a JSON array of compile commands, found ", root.type_name()));
  }
  CompileDatabase db;
  db.file = std::string(origin);
  db.commands.reserve(root.size());
  try {
    for (size_t i = 0; i < root.size(); ++i) db.commands.push_back(parse_entry(root[i], i, origin, db.warnings));
  } catch (const nlohmann::json::exception& e) {  // a shape the checks in parse_entry did not foresee
    throw Error(detail::str_cat(origin, ": unexpected content: ", e.what()));
  }
  return db;
}

CompileDatabase read_compile_database(const std::filesystem::path& build_dir_or_file) {
  std::error_code ec;
  std::filesystem::path file = build_dir_or_file;
  if (!std::filesystem::exists(file, ec)) throw Error(file.string() + ": no such file or directory");
  if (std::filesystem::is_directory(file, ec)) file /= "compile_commands.json";
  if (!std::filesystem::exists(file, ec)) {
    throw Error(file.string() +
                ": no such file; configure the build with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON to write it");
  }
  return parse_compile_database(read_text_file(file), file.string());
}

}  // namespace glassbox::introspect
