#pragma once
// Whether CUDA convolutions go through cuDNN, and how. Built with cuDNN (GLASSBOX_CUDNN), conv2d and
// its backward on CUDA call the operators cudnn_convolution and cudnn_convolution_backward
// (engine/cuda/cudnn_convolution.cpp); built without it, or with `enabled` off, glassbox's own
// im2col + cuBLAS kernels (engine/cuda/conv_kernels.cu) do them. Needs no CUDA headers: the Python
// bindings and the stub libraries use it too (engine/cuda/cudnn_stub.cpp).
#include <string>

namespace glassbox::cuda {

// True when glassbox_cuda was built with cuDNN.
bool cudnn_available();
// The cuDNN version the library runs with (e.g. 91900 for 9.19.0), 0 without cuDNN.
int cudnn_version();
// "cuDNN 9.19.0" or why there is none.
std::string cudnn_describe();

// On by default: convolutions use cuDNN where it is available (torch.backends.cudnn.enabled).
bool cudnn_enabled();
void set_cudnn_enabled(bool enabled);
// Whether float32 convolutions may use TF32 tensor cores. Off by default, so that CUDA results
// match the CPU's (PyTorch's torch.backends.cudnn.allow_tf32 defaults to on).
bool cudnn_allow_tf32();
void set_cudnn_allow_tf32(bool allow);
// How an algorithm is chosen, once per shape: measured (cuDNN's Find, every algorithm run once and
// timed; on by default) or taken from cuDNN's heuristics unmeasured. The heuristics of the legacy
// API rank FFT and old engines first on Hopper, which made ResNet-style training steps 2x slower
// there. PyTorch's torch.backends.cudnn.benchmark defaults to off, with the newer API's heuristics.
bool cudnn_benchmark();
void set_cudnn_benchmark(bool measure);

// Whether conv2d on CUDA goes through cuDNN now: available and enabled.
inline bool use_cudnn() { return cudnn_available() && cudnn_enabled(); }

}  // namespace glassbox::cuda
