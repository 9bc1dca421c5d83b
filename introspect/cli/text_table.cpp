#include "introspect/cli/text_table.h"

#include <algorithm>
#include <cstdio>

namespace glassbox::introspect::cli {

TextTable::TextTable(std::vector<std::string> headers) {
  for (auto& h : headers) {
    const bool right = !h.empty() && h[0] == '>';
    right_.push_back(right);
    headers_.push_back(right ? h.substr(1) : std::move(h));
  }
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out) const {
  std::vector<std::size_t> width(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    width[c] = headers_[c].size();
    for (const auto& r : rows_) width[c] = std::max(width[c], r[c].size());
  }
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::size_t pad = width[c] - cells[c].size();
      if (c) line += "  ";
      if (right_[c]) line += std::string(pad, ' ') + cells[c];
      else line += cells[c] + (c + 1 < cells.size() ? std::string(pad, ' ') : "");
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  emit(headers_);
  std::vector<std::string> rule;
  for (auto w : width) rule.push_back(std::string(w, '-'));
  emit(rule);
  for (const auto& r : rows_) emit(r);
}

std::string format_ms(int64_t ms) {
  char buf[64];
  if (ms < 1000) std::snprintf(buf, sizeof buf, "%lld ms", static_cast<long long>(ms));
  else if (ms < 60000) std::snprintf(buf, sizeof buf, "%.1f s", ms / 1000.0);
  else
    std::snprintf(buf, sizeof buf, "%lld min %02lld s", static_cast<long long>(ms / 60000),
                  static_cast<long long>((ms % 60000) / 1000));
  return buf;
}

std::string format_bytes(uint64_t bytes) {
  char buf[64];
  if (bytes < 1024) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else if (bytes < 1024 * 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  else if (bytes < 1024ull * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
  else std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

std::string elide_front(const std::string& text, std::size_t width) {
  if (text.size() <= width || width < 4) return text;
  return "..." + text.substr(text.size() - (width - 3));
}

}  // namespace glassbox::introspect::cli
