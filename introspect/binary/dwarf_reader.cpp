// DwarfLines::read with elfutils' libdw: compile units (dwarf_get_units, DWARF 2-5) and their line
// programs, merged into one address-sorted table.
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "introspect/binary/dwarf_lines.h"
#include "introspect/binary/elf_file.h"

namespace glassbox::introspect {
namespace {

std::string attribute_string(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attr;
  if (!dwarf_attr(die, name, &attr)) return {};
  const char* s = dwarf_formstring(&attr);
  return s ? s : "";
}

std::string dwarf_error() {
  const char* m = dwarf_errmsg(-1);
  return m ? m : "unknown libdw error";
}

std::vector<std::string> debug_dirs_of(const DwarfOptions& options) {
  if (!options.debug_dirs.empty()) return options.debug_dirs;
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("GLASSBOX_DEBUG_DIRS"); env && *env) {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      if (colon != 0) dirs.emplace_back(rest.substr(0, colon));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  if (dirs.empty()) dirs.push_back("/usr/lib/debug");
  return dirs;
}

}  // namespace

class DwarfReader {
 public:
  DwarfReader(const ElfFile& elf, const DwarfOptions& options) : elf_(elf), options_(options) {}

  DwarfLines read() {
    std::string file = elf_.path();
    if (!elf_.has_debug_info()) {
      std::optional<std::filesystem::path> separate;
      const auto dirs = debug_dirs_of(options_);
      if (options_.separate_debug_files) separate = find_separate_debug_file(elf_, dirs);
      if (!separate) {
        out_.status_ = DwarfLines::Status::Missing;
        out_.message_ = "no DWARF line information (the file is stripped or was built without -g)";
        if (!elf_.build_id().empty() && options_.separate_debug_files) {
          out_.message_ += "; no separate debug file for build id " + elf_.build_id();
        }
        return std::move(out_);
      }
      file = separate->string();
      out_.separate_ = true;
    }
    out_.debug_file_ = file;
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      out_.status_ = DwarfLines::Status::Missing;
      out_.message_ = file + ": cannot open: " + std::strerror(errno);
      return std::move(out_);
    }
    Dwarf* dwarf = dwarf_begin(fd, DWARF_C_READ);
    if (!dwarf) {
      out_.status_ = DwarfLines::Status::Corrupt;
      out_.message_ = file + ": cannot read DWARF: " + dwarf_error();
      ::close(fd);
      return std::move(out_);
    }
    out_.status_ = DwarfLines::Status::Present;
    read_units(dwarf, file);
    dwarf_end(dwarf);
    ::close(fd);
    finish();
    return std::move(out_);
  }

 private:
  void read_units(Dwarf* dwarf, const std::string& file) {
    Dwarf_CU* cu = nullptr;
    Dwarf_CU* next = nullptr;
    Dwarf_Half version = 0;
    uint8_t unit_type = 0;
    Dwarf_Die cudie, subdie;
    int rc;
    while ((rc = dwarf_get_units(dwarf, cu, &next, &version, &unit_type, &cudie, &subdie)) == 0) {
      cu = next;
      if (unit_type == DW_UT_type || unit_type == DW_UT_split_type) continue;  // type units have no code
      CompileUnit unit;
      unit.version = version;
      if (const char* n = dwarf_diename(&cudie)) unit.name = n;
      unit.comp_dir = attribute_string(&cudie, DW_AT_comp_dir);
      unit.producer = attribute_string(&cudie, DW_AT_producer);
      if (dwarf_hasattr(&cudie, DW_AT_stmt_list)) read_lines(&cudie, unit);
      read_declarations(&cudie, unit.comp_dir);
      if (!unit.error.empty()) {
        out_.errors_.push_back(file + ": compile unit " + (unit.name.empty() ? "?" : unit.name) + ": " + unit.error);
      }
      out_.units_.push_back(std::move(unit));
    }
    if (rc < 0) {
      out_.errors_.push_back(file + ": corrupt .debug_info after " + std::to_string(out_.units_.size()) +
                             " compile units: " + dwarf_error());
      if (out_.units_.empty()) {
        out_.status_ = DwarfLines::Status::Corrupt;
        out_.message_ = out_.errors_.back();
      }
    }
  }

  void read_lines(Dwarf_Die* cudie, CompileUnit& unit) {
    Dwarf_Lines* lines = nullptr;
    std::size_t count = 0;
    if (dwarf_getsrclines(cudie, &lines, &count) != 0) {
      unit.error = "unreadable line table: " + dwarf_error();
      return;
    }
    // Rows of a sequence are kept only if the sequence is not a discarded one (GNU ld moves the
    // line programs of discarded sections to address 0, or to -1/-2 as tombstones).
    const bool relocatable = elf_.type() == ET_REL;
    std::vector<DwarfLines::Row> sequence;
    for (std::size_t i = 0; i < count; ++i) {
      Dwarf_Line* line = dwarf_onesrcline(lines, i);
      Dwarf_Addr address = 0;
      bool end = false;
      int lineno = 0;
      if (!line || dwarf_lineaddr(line, &address) != 0 || dwarf_lineendsequence(line, &end) != 0) {
        unit.error = "unreadable line table row " + std::to_string(i) + ": " + dwarf_error();
        return;
      }
      if (end) {
        if (!sequence.empty()) {
          const uint64_t start = sequence.front().address;
          const bool discarded = (start == 0 && !relocatable) || start >= 0xfffffffffffffffeull;
          if (!discarded) {
            out_.rows_.insert(out_.rows_.end(), sequence.begin(), sequence.end());
            out_.rows_.push_back({address, DwarfLines::kEndOfSequence, 0, 0});
            unit.line_rows += sequence.size();
          }
        }
        sequence.clear();
        continue;
      }
      bool is_stmt = false;
      dwarf_lineno(line, &lineno);
      dwarf_linebeginstatement(line, &is_stmt);
      DwarfLines::Row row{address, intern(dwarf_linesrc(line, nullptr, nullptr), unit.comp_dir), 0, is_stmt};
      row.line = static_cast<uint32_t>(std::clamp(lineno, 0, 0x7fffffff));
      sequence.push_back(row);
    }
  }

  // The functions (with their address ranges) and the variables at fixed addresses of one unit,
  // each with its declaration's file and line: what nm -l places symbols with.
  void read_declarations(Dwarf_Die* cudie, const std::string& comp_dir) {
    Dwarf_Die child;
    if (dwarf_child(cudie, &child) != 0) return;
    std::vector<Dwarf_Die> stack{child};
    // A DIE's children follow it and come before its sibling, so this walk meets the DIEs in the
    // order of their offsets. In a corrupt unit a DIE can be reached twice (a DW_AT_sibling that
    // points back, an abbreviation that claims children it lacks, making the next DIE both child
    // and sibling): such a walk doubles at every level. Each DIE is taken once, going forward.
    Dwarf_Off last = dwarf_dieoffset(cudie);
    while (!stack.empty()) {
      Dwarf_Die die = stack.back();
      stack.pop_back();
      const Dwarf_Off offset = dwarf_dieoffset(&die);
      if (offset <= last) continue;
      last = offset;
      Dwarf_Die next;
      if (dwarf_siblingof(&die, &next) == 0 && dwarf_dieoffset(&next) > offset) stack.push_back(next);
      const int tag = dwarf_tag(&die);
      if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point || tag == DW_TAG_inlined_subroutine)
        add_function(&die, comp_dir, tag == DW_TAG_inlined_subroutine);
      else if (tag == DW_TAG_variable) add_variable(&die, comp_dir);
      if (dwarf_haschildren(&die) && dwarf_child(&die, &child) == 0) stack.push_back(child);
    }
  }

  // The linkage name of a declaration, else its name (through DW_AT_abstract_origin and
  // DW_AT_specification), with its declaration file and line; false when one is missing.
  bool declaration_of(Dwarf_Die* die, const std::string& comp_dir, DwarfLines::Declaration& d) {
    Dwarf_Attribute attr;
    const char* name = nullptr;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr) || dwarf_attr_integrate(die, DW_AT_name, &attr))
      name = dwarf_formstring(&attr);
    const char* file = dwarf_decl_file(die);
    int line = 0;
    if (!name || !*name || !file || dwarf_decl_line(die, &line) != 0) return false;
    d.name = intern_name(name);
    d.file = intern(file, comp_dir);
    d.line = static_cast<uint32_t>(std::clamp(line, 0, 0x7fffffff));
    return true;
  }

  void add_function(Dwarf_Die* die, const std::string& comp_dir, bool inlined) {
    Dwarf_Addr base = 0, start = 0, end = 0;
    ptrdiff_t offset = 0;
    DwarfLines::Declaration d{};
    bool named = false;
    while ((offset = dwarf_ranges(die, offset, &base, &start, &end)) > 0) {
      if (end <= start || (start == 0 && elf_.type() != ET_REL)) continue;  // empty, or a discarded copy
      if (!named && !(named = declaration_of(die, comp_dir, d))) return;
      d.low = start, d.high = end;
      d.inlined = inlined;
      out_.functions_.push_back(d);
    }
  }

  void add_variable(Dwarf_Die* die, const std::string& comp_dir) {
    Dwarf_Attribute attr;
    Dwarf_Op* ops = nullptr;
    std::size_t count = 0;
    // Only a variable whose location starts with DW_OP_addr has a fixed address (not on the stack,
    // in a register or thread-local storage).
    if (!dwarf_attr(die, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &count) != 0 || count == 0 ||
        ops[0].atom != DW_OP_addr)
      return;
    DwarfLines::Declaration d{};
    if (!declaration_of(die, comp_dir, d)) return;
    d.low = d.high = ops[0].number;
    out_.variables_.push_back(d);
  }

  uint32_t intern_name(const char* name) {
    if (auto it = name_by_pointer_.find(name); it != name_by_pointer_.end()) return it->second;
    auto [it, inserted] = name_by_text_.try_emplace(name, static_cast<uint32_t>(out_.names_.size()));
    if (inserted) out_.names_.push_back(name);
    name_by_pointer_.emplace(name, it->second);
    return it->second;
  }

  uint32_t intern(const char* name, const std::string& comp_dir) {
    if (!name) name = "";
    // libdw hands out one pointer per file-table entry: most lookups hit the pointer cache.
    if (auto it = by_pointer_.find(name); it != by_pointer_.end()) return it->second;
    std::string path = name;
    if (!path.empty() && path.front() != '/' && !comp_dir.empty()) {
      path = (std::filesystem::path(comp_dir) / path).lexically_normal().string();
    }
    auto [it, inserted] = by_name_.try_emplace(path, static_cast<uint32_t>(out_.files_.size()));
    if (inserted) out_.files_.push_back(path);
    by_pointer_.emplace(name, it->second);
    return it->second;
  }

  void finish() {
    const auto by_low = [](const DwarfLines::Declaration& a, const DwarfLines::Declaration& b) {
      return a.low < b.low;
    };
    std::stable_sort(out_.functions_.begin(), out_.functions_.end(), by_low);
    std::stable_sort(out_.variables_.begin(), out_.variables_.end(), by_low);
    out_.functions_max_high_.resize(out_.functions_.size());
    uint64_t high = 0;
    for (std::size_t i = 0; i < out_.functions_.size(); ++i)
      out_.functions_max_high_[i] = high = std::max(high, out_.functions_[i].high);
    std::stable_sort(out_.rows_.begin(), out_.rows_.end(), [](const DwarfLines::Row& a, const DwarfLines::Row& b) {
      if (a.address != b.address) return a.address < b.address;
      return (a.file == DwarfLines::kEndOfSequence) > (b.file == DwarfLines::kEndOfSequence);
    });
  }

  const ElfFile& elf_;
  DwarfOptions options_;
  DwarfLines out_;
  std::unordered_map<const char*, uint32_t> by_pointer_;
  std::unordered_map<std::string, uint32_t> by_name_;
  std::unordered_map<const char*, uint32_t> name_by_pointer_;
  std::unordered_map<std::string, uint32_t> name_by_text_;
};

DwarfLines DwarfLines::read(const ElfFile& elf, const DwarfOptions& options) {
  return DwarfReader(elf, options).read();
}

}  // namespace glassbox::introspect
