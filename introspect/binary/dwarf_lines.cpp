// The parts of DwarfLines that need no libdw: lookups, unit paths, finding separate debug files.
// dwarf_reader.cpp reads the DWARF (with libdw).
#include "introspect/binary/dwarf_lines.h"

#include <algorithm>
#include <type_traits>

#include "introspect/binary/elf_file.h"

namespace glassbox::introspect {
namespace {

bool regular_file_exists(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

}  // namespace

std::string CompileUnit::source() const {
  if (name.empty() || name.front() == '/' || comp_dir.empty()) return name;
  return (std::filesystem::path(comp_dir) / name).lexically_normal().string();
}

std::string_view to_string(DwarfLines::Status s) {
  switch (s) {
    case DwarfLines::Status::Present: return "present";
    case DwarfLines::Status::Missing: return "missing";
    case DwarfLines::Status::Corrupt: return "corrupt";
  }
  return "missing";
}

std::optional<std::filesystem::path> find_separate_debug_file(const ElfFile& elf,
                                                              const std::vector<std::string>& debug_dirs) {
  const std::string& id = elf.build_id();
  if (id.size() > 2) {
    for (const auto& dir : debug_dirs) {
      const auto candidate = std::filesystem::path(dir) / ".build-id" / id.substr(0, 2) / (id.substr(2) + ".debug");
      if (regular_file_exists(candidate)) return candidate;
    }
  }
  const std::string& link = elf.debuglink();
  if (!link.empty() && link.find('/') == std::string::npos) {
    const auto self = std::filesystem::absolute(elf.path()).lexically_normal();
    const auto here = self.parent_path();
    std::vector<std::filesystem::path> candidates = {here / link, here / ".debug" / link};
    for (const auto& dir : debug_dirs) candidates.push_back(std::filesystem::path(dir) / here.relative_path() / link);
    for (const auto& c : candidates)
      if (c != self && regular_file_exists(c)) return c;
  }
  return std::nullopt;
}

SourceLine DwarfLines::lookup(uint64_t address) const {
  auto it =
      std::upper_bound(rows_.begin(), rows_.end(), address, [](uint64_t a, const Row& r) { return a < r.address; });
  if (it == rows_.begin()) return {};
  --it;
  if (it->file == kEndOfSequence) return {};  // between sequences
  auto first = it;
  while (first != rows_.begin() && std::prev(first)->address == it->address && std::prev(first)->file != kEndOfSequence)
    --first;
  auto chosen = first;
  for (auto r = first; r != std::next(it); ++r) {
    if (r->is_stmt) {
      chosen = r;
      break;
    }
  }
  return {files_[chosen->file], chosen->line};
}

const DwarfLines::Declaration* DwarfLines::find_function(uint64_t address, std::string_view name) const {
  // The ranges that start at or before `address`, walked back while one of them may still reach it.
  auto it = std::upper_bound(functions_.begin(), functions_.end(), address,
                             [](uint64_t a, const Declaration& d) { return a < d.low; });
  const Declaration* best = nullptr;
  for (std::size_t i = static_cast<std::size_t>(it - functions_.begin());
       i-- > 0 && functions_max_high_[i] > address;) {
    const Declaration& d = functions_[i];
    if (d.inlined || d.high <= address || (best && d.high - d.low >= best->high - best->low)) continue;
    if (name.find(names_[d.name]) != std::string_view::npos) best = &d;
  }
  return best;
}

bool DwarfLines::within_function(uint64_t address) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), address,
                             [](uint64_t a, const Declaration& d) { return a < d.low; });
  for (std::size_t i = static_cast<std::size_t>(it - functions_.begin()); i-- > 0 && functions_max_high_[i] > address;)
    if (functions_[i].high > address) return true;
  return false;
}

const DwarfLines::Declaration* DwarfLines::find_variable(uint64_t address, std::string_view name) const {
  auto [begin, end] = std::equal_range(variables_.begin(), variables_.end(), address, [](const auto& a, const auto& b) {
    if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Declaration>) return a.low < b;
    else return a < b.low;
  });
  for (auto it = begin; it != end; ++it)
    if (name.find(names_[it->name]) != std::string_view::npos) return &*it;
  return nullptr;
}

SourceLine DwarfLines::last_row_at(uint64_t address) const {
  auto it =
      std::upper_bound(rows_.begin(), rows_.end(), address, [](uint64_t a, const Row& r) { return a < r.address; });
  if (it == rows_.begin()) return {};
  --it;
  if (it->file == kEndOfSequence) return {};  // between sequences
  return {files_[it->file], it->line};
}

SourceLine DwarfLines::lookup_symbol(uint64_t address, std::string_view name, bool function) const {
  const Declaration* d = function ? find_function(address, name) : find_variable(address, name);
  if (d) return {files_[d->file], d->line};
  // nm places a function only within a DWARF function: code from assembler sources has line rows
  // but no subprograms, and gets no line.
  if (function && !within_function(address)) return {};
  return last_row_at(address);
}

std::vector<uint32_t> DwarfLines::lines_in(uint64_t begin, uint64_t end, std::string_view file) const {
  std::vector<uint32_t> out;
  auto it = std::lower_bound(rows_.begin(), rows_.end(), begin, [](const Row& r, uint64_t a) { return r.address < a; });
  for (; it != rows_.end() && it->address < end; ++it)
    if (it->file != kEndOfSequence && it->line != 0 && files_[it->file] == file) out.push_back(it->line);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace glassbox::introspect
