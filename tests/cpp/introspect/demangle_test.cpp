#include "introspect/binary/demangle.h"

#include <gtest/gtest.h>

namespace glassbox::introspect {
namespace {

TEST(Demangle, ItaniumNames) {
  EXPECT_EQ(demangle("_ZN2at4_ops10add_Tensor4callERKN2at6TensorES5_RKN3c106ScalarE"),
            "at::_ops::add_Tensor::call(at::Tensor const&, at::Tensor const&, c10::Scalar const&)");
  EXPECT_EQ(demangle("_ZN2at6native12_GLOBAL__N_110add_kernelIfEEvRNS_18TensorIteratorBaseE"),
            "void at::native::(anonymous namespace)::add_kernel<float>(at::TensorIteratorBase&)");
  EXPECT_EQ(demangle("_ZZN2at6native3fooEvENKUlvE_clEv"), "at::native::foo()::{lambda()#1}::operator()() const");
}

TEST(Demangle, LeavesOtherNamesAlone) {
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle("_Z"), "_Z");
  EXPECT_EQ(demangle("_Zfoo_not_valid"), "_Zfoo_not_valid");
  EXPECT_EQ(demangle(""), "");
  EXPECT_FALSE(is_mangled("glassbox_library_init_t_dl"));
  EXPECT_TRUE(is_mangled("_Z3foov"));
}

TEST(Demangle, ClonesAndVersions) {
  EXPECT_EQ(demangle("_Z3foov.cold"), "foo() [clone .cold]");
  EXPECT_EQ(demangle("_ZNKSt13runtime_error4whatEv@GLIBCXX_3.4"), "std::runtime_error::what() const@GLIBCXX_3.4");
  EXPECT_EQ(demangle("memcpy@GLIBC_2.14"), "memcpy@GLIBC_2.14");
}

// What binutils demangles beyond C++ (as nm -C prints them: without c++filt's verbose Rust
// hashes), with libiberty only.
TEST(Demangle, AsBinutilsDoes) {
  if (demangler_name() != "libiberty") GTEST_SKIP() << "built with " << demangler_name() << " (no libiberty)";
  EXPECT_EQ(demangle("_ZN4core3fmt9Formatter3pad17h0123456789abcdefE"), "core::fmt::Formatter::pad");
  EXPECT_EQ(demangle("_RNvCs15kBYyAo9fc_7mycrate4main"), "mycrate::main");
  EXPECT_EQ(demangle("_GLOBAL__I_65535_0_foo"), "global constructors keyed to 65535_0_foo");
  EXPECT_EQ(demangle("_ZL3bazv.localalias"), "baz() [clone .localalias]");
  EXPECT_EQ(demangle("_ZTSN3c1015AutogradContextE"), "typeinfo name for c10::AutogradContext");
  EXPECT_EQ(demangle("._Z3foov"), ".foo()");  // leading dots set aside, as bfd_demangle does
  EXPECT_EQ(demangle("_ZN3foo3barEv@@VERS_1"), "foo::bar()@@VERS_1");
  EXPECT_EQ(demangle("_ZN2at6native12_GLOBAL__N_1L8kernel_aE.lto_priv.0"),
            "_ZN2at6native12_GLOBAL__N_1L8kernel_aE.lto_priv.0");
  // A name that only looks like legacy Rust (no hash) is C++.
  EXPECT_EQ(demangle("_ZN4core3fmt3padE"), "core::fmt::pad");
  // The hash is the last part, its 'E' last or before a ".suffix" (binutils 2.40's nm -C).
  EXPECT_EQ(demangle("_ZN4core3fmt9Formatter3pad17h0123456789abcdefE.llvm.42"), "core::fmt::Formatter::pad");
  EXPECT_EQ(demangle("_ZN4core3fmt9Formatter3pad17h0123456789abcdefE.17h0123456789abcdefE"),
            "_ZN4core3fmt9Formatter3pad17h0123456789abcdefE.17h0123456789abcdefE");
  EXPECT_EQ(demangle("_ZN4core17h0123456789abcdefE3fmtE"), "_ZN4core17h0123456789abcdefE3fmtE");
}

TEST(Demangle, AllInParallelMatchesOneByOne) {
  std::vector<std::string> storage;
  for (int i = 0; i < 20000; ++i) {
    const std::string name = "f" + std::to_string(i);
    storage.push_back(i % 7 == 0 ? name : "_ZN2ns" + std::to_string(name.size()) + name + "Ei");
  }
  std::vector<std::string_view> names(storage.begin(), storage.end());
  const auto one = demangle_all(names, 1);
  const auto many = demangle_all(names, 5);
  ASSERT_EQ(one.size(), names.size());
  EXPECT_EQ(one, many);
  EXPECT_EQ(many[1], "ns::f1(int)");
  EXPECT_EQ(many[7], "f7");
  EXPECT_TRUE(demangle_all({}, 4).empty());
}

}  // namespace
}  // namespace glassbox::introspect

namespace glassbox::introspect {
namespace {

TEST(Demangle, CloneSuffixesAsBinutilsSplitsThem) {
  std::vector<std::string_view> parts;
  EXPECT_TRUE(clone_suffixes(".part.0.cold", &parts));
  EXPECT_EQ(parts, (std::vector<std::string_view>{".part.0", ".cold"}));
  parts.clear();
  EXPECT_TRUE(clone_suffixes(".constprop.0.isra.0._omp_fn.12", &parts));
  EXPECT_EQ(parts, (std::vector<std::string_view>{".constprop.0", ".isra.0", "._omp_fn.12"}));
  EXPECT_FALSE(clone_suffixes(".Cold", nullptr));
  EXPECT_FALSE(clone_suffixes(".cold-1", nullptr));
  EXPECT_FALSE(clone_suffixes("cold", nullptr));
}

// Functions with clones are demangled once for all their names; every name must still come out as
// demangle() gives it, including where binutils takes no clone suffix (a variable's) or fails.
TEST(Demangle, SharedDemanglingAreDemangleOfEachName) {
  const std::vector<std::string_view> names = {"_Z3foov.cold",
                                               "_Z3foov",
                                               "_Z3foov.part.0.cold",
                                               "_ZN1a1bE.cold",
                                               "_ZN1a1bE",
                                               "_ZN1a1bE.lto_priv.0",
                                               "_Z3barii.isra.0",
                                               "_Z3bazv.Cold",
                                               "_Z3bazv",
                                               "main",
                                               "_Z3quxv@@VERS_1",
                                               "_Z3quxv.cold@@VERS_1",
                                               "_ZN4core3fmt9Formatter3pad17h0123456789abcdefE.llvm.42",
                                               "_Z3bazv.cold-1",
                                               "",
                                               "_Z3foov.cold",
                                               "_ZTIN2at6TensorE",
                                               "_ZTSN2at6TensorE",
                                               "_ZTVN2at6TensorE",
                                               "_ZTTN2at6TensorE",
                                               "_ZTSN2at6TensorE@@VERS_1",
                                               "_ZTS1xIS_E",
                                               "_ZTI1xIS_E",
                                               "_ZTSQQ",  // does not demangle
                                               "_ZTIQQ",
                                               "_ZTCN1a1bE0_NS_1cE",  // a construction vtable: alone
                                               "_ZTIi",
                                               "i"};  // a C name equal to a type's mangling
  const SharedDemangling shared(names, 2);
  // foo, a::b (a variable: not shared after all), bar; at::Tensor, x<x>, QQ, int
  EXPECT_EQ(shared.shared(), 7u);
  Demangler d;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string out = "> ";
    shared.append_demangled(i, d, out);
    EXPECT_EQ(out, "> " + demangle(names[i])) << names[i];
  }
  std::string foo;
  shared.append_demangled(2, d, foo);
  EXPECT_EQ(foo, "foo() [clone .part.0] [clone .cold]");
  std::string vtt;
  shared.append_demangled(19, d, vtt);
  EXPECT_EQ(vtt, "VTT for at::Tensor");
}

}  // namespace
}  // namespace glassbox::introspect
