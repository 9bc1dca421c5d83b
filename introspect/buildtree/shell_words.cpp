#include "introspect/buildtree/shell_words.h"

#include "engine/core/error.h"

namespace glassbox::introspect {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Inside double quotes a backslash escapes only these characters (POSIX 2.2.3).
bool escapable_in_double_quotes(char c) { return c == '$' || c == '`' || c == '"' || c == '\\' || c == '\n'; }

}  // namespace

std::vector<std::string> split_shell_words(std::string_view text, std::string_view origin) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (is_blank(c)) {
      if (in_word) words.push_back(std::move(word)), word.clear(), in_word = false;
      ++i;
    } else if (c == '\'') {
      const size_t close = text.find('\'', i + 1);
      GB_CHECK(close != std::string_view::npos, origin, ": unterminated single quote at offset ", i);
      word.append(text.substr(i + 1, close - i - 1));
      in_word = true;
      i = close + 1;
    } else if (c == '"') {
      in_word = true;
      ++i;
      while (true) {
        GB_CHECK(i < n, origin, ": unterminated double quote");
        const char d = text[i];
        if (d == '"') {
          ++i;
          break;
        }
        if (d == '\\' && i + 1 < n && escapable_in_double_quotes(text[i + 1])) {
          if (text[i + 1] != '\n') word.push_back(text[i + 1]);  // backslash-newline joins lines
          i += 2;
        } else {
          word.push_back(d);
          ++i;
        }
      }
    } else if (c == '\\') {
      GB_CHECK(i + 1 < n, origin, ": trailing backslash");
      if (text[i + 1] != '\n') word.push_back(text[i + 1]), in_word = true;
      i += 2;
    } else {
      // A run of ordinary characters is appended at once (most of a compile command).
      size_t end = i + 1;
      while (end < n) {
        const char d = text[end];
        if (is_blank(d) || d == '\'' || d == '"' || d == '\\') break;
        ++end;
      }
      word.append(text.data() + i, end - i);
      in_word = true;
      i = end;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string quote_shell_word(std::string_view word) {
  if (word.empty()) return "''";
  bool plain = true;
  for (char c : word) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.' || c == '/' || c == '=' || c == '+' || c == ',' || c == ':' || c == '@' ||
                      c == '%';
    if (!safe) plain = false;
  }
  if (plain) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out.push_back(c);
  }
  out += "'";
  return out;
}

}  // namespace glassbox::introspect
