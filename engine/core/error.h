#pragma once
// glassbox::Error: the one exception type of the engine. Python sees it as a RuntimeError (or a
// more specific subclass) carrying the same text.
#include <source_location>
#include <sstream>
#include <stdexcept>
#include <string>

namespace glassbox {

class Error : public std::runtime_error {
 public:
  explicit Error(std::string message) : std::runtime_error(std::move(message)) {}
};

// Raised for bad arguments (wrong dtype, shape, value): Python maps it to ValueError/TypeError.
class ValueError : public Error {
 public:
  using Error::Error;
};

// A wrong type or dtype (Python: TypeError).
class TypeError : public ValueError {
 public:
  using ValueError::ValueError;
};

// A dimension or index out of range (Python: IndexError).
class IndexError : public ValueError {
 public:
  using ValueError::ValueError;
};

namespace detail {
template <class... Parts>
std::string str_cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}
}  // namespace detail

}  // namespace glassbox

// GB_CHECK(cond, parts...) throws glassbox::Error with the parts streamed together.
#define GB_CHECK(cond, ...)                                                   \
  do {                                                                        \
    if (!(cond)) [[unlikely]]                                                 \
      throw ::glassbox::Error(::glassbox::detail::str_cat(__VA_ARGS__));      \
  } while (0)
