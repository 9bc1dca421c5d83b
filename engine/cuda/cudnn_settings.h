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

// Whether conv2d on CUDA goes through cuDNN now: available and enabled.
inline bool use_cudnn() { return cudnn_available() && cudnn_enabled(); }

}  // namespace glassbox::cuda
