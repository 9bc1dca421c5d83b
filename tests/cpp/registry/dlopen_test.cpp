// Registrations live exactly as long as the library that made them.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "registry/registry_dump.h"
#include "registry_test_util.h"

using namespace glassbox;
using namespace glassbox::testing;

TEST(DlopenRegistration, AppearsOnLoadAndDisappearsOnClose) {
  const OperatorName name = OperatorName::parse("t_dl::triple");
  ASSERT_FALSE(Dispatcher::singleton().find_op(name).has_value());
  ASSERT_EQ(registry_to_json().find("t_dl::triple"), std::string::npos);

  void* handle = dlopen(GLASSBOX_DLOPEN_TEST_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto op = Dispatcher::singleton().find_op(name);
  ASSERT_TRUE(op.has_value());
  const std::string text = dump(*op);
  EXPECT_NE(text.find("defined at tests/cpp/registry/dlopen_test_library.cpp:8"), std::string::npos) << text;
  EXPECT_NE(text.find("CPU: registered at tests/cpp/registry/dlopen_test_library.cpp:9"), std::string::npos) << text;
  EXPECT_NE(registry_to_json().find("\"defined_at\": \"tests/cpp/registry/dlopen_test_library.cpp:8\""),
            std::string::npos);
  EXPECT_EQ(op->typed<int64_t(const Tensor&, int64_t)>().call(cpu_tensor(), 5), 15);

  ASSERT_EQ(dlclose(handle), 0);
  EXPECT_FALSE(Dispatcher::singleton().find_op(name).has_value());
  EXPECT_EQ(registry_to_json().find("t_dl"), std::string::npos);
  EXPECT_TRUE(Dispatcher::singleton().load_errors().empty());

  // And again: loading twice in one process works (the first load's registrations are gone).
  handle = dlopen(GLASSBOX_DLOPEN_TEST_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  EXPECT_TRUE(Dispatcher::singleton().find_op(name).has_value());
  ASSERT_EQ(dlclose(handle), 0);
  EXPECT_FALSE(Dispatcher::singleton().find_op(name).has_value());
}
