#pragma once
// What `glassbox symbols` and gb.introspect.symbols() show: a binary's symbols as nm lists them
// (section and file symbols left out), sorted by address, optionally filtered by a regular
// expression and placed at file:line; and size totals per source file or per section.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "introspect/binary/dwarf_lines.h"
#include "introspect/binary/elf_file.h"

namespace glassbox::introspect {

struct SymbolQuery {
  SymbolTables tables = SymbolTables::Preferred;
  bool demangle = true;
  // false (with demangle false): ElfSymbol::demangled is left empty, for a caller that demangles
  // while printing; the names must then not be searched (grep empty).
  bool copy_undemangled_names = true;
  bool lines = false;  // read DWARF and place every symbol
  std::string grep;    // ECMAScript regex searched in the demangled and the mangled name
  unsigned threads = 0;
  DwarfOptions dwarf;
};

struct ListedSymbol {
  std::size_t index;  // into SymbolListing::elf.symbols()
  char nm;            // nm's letter (nm_letter)
  SourceLine line;    // when SymbolQuery::lines
};

struct SymbolListing {
  ElfFile elf;
  std::optional<DwarfLines> dwarf;  // when lines were asked for
  std::vector<ListedSymbol, HugePageAllocator<ListedSymbol>> symbols;

  const ElfSymbol& symbol(const ListedSymbol& s) const { return elf.symbols()[s.index]; }
};

// Throws glassbox::Error for a file that is not a readable ELF64 little-endian file, or a bad regex.
SymbolListing list_symbols(const std::filesystem::path& binary, const SymbolQuery& query = {});

struct SizeTotal {
  std::string name;           // the source file or section
  std::size_t symbols = 0;    // defined symbols in it
  uint64_t symbol_bytes = 0;  // their sizes summed, aliases (symbols at one address) once
  uint64_t vm_size = 0;       // sections: bytes in memory (allocated sections)
  uint64_t file_size = 0;     // sections: bytes in the file (not .bss)
};

// Defined symbols' sizes per source file (from their first instruction's line; "(no line info)"
// for the rest), largest first. Needs a listing made with lines.
std::vector<SizeTotal> sizes_by_source(const SymbolListing& listing);
// Per section: every section with its sizes and the symbols in it, largest in memory first.
std::vector<SizeTotal> sizes_by_section(const SymbolListing& listing);

}  // namespace glassbox::introspect
