#pragma once
// Reading JSON files with errors that name the file and what is wrong with it. All introspection
// readers go through here so a truncated or malformed file never surfaces as a bare parser error.
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace glassbox::introspect {

// Reads a whole file; throws glassbox::Error("<file>: cannot read: <reason>") when it is missing.
std::string read_text_file(const std::filesystem::path& file);

// Parses JSON text; `origin` names the file in error messages (with the byte offset of a syntax error).
nlohmann::json parse_json(std::string_view text, std::string_view origin);
nlohmann::json read_json_file(const std::filesystem::path& file);

// Typed member access that throws glassbox::Error naming `origin` and the member when the member is
// missing or has the wrong type. `what` is the object's location, e.g. "targets[3]".
const nlohmann::json& json_member(const nlohmann::json& object, std::string_view key, std::string_view origin,
                                  std::string_view what);
std::string json_string(const nlohmann::json& object, std::string_view key, std::string_view origin,
                        std::string_view what);
// Optional members: the fallback when absent; glassbox::Error when present with the wrong type.
std::string json_string_or(const nlohmann::json& object, std::string_view key, std::string_view fallback,
                           std::string_view origin);
long long json_int_or(const nlohmann::json& object, std::string_view key, long long fallback, std::string_view origin);
bool json_bool_or(const nlohmann::json& object, std::string_view key, bool fallback, std::string_view origin);
// An array member (an empty array when absent); glassbox::Error when present and not an array.
const nlohmann::json& json_array_or_empty(const nlohmann::json& object, std::string_view key, std::string_view origin);

}  // namespace glassbox::introspect
