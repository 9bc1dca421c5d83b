// glassbox symbols LIB: a binary's symbols, demangled in parallel (a faster `nm -C -l`), size
// totals per source file or section (as bloaty shows them), and the operator registrations that
// its symbols reveal.
#include <charconv>
#include <cstring>
#include <iostream>

#include <nlohmann/json.hpp>

#include "introspect/binary/binary_registrations.h"
#include "introspect/binary/demangle.h"
#include "introspect/binary/symbol_listing.h"
#include "introspect/cli/arguments.h"
#include "introspect/cli/commands.h"
#include "introspect/cli/text_table.h"
#include "introspect/support/parallel_chunks.h"

namespace glassbox::introspect::cli {
namespace {

ArgumentParser symbols_parser() {
  ArgumentParser p("glassbox symbols",
                   "The symbols of an ELF file (shared library, executable, object), demangled: one line\n"
                   "per symbol with its address, size, nm's type letter and name, sorted by address.");
  p.positional("LIB", "a 64-bit little-endian ELF file");
  p.flag("lines", "append file:line of each symbol (from DWARF, or the separate debug file)", "l")
      .option("grep", "REGEX", "only symbols whose demangled or mangled name matches (ECMAScript regex)")
      .option("by", "WHAT", "symbol (the default), source (size per source file) or section (size per section)")
      .flag("dynamic", "the dynamic symbol table (.dynsym) instead of .symtab", "D")
      .flag("no-demangle", "print the names as stored")
      .flag("registrations",
            "the operator registrations the symbols reveal (GLASSBOX_/TORCH_LIBRARY blocks, op handles)")
      .flag("json", "print as JSON")
      .option("threads", "N", "threads for demangling and lookups (default: one per core)");
  p.epilog("Names are demangled as nm -C does (with " + std::string(demangler_name()) +
           "); .dynsym names keep\n"
           "their symbol versions (@@VERS: the default version, @VERS: hidden or needed from another\n"
           "library). Lines are those nm -l gives: the declaration of the DWARF function or variable the\n"
           "symbol belongs to (so clones such as f.cold or f.isra.0 get f's line), else the line row at\n"
           "its address (none in assembler code). Registration blocks are static functions, found in\n"
           ".symtab only.\n\n"
           "examples:\n"
           "  glassbox symbols build/dev/lib/libglassbox_cpu.so --grep 'glassbox::native::add' --lines\n"
           "  glassbox symbols build/dev/lib/libglassbox_cpu.so --by source\n"
           "  glassbox symbols libtorch_cpu.so --registrations --json");
  return p;
}

void append_padded(std::string& buf, uint64_t v, std::size_t width) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
  const std::size_t n = static_cast<std::size_t>(end - digits);
  if (n < width) buf.append(width - n, ' ');
  buf.append(digits, n);
}

// "ADDRESS(16 hex)  SIZE(8, right-aligned) L " -- or blanks for an undefined symbol -- in one
// append: the fixed-width start of every line.
void append_line_start(std::string& buf, const ElfSymbol& s, char letter) {
  constexpr std::size_t kWidth = 16 + 1 + 8 + 1 + 1 + 1;
  char line[kWidth + 24];
  std::memset(line, ' ', 16 + 1 + 8);
  std::size_t n = 16 + 1 + 8;
  if (s.defined()) {
    uint64_t a = s.address;
    for (int i = 15; i >= 0; --i, a >>= 4) line[i] = "0123456789abcdef"[a & 15];
    char digits[24];
    const std::size_t size_chars =
        static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, s.size).ptr - digits);
    // Sizes wider than 8 digits push the rest of the line right, as the padded form did.
    const std::size_t start = size_chars < 8 ? 17 + 8 - size_chars : 17;
    std::memcpy(line + start, digits, size_chars);
    n = start + size_chars;
  }
  line[n] = ' ', line[n + 1] = letter, line[n + 2] = ' ';
  buf.append(line, n + 3);
}

// One line per symbol (a listing may have half a million): a window of chunks formatted in
// parallel, then written in order, window after window (the buffers are reused: the output is
// never held whole). With `demangle_here` the names are demangled straight into the chunks (the
// listing was read without demangling: no second copy of every name is kept).
void print_symbol_lines(const SymbolListing& listing, bool demangled, bool demangle_here, bool lines, unsigned threads,
                        std::ostream& out) {
  constexpr std::size_t kChunk = 8192;
  const std::size_t total = listing.symbols.size();
  const std::size_t window = kChunk * 2 * std::max(1u, threads == 0 ? default_thread_count() : threads);
  // Reserved once, about twice the average line of a C++ library (libtorch_cpu.so's is 310
  // bytes), so that the buffers rarely grow: each growth would take fresh pages from the kernel.
  std::vector<std::string> chunks(window / kChunk);
  for (auto& c : chunks) c.reserve(kChunk * 640);
  std::vector<std::string_view> names;  // by symbol index, for the names that share their demangling
  if (demangle_here) {
    names.reserve(listing.elf.symbols().size());
    for (const ElfSymbol& s : listing.elf.symbols()) names.push_back(s.name);
  }
  const SharedDemangling shared(names, threads);
  for (std::size_t base = 0; base < total; base += window) {
    const std::size_t count = std::min(window, total - base);
    parallel_chunks(count, kChunk, threads, [&](std::size_t begin, std::size_t end) {
      Demangler demangler;
      std::string& buf = chunks[begin / kChunk];
      for (std::size_t i = base + begin; i < base + end; ++i) {
        // Symbols are printed in address order, their names lie in table order: ask for the
        // name a few symbols ahead so that it is in cache when its turn comes.
        if (constexpr std::size_t kAhead = 8; i + 2 * kAhead < base + end) {
          __builtin_prefetch(&listing.symbol(listing.symbols[i + 2 * kAhead]));
          __builtin_prefetch(listing.symbol(listing.symbols[i + kAhead]).name.data());
        }
        const ListedSymbol& ls = listing.symbols[i];
        const ElfSymbol& s = listing.symbol(ls);
        append_line_start(buf, s, ls.nm);
        if (demangle_here) shared.append_demangled(ls.index, demangler, buf);
        else buf += demangled ? std::string_view(s.demangled) : s.name;
        if (lines && ls.line.valid()) {
          buf += '\t';
          buf.append(ls.line.file);
          buf += ':';
          append_padded(buf, ls.line.line, 0);
        }
        buf += '\n';
      }
    });
    for (auto& c : chunks) {
      out.write(c.data(), static_cast<std::streamsize>(c.size()));
      c.clear();
    }
  }
}

nlohmann::json line_info_json(const SymbolListing& listing) {
  if (!listing.dwarf) return nullptr;
  const DwarfLines& d = *listing.dwarf;
  return {{"status", to_string(d.status())},   {"message", d.message()},
          {"debug_file", d.debug_file()},      {"separate_debug_file", d.from_separate_file()},
          {"compile_units", d.units().size()}, {"errors", d.errors()}};
}

nlohmann::json file_json(const SymbolListing& listing) {
  const ElfFile& e = listing.elf;
  return {{"file", e.path()},
          {"type", e.type_name()},
          {"soname", e.soname()},
          {"needed", e.needed()},
          {"build_id", e.build_id()},
          {"demangler", demangler_name()},
          {"has_symtab", e.has_symtab()},
          {"has_dynsym", e.has_dynsym()},
          {"line_info", line_info_json(listing)},
          {"warnings", e.warnings()}};
}

nlohmann::json symbol_json(const SymbolListing& listing, const ListedSymbol& ls, bool lines) {
  const ElfSymbol& s = listing.symbol(ls);
  nlohmann::json j = {{"name", s.name},
                      {"demangled", s.demangled},
                      {"address", s.address},
                      {"size", s.size},
                      {"type", to_string(s.type)},
                      {"binding", to_string(s.binding)},
                      {"visibility", to_string(s.visibility)},
                      {"section", s.section},
                      {"table", to_string(s.table)},
                      {"nm", std::string(1, ls.nm)}};
  if (lines) {
    j["file"] = std::string(ls.line.file);
    j["line"] = ls.line.line;
  }
  return j;
}

nlohmann::json registration_json(const BinaryRegistration& r) {
  return {{"kind", to_string(r.kind)},  {"namespace", r.ns},   {"dispatch_key", r.dispatch_key},
          {"operator", r.op},           {"symbol", r.symbol},  {"demangled", r.demangled},
          {"address", r.address},       {"file", r.file},      {"line", r.line},
          {"code_lines", r.code_lines}, {"library", r.library}};
}

nlohmann::json size_json(const SizeTotal& t) {
  return {{"name", t.name},
          {"symbols", t.symbols},
          {"symbol_bytes", t.symbol_bytes},
          {"vm_size", t.vm_size},
          {"file_size", t.file_size}};
}

void dump(const nlohmann::json& j, std::ostream& out) {
  out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

// Says on stderr why symbols have no lines (stripped, no debug file, corrupt DWARF).
void note_line_info(const SymbolListing& listing) {
  if (!listing.dwarf) return;
  const DwarfLines& d = *listing.dwarf;
  if (d.status() != DwarfLines::Status::Present) {
    std::cerr << "glassbox: note: " << listing.elf.path() << ": " << d.message()
              << "; symbols are listed without lines\n";
  }
  for (std::size_t i = 0; i < d.errors().size() && i < 5; ++i)
    std::cerr << "glassbox: warning: " << d.errors()[i] << "\n";
  if (d.errors().size() > 5)
    std::cerr << "glassbox: warning: ... and " << d.errors().size() - 5 << " more DWARF errors\n";
}

int print_registrations(const SymbolListing& listing, bool json, std::ostream& out) {
  const auto found = find_binary_registrations(listing.elf, listing.dwarf ? &*listing.dwarf : nullptr);
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& r : found) list.push_back(registration_json(r));
    nlohmann::json doc = file_json(listing);
    doc["registrations"] = std::move(list);
    dump(doc, out);
    return 0;
  }
  out << listing.elf.path() << ": " << found.size() << " registrations";
  if (!listing.elf.has_symtab()) out << " (no .symtab: registration blocks are local symbols, lost when stripped)";
  else if (listing.dwarf && listing.dwarf->status() != DwarfLines::Status::Present)
    out << " (without lines: " << listing.dwarf->message() << ")";
  out << "\n\n";
  TextTable table({"kind", "namespace", "key", "operator", "location", "symbol"});
  for (const auto& r : found) {
    table.add_row({std::string(to_string(r.kind)), r.ns, r.dispatch_key, r.op,
                   r.file.empty() ? "-" : elide_front(r.file, 60) + ":" + std::to_string(r.line), r.demangled});
  }
  table.print(out);
  return 0;
}

int print_sizes(const SymbolListing& listing, const std::string& by, bool json, std::ostream& out) {
  const auto totals = by == "source" ? sizes_by_source(listing) : sizes_by_section(listing);
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& t : totals) list.push_back(size_json(t));
    nlohmann::json doc = file_json(listing);
    doc["by"] = by;
    doc["sizes"] = std::move(list);
    dump(doc, out);
    return 0;
  }
  uint64_t all = 0;
  for (const auto& t : totals) all += by == "source" ? t.symbol_bytes : t.vm_size;
  auto percent = [&](uint64_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "%.1f%%", all ? 100.0 * static_cast<double>(v) / static_cast<double>(all) : 0.0);
    return std::string(b);
  };
  if (by == "source") {
    TextTable table({">symbol bytes", ">%", ">symbols", "source"});
    for (const auto& t : totals)
      table.add_row({format_bytes(t.symbol_bytes), percent(t.symbol_bytes), std::to_string(t.symbols), t.name});
    table.print(out);
  } else {
    TextTable table({">vm size", ">%", ">file size", ">symbols", ">symbol bytes", "section"});
    for (const auto& t : totals) {
      table.add_row({format_bytes(t.vm_size), percent(t.vm_size), format_bytes(t.file_size), std::to_string(t.symbols),
                     format_bytes(t.symbol_bytes), t.name});
    }
    table.print(out);
  }
  out << "total: " << format_bytes(all) << (by == "source" ? " in symbols\n" : " in memory\n");
  return 0;
}

}  // namespace

int run_symbols(const CommandArgs& args, std::ostream& out) {
  const ArgumentParser parser = symbols_parser();
  const ParsedArguments parsed = parser.parse(args);
  if (parsed.help) {
    out << parser.help();
    return 0;
  }
  const std::string by = parsed.value("by", "symbol");
  if (by != "symbol" && by != "source" && by != "section") {
    throw UsageError("--by must be symbol, source or section, not \"" + by + "\"");
  }
  const int threads = parsed.integer("threads", 0);
  if (threads < 0) throw UsageError("--threads must be 0 or more");
  const bool registrations = parsed.has("registrations"), json = parsed.has("json");

  SymbolQuery query;
  query.tables = parsed.has("dynamic") ? SymbolTables::Dynsym
                 : registrations       ? SymbolTables::Both
                                       : SymbolTables::Preferred;
  query.demangle = !parsed.has("no-demangle") || registrations;
  query.lines = parsed.has("lines") || by == "source" || registrations;
  query.grep = parsed.value("grep");
  // The plain listing demangles while printing: names are needed demangled earlier only to be
  // searched (--grep), sized or written as JSON.
  const bool demangle_when_printing = query.demangle && query.grep.empty() && by == "symbol" && !json && !registrations;
  query.demangle = query.demangle && !demangle_when_printing;
  query.copy_undemangled_names = !demangle_when_printing;
  query.threads = static_cast<unsigned>(threads);
  const SymbolListing listing = list_symbols(parsed.positional("LIB"), query);
  for (const auto& w : listing.elf.warnings())
    std::cerr << "glassbox: warning: " << listing.elf.path() << ": " << w << "\n";
  note_line_info(listing);

  if (registrations) return print_registrations(listing, json, out);
  if (by != "symbol") return print_sizes(listing, by, json, out);
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& ls : listing.symbols) list.push_back(symbol_json(listing, ls, query.lines));
    nlohmann::json doc = file_json(listing);
    doc["symbols"] = std::move(list);
    dump(doc, out);
    return 0;
  }
  if (!listing.elf.has_symtab() && !parsed.has("dynamic") && !listing.elf.has_dynsym()) {
    std::cerr << "glassbox: note: " << listing.elf.path() << ": no symbols\n";
  }
  print_symbol_lines(listing, query.demangle, demangle_when_printing, query.lines, query.threads, out);
  return 0;
}

}  // namespace glassbox::introspect::cli
