#pragma once
// What the CUDA tests share: skipping (with the reason) where no GPU is present, random inputs made
// on the CPU, and the comparison of a CUDA result against the CPU's result for the same inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "engine/cuda/cuda_device.h"
#include "glassbox/ops/Functions.h"

// The CPU is the oracle; without a GPU there is nothing to compare.
#define GB_REQUIRE_GPU()                                                                                       \
  do {                                                                                                         \
    if (!::glassbox::cuda::is_available()) GTEST_SKIP() << "no CUDA device: " << ::glassbox::cuda::describe(); \
  } while (0)

namespace glassbox::cuda_testing {

inline const Device kCpu(DeviceType::CPU);
inline const Device kCuda(DeviceType::CUDA, 0);

inline const std::vector<ScalarType> kFloatTypes = {ScalarType::Float32, ScalarType::Float64, ScalarType::Float16,
                                                    ScalarType::BFloat16};
inline const std::vector<ScalarType> kIntTypes = {ScalarType::Int64, ScalarType::Int32, ScalarType::Int16,
                                                  ScalarType::Int8, ScalarType::UInt8};
inline std::vector<ScalarType> all_types() {
  std::vector<ScalarType> v = kFloatTypes;
  v.insert(v.end(), kIntTypes.begin(), kIntTypes.end());
  v.push_back(ScalarType::Bool);
  return v;
}

// A CPU tensor of `dtype`: normal values for floating point, integers in [0, 20) (kept small
// and non-negative so that every dtype holds them), bools half true.
inline Tensor random_cpu(IntArrayRef sizes, ScalarType dtype) {
  if (is_floating_point(dtype)) return randn(sizes, ScalarType::Float64).to(dtype);
  if (dtype == ScalarType::Bool) return lt(rand(sizes), Scalar(0.5));
  return randint(0, 20, sizes, dtype);
}

inline Tensor on_cuda(const Tensor& t) { return t.to(kCuda); }

// Relative and absolute tolerance of a result computed in `dtype`: the CPU and the GPU may round
// differently (the GPU fuses multiply-adds, its exp/tanh/erf differ by an ulp or two).
struct Tolerance {
  double rtol, atol;
};
inline Tolerance tolerance(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float32: return {1e-5, 1e-6};
    case ScalarType::Float64: return {1e-12, 1e-13};
    case ScalarType::Float16: return {2e-3, 1e-5};
    case ScalarType::BFloat16: return {1.6e-2, 1e-4};
    default: return {0, 0};
  }
}

inline std::vector<double> values(const Tensor& t) {
  const Tensor d = t.to(kCpu, ScalarType::Float64).contiguous();
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}

// The CUDA result equals the CPU result: same shape and dtype, values within rtol (relative to
// the larger magnitude) plus atol, NaN where the CPU has NaN. Negative tolerances: the dtype's.
inline ::testing::AssertionResult matches(const Tensor& cuda_result, const Tensor& cpu_result, double rtol = -1,
                                          double atol = -1) {
  if (cuda_result.device().type != DeviceType::CUDA)
    return ::testing::AssertionFailure() << "the result is on " << cuda_result.device().to_string() << ", not cuda";
  if (cuda_result.sizes() != cpu_result.sizes())
    return ::testing::AssertionFailure() << "shape " << shape_to_string(cuda_result.sizes()) << " on CUDA, "
                                         << shape_to_string(cpu_result.sizes()) << " on the CPU";
  if (cuda_result.dtype() != cpu_result.dtype())
    return ::testing::AssertionFailure() << "dtype " << to_string(cuda_result.dtype()) << " on CUDA, "
                                         << to_string(cpu_result.dtype()) << " on the CPU";
  if (rtol < 0) rtol = tolerance(cpu_result.dtype()).rtol;
  if (atol < 0) atol = rtol == 0 ? 0 : tolerance(cpu_result.dtype()).atol;
  const std::vector<double> a = values(cuda_result), b = values(cpu_result);
  for (size_t i = 0; i < a.size(); ++i) {
    const bool both_nan = std::isnan(a[i]) && std::isnan(b[i]);
    const bool same_inf = std::isinf(a[i]) && a[i] == b[i];
    if (both_nan || same_inf) continue;
    if (!(std::fabs(a[i] - b[i]) <= atol + rtol * std::max(std::fabs(a[i]), std::fabs(b[i])))) {
      return ::testing::AssertionFailure()
             << "element " << i << " of " << a.size() << ": " << a[i] << " on CUDA, " << b[i] << " on the CPU (dtype "
             << to_string(cpu_result.dtype()) << ", rtol " << rtol << ", atol " << atol << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace glassbox::cuda_testing
