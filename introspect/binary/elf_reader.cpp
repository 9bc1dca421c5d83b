// ElfFile::read with elfutils' libelf. The ELF header is checked by hand first (identification,
// header and section-table bounds) so that bad files get a message saying what is wrong with them.
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>

#include "engine/core/error.h"
#include "introspect/binary/demangle.h"
#include "introspect/binary/elf_file.h"
#include "introspect/support/parallel_chunks.h"

namespace glassbox::introspect {
namespace {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

struct ElfDeleter {
  void operator()(Elf* e) const { elf_end(e); }
};

// What an ElfFile's symbol names point into: libelf's view of the file (its string tables, mapped
// or read) and the names with a version suffix, made while reading.
struct NameStorage {
  std::unique_ptr<FileDescriptor> fd;
  std::unique_ptr<Elf, ElfDeleter> elf;  // after fd: ended before the file is closed
  std::deque<std::string> versioned;     // a deque: adding does not move the names already there
  std::mutex mutex;
};

std::string range(uint64_t begin, uint64_t end) { return std::to_string(begin) + "-" + std::to_string(end); }

SymbolType symbol_type(unsigned char info) {
  switch (GELF_ST_TYPE(info)) {
    case STT_NOTYPE: return SymbolType::NoType;
    case STT_OBJECT: return SymbolType::Object;
    case STT_FUNC: return SymbolType::Function;
    case STT_SECTION: return SymbolType::Section;
    case STT_FILE: return SymbolType::File;
    case STT_COMMON: return SymbolType::Common;
    case STT_TLS: return SymbolType::Tls;
    case STT_GNU_IFUNC: return SymbolType::IFunc;
    default: return SymbolType::Other;
  }
}

SymbolBinding symbol_binding(unsigned char info) {
  switch (GELF_ST_BIND(info)) {
    case STB_LOCAL: return SymbolBinding::Local;
    case STB_GLOBAL: return SymbolBinding::Global;
    case STB_WEAK: return SymbolBinding::Weak;
    case STB_GNU_UNIQUE: return SymbolBinding::Unique;
    default: return SymbolBinding::Other;
  }
}

// A string of a string table's data, or nullopt when `offset` is outside it.
std::optional<std::string_view> string_at(const Elf_Data* strings, uint64_t offset) {
  if (!strings || !strings->d_buf || offset >= strings->d_size) return std::nullopt;
  const char* begin = static_cast<const char*>(strings->d_buf) + offset;
  return std::string_view(begin, strnlen(begin, strings->d_size - offset));
}

// The versions of .dynsym's symbols as nm prints them after the name: "@@VERS" for a version a
// defined symbol has by default, "@VERS" for a hidden one and for a version needed from another
// library; nothing for the local and global base versions, nor on the symbol that names a
// version definition itself.
struct SymbolVersions {
  struct Version {
    std::string name;
    bool needed = false;  // from .gnu.version_r (another library's version)
    bool base = false;    // the definition flagged VER_FLG_BASE (the file's own name)
  };
  const Elf64_Half* versym = nullptr;  // one entry per .dynsym symbol
  std::vector<Version> names;          // by version index

  bool empty() const { return versym == nullptr; }
  void set(std::size_t index, std::string name, bool needed, bool base) {
    if (names.size() <= index) names.resize(index + 1);
    names[index] = {std::move(name), needed, base};
  }
  // The suffix symbol k's name takes ("" for none).
  std::string suffix(std::string_view symbol, std::size_t k, bool undefined) const {
    const unsigned raw = versym[k], index = raw & 0x7fff;
    bool hidden = (raw & 0x8000) != 0;
    if (index <= 1 || index >= names.size() || names[index].name.empty()) return {};
    const Version& v = names[index];
    if (v.base || (!v.needed && v.name == symbol)) return {};
    hidden = hidden || v.needed;
    return (hidden || undefined ? "@" : "@@") + v.name;
  }
};

std::string hex(const unsigned char* bytes, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  return out;
}

}  // namespace

// Reads one file into an ElfFile; a class so that it may fill ElfFile's private members.
class ElfReader {
 public:
  ElfReader(const std::filesystem::path& file, const ElfReadOptions& options) : options_(options) {
    out_.path_ = file.string();
  }

  ElfFile read() {
    open_and_check_header();
    read_sections();
    read_symbols();
    read_dynamic();
    read_notes();
    storage_->fd = std::move(fd_);
    storage_->elf = std::move(elf_);
    out_.name_storage_ = std::move(storage_);
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(out_.path_ + ": " + what); }
  void warn(const std::string& what) { out_.warnings_.push_back(what); }
  std::string libelf_error() const { return elf_errmsg(-1); }

  void open_and_check_header() {
    const int fd = ::open(out_.path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(std::string("cannot open: ") + std::strerror(errno));
    fd_ = std::make_unique<FileDescriptor>(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail(std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) fail("not a regular file");
    out_.file_size_ = static_cast<uint64_t>(st.st_size);

    char header[sizeof(Elf64_Ehdr)] = {};
    const ssize_t got = ::pread(fd, header, sizeof header, 0);
    if (got < 0) fail(std::string("cannot read: ") + std::strerror(errno));
    check_elf_identification(std::string_view(header, static_cast<std::size_t>(got)), out_.file_size_, out_.path_);
    Elf64_Ehdr eh;
    std::memcpy(&eh, header, sizeof eh);
    check_tables(eh);

    static std::once_flag version_once;
    std::call_once(version_once, [] { elf_version(EV_CURRENT); });
    elf_.reset(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
    if (!elf_) fail("cannot read ELF: " + libelf_error());
    if (elf_kind(elf_.get()) != ELF_K_ELF) fail("not an ELF file (libelf: not an ELF object)");
    out_.type_ = eh.e_type;
    out_.machine_ = eh.e_machine;
  }

  // The program and section header tables must lie within the file (a truncated file does not
  // have its section headers, which sit at the end).
  void check_tables(const Elf64_Ehdr& eh) {
    const uint64_t size = out_.file_size_;
    auto check = [&](const char* what, uint64_t offset, uint64_t count, uint64_t entry, std::size_t expected) {
      if (count == 0) return;
      if (entry != expected) {
        fail("corrupt ELF header: " + std::string(what) + " entries of " + std::to_string(entry) + " bytes (expected " +
             std::to_string(expected) + ")");
      }
      const uint64_t bytes = count * entry;  // count < 2^32, entry < 2^16: no overflow
      if (offset > size || bytes > size - offset) {
        fail("truncated ELF file (" + std::to_string(size) + " bytes): the " + what + " table (bytes " +
             range(offset, offset + bytes) + ") ends beyond the end of the file");
      }
    };
    check("program header", eh.e_phoff, eh.e_phnum, eh.e_phentsize, sizeof(Elf64_Phdr));
    uint64_t sections = eh.e_shnum;
    if (sections == 0 && eh.e_shoff != 0) {
      // Extended numbering: the count is in the first section header's sh_size.
      check("section header", eh.e_shoff, 1, eh.e_shentsize, sizeof(Elf64_Shdr));
      Elf64_Shdr first;
      if (::pread(fd_->get(), &first, sizeof first, static_cast<off_t>(eh.e_shoff)) != sizeof first)
        fail("cannot read the section headers");
      sections = first.sh_size;
      if (sections > (1u << 24)) fail("corrupt ELF header: " + std::to_string(sections) + " sections");
    }
    check("section header", eh.e_shoff, sections, eh.e_shentsize, sizeof(Elf64_Shdr));
  }

  void read_sections() {
    std::size_t count = 0, names = 0;
    if (elf_getshdrnum(elf_.get(), &count) != 0) fail("cannot read the section headers: " + libelf_error());
    if (count > 0 && elf_getshdrstrndx(elf_.get(), &names) != 0)
      fail("cannot find the section name table: " + libelf_error());
    out_.sections_.resize(count);
    bool bad_names = false;
    for (std::size_t i = 0; i < count; ++i) {
      Elf_Scn* scn = elf_getscn(elf_.get(), i);
      GElf_Shdr sh;
      if (!scn || !gelf_getshdr(scn, &sh))
        fail("cannot read section header " + std::to_string(i) + ": " + libelf_error());
      ElfSection& s = out_.sections_[i];
      s.type = sh.sh_type, s.flags = sh.sh_flags, s.address = sh.sh_addr, s.offset = sh.sh_offset, s.size = sh.sh_size;
      if (i == 0) continue;
      const char* name = elf_strptr(elf_.get(), names, sh.sh_name);
      if (name) s.name = name;
      else {
        s.name = "<section " + std::to_string(i) + ">";
        bad_names = true;
      }
    }
    if (bad_names) warn("some section names lie outside the section name table");
  }

  // The data of section `index`, after checking that its bytes lie within the file.
  Elf_Data* section_data(std::size_t index, bool required) {
    const ElfSection& s = out_.sections_[index];
    if (s.type != SHT_NOBITS && (s.offset > out_.file_size_ || s.size > out_.file_size_ - s.offset)) {
      const std::string what = "truncated ELF file (" + std::to_string(out_.file_size_) + " bytes): section " + s.name +
                               " (bytes " + range(s.offset, s.offset + s.size) + ") ends beyond the end of the file";
      if (required) fail(what);
      warn(what);
      return nullptr;
    }
    Elf_Data* data = elf_getdata(elf_getscn(elf_.get(), index), nullptr);
    if (!data) {
      if (required) fail("cannot read section " + s.name + ": " + libelf_error());
      warn("cannot read section " + s.name + ": " + libelf_error());
    }
    return data;
  }

  void read_symbols() {
    std::size_t symtab = 0, dynsym = 0;
    for (std::size_t i = 1; i < out_.sections_.size(); ++i) {
      if (out_.sections_[i].type == SHT_SYMTAB && !symtab) symtab = i;
      if (out_.sections_[i].type == SHT_DYNSYM && !dynsym) dynsym = i;
    }
    out_.has_symtab_ = symtab != 0;
    out_.has_dynsym_ = dynsym != 0;
    const SymbolTables which = options_.tables;
    const bool want_symtab =
        which == SymbolTables::Both || which == SymbolTables::Symtab || which == SymbolTables::Preferred;
    const bool want_dynsym =
        which == SymbolTables::Both || which == SymbolTables::Dynsym || (which == SymbolTables::Preferred && !symtab);
    if (symtab && want_symtab) read_symbol_table(symtab, SymbolTable::Symtab);
    if (dynsym && want_dynsym) read_symbol_table(dynsym, SymbolTable::Dynsym);
  }

  void read_symbol_table(std::size_t index, SymbolTable table) {
    const ElfSection& sec = out_.sections_[index];
    const std::string name = sec.name;
    Elf_Data* data = section_data(index, true);
    if (!data->d_buf || data->d_size % sizeof(Elf64_Sym) != 0) {
      fail("corrupt symbol table " + name + ": " + std::to_string(data->d_size) +
           " bytes is not a whole number of symbols");
    }
    GElf_Shdr sh;
    gelf_getshdr(elf_getscn(elf_.get(), index), &sh);
    if (sh.sh_link == 0 || sh.sh_link >= out_.sections_.size() || out_.sections_[sh.sh_link].type != SHT_STRTAB) {
      fail("corrupt symbol table " + name + ": its string table (section " + std::to_string(sh.sh_link) +
           ") is not a string table");
    }
    const Elf_Data* strings = section_data(sh.sh_link, true);
    const Elf_Data* extended = nullptr;  // SHT_SYMTAB_SHNDX: section indexes >= SHN_LORESERVE
    for (std::size_t i = 1; i < out_.sections_.size(); ++i) {
      if (out_.sections_[i].type != SHT_SYMTAB_SHNDX) continue;
      GElf_Shdr x;
      if (gelf_getshdr(elf_getscn(elf_.get(), i), &x) && x.sh_link == index) extended = section_data(i, false);
    }

    const auto* symbols = static_cast<const Elf64_Sym*>(data->d_buf);
    const std::size_t count = data->d_size / sizeof(Elf64_Sym);
    const SymbolVersions versions = table == SymbolTable::Dynsym ? read_versions(index, count) : SymbolVersions{};
    const std::size_t first = out_.symbols_.size();
    out_.symbols_.resize(first + (count ? count - 1 : 0));
    std::atomic<std::size_t> bad_names{0};
    // Symbols are built (and demangled) in parallel chunks: a big library has half a million.
    parallel_chunks(count ? count - 1 : 0, 4096, options_.threads, [&](std::size_t begin, std::size_t end) {
      Demangler demangler;
      for (std::size_t k = begin; k < end; ++k) {
        const Elf64_Sym& raw = symbols[k + 1];
        ElfSymbol& s = out_.symbols_[first + k];
        if (auto n = string_at(strings, raw.st_name)) s.name = *n;
        else bad_names.fetch_add(1, std::memory_order_relaxed);
        if (!versions.empty()) {
          if (std::string v = versions.suffix(s.name, k + 1, raw.st_shndx == SHN_UNDEF); !v.empty()) {
            const std::lock_guard lock(storage_->mutex);
            s.name = storage_->versioned.emplace_back(std::string(s.name) + v);
          }
        }
        if (options_.demangle) demangler.demangle_into(s.name, s.demangled);
        else if (options_.copy_undemangled_names) s.demangled.assign(s.name);
        s.address = raw.st_value, s.size = raw.st_size;
        s.type = symbol_type(raw.st_info), s.binding = symbol_binding(raw.st_info);
        s.visibility = static_cast<SymbolVisibility>(GELF_ST_VISIBILITY(raw.st_other));
        s.table = table;
        uint32_t shndx = raw.st_shndx;
        if (shndx == SHN_XINDEX) {
          shndx = 0;
          if (extended && extended->d_buf && (k + 2) * sizeof(Elf32_Word) <= extended->d_size)
            shndx = static_cast<const Elf32_Word*>(extended->d_buf)[k + 1];
        }
        s.section_index = shndx;
        if (shndx == SHN_ABS) s.section = "*ABS*";
        else if (shndx == SHN_COMMON) s.section = "*COM*";
        else if (shndx != SHN_UNDEF && shndx < out_.sections_.size()) s.section = out_.sections_[shndx].name;
        else if (shndx != SHN_UNDEF) s.section = "*section " + std::to_string(shndx) + "*";
      }
    });
    if (bad_names)
      warn(std::to_string(bad_names.load()) + " symbol names of " + name + " lie outside its string table");
  }

  // The version names of .dynsym's symbols, from .gnu.version and the version definitions and
  // needs it refers to (sections linked to the same string table as `dynsym`).
  SymbolVersions read_versions(std::size_t dynsym, std::size_t count) {
    SymbolVersions v;
    for (std::size_t i = 1; i < out_.sections_.size(); ++i) {
      const uint32_t type = out_.sections_[i].type;
      if (type != SHT_GNU_versym && type != SHT_GNU_verdef && type != SHT_GNU_verneed) continue;
      GElf_Shdr sh;
      if (!gelf_getshdr(elf_getscn(elf_.get(), i), &sh)) continue;
      Elf_Data* data = section_data(i, false);
      if (!data || !data->d_buf) continue;
      if (type == SHT_GNU_versym) {
        if (sh.sh_link != dynsym) continue;
        if (data->d_size / sizeof(Elf64_Half) < count) {
          warn(".gnu.version has fewer entries than .dynsym: symbol versions left out");
          continue;
        }
        v.versym = static_cast<const Elf64_Half*>(data->d_buf);
        continue;
      }
      const Elf_Data* strings = sh.sh_link < out_.sections_.size() ? section_data(sh.sh_link, false) : nullptr;
      if (!read_version_entries(static_cast<const unsigned char*>(data->d_buf), data->d_size, sh.sh_info,
                                type == SHT_GNU_verdef, strings, v)) {
        warn("corrupt " + out_.sections_[i].name + ": symbol versions may be missing");
      }
    }
    if (v.versym && v.names.empty()) v.versym = nullptr;  // no definitions or needs: nothing to name
    return v;
  }

  // Walks `entries` verdef or verneed records (each with its chain of aux records) within `size`
  // bytes; false when a record points outside.
  static bool read_version_entries(const unsigned char* base, std::size_t size, std::size_t entries, bool definitions,
                                   const Elf_Data* strings, SymbolVersions& v) {
    std::size_t at = 0;
    for (std::size_t e = 0; e < entries && e < 65536; ++e) {
      if (definitions) {
        Elf64_Verdef d;
        if (at > size || size - at < sizeof d) return false;
        std::memcpy(&d, base + at, sizeof d);
        Elf64_Verdaux aux;
        if (d.vd_cnt > 0) {
          if (d.vd_aux > size - at || size - at - d.vd_aux < sizeof aux) return false;
          std::memcpy(&aux, base + at + d.vd_aux, sizeof aux);
          const auto name = string_at(strings, aux.vda_name);
          v.set(d.vd_ndx & 0x7fff, name ? std::string(*name) : std::string(), false, (d.vd_flags & VER_FLG_BASE) != 0);
        }
        if (d.vd_next == 0) return true;
        at += d.vd_next;
      } else {
        Elf64_Verneed n;
        if (at > size || size - at < sizeof n) return false;
        std::memcpy(&n, base + at, sizeof n);
        std::size_t aux_at = at + n.vn_aux;
        for (unsigned a = 0; a < n.vn_cnt; ++a) {
          Elf64_Vernaux aux;
          if (aux_at > size || size - aux_at < sizeof aux) return false;
          std::memcpy(&aux, base + aux_at, sizeof aux);
          const auto name = string_at(strings, aux.vna_name);
          v.set(aux.vna_other & 0x7fff, name ? std::string(*name) : std::string(), true, false);
          if (aux.vna_next == 0) break;
          aux_at += aux.vna_next;
        }
        if (n.vn_next == 0) return true;
        at += n.vn_next;
      }
    }
    return true;
  }

  void read_dynamic() {
    for (std::size_t i = 1; i < out_.sections_.size(); ++i) {
      if (out_.sections_[i].type != SHT_DYNAMIC) continue;
      Elf_Data* data = section_data(i, false);
      GElf_Shdr sh;
      if (!data || !gelf_getshdr(elf_getscn(elf_.get(), i), &sh)) continue;
      const std::size_t count = data->d_size / sizeof(Elf64_Dyn);
      for (std::size_t k = 0; k < count; ++k) {
        GElf_Dyn dyn;
        if (!gelf_getdyn(data, static_cast<int>(k), &dyn) || dyn.d_tag == DT_NULL) break;
        if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME) continue;
        const char* text = elf_strptr(elf_.get(), sh.sh_link, dyn.d_un.d_val);
        if (!text) {
          warn("a .dynamic entry names a string outside the dynamic string table");
          continue;
        }
        if (dyn.d_tag == DT_NEEDED) out_.needed_.push_back(text);
        else out_.soname_ = text;
      }
      break;
    }
  }

  void read_note_data(Elf_Data* data) {
    std::size_t offset = 0, name_at = 0, desc_at = 0;
    GElf_Nhdr note;
    while (data && offset < data->d_size && (offset = gelf_getnote(data, offset, &note, &name_at, &desc_at)) > 0) {
      const char* base = static_cast<const char*>(data->d_buf);
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(base + name_at, "GNU", 4) == 0 &&
          note.n_descsz > 0) {
        out_.build_id_ = hex(reinterpret_cast<const unsigned char*>(base + desc_at), note.n_descsz);
        return;
      }
    }
  }

  void read_notes() {
    for (std::size_t i = 1; i < out_.sections_.size(); ++i) {
      const ElfSection& s = out_.sections_[i];
      if (s.type == SHT_NOTE && out_.build_id_.empty()) read_note_data(section_data(i, false));
      if (s.name == ".gnu_debuglink" && s.type != SHT_NOBITS) {
        if (Elf_Data* d = section_data(i, false)) {
          if (auto name = string_at(d, 0)) out_.debuglink_ = *name;
        }
      }
    }
    if (!out_.build_id_.empty()) return;
    // No section headers left (some strippers): the notes of the program headers.
    std::size_t phnum = 0;
    if (elf_getphdrnum(elf_.get(), &phnum) != 0) return;
    for (std::size_t i = 0; i < phnum && out_.build_id_.empty(); ++i) {
      GElf_Phdr ph;
      if (!gelf_getphdr(elf_.get(), static_cast<int>(i), &ph) || ph.p_type != PT_NOTE) continue;
      if (ph.p_offset > out_.file_size_ || ph.p_filesz > out_.file_size_ - ph.p_offset) continue;
      read_note_data(elf_getdata_rawchunk(elf_.get(), static_cast<int64_t>(ph.p_offset), ph.p_filesz, ELF_T_NHDR));
    }
  }

  ElfReadOptions options_;
  ElfFile out_;
  std::unique_ptr<FileDescriptor> fd_;
  std::unique_ptr<Elf, ElfDeleter> elf_;
  std::shared_ptr<NameStorage> storage_ = std::make_shared<NameStorage>();
};

ElfFile ElfFile::read(const std::filesystem::path& file, const ElfReadOptions& options) {
  return ElfReader(file, options).read();
}

}  // namespace glassbox::introspect
