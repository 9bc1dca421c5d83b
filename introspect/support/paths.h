#pragma once
// Lexical path handling on strings, fast on the common case (an already clean absolute path),
// because readers resolve every include directory and source of large compile databases.
#include <string>
#include <string_view>

namespace glassbox::introspect {

// `path` joined to `base` when relative (and base is not empty), then normalised lexically:
// "a/./b" -> "a/b", "a/x/../b" -> "a/b", no trailing slash. Touches no file system.
std::string normalize_path(std::string_view path, std::string_view base = {});

}  // namespace glassbox::introspect
