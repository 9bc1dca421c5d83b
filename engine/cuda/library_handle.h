#pragma once
// The handles of CUDA's libraries (cuBLAS, cuBLASLt, cuDNN): one per thread and device, made on
// first use with the device current, and never destroyed. A handle outliving its thread costs a
// little memory; destroying one after the CUDA runtime has shut down (static destruction) would crash.
#include <array>

#include "engine/core/error.h"
#include "engine/cuda/device_guard.h"

namespace glassbox::cuda {

// The calling thread's handle for `device`, made by create(&handle) the first time. Each use site
// (its own `create` type) has its own handles.
template <class Handle, class Create>
Handle thread_library_handle(int device, const char* library, Create create) {
  thread_local std::array<Handle, 64> handles{};
  GB_CHECK(device >= 0 && device < 64, library, ": device index ", device, " out of range");
  if (!handles[device]) {
    DeviceGuard guard(device);
    create(&handles[device]);
  }
  return handles[device];
}

}  // namespace glassbox::cuda
