#include "introspect/binary/symbol_listing.h"

#include <algorithm>
#include <map>
#include <regex>
#include <unordered_map>

#include "engine/core/error.h"
#include "introspect/support/parallel_chunks.h"

namespace glassbox::introspect {
namespace {

std::regex compile(const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw Error("invalid regular expression \"" + pattern + "\": " + e.what());
  }
}

bool listed(const ElfSymbol& s) {
  return s.type != SymbolType::Section && s.type != SymbolType::File && !s.name.empty();
}

}  // namespace

SymbolListing list_symbols(const std::filesystem::path& binary, const SymbolQuery& query) {
  ElfReadOptions read;
  read.tables = query.tables;
  read.demangle = query.demangle;
  read.copy_undemangled_names = query.copy_undemangled_names || !query.grep.empty();
  read.threads = query.threads;
  SymbolListing out{ElfFile::read(binary, read), std::nullopt, {}};
  const auto& symbols = out.elf.symbols();

  // Filter (the regex in parallel: std::regex is slow, and a const one may be shared).
  // keep[i]: symbol i's nm letter, or 0 when it is not listed. Worked out here, in table order,
  // rather than when the listing is built in address order: a big table is tens of megabytes, read
  // once front to back rather than in a random order.
  std::vector<char> keep(symbols.size(), 0);
  const std::optional<std::regex> re =
      query.grep.empty() ? std::nullopt : std::optional<std::regex>(compile(query.grep));
  const auto& sections = out.elf.sections();
  parallel_chunks(symbols.size(), 4096, query.threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const ElfSymbol& s = symbols[i];
      const bool kept = listed(s) && (!re || std::regex_search(s.demangled, *re) ||
                                      (s.demangled != s.name && std::regex_search(s.name.begin(), s.name.end(), *re)));
      keep[i] = kept ? nm_letter(s, sections) : 0;
    }
  });
  // Undefined first, as nm -n does, then by address, then by name. Sorted on (key, index) pairs
  // first (no symbol is touched), then by name only within runs of equal keys (aliases). The
  // listing is built once, in its final order and size: every fresh megabyte costs the kernel a
  // page clearing, and a big library's listing is tens of them.
  const auto key = [&](const ElfSymbol& s) { return s.defined() ? s.address + 1 : uint64_t{0}; };
  const auto by_name = [&](const ListedSymbol& a, const ListedSymbol& b) {
    return symbols[a.index].name < symbols[b.index].name;
  };
  std::vector<std::pair<uint64_t, uint32_t>, HugePageAllocator<std::pair<uint64_t, uint32_t>>> keys;
  keys.reserve(symbols.size() - static_cast<std::size_t>(std::count(keep.begin(), keep.end(), 0)));
  for (std::size_t i = 0; i < symbols.size(); ++i)
    if (keep[i]) keys.emplace_back(key(symbols[i]), static_cast<uint32_t>(i));
  if (!std::is_sorted(keys.begin(), keys.end())) std::sort(keys.begin(), keys.end());  // often in order
  out.symbols.reserve(keys.size());
  for (const auto& [k, i] : keys) out.symbols.push_back({i, keep[i], {}});
  for (std::size_t begin = 0; begin < keys.size();) {
    std::size_t end = begin + 1;
    while (end < keys.size() && keys[end].first == keys[begin].first) ++end;
    if (end - begin > 1) std::sort(out.symbols.begin() + begin, out.symbols.begin() + end, by_name);
    begin = end;
  }

  if (query.lines) {
    out.dwarf = DwarfLines::read(out.elf, query.dwarf);
    if (out.dwarf->status() == DwarfLines::Status::Present) {
      const DwarfLines& lines = *out.dwarf;
      parallel_chunks(out.symbols.size(), 4096, query.threads, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          const ElfSymbol& s = symbols[out.symbols[i].index];
          if (s.defined() && s.section_index < out.elf.sections().size()) {
            const bool function = s.type == SymbolType::Function || s.type == SymbolType::IFunc;
            out.symbols[i].line = lines.lookup_symbol(s.address, s.name, function);
          }
        }
      });
    }
  }
  return out;
}

// Bytes of a symbol that no earlier one (in address order) already counts: aliases such as a
// constructor's C1/C2 names share an address and are counted once.
class AliasFilter {
 public:
  uint64_t bytes(const ElfSymbol& s) {
    if (seen_ && s.address == address_ && s.section_index == section_) return 0;
    seen_ = true, address_ = s.address, section_ = s.section_index;
    return s.size;
  }

 private:
  bool seen_ = false;
  uint64_t address_ = 0;
  uint32_t section_ = 0;
};

std::vector<SizeTotal> sizes_by_source(const SymbolListing& listing) {
  std::unordered_map<std::string_view, SizeTotal> by_file;
  AliasFilter aliases;
  for (const auto& ls : listing.symbols) {
    const ElfSymbol& s = listing.symbol(ls);
    if (!s.defined()) continue;
    const std::string_view file = ls.line.file.empty() ? std::string_view("(no line info)") : ls.line.file;
    SizeTotal& t = by_file[file];
    if (t.name.empty()) t.name = file;
    ++t.symbols;
    t.symbol_bytes += aliases.bytes(s);
  }
  std::vector<SizeTotal> out;
  out.reserve(by_file.size());
  for (auto& [file, total] : by_file) out.push_back(std::move(total));
  std::sort(out.begin(), out.end(), [](const SizeTotal& a, const SizeTotal& b) {
    return a.symbol_bytes != b.symbol_bytes ? a.symbol_bytes > b.symbol_bytes : a.name < b.name;
  });
  return out;
}

std::vector<SizeTotal> sizes_by_section(const SymbolListing& listing) {
  const auto& sections = listing.elf.sections();
  std::vector<SizeTotal> out(sections.size());
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const ElfSection& sec = sections[i];
    out[i].name = i == 0 ? "" : sec.name;
    out[i].vm_size = sec.allocated() ? sec.size : 0;
    out[i].file_size = sec.nobits() ? 0 : sec.size;
  }
  std::map<std::string, SizeTotal> special;  // *ABS*, *COM*
  AliasFilter aliases;
  for (const auto& ls : listing.symbols) {
    const ElfSymbol& s = listing.symbol(ls);
    if (!s.defined()) continue;
    SizeTotal& t = s.section_index < sections.size() ? out[s.section_index] : special[s.section];
    if (t.name.empty()) t.name = s.section;
    ++t.symbols;
    t.symbol_bytes += aliases.bytes(s);
  }
  std::erase_if(out, [](const SizeTotal& t) { return t.name.empty(); });
  for (auto& [name, t] : special) out.push_back(std::move(t));
  std::stable_sort(out.begin(), out.end(), [](const SizeTotal& a, const SizeTotal& b) {
    if (a.vm_size != b.vm_size) return a.vm_size > b.vm_size;
    return a.file_size > b.file_size;
  });
  return out;
}

}  // namespace glassbox::introspect
