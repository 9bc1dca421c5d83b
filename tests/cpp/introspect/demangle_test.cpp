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
