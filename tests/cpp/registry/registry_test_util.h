#pragma once
// Helpers shared by the registry tests: tensors that carry chosen dispatch keys, and libraries
// made inside a test body (so their registrations end with the test).
#include <string>

#include "engine/core/tensor.h"
#include "registry/library.h"

namespace glassbox::testing {

inline Tensor tensor_with_keys(DispatchKeySet keys, std::vector<int64_t> sizes = {2}) {
  return Tensor(intrusive_ptr<TensorImpl>::make(keys, ScalarType::Float32, Device(DeviceType::CPU), std::move(sizes)));
}
inline Tensor cpu_tensor() { return tensor_with_keys(default_key_set(DeviceType::CPU)); }
inline Tensor cuda_tensor() {
  return Tensor(intrusive_ptr<TensorImpl>::make(default_key_set(DeviceType::CUDA), ScalarType::Float32,
                                                Device(DeviceType::CUDA, 0), std::vector<int64_t>{2}));
}

// "file:line" of the line below this one, as the registration written there records it:
//   const std::string at = GB_NEXT_LINE;
//   lib.impl("f", K::CPU, &kernel);
inline std::string line_below(const std::source_location& here) {
  const std::string at = debug_string(here);
  return at.substr(0, at.rfind(':') + 1) + std::to_string(here.line() + 1);
}
#define GB_NEXT_LINE (::glassbox::testing::line_below(std::source_location::current()))

#define GB_TEST_LIBRARY(kind, ns) \
  ::glassbox::Library(::glassbox::Library::Kind::kind, ns, std::nullopt, __FILE__, __LINE__)
#define GB_TEST_IMPL_LIBRARY(ns, key) \
  ::glassbox::Library(::glassbox::Library::Kind::IMPL, ns, ::glassbox::DispatchKey::key, __FILE__, __LINE__)

// Asserts that `statement` throws glassbox::Error whose text contains every one of the parts.
#define EXPECT_ERROR_CONTAINS(statement, ...)                                                              \
  do {                                                                                                     \
    try {                                                                                                  \
      statement;                                                                                           \
      ADD_FAILURE() << "expected a glassbox::Error from " #statement;                                      \
    } catch (const ::glassbox::Error& e) {                                                                 \
      for (const std::string& part : std::vector<std::string>{__VA_ARGS__})                                \
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << "error text:\n"                  \
                                                                       << e.what() << "\nlacks: " << part; \
    }                                                                                                      \
  } while (0)

}  // namespace glassbox::testing
