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
  // What binutils' bfd_demangle does around the demangler: leading '.' and '$' (some targets add
  // them) are set aside, and everything from the first '@' (a symbol version, "@plt") too; both
  // are put back around the demangled name.
  std::size_t lead = 0;
  while (lead < name.size() && (name[lead] == '.' || name[lead] == '$')) ++lead;
  const std::string_view core = name.substr(lead, name.find('@', lead) - lead);
  // Every scheme the demanglers know starts with '_' ("_Z", "_R", "_D", "_GLOBAL_"): the rest of
  // a big table is passed over without a call.
  if (core.size() < 2 || core[0] != '_') {
    out.assign(name);
    return;
  }
  scratch_.assign(core);
#ifdef GLASSBOX_HAVE_LIBIBERTY
  char* result = cplus_demangle(scratch_.c_str(), kDemangleOptions);
  if (result == nullptr) {
    out.assign(name);
    return;
  }
  out.assign(name.substr(0, lead));
  out.append(result);
  std::free(result);
#else
  if (!is_mangled(core)) {
    out.assign(name);
    return;
  }
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
  out.assign(name.substr(0, lead));
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
