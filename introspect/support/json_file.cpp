#include "introspect/support/json_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"

namespace glassbox::introspect {

std::string read_text_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw Error(file.string() + ": cannot read: is a directory");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file.string() + ": cannot read: " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(file.string() + ": read error");
  return std::move(buffer).str();
}

nlohmann::json parse_json(std::string_view text, std::string_view origin) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // byte is 1-based and one past the end for a truncated document.
    const bool truncated = e.byte >= text.size();
    std::ostringstream message;
    message << origin << ": " << (truncated ? "truncated JSON (ends early)" : "invalid JSON") << " at byte " << e.byte;
    std::string detail = e.what();
    // nlohmann's text is "[json.exception.parse_error.101] parse error at line 1, column 5: ...".
    if (auto colon = detail.find(": "); colon != std::string::npos) message << ": " << detail.substr(colon + 2);
    throw Error(message.str());
  } catch (const nlohmann::json::exception& e) {  // e.g. a number too large for a double
    throw Error(detail::str_cat(origin, ": invalid JSON: ", e.what()));
  }
}

nlohmann::json read_json_file(const std::filesystem::path& file) {
  return parse_json(read_text_file(file), file.string());
}

namespace {
[[noreturn]] void fail(std::string_view origin, std::string_view what, std::string_view key, std::string_view problem) {
  std::string where(what);
  if (!where.empty()) where += ".";
  throw Error(detail::str_cat(origin, ": ", where, key, ": ", problem));
}

const char* type_name(const nlohmann::json& v) { return v.type_name(); }
}  // namespace

const nlohmann::json& json_member(const nlohmann::json& object, std::string_view key, std::string_view origin,
                                  std::string_view what) {
  if (!object.is_object()) fail(origin, what, key, std::string("expected an object, found ") + type_name(object));
  auto it = object.find(key);
  if (it == object.end()) fail(origin, what, key, "missing");
  return *it;
}

std::string json_string(const nlohmann::json& object, std::string_view key, std::string_view origin,
                        std::string_view what) {
  const auto& v = json_member(object, key, origin, what);
  if (!v.is_string()) fail(origin, what, key, std::string("expected a string, found ") + type_name(v));
  return v.get<std::string>();
}

std::string json_string_or(const nlohmann::json& object, std::string_view key, std::string_view fallback,
                           std::string_view origin) {
  if (!object.is_object()) return std::string(fallback);
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string(fallback);
  if (!it->is_string()) fail(origin, "", key, std::string("expected a string, found ") + type_name(*it));
  return it->get<std::string>();
}

long long json_int_or(const nlohmann::json& object, std::string_view key, long long fallback, std::string_view origin) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) fail(origin, "", key, std::string("expected an integer, found ") + type_name(*it));
  return it->get<long long>();
}

bool json_bool_or(const nlohmann::json& object, std::string_view key, bool fallback, std::string_view origin) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) fail(origin, "", key, std::string("expected a boolean, found ") + type_name(*it));
  return it->get<bool>();
}

const nlohmann::json& json_array_or_empty(const nlohmann::json& object, std::string_view key, std::string_view origin) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!object.is_object()) return empty;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return empty;
  if (!it->is_array()) fail(origin, "", key, std::string("expected an array, found ") + type_name(*it));
  return *it;
}

}  // namespace glassbox::introspect
