// In-place writes through views, and to the base of views: the gradient reaches the history of
// both (the base's grad_fn becomes CopySlices; a view's is made again from its base), and the
// writes autograd cannot follow are refused.
#include <gtest/gtest.h>

#include "engine/autograd/engine.h"
#include "engine/autograd/grad_mode.h"
#include "engine/autograd/node.h"
#include "engine/core/error.h"
#include "glassbox/ops/Functions.h"

using namespace glassbox;

namespace {
Tensor leaf(std::vector<float> v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, ScalarType::Float32);
  std::copy(v.begin(), v.end(), t.data<float>());
  t.requires_grad_();
  return t;
}
std::vector<float> values(const Tensor& t) {
  const Tensor c = clone(t);
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}
}  // namespace

TEST(AutogradViews, InPlaceThroughAWholeViewScalesTheGradient) {
  Tensor x = leaf({1, 1, 1});
  Tensor y = mul(x, Scalar(1.0));
  y.view({-1}).mul_(Scalar(2.0));
  sum(y).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(y.grad_fn()->name(), "CopySlices");
}

TEST(AutogradViews, InPlaceThroughOneElement) {
  Tensor x = leaf({1, 1, 1});
  Tensor y = mul(x, Scalar(1.0));
  y.select(0, 0).mul_(Scalar(3.0));
  sum(y).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{3, 1, 1}));
}

TEST(AutogradViews, AnOlderViewFollowsAWriteToItsBase) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = mul(x, Scalar(1.0));
  Tensor v = slice(y, 0, 1);
  y.mul_(Scalar(5.0));
  sum(mul(v, v)).backward();  // v = 5 x[1:], d/dx sum(v^2) = 50 x[1:]
  EXPECT_EQ(values(x.grad()), (std::vector<float>{0, 100, 150}));
}

TEST(AutogradViews, AWriteWithAGradientGivesTheBaseAHistory) {
  Tensor w = leaf({2, 3});
  Tensor b = zeros({3});
  Tensor first_two = slice(b, 0, 0, 2);
  EXPECT_FALSE(first_two.requires_grad());
  slice(b, 0, 1).add_(w);
  ASSERT_TRUE(b.grad_fn());
  EXPECT_EQ(b.grad_fn()->name(), "CopySlices");
  EXPECT_TRUE(first_two.requires_grad());
  sum(mul(b, b)).backward();  // b = [0, 2, 3]
  EXPECT_EQ(values(w.grad()), (std::vector<float>{4, 6}));
}

TEST(AutogradViews, FillThroughAViewStopsTheGradient) {
  Tensor x = leaf({1, 1, 1});
  Tensor y = mul(x, Scalar(2.0));
  y.select(0, 0).fill_(Scalar(7.0));
  sum(mul(y, y)).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{0, 8, 8}));
}

TEST(AutogradViews, WritesAutogradCannotFollowAreRefused) {
  Tensor x = leaf({1, 1, 1});
  EXPECT_THROW(x.select(0, 0).mul_(Scalar(2.0)), Error);  // a view of a leaf that requires grad
  {
    autograd::NoGradGuard no_grad;  // initialisation does this
    x.select(0, 0).fill_(Scalar(5.0));
  }
  EXPECT_EQ(values(x), (std::vector<float>{5, 1, 1}));
  Tensor y = exp(x);
  y.select(0, 1).mul_(Scalar(2.0));  // exp's backward needs its result
  EXPECT_THROW(sum(y).backward(), Error);
}
