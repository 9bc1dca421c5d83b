#pragma once
// What the process knows about CUDA: whether glassbox was built with it and which GPUs it sees.
#include <string>

namespace glassbox::cuda {

bool built_with_cuda();
// 0 when built without CUDA, when no driver is loaded, or when no GPU is present.
int device_count();
inline bool is_available() { return device_count() > 0; }
// "CUDA 13.0 runtime, cuBLAS, sm_90; 0 devices (no CUDA-capable device is detected)".
std::string describe();

}  // namespace glassbox::cuda
