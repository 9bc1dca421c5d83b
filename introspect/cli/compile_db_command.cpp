// glassbox compile-db BUILD_DIR: the translation units of compile_commands.json, per target.
#include <algorithm>
#include <iostream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "introspect/buildtree/build_index.h"
#include "introspect/buildtree/compile_database.h"
#include "introspect/cli/arguments.h"
#include "introspect/cli/commands.h"
#include "introspect/cli/text_table.h"

namespace glassbox::introspect::cli {
namespace {

ArgumentParser compile_db_parser() {
  ArgumentParser p("glassbox compile-db",
                   "The translation units in BUILD_DIR/compile_commands.json, grouped by the target that\n"
                   "compiles them, with the flags they share (standard, defines, include directories).");
  p.positional("BUILD_DIR", "a build directory (or a compile_commands.json file)");
  p.option("target", "NAME", "list only this target's translation units, one per line")
      .flag("files", "list every translation unit with its own flags")
      .flag("json", "print every entry, classified, as JSON");
  return p;
}

// The target compiling `cmd`: from CMake's object path, else from the File API's sources.
std::string target_of(const CompileCommand& cmd, const BuildIndex* index) {
  std::string t = target_from_object_path(cmd.output);
  if (t.empty() && index) {
    const auto& targets = index->targets_of_source(cmd.file);
    if (!targets.empty()) t = targets.front()->name;
  }
  return t.empty() ? "(unknown)" : t;
}

std::string join(const std::vector<std::string>& items, std::string_view sep, std::size_t limit = 0) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (limit && i == limit) return out + std::string(sep) + "... (" + std::to_string(items.size()) + ")";
    out += (i ? std::string(sep) : "") + items[i];
  }
  return out;
}

// Flags every command of a group shares.
std::vector<std::string> common_flags(const std::vector<const CompileCommand*>& cmds) {
  if (cmds.empty()) return {};
  std::vector<std::string> common = cmds.front()->flags.other_flags;
  for (const auto* c : cmds) {
    std::set<std::string> have(c->flags.other_flags.begin(), c->flags.other_flags.end());
    std::erase_if(common, [&](const std::string& f) { return !have.count(f); });
  }
  // Dependency-file bookkeeping says nothing about how the code is compiled.
  std::erase_if(common, [](const std::string& f) {
    return f.rfind("-MF", 0) == 0 || f.rfind("-MT", 0) == 0 || f == "-MD" || f == "-MMD";
  });
  return common;
}

nlohmann::json entry_json(const CompileCommand& c, const std::string& target) {
  nlohmann::json includes = nlohmann::json::array();
  for (const auto& inc : c.flags.includes)
    includes.push_back({{"path", inc.path}, {"kind", include_kind_name(inc.kind)}});
  return {{"file", c.file},
          {"output", c.output},
          {"directory", c.directory},
          {"target", target},
          {"compiler", c.compiler()},
          {"standard", c.flags.standard},
          {"includes", includes},
          {"defines", c.flags.defines},
          {"undefines", c.flags.undefines},
          {"other_flags", c.flags.other_flags},
          {"arguments", c.arguments}};
}

}  // namespace

int run_compile_db(const CommandArgs& args, std::ostream& out) {
  const ArgumentParser parser = compile_db_parser();
  const ParsedArguments parsed = parser.parse(args);
  if (parsed.help) {
    out << parser.help();
    return 0;
  }
  const std::filesystem::path where = parsed.positional("BUILD_DIR");
  const CompileDatabase db = read_compile_database(where);
  for (const auto& w : db.warnings) std::cerr << "glassbox: warning: " << w << "\n";

  // The File API reply, when there is one, names the targets of sources outside CMake's layout.
  std::optional<FileApiReply> reply;
  std::optional<BuildIndex> index;
  std::error_code ec;
  if (std::filesystem::is_directory(where, ec) && find_reply_index(where)) {
    try {
      reply = read_file_api(where);
      index.emplace(*reply);
    } catch (const Error& e) {
      std::cerr << "glassbox: warning: " << e.what() << " (targets guessed from object paths)\n";
    }
  }
  const BuildIndex* idx = index ? &*index : nullptr;

  std::map<std::string, std::vector<const CompileCommand*>> by_target;
  for (const auto& c : db.commands) by_target[target_of(c, idx)].push_back(&c);

  if (parsed.has("json")) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& c : db.commands) all.push_back(entry_json(c, target_of(c, idx)));
    out << all.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  const std::string only = parsed.value("target");
  if (!only.empty() && !by_target.count(only)) throw Error(db.file + ": no translation units of target " + only);
  out << db.file << ": " << db.commands.size() << " translation units, " << by_target.size() << " targets\n\n";
  if (!only.empty() || parsed.has("files")) {
    TextTable table({"target", "source", "std", ">defines", ">includes", "flags"});
    for (const auto& [target, cmds] : by_target) {
      if (!only.empty() && target != only) continue;
      for (const auto* c : cmds) {
        table.add_row({target, elide_front(c->file, 60), c->flags.standard, std::to_string(c->flags.defines.size()),
                       std::to_string(c->flags.includes.size()), join(c->flags.other_flags, " ", 8)});
      }
    }
    table.print(out);
    return 0;
  }
  TextTable table({"target", ">TUs", "compiler", "std", "defines", ">includes", "common flags"});
  for (const auto& [target, cmds] : by_target) {
    std::set<std::string> standards, compilers;
    std::set<std::string> defines;
    std::set<std::string> includes;
    for (const auto* c : cmds) {
      standards.insert(c->flags.standard.empty() ? "-" : c->flags.standard);
      compilers.insert(std::filesystem::path(c->compiler()).filename().string());
      defines.insert(c->flags.defines.begin(), c->flags.defines.end());
      for (const auto& i : c->flags.includes) includes.insert(i.path);
    }
    table.add_row({target, std::to_string(cmds.size()), join({compilers.begin(), compilers.end()}, ","),
                   join({standards.begin(), standards.end()}, ","), join({defines.begin(), defines.end()}, " ", 4),
                   std::to_string(includes.size()), join(common_flags(cmds), " ", 10)});
  }
  table.print(out);
  return 0;
}

}  // namespace glassbox::introspect::cli
