#pragma once
// Demangling of C++ symbol names (Itanium ABI, abi::__cxa_demangle), one at a time or a whole
// symbol table at once in parallel chunks.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace glassbox::introspect {

// Whether `name` looks like an Itanium-mangled name ("_Z...").
bool is_mangled(std::string_view name);

// The demangled form of `name`; `name` itself when it is not mangled or does not demangle.
// GCC clone suffixes are kept readable ("f() [clone .cold]").
std::string demangle(std::string_view name);

// A demangler for one thread: keeps its output buffer between calls (faster than demangle()).
class Demangler {
 public:
  Demangler() = default;
  Demangler(const Demangler&) = delete;
  Demangler& operator=(const Demangler&) = delete;
  ~Demangler();
  // out = demangle(name).
  void demangle_into(std::string_view name, std::string& out);

 private:
  char* buffer_ = nullptr;
  std::size_t capacity_ = 0;
  std::string scratch_;  // a NUL-terminated copy of the name
};

// demangle(names[i]) for every i, on up to `threads` threads (0: one per hardware thread) taking
// chunks of names in turn; the result does not depend on the number of threads.
std::vector<std::string> demangle_all(const std::vector<std::string_view>& names, unsigned threads = 0);

}  // namespace glassbox::introspect
