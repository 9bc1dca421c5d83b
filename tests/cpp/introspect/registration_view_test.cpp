// The registration view's joins that need no engine build: kernels placed at their definitions
// by a binary (symbols and DWARF), and real PyTorch's helpers (kernel families, the dispatch
// table text, the binary-versus-live agreement).
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "introspect/binary/binary_registrations.h"
#include "introspect/binary/dwarf_lines.h"
#include "introspect/binary/elf_file.h"
#include "introspect/registry/registration_graph.h"
#include "introspect/registry/torch_registrations.h"

namespace glassbox::introspect {

// A function of this test binary whose definition the DWARF reader must find (line below).
__attribute__((noinline)) int registration_view_test_kernel(int x) { return x * 3 + 1; }
constexpr int kKernelLine = __LINE__ - 1;

namespace {

std::string registry_with_mm() {
  return R"({"format": "glassbox-registry", "version": 1, "fallbacks": [], "operators": [
    {"name": "glassbox::mm", "defined_at": "gen/RegisterSchema.cpp:3",
     "kernels": [{"key": "CPU", "alias": false, "registered_at": "gen/RegisterCPU.cpp:260", "active": true}],
     "table": [{"key": "CPU", "provenance": "kernel", "source_key": "CPU", "registered_at": "gen/RegisterCPU.cpp:260"}]}]})";
}

SourceScan scan_declaring(const std::string& kernel_file, bool defined) {
  SourceScan scan;
  scan.source_root = "/src";
  SourceRegistration r;
  r.kind = "impl", r.block = "GLASSBOX_LIBRARY_IMPL", r.ns = "glassbox", r.dispatch_key = "CPU", r.op = "mm";
  r.kernel = "glassbox::native::mm_cpu", r.kernel_file = kernel_file, r.kernel_line = 11, r.kernel_defined = defined;
  r.file = "gen/RegisterCPU.cpp", r.line = 260, r.unit = "gen/RegisterCPU.cpp";
  scan.registrations.push_back(r);
  scan.units.push_back("gen/RegisterCPU.cpp");
  return scan;
}

TEST(RegistrationView, KernelDeclaredInAHeaderIsPlacedAtItsDefinitionInTheBinary) {
  const SourceScan scan = scan_declaring("gen/native/mm.h", false);
  RegistrationInputs in;
  in.registry_json = registry_with_mm();
  in.sources = &scan;
  in.kernel_definitions.push_back({"glassbox::native::mm_cpu", "_ZN8glassbox6native6mm_cpuEv", 640,
                                   "/src/engine/cpu/matmul_kernels.cpp", 91, "lib/libglassbox_cpu.so"});
  const RegistrationView view = build_registration_view(in);
  ASSERT_EQ(view.rows.size(), 1u);
  EXPECT_EQ(view.rows[0].kernel_at, "engine/cpu/matmul_kernels.cpp:91");
  EXPECT_EQ(view.rows[0].kernel_symbol, "_ZN8glassbox6native6mm_cpuEv");
  EXPECT_EQ(view.rows[0].kernel_size, 640u);
  EXPECT_EQ(view.rows[0].agreement(), "ok");
}

TEST(RegistrationView, KernelTheSourcesDefineKeepsTheSourcesLine) {
  const SourceScan scan = scan_declaring("engine/cpu/matmul_kernels.cpp", true);
  RegistrationInputs in;
  in.registry_json = registry_with_mm();
  in.sources = &scan;
  in.kernel_definitions.push_back(
      {"glassbox::native::mm_cpu", "_Z1f", 8, "/src/engine/cpu/matmul_kernels.cpp", 90, "l.so"});
  const RegistrationView view = build_registration_view(in);
  ASSERT_EQ(view.rows.size(), 1u);
  EXPECT_EQ(view.rows[0].kernel_at, "engine/cpu/matmul_kernels.cpp:11");
  EXPECT_EQ(view.rows[0].kernel_symbol, "_Z1f");  // the symbol is the binary's all the same
}

TEST(RegistrationView, KernelWithoutADefinitionStaysWhereTheSourcesPutIt) {
  const SourceScan scan = scan_declaring("gen/native/mm.h", false);
  RegistrationInputs in;
  in.registry_json = registry_with_mm();
  in.sources = &scan;
  const RegistrationView view = build_registration_view(in);
  ASSERT_EQ(view.rows.size(), 1u);
  EXPECT_EQ(view.rows[0].kernel_at, "gen/native/mm.h:11");
  EXPECT_TRUE(view.rows[0].kernel_symbol.empty());
}

TEST(FunctionDefinitions, AFunctionOfThisBinaryIsPlacedAtItsDefinitionLine) {
  ASSERT_EQ(registration_view_test_kernel(2), 7);
  const ElfFile elf = ElfFile::read("/proc/self/exe");
  const DwarfLines lines = DwarfLines::read(elf);
  if (lines.status() != DwarfLines::Status::Present)
    GTEST_SKIP() << "this test binary has no DWARF: " << lines.message();
  const auto found = find_function_definitions(elf, &lines, {"glassbox::introspect::registration_view_test_kernel"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].file.ends_with("registration_view_test.cpp")) << found[0].file;
  EXPECT_EQ(found[0].line, uint32_t(kKernelLine));
  EXPECT_GT(found[0].size, 0u);
  EXPECT_TRUE(find_function_definitions(elf, &lines, {"no::such::function"}).empty());
}

TEST(TorchRegistrations, KernelFamilyOfARegistrationUnit) {
  EXPECT_EQ(torch_kernel_family("/w/build/aten/src/ATen/RegisterCPU_0.cpp:1309"),
            "at::(anonymous namespace)::wrapper_CPU_");
  EXPECT_EQ(torch_kernel_family("/w/build/aten/src/ATen/RegisterCompositeExplicitAutogradNonFunctional_0.cpp:1"),
            "at::(anonymous namespace)::wrapper_CompositeExplicitAutogradNonFunctional_");
  EXPECT_EQ(torch_kernel_family("/w/torch/csrc/autograd/generated/VariableType_2.cpp:11000"),
            "torch::autograd::VariableType::");
  EXPECT_EQ(torch_kernel_family("x/RegisterFunctionalization_3.cpp:5"), "at::functionalization::");
  EXPECT_EQ(torch_kernel_family("x/RegisterSchema.cpp:6"), "");
  EXPECT_EQ(torch_kernel_family("/w/aten/src/ATen/functorch/BatchRulesBinaryOps.cpp:472"), "");
  EXPECT_EQ(torch_kernel_family("registered by RegisterOperators"), "");
}

TEST(TorchRegistrations, DispatchTableTextIsPyTorchs) {
  const std::string json = R"({"operators": [{"name": "aten::add.Tensor", "table": [
      {"key": "CPU", "provenance": "kernel", "registered_at": "/w/RegisterCPU_0.cpp:1309", "fallthrough": false},
      {"key": "BackendSelect", "provenance": "backend fallback", "registered_at": "/w/B.cpp:3", "fallthrough": true}]},
      {"name": "aten::sub.Tensor", "table": []}]})";
  EXPECT_EQ(torch_dispatch_table_text(json, R"(^aten::add\.Tensor$)"),
            "dispatch table of aten::add.Tensor:\n"
            "CPU: registered at /w/RegisterCPU_0.cpp:1309 [kernel]\n"
            "BackendSelect: fallthrough registered at /w/B.cpp:3 [backend fallback]\n");
  EXPECT_THROW(torch_dispatch_table_text("{", ""), ValueError);
}

TEST(TorchRegistrations, AgreementCountsTriplesPairsAndPythonApart) {
  RegistrationView view;
  auto row = [&](std::string op, std::string key, std::string found, std::string at, std::string kernel,
                 std::string unit = "") {
    RegistrationRow r;
    r.op = op, r.key = key, r.found_in = found, r.registry_at = at, r.kernel = kernel, r.binary_unit = unit;
    view.rows.push_back(r);
  };
  row("aten::add.Tensor", "CPU", "registry,binary", "/w/RegisterCPU_0.cpp:1",
      "at::(anonymous namespace)::wrapper_CPU_add_Tensor");
  row("aten::add.Tensor", "Meta", "registry,binary", "/w/RegisterCPU_0.cpp:2",
      "at::(anonymous namespace)::wrapper_Meta_add_Tensor");
  row("aten::rot90.out", "Autograd", "registry,binary", "/w/VariableType_6.cpp:9", "", "VariableType_6.cpp");
  row("aten::rot90", "Batched", "registry,binary", "/w/Batching.cpp:9", "");
  row("aten::add.Tensor", "Lazy", "binary", "", "at::wrapper_Lazy_add_Tensor");
  row("aten::add.Tensor", "Tracer", "registry", "/w/TraceType_2.cpp:7", "");
  row("aten::add.Tensor", "Python", "registry", "/w/torch/_meta_registrations.py:53", "");
  row("glassbox::mm", "CPU", "registry", "x.cpp:1", "");
  const TorchAgreement a = torch_agreement(view);
  EXPECT_EQ(a.live, 5u);
  EXPECT_EQ(a.binary, 5u);
  EXPECT_EQ(a.both, 4u);
  EXPECT_EQ(a.agree, 3u);  // the Meta kernel is not of RegisterCPU's family
  EXPECT_EQ(a.from_python, 1u);
  EXPECT_EQ(a.all(), 6u);
  EXPECT_DOUBLE_EQ(a.percent(), 50.0);
  ASSERT_EQ(a.kernel_differs.size(), 1u);
  EXPECT_NE(a.kernel_differs[0].find("wrapper_Meta_add_Tensor"), std::string::npos);
}

}  // namespace
}  // namespace glassbox::introspect
