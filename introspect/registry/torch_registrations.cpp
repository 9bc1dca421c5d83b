#include "introspect/registry/torch_registrations.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "introspect/binary/binary_registrations.h"
#include "introspect/binary/elf_file.h"
#include "introspect/registry/block_code.h"
#include "introspect/support/process.h"

namespace glassbox::introspect {
namespace {

using json = nlohmann::json;

std::string tail(const std::string& text, std::size_t n) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

std::string base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "add.Tensor(Tensor self, ...) -> Tensor" or "aten::add.Tensor(...) -> ..." -> "aten::add.Tensor".
// Unprefixed schemas are those of TORCH_LIBRARY(aten, m)'s m.def calls (inferred: aten).
std::string schema_operator(std::string_view s) {
  const auto paren = s.find('(');
  if (paren == std::string_view::npos || paren == 0 || s.find(") -> ", paren) == std::string_view::npos) return "";
  const std::string_view name = s.substr(0, paren);
  std::string_view ns = "aten", rest = name;
  if (const auto colons = name.find("::"); colons != std::string_view::npos)
    ns = name.substr(0, colons), rest = name.substr(colons + 2);
  if (ns.empty() || rest.empty() || !(std::isalpha(static_cast<unsigned char>(rest[0])) || rest[0] == '_')) return "";
  for (char c : ns)
    if (!is_ident(c)) return "";
  int dots = 0;
  for (char c : rest) {
    if (c == '.') ++dots;
    else if (!is_ident(c)) return "";
  }
  if (dots > 1 || rest.back() == '.') return "";
  return std::string(ns) + "::" + std::string(rest);
}

// The operator names of the schema strings in the read-only data: by their C++ struct name
// ("add_Tensor" for add.Tensor, "add" for add.default), as the generated kernels spell them.
// The read-only data of a binary, to read the strings a block's code loads. Those may start
// inside a longer string: the linker shares a string's tail ("resize_" in "...resize_").
struct NameStrings {
  std::vector<std::pair<uint64_t, std::string>> sections;  // address, bytes

  std::string_view at(uint64_t address) const {
    for (const auto& [begin, data] : sections) {
      if (address < begin || address >= begin + data.size()) continue;
      const std::string_view rest = std::string_view(data).substr(address - begin);
      return rest.substr(0, rest.find('\0'));
    }
    return {};
  }
};

bool may_name_operator(std::string_view s) {
  if (s.empty() || s.size() > 120) return false;
  for (char c : s)
    if (!is_ident(c) && c != '.' && c != ':') return false;
  return true;
}

std::unordered_map<std::string, std::string> schema_operators(const ElfFile& elf, NameStrings* strings) {
  std::unordered_map<std::string, std::string> out;
  std::ifstream in(elf.path(), std::ios::binary);
  for (const auto& sec : elf.sections()) {
    if (!sec.allocated() || sec.executable() || sec.writable() || sec.nobits() || !sec.name.starts_with(".rodata"))
      continue;
    std::string data(sec.size, '\0');
    in.seekg(static_cast<std::streamoff>(sec.offset));
    if (!in.read(data.data(), static_cast<std::streamsize>(data.size()))) continue;
    std::size_t start = 0;
    while (start < data.size()) {
      std::size_t end = data.find('\0', start);
      if (end == std::string::npos) end = data.size();
      if (end - start > 6) {
        const std::string op = schema_operator(std::string_view(data).substr(start, end - start));
        if (!op.empty()) {
          std::string struct_name = op.substr(op.find("::") + 2);
          std::replace(struct_name.begin(), struct_name.end(), '.', '_');
          out.emplace(op.substr(0, op.find("::")) + "::" + struct_name, op);
        }
      }
      start = end + 1;
    }
    if (strings) strings->sections.emplace_back(sec.address, std::move(data));
  }
  return out;
}

// "c10::impl::make_boxed_from_unboxed_functor<c10::impl::detail::WrapFunctionIntoFunctor_<
//  c10::CompileTimeFunctionPointer<SIG, &KERNEL>, ...>, false>::call(...)" -> "KERNEL".
std::string boxed_kernel(std::string_view demangled) {
  static constexpr std::string_view kPrefix =
      "c10::impl::make_boxed_from_unboxed_functor<c10::impl::detail::WrapFunctionIntoFunctor_<"
      "c10::CompileTimeFunctionPointer<";
  if (!demangled.starts_with(kPrefix)) return "";
  int angle = 1, paren = 0;
  std::size_t begin = 0;
  for (std::size_t i = kPrefix.size(); i < demangled.size(); ++i) {
    const char c = demangled[i];
    if (c == '(') ++paren;
    else if (c == ')') --paren;
    else if (paren == 0 && c == '<') ++angle;
    else if (paren == 0 && c == '>') {
      if (--angle == 0) return begin ? std::string(demangled.substr(begin, i - begin)) : "";
    } else if (c == ',' && angle == 1 && paren == 0 && !begin && demangled.substr(i, 3) == ", &") {
      begin = i + 3;
      i += 2;
    }
  }
  return "";
}

struct KernelPlace {
  std::string key, struct_name;  // "CPU", "add_Tensor"
};

// The key and operator a generated kernel's name spells; nullopt for a hand-written kernel.
std::optional<KernelPlace> place_kernel(std::string_view kernel) {
  struct Family {
    std::string_view prefix, key;
  };
  static constexpr Family kFamilies[] = {
      {"torch::autograd::VariableType::(anonymous namespace)::", "Autograd"},
      {"torch::TraceType::(anonymous namespace)::", "Tracer"},
      {"torch::ADInplaceOrView::(anonymous namespace)::", "ADInplaceOrView"},
      {"at::functionalization::", "Functionalize"},
  };
  for (const auto& f : kFamilies)
    if (kernel.starts_with(f.prefix) && kernel.find("::", f.prefix.size()) == std::string_view::npos)
      return KernelPlace{std::string(f.key), std::string(kernel.substr(f.prefix.size()))};
  static constexpr std::string_view kPlumbing = "at::functorch::", kPlumbingEnd = "_generated_plumbing";
  if (kernel.starts_with(kPlumbing)) {
    std::string_view rest = kernel.substr(kPlumbing.size());
    rest = rest.substr(0, rest.find('<'));
    if (rest.ends_with(kPlumbingEnd) && rest.find("::") == std::string_view::npos)
      return KernelPlace{"FuncTorchBatched", std::string(rest.substr(0, rest.size() - kPlumbingEnd.size()))};
  }
  if (kernel.starts_with("at::")) {
    const auto colons = kernel.rfind("::");
    const std::string_view last = kernel.substr(colons + 2);
    if (last.starts_with("wrapper_") && kernel.find('<') == std::string_view::npos) {
      const std::string_view rest = last.substr(8);
      const auto underscore = rest.find('_');
      if (underscore != std::string_view::npos && underscore > 0 && underscore + 1 < rest.size())
        return KernelPlace{std::string(rest.substr(0, underscore)), std::string(rest.substr(underscore + 1))};
    }
  }
  return std::nullopt;
}

// The operator a kernel's name stands for. Generated kernels spell it <name>_<overload>
// (wrapper_CPU_add_Tensor), with the C++ name of an out= variant (<name>_out: kthvalue_out_values,
// structured ones repeating it: wrapper_CPU_add_out_out), or <overload>_<C++ name>
// (wrapper_SparseCPU_Tensor_add, wrapper_SparseCPU__addmm for the default overload).
std::string resolve_operator(const std::unordered_map<std::string, std::string>& by_struct,
                             const std::set<std::string>& names, const std::string& rest) {
  if (const auto it = by_struct.find("aten::" + rest); it != by_struct.end()) return it->second;
  auto find = [&](std::string name, const std::string& overload) -> std::string {
    for (int attempt = 0; attempt < 2 && !name.empty(); ++attempt) {
      const std::string full = "aten::" + name + (overload.empty() ? "" : "." + overload);
      if (names.count(full)) return full;
      if (!name.ends_with("_out")) break;
      name.resize(name.size() - 4);
    }
    return "";
  };
  for (std::size_t i = rest.find('_'); i != std::string::npos; i = rest.find('_', i + 1)) {
    const std::string left = rest.substr(0, i), right = rest.substr(i + 1);
    if (std::string op = find(left, right); !op.empty()) return op;
    if (std::string op = find(right, left); !op.empty()) return op;
  }
  if (rest.ends_with("_out"))
    if (const auto it = by_struct.find("aten::" + rest.substr(0, rest.size() - 4)); it != by_struct.end())
      return it->second;
  return "";
}

std::string file_of_site(const std::string& at) { return at.substr(0, at.rfind(':')); }

bool matches_family(const std::string& kernel, const std::string& family) {
  if (family.empty()) return true;
  if (family.back() == '_') {  // a wrapper family: the kernel's last name component
    const auto colons = kernel.rfind("::");
    const std::string last = colons == std::string::npos ? kernel : kernel.substr(colons + 2);
    return last.starts_with(family.substr(family.rfind("::") + 2));
  }
  return kernel.starts_with(family);
}

constexpr uint16_t kMachineX86_64 = 62;  // EM_X86_64

// "aarch64" for a binary of another architecture than x86-64's, as ELF's e_machine names it.
std::string machine_name(uint16_t machine) {
  switch (machine) {
    case 3: return "x86 (32-bit)";
    case 40: return "arm (32-bit)";
    case 183: return "aarch64";
    case 21: return "ppc64";
    case 22: return "s390x";
    case 243: return "riscv64";
    default: return "ELF machine " + std::to_string(machine);
  }
}

// What the TORCH_LIBRARY_IMPL(ns, Key, m) blocks' code loads: the addresses (a TORCH_FN kernel's
// boxing wrapper among them: it is registered when a block runs) and the operator names, those
// the block registers a kernel for under Key (inferred).
struct BlockCode {
  std::size_t blocks = 0;
  std::unordered_map<uint64_t, std::string> loads;      // address -> unit of the loading block ("" unknown)
  std::set<std::string> keys;                           // the keys blocks are for
  std::vector<BinaryRegistrationRecord> registrations;  // one per (operator, key) named by a block
};

// The boxing wrapper a block loads before an operator's name is that registration's kernel: the
// code builds the CppFunction, then passes the name with it to m.impl.

void read_impl_blocks(const ElfFile& elf, const NameStrings& strings, const std::set<std::string>& names,
                      const std::unordered_map<uint64_t, std::string>& wrapper_kernels, BlockCode& out) {
  if (!block_code_available() || elf.machine() != kMachineX86_64) return;  // the disassembler reads x86-64 code
  std::ifstream in(elf.path(), std::ios::binary);
  std::string code;
  // A function's code, or empty when it is not in an executable section of the file.
  auto code_of = [&](const ElfSymbol& s) -> bool {
    if (s.section_index >= elf.sections().size() || s.size == 0) return false;
    const ElfSection& text = elf.sections()[s.section_index];
    if (!text.executable() || s.address < text.address || s.address + s.size > text.address + text.size) return false;
    code.resize(s.size);
    in.seekg(static_cast<std::streamoff>(text.offset + (s.address - text.address)));
    return bool(in.read(code.data(), static_cast<std::streamsize>(s.size)));
  };
  auto loads = [&](const ElfSymbol& s) {
    return rip_relative_loads(reinterpret_cast<const uint8_t*>(code.data()), code.size(), s.address);
  };
  // Which unit registers each block: its static initialiser (_GLOBAL__sub_I_<unit>) loads the
  // block function's address for the registrar it constructs.
  std::unordered_map<uint64_t, std::string> unit_of;
  std::set<uint64_t> blocks;
  for (const auto& s : elf.symbols()) {
    const auto block = classify_registration_symbol(s);
    if (block && block->kind == BinaryRegistrationKind::TorchLibraryImpl) {
      blocks.insert(s.address);
      out.keys.insert(block->dispatch_key);
    }
  }
  static constexpr std::string_view kStaticInit = "_GLOBAL__sub_I_";
  for (const auto& s : elf.symbols()) {
    if (s.type != SymbolType::Function || !s.name.starts_with(kStaticInit) || !code_of(s)) continue;
    for (uint64_t target : loads(s))
      if (blocks.count(target)) unit_of.emplace(target, s.name.substr(kStaticInit.size()));
  }
  std::set<uint64_t> seen;
  std::set<std::pair<std::string, std::string>> named;  // (operator, key)
  for (const auto& s : elf.symbols()) {
    const auto block = classify_registration_symbol(s);
    if (!block || block->kind != BinaryRegistrationKind::TorchLibraryImpl || block->ns == "_") continue;
    if (!seen.insert(s.address).second || !code_of(s)) continue;
    ++out.blocks;
    const auto unit = unit_of.find(s.address);
    const std::string unit_name = unit != unit_of.end() ? unit->second : "";
    const std::string* pending_kernel = nullptr;
    for (uint64_t target : loads(s)) {
      out.loads.emplace(target, unit_name);
      if (const auto k = wrapper_kernels.find(target); k != wrapper_kernels.end()) {
        pending_kernel = &k->second;
        continue;
      }
      const std::string_view str = strings.at(target);
      if (!may_name_operator(str)) continue;
      std::string op =
          str.find("::") == std::string_view::npos ? block->ns + "::" + std::string(str) : std::string(str);
      if (!names.count(op) && names.count(op + ".default")) op += ".default";
      if (!names.count(op)) continue;
      const std::string kernel = pending_kernel ? *pending_kernel : "";
      pending_kernel = nullptr;
      if (!named.emplace(op, block->dispatch_key).second) continue;
      BinaryRegistrationRecord r;
      r.kind = "impl", r.block = "TORCH_LIBRARY_IMPL code (inferred)", r.ns = block->ns;
      r.dispatch_key = block->dispatch_key, r.op = op, r.library = base_name(elf.path());
      r.demangled = kernel;
      r.inferred = true;
      r.unit = unit_name;
      out.registrations.push_back(std::move(r));
    }
  }
}

}  // namespace

std::string torch_live_registry_json(const TorchLiveOptions& options) {
  if (options.python.empty()) throw ValueError("torch: no Python interpreter given");
  if (!std::filesystem::exists(options.reader))
    throw Error("torch: the registry reader " + options.reader + " is missing");
  std::vector<std::string> argv;
  const std::string timeout = find_program("timeout");
  if (!timeout.empty()) argv = {timeout, "-k", "5", std::to_string(options.timeout_seconds)};
  for (const auto& a : {options.python, options.reader, std::string("live")}) argv.push_back(a);
  if (!options.op_regex.empty()) argv.push_back("--ops"), argv.push_back(options.op_regex);
  if (!options.torch_dir.empty()) {
    argv.push_back("--torch-dir"), argv.push_back(options.torch_dir);
    argv.push_back("--timeout"), argv.push_back(std::to_string(options.timeout_seconds));
  }
  const ProcessResult r = run_process(argv);
  if (r.exit_code == 124 || r.exit_code == 137)
    throw Error("torch: reading the live registry took over " + std::to_string(options.timeout_seconds) +
                " s and was stopped (--timeout S to allow more)");
  if (r.exit_code == 127) throw Error("torch: " + options.python + " cannot be run: " + tail(r.error_output, 400));
  if (r.exit_code != 0) {
    std::string why = r.error_output;
    while (!why.empty() && why.back() == '\n') why.pop_back();
    throw Error("torch: the live registry cannot be read with " + options.python + " (exit " +
                std::to_string(r.exit_code) + "): " + tail(why, 600));
  }
  if (r.output.empty() || r.output.front() != '{') throw Error("torch: the registry reader printed no JSON");
  return r.output;
}

TorchLiveInfo torch_live_info(std::string_view registry_json) {
  // The top-level fields come before "fallbacks" and "operators": parse only that prefix.
  const auto end = registry_json.find(", \"fallbacks\"");
  TorchLiveInfo info;
  if (end == std::string_view::npos) return info;
  try {
    const json j = json::parse(std::string(registry_json.substr(0, end)) + "}");
    info.lib_dir = j.value("torch_lib_dir", "");
    info.producer = j.value("producer", "");
  } catch (const json::exception&) {
  }
  return info;
}

std::vector<std::string> torch_kernel_libraries(const std::string& lib_dir, bool with_cuda) {
  std::vector<std::string> out;
  for (const char* name : {"libtorch_cpu.so", "libtorch_cuda.so"}) {
    if (!with_cuda && std::string_view(name) == "libtorch_cuda.so") continue;
    const auto path = std::filesystem::path(lib_dir) / name;
    if (std::filesystem::exists(path)) out.push_back(path.string());
  }
  return out;
}

TorchBinaryKernels read_torch_binaries(const std::vector<std::string>& libraries) {
  TorchBinaryKernels out;
  std::unordered_map<std::string, std::string> ops;
  std::vector<std::pair<std::string, std::unique_ptr<ElfFile>>> files;
  std::vector<NameStrings> strings;
  for (const auto& lib : libraries) {
    try {
      auto elf = std::make_unique<ElfFile>(ElfFile::read(lib));
      strings.emplace_back();
      ops.merge(schema_operators(*elf, &strings.back()));
      files.emplace_back(lib, std::move(elf));
    } catch (const std::exception& e) {
      out.notes.push_back(std::string(e.what()) + ": its kernels are not read");
    }
  }
  out.schemas = ops.size();
  std::set<std::string> names;
  for (const auto& [struct_name, op] : ops) names.insert(op);
  if (!files.empty() && ops.empty())
    out.notes.push_back("no operator schema strings in the binaries' read-only data: operators cannot be named");
  if (!block_code_available())
    out.notes.push_back(
        "built without Capstone (Debian: libcapstone-dev): the registration blocks' code is not read, "
        "only kernels named by their boxing wrappers are found");
  std::set<std::pair<std::string, std::string>> placed;  // (operator, key)
  for (std::size_t f = 0; f < files.size(); ++f) {
    const auto& [lib, elf] = files[f];
    BinaryLibraryRecord record{
        lib, elf->has_symtab(), elf->has_debug_info(), elf->has_debug_info() ? "" : "no DWARF", {}};
    out.libraries.push_back(record);
    if (elf->machine() != kMachineX86_64)
      out.notes.push_back(lib + ": a binary for " + machine_name(elf->machine()) +
                          " (a wheel for another platform): its "
                          "symbols and schema strings are read, not its registration blocks' code (x86-64 only), and "
                          "it cannot be loaded here for the live registry");
    if (!elf->has_symtab())
      out.notes.push_back(lib +
                          ": no .symtab (stripped): the kernels' boxing wrappers are local symbols and cannot be "
                          "found; only exported names remain");
    std::map<std::string, std::vector<uint64_t>> kernels;         // kernel -> its boxing wrappers' addresses
    std::unordered_map<std::string, const ElfSymbol*> functions;  // qualified name -> symbol
    for (const auto& s : elf->symbols()) {
      if (!s.defined() || s.type != SymbolType::Function || s.name.find('.') != std::string::npos) continue;
      if (std::string k = boxed_kernel(s.demangled); !k.empty()) kernels[std::move(k)].push_back(s.address);
      else if (s.demangled.find("::") != std::string::npos) functions.emplace(qualified_function_name(s.demangled), &s);
    }
    std::unordered_map<uint64_t, std::string> wrapper_kernels;
    for (const auto& [k, wrappers] : kernels)
      for (uint64_t w : wrappers) wrapper_kernels.emplace(w, k);
    BlockCode blocks;
    read_impl_blocks(*elf, strings[f], names, wrapper_kernels, blocks);
    // Where a block names the kernel of a registration the names placed too, both must agree.
    std::map<std::pair<std::string, std::string>, const std::string*> block_kernel;
    for (const auto& r : blocks.registrations)
      if (!r.demangled.empty()) block_kernel[{r.op, r.dispatch_key}] = &r.demangled;
    out.blocks += blocks.blocks;
    for (const auto& [k, wrappers] : kernels) {
      ++out.boxed_kernels;
      const auto place = place_kernel(k);
      const std::string op = place ? resolve_operator(ops, names, place->struct_name) : "";
      if (op.empty()) {
        ++out.unplaced;
        continue;
      }
      // Kernels of a key no TORCH_LIBRARY_IMPL block is for are registered by code that static
      // initialisation does not run (PyTorch's Lazy kernels): not in the registry at load.
      if (blocks.blocks > 0 && !blocks.keys.count(place->key)) {
        ++out.not_in_blocks;
        continue;
      }
      const std::string* unit = nullptr;  // the unit whose block loads its boxing wrapper
      for (uint64_t w : wrappers)
        if (const auto it = blocks.loads.find(w); it != blocks.loads.end()) unit = &it->second;
      BinaryRegistrationRecord r;
      r.kind = "impl", r.block = "TORCH_FN (inferred from symbol names)", r.ns = op.substr(0, op.find("::"));
      r.dispatch_key = place->key, r.op = op, r.demangled = k, r.library = base_name(lib);
      r.inferred = true;
      if (const auto f = functions.find(k); f != functions.end()) {
        r.symbol = f->second->name;
        out.definitions.push_back({k, std::string(f->second->name), f->second->size, "", 0, base_name(lib)});
      }
      if (unit) r.unit = *unit;
      if (const auto b = block_kernel.find({r.op, r.dispatch_key}); b != block_kernel.end()) {
        ++out.block_kernels_checked;
        out.block_kernels_agree += *b->second == r.demangled;
      }
      placed.emplace(r.op, r.dispatch_key);
      out.registrations.push_back(std::move(r));
    }
    for (auto& r : blocks.registrations)
      if (placed.emplace(r.op, r.dispatch_key).second) {
        if (const auto d = functions.find(r.demangled); !r.demangled.empty() && d != functions.end()) {
          r.symbol = d->second->name;
          out.definitions.push_back(
              {r.demangled, std::string(d->second->name), d->second->size, "", 0, base_name(lib)});
        }
        out.registrations.push_back(std::move(r));
        ++out.from_block_code;
      }
  }
  return out;
}

std::string torch_kernel_family(std::string_view registered_at) {
  std::string file = base_name(registered_at.substr(0, registered_at.rfind(':')));
  static const std::regex unit(R"(^([A-Za-z]+?)(_\d+)?\.cpp$)");
  std::smatch m;
  if (!std::regex_match(file, m, unit)) return "";
  const std::string stem = m[1];
  if (stem == "VariableType") return "torch::autograd::VariableType::";
  if (stem == "TraceType") return "torch::TraceType::";
  if (stem == "ADInplaceOrViewType") return "torch::ADInplaceOrView::";
  if (stem == "RegisterFunctionalization") return "at::functionalization::";
  if (stem.starts_with("Register") && stem != "RegisterSchema" && stem.size() > 8)
    return "at::(anonymous namespace)::wrapper_" + stem.substr(8) + "_";
  return "";
}

double TorchAgreement::pair_percent() const { return all() == 0 ? 0.0 : 100.0 * double(both) / double(all()); }

double TorchAgreement::percent() const { return all() == 0 ? 0.0 : 100.0 * double(agree) / double(all()); }

TorchAgreement torch_agreement(const RegistrationView& view, std::string_view ns) {
  TorchAgreement a;
  const std::string prefix = std::string(ns) + "::";
  auto example = [](std::vector<std::string>& list, const RegistrationRow& r, const std::string& more = "") {
    if (list.size() < 20) list.push_back(r.op + " " + r.key + more);
  };
  for (const auto& r : view.rows) {
    if (!r.op.starts_with(prefix)) continue;
    const bool in_live = !r.registry_at.empty() || r.found_in.find("registry") != std::string::npos;
    const bool in_binary = r.found_in.find("binary") != std::string::npos;
    if (in_live && r.registry_at.find(".py:") != std::string::npos) {
      ++a.from_python;
      continue;
    }
    a.live += in_live, a.binary += in_binary;
    if (in_live && in_binary) {
      ++a.both;
      const std::string family = torch_kernel_family(r.registry_at);
      // A kernel the binary found only in a block's code is unnamed: the unit registering that
      // block must be the live registration's.
      const bool same_unit = !r.binary_unit.empty() && r.binary_unit == base_name(file_of_site(r.registry_at));
      a.kernel_checked += !r.kernel.empty() ? !family.empty() : !r.binary_unit.empty();
      a.kernel_unnamed += r.kernel.empty();
      if (r.kernel.empty() ? same_unit || (family.empty() && r.binary_unit.empty())
                           : family.empty() || matches_family(r.kernel, family))
        ++a.agree;
      else
        example(a.kernel_differs, r,
                ": " + (r.kernel.empty() ? "(kernel unnamed)" : r.kernel) + " registered at " + r.registry_at);
    } else if (in_live) {
      example(a.live_only, r, " (registered at " + r.registry_at + ")");
    } else {
      example(a.binary_only, r, ": " + r.kernel);
    }
  }
  return a;
}

std::string torch_dispatch_table_text(std::string_view registry_json, const std::string& op_regex) {
  json j;
  try {
    j = json::parse(registry_json);
  } catch (const json::exception& e) {
    throw ValueError(std::string("registry JSON does not parse: ") + e.what());
  }
  std::optional<std::regex> pattern;
  if (!op_regex.empty()) pattern.emplace(op_regex);
  std::string out;
  for (const auto& op : j.value("operators", json::array())) {
    const std::string name = op.value("name", "");
    if (pattern && !std::regex_search(name, *pattern)) continue;
    out += "dispatch table of " + name + ":\n";
    for (const auto& slot : op.value("table", json::array())) {
      out += slot.value("key", "") + ": " + (slot.value("fallthrough", false) ? "fallthrough " : "") +
             "registered at " + slot.value("registered_at", "") + " [" + slot.value("provenance", "") + "]\n";
    }
  }
  return out;
}

}  // namespace glassbox::introspect
