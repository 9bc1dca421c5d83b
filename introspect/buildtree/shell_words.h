#pragma once
// Splitting a command line into words the way a POSIX shell does (quotes, backslashes), which is
// how compile_commands.json's "command" field is specified.
#include <string>
#include <string_view>
#include <vector>

namespace glassbox::introspect {

// Splits `text` into words. Throws glassbox::Error naming `origin` on an unterminated quote or a
// trailing backslash.
std::vector<std::string> split_shell_words(std::string_view text, std::string_view origin = "command");

// Quotes one word so that split_shell_words() gives it back unchanged (used when printing commands).
std::string quote_shell_word(std::string_view word);

}  // namespace glassbox::introspect
