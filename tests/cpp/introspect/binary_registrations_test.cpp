// Registrations found from binaries alone: the hand-written blocks of the dlopen test library,
// the built-in fallbacks of glassbox_core, name patterns of PyTorch binaries, a stripped copy.
#include "introspect/binary/binary_registrations.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/cpp/introspect/elf_test_support.h"
#include "tests/cpp/introspect/test_support.h"

namespace glassbox::introspect {
namespace {

using testing::ends_with;

ElfSymbol function(std::string name, std::string demangled, SymbolBinding binding = SymbolBinding::Local) {
  ElfSymbol s;
  s.name = std::move(name);
  s.demangled = std::move(demangled);
  s.type = SymbolType::Function;
  s.binding = binding;
  s.section_index = 12;
  s.address = 0x1000;
  return s;
}

const BinaryRegistration* find(const std::vector<BinaryRegistration>& all, BinaryRegistrationKind kind,
                               std::string_view ns, std::string_view key = "") {
  for (const auto& r : all)
    if (r.kind == kind && r.ns == ns && r.dispatch_key == key) return &r;
  return nullptr;
}

TEST(BinaryRegistrations, HandWrittenBlocksAtTheirLines) {
  const auto found = find_binary_registrations(testing::dlopen_library());
  const std::string source = "tests/cpp/registry/dlopen_test_library.cpp";
  const BinaryRegistration* def = find(found, BinaryRegistrationKind::GlassboxLibrary, "t_dl");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->symbol, "_ZL26glassbox_library_init_t_dlRN8glassbox7LibraryE");
  EXPECT_EQ(def->demangled, "glassbox_library_init_t_dl(glassbox::Library&)");
  EXPECT_TRUE(ends_with(def->file, source)) << def->file;
  EXPECT_EQ(def->line, testing::line_containing(source, "GLASSBOX_LIBRARY(t_dl, m)"));
  EXPECT_EQ(def->library, testing::dlopen_library().string());
  const BinaryRegistration* impl = find(found, BinaryRegistrationKind::GlassboxLibraryImpl, "t_dl", "CPU");
  ASSERT_NE(impl, nullptr);
  EXPECT_TRUE(ends_with(impl->file, source)) << impl->file;
  EXPECT_EQ(impl->line, testing::line_containing(source, "GLASSBOX_LIBRARY_IMPL(t_dl, CPU, m)"));
  EXPECT_EQ(found.size(), 2u);
  // Each block has code at the line of its def/impl call (here the block's own line).
  const uint32_t def_call = testing::line_containing(source, "m.def(\"triple");
  const uint32_t impl_call = testing::line_containing(source, "m.impl(\"triple\"");
  EXPECT_NE(std::find(def->code_lines.begin(), def->code_lines.end(), def_call), def->code_lines.end());
  EXPECT_NE(std::find(impl->code_lines.begin(), impl->code_lines.end(), impl_call), impl->code_lines.end());
  EXPECT_EQ(std::find(def->code_lines.begin(), def->code_lines.end(), impl_call), def->code_lines.end());
}

TEST(BinaryRegistrations, GeneratedBlocksHaveCodeAtEveryCall) {
  // glassbox_core's fallback blocks: one line each, and nothing else in their function.
  const auto found = find_binary_registrations(testing::core_library());
  const BinaryRegistration* r = find(found, BinaryRegistrationKind::GlassboxLibraryImpl, "_", "AutogradCPU");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->code_lines, std::vector<uint32_t>{r->line});
}

TEST(BinaryRegistrations, FallbackBlocksOfTheCore) {
  const auto found = find_binary_registrations(testing::core_library());
  const std::string source = "registry/builtin_fallbacks.cpp";
  for (const char* key : {"AutogradCPU", "AutogradCUDA"}) {
    const BinaryRegistration* r = find(found, BinaryRegistrationKind::GlassboxLibraryImpl, "_", key);
    ASSERT_NE(r, nullptr) << key;
    EXPECT_TRUE(ends_with(r->file, source)) << r->file;
    EXPECT_EQ(r->line, testing::line_containing(source, "GLASSBOX_LIBRARY_IMPL(_, " + std::string(key) + ",")) << key;
  }
}

TEST(BinaryRegistrations, FragmentBlock) {
  const auto found = find_binary_registrations(GLASSBOX_TEST_DWARF5_LIBRARY);
  const BinaryRegistration* r = find(found, BinaryRegistrationKind::GlassboxLibraryFragment, "dwarf_fixture");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->line, testing::line_containing("tests/cpp/introspect/fixtures/binaries/dwarf_version_library.cpp",
                                              "the fragment block"));
}

TEST(BinaryRegistrations, StrippedCopyHasNoBlocks) {
  testing::TempDir dir("regstrip");
  const auto copy = dir / "lib.so";
  ASSERT_TRUE(testing::run_tool(
      {testing::strip_program(), "--strip-all", "-o", copy.string(), testing::dlopen_library().string()}));
  EXPECT_TRUE(find_binary_registrations(copy).empty());
  // With only the debug info removed, the blocks are found, without lines.
  ASSERT_TRUE(testing::run_tool(
      {testing::objcopy_program(), "--strip-debug", testing::dlopen_library().string(), copy.string()}));
  DwarfOptions o;
  o.debug_dirs = {dir.path().string()};
  const auto found = find_binary_registrations(copy, o);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].file, "");
  EXPECT_EQ(found[0].line, 0u);
  EXPECT_TRUE(found[0].code_lines.empty());
  const BinaryRegistrationScan scan = scan_binary_registrations(copy, o);
  EXPECT_TRUE(scan.has_symtab);
  EXPECT_EQ(scan.line_status, DwarfLines::Status::Missing);
  EXPECT_NE(scan.line_message.find("no DWARF line information"), std::string::npos) << scan.line_message;
  EXPECT_TRUE(scan.compile_units.empty());
}

TEST(BinaryRegistrations, PyTorchNamePatterns) {
  auto kind_of = [](const ElfSymbol& s) {
    auto r = classify_registration_symbol(s);
    return r ? std::string(to_string(r->kind)) + " " + r->ns + " " + r->dispatch_key + " " + r->op : std::string("-");
  };
  EXPECT_EQ(
      kind_of(function("_ZL23TORCH_LIBRARY_init_atenRN5torch7LibraryE", "TORCH_LIBRARY_init_aten(torch::Library&)")),
      "TORCH_LIBRARY aten  ");
  EXPECT_EQ(kind_of(function("_ZN2at12_GLOBAL__N_139TORCH_LIBRARY_IMPL_init_aten_CPU_3RN5torch7LibraryE",
                             "at::(anonymous namespace)::TORCH_LIBRARY_IMPL_init_aten_CPU_3(torch::Library&)")),
            "TORCH_LIBRARY_IMPL aten CPU ");
  EXPECT_EQ(kind_of(function("x", "TORCH_LIBRARY_IMPL_init___Autograd_12(torch::Library&)")),
            "TORCH_LIBRARY_IMPL _ Autograd ");
  EXPECT_EQ(kind_of(function("x", "TORCH_LIBRARY_FRAGMENT_init_quantized_7(torch::Library&)")),
            "TORCH_LIBRARY_FRAGMENT quantized  ");
  EXPECT_EQ(kind_of(function("_ZN2at4_ops10add_Tensor4callERKNS_6TensorES5_RKN3c106ScalarE",
                             "at::_ops::add_Tensor::call(at::Tensor const&, at::Tensor const&, c10::Scalar const&)",
                             SymbolBinding::Global)),
            "op_call aten  add_Tensor");
  EXPECT_EQ(kind_of(function("y", "at::_ops::sum_dim_IntList::redispatch(c10::DispatchKeySet, at::Tensor const&)")),
            "op_redispatch aten  sum_dim_IntList");
  EXPECT_EQ(kind_of(function("z", "glassbox::ops::matmul::call(glassbox::Tensor const&, glassbox::Tensor const&)")),
            "op_call glassbox  matmul");
  // Not registrations: other members, clones, objects, undefined references, broken names.
  EXPECT_EQ(kind_of(function("w", "at::_ops::add_Tensor::schema()")), "-");
  EXPECT_EQ(kind_of(function("_ZL23TORCH_LIBRARY_init_atenRN5torch7LibraryE.cold",
                             "TORCH_LIBRARY_init_aten(torch::Library&) [clone .cold]")),
            "-");
  ElfSymbol object = function("v", "TORCH_LIBRARY_static_init_aten");
  object.type = SymbolType::Object;
  EXPECT_EQ(kind_of(object), "-");
  ElfSymbol undefined = function("u", "at::_ops::add_Tensor::call(at::Tensor const&)");
  undefined.section_index = 0;
  EXPECT_EQ(kind_of(undefined), "-");
  EXPECT_EQ(kind_of(function("x", "TORCH_LIBRARY_IMPL_init_aten_CPU(torch::Library&)")), "-");  // no number
  EXPECT_EQ(to_string(BinaryRegistrationKind::GlassboxLibraryFragment), "GLASSBOX_LIBRARY_FRAGMENT");
}

}  // namespace
}  // namespace glassbox::introspect
