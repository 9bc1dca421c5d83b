#pragma once
// DeviceGuard: makes a device current for a scope (cudaSetDevice) and restores the previous one,
// so that allocations and launches of a kernel go to the device of its tensors.
#include <cuda_runtime_api.h>

#include "engine/cuda/cuda_error.h"

namespace glassbox::cuda {

class DeviceGuard {
 public:
  // index < 0 leaves the current device alone.
  explicit DeviceGuard(int index) {
    if (index < 0) return;
    int current = 0;
    GB_CUDA_CHECK(cudaGetDevice(&current));
    if (current == index) return;
    GB_CUDA_CHECK(cudaSetDevice(index));
    previous_ = current;
  }
  ~DeviceGuard() {
    if (previous_ >= 0) cudaSetDevice(previous_);  // no throwing from a destructor
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace glassbox::cuda
