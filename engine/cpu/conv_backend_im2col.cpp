// The CPU's convolution when glassbox is built without oneDNN: im2col + gemm for every dtype
// (engine/cpu/conv_kernels.cpp). CMake compiles this file or conv_onednn.cpp, never both.
#include "engine/cpu/conv_im2col.h"
#include "engine/ops/kernels/conv.h"

namespace glassbox::cpu {
namespace {
const char* library() { return "im2col + gemm"; }
const kernels::ConvBackend kConv{im2col_conv_forward, im2col_conv_backward, nullptr, library};
const kernels::ConvBackends::Registration kRegistered(DeviceType::CPU, kConv);
}  // namespace
}  // namespace glassbox::cpu
