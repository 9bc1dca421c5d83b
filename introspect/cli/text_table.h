#pragma once
// Aligned plain-text tables for the commands' default output, and number formatting for them.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace glassbox::introspect::cli {

class TextTable {
 public:
  // Columns whose header starts with '>' are right-aligned (the '>' is not printed).
  explicit TextTable(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells);
  std::size_t rows() const { return rows_.size(); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

std::string format_ms(int64_t ms);         // "850 ms", "12.3 s", "4 min 03 s"
std::string format_bytes(uint64_t bytes);  // "912 B", "14.2 KiB", "3.1 MiB"
// Shortens `text` to at most `width` characters, keeping its end ("...ore/tensor.cpp").
std::string elide_front(const std::string& text, std::size_t width);

}  // namespace glassbox::introspect::cli
