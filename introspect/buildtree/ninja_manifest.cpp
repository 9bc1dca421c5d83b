#include "introspect/buildtree/ninja_manifest.h"

#include <cctype>
#include <unordered_map>
#include <vector>

#include "engine/core/error.h"
#include "introspect/support/json_file.h"

namespace glassbox::introspect {
namespace {

struct ManifestReader {
  std::filesystem::path build_dir;
  std::unordered_map<std::string, std::string> variables;  // top-level "name = value"
  std::unordered_set<std::string> outputs;
  int depth = 0;

  // `text` with its escapes undone and $name / ${name} replaced by top-level variables; stops at
  // an unescaped ':' or ' ' when `stop_at_separators` (*end says where).
  std::string evaluate(std::string_view text, bool stop_at_separators, std::size_t* end = nullptr) const {
    std::string out;
    std::size_t i = 0;
    auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (stop_at_separators && (c == ' ' || c == ':')) break;
      if (c != '$' || i + 1 >= text.size()) {
        out += c;
        continue;
      }
      const char next = text[++i];
      if (next == ' ' || next == ':' || next == '$') {
        out += next;
      } else if (next == '{') {
        const std::size_t close = text.find('}', i);
        if (close == std::string_view::npos) break;
        out += lookup(text.substr(i + 1, close - i - 1));
        i = close;
      } else if (is_name(next)) {
        std::size_t stop = i;
        while (stop < text.size() && is_name(text[stop])) ++stop;
        out += lookup(text.substr(i, stop - i));
        i = stop - 1;
      }
    }
    if (end) *end = i;
    return out;
  }
  std::string lookup(std::string_view name) const {
    const auto it = variables.find(std::string(name));
    return it == variables.end() ? std::string() : it->second;
  }

  void read_text(std::string_view text) {
    std::string logical;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      // A line ending in an odd number of '$' goes on on the next one.
      std::size_t dollars = 0;
      while (dollars < line.size() && line[line.size() - 1 - dollars] == '$') ++dollars;
      if (dollars % 2 == 1) {
        logical.append(line.substr(0, line.size() - 1));
        continue;
      }
      logical.append(line);
      statement(logical);
      logical.clear();
    }
    if (!logical.empty()) statement(logical);
  }

  void statement(std::string_view line) {
    if (line.empty() || line[0] == '#' || line[0] == ' ' || line[0] == '\t') return;  // comments, bindings of a scope
    if (line.starts_with("build ")) {
      std::string_view rest = line.substr(6);
      while (!rest.empty()) {
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        if (rest.empty() || rest.front() == ':') return;
        if (rest.front() == '|' && (rest.size() == 1 || rest[1] == ' ')) {  // implicit outputs follow
          rest.remove_prefix(1);
          continue;
        }
        std::size_t used = 0;
        std::string path = evaluate(rest, true, &used);
        // As Ninja names it (and writes it in its log): "a//b", "a/./b" and "a/x/../b" are "a/b".
        if (!path.empty()) outputs.insert(std::filesystem::path(path).lexically_normal().string());
        rest.remove_prefix(used);
      }
      return;
    }
    for (std::string_view keyword : {std::string_view("include "), std::string_view("subninja ")}) {
      if (!line.starts_with(keyword)) continue;
      std::filesystem::path file = evaluate(line.substr(keyword.size()), false);
      if (file.is_relative()) file = build_dir / file;
      if (depth < 16) {
        ++depth;
        read_text(read_text_file(file));
        --depth;
      }
      return;
    }
    if (const std::size_t eq = line.find(" = "); eq != std::string_view::npos && line.find(' ') == eq) {
      variables[std::string(line.substr(0, eq))] = evaluate(line.substr(eq + 3), false);
    }
  }
};

}  // namespace

std::unordered_set<std::string> parse_ninja_manifest_outputs(std::string_view text,
                                                             const std::filesystem::path& build_dir) {
  ManifestReader reader{build_dir, {}, {}, 0};
  reader.read_text(text);
  return std::move(reader.outputs);
}

std::unordered_set<std::string> read_ninja_manifest_outputs(const std::filesystem::path& manifest,
                                                            const std::filesystem::path& build_dir) {
  return parse_ninja_manifest_outputs(read_text_file(manifest), build_dir);
}

}  // namespace glassbox::introspect
