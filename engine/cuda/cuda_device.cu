// glassbox_cuda: device discovery. The library must load and answer on machines without a GPU.
#include <cuda_runtime.h>

#include <string>

#include "engine/core/error.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/cuda_error.h"
#include "engine/cuda/deferred_checks.h"
#include "engine/cuda/device_guard.h"

namespace glassbox::cuda {

namespace {
struct Probe {
  int count = 0;
  cudaError_t status = cudaSuccess;
};
const Probe& probe() {
  static const Probe p = [] {
    Probe r;
    r.status = cudaGetDeviceCount(&r.count);
    if (r.status != cudaSuccess) {
      r.count = 0;
      cudaGetLastError();  // clear the sticky error so later calls are not poisoned
    }
    return r;
  }();
  return p;
}
}  // namespace

bool built_with_cuda() { return true; }
int device_count() { return probe().count; }

std::string describe() {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  std::string out = "CUDA runtime " + std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) +
                    ", cuBLAS; " + std::to_string(probe().count) + " device(s)";
  if (probe().status != cudaSuccess) out += std::string(" (") + cudaGetErrorString(probe().status) + ")";
  return out;
}

void check_available(const char* what) {
  if (probe().count > 0) return;
  throw Error(std::string(what) + ": CUDA is not available (" + describe() + ")");
}

int checked_device_index(int index, const char* what) {
  check_available(what);
  if (index < 0) return current_device();
  if (index >= probe().count) {
    throw Error(std::string(what) + ": device cuda:" + std::to_string(index) + " does not exist (" +
                std::to_string(probe().count) + " CUDA device(s))");
  }
  return index;
}

int current_device() {
  check_available("current_device");
  int index = 0;
  GB_CUDA_CHECK(cudaGetDevice(&index));
  return index;
}

void set_device(int index) { GB_CUDA_CHECK(cudaSetDevice(checked_device_index(index, "set_device"))); }

void synchronize(int device) {
  DeviceGuard guard(checked_device_index(device, "synchronize"));
  GB_CUDA_CHECK(cudaDeviceSynchronize());
  raise_failed_checks(true);  // a wait is where deferred checks report
}

}  // namespace glassbox::cuda
