// The registration API and its errors. Each error names both registrations' file:line.
#include "registry/library.h"

#include <gtest/gtest.h>

#include "registry_test_util.h"

using namespace glassbox;
using namespace glassbox::testing;
using K = DispatchKey;

namespace {
int64_t one_arg(const Tensor&) { return 1; }
int64_t two_args(const Tensor&, int64_t n) { return n; }
int64_t wrong_type(const Tensor&, double) { return 0; }
Tensor by_value(Tensor x) { return x; }
Tensor by_ref(const Tensor& x) { return x; }
}  // namespace

// Both blocks' lines are asserted by DuplicateLibraryBlockIsALoadError.
static const int kFirstLibraryLine = __LINE__ + 1;
GLASSBOX_LIBRARY(t_dup_ns, m) { m.def("a(Tensor x) -> int"); }
extern const int kDuplicateLibraryLine;  // in library_test_duplicate.cpp

TEST(Library, DuplicateLibraryBlockIsALoadError) {
  // Static initialisers cannot throw; the second block's error is kept and printed instead.
  const auto errors = Dispatcher::singleton().load_errors();
  ASSERT_EQ(errors.size(), 1u);
  const std::string& e = errors[0];
  EXPECT_NE(e.find("GLASSBOX_LIBRARY(t_dup_ns, ...) is defined twice"), std::string::npos) << e;
  EXPECT_NE(e.find("tests/cpp/registry/library_test.cpp:" + std::to_string(kFirstLibraryLine)), std::string::npos) << e;
  EXPECT_NE(e.find("tests/cpp/registry/library_test_duplicate.cpp:" + std::to_string(kDuplicateLibraryLine)),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("GLASSBOX_LIBRARY_FRAGMENT(t_dup_ns, m)"), std::string::npos) << e;
}

TEST(Library, DuplicateLibraryFromTheApi) {
  const std::string first_at = GB_NEXT_LINE;
  auto first = GB_TEST_LIBRARY(DEF, "t_lib_twice");
  const std::string second_at = GB_NEXT_LINE;
  EXPECT_ERROR_CONTAINS(GB_TEST_LIBRARY(DEF, "t_lib_twice"), "defined twice", first_at, second_at);
  // Fragments are how other files add to a namespace.
  auto fragment = GB_TEST_LIBRARY(FRAGMENT, "t_lib_twice");
}

TEST(Library, DuplicateDef) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_lib_def");
  const std::string first = GB_NEXT_LINE;
  lib.def("f(Tensor x) -> int");
  auto frag = GB_TEST_LIBRARY(FRAGMENT, "t_lib_def");
  const std::string second = GB_NEXT_LINE;
  EXPECT_ERROR_CONTAINS(frag.def("f(Tensor y) -> int"), "operator t_lib_def::f is defined twice", "first at " + first,
                        "again at " + second, "t_lib_def::f(Tensor x) -> int", "t_lib_def::f(Tensor y) -> int");
  // Another overload is a different operator.
  frag.def("f.other(Tensor y) -> int");
}

TEST(Library, DefInsideAnImplBlock) {
  const std::string block = GB_NEXT_LINE;
  auto impl = GB_TEST_IMPL_LIBRARY("t_lib_impl", CPU);
  const std::string at = GB_NEXT_LINE;
  EXPECT_ERROR_CONTAINS(impl.def("f(Tensor x) -> int"), "def(\"f(Tensor x) -> int\") at " + at,
                        "GLASSBOX_LIBRARY_IMPL(t_lib_impl, CPU) block at " + block,
                        "IMPL blocks only register kernels");
}

TEST(Library, KernelSignatureMustMatchSchema) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_lib_sig");
  const std::string def_at = GB_NEXT_LINE;
  lib.def("f(Tensor x, int n) -> int");
  const std::string impl_at = GB_NEXT_LINE;
  EXPECT_ERROR_CONTAINS(lib.impl("f", K::CPU, &one_arg),
                        "kernel for t_lib_sig::f (dispatch key CPU) registered at " + impl_at, "defined at " + def_at,
                        "the schema has 2 arguments, the kernel takes 1", "kernel signature: int64_t (const Tensor&)");
  EXPECT_ERROR_CONTAINS(lib.impl("f", K::CPU, &wrong_type),
                        "argument 2 'n': the schema says int, the kernel takes double");
  EXPECT_ERROR_CONTAINS(lib.impl("f", K::CPU, [](const Tensor&, int64_t) { return 1.0; }),
                        "return 1: the schema says int, the kernel takes double");
  lib.impl("f", K::CPU, &two_args);  // the right one is accepted

  // A Tensor& parameter needs a schema that says the operator writes it.
  lib.def("g(Tensor x) -> Tensor");
  EXPECT_ERROR_CONTAINS(lib.impl("g", K::CPU, [](Tensor& x) -> Tensor { return x; }), "Tensor(a!)");
  lib.def("g_(Tensor(a!) x) -> Tensor(a!)");
  lib.impl("g_", K::CPU, [](Tensor& x) -> Tensor& { return x; });
}

TEST(Library, KernelBeforeDefIsCheckedAtDef) {
  auto impl = GB_TEST_IMPL_LIBRARY("t_lib_late", CPU);
  const std::string impl_at = GB_NEXT_LINE;
  impl.impl("f", &one_arg);
  auto lib = GB_TEST_LIBRARY(DEF, "t_lib_late");
  const std::string def_at = GB_NEXT_LINE;
  EXPECT_ERROR_CONTAINS(lib.def("f(Tensor x, int n) -> int"), "registered at " + impl_at, "defined at " + def_at);
  EXPECT_FALSE(Dispatcher::singleton().find_op(OperatorName::parse("t_lib_late::f"))->has_schema());
  lib.def("f(Tensor x) -> int");
  EXPECT_EQ(
      Dispatcher::singleton().find_schema_or_throw("t_lib_late::f").typed<int64_t(const Tensor&)>().call(cpu_tensor()),
      1);
}

TEST(Library, KernelsOfOneOperatorShareOneCppSignature) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_lib_cpp");
  lib.def("f(Tensor x) -> Tensor");
  const std::string first = GB_NEXT_LINE;
  lib.impl("f", K::CPU, &by_ref);
  EXPECT_ERROR_CONTAINS(lib.impl("f", K::Meta, &by_value), "has C++ signature Tensor (Tensor)",
                        "kernel registered at " + first + " has Tensor (const Tensor&)");
  auto op = Dispatcher::singleton().find_schema_or_throw("t_lib_cpp::f");
  EXPECT_ERROR_CONTAINS(op.typed<Tensor(Tensor)>(),
                        "the kernels of this operator have C++ signature Tensor (const Tensor&)");
  EXPECT_ERROR_CONTAINS(op.typed<int64_t(const Tensor&)>(), "int64_t");
}

TEST(Library, SecondFallbackForOneKey) {
  auto a = GB_TEST_IMPL_LIBRARY("_", Meta);
  const std::string first = GB_NEXT_LINE;
  a.fallback(fallthrough_kernel());
  auto b = GB_TEST_IMPL_LIBRARY("_", Meta);
  const std::string second = GB_NEXT_LINE;
  EXPECT_ERROR_CONTAINS(b.fallback(fallthrough_kernel()),
                        "a fallback for dispatch key Meta is already registered at " + first,
                        "second fallback at " + second);
  auto def = GB_TEST_LIBRARY(DEF, "t_lib_fb");
  EXPECT_ERROR_CONTAINS(def.fallback(fallthrough_kernel()), "only allowed in a GLASSBOX_LIBRARY_IMPL block");
}

TEST(Library, SecondImplReplacesTheFirstWithAWarning) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_lib_twice_impl");
  lib.def("f(Tensor x) -> int");
  const std::string first = GB_NEXT_LINE;
  lib.impl("f", K::CPU, [](const Tensor&) -> int64_t { return 1; });
  auto other = GB_TEST_IMPL_LIBRARY("t_lib_twice_impl", CPU);
  ::testing::internal::CaptureStderr();
  const std::string second = GB_NEXT_LINE;
  other.impl("f", [](const Tensor&) -> int64_t { return 2; });
  const std::string printed = ::testing::internal::GetCapturedStderr();
  const std::string expected = "kernel for t_lib_twice_impl::f for dispatch key CPU registered at " + second +
                               " replaces the kernel registered at " + first;
  EXPECT_NE(printed.find("glassbox warning: " + expected), std::string::npos) << printed;
  EXPECT_EQ(Dispatcher::singleton().warnings().back(), expected);
  auto f = Dispatcher::singleton().find_schema_or_throw("t_lib_twice_impl::f").typed<int64_t(const Tensor&)>();
  EXPECT_EQ(f.call(cpu_tensor()), 2);
}

TEST(Library, NamesAreQualifiedByTheLibraryNamespace) {
  auto lib = GB_TEST_LIBRARY(DEF, "t_lib_ns");
  lib.def("t_lib_ns::f(Tensor x) -> int");
  EXPECT_ERROR_CONTAINS(lib.def("other::g(Tensor x) -> int"), "other::g", "outside the namespace",
                        "GLASSBOX_LIBRARY(t_lib_ns) block");
  EXPECT_ERROR_CONTAINS(lib.def("h(Tensor x -> int"), "schema error at column", "in def at");
  auto impl = GB_TEST_IMPL_LIBRARY("t_lib_ns", CPU);
  EXPECT_ERROR_CONTAINS(impl.impl("f", K::CUDA, &one_arg), "names a key other than");
  impl.impl("t_lib_ns::f", one_arg);  // a function name works as well as a pointer
  EXPECT_EQ(
      Dispatcher::singleton().find_schema_or_throw("t_lib_ns::f").typed<int64_t(const Tensor&)>().call(cpu_tensor()),
      1);
}
