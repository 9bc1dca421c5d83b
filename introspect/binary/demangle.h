#pragma once
// Demangling of symbol names as `nm -C` does it, one at a time or a whole symbol table at once in
// parallel chunks. With libiberty (binutils' own cplus_demangle) every name binutils demangles is
// demangled the same way: C++ (Itanium ABI), Rust, D, GCC's "_GLOBAL__sub_I_" constructors. Built
// without it, libstdc++'s abi::__cxa_demangle does C++ names only (demangler_name() says which).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace glassbox::introspect {

// Whether `name` looks like an Itanium-mangled name ("_Z...").
bool is_mangled(std::string_view name);

// "libiberty" or "abi::__cxa_demangle": the demangler this build uses.
std::string_view demangler_name();

// The demangled form of `name`; `name` itself when it does not demangle. As binutils does, leading
// dots are set aside and a symbol version ("@GLIBCXX_3.4", "@@VERS_1") or "@plt" follows the
// demangled name. GCC clone suffixes are kept readable ("f() [clone .cold]").
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
  // out += demangle(name), without an intermediate string (for printing straight into a buffer).
  void append_demangled(std::string_view name, std::string& out);

 private:
  friend class SharedCloneNames;
  std::vector<std::string_view> suffixes_;  // SharedCloneNames' scratch list
  char* buffer_ = nullptr;                  // abi::__cxa_demangle's output buffer (without libiberty)
  std::size_t capacity_ = 0;
  std::string scratch_;  // a NUL-terminated copy of the name
};

// GCC's clones of a function (f.cold, f.isra.0, f.constprop.0.isra.0) demangle as the function
// followed by " [clone .cold]" per suffix (as binutils prints them). Over a whole symbol table --
// a fifth of libtorch_cpu.so's names are clones -- each function with clones is demangled once for
// itself and all of them.
class SharedCloneNames {
 public:
  // Finds the functions among `names` that have clones there, and demangles each once (on up to
  // `threads` threads). The views must outlive this object.
  SharedCloneNames(const std::vector<std::string_view>& names, unsigned threads = 0);
  // out += demangle(names[i]); `d` demangles the names that share nothing.
  void append_demangled(std::size_t i, Demangler& d, std::string& out) const;
  std::size_t shared() const { return texts_.size(); }  // functions demangled for their clones

 private:
  static constexpr uint32_t kNone = ~uint32_t{0};
  const std::vector<std::string_view>& names_;
  std::vector<uint32_t> slot_;      // per name: its function's index in texts_, or kNone
  std::vector<std::string> texts_;  // each function's demangled name
  std::vector<char> demangled_;     // whether it demangled (else its names go through `d`)
};

// The suffixes binutils shows as clones in `suffix` (".isra.0.cold" -> ".isra.0", ".cold"), or false
// when `suffix` is not all such (the whole name then does not demangle).
bool clone_suffixes(std::string_view suffix, std::vector<std::string_view>* out);

// demangle(names[i]) for every i, on up to `threads` threads (0: one per hardware thread) taking
// chunks of names in turn; the result does not depend on the number of threads.
std::vector<std::string> demangle_all(const std::vector<std::string_view>& names, unsigned threads = 0);

}  // namespace glassbox::introspect
