// glassbox._introspect: the readers and graph builders for Python. python/glassbox/introspect.py
// wraps these in the public API (gb.introspect.deps(...), ...); types here are module-local so
// that other glassbox modules may bind the same C++ types without clashing.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "graphs/dot_writer.h"
#include "graphs/filters.h"
#include "graphs/json_writer.h"
#include "graphs/render.h"
#include "introspect/binary/binary_registrations.h"
#include "introspect/binary/symbol_listing.h"
#include "introspect/buildtree/build_times.h"
#include "introspect/buildtree/compile_database.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/buildtree/include_graph.h"
#include "introspect/buildtree/module_graph.h"
#include "introspect/buildtree/ninja_deps.h"
#include "introspect/registry/registration_graph.h"
#include "introspect/registry/registration_inputs.h"
#include "introspect/source/source_scan.h"
#include "introspect/support/process.h"

namespace py = pybind11;
namespace gi = glassbox::introspect;
namespace gg = glassbox::graphs;

namespace {

// Filters from keyword arguments (the same names as the CLI's flags, with underscores).
gg::FilterOptions filters_from(const py::dict& kw) {
  gg::FilterOptions f;
  auto strings = [&](const char* key) {
    std::vector<std::string> out;
    if (!kw.contains(key) || kw[key].is_none()) return out;
    py::object v = kw[key];
    if (py::isinstance<py::str>(v)) out.push_back(v.cast<std::string>());
    else out = v.cast<std::vector<std::string>>();
    return out;
  };
  auto flag = [&](const char* key) { return kw.contains(key) && kw[key].cast<bool>(); };
  f.include = strings("include");
  f.exclude = strings("exclude");
  f.roots = strings("root");
  if (kw.contains("depth") && !kw["depth"].is_none()) f.depth = kw["depth"].cast<int>();
  if (flag("both_directions")) f.direction = gg::Direction::Both;
  f.hide_external = flag("no_system");
  f.collapse_sources = flag("collapse_sources");
  f.collapse_objects = flag("collapse_objects");
  f.cluster_by_directory = flag("cluster");
  if (kw.contains("cluster_depth") && !kw["cluster_depth"].is_none())
    f.clusters.max_depth = kw["cluster_depth"].cast<int>();
  return f;
}

std::string graph_attribute(const gg::Graph& g, const char* key) {
  auto it = g.attributes().find(key);
  return it == g.attributes().end() ? "" : it->second;
}

// Roots may name a node by id, label or "name" attribute, as on the command line.
void resolve_roots(const gg::Graph& g, gg::FilterOptions& f) {
  for (auto& root : f.roots) {
    if (g.contains(root)) continue;
    for (const auto& n : g.nodes()) {
      if (n.label == root || n.attribute("name") == root) {
        root = n.id;
        break;
      }
    }
  }
}

gg::Graph filtered(const gg::Graph& g, const py::dict& kw) {
  gg::FilterOptions f = filters_from(kw);
  resolve_roots(g, f);
  if (f.cluster_by_directory && f.clusters.root.empty()) f.clusters.root = graph_attribute(g, "source_root");
  return gg::apply_filters(g, f);
}

gg::DotOptions dot_options(const gg::Graph& g, const std::string& rankdir, bool legend) {
  gg::DotOptions d;
  d.rankdir = rankdir;
  d.legend = legend;
  d.source_root = graph_attribute(g, "source_root");
  return d;
}

py::dict node_dict(const gg::Node& n) {
  py::dict d;
  d["id"] = n.id;
  d["kind"] = std::string(gg::to_string(n.kind));
  d["label"] = n.display_label();
  d["attributes"] = py::cast(std::map<std::string, std::string>(n.attributes.begin(), n.attributes.end()));
  return d;
}

}  // namespace

PYBIND11_MODULE(_introspect, m) {
  m.doc() = "glassbox build introspection: compile databases, the CMake File API, Ninja logs, graphs";
  // Module-local: errors raised by glassbox._C keep their own translation.
  py::register_local_exception<glassbox::Error>(m, "IntrospectError", PyExc_RuntimeError);

  // --- compile_commands.json
  py::class_<gi::IncludeDir>(m, "IncludeDir", py::module_local())
      .def_readonly("path", &gi::IncludeDir::path)
      .def_property_readonly("kind", [](const gi::IncludeDir& d) { return gi::include_kind_name(d.kind); })
      .def("__repr__",
           [](const gi::IncludeDir& d) { return "IncludeDir(" + d.path + ", " + gi::include_kind_name(d.kind) + ")"; });
  py::class_<gi::CompileCommand>(m, "CompileCommand", py::module_local())
      .def_readonly("directory", &gi::CompileCommand::directory)
      .def_readonly("file", &gi::CompileCommand::file)
      .def_readonly("output", &gi::CompileCommand::output)
      .def_readonly("arguments", &gi::CompileCommand::arguments)
      .def_property_readonly("compiler", &gi::CompileCommand::compiler)
      .def_property_readonly("includes", [](const gi::CompileCommand& c) { return c.flags.includes; })
      .def_property_readonly("defines", [](const gi::CompileCommand& c) { return c.flags.defines; })
      .def_property_readonly("undefines", [](const gi::CompileCommand& c) { return c.flags.undefines; })
      .def_property_readonly("standard", [](const gi::CompileCommand& c) { return c.flags.standard; })
      .def_property_readonly("other_flags", [](const gi::CompileCommand& c) { return c.flags.other_flags; })
      .def("__repr__", [](const gi::CompileCommand& c) { return "<CompileCommand " + c.file + ">"; });
  py::class_<gi::CompileDatabase>(m, "CompileDatabase", py::module_local())
      .def_readonly("file", &gi::CompileDatabase::file)
      .def_readonly("commands", &gi::CompileDatabase::commands)
      .def_readonly("warnings", &gi::CompileDatabase::warnings)
      .def(
          "find_source",
          [](const gi::CompileDatabase& db, const std::string& s) {
    std::vector<gi::CompileCommand> out;
    for (auto* c : db.find_source(s)) out.push_back(*c);
    return out;
          })
      .def("__len__", [](const gi::CompileDatabase& db) { return db.commands.size(); })
      .def("__repr__", [](const gi::CompileDatabase& db) {
        return "<CompileDatabase " + db.file + ": " + std::to_string(db.commands.size()) + " entries>";
      });
  m.def("read_compile_database", &gi::read_compile_database, py::arg("build_dir_or_file"));

  // --- the CMake File API
  py::class_<gi::DefinitionSite>(m, "DefinitionSite", py::module_local())
      .def_readonly("file", &gi::DefinitionSite::file)
      .def_readonly("line", &gi::DefinitionSite::line)
      .def_readonly("command", &gi::DefinitionSite::command)
      .def("__repr__", [](const gi::DefinitionSite& s) { return s.file + ":" + std::to_string(s.line); });
  py::class_<gi::TargetSource>(m, "TargetSource", py::module_local())
      .def_readonly("path", &gi::TargetSource::path)
      .def_readonly("generated", &gi::TargetSource::generated)
      .def_readonly("compile_group", &gi::TargetSource::compile_group)
      .def_readonly("source_group", &gi::TargetSource::source_group)
      .def("__repr__",
           [](const gi::TargetSource& s) { return "<TargetSource " + s.path + (s.generated ? " (generated)>" : ">"); });
  py::class_<gi::CompileGroup>(m, "CompileGroup", py::module_local())
      .def_readonly("language", &gi::CompileGroup::language)
      .def_readonly("language_standard", &gi::CompileGroup::language_standard)
      .def_readonly("fragments", &gi::CompileGroup::fragments)
      .def_property_readonly(
          "includes",
          [](const gi::CompileGroup& g) {
    std::vector<std::pair<std::string, bool>> out;
    for (const auto& i : g.includes) out.emplace_back(i.path, i.system);
    return out;
          })
      .def_readonly("defines", &gi::CompileGroup::defines)
      .def_readonly("source_indexes", &gi::CompileGroup::source_indexes);
  py::class_<gi::Target>(m, "Target", py::module_local())
      .def_readonly("name", &gi::Target::name)
      .def_readonly("id", &gi::Target::id)
      .def_readonly("type", &gi::Target::type)
      .def_readonly("name_on_disk", &gi::Target::name_on_disk)
      .def_readonly("artifacts", &gi::Target::artifacts)
      .def_readonly("source_dir", &gi::Target::source_dir)
      .def_readonly("build_dir", &gi::Target::build_dir)
      .def_readonly("sources", &gi::Target::sources)
      .def_readonly("compile_groups", &gi::Target::compile_groups)
      .def_readonly("link_language", &gi::Target::link_language)
      .def_property_readonly(
          "link_fragments",
          [](const gi::Target& t) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& f : t.link_fragments) out.emplace_back(f.fragment, f.role);
    return out;
          })
      .def_readonly("dependencies", &gi::Target::dependencies)
      .def_readonly("defined_at", &gi::Target::defined_at)
      .def_readonly("backtrace", &gi::Target::backtrace)
      .def("__repr__", [](const gi::Target& t) { return "<Target " + t.name + " (" + t.type + ")>"; });
  py::class_<gi::Directory>(m, "Directory", py::module_local())
      .def_readonly("source", &gi::Directory::source)
      .def_readonly("build", &gi::Directory::build)
      .def_readonly("parent", &gi::Directory::parent)
      .def_readonly("targets", &gi::Directory::targets)
      .def_readonly("project", &gi::Directory::project);
  py::class_<gi::Toolchain>(m, "Toolchain", py::module_local())
      .def_readonly("language", &gi::Toolchain::language)
      .def_readonly("compiler_path", &gi::Toolchain::compiler_path)
      .def_readonly("compiler_id", &gi::Toolchain::compiler_id)
      .def_readonly("compiler_version", &gi::Toolchain::compiler_version)
      .def_readonly("implicit_includes", &gi::Toolchain::implicit_includes)
      .def("__repr__", [](const gi::Toolchain& t) {
        return "<Toolchain " + t.language + ": " + t.compiler_id + " " + t.compiler_version + ">";
      });
  py::class_<gi::FileApiReply>(m, "FileApiReply", py::module_local())
      .def_readonly("build_dir", &gi::FileApiReply::build_dir)
      .def_readonly("index_file", &gi::FileApiReply::index_file)
      .def_readonly("cmake_version", &gi::FileApiReply::cmake_version)
      .def_readonly("generator", &gi::FileApiReply::generator)
      .def_property_readonly("source_dir", [](const gi::FileApiReply& r) { return r.codemodel.source_dir; })
      .def_property_readonly(
          "codemodel_version",
          [](const gi::FileApiReply& r) {
    return std::make_pair(r.codemodel.version.major, r.codemodel.version.minor);
          })
      .def_property_readonly(
          "configurations",
          [](const gi::FileApiReply& r) {
    std::vector<std::string> names;
    for (const auto& c : r.codemodel.configurations) names.push_back(c.name);
    return names;
          })
      .def(
          "targets",
          [](const gi::FileApiReply& r, const std::string& config) { return r.configuration(config).targets; },
          py::arg("configuration") = "")
      .def(
          "directories",
          [](const gi::FileApiReply& r, const std::string& config) { return r.configuration(config).directories; },
          py::arg("configuration") = "")
      .def_property_readonly(
          "cache",
          [](const gi::FileApiReply& r) {
    std::map<std::string, std::string> out;
    for (const auto& e : r.cache) out[e.name] = e.value;
    return out;
          })
      .def_readonly("toolchains", &gi::FileApiReply::toolchains)
      .def_readonly("cmake_inputs", &gi::FileApiReply::cmake_inputs)
      .def("__repr__", [](const gi::FileApiReply& r) {
        return "<FileApiReply " + r.build_dir + ": CMake " + r.cmake_version + ", " + r.generator + ">";
      });
  m.def(
      "read_file_api",
      [](const std::string& build_dir, bool configure, const std::string& cmake) {
    return gi::read_file_api(build_dir, gi::FileApiOptions{configure, cmake});
      },
      py::arg("build_dir"), py::arg("configure") = false, py::arg("cmake") = "cmake");
  m.def("write_file_api_query", &gi::write_file_api_query, py::arg("build_dir"));

  // --- Ninja
  py::class_<gi::NinjaLogEntry>(m, "NinjaLogEntry", py::module_local())
      .def_readonly("start_ms", &gi::NinjaLogEntry::start_ms)
      .def_readonly("end_ms", &gi::NinjaLogEntry::end_ms)
      .def_readonly("mtime", &gi::NinjaLogEntry::mtime)
      .def_readonly("output", &gi::NinjaLogEntry::output)
      .def_readonly("command_hash", &gi::NinjaLogEntry::command_hash)
      .def_readonly("run", &gi::NinjaLogEntry::run)
      .def_property_readonly("duration_ms", &gi::NinjaLogEntry::duration_ms)
      .def("__repr__", [](const gi::NinjaLogEntry& e) {
        return "<NinjaLogEntry " + e.output + " " + std::to_string(e.duration_ms()) + " ms>";
      });
  py::class_<gi::NinjaLog>(m, "NinjaLog", py::module_local())
      .def_readonly("file", &gi::NinjaLog::file)
      .def_readonly("version", &gi::NinjaLog::version)
      .def_readonly("entries", &gi::NinjaLog::entries)
      .def_readonly("runs", &gi::NinjaLog::runs)
      .def("__len__", [](const gi::NinjaLog& l) { return l.entries.size(); })
      .def("__repr__", [](const gi::NinjaLog& l) {
        return "<NinjaLog " + l.file + ": v" + std::to_string(l.version) + ", " + std::to_string(l.entries.size()) +
               " outputs>";
      });
  m.def("read_ninja_log", &gi::read_ninja_log, py::arg("build_dir_or_file"));

  // Build times as plain data (dicts and lists), plus the Chrome trace text.
  m.def(
      "build_times",
      [](const std::string& build_dir) {
    const gi::NinjaLog log = gi::read_ninja_log(build_dir);
    std::optional<gi::FileApiReply> reply;
    if (std::filesystem::is_directory(build_dir) && gi::find_reply_index(build_dir))
      reply = gi::read_file_api(build_dir);
    const gi::BuildIndex index = reply ? gi::BuildIndex(*reply) : gi::BuildIndex();
    const gi::BuildTimes t = gi::analyze_build_times(log, index);
    auto step = [](const gi::BuildStep& s) {
      py::dict d;
      d["outputs"] = s.outputs, d["kind"] = gi::step_kind_name(s.kind), d["target"] = s.target;
      d["start_ms"] = s.start_ms, d["end_ms"] = s.end_ms, d["duration_ms"] = s.duration_ms(), d["run"] = s.run;
      return d;
    };
    py::list steps, targets, path;
    for (const auto& s : t.steps) steps.append(step(s));
    for (const auto& x : t.targets) {
      py::dict d;
      d["target"] = x.target, d["compile_ms"] = x.compile_ms, d["link_ms"] = x.link_ms, d["other_ms"] = x.other_ms;
      d["total_ms"] = x.total_ms(), d["steps"] = x.steps;
      targets.append(d);
    }
    for (auto i : t.critical_path) path.append(step(t.steps[i]));
    py::dict out;
    out["log"] = t.log_file, out["steps"] = steps, out["targets"] = targets, out["critical_path"] = path;
    out["critical_path_ms"] = t.critical_path_ms, out["last_run_wall_ms"] = t.last_run_wall_ms;
    out["critical_path_from_dependencies"] = t.critical_path_from_dependencies;
    out["chrome_trace"] = gi::chrome_trace_json(t);
    return out;
      },
      py::arg("build_dir"));

  // --- graphs
  py::class_<gg::Graph>(m, "Graph", py::module_local())
      .def_property_readonly("name", &gg::Graph::name)
      .def_property_readonly(
          "attributes",
          [](const gg::Graph& g) {
    return std::map<std::string, std::string>(g.attributes().begin(), g.attributes().end());
          })
      .def("__len__", &gg::Graph::node_count)
      .def_property_readonly("node_count", &gg::Graph::node_count)
      .def_property_readonly("edge_count", &gg::Graph::edge_count)
      .def_property_readonly(
          "nodes",
          [](const gg::Graph& g) {
    py::list out;
    for (const auto& n : g.nodes()) out.append(node_dict(n));
    return out;
          })
      .def_property_readonly(
          "edges",
          [](const gg::Graph& g) {
    py::list out;
    for (const auto& e : g.edges()) {
      py::dict d;
      d["from"] = g.node(e.from).id, d["to"] = g.node(e.to).id, d["kind"] = std::string(gg::to_string(e.kind));
      d["attributes"] = py::cast(std::map<std::string, std::string>(e.attributes.begin(), e.attributes.end()));
      out.append(d);
    }
    return out;
          })
      .def("filter", [](const gg::Graph& g, py::kwargs kw) { return filtered(g, kw); })
      .def(
          "to_dot",
          [](const gg::Graph& g, const std::string& rankdir, bool legend) {
    return gg::to_dot(g, dot_options(g, rankdir, legend));
          },
          py::arg("rankdir") = "LR", py::arg("legend") = false)
      .def("to_json", [](const gg::Graph& g) { return gg::to_json(g); })
      .def(
          "render",
          [](const gg::Graph& g, const std::string& format, const std::string& engine, const std::string& rankdir,
             bool legend) {
    gg::RenderOptions r;
    if (format == "svg") r.format = gg::ImageFormat::Svg;
    else if (format == "png") r.format = gg::ImageFormat::Png;
    else throw glassbox::Error("render: format must be \"svg\" or \"png\", not \"" + format + "\"");
    r.engine = engine;
    const std::string bytes = gg::render(g, r, dot_options(g, rankdir, legend));
    return py::bytes(bytes);
          },
          py::arg("format") = "svg", py::arg("engine") = "", py::arg("rankdir") = "LR", py::arg("legend") = false)
      .def("__repr__", [](const gg::Graph& g) {
        return "<Graph " + g.name() + ": " + std::to_string(g.node_count()) + " nodes, " +
               std::to_string(g.edge_count()) + " edges>";
      });
  m.def("rendering_available", &gg::rendering_available);

  m.def(
      "module_graph",
      [](const std::string& build_dir, bool sources, bool build_order, bool redundant_build_order,
         const std::string& configuration, bool configure, const std::string& cmake) {
    gi::ModuleGraphOptions o;
    o.sources = sources, o.build_order = build_order, o.redundant_build_order = redundant_build_order;
    o.configuration = configuration;
    return gi::module_graph_of(build_dir, o, gi::FileApiOptions{configure, cmake});
      },
      py::arg("build_dir"), py::arg("sources") = true, py::arg("build_order") = true,
      py::arg("redundant_build_order") = false, py::arg("configuration") = "", py::arg("configure") = false,
      py::arg("cmake") = "cmake");

  m.def(
      "include_graph",
      [](const std::string& build_dir, const std::string& source, const std::string& source_root) {
    gi::IncludeGraphOptions o;
    o.build_root = std::filesystem::absolute(build_dir).lexically_normal().string();
    if (o.build_root.size() > 1 && o.build_root.back() == '/') o.build_root.pop_back();
    o.source = source;
    o.source_root = source_root;
    if (o.source_root.empty() && gi::find_reply_index(build_dir))
      o.source_root = gi::read_file_api(build_dir).codemodel.source_dir;
    return gi::build_include_graph(gi::read_ninja_deps(build_dir, gi::find_program("ninja")), o);
      },
      py::arg("build_dir"), py::arg("source") = "", py::arg("source_root") = "");

  // --- binaries: ELF symbols, DWARF lines, registrations found in a binary (plain dicts and lists)
  auto symbol_query =
      [](bool lines, const std::string& grep, bool dynamic, bool demangle, const std::vector<std::string>& debug_dirs) {
    gi::SymbolQuery q;
    q.lines = lines, q.grep = grep, q.demangle = demangle, q.dwarf.debug_dirs = debug_dirs;
    q.tables = dynamic ? gi::SymbolTables::Dynsym : gi::SymbolTables::Preferred;
    return q;
  };
  m.def(
      "symbols",
      [symbol_query](const std::string& path, bool lines, const std::string& grep, bool dynamic, bool demangle,
                     const std::vector<std::string>& debug_dirs) {
    std::optional<gi::SymbolListing> listing;
    {
      py::gil_scoped_release unlocked;
      listing = gi::list_symbols(path, symbol_query(lines, grep, dynamic, demangle, debug_dirs));
    }
    py::list out;
    for (const auto& ls : listing->symbols) {
      const gi::ElfSymbol& s = listing->symbol(ls);
      py::dict d;
      d["name"] = s.name, d["demangled"] = s.demangled, d["address"] = s.address, d["size"] = s.size;
      d["type"] = gi::to_string(s.type), d["binding"] = gi::to_string(s.binding);
      d["visibility"] = gi::to_string(s.visibility), d["section"] = s.section, d["table"] = gi::to_string(s.table);
      d["nm"] = std::string(1, ls.nm);
      if (lines) d["file"] = std::string(ls.line.file), d["line"] = ls.line.line;
      out.append(d);
    }
    py::dict result;
    result["symbols"] = out;
    result["line_info"] = listing->dwarf ? py::str(gi::to_string(listing->dwarf->status())) : py::str("not read");
    result["line_info_message"] = listing->dwarf ? listing->dwarf->message() : std::string();
    return result;
      },
      py::arg("path"), py::arg("lines") = false, py::arg("grep") = "", py::arg("dynamic") = false,
      py::arg("demangle") = true, py::arg("debug_dirs") = std::vector<std::string>{});
  m.def(
      "elf_info",
      [](const std::string& path) {
    gi::ElfReadOptions o;
    o.demangle = false;
    const gi::ElfFile e = gi::ElfFile::read(path, o);
    py::list sections;
    for (std::size_t i = 1; i < e.sections().size(); ++i) {
      const auto& s = e.sections()[i];
      py::dict d;
      d["name"] = s.name, d["type"] = s.type, d["flags"] = s.flags, d["address"] = s.address, d["offset"] = s.offset;
      d["size"] = s.size;
      sections.append(d);
    }
    py::dict d;
    d["path"] = e.path(), d["type"] = std::string(e.type_name()), d["machine"] = e.machine(), d["size"] = e.file_size();
    d["soname"] = e.soname(), d["needed"] = e.needed(), d["build_id"] = e.build_id(), d["debuglink"] = e.debuglink();
    d["has_symtab"] = e.has_symtab(), d["has_dynsym"] = e.has_dynsym(), d["has_debug_info"] = e.has_debug_info();
    d["sections"] = sections, d["warnings"] = e.warnings();
    return d;
      },
      py::arg("path"));
  m.def(
      "dwarf_info",
      [](const std::string& path, const std::vector<std::string>& debug_dirs) {
    gi::ElfReadOptions o;
    o.demangle = false;
    const gi::ElfFile e = gi::ElfFile::read(path, o);
    gi::DwarfOptions d;
    d.debug_dirs = debug_dirs;
    const gi::DwarfLines lines = gi::DwarfLines::read(e, d);
    py::list units;
    for (const auto& u : lines.units()) {
      py::dict x;
      x["name"] = u.name, x["comp_dir"] = u.comp_dir, x["source"] = u.source(), x["producer"] = u.producer;
      x["version"] = u.version, x["line_rows"] = u.line_rows, x["error"] = u.error;
      units.append(x);
    }
    py::dict out;
    out["status"] = std::string(gi::to_string(lines.status())), out["message"] = lines.message();
    out["debug_file"] = lines.debug_file(), out["separate_debug_file"] = lines.from_separate_file();
    out["units"] = units, out["errors"] = lines.errors(), out["line_rows"] = lines.row_count();
    return out;
      },
      py::arg("path"), py::arg("debug_dirs") = std::vector<std::string>{});
  m.def(
      "binary_registrations",
      [](const std::string& path, const std::vector<std::string>& debug_dirs) {
    gi::DwarfOptions d;
    d.debug_dirs = debug_dirs;
    std::vector<gi::BinaryRegistration> found;
    {
      py::gil_scoped_release unlocked;
      found = gi::find_binary_registrations(path, d);
    }
    py::list out;
    for (const auto& r : found) {
      py::dict x;
      x["kind"] = std::string(gi::to_string(r.kind)), x["namespace"] = r.ns, x["dispatch_key"] = r.dispatch_key;
      x["operator"] = r.op, x["symbol"] = r.symbol, x["demangled"] = r.demangled, x["address"] = r.address;
      x["file"] = r.file, x["line"] = r.line, x["code_lines"] = r.code_lines, x["library"] = r.library;
      out.append(x);
    }
    return out;
      },
      py::arg("path"), py::arg("debug_dirs") = std::vector<std::string>{});
  m.def(
      "symbol_sizes",
      [symbol_query](const std::string& path, const std::string& by) {
    if (by != "source" && by != "section")
      throw glassbox::Error("symbol_sizes: by must be \"source\" or \"section\", not \"" + by + "\"");
    std::vector<gi::SizeTotal> totals;
    {
      py::gil_scoped_release unlocked;
      const gi::SymbolListing listing = gi::list_symbols(path, symbol_query(by == "source", "", false, false, {}));
      totals = by == "source" ? gi::sizes_by_source(listing) : gi::sizes_by_section(listing);
    }
    py::list out;
    for (const auto& t : totals) {
      py::dict x;
      x["name"] = t.name, x["symbols"] = t.symbols, x["symbol_bytes"] = t.symbol_bytes, x["vm_size"] = t.vm_size;
      x["file_size"] = t.file_size;
      out.append(x);
    }
    return out;
      },
      py::arg("path"), py::arg("by") = "section");

  // --- operator registrations: the source scan, and the join with the registry (gb.introspect.ops)
  m.def("source_scan_available", &gi::source_scan_available);
  m.def(
      "scan_sources",
      [](const std::string& build_dir, const std::string& units, int jobs) {
    gi::SourceScanOptions o;
    o.unit_filter = units, o.jobs = jobs;
    std::string text;
    {
      py::gil_scoped_release unlocked;
      text = gi::source_scan_to_json(gi::scan_build_dir(build_dir, o), 0);
    }
    return text;
      },
      py::arg("build_dir"), py::arg("units") = "", py::arg("jobs") = 0);
  m.def(
      "registration_view",
      [](std::optional<std::string> registry_json, const std::string& build_dir, const std::string& op,
         const std::string& key, const std::string& units, int jobs, std::optional<std::vector<std::string>> binaries) {
    std::optional<gi::FileApiReply> reply;
    std::optional<gi::SourceScan> scan;
    gi::RegistrationInputs in;
    in.registry_json = std::move(registry_json);
    std::string json, binary_warning;
    gg::Graph graph;
    {
      py::gil_scoped_release unlocked;
      if (!build_dir.empty()) {
        if (gi::find_reply_index(build_dir)) reply = gi::read_file_api(build_dir);
        gi::SourceScanOptions o;
        o.unit_filter = units, o.jobs = jobs;
        if (reply) o.source_root = reply->codemodel.source_dir;
        if (gi::source_scan_available()) {  // without libclang: registry and File API only
          scan = gi::scan_sources(gi::read_compile_database(build_dir), o);
          in.sources = &*scan;
        }
        in.reply = reply ? &*reply : nullptr;
      }
      // The binaries: as given (an unreadable one is an error), else the build's engine libraries
      // (unreadable: a warning, and the view is made without them).
      if (binaries) {
        if (!binaries->empty()) gi::read_binary_side(*binaries, in);
      } else if (reply) {
        try {
          gi::read_binary_side(gi::engine_libraries(*reply), in);
        } catch (const glassbox::Error& e) {
          in.binary.reset(), in.binary_libraries.clear();
          binary_warning = std::string("the binaries are not read: ") + e.what();
        }
      }
      const gi::RegistrationView view = gi::build_registration_view(in, gi::RegistrationFilter{op, key});
      json = gi::registration_view_to_json(view);
      graph = view.graph;
    }
    if (!binary_warning.empty() && PyErr_WarnEx(PyExc_RuntimeWarning, binary_warning.c_str(), 1) != 0)
      throw py::error_already_set();
    py::dict out;
    out["json"] = json, out["graph"] = graph;
    py::list errors;
    if (scan)
      for (const auto& e : scan->errors) errors.append(py::make_tuple(e.file, e.message));
    out["errors"] = errors;
    return out;
      },
      py::arg("registry_json"), py::arg("build_dir") = "", py::arg("op") = "", py::arg("key") = "",
      py::arg("units") = "", py::arg("jobs") = 0, py::arg("binaries") = std::nullopt);
}
