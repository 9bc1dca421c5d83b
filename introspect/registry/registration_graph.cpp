#include "introspect/registry/registration_graph.h"

#include <dlfcn.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "graphs/json_writer.h"
#include "introspect/buildtree/build_index.h"

namespace glassbox::introspect {
namespace {

using json = nlohmann::json;

std::string site(const std::string& file, int line) { return file.empty() ? "" : file + ":" + std::to_string(line); }

// One registration as each source of truth sees it.
struct Entry {
  std::string op, key;  // key "def" for the schema; op "" for a fallback
  // registry
  bool in_registry = false;
  std::string registry_at, serves;
  // sources
  const SourceRegistration* source = nullptr;
  // binary: a record of this registration, or of the block it was written in (binary_at: the
  // block has code at the registration's line; "" when matched by namespace and key alone)
  const BinaryRegistrationRecord* binary = nullptr;
  const BinaryRegistrationRecord* binary_block = nullptr;
  std::string binary_at;
};

std::string qualify(const std::string& ns, const std::string& op) {
  if (op.empty() || op.find("::") != std::string::npos) return op;
  return ns + "::" + op;
}

std::string file_of(const std::string& at) { return at.substr(0, at.rfind(':')); }

int line_of(const std::string& at) {
  const auto colon = at.rfind(':');
  if (colon == std::string::npos) return 0;
  try {
    return std::stoi(at.substr(colon + 1));
  } catch (const std::exception&) {
    return 0;
  }
}

// The line of "file:line" as written; "" for a site with no line ("registered by RegisterOperators").
std::string line_text(const std::string& at) {
  const auto colon = at.rfind(':');
  return colon == std::string::npos ? "" : at.substr(colon + 1);
}

std::string namespace_of(const std::string& op) {
  const auto colons = op.find("::");
  return colons == std::string::npos ? "" : op.substr(0, colons);
}

// "../../tests/a.cpp" (__FILE__ as spelled from a build directory) names tests/a.cpp under some
// root: the leading "./" and "../" are not part of what is compared.
std::string_view without_leading_dots(std::string_view path) {
  while (path.starts_with("./") || path.starts_with("../")) path.remove_prefix(path[1] == '/' ? 2 : 3);
  return path;
}

bool same_file(std::string_view a, std::string_view b) {
  a = without_leading_dots(a), b = without_leading_dots(b);
  if (a.size() < b.size()) std::swap(a, b);
  return a == b || (!b.empty() && a.ends_with(b) && a[a.size() - b.size() - 1] == '/');
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

class Joiner {
 public:
  Joiner(const RegistrationInputs& in, const RegistrationFilter& filter) : in_(in), filter_(filter) {
    if (!filter.op_regex.empty()) {
      try {
        op_regex_.emplace(filter.op_regex);
      } catch (const std::regex_error& e) {
        throw ValueError("ops: the operator filter \"" + filter.op_regex + "\" is not a valid regex: " + e.what());
      }
    }
    if (in.reply) index_.emplace(*in.reply);
    if (in.sources)
      for (const auto& u : in.sources->units) scanned_.insert(u);
    for (const auto& d : in.kernel_definitions) {
      auto& slot = definitions_[d.name];
      if (!slot || (slot->file.empty() && !d.file.empty())) slot = &d;
    }
    for (const auto& lib : in.binary_libraries)
      if (lib.has_symtab && lib.has_lines)
        for (const auto& u : lib.compile_units) compiled_[base_name(u)].push_back({u, lib.library});
  }

  RegistrationView run() {
    RegistrationView view;
    if (in_.registry_json) read_registry(view);
    if (in_.sources) {
      view.sources_used.push_back("sources");
      for (const auto& r : in_.sources->registrations) {
        Entry& e = entry(r.kind == "fallback" ? "" : r.qualified_op(), r.kind == "def" ? "def" : r.dispatch_key);
        if (!e.source) e.source = &r;
      }
    }
    if (in_.binary) {
      view.sources_used.push_back("binary");
      for (const auto& b : *in_.binary) {
        if (b.kind == "block" || b.kind == "op_handle") continue;
        has_registration_records_ = true;
        has_def_records_ |= b.kind == "def";
        const std::string op = b.kind == "fallback" ? "" : qualify(b.ns, b.op);
        Entry& e = entry(op, b.kind == "def" ? "def" : b.dispatch_key);
        if (!e.binary) e.binary = &b;
      }
      match_blocks();
      notes(view);
    }
    if (index_) view.sources_used.push_back("file_api");
    check_key();
    build(view);
    return view;
  }

  // A key no registration has or serves is most likely misspelt: say which keys there are.
  void check_key() const {
    if (filter_.key.empty() || entries_.empty()) return;
    std::set<std::string> keys;
    for (const auto& [k, e] : entries_) {
      if (e.key == filter_.key || serves(e, filter_.key)) return;
      if (e.key != "def") keys.insert(e.key);
    }
    std::string known;
    for (const auto& k : keys) known += (known.empty() ? "" : ", ") + k;
    throw ValueError("ops: no registration is for or serves the dispatch key \"" + filter_.key +
                     "\" (keys registered: " + (known.empty() ? "none" : known) + ")");
  }

 private:
  Entry& entry(const std::string& op, const std::string& key) {
    auto [it, added] = entries_.try_emplace({op, key});
    if (added) it->second.op = op, it->second.key = key;
    return it->second;
  }

  // Whether a block (its namespace and key) can hold the registration `e`: a def is in its
  // namespace's DEF or FRAGMENT block, a kernel in an IMPL block of its key or (an explicit key, or
  // CompositeImplicitAutograd) in a DEF/FRAGMENT block, a fallback in an IMPL block of its key.
  static bool block_holds(const BinaryRegistrationRecord& b, const Entry& e) {
    if (e.op.empty()) return b.dispatch_key == e.key;
    if (b.ns != namespace_of(e.op)) return false;
    if (e.key == "def") return b.dispatch_key.empty();
    return b.dispatch_key.empty() || b.dispatch_key == e.key;
  }

  // A block's function in a binary holds the registrations written in it: a registration is in
  // the binary at file:line when a block that can hold it, built from that file, has code at that
  // line. In a binary without lines, a block that can hold it is all there is to match.
  void match_blocks() {
    std::vector<const BinaryRegistrationRecord*> blocks;
    for (const auto& b : *in_.binary)
      if (b.kind == "block") blocks.push_back(&b);
    for (auto& [k, e] : entries_) {
      std::vector<std::string> sites;
      if (!e.registry_at.empty()) sites.push_back(e.registry_at);
      if (e.source) sites.push_back(site(e.source->file, e.source->line));
      for (const BinaryRegistrationRecord* b : blocks) {
        if (!block_holds(*b, e)) continue;
        if (b->file.empty()) {
          if (!e.binary_block) e.binary_block = b;
          continue;
        }
        for (const auto& at : sites) {
          const int line = line_of(at);
          if (!same_file(b->file, file_of(at)) || !std::binary_search(b->code_lines.begin(), b->code_lines.end(), line))
            continue;
          e.binary_block = b;
          e.binary_at = site(b->file, line);
          break;
        }
        if (!e.binary_at.empty()) break;
      }
    }
  }

  // What the binaries could not show: their registration blocks (no .symtab) or where they are
  // (no DWARF).
  void notes(RegistrationView& view) const {
    for (const auto& lib : in_.binary_libraries) {
      if (!lib.has_symtab)
        view.notes.push_back(lib.library +
                             ": no .symtab (stripped): registration blocks are local symbols and "
                             "cannot be found; its registrations are not compared");
      else if (!lib.has_lines)
        view.notes.push_back(lib.library + ": " + lib.line_message +
                             ": its registration blocks are matched by namespace and key, without file:line");
    }
  }

  // The binary (with symbols and lines) that was built from `file`, or "".
  std::string compiled_into(const std::string& file) const {
    const auto it = compiled_.find(base_name(file));
    if (it == compiled_.end()) return "";
    for (const auto& [unit, library] : it->second)
      if (same_file(unit, file)) return library;
    return "";
  }

  void read_registry(RegistrationView& view) {
    json j;
    try {
      j = json::parse(*in_.registry_json);
    } catch (const json::exception& e) {
      throw ValueError(std::string("registry JSON does not parse: ") + e.what());
    }
    if (j.value("format", "") != "glassbox-registry")
      throw ValueError("registry JSON: expected \"format\": \"glassbox-registry\" (from glassbox.registry.to_json())");
    view.sources_used.push_back("registry");
    for (const auto& op : j.value("operators", json::array())) {
      const std::string name = op.value("name", "");
      if (const std::string at = op.value("defined_at", ""); !at.empty()) {
        Entry& e = entry(name, "def");
        e.in_registry = true, e.registry_at = at;
      }
      const json table = op.value("table", json::array());
      for (const auto& k : op.value("kernels", json::array())) {
        if (!k.value("active", true)) continue;
        Entry& e = entry(name, k.value("key", ""));
        e.in_registry = true, e.registry_at = k.value("registered_at", "");
        for (const auto& slot : table)
          if (slot.value("source_key", "") == e.key && slot.value("registered_at", "") == e.registry_at &&
              slot.value("provenance", "") != "backend fallback")
            e.serves += (e.serves.empty() ? "" : ",") + slot.value("key", "");
      }
    }
    for (const auto& f : j.value("fallbacks", json::array())) {
      Entry& e = entry("", f.value("key", ""));
      e.in_registry = true, e.registry_at = f.value("registered_at", "");
      if (f.value("fallthrough", false)) e.serves = "(fallthrough)";
    }
  }

  bool keep(const Entry& e) const {
    const std::string& name = e.op.empty() ? std::string("(fallback)") : e.op;
    if (op_regex_ && (e.op.empty() || !std::regex_search(name, *op_regex_))) return false;
    if (!filter_.key.empty() && e.key != "def" && e.key != filter_.key && !serves(e, filter_.key)) return false;
    return true;
  }

  static bool serves(const Entry& e, const std::string& key) {
    return ("," + e.serves + ",").find("," + key + ",") != std::string::npos;
  }

  // Registrations one source has and another does not, or at different places.
  std::vector<std::string> disagreements(const Entry& e) const {
    std::vector<std::string> out;
    const std::string src_at = e.source ? site(e.source->file, e.source->line) : "";
    const std::string bin_at = e.binary ? site(e.binary->file, e.binary->line) : "";
    const std::string any_at = !e.registry_at.empty() ? e.registry_at : !src_at.empty() ? src_at : bin_at;
    if (in_.registry_json && !e.in_registry) out.push_back("not in the running registry");
    if (in_.sources && !e.source && was_scanned(file_of(any_at))) out.push_back("not found in the sources");
    if (!e.binary && !e.binary_block) {
      const std::string library = any_at.empty() ? "" : compiled_into(file_of(any_at));
      if (!library.empty())
        out.push_back("not found in the binary: " + library + " is built from " + file_of(any_at) +
                      " but no registration block of it has code at line " + std::to_string(line_of(any_at)));
      else if (has_registration_records_ && (e.key != "def" || has_def_records_))  // PyTorch's binary side has no defs
        out.push_back("not found in the binary");
    }
    std::map<std::string, std::string> sites;  // who -> file:line
    if (e.in_registry) sites["registry"] = e.registry_at;
    if (e.source) sites["sources"] = src_at;
    if (e.binary && !e.binary->file.empty()) sites["binary"] = bin_at;
    else if (!e.binary_at.empty()) sites["binary"] = e.binary_at;
    bool differ = false;
    for (const auto& [who, at] : sites) differ |= !same_site(at, sites.begin()->second);
    if (differ) {
      std::string text = "file:line differs:";
      for (const auto& [who, at] : sites) text += " " + who + " " + at + ",";
      text.pop_back();
      out.push_back(text);
    }
    if (e.source && e.binary && !e.source->kernel.empty() && !e.binary->demangled.empty() &&
        e.source->kernel.front() != '(' && e.binary->demangled.find(e.source->kernel) == std::string::npos)
      out.push_back("kernel differs: sources " + e.source->kernel + ", binary " + e.binary->demangled);
    return out;
  }

  bool was_scanned(const std::string& file) const {
    if (scanned_.count(file)) return true;
    for (const auto& u : scanned_)
      if (same_file(u, file)) return true;
    return false;
  }

  // The target compiling `file` (relative to the source root) and its artifact.
  std::pair<std::string, std::string> target_of(const std::string& file) const {
    if (!index_ || file.empty()) return {};
    const std::string abs = file.front() == '/' ? file : absolute_path(file, index_->source_dir());
    const auto& targets = index_->targets_of_source(abs);
    for (const Target* t : targets) {
      if (t->artifacts.empty()) continue;
      return {t->name, t->artifacts.front()};
    }
    return targets.empty() ? std::pair<std::string, std::string>{} : std::pair{targets.front()->name, std::string()};
  }

  // The registration's file:line: the sources' spelling (a path under the source root) when they
  // agree with the registry, else the registry's, the sources' or the binary's.
  static std::string registered_at(const Entry& e) {
    const std::string src = e.source ? site(e.source->file, e.source->line) : "";
    if (!src.empty() && (e.registry_at.empty() || same_site(src, e.registry_at))) return src;
    if (!e.registry_at.empty()) return e.registry_at;
    if (!src.empty()) return src;
    return e.binary ? site(e.binary->file, e.binary->line) : "";
  }

  graphs::NodeIndex site_node(graphs::Graph& g, const std::string& at) {
    const std::string file = file_of(at);
    const bool generated = file.find("generated/") != std::string::npos;
    const auto i = g.ensure_node("site:" + at, generated ? graphs::NodeKind::GeneratedSource : graphs::NodeKind::Source,
                                 base_name(at), {{"path", file}, {"file", file}, {"line", line_text(at)}});
    return i;
  }

  void mark(graphs::Graph& g, graphs::NodeIndex n, const std::vector<std::string>& what) {
    if (what.empty()) return;
    std::string text;
    for (const auto& w : what) text += (text.empty() ? "" : "; ") + w;
    g.set_attribute(n, "disagreement", text);
    g.set_attribute(n, "dot:color", "red");
    g.set_attribute(n, "dot:penwidth", "2");
  }

  void build(RegistrationView& view) {
    graphs::Graph& g = view.graph;
    if (in_.sources && !in_.sources->source_root.empty()) g.set_attribute("source_root", in_.sources->source_root);
    else if (index_) g.set_attribute("source_root", index_->source_dir());
    g.set_attribute("title", "operator registrations");
    // Operators with at least one registration kept.
    std::set<std::string> ops;
    for (const auto& [k, e] : entries_)
      if (e.key != "def" && keep(e)) ops.insert(e.op);
    if (filter_.key.empty())
      for (const auto& [k, e] : entries_)
        if (e.key == "def" && keep(e)) ops.insert(e.op);

    std::map<std::string, graphs::NodeIndex> schema_of;
    for (const auto& [k, e] : entries_) {  // schemas first: the impls hang off them
      if (e.key != "def" || !ops.count(e.op)) continue;
      RegistrationRow row = make_row(e);
      const auto op = g.ensure_node("op:" + e.op, graphs::NodeKind::Operator, e.op);
      const SourceRegistration* s = e.source;
      graphs::Attributes attrs{{"schema", s ? s->schema : ""}};
      if (!row.schema_at.empty()) {
        const std::string yaml = file_of(row.schema_at);
        attrs.emplace("path", yaml), attrs.emplace("file", yaml),
            attrs.emplace("line", std::to_string(line_of(row.schema_at)));
      }
      const auto schema = g.ensure_node("schema:" + e.op, graphs::NodeKind::Source,
                                        row.schema_at.empty() ? "schema" : base_name(row.schema_at), attrs);
      g.add_edge(op, schema, graphs::EdgeKind::Defines, "declared in");
      schema_of[e.op] = schema;
      for (const auto& w : row.disagreements) view.disagreements.push_back({e.op, "def", w});
      if (!row.registered_at.empty()) {
        const auto reg = site_node(g, row.registered_at);
        const auto edge = g.add_edge(schema, reg, graphs::EdgeKind::Registers, "def");
        mark(g, reg, row.disagreements);
        if (!row.disagreements.empty())
          g.set_edge_attribute(edge, "disagreement", g.node(reg).attribute("disagreement").data());
      }
      view.schemas.push_back(std::move(row));
    }

    for (const auto& [k, e] : entries_) {
      if (e.key == "def" || !keep(e) || (!e.op.empty() && !ops.count(e.op))) continue;
      RegistrationRow row = make_row(e);
      for (const auto& w : row.disagreements) view.disagreements.push_back({row.op, row.key, w});
      add_to_graph(g, e, row, schema_of);
      view.rows.push_back(std::move(row));
    }
  }

  // `path` relative to the build directory (as given, or absolute) when it lies inside it.
  std::string in_build_dir(const std::string& path) const {
    for (const std::string& dir : {in_.reply->build_dir, in_.reply->codemodel.build_dir}) {
      std::string rel = graphs::path_relative_to(path, dir);
      if (!dir.empty() && rel != path) return rel;
    }
    return path;
  }

  // The YAML line an operator's generated registrations name (any of them: the def's unit may not
  // have been scanned).
  std::string yaml_of(const std::string& op) const {
    for (auto it = entries_.lower_bound({op, ""}); it != entries_.end() && it->first.first == op; ++it)
      if (const SourceRegistration* s = it->second.source; s && !s->yaml_file.empty())
        return site(s->yaml_file, s->yaml_line);
    return "";
  }

  const KernelDefinitionRecord* definition_of(std::string kernel) const {
    if (kernel.starts_with("::")) kernel.erase(0, 2);
    const auto it = definitions_.find(kernel);
    return it == definitions_.end() ? nullptr : it->second;
  }

  static bool is_header(const std::string& file) {
    for (const char* ext : {".h", ".hpp", ".hh", ".cuh", ".inc"})
      if (file.ends_with(ext)) return true;
    return false;
  }

  // An absolute path relative to the source root when it lies inside it ("engine/cpu/linalg.cpp").
  std::string in_source_root(const std::string& path) const {
    std::string root = in_.sources ? in_.sources->source_root : "";
    if (root.empty() && index_) root = index_->source_dir();
    return root.empty() ? path : graphs::path_relative_to(path, root);
  }

  // One registration as the table shows it: the kernel, where each source of truth has it, the
  // library and target, and what they disagree on. A def's row names the target building the
  // registration; a kernel's, the one building the kernel.
  RegistrationRow make_row(const Entry& e) const {
    RegistrationRow row;
    row.op = e.op.empty() ? "(fallback)" : e.op;
    row.key = e.key;
    row.serves = e.serves;
    const SourceRegistration* s = e.source;
    const BinaryRegistrationRecord* b = e.binary ? e.binary : e.binary_block;
    if (e.key != "def") row.kernel = s ? s->kernel : e.binary ? e.binary->demangled : "";
    row.registered_at = registered_at(e);
    row.registry_at = e.registry_at;
    row.sources_at = s ? site(s->file, s->line) : "";
    row.binary_at = e.binary && !e.binary->file.empty() ? site(e.binary->file, e.binary->line) : e.binary_at;
    row.kernel_at = s && e.key != "def" ? site(s->kernel_file, s->kernel_line) : "";
    std::string kernel_file = s && e.key != "def" ? s->kernel_file : "";
    if (const KernelDefinitionRecord* d = definition_of(row.kernel)) {
      row.kernel_symbol = d->symbol, row.kernel_size = d->size;
      // Sources that only saw the kernel declared (the generated native/<op>.h) are replaced by
      // the binary's line of its first instruction: the definition.
      if (!d->file.empty() && (kernel_file.empty() || !s->kernel_defined || is_header(kernel_file))) {
        kernel_file = d->file;
        row.kernel_at = site(in_source_root(d->file), d->line);
      }
    }
    row.schema_at = s ? site(s->yaml_file, s->yaml_line) : "";
    if (e.key == "def" && row.schema_at.empty()) row.schema_at = yaml_of(e.op);
    auto [target, artifact] = target_of(e.key == "def" ? file_of(row.registered_at) : kernel_file);
    row.target = target;
    row.library = artifact;
    if (b && !b->library.empty()) {
      if (!artifact.empty() && base_name(b->library) != base_name(artifact))
        row.disagreements.push_back("library differs: file API " + artifact + ", binary " + b->library);
      // Spelled as the File API spells artifacts: relative to the build directory when inside it.
      if (artifact.empty()) row.library = in_.reply ? in_build_dir(b->library) : b->library;
    }
    row.inferred = b && b->inferred;
    if (b) row.binary_unit = b->unit;
    for (const char* who : {"registry", "sources", "binary"}) {
      const bool has = std::string(who) == "registry"  ? e.in_registry
                       : std::string(who) == "sources" ? s != nullptr
                                                       : b != nullptr;
      if (has) row.found_in += (row.found_in.empty() ? "" : ",") + std::string(who);
    }
    for (auto& w : disagreements(e)) row.disagreements.push_back(std::move(w));
    return row;
  }

  void add_to_graph(graphs::Graph& g, const Entry& e, const RegistrationRow& row,
                    const std::map<std::string, graphs::NodeIndex>& schema_of) {
    if (e.op.empty()) return;  // fallbacks serve every operator: table only
    const auto op = g.ensure_node("op:" + e.op, graphs::NodeKind::Operator, e.op);
    const auto parent = schema_of.count(e.op) ? schema_of.at(e.op) : op;
    const auto key = g.ensure_node("key:" + e.op + ":" + e.key, graphs::NodeKind::DispatchKey, e.key,
                                   {{"serves", row.serves}, {"found_in", row.found_in}});
    mark(g, key, row.disagreements);
    if (!row.registered_at.empty()) {
      const auto reg = site_node(g, row.registered_at);
      mark(g, reg, row.disagreements);
      g.add_edge(parent, reg, graphs::EdgeKind::Registers, "impl");
      g.add_edge(reg, key, graphs::EdgeKind::Registers);
    } else {
      g.add_edge(parent, key, graphs::EdgeKind::Registers, "impl");
    }
    if (row.kernel.empty()) return;
    const auto kernel = g.ensure_node("kernel:" + row.kernel, graphs::NodeKind::Kernel, row.kernel);
    g.ensure_edge(key, kernel, graphs::EdgeKind::DispatchesTo);
    if (row.kernel_at.empty()) {  // no line information: the kernel is in its library all the same
      if (row.library.empty()) return;
      const auto lib = g.ensure_node("lib:" + row.library, graphs::NodeKind::Library, row.library);
      g.set_edge_label(g.ensure_edge(kernel, lib, graphs::EdgeKind::Compiles), "built into");
      return;
    }
    const std::string file = file_of(row.kernel_at);
    const auto src = g.ensure_node("src:" + row.kernel_at, graphs::NodeKind::Source, base_name(row.kernel_at),
                                   {{"path", file}, {"file", file}, {"line", line_text(row.kernel_at)}});
    const auto def = g.ensure_edge(kernel, src, graphs::EdgeKind::Defines);
    g.set_edge_label(def, "defined at");
    if (row.library.empty()) return;
    const auto lib = g.ensure_node("lib:" + row.library, graphs::NodeKind::Library, row.library);
    const auto in = g.ensure_edge(src, lib, graphs::EdgeKind::Compiles);
    g.set_edge_label(in, "built into");
    if (row.target.empty()) return;
    const auto target = g.ensure_node("target:" + row.target, graphs::NodeKind::Target, row.target);
    const auto by = g.ensure_edge(lib, target, graphs::EdgeKind::Depends);
    g.set_edge_label(by, "CMake target");
  }

  const RegistrationInputs& in_;
  const RegistrationFilter& filter_;
  std::optional<std::regex> op_regex_;
  std::optional<BuildIndex> index_;
  std::set<std::string> scanned_;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> compiled_;  // base name -> (unit, library)
  std::map<std::string, const KernelDefinitionRecord*> definitions_;                  // by qualified kernel name
  bool has_registration_records_ = false;  // the binary side lists single registrations, not only blocks
  bool has_def_records_ = false;           // ... and schema definitions among them
  std::map<std::pair<std::string, std::string>, Entry> entries_;  // ordered: by operator, then key
};

}  // namespace

bool same_site(std::string_view a, std::string_view b) {
  const auto ca = a.rfind(':'), cb = b.rfind(':');
  if (ca == std::string_view::npos || cb == std::string_view::npos) return a == b;
  return a.substr(ca) == b.substr(cb) && same_file(a.substr(0, ca), b.substr(0, cb));
}

std::string RegistrationRow::agreement() const {
  if (disagreements.empty()) return "ok";
  std::string out;
  for (const auto& d : disagreements) out += (out.empty() ? "" : "; ") + d;
  return out;
}

RegistrationView build_registration_view(const RegistrationInputs& inputs, const RegistrationFilter& filter) {
  return Joiner(inputs, filter).run();
}

std::string registration_view_to_json(const RegistrationView& view) {
  nlohmann::ordered_json j;
  j["format"] = "glassbox-registrations";
  j["sources_used"] = view.sources_used;
  j["notes"] = view.notes;
  auto rows = [](const std::vector<RegistrationRow>& list) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : list) {
      out.push_back({{"operator", r.op},
                     {"key", r.key},
                     {"serves", r.serves},
                     {"kernel", r.kernel},
                     {"registered_at", r.registered_at},
                     {"kernel_at", r.kernel_at},
                     {"kernel_symbol", r.kernel_symbol},
                     {"kernel_size", r.kernel_size},
                     {"schema_at", r.schema_at},
                     {"library", r.library},
                     {"target", r.target},
                     {"found_in", r.found_in},
                     {"inferred", r.inferred},
                     {"binary_unit", r.binary_unit},
                     {"registry_at", r.registry_at},
                     {"sources_at", r.sources_at},
                     {"binary_at", r.binary_at},
                     {"agreement", r.agreement()},
                     {"disagreements", r.disagreements}});
    }
    return out;
  };
  j["rows"] = rows(view.rows);
  j["schemas"] = rows(view.schemas);
  j["disagreements"] = nlohmann::ordered_json::array();
  for (const auto& d : view.disagreements)
    j["disagreements"].push_back({{"operator", d.op}, {"key", d.key}, {"what", d.what}});
  j["graph"] = nlohmann::ordered_json::parse(graphs::to_json(view.graph));
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string registry_json_from_libraries(const std::vector<std::string>& libraries) {
  if (libraries.empty()) throw ValueError("registry: no library to load");
  std::vector<void*> handles;
  for (const auto& lib : libraries) {
    // RTLD_GLOBAL: a later library resolves the registry's symbols against the earlier ones.
    void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) throw Error(lib + ": cannot be loaded: " + dlerror());
    handles.push_back(handle);
  }
  using JsonFn = char* (*)(int);
  using FreeFn = void (*)(char*);
  // Any of them may be the one linked with glassbox_core (e.g. core itself, loaded first).
  JsonFn json_fn = nullptr;
  FreeFn free_fn = nullptr;
  for (auto it = handles.rbegin(); it != handles.rend() && !(json_fn && free_fn); ++it) {
    json_fn = reinterpret_cast<JsonFn>(dlsym(*it, "glassbox_registry_json"));
    free_fn = reinterpret_cast<FreeFn>(dlsym(*it, "glassbox_registry_json_free"));
  }
  if (!json_fn || !free_fn)
    throw Error(libraries.back() +
                ": no glassbox_registry_json() (not linked with glassbox_core, or an older glassbox)");
  char* text = json_fn(0);
  if (!text) throw Error(libraries.back() + ": glassbox_registry_json() failed");
  std::string out(text);
  free_fn(text);
  return out;
}

}  // namespace glassbox::introspect
