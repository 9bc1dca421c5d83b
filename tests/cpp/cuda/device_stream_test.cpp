// The CUDA runtime layer: error texts of failed CUDA/cuBLAS calls, what happens without a GPU,
// devices and the device guard, default/current/pool streams and the stream guard.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

#include "engine/core/error.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/cuda_error.h"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/stream.h"
#include "tests/cpp/cuda/cuda_test_util.h"
#include "tests/cpp/ops/error_text.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;
using glassbox::testing::error_of;

namespace {
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

// Runs with or without a GPU: without one the call fails too, for another reason.
TEST(CudaErrors, NameTheCallTheFileLineAndTheCudaError) {
  const cudaError_t expected = cudaSetDevice(1 << 20);
  cudaGetLastError();
  ASSERT_NE(expected, cudaSuccess);
  const std::string e = error_of([] { GB_CUDA_CHECK(cudaSetDevice(1 << 20)); });
  EXPECT_TRUE(e.starts_with("CUDA error: ")) << e;
  EXPECT_TRUE(contains(e, "in cudaSetDevice(1 << 20) at ")) << e;
  EXPECT_TRUE(contains(e, "device_stream_test.cpp:")) << e;
  EXPECT_TRUE(contains(e, cudaGetErrorString(expected))) << e;
  EXPECT_TRUE(contains(e, cudaGetErrorName(expected))) << e;
  // The failure does not stick to later calls (without a device, every call reports it again).
  if (cuda::is_available()) {
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
}

TEST(CudaErrors, CublasFailuresNameTheStatus) {
  const std::string e = error_of([] { GB_CUBLAS_CHECK(CUBLAS_STATUS_INVALID_VALUE); });
  EXPECT_TRUE(e.starts_with("cuBLAS error: ")) << e;
  EXPECT_TRUE(contains(e, "(CUBLAS_STATUS_INVALID_VALUE) in CUBLAS_STATUS_INVALID_VALUE at ")) << e;
  EXPECT_TRUE(contains(e, "device_stream_test.cpp:")) << e;
}

TEST(CudaDevices, WithoutAGpuAskingForCudaTensorsFailsClearly) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present: " << cuda::describe();
  EXPECT_EQ(cuda::device_count(), 0);
  const std::string e = error_of([] { empty({2, 3}, std::nullopt, kCuda); });
  EXPECT_TRUE(e.starts_with("empty: CUDA is not available (")) << e;
  const Tensor t = ones({2});
  EXPECT_TRUE(error_of([&] { t.to(Device(DeviceType::CUDA)); }).starts_with("empty: CUDA is not available"));
  EXPECT_TRUE(error_of([] { cuda::synchronize(); }).starts_with("synchronize: CUDA is not available"));
}

TEST(CudaDevices, IndicesAreChecked) {
  GB_REQUIRE_GPU();
  EXPECT_EQ(cuda::checked_device_index(-1, "t"), cuda::current_device());
  const int n = cuda::device_count();
  EXPECT_EQ(error_of([&] { cuda::checked_device_index(n, "t"); }),
            "t: device cuda:" + std::to_string(n) + " does not exist (" + std::to_string(n) + " CUDA device(s))");
  const std::string e = error_of([&] { empty({2}, std::nullopt, Device(DeviceType::CUDA, static_cast<int8_t>(n))); });
  EXPECT_TRUE(contains(e, "does not exist")) << e;
}

TEST(CudaDevices, TensorsRecordTheirDevice) {
  GB_REQUIRE_GPU();
  const Tensor t = empty({2}, std::nullopt, Device(DeviceType::CUDA));
  EXPECT_EQ(t.device(), Device(DeviceType::CUDA, static_cast<int8_t>(cuda::current_device())));
  EXPECT_EQ(t.device().to_string(), "cuda:" + std::to_string(cuda::current_device()));
}

TEST(CudaDevices, GuardRestoresTheCurrentDevice) {
  GB_REQUIRE_GPU();
  const int before = cuda::current_device();
  {
    cuda::DeviceGuard guard(cuda::device_count() - 1);
    EXPECT_EQ(cuda::current_device(), cuda::device_count() - 1);
  }
  EXPECT_EQ(cuda::current_device(), before);
  EXPECT_TRUE(contains(error_of([] { cuda::DeviceGuard bad(1 << 20); }), "cudaSetDevice(index)"));
  EXPECT_EQ(cuda::current_device(), before);
}

TEST(CudaStreams, DefaultCurrentAndGuard) {
  GB_REQUIRE_GPU();
  const cuda::Stream def = cuda::default_stream();
  EXPECT_TRUE(def.is_default());
  EXPECT_EQ(cuda::current_stream(), def);
  const cuda::Stream s = cuda::pool_stream();
  EXPECT_FALSE(s.is_default());
  EXPECT_EQ(s.device(), cuda::current_device());
  {
    cuda::StreamGuard guard(s);
    EXPECT_EQ(cuda::current_stream(), s);
    {
      cuda::StreamGuard inner(def);
      EXPECT_EQ(cuda::current_stream(), def);
    }
    EXPECT_EQ(cuda::current_stream(), s);
  }
  EXPECT_EQ(cuda::current_stream(), def);
}

TEST(CudaStreams, WorkOnAPoolStreamMatchesTheCpu) {
  GB_REQUIRE_GPU();
  const Tensor a = random_cpu({1000, 37}, ScalarType::Float32), b = random_cpu({37}, ScalarType::Float32);
  const cuda::Stream s = cuda::pool_stream();
  Tensor r;
  {
    cuda::StreamGuard guard(s);
    const Tensor x = on_cuda(a), y = on_cuda(b);  // the copies, the kernels and the allocations use s
    r = mul(add(x, y), y);
    s.synchronize();
    EXPECT_TRUE(s.query());
  }
  EXPECT_TRUE(matches(r, mul(add(a, b), b)));
  cuda::synchronize();
}
