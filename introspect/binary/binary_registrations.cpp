#include "introspect/binary/binary_registrations.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

namespace glassbox::introspect {
namespace {

// "glassbox::glassbox_library_init_t_dl(glassbox::Library&)" -> "glassbox_library_init_t_dl";
// the whole qualified name before the parameters goes to `qualified`.
std::string_view function_name(std::string_view demangled, std::string_view* qualified = nullptr) {
  static constexpr std::string_view kAnonymous = "(anonymous namespace)";
  auto paren = demangled.find('(');
  while (paren != std::string_view::npos && demangled.substr(paren, kAnonymous.size()) == kAnonymous)
    paren = demangled.find('(', paren + kAnonymous.size());
  if (paren == std::string_view::npos || paren == 0) return {};
  std::string_view q = demangled.substr(0, paren);
  if (qualified) *qualified = q;
  const auto colons = q.rfind("::");
  return colons == std::string_view::npos ? q : q.substr(colons + 2);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Removes a trailing "_<digits>" (the block's unique number); false when there is none.
bool strip_uid(std::string_view& s) {
  std::size_t end = s.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(s[end - 1]))) --end;
  if (end == s.size() || end == 0 || s[end - 1] != '_') return false;
  s = s.substr(0, end - 1);
  return true;
}

struct BlockPattern {
  std::string_view prefix;
  BinaryRegistrationKind kind;
  enum { Plain, Fragment, Impl } shape;
};

// Longer prefixes first where one starts another.
constexpr BlockPattern kBlockPatterns[] = {
    {"glassbox_library_fragment_init_", BinaryRegistrationKind::GlassboxLibraryFragment, BlockPattern::Fragment},
    {"glassbox_library_impl_init_", BinaryRegistrationKind::GlassboxLibraryImpl, BlockPattern::Impl},
    {"glassbox_library_init_", BinaryRegistrationKind::GlassboxLibrary, BlockPattern::Plain},
    {"TORCH_LIBRARY_FRAGMENT_init_", BinaryRegistrationKind::TorchLibraryFragment, BlockPattern::Fragment},
    {"TORCH_LIBRARY_IMPL_init_", BinaryRegistrationKind::TorchLibraryImpl, BlockPattern::Impl},
    {"TORCH_LIBRARY_init_", BinaryRegistrationKind::TorchLibrary, BlockPattern::Plain},
};

std::optional<BinaryRegistration> classify_block(std::string_view name) {
  for (const auto& p : kBlockPatterns) {
    if (!starts_with(name, p.prefix)) continue;
    std::string_view rest = name.substr(p.prefix.size());
    BinaryRegistration r;
    r.kind = p.kind;
    if (p.shape == BlockPattern::Plain) {
      r.ns = rest;
    } else {
      if (!strip_uid(rest)) return std::nullopt;
      if (p.shape == BlockPattern::Impl) {
        // Dispatch key names have no '_'; namespaces may ("t_dl", or "_" for fallbacks).
        const auto underscore = rest.rfind('_');
        if (underscore == std::string_view::npos || underscore == 0 || underscore + 1 == rest.size())
          return std::nullopt;
        r.dispatch_key = rest.substr(underscore + 1);
        rest = rest.substr(0, underscore);
      }
      r.ns = rest;
    }
    if (r.ns.empty()) return std::nullopt;
    return r;
  }
  return std::nullopt;
}

// "at::_ops::add_Tensor::call" -> OpCall, ns "aten", op "add_Tensor".
std::optional<BinaryRegistration> classify_op_handle(std::string_view qualified) {
  struct OpsNamespace {
    std::string_view prefix, ns;
  };
  static constexpr OpsNamespace kNamespaces[] = {{"at::_ops::", "aten"}, {"glassbox::ops::", "glassbox"}};
  for (const auto& n : kNamespaces) {
    if (!starts_with(qualified, n.prefix)) continue;
    std::string_view rest = qualified.substr(n.prefix.size());
    const auto colons = rest.find("::");
    if (colons == std::string_view::npos || colons == 0) return std::nullopt;
    const std::string_view member = rest.substr(colons + 2);
    BinaryRegistration r;
    if (member == "call") r.kind = BinaryRegistrationKind::OpCall;
    else if (member == "redispatch") r.kind = BinaryRegistrationKind::OpRedispatch;
    else return std::nullopt;
    r.ns = n.ns;
    r.op = rest.substr(0, colons);
    return r;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(BinaryRegistrationKind kind) {
  switch (kind) {
    case BinaryRegistrationKind::GlassboxLibrary: return "GLASSBOX_LIBRARY";
    case BinaryRegistrationKind::GlassboxLibraryFragment: return "GLASSBOX_LIBRARY_FRAGMENT";
    case BinaryRegistrationKind::GlassboxLibraryImpl: return "GLASSBOX_LIBRARY_IMPL";
    case BinaryRegistrationKind::TorchLibrary: return "TORCH_LIBRARY";
    case BinaryRegistrationKind::TorchLibraryFragment: return "TORCH_LIBRARY_FRAGMENT";
    case BinaryRegistrationKind::TorchLibraryImpl: return "TORCH_LIBRARY_IMPL";
    case BinaryRegistrationKind::OpCall: return "op_call";
    case BinaryRegistrationKind::OpRedispatch: return "op_redispatch";
  }
  return "?";
}

std::optional<BinaryRegistration> classify_registration_symbol(const ElfSymbol& symbol) {
  if (!symbol.defined() || symbol.type != SymbolType::Function) return std::nullopt;
  if (symbol.name.find('.') != std::string::npos) return std::nullopt;  // f.cold, f.part.0, ...
  std::string_view qualified;
  const std::string_view name = function_name(symbol.demangled, &qualified);
  std::optional<BinaryRegistration> r;
  if (name.empty()) {
    r = classify_block(symbol.demangled);  // not a C++ name (extern "C")
  } else if (name.size() > 5 && (name[0] == 'g' || name[0] == 'T')) {
    r = classify_block(name);
  } else {
    r = classify_op_handle(qualified);
  }
  if (!r) return std::nullopt;
  r->symbol = symbol.name;
  r->demangled = symbol.demangled;
  r->address = symbol.address;
  return r;
}

std::string qualified_function_name(std::string_view demangled) {
  std::string_view qualified;
  function_name(demangled, &qualified);
  return std::string(qualified);
}

std::vector<FunctionDefinition> find_function_definitions(const ElfFile& elf, const DwarfLines* lines,
                                                          const std::vector<std::string>& names) {
  std::vector<FunctionDefinition> out;
  if (names.empty()) return out;
  const std::set<std::string_view> wanted(names.begin(), names.end());
  std::set<std::pair<uint64_t, std::string_view>> seen;
  const bool placed = lines && lines->status() == DwarfLines::Status::Present;
  for (const auto& s : elf.symbols()) {
    if (!s.defined() || s.type != SymbolType::Function || s.name.find('.') != std::string::npos) continue;
    std::string_view qualified;
    function_name(s.demangled, &qualified);
    if (qualified.empty() || !wanted.count(qualified) || !seen.emplace(s.address, s.name).second) continue;
    FunctionDefinition d{
        std::string(qualified), std::string(s.name), s.demangled, s.address, s.size, "", 0, elf.path()};
    if (placed) {
      const SourceLine at = lines->lookup(s.address);
      d.file = at.file;
      d.line = at.line;
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<BinaryRegistration> find_binary_registrations(const ElfFile& elf, const DwarfLines* lines) {
  std::vector<BinaryRegistration> out;
  std::set<std::pair<uint64_t, std::string_view>> seen;
  const bool placed = lines && lines->status() == DwarfLines::Status::Present;
  for (const auto& s : elf.symbols()) {
    auto r = classify_registration_symbol(s);
    if (!r || !seen.emplace(s.address, s.name).second) continue;
    r->library = elf.path();
    if (placed) {
      const SourceLine at = lines->lookup(s.address);
      r->file = at.file;
      r->line = at.line;
      if (r->kind != BinaryRegistrationKind::OpCall && r->kind != BinaryRegistrationKind::OpRedispatch && s.size > 0)
        r->code_lines = lines->lines_in(s.address, s.address + s.size, at.file);
    }
    out.push_back(std::move(*r));
  }
  std::sort(out.begin(), out.end(), [](const BinaryRegistration& a, const BinaryRegistration& b) {
    return std::tie(a.kind, a.ns, a.dispatch_key, a.op, a.symbol) <
           std::tie(b.kind, b.ns, b.dispatch_key, b.op, b.symbol);
  });
  return out;
}

std::vector<BinaryRegistration> find_binary_registrations(const std::filesystem::path& binary,
                                                          const DwarfOptions& options) {
  return scan_binary_registrations(binary, options).registrations;
}

BinaryRegistrationScan scan_binary_registrations(const std::filesystem::path& binary, const DwarfOptions& options,
                                                 const std::vector<std::string>& functions) {
  const ElfFile elf = ElfFile::read(binary);
  const DwarfLines lines = DwarfLines::read(elf, options);
  BinaryRegistrationScan out;
  out.library = elf.path();
  out.registrations = find_binary_registrations(elf, &lines);
  out.functions = find_function_definitions(elf, &lines, functions);
  out.has_symtab = elf.has_symtab();
  out.line_status = lines.status();
  out.line_message = lines.message();
  for (const auto& u : lines.units())
    if (!u.name.empty()) out.compile_units.push_back(u.source());
  return out;
}

}  // namespace glassbox::introspect
