#include "registry/function_schema.h"

#include <array>
#include <string>

namespace glassbox {

namespace {

constexpr std::array<std::string_view, 12> kBaseTypeNames = {
    "Tensor", "int",        "SymInt", "float",  "bool",         "str",
    "Scalar", "ScalarType", "Device", "Layout", "MemoryFormat", "Generator",
};

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

// The alias annotation sits between the base type and its suffixes: Tensor(a!)[], Tensor(a)?.
std::string type_with_alias(const SchemaType& type, const std::optional<AliasInfo>& alias) {
  std::string out = type.to_string();
  if (alias) out.insert(to_string(type.base).size(), alias->to_string());
  return out;
}

std::string format_error(const std::string& reason, const std::string& schema, int column) {
  const size_t pad = column > 1 ? static_cast<size_t>(column - 1) : 0;
  return "schema error at column " + std::to_string(column) + ": " + reason + "\n  " + schema + "\n  " +
         std::string(pad, ' ') + "^";
}

}  // namespace

std::string_view to_string(BaseType t) {
  const auto i = static_cast<size_t>(t);
  return i < kBaseTypeNames.size() ? kBaseTypeNames[i] : std::string_view("<invalid BaseType>");
}

std::string SchemaType::to_string() const {
  std::string out(glassbox::to_string(base));
  if (is_list) {
    if (element_optional) out += '?';
    out += '[';
    if (fixed_size) out += std::to_string(*fixed_size);
    out += ']';
  }
  if (optional) out += '?';
  return out;
}

std::string AliasInfo::to_string() const {
  std::string out = "(" + join(before_sets, "|");
  if (is_write) out += '!';
  if (!after_sets.empty()) out += " -> " + join(after_sets, "|");
  return out + ")";
}

std::string FunctionSchema::to_string() const {
  std::vector<std::string> args;
  bool kwarg_marker_written = false;
  for (const Argument& a : arguments) {
    if (a.kwarg_only && !kwarg_marker_written) {
      args.emplace_back("*");
      kwarg_marker_written = true;
    }
    std::string arg = type_with_alias(a.type, a.alias) + " " + a.name;
    if (a.default_value) arg += "=" + a.default_value->text;
    args.push_back(std::move(arg));
  }
  if (is_vararg) args.emplace_back("...");

  std::vector<std::string> rets;
  for (const Return& r : returns)
    rets.push_back(type_with_alias(r.type, r.alias) + (r.name.empty() ? "" : " " + r.name));
  if (is_varret) rets.emplace_back("...");

  // A lone unnamed return (or a lone `...`) is written bare; everything else in parentheses.
  const bool bare = rets.size() == 1 && (returns.empty() || returns[0].name.empty());
  return name.full() + "(" + join(args, ", ") + ") -> " + (bare ? rets[0] : "(" + join(rets, ", ") + ")");
}

bool FunctionSchema::is_mutable() const {
  for (const Argument& a : arguments)
    if (a.is_out()) return true;
  return false;
}

SchemaParseError::SchemaParseError(std::string message, std::string schema, int column)
    : Error(format_error(message, schema, column)),
      reason_(std::move(message)),
      schema_(std::move(schema)),
      column_(column) {}

}  // namespace glassbox
