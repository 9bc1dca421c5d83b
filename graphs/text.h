#pragma once
// Text helpers shared by the writers (not part of the public API).
#include <cstdint>
#include <string>
#include <string_view>

namespace glassbox::graphs::text {

// Calls emit(code_point) for each code point of `text`; each byte of an invalid UTF-8 sequence
// becomes U+FFFD, so writers can promise valid UTF-8 output.
template <class Emit>
void for_each_code_point(std::string_view text, Emit&& emit) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    unsigned char c = s[i];
    std::uint32_t cp;
    std::size_t len;
    if (c < 0x80) {
      emit(static_cast<std::uint32_t>(c));
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      cp = c & 0x1F;
      len = 2;
    } else if ((c & 0xF0) == 0xE0) {
      cp = c & 0x0F;
      len = 3;
    } else if ((c & 0xF8) == 0xF0) {
      cp = c & 0x07;
      len = 4;
    } else {
      emit(0xFFFDu);
      ++i;
      continue;
    }
    bool ok = i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) ok = false;
      else cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    // Reject overlong forms, surrogates and code points beyond U+10FFFF.
    static constexpr std::uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (ok && (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
    if (!ok) {
      emit(0xFFFDu);
      ++i;
      continue;
    }
    emit(cp);
    i += len;
  }
}

inline void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Human-readable figures for tooltips and tables: "1.5 KiB", "2.31 s", "870 ms".
std::string format_bytes(double bytes);
std::string format_milliseconds(double ms);

}  // namespace glassbox::graphs::text
