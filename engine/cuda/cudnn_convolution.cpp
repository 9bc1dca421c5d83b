// conv2d and its backward through cuDNN's convolution API: the CUDA kernels of the operators
// cudnn_convolution and cudnn_convolution_backward (ops.yaml), which conv2d and
// convolution_backward call on CUDA while cuDNN is enabled (engine/cuda/conv_kernels.cu). Built
// only when configure finds cuDNN (GLASSBOX_CUDNN); engine/cuda/cudnn_stub.cpp stands in otherwise.
//
// Each call describes its operands (NCHW, contiguous), picks an algorithm once per shape, dtype and
// math mode (measured by cudnnFind*AlgorithmEx, or with cudnn_benchmark() off from the heuristics
// of cudnnGet*Algorithm_v7), takes the workspace from the caching
// allocator and queues the work on the current stream. float32 runs with FMA math, so the results
// match the CPU's, unless cudnn_allow_tf32() lets cuDNN use TF32 tensor cores; float16 and
// bfloat16 use tensor cores and accumulate in float32; float64 is computed in float64. The bias is
// added, and its gradient summed, by glassbox's own element-wise and reduction kernels. One cuDNN
// handle per thread and device, as for cuBLAS (engine/cuda/blas.cpp).
#include <cudnn.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/cudnn_settings.h"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/library_handle.h"
#include "engine/cuda/stream.h"
#include "engine/ops/linalg_shape.h"
#include "glassbox/ops/Functions.h"
#include "glassbox/ops/native/cudnn_convolution.h"
#include "glassbox/ops/native/cudnn_convolution_backward.h"

namespace glassbox::cuda {

namespace {
std::atomic<bool> g_enabled{true};
std::atomic<bool> g_allow_tf32{false};
std::atomic<bool> g_benchmark{true};

[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
  throw Error(
      glassbox::detail::str_cat("cuDNN error: ", cudnnGetErrorString(status), " in ", call, " at ", file, ":", line));
}
#define GB_CUDNN_CHECK(call)                                          \
  do {                                                                \
    const cudnnStatus_t gb_cudnn_status_ = (call);                    \
    if (gb_cudnn_status_ != CUDNN_STATUS_SUCCESS) [[unlikely]]        \
      throw_cudnn_error(gb_cudnn_status_, #call, __FILE__, __LINE__); \
  } while (0)

cudnnHandle_t cudnn_handle(int device) {
  cudnnHandle_t handle =
      thread_library_handle<cudnnHandle_t>(device, "cuDNN", [](cudnnHandle_t* h) { GB_CUDNN_CHECK(cudnnCreate(h)); });
  GB_CUDNN_CHECK(cudnnSetStream(handle, current_stream(device).handle()));
  return handle;
}

int as_int(int64_t v, const char* op) {
  if (v > std::numeric_limits<int>::max())
    throw Error(glassbox::detail::str_cat(op, ": a size of ", v, " is too large for cuDNN (at most 2^31 - 1)"));
  return static_cast<int>(v);
}

cudnnDataType_t data_type(ScalarType t, const char* op) {
  switch (t) {
    case ScalarType::Float32: return CUDNN_DATA_FLOAT;
    case ScalarType::Float64: return CUDNN_DATA_DOUBLE;
    case ScalarType::Float16: return CUDNN_DATA_HALF;
    case ScalarType::BFloat16: return CUDNN_DATA_BFLOAT16;
    default: throw Error(glassbox::detail::str_cat(op, ": cuDNN has no convolution for dtype ", to_string(t)));
  }
}

// The descriptors of one convolution: input x, weight w, output y and the convolution itself.
class Descriptors {
 public:
  Descriptors(const Conv2dShape& s, ScalarType dtype, const char* op) : type_(data_type(dtype, op)) {
    GB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&x));
    GB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
    GB_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
    GB_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
    const Window2d& win = s.window;
    GB_CUDNN_CHECK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, type_, as_int(s.batch, op),
                                              as_int(s.in_channels, op), as_int(s.height, op), as_int(s.width, op)));
    GB_CUDNN_CHECK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, type_, as_int(s.batch, op),
                                              as_int(s.out_channels, op), as_int(s.out_height, op),
                                              as_int(s.out_width, op)));
    GB_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w, type_, CUDNN_TENSOR_NCHW, as_int(s.out_channels, op),
                                              as_int(s.in_channels / s.groups, op), as_int(win.kernel[0], op),
                                              as_int(win.kernel[1], op)));
    // float16 and bfloat16 accumulate in float32 (cuDNN's "pseudo half" configuration).
    const cudnnDataType_t compute = type_ == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    GB_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv, as_int(win.padding[0], op), as_int(win.padding[1], op),
                                                   as_int(win.stride[0], op), as_int(win.stride[1], op),
                                                   as_int(win.dilation[0], op), as_int(win.dilation[1], op),
                                                   CUDNN_CROSS_CORRELATION, compute));
    GB_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv, as_int(s.groups, op)));
    GB_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, base_math()));
  }
  ~Descriptors() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  // FMA only for float32 without TF32: cuDNN's default math lets float32 use TF32 tensor cores.
  cudnnMathType_t base_math() const {
    if (type_ == CUDNN_DATA_FLOAT) return cudnn_allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
    if (type_ == CUDNN_DATA_DOUBLE) return CUDNN_DEFAULT_MATH;
    return CUDNN_TENSOR_OP_MATH;
  }
  // Whether an algorithm the heuristics offer with `math` may run: not on tensor cores when
  // float32 must stay float32.
  bool allowed(cudnnMathType_t math) const {
    return base_math() != CUDNN_FMA_MATH ||
           (math != CUDNN_TENSOR_OP_MATH && math != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
  }
  // The math type to run an algorithm with: the heuristics' own, except FMA where it is required.
  void use_math(cudnnMathType_t math) {
    GB_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, base_math() == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : math));
  }

  cudnnTensorDescriptor_t x{}, y{};
  cudnnFilterDescriptor_t w{};
  cudnnConvolutionDescriptor_t conv{};

 private:
  cudnnDataType_t type_;
};

// An algorithm that ran for one shape, and what it runs with.
struct Choice {
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};
enum class Pass { Forward, BackwardData, BackwardFilter };
// Pass, device, dtype, math mode, then the shape and the window: what an algorithm depends on.
using ChoiceKey = std::array<int64_t, 18>;

ChoiceKey choice_key(Pass pass, int device, ScalarType dtype, const Conv2dShape& s) {
  const Window2d& w = s.window;
  return {static_cast<int64_t>(pass),
          device,
          static_cast<int64_t>(dtype),
          (cudnn_allow_tf32() ? 1 : 0) | (cudnn_benchmark() ? 2 : 0),
          s.batch,
          s.in_channels,
          s.height,
          s.width,
          s.out_channels,
          s.groups,
          w.kernel[0],
          w.kernel[1],
          w.stride[0],
          w.stride[1],
          w.padding[0],
          w.padding[1],
          w.dilation[0],
          w.dilation[1]};
}

std::mutex g_choices_mutex;
std::map<ChoiceKey, Choice>& choices() {
  static auto* cache = new std::map<ChoiceKey, Choice>();  // never destroyed: used until exit
  return *cache;
}

// Workspace memory from the caching allocator, on the current stream.
Tensor workspace(size_t bytes, Device device) {
  const int64_t size[] = {static_cast<int64_t>(bytes)};
  return empty_tensor(size, ScalarType::UInt8, device);
}

// The most workspace the first choice of a pass may take: GLASSBOX_CUDNN_WORKSPACE_MB (MiB) when
// set, else 256 MiB. The heuristics' favourites for some shapes (FFT) want more: without a limit,
// the ResNet-style training step of benchmarks/models_vs_torch.py peaked at 1908 MiB (PyTorch: 1343),
// with 256 MiB at 1406 MiB and no slower; 64 and 16 MiB were slower (H100).
size_t workspace_limit() {
  static const size_t limit = [] {
    const char* mb = std::getenv("GLASSBOX_CUDNN_WORKSPACE_MB");
    return static_cast<size_t>(mb && *mb ? std::strtoull(mb, nullptr, 10) : 256) << 20;
  }();
  return limit;
}

// One pass of a convolution with the algorithm remembered for `key`; the first time, with the first
// of cuDNN's ranked algorithms that may run (allowed math), whose workspace is within the limit (or,
// failing that, any) and can be had, and which runs, then remembered. The functions of `pass` (see
// below) rank (by measuring, or by heuristics), size and run one algorithm.
template <class PassCalls>
void run_pass(const ChoiceKey& key, Descriptors& d, Device device, const PassCalls& pass, const char* op) {
  std::optional<Choice> known;
  {
    std::lock_guard lock(g_choices_mutex);
    if (auto it = choices().find(key); it != choices().end()) known = it->second;
  }
  if (known) {
    d.use_math(known->math);
    const Tensor ws = workspace(known->workspace, device);
    GB_CUDNN_CHECK(pass.run(known->algo, ws.data_ptr(), known->workspace));
    return;
  }
  using Perf = typename PassCalls::Perf;
  std::vector<Perf> perf(PassCalls::kCount);
  int returned = 0;
  if (cudnn_benchmark()) {
    // Measured with as much workspace as the limit allows, or as can be had; each run writes the
    // pass's output, which the chosen algorithm then writes again.
    Tensor ws;
    size_t bytes = workspace_limit();
    while (!ws.defined() && bytes > 0) {
      try {
        ws = workspace(bytes, device);
      } catch (const Error&) {  // out of memory: measure with less
        bytes = bytes >= (size_t{4} << 20) ? bytes / 4 : 0;
      }
    }
    GB_CUDNN_CHECK(pass.find(PassCalls::kCount, &returned, perf.data(), ws.defined() ? ws.data_ptr() : nullptr, bytes));
  } else {
    GB_CUDNN_CHECK(pass.rank(PassCalls::kCount, &returned, perf.data()));
  }
  cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
  for (const size_t limit : {workspace_limit(), std::numeric_limits<size_t>::max()}) {
    for (int i = 0; i < returned; ++i) {
      const Perf& p = perf[static_cast<size_t>(i)];
      if (p.status != CUDNN_STATUS_SUCCESS || !d.allowed(p.mathType)) continue;
      d.use_math(p.mathType);
      size_t bytes = 0;
      if (pass.size(p.algo, &bytes) != CUDNN_STATUS_SUCCESS || bytes > limit) continue;
      Tensor ws;
      try {
        ws = workspace(bytes, device);
      } catch (const Error&) {  // out of memory: an algorithm with a smaller workspace may do
        continue;
      }
      last = pass.run(p.algo, ws.data_ptr(), bytes);
      if (last == CUDNN_STATUS_SUCCESS) {
        std::lock_guard lock(g_choices_mutex);
        choices()[key] = Choice{static_cast<int>(p.algo), p.mathType, bytes};
        return;
      }
      if (last != CUDNN_STATUS_NOT_SUPPORTED && last != CUDNN_STATUS_BAD_PARAM) break;
    }
  }
  throw Error(glassbox::detail::str_cat(
      op, ": no cuDNN algorithm ran this convolution (last: ", cudnnGetErrorString(last), ")"));
}

// Scaling factors: double for float64 data, float otherwise.
struct Scale {
  explicit Scale(ScalarType dtype, double v)
      : f(static_cast<float>(v)), d(v), is_double(dtype == ScalarType::Float64) {}
  const void* ptr() const { return is_double ? static_cast<const void*>(&d) : &f; }
  float f;
  double d;
  bool is_double;
};

// The cuDNN calls of each pass: rank the algorithms, size one's workspace, run one.
struct ForwardCalls {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  cudnnHandle_t h;
  const Descriptors& d;
  const void *x, *w;
  void* y;
  const void *one, *zero;
  cudnnStatus_t rank(int n, int* got, Perf* p) const {
    return cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, n, got, p);
  }
  cudnnStatus_t find(int n, int* got, Perf* p, void* ws, size_t bytes) const {
    return cudnnFindConvolutionForwardAlgorithmEx(h, d.x, x, d.w, w, d.conv, d.y, y, n, got, p, ws, bytes);
  }
  cudnnStatus_t size(int algo, size_t* bytes) const {
    return cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, cudnnConvolutionFwdAlgo_t(algo), bytes);
  }
  cudnnStatus_t run(int algo, void* ws, size_t bytes) const {
    return cudnnConvolutionForward(h, one, d.x, x, d.w, w, d.conv, cudnnConvolutionFwdAlgo_t(algo), ws, bytes, zero,
                                   d.y, y);
  }
};

struct BackwardDataCalls {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  cudnnHandle_t h;
  const Descriptors& d;
  const void *w, *dy;
  void* dx;
  const void *one, *zero;
  cudnnStatus_t rank(int n, int* got, Perf* p) const {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x, n, got, p);
  }
  cudnnStatus_t find(int n, int* got, Perf* p, void* ws, size_t bytes) const {
    return cudnnFindConvolutionBackwardDataAlgorithmEx(h, d.w, w, d.y, dy, d.conv, d.x, dx, n, got, p, ws, bytes);
  }
  cudnnStatus_t size(int algo, size_t* bytes) const {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w, d.y, d.conv, d.x, cudnnConvolutionBwdDataAlgo_t(algo),
                                                        bytes);
  }
  cudnnStatus_t run(int algo, void* ws, size_t bytes) const {
    return cudnnConvolutionBackwardData(h, one, d.w, w, d.y, dy, d.conv, cudnnConvolutionBwdDataAlgo_t(algo), ws, bytes,
                                        zero, d.x, dx);
  }
};

struct BackwardFilterCalls {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  cudnnHandle_t h;
  const Descriptors& d;
  const void *x, *dy;
  void* dw;
  const void *one, *zero;
  cudnnStatus_t rank(int n, int* got, Perf* p) const {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.w, n, got, p);
  }
  cudnnStatus_t find(int n, int* got, Perf* p, void* ws, size_t bytes) const {
    return cudnnFindConvolutionBackwardFilterAlgorithmEx(h, d.x, x, d.y, dy, d.conv, d.w, dw, n, got, p, ws, bytes);
  }
  cudnnStatus_t size(int algo, size_t* bytes) const {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x, d.y, d.conv, d.w,
                                                          cudnnConvolutionBwdFilterAlgo_t(algo), bytes);
  }
  cudnnStatus_t run(int algo, void* ws, size_t bytes) const {
    return cudnnConvolutionBackwardFilter(h, one, d.x, x, d.y, dy, d.conv, cudnnConvolutionBwdFilterAlgo_t(algo), ws,
                                          bytes, zero, d.w, dw);
  }
};

// The output's shape as cuDNN sees it: batched, [N, C, H, W].
Tensor as_4d(const Tensor& t, const Conv2dShape& s, int64_t channels, int64_t h, int64_t w) {
  const int64_t sizes[] = {s.batch, channels, h, w};
  return t.view(sizes);
}
}  // namespace

bool cudnn_available() { return true; }
int cudnn_version() { return static_cast<int>(cudnnGetVersion()); }
std::string cudnn_describe() {
  const int v = cudnn_version();
  return glassbox::detail::str_cat("cuDNN ", v / 10000, ".", v / 100 % 100, ".", v % 100);
}
bool cudnn_enabled() { return g_enabled.load(std::memory_order_relaxed); }
void set_cudnn_enabled(bool enabled) { g_enabled.store(enabled, std::memory_order_relaxed); }
bool cudnn_allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }
void set_cudnn_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }
bool cudnn_benchmark() { return g_benchmark.load(std::memory_order_relaxed); }
void set_cudnn_benchmark(bool measure) { g_benchmark.store(measure, std::memory_order_relaxed); }

}  // namespace glassbox::cuda

namespace glassbox::native {

using namespace glassbox::cuda;

Tensor cudnn_convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const char* op = "cudnn_convolution";
  const Conv2dShape s = conv2d_shape(op, input, weight, bias, stride, padding, dilation, groups);
  const Device device = input.device();
  DeviceGuard guard(device.index);
  Tensor y = empty_tensor(s.output, input.dtype(), device);
  if (y.numel() == 0) return y;
  if (input.numel() == 0 || weight.numel() == 0) {  // no input channels: the bias alone
    y.fill_(Scalar(0.0));
  } else {
    const Tensor x = input.contiguous(), w = weight.contiguous();
    Descriptors d(s, input.dtype(), op);
    const Scale one(input.dtype(), 1.0), zero(input.dtype(), 0.0);
    const ForwardCalls calls{
        cudnn_handle(device.index), d, x.data_ptr(), w.data_ptr(), y.data_ptr(), one.ptr(), zero.ptr()};
    run_pass(choice_key(Pass::Forward, device.index, input.dtype(), s), d, device, calls, op);
  }
  if (bias && bias->defined()) {
    const int64_t b_sizes[] = {1, s.out_channels, 1, 1};
    as_4d(y, s, s.out_channels, s.out_height, s.out_width).add_(bias->reshape(b_sizes));
  }
  return y;
}

std::tuple<Tensor, Tensor, Tensor> cudnn_convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                              const Tensor& weight, IntArrayRef stride,
                                                              IntArrayRef padding, IntArrayRef dilation,
                                                              int64_t groups) {
  const char* op = "cudnn_convolution_backward";
  const Conv2dShape s = convolution_backward_shape(op, grad_output, input, weight, stride, padding, dilation, groups);
  const Device device = input.device();
  DeviceGuard guard(device.index);
  const ScalarType dtype = input.dtype();
  Tensor grad_input = empty_tensor(input.sizes(), dtype, device);
  Tensor grad_weight = empty_tensor(weight.sizes(), dtype, device);
  const int64_t o_size[] = {s.out_channels};
  Tensor grad_bias;
  if (grad_output.numel() == 0 || input.numel() == 0 || weight.numel() == 0) {  // nothing to convolve
    grad_input.fill_(Scalar(0.0));
    grad_weight.fill_(Scalar(0.0));
    grad_bias = empty_tensor(o_size, dtype, device);
    grad_bias.fill_(Scalar(0.0));
    if (grad_output.numel() != 0) {
      const int64_t dims[] = {0, 2, 3};
      grad_bias = as_4d(grad_output.contiguous(), s, s.out_channels, s.out_height, s.out_width).sum(IntArrayRef(dims));
    }
    return {grad_input, grad_weight, grad_bias};
  }
  const Tensor x = input.contiguous(), w = weight.contiguous(), dy = grad_output.contiguous();
  Descriptors d(s, dtype, op);
  cudnnHandle_t handle = cudnn_handle(device.index);
  const Scale one(dtype, 1.0), zero(dtype, 0.0);
  const BackwardDataCalls data{handle, d, w.data_ptr(), dy.data_ptr(), grad_input.data_ptr(), one.ptr(), zero.ptr()};
  run_pass(choice_key(Pass::BackwardData, device.index, dtype, s), d, device, data, op);
  const BackwardFilterCalls filter{handle,    d,         x.data_ptr(), dy.data_ptr(), grad_weight.data_ptr(),
                                   one.ptr(), zero.ptr()};
  run_pass(choice_key(Pass::BackwardFilter, device.index, dtype, s), d, device, filter, op);

  const int64_t dims[] = {0, 2, 3};
  grad_bias = as_4d(dy, s, s.out_channels, s.out_height, s.out_width).sum(IntArrayRef(dims));
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace glassbox::native
