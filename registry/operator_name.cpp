#include "registry/operator_name.h"

#include <string>

#include "engine/core/error.h"

namespace glassbox {

namespace {

bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  for (char c : s)
    if (!is_ident_char(c)) return false;
  return true;
}

[[noreturn]] void bad_name(std::string_view text, std::string_view why) {
  throw Error("invalid operator name '" + std::string(text) + "': " + std::string(why));
}

}  // namespace

std::string OperatorName::full() const {
  std::string out;
  if (!ns.empty()) out += ns + "::";
  out += name;
  if (!overload.empty()) out += "." + overload;
  return out;
}

OperatorName OperatorName::parse(std::string_view text) {
  OperatorName result;
  std::string_view rest = text;
  if (const auto sep = rest.find("::"); sep != std::string_view::npos) {
    const std::string_view ns = rest.substr(0, sep);
    if (!is_identifier(ns)) bad_name(text, "the namespace must be an identifier");
    result.ns = ns;
    rest.remove_prefix(sep + 2);
  }
  std::string_view overload;
  if (const auto dot = rest.find('.'); dot != std::string_view::npos) {
    overload = rest.substr(dot + 1);
    rest = rest.substr(0, dot);
    if (!is_identifier(overload)) bad_name(text, "the overload name must be an identifier");
  }
  if (!is_identifier(rest)) bad_name(text, "the operator name must be an identifier");
  result.name = rest;
  result.overload = overload;
  return result;
}

}  // namespace glassbox
