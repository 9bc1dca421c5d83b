// Links the code generated from tests/codegen/ops.yaml with libglassbox_core and calls through it:
// registration must succeed at load time, and each call must reach its kernel with its defaults.
// test_codegen.py generates stub kernels for the kernels not written here.
#include <cstdio>
#include <string>
#include <vector>

#include "glassbox/ops/Functions.h"
#include "glassbox/ops/NativeFunctions.h"
#include "registry/dispatcher.h"

std::string g_last;  // the kernel that ran last (the generated stubs set it too)
using namespace glassbox;

namespace glassbox::native {
Tensor add_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  g_last = "add_cpu alpha=" + alpha.to_string();
  return other;
}
Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  g_last = "add_ alpha=" + alpha.to_string();
  return self;
}
Tensor& add_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  g_last = "add_out_cpu alpha=" + alpha.to_string();
  return out;
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  g_last = "conv2d stride=" + std::to_string(stride.size()) + ":" + std::to_string(stride[0]) + "," +
           std::to_string(stride[1]) + " padding=" + std::to_string(padding[0]) +
           " dilation=" + std::to_string(dilation[1]) + " groups=" + std::to_string(groups) +
           " bias=" + (bias ? "y" : "n");
  return input;
}
Tensor upsample(const Tensor& self, std::span<const double> scales, std::optional<IntArrayRef> output_size) {
  g_last = "upsample " + std::to_string(scales.size()) + " " + std::to_string(scales[1]) +
           " os=" + (output_size ? std::to_string(output_size->size()) : "none");
  return self;
}
Tensor where_cpu(const Tensor& condition, const Tensor& self, const Tensor& other) {
  g_last = std::string("where cond_is_first=") + (condition.dim() == 3 ? "y" : "n");
  return self;
}
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  g_last = "mse_loss reduction=" + std::to_string(reduction);
  return self;
}
Tensor hardtanh(const Tensor& self, double min_val, double max_val) {
  g_last = "hardtanh " + std::to_string(min_val < -1e308) + std::to_string(max_val > 1e308);
  return self;
}
Tensor nll(const Tensor& self, const Tensor& target, std::string_view reduction, std::optional<std::string_view> mode) {
  g_last = "nll " + std::string(reduction) + (mode ? "+mode" : "");
  return self;
}
Tensor roll_cpu(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  g_last = "roll shifts=" + std::to_string(shifts[0]) + " dims=" + std::to_string(dims.size()) + ":" +
           std::to_string(dims[0]);
  return self;
}
}  // namespace glassbox::native

static Tensor make(std::vector<int64_t> sizes) {
  return Tensor(
      intrusive_ptr<TensorImpl>::make(DispatchKeySet{DispatchKey::CPU}, ScalarType::Float32, Device(), sizes));
}

#define CHECK(cond)                                       \
  do {                                                    \
    if (!(cond)) {                                        \
      std::printf("FAIL line %d: %s\n", __LINE__, #cond); \
      return 1;                                           \
    }                                                     \
  } while (0)

#define CHECK_LAST(expected)                                                                  \
  do {                                                                                        \
    if (g_last != (expected)) {                                                               \
      std::printf("FAIL line %d: got '%s', want '%s'\n", __LINE__, g_last.c_str(), expected); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main() {
  for (const auto& e : Dispatcher::singleton().load_errors()) {
    std::printf("load error: %s\n", e.c_str());
  }
  CHECK(Dispatcher::singleton().load_errors().empty());
  Tensor a = make({2, 3}), b = make({2, 3}), c = make({1, 2, 3});
  Tensor r = add(a, b);
  CHECK_LAST("add_cpu alpha=1");
  CHECK(r.is_same(b));
  r = a.add(b, 2);
  CHECK_LAST("add_cpu alpha=2");
  Tensor& ri = a.add_(b);
  CHECK_LAST("add_ alpha=1");
  CHECK(ri.is_same(a) && &ri == &a);
  Tensor out = make({2, 3});
  Tensor& ro = add_out(out, a, b, 3);
  CHECK_LAST("add_out_cpu alpha=3");
  CHECK(&ro == &out);
  add_outf(a, b, 4, out);
  CHECK_LAST("add_out_cpu alpha=4");
  conv2d(a, b);
  CHECK_LAST("conv2d stride=2:1,1 padding=0 dilation=1 groups=1 bias=n");
  upsample(a);
  CHECK_LAST("upsample 2 2.500000 os=0");
  a.where(c, b);
  CHECK_LAST("where cond_is_first=y");
  a.mse_loss(b);
  CHECK_LAST("mse_loss reduction=1");
  hardtanh(a);
  CHECK_LAST("hardtanh 11");
  nll(a, b);
  CHECK_LAST("nll mean");
  a.mul(b);
  CHECK_LAST("mul_cpu");
  a.mul(2.0);
  CHECK_LAST("mul_cpu");
  Tensor m1 = make({2}), m2 = make({2});
  auto [v, i] = max_out(m1, m2, a, 0);
  CHECK_LAST("max_dim_out_cpu");
  CHECK(&v == &m1 && &i == &m2);
  std::vector<Tensor> list{a, b};
  _foreach_add_(list, 1);
  CHECK_LAST("foreach_add_scalar_cpu_");
  empty(std::vector<int64_t>{2, 2}, std::nullopt, Device());
  CHECK_LAST("empty_cpu");
  a.var_correction();
  CHECK_LAST("var");  // CompositeImplicitAutograd: native::var (both overloads share the name)
  ops::relu::redispatch(DispatchKeySet{DispatchKey::CPU}, a);
  CHECK_LAST("relu_cpu");
  a.zero_();
  CHECK_LAST("zero_cpu_");
  const int64_t shifts[] = {1};
  a.roll(shifts);  // the list default of a method: a static member of Tensor
  CHECK_LAST("roll shifts=1 dims=1:3");
  roll(a, std::vector<int64_t>{2});
  CHECK_LAST("roll shifts=2 dims=1:3");
  std::printf("e2e ok\n");
  return 0;
}
