// The registration graph: the join of registry, sources and binary, its disagreements, and the
// graph of glassbox's own add.Tensor (table, JSON and DOT, in-process and through the CLI).
#include "introspect/registry/registration_graph.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/error.h"

#include "graphs/dot_writer.h"
#include "graphs/render.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/cli/commands.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

bool has_edge(const graphs::Graph& g, std::string_view from, std::string_view to, graphs::EdgeKind kind) {
  const auto a = g.find(from), b = g.find(to);
  return a && b && g.find_edge(*a, *b, kind).has_value();
}

const RegistrationRow* row_for(const RegistrationView& v, std::string_view op, std::string_view key) {
  for (const auto& r : v.rows)
    if (r.op == op && r.key == key) return &r;
  return nullptr;
}

SourceRegistration source(std::string kind, std::string op, std::string key, std::string file, int line) {
  SourceRegistration r;
  r.kind = std::move(kind), r.ns = "demo", r.op = std::move(op), r.dispatch_key = std::move(key);
  r.file = std::move(file), r.line = line;
  return r;
}

TEST(RegistrationGraph, MarksWhereTheSourcesOfTruthDisagree) {
  const std::string registry = R"({"format": "glassbox-registry", "version": 1, "libraries": [],
    "fallbacks": [{"key": "Trace", "registered_at": "t.cpp:4", "fallthrough": false}],
    "operators": [{"name": "demo::f", "defined_at": "a.cpp:3", "kernels": [
        {"key": "CPU", "registered_at": "a.cpp:5", "active": true},
        {"key": "Meta", "registered_at": "a.cpp:7", "active": true}],
      "table": [{"key": "CPU", "provenance": "kernel", "source_key": "CPU", "registered_at": "a.cpp:5"}]},
      {"name": "demo::g", "defined_at": "a.cpp:9", "kernels": [], "table": []}]})";
  SourceScan scan;
  scan.units = {"a.cpp"};
  scan.registrations.push_back(source("def", "f", "", "a.cpp", 3));
  scan.registrations.back().yaml_file = "ops.yaml", scan.registrations.back().yaml_line = 12;
  auto cpu = source("impl", "f", "CPU", "a.cpp", 6);  // the registry says line 5
  cpu.kernel = "demo::f_cpu", cpu.kernel_file = "k.cpp", cpu.kernel_line = 2;
  scan.registrations.push_back(cpu);
  scan.registrations.push_back(source("def", "g", "", "a.cpp", 9));
  std::vector<BinaryRegistrationRecord> binary = {
      {"impl",
       "",
       "demo",
       "CPU",
       "f",
       "_ZN4demo8other_cpuEv",
       "demo::other_cpu()",
       "a.cpp",
       5,
       "libdemo.so",
       {},
       false,
       ""},
      {"def", "", "demo", "", "g", "", "", "a.cpp", 9, "libdemo.so", {}, false, ""}};

  RegistrationInputs in;
  in.registry_json = registry;
  in.sources = &scan;
  in.binary = binary;
  const RegistrationView v = build_registration_view(in, {});
  const RegistrationRow* f_cpu = row_for(v, "demo::f", "CPU");
  ASSERT_NE(f_cpu, nullptr);
  EXPECT_EQ(f_cpu->found_in, "registry,sources,binary");
  EXPECT_EQ(f_cpu->serves, "CPU");
  EXPECT_NE(f_cpu->agreement().find("file:line differs: binary a.cpp:5, registry a.cpp:5, sources a.cpp:6"),
            std::string::npos)
      << f_cpu->agreement();
  EXPECT_NE(f_cpu->agreement().find("kernel differs"), std::string::npos);
  const RegistrationRow* f_meta = row_for(v, "demo::f", "Meta");
  ASSERT_NE(f_meta, nullptr);
  EXPECT_NE(f_meta->agreement().find("not found in the sources"), std::string::npos) << f_meta->agreement();
  EXPECT_NE(f_meta->agreement().find("not found in the binary"), std::string::npos);
  const RegistrationRow* trace = row_for(v, "(fallback)", "Trace");
  ASSERT_NE(trace, nullptr);
  EXPECT_EQ(trace->agreement().find("not found in the sources"), std::string::npos);  // t.cpp was not scanned

  // The disagreeing registration is drawn red, with the reason as an attribute.
  const graphs::Graph& g = v.graph;
  const auto key = g.find("key:demo::f:CPU");
  ASSERT_TRUE(key);
  EXPECT_EQ(g.node(*key).attribute("dot:color"), "red");
  EXPECT_NE(g.node(*key).attribute("disagreement").find("differs"), std::string::npos);
  EXPECT_TRUE(has_edge(g, "op:demo::f", "schema:demo::f", graphs::EdgeKind::Defines));
  EXPECT_EQ(g.node("schema:demo::f").label, "ops.yaml:12");
  EXPECT_TRUE(has_edge(g, "schema:demo::f", "site:a.cpp:3", graphs::EdgeKind::Registers));
  EXPECT_TRUE(has_edge(g, "schema:demo::f", "site:a.cpp:5", graphs::EdgeKind::Registers));
  EXPECT_TRUE(has_edge(g, "key:demo::f:CPU", "kernel:demo::f_cpu", graphs::EdgeKind::DispatchesTo));
  EXPECT_TRUE(has_edge(g, "kernel:demo::f_cpu", "src:k.cpp:2", graphs::EdgeKind::Defines));

  const auto j = nlohmann::json::parse(registration_view_to_json(v));
  EXPECT_GE(j["disagreements"].size(), 4u);
  EXPECT_EQ(j["sources_used"], nlohmann::json({"registry", "sources", "binary"}));
  EXPECT_FALSE(j["graph"]["nodes"].empty());

  // Filters: by operator and by key.
  RegistrationFilter only_g{"^demo::g$", ""};
  const RegistrationView vg = build_registration_view(in, only_g);
  EXPECT_TRUE(vg.rows.empty());
  EXPECT_TRUE(vg.graph.contains("op:demo::g"));
  EXPECT_FALSE(vg.graph.contains("op:demo::f"));
  const RegistrationView meta = build_registration_view(in, {"", "Meta"});
  ASSERT_EQ(meta.rows.size(), 1u);
  EXPECT_EQ(meta.rows[0].key, "Meta");
  EXPECT_THROW(build_registration_view(in, {"(", ""}), ValueError);
  RegistrationInputs bad;
  bad.registry_json = "{\"format\": \"other\"}";
  EXPECT_THROW(build_registration_view(bad, {}), ValueError);
}

TEST(RegistrationGraph, SameSiteAcrossSpellings) {
  EXPECT_TRUE(same_site("generated/x/RegisterCPU.cpp:9", "build/dev/generated/x/RegisterCPU.cpp:9"));
  EXPECT_TRUE(same_site("a.cpp:3", "a.cpp:3"));
  EXPECT_FALSE(same_site("a.cpp:3", "a.cpp:4"));
  EXPECT_FALSE(same_site("xa.cpp:3", "a.cpp:3"));
  EXPECT_FALSE(same_site("engine/a.cpp:3", "tests/a.cpp:3"));
  // __FILE__ spelled from the build directory, against DWARF's absolute path.
  EXPECT_TRUE(same_site("../../tests/a.cpp:3", "/src/tests/a.cpp:3"));
  EXPECT_TRUE(same_site("./tests/a.cpp:3", "tests/a.cpp:3"));
  EXPECT_FALSE(same_site("../../tests/a.cpp:3", "/src/other/a.cpp:3"));
}

// The binary reader's shape: a kind enum with to_string() beside it.
enum class ReaderKind { Impl, Call };
std::string_view to_string(ReaderKind k) { return k == ReaderKind::Impl ? "GLASSBOX_LIBRARY_IMPL" : "op_call"; }

TEST(RegistrationGraph, BinaryBlocksMarkTheirRegistrations) {
  struct ReaderRecord {
    ReaderKind kind;
    std::string ns, dispatch_key, op, symbol, demangled;
    uint64_t address;
    std::string file;
    uint32_t line;
    std::vector<uint32_t> code_lines;
    std::string library;
  };
  const std::vector<ReaderRecord> theirs = {{ReaderKind::Impl,
                                             "demo",
                                             "CPU",
                                             "",
                                             "_ZL30glassbox_library_impl_init_demo_CPU_0RN8glassbox7LibraryE",
                                             "glassbox_library_impl_init_demo_CPU_0(glassbox::Library&)",
                                             0x1000,
                                             "/src/b.cpp",
                                             4,
                                             {4, 5},
                                             "/build/libdemo.so"},
                                            {ReaderKind::Call,
                                             "demo",
                                             "",
                                             "f",
                                             "_ZN4demo3ops1f4callEv",
                                             "demo::ops::f::call()",
                                             0x2000,
                                             "",
                                             0,
                                             {},
                                             "/build/libdemo.so"}};
  const auto ours = binary_registration_records_from(theirs);
  ASSERT_EQ(ours.size(), 2u);
  EXPECT_EQ(ours[0].kind, "block");
  EXPECT_EQ(ours[0].block, "GLASSBOX_LIBRARY_IMPL");
  EXPECT_EQ(ours[0].line, 4);
  EXPECT_EQ(ours[0].code_lines, (std::vector<int>{4, 5}));
  EXPECT_EQ(ours[1].kind, "op_handle");

  SourceScan scan;
  scan.units = {"b.cpp"};
  auto impl = source("impl", "f", "CPU", "b.cpp", 5);
  impl.block_file = "b.cpp", impl.block_line = 4;
  scan.registrations.push_back(impl);
  RegistrationInputs in;
  in.sources = &scan;
  in.binary = ours;
  const RegistrationView v = build_registration_view(in, {});
  ASSERT_EQ(v.rows.size(), 1u);
  EXPECT_EQ(v.rows[0].found_in, "sources,binary");
  EXPECT_EQ(v.rows[0].binary_at, "/src/b.cpp:5");  // the block has code at the call's line
  EXPECT_EQ(v.rows[0].library, "/build/libdemo.so");
  EXPECT_EQ(v.rows[0].agreement(), "ok");
}

// A registry and sources that agree on demo::f and demo::g, and a binary built from a.cpp whose
// blocks have code at some of their lines.
struct ThreeSources {
  std::string registry = R"({"format": "glassbox-registry", "version": 1, "libraries": [],
    "fallbacks": [{"key": "AutogradCPU", "registered_at": "a.cpp:12", "fallthrough": true}],
    "operators": [{"name": "demo::f", "defined_at": "a.cpp:3", "kernels": [
        {"key": "CPU", "registered_at": "a.cpp:6", "active": true},
        {"key": "Meta", "registered_at": "a.cpp:9", "active": true},
        {"key": "CompositeImplicitAutograd", "registered_at": "a.cpp:4", "active": true}],
      "table": [{"key": "CPU", "provenance": "kernel", "source_key": "CPU", "registered_at": "a.cpp:6"},
                {"key": "AutogradCPU", "provenance": "math kernel", "source_key": "CompositeImplicitAutograd",
                 "registered_at": "a.cpp:4"}]},
      {"name": "demo::g", "defined_at": "a.cpp:3", "kernels": [], "table": []}]})";
  SourceScan scan;
  std::vector<BinaryRegistrationRecord> blocks;
  BinaryLibraryRecord library{"/build/libdemo.so", true, true, "", {"/src/a.cpp"}};

  ThreeSources() {
    scan.units = {"a.cpp"};
    auto f = source("def", "f", "", "a.cpp", 3);
    scan.registrations = {f, source("def", "g", "", "a.cpp", 3),
                          source("impl", "f", "CompositeImplicitAutograd", "a.cpp", 4),
                          source("impl", "f", "CPU", "a.cpp", 6), source("impl", "f", "Meta", "a.cpp", 9)};
    auto fallback = source("fallback", "", "AutogradCPU", "a.cpp", 12);
    fallback.ns = "_";
    scan.registrations.push_back(fallback);
    auto block = [](std::string macro, std::string ns, std::string key, int line, std::vector<int> code) {
      return BinaryRegistrationRecord{
          "block", std::move(macro),    std::move(ns),   std::move(key), "", "sym", "sym()", "/src/a.cpp",
          line,    "/build/libdemo.so", std::move(code), false,          ""};
    };
    blocks = {block("GLASSBOX_LIBRARY", "demo", "", 2, {2, 3, 4}),
              block("GLASSBOX_LIBRARY_IMPL", "demo", "CPU", 5, {5, 6}),
              block("GLASSBOX_LIBRARY_IMPL", "demo", "Meta", 8, {8, 10}),  // nothing at line 9
              block("GLASSBOX_LIBRARY_IMPL", "_", "AutogradCPU", 11, {12})};
  }
  RegistrationInputs inputs() const {
    RegistrationInputs in;
    in.registry_json = registry;
    in.sources = &scan;
    in.binary = blocks;
    in.binary_libraries = {library};
    return in;
  }
};

TEST(RegistrationGraph, BinaryPlacesRegistrationsAtTheirBlocksCodeLines) {
  const ThreeSources three;
  const RegistrationView v = build_registration_view(three.inputs(), {});
  const RegistrationRow* cpu = row_for(v, "demo::f", "CPU");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->found_in, "registry,sources,binary");
  EXPECT_EQ(cpu->registry_at, "a.cpp:6");
  EXPECT_EQ(cpu->sources_at, "a.cpp:6");
  EXPECT_EQ(cpu->binary_at, "/src/a.cpp:6");
  EXPECT_EQ(cpu->library, "/build/libdemo.so");
  EXPECT_EQ(cpu->agreement(), "ok");
  // An impl() in the DEF block (CompositeImplicitAutograd) is in that block; so is each def.
  const RegistrationRow* math = row_for(v, "demo::f", "CompositeImplicitAutograd");
  ASSERT_NE(math, nullptr);
  EXPECT_EQ(math->binary_at, "/src/a.cpp:4");
  ASSERT_EQ(v.schemas.size(), 2u);
  for (const auto& s : v.schemas) {
    EXPECT_EQ(s.key, "def");
    EXPECT_EQ(s.found_in, "registry,sources,binary") << s.op;
    EXPECT_EQ(s.binary_at, "/src/a.cpp:3") << s.op;
    EXPECT_EQ(s.agreement(), "ok") << s.op;
  }
  const RegistrationRow* fallback = row_for(v, "(fallback)", "AutogradCPU");
  ASSERT_NE(fallback, nullptr);
  EXPECT_EQ(fallback->binary_at, "/src/a.cpp:12");
  EXPECT_EQ(fallback->serves, "(fallthrough)");
  // The Meta block has no code at line 9: the binary built from a.cpp does not have it.
  const RegistrationRow* meta = row_for(v, "demo::f", "Meta");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->found_in, "registry,sources");
  EXPECT_EQ(meta->binary_at, "");
  EXPECT_EQ(meta->agreement(),
            "not found in the binary: /build/libdemo.so is built from a.cpp but no registration block of it has code "
            "at line 9");
  EXPECT_EQ(v.disagreements.size(), 1u);
  EXPECT_TRUE(v.notes.empty());
  const auto j = nlohmann::json::parse(registration_view_to_json(v));
  EXPECT_EQ(j["schemas"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["binary_at"].is_string(), true);
  EXPECT_TRUE(j["notes"].empty());

  // A registration in a file the binary was not built from is not expected in it.
  ThreeSources elsewhere;
  elsewhere.library.compile_units = {"/src/other.cpp"};
  const RegistrationView w = build_registration_view(elsewhere.inputs(), {});
  EXPECT_TRUE(w.disagreements.empty()) << w.disagreements[0].what;
}

TEST(RegistrationGraph, StrippedBinariesAreNotesNotDisagreements) {
  // --strip-debug: blocks without lines are matched by namespace and key.
  ThreeSources no_lines;
  no_lines.library.has_lines = false;
  no_lines.library.line_message = "no DWARF line information (the file is stripped or was built without -g)";
  no_lines.library.compile_units.clear();
  for (auto& b : no_lines.blocks) b.file.clear(), b.line = 0, b.code_lines.clear();
  RegistrationView v = build_registration_view(no_lines.inputs(), {});
  EXPECT_TRUE(v.disagreements.empty()) << v.disagreements[0].what;
  for (const auto& r : v.rows) {
    EXPECT_EQ(r.found_in, "registry,sources,binary") << r.op << " " << r.key;
    EXPECT_EQ(r.binary_at, "") << r.op << " " << r.key;
  }
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_EQ(v.notes[0],
            "/build/libdemo.so: no DWARF line information (the file is stripped or was built without -g): "
            "its registration blocks are matched by namespace and key, without file:line");

  // --strip-all: no blocks at all.
  ThreeSources no_symtab = no_lines;
  no_symtab.library.has_symtab = false;
  no_symtab.blocks.clear();
  v = build_registration_view(no_symtab.inputs(), {});
  EXPECT_TRUE(v.disagreements.empty()) << v.disagreements[0].what;
  for (const auto& r : v.rows) EXPECT_EQ(r.found_in, "registry,sources") << r.op << " " << r.key;
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find("no .symtab (stripped)"), std::string::npos) << v.notes[0];
}

TEST(RegistrationGraph, KeyFilterKeepsWhatFillsTheKeysSlot) {
  const ThreeSources three;
  const RegistrationView cpu = build_registration_view(three.inputs(), {"", "CPU"});
  ASSERT_EQ(cpu.rows.size(), 1u);
  EXPECT_EQ(cpu.rows[0].key, "CPU");
  ASSERT_EQ(cpu.schemas.size(), 1u);  // the schemas of the operators shown
  EXPECT_EQ(cpu.schemas[0].op, "demo::f");
  EXPECT_FALSE(cpu.graph.contains("op:demo::g"));
  EXPECT_FALSE(cpu.graph.contains("key:demo::f:Meta"));
  // AutogradCPU: its fallback, and the math kernel that fills demo::f's AutogradCPU slot.
  const RegistrationView autograd = build_registration_view(three.inputs(), {"", "AutogradCPU"});
  ASSERT_EQ(autograd.rows.size(), 2u);
  EXPECT_EQ(autograd.rows[0].op, "(fallback)");
  EXPECT_EQ(autograd.rows[1].key, "CompositeImplicitAutograd");
  // With an operator filter, fallbacks (which serve every operator) are left out.
  const RegistrationView f_autograd = build_registration_view(three.inputs(), {"^demo::f$", "AutogradCPU"});
  ASSERT_EQ(f_autograd.rows.size(), 1u);
  // A key nothing has: an error naming the keys there are.
  try {
    build_registration_view(three.inputs(), {"", "Cpu"});
    ADD_FAILURE() << "no error for an unknown key";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("\"Cpu\" (keys registered: AutogradCPU, CPU, CompositeImplicitAutograd, Meta)"),
        std::string::npos)
        << e.what();
  }
}

// The line of ops.yaml declaring `op` ("add.Tensor").
int yaml_line(const std::string& op) {
  std::ifstream in(std::string(GLASSBOX_TEST_SOURCE_DIR) + "/engine/ops/ops.yaml");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.starts_with("- func: " + op + "(")) return n;
  return 0;
}

const char* kAddUnits =
    R"(generated/glassbox/ops/Register(Schema|CPU|Meta)\.cpp$|generated/glassbox/ops/StructuredCPU\.cpp$)";
const char* kCpuUnits = R"(generated/glassbox/ops/RegisterCPU\.cpp$|generated/glassbox/ops/StructuredCPU\.cpp$)";

// glassbox's own add.Tensor: registry (the engine library, loaded), sources and the File API agree.
TEST(RegistrationGraph, GlassboxAddTensor) {
  if (!source_scan_available()) GTEST_SKIP() << "built without libclang";
  SourceScanOptions options;
  options.unit_filter = kAddUnits;
  options.jobs = 2;
  const SourceScan scan = scan_build_dir(GLASSBOX_TEST_BUILD_DIR, options);
  ASSERT_TRUE(scan.errors.empty()) << scan.errors[0].message;
  const FileApiReply reply = read_file_api(GLASSBOX_TEST_BUILD_DIR);
  RegistrationInputs in;
  in.registry_json = registry_json_from_libraries({GLASSBOX_TEST_ENGINE_LIBRARY});
  in.sources = &scan;
  in.reply = &reply;
  const RegistrationView v = build_registration_view(in, {R"(^glassbox::add\.Tensor$)", ""});

  const RegistrationRow* cpu = row_for(v, "glassbox::add.Tensor", "CPU");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->kernel, "glassbox::native::add_cpu");
  EXPECT_TRUE(cpu->kernel_at.substr(0, cpu->kernel_at.find(':')).ends_with("generated/glassbox/ops/StructuredCPU.cpp"))
      << cpu->kernel_at;
  EXPECT_EQ(cpu->library, "lib/libglassbox_cpu.so");
  EXPECT_EQ(cpu->target, "glassbox_cpu");
  EXPECT_EQ(cpu->found_in, "registry,sources");
  EXPECT_EQ(cpu->agreement(), "ok");
  EXPECT_NE(cpu->serves.find("CPU"), std::string::npos);
  EXPECT_EQ(cpu->schema_at.substr(0, cpu->schema_at.find(':')), "engine/ops/ops.yaml");
  for (const auto& r : v.rows) EXPECT_EQ(r.agreement(), "ok") << r.op << " " << r.key;

  // The chain operator -> schema -> registration -> key -> kernel -> source -> library -> target.
  const graphs::Graph& g = v.graph;
  const std::string reg = "site:" + cpu->registered_at;
  EXPECT_TRUE(has_edge(g, "op:glassbox::add.Tensor", "schema:glassbox::add.Tensor", graphs::EdgeKind::Defines));
  EXPECT_EQ(g.node("schema:glassbox::add.Tensor").label,
            "ops.yaml:" + cpu->schema_at.substr(cpu->schema_at.find(':') + 1));
  EXPECT_TRUE(has_edge(g, "schema:glassbox::add.Tensor", reg, graphs::EdgeKind::Registers));
  EXPECT_EQ(g.node(reg).kind, graphs::NodeKind::GeneratedSource);
  EXPECT_TRUE(has_edge(g, reg, "key:glassbox::add.Tensor:CPU", graphs::EdgeKind::Registers));
  EXPECT_TRUE(
      has_edge(g, "key:glassbox::add.Tensor:CPU", "kernel:glassbox::native::add_cpu", graphs::EdgeKind::DispatchesTo));
  EXPECT_TRUE(has_edge(g, "kernel:glassbox::native::add_cpu", "src:" + cpu->kernel_at, graphs::EdgeKind::Defines));
  EXPECT_TRUE(has_edge(g, "src:" + cpu->kernel_at, "lib:lib/libglassbox_cpu.so", graphs::EdgeKind::Compiles));
  EXPECT_TRUE(has_edge(g, "lib:lib/libglassbox_cpu.so", "target:glassbox_cpu", graphs::EdgeKind::Depends));
  EXPECT_FALSE(g.contains("op:glassbox::add.Scalar"));
  const std::string dot = graphs::to_dot(g);
  EXPECT_NE(dot.find("glassbox::native::add_cpu"), std::string::npos);
  EXPECT_NE(dot.find("lib/libglassbox_cpu.so"), std::string::npos);
}

TEST(RegistrationGraph, OpsCommand) {
  if (!source_scan_available()) GTEST_SKIP() << "built without libclang";
  auto run = [](std::vector<std::string> argv) {
    std::ostringstream out, err;
    const int status = cli::run_cli(argv, out, err);
    EXPECT_EQ(status, 0) << err.str();
    return out.str();
  };
  const std::vector<std::string> base = {"ops", "--build", GLASSBOX_TEST_BUILD_DIR,     "--units", kCpuUnits, "-j",
                                         "2",   "--op",    R"(^glassbox::add\.Tensor$)"};
  auto with = [&](std::vector<std::string> extra) {
    auto argv = base;
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  };
  const std::string table = run(with({"--key", "CPU"}));
  EXPECT_NE(table.find("glassbox::native::add_cpu"), std::string::npos) << table;
  EXPECT_NE(table.find("glassbox_cpu"), std::string::npos);
  EXPECT_NE(table.find("agreement"), std::string::npos);
  EXPECT_NE(table.find("0 disagreements"), std::string::npos) << table;
  const auto j = nlohmann::json::parse(run(with({"--format", "json"})));
  // All three sources of truth (and the File API): the registry, the sources, the binary.
  EXPECT_EQ(j["sources_used"], nlohmann::json({"registry", "sources", "binary", "file_api"}));
  bool cpu = false;
  for (const auto& r : j["rows"]) cpu |= r["key"] == "CPU" && r["kernel"] == "glassbox::native::add_cpu";
  EXPECT_TRUE(cpu);
  ASSERT_EQ(j["schemas"].size(), 1u);
  EXPECT_EQ(j["schemas"][0]["schema_at"], "engine/ops/ops.yaml:" + std::to_string(yaml_line("add.Tensor")));
  // RegisterSchema.cpp is not among the units: the YAML line is the one RegisterCPU.cpp names.
  EXPECT_EQ(j["schemas"][0]["found_in"], "registry,binary");
  EXPECT_TRUE(j["disagreements"].empty()) << j["disagreements"];
  const std::string dot = run(with({"--format", "dot"}));
  EXPECT_NE(dot.find("digraph"), std::string::npos);
  EXPECT_NE(dot.find("key:glassbox::add.Tensor:CPU"), std::string::npos);
  EXPECT_NE(dot.find("key:glassbox::add.Tensor:Autograd"), std::string::npos);
  // --key: what fills the key's slot; the graph follows the table.
  const auto autograd = nlohmann::json::parse(run(with({"--key", "AutogradCPU", "--format", "json"})));
  ASSERT_EQ(autograd["rows"].size(), 1u) << autograd["rows"];
  EXPECT_EQ(autograd["rows"][0]["key"], "Autograd");
  EXPECT_NE(autograd["rows"][0]["serves"].get<std::string>().find("AutogradCPU"), std::string::npos);
  const std::string cpu_dot = run(with({"--key", "CPU", "--format", "dot"}));
  EXPECT_NE(cpu_dot.find("key:glassbox::add.Tensor:CPU"), std::string::npos);
  EXPECT_EQ(cpu_dot.find("key:glassbox::add.Tensor:Meta"), std::string::npos) << cpu_dot;
  if (graphs::rendering_available()) {
    testing::TempDir dir("opsrender");
    const std::string png = (dir / "add.png").string(), svg = (dir / "add.svg").string();
    run(with({"-o", png}));
    run(with({"--format", "svg", "-o", svg}));
    EXPECT_EQ(testing::slurp(png).substr(0, 8), "\x89PNG\r\n\x1a\n");
    EXPECT_NE(testing::slurp(svg).find("glassbox::native::add_cpu"), std::string::npos);
  }

  std::ostringstream out, err;
  EXPECT_EQ(cli::run_cli({"ops"}, out, err), 2);  // needs --build, --registry or --load
  EXPECT_EQ(cli::run_cli({"ops", "--load", "/nonexistent/libx.so"}, out, err), 1);
  EXPECT_NE(err.str().find("/nonexistent/libx.so"), std::string::npos);
  std::ostringstream out2, err2;
  EXPECT_EQ(cli::run_cli(with({"--key", "Cpu"}), out2, err2), 1);
  EXPECT_NE(err2.str().find("no registration is for or serves the dispatch key \"Cpu\""), std::string::npos)
      << err2.str();
  std::ostringstream out3, err3;
  EXPECT_EQ(cli::run_cli(with({"--binary", "/nonexistent/liby.so"}), out3, err3), 1);
  EXPECT_NE(err3.str().find("/nonexistent/liby.so"), std::string::npos) << err3.str();
}

}  // namespace
}  // namespace glassbox::introspect
