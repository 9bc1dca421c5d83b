#pragma once
// ns::name.overload — how every operator is named and looked up.
#include <functional>
#include <string>
#include <string_view>

namespace glassbox {

struct OperatorName {
  std::string ns;        // "aten", "glassbox", "myops"; may be empty for a bare schema
  std::string name;      // "add"
  std::string overload;  // "Tensor"; empty for the default overload

  // "ns::name.overload" ("ns::name" when there is no overload).
  std::string full() const;
  // Parses "ns::name.overload", "ns::name" or "name.overload"; throws Error on bad text.
  static OperatorName parse(std::string_view text);

  bool operator==(const OperatorName&) const = default;
};

}  // namespace glassbox

template <>
struct std::hash<glassbox::OperatorName> {
  size_t operator()(const glassbox::OperatorName& n) const noexcept {
    const std::hash<std::string> h;
    return h(n.ns) * 31u * 31u + h(n.name) * 31u + h(n.overload);
  }
};
