// Built instead of elf_reader.cpp and dwarf_reader.cpp when elfutils (libelf, libdw) was not found:
// reading a binary says so.
#include "engine/core/error.h"
#include "introspect/binary/dwarf_lines.h"
#include "introspect/binary/elf_file.h"

namespace glassbox::introspect {

ElfFile ElfFile::read(const std::filesystem::path& file, const ElfReadOptions&) {
  throw Error(file.string() +
              ": cannot read ELF files: glassbox was built without elfutils (Debian: libdw-dev libelf-dev)");
}

DwarfLines DwarfLines::read(const ElfFile& elf, const DwarfOptions&) {
  DwarfLines out;
  out.status_ = Status::Missing;
  out.message_ = "glassbox was built without elfutils (libdw)";
  return out;
}

}  // namespace glassbox::introspect
