#include "introspect/support/paths.h"

#include <filesystem>

namespace glassbox::introspect {
namespace {

// True when the path has no ".", ".." or empty components and no trailing slash.
bool is_clean(std::string_view p) {
  if (p.empty()) return false;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string_view::npos) end = p.size();
    const std::string_view part = p.substr(start, end - start);
    const bool leading_root = start == 0 && end == 0;  // the "" before an absolute path's first '/'
    if (!leading_root && (part.empty() || part == "." || part == "..")) return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

std::string normalize_path(std::string_view path, std::string_view base) {
  std::string joined;
  if (!path.empty() && path.front() != '/' && !base.empty()) {
    joined.reserve(base.size() + 1 + path.size());
    joined.append(base);
    if (joined.back() != '/') joined.push_back('/');
    joined.append(path);
  } else {
    joined.assign(path);
  }
  if (is_clean(joined) || joined == "/") return joined;
  std::string out = std::filesystem::path(joined).lexically_normal().string();
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace glassbox::introspect
