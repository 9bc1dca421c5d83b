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

// The classes below mirror the Python exception PyTorch raises for the same mistake; most argument
// errors (shapes, dtypes, values) are plain Error, i.e. RuntimeError, as in PyTorch.

// A value that is wrong in a way Python itself would call a ValueError (a many-element tensor as a number).
class ValueError : public Error {
 public:
  using Error::Error;
};

// A Python object of the wrong type (Python: TypeError).
class TypeError : public Error {
 public:
  using Error::Error;
};

// A dimension or index out of range (Python: IndexError).
class IndexError : public Error {
 public:
  using Error::Error;
};

// An operator that has no kernel for this dtype, e.g. var of an integer tensor (Python: NotImplementedError).
class NotImplementedError : public Error {
 public:
  using Error::Error;
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
#define GB_CHECK(cond, ...)                                              \
  do {                                                                   \
    if (!(cond)) [[unlikely]]                                            \
      throw ::glassbox::Error(::glassbox::detail::str_cat(__VA_ARGS__)); \
  } while (0)
