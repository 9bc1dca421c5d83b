#include "introspect/binary/demangle.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "introspect/support/parallel_chunks.h"

namespace glassbox::introspect {

bool is_mangled(std::string_view name) { return name.size() > 2 && name[0] == '_' && name[1] == 'Z'; }

Demangler::~Demangler() { std::free(buffer_); }

void Demangler::demangle_into(std::string_view name, std::string& out) {
  if (!is_mangled(name)) {
    out.assign(name);
    return;
  }
  // A versioned name from a linked .symtab ("_ZNKSt13runtime_error4whatEv@GLIBCXX_3.4"): the
  // version follows the demangled name, as nm prints it.
  const auto at = name.find('@');
  scratch_.assign(name.substr(0, at));
  int status = 0;
  std::size_t length = capacity_;
  // __cxa_demangle reallocs the buffer when it is too small, and leaves it alone on failure.
  char* result = abi::__cxa_demangle(scratch_.c_str(), buffer_, &length, &status);
  if (status != 0 || result == nullptr) {
    out.assign(name);
    return;
  }
  buffer_ = result;
  capacity_ = std::max(capacity_, length);
  out.assign(result);
  if (at != std::string_view::npos) out.append(name.substr(at));
}

std::string demangle(std::string_view name) {
  Demangler d;
  std::string out;
  d.demangle_into(name, out);
  return out;
}

std::vector<std::string> demangle_all(const std::vector<std::string_view>& names, unsigned threads) {
  std::vector<std::string> out(names.size());
  // Chunks small enough to balance uneven name lengths, large enough to keep the counter cold.
  parallel_chunks(names.size(), 2048, threads, [&](std::size_t begin, std::size_t end) {
    Demangler d;
    for (std::size_t i = begin; i < end; ++i) d.demangle_into(names[i], out[i]);
  });
  return out;
}

}  // namespace glassbox::introspect
