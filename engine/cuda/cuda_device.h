#pragma once
// What the process knows about CUDA: whether glassbox was built with it, which GPUs it sees, and
// the device this thread works on. Needs no CUDA headers: the Python bindings and the stub
// library (built without CUDA) use it too.
#include <string>

namespace glassbox::cuda {

bool built_with_cuda();
// 0 when built without CUDA, when no driver is loaded, or when no GPU is present.
int device_count();
inline bool is_available() { return device_count() > 0; }
// "CUDA 13.0 runtime, cuBLAS, sm_90; 0 devices (no CUDA-capable device is detected)".
std::string describe();

// Throws glassbox::Error "<what>: CUDA is not available (<describe()>)" unless a GPU is present.
void check_available(const char* what);
// The index of device `index` (-1: the current device), checked against device_count().
int checked_device_index(int index, const char* what);

// The device this thread's CUDA calls go to, and changing it.
int current_device();
void set_device(int index);
// Waits until all work queued on the device (-1: the current one) has finished.
void synchronize(int device = -1);

}  // namespace glassbox::cuda
