// glassbox_cuda as built without CUDA: same interface, nothing available.
#include "engine/cuda/cuda_device.h"

namespace glassbox::cuda {

bool built_with_cuda() { return false; }
int device_count() { return 0; }
std::string describe() { return "glassbox was built without CUDA (GLASSBOX_CUDA=OFF or nvcc/cuBLAS not found)"; }

}  // namespace glassbox::cuda
