#pragma once
// ElfFile: what a 64-bit little-endian ELF file (shared library, executable, object) says about
// itself: sections, the symbols of .symtab and .dynsym (demangled in parallel), the libraries it
// needs, its soname and GNU build id. Read with elfutils' libelf; anything else (not ELF,
// truncated, 32-bit, big-endian) raises glassbox::Error naming the file and the problem.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "introspect/support/huge_page_allocator.h"

namespace glassbox::introspect {

enum class SymbolType : uint8_t { NoType, Object, Function, Section, File, Common, Tls, IFunc, Other };
enum class SymbolBinding : uint8_t { Local, Global, Weak, Unique, Other };
enum class SymbolVisibility : uint8_t { Default, Internal, Hidden, Protected };
enum class SymbolTable : uint8_t { Symtab, Dynsym };

std::string_view to_string(SymbolType t);        // "func", "object", ...
std::string_view to_string(SymbolBinding b);     // "local", "global", "weak", "unique"
std::string_view to_string(SymbolVisibility v);  // "default", "hidden", ...
std::string_view to_string(SymbolTable t);       // ".symtab", ".dynsym"

struct ElfSection {
  std::string name;
  uint32_t type = 0;  // SHT_*
  uint64_t flags = 0, address = 0, offset = 0, size = 0;
  bool allocated() const;   // SHF_ALLOC: part of the loaded image
  bool executable() const;  // SHF_EXECINSTR
  bool writable() const;    // SHF_WRITE
  bool nobits() const;      // SHT_NOBITS (.bss): no bytes in the file
};

struct ElfSymbol {
  // As stored (mangled); in .dynsym followed by its version ("@@VERS", "@VERS"). It points into the
  // file's string table, which the ElfFile it came from (and every copy of that) keeps mapped.
  std::string_view name;
  std::string demangled;  // the demangled name; equal to `name` when it is not a mangled C++ name
  uint64_t address = 0, size = 0;
  SymbolType type = SymbolType::NoType;
  SymbolBinding binding = SymbolBinding::Local;
  SymbolVisibility visibility = SymbolVisibility::Default;
  SymbolTable table = SymbolTable::Symtab;
  uint32_t section_index = 0;  // SHN_UNDEF (0), SHN_ABS, SHN_COMMON or an index into sections()
  std::string section;         // the section's name; "" when undefined, "*ABS*", "*COM*"

  bool defined() const { return section_index != 0; }
};
// A whole symbol table (half a million entries in a big library).
using ElfSymbols = std::vector<ElfSymbol, HugePageAllocator<ElfSymbol>>;

// Which symbol tables to read: both, one, or .symtab when there is one and .dynsym otherwise
// (as nm does with and without -D).
enum class SymbolTables : uint8_t { Both, Symtab, Dynsym, Preferred };

struct ElfReadOptions {
  SymbolTables tables = SymbolTables::Both;
  bool demangle = true;
  // Without demangling: ElfSymbol::demangled is a copy of the name, or (false) left empty for a
  // caller that demangles names itself later (half a million copies saved on a big library).
  bool copy_undemangled_names = true;
  unsigned threads = 0;  // for demangling; 0: one per hardware thread
};

class ElfFile {
 public:
  // Throws glassbox::Error: "<file>: not an ELF file", "<file>: truncated ELF file ...",
  // "<file>: 32-bit ELF is not supported ...", "<file>: big-endian ELF is not supported ...".
  static ElfFile read(const std::filesystem::path& file, const ElfReadOptions& options = {});

  const std::string& path() const { return path_; }
  uint16_t type() const { return type_; }  // ET_DYN, ET_EXEC, ET_REL, ...
  std::string_view type_name() const;      // "shared library", "executable", ...
  uint16_t machine() const { return machine_; }
  uint64_t file_size() const { return file_size_; }

  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* section(std::string_view name) const;
  // .symtab's symbols followed by .dynsym's, as chosen by ElfReadOptions::tables (each table in
  // file order, the null symbol left out).
  const ElfSymbols& symbols() const { return symbols_; }
  bool has_symtab() const { return has_symtab_; }  // whether the file has the table (read or not)
  bool has_dynsym() const { return has_dynsym_; }

  const std::vector<std::string>& needed() const { return needed_; }  // DT_NEEDED, in order
  const std::string& soname() const { return soname_; }               // DT_SONAME, or ""
  const std::string& build_id() const { return build_id_; }           // lowercase hex, or ""
  const std::string& debuglink() const { return debuglink_; }         // .gnu_debuglink's file name, or ""
  // .debug_info / .debug_line in this file (not in a separate debug file).
  bool has_debug_info() const;

  // Non-fatal problems (an unreadable .dynamic, a symbol name outside its string table...).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  friend class ElfReader;  // elf_reader.cpp: fills an ElfFile with libelf
  std::string path_;
  uint16_t type_ = 0, machine_ = 0;
  uint64_t file_size_ = 0;
  std::vector<ElfSection> sections_;
  ElfSymbols symbols_;
  bool has_symtab_ = false, has_dynsym_ = false;
  std::vector<std::string> needed_;
  std::string soname_, build_id_, debuglink_;
  std::vector<std::string> warnings_;
  // What symbols' names point into: the mapped file and the versioned names made while reading.
  std::shared_ptr<const void> name_storage_;
};

// Checks the ELF identification bytes of `data` (the start of `file`, or all of it) and throws
// glassbox::Error when they do not describe a 64-bit little-endian ELF file.
void check_elf_identification(std::string_view data, uint64_t file_size, const std::string& file);

// The letter `nm` prints for a symbol: T/t text, D/d data, B/b bss, R/r read-only, U undefined,
// W/w weak, V/v weak object, u unique, i indirect function, A absolute, C common, N debug, ? other.
char nm_letter(const ElfSymbol& symbol, const std::vector<ElfSection>& sections);

}  // namespace glassbox::introspect
