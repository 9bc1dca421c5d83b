#include "introspect/binary/demangle.h"

#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <unordered_map>

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

// Whether cplus_demangle might take `name` for Rust: "_R..." (v0), or a legacy name, an Itanium
// "_ZN...E" name whose last part is the hash "17h" + 16 hex digits, with its 'E' last or before a
// ".suffix". cplus_demangle tries Rust first on every name; the rest go straight to the C++
// demangler, which gives the same text. Only the end and the places before a '.' are looked at:
// a scan for "17h" stops at every length prefix in the teens.
bool legacy_rust_hash_ends_at(std::string_view name, std::size_t e) {
  constexpr std::size_t kHash = 3 + 16;  // "17h" and the digits
  return name[e] == 'E' && e >= 3 + kHash && name.compare(e - kHash, 3, "17h") == 0 &&
         std::all_of(name.begin() + static_cast<std::ptrdiff_t>(e - 16), name.begin() + static_cast<std::ptrdiff_t>(e),
                     is_hex);
}

bool may_be_rust(std::string_view name) {
  if (name.starts_with("_R")) return true;
  if (!name.starts_with("_ZN")) return false;
  if (legacy_rust_hash_ends_at(name, name.size() - 1)) return true;
  for (std::size_t dot = name.find('.'); dot != std::string_view::npos; dot = name.find('.', dot + 1))
    if (legacy_rust_hash_ends_at(name, dot - 1)) return true;
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

bool clone_suffixes(std::string_view suffix, std::vector<std::string_view>* out) {
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t at = 0;
  while (at < suffix.size()) {
    // ".name" (lowercase letters, digits, '_'), then any number of ".N".
    if (suffix[at] != '.' || at + 1 >= suffix.size() ||
        !(lower(suffix[at + 1]) || digit(suffix[at + 1]) || suffix[at + 1] == '_'))
      return false;
    const std::size_t start = at;
    at += 2;
    while (at < suffix.size() && (lower(suffix[at]) || digit(suffix[at]) || suffix[at] == '_')) ++at;
    while (at + 1 < suffix.size() && suffix[at] == '.' && digit(suffix[at + 1])) {
      at += 2;
      while (at < suffix.size() && digit(suffix[at])) ++at;
    }
    if (out) out->push_back(suffix.substr(start, at - start));
  }
  return true;
}

namespace {

// The function a clone's name belongs to ("_Z1fv" for "_Z1fv.isra.0"), or "" when `name` is no
// clone of a C++ function (versioned and Rust names keep their own path).
std::string_view clone_base(std::string_view name) {
  if (!is_mangled(name)) return {};
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos || name.find('@') != std::string_view::npos ||
      !clone_suffixes(name.substr(dot), nullptr))
    return {};
#ifdef GLASSBOX_HAVE_LIBIBERTY
  if (may_be_rust(name.substr(0, dot))) return {};
#endif
  return name.substr(0, dot);
}

// What the demangler prints before the type of a class's vtable, VTT, typeinfo or typeinfo name
// ("_ZTV" + type: "vtable for "), or "" for any other name. The type is parsed and printed alone
// (nothing before it enters the substitution table), so its text is the same in all four.
std::string_view type_data_prefix(std::string_view name) {
  if (name.size() < 5 || name[0] != '_' || name[1] != 'Z' || name[2] != 'T') return {};
  std::string_view prefix;
  switch (name[3]) {
    case 'V': prefix = "vtable for "; break;
    case 'T': prefix = "VTT for "; break;
    case 'I': prefix = "typeinfo for "; break;
    case 'S': prefix = "typeinfo name for "; break;
    default: return {};
  }
  // (Two scans: find_first_of tests each character against the set with a call.)
  const bool plain = name.find('.', 4) == std::string_view::npos && name.find('@', 4) == std::string_view::npos;
  return plain ? prefix : std::string_view{};
}

}  // namespace

SharedDemangling::SharedDemangling(const std::vector<std::string_view>& names, unsigned threads)
    : names_(names), slot_(names.size(), kNone) {
  // Keyed by the names' fingerprint below, not a hash of every byte: mangled names that end alike
  // and are as long are rare, and equal fingerprints still compare the names.
  const auto fingerprint = [](std::string_view n) {
    uint64_t tail = 0;
    std::memcpy(&tail, n.data() + n.size() - std::min<std::size_t>(n.size(), 8), std::min<std::size_t>(n.size(), 8));
    return (tail ^ (n.size() * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
  };
  std::unordered_map<std::string_view, uint32_t, decltype(fingerprint)> slot_of(names.size() / 4, fingerprint);
  std::vector<std::string_view> parts;  // a clone's function ("_Z1fv"), or a type ("N1a1bE")
  std::vector<std::size_t> first_name;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string_view part = clone_base(names[i]);
    Kind kind = Kind::Clone;
    if (part.empty()) {
      if (type_data_prefix(names[i]).empty()) continue;
      part = names[i].substr(4), kind = Kind::Type;
    }
    const auto [it, added] = slot_of.emplace(part, static_cast<uint32_t>(parts.size()));
    if (added) parts.push_back(part), first_name.push_back(i), kinds_.push_back(kind);
    if (kinds_[it->second] == kind) slot_[i] = it->second;  // (a type is never "_Z...": no clash)
  }
  if (parts.empty()) return;
  // The functions themselves, where the table has them. A full hash of every name would cost much
  // of what is saved: a filter on a quick fingerprint (length and last bytes) lets through the
  // functions and a few others only.
  constexpr std::size_t kFilterBits = std::size_t{1} << 22;
  std::vector<bool> filter(kFilterBits);
  for (std::size_t k = 0; k < parts.size(); ++k)
    if (kinds_[k] == Kind::Clone) filter[fingerprint(parts[k]) >> 42] = true;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string_view n = names[i];
    if (slot_[i] != kNone || n.size() < 3 || !filter[fingerprint(n) >> 42]) continue;
    if (const auto it = slot_of.find(n); it != slot_of.end() && kinds_[it->second] == Kind::Clone)
      slot_[i] = it->second;
  }
  texts_.resize(parts.size());
  demangled_.resize(parts.size());
  // Each part's text is that of its first name less what that name adds. A function's text is its
  // first clone's less the clone suffixes: only a function's name takes them (binutils does not
  // demangle "_ZN1a1bE.cold", a variable's), so a clone that demangles with them is what says that
  // the function's and its clones' names may be shared.
  parallel_chunks(parts.size(), 1024, threads, [&](std::size_t begin, std::size_t end) {
    Demangler d;
    std::string expected;
    for (std::size_t k = begin; k < end; ++k) {
      const std::string_view name = names[first_name[k]];
      std::string& text = texts_[k];
      d.demangle_into(name, text);
      if (kinds_[k] == Kind::Type) {
        const std::string_view prefix = type_data_prefix(name);
        demangled_[k] = text.size() > prefix.size() && text.starts_with(prefix);
        if (demangled_[k]) text.erase(0, prefix.size());
        continue;
      }
      d.suffixes_.clear();
      clone_suffixes(name.substr(parts[k].size()), &d.suffixes_);
      expected.clear();
      for (const auto suffix : d.suffixes_) expected.append(" [clone ").append(suffix).append("]");
      demangled_[k] = text != name && text.size() > expected.size() && text.ends_with(expected);
      if (demangled_[k]) text.resize(text.size() - expected.size());
    }
  });
}

void SharedDemangling::append_demangled(std::size_t i, Demangler& d, std::string& out) const {
  const std::string_view name = names_[i];
  const uint32_t slot = slot_[i];
  if (slot == kNone || !demangled_[slot]) {
    d.append_demangled(name, out);
    return;
  }
  if (kinds_[slot] == Kind::Type) {
    out += type_data_prefix(name);
    out += texts_[slot];
    return;
  }
  out += texts_[slot];
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos) return;
  std::vector<std::string_view>& suffixes = d.suffixes_;
  suffixes.clear();
  clone_suffixes(name.substr(dot), &suffixes);
  for (const auto s : suffixes) {
    out += " [clone ";
    out += s;
    out += ']';
  }
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
