// The parts of ElfFile that need no libelf: names of enums, the identification check, nm's
// letters. elf_reader.cpp reads files (with libelf).
#include "introspect/binary/elf_file.h"

#include <elf.h>

#include <cstdio>

#include "engine/core/error.h"

namespace glassbox::introspect {

std::string_view to_string(SymbolType t) {
  switch (t) {
    case SymbolType::NoType: return "notype";
    case SymbolType::Object: return "object";
    case SymbolType::Function: return "func";
    case SymbolType::Section: return "section";
    case SymbolType::File: return "file";
    case SymbolType::Common: return "common";
    case SymbolType::Tls: return "tls";
    case SymbolType::IFunc: return "ifunc";
    case SymbolType::Other: break;
  }
  return "other";
}

std::string_view to_string(SymbolBinding b) {
  switch (b) {
    case SymbolBinding::Local: return "local";
    case SymbolBinding::Global: return "global";
    case SymbolBinding::Weak: return "weak";
    case SymbolBinding::Unique: return "unique";
    case SymbolBinding::Other: break;
  }
  return "other";
}

std::string_view to_string(SymbolVisibility v) {
  switch (v) {
    case SymbolVisibility::Default: return "default";
    case SymbolVisibility::Internal: return "internal";
    case SymbolVisibility::Hidden: return "hidden";
    case SymbolVisibility::Protected: return "protected";
  }
  return "default";
}

std::string_view to_string(SymbolTable t) { return t == SymbolTable::Symtab ? ".symtab" : ".dynsym"; }

bool ElfSection::allocated() const { return flags & SHF_ALLOC; }
bool ElfSection::executable() const { return flags & SHF_EXECINSTR; }
bool ElfSection::writable() const { return flags & SHF_WRITE; }
bool ElfSection::nobits() const { return type == SHT_NOBITS; }

std::string_view ElfFile::type_name() const {
  switch (type_) {
    case ET_REL: return "relocatable object";
    case ET_EXEC: return "executable";
    case ET_DYN: return "shared library";
    case ET_CORE: return "core file";
    default: return "unknown type";
  }
}

const ElfSection* ElfFile::section(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

bool ElfFile::has_debug_info() const {
  for (const auto& s : sections_) {
    if ((s.name == ".debug_info" || s.name == ".debug_line") && s.type != SHT_NOBITS && s.size > 0) return true;
  }
  return false;
}

namespace {
std::string hex_bytes(std::string_view data, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n && i < data.size(); ++i) {
    char b[4];
    std::snprintf(b, sizeof b, "%s%02x", i ? " " : "", static_cast<unsigned char>(data[i]));
    out += b;
  }
  return out;
}
}  // namespace

void check_elf_identification(std::string_view data, uint64_t file_size, const std::string& file) {
  if (file_size == 0) throw Error(file + ": not an ELF file (the file is empty)");
  if (data.size() < SELFMAG || data.compare(0, SELFMAG, ELFMAG, SELFMAG) != 0) {
    if (std::string_view(ELFMAG, SELFMAG).substr(0, data.size()) == data.substr(0, SELFMAG)) {
      throw Error(file + ": truncated ELF file (" + std::to_string(file_size) +
                  " bytes; the ELF identification needs " + std::to_string(EI_NIDENT) + ")");
    }
    throw Error(file + ": not an ELF file (it starts with bytes " + hex_bytes(data, 4) + ", not 7f 45 4c 46)");
  }
  if (data.size() < EI_NIDENT) {
    throw Error(file + ": truncated ELF file (" + std::to_string(file_size) + " bytes; the ELF identification needs " +
                std::to_string(EI_NIDENT) + ")");
  }
  const unsigned char cls = data[EI_CLASS], encoding = data[EI_DATA];
  if (cls == ELFCLASS32) {
    throw Error(file + ": 32-bit ELF (ELFCLASS32) is not supported; glassbox reads 64-bit little-endian ELF files");
  }
  if (cls != ELFCLASS64) throw Error(file + ": corrupt ELF header: invalid ELF class " + std::to_string(cls));
  if (encoding == ELFDATA2MSB) {
    throw Error(file +
                ": big-endian ELF (ELFDATA2MSB) is not supported; glassbox reads 64-bit little-endian ELF files");
  }
  if (encoding != ELFDATA2LSB)
    throw Error(file + ": corrupt ELF header: invalid data encoding " + std::to_string(encoding));
  if (file_size < sizeof(Elf64_Ehdr)) {
    throw Error(file + ": truncated ELF file (" + std::to_string(file_size) + " bytes; the ELF64 header needs " +
                std::to_string(sizeof(Elf64_Ehdr)) + ")");
  }
}

char nm_letter(const ElfSymbol& s, const std::vector<ElfSection>& sections) {
  const bool local = s.binding == SymbolBinding::Local;
  auto cased = [&](char upper) { return local ? static_cast<char>(upper - 'A' + 'a') : upper; };
  if (s.type == SymbolType::IFunc) return 'i';
  if (s.binding == SymbolBinding::Unique) return 'u';
  if (s.section_index == SHN_UNDEF) {
    if (s.binding == SymbolBinding::Weak) return s.type == SymbolType::Object ? 'v' : 'w';
    return 'U';
  }
  if (s.binding == SymbolBinding::Weak) return s.type == SymbolType::Object ? 'V' : 'W';
  if (s.section_index == SHN_ABS) return cased('A');
  if (s.section_index == SHN_COMMON || s.type == SymbolType::Common) return 'C';
  if (s.section_index >= sections.size()) return '?';
  const ElfSection& sec = sections[s.section_index];
  if (sec.name.rfind(".debug", 0) == 0) return 'N';
  if (sec.executable()) return cased('T');
  if (sec.nobits() && sec.allocated()) return cased('B');
  if (sec.allocated() && sec.writable()) return cased('D');
  if (sec.allocated()) return cased('R');
  return cased('N');
}

}  // namespace glassbox::introspect
