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
  friend class SharedDemangling;
  std::vector<std::string_view> suffixes_;  // SharedDemangling's scratch list
  char* buffer_ = nullptr;                  // abi::__cxa_demangle's output buffer (without libiberty)
  std::size_t capacity_ = 0;
  std::string scratch_;  // a NUL-terminated copy of the name
};

// Names that share their costly part are demangled once for all of them (on libtorch_cpu.so a
// quarter of the names):
// - GCC's clones of a function (f.cold, f.isra.0, f.constprop.0.isra.0) demangle as the function
//   followed by " [clone .cold]" per suffix, as binutils prints them;
// - a class's vtable, VTT, typeinfo and typeinfo name (_ZTV, _ZTT, _ZTI, _ZTS + the type) are
//   "vtable for T", "VTT for T", "typeinfo for T", "typeinfo name for T".
class SharedDemangling {
 public:
  // Finds the names of `names` that share a part with another, and demangles each part once (on up
  // to `threads` threads). The views must outlive this object.
  SharedDemangling(const std::vector<std::string_view>& names, unsigned threads = 0);
  // out += demangle(names[i]); `d` demangles the names that share nothing.
  void append_demangled(std::size_t i, Demangler& d, std::string& out) const;
  std::size_t shared() const { return texts_.size(); }  // parts demangled once for several names

 private:
  static constexpr uint32_t kNone = ~uint32_t{0};
  enum class Kind : char { Clone, Type };
  const std::vector<std::string_view>& names_;
  std::vector<uint32_t> slot_;        // per name: its part's index in texts_, or kNone
  std::vector<std::string> texts_;    // each part demangled (a function, a type)
  std::vector<uint32_t> part_sizes_;  // each part's length in its names
  std::vector<Kind> kinds_;           // what each part is
  std::vector<char> demangled_;       // whether it demangled (else its names go through `d`)
};

// The suffixes binutils shows as clones in `suffix` (".isra.0.cold" -> ".isra.0", ".cold"), or false
// when `suffix` is not all such (the whole name then does not demangle).
bool clone_suffixes(std::string_view suffix, std::vector<std::string_view>* out);

// demangle(names[i]) for every i, on up to `threads` threads (0: one per hardware thread) taking
// chunks of names in turn; the result does not depend on the number of threads.
std::vector<std::string> demangle_all(const std::vector<std::string_view>& names, unsigned threads = 0);

}  // namespace glassbox::introspect
