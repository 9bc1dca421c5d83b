#include "introspect/binary/demangle.h"

#include <cstdlib>
#include <cstring>

#include <algorithm>

#ifdef GLASSBOX_HAVE_LIBIBERTY
// libiberty.h declares basename() itself unless told that <string.h> already has.
#define HAVE_DECL_BASENAME 1
#include <libiberty/demangle.h>
#else
#include <cxxabi.h>
#endif

#include "introspect/support/parallel_chunks.h"

namespace glassbox::introspect {
namespace {

#ifdef GLASSBOX_HAVE_LIBIBERTY
// nm -C's options: parameter lists and ANSI qualifiers (const, volatile).
constexpr int kDemangleOptions = DMGL_PARAMS | DMGL_ANSI;

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// Whether cplus_demangle would take `name` for Rust: "_R..." (v0), or a legacy name, which is an
// Itanium "_ZN...E" name whose last part is the hash "17h" + 16 hex digits. cplus_demangle tries
// Rust first on every name; the rest go straight to the C++ demangler, which gives the same text.
bool may_be_rust(std::string_view name) {
  if (name.starts_with("_R")) return true;
  if (!name.starts_with("_ZN")) return false;
  for (std::size_t at = name.find("17h"); at != std::string_view::npos; at = name.find("17h", at + 1)) {
    if (at + 3 + 16 < name.size() && name[at + 3 + 16] == 'E' &&
        std::all_of(name.begin() + at + 3, name.begin() + at + 3 + 16, is_hex))
      return true;
  }
  return false;
}

void append_to(const char* text, std::size_t size, void* out) { static_cast<std::string*>(out)->append(text, size); }
#endif

}  // namespace

bool is_mangled(std::string_view name) { return name.size() > 2 && name[0] == '_' && name[1] == 'Z'; }

std::string_view demangler_name() {
#ifdef GLASSBOX_HAVE_LIBIBERTY
  return "libiberty";
#else
  return "abi::__cxa_demangle";
#endif
}

Demangler::~Demangler() { std::free(buffer_); }

void Demangler::demangle_into(std::string_view name, std::string& out) {
  out.clear();
  append_demangled(name, out);
}

void Demangler::append_demangled(std::string_view name, std::string& out) {
  // What binutils' bfd_demangle does around the demangler: leading '.' and '$' (some targets add
  // them) are set aside, and everything from the first '@' (a symbol version, "@plt") too; both
  // are put back around the demangled name.
  std::size_t lead = 0;
  while (lead < name.size() && (name[lead] == '.' || name[lead] == '$')) ++lead;
  const std::string_view core = name.substr(lead, name.find('@', lead) - lead);
  // Every scheme the demanglers know starts with '_' ("_Z", "_R", "_GLOBAL_"): the rest of a big
  // table is passed over without a call.
  if (core.size() < 2 || core[0] != '_') {
    out.append(name);
    return;
  }
  scratch_.assign(core);
  const std::size_t start = out.size();
  out.append(name.substr(0, lead));
#ifdef GLASSBOX_HAVE_LIBIBERTY
  // cplus_demangle(name, options), as bfd_demangle calls it, without its copies: the C++
  // demangler writes straight into `out`.
  bool done = false;
  if (may_be_rust(core)) {
    if (char* rust = rust_demangle(scratch_.c_str(), kDemangleOptions)) {
      out.append(rust);
      std::free(rust);
      done = true;
    }
  }
  if (!done && !cplus_demangle_v3_callback(scratch_.c_str(), kDemangleOptions, append_to, &out)) {
    out.resize(start);
    out.append(name);
    return;
  }
#else
  int status = 0;
  std::size_t length = capacity_;
  // __cxa_demangle reallocs the buffer when it is too small, and leaves it alone on failure.
  char* result = is_mangled(core) ? abi::__cxa_demangle(scratch_.c_str(), buffer_, &length, &status) : nullptr;
  if (status != 0 || result == nullptr) {
    out.resize(start);
    out.append(name);
    return;
  }
  buffer_ = result;
  capacity_ = std::max(capacity_, length);
  out.append(result);
#endif
  out.append(name.substr(lead + core.size()));
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
