// cuDNN as built without it (GLASSBOX_CUDNN=OFF, cuDNN not found, or no CUDA at all): the settings
// read back as set, nothing is available, and conv2d on CUDA runs glassbox's im2col kernels
// (engine/cuda/conv_kernels.cu). The operators cudnn_convolution and cudnn_convolution_backward
// are still registered for CUDA, as every ops.yaml entry is; called directly, they say why they
// cannot run.
#include <atomic>
#include <string>

#include "engine/core/error.h"
#include "engine/cuda/cudnn_settings.h"
#include "glassbox/ops/native/cudnn_convolution.h"
#include "glassbox/ops/native/cudnn_convolution_backward.h"

namespace glassbox::cuda {

namespace {
const char* const kWhy = "glassbox was built without cuDNN (GLASSBOX_CUDNN=OFF, or cudnn.h and libcudnn not found)";
std::atomic<bool> g_enabled{true};
std::atomic<bool> g_allow_tf32{false};
std::atomic<bool> g_benchmark{true};
}  // namespace

bool cudnn_available() { return false; }
int cudnn_version() { return 0; }
std::string cudnn_describe() { return kWhy; }
bool cudnn_enabled() { return g_enabled.load(); }
void set_cudnn_enabled(bool enabled) { g_enabled.store(enabled); }
bool cudnn_allow_tf32() { return g_allow_tf32.load(); }
void set_cudnn_allow_tf32(bool allow) { g_allow_tf32.store(allow); }
bool cudnn_benchmark() { return g_benchmark.load(); }
void set_cudnn_benchmark(bool measure) { g_benchmark.store(measure); }

}  // namespace glassbox::cuda

namespace glassbox::native {

Tensor cudnn_convolution(const Tensor&, const Tensor&, const std::optional<Tensor>&, IntArrayRef, IntArrayRef,
                         IntArrayRef, int64_t) {
  throw Error(std::string("cudnn_convolution: ") + glassbox::cuda::kWhy);
}

std::tuple<Tensor, Tensor, Tensor> cudnn_convolution_backward(const Tensor&, const Tensor&, const Tensor&, IntArrayRef,
                                                              IntArrayRef, IntArrayRef, int64_t) {
  throw Error(std::string("cudnn_convolution_backward: ") + glassbox::cuda::kWhy);
}

}  // namespace glassbox::native
