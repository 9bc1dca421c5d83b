// The three sources of truth on real libraries: glassbox's own (every operator of ops.yaml, every
// kernel and fallback of every key), the hand-written blocks of the dlopen test library, and
// stripped copies of it, which must say what they cannot show instead of disagreeing.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "introspect/buildtree/compile_database.h"
#include "introspect/buildtree/file_api.h"
#include "introspect/registry/registration_graph.h"
#include "introspect/registry/registration_inputs.h"
#include "introspect/source/source_scan.h"
#include "introspect/support/process.h"
#include "tests/cpp/introspect/cli_run.h"
#include "tests/cpp/introspect/elf_test_support.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

// An operator of ops.yaml: its line and the keys of its `dispatch:` section.
struct YamlOperator {
  int line = 0;
  std::set<std::string> keys;
};

// "- func: add.Tensor(...)" entries and their "dispatch:" keys ("CPU, CUDA: kernel" names two).
// The operators of ops.yaml with their YAML line and `dispatch:` keys. A `structured:` entry declares
// its functional form and derives the in-place and out= ones (named by `inplace:`/`out:`, or `none`),
// each with kernels for CPU, CUDA and Meta, all traced to the entry's line.
std::map<std::string, YamlOperator> read_ops_yaml(const std::filesystem::path& file) {
  std::map<std::string, YamlOperator> out;
  std::ifstream in(file);
  std::string text, current, stem, overload, inplace, out_name;
  bool in_dispatch = false, structured = false;
  auto finish_structured = [&] {
    if (!structured) return;
    const YamlOperator& functional = out[current];
    if (inplace != "none") out["glassbox::" + (inplace.empty() ? stem + "_" + overload : inplace)] = functional;
    if (out_name != "none") out["glassbox::" + (out_name.empty() ? stem + ".out" : out_name)] = functional;
  };
  auto value_of = [](const std::string& line) { return line.substr(line.find(':') + 2); };
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.starts_with("- func: ")) {
      finish_structured();
      const std::string name = text.substr(8, text.find('(') - 8);
      current = "glassbox::" + name;
      stem = name.substr(0, name.find('.'));
      overload = name.find('.') == std::string::npos ? "" : name.substr(name.find('.'));
      out[current].line = n;
      in_dispatch = structured = false;
      inplace.clear(), out_name.clear();
    } else if (text.starts_with("  structured: ")) {
      structured = true;
      out[current].keys = {"CPU", "CUDA", "Meta"};
    } else if (text.starts_with("  inplace: ")) {
      inplace = value_of(text);
    } else if (text.starts_with("  out: ")) {
      out_name = value_of(text);
    } else if (text == "  dispatch:") {
      in_dispatch = true;
    } else if (in_dispatch && text.starts_with("    ") && text.find(':') != std::string::npos) {
      std::string keys = text.substr(4, text.find(':') - 4);
      for (std::size_t at = 0; at != std::string::npos;) {
        const auto comma = keys.find(',', at);
        std::string key = keys.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        key.erase(0, key.find_first_not_of(' '));
        key.erase(key.find_last_not_of(' ') + 1);
        out[current].keys.insert(key);
        at = comma == std::string::npos ? comma : comma + 1;
      }
    } else if (!text.starts_with("    ")) {
      in_dispatch = false;
    }
  }
  finish_structured();
  return out;
}

std::string regex_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string where(const RegistrationRow& r) {
  return "registry " + (r.registry_at.empty() ? "-" : r.registry_at) + ", sources " +
         (r.sources_at.empty() ? "-" : r.sources_at) + ", binary " + (r.binary_at.empty() ? "-" : r.binary_at);
}

// Found by all three, at one file:line, and nothing else to say.
void check_row(const RegistrationRow& r, std::vector<std::string>& mismatches) {
  const std::string what = r.op + " [" + r.key + "]: ";
  if (r.found_in != "registry,sources,binary")
    mismatches.push_back(what + "found in " + r.found_in + " only (" + where(r) + ")");
  else if (!same_site(r.registry_at, r.sources_at) || !same_site(r.registry_at, r.binary_at))
    mismatches.push_back(what + "file:line differs (" + where(r) + ")");
  if (!r.disagreements.empty()) mismatches.push_back(what + r.agreement());
}

std::string listed(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n  " + l;
  return out;
}

TEST(RegistrationAgreement, EveryOperatorAndKernelOfGlassboxIsFoundByAllThreeSources) {
  const auto started = std::chrono::steady_clock::now();
  const FileApiReply reply = read_file_api(GLASSBOX_TEST_BUILD_DIR);
  const std::vector<std::string> libraries = engine_libraries(reply);
  ASSERT_GE(libraries.size(), 2u) << "glassbox_core and glassbox_cpu";

  // Only the units of the engine's libraries (registry/, engine/ and the generated code) that
  // register are parsed: the registrations are all there is to compare.
  SourceScanOptions options;
  options.jobs = 2;
  options.registering_units_only = true;
  options.source_root = reply.codemodel.source_dir;
  options.unit_filter = "^(" + regex_escaped(reply.codemodel.source_dir) + "/(registry|engine)/|" +
                        regex_escaped(reply.codemodel.build_dir) + "/generated/glassbox/ops/)";
  const SourceScan scan = scan_sources(read_compile_database(GLASSBOX_TEST_BUILD_DIR), options);
  ASSERT_TRUE(scan.errors.empty()) << scan.errors[0].file << ": " << scan.errors[0].message;

  RegistrationInputs in;
  in.registry_json = registry_json_from_libraries(libraries);
  in.sources = &scan;
  in.reply = &reply;
  read_binary_side(libraries, in);
  for (const auto& lib : in.binary_libraries) {
    ASSERT_TRUE(lib.has_symtab && lib.has_lines) << lib.library << ": the dev build keeps symbols and DWARF";
  }
  const RegistrationView v = build_registration_view(in, {});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << scan.units.size() << " registering units scanned (" << scan.skipped_units << " skipped), "
            << v.schemas.size() << " schemas and " << v.rows.size() << " registrations joined in " << seconds << " s\n";

  std::vector<std::string> mismatches;
  EXPECT_TRUE(v.notes.empty()) << v.notes[0];

  // Every operator of ops.yaml: defined where all three say, the schema traced to its YAML line,
  // and a kernel for each key of its `dispatch:` (CompositeImplicitAutograd when it has none).
  const std::string yaml = "engine/ops/ops.yaml";
  const auto declared = read_ops_yaml(std::filesystem::path(GLASSBOX_TEST_SOURCE_DIR) / yaml);
  ASSERT_GT(declared.size(), 250u);
  std::map<std::string, const RegistrationRow*> schemas;
  for (const auto& s : v.schemas) schemas[s.op] = &s;
  std::set<std::pair<std::string, std::string>> kernels;
  std::map<std::string, int> per_key;
  for (const auto& r : v.rows) kernels.emplace(r.op, r.key), ++per_key[r.key];
  for (const auto& [op, entry] : declared) {
    const auto s = schemas.find(op);
    if (s == schemas.end()) {
      mismatches.push_back(op + ": declared at " + yaml + ":" + std::to_string(entry.line) +
                           " but defined by no source");
      continue;
    }
    check_row(*s->second, mismatches);
    if (s->second->schema_at != yaml + ":" + std::to_string(entry.line))
      mismatches.push_back(op + ": declared at " + yaml + ":" + std::to_string(entry.line) +
                           ", the registration names " + s->second->schema_at);
    std::set<std::string> keys = entry.keys;
    if (keys.empty()) keys.insert("CompositeImplicitAutograd");
    for (const auto& key : keys) {
      // CUDA kernels are registered by glassbox_cuda only when CUDA is built; here it is the stub.
      if (key == "CUDA" && !GLASSBOX_TEST_CUDA_ENABLED) continue;
      if (!kernels.count({op, key}))
        mismatches.push_back(op + " [" + key + "]: in ops.yaml's dispatch, registered nowhere");
    }
  }
  for (const auto& s : v.schemas)
    if (s.op.starts_with("glassbox::") && !declared.count(s.op))
      mismatches.push_back(s.op + ": defined, but not in " + yaml);

  // Every kernel and fallback registration of every key, the generated autograd kernels included.
  for (const auto& r : v.rows) check_row(r, mismatches);
  for (const char* key : {"CPU", "Meta", "CompositeImplicitAutograd", "CompositeExplicitAutograd", "Autograd"})
    EXPECT_GT(per_key[key], 0) << "no " << key << " registration was compared";
  EXPECT_GT(per_key["Autograd"], 150) << "the generated autograd kernels";
  for (const char* key : {"AutogradCPU", "AutogradCUDA"})  // glassbox_core's built-in fallbacks
    EXPECT_NE(std::find_if(v.rows.begin(), v.rows.end(),
                           [&](const RegistrationRow& r) { return r.op == "(fallback)" && r.key == key; }),
              v.rows.end())
        << key;

  EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " mismatches:" << listed(mismatches);
  EXPECT_LT(seconds, 120.0) << "the scan is meant to stay well under a minute on 2 cores";
}

// The dlopen test library's hand-written GLASSBOX_LIBRARY and GLASSBOX_LIBRARY_IMPL blocks.
const char* kTestLibrarySource = "tests/cpp/registry/dlopen_test_library.cpp";
const char* kTestLibraryUnits = R"(tests/cpp/registry/dlopen_test_library\.cpp$)";

std::vector<std::string> ops_on(const std::string& library, const std::string& format) {
  return {"ops",  "--load",  library,    "--build", GLASSBOX_TEST_BUILD_DIR, "--units", kTestLibraryUnits, "-j", "1",
          "--op", "^t_dl::", "--format", format};
}

TEST(RegistrationAgreement, HandWrittenBlocksOfATestLibrary) {
  const cli::CliRun r = cli::run(ops_on(testing::dlopen_library().string(), "json"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sources_used"], nlohmann::json({"registry", "sources", "binary", "file_api"}));
  EXPECT_TRUE(j["notes"].empty()) << j["notes"];
  EXPECT_TRUE(j["disagreements"].empty()) << j["disagreements"];
  const std::string def_at = std::string(kTestLibrarySource) + ":" +
                             std::to_string(testing::line_containing(kTestLibrarySource, "m.def(\"triple"));
  const std::string impl_at = std::string(kTestLibrarySource) + ":" +
                              std::to_string(testing::line_containing(kTestLibrarySource, "m.impl(\"triple\""));
  ASSERT_EQ(j["schemas"].size(), 1u);
  ASSERT_EQ(j["rows"].size(), 1u);
  for (const auto& [row, at] : {std::pair{j["schemas"][0], def_at}, std::pair{j["rows"][0], impl_at}}) {
    EXPECT_EQ(row["found_in"], "registry,sources,binary") << row;
    // __FILE__ may be spelled from the build directory ("../../tests/..."): compared as a site.
    EXPECT_TRUE(same_site(row["registry_at"].get<std::string>(), at)) << row["registry_at"] << " vs " << at;
    EXPECT_EQ(row["sources_at"], at);
    EXPECT_TRUE(same_site(row["binary_at"].get<std::string>(), at)) << row["binary_at"] << " vs " << at;
    EXPECT_EQ(row["agreement"], "ok");
  }
  EXPECT_EQ(j["rows"][0]["kernel"], "(anonymous namespace)::triple");
  EXPECT_EQ(j["rows"][0]["target"], "glassbox_dlopen_test_library");
}

// Stripped copies, run as the program (a fresh process: the copy registers namespace t_dl again).
TEST(RegistrationAgreement, StrippedCopiesSayWhatTheyCannotShow) {
  // Each copy keeps the library's name (the File API names the library its sources build).
  testing::TempDir dir("opsstrip");
  std::filesystem::create_directories(dir / "no-debug");
  std::filesystem::create_directories(dir / "no-symtab");
  const auto name = testing::dlopen_library().filename().string();
  const auto no_debug = dir / ("no-debug/" + name);
  const auto no_symtab = dir / ("no-symtab/" + name);
  ASSERT_TRUE(testing::run_tool(
      {testing::objcopy_program(), "--strip-debug", testing::dlopen_library().string(), no_debug.string()}));
  ASSERT_TRUE(testing::run_tool(
      {testing::strip_program(), "--strip-all", "-o", no_symtab.string(), testing::dlopen_library().string()}));
  auto program = [](std::vector<std::string> argv) {
    argv.insert(argv.begin(), GLASSBOX_TEST_CLI);
    return run_process(argv);
  };

  // Without DWARF: the registrations are still found in its blocks, without lines, and said so.
  ProcessResult p = program(ops_on(no_debug.string(), "json"));
  ASSERT_EQ(p.exit_code, 0) << p.error_output;
  auto j = nlohmann::json::parse(p.output);
  EXPECT_TRUE(j["disagreements"].empty()) << j["disagreements"];
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_TRUE(cli::contains(j["notes"][0], "no DWARF line information")) << j["notes"];
  EXPECT_TRUE(cli::contains(p.error_output, "glassbox: note: " + no_debug.string() + ": no DWARF line information"))
      << p.error_output;
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["found_in"], "registry,sources,binary");
  EXPECT_EQ(j["rows"][0]["binary_at"], "");
  EXPECT_EQ(j["rows"][0]["agreement"], "ok");
  p = program(ops_on(no_debug.string(), "table"));
  EXPECT_EQ(p.exit_code, 0) << p.error_output;
  EXPECT_TRUE(cli::contains(p.output, "0 disagreements")) << p.output;
  EXPECT_TRUE(cli::contains(p.output, "note: " + no_debug.string() + ": no DWARF line information")) << p.output;
  p = program({"symbols", no_debug.string(), "--registrations"});
  EXPECT_EQ(p.exit_code, 0) << p.error_output;
  EXPECT_TRUE(cli::contains(p.output, ": 2 registrations (without lines: no DWARF line information")) << p.output;
  EXPECT_TRUE(cli::contains(p.output, "GLASSBOX_LIBRARY_IMPL")) << p.output;

  // Without .symtab: the blocks are gone; the registry and the sources still agree, and the note
  // says why the binary has nothing to compare.
  p = program(ops_on(no_symtab.string(), "json"));
  ASSERT_EQ(p.exit_code, 0) << p.error_output;
  j = nlohmann::json::parse(p.output);
  EXPECT_TRUE(j["disagreements"].empty()) << j["disagreements"];
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_TRUE(cli::contains(j["notes"][0], "no .symtab (stripped)")) << j["notes"];
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["found_in"], "registry,sources");
  p = program({"symbols", no_symtab.string(), "--registrations"});
  EXPECT_EQ(p.exit_code, 0) << p.error_output;
  EXPECT_TRUE(cli::contains(p.output, ": 0 registrations (no .symtab")) << p.output;
  p = program({"symbols", no_symtab.string(), "--lines", "-D"});  // its exported symbols, no lines
  EXPECT_EQ(p.exit_code, 0) << p.error_output;
  EXPECT_TRUE(cli::contains(p.error_output, "no DWARF line information")) << p.error_output;
}

}  // namespace
}  // namespace glassbox::introspect
