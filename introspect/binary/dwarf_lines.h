#pragma once
// DwarfLines: the compile units and line tables of a binary's DWARF (versions 2 to 5, read with
// elfutils' libdw), and address -> file:line lookups over them. The DWARF comes from the binary
// itself or, when it has none, from a separate debug file found by build id
// (<debug dir>/.build-id/xx/yyyy.debug) or by .gnu_debuglink. A binary without any says so
// (status Missing); unreadable DWARF is reported (status Corrupt, or per-unit errors) and never
// thrown, so that a caller can still list the binary's symbols.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace glassbox::introspect {

class ElfFile;

struct CompileUnit {
  std::string name;      // DW_AT_name: the primary source file
  std::string comp_dir;  // DW_AT_comp_dir
  std::string producer;  // DW_AT_producer: compiler and flags
  int version = 0;       // DWARF version of the unit
  std::size_t line_rows = 0;
  std::string error;  // why this unit's line table could not be read, or ""

  // name joined to comp_dir when it is relative.
  std::string source() const;
};

struct SourceLine {
  std::string_view file;  // absolute when the line table or its unit's comp_dir makes it so
  uint32_t line = 0;
  bool valid() const { return line != 0 || !file.empty(); }
};

struct DwarfOptions {
  // Where separate debug files are looked for (each as <dir>/.build-id/xx/yyyy.debug, and for
  // .gnu_debuglink as <dir>/<binary's directory>/<name>). Empty: GLASSBOX_DEBUG_DIRS
  // (colon-separated), else /usr/lib/debug.
  std::vector<std::string> debug_dirs;
  bool separate_debug_files = true;
};

class DwarfLines {
 public:
  enum class Status { Present, Missing, Corrupt };

  // Reads the DWARF of `elf` (already read: its sections say whether it has DWARF, its build id
  // finds a separate debug file). Never throws for missing or bad DWARF: see status().
  static DwarfLines read(const ElfFile& elf, const DwarfOptions& options = {});

  Status status() const { return status_; }
  // Why there are no lines ("no DWARF debug information (the file is stripped)", libdw's error)
  // or "" when status() is Present.
  const std::string& message() const { return message_; }
  // The file the DWARF was read from: the binary, or its separate debug file.
  const std::string& debug_file() const { return debug_file_; }
  bool from_separate_file() const { return separate_; }

  const std::vector<CompileUnit>& units() const { return units_; }
  // Problems that lost part of the information (units whose line table could not be read...).
  const std::vector<std::string>& errors() const { return errors_; }
  std::size_t row_count() const { return rows_.size(); }

  // The source line of the instruction at `address`, from the rows at the greatest address
  // <= `address` (within a sequence): the first of them that starts a statement, else the first.
  // For a function symbol's address this is the line of its first instruction, which GCC and
  // Clang attribute to the function's opening line (a zero-length row that ends the previous
  // function at the same address does not start a statement, and is passed over).
  SourceLine lookup(uint64_t address) const;

  // The source line of a symbol as `nm -l` (binutils 2.40) gives it. A function symbol takes the
  // declaration line (DW_AT_decl_file/line) of the smallest DWARF subprogram whose ranges hold
  // `address` and whose linkage name (else name) is part of the symbol's name: so GCC's clones
  // "f.cold", "f.isra.0", "f.constprop.0", "f.part.0" get f's line. Another symbol takes the
  // declaration line of a variable at `address` whose name is part of the symbol's name (data
  // objects have no line rows). Else the line row at `address` as binutils picks it: of the rows
  // at the greatest address <= `address`, the last (for a function symbol, only within a DWARF
  // subprogram: assembler code gets no line).
  SourceLine lookup_symbol(uint64_t address, std::string_view name, bool function) const;

  // The lines of `file` that have code in [begin, end), ascending and each once: for a function,
  // the lines its instructions come from (inlined code from other files is left out).
  std::vector<uint32_t> lines_in(uint64_t begin, uint64_t end, std::string_view file) const;

  // The source file names, interned (SourceLine::file views into these); relative names are
  // joined to their unit's DW_AT_comp_dir.
  const std::vector<std::string>& files() const { return files_; }

 private:
  friend class DwarfReader;
  struct Row {
    uint64_t address;
    uint32_t file;  // index into files_, or kEndOfSequence
    uint32_t line : 31;
    uint32_t is_stmt : 1;  // a recommended breakpoint location (the start of a statement)
  };
  static constexpr uint32_t kEndOfSequence = 0xffffffffu;
  // A function's address range, or a variable's address (high == low), with its declaration.
  struct Declaration {
    uint64_t low, high;
    uint32_t name;  // index into names_
    uint32_t file;  // index into files_
    uint32_t line : 31;
    uint32_t inlined : 1;  // an inlined copy: code of a function, but not one a symbol is named after
  };
  const Declaration* find_function(uint64_t address, std::string_view name) const;
  SourceLine last_row_at(uint64_t address) const;
  bool within_function(uint64_t address) const;
  const Declaration* find_variable(uint64_t address, std::string_view name) const;

  Status status_ = Status::Missing;
  std::string message_, debug_file_;
  bool separate_ = false;
  std::vector<CompileUnit> units_;
  std::vector<std::string> errors_;
  std::vector<Row> rows_;  // sorted by address; at one address, ends of sequences first
  std::vector<std::string> files_;
  std::vector<Declaration> functions_;        // sorted by low
  std::vector<uint64_t> functions_max_high_;  // max of high over functions_[0..i]
  std::vector<Declaration> variables_;        // sorted by low
  std::vector<std::string> names_;            // linkage names (else names) of the declarations
};

// The separate debug file of `elf` in `debug_dirs` (by build id, then .gnu_debuglink), or nullopt.
std::optional<std::filesystem::path> find_separate_debug_file(const ElfFile& elf,
                                                              const std::vector<std::string>& debug_dirs);

std::string_view to_string(DwarfLines::Status s);  // "present", "missing", "corrupt"

}  // namespace glassbox::introspect
