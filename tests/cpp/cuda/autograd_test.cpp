// Autograd through CUDA: the Autograd kernels of ops.yaml serve the AutogradCUDA key unchanged,
// so a small MLP's forward and backward on the GPU must give the CPU's loss and gradients.
#include <gtest/gtest.h>

#include "tests/cpp/cuda/cuda_test_util.h"

using namespace glassbox;
using namespace glassbox::cuda_testing;

namespace {
struct Mlp {
  Tensor w1, b1, w2, b2;
};
Mlp leaves(const Mlp& m) {
  Mlp r{m.w1.detach(), m.b1.detach(), m.w2.detach(), m.b2.detach()};
  for (Tensor* t : {&r.w1, &r.b1, &r.w2, &r.b2}) t->requires_grad_(true);
  return r;
}
Mlp moved(const Mlp& m, Device d) { return leaves(Mlp{m.w1.to(d), m.b1.to(d), m.w2.to(d), m.b2.to(d)}); }

// linear -> relu -> linear -> sigmoid * tanh, then log_softmax, a mean-square term and a sum.
Tensor loss_of(const Mlp& m, const Tensor& x, const Tensor& target) {
  const Tensor h = relu(linear(x, m.w1, m.b1));
  const Tensor y = mul(sigmoid(linear(h, m.w2, m.b2)), tanh(h.narrow(1, 0, 10)));
  const Tensor diff = sub(y, target);
  const Tensor mse = mean(mul(diff, diff));
  const int64_t d1[] = {1};
  const Tensor nll = neg(mean(sum(mul(log_softmax(y, 1), target), IntArrayRef(d1))));
  return add(mse, mul(nll, Scalar(0.1)));
}
}  // namespace

TEST(CudaAutograd, MlpForwardAndBackwardMatchTheCpu) {
  GB_REQUIRE_GPU();
  const Mlp init{mul(random_cpu({48, 32}, ScalarType::Float32), Scalar(0.2)), random_cpu({48}, ScalarType::Float32),
                 mul(random_cpu({10, 48}, ScalarType::Float32), Scalar(0.2)), random_cpu({10}, ScalarType::Float32)};
  const Tensor x = random_cpu({64, 32}, ScalarType::Float32);
  const Tensor target = softmax(random_cpu({64, 10}, ScalarType::Float32), 1);

  const Mlp cpu = moved(init, kCpu), gpu = moved(init, kCuda);
  const Tensor cpu_loss = loss_of(cpu, x, target);
  const Tensor gpu_loss = loss_of(gpu, on_cuda(x), on_cuda(target));
  ASSERT_EQ(gpu_loss.device(), kCuda);
  EXPECT_TRUE(gpu_loss.requires_grad());
  EXPECT_TRUE(matches(gpu_loss, cpu_loss, 1e-5, 1e-6));
  cpu_loss.backward();
  gpu_loss.backward();
  const std::pair<const char*, std::pair<Tensor, Tensor>> grads[] = {{"w1", {gpu.w1.grad(), cpu.w1.grad()}},
                                                                     {"b1", {gpu.b1.grad(), cpu.b1.grad()}},
                                                                     {"w2", {gpu.w2.grad(), cpu.w2.grad()}},
                                                                     {"b2", {gpu.b2.grad(), cpu.b2.grad()}}};
  for (const auto& [name, g] : grads) {
    ASSERT_TRUE(g.first.defined()) << name;
    EXPECT_TRUE(matches(g.first, g.second, 1e-4, 1e-6)) << name;
  }
  // A second backward accumulates into .grad on the device.
  const Tensor again = loss_of(gpu, on_cuda(x), on_cuda(target));
  again.backward();
  EXPECT_TRUE(matches(gpu.b2.grad(), mul(cpu.b2.grad(), Scalar(2.0)), 1e-4, 1e-6));
}
