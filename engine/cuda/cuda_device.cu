// glassbox_cuda: device discovery. The library must load and answer on machines without a GPU.
#include <cuda_runtime.h>

#include <string>

#include "engine/cuda/cuda_device.h"

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

}  // namespace glassbox::cuda
