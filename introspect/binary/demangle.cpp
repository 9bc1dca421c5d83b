#include "introspect/binary/demangle.h"

#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <bit>
#include <functional>

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

// What the demangler prints for the letter after "_ZT" of a class's vtable, VTT, typeinfo or
// typeinfo name ('V': "vtable for "), or "".
std::string_view type_data_prefix(char letter) {
  switch (letter) {
    case 'V': return "vtable for ";
    case 'T': return "VTT for ";
    case 'I': return "typeinfo for ";
    case 'S': return "typeinfo name for ";
    default: return {};
  }
}

// What the demangler prints before the type of a class's vtable, VTT, typeinfo or typeinfo name
// ("_ZTV" + type: "vtable for "), or "" for any other name. The type is parsed and printed alone
// (nothing before it enters the substitution table), so its text is the same in all four.
std::string_view type_data_prefix(std::string_view name) {
  if (name.size() < 5 || name[0] != '_' || name[1] != 'Z' || name[2] != 'T') return {};
  const std::string_view prefix = type_data_prefix(name[3]);
  if (prefix.empty()) return {};
  // (Two scans: find_first_of tests each character against the set with a call.)
  const bool plain = name.find('.', 4) == std::string_view::npos && name.find('@', 4) == std::string_view::npos;
  return plain ? prefix : std::string_view{};
}

// The parts found so far, by a hash of every byte: open addressing over a power-of-two table,
// each entry's hash kept beside it, so that a probe compares names only when the hashes agree.
// (Template-heavy names that end alike and are as long are common: on libtorch_cpu.so a quick
// fingerprint of length and last bytes gives a third as many values as there are parts.)
class PartTable {
 public:
  static constexpr uint32_t kNone = ~uint32_t{0};
  explicit PartTable(std::size_t capacity) : entries_(std::bit_ceil(2 * capacity + 1)) {}
  static uint64_t hash(std::string_view part) { return std::hash<std::string_view>{}(part); }
  // The table is far larger than the caches: callers ask for an entry some parts ahead.
  void prefetch(uint64_t h) const { __builtin_prefetch(&entries_[h & (entries_.size() - 1)]); }
  // The index of `part` (hash `h`) in `parts`; when absent it is appended, and `added` says so.
  uint32_t insert(std::string_view part, uint64_t h, std::vector<std::string_view>& parts, bool& added) {
    for (std::size_t at = h & (entries_.size() - 1);; at = (at + 1) & (entries_.size() - 1)) {
      Entry& e = entries_[at];
      added = e.index == kNone;
      if (added) {
        e = {h, static_cast<uint32_t>(parts.size())};
        parts.push_back(part);
        return e.index;
      }
      if (e.hash == h && parts[e.index] == part) return e.index;
    }
  }
  // The index of `part` (hash `h`), or kNone.
  uint32_t find(std::string_view part, uint64_t h, const std::vector<std::string_view>& parts) const {
    for (std::size_t at = h & (entries_.size() - 1);; at = (at + 1) & (entries_.size() - 1)) {
      const Entry& e = entries_[at];
      if (e.index == kNone || (e.hash == h && parts[e.index] == part)) return e.index;
    }
  }

 private:
  struct Entry {
    uint64_t hash = 0;
    uint32_t index = kNone;
  };
  std::vector<Entry> entries_;
};

// A quick fingerprint of a name (length, first, middle and last bytes) for a filter in front of
// the full hash.
uint64_t fingerprint(std::string_view n) {
  uint64_t head = 0, middle = 0, tail = 0;
  const std::size_t k = std::min<std::size_t>(n.size(), 8);
  std::memcpy(&head, n.data(), k);
  std::memcpy(&middle, n.data() + (n.size() - k) / 2, k);
  std::memcpy(&tail, n.data() + n.size() - k, k);
  return (((head * 0x9e3779b97f4a7c15ull) ^ middle) * 0xff51afd7ed558ccdull ^ tail ^ n.size()) * 0xc4ceb9fe1a85ec53ull;
}

}  // namespace

SharedDemangling::SharedDemangling(const std::vector<std::string_view>& names, unsigned threads)
    : names_(names), slot_(names.size(), kNone) {
  // The names that are a part plus something: clones and a type's data.
  struct Candidate {
    std::size_t name;
    std::string_view part;  // a clone's function ("_Z1fv"), or a type ("N1a1bE")
    Kind kind;
    uint64_t hash;
  };
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (const std::string_view part = clone_base(names[i]); !part.empty())
      candidates.push_back({i, part, Kind::Clone, PartTable::hash(part)});
    else if (!type_data_prefix(names[i]).empty())
      candidates.push_back({i, names[i].substr(4), Kind::Type, PartTable::hash(names[i].substr(4))});
  }
  if (candidates.empty()) return;
  constexpr std::size_t kAhead = 16;
  PartTable table(candidates.size());
  std::vector<std::string_view> parts;
  std::vector<std::size_t> first_name;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (c + kAhead < candidates.size()) table.prefetch(candidates[c + kAhead].hash);
    const Candidate& can = candidates[c];
    bool added = false;
    const uint32_t k = table.insert(can.part, can.hash, parts, added);
    if (added) {
      first_name.push_back(can.name), kinds_.push_back(can.kind);
      part_sizes_.push_back(static_cast<uint32_t>(can.part.size()));
    }
    if (kinds_[k] == can.kind) slot_[can.name] = k;  // (a type is never "_Z...": no clash)
  }
  // The functions themselves, where the table has them. A full hash of every name would cost much
  // of what is saved: a filter on a quick fingerprint lets through the functions and a few others.
  constexpr std::size_t kFilterBits = std::size_t{1} << 22;
  std::vector<bool> filter(kFilterBits);
  for (std::size_t k = 0; k < parts.size(); ++k)
    if (kinds_[k] == Kind::Clone) filter[fingerprint(parts[k]) >> 42] = true;
  std::vector<std::pair<std::size_t, uint64_t>> passed;  // (name, hash)
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string_view n = names[i];
    if (slot_[i] == kNone && n.size() >= 3 && filter[fingerprint(n) >> 42]) passed.emplace_back(i, PartTable::hash(n));
  }
  for (std::size_t p = 0; p < passed.size(); ++p) {
    if (p + kAhead < passed.size()) table.prefetch(passed[p + kAhead].second);
    const auto [i, h] = passed[p];
    if (const uint32_t k = table.find(names[i], h, parts); k != PartTable::kNone && kinds_[k] == Kind::Clone)
      slot_[i] = k;
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
    out += type_data_prefix(name[3]);
    out += texts_[slot];
    return;
  }
  out += texts_[slot];
  if (name.size() == part_sizes_[slot]) return;  // the function itself
  std::vector<std::string_view>& suffixes = d.suffixes_;
  suffixes.clear();
  clone_suffixes(name.substr(part_sizes_[slot]), &suffixes);
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
