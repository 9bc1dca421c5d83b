// The source scan on units that do not fully parse: registrations kept despite a missing header
// and an unknown member, errors listed per unit, kernels seen through TORCH_FN,
// makeFromBoxedFunction and makeFallthrough (on fixtures and on the torch wheel's own
// torch/library.h), and a malformed compile-database entry skipped with a warning.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "introspect/source/source_scan.h"
#include "real_binaries.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

using testing::TempDir;
using testing::write_file;

const std::string kFixtures = GLASSBOX_TEST_FIXTURES;
const std::string kPartial = kFixtures + "/partial_registrations";

nlohmann::json entry(const TempDir& dir, const std::string& file, const std::string& flags) {
  return {{"directory", dir.path().string()}, {"file", file}, {"command", "c++ " + flags + " -c " + file + " -o x.o"}};
}

const SourceRegistration* find(const SourceScan& scan, std::string_view kind, std::string_view op,
                               std::string_view key) {
  for (const auto& r : scan.registrations)
    if (r.kind == kind && r.qualified_op() == op && r.dispatch_key == key) return &r;
  return nullptr;
}

const SourceRegistration* find_fallback(const SourceScan& scan, std::string_view key) {
  for (const auto& r : scan.registrations)
    if (r.kind == "fallback" && r.dispatch_key == key) return &r;
  return nullptr;
}

TEST(SourceScanPartial, KeepsWhatParsedAndListsTheErrors) {
  if (!source_scan_available()) GTEST_SKIP() << "built without libclang";
  TempDir dir("source_scan_partial");
  nlohmann::json db = nlohmann::json::array();
  db.push_back(entry(dir, kPartial + "/partial.cpp", "-std=c++17 -I" + kFixtures + "/registrations"));
  db.push_back({{"directory", dir.path().string()}, {"command", "c++ -c nowhere.cpp"}});  // no "file"
  db.push_back("not an object");
  write_file(dir / "compile_commands.json", db.dump());
  SourceScanOptions options;
  options.source_root = kPartial;
  const SourceScan scan = scan_build_dir(dir.path(), options);

  // The two bad entries are skipped, each with a warning naming it; the good one is scanned.
  ASSERT_EQ(scan.warnings.size(), 2u);
  EXPECT_NE(scan.warnings[0].find("entry 1"), std::string::npos) << scan.warnings[0];
  EXPECT_NE(scan.warnings[1].find("entry 2"), std::string::npos) << scan.warnings[1];
  ASSERT_EQ(scan.units.size(), 1u);

  // The unit's errors: the missing header and the unknown member, each with file:line.
  ASSERT_EQ(scan.errors.size(), 1u);
  const UnitError& e = scan.errors[0];
  EXPECT_EQ(e.file, "partial.cpp");
  EXPECT_TRUE(e.parsed);
  std::string all;
  for (const auto& d : e.diagnostics) all += d + "\n";
  EXPECT_NE(all.find("partial.cpp:5:"), std::string::npos) << all;
  EXPECT_NE(all.find("not_there.h"), std::string::npos) << all;
  EXPECT_EQ(e.registrations, scan.registrations.size());

  // Every registration of the unit, kernels named by what their wrappers wrap.
  EXPECT_NE(find(scan, "def", "partial::mul", ""), nullptr);
  const SourceRegistration* fn = find(scan, "impl", "partial::mul", "CPU");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->kernel, "partial::mul_cpu");
  EXPECT_EQ(fn->kernel_file, "partial.cpp");
  EXPECT_EQ(fn->kernel_line, 11);
  const SourceRegistration* boxed = find(scan, "impl", "partial::mul.boxed", "CPU");
  ASSERT_NE(boxed, nullptr);
  EXPECT_EQ(boxed->kernel, "partial::mul_boxed");
  EXPECT_EQ(boxed->kernel_file, "partial.cpp");
  EXPECT_EQ(boxed->kernel_line, 12);
  const SourceRegistration* fallthrough = find_fallback(scan, "AutogradCPU");
  ASSERT_NE(fallthrough, nullptr);
  EXPECT_EQ(fallthrough->kernel, "(fallthrough)");
  EXPECT_EQ(scan.registrations.size(), 4u);

  const auto j = nlohmann::json::parse(source_scan_to_json(scan));
  EXPECT_EQ(j["warnings"].size(), 2u);
  EXPECT_EQ(j["errors"][0]["registrations"], 4);
  EXPECT_GE(j["errors"][0]["diagnostics"].size(), 2u);
}

TEST(SourceScanPartial, AFileThatIsNotACompileDatabaseStillFails) {
  TempDir dir("source_scan_not_a_database");
  write_file(dir / "compile_commands.json", "{\"not\": \"an array\"}");
  EXPECT_ANY_THROW(scan_build_dir(dir.path()));
}

// The real torch/library.h of the PyPI wheel (with its ATen and c10 headers).
TEST(SourceScanPartial, TorchWheelHeadersResolveTheWrappedKernels) {
  if (!source_scan_available()) GTEST_SKIP() << "built without libclang";
  const testing::FetchedFile include = testing::torch_wheel_include_dir();
  if (include.path.empty()) GTEST_SKIP() << "the torch wheel cannot be downloaded here: " << include.why_not;
  TempDir dir("source_scan_torch_wheel");
  const std::string flags =
      "-std=c++20 -I" + include.path.string() + " -I" + (include.path / "torch/csrc/api/include").string();
  write_file(dir / "compile_commands.json",
             nlohmann::json::array({entry(dir, kPartial + "/torch_wheel_registrations.cpp", flags)}).dump());
  SourceScanOptions options;
  options.source_root = kPartial;
  const SourceScan scan = scan_build_dir(dir.path(), options);
  for (const auto& e : scan.errors) ADD_FAILURE() << e.file << " has errors against the wheel's headers: " << e.message;

  EXPECT_NE(find(scan, "def", "wheel_fixture::scale", ""), nullptr);
  const SourceRegistration* cpu = find(scan, "impl", "wheel_fixture::scale", "CPU");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->kernel, "wheel_fixture::scale_cpu");
  EXPECT_EQ(cpu->kernel_line, 6);
  const SourceRegistration* meta = find(scan, "impl", "wheel_fixture::scale", "Meta");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->kernel, "wheel_fixture::scale_boxed");  // not CppFunction::makeFromBoxedFunction
  EXPECT_EQ(meta->kernel_file, "torch_wheel_registrations.cpp");
  EXPECT_EQ(meta->kernel_line, 7);
  const SourceRegistration* fallthrough = find_fallback(scan, "AutogradCPU");
  ASSERT_NE(fallthrough, nullptr);
  EXPECT_EQ(fallthrough->kernel, "(fallthrough)");
}

// A unit scanned again in the same process (another `ops` view in a notebook) is not parsed again
// unless it or a header it includes changed: a header rewritten with the same size is noticed.
TEST(SourceScanPartial, ScanningAgainSeesAChangedHeader) {
  if (!source_scan_available()) GTEST_SKIP() << "built without libclang";
  TempDir dir("source_scan_again");
  write_file(dir / "kernel.h", "#define KERNEL partial::add_one\n");
  write_file(dir / "unit.cpp",
             "#include \"torch/library.h\"\n#include \"kernel.h\"\n"
             "namespace partial { struct Tensor {}; Tensor add_one(const Tensor& a) { return a; }\n"
             "Tensor add_two(const Tensor& a) { return a; } }\n"
             "TORCH_LIBRARY_IMPL(partial, CPU, m) { m.impl(\"add\", TORCH_FN(KERNEL)); }\n");
  nlohmann::json db = nlohmann::json::array();
  db.push_back(entry(dir, (dir / "unit.cpp").string(), "-std=c++17 -I" + kFixtures + "/registrations"));
  write_file(dir / "compile_commands.json", db.dump());
  auto kernel = [&] {
    const SourceScan scan = scan_build_dir(dir.path());
    const SourceRegistration* r = find(scan, "impl", "partial::add", "CPU");
    return r ? r->kernel : std::string("(none)");
  };
  EXPECT_EQ(kernel(), "partial::add_one");
  EXPECT_EQ(kernel(), "partial::add_one");
  write_file(dir / "kernel.h", "#define KERNEL partial::add_two\n");
  EXPECT_EQ(kernel(), "partial::add_two");
}

}  // namespace
}  // namespace glassbox::introspect
