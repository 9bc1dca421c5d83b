// The libclang source scan: PyTorch-style and hand-written glassbox blocks in fixture sources, a
// unit that does not parse, and glassbox's own generated registrations against its registry.
#include "introspect/source/source_scan.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/core/error.h"

#include "introspect/registry/registration_graph.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

using testing::TempDir;
using testing::write_file;

const std::string kFixture = std::string(GLASSBOX_TEST_FIXTURES) + "/registrations";

// A compile database for the fixture sources (the glassbox block needs glassbox's own headers).
CompileDatabase fixture_database(const TempDir& dir) {
  nlohmann::json entries = nlohmann::json::array();
  const std::string glassbox_includes =
      std::string(" -I") + GLASSBOX_TEST_SOURCE_DIR + " -I" + GLASSBOX_TEST_BUILD_DIR + "/generated";
  for (const char* file : {"aten_ops.cpp", "glassbox_block.cpp", "glassbox_kernels.cpp", "broken.cpp"}) {
    const bool glassbox = std::string(file).starts_with("glassbox");
    entries.push_back(
        {{"directory", dir.path().string()},
         {"file", kFixture + "/" + file},
         {"command", std::string("c++ -std=") + (glassbox ? "c++20" : "c++17") + " -I" + kFixture +
                         (glassbox ? glassbox_includes : "") + " -c " + kFixture + "/" + file + " -o " + file + ".o"}});
  }
  write_file(dir / "compile_commands.json", entries.dump());
  return read_compile_database(dir.path());
}

const SourceRegistration* find(const SourceScan& scan, std::string_view kind, std::string_view op,
                               std::string_view key = {}) {
  for (const auto& r : scan.registrations)
    if (r.kind == kind && r.qualified_op() == op && (key.empty() || r.dispatch_key == key)) return &r;
  return nullptr;
}

TEST(SourceScan, SplitsOperatorNames) {
  const auto a = split_operator_name("add.Tensor(Tensor self, Tensor other) -> Tensor");
  EXPECT_EQ(a.ns, "");
  EXPECT_EQ(a.op, "add");
  EXPECT_EQ(a.overload, "Tensor");
  const auto b = split_operator_name("aten::relu");
  EXPECT_EQ(b.ns, "aten");
  EXPECT_EQ(b.op, "relu");
  EXPECT_EQ(b.overload, "");
}

TEST(SourceScan, FixtureBlocksAndABrokenUnit) {
  if (!source_scan_available()) GTEST_SKIP() << "built without libclang";
  TempDir dir("source_scan_fixture");
  SourceScanOptions options;
  options.source_root = kFixture;
  options.jobs = 2;
  const SourceScan scan = scan_sources(fixture_database(dir), options);

  // The broken unit is named with its first error; its registrations and the others are still reported.
  ASSERT_EQ(scan.errors.size(), 1u);
  EXPECT_EQ(scan.errors[0].file, "broken.cpp");
  EXPECT_NE(scan.errors[0].message.find("broken.cpp:5:"), std::string::npos) << scan.errors[0].message;
  EXPECT_NE(scan.errors[0].message.find("error"), std::string::npos) << scan.errors[0].message;
  EXPECT_EQ(scan.units.size(), 4u);

  // PyTorch style: TORCH_LIBRARY defs and TORCH_LIBRARY_IMPL impls, TORCH_FN and plain pointers.
  const SourceRegistration* def = find(scan, "def", "aten::add.Tensor");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->block, "TORCH_LIBRARY");
  EXPECT_EQ(def->file, "aten_ops.cpp");
  EXPECT_EQ(def->line, 11);
  EXPECT_EQ(def->schema, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(def->block_line, 10);
  ASSERT_NE(find(scan, "def", "aten::relu"), nullptr);
  const SourceRegistration* add = find(scan, "impl", "aten::add.Tensor", "CPU");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->block, "TORCH_LIBRARY_IMPL");
  EXPECT_EQ(add->line, 16);
  EXPECT_NE(add->kernel.find("add_cpu"), std::string::npos) << add->kernel;
  const SourceRegistration* relu = find(scan, "impl", "aten::relu", "CPU");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->kernel, "at::native::relu_cpu");
  EXPECT_EQ(relu->kernel_file, "aten_ops.cpp");
  EXPECT_EQ(relu->kernel_line, 7);
  EXPECT_TRUE(relu->kernel_defined);
  EXPECT_NE(find(scan, "def", "broken::never"), nullptr);  // read despite the unit's error

  // A hand-written glassbox block; the kernel's definition is found in another unit.
  const SourceRegistration* scale_def = find(scan, "def", "fixture_ops::scale");
  ASSERT_NE(scale_def, nullptr);
  EXPECT_EQ(scale_def->file, "glassbox_block.cpp");
  EXPECT_EQ(scale_def->line, 9);
  const SourceRegistration* scale = find(scan, "impl", "fixture_ops::scale", "CPU");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->block, "GLASSBOX_LIBRARY_IMPL");
  EXPECT_EQ(scale->line, 13);
  EXPECT_EQ(scale->block_line, 12);
  EXPECT_EQ(scale->kernel, "fixture::scale_cpu");
  EXPECT_EQ(scale->kernel_file, "glassbox_kernels.cpp");
  EXPECT_EQ(scale->kernel_line, 9);
  EXPECT_TRUE(scale->kernel_defined);
  const SourceRegistration* meta = find(scan, "impl", "fixture_ops::scale", "Meta");  // impl(name, key, fn)
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->kernel, "(lambda)");
  EXPECT_EQ(meta->line, 14);

  const auto j = nlohmann::json::parse(source_scan_to_json(scan));
  EXPECT_EQ(j["errors"][0]["file"], "broken.cpp");
  EXPECT_EQ(j["registrations"].size(), scan.registrations.size());
}

TEST(SourceScan, MissingUnitAndBadFilter) {
  if (!source_scan_available()) GTEST_SKIP() << "built without libclang";
  const CompileDatabase db = parse_compile_database(
      R"([{"directory": "/tmp", "file": "/nonexistent/gone.cpp", "command": "c++ -c /nonexistent/gone.cpp"}])", "test");
  const SourceScan scan = scan_sources(db);
  ASSERT_EQ(scan.errors.size(), 1u);
  EXPECT_NE(scan.errors[0].message.find("gone.cpp"), std::string::npos);
  SourceScanOptions bad;
  bad.unit_filter = "(";
  EXPECT_THROW(scan_sources(db, bad), ValueError);
}

// Every registration of the generated Register*.cpp files (and of a hand-written test library) is
// found in the sources at the file:line the running registry reports, and nothing else is.
TEST(SourceScan, GlassboxBuildMatchesTheRegistry) {
  if (!source_scan_available()) GTEST_SKIP() << "built without libclang";
  SourceScanOptions options;
  options.unit_filter = R"(generated/glassbox/ops/Register[^/]*\.cpp$|tests/cpp/registry/dlopen_test_library\.cpp$)";
  options.jobs = 2;
  const SourceScan scan = scan_build_dir(GLASSBOX_TEST_BUILD_DIR, options);
  ASSERT_TRUE(scan.errors.empty()) << scan.errors[0].file << ": " << scan.errors[0].message;
  ASSERT_GE(scan.units.size(), 3u);

  const auto registry = nlohmann::json::parse(
      // glassbox_cuda registers the kernels of RegisterCUDA.cpp (none when it is the stub).
      registry_json_from_libraries(
          {GLASSBOX_TEST_ENGINE_LIBRARY, GLASSBOX_TEST_CUDA_LIBRARY, GLASSBOX_TEST_DLOPEN_LIBRARY}));
  // __FILE__ is spelled relative to where the compiler ran: compare sites with same_site().
  auto scanned = [&](const std::string& at) {
    return at.find("generated/glassbox/ops/Register") != std::string::npos ||
           at.find("tests/cpp/registry/dlopen_test_library.cpp") != std::string::npos;
  };
  auto at = [](const SourceRegistration& r) { return r.file + ":" + std::to_string(r.line); };
  std::size_t compared = 0;
  std::map<std::string, std::string> registry_sites;  // "kind op key" -> file:line
  for (const auto& op : registry["operators"]) {
    const std::string name = op["name"];
    if (scanned(op["defined_at"])) {
      registry_sites["def " + name] = op["defined_at"];
      const SourceRegistration* r = find(scan, "def", name);
      ASSERT_NE(r, nullptr) << name;
      EXPECT_TRUE(same_site(at(*r), op["defined_at"].get<std::string>()))
          << name << ": " << at(*r) << " vs " << op["defined_at"];
      ++compared;
    }
    for (const auto& k : op["kernels"]) {
      if (!scanned(k["registered_at"])) continue;
      const std::string key = k["key"];
      registry_sites["impl " + name + " " + key] = k["registered_at"];
      const SourceRegistration* r = find(scan, "impl", name, key);
      ASSERT_NE(r, nullptr) << name << " " << key;
      EXPECT_TRUE(same_site(at(*r), k["registered_at"].get<std::string>()))
          << name << ": " << at(*r) << " vs " << k["registered_at"];
      EXPECT_FALSE(r->kernel.empty()) << name;
      ++compared;
    }
  }
  // And the scan finds nothing the registry does not have.
  for (const auto& r : scan.registrations) {
    if (r.file.find("generated/") != std::string::npos) {
      EXPECT_EQ(r.yaml_file, "engine/ops/ops.yaml") << r.qualified_op();
      EXPECT_GT(r.yaml_line, 0) << r.qualified_op();
    }
    const std::string id =
        r.kind == "def" ? "def " + r.qualified_op() : r.kind + " " + r.qualified_op() + " " + r.dispatch_key;
    ASSERT_TRUE(registry_sites.count(id)) << id << " at " << at(r) << " is not in the registry";
    EXPECT_TRUE(same_site(registry_sites[id], at(r))) << id;
  }
  EXPECT_EQ(scan.registrations.size(), registry_sites.size());
  EXPECT_GT(compared, 20u);
  EXPECT_NE(find(scan, "impl", "t_dl::triple", "CPU"), nullptr);
}

}  // namespace
}  // namespace glassbox::introspect
